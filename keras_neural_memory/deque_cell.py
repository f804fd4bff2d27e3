"""`DequeCell`: any controller cell with a Neural DeQue."""

from keras.saving import register_keras_serializable

from keras_neural_memory import memory
from keras_neural_memory.memory_cell import MemoryCell, document_cell_arguments


@register_keras_serializable(package="keras_neural_memory")
@document_cell_arguments(
    controller_input="concat(x_t, r_{t-1}^top, r_{t-1}^bot)",
    heads="the push, pop and value of both ends",
    slots_note="; the DeQue keeps 2 slots per step",
)
class DequeCell(MemoryCell):
    """An RNN cell that gives any controller cell a Neural DeQue (paper §3.3, 3.4).

    Each step pops the top, then the bottom, then pushes at both ends and reads from
    both ends (eqs. 6-11). Top and bottom have separate push, pop and value
    controls, and both reads are fed back.

    {cell_arguments}

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import DequeCell

    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(10, 8, mask_zero=True)(inputs)
    x = keras.layers.RNN(DequeCell(keras.layers.LSTMCell(16)), return_sequences=True)(x)
    # or, with memory sized from each input's length:
    # x = keras_neural_memory.MemoryRNN(DequeCell(keras.layers.LSTMCell(16)),
    #                                   return_sequences=True)(x)
    logits = keras.layers.Dense(10)(x)
    model = keras.Model(inputs, logits)
    print(model(np.array([[1, 2, 3, 0], [4, 5, 0, 0]])).shape)  # (2, 4, 10)
    ```
    """

    memory_class = memory.NeuralDeque
