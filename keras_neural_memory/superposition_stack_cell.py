"""`SuperpositionStackCell`: the Stack-RNN of Joulin & Mikolov (2015)."""

import keras
from keras import ops
from keras import tree

from keras_neural_memory import superposition_stack
from keras_neural_memory.memory_cell import check_controller_cell, controller_output_size, flat_state_sizes
from keras_neural_memory.validation import check_positive_int


@keras.saving.register_keras_serializable(package="keras_neural_memory")
class SuperpositionStackCell(keras.layers.Layer):
    """An RNN cell that gives any controller cell a superposition stack.

    The stack of Joulin & Mikolov (2015), "Inferring Algorithmic Patterns
    with Stack-Augmented Recurrent Nets", as the Stack-RNN of Delétang et
    al. (2023), "Neural Networks and the Chomsky Hierarchy", uses it (their
    `models/stack_rnn.py`, in google-deepmind/neural_networks_chomsky_hierarchy).
    The stack holds `stack_size` vectors of `stack_cell_size`, top first,
    and starts as zeros. At step `t`, with `S_{t-1}` the stack:

        h_t, state_t = controller(concat(x_t, S_{t-1}[0]), state_{t-1})
        v_t = W_v h_t + b_v                     (push value, no activation)
        a_t = softmax(W_a h_t + b_a)            (push, pop, no-op)
        S_t = a_t[push]  * [v_t, S_{t-1}[0], ..., S_{t-1}[n-2]]
            + a_t[pop]   * [S_{t-1}[1], ..., S_{t-1}[n-1], 0]
            + a_t[no-op] * S_{t-1}

    A push lets the bottom vector fall off; a pop brings a zero vector in
    at the bottom. The controller reads only the top vector, and the cell's
    output is the controller's output `h_t`: the authors' model puts a ReLU
    and a linear readout after the RNN, outside the core. The stack update
    is `keras_neural_memory.superposition_stack.update_stack`.

    The stack size is fixed: run the cell with `keras.layers.RNN` (not
    `MemoryRNN`, which sizes the memories of `StackCell`, `QueueCell` and
    `DequeCell` from each input). Masked steps keep the previous state.

    The RNN state is a flat list: the previous output `h_{t-1}` (Keras'
    masking on JAX reads the output of a masked step from the first
    state), the controller's states, then the stack flattened to
    `stack_size * stack_cell_size`.

    Args:
        controller: Any Keras RNN cell with a known output size, e.g.
            `VanillaRNNCell(256)` (the authors' `stack_rnn`, `hk.VanillaRNN`) or
            `keras.layers.LSTMCell(256)` (their `stack_lstm`), `GRUCell`,
            `StackedRNNCells` or a user's cell. Its input is
            `concat(x_t, top of the stack)`. An RNN layer raises a
            `TypeError`, and a cell with dropout a `ValueError`.
        stack_size: Number of vectors the stack holds (the authors'
            default is 30).
        stack_cell_size: Size of each stack vector.
        kernel_initializer: Initializer of the two heads' kernels (push
            value and actions). The authors' Haiku `Linear` draws a normal
            truncated at two standard deviations of `1 / sqrt(fan_in)`:
            `keras.initializers.VarianceScaling(0.8796**2, "fan_in",
            "truncated_normal")`.
        bias_initializer: Initializer of the heads' biases (zeros, as the
            authors').
        kernel_regularizer: Regularizer of the heads' kernels.
        **kwargs: Base `keras.layers.Layer` arguments (`name`, `dtype`).

    Call arguments:
        inputs: `(batch, features)` the input at one step.
        states: The flat list of state tensors (see above).
        training: Passed on to the controller.

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import SuperpositionStackCell

    cell = SuperpositionStackCell(keras.layers.SimpleRNNCell(32), stack_size=30, stack_cell_size=8)
    inputs = keras.Input((None, 4))
    x = keras.layers.RNN(cell, return_sequences=True)(inputs)
    # The authors' readout, outside the cell: a ReLU, then a linear layer.
    logits = keras.layers.Dense(5)(keras.layers.ReLU()(x))
    model = keras.Model(inputs, logits)
    print(model(np.zeros((2, 7, 4), "float32")).shape)  # (2, 7, 5)
    print(cell.state_size)  # [32, 32, 240]: h_{t-1}, the RNN's h, the stack (30 * 8)
    ```
    """

    def __init__(
        self,
        controller,
        stack_size,
        stack_cell_size,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        check_controller_cell(controller)
        check_positive_int("stack_size", stack_size)
        check_positive_int("stack_cell_size", stack_cell_size)
        output_size = controller_output_size(controller)
        if output_size is None:
            raise ValueError(
                "`controller` must have a known output size (an `output_size` attribute or a state), which "
                f"controller={controller.name!r} lacks: use a recurrent cell such as `keras.layers.LSTMCell(256)`."
            )
        self.controller = controller
        self.stack_size = stack_size
        self.stack_cell_size = stack_cell_size
        self.output_size = output_size
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self._controller_state_sizes = flat_state_sizes(controller)

    @property
    def state_size(self):
        return [self.output_size, *self._controller_state_sizes, self.stack_size * self.stack_cell_size]

    def build(self, input_shape):
        # A deserialised controller arrives built; building it again breaks loading.
        if not self.controller.built:
            self.controller.build((input_shape[0], input_shape[-1] + self.stack_cell_size))
        self.push_value_kernel = self.add_weight(
            name="push_value_kernel",
            shape=(self.output_size, self.stack_cell_size),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.push_value_bias = self.add_weight(
            name="push_value_bias", shape=(self.stack_cell_size,), initializer=self.bias_initializer
        )
        num_actions = len(superposition_stack.ACTIONS)
        self.action_kernel = self.add_weight(
            name="action_kernel",
            shape=(self.output_size, num_actions),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.action_bias = self.add_weight(name="action_bias", shape=(num_actions,), initializer=self.bias_initializer)

    def get_initial_state(self, batch_size=None):
        """An empty (zero) stack, and the controller's own initial state.

        Args:
            batch_size: Batch size.

        Returns:
            A flat list of tensors matching `state_size`.
        """
        dtype = self.compute_dtype
        controller_initial_state = getattr(self.controller, "get_initial_state", None)
        if controller_initial_state is None:
            controller = [ops.zeros((batch_size, size), dtype=dtype) for size in self._controller_state_sizes]
        else:
            controller = [ops.cast(s, dtype) for s in tree.flatten(controller_initial_state(batch_size=batch_size))]
        stack = superposition_stack.initial_stack(batch_size, self.stack_size, self.stack_cell_size, dtype=dtype)
        return [
            ops.zeros((batch_size, self.output_size), dtype=dtype),
            *controller,
            ops.reshape(stack, (batch_size, self.stack_size * self.stack_cell_size)),
        ]

    def step(self, inputs, states, training=None):
        """One step, with the stack's actions.

        This is `call` plus inspection: `call` uses it and drops the dict.

        Returns:
            `(output, new_states, info)` where `info` has `actions`
            `(batch, 3)`, the softmax over `superposition_stack.ACTIONS`
            (push, pop, no-op), `push_value` `(batch, stack_cell_size)` and
            `stack` `(batch, stack_size, stack_cell_size)`, the stack
            after the step.
        """
        controller_states = list(states[1:-1])
        stack = ops.reshape(states[-1], (-1, self.stack_size, self.stack_cell_size))
        controller_input = ops.concatenate([inputs, ops.cast(stack[:, 0, :], inputs.dtype)], axis=-1)
        structure = self.controller.state_size
        packed = tree.pack_sequence_as([structure] if isinstance(structure, int) else structure, controller_states)
        kwargs = {"training": training} if self.controller._call_has_training_arg else {}
        output, new_controller_states = self.controller(controller_input, packed, **kwargs)
        push_value = ops.matmul(output, self.push_value_kernel) + self.push_value_bias
        actions = ops.softmax(ops.matmul(output, self.action_kernel) + self.action_bias, axis=-1)
        new_stack = superposition_stack.update_stack(stack, actions, push_value)
        info = {"actions": actions, "push_value": push_value, "stack": new_stack}
        new_stack = ops.reshape(new_stack, (-1, self.stack_size * self.stack_cell_size))
        return output, [output, *tree.flatten(new_controller_states), new_stack], info

    def call(self, inputs, states, training=None):
        output, new_states, _ = self.step(inputs, states, training=training)
        return output, new_states

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "controller": keras.saving.serialize_keras_object(self.controller),
                "stack_size": self.stack_size,
                "stack_cell_size": self.stack_cell_size,
                "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                "bias_initializer": keras.initializers.serialize(self.bias_initializer),
                "kernel_regularizer": keras.regularizers.serialize(self.kernel_regularizer),
            }
        )
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        controller = config["controller"]
        config["controller"] = keras.saving.deserialize_keras_object(controller, custom_objects=custom_objects)
        return cls(**config)
