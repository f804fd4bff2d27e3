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

How. The forward pass keeps, per step, only what the backward needs: the
controller states, the previous reads and the strengths (`O(slots)`, no
width factor), and on the fast path a few activations. The backward pass
walks the steps in reverse with:

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
`weight_gradients`), which `benchmarks/profile_scan.py` reads back from a
profile. The functions here are pure; the loops, vjps and custom gradient
come from the small backend seam `keras_neural_memory.backend_ops`.
"""

import keras
from keras import ops

from keras_neural_memory import backend_ops
from keras_neural_memory import memory as memory_lib
from keras_neural_memory import step_kernels
from keras_neural_memory.memory_cell import MemoryCell

__all__ = ["memory_scan", "fast_path_reason"]


def memory_scan(cell, sequences, initial_states, mask=None, training=None, go_backwards=False, zero_output_for_mask=False):
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
    scan = _Scan(cell, controls, zero_output_for_mask)
    fused = backend_ops.custom_vjp(scan.forward, scan.backward)
    outputs, *final_states = fused(steps, step_mask, *initial_states, *weights)
    return ops.transpose(outputs, (1, 0, 2)), final_states


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


class _Scan:
    """The forward and backward passes of one `memory_scan` call.

    Everything but the controller and heads: the mask, the strengths and
    the `(batch, slots, width)` part. `controls` (a `_GenericControls` or
    `_KernelControls`) runs and differentiates the controller and heads.
    """

    def __init__(self, cell, controls, zero_output_for_mask):
        self.cell = cell
        self.memory = cell.memory
        self.controls = controls
        self.zero_output_for_mask = zero_output_for_mask
        self.num_controller_states = cell.state_layout.num_controller_states
        self.num_states = 5 + self.num_controller_states

    # ------------------------------------------------------------ one step

    def strengths(self, strengths, pops, pushes, count, keep, capacity):
        """Strengths after the step and the read weights (`O(batch * slots)`)."""
        step_slot = ops.one_hot(count, capacity, dtype=strengths.dtype) * keep
        return list(self.memory.update_strengths(strengths, pops, pushes, self.memory.write_slots(step_slot)))

    def _write_index(self, count, capacity):
        """`(batch, ends)` slots a step writes after `count` steps (clipped when full)."""
        return ops.clip(self.memory.slot_indices(count, capacity), 0, self.memory.num_slots(capacity) - 1)

    @staticmethod
    def _add_at(matrix, index, rows):
        """`matrix[b, index[b, e]] += rows[b, e]`, touching only those rows."""
        batch, ends = ops.shape(index)
        batch_index = ops.broadcast_to(ops.arange(batch, dtype=index.dtype)[:, None], (batch, ends))
        flat_index = ops.reshape(ops.stack([batch_index, index], axis=-1), (-1, 2))
        old = ops.take_along_axis(matrix, ops.broadcast_to(index[:, :, None], ops.shape(rows)), axis=1)
        return ops.scatter_update(matrix, flat_index, ops.reshape(old + rows, (-1, ops.shape(rows)[-1])))

    @staticmethod
    def _rows_at(matrix, index):
        """`matrix[b, index[b, e]]`: `(batch, ends, width)`."""
        width = ops.shape(matrix)[-1]
        shape = (ops.shape(index)[0], ops.shape(index)[1], width)
        return ops.take_along_axis(matrix, ops.broadcast_to(index[:, :, None], shape), axis=1)

    def _unpack(self, states):
        n = self.num_controller_states
        output, controller, (reads, values, strengths, written) = states[0], states[1 : 1 + n], states[1 + n :]
        return output, list(controller), reads, values, strengths, written

    # -------------------------------------------------------------- forward

    def forward(self, steps, step_mask, *states_and_weights):
        states = list(states_and_weights[: self.num_states])
        weights = list(states_and_weights[self.num_states :])
        output, controller, reads, flat_values, strengths, written = self._unpack(states)
        batch = ops.shape(strengths)[0]
        capacity = ops.shape(written)[-1]
        width = self.cell.memory_width
        values = ops.reshape(flat_values, (batch, -1, width))
        count = ops.cast(ops.sum(written, axis=-1), "int32")
        n = self.num_controller_states
        prepared = self.controls.prepare(weights)

        def step(carry, x):
            output, controller, reads, values, strengths, count = self._unpack_carry(carry)
            inputs, keep = x
            with backend_ops.named_scope("controller_forward"):
                new_output, new_controller, pushed, pops, pushes, saved = self.controls.forward(
                    prepared, inputs, controller, reads
                )
            with backend_ops.named_scope("strengths"):
                new_strengths, read_weights = self.strengths(strengths, pops, pushes, count, keep, capacity)
            with backend_ops.named_scope("values"):
                in_capacity = ops.cast(count < capacity, keep.dtype)[:, None]
                index = self._write_index(count, capacity)
                new_values = self._add_at(values, index, pushed * (keep * in_capacity)[:, :, None])
                new_reads = _per_end(lambda w: memory_lib.read(new_values, w), read_weights)
            overflowed = (count >= capacity)[:, None, None]
            new_reads = ops.where(overflowed, ops.full_like(new_reads, float("nan")), new_reads)
            new_reads = ops.reshape(new_reads, ops.shape(reads))
            kept = keep > 0.5
            carried_output = ops.where(kept, new_output, output)
            step_output = ops.where(kept, new_output, ops.zeros_like(new_output)) if self.zero_output_for_mask else carried_output
            new_carry = [
                carried_output,
                *[ops.where(kept, new, old) for new, old in zip(new_controller, controller)],
                ops.where(kept, new_reads, reads),
                new_values,
                ops.where(kept, new_strengths, strengths),
                count + ops.cast(keep[:, 0], "int32"),
            ]
            return new_carry, [step_output, *controller, reads, strengths, *saved]

        carry = [output, *controller, reads, values, strengths, count]
        dtypes = [output.dtype, *[c.dtype for c in controller], reads.dtype, strengths.dtype]
        dtypes += self.controls.saved_dtypes(output.dtype)
        length = ops.shape(steps)[0]
        carry, saved = backend_ops.scan(step, carry, [steps, step_mask], length, dtypes)
        output, controller, reads, values, strengths, count = self._unpack_carry(carry)
        final_written = ops.cast(ops.arange(capacity, dtype=count.dtype)[None, :] < count[:, None], written.dtype)
        outputs = [saved[0], output, *controller, reads, ops.reshape(values, (batch, -1)), strengths, final_written]
        residuals = [steps, step_mask, values, count, written, *saved[1:], *weights]
        return outputs, residuals

    def _unpack_carry(self, carry):
        n = self.num_controller_states
        return carry[0], list(carry[1 : 1 + n]), carry[1 + n], carry[2 + n], carry[3 + n], carry[4 + n]

    # ------------------------------------------------------------- backward

    def backward(self, residuals, cotangents):
        n, k = self.num_controller_states, self.controls.num_saved
        steps, step_mask, values, count, written = residuals[:5]
        saved_controller = residuals[5 : 5 + n]
        saved_reads, saved_strengths = residuals[5 + n : 7 + n]
        saved_extra = residuals[7 + n : 7 + n + k]
        weights = list(residuals[7 + n + k :])
        d_outputs, d_output, *rest = cotangents
        d_controller, (d_reads, d_flat_values, d_strengths, _) = rest[:n], rest[n:]
        batch = ops.shape(values)[0]
        capacity = ops.shape(written)[-1]
        ends, width = self.memory.slots_per_step, self.cell.memory_width
        d_values = ops.reshape(d_flat_values, ops.shape(values))
        prepared = self.controls.prepare(weights)
        # `(batch, width, slots)`, once: per step, `V . dr` is then a plain
        # matrix product, several times faster on CPU than contracting `V`'s
        # last axis.
        values_by_width = ops.transpose(values, (0, 2, 1))

        def step(carry, x):
            d_values, count, d_output, *rest = carry
            d_controller, (d_reads, d_strengths) = rest[:n], rest[n:]
            inputs, keep, *saved, d_step_output = x
            controller, reads, strengths, extra = saved[:n], saved[n], saved[n + 1], saved[n + 2 :]
            count_after = count
            count = count - ops.cast(keep[:, 0], "int32")

            # The step's pushes and pops (the generic path recomputes the
            # controller and heads here, keeping their vjp).
            with backend_ops.named_scope("controller_forward"):
                pops, pushes, controls_backward = self.controls.step_backward(prepared, inputs, controller, reads, extra)
            with backend_ops.named_scope("strengths"):
                (_, read_weights), strengths_vjp = backend_ops.vjp(
                    lambda s, u, d: self.strengths(s, u, d, count, keep, capacity), strengths, pops, pushes
                )

            # Cotangents through the mask (`where(keep, new, old)`).
            dropped = 1.0 - keep
            d_new_output = keep * (d_output + d_step_output)
            d_old_output = dropped * d_output if self.zero_output_for_mask else dropped * (d_output + d_step_output)
            in_capacity = ops.cast(count < capacity, keep.dtype)[:, None]
            d_new_reads = ops.reshape(keep * in_capacity * d_reads, (batch, ends, width))

            # The (batch, slots, width) part, by hand. The step read `V_t`, which
            # is the final `V` on the slots filled by then and zero elsewhere, so
            # the loop only reads the final `V` and never writes a copy of it.
            with backend_ops.named_scope("values"):
                filled = ops.cast(self.memory.filled_slots(count_after, capacity), values.dtype)[:, None, :]
                d_read_weights = _per_end(lambda dr: ops.einsum("bw,bws->bs", dr, values_by_width), d_new_reads) * filled
                # A sum of broadcast products, not a contraction over the ends:
                # XLA fuses it with the add into one pass over `dV`.
                d_values = d_values + sum(
                    read_weights[:, e, :, None] * d_new_reads[:, e, None, :] for e in range(ends)
                )
                index = self._write_index(count, capacity)
                d_pushed = self._rows_at(d_values, index) * (keep * in_capacity)[:, :, None]

            with backend_ops.named_scope("strengths"):
                d_new_strengths = keep * d_strengths
                d_old_strengths, d_pops, d_pushes = strengths_vjp([d_new_strengths, d_read_weights])
            d_new_controller = [keep * d for d in d_controller]
            with backend_ops.named_scope("controller_backward"):
                d_old_controller, d_old_reads, step_cotangents = controls_backward(
                    d_new_output, d_new_controller, d_pushed, d_pops, d_pushes
                )
            new_carry = [
                d_values,
                count,
                d_old_output,
                *[d + dropped * d_next for d, d_next in zip(d_old_controller, d_controller)],
                d_old_reads + dropped * d_reads,
                d_old_strengths + dropped * d_strengths,
            ]
            return new_carry, step_cotangents

        carry = [d_values, count, d_output, *d_controller, d_reads, d_strengths]
        xs = [steps, step_mask, *saved_controller, saved_reads, saved_strengths, *saved_extra, d_outputs]
        dtypes = self.controls.cotangent_dtypes(d_outputs, saved_controller, values, saved_strengths)
        length = ops.shape(steps)[0]
        carry, step_cotangents = backend_ops.scan(step, carry, xs, length, dtypes, reverse=True)
        d_values, _, d_output, *rest = carry
        d_controller, (d_reads, d_strengths) = rest[:n], rest[n:]

        with backend_ops.named_scope("weight_gradients"):
            d_steps, d_weights = self.controls.gradients(
                weights, prepared, steps, saved_controller, saved_reads, saved_extra, step_cotangents
            )
        d_states = [
            d_output,
            *d_controller,
            d_reads,
            ops.reshape(d_values, (batch, -1)),
            d_strengths,
            ops.zeros_like(written),
        ]
        return (d_steps, ops.zeros_like(step_mask), *d_states, *d_weights)


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

    num_saved = 0

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


def _per_end(product, per_end_rows):
    """`product` applied to each end's `(batch, n)` slice, stacked on axis 1.

    The `(batch, slots, width)` products against `V` are one matrix-vector
    product per end (the DeQue has two): XLA on CPU runs the same contraction
    with an `ends` axis of size 2 about three times slower.
    """
    return ops.stack([product(per_end_rows[:, e]) for e in range(ops.shape(per_end_rows)[1])], axis=1)
