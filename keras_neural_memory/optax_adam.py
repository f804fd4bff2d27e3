"""`OptaxAdam`: Adam with its epsilon where `optax.adam` adds it, the optimiser of Delétang et al. (2023)."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="keras_neural_memory")
class OptaxAdam(keras.optimizers.Adam):
    """Adam as `optax.adam` computes it: epsilon added to the root of the bias-corrected second moment.

    At step `t`, with gradient `g`:

        m = beta_1 m + (1 - beta_1) g
        v = beta_2 v + (1 - beta_2) g^2
        w = w - learning_rate * (m / (1 - beta_1^t)) / (sqrt(v / (1 - beta_2^t)) + epsilon)

    `keras.optimizers.Adam` folds the bias corrections into the learning
    rate and adds its epsilon to `sqrt(v)` before the correction, which is
    `epsilon / sqrt(1 - beta_2^t)` in the form above: 32 times its epsilon
    at the first step, and a different step wherever `sqrt(v)` is not far
    above it. No choice of Keras' epsilon gives optax's steps. With
    `global_clipnorm=1.0` this is `optax.chain(optax.clip_by_global_norm(1.0),
    optax.adam(learning_rate))`, the optimiser of the Chomsky-hierarchy
    benchmark (Keras' global-norm clipping scales the gradients by
    `1 / norm` where the norm exceeds 1, as optax's does).

    Args:
        learning_rate: The learning rate (a float or a schedule).
        beta_1: Decay of the first moment (optax's `b1`).
        beta_2: Decay of the second moment (optax's `b2`).
        epsilon: Added to the root of the bias-corrected second moment
            (optax's `eps`, 1e-8).
        **kwargs: Base `keras.optimizers.Optimizer` arguments
            (`global_clipnorm`, `name`, ...). `amsgrad` is not optax's
            Adam and raises a `ValueError`.

    Example:

    ```python
    import keras
    from keras_neural_memory import OptaxAdam

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(OptaxAdam(5e-4, global_clipnorm=1.0), "mse")
    print(model.optimizer.epsilon)  # 1e-08
    ```
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-8, name="optax_adam", **kwargs):
        if kwargs.pop("amsgrad", False):
            raise ValueError("`amsgrad` is not part of optax.adam; received amsgrad=True. Leave it out.")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, amsgrad=False,
                         name=name, **kwargs)  # fmt: skip

    def update_step(self, gradient, variable, learning_rate):
        """One step of `variable` from its `gradient` (already clipped)."""
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        step = ops.cast(self.iterations + 1, dtype)
        beta_1, beta_2 = ops.cast(self.beta_1, dtype), ops.cast(self.beta_2, dtype)
        index = self._get_variable_index(variable)
        m, v = self._momentums[index], self._velocities[index]
        self.assign(m, beta_1 * m + (1 - beta_1) * gradient)
        self.assign(v, beta_2 * v + (1 - beta_2) * ops.square(gradient))
        m_hat = m / (1 - ops.power(beta_1, step))
        v_hat = v / (1 - ops.power(beta_2, step))
        self.assign_sub(variable, lr * m_hat / (ops.sqrt(v_hat) + self.epsilon))
