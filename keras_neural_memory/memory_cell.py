"""The shared base of `StackCell`, `QueueCell` and `DequeCell`."""

import collections
import dataclasses
import re
import textwrap

import keras
from keras import ops
from keras import tree

from keras_neural_memory import memory as memory_lib
from keras_neural_memory.memory_options import check_option
from keras_neural_memory.validation import check_int, check_positive_int, check_real

DEFAULT_CAPACITY = 256


def flat_state_sizes(cell):
    """A controller cell's `state_size` as a flat list of ints ([] if stateless).

    Args:
        cell: A Keras RNN cell.

    Returns:
        The sizes of its state tensors, in `keras.tree.flatten` order.

    Example:

    >>> import keras
    >>> flat_state_sizes(keras.layers.LSTMCell(4))  # h and c
    [4, 4]
    """
    state_size = cell.state_size
    if isinstance(state_size, int):
        return [state_size]
    return [int(size) for size in tree.flatten(state_size)]


def controller_output_size(cell):
    """A controller cell's output size if it is known before `build`, else None.

    Args:
        cell: A Keras RNN cell: its `output_size`, or else the size of its
            first state.

    Returns:
        An int, or None.

    Example:

    >>> import keras
    >>> controller_output_size(keras.layers.GRUCell(5))
    5
    """
    size = getattr(cell, "output_size", None)
    if isinstance(size, int):
        return size
    sizes = flat_state_sizes(cell)
    return sizes[0] if sizes else None


CellState = collections.namedtuple("CellState", ["output", "controller", "reads", "values", "strengths", "written"])
CellState.__doc__ = """The parts of a memory cell's RNN state, by name (see `StateLayout`).

Attributes:
    output: The previous output `o_{t-1}`.
    controller: The list of the controller's states.
    reads: The previous reads `r_{t-1}` (all ends).
    values: The value matrix `V`.
    strengths: The strengths `s`.
    written: The `written` step mask.
"""


@dataclasses.dataclass(frozen=True)
class StateLayout:
    """The order of a memory cell's flat RNN state, defined once.

    The state is the flat list `[o_{t-1}, *controller states, r_{t-1}, V, s,
    written]` (see `MemoryCell`). `split` names the parts of such a list and
    `join` puts them back in order; the cells, the fused scan and the traces
    find the parts through them.

    Args:
        num_controller_states: Tensors in the controller's state (2 for an
            LSTM, 0 for `LinearController`).

    Example:

    >>> layout = StateLayout(num_controller_states=2)  # an LSTM's h and c
    >>> layout.size
    7
    >>> parts = layout.split(["o", "h", "c", "r", "V", "s", "w"])
    >>> parts.controller, parts.values
    (['h', 'c'], 'V')
    >>> layout.join(parts._replace(reads="r2"))
    ['o', 'h', 'c', 'r2', 'V', 's', 'w']
    """

    num_controller_states: int

    @property
    def size(self):
        """Entries in the flat state."""
        return self.num_controller_states + 5

    def split(self, states):
        """The `CellState` of a flat state list (any items, in this layout's order)."""
        n = self.num_controller_states
        output, controller, (reads, values, strengths, written) = states[0], states[1 : 1 + n], states[1 + n :]
        return CellState(output, list(controller), reads, values, strengths, written)

    def join(self, parts):
        """The flat state list of a `CellState`."""
        return [parts.output, *parts.controller, parts.reads, parts.values, parts.strengths, parts.written]


def _cells_with_dropout(cell):
    """Names of `cell` and its sub-cells that use (recurrent) dropout."""
    found = []
    if getattr(cell, "dropout", 0) or getattr(cell, "recurrent_dropout", 0):
        found.append(cell.name)
    for inner in getattr(cell, "cells", []):
        found.extend(_cells_with_dropout(inner))
    return found


def check_controller_cell(controller):
    """Checks that `controller` is a Keras RNN cell a memory cell can wrap.

    Raises:
        TypeError: `controller` is not a cell (no `state_size`) or is an RNN layer.
        ValueError: it, or a cell inside it, uses dropout.
    """
    if not isinstance(controller, keras.layers.Layer) or not hasattr(controller, "state_size"):
        raise TypeError(
            "`controller` must be a Keras RNN cell: a `keras.layers.Layer` with a "
            "`state_size` attribute, such as `keras.layers.LSTMCell(256)`; "
            f"received controller={controller!r}."
        )
    if isinstance(controller, keras.layers.RNN):
        raise TypeError(
            f"`controller` must be an RNN cell, not the RNN layer {controller.name!r}: "
            "pass e.g. `keras.layers.LSTMCell(256)` instead of `keras.layers.LSTM(256)`."
        )
    with_dropout = _cells_with_dropout(controller)
    if with_dropout:
        raise ValueError(
            f"The controller cell(s) {with_dropout} use `dropout` or `recurrent_dropout`. "
            "`keras.layers.RNN` only prepares dropout masks for cells it runs directly, "
            "so dropout inside a memory cell would fail during `fit`. Build the "
            "controller with dropout=0 and recurrent_dropout=0, and put a "
            "`keras.layers.Dropout` on the RNN's inputs or outputs instead."
        )


# The `Args:` and `Call arguments:` sections shared by `MemoryCell` and its
# subclasses, written once; `document_cell_arguments` fills in what differs.
_CELL_ARGUMENTS = """Args:
    controller: Any Keras RNN cell, e.g. `keras.layers.LSTMCell(256)`,
        `GRUCell`, `SimpleRNNCell`, `StackedRNNCells`, a user's cell, or
        `LinearController()`. Its input is `{controller_input}`. An RNN
        layer raises a `TypeError`, and a cell with dropout a `ValueError`.
    output_size: Size of the cell's output `o_t`. Defaults to the
        controller's output size.
    memory_width: Size of each memory vector. Defaults to the controller's
        output size (the paper uses 256).
    capacity: Steps the memory can hold when run by a plain
        `keras.layers.RNN` (default 256{slots_note}). A longer input makes
        the reads NaN from the first step past capacity; it never wraps
        around. `MemoryRNN` ignores this and sizes the memory from each
        input's length.
    pop_bias_init: Initial bias of the pop gate(s) (Appendix B); -1.0.
    push_bias_init: Initial bias of the push gate(s); 0.0.
    gate_activation: Activation of the push and pop logits: "sigmoid", as
        in the paper, or "hard_sigmoid" (`relu6(x + 3) / 6`), which is
        exactly 0 below -3 and exactly 1 above 3, so that an end's push
        can stop altogether rather than leak a little every step.
    output_activation: Activation of `o_t`; "tanh" as in the paper
        (Hao et al.'s linear controller uses None).
    value_activation: Activation of the pushed values; "tanh" as in the
        paper (Hao et al. use "sigmoid").
    trainable_initial_state: Learn the controller's initial state
        (the paper's `h_0`) instead of starting from zeros.
    kernel_initializer: Initializer of the fused projection from the
        controller output to `o_t` and {heads}.
    kernel_regularizer: Regularizer of that projection.
    strength_noise: Standard deviation of Gaussian noise added to every
        push and pop logit (before the sigmoid) while training; 0.0, the
        default, adds none. The noise drives the strengths to 0 and 1,
        where it does not change them, and so favours whole pushes and
        pops over the fractional ones that stop soft models from
        generalising to longer inputs (see the results on bigram
        flipping). Only `MemoryRNN` draws it: training the cell in a plain
        `keras.layers.RNN` with noise raises a `ValueError`. Inference
        never adds noise.
    seed: Seed of that noise{seed_note} (an int, or None for Keras' global seed).
{extra_arguments}    **kwargs: Base `keras.layers.Layer` arguments (`name`, `dtype`).

Call arguments:
    inputs: `(batch, features)` the input at one step (followed, when
        `MemoryRNN` trains a cell with `strength_noise`, by that step's
        noise, see `draw_strength_noise`).
    states: The flat list of state tensors (see `MemoryCell`).
    training: Passed on to the controller."""


def document_cell_arguments(controller_input, heads, slots_note="", seed_note="", extra_arguments=""):
    """Class decorator: the shared argument sections in place of `{cell_arguments}`.

    The placeholder stands alone on a line of the class docstring; the
    sections take its indentation (Python 3.13 strips docstring indentation).
    `extra_arguments` documents a subclass's own arguments, in the shared
    sections' indentation, before `**kwargs`.
    """
    sections = _CELL_ARGUMENTS.format(
        controller_input=controller_input,
        heads=heads,
        slots_note=slots_note,
        seed_note=seed_note,
        extra_arguments=extra_arguments,
    )

    def decorate(cls):
        def indented(match):
            return textwrap.indent(sections, match.group(1))

        cls.__doc__ = re.sub(r"^( *)\{cell_arguments\}$", indented, cls.__doc__, count=1, flags=re.M)
        return cls

    return decorate



@document_cell_arguments(controller_input="concat(x_t, r_{t-1})", heads="the push, pop and value of each end")
class MemoryCell(keras.layers.Layer):
    """Base class of the memory-augmented RNN cells (paper §3.4).

    Wraps any controller RNN cell. At step `t` the controller reads
    `concat(x_t, r_{t-1})` (both reads for a DeQue) and its previous state,
    and from its output `o'_t` the cell computes, for each end of the memory,

        d_t = sigmoid(W_d o'_t + b_d)   (push)
        u_t = sigmoid(W_u o'_t + b_u)   (pop)
        v_t = tanh(W_v o'_t + b_v)      (value)

    and the cell's output `o_t = tanh(W_o o'_t + b_o)`. The memory (a
    `keras_neural_memory.memory` object, no trainable weights) then pops,
    pushes and reads, giving `r_t`.

    Subclasses set `memory_class`. Users pick `StackCell`, `QueueCell` or
    `DequeCell`; see their docstrings for the arguments and examples.

    The RNN state is a flat list, in this order (`state_layout`): the
    previous output `o_{t-1}` (Keras' masking on JAX reads the output of a
    masked step from the first state), the controller's states, the previous
    reads, then the memory's values (flattened to `slots * memory_width`),
    strengths and the `written` step mask.

    {cell_arguments}

    Example:

    ```python
    import keras
    from keras_neural_memory import MemoryCell, StackCell

    cell = StackCell(keras.layers.LSTMCell(32), memory_width=8)
    print(isinstance(cell, MemoryCell))  # True, as for QueueCell and DequeCell
    print(cell.state_size_for(100))
    # [32, 32, 32, 8, 800, 100, 100]: o_{t-1}, the LSTM's h and c, r_{t-1},
    # V (100 slots * 8), s (100 slots), `written` (100 steps)
    ```
    """

    memory_class = None

    def __init__(
        self,
        controller,
        output_size=None,
        memory_width=None,
        capacity=DEFAULT_CAPACITY,
        pop_bias_init=-1.0,
        push_bias_init=0.0,
        gate_activation="sigmoid",
        output_activation="tanh",
        value_activation="tanh",
        trainable_initial_state=False,
        kernel_initializer="glorot_uniform",
        kernel_regularizer=None,
        strength_noise=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        check_controller_cell(controller)
        check_positive_int("output_size", output_size, allow_none=True)
        check_positive_int("memory_width", memory_width, allow_none=True)
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity <= 0:
            raise ValueError(
                f"`capacity` must be a positive integer (steps the memory can hold); "
                f"received capacity={capacity!r}. Use `MemoryRNN` to size it from "
                "each input instead."
            )
        for name, value in (("pop_bias_init", pop_bias_init), ("push_bias_init", push_bias_init)):
            check_real(name, value)
        check_option("gate_activation", gate_activation)
        check_real("strength_noise", strength_noise, minimum=0)
        check_int("seed", seed, allow_none=True)
        controller_size = controller_output_size(controller)
        output_size = output_size or controller_size
        memory_width = memory_width or controller_size
        if output_size is None or memory_width is None:
            raise ValueError(
                f"Cannot infer the sizes from controller={controller.name!r}, which has no "
                "`output_size` before it is built. Pass `output_size=` and `memory_width=`."
            )
        self.controller = controller
        self.output_size = output_size
        self.memory_width = memory_width
        self.capacity = capacity
        self.pop_bias_init = float(pop_bias_init)
        self.push_bias_init = float(push_bias_init)
        self.gate_activation = keras.activations.get(gate_activation)
        self.output_activation = keras.activations.get(output_activation)
        self.value_activation = keras.activations.get(value_activation)
        self.trainable_initial_state = bool(trainable_initial_state)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.kernel_regularizer = keras.regularizers.get(kernel_regularizer)
        self.strength_noise = float(strength_noise)
        self.seed = seed
        if self.strength_noise:
            # Only then: a seed state would be one more variable in the saved weights.
            self.seed_generator = keras.random.SeedGenerator(seed)
        self.memory = self.memory_class(width=memory_width, capacity=capacity)
        self.num_ends = self.memory.slots_per_step
        self._controller_state_sizes = flat_state_sizes(controller)

    # ----------------------------------------------------------------- sizes

    @property
    def state_layout(self):
        """The `StateLayout` of this cell's flat state: where each part lies."""
        return StateLayout(len(self._controller_state_sizes))

    def state_size_for(self, capacity):
        """The flat `state_size` of this cell for a memory of `capacity` steps."""
        slots = self.memory.num_slots(capacity)
        sizes = CellState(
            output=self.output_size,
            controller=self._controller_state_sizes,
            reads=self.num_ends * self.memory_width,
            values=slots * self.memory_width,
            strengths=slots,
            written=capacity,
        )
        return self.state_layout.join(sizes)

    @property
    def state_size(self):
        return self.state_size_for(self.capacity)

    @property
    def _head_sizes(self):
        """Widths of the projections of `o'_t`: output, then per end push, pop, value."""
        return [self.output_size] + [1, 1, self.memory_width] * self.num_ends

    @property
    def head_slices(self):
        """`slice`s of the columns of the fused head projection (see `heads`).

        The output `o_t`'s, then each end's push, pop and value, in that
        order.
        """
        slices, start = [], 0
        for size in self._head_sizes:
            slices.append(slice(start, start + size))
            start += size
        return slices

    # -------------------------------------------------------- strength noise

    @property
    def strength_noise_size(self):
        """Columns of noise per step: a push and a pop logit per end."""
        return 2 * self.num_ends

    def draw_strength_noise(self, sequences):
        """Noise for every push and pop logit of a whole input (`strength_noise`).

        `MemoryRNN` draws it before its loop, where Keras can draw random
        numbers on every backend, and appends it to the step inputs.

        Args:
            sequences: `(batch, time, features)`, the RNN's input.

        Returns:
            `(batch, time, strength_noise_size)` in the dtype of
            `sequences`: the push noise of each end, then the pop noise.
        """
        shape = ops.shape(sequences)
        noise = keras.random.normal(
            (shape[0], shape[1], self.strength_noise_size), stddev=self.strength_noise, seed=self.seed_generator
        )
        return ops.cast(noise, sequences.dtype)

    # ----------------------------------------------------------------- build

    @property
    def input_features(self):
        """Features of the step input `x_t` (without strength noise), known once built."""
        return self._input_features

    def build(self, input_shape):
        self._input_features = input_shape[-1]
        controller_input = (input_shape[0], input_shape[-1] + self.num_ends * self.memory_width)
        # A deserialised controller arrives built; building it again breaks loading.
        if not self.controller.built:
            self.controller.build(controller_input)
        controller_size = controller_output_size(self.controller)
        if controller_size is None:
            controller_size = controller_input[-1]
        self.kernel = self.add_weight(
            name="kernel",
            shape=(controller_size, sum(self._head_sizes)),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
        )
        self.bias = self.add_weight(name="bias", shape=(sum(self._head_sizes),), initializer=self._bias_initializer)
        if self.trainable_initial_state:
            self.initial_controller_state = [
                self.add_weight(name=f"initial_controller_state_{i}", shape=(size,), initializer="zeros")
                for i, size in enumerate(self._controller_state_sizes)
            ]

    def _bias_initializer(self, shape, dtype=None):
        """Zeros, except the push and pop biases (pop: Appendix B)."""
        values = [0.0] * self.output_size
        for push, pop in self.initial_gate_biases():
            values += [push, pop] + [0.0] * self.memory_width
        return ops.convert_to_tensor(values, dtype=dtype)

    def initial_gate_biases(self):
        """The initial `(push, pop)` biases of each end, drawn once when the cell is built."""
        return [(self.push_bias_init, self.pop_bias_init)] * self.num_ends

    # ------------------------------------------------------------------ state

    def get_initial_state(self, batch_size=None, capacity=None):
        """Zero memory and reads; controller state zero or learned (`h_0`).

        Args:
            batch_size: Batch size.
            capacity: Steps of memory to allocate. Defaults to `capacity`.
                `MemoryRNN` passes the length of each input.

        Returns:
            A flat list of tensors matching `state_size_for(capacity)`.
        """
        capacity = self.capacity if capacity is None else capacity
        dtype = self.compute_dtype
        if self.trainable_initial_state:
            controller = [
                ops.broadcast_to(ops.cast(v, dtype), (batch_size, v.shape[0])) for v in self.initial_controller_state
            ]
        else:
            controller = [ops.zeros((batch_size, size), dtype=dtype) for size in self._controller_state_sizes]
        return self.pack_states(
            ops.zeros((batch_size, self.output_size), dtype=dtype),
            controller,
            ops.zeros((batch_size, self.num_ends * self.memory_width), dtype=dtype),
            self.memory.initial_state(batch_size, capacity=capacity, dtype=dtype),
        )

    def pack_states(self, output, controller_states, reads, memory_state):
        """The flat RNN state list (see the class docstring) from its parts."""
        batch_size = ops.shape(memory_state.strengths)[0]
        values = ops.reshape(memory_state.values, (batch_size, -1))
        parts = CellState(output, controller_states, reads, values, memory_state.strengths, memory_state.written)
        return self.state_layout.join(parts)

    def unpack_state(self, states):
        """The parts of a flat RNN state list; the inverse of `pack_states`.

        Args:
            states: The cell's flat state list (see the class docstring).

        Returns:
            `(output, controller_states, reads, memory_state)`: the previous
            output, the list of the controller's states, the previous reads
            `(batch, ends * memory_width)` and a `MemoryState` whose values
            are `(batch, slots, memory_width)`.
        """
        parts = self.state_layout.split(states)
        batch_size = ops.shape(parts.strengths)[0]
        values = ops.reshape(parts.values, (batch_size, -1, self.memory_width))
        memory_state = memory_lib.MemoryState(values, parts.strengths, parts.written)
        return parts.output, parts.controller, parts.reads, memory_state

    # ------------------------------------------------------------------ step

    def controls(self, inputs, controller_states, reads, training=None):
        """The controller and the heads: everything in a step but the memory.

        Args:
            inputs: `(batch, features)` the input `x_t`.
            controller_states: Flat list of the controller's states.
            reads: `(batch, ends * memory_width)` the previous reads.
            training: Passed on to the controller; with `strength_noise`,
                `inputs` may carry the step's noise (`draw_strength_noise`).

        Returns:
            `(output, new_controller_states, values, pops, pushes)`: the
            cell output `o_t`, the controller's flat new states, `values`
            `(batch, ends, memory_width)`, and `pops`/`pushes` `(batch, ends)`.
        """
        controller_input, noise = self.controller_input(inputs, reads, training=training)
        structure = self.controller.state_size
        packed = tree.pack_sequence_as([structure] if isinstance(structure, int) else structure, controller_states)
        kwargs = {"training": training} if self.controller._call_has_training_arg else {}
        controller_output, new_controller_states = self.controller(controller_input, packed, **kwargs)
        output, values, pops, pushes = self.heads(controller_output, noise)
        return output, tree.flatten(new_controller_states), values, pops, pushes

    def controller_input(self, inputs, reads, training=None):
        """The controller's input `concat(x_t, r_{t-1})`, and the step's strength noise.

        Args:
            inputs: `(batch, features)` the input `x_t`; while `MemoryRNN`
                trains a cell with `strength_noise`, followed by the step's
                noise (`draw_strength_noise`).
            reads: `(batch, ends * memory_width)` the previous reads.
            training: Whether the step trains. Training with
                `strength_noise` but without the noise columns (in a plain
                `keras.layers.RNN`) raises a `ValueError`.

        Returns:
            `(controller_input, noise)`: `(batch, features + ends *
            memory_width)`, and the step's `(batch, strength_noise_size)`
            noise, or None.
        """
        features, noise = self.input_features, None
        if inputs.shape[-1] == features + self.strength_noise_size and self.strength_noise:
            inputs, noise = inputs[:, :features], inputs[:, features:]
        elif training and self.strength_noise:
            raise ValueError(
                f"`strength_noise={self.strength_noise}` needs `MemoryRNN` to draw the noise; "
                "run this cell with `keras_neural_memory.MemoryRNN` instead of `keras.layers.RNN`, "
                "or set strength_noise=0."
            )
        return ops.concatenate([inputs, ops.cast(reads, inputs.dtype)], axis=-1), noise

    def heads(self, controller_output, noise=None, weights=None, activations=None):
        """The cell output `o_t` and each end's push, pop and value, from `o'_t`.

        `heads = o'_t K + b`, one projection cut into `head_slices`, then
        the activations, with the strength noise added to the push and pop
        logits (`split_heads`).

        Args:
            controller_output: `(batch, controller output size)` the
                controller output `o'_t`.
            noise: `(batch, strength_noise_size)` the step's strength noise,
                or None.
            weights: `(kernel, bias)` tensors used in place of the cell's
                variables; the fused scan of `MemoryRNN` passes them to
                call this as a pure function.
            activations: `(output, value, gate)` functions used in place of
                `output_activation`, `value_activation` and
                `gate_activation`: the fused scan passes the same functions
                in the form it differentiates (`step_kernels`).

        Returns:
            `(output, values, pops, pushes)`: `output` `(batch,
            output_size)`, `values` `(batch, ends, memory_width)`, `pops`
            and `pushes` `(batch, ends)`.
        """
        kernel, bias = (self.kernel, self.bias) if weights is None else weights
        if activations is None:
            activations = (self.output_activation, self.value_activation, self.gate_activation)
        return split_heads(ops.matmul(controller_output, kernel) + bias, self.head_slices, activations, noise)

    def step(self, inputs, states, training=None):
        """One step, with everything the memory did.

        This is `call` plus inspection: the extra dict holds the controls
        given to the memory and its state after the step. `call` uses it and
        drops the dict; `keras_neural_memory.trace_memory` keeps it.

        Returns:
            `(output, new_states, info)` where `info` has `push` and `pop`
            `(batch, ends)`, `values` `(batch, ends, width)`, `reads`
            `(batch, ends * width)` and `memory` (a `MemoryState`).
        """
        _, controller_states, reads, memory_state = self.unpack_state(states)
        output, controller_states, values, pops, pushes = self.controls(
            inputs, controller_states, reads, training=training
        )
        memory_state, new_reads = self.memory.update(memory_state, values, pops, pushes)
        batch_size = ops.shape(new_reads)[0]
        new_reads = ops.reshape(new_reads, (batch_size, self.num_ends * self.memory_width))
        info = {"push": pushes, "pop": pops, "values": values, "reads": new_reads, "memory": memory_state}
        return output, self.pack_states(output, controller_states, new_reads, memory_state), info

    def call(self, inputs, states, training=None):
        output, new_states, _ = self.step(inputs, states, training=training)
        return output, new_states

    # ----------------------------------------------------------------- config

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "controller": keras.saving.serialize_keras_object(self.controller),
                "output_size": self.output_size,
                "memory_width": self.memory_width,
                "capacity": self.capacity,
                "pop_bias_init": self.pop_bias_init,
                "push_bias_init": self.push_bias_init,
                "gate_activation": keras.activations.serialize(self.gate_activation),
                "output_activation": keras.activations.serialize(self.output_activation),
                "value_activation": keras.activations.serialize(self.value_activation),
                "trainable_initial_state": self.trainable_initial_state,
                "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                "kernel_regularizer": keras.regularizers.serialize(self.kernel_regularizer),
                "strength_noise": self.strength_noise,
                "seed": self.seed,
            }
        )
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["controller"] = keras.saving.deserialize_keras_object(config["controller"], custom_objects=custom_objects)
        return cls(**config)


def split_heads(heads, head_slices, activations, noise=None):
    """The cell output, values, pops and pushes from the fused head projection.

    The one definition of a memory cell's heads after `heads = o'_t K + b`,
    which `MemoryCell.heads` computes before calling it.

    Args:
        heads: `(batch, columns)` the pre-activation heads.
        head_slices: `MemoryCell.head_slices`: the output's slice, then
            each end's push, pop and value slices.
        activations: `(output, value, gate)` activation functions.
        noise: `(batch, 2 * ends)` strength noise added to the push logits
            (first `ends` columns) and the pop logits, or None.

    Returns:
        `(output, values, pops, pushes)`: `values` `(batch, ends, width)`,
        `pops` and `pushes` `(batch, ends)`.

    Example:

    >>> import numpy as np
    >>> slices = [slice(0, 2), slice(2, 3), slice(3, 4), slice(4, 6)]  # output 2; one end: push, pop, value 2
    >>> linear = lambda x: x
    >>> parts = split_heads(np.arange(6.0)[None], slices, (linear, linear, linear))
    >>> [ops.convert_to_numpy(part).tolist() for part in parts]  # output, values, pops, pushes
    [[[0.0, 1.0]], [[[4.0, 5.0]]], [[3.0]], [[2.0]]]
    """
    output_activation, value_activation, gate_activation = activations
    output_slice, *end_slices = head_slices
    push_slices, pop_slices, value_slices = end_slices[0::3], end_slices[1::3], end_slices[2::3]
    output = output_activation(heads[:, output_slice])
    values = ops.stack([value_activation(heads[:, s]) for s in value_slices], axis=1)
    pop_logits = ops.concatenate([heads[:, s] for s in pop_slices], axis=-1)
    push_logits = ops.concatenate([heads[:, s] for s in push_slices], axis=-1)
    if noise is not None:
        noise = ops.cast(noise, heads.dtype)
        ends = len(push_slices)
        push_logits = push_logits + noise[:, :ends]
        pop_logits = pop_logits + noise[:, ends:]
    return output, values, gate_activation(pop_logits), gate_activation(push_logits)
