"""Keras behaviour of the memory cells: models, fit, masking, XLA, saving."""

import keras
import numpy as np
import pytest

from keras_neural_memory import DequeCell, LinearController, MemoryRNN, QueueCell, StackCell, trace_memory

CELLS = [StackCell, QueueCell, DequeCell]


@keras.saving.register_keras_serializable(package="keras_neural_memory_tests")
class TinyCustomCell(keras.layers.Layer):
    """A user's own RNN cell: h_t = tanh(W x_t + U h_{t-1})."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units))
        self.u = self.add_weight(shape=(self.units, self.units))

    def call(self, inputs, states):
        h = keras.ops.tanh(inputs @ self.w + states[0] @ self.u)
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def controllers():
    return {
        "lstm": lambda: keras.layers.LSTMCell(8),
        "gru": lambda: keras.layers.GRUCell(8),
        "simple": lambda: keras.layers.SimpleRNNCell(8),
        "stacked": lambda: keras.layers.StackedRNNCells([keras.layers.LSTMCell(8), keras.layers.GRUCell(6)]),
        "custom": lambda: TinyCustomCell(8),
        "linear": LinearController,
    }


def make_cell(cell_cls, controller="lstm", **kwargs):
    kwargs.setdefault("memory_width", 4)
    if controller == "linear":
        kwargs.setdefault("output_size", 8)
        kwargs.update(output_activation=None, value_activation="sigmoid")
    return cell_cls(controllers()[controller](), **kwargs)


def tagger(rnn_layer, vocab=12):
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(vocab, 6, mask_zero=True)(inputs)
    x = rnn_layer(x)
    return keras.Model(inputs, keras.layers.Dense(vocab)(x))


def tokens(batch=4, length=9, vocab=12, seed=0, pad_from=None):
    x = np.random.default_rng(seed).integers(1, vocab, (batch, length)).astype("int32")
    if pad_from is not None:
        x[:, pad_from:] = 0
    return x


# --------------------------------------------------------------- training


@pytest.mark.parametrize("cell_cls", CELLS)
@pytest.mark.slow
def test_literal_line_fits_with_jit_compile_and_masking(cell_cls):
    layer = keras.layers.RNN(cell_cls(keras.layers.LSTMCell(16)), return_sequences=True)
    model = tagger(layer)
    model.compile("rmsprop", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
    # 6 strings in batches of 4: the last batch is short, so the compiled
    # step sees an unknown batch size, which the cumulative sums must survive.
    x = tokens(batch=6, pad_from=6)
    history = model.fit(x, x, batch_size=4, epochs=3, verbose=0)
    losses = history.history["loss"]
    assert np.all(np.isfinite(losses)) and losses[-1] < losses[0]


# Every controller with the stack; the two-ended DeQue with the controllers
# whose state or output size is unusual. The memory mechanism is shared.
@pytest.mark.parametrize(
    "cell_cls,controller",
    [(StackCell, name) for name in controllers()] + [(DequeCell, "stacked"), (QueueCell, "linear")],
)
@pytest.mark.slow
def test_every_controller_trains(cell_cls, controller):
    model = tagger(MemoryRNN(make_cell(cell_cls, controller), return_sequences=True))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = tokens()
    before = [w.copy() for w in model.get_weights()]
    model.fit(x, x, epochs=1, verbose=0)
    assert all(np.isfinite(w).all() for w in model.get_weights())
    assert any(not np.allclose(a, b) for a, b in zip(before, model.get_weights()))


def test_return_state_shapes():
    cell = make_cell(DequeCell, memory_width=3)
    layer = keras.layers.RNN(cell, return_state=True)
    out, *states = layer(np.zeros((2, 5, 6), "float32"))
    assert out.shape == (2, 8)
    assert [tuple(s.shape) for s in states] == [(2, n) for n in cell.state_size]
    mem_layer = MemoryRNN(make_cell(DequeCell, memory_width=3), return_state=True)
    out, *states = mem_layer(np.zeros((2, 5, 6), "float32"))
    assert [s.shape[1] for s in states][-3:] == [2 * 5 * 3, 10, 5]
    symbolic = MemoryRNN(make_cell(StackCell, memory_width=3), return_state=True)(keras.Input((7, 6)))
    assert [tuple(s.shape) for s in symbolic[1:]][-3:] == [(None, 21), (None, 7), (None, 7)]


# ---------------------------------------------------------------- masking


@pytest.mark.parametrize("cell_cls", CELLS)
def test_masked_steps_leave_the_memory_untouched(cell_cls):
    model = tagger(MemoryRNN(make_cell(cell_cls), return_sequences=True))
    x = tokens(length=6)
    padded = np.concatenate([x[:, :3], np.zeros((4, 4), "int32"), x[:, 3:]], axis=1)
    want = model.predict(x, verbose=0)
    got = model.predict(padded, verbose=0)
    np.testing.assert_allclose(got[:, :3], want[:, :3], atol=1e-5)
    np.testing.assert_allclose(got[:, 7:], want[:, 3:], atol=1e-5)


# ------------------------------------------------------- unbounded memory


@pytest.mark.slow
def test_memory_rnn_runs_far_past_its_training_length():
    layer = MemoryRNN(StackCell(keras.layers.SimpleRNNCell(4), memory_width=2), return_sequences=False)
    model = tagger(layer, vocab=5)
    model.compile("rmsprop", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = tokens(batch=2, length=16, vocab=5)
    model.fit(x, x[:, -1], epochs=1, verbose=0)
    long = tokens(batch=1, length=10_000, vocab=5)
    out = model.predict(long, verbose=0)
    assert out.shape == (1, 5) and np.isfinite(out).all()


def test_plain_rnn_past_capacity_gives_nan_not_wraparound():
    cell = make_cell(StackCell, capacity=4)
    out = keras.layers.RNN(cell, return_sequences=True)(np.ones((1, 6, 3), "float32"))
    out = keras.ops.convert_to_numpy(out)
    assert np.isfinite(out[:, :4]).all()
    assert np.isnan(out[:, 5]).all()


# ---------------------------------------------------------------- saving


def _layer_for(kind, cell):
    return MemoryRNN(cell, return_sequences=True) if kind == "memory_rnn" else keras.layers.RNN(cell, return_sequences=True)


@pytest.mark.parametrize("cell_cls", CELLS)
@pytest.mark.parametrize("kind", ["rnn", "memory_rnn"])
@pytest.mark.slow
def test_keras_file_round_trip_is_identical(tmp_path, cell_cls, kind):
    # A DeQue also with a quiet end drawn at random: the loaded weights, not a new draw, decide it.
    deque_options = {"quiet_end": "random", "gate_activation": "hard_sigmoid"} if cell_cls is DequeCell else {}
    cell = make_cell(
        cell_cls, controller="stacked", trainable_initial_state=True, pop_bias_init=-0.5, capacity=32, **deque_options
    )
    model = tagger(_layer_for(kind, cell))
    x = tokens(pad_from=7)
    want = model.predict(x, verbose=0)
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), want)
    reloaded_cell = loaded.layers[2].cell
    assert type(reloaded_cell) is cell_cls
    # Nested controller configs gain build details on the way; compare the rest.
    without_controller = lambda c: {k: v for k, v in c.get_config().items() if k not in ("controller", "name")}
    assert without_controller(reloaded_cell) == without_controller(cell)
    assert type(reloaded_cell.controller) is type(cell.controller)


@pytest.mark.parametrize("cell_cls", CELLS)
@pytest.mark.parametrize("controller", ["lstm", "linear", "custom"])
def test_config_round_trip(cell_cls, controller):
    deque_options = {"quiet_end": "bottom", "quiet_bias_init": -2.0} if cell_cls is DequeCell else {}
    cell = make_cell(
        cell_cls, controller, capacity=17, push_bias_init=0.25, gate_activation="hard_sigmoid", **deque_options
    )
    clone = cell_cls.from_config(cell.get_config())
    assert clone.get_config() == cell.get_config()
    assert clone.state_size == cell.state_size
    layer = MemoryRNN(cell)
    assert MemoryRNN.from_config(layer.get_config()).get_config() == layer.get_config()


def test_pop_bias_is_initialised():
    cell = make_cell(DequeCell, pop_bias_init=-1.0, push_bias_init=0.5)
    cell.build((None, 5))
    bias = keras.ops.convert_to_numpy(cell.bias)
    per_end = [0.5, -1.0] + [0.0] * 4
    np.testing.assert_array_equal(bias, [0.0] * 8 + per_end * 2)


def test_hard_sigmoid_gates_push_and_pop_exactly_zero_and_one():
    cell = make_cell(DequeCell, gate_activation="hard_sigmoid", push_bias_init=-10.0, pop_bias_init=10.0)
    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32")
    layer = MemoryRNN(cell, return_sequences=True)
    layer(x)
    trace = trace_memory(layer, x)
    # With small weights the logits stay near the biases, far past the clipping points.
    np.testing.assert_array_equal(trace["push"], 0.0)
    np.testing.assert_array_equal(trace["pop"], 1.0)
    np.testing.assert_array_equal(trace["strengths"], 0.0)


@pytest.mark.parametrize("quiet_end, quiet", [("top", 0), ("bottom", 1)])
def test_the_quiet_end_starts_with_its_own_push_and_pop_biases(quiet_end, quiet):
    cell = make_cell(DequeCell, quiet_end=quiet_end, quiet_bias_init=-2.5, pop_bias_init=-1.0, push_bias_init=0.5)
    cell.build((None, 5))
    ends = keras.ops.convert_to_numpy(cell.bias)[8:].reshape(2, 6)[:, :2]
    np.testing.assert_array_equal(ends[quiet], [-2.5, -2.5])
    np.testing.assert_array_equal(ends[1 - quiet], [0.5, -1.0])


def test_both_ends_can_start_quiet():
    cell = make_cell(DequeCell, quiet_end="both", quiet_bias_init=-2.5, pop_bias_init=-1.0, push_bias_init=0.5)
    cell.build((None, 5))
    ends = keras.ops.convert_to_numpy(cell.bias)[8:].reshape(2, 6)[:, :2]
    np.testing.assert_array_equal(ends, [[-2.5, -2.5], [-2.5, -2.5]])


def test_a_random_quiet_end_is_drawn_from_the_seed():
    def quiet_end(seed):
        cell = make_cell(DequeCell, quiet_end="random", seed=seed)
        cell.build((None, 5))
        push_biases = keras.ops.convert_to_numpy(cell.bias)[8:].reshape(2, 6)[:, 0]
        assert sorted(push_biases) == [-2.9, 0.0]
        return int(np.argmin(push_biases))

    ends = [quiet_end(seed) for seed in range(8)]
    assert ends == [quiet_end(seed) for seed in range(8)]
    assert set(ends) == {0, 1}


def test_the_config_records_the_end_drawn_at_random():
    for seed in range(4):
        cell = make_cell(DequeCell, quiet_end="random", seed=seed)
        drawn = cell.get_config()["quiet_end"]
        assert drawn == ("top", "bottom")[cell.quiet_ends[0]]
        assert DequeCell.from_config(cell.get_config()).quiet_ends == cell.quiet_ends


@pytest.mark.parametrize("quiet_end, noisy_ends", [("top", [0]), ("bottom", [1]), ("both", [0, 1]), ("random", None)])
def test_strength_noise_on_the_quiet_end_only(quiet_end, noisy_ends):
    cell = make_cell(DequeCell, quiet_end=quiet_end, strength_noise=1.0, strength_noise_ends="quiet", seed=1)
    noisy_ends = list(cell.quiet_ends) if noisy_ends is None else noisy_ends
    noise = keras.ops.convert_to_numpy(cell.draw_strength_noise(np.zeros((3, 7, 5), "float32")))
    assert noise.shape == (3, 7, 4)
    # Columns: the push of each end (top, bottom), then the pop of each end.
    for end in (0, 1):
        for column in (end, 2 + end):
            assert (np.abs(noise[..., column]).min() > 0) if end in noisy_ends else not noise[..., column].any()
    every_end = make_cell(DequeCell, quiet_end=quiet_end, strength_noise=1.0, seed=1)
    assert np.abs(keras.ops.convert_to_numpy(every_end.draw_strength_noise(np.zeros((3, 7, 5), "float32")))).min() > 0


def test_quiet_end_noise_reaches_a_training_step_and_round_trips():
    cell = make_cell(DequeCell, quiet_end="bottom", strength_noise=1.0, strength_noise_ends="quiet",
                     gate_activation="hard_sigmoid", seed=0)  # fmt: skip
    layer = MemoryRNN(cell, return_sequences=True)
    x = np.random.default_rng(0).normal(size=(2, 6, 3)).astype("float32")
    inference = keras.ops.convert_to_numpy(layer(x))
    assert not np.allclose(keras.ops.convert_to_numpy(layer(x, training=True)), inference)
    clone = MemoryRNN.from_config(layer.get_config())
    assert clone.cell.strength_noise_ends == "quiet" and clone.cell.quiet_ends == (1,)


# ------------------------------------------------------- precision, state


@pytest.mark.parametrize("cell_cls", CELLS)
@pytest.mark.slow
def test_mixed_float16_trains(cell_cls):
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        model = tagger(MemoryRNN(make_cell(cell_cls), return_sequences=True))
        assert model.layers[2].cell.compute_dtype == "float16"
        model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        x = tokens(pad_from=6)
        history = model.fit(x, x, epochs=2, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
        assert model.layers[2].cell.kernel.dtype == "float32"
    finally:
        keras.mixed_precision.set_global_policy("float32")


@pytest.mark.slow
def test_trainable_initial_state_is_learned():
    model = tagger(MemoryRNN(make_cell(StackCell, trainable_initial_state=True), return_sequences=True))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    cell = model.layers[2].cell
    assert len(cell.initial_controller_state) == 2  # LSTM h and c
    x = tokens()
    model.fit(x, x, epochs=2, verbose=0)
    assert np.abs(keras.ops.convert_to_numpy(cell.initial_controller_state[0])).sum() > 0


# ------------------------------------------------------------- inspection


@pytest.mark.parametrize("cell_cls", CELLS)
def test_trace_matches_the_layer(cell_cls):
    cell = make_cell(cell_cls)
    layer = MemoryRNN(cell, return_sequences=True)
    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype("float32")
    mask = np.ones((2, 5), bool)
    mask[1, 3:] = False
    out = keras.ops.convert_to_numpy(layer(x, mask=mask))
    trace = trace_memory(layer, x, mask=mask)
    np.testing.assert_allclose(trace["outputs"], out, atol=1e-5)
    ends = cell.num_ends
    slots = ends * 5
    assert trace["push"].shape == (2, 5, ends) and trace["pop"].shape == (2, 5, ends)
    assert trace["strengths"].shape == (2, 5, slots)
    assert trace["read_weights"].shape == (2, 5, ends, slots)
    assert ((trace["push"] > 0) & (trace["push"] < 1)).all()
    # A read never takes more than strength 1 in total, and never more than a slot holds.
    assert (trace["read_weights"].sum(-1) <= 1 + 1e-5).all()
    assert (trace["read_weights"] <= trace["strengths"][:, :, None, :] + 1e-6).all()
    # Masked steps leave the memory as it was.
    np.testing.assert_array_equal(trace["strengths"][1, 3], trace["strengths"][1, 2])


# ----------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs,error,name",
    [
        ({"memory_width": 0}, ValueError, "memory_width"),
        ({"memory_width": -2}, ValueError, "memory_width"),
        ({"output_size": 1.5}, ValueError, "output_size"),
        ({"capacity": 0}, ValueError, "capacity"),
        ({"capacity": None}, ValueError, "capacity"),
        ({"pop_bias_init": "high"}, TypeError, "pop_bias_init"),
        ({"pop_bias_init": None}, TypeError, "pop_bias_init"),
        ({"push_bias_init": True}, TypeError, "push_bias_init"),
        ({"gate_activation": "relu"}, ValueError, "gate_activation"),
        ({"gate_activation": None}, ValueError, "gate_activation"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, error, name):
    with pytest.raises(error, match=name):
        StackCell(keras.layers.LSTMCell(4), **kwargs)


@pytest.mark.parametrize(
    "kwargs,error,name",
    [
        ({"quiet_end": "left"}, ValueError, "quiet_end"),
        ({"quiet_bias_init": "low"}, TypeError, "quiet_bias_init"),
        ({"strength_noise_ends": "loud"}, ValueError, "strength_noise_ends"),
        ({"strength_noise_ends": "quiet"}, ValueError, "strength_noise_ends='quiet'.*Set quiet_end"),
    ],
)
def test_bad_deque_arguments_name_the_argument(kwargs, error, name):
    with pytest.raises(error, match=name):
        DequeCell(keras.layers.LSTMCell(4), **kwargs)


@pytest.mark.parametrize("controller", [keras.layers.Dense(4), "lstm", None, keras.layers.LSTM(4)])
def test_non_cell_controller_is_rejected(controller):
    with pytest.raises(TypeError, match="controller"):
        QueueCell(controller)


def test_controller_dropout_is_rejected_at_construction():
    with pytest.raises(ValueError, match="dropout"):
        StackCell(keras.layers.LSTMCell(4, dropout=0.1))
    nested = keras.layers.StackedRNNCells([keras.layers.GRUCell(4), keras.layers.GRUCell(4, recurrent_dropout=0.2)])
    with pytest.raises(ValueError, match="recurrent_dropout"):
        DequeCell(nested)


def test_sizes_needed_for_a_linear_controller():
    with pytest.raises(ValueError, match="output_size=.*memory_width="):
        StackCell(LinearController())


def test_memory_rnn_rejects_other_cells_and_stateful():
    with pytest.raises(TypeError, match="cell"):
        MemoryRNN(keras.layers.LSTMCell(4))
    with pytest.raises(ValueError, match="stateful"):
        MemoryRNN(StackCell(keras.layers.LSTMCell(4)), stateful=True)


def test_trace_rejects_unbuilt_and_wrong_layers():
    with pytest.raises(ValueError, match="built"):
        trace_memory(MemoryRNN(StackCell(keras.layers.LSTMCell(4))), np.zeros((1, 2, 3)))
    with pytest.raises(TypeError, match="layer"):
        trace_memory(keras.layers.LSTM(3), np.zeros((1, 2, 3)))
