"""`SuperpositionStackCell` and its stack update against hand-checked values and a NumPy loop."""

import keras
import numpy as np
import pytest

from keras_neural_memory import LinearController, MemoryRNN, SuperpositionStackCell
from keras_neural_memory.superposition_stack import update_stack

PUSH, POP, NO_OP = np.eye(3, dtype="float32")[:, None]  # one-hot actions, (1, 3) each


@keras.saving.register_keras_serializable(package="keras_neural_memory_tests")
class CountingCell(keras.layers.Layer):
    """A user's cell with its own initial state (ones): h_t = tanh(W x_t) + h_{t-1}."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units))

    def call(self, inputs, states):
        h = keras.ops.tanh(inputs @ self.w) + states[0]
        return h, [h]

    def get_initial_state(self, batch_size=None):
        return [keras.ops.ones((batch_size, self.units), dtype=self.compute_dtype)]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def run(actions_and_values, stack):
    """The stack after each `(actions, value)` in turn; one value for every batch row."""
    for actions, value in actions_and_values:
        values = np.broadcast_to(np.array(value, "float32"), stack.shape[::2])
        stack = keras.ops.convert_to_numpy(update_stack(stack, actions, values))
    return stack


# ------------------------------------------------------- the stack update, by hand


def test_push_then_pop_restores_a_stack_that_is_not_full():
    stack = np.array([[[1.0, 2.0], [3.0, 4.0], [0.0, 0.0]]], "float32")
    pushed = run([(PUSH, [7.0, 8.0])], stack)
    np.testing.assert_array_equal(pushed, [[[7.0, 8.0], [1.0, 2.0], [3.0, 4.0]]])
    np.testing.assert_array_equal(run([(POP, [5.0, 5.0])], pushed), stack)  # a pop ignores the value


def test_no_op_keeps_the_stack():
    stack = np.random.default_rng(0).normal(size=(2, 4, 3)).astype("float32")
    np.testing.assert_array_equal(run([(np.repeat(NO_OP, 2, 0), [9.0, 9.0, 9.0])], stack), stack)


def test_pushing_past_the_bottom_loses_the_oldest_value():
    empty = np.zeros((1, 2, 1), "float32")
    full = run([(PUSH, [1.0]), (PUSH, [2.0]), (PUSH, [3.0])], empty)
    np.testing.assert_array_equal(full[0, :, 0], [3.0, 2.0])
    # Popping brings zeros in at the bottom: 1 is gone.
    np.testing.assert_array_equal(run([(POP, [0.0])], full)[0, :, 0], [2.0, 0.0])
    np.testing.assert_array_equal(run([(POP, [0.0]), (POP, [0.0])], full)[0, :, 0], [0.0, 0.0])


def test_mixed_actions_mix_the_three_stacks():
    stack = np.array([[[1.0], [2.0]]], "float32")
    mixed = run([(np.array([[0.5, 0.25, 0.25]]), [4.0])], stack)
    # top: 0.5 * 4 (push) + 0.25 * 2 (pop) + 0.25 * 1 (no-op); below: 0.5 * 1 + 0.25 * 0 + 0.25 * 2
    np.testing.assert_allclose(mixed[0, :, 0], [2.75, 1.0])


def test_a_one_cell_stack_pushes_over_its_value_and_pops_to_zero():
    stack = np.array([[[5.0, 6.0]]], "float32")
    np.testing.assert_array_equal(run([(PUSH, [1.0, 2.0])], stack), [[[1.0, 2.0]]])
    np.testing.assert_array_equal(run([(POP, [1.0, 2.0])], stack), [[[0.0, 0.0]]])


# ----------------------------------------------- the cell against a NumPy loop


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def simple_rnn_step(kernel, recurrent_kernel, bias):
    def step(x, state):
        h = np.tanh(x @ kernel + state[0] @ recurrent_kernel + bias)
        return h, [h]

    return step


def lstm_step(kernel, recurrent_kernel, bias):
    def step(x, state):
        h, c = state
        i, f, g, o = np.split(x @ kernel + h @ recurrent_kernel + bias, 4, axis=-1)  # Keras' gate order
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        return h, [h, c]

    return step


def reference(x, controller_step, controller_state, heads, stack_size):
    """Joulin & Mikolov's stack RNN, one step and one stack cell at a time.

    `heads` is `(push_value_kernel, push_value_bias, action_kernel, action_bias)`.
    Returns the outputs `(batch, time, units)`, the last stack and the
    actions `(batch, time, 3)`.
    """
    push_value_kernel, push_value_bias, action_kernel, action_bias = heads
    batch, time, _ = x.shape
    stack = np.zeros((batch, stack_size, push_value_bias.shape[0]))
    outputs, all_actions = [], []
    for t in range(time):
        h, controller_state = controller_step(np.concatenate([x[:, t], stack[:, 0]], axis=-1), controller_state)
        value = h @ push_value_kernel + push_value_bias
        logits = h @ action_kernel + action_bias
        actions = np.exp(logits - logits.max(-1, keepdims=True))
        actions = actions / actions.sum(-1, keepdims=True)
        all_actions.append(actions)
        push, pop, no_op = np.split(actions, 3, axis=-1)
        new_stack = np.empty_like(stack)
        for i in range(stack_size):
            above = value if i == 0 else stack[:, i - 1]
            below = stack[:, i + 1] if i + 1 < stack_size else np.zeros_like(value)
            new_stack[:, i] = push * above + pop * below + no_op * stack[:, i]
        stack = new_stack
        outputs.append(h)
    return np.stack(outputs, axis=1), stack, np.stack(all_actions, axis=1)


@pytest.mark.parametrize(
    "controller,numpy_step,state_count",
    [(lambda: keras.layers.SimpleRNNCell(5), simple_rnn_step, 1), (lambda: keras.layers.LSTMCell(5), lstm_step, 2)],
    ids=["simple_rnn", "lstm"],
)
def test_the_cell_matches_a_numpy_loop(controller, numpy_step, state_count):
    stack_size, stack_cell_size = 3, 2
    cell = SuperpositionStackCell(controller(), stack_size=stack_size, stack_cell_size=stack_cell_size)
    layer = keras.layers.RNN(cell, return_sequences=True, return_state=True)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 8, 3)).astype("float32")
    layer.build(x.shape)
    # Random weights everywhere (the biases start at zero), large enough for decided actions.
    for variable in layer.weights:
        variable.assign(rng.normal(scale=0.8, size=variable.shape).astype("float32"))
    outputs, *states = layer(x)
    numpy = lambda v: keras.ops.convert_to_numpy(v).astype("float64")
    want_outputs, want_stack, want_actions = reference(
        x.astype("float64"),
        numpy_step(*[numpy(w) for w in cell.controller.weights]),
        [np.zeros((2, 5))] * state_count,
        [numpy(w) for w in (cell.push_value_kernel, cell.push_value_bias, cell.action_kernel, cell.action_bias)],
        stack_size,
    )
    np.testing.assert_allclose(keras.ops.convert_to_numpy(outputs), want_outputs, atol=1e-5)
    stack = keras.ops.convert_to_numpy(states[-1]).reshape(2, stack_size, stack_cell_size)
    np.testing.assert_allclose(stack, want_stack, atol=1e-5)
    assert np.abs(want_stack[:, -1]).max() > 0.01  # values reached the bottom cell
    assert len(states) == 1 + state_count + 1
    # `step` is `call` with the actions shown.
    step_states = cell.get_initial_state(batch_size=2)
    for t in range(x.shape[1]):
        output, step_states, info = cell.step(x[:, t], step_states)
        np.testing.assert_allclose(keras.ops.convert_to_numpy(info["actions"]), want_actions[:, t], atol=1e-5)
        np.testing.assert_allclose(keras.ops.convert_to_numpy(output), want_outputs[:, t], atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(info["stack"]), want_stack, atol=1e-5)


def test_with_no_op_forced_the_controller_reads_its_input_and_a_zero_top():
    cell = SuperpositionStackCell(keras.layers.GRUCell(4), stack_size=2, stack_cell_size=3)
    layer = keras.layers.RNN(cell, return_sequences=True, return_state=True)
    x = np.random.default_rng(2).normal(size=(2, 5, 3)).astype("float32")
    layer.build(x.shape)
    cell.push_value_bias.assign(np.ones(3, "float32"))
    cell.action_bias.assign(np.array([-50.0, -50.0, 50.0], "float32"))  # always no-op
    outputs, *states = layer(x)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(states[-1]), np.zeros((2, 6)))
    zero_top = np.zeros((2, 5, 3), "float32")
    alone = keras.layers.RNN(cell.controller, return_sequences=True)(np.concatenate([x, zero_top], axis=-1))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(outputs), keras.ops.convert_to_numpy(alone), atol=1e-6)


def test_the_controllers_own_initial_state_is_used():
    cell = SuperpositionStackCell(CountingCell(3), stack_size=2, stack_cell_size=1)
    initial = cell.get_initial_state(batch_size=2)
    assert [tuple(s.shape) for s in initial] == [(2, 3), (2, 3), (2, 2)]
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(initial[1]), np.ones((2, 3)))
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(initial[0]), np.zeros((2, 3)))


# ------------------------------------------------------------ Keras behaviour


def tagger(cell, vocab=12):
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(vocab, 6, mask_zero=True)(inputs)
    x = keras.layers.RNN(cell, return_sequences=True)(x)
    return keras.Model(inputs, keras.layers.Dense(vocab)(keras.layers.ReLU()(x)))


def tokens(batch=4, length=9, vocab=12, seed=0, pad_from=None):
    x = np.random.default_rng(seed).integers(1, vocab, (batch, length)).astype("int32")
    if pad_from is not None:
        x[:, pad_from:] = 0
    return x


def stacked_controller():
    return keras.layers.StackedRNNCells([keras.layers.LSTMCell(6), keras.layers.SimpleRNNCell(5)])


def test_keras_file_round_trip_is_identical(tmp_path):
    cell = SuperpositionStackCell(stacked_controller(), stack_size=4, stack_cell_size=3, kernel_regularizer="l2")
    model = tagger(cell)
    x = tokens(pad_from=7)
    want = model.predict(x, verbose=0)
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), want)
    reloaded = loaded.layers[2].cell
    assert type(reloaded) is SuperpositionStackCell and type(reloaded.controller) is keras.layers.StackedRNNCells
    # Nested controller configs gain build details on the way; compare the rest.
    without_controller = lambda c: {k: v for k, v in c.get_config().items() if k not in ("controller", "name")}
    assert without_controller(reloaded) == without_controller(cell)


@pytest.mark.parametrize(
    "controller,state_size",
    [(lambda: keras.layers.LSTMCell(4), [4, 4, 4, 10]), (lambda: CountingCell(4), [4, 4, 10])],
    ids=["lstm", "user"],
)
def test_config_round_trip(controller, state_size):
    cell = SuperpositionStackCell(
        controller(), stack_size=5, stack_cell_size=2, kernel_initializer="orthogonal", bias_initializer="ones"
    )
    clone = SuperpositionStackCell.from_config(cell.get_config())
    assert clone.get_config() == cell.get_config()
    assert clone.state_size == cell.state_size == state_size
    assert (clone.stack_size, clone.stack_cell_size, clone.output_size) == (5, 2, 4)


def test_jit_compiled_model_matches_eager():
    model = tagger(SuperpositionStackCell(keras.layers.LSTMCell(8), stack_size=5, stack_cell_size=3))
    model.compile(jit_compile=True)
    x = tokens(pad_from=6)
    eager = keras.ops.convert_to_numpy(model(x))
    np.testing.assert_allclose(model.predict(x, verbose=0), eager, atol=1e-5)


def test_masked_steps_keep_the_state_and_repeat_the_output():
    layer = keras.layers.RNN(
        SuperpositionStackCell(stacked_controller(), stack_size=3, stack_cell_size=2),
        return_sequences=True,
        return_state=True,
    )
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 4)).astype("float32")
    # Three masked steps with nonzero inputs after the first two.
    padded = np.concatenate([x[:, :2], rng.normal(size=(2, 3, 4)).astype("float32"), x[:, 2:]], axis=1)
    mask = np.ones((2, 8), bool)
    mask[:, 2:5] = False
    want, *want_states = layer(x)
    got, *got_states = layer(padded, mask=mask)
    want, got = keras.ops.convert_to_numpy(want), keras.ops.convert_to_numpy(got)
    np.testing.assert_allclose(got[:, :2], want[:, :2], atol=1e-6)
    np.testing.assert_allclose(got[:, 5:], want[:, 2:], atol=1e-6)
    for step in range(2, 5):
        np.testing.assert_allclose(got[:, step], want[:, 1], atol=1e-6)
    for got_state, want_state in zip(got_states, want_states):
        got_state, want_state = keras.ops.convert_to_numpy(got_state), keras.ops.convert_to_numpy(want_state)
        np.testing.assert_allclose(got_state, want_state, atol=1e-6)


def test_fit_changes_every_weight():
    model = tagger(SuperpositionStackCell(keras.layers.LSTMCell(8), stack_size=4, stack_cell_size=3))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x = tokens(pad_from=7)
    before = [w.copy() for w in model.get_weights()]
    history = model.fit(x, x, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    changed = [not np.allclose(a, b) for a, b in zip(before, model.get_weights())]
    assert all(changed), changed  # the heads, the controller and the embedding all get gradients


def test_mixed_float16_runs_and_keeps_float32_weights():
    x = tokens(pad_from=6)
    make = lambda: tagger(SuperpositionStackCell(keras.layers.LSTMCell(8), stack_size=4, stack_cell_size=3))
    full = make()
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        mixed = make()
        mixed.set_weights(full.get_weights())
        cell = mixed.layers[2].cell
        assert cell.compute_dtype == "float16" and cell.controller.compute_dtype == "float16"
        assert {w.dtype for w in cell.weights} == {"float32"}
        np.testing.assert_allclose(mixed.predict(x, verbose=0), full.predict(x, verbose=0), atol=2e-2)
        mixed.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        history = mixed.fit(x, x, epochs=1, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
    finally:
        keras.mixed_precision.set_global_policy("float32")


# ----------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"stack_size": 0}, "stack_size"),
        ({"stack_size": 2.0}, "stack_size"),
        ({"stack_size": True}, "stack_size"),
        ({"stack_size": None}, "stack_size"),
        ({"stack_cell_size": -1}, "stack_cell_size"),
        ({"stack_cell_size": "8"}, "stack_cell_size"),
    ],
)
def test_bad_sizes_name_the_argument(kwargs, name):
    arguments = {"stack_size": 4, "stack_cell_size": 2, **kwargs}
    with pytest.raises(ValueError, match=f"`{name}` must be a positive integer"):
        SuperpositionStackCell(keras.layers.LSTMCell(4), **arguments)


@pytest.mark.parametrize("controller", [keras.layers.Dense(4), "lstm", None, keras.layers.LSTM(4)])
def test_non_cell_controller_is_rejected(controller):
    with pytest.raises(TypeError, match="`controller` must be"):
        SuperpositionStackCell(controller, stack_size=4, stack_cell_size=2)


def test_controller_dropout_is_rejected():
    with pytest.raises(ValueError, match="recurrent_dropout"):
        SuperpositionStackCell(keras.layers.GRUCell(4, recurrent_dropout=0.2), stack_size=4, stack_cell_size=2)


def test_controller_without_an_output_size_is_rejected():
    with pytest.raises(ValueError, match="`controller` must have a known output size"):
        SuperpositionStackCell(LinearController(), stack_size=4, stack_cell_size=2)


def test_memory_rnn_refuses_the_cell():
    with pytest.raises(TypeError, match="`cell` must be a memory cell"):
        MemoryRNN(SuperpositionStackCell(keras.layers.LSTMCell(4), stack_size=4, stack_cell_size=2))
