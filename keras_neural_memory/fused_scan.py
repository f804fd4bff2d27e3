"""A memory cell over a whole sequence, with linear-memory backprop.

`MemoryRNN` runs its cell through this scan instead of Keras' generic RNN
loop wherever it can (see `MemoryRNN`). Outputs and gradients are those of
the generic loop; what changes is the cost of the backward pass.

Why. The generic loop keeps every step's carry for backprop, and the carry
holds the value matrix `V` (`slots x width`), so training memory grows as
`O(T^2 * width)`. But `V` is append-only (Grefenstette et al. 2015, eq. 1):
step `t` writes its slot once and nothing changes it afterwards. So `V_t`,
the matrix step `t` read, is the final `V` on the slots filled by step `t`
and zero on the others, and a backward pass needs no stored copy of it.

How. Each forward step is the cell's own: its controller input and heads
(`MemoryCell.controller_input`, `MemoryCell.heads`) around the controller,
and the memory's `update`. The forward pass keeps, per step, only what the
backward needs: the controller states, the previous reads and the
strengths (`O(slots)`, no width factor), and on the fast path a few
activations. The backward pass walks the steps in reverse with:

* the `(batch, slots, width)` part by hand: the read-weight cotangent
  `dw_t = (V . dr_t)` on the slots filled by step `t`, `dV += w_t (x) dr_t`,
  and the pushed value's cotangent `dv_t = dV[slot_t]`; the final `V` is
  only read, never copied;
* the strength update (`memory.update_strengths`) recomputed and
  differentiated by the backend's autodiff (`O(batch * slots)`);
* the controller and heads (`MemoryCell.controls`) on one of two paths.

The fast path (`_KernelControls`) serves Keras' `LSTMCell`, `GRUCell`,
`SimpleRNNCell`, `StackedRNNCells` of these and `LinearController`, where
`keras_neural_memory.step_kernels` has the cell's step with a hand-derived
backward (`fast_path_reason` says whether a cell qualifies, and why not).
The forward loop saves the activations that backward needs (an LSTM's
gates and `act(c_t)`, the controller output, the heads' activations); the
reverse loop forms the cotangents of the pre-activations and of the
recurrent inputs without running the controller; and the weight and input
gradients are matrix products over all `time * batch` rows after the loop
(`dW = x_rows^T . d_pre_rows`). The controller runs forward once.

The generic path (`_GenericControls`) serves any other controller, a
user's cell included: the reverse loop recomputes each step's
`MemoryCell.controls` for its vector-Jacobian product with respect to the
recurrent inputs, and one batched vjp of `MemoryCell.controls` over the
`time * batch` rows of saved step inputs gives the weight and input
gradients. The controller runs forward three times.

Both paths take the weight gradients over all rows at once, which relies
on the controller treating batch rows independently, as every RNN cell
does; pass `fused=False` to `MemoryRNN` for a cell that mixes rows.

The scan names its phases' operations (`backend_ops.named_scope`:
`controller_forward`, `controller_backward`, `strengths`, `values`,
`weight_gradients`; the memory's `update` names its own two halves
`strengths` and `values`), which `benchmarks/profile_scan.py` reads back
from a profile. The functions here are pure; the loops, vjps and custom gradient
come from the small backend seam `keras_neural_memory.backend_ops`.
"""

import collections

import keras
from keras import ops
from keras import tree

from keras_neural_memory import backend_ops
from keras_neural_memory import memory as memory_lib
from keras_neural_memory import step_kernels
from keras_neural_memory.memory_cell import CellState, MemoryCell

__all__ = ["memory_scan", "fast_path_reason", "growth_plan"]

# A sequence of at least this many steps runs in `GROWTH_STRETCHES`
# stretches, each on a memory with room for the steps taken by its end
# (`growth_plan`). Shorter ones, e.g. every training tape of the paper's
# tasks, run in one loop: a stretch is one more loop to compile.
GROWTH_MIN_STEPS = 256
GROWTH_STRETCHES = 4


def memory_scan(
    cell,
    sequences,
    initial_states,
    mask=None,
    training=None,
    go_backwards=False,
    zero_output_for_mask=False,
    memory_starts_empty=False,
):
    """Runs a memory cell over `sequences` as `keras.layers.RNN` would.

    Args:
        cell: A built `MemoryCell`.
        sequences: `(batch, time, features)`.
        initial_states: The cell's flat state list (`cell.get_initial_state`).
        mask: Optional `(batch, time)` boolean mask; masked steps leave every
            state unchanged and repeat the previous output (for a leading
            masked step, the output state of `initial_states`).
        training: Passed on to the controller.
        go_backwards: Process the sequence in reverse; the outputs come in
            processing order, as in `keras.layers.RNN`.
        zero_output_for_mask: Masked steps output zeros instead.
        memory_starts_empty: Whether `initial_states` hold an empty memory
            (`cell.get_initial_state`). A long sequence is then run with
            the memory grown as it fills (`growth_plan`).

    Returns:
        `(outputs, final_states)`: outputs `(batch, time, output_size)` and
        the flat list of final states.
    """
    dtype = cell.compute_dtype
    steps = ops.transpose(sequences, (1, 0, 2))
    if mask is None:
        step_mask = ops.ones(ops.shape(steps)[:2], dtype=dtype)
    else:
        step_mask = ops.transpose(ops.cast(mask, dtype), (1, 0))
    step_mask = step_mask[:, :, None]
    if go_backwards:
        steps, step_mask = ops.flip(steps, axis=0), ops.flip(step_mask, axis=0)
    variables = list(cell.variables)
    with backend_ops.autocast_scope(None):
        weights = [ops.convert_to_tensor(v.value) for v in variables]
    if fast_path_reason(cell) is None:
        controls = _KernelControls(cell, variables, training)
    else:
        controls = _GenericControls(cell, variables, training)
    scan = _Scan(cell, controls, zero_output_for_mask, memory_starts_empty)
    fused = backend_ops.custom_vjp(scan.forward, scan.backward)
    outputs, *final_states = fused(steps, step_mask, *initial_states, *weights)
    return ops.transpose(outputs, (1, 0, 2)), final_states


def growth_plan(length, capacity):
    """`[(start, stop, capacity), ...]`: the stretches of a sequence from an empty memory.

    A step's cost is linear in the memory's slots: its read and its
    cumulative sums pass over all of them, filled or not. Starting empty, a
    memory has taken at most `stop` steps by the end of a stretch
    `[start, stop)`, so a memory of `stop` steps holds it exactly, and one
    of the full `capacity` runs only the last stretch. Over `n` equal
    stretches, the slots passed over fall to `(n + 1) / (2 n)` of one
    loop's (5/8 for 4).

    Args:
        length: Steps of the sequence; an unknown (traced) length, or one
            under `GROWTH_MIN_STEPS`, runs in one stretch.
        capacity: Steps the memory holds at the end.

    Example:

    >>> growth_plan(1024, 1024)
    [(0, 256, 256), (256, 512, 512), (512, 768, 768), (768, 1024, 1024)]
    >>> growth_plan(100, 100)
    [(0, 100, 100)]
    """
    if not isinstance(length, int) or length < GROWTH_MIN_STEPS:
        return [(0, length, capacity)]
    size = -(-length // GROWTH_STRETCHES)
    plan = [(start, min(start + size, length), min(start + size, capacity)) for start in range(0, length, size)]
    plan[-1] = (plan[-1][0], length, capacity)
    return plan


def fast_path_reason(cell):
    """Why `memory_scan` runs `cell` on its generic path, or None for the fast path.

    The fast path needs a step kernel for the controller
    (`keras_neural_memory.step_kernels.unsupported_reason`), heads whose
    activations are derived there, a controller that computes in the
    cell's dtype, and `MemoryCell`'s own `controls`.
    """
    if not isinstance(cell, MemoryCell):
        return f"{type(cell).__name__} is not a MemoryCell"
    for name in ("controls", "controller_input", "heads"):
        if getattr(type(cell), name) is not getattr(MemoryCell, name):
            return f"{type(cell).__name__} overrides `{name}`"
    reason = step_kernels.MemoryHeads.unsupported_reason(cell)
    if reason:
        return reason
    controller = cell.controller
    if controller.compute_dtype != cell.compute_dtype:
        return f"the controller computes in {controller.compute_dtype}, the cell in {cell.compute_dtype}"
    return step_kernels.unsupported_reason(controller)


# What the forward loop saves per step for the backward: the controller
# states, reads and strengths the step started from, and what `controls`
# saves (`extra`). None of it has the `slots x width` size of `V`.
_StepRecord = collections.namedtuple("_StepRecord", ["controller", "reads", "strengths", "extra"])

# The forward pass's residuals: the step inputs and mask, the final `V`
# (`(batch, slots, width)`) and `written` mask, the step records (stacked
# over time) and the weights.
_Residuals = collections.namedtuple("_Residuals", ["steps", "step_mask", "values", "written", "records", "weights"])

# The reverse loop's carry: the steps taken before the current step, and
# the cotangents of the state parts after it.
_ReverseCarry = collections.namedtuple(
    "_ReverseCarry", ["count", "output", "controller", "reads", "values", "strengths"]
)


class _Scan:
    """The forward and backward passes of one `memory_scan` call.

    Everything but the controller and heads: the mask, the strengths and
    the `(batch, slots, width)` part. `controls` (a `_GenericControls` or
    `_KernelControls`) runs and differentiates the controller and heads;
    the memory's own `update` takes each forward step.
    """

    def __init__(self, cell, controls, zero_output_for_mask, memory_starts_empty):
        self.cell = cell
        self.memory = cell.memory
        self.controls = controls
        self.zero_output_for_mask = zero_output_for_mask
        self.memory_starts_empty = memory_starts_empty
        self.layout = cell.state_layout

    # -------------------------------------------------------------- forward

    def forward(self, steps, step_mask, *states_and_weights):
        layout = self.layout
        initial = layout.split(states_and_weights[: layout.size])
        weights = list(states_and_weights[layout.size :])
        batch = ops.shape(initial.strengths)[0]
        capacity = ops.shape(initial.written)[-1]
        prepared = self.controls.prepare(weights)

        def step(state, x):
            inputs, keep = x
            with backend_ops.named_scope("controller_forward"):
                output, controller, pushed, pops, pushes, extra = self.controls.forward(
                    prepared, inputs, state.controller, state.reads
                )
            # A masked step pushes nothing, so that `V` needs no select over
            # `(batch, slots, width)`; the other parts are selected as
            # `keras.layers.RNN` selects the states.
            memory_state = memory_lib.MemoryState(state.values, state.strengths, state.written)
            memory_state, reads = self.memory.update(memory_state, pushed * keep[:, :, None], pops, pushes * keep)
            kept = keep > 0.5

            def select(new, old):
                return ops.where(kept, new, old)

            new_state = CellState(
                output=select(output, state.output),
                controller=[select(new, old) for new, old in zip(controller, state.controller)],
                reads=select(ops.reshape(reads, ops.shape(state.reads)), state.reads),
                values=memory_state.values,
                strengths=select(memory_state.strengths, state.strengths),
                written=select(memory_state.written, state.written),
            )
            step_output = new_state.output
            if self.zero_output_for_mask:
                step_output = select(output, ops.zeros_like(output))
            return new_state, (step_output, _StepRecord(state.controller, state.reads, state.strengths, extra))

        carry = initial._replace(values=ops.reshape(initial.values, (batch, -1, self.cell.memory_width)))
        record_dtypes = _StepRecord(
            [c.dtype for c in initial.controller],
            initial.reads.dtype,
            initial.strengths.dtype,
            self.controls.saved_dtypes(initial.output.dtype),
        )
        length = ops.shape(steps)[0]
        plan = growth_plan(length, capacity) if self.memory_starts_empty else [(0, length, capacity)]
        if len(plan) == 1:
            final, (outputs, records) = backend_ops.scan(
                step, carry, (steps, step_mask), length, (initial.output.dtype, record_dtypes)
            )
        else:
            final, outputs, records = self._grown_scan(step, carry, steps, step_mask, plan, capacity, record_dtypes)
        final_states = layout.join(final._replace(values=ops.reshape(final.values, (batch, -1))))
        residuals = _Residuals(steps, step_mask, final.values, final.written, records, weights)
        return [outputs, *final_states], residuals

    def _grown_scan(self, step, carry, steps, step_mask, plan, capacity, record_dtypes):
        """The forward loop over `growth_plan`'s stretches of the sequence.

        Each stretch runs on a memory with room for the steps taken by its
        end, grown (`grow`) from the last; the empty slots it leaves out
        hold zero values and strengths, which add exactly nothing to any
        sum of the step. The recorded strengths are grown to `capacity`, so
        the backward pass is the one of the single loop.
        """
        memory = self.memory
        batch = ops.shape(carry.strengths)[0]
        empty = memory_lib.MemoryState(*memory.initial_state(batch, plan[0][2], dtype=carry.strengths.dtype))
        carry = carry._replace(values=empty.values, strengths=empty.strengths, written=empty.written)
        outputs, records = [], []
        for start, stop, stretch_capacity in plan:
            grown = memory.grow(memory_lib.MemoryState(carry.values, carry.strengths, carry.written), stretch_capacity)
            carry = carry._replace(values=grown.values, strengths=grown.strengths, written=grown.written)
            carry, (stretch_outputs, stretch_records) = backend_ops.scan(
                step,
                carry,
                (steps[start:stop], step_mask[start:stop]),
                stop - start,
                (carry.output.dtype, record_dtypes),
            )
            outputs.append(stretch_outputs)
            records.append(
                stretch_records._replace(
                    strengths=memory.grow_slots(stretch_records.strengths, stretch_capacity, capacity)
                )
            )
        records = tree.map_structure(lambda *parts: ops.concatenate(parts, axis=0), *records)
        return carry, ops.concatenate(outputs, axis=0), records

    # ------------------------------------------------------------- backward

    def backward(self, residuals, cotangents):
        memory = self.memory
        steps, step_mask, values, written, records, weights = residuals
        d_outputs, *d_states = cotangents
        d_final = self.layout.split(d_states)
        batch = ops.shape(values)[0]
        capacity = ops.shape(written)[-1]
        ends, width = memory.slots_per_step, self.cell.memory_width
        prepared = self.controls.prepare(weights)
        # `(batch, width, slots)`, once: per step, `V . dr` is then a plain
        # matrix product, several times faster on CPU than contracting `V`'s
        # last axis.
        values_by_width = ops.transpose(values, (0, 2, 1))

        def step(carry, x):
            inputs, keep, record, d_step_output = x
            count = carry.count - ops.cast(keep[:, 0], "int32")

            # The step's pushes and pops (the generic path recomputes the
            # controller and heads here, keeping their vjp).
            with backend_ops.named_scope("controller_forward"):
                pops, pushes, controls_backward = self.controls.step_backward(
                    prepared, inputs, record.controller, record.reads, record.extra
                )
            with backend_ops.named_scope("strengths"):
                (_, read_weights), strengths_vjp = backend_ops.vjp(
                    lambda s, u, d: list(memory.update_strengths(s, u, d * keep, count, capacity)),
                    record.strengths,
                    pops,
                    pushes,
                )

            # Cotangents through the mask (`where(keep, new, old)`) and the
            # overflow rule (a step without room reads NaN and writes nothing).
            dropped = 1.0 - keep
            d_new_output = keep * (carry.output + d_step_output)
            d_old_output = dropped * carry.output
            if not self.zero_output_for_mask:
                d_old_output = dropped * (carry.output + d_step_output)
            written_rows = keep * ops.cast(memory_lib.has_room(count, capacity), keep.dtype)
            d_new_reads = ops.reshape(written_rows * carry.reads, (batch, ends, width))

            # The (batch, slots, width) part, by hand. The step read `V_t`, which
            # is the final `V` on the slots filled by then and zero elsewhere, so
            # the loop only reads the final `V` and never writes a copy of it.
            with backend_ops.named_scope("values"):
                filled = ops.cast(memory.filled_slots(carry.count, capacity), values.dtype)[:, None, :]
                d_read_weights = memory_lib.each_end(
                    lambda dr: ops.einsum("bw,bws->bs", dr, values_by_width), d_new_reads
                ) * filled
                # A sum of broadcast products, not a contraction over the ends:
                # XLA fuses it with the add into one pass over `dV`.
                d_values = carry.values + sum(
                    read_weights[:, e, :, None] * d_new_reads[:, e, None, :] for e in range(ends)
                )
                d_pushed = memory_lib.take_rows(d_values, memory.slot_indices(count, capacity))
                d_pushed = d_pushed * written_rows[:, :, None]

            with backend_ops.named_scope("strengths"):
                d_old_strengths, d_pops, d_pushes = strengths_vjp([keep * carry.strengths, d_read_weights])
            with backend_ops.named_scope("controller_backward"):
                d_old_controller, d_old_reads, step_cotangents = controls_backward(
                    d_new_output, [keep * d for d in carry.controller], d_pushed, d_pops, d_pushes
                )
            new_carry = _ReverseCarry(
                count=count,
                output=d_old_output,
                controller=[d + dropped * d_next for d, d_next in zip(d_old_controller, carry.controller)],
                reads=d_old_reads + dropped * carry.reads,
                values=d_values,
                strengths=d_old_strengths + dropped * carry.strengths,
            )
            return new_carry, step_cotangents

        carry = _ReverseCarry(
            count=memory_lib.steps_taken(written),
            output=d_final.output,
            controller=d_final.controller,
            reads=d_final.reads,
            values=ops.reshape(d_final.values, ops.shape(values)),
            strengths=d_final.strengths,
        )
        xs = (steps, step_mask, records, d_outputs)
        dtypes = self.controls.cotangent_dtypes(d_outputs, records.controller, values, records.strengths)
        length = ops.shape(steps)[0]
        carry, step_cotangents = backend_ops.scan(step, carry, xs, length, dtypes, reverse=True)

        with backend_ops.named_scope("weight_gradients"):
            d_steps, d_weights = self.controls.gradients(
                weights, prepared, steps, records.controller, records.reads, records.extra, step_cotangents
            )
        d_initial = CellState(
            output=carry.output,
            controller=carry.controller,
            reads=carry.reads,
            values=ops.reshape(carry.values, (batch, -1)),
            strengths=carry.strengths,
            written=ops.zeros_like(written),
        )
        return (d_steps, ops.zeros_like(step_mask), *self.layout.join(d_initial), *d_weights)


def _rows(x):
    """`(time, batch, ...)` as `(time * batch, ...)`."""
    return ops.reshape(x, (-1, *ops.shape(x)[2:]))


class _GenericControls:
    """The generic path: any controller, through `MemoryCell.controls` and autodiff.

    The reverse loop recomputes each step's controller and heads to take
    their vjp with respect to the recurrent inputs; the gradients of every
    weight and of the inputs then come from one batched vjp of
    `MemoryCell.controls` over all `time * batch` saved rows. That relies on
    the controller treating batch rows independently, as every RNN cell
    does.
    """

    def __init__(self, cell, variables, training):
        self.cell = cell
        self.variables = variables
        self.float_positions = [i for i, v in enumerate(variables) if keras.backend.is_float_dtype(v.dtype)]
        self.training = training
        self.num_controller_states = cell.state_layout.num_controller_states

    def prepare(self, weights):
        return weights

    def saved_dtypes(self, dtype):
        return []

    def cotangent_dtypes(self, d_outputs, saved_controller, values, saved_strengths):
        return [d_outputs.dtype, *[c.dtype for c in saved_controller], values.dtype, saved_strengths.dtype, saved_strengths.dtype]

    def controls(self, weights, inputs, controller_states, reads):
        """`cell.controls` as a pure function of the weights."""
        scope = keras.StatelessScope(state_mapping=list(zip(self.variables, weights)))
        with scope, backend_ops.autocast_scope(self.cell.compute_dtype):
            output, states, values, pops, pushes = self.cell.controls(
                inputs, list(controller_states), reads, training=self.training
            )
        return [output, *states, values, pops, pushes]

    def forward(self, weights, inputs, controller, reads):
        """`(output, new_controller, values, pops, pushes, saved)` of one step."""
        n = self.num_controller_states
        new_output, *rest = self.controls(weights, inputs, controller, reads)
        new_controller, (pushed, pops, pushes) = rest[:n], rest[n:]
        return new_output, new_controller, pushed, pops, pushes, []

    def step_backward(self, weights, inputs, controller, reads, saved):
        """`(pops, pushes, backward)` of one step in the reverse loop.

        `backward(d_output, d_controller, d_values, d_pops, d_pushes)` gives
        the cotangents of the step's previous controller states and reads,
        and the step's cotangents for `gradients`.
        """
        n = self.num_controller_states
        controls, controls_vjp = backend_ops.vjp(
            lambda *args: self.controls(weights, inputs, args[:n], args[n]), *controller, reads
        )
        _, pops, pushes = controls[1 + n :]

        def backward(d_new_output, d_new_controller, d_pushed, d_pops, d_pushes):
            step_cotangents = [d_new_output, *d_new_controller, d_pushed, d_pops, d_pushes]
            d_old = controls_vjp(step_cotangents)
            return d_old[:n], d_old[n], step_cotangents

        return pops, pushes, backward

    def gradients(self, weights, prepared, steps, saved_controller, saved_reads, saved, step_cotangents):
        """Input and weight gradients: one vjp over all `time * batch` rows."""
        controller, reads = [_rows(c) for c in saved_controller], _rows(saved_reads)
        positions = self.float_positions

        def controls_of(inputs, *float_weights):
            all_weights = list(weights)
            for position, value in zip(positions, float_weights):
                all_weights[position] = value
            return self.controls(all_weights, inputs, controller, reads)

        _, weights_vjp = backend_ops.vjp(controls_of, _rows(steps), *[weights[p] for p in positions])
        d_rows, *d_float_weights = weights_vjp([_rows(c) for c in step_cotangents])
        d_weights = [None] * len(weights)
        for position, d in zip(positions, d_float_weights):
            d_weights[position] = d
        return ops.reshape(d_rows, ops.shape(steps)), d_weights


class _KernelControls:
    """The fast path: a controller with a step kernel, and the heads, by hand.

    The forward loop saves, per step, what the hand-derived backward needs
    (`step_kernels`: e.g. an LSTM's gates and `act(c_t)`; the controller
    output; the heads' activations), so the reverse loop runs no forward
    computation of the controller. Per step it forms the cotangents of the
    heads' and the controller's pre-activations and of the recurrent
    inputs; the weight and input gradients are then matrix products over
    all `time * batch` rows.

    Saved per step, after the generic path's: the controller output, the
    kernel's saved tensors, then the cell output, values, pops and pushes.
    """

    def __init__(self, cell, variables, training):
        self.cell = cell
        self.training = training
        self.kernel = step_kernels.step_kernel(cell.controller)
        self.heads = step_kernels.MemoryHeads(cell)
        position = {id(v): i for i, v in enumerate(variables)}
        self.kernel_positions = [position[id(v)] for v in self.kernel.variables]
        self.heads_positions = [position[id(v)] for v in self.heads.variables]
        self.float_positions = [i for i, v in enumerate(variables) if keras.backend.is_float_dtype(v.dtype)]
        self.features = cell.input_features
        self.num_saved = 1 + self.kernel.num_saved + 4

    def prepare(self, weights):
        """The kernel's and heads' weights in the compute dtype, and the transposes the backward needs.

        Formed once, outside the loops: the transposes (`transposes` of the
        kernel and heads, and the reads' rows of the input kernel) would
        otherwise be multiplied by as transposed operands at every step.
        """
        dtype = self.cell.compute_dtype
        kernel = [ops.cast(weights[p], dtype) for p in self.kernel_positions]
        heads = [ops.cast(weights[p], dtype) for p in self.heads_positions]
        input_kernel = self.kernel.input_kernel(kernel)
        return {
            "kernel": kernel,
            "heads": heads,
            "kernel_t": self.kernel.transposes(kernel),
            "heads_t": self.heads.transposes(heads),
            "reads_kernel_t": None if input_kernel is None else ops.transpose(input_kernel[self.features :]),
        }

    def saved_dtypes(self, dtype):
        return [dtype] * self.num_saved

    def cotangent_dtypes(self, d_outputs, saved_controller, values, saved_strengths):
        return [d_outputs.dtype] * (1 + self.kernel.num_pre)

    def _split_saved(self, saved):
        k = self.kernel.num_saved
        return saved[0], list(saved[1 : 1 + k]), list(saved[1 + k :])

    def forward(self, prepared, inputs, controller, reads):
        x, noise = self.cell.controller_input(inputs, reads, training=self.training)
        # The controller casts its input to the compute dtype, as a layer does.
        x = ops.cast(x, self.cell.compute_dtype)
        controller_output, new_controller, kernel_saved = self.kernel.forward(prepared["kernel"], x, list(controller))
        output, values, pops, pushes = self.heads.forward(prepared["heads"], controller_output, noise)
        saved = [controller_output, *kernel_saved, output, values, pops, pushes]
        return output, new_controller, values, pops, pushes, saved

    def step_backward(self, prepared, inputs, controller, reads, saved):
        controller_output, kernel_saved, activations = self._split_saved(saved)
        _, _, pops, pushes = activations

        def backward(d_new_output, d_new_controller, d_pushed, d_pops, d_pushes):
            d_heads, d_controller_output = self.heads.backward(
                prepared["heads_t"], activations, d_new_output, d_pushed, d_pops, d_pushes
            )
            d_pre, d_old_controller = self.kernel.backward(
                prepared["kernel"],
                prepared["kernel_t"],
                list(controller),
                controller_output,
                kernel_saved,
                d_controller_output,
                d_new_controller,
            )
            if prepared["reads_kernel_t"] is None:
                d_reads = d_pre[0][:, self.features :]
            else:
                d_reads = step_kernels.input_gradient(prepared["reads_kernel_t"], d_pre[0])
            return d_old_controller, d_reads, [d_heads, *d_pre]

        return pops, pushes, backward

    def gradients(self, weights, prepared, steps, saved_controller, saved_reads, saved, step_cotangents):
        """Weight gradients as products over all rows; the input gradient as one product."""
        d_heads, *d_pre = [_rows(c) for c in step_cotangents]
        controller_output, kernel_saved, _ = self._split_saved([_rows(s) for s in saved])
        step_rows = _rows(steps)
        x, _ = self.cell.controller_input(step_rows, _rows(saved_reads), training=self.training)
        states = [_rows(c) for c in saved_controller]

        # The products over all rows in the widest of the variables' dtypes:
        # under mixed precision, float32 sums over `time * batch` rows.
        positions = self.kernel_positions + self.heads_positions
        dtypes = {keras.backend.standardize_dtype(weights[p].dtype) for p in positions}
        variable_dtype = next(d for d in _WIDEST_FIRST if d in dtypes)
        rows = [ops.cast(r, variable_dtype) for r in [x, controller_output, d_heads, *states, *kernel_saved, *d_pre]]
        x, controller_output, d_heads_rows = rows[:3]
        m, k = len(states), len(kernel_saved)
        states, kernel_saved, d_pre_rows = rows[3 : 3 + m], rows[3 + m : 3 + m + k], rows[3 + m + k :]
        d_kernel = self.kernel.weight_gradients(x, states, controller_output, kernel_saved, d_pre_rows)
        d_heads_weights = self.heads.weight_gradients(controller_output, d_heads_rows)

        d_weights = [None] * len(weights)
        for position in self.float_positions:
            d_weights[position] = ops.zeros_like(weights[position])
        # Summed, not assigned: a cell used twice in a `StackedRNNCells`
        # holds the same variables at two positions of the kernel.
        for position, d in zip(self.kernel_positions + self.heads_positions, d_kernel + d_heads_weights):
            d_weights[position] = d_weights[position] + ops.cast(d, weights[position].dtype)

        input_kernel = self.kernel.input_kernel(prepared["kernel"])
        if input_kernel is None:
            d_inputs = d_pre[0][:, : self.features]
        else:
            d_inputs = step_kernels.input_gradient(ops.transpose(input_kernel[: self.features]), d_pre[0])
        if step_rows.shape[-1] != self.features:
            d_inputs = ops.concatenate([d_inputs, self.heads.noise_gradient(d_heads)], axis=-1)
        return ops.reshape(ops.cast(d_inputs, steps.dtype), ops.shape(steps)), d_weights


# Float dtypes from the widest down. (`keras.backend.result_type` is no
# help here: on JAX it maps float64 to float32.)
_WIDEST_FIRST = ("float64", "float32", "bfloat16", "float16")
