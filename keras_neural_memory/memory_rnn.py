"""`MemoryRNN`: runs a memory cell with memory sized from each input."""

import keras
from keras import ops
from keras import tree
from keras.saving import register_keras_serializable

from keras_neural_memory import backend_ops
from keras_neural_memory import fused_scan
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

    `MemoryRNN` is the fast path. On the TensorFlow and JAX backends it runs
    the cell with a fused whole-sequence scan (`keras_neural_memory.fused_scan`)
    whose backward pass rebuilds the append-only value matrix instead of
    storing it at every step: training memory grows linearly in the length,
    not quadratically, with the same outputs and gradients. It falls back to
    Keras' generic RNN loop, automatically, when `unroll=True`, on any other
    backend, or with `fused=False`. A plain `keras.layers.RNN` over a memory
    cell always uses the generic loop. Without an `initial_state`, the
    fused scan runs a sequence of 256 steps or more on a memory grown as it
    fills (`keras_neural_memory.fused_scan.growth_plan`): the same results,
    with fewer empty slots passed over.

    Args:
        cell: A `StackCell`, `QueueCell` or `DequeCell`.
        fused: Use the fused scan where it applies (default True). Pass
            False for a controller whose output for one batch row depends
            on other rows (e.g. batch statistics): the fused backward pass
            takes the weight gradients over all rows at once.
        **kwargs: The arguments of `keras.layers.RNN` (`return_sequences`,
            `return_state`, `go_backwards`, `unroll`, `zero_output_for_mask`),
            except `stateful`: the memory is rebuilt at each call.

    Call arguments:
        sequences: `(batch, time, features)`; another rank raises a
            `ValueError` naming the shape received. `time` may be 0: no
            step is taken, so the output is `(batch, 0, output_size)`
            (`return_sequences=True`) or the initial output state, and
            the final states are the initial states. On TensorFlow the
            zero length must be known when the call is traced: a graph
            traced for any length (a `tf.function` with `None` time, or
            Keras' `fit`/`predict` after retracing) fails on it.
        initial_state: Optional list of states from `cell.get_initial_state`
            (with `capacity` at least `time`) or a previous `return_state`.
        mask: `(batch, time)` boolean mask; masked steps leave the memory
            unchanged.
        training: Passed on to the cell. While training, a cell with
            `strength_noise` gets its noise here (`draw_strength_noise`).

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import MemoryRNN, StackCell

    layer = MemoryRNN(StackCell(keras.layers.LSTMCell(16)), return_sequences=True)
    short = layer(np.zeros((2, 8, 4), "float32"))
    long = layer(np.zeros((2, 100, 4), "float32"))  # same weights, no rebuild
    print(short.shape, long.shape)  # (2, 8, 16) (2, 100, 16)
    ```
    """

    def __init__(self, cell, fused=True, **kwargs):
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
        if not isinstance(fused, bool):
            raise TypeError(f"`fused` must be True or False; received fused={fused!r}.")
        super().__init__(cell, **kwargs)
        self.fused = fused

    @property
    def runs_fused(self):
        """Whether calls take the fused scan (see the class docstring)."""
        return self.fused and not self.unroll and backend_ops.supports_fused_scan()

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

    def build(self, sequences_shape, initial_state_shape=None):
        # The first call builds: checked here, the error is not wrapped in
        # Keras' report of the call's arguments.
        self._check_sequences_shape(sequences_shape)
        super().build(sequences_shape, initial_state_shape)

    def _check_sequences_shape(self, shape):
        if getattr(shape, "rank", 0) is None:  # a TensorFlow shape of unknown rank
            return
        shape = tuple(shape)
        if len(shape) != 3:
            raise ValueError(
                f"`MemoryRNN` layer '{self.name}' expects `sequences` of shape (batch, time, features); "
                f"received shape {shape}."
            )

    def _empty_call(self, sequences, initial_state):
        """A call on `time == 0`: no step is taken, so the states are the initial ones."""
        if initial_state is None:
            initial_state = self.cell.get_initial_state(batch_size=ops.shape(sequences)[0], capacity=0)
        states = [ops.cast(state, self.compute_dtype) for state in tree.flatten(initial_state)]
        # The output state (`states[0]`) is the last output; no step gives an empty sequence of them.
        output = ops.expand_dims(states[0], 1)[:, :0] if self.return_sequences else states[0]
        if self.return_state:
            return output, *states
        return output

    def call(self, sequences, initial_state=None, mask=None, training=False):
        self._check_sequences_shape(sequences.shape)
        if sequences.shape[1] == 0:
            return self._empty_call(sequences, initial_state)
        memory_starts_empty = initial_state is None
        if memory_starts_empty:
            shape = ops.shape(sequences)
            initial_state = self.cell.get_initial_state(batch_size=shape[0], capacity=shape[1])
        if training and self.cell.strength_noise:
            # Drawn for the whole input, outside the loop: a seed cannot advance inside a JAX scan.
            sequences = ops.concatenate([sequences, self.cell.draw_strength_noise(sequences)], axis=-1)
        if not self.runs_fused:
            return super().call(sequences, initial_state=initial_state, mask=mask, training=training)
        dtype = self.cell.compute_dtype
        initial_state = [ops.convert_to_tensor(state, dtype=dtype) for state in tree.flatten(initial_state)]
        outputs, states = fused_scan.memory_scan(
            self.cell,
            sequences,
            initial_state,
            mask=mask,
            training=training,
            go_backwards=self.go_backwards,
            zero_output_for_mask=self.zero_output_for_mask,
            memory_starts_empty=memory_starts_empty,
        )
        outputs = ops.cast(outputs, self.compute_dtype)
        output = outputs if self.return_sequences else outputs[:, -1]
        if self.return_state:
            return output, *[ops.cast(state, self.compute_dtype) for state in states]
        return output

    def get_config(self):
        return {**super().get_config(), "fused": self.fused}
