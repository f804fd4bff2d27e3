"""`StackCell`: any controller cell with a Neural Stack."""

from keras.saving import register_keras_serializable

from keras_neural_memory import memory
from keras_neural_memory.memory_cell import MemoryCell


@register_keras_serializable(package="keras_neural_memory")
class StackCell(MemoryCell):
    """An RNN cell that gives any controller cell a Neural Stack (paper §3.1, 3.4).

    Each step pops from the top, pushes `v_t` on the top and reads from the top
    (eqs. 1-3).

    Args:
        controller: Any Keras RNN cell, e.g. `keras.layers.LSTMCell(256)`,
            `GRUCell`, `SimpleRNNCell`, `StackedRNNCells`, a user's cell, or
            `LinearController()`. Its input is `concat(x_t, r_{t-1}))`. It must not
            use dropout (a `ValueError` says so).
        output_size: Size of the cell's output `o_t`. Defaults to the
            controller's output size.
        memory_width: Size of each memory vector. Defaults to the controller's
            output size (the paper uses 256).
        capacity: Steps the memory can hold when run by a plain
            `keras.layers.RNN` (default 256). A longer input makes the
            reads NaN from the first step past capacity; it never wraps
            around. `MemoryRNN` ignores this and sizes the memory from each
            input's length.
        pop_bias_init: Initial bias of the pop gate(s) (Appendix B); -1.0.
        push_bias_init: Initial bias of the push gate(s); 0.0.
        output_activation: Activation of `o_t`; "tanh" as in the paper
            (Hao et al.'s linear controller uses None).
        value_activation: Activation of the pushed values; "tanh" as in the
            paper (Hao et al. use "sigmoid").
        trainable_initial_state: Learn the controller's initial state
            (the paper's `h_0`) instead of starting from zeros.
        kernel_initializer: Initializer of the fused projection from the
            controller output to `o_t`, push, pop and value.
        kernel_regularizer: Regularizer of that projection.
        **kwargs: Base `keras.layers.Layer` arguments (`name`, `dtype`).

    Call arguments:
        inputs: `(batch, features)` the input at one step.
        states: The flat list of state tensors (see `MemoryCell`).
        training: Passed on to the controller.

    Example:

    ```python
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(130, 64, mask_zero=True)(inputs)
    x = keras.layers.RNN(StackCell(keras.layers.LSTMCell(256)), return_sequences=True)(x)
    # or, with memory sized from each input's length:
    # x = keras_neural_memory.MemoryRNN(StackCell(keras.layers.LSTMCell(256)),
    #                                   return_sequences=True)(x)
    logits = keras.layers.Dense(130)(x)
    model = keras.Model(inputs, logits)
    ```
    """

    memory_class = memory.NeuralStack
