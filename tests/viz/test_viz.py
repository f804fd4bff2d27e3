"""`keras_neural_memory.viz`: the figures hold the data they claim to show."""

import types

import matplotlib

matplotlib.use("Agg")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from keras import ops  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from keras_neural_memory import (  # noqa: E402
    BufferedStackRNN,
    DequeCell,
    LinearController,
    MemoryRNN,
    StackCell,
    plot_convergence,
    plot_length_generalisation,
    plot_memory_trace,
    trace_memory,
    viz,
)
from keras_neural_memory import models  # noqa: E402
from tfds_tasks import Layout  # noqa: E402
from keras_neural_memory.experiments import evaluation, reproduce  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
S, T = 3, 3  # source and target symbols: input ids 0..8, output ids 0..4
LAYOUT = Layout("joint", S, T)
IDS = np.array([1, 3, 4, 5, 2, 6, 7, 8])  # <s> a b c ||| A B C
INPUT_LABELS = ["<pad>", "<s>", "|||", "a", "b", "c", "tgt:A", "tgt:B", "tgt:C"]
OUTPUT_LABELS = ["<pad>", "</s>", "A", "B", "C"]
ENDS = {"stack": 1, "queue": 1, "deque": 2}


def axis(figure, name):
    (found,) = [a for a in figure.axes if a.get_label() == name]
    return found


def image(figure, name):
    return np.asarray(axis(figure, name).images[0].get_array())


def assert_png(path):
    assert path.read_bytes()[:8] == PNG_SIGNATURE


@pytest.fixture(scope="module")
def transducers():
    keras.utils.set_random_seed(0)
    return {
        memory: models.build_transducer(LAYOUT, memory=memory, hidden_size=8, memory_width=4, embedding_dim=4)
        for memory in ENDS
    }


def layer_inputs(model, ids):
    """The memory layer's input and mask, computed here by hand."""
    ids = np.atleast_2d(ids)
    embedding = model.get_layer("embedding")
    return ops.convert_to_numpy(embedding(ids)), ids != 0


@pytest.fixture(scope="module")
def buffered_model():
    keras.utils.set_random_seed(1)
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(4, 4, embeddings_initializer="identity", mask_zero=True, trainable=False)(inputs)
    logits = BufferedStackRNN(LinearController(), output_size=4, memory_width=2, name="buffered")(x)
    return keras.Model(inputs, logits)


# ------------------------------------------------------------- memory traces


@pytest.mark.parametrize("memory", list(ENDS))
@pytest.mark.slow
def test_memory_trace_shows_the_trace(transducers, memory, tmp_path):
    model = transducers[memory]
    figure = plot_memory_trace(
        model, IDS, input_labels=INPUT_LABELS, output_labels=OUTPUT_LABELS, save_to=tmp_path / "trace.png"
    )
    assert isinstance(figure, Figure)
    assert_png(tmp_path / "trace.png")
    reads = ["read_weights"] if ENDS[memory] == 1 else ["read_weights_top", "read_weights_bottom"]
    assert [a.get_label() for a in figure.axes] == ["symbols", "controls", "strengths", *reads, "colorbar"]
    x, _ = layer_inputs(model, IDS)
    trace = trace_memory(model.get_layer(f"{memory}_rnn"), x)
    np.testing.assert_allclose(image(figure, "strengths"), trace["strengths"][0].T)
    for end, name in enumerate(reads):
        np.testing.assert_allclose(image(figure, name), trace["read_weights"][0, :, end].T)
    controls = image(figure, "controls")
    assert controls.shape == (2 * ENDS[memory], len(IDS))
    for end in range(ENDS[memory]):  # rows: push, pop per end
        np.testing.assert_allclose(controls[2 * end], trace["push"][0, :, end])
        np.testing.assert_allclose(controls[2 * end + 1], trace["pop"][0, :, end])
    assert all(a.images[0].get_clim() == (0.0, 1.0) for a in figure.axes[1:-1])
    # Input symbols as tick labels and as text; predictions as text.
    inputs = [INPUT_LABELS[i] for i in IDS]
    assert [t.get_text() for t in figure.axes[-2].get_xticklabels()] == inputs
    predicted = ops.convert_to_numpy(model(IDS[None])).argmax(-1)[0]
    texts = [t.get_text() for t in axis(figure, "symbols").texts]
    assert texts == inputs + [OUTPUT_LABELS[i] for i in predicted]
    assert figure.get_suptitle() == f"{memory}_rnn: Neural {'DeQue' if memory == 'deque' else memory.title()}"


@pytest.mark.parametrize("memory", ["stack", "deque"])
def test_memory_trace_cuts_off_padding(transducers, memory):
    model = transducers[memory]
    batch = np.array([[1, 3, 4, 2, 6, 7], [1, 4, 2, 7, 0, 0]])
    figure = plot_memory_trace(model, batch, batch_index=1, title="padded")
    x, mask = layer_inputs(model, batch)
    trace = trace_memory(model.get_layer(f"{memory}_rnn"), x, mask=mask)
    slots = slice(0, 4) if memory == "stack" else slice(6 - 4, 6 + 4)  # the DeQue grows from its middle
    np.testing.assert_allclose(image(figure, "strengths"), trace["strengths"][1, :4, slots].T)
    assert [t.get_text() for t in figure.axes[-2].get_xticklabels()] == ["1", "4", "2", "7"]
    assert figure.get_suptitle() == "padded"


def test_memory_trace_takes_a_tfds_example_and_the_layer_itself(transducers):
    model = transducers["queue"]
    from_ids = plot_memory_trace(model, IDS)
    from_dict = plot_memory_trace(model, {"inputs": IDS, "targets": IDS})
    np.testing.assert_array_equal(image(from_dict, "strengths"), image(from_ids, "strengths"))
    # The memory layer itself, on its own input (one sequence of vectors).
    layer = model.get_layer("queue_rnn")
    x, _ = layer_inputs(model, IDS)
    from_layer = plot_memory_trace(layer, x[0])
    np.testing.assert_allclose(image(from_layer, "strengths"), image(from_ids, "strengths"), atol=1e-6)
    # Default labels are ids: the argmax of each input vector for a layer.
    ticks = [t.get_text() for t in from_layer.axes[-2].get_xticklabels()]
    assert ticks == [str(i) for i in x[0].argmax(-1)]


def test_memory_trace_of_a_plain_rnn_over_a_cell_on_vectors():
    """`keras.layers.RNN` (fixed capacity), float inputs, no mask: the example is `(time, features)`."""
    cell = DequeCell(keras.layers.LSTMCell(4), capacity=20)
    inputs = keras.Input((None, 3))
    model = keras.Model(inputs, keras.layers.RNN(cell, return_sequences=True)(inputs))
    x = np.random.default_rng(0).random((5, 3)).astype("float32")
    figure = plot_memory_trace(model, x)
    trace = trace_memory(cell, x[None])
    np.testing.assert_allclose(image(figure, "strengths"), trace["strengths"][0].T)
    np.testing.assert_allclose(image(figure, "read_weights_bottom"), trace["read_weights"][0, :, 1].T)
    predicted = trace["outputs"][0].argmax(-1)
    assert [t.get_text() for t in axis(figure, "symbols").texts] == [str(i) for i in x.argmax(-1)] + [str(i) for i in predicted]


def test_memory_trace_of_a_hao_model():
    model = models.build_hao_model(Layout("aligned", 2, 2), controller="linear", memory_width=2)
    ids = np.array([1, 2, 2, 1, 2])
    figure = plot_memory_trace(model, ids, input_labels={1: "0", 2: "1"})
    x = ops.convert_to_numpy(model.get_layer("one_hot")(ids[None]))
    trace = trace_memory(model.get_layer("stack_rnn"), x)
    np.testing.assert_allclose(image(figure, "strengths"), trace["strengths"][0].T)
    assert [t.get_text() for t in figure.axes[-2].get_xticklabels()] == ["0", "1", "1", "0", "1"]


def test_memory_trace_of_a_buffered_network(buffered_model, tmp_path):
    batch = np.array([[1, 2, 3, 1, 0], [3, 2, 1, 1, 2]])
    figure = plot_memory_trace(buffered_model, batch, input_labels=["<pad>", "x", "y", "z"], save_to=tmp_path / "b.png")
    assert_png(tmp_path / "b.png")
    names = ["symbols", "controls", "strengths", "read_weights", "input_buffer", "output_buffer", "colorbar"]
    assert [a.get_label() for a in figure.axes] == names
    trace = trace_memory(buffered_model.get_layer("buffered"), np.eye(4, dtype="float32")[batch], mask=batch != 0)
    steps = 8  # 2 steps for each of the 4 items
    controls = np.stack([trace[k][0, :steps, 0] for k in ("push", "pop", "input_pop", "output_push")])
    np.testing.assert_allclose(image(figure, "controls"), controls)
    np.testing.assert_allclose(image(figure, "strengths"), trace["strengths"][0, :steps, :steps].T)
    np.testing.assert_allclose(image(figure, "read_weights"), trace["read_weights"][0, :steps, 0, :steps].T)
    np.testing.assert_allclose(image(figure, "input_buffer"), trace["input_strengths"][0, :steps, :4].T)
    np.testing.assert_allclose(image(figure, "output_buffer"), trace["output_strengths"][0, :steps, :steps].T)
    # Each step's input symbol: the item it reads, or "∅" once the buffer is empty.
    read = trace["input_read_weights"][0, :steps]
    expected = ["∅" if w.sum() < 0.5 else "xyz"[batch[0, w.argmax()] - 1] for w in read]
    assert [t.get_text() for t in figure.axes[-2].get_xticklabels()] == expected
    assert [t.get_text() for t in axis(figure, "symbols").texts][steps:] == [
        str(i) for i in trace["step_outputs"][0, :steps].argmax(-1)
    ]


def two_memories():
    inputs = keras.Input((None, 3))
    x = MemoryRNN(StackCell(keras.layers.LSTMCell(4)), return_sequences=True)(inputs)
    x = MemoryRNN(StackCell(keras.layers.LSTMCell(4)), return_sequences=True)(x)
    return keras.Model(inputs, x)


@pytest.mark.parametrize(
    "make_model,example,kwargs,error,match",
    [
        (lambda t: models.build_transducer(LAYOUT, memory="lstm", hidden_size=8, embedding_dim=4), IDS, {}, ValueError, "no memory layer"),
        (lambda t: two_memories(), np.zeros((4, 3)), {}, ValueError, "2 memory layers"),
        (lambda t: keras.layers.Dense(3), IDS, {}, TypeError, "`model` must be a Keras model"),
        (lambda t: t["stack"], np.zeros((1, 2, 8), "int32"), {}, ValueError, "`example` must be one sequence"),
        (lambda t: t["stack"], np.array([0.5, 1.5]), {}, ValueError, "integer token ids"),
        (lambda t: t["stack"], {"targets": IDS}, {}, ValueError, 'without an "inputs" key'),
        (lambda t: t["stack"], [[1, 3], [1]], {}, ValueError, "Pad them to one length"),
        (lambda t: t["stack"], IDS, {"batch_index": 1}, ValueError, "`batch_index`=1 is out of range"),
        (lambda t: t["stack"], IDS, {"input_labels": ["a", "b"]}, ValueError, "`input_labels` has 2 labels"),
        (lambda t: t["stack"], np.array([0, 0, 0]), {}, ValueError, "all padding"),
    ],
)
def test_memory_trace_errors(transducers, make_model, example, kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_memory_trace(make_model(transducers), example, **kwargs)


# ------------------------------------------------ trace of a buffered network


@pytest.mark.parametrize("kwargs", [{}, {"steps_per_input": 3}, {"num_steps": 7}, {"buffered": False, "steps_per_input": 1}])
@pytest.mark.slow
def test_trace_of_a_buffered_network_matches_the_layer(kwargs):
    rng = np.random.default_rng(0)
    layer = BufferedStackRNN(LinearController(), output_size=3, memory_width=2, **kwargs)
    x = rng.normal(size=(2, 5, 4)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], bool)
    expected = ops.convert_to_numpy(layer(x, mask=mask))
    trace = trace_memory(layer, x, mask=mask)
    np.testing.assert_allclose(trace["outputs"], expected, atol=1e-6)
    np.testing.assert_allclose(
        trace_memory(layer, x, output_length=3)["outputs"], ops.convert_to_numpy(layer(x, output_length=3)), atol=1e-6
    )
    steps = kwargs.get("num_steps") or kwargs.get("steps_per_input", 2) * 5
    for key, shape in {
        "push": (2, steps, 1), "pop": (2, steps, 1), "values": (2, steps, 1, 2), "reads": (2, steps, 2),
        "strengths": (2, steps, steps), "read_weights": (2, steps, 1, steps), "step_outputs": (2, steps, 3),
        "input_pop": (2, steps, 1), "output_push": (2, steps, 1), "step_inputs": (2, steps, 4),
        "input_strengths": (2, steps, 5), "input_read_weights": (2, steps, 5),
        "output_strengths": (2, steps, steps), "step_mask": (2, steps),
    }.items():  # fmt: skip
        assert trace[key].shape == shape, key
    if "num_steps" not in kwargs:  # each sequence takes steps for its own length
        per_item = steps // 5
        assert trace["step_mask"].sum(1).tolist() == [5 * per_item, 3 * per_item]
        # Masked steps leave everything as it was.
        np.testing.assert_array_equal(trace["strengths"][1, -1], trace["strengths"][1, 3 * per_item - 1])
    assert (trace["read_weights"] <= trace["strengths"][:, :, None, :] + 1e-6).all()
    if kwargs.get("buffered", True) is False:
        assert (trace["input_pop"] == 1).all() and (trace["output_push"] == 1).all()
    # The input buffer starts with the real items at strength 1 and only loses strength.
    assert (np.diff(trace["input_strengths"].sum(-1), axis=1) <= 1e-6).all()


def test_trace_of_a_buffered_network_rejects_capacity():
    layer = BufferedStackRNN(LinearController(), output_size=3, memory_width=2)
    x = np.zeros((1, 2, 4), "float32")
    layer(x)
    with pytest.raises(ValueError, match="`capacity` does not apply"):
        trace_memory(layer, x, capacity=4)
    with pytest.raises(ValueError, match="`output_length` applies only"):
        trace_memory(MemoryRNN(StackCell(keras.layers.LSTMCell(4))), x, output_length=2)


# ----------------------------------------------------- length generalisation


SWEEP = [{"length": 17, "coarse": 0.9, "fine": 0.95, "masked": 0.99}, {"length": 18, "coarse": 0.8, "fine": 0.9, "masked": 0.98}]


def test_length_plot_has_the_results_and_the_training_range(tmp_path):
    results = {"stack": SWEEP, "lstm": {"18": 0.1, 17: 0.3}, "queue": {"task": "x", "sweep": SWEEP[::-1]}}
    figure = plot_length_generalisation(results, train_range=(8, 16), save_to=tmp_path / "l.png", title="reversal")
    assert_png(tmp_path / "l.png")
    (ax,) = figure.axes
    lines = ax.lines
    assert [line.get_label() for line in lines] == ["stack", "lstm", "queue"]
    for line, values in zip(lines, ([0.9, 0.8], [0.3, 0.1], [0.9, 0.8])):
        assert list(line.get_xdata()) == [17, 18]
        assert list(line.get_ydata()) == values
    (span,) = ax.patches
    assert (span.get_x(), span.get_x() + span.get_width()) == (8, 16)
    assert ax.get_title() == "reversal" and ax.get_ylabel() == "coarse accuracy"
    fine = plot_length_generalisation({"stack": SWEEP}, metric="fine").axes[0]
    assert list(fine.lines[0].get_ydata()) == [0.95, 0.9] and not fine.patches


def test_length_plot_with_several_metrics_is_what_evaluate_plots(tmp_path):
    both = plot_length_generalisation({"m": SWEEP}, metric=("coarse", "fine")).axes[0]
    assert [line.get_label() for line in both.lines] == ["m coarse", "m fine"]
    assert [list(line.get_ydata()) for line in both.lines] == [[0.9, 0.8], [0.95, 0.9]]
    setup = types.SimpleNamespace(name="sequence_copy", settings=types.SimpleNamespace(train=types.SimpleNamespace(min_length=8, max_length=16)))
    evaluation.plot_sweep(SWEEP, setup, tmp_path / "sweep.png", "stack_lstm")
    assert_png(tmp_path / "sweep.png")


@pytest.mark.parametrize(
    "results,kwargs,error,match",
    [
        ({}, {}, ValueError, "`results` is empty"),
        ([SWEEP], {}, TypeError, "`results` must be a dict"),
        ({"m": SWEEP}, {"metric": "perplexity"}, ValueError, "Unknown `metric`='perplexity'"),
        ({"m": []}, {}, ValueError, r"`results\['m'\]` is empty"),
        ({"m": [{"coarse": 1.0}]}, {}, ValueError, "'length' key"),
        ({"m": SWEEP}, {"train_range": (16, 8)}, ValueError, "`train_range`"),
        ({"m": SWEEP}, {"train_range": 8}, ValueError, "`train_range`"),
    ],
)
def test_length_plot_errors(results, kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_length_generalisation(results, **kwargs)


# --------------------------------------------------------------- convergence


def test_convergence_plot_in_batches(tmp_path):
    history = types.SimpleNamespace(history={"loss": [2.0, 1.0, 0.5], "coarse_accuracy": [0.0, 0.5, 1.0]})
    histories = {"stack": history, "lstm2": {"coarse_accuracy": [0.0, 0.1, 0.2]}, "queue": [0.1, 0.9]}
    figure = plot_convergence(histories, steps_per_epoch=100, save_to=tmp_path / "c.png", title="copy")
    assert_png(tmp_path / "c.png")
    (ax,) = figure.axes
    assert [line.get_label() for line in ax.lines] == ["stack", "lstm2", "queue"]
    assert [list(line.get_xdata()) for line in ax.lines] == [[100, 200, 300], [100, 200, 300], [100, 200]]
    assert [list(line.get_ydata()) for line in ax.lines] == [[0.0, 0.5, 1.0], [0.0, 0.1, 0.2], [0.1, 0.9]]
    assert [line.get_linestyle() for line in ax.lines] == ["-", "--", "-"]  # LSTM baselines dashed
    assert ax.get_xlabel() == "batches" and ax.get_title() == "copy"
    epochs = plot_convergence({"stack": history}, metric="loss").axes[0]
    assert list(epochs.lines[0].get_xdata()) == [1, 2, 3] and epochs.get_xlabel() == "epochs"
    per_label = plot_convergence(histories, steps_per_epoch={"stack": 10, "lstm2": 20, "queue": 30}).axes[0]
    assert [line.get_xdata()[0] for line in per_label.lines] == [10, 20, 30]


def test_reproduce_draws_one_convergence_panel_per_task_and_names_each_run(tmp_path, monkeypatch):
    runs = [
        {"task": task, "plan_model": model, "learning_rate": 5e-3, "seed": 1, "steps_per_epoch": 50,
         "history": {"coarse_accuracy": [0.1, 0.4]}}
        for task in ("sequence_copy", "bigram_flip")
        for model in ("stack", "lstm2")
    ]
    from matplotlib.figure import Figure

    figures, savefig = [], Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda figure, *a, **k: (figures.append(figure), savefig(figure, *a, **k)))
    reproduce.plot_convergence(runs, tmp_path / "convergence.png")
    assert_png(tmp_path / "convergence.png")
    (figure,) = figures
    assert [axis.get_title() for axis in figure.axes] == ["sequence_copy", "bigram_flip"]
    # Runs of one model at different learning rates or seeds must not draw identical plots.
    assert [t.get_text() for t in figure.axes[-1].get_legend().get_texts()] == [
        "stack (lr 0.005, seed 1)", "lstm2 (lr 0.005, seed 1)"]


@pytest.mark.parametrize(
    "histories,kwargs,error,match",
    [
        ({}, {}, ValueError, "`histories` is empty"),
        ({"m": {"loss": [1.0]}}, {}, ValueError, "Unknown `metric`='coarse_accuracy'"),
        ({"m": []}, {}, ValueError, "non-empty"),
        ({"m": [0.1]}, {"steps_per_epoch": 0}, ValueError, "`steps_per_epoch` must be a positive int"),
        ({"m": [0.1]}, {"steps_per_epoch": {"other": 5}}, ValueError, "no entry for 'm'"),
    ],
)
def test_convergence_plot_errors(histories, kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_convergence(histories, **kwargs)


def test_the_package_exports_the_plots():
    import keras_neural_memory

    assert keras_neural_memory.viz is viz
    assert {"plot_convergence", "plot_length_generalisation", "plot_memory_trace", "viz"} <= set(keras_neural_memory.__all__)
    assert keras_neural_memory.__all__ == sorted(keras_neural_memory.__all__)
