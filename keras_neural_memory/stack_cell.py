"""`StackCell`: any controller cell with a Neural Stack."""

from keras.saving import register_keras_serializable

from keras_neural_memory import memory
from keras_neural_memory.memory_cell import MemoryCell, document_cell_arguments


@register_keras_serializable(package="keras_neural_memory")
@document_cell_arguments(controller_input="concat(x_t, r_{t-1})", heads="the push, pop and value")
class StackCell(MemoryCell):
    """An RNN cell that gives any controller cell a Neural Stack (paper §3.1, 3.4).

    Each step pops from the top, pushes `v_t` on the top and reads from the top
    (eqs. 1-3).

    {cell_arguments}

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import StackCell

    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(10, 8, mask_zero=True)(inputs)
    x = keras.layers.RNN(StackCell(keras.layers.LSTMCell(16)), return_sequences=True)(x)
    # or, with memory sized from each input's length:
    # x = keras_neural_memory.MemoryRNN(StackCell(keras.layers.LSTMCell(16)),
    #                                   return_sequences=True)(x)
    logits = keras.layers.Dense(10)(x)
    model = keras.Model(inputs, logits)
    print(model(np.array([[1, 2, 3, 0], [4, 5, 0, 0]])).shape)  # (2, 4, 10)
    ```
    """

    memory_class = memory.NeuralStack
