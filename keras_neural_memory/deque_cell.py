"""`DequeCell`: any controller cell with a Neural DeQue."""

import keras
from keras import ops
from keras.saving import register_keras_serializable

from keras_neural_memory import memory
from keras_neural_memory.memory_cell import MemoryCell, document_cell_arguments
from keras_neural_memory.memory_options import check_option, check_strength_noise_ends
from keras_neural_memory.validation import check_real

_QUIET_END_ARGUMENTS = """\
    quiet_end: Which end of the DeQue starts quiet: its push and pop
        biases start at `quiet_bias_init` instead of `push_bias_init` and
        `pop_bias_init`. None, the default, starts both ends alike, as in
        the paper; "random" draws the end once, when the cell is built
        (from `seed`); "top" or "bottom" names it; "both" starts both
        ends quiet, alike again, but each gate near 0. Started alike, both
        ends push about half of every input and the DeQue settles on a
        blend of each end's latest pushes; with one end quiet, the other
        can act as a stack (read where it pushes) or a queue (read the
        quiet end), so training can find either algorithm. The draw does
        not depend on the task; the cell's config records the end drawn.
    quiet_bias_init: The quiet end's initial push and pop bias; -2.9.
        With `gate_activation="hard_sigmoid"` that is a strength of 1/60,
        whose gradient is that of any other unclipped strength.
    strength_noise_ends: Which ends' push and pop logits get
        `strength_noise`: "all", the default, or "quiet", the quiet end
        (or ends) of `quiet_end` only. The noise wakes the quiet end with
        whole pushes and pops, while the other end trains as without it.
"""


@register_keras_serializable(package="keras_neural_memory")
@document_cell_arguments(
    controller_input="concat(x_t, r_{t-1}^top, r_{t-1}^bot)",
    heads="the push, pop and value of both ends",
    slots_note="; the DeQue keeps 2 slots per step",
    seed_note=" and of the quiet end's draw",
    extra_arguments=_QUIET_END_ARGUMENTS,
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

    # One end, drawn at random, starts quiet, with hard-sigmoid gates:
    cell = DequeCell(keras.layers.LSTMCell(16), gate_activation="hard_sigmoid",
                     quiet_end="random", seed=0)
    print(cell.get_config()["quiet_end"] in ("top", "bottom"))  # True: the end drawn
    # ... and, trained in a MemoryRNN, strength noise on that end only:
    cell = DequeCell(keras.layers.LSTMCell(16), gate_activation="hard_sigmoid",
                     quiet_end="random", strength_noise=0.5, strength_noise_ends="quiet", seed=0)
    ```
    """

    memory_class = memory.NeuralDeque

    def __init__(self, controller, *args, quiet_end=None, quiet_bias_init=-2.9, strength_noise_ends="all", **kwargs):
        super().__init__(controller, *args, **kwargs)
        check_option("quiet_end", quiet_end)
        check_real("quiet_bias_init", quiet_bias_init)
        check_strength_noise_ends(strength_noise_ends, quiet_end)
        self.quiet_end = quiet_end
        self.quiet_bias_init = float(quiet_bias_init)
        self.strength_noise_ends = strength_noise_ends
        # Drawn here, eagerly, once: the biases and the noise of the quiet end must agree.
        self.quiet_ends = self._draw_quiet_ends()

    def _draw_quiet_ends(self):
        """The indices of the ends that start quiet, in the memory's `pop_ends` order (top, bottom)."""
        if self.quiet_end is None:
            return ()
        if self.quiet_end == "both":
            return (0, 1)
        if self.quiet_end == "random":
            return (int(keras.ops.convert_to_numpy(keras.random.randint((), 0, 2, seed=self.seed))),)
        return (self.memory.pop_ends.index(self.quiet_end),)

    def initial_gate_biases(self):
        """Both ends' `(push, pop)` biases; the quiet ends' are `quiet_bias_init`."""
        biases = super().initial_gate_biases()
        for end in self.quiet_ends:
            biases[end] = (self.quiet_bias_init, self.quiet_bias_init)
        return biases

    def draw_strength_noise(self, sequences):
        """`MemoryCell.draw_strength_noise`, zero on the loud end with `strength_noise_ends="quiet"`."""
        noise = super().draw_strength_noise(sequences)
        if self.strength_noise_ends == "all":
            return noise
        # Columns: the push of each end, then the pop of each end.
        keep = [float(column % self.num_ends in self.quiet_ends) for column in range(self.strength_noise_size)]
        return noise * ops.convert_to_tensor(keep, dtype=noise.dtype)

    def get_config(self):
        config = super().get_config()
        # A drawn end is recorded, so that a loaded cell adds its noise where the first one did.
        quiet_end = self.memory.pop_ends[self.quiet_ends[0]] if self.quiet_end == "random" else self.quiet_end
        config.update(
            {"quiet_end": quiet_end, "quiet_bias_init": self.quiet_bias_init, "strength_noise_ends": self.strength_noise_ends}
        )
        return config
