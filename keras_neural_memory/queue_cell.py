"""`QueueCell`: any controller cell with a Neural Queue."""

from keras.saving import register_keras_serializable

from keras_neural_memory import memory
from keras_neural_memory.memory_cell import MemoryCell, document_cell_arguments


@register_keras_serializable(package="keras_neural_memory")
@document_cell_arguments(controller_input="concat(x_t, r_{t-1})", heads="the push, pop and value")
class QueueCell(MemoryCell):
    """An RNN cell that gives any controller cell a Neural Queue (paper §3.2, 3.4).

    Each step dequeues from the bottom, enqueues `v_t` at the top and reads from the
    bottom (eqs. 1, 4, 5).

    {cell_arguments}

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import QueueCell

    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(10, 8, mask_zero=True)(inputs)
    x = keras.layers.RNN(QueueCell(keras.layers.LSTMCell(16)), return_sequences=True)(x)
    # or, with memory sized from each input's length:
    # x = keras_neural_memory.MemoryRNN(QueueCell(keras.layers.LSTMCell(16)),
    #                                   return_sequences=True)(x)
    logits = keras.layers.Dense(10)(x)
    model = keras.Model(inputs, logits)
    print(model(np.array([[1, 2, 3, 0], [4, 5, 0, 0]])).shape)  # (2, 4, 10)
    ```
    """

    memory_class = memory.NeuralQueue
