"""`trace_memory`: what a memory network did at every step, for inspection."""

import numpy as np
from keras import ops

from keras_neural_memory import memory as memory_lib
from keras_neural_memory.buffered_stack_rnn import BufferedStackRNN
from keras_neural_memory.memory_cell import MemoryCell


def trace_memory(layer, inputs, mask=None, capacity=None, output_length=None):
    """Runs a memory network step by step and records its memory at each step.

    Runs eagerly, one Python iteration per time step (never per slot), on
    the same weights and the same `step` function that training uses.

    Args:
        layer: A `keras.layers.RNN` or `MemoryRNN` whose cell is a memory
            cell, the memory cell itself, or a `BufferedStackRNN`. It must
            be built.
        inputs: `(batch, time, features)` array: the layer's input.
        mask: Optional `(batch, time)` boolean mask. Masked steps leave the
            memory unchanged, as in the layer (for a `BufferedStackRNN`,
            masked items start the input buffer at strength 0 and each
            sequence takes its own number of steps, as in the layer).
        capacity: Memory steps to allocate; defaults to `time`. Memory
            cells only: a `BufferedStackRNN` sizes its memory itself.
        output_length: `BufferedStackRNN` only: outputs to read off the
            output buffer, as the layer's `output_length` call argument;
            defaults to `time`.

    Returns:
        A dict of NumPy arrays, steps on axis 1. For a memory cell:
        `outputs` `(batch, time, output_size)`; `push`, `pop`
        `(batch, time, ends)` (ends: 1, or 2 for a DeQue as top, bottom);
        `values` `(batch, time, ends, width)`; `reads`
        `(batch, time, ends * width)`; `strengths` `(batch, time, slots)`,
        bottom slot first; `read_weights` `(batch, time, ends, slots)`.

        For a `BufferedStackRNN` the steps are its `steps` computation
        steps (e.g. `steps_per_input * time`). `push`, `pop`, `values`,
        `reads`, `strengths` and `read_weights` describe its stack as
        above (one end, `steps` slots), and `outputs` is the layer's output
        `(batch, output_length, output_size)`, read off the final output
        buffer (its axis 1 counts outputs, not steps). The extra keys are:
        `step_outputs` `(batch, steps, output_size)` the `y_t` each step
        enqueues to the output buffer; `output_push` `(batch, steps, 1)`
        its strength `o_t`; `input_pop` `(batch, steps, 1)` the strength
        `i_t` with which the next step dequeues the input buffer;
        `step_inputs` `(batch, steps, features)` the `x_t` read from the
        input buffer; `input_strengths` `(batch, steps, time)` the input
        buffer's strengths when `x_t` was read, first item first;
        `input_read_weights` `(batch, steps, time)` the weights of that
        read; `output_strengths` `(batch, steps, steps)` the output
        buffer's strengths after the step, first output first; and
        `step_mask` `(batch, steps)` boolean, True for the steps each
        sequence takes.

    Example:

    ```python
    import keras
    import numpy as np
    from keras_neural_memory import MemoryRNN, StackCell, trace_memory

    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32")
    layer = MemoryRNN(StackCell(keras.layers.LSTMCell(8)), return_sequences=True)
    layer(x)  # build
    trace = trace_memory(layer, x)
    print(trace["strengths"].shape)  # (2, 5, 5): batch, time, slots
    # plot_memory_trace(layer, x) draws it; or plt.imshow(trace["strengths"][0].T)
    ```
    """
    if isinstance(layer, BufferedStackRNN):
        if capacity is not None:
            raise ValueError(
                "`capacity` does not apply to a BufferedStackRNN, which sizes its memory "
                f"from each input; leave it None. Received capacity={capacity!r}."
            )
        return _trace_buffered(layer, inputs, mask, output_length)
    if output_length is not None:
        raise ValueError(
            "`output_length` applies only to a BufferedStackRNN; memory cells give one "
            f"output per step. Received output_length={output_length!r}."
        )
    cell = layer if isinstance(layer, MemoryCell) else getattr(layer, "cell", None)
    if not isinstance(cell, MemoryCell):
        raise TypeError(
            "`layer` must be a memory cell, an RNN layer wrapping one, or a BufferedStackRNN; "
            f"received layer={layer!r}."
        )
    if not cell.built:
        raise ValueError("`layer` must be built: call it on an input (or load a trained model) first.")
    inputs = _check_inputs(inputs, cell.compute_dtype)
    batch_size, length = int(inputs.shape[0]), int(inputs.shape[1])
    states = cell.get_initial_state(batch_size=batch_size, capacity=capacity or length)
    if mask is not None:
        mask = ops.convert_to_tensor(mask, dtype="bool")
    records = {key: [] for key in ("outputs", "push", "pop", "values", "reads", "strengths", "read_weights")}
    for t in range(length):
        output, new_states, info = cell.step(inputs[:, t], states)
        output, states = _masked_step(mask, t, output, new_states, states)
        *_, memory_state = cell.unpack_state(states)
        weights = cell.memory.read_weights(memory_state)
        weights = weights if isinstance(weights, tuple) else (weights,)
        records["outputs"].append(output)
        _record_memory(records, info, memory_state.strengths, ops.stack(weights, axis=1))
    return _stack_records(records)


def _masked_step(mask, t, output, new_states, states):
    """What `keras.layers.RNN` does at step `t`: where `mask` is False, the output and states stay."""
    if mask is None:
        return output, new_states
    keep = mask[:, t : t + 1]
    new_states = [ops.where(keep, new, old) for new, old in zip(new_states, states)]
    return ops.where(keep, output, states[0]), new_states


def _record_memory(records, info, strengths, read_weights):
    """Appends one step of the memory (its controls, values, reads, strengths and read weights)."""
    for key in ("push", "pop", "values", "reads"):
        records[key].append(info[key])
    records["strengths"].append(strengths)
    records["read_weights"].append(read_weights)


def _check_inputs(inputs, dtype):
    inputs = ops.convert_to_tensor(inputs, dtype=dtype)
    if len(inputs.shape) != 3:
        raise ValueError(f"`inputs` must be (batch, time, features); received shape {tuple(inputs.shape)}.")
    return inputs


def _stack_records(records):
    return {key: np.stack([ops.convert_to_numpy(v) for v in values], axis=1) for key, values in records.items()}


def _trace_buffered(layer, inputs, mask, output_length):
    """`trace_memory` for a `BufferedStackRNN`: its own start, step and read-off."""
    if not layer.built:
        raise ValueError("`layer` must be built: call it on an input (or load a trained model) first.")
    inputs = _check_inputs(inputs, layer.compute_dtype)
    if mask is not None:
        mask = ops.convert_to_tensor(mask, dtype="bool")
    states, steps, step_mask, _ = layer._start(inputs, mask)
    cell = layer.cell
    stack_cell = cell.stack_cell
    keys = (
        "step_outputs", "push", "pop", "values", "reads", "strengths", "read_weights", "input_pop",
        "output_push", "step_inputs", "input_strengths", "input_read_weights", "output_strengths",
    )  # fmt: skip
    records = {key: [] for key in keys}
    for t in range(int(steps)):
        y, new_states, info = cell.step(states)
        y, states = _masked_step(step_mask, t, y, new_states, states)
        state = cell.unpack_state(states)
        *_, memory_state = stack_cell.unpack_state(state.stack)
        in_strengths, out_strengths = state.input_strengths, state.output_strengths
        records["step_outputs"].append(y)
        weights = stack_cell.memory.read_weights(memory_state)[:, None, :]
        _record_memory(records, info, memory_state.strengths, weights)
        records["input_pop"].append(info["input_pop"])
        records["output_push"].append(info["output_push"])
        records["step_inputs"].append(info["input"])
        records["input_strengths"].append(in_strengths)
        records["input_read_weights"].append(memory_lib.read_weights(in_strengths, "bottom"))
        records["output_strengths"].append(out_strengths)
    trace = _stack_records(records)
    length = int(inputs.shape[1]) if output_length is None else output_length
    trace["outputs"] = ops.convert_to_numpy(layer._read_off(states, length))
    if step_mask is None:
        trace["step_mask"] = np.ones(trace["push"].shape[:2], bool)
    else:
        trace["step_mask"] = ops.convert_to_numpy(step_mask).astype(bool)
    return trace
