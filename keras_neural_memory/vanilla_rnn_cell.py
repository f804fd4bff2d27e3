"""`VanillaRNNCell`: the fully connected RNN cell of Haiku's `hk.VanillaRNN`, as the Stack-RNN's controller."""

import keras
from keras import ops

from keras_neural_memory.validation import check_positive_int


@keras.saving.register_keras_serializable(package="keras_neural_memory")
class VanillaRNNCell(keras.layers.Layer):
    """A fully connected RNN cell with a bias on its input and on its recurrent projection.

    At step `t`, with `x_t` the input and `h_{t-1}` the previous output:

        h_t = activation(W_i x_t + b_i + W_h h_{t-1} + b_h)

    With the default ReLU this is Haiku's `hk.VanillaRNN` (with its default
    `double_bias=True`), the controller of the Stack-RNN of Delétang et al.
    (2023). `keras.layers.SimpleRNNCell` differs in two ways: its default
    activation is tanh, and it has one bias. The two biases compute the
    same function as one, but they are two parameters that an optimiser
    moves separately: under Adam, from the same gradient, their sum moves
    twice as far per step as a single bias would.

    Args:
        units: Size of the output and state `h_t`.
        activation: Activation of `h_t`; "relu", as Haiku's.
        kernel_initializer: Initializer of `W_i`.
        recurrent_initializer: Initializer of `W_h`.
        bias_initializer: Initializer of `b_i` and `b_h` (zeros, as Haiku's).
        **kwargs: Base `keras.layers.Layer` arguments (`name`, `dtype`).

    Call arguments:
        inputs: `(batch, features)` the input at one step.
        states: `[h_{t-1}]`, `(batch, units)`.

    Returns:
        `(h_t, [h_t])`.

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import VanillaRNNCell

    layer = keras.layers.RNN(VanillaRNNCell(16), return_sequences=True)
    print(layer(np.ones((2, 5, 3), "float32")).shape)  # (2, 5, 16)
    print([w.name for w in layer.weights])  # ['kernel', 'bias', 'recurrent_kernel', 'recurrent_bias']
    ```
    """

    def __init__(
        self,
        units,
        activation="relu",
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        **kwargs,
    ):
        super().__init__(**kwargs)
        check_positive_int("units", units)
        self.units = units
        self.activation = keras.activations.get(activation)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.recurrent_initializer = keras.initializers.get(recurrent_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units), initializer=self.kernel_initializer)
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer=self.bias_initializer)
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel", shape=(self.units, self.units), initializer=self.recurrent_initializer
        )
        self.recurrent_bias = self.add_weight(name="recurrent_bias", shape=(self.units,), initializer=self.bias_initializer)

    def call(self, inputs, states, training=False):
        previous = states[0] if isinstance(states, (list, tuple)) else states
        input_part = ops.matmul(inputs, self.kernel) + self.bias
        recurrent_part = ops.matmul(previous, self.recurrent_kernel) + self.recurrent_bias
        output = self.activation(input_part + recurrent_part)
        return output, [output]

    def get_initial_state(self, batch_size=None):
        """A zero state, as Haiku's.

        Args:
            batch_size: Batch size.

        Returns:
            `[zeros (batch_size, units)]`.
        """
        return [ops.zeros((batch_size, self.units), dtype=self.compute_dtype)]

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "units": self.units,
                "activation": keras.activations.serialize(self.activation),
                "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                "recurrent_initializer": keras.initializers.serialize(self.recurrent_initializer),
                "bias_initializer": keras.initializers.serialize(self.bias_initializer),
            }
        )
        return config
