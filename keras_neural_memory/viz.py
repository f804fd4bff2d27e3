"""Figures: what a memory network did, length generalisation, convergence.

* `plot_memory_trace`: heatmaps over time of a network's memory controls,
  slot strengths and read weights on one example, in the style of Hao et
  al. (2018), Figures 5-6.
* `plot_length_generalisation`: accuracy against input length for several
  models, the training lengths shaded (what `neural-memory evaluate
  --sweep` measures).
* `plot_convergence`: training accuracy against batches, memory models
  against LSTMs (Grefenstette et al. 2015, Figure 2b).

Every function returns a `matplotlib.figure.Figure` made without pyplot,
so it works under any backend (Agg included), never opens a window and
needs no `plt.close`; `save_to=` also writes it as a PNG. In Jupyter, run
`%matplotlib inline` once (or `display(figure)`) to show the returned
figure as an image.
"""

import os
from collections.abc import Mapping

import keras
import numpy as np
from keras import ops

from keras_neural_memory.buffered_stack_rnn import BufferedStackRNN
from keras_neural_memory.memory_cell import MemoryCell
from keras_neural_memory.trace import trace_memory

__all__ = ["plot_convergence", "plot_length_generalisation", "plot_memory_trace"]

# Lighter colours are higher values, as in Hao et al.'s figures. Every
# heatmap shows a strength or a weight, all in [0, 1], on the same scale.
_CMAP = "viridis"
_EMPTY = "\u2205"  # the input label of a step that reads (almost) nothing
_MEMORY_NAMES = {"NeuralStack": "Neural Stack", "NeuralQueue": "Neural Queue", "NeuralDeque": "Neural DeQue"}


def _figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def _figure_and_axis(axis, figsize):
    if axis is None:
        figure = _figure(figsize)
        return figure, figure.add_subplot()
    return axis.figure, axis


def _save(figure, save_to, dpi):
    if save_to is not None:
        figure.savefig(os.fspath(save_to), dpi=dpi)


# ----------------------------------------------------------- memory traces


def _is_memory_layer(layer):
    return isinstance(layer, (BufferedStackRNN, MemoryCell)) or (
        isinstance(layer, keras.layers.RNN) and isinstance(layer.cell, MemoryCell)
    )


def _find_memory_layer(model):
    """`(layer, is_whole_model)`: the memory layer to trace."""
    if _is_memory_layer(model):
        return model, False
    if not isinstance(model, keras.Model):
        raise TypeError(
            "`model` must be a Keras model containing one memory layer (`MemoryRNN`, "
            "`keras.layers.RNN` over a `MemoryCell`, or `BufferedStackRNN`) or that "
            f"layer itself; received model={model!r}."
        )
    found, nested = [], []

    def walk(container, top):
        for layer in container.layers:
            if _is_memory_layer(layer):
                (found if top else nested).append(layer)
            elif isinstance(layer, keras.Model):
                walk(layer, False)

    walk(model, True)
    names = [layer.name for layer in found + nested]
    if not names:
        raise ValueError(
            f"`model` ({model.name!r}) has no memory layer (`MemoryRNN`, `keras.layers.RNN` over a "
            "`MemoryCell`, or `BufferedStackRNN`), so there is no memory to plot; pass a model "
            "from `build_transducer(memory='stack'|'queue'|'deque')` or `build_hao_model(stack=True)`, "
            "or the memory layer itself."
        )
    if len(names) > 1:
        raise ValueError(
            f"`model` ({model.name!r}) has {len(names)} memory layers {names}; plot_memory_trace "
            "plots one. Pass the one you want, e.g. `model.get_layer(name)`, with its own "
            "input as `example`."
        )
    if nested:
        raise ValueError(
            f"`model`'s memory layer {names[0]!r} is inside a nested model; pass that nested "
            "model (or the memory layer) as `model` instead."
        )
    return found[0], True


def _layer_call(layer):
    """The symbolic `(sequences, mask, output_length)` a functional model calls `layer` with."""
    nodes = getattr(layer, "_inbound_nodes", None)
    if not nodes:
        raise ValueError(
            f"The memory layer {layer.name!r} is not connected in `model`; pass a functional or "
            "Sequential model, or the layer itself."
        )
    args, kwargs = nodes[0].arguments.args, nodes[0].arguments.kwargs
    sequences = args[0] if args else kwargs.get("sequences", kwargs.get("inputs"))
    return sequences, kwargs.get("mask"), kwargs.get("output_length")


def _example_batch(example, rank, batch_index, what):
    """`example` as a batch of rank `rank` (batch axis added to one sequence)."""
    if isinstance(example, Mapping):
        if "inputs" not in example:
            raise ValueError(
                f'`example` is a dict without an "inputs" key (keys: {sorted(map(str, example))}); '
                'pass a tfds_tasks example, which has "inputs", or the inputs themselves.'
            )
        example = example["inputs"]
    try:
        array = np.asarray(example)
    except ValueError:
        raise ValueError(
            "`example` must be one sequence or a rectangular batch; its sequences have different "
            "lengths. Pad them to one length (with id 0, which the models mask), or pass one sequence."
        ) from None
    if array.dtype == object:
        raise ValueError(f"`example` must be numeric (token ids or input vectors); received {example!r}.")
    if array.ndim == rank - 1:
        array = array[None]
    if array.ndim != rank or array.shape[1] == 0:
        raise ValueError(
            f"`example` must be one sequence of {what} (shape {('time',) + ('features',) * (rank - 2)}) "
            f"or a batch of them (shape {('batch', 'time') + ('features',) * (rank - 2)}); "
            f"received shape {array.shape}."
        )
    if rank == 2:
        if not (np.issubdtype(array.dtype, np.integer) or np.all(np.mod(array, 1) == 0)):
            raise ValueError(f"`example` must hold integer token ids; received dtype {array.dtype}.")
        array = array.astype("int32")
    if isinstance(batch_index, bool) or not isinstance(batch_index, (int, np.integer)):
        raise TypeError(f"`batch_index` must be an int; received batch_index={batch_index!r}.")
    if not -len(array) <= batch_index < len(array):
        raise ValueError(
            f"`batch_index`={batch_index} is out of range for an `example` batch of {len(array)} "
            f"sequence(s); pass 0 <= batch_index < {len(array)}."
        )
    return array, int(batch_index) % len(array)


def _labeler(labels, name):
    """Maps an id to its label: `labels[id]` (a list or a dict), else the id."""
    if labels is None:
        return str
    if isinstance(labels, Mapping):
        return lambda i: str(labels.get(i, i))
    try:
        labels = list(labels)
    except TypeError:
        raise TypeError(
            f"`{name}` must be a list of labels indexed by id (e.g. `tfds_tasks.joint.input_vocab(...)`) "
            f"or a dict {{id: label}}; received {name}={labels!r}."
        ) from None

    def label(i):
        if 0 <= i < len(labels):
            return str(labels[i])
        raise ValueError(
            f"`{name}` has {len(labels)} labels, but the example needs one for id {i}; pass one "
            "label per id (a list indexed by id, or a dict {id: label})."
        )

    return label


def _used_steps(step_mask):
    """`(shown, taken)`: steps up to the last unmasked one, and how many of them ran."""
    step_mask = np.asarray(step_mask, bool)
    if not step_mask.any():
        return 0, 0
    shown = int(np.flatnonzero(step_mask)[-1]) + 1
    return shown, int(step_mask[:shown].sum())


def _heatmap(axis, array, name, title, row_labels=None, origin="lower", ylabel="slot"):
    image = axis.imshow(
        array, aspect="auto", interpolation="nearest", origin=origin, vmin=0.0, vmax=1.0, cmap=_CMAP
    )
    axis.set_label(name)
    axis.set_title(title, loc="left", fontsize="small")
    if row_labels is not None:
        axis.set_yticks(np.arange(len(row_labels)), labels=row_labels, fontsize="small")
    else:
        axis.set_ylabel(ylabel, fontsize="small")
        axis.tick_params(axis="y", labelsize="x-small")
    return image


def plot_memory_trace(
    model, example, *, batch_index=0, input_labels=None, output_labels=None, save_to=None, title=None
):
    """Plots what a memory network does on one example, step by step.

    Heatmaps over one shared time axis, in the style of Hao et al. (2018),
    Figures 5-6, from `trace_memory` (so from the same step code that
    training runs). Top to bottom, one axis per panel:

    * `"symbols"`: the input symbol and the predicted output symbol (the
      argmax of the model's output) at each step, as two rows of text;
    * `"controls"`: the push and pop strengths `d_t`, `u_t` (a DeQue: push
      top, pop top, push bottom, pop bottom; a `BufferedStackRNN`: also the
      input-buffer pop `i_t` and the output-buffer push `o_t`), one row each;
    * `"strengths"`: the strength of every memory slot (slots x time, the
      bottom slot at the bottom; a DeQue's slots grow from the middle);
    * `"read_weights"` (a DeQue: `"read_weights_top"` and
      `"read_weights_bottom"`): the weight of each slot in the read (slots
      x time);
    * for a `BufferedStackRNN`, `"input_buffer"` (the strength of each
      input item when `x_t` is read, first item at the bottom) and
      `"output_buffer"` (the strength of each output enqueued so far).

    A last axis is the colour bar: all panels share the scale 0 to 1,
    lighter is higher. Each panel's axis is named by its `get_label()`,
    e.g. `[a for a in figure.axes if a.get_label() == "strengths"][0]`.

    Padding (masked steps at the end of the sequence, e.g. id 0 under an
    `Embedding(mask_zero=True)`) is cut off, with the memory slots that
    were never written. For a `BufferedStackRNN` the time axis counts
    computation steps (`steps_per_input` per input item): the input symbol
    of a step is the input item it mostly reads ("∅" once the input buffer
    is empty), and its output symbol the argmax of the `y_t` it enqueues
    to the output buffer with strength `o_t` (shown in "controls").

    Args:
        model: A Keras model with exactly one memory layer (`MemoryRNN`,
            `keras.layers.RNN` over a `MemoryCell`, or `BufferedStackRNN`),
            e.g. from `build_transducer` or `build_hao_model`; or the memory
            layer (or cell) itself. It must be built (trained or loaded).
        example: For a model, one sequence of token ids `(time,)`, a batch
            `(batch, time)`, or a dict with an `"inputs"` key (a
            `tfds_tasks` example). For a memory layer, its input:
            `(time, features)` or `(batch, time, features)`.
        batch_index: Which sequence of a batch to plot.
        input_labels: Names of the input ids: a list indexed by id (e.g.
            `tfds_tasks.joint.input_vocab(source_vocab, target_vocab)`) or a
            dict `{id: label}`. Defaults to the ids. For a memory layer, the
            "id" of an input vector is its argmax (its id if it is one-hot).
        output_labels: Names of the output ids (the argmax of the model's
            output), e.g. `tfds_tasks.joint.output_vocab(target_vocab)`.
            Defaults to the ids.
        save_to: Optional path: also write the figure there as a PNG.
        title: Figure title; defaults to the layer's name and memory.

    Returns:
        A `matplotlib.figure.Figure`.

    Example:

    ```python
    from tfds_tasks import Layout, make_joint_sequence
    from keras_neural_memory import plot_memory_trace
    from keras_neural_memory.models import build_transducer

    model = build_transducer(Layout("joint", 8, 8), memory="stack", hidden_size=16, memory_width=8)
    # model.fit(...) first: an untrained model's memory does nothing in particular
    ids = make_joint_sequence([1, 2, 3], [3, 2, 1], 8, 8)["inputs"]  # <s> 1 2 3 ||| 3 2 1
    figure = plot_memory_trace(model, ids, save_to="stack_trace.png")
    print([axis.get_label() for axis in figure.axes])
    # ['symbols', 'controls', 'strengths', 'read_weights', 'colorbar']
    ```
    """
    layer, whole_model = _find_memory_layer(model)
    buffered = isinstance(layer, BufferedStackRNN)
    cell = None if buffered else (layer if isinstance(layer, MemoryCell) else layer.cell)
    if not layer.built:
        raise ValueError("`model` must be built: call it on an input (or load a trained model) first.")
    output_length = None
    if whole_model:
        model_inputs = model.inputs
        if len(model_inputs) != 1:
            raise ValueError(
                f"`model` has {len(model_inputs)} inputs; plot_memory_trace takes models with one "
                "input. Pass the memory layer itself, with its input as `example`."
            )
        sequences, mask_tensor, output_length = _layer_call(layer)
        rank = len(model_inputs[0].shape)
        batch, b = _example_batch(example, rank, batch_index, "token ids" if rank == 2 else "input vectors")
        outputs = [sequences] if mask_tensor is None else [sequences, mask_tensor]
        computed = keras.Model(model_inputs[0], outputs)(batch, training=False)
        computed = computed if isinstance(computed, (list, tuple)) else [computed]  # one output: unwrapped
        inputs = ops.convert_to_numpy(computed[0])
        mask = None if mask_tensor is None else ops.convert_to_numpy(computed[1]).astype(bool)
        ids = batch if rank == 2 else batch.argmax(-1)
    else:
        batch, b = _example_batch(example, 3, batch_index, "input vectors")
        inputs, mask = batch.astype(layer.compute_dtype), None
        ids = batch.argmax(-1)
    trace = trace_memory(layer, inputs, mask=mask, output_length=output_length)
    in_label = _labeler(input_labels, "input_labels")
    out_label = _labeler(output_labels, "output_labels")

    # What to show: the steps and slots sequence b used.
    if buffered:
        shown, taken = _used_steps(trace["step_mask"][b])
        items, _ = _used_steps(np.ones(ids.shape[1], bool) if mask is None else mask[b])
        slots = slice(0, taken)
        read = trace["input_read_weights"][b, :shown, :items]
        step_ids = ids[b, read.argmax(-1)]
        nothing_read = read.sum(-1) < 0.5  # the input buffer is (nearly) empty
        predicted = trace["step_outputs"][b, :shown].argmax(-1)
        ends = 1
    else:
        shown, taken = _used_steps(np.ones(ids.shape[1], bool) if mask is None else mask[b])
        ends = cell.num_ends
        capacity = trace["strengths"].shape[-1] // ends
        slots = slice(0, taken) if ends == 1 else slice(capacity - taken, capacity + taken)
        step_ids = ids[b, :shown]
        nothing_read = np.zeros(shown, bool)
        if whole_model:
            logits = ops.convert_to_numpy(model(batch, training=False))
            aligned = logits.ndim == 3 and logits.shape[1] == ids.shape[1]
            predicted = logits[b, :shown].argmax(-1) if aligned else None
        else:
            predicted = trace["outputs"][b, :shown].argmax(-1)
    if shown == 0:
        raise ValueError(f"Sequence `batch_index`={batch_index} of `example` is all padding: nothing to plot.")
    step_labels = [_EMPTY if empty else in_label(int(i)) for i, empty in zip(step_ids, nothing_read)]
    predicted_labels = None if predicted is None else [out_label(int(i)) for i in predicted]

    # The panels, top to bottom: (name, title, rows x time array, row labels, origin, y label).
    if ends == 1:
        controls = [trace["push"][b, :shown, 0], trace["pop"][b, :shown, 0]]
        control_labels = ["push $d_t$", "pop $u_t$"]
    else:
        controls = [trace[key][b, :shown, end] for end in (0, 1) for key in ("push", "pop")]
        control_labels = ["push top", "pop top", "push bottom", "pop bottom"]
    if buffered:
        controls += [trace["input_pop"][b, :shown, 0], trace["output_push"][b, :shown, 0]]
        control_labels += ["input pop $i_t$", "output push $o_t$"]
    panels = [("controls", "controls", np.stack(controls), control_labels, "upper", None)]
    strengths = trace["strengths"][b, :shown, slots].T
    panels.append(("strengths", "memory strengths $s_t$ (bottom slot at the bottom)", strengths, None, "lower", "slot"))
    if ends == 1:
        weights = trace["read_weights"][b, :shown, 0, slots].T
        panels.append(("read_weights", "read weights", weights, None, "lower", "slot"))
    else:
        for end, end_name in enumerate(("top", "bottom")):
            weights = trace["read_weights"][b, :shown, end, slots].T
            panels.append((f"read_weights_{end_name}", f"read weights ({end_name})", weights, None, "lower", "slot"))
    if buffered:
        in_buffer = trace["input_strengths"][b, :shown, :items].T
        out_buffer = trace["output_strengths"][b, :shown, slots].T
        in_title = "input buffer strengths (first item at the bottom)"
        out_title = "output buffer strengths (first output at the bottom)"
        panels.append(("input_buffer", in_title, in_buffer, None, "lower", "item"))
        panels.append(("output_buffer", out_title, out_buffer, None, "lower", "output"))

    def height(rows, is_controls):
        return 0.28 * rows + 0.35 if is_controls else min(max(0.1 * rows, 0.9), 2.6) + 0.35

    ratios = [0.6] + [height(len(p[2]), p[0] == "controls") for p in panels]
    figure = _figure((min(max(0.3 * shown + 2.5, 6.0), 40.0), sum(ratios) + 0.9))
    axes = figure.subplots(len(ratios), 1, sharex=True, height_ratios=ratios)
    symbols = axes[0]
    symbols.set_label("symbols")
    rows = [(1, "input", step_labels)] + ([] if predicted_labels is None else [(0, "output", predicted_labels)])
    fontsize = "small" if shown <= 40 else "x-small"
    for y, _, labels in rows:
        for t, text in enumerate(labels):
            symbols.text(t, y, text, ha="center", va="center", fontsize=fontsize)
    symbols.set_ylim(-0.5, 1.5)
    symbols.set_yticks([y for y, _, _ in rows], labels=[name for _, name, _ in rows], fontsize="small")
    symbols.tick_params(axis="x", length=0)
    for side in ("top", "right", "bottom"):
        symbols.spines[side].set_visible(False)
    image = None
    for axis, (name, panel_title, array, row_labels, origin, ylabel) in zip(axes[1:], panels):
        image = _heatmap(axis, array, name, panel_title, row_labels, origin, ylabel)
    symbols.set_xlim(-0.5, shown - 0.5)
    bottom = axes[-1]
    rotation = 90 if max(len(label) for label in step_labels) > 3 else 0
    bottom.set_xticks(np.arange(shown), labels=step_labels, rotation=rotation, fontsize=fontsize)
    bottom.set_xlabel("computation step (input read)" if buffered else "time step (input)", fontsize="small")
    colorbar = figure.colorbar(image, ax=list(axes[1:]), shrink=0.6, aspect=30)
    colorbar.ax.set_label("colorbar")
    colorbar.set_label("strength / weight", fontsize="small")
    if title is None:
        if buffered:
            title = f"{layer.name}: buffered Neural Stack (Hao et al. 2018)"
        else:
            kind = type(cell.memory).__name__
            title = f"{layer.name}: {_MEMORY_NAMES.get(kind, kind)}"
    figure.suptitle(title)
    _save(figure, save_to, dpi=120)
    return figure


# ------------------------------------------------------ length generalisation


def _as_number(value, label):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"`results[{label!r}]` has the non-numeric length or accuracy {value!r}.") from None
    return int(number) if number.is_integer() else number


def _sweep_points(label, sweep, metric):
    """`(lengths, values)` of one model's sweep, sorted by length."""
    if isinstance(sweep, Mapping) and "sweep" in sweep:
        sweep = sweep["sweep"]  # the JSON report of `neural-memory evaluate --sweep --output`
    if isinstance(sweep, Mapping):
        points = []
        for length, value in sweep.items():
            if isinstance(value, Mapping):
                if metric not in value:
                    raise ValueError(
                        f"Unknown `metric`={metric!r} for `results[{label!r}]`, whose entries have "
                        f"{sorted(value)}; pass metric= one of those."
                    )
                value = value[metric]
            points.append((_as_number(length, label), _as_number(value, label)))
    elif isinstance(sweep, (list, tuple)):
        points = []
        for row in sweep:
            if not isinstance(row, Mapping) or "length" not in row:
                raise ValueError(
                    f"`results[{label!r}]` must be a sweep (a list of dicts with a 'length' key and "
                    f"accuracies, as `neural-memory evaluate --sweep` writes) or a dict {{length: "
                    f"accuracy}}; received the row {row!r}."
                )
            if metric not in row:
                raise ValueError(
                    f"Unknown `metric`={metric!r} for `results[{label!r}]`, whose rows have "
                    f"{sorted(k for k in row if k != 'length')}; pass metric= one of those."
                )
            points.append((_as_number(row["length"], label), _as_number(row[metric], label)))
    else:
        raise TypeError(
            f"`results[{label!r}]` must be a sweep (a list of {{'length': ..., 'coarse': ...}} dicts, "
            f"as `neural-memory evaluate --sweep` writes) or a dict {{length: accuracy}}; "
            f"received {type(sweep).__name__}."
        )
    if not points:
        raise ValueError(f"`results[{label!r}]` is empty: there is nothing to plot for it.")
    points.sort()
    return [p[0] for p in points], [p[1] for p in points]


def plot_length_generalisation(
    results, *, train_range=None, metric="coarse", save_to=None, title=None, axis=None, xlabel="source length"
):
    """Plots accuracy against input length for several models.

    One line per model (and per metric), the training lengths shaded: how
    far beyond its training lengths each model still transduces correctly.

    Args:
        results: A dict `{model label: sweep}`. A sweep is what `neural-memory
            evaluate --sweep` measures: a list of dicts
            `{"length": 17, "coarse": 0.9, "fine": 0.97, "masked": 0.99}`,
            or the whole report it writes with `--output` (a dict with a
            `"sweep"` key); or a plain dict `{length: accuracy}`.
        train_range: Optional `(min_length, max_length)` of training,
            shaded.
        metric: The accuracy to plot: "coarse", "fine" or "masked" (any key
            of the sweep's rows), or a list of them for one line each
            (e.g. `("coarse", "fine")`). Ignored for plain `{length:
            accuracy}` dicts.
        save_to: Optional path: also write the figure there as a PNG.
        title: Axis title.
        axis: Optional matplotlib `Axes` to draw into (e.g. one panel of a
            larger figure); by default a new figure.
        xlabel: The length axis' label.

    Returns:
        The `matplotlib.figure.Figure`: its axis holds one `Line2D` per
        model and metric, in `results` order, and the shaded training
        range. Lines of more than 100 points have no markers.

    Example:

    ```python
    from keras_neural_memory import plot_length_generalisation

    # A sweep of `neural-memory evaluate --sweep` (or its `--output` report):
    stack_sweep = [{"length": 17, "coarse": 1.0, "fine": 1.0},
                   {"length": 32, "coarse": 0.8, "fine": 0.95}]
    figure = plot_length_generalisation(
        {"Stack-LSTM": stack_sweep, "LSTM": {17: 0.1, 24: 0.0, 32: 0.0}},
        train_range=(8, 16), save_to="lengths.png")
    print([line.get_label() for line in figure.axes[0].lines])  # ['Stack-LSTM', 'LSTM']
    ```
    """
    if not isinstance(results, Mapping):
        raise TypeError(f"`results` must be a dict {{model label: sweep}}; received {type(results).__name__}.")
    if not results:
        raise ValueError("`results` is empty: pass at least one model, e.g. {'Stack-LSTM': sweep}.")
    metrics = (metric,) if isinstance(metric, str) else tuple(metric)
    if not metrics or not all(isinstance(m, str) for m in metrics):
        raise ValueError(
            f"`metric` must be a metric name such as 'coarse', or a list of them; received metric={metric!r}."
        )
    if train_range is not None:
        try:
            low, high = (float(v) for v in train_range)
        except (TypeError, ValueError):
            raise ValueError(
                f"`train_range` must be (min_length, max_length); received train_range={train_range!r}."
            ) from None
        if low > high:
            raise ValueError(
                f"`train_range` must be (min_length, max_length) with min <= max; received {train_range!r}."
            )
    figure, axis = _figure_and_axis(axis, (6, 3.5))
    if train_range is not None:
        axis.axvspan(low, high, color="0.9", label="training lengths", zorder=0)
    styles = [("-", "o"), ("--", "."), (":", "x"), ("-.", "s")]
    for i, (label, sweep) in enumerate(results.items()):
        # A plain {length: accuracy} dict has one line, whatever `metric` says.
        plain = isinstance(sweep, Mapping) and "sweep" not in sweep
        plain = plain and not any(isinstance(v, Mapping) for v in sweep.values())
        for j, name in enumerate(metrics[:1] if plain else metrics):
            lengths, values = _sweep_points(label, sweep, name)
            linestyle, marker = styles[j % len(styles)]
            line_label = str(label) if len(metrics) == 1 or plain else f"{label} {name}"
            marker = marker if len(lengths) <= 100 else None  # markers would hide a long curve
            axis.plot(lengths, values, color=f"C{i}", linestyle=linestyle, marker=marker, label=line_label)
    ylabel = f"{metrics[0]} accuracy" if len(metrics) == 1 else "accuracy"
    axis.set(xlabel=xlabel, ylabel=ylabel, ylim=(-0.02, 1.02))
    if title is not None:
        axis.set_title(title)
    axis.legend(fontsize="small")
    _save(figure, save_to, dpi=120)
    return figure


# --------------------------------------------------------------- convergence


def _history_values(label, history, metric):
    history = getattr(history, "history", history)  # a keras.callbacks.History
    if isinstance(history, Mapping):
        if metric not in history:
            raise ValueError(
                f"Unknown `metric`={metric!r}: `histories[{label!r}]` has {sorted(history)}; "
                "pass metric= one of those."
            )
        history = history[metric]
    try:
        values = np.asarray(history, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"`histories[{label!r}]` must be a Keras `History`, its `.history` dict, or a list of "
            f"values; received {type(history).__name__}."
        ) from None
    if values.ndim != 1 or not len(values):
        raise ValueError(
            f"`histories[{label!r}]` must hold a non-empty list of {metric!r} values; received shape {values.shape}."
        )
    return values


def _check_steps(label, steps):
    if steps is None:
        return None
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps <= 0:
        raise ValueError(
            f"`steps_per_epoch` must be a positive int (batches per history point), a dict "
            f"{{label: int}}, or None; received {steps!r} for {label!r}."
        )
    return int(steps)


def plot_convergence(histories, *, metric="coarse_accuracy", steps_per_epoch=None, save_to=None, title=None, axis=None):
    """Plots a training metric against batches, memory models against LSTMs.

    The paper's Figure 2b: training coarse accuracy per point of each
    model's history. Labels that start with "lstm" (any case, e.g. "lstm2"
    or "LSTM-4") are drawn dashed, as LSTM baselines; the others solid.

    Args:
        histories: A dict `{label: history}`, a history being a Keras
            `History` (what `fit` returns), its `.history` dict, or a list of
            values (one per epoch).
        metric: The key to plot from history dicts; "coarse_accuracy"
            (`CoarseAccuracy`'s name). Ignored for plain lists.
        steps_per_epoch: Batches per history point (`fit`'s
            `steps_per_epoch`), or a dict `{label: batches}`; point `i`
            (from 0) is drawn at `(i + 1) * steps_per_epoch` batches. None:
            the x axis counts epochs.
        save_to: Optional path: also write the figure there as a PNG.
        title: Axis title.
        axis: Optional matplotlib `Axes` to draw into (e.g. one panel per
            task); by default a new figure.

    Returns:
        The `matplotlib.figure.Figure`, one `Line2D` per label in
        `histories` order.

    Example:

    ```python
    from keras_neural_memory import plot_convergence

    # What `fit` returns, e.g. stack = model.fit(data, epochs=3, steps_per_epoch=100),
    # or its `.history` dict:
    stack = {"coarse_accuracy": [0.2, 0.7, 1.0]}
    lstm = {"coarse_accuracy": [0.1, 0.2, 0.3]}
    figure = plot_convergence({"stack": stack, "lstm2": lstm}, steps_per_epoch=100,
                              save_to="convergence.png")
    print(len(figure.axes[0].lines))  # 2: the stack solid, the LSTM dashed
    ```
    """
    if not isinstance(histories, Mapping):
        raise TypeError(f"`histories` must be a dict {{label: history}}; received {type(histories).__name__}.")
    if not histories:
        raise ValueError("`histories` is empty: pass at least one model, e.g. {'stack': history}.")
    if not isinstance(metric, str):
        raise ValueError(f"`metric` must be a history key such as 'coarse_accuracy'; received metric={metric!r}.")
    curves = []
    for label, history in histories.items():
        values = _history_values(label, history, metric)
        if isinstance(steps_per_epoch, Mapping):
            if label not in steps_per_epoch:
                raise ValueError(
                    f"`steps_per_epoch` has no entry for {label!r}; give one for every label of `histories`."
                )
            steps = steps_per_epoch[label]
        else:
            steps = steps_per_epoch
        steps = _check_steps(label, steps)
        curves.append((label, np.arange(1, len(values) + 1) * (steps or 1), values))
    in_batches = steps_per_epoch is not None
    figure, axis = _figure_and_axis(axis, (6, 3.5))
    for label, x, values in curves:
        style = "--" if str(label).lower().startswith("lstm") else "-"
        axis.plot(x, values, style, marker=".", label=str(label))
    axis.set(xlabel="batches" if in_batches else "epochs", ylabel=f"training {metric.replace('_', ' ')}")
    if all(((v >= 0) & (v <= 1)).all() for _, _, v in curves):
        axis.set_ylim(-0.02, 1.02)
    if title is not None:
        axis.set_title(title)
    axis.legend(fontsize="small")
    _save(figure, save_to, dpi=110)
    return figure
