"""Neural Stack, Queue and DeQue (Grefenstette et al. 2015, §3.1-3.3).

The memories have no trainable parameters. Each is a set of pure functions
on an explicit state, in the style of Haiku's `RNNCore`: `initial_state`
builds the state, `step` maps `(state, controls)` to `(new_state, read)`.
The Keras cells in this package call these functions; they can equally be
used on their own.

Layout. A memory of `capacity` steps keeps a fixed buffer of slots:

* Stack and Queue: `capacity` slots; the value pushed at step `t` (0-based)
  lives in slot `t`, so slot 0 is the bottom (oldest) and the paper's index
  `i` is slot `i - 1`.
* DeQue: `2 * capacity` slots. The paper (eq. 6) grows the DeQue at both
  ends; here the buffer is centred, so step `t` writes the bottom value to
  slot `capacity - 1 - t` and the top value to slot `capacity + t`.

Slots not yet written hold a zero value and zero strength, so the paper's
sums over "the slots that exist at time t" are sums over the whole buffer:
every update is a cumulative sum over slots, with no loop and no
`(slots, slots)` mask. A `written` mask records how many steps have been
taken; it is a float 0/1 vector rather than a counter because Keras casts
RNN states to the compute dtype, and a float16 counter stops being exact
after 2048 steps.

Overflow. A step taken when all `capacity` steps are used cannot be stored.
It is never wrapped around: the read of that step and every later step is
NaN, so the failure is loud (see `keras.callbacks.TerminateOnNaN`). Use
`keras_neural_memory.MemoryRNN`, which sizes the memory from each input's
length, to avoid a fixed capacity altogether.

Ties. `max(x, y)` and `min(x, y)` are differentiated with respect to their
left argument where `x == y` (paper footnote 1). `_max_left`/`_min_left`
implement that on every backend (JAX's own `maximum` splits the gradient).
"""

import collections
import math

from keras import ops
from keras.saving import register_keras_serializable

from keras_neural_memory import backend_ops
from keras_neural_memory.validation import check_positive_int

__all__ = ["MemoryState", "NeuralStack", "NeuralQueue", "NeuralDeque"]

MemoryState = collections.namedtuple("MemoryState", ["values", "strengths", "written"])
MemoryState.__doc__ = """State of a neural memory.

Attributes:
    values: `(batch, slots, width)` the value matrix `V_t`.
    strengths: `(batch, slots)` the strength vector `s_t`, bottom slot first.
    written: `(batch, capacity)` 1.0 for every step already taken, else 0.0.

Example:

>>> stack = NeuralStack(width=4, capacity=3)
>>> state = stack.initial_state(batch_size=2)
>>> [tuple(part.shape) for part in state]  # values, strengths, written
[(2, 3, 4), (2, 3), (2, 3)]
"""


# --------------------------------------------------------------------------
# The shared mechanism: pure functions on strength vectors.
# --------------------------------------------------------------------------


def _max_left(x, y):
    """`max(x, y)`, differentiated w.r.t. `x` at ties (footnote 1)."""
    return ops.where(x >= y, x, y)


def _min_left(x, y):
    """`min(x, y)`, differentiated w.r.t. `x` at ties (footnote 1)."""
    return ops.where(x <= y, x, y)


def _relu(x):
    """`max(0, x)`: at `x == 0` the left argument 0 wins, so the slope is 0."""
    return _max_left(ops.zeros_like(x), x)


def _cumsum(x, reverse=False):
    """Inclusive cumulative sum over the last axis, as two small matrix products.

    The slots are cut into blocks of `b ~ sqrt(n)`: a product with a
    `(b, b)` triangular matrix of ones sums within each block, and one with
    a `(n/b, n/b)` strictly triangular matrix adds the totals of the blocks
    before (after, with `reverse=True`: sums from the last slot down). That
    is `O(n * sqrt(n))` work, with no subtraction (so no cancellation), and
    no flips. XLA fuses its own `reduce_window` cumulative sum into every
    elementwise consumer and recomputes it there; a product is computed
    once. `benchmarks/cumsum.py` measures the difference on a pop and a
    read. Unknown lengths (JAX's shape inference) use `ops.cumsum`.
    """
    n = x.shape[-1]
    if not isinstance(n, int):
        return ops.flip(ops.cumsum(ops.flip(x, axis=-1), axis=-1), axis=-1) if reverse else ops.cumsum(x, axis=-1)
    triangle = ops.tril if reverse else ops.triu
    block = math.isqrt(n - 1) + 1
    blocks = -(-n // block)
    shape = ops.shape(x)
    padded = ops.pad(ops.reshape(x, (-1, n)), [(0, 0), (0, blocks * block - n)])
    # A rank-2 product: TensorFlow would run a rank-3 one through `tensordot`, whose
    # gradient XLA cannot compile inside a loop when the batch size is unknown.
    within = ops.matmul(ops.reshape(padded, (-1, block)), triangle(ops.ones((block, block), x.dtype)))
    within = ops.reshape(within, (-1, blocks, block))
    block_totals = within[:, :, 0] if reverse else within[:, :, -1]
    others = ops.matmul(block_totals, triangle(ops.ones((blocks, blocks), x.dtype), -1 if reverse else 1))
    sums = ops.reshape(within + others[:, :, None], (-1, blocks * block))[:, :n]
    return ops.reshape(sums, shape)


def _sum_above(strengths):
    """`sum_{j > i} s[j]` for every slot `i` (towards the top).

    Summed from the top down, not as `total - cumsum`: the slots that matter
    are near the top, where that difference would cancel catastrophically
    once the total is large (float16 after ~1000 steps).
    """
    return _cumsum(strengths, reverse=True) - strengths


def _sum_below(strengths):
    """`sum_{j < i} s[j]` for every slot `i` (towards the bottom)."""
    return _cumsum(strengths) - strengths


_SUM_TOWARDS = {"top": _sum_above, "bottom": _sum_below}


def pop(strengths, amount, end):
    """Removes `amount` of strength from one end (eqs. 2, 4, 7, 8).

    Args:
        strengths: `(batch, slots)` strengths, bottom slot first.
        amount: `(batch, 1)` pop strength `u_t`.
        end: `"top"` (stack, eqs. 2 and 7) or `"bottom"` (queue, eqs. 4, 8).

    Returns:
        The strengths after the pop, same shape.
    """
    remaining = _relu(amount - _SUM_TOWARDS[end](strengths))
    return _relu(strengths - remaining)


def read_weights(strengths, end):
    """Weight of every slot in a read of total strength 1 (eqs. 3, 5, 10, 11).

    Args:
        strengths: `(batch, slots)` strengths, bottom slot first.
        end: `"top"` or `"bottom"`: the end the read starts from.

    Returns:
        `(batch, slots)` weights; the read vector is `sum_i w[i] * V[i]`.
    """
    remaining = _relu(1.0 - _SUM_TOWARDS[end](strengths))
    return _min_left(strengths, remaining)


def read(values, weights):
    """`r = sum_i w[i] V[i]` for `(batch, slots, width)` values."""
    return ops.einsum("bs,bsw->bw", weights, values)


def each_end(product, per_end_rows):
    """`product` applied to each end's `(batch, n)` rows, stacked on axis 1.

    The `(batch, slots, width)` products of a step (the reads, and in
    `MemoryRNN`'s backward pass their transposes) are one matrix-vector
    product per end: XLA on CPU runs the same contraction with an `ends`
    axis of size 2 (the DeQue's) about three times slower.

    Args:
        product: A function of one end's `(batch, n)` rows.
        per_end_rows: `(batch, ends, n)`.

    Returns:
        `(batch, ends, ...)`: `product` of each end's rows.
    """
    return ops.stack([product(per_end_rows[:, e]) for e in range(ops.shape(per_end_rows)[1])], axis=1)


def read_each_end(values, weights):
    """`(batch, ends, width)`: the read of each end (eqs. 3, 5, 10, 11), from `(batch, ends, slots)` weights."""
    return each_end(lambda end_weights: read(values, end_weights), weights)


def steps_taken(written):
    """`(batch,)` int32: the steps a memory has taken, from its `written` mask.

    Counted in int32: a float16 sum of the mask stops being exact after
    2048 steps.
    """
    return ops.sum(ops.cast(written, "int32"), axis=-1)


def has_room(count, capacity):
    """`(batch, 1)` boolean: whether the step after `count` steps fits in `capacity`.

    The overflow rule: a step without room writes nothing, and its reads
    are NaN (`poison_on_overflow`), as are those of every later step.
    """
    return (count < capacity)[:, None]


def poison_on_overflow(reads, count, capacity):
    """`reads` `(batch, ends, width)`, NaN in the rows whose step had no room (`has_room`)."""
    room = has_room(count, capacity)[:, :, None]
    return ops.where(room, reads, ops.full_like(reads, float("nan")))


def add_rows(matrix, index, rows):
    """`matrix[b, index[b, k]] += rows[b, k]`, touching only those rows.

    The write of eq. 1 (each end fills one slot per step). A scatter rather
    than a product with one-hot slots: a loop over steps then updates the
    `(batch, slots, width)` matrix in place instead of passing over all of
    it at every step.

    Args:
        matrix: `(batch, n, width)`.
        index: `(batch, k)` int rows of `matrix`.
        rows: `(batch, k, width)` what to add there.

    Returns:
        The updated `(batch, n, width)` matrix.
    """
    shape = ops.shape(matrix)
    flat, flat_index = _flat_rows(matrix, index)
    flat_index = ops.reshape(flat_index, (-1, 1))
    old = ops.take(flat, flat_index[:, 0], axis=0)
    new = ops.scatter_update(flat, flat_index, old + ops.reshape(rows, (-1, shape[-1])))
    return ops.reshape(new, shape)


def take_rows(matrix, index):
    """`matrix[b, index[b, k]]`: `(batch, k, width)` rows of a `(batch, n, width)` matrix."""
    flat, flat_index = _flat_rows(matrix, index)
    return ops.take(flat, flat_index, axis=0)


def _flat_rows(matrix, index):
    """`matrix` as `(batch * n, width)` rows, and `index` `(batch, k)` as indices of those rows.

    A gather on the flat rows, not `take_along_axis`: TensorFlow's gradient
    of the latter's broadcast does not compile with XLA inside a loop whose
    batch size is unknown (a plain `keras.layers.RNN` under `jit_compile`).
    """
    batch, n, width = ops.shape(matrix)
    offsets = ops.arange(batch, dtype=index.dtype)[:, None] * n
    return ops.reshape(matrix, (-1, width)), index + offsets


def _one_hot_slots(index, room, num_slots, dtype):
    """`(batch, k, num_slots)` one-hot rows of `index`, all zeros where there is no `room`."""
    return ops.one_hot(index, num_slots, dtype=dtype) * ops.cast(room, dtype)[:, :, None]


def _write_strengths(strengths, slots, pushes):
    """The strengths with `pushes` `(batch, k)` added at the one-hot `slots` `(batch, k, slots)` (eq. 1)."""
    return strengths + ops.einsum("bks,bk->bs", slots, pushes)


def _write_values(values, index, room, pushed):
    """`values` with `pushed` `(batch, k, width)` written at `index`, where there is `room` (eq. 1)."""
    return add_rows(values, index, pushed * ops.cast(room, pushed.dtype)[:, :, None])


def _after_step(written, count):
    """The `written` mask after the step that follows `count` steps (unchanged once full)."""
    return written + ops.one_hot(count, ops.shape(written)[-1], dtype=written.dtype)


def push(state, value, strength):
    """Writes `value` with `strength` into the next free slot (eq. 1, one push).

    The push half of a step, on its own: Hao et al.'s output buffer (§2.3) is
    a queue that is only ever enqueued to while the network runs. Nothing is
    written once all `capacity` slots are used.

    Args:
        state: A single-ended `MemoryState` (one slot per step).
        value: `(batch, width)` the value to push.
        strength: `(batch, 1)` its strength.

    Returns:
        The new `MemoryState`.
    """
    capacity, count = ops.shape(state.written)[-1], steps_taken(state.written)
    index, room = _NeuralMemory.slot_indices(count, capacity), has_room(count, capacity)
    slots = _one_hot_slots(index, room, capacity, state.strengths.dtype)
    strengths = _write_strengths(state.strengths, slots, strength)
    values = _write_values(state.values, index, room, value[:, None, :])
    return MemoryState(values, strengths, _after_step(state.written, count))


# --------------------------------------------------------------------------
# Public memory objects: validation, state construction and composition of
# the functions above into the paper's step order.
# --------------------------------------------------------------------------


class _NeuralMemory:
    """Shared base: validation, state layout and inspection."""

    slots_per_step = 1  # also the number of ends the memory is used from

    def __init__(self, width, capacity):
        check_positive_int("width", width)
        check_positive_int("capacity", capacity)
        self.width = width
        self.capacity = capacity

    def num_slots(self, capacity=None):
        """Number of slots in a memory of `capacity` steps."""
        return self.slots_per_step * (self.capacity if capacity is None else capacity)

    def initial_state(self, batch_size, capacity=None, dtype="float32"):
        """An empty memory.

        Args:
            batch_size: Batch size (an int or a scalar tensor).
            capacity: Number of steps to make room for. Defaults to the
                memory's `capacity`.
            dtype: Floating dtype of the state.

        Returns:
            A `MemoryState` of zeros.
        """
        capacity = self.capacity if capacity is None else capacity
        slots = self.num_slots(capacity)
        return MemoryState(
            values=ops.zeros((batch_size, slots, self.width), dtype=dtype),
            strengths=ops.zeros((batch_size, slots), dtype=dtype),
            written=ops.zeros((batch_size, capacity), dtype=dtype),
        )

    def strengths(self, state):
        """`(batch, slots)` strengths, bottom (oldest) slot first."""
        return state.strengths

    def _check_value(self, value):
        if value.shape[-1] is not None and value.shape[-1] != self.width:
            raise ValueError(
                f"`value` must have last dimension width={self.width}; "
                f"received shape {tuple(value.shape)}."
            )

    # The ends each step pops from, in order, and reads from (one read per
    # end). Subclasses set them; `update` is the whole step for all three.
    pop_ends = ()
    read_ends = ()

    @staticmethod
    def slot_indices(count, capacity):
        """`(batch, ends)` int: the slot each end writes at the step after `count` steps.

        The memory's layout, in one place: the Stack and the Queue write
        slot `count`. A full memory writes nothing (`has_room`); its indices
        are then those of the last step, which keeps them inside the buffer.

        Args:
            count: `(batch,)` int steps taken (`steps_taken`).
            capacity: Steps the memory holds.
        """
        return ops.minimum(count, capacity - 1)[:, None]

    def write_slots(self, count, capacity, dtype):
        """`(batch, ends, slots)` one-hot rows of `slot_indices`; all zeros on a full memory."""
        return _one_hot_slots(
            self.slot_indices(count, capacity), has_room(count, capacity), self.num_slots(capacity), dtype
        )

    def update_strengths(self, strengths, pops, pushes, count, capacity):
        """The strength half of a step: pop each end, push, then read weights.

        Everything here is `O(batch * slots)`; the values never enter, which
        is what lets `keras_neural_memory.MemoryRNN` differentiate a whole
        sequence without storing the value matrix at every step.

        Args:
            strengths: `(batch, slots)` strengths before the step.
            pops: `(batch, ends)` pop strengths `u_t`, in `pop_ends` order.
            pushes: `(batch, ends)` push strengths `d_t`.
            count: `(batch,)` int steps taken before this one (`steps_taken`).
            capacity: Steps the memory holds.

        Returns:
            `(new_strengths, weights)`, weights `(batch, ends, slots)` in
            `read_ends` order.
        """
        for index, end in enumerate(self.pop_ends):
            strengths = pop(strengths, pops[:, index : index + 1], end)
        strengths = _write_strengths(strengths, self.write_slots(count, capacity, strengths.dtype), pushes)
        weights = ops.stack([read_weights(strengths, end) for end in self.read_ends], axis=1)
        return strengths, weights

    def update(self, state, values, pops, pushes):
        """One whole step: pop, push, read (eqs. 1-3, 1/4/5 or 6-11).

        The one definition of a memory step: the cells call it, and so does
        the fused scan of `keras_neural_memory.MemoryRNN`. The operations of
        its two halves are named `strengths` and `values`, which is how
        `benchmarks/profile_scan.py` attributes the scan's time.

        Args:
            state: A `MemoryState`.
            values: `(batch, ends, width)` the values `v_t` to push.
            pops: `(batch, ends)` pop strengths `u_t` in [0, 1].
            pushes: `(batch, ends)` push strengths `d_t` in [0, 1].

        Returns:
            `(new_state, reads)` with `reads` of shape `(batch, ends, width)`,
            NaN once a step found the memory full.
        """
        capacity, count = ops.shape(state.written)[-1], steps_taken(state.written)
        with backend_ops.named_scope("strengths"):
            strengths, weights = self.update_strengths(state.strengths, pops, pushes, count, capacity)
        with backend_ops.named_scope("values"):
            index, room = self.slot_indices(count, capacity), has_room(count, capacity)
            new_values = _write_values(state.values, index, room, values)
            reads = poison_on_overflow(read_each_end(new_values, weights), count, capacity)
        return MemoryState(new_values, strengths, _after_step(state.written, count)), reads

    def filled_slots(self, count, capacity):
        """`(batch, slots)` boolean: the slots holding a value after `count` steps."""
        return ops.arange(self.num_slots(capacity), dtype=count.dtype)[None, :] < count[:, None]

    @staticmethod
    def new_slots(added_capacity):
        """`(below, above)`: where the slots of `added_capacity` more steps go.

        The layout's growth, in one place: the Stack and the Queue add their
        slots above the top, since slot `t` holds step `t` at any capacity.
        """
        return 0, added_capacity

    def grow_slots(self, slot_major, capacity, new_capacity, axis=-1):
        """`slot_major` (strengths or values) of a memory of `capacity` steps, zero-padded to `new_capacity`.

        The zero slots are empty ones, so a memory grown this way steps on
        exactly as the larger memory would have from the same state.

        Args:
            slot_major: A tensor with one entry per slot along `axis`.
            capacity: Steps of the memory it belongs to.
            new_capacity: Steps of the grown memory, at least `capacity`.
            axis: The slot axis.
        """
        if isinstance(capacity, int) and isinstance(new_capacity, int) and new_capacity < capacity:
            raise ValueError(
                f"`new_capacity` must be at least the memory's capacity {capacity}; "
                f"received new_capacity={new_capacity}."
            )
        rank = len(ops.shape(slot_major))
        padding = [(0, 0)] * rank
        padding[axis % rank] = self.new_slots(new_capacity - capacity)
        return ops.pad(slot_major, padding)

    def grow(self, state, new_capacity):
        """`state` with room for `new_capacity` steps (at least its own).

        Args:
            state: A `MemoryState`.
            new_capacity: Steps the grown memory holds.

        Example:

        >>> deque = NeuralDeque(width=2, capacity=3)
        >>> state = deque.grow(deque.initial_state(batch_size=1, capacity=3), 5)
        >>> [tuple(part.shape) for part in state]  # values, strengths, written
        [(1, 10, 2), (1, 10), (1, 5)]
        """
        capacity = ops.shape(state.written)[-1]
        return MemoryState(
            values=self.grow_slots(state.values, capacity, new_capacity, axis=-2),
            strengths=self.grow_slots(state.strengths, capacity, new_capacity),
            written=ops.pad(state.written, [(0, 0), (0, new_capacity - capacity)]),
        )

    def get_config(self):
        return {"width": self.width, "capacity": self.capacity}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"{type(self).__name__}(width={self.width}, capacity={self.capacity})"


class _SingleEndedMemory(_NeuralMemory):
    """Stack and Queue: push on top, pop and read at `end`."""

    end = None

    @property
    def pop_ends(self):
        return (self.end,)

    read_ends = pop_ends

    def step(self, state, value, pop_strength, push_strength):
        """One step: pop, then push, then read (eqs. 1-3 or 1, 4, 5).

        Args:
            state: A `MemoryState`.
            value: `(batch, width)` the value `v_t` to push.
            pop_strength: `(batch, 1)` the pop strength `u_t` in [0, 1].
            push_strength: `(batch, 1)` the push strength `d_t` in [0, 1].

        Returns:
            `(new_state, read)` with `read` of shape `(batch, width)`.
        """
        self._check_value(value)
        new_state, reads = self.update(state, value[:, None, :], pop_strength, push_strength)
        return new_state, reads[:, 0]

    def read_weights(self, state):
        """`(batch, slots)` weights of the read that `step` returned."""
        return read_weights(state.strengths, self.end)


@register_keras_serializable(package="keras_neural_memory")
class NeuralStack(_SingleEndedMemory):
    """Continuous stack: last in, first out (paper §3.1, eqs. 1-3).

    Args:
        width: Size `m` of each value vector.
        capacity: Number of steps the memory can hold.

    Example:

    >>> import numpy as np
    >>> stack = NeuralStack(width=1, capacity=3)
    >>> state = stack.initial_state(1)
    >>> reads = []
    >>> for v, u, d in [(1.0, 0.0, 0.8), (2.0, 0.1, 0.5), (3.0, 0.9, 0.9)]:
    ...     state, r = stack.step(state, np.full((1, 1), v, "float32"),
    ...                           np.full((1, 1), u, "float32"),
    ...                           np.full((1, 1), d, "float32"))
    ...     reads.append(round(float(r[0, 0]), 4))
    >>> reads
    [0.8, 1.5, 2.8]
    """

    end = "top"


@register_keras_serializable(package="keras_neural_memory")
class NeuralQueue(_SingleEndedMemory):
    """Continuous queue: first in, first out (paper §3.2, eqs. 1, 4, 5).

    Values are enqueued at the top and popped and read from the bottom.

    Args:
        width: Size `m` of each value vector.
        capacity: Number of steps the memory can hold.

    Example:

    >>> import numpy as np
    >>> queue = NeuralQueue(width=1, capacity=2)
    >>> state = queue.initial_state(1)
    >>> one = np.ones((1, 1), "float32")
    >>> state, r = queue.step(state, 1 * one, 0 * one, one)
    >>> state, r = queue.step(state, 2 * one, 0 * one, one)
    >>> float(r[0, 0])  # the oldest value is read first
    1.0
    """

    end = "bottom"


@register_keras_serializable(package="keras_neural_memory")
class NeuralDeque(_NeuralMemory):
    """Continuous double-ended queue (paper §3.3, eqs. 6-11).

    Each step pops from the top, then pops from the bottom, then pushes at
    both ends, then reads from both ends. `capacity` counts steps; the
    DeQue holds two slots per step.

    Args:
        width: Size `m` of each value vector.
        capacity: Number of steps the memory can hold.

    Example:

    >>> import numpy as np
    >>> deque = NeuralDeque(width=1, capacity=4)
    >>> state = deque.initial_state(1)
    >>> one, zero = np.ones((1, 1), "float32"), np.zeros((1, 1), "float32")
    >>> state, (top, bottom) = deque.step(
    ...     state, top=(2 * one, zero, one), bottom=(1 * one, zero, one))
    >>> float(top[0, 0]), float(bottom[0, 0])
    (2.0, 1.0)
    """

    slots_per_step = 2
    pop_ends = ("top", "bottom")  # eq. 7, then eq. 8
    read_ends = ("top", "bottom")

    def step(self, state, top, bottom):
        """One step of the DeQue.

        Args:
            state: A `MemoryState`.
            top: `(value, pop_strength, push_strength)` for the top end, with
                shapes `(batch, width)`, `(batch, 1)`, `(batch, 1)`.
            bottom: The same for the bottom end.

        Returns:
            `(new_state, (read_top, read_bottom))`, each read `(batch, width)`.
        """
        (value_top, pop_top, push_top), (value_bottom, pop_bottom, push_bottom) = top, bottom
        self._check_value(value_top)
        self._check_value(value_bottom)
        new_state, reads = self.update(
            state,
            ops.stack([value_top, value_bottom], axis=1),
            ops.concatenate([pop_top, pop_bottom], axis=-1),
            ops.concatenate([push_top, push_bottom], axis=-1),
        )
        return new_state, (reads[:, 0], reads[:, 1])

    @staticmethod
    def slot_indices(count, capacity):
        """Centred layout: the top grows up from the middle, the bottom down."""
        step = ops.minimum(count, capacity - 1)
        return ops.stack([capacity + step, capacity - 1 - step], axis=-1)

    @staticmethod
    def new_slots(added_capacity):
        """The centred buffer grows at both ends."""
        return added_capacity, added_capacity

    def filled_slots(self, count, capacity):
        slot = ops.arange(self.num_slots(capacity), dtype=count.dtype)[None, :]
        return (slot >= capacity - count[:, None]) & (slot < capacity + count[:, None])

    def read_weights(self, state):
        """`(top_weights, bottom_weights)`, each `(batch, slots)`."""
        return (
            read_weights(state.strengths, "top"),
            read_weights(state.strengths, "bottom"),
        )
