"""Keras' own RNN cells as pure step functions with hand-derived backward passes.

The fused scan (`keras_neural_memory.fused_scan`) can differentiate any
controller, but only by running it again: once per step in the reverse
loop, for its vector-Jacobian product, and once more over all rows for the
weight gradients. For the cells here it needs neither. A *step kernel* is
one cell type's step written as pure functions of its weights, with the
backward pass derived by hand from Keras' exact forward:

* `forward(w, x, states) -> (output, new_states, saved)`: the cell's step
  (the operations of Keras' `call`, in its order), plus what the backward
  needs, e.g. an LSTM's gate activations and `act(c_t)`.
* `backward(w, w_t, states, output, saved, d_output, d_new_states)
  -> (d_pre, d_states)`: the cotangents of the step's pre-activations and
  of its previous states, with no forward computation. `w_t` is
  `transposes(w)`, the matrices the backward multiplies by, transposed
  once outside the loop: XLA on CPU multiplies by a transposed operand at
  about half the speed. `d_pre[0]` is the cotangent of the input
  projection `x @ input_kernel(w)`, so the input's cotangent is one
  product with that kernel (`input_gradient`), taken inside the loop for
  the columns fed back (the reads) and after it for the rest.
* `weight_gradients(x, states, output, saved, d_pre) -> list`: the weights'
  gradients over all `time * batch` rows at once, e.g.
  `dW = x_rows^T . d_pre_rows`, one large matrix product each.

`w` is the kernel's list of weights (`kernel.variables`, in that order) as
tensors in the compute dtype; states, saved tensors and cotangents are flat
lists of `(batch, n)` tensors (rows of all steps in `weight_gradients`).

`step_kernel(cell)` gives the kernel of a supported controller, and
`unsupported_reason(cell)` says why a cell has none. A cell is supported
only where every option it has is derived here; anything else (a subclass,
a user's cell, an activation other than tanh, sigmoid, hard sigmoid or
linear, dropout, an activity regulariser) has no kernel, and the fused scan runs it through
its generic path. Weight regularisers and constraints act on the variables
outside the step and do not matter here; `unit_forget_bias` only sets the
initial bias.

`MemoryHeads` does the same for a memory cell's fused projection of the
controller output to `o_t` and the push, pop and value of each end.
"""

import keras
from keras import ops

from keras_neural_memory import backend_ops
from keras_neural_memory.linear_controller import LinearController

__all__ = ["MemoryHeads", "input_gradient", "step_kernel", "unsupported_reason"]


# --------------------------------------------------------------------------
# Activations whose derivative is a function of their output.
# --------------------------------------------------------------------------


class _Activation:
    """An activation applied forward and differentiated from its output.

    Only activations whose derivative is a function of the output are
    supported, so that the backward pass needs no pre-activation: tanh,
    sigmoid, linear (Keras' `activation=None`) and hard sigmoid
    (`relu6(x + 3) / 6`, slope 1/6 where its output is strictly between 0
    and 1, and 0 where it is clipped).
    """

    KINDS = {
        "tanh": keras.activations.tanh,
        "sigmoid": keras.activations.sigmoid,
        "linear": keras.activations.linear,
        "hard_sigmoid": keras.activations.hard_sigmoid,
    }

    def __init__(self, fn):
        self.kind = self.kind_of(fn)
        if self.kind is None:
            raise ValueError(f"No derivative for activation {fn!r}.")

    @classmethod
    def kind_of(cls, fn):
        """The name of a supported activation function, or None."""
        for kind, supported in cls.KINDS.items():
            if fn is supported:
                return kind
        return None

    def __call__(self, x):
        if self.kind == "tanh":
            return backend_ops.tanh(x)
        if self.kind == "sigmoid":
            return ops.sigmoid(x)
        if self.kind == "hard_sigmoid":
            return ops.hard_sigmoid(x)
        return x

    def backward(self, y, dy):
        """The cotangent of the pre-activation, from the output `y` and its cotangent `dy`."""
        if self.kind == "tanh":
            return dy * (1.0 - y * y)
        if self.kind == "sigmoid":
            return dy * (y * (1.0 - y))
        if self.kind == "hard_sigmoid":
            inside = ops.logical_and(ops.greater(y, 0.0), ops.less(y, 1.0))
            return ops.where(inside, dy / 6.0, ops.zeros_like(dy))
        return dy


def _t(matrix):
    return ops.transpose(matrix)


def _sum_rows(rows):
    return ops.sum(rows, axis=0)


def input_gradient(input_kernel_t, d_projection):
    """`d_x` from the cotangent of the input projection `x @ input_kernel`.

    Args:
        input_kernel_t: The kernel transposed (or the transpose of a slice
            of its rows, for some columns of `x`); None for the identity
            (`LinearController`), where `d_projection` is already `d_x`.
        d_projection: `(rows, n)`, `d_pre[0]` of a kernel's `backward`.
    """
    if input_kernel_t is None:
        return d_projection
    return ops.matmul(d_projection, input_kernel_t)


# --------------------------------------------------------------------------
# The kernels.
# --------------------------------------------------------------------------


class _StepKernel:
    """Base of the step kernels; see the module docstring for the protocol."""

    #: Numbers of flat states, of tensors `forward` saves, of `d_pre` and of `transposes`.
    num_states = 1
    num_saved = 0
    num_pre = 1
    num_transposes = 1

    def __init__(self, cell):
        self.cell = cell

    @property
    def variables(self):
        """The cell's variables that `w` holds, in order."""
        raise NotImplementedError

    def input_kernel(self, w):
        """The matrix of the input projection, or None for the identity."""
        return w[0]

    def transposes(self, w):
        """The transposed matrices `backward` multiplies by (default: the recurrent kernel)."""
        return [_t(w[1])]

    def forward(self, w, x, states):
        """One step, as the cell's `call`.

        Args:
            w: The weights (`variables`), in the compute dtype.
            x: `(batch, input)` the step's input.
            states: The flat previous states.

        Returns:
            `(output, new_states, saved)`: `saved` is a list of
            `num_saved` tensors for `backward` and `weight_gradients`.
        """
        raise NotImplementedError

    def backward(self, w, w_t, states, output, saved, d_output, d_new_states):
        """The step's backward pass, from what `forward` saved.

        Args:
            w: The weights; `w_t`: `transposes(w)`.
            states: The flat previous states; `output`, `saved`: what
                `forward` returned for them.
            d_output: Cotangent of `output`.
            d_new_states: Cotangents of `new_states`.

        Returns:
            `(d_pre, d_states)`: `num_pre` cotangents of pre-activations
            (`d_pre[0]` that of the input projection) and the cotangents of
            `states`.
        """
        raise NotImplementedError

    def weight_gradients(self, x, states, output, saved, d_pre):
        """The gradients of `variables`, from the rows of all steps.

        Args:
            x, states, output, saved, d_pre: As in `forward` and `backward`,
                each `(time * batch, n)`: every step's rows at once.

        Returns:
            One gradient per variable, e.g. `x^T . d_pre[0]` for the kernel.
        """
        raise NotImplementedError


class _LSTMKernel(_StepKernel):
    """`keras.layers.LSTMCell`: `z = x W + h R + b`, gates `i, f, g, o`.

    Saves the gate activations `[i, f, g, o]` and `act(c_t)`; the backward
    also reads the previous `c`.
    """

    num_states = 2
    num_saved = 2

    def __init__(self, cell):
        super().__init__(cell)
        self.units = cell.units
        self.activation = _Activation(cell.activation)
        self.gate = _Activation(cell.recurrent_activation)

    @property
    def variables(self):
        cell = self.cell
        return [cell.kernel, cell.recurrent_kernel] + ([cell.bias] if cell.use_bias else [])

    def forward(self, w, x, states):
        h, c = states
        z = ops.matmul(x, w[0])
        z = ops.add(z, ops.matmul(h, w[1]))
        if self.cell.use_bias:
            z = ops.add(z, w[2])
        z_i, z_f, z_g, z_o = ops.split(z, 4, axis=1)
        i, f, g, o = self.gate(z_i), self.gate(z_f), self.activation(z_g), self.gate(z_o)
        c = f * c + i * g
        act_c = self.activation(c)
        h = o * act_c
        return h, [h, c], [ops.concatenate([i, f, g, o], axis=-1), act_c]

    def backward(self, w, w_t, states, output, saved, d_output, d_new_states):
        gates, act_c = saved
        i, f, g, o = ops.split(gates, 4, axis=1)
        _, c_prev = states
        d_h = d_output + d_new_states[0]
        d_c = d_new_states[1] + self.activation.backward(act_c, d_h * o)
        d_z = ops.concatenate(
            [
                self.gate.backward(i, d_c * g),
                self.gate.backward(f, d_c * c_prev),
                self.activation.backward(g, d_c * i),
                self.gate.backward(o, d_h * act_c),
            ],
            axis=-1,
        )
        return [d_z], [ops.matmul(d_z, w_t[0]), d_c * f]

    def weight_gradients(self, x, states, output, saved, d_pre):
        (d_z,) = d_pre
        grads = [ops.matmul(_t(x), d_z), ops.matmul(_t(states[0]), d_z)]
        return grads + ([_sum_rows(d_z)] if self.cell.use_bias else [])


class _GRUKernel(_StepKernel):
    """`keras.layers.GRUCell`, `reset_after` True (default) or False.

    Saves the gates `z`, `r`, the candidate `hh` and, with `reset_after`,
    the recurrent candidate projection `h R_h + b_h`. `d_pre` is the
    cotangent of `x W + b` and, with `reset_after`, of `h R + b_r`.
    """

    def __init__(self, cell):
        super().__init__(cell)
        self.units = cell.units
        self.activation = _Activation(cell.activation)
        self.gate = _Activation(cell.recurrent_activation)
        self.num_saved = 4 if cell.reset_after else 3
        self.num_pre = 2 if cell.reset_after else 1
        self.num_transposes = 1 if cell.reset_after else 2

    @property
    def variables(self):
        cell = self.cell
        return [cell.kernel, cell.recurrent_kernel] + ([cell.bias] if cell.use_bias else [])

    def transposes(self, w):
        if self.cell.reset_after:
            return [_t(w[1])]
        units = self.units
        return [_t(w[1][:, 2 * units :]), _t(w[1][:, : 2 * units])]

    def _biases(self, w):
        if not self.cell.use_bias:
            return None, None
        if not self.cell.reset_after:
            return w[2], None
        return w[2][0], w[2][1]

    def forward(self, w, x, states):
        (h_prev,) = states
        units = self.units
        input_bias, recurrent_bias = self._biases(w)
        matrix_x = ops.matmul(x, w[0])
        if input_bias is not None:
            matrix_x = ops.add(matrix_x, input_bias)
        x_z, x_r, x_h = ops.split(matrix_x, 3, axis=-1)
        if self.cell.reset_after:
            matrix_inner = ops.matmul(h_prev, w[1])
            if recurrent_bias is not None:
                matrix_inner += recurrent_bias
        else:
            matrix_inner = ops.matmul(h_prev, w[1][:, : 2 * units])
        recurrent_z = matrix_inner[:, :units]
        recurrent_r = matrix_inner[:, units : units * 2]
        z = self.gate(x_z + recurrent_z)
        r = self.gate(x_r + recurrent_r)
        if self.cell.reset_after:
            inner_h = matrix_inner[:, units * 2 :]
            recurrent_h = r * inner_h
        else:
            recurrent_h = ops.matmul(r * h_prev, w[1][:, 2 * units :])
        hh = self.activation(x_h + recurrent_h)
        h = z * h_prev + (1 - z) * hh
        saved = [z, r, hh] + ([inner_h] if self.cell.reset_after else [])
        return h, [h], saved

    def backward(self, w, w_t, states, output, saved, d_output, d_new_states):
        (h_prev,) = states
        z, r, hh = saved[:3]
        units = self.units
        d_h = d_output + d_new_states[0]
        d_pre_h = self.activation.backward(hh, d_h * (1 - z))
        d_pre_z = self.gate.backward(z, d_h * (h_prev - hh))
        d_h_prev = d_h * z
        if self.cell.reset_after:
            inner_h = saved[3]
            d_pre_r = self.gate.backward(r, d_pre_h * inner_h)
            d_inner = ops.concatenate([d_pre_z, d_pre_r, d_pre_h * r], axis=-1)
            d_h_prev = d_h_prev + ops.matmul(d_inner, w_t[0])
            d_pre = [ops.concatenate([d_pre_z, d_pre_r, d_pre_h], axis=-1), d_inner]
        else:
            d_reset_h = ops.matmul(d_pre_h, w_t[0])
            d_pre_r = self.gate.backward(r, d_reset_h * h_prev)
            d_gates = ops.concatenate([d_pre_z, d_pre_r], axis=-1)
            d_h_prev = d_h_prev + d_reset_h * r + ops.matmul(d_gates, w_t[1])
            d_pre = [ops.concatenate([d_gates, d_pre_h], axis=-1)]
        return d_pre, [d_h_prev]

    def weight_gradients(self, x, states, output, saved, d_pre):
        (h_prev,) = states
        d_x_projection = d_pre[0]
        d_kernel = ops.matmul(_t(x), d_x_projection)
        if self.cell.reset_after:
            d_inner = d_pre[1]
            d_recurrent = ops.matmul(_t(h_prev), d_inner)
            d_bias = ops.stack([_sum_rows(d_x_projection), _sum_rows(d_inner)], axis=0)
        else:
            units = self.units
            r = saved[1]
            d_recurrent = ops.concatenate(
                [
                    ops.matmul(_t(h_prev), d_x_projection[:, : 2 * units]),
                    ops.matmul(_t(r * h_prev), d_x_projection[:, 2 * units :]),
                ],
                axis=-1,
            )
            d_bias = _sum_rows(d_x_projection)
        return [d_kernel, d_recurrent] + ([d_bias] if self.cell.use_bias else [])


class _SimpleRNNKernel(_StepKernel):
    """`keras.layers.SimpleRNNCell`: `h = act(x W + b + h R)`; saves nothing (`h` is the output)."""

    def __init__(self, cell):
        super().__init__(cell)
        self.activation = _Activation(cell.activation)

    @property
    def variables(self):
        cell = self.cell
        return [cell.kernel, cell.recurrent_kernel] + ([cell.bias] if cell.bias is not None else [])

    def forward(self, w, x, states):
        (h_prev,) = states
        h = ops.matmul(x, w[0])
        if self.cell.bias is not None:
            h = ops.add(h, w[2])
        h = self.activation(h + ops.matmul(h_prev, w[1]))
        return h, [h], []

    def backward(self, w, w_t, states, output, saved, d_output, d_new_states):
        d_pre = self.activation.backward(output, d_output + d_new_states[0])
        return [d_pre], [ops.matmul(d_pre, w_t[0])]

    def weight_gradients(self, x, states, output, saved, d_pre):
        (d_h,) = d_pre
        grads = [ops.matmul(_t(x), d_h), ops.matmul(_t(states[0]), d_h)]
        return grads + ([_sum_rows(d_h)] if self.cell.bias is not None else [])


class _LinearKernel(_StepKernel):
    """`LinearController`: the output is the input; no weights, no state."""

    num_states = 0
    num_transposes = 0

    @property
    def variables(self):
        return []

    def input_kernel(self, w):
        return None

    def transposes(self, w):
        return []

    def forward(self, w, x, states):
        return x, [], []

    def backward(self, w, w_t, states, output, saved, d_output, d_new_states):
        return [d_output], []

    def weight_gradients(self, x, states, output, saved, d_pre):
        return []


class _StackedKernel(_StepKernel):
    """`keras.layers.StackedRNNCells`: the kernels of its cells, composed.

    Cell `k > 0` reads the output of cell `k - 1`; `saved` keeps those
    outputs (for the cells' backward and weight gradients), then each
    cell's own saved tensors. The backward walks the cells in reverse,
    passing each cell's input cotangent to the cell below.
    """

    def __init__(self, cell):
        super().__init__(cell)
        self.kernels = [_KERNELS[type(inner)](inner) for inner in cell.cells]
        self.num_states = sum(k.num_states for k in self.kernels)
        self.num_saved = len(self.kernels) - 1 + sum(k.num_saved for k in self.kernels)
        self.num_pre = sum(k.num_pre for k in self.kernels)
        self.num_transposes = sum(self._transpose_counts())

    @property
    def variables(self):
        return [v for kernel in self.kernels for v in kernel.variables]

    def input_kernel(self, w):
        return self.kernels[0].input_kernel(w[: len(self.kernels[0].variables)])

    def _transpose_counts(self):
        """Per cell: its own transposes, and for cells above the first its input kernel's."""
        return [k.num_transposes + (1 if index else 0) for index, k in enumerate(self.kernels)]

    def transposes(self, w):
        w_t = []
        for index, (kernel, cell_w) in enumerate(zip(self.kernels, self._per_cell(w=w)["w"])):
            w_t.extend(kernel.transposes(cell_w))
            if index:
                w_t.append(_t(kernel.input_kernel(cell_w)))
        return w_t

    @staticmethod
    def _split(flat, sizes):
        parts, start = [], 0
        for size in sizes:
            parts.append(list(flat[start : start + size]))
            start += size
        return parts

    def _per_cell(self, w=None, states=None, saved=None, d_pre=None):
        """The arguments of each cell, as lists indexed by cell."""
        kernels = self.kernels
        parts = {}
        if w is not None:
            parts["w"] = self._split(w, [len(k.variables) for k in kernels])
        if states is not None:
            parts["states"] = self._split(states, [k.num_states for k in kernels])
        if saved is not None:
            outputs = list(saved[: len(kernels) - 1])
            parts["outputs"] = outputs
            parts["saved"] = self._split(saved[len(kernels) - 1 :], [k.num_saved for k in kernels])
        if d_pre is not None:
            parts["d_pre"] = self._split(d_pre, [k.num_pre for k in kernels])
        return parts

    def forward(self, w, x, states):
        parts = self._per_cell(w=w, states=states)
        outputs, new_states, saved = [], [], []
        for kernel, cell_w, cell_states in zip(self.kernels, parts["w"], parts["states"]):
            x, cell_new_states, cell_saved = kernel.forward(cell_w, x, cell_states)
            outputs.append(x)
            new_states.extend(cell_new_states)
            saved.extend(cell_saved)
        return x, new_states, outputs[:-1] + saved

    def backward(self, w, w_t, states, output, saved, d_output, d_new_states):
        parts = self._per_cell(w=w, states=states, saved=saved)
        cell_w_t = self._split(w_t, self._transpose_counts())
        outputs = parts["outputs"] + [output]
        d_cell_new_states = self._split(d_new_states, [k.num_states for k in self.kernels])
        d_pre, d_states = [None] * len(self.kernels), [None] * len(self.kernels)
        for index in reversed(range(len(self.kernels))):
            kernel, cell_w = self.kernels[index], parts["w"][index]
            transposes = cell_w_t[index]
            d_pre[index], d_states[index] = kernel.backward(
                cell_w,
                transposes[: kernel.num_transposes],
                parts["states"][index],
                outputs[index],
                parts["saved"][index],
                d_output,
                d_cell_new_states[index],
            )
            if index:
                d_output = input_gradient(transposes[-1], d_pre[index][0])
        return [d for cell_d in d_pre for d in cell_d], [d for cell_d in d_states for d in cell_d]

    def weight_gradients(self, x, states, output, saved, d_pre):
        parts = self._per_cell(states=states, saved=saved, d_pre=d_pre)
        inputs = [x] + parts["outputs"]
        outputs = parts["outputs"] + [output]
        grads = []
        for index, kernel in enumerate(self.kernels):
            grads.extend(
                kernel.weight_gradients(
                    inputs[index], parts["states"][index], outputs[index], parts["saved"][index], parts["d_pre"][index]
                )
            )
        return grads


_KERNELS = {
    keras.layers.LSTMCell: _LSTMKernel,
    keras.layers.GRUCell: _GRUKernel,
    keras.layers.SimpleRNNCell: _SimpleRNNKernel,
}


# --------------------------------------------------------------------------
# Eligibility.
# --------------------------------------------------------------------------


def _recurrent_cell_reason(cell):
    """Why one of Keras' LSTM, GRU or SimpleRNN cells has no kernel, or None."""
    if cell.dropout or cell.recurrent_dropout:
        return f"{cell.name!r} uses dropout"
    names = ["activation"] + (["recurrent_activation"] if hasattr(cell, "recurrent_activation") else [])
    for name in names:
        if _Activation.kind_of(getattr(cell, name)) is None:
            return (
                f"{cell.name!r} has {name}={getattr(cell, name)!r}; "
                "only tanh, sigmoid, hard sigmoid and linear are derived"
            )
    return None


def unsupported_reason(cell):
    """Why `cell` has no step kernel, or None if it has one.

    Supported: `keras.layers.LSTMCell`, `GRUCell` (either `reset_after`),
    `SimpleRNNCell`, with or without bias, activations and recurrent
    activations among tanh, sigmoid, hard sigmoid and linear, no dropout; a
    `keras.layers.StackedRNNCells` of such cells; `LinearController`. The
    type must be exactly one of these: a subclass may change the step.
    """
    if not cell.built:
        return f"{cell.name!r} is not built"
    if getattr(cell, "activity_regularizer", None) is not None:
        return f"{cell.name!r} has an activity regulariser"
    if not cell.autocast and cell.compute_dtype != cell.variable_dtype:
        # Keras would run it in its variables' dtype, not the cell's compute dtype.
        return f"{cell.name!r} has autocast=False under the {cell.dtype_policy.name} policy"
    kind = type(cell)
    if kind in _KERNELS:
        return _recurrent_cell_reason(cell)
    if kind is LinearController:
        return None
    if kind is keras.layers.StackedRNNCells:
        if not cell.cells:
            return f"{cell.name!r} has no cells"
        for inner in cell.cells:
            if type(inner) not in _KERNELS:
                return (
                    f"{cell.name!r} holds {type(inner).__name__} {inner.name!r}; "
                    "only LSTM, GRU and SimpleRNN cells are composed"
                )
            reason = unsupported_reason(inner)
            if reason:
                return reason
            if inner.compute_dtype != cell.compute_dtype:
                return f"{inner.name!r} computes in {inner.compute_dtype}, its stack in {cell.compute_dtype}"
        return None
    return f"{kind.__name__} {cell.name!r} has no step kernel"


def step_kernel(cell):
    """The step kernel of a supported controller cell, or None (`unsupported_reason`)."""
    if unsupported_reason(cell) is not None:
        return None
    if type(cell) is LinearController:
        return _LinearKernel(cell)
    if type(cell) is keras.layers.StackedRNNCells:
        return _StackedKernel(cell)
    return _KERNELS[type(cell)](cell)


# --------------------------------------------------------------------------
# The memory cell's heads.
# --------------------------------------------------------------------------


class MemoryHeads:
    """A memory cell's heads: `o_t` and each end's push, pop and value.

    `forward` is `MemoryCell.heads` as a pure function of the weights:
    `heads = o'_t K + b`, then the output and value activations and the gate
    activation of the push and pop logits (plus the step's strength noise,
    when `MemoryRNN` draws it). `backward` is its derivative, taken from the
    activations, which `forward` returns and the scan saves.

    Args:
        cell: A built `MemoryCell` whose heads have no `unsupported_reason`.
    """

    def __init__(self, cell):
        self.cell = cell
        self.ends = cell.num_ends
        self.output_activation = _Activation(cell.output_activation)
        self.value_activation = _Activation(cell.value_activation)
        self.gate_activation = _Activation(cell.gate_activation)
        output_slice, *end_slices = cell.head_slices
        self.output_slice = output_slice
        self.push_slices, self.pop_slices, self.value_slices = end_slices[0::3], end_slices[1::3], end_slices[2::3]

    @property
    def variables(self):
        return [self.cell.kernel, self.cell.bias]

    @staticmethod
    def unsupported_reason(cell):
        """Why a memory cell's heads are not derived here, or None."""
        for name in ("output_activation", "value_activation"):
            if _Activation.kind_of(getattr(cell, name)) is None:
                return f"{name}={getattr(cell, name)!r}; only tanh, sigmoid, hard sigmoid and linear are derived"
        return None

    def forward(self, w, controller_output, noise=None):
        """`(output, values, pops, pushes)`: `MemoryCell.heads` with the weights `w`."""
        activations = (self.output_activation, self.value_activation, self.gate_activation)
        return self.cell.heads(controller_output, noise, weights=w, activations=activations)

    @staticmethod
    def transposes(w):
        """`[K^T]`, formed once outside the loop for `backward`."""
        return [_t(w[0])]

    def backward(self, w_t, activations, d_output, d_values, d_pops, d_pushes):
        """`(d_heads, d_controller_output)` from the cotangents of `forward`'s results.

        `d_heads` is the cotangent of the pre-activation `heads`, in its
        column order; the push and pop columns are also the cotangents of
        the strength noise.
        """
        output, values, pops, pushes = activations
        d_pop_logits = self.gate_activation.backward(pops, d_pops)
        d_push_logits = self.gate_activation.backward(pushes, d_pushes)
        columns = [self.output_activation.backward(output, d_output)]
        for end in range(self.ends):
            columns += [
                d_push_logits[:, end : end + 1],
                d_pop_logits[:, end : end + 1],
                self.value_activation.backward(values[:, end], d_values[:, end]),
            ]
        d_heads = ops.concatenate(columns, axis=-1)
        return d_heads, ops.matmul(d_heads, w_t[0])

    def noise_gradient(self, d_heads):
        """The cotangent of the strength noise (push columns, then pop) from `d_heads`."""
        starts = [s.start for s in self.push_slices] + [s.start for s in self.pop_slices]
        return ops.concatenate([d_heads[:, start : start + 1] for start in starts], axis=-1)

    @staticmethod
    def weight_gradients(controller_output, d_heads):
        """`[d_kernel, d_bias]` over all rows."""
        return [ops.matmul(_t(controller_output), d_heads), _sum_rows(d_heads)]
