"""`MemoryRNN`: runs a memory cell with memory sized from each input."""

import keras
from keras import ops
from keras.saving import register_keras_serializable

from keras_neural_memory.memory_cell import MemoryCell


@register_keras_serializable(package="keras_neural_memory")
class MemoryRNN(keras.layers.RNN):
    """`keras.layers.RNN` with an unbounded memory.

    A plain `keras.layers.RNN` needs a fixed state size, so a memory cell run
    by it holds `capacity` steps. `MemoryRNN` instead allocates, at every
    call, exactly as many steps of memory as the input has time steps, so the
    memory can never overflow and a model trained on length 64 runs on length
    10,000 without being rebuilt. The cell's `capacity` is ignored.

    Each new input length is a new shape: under `jit_compile=True` or on JAX
    it compiles once per length (bucket or pad lengths to limit that).

    Args:
        cell: A `StackCell`, `QueueCell` or `DequeCell`.
        **kwargs: The arguments of `keras.layers.RNN` (`return_sequences`,
            `return_state`, `go_backwards`, `unroll`, `zero_output_for_mask`),
            except `stateful`: the memory is rebuilt at each call.

    Call arguments:
        sequences: `(batch, time, features)`.
        initial_state: Optional list of states from `cell.get_initial_state`
            (with `capacity` at least `time`) or a previous `return_state`.
        mask: `(batch, time)` boolean mask; masked steps leave the memory
            unchanged.
        training: Passed on to the cell.

    Example:

    ```python
    layer = MemoryRNN(StackCell(keras.layers.LSTMCell(64)), return_sequences=True)
    short = layer(np.zeros((2, 64, 8), "float32"))      # (2, 64, 64)
    long = layer(np.zeros((2, 10_000, 8), "float32"))  # same weights, no rebuild
    ```
    """

    def __init__(self, cell, **kwargs):
        if not isinstance(cell, MemoryCell):
            raise TypeError(
                "`cell` must be a memory cell (`StackCell`, `QueueCell` or `DequeCell`); "
                f"received cell={cell!r}. Use `keras.layers.RNN` for other cells."
            )
        if kwargs.get("stateful"):
            raise ValueError(
                "`MemoryRNN` does not support `stateful=True`: it allocates a new memory "
                "for each input. Pass `return_state=True` and feed the states back as "
                "`initial_state` instead."
            )
        super().__init__(cell, **kwargs)

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        output_shape = super().compute_output_shape(sequences_shape, initial_state_shape)
        if not self.return_state:
            return output_shape
        batch_size = sequences_shape[0]
        length = sequences_shape[1]
        if length is None:
            # Unknown length: only the size of every memory state is unknown.
            sizes = self.cell.state_size_for(1)
            sizes[-3:] = [None, None, None]
        else:
            sizes = self.cell.state_size_for(length)
        return output_shape[0], *[(batch_size, size) for size in sizes]

    def call(self, sequences, initial_state=None, mask=None, training=False):
        if initial_state is None:
            shape = ops.shape(sequences)
            initial_state = self.cell.get_initial_state(batch_size=shape[0], capacity=shape[1])
        return super().call(sequences, initial_state=initial_state, mask=mask, training=training)
