"""`trace_memory`: what a memory cell did at every step, for inspection."""

import numpy as np
from keras import ops

from keras_neural_memory.memory_cell import MemoryCell


def trace_memory(layer, inputs, mask=None, capacity=None):
    """Runs a memory RNN step by step and records its memory at each step.

    Runs eagerly, one Python iteration per time step (never per slot), on
    the same weights and the same `step` function that training uses.

    Args:
        layer: A `keras.layers.RNN` or `MemoryRNN` whose cell is a memory
            cell, or the memory cell itself. It must be built.
        inputs: `(batch, time, features)` array: the layer's input.
        mask: Optional `(batch, time)` boolean mask. Masked steps leave the
            memory unchanged, as in the layer.
        capacity: Memory steps to allocate; defaults to `time`.

    Returns:
        A dict of NumPy arrays, time on axis 1:
        `outputs` `(batch, time, output_size)`; `push`, `pop`
        `(batch, time, ends)` (ends: 1, or 2 for a DeQue as top, bottom);
        `values` `(batch, time, ends, width)`; `reads`
        `(batch, time, ends * width)`; `strengths` `(batch, time, slots)`,
        bottom slot first; `read_weights` `(batch, time, ends, slots)`.

    Example:

    ```python
    layer = MemoryRNN(StackCell(keras.layers.LSTMCell(32)), return_sequences=True)
    layer(x)  # build
    trace = trace_memory(layer, x)
    plt.imshow(trace["strengths"][0].T, origin="lower")
    ```
    """
    cell = layer if isinstance(layer, MemoryCell) else getattr(layer, "cell", None)
    if not isinstance(cell, MemoryCell):
        raise TypeError(f"`layer` must be a memory cell or an RNN layer wrapping one; received layer={layer!r}.")
    if not cell.built:
        raise ValueError("`layer` must be built: call it on an input (or load a trained model) first.")
    inputs = ops.convert_to_tensor(inputs, dtype=cell.compute_dtype)
    if len(inputs.shape) != 3:
        raise ValueError(f"`inputs` must be (batch, time, features); received shape {tuple(inputs.shape)}.")
    batch_size, length = int(inputs.shape[0]), int(inputs.shape[1])
    states = cell.get_initial_state(batch_size=batch_size, capacity=capacity or length)
    if mask is not None:
        mask = ops.convert_to_tensor(mask, dtype="bool")
    records = {key: [] for key in ("outputs", "push", "pop", "values", "reads", "strengths", "read_weights")}
    for t in range(length):
        output, new_states, info = cell.step(inputs[:, t], states)
        if mask is not None:
            keep = mask[:, t : t + 1]
            output = ops.where(keep, output, states[0])
            new_states = [ops.where(keep, new, old) for new, old in zip(new_states, states)]
        states = new_states
        _, _, memory_state = cell._unpack_state(states)
        weights = cell.memory.read_weights(memory_state)
        weights = weights if isinstance(weights, tuple) else (weights,)
        records["outputs"].append(output)
        records["push"].append(info["push"])
        records["pop"].append(info["pop"])
        records["values"].append(info["values"])
        records["reads"].append(info["reads"])
        records["strengths"].append(memory_state.strengths)
        records["read_weights"].append(ops.stack(weights, axis=1))
    return {key: np.stack([ops.convert_to_numpy(v) for v in values], axis=1) for key, values in records.items()}
