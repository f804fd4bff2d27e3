"""`LinearController`: the feed-forward controller of Hao et al. 2018, §2.2."""

import keras
from keras.saving import register_keras_serializable


@register_keras_serializable(package="keras_neural_memory")
class LinearController(keras.layers.Layer):
    """A stateless controller: its output is its input `[x_t || r_{t-1}]`.

    Hao et al. (2018, §2.2) control a stack with "a single linear layer":
    `u_t`, `d_t` and `v_t` are sigmoids of linear maps of `[x_t || r_{t-1}]`
    and the output `y_t` is a linear map of it. A memory cell already applies
    one learned linear projection to its controller's output, so wrapping
    this identity controller gives exactly that network, with no recurrent
    state: pass `output_activation=None` and `value_activation="sigmoid"` to
    match the paper, and `output_size`/`memory_width`, which cannot be
    inferred from a controller with no units.

    It follows the RNN-cell protocol (`state_size == []`), so it is meant to
    be wrapped by `StackCell`, `QueueCell` or `DequeCell` (or passed to
    `BufferedStackRNN`), not run alone.

    Args:
        **kwargs: Base `keras.layers.Layer` arguments (`name`, `dtype`).

    Call arguments:
        inputs: `(batch, features)`.
        states: An empty list.

    Example:

    ```python
    import numpy as np
    from keras_neural_memory import LinearController, MemoryRNN, StackCell

    cell = StackCell(LinearController(), output_size=3, memory_width=2,
                     output_activation=None, value_activation="sigmoid")
    layer = MemoryRNN(cell, return_sequences=True)
    print(layer(np.zeros((2, 5, 4), "float32")).shape)  # (2, 5, 3)
    ```
    """

    state_size = []

    def call(self, inputs, states=None):
        return inputs, []
