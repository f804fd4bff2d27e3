"""The fused memory scan of `MemoryRNN` against Keras' generic RNN loop.

The two paths must agree on outputs, final states and the gradients of
every weight, the inputs and the initial states, for every memory and
controller, with and without masks and initial states. Keras' own cells and
`LinearController` take the scan's fast path (hand-derived step kernels,
`keras_neural_memory.step_kernels`), any other controller its generic path;
both are checked against the generic loop, against float64 finite
differences and in mixed precision, and the tests check which path each
controller takes. A subprocess checks that training memory grows linearly,
not quadratically, in length.
"""

import json
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

from keras import ops

from keras_neural_memory import DequeCell, LinearController, MemoryRNN, QueueCell, StackCell, fused_scan, step_kernels
from keras_neural_memory import trace_memory
from keras_neural_memory.fused_scan import fast_path_reason
from tests import float64 as float64_helpers
from tests.conftest import release_compiled_programs


class UserCell(keras.layers.Layer):
    """A user's own controller, `h = tanh(x W + h U)`: it has no step kernel."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units
        self.output_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), name="recurrent_kernel")

    def call(self, inputs, states):
        h = ops.tanh(ops.matmul(inputs, self.kernel) + ops.matmul(states[0], self.recurrent_kernel))
        return h, [h]


class LSTMSubclass(keras.layers.LSTMCell):
    """A subclass may change the step, so it takes the generic path."""


CELLS = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}
# Every controller type the fast path supports, with its defaults.
CONTROLLERS = {
    "lstm": lambda: keras.layers.LSTMCell(6),
    "gru": lambda: keras.layers.GRUCell(6),
    "simple": lambda: keras.layers.SimpleRNNCell(6),
    "stacked": lambda: keras.layers.StackedRNNCells([keras.layers.LSTMCell(5), keras.layers.GRUCell(6)]),
    "linear": LinearController,
}
# Options of those cells that the step kernels derive too.
KERNEL_OPTIONS = {
    "lstm_no_bias": lambda: keras.layers.LSTMCell(6, use_bias=False),
    "lstm_other_activations": lambda: keras.layers.LSTMCell(6, activation="sigmoid", recurrent_activation="tanh"),
    "lstm_implementation_1": lambda: keras.layers.LSTMCell(6, implementation=1),
    "gru_reset_before": lambda: keras.layers.GRUCell(6, reset_after=False),
    "gru_reset_before_no_bias": lambda: keras.layers.GRUCell(6, reset_after=False, use_bias=False),
    "gru_no_bias": lambda: keras.layers.GRUCell(6, use_bias=False, activation=None),
    "gru_hard_sigmoid": lambda: keras.layers.GRUCell(6, recurrent_activation="hard_sigmoid"),
    "simple_linear_no_bias": lambda: keras.layers.SimpleRNNCell(6, activation=None, use_bias=False),
    "stacked_three": lambda: keras.layers.StackedRNNCells(
        [keras.layers.SimpleRNNCell(4), keras.layers.GRUCell(5, reset_after=False), keras.layers.LSTMCell(6)]
    ),
}
# Controllers with no step kernel: the fused scan's generic path.
GENERIC_CONTROLLERS = {
    "user": lambda: UserCell(6),
    "lstm_relu": lambda: keras.layers.LSTMCell(6, activation="relu"),
    "gru_relu_gates": lambda: keras.layers.GRUCell(6, recurrent_activation="relu"),
    "lstm_subclass": lambda: LSTMSubclass(6),
    "stacked_with_user": lambda: keras.layers.StackedRNNCells([keras.layers.LSTMCell(5), UserCell(6)]),
}
# One cell used twice: its input size (features + one read) equals its units.
SHARED_CONTROLLERS = {
    "stacked_shared": lambda: (lambda cell: keras.layers.StackedRNNCells([cell, cell]))(keras.layers.SimpleRNNCell(7)),
}
ALL_CONTROLLERS = {**CONTROLLERS, **KERNEL_OPTIONS, **GENERIC_CONTROLLERS, **SHARED_CONTROLLERS}
BATCH, LENGTH, FEATURES = 3, 7, 4


@pytest.fixture(autouse=True)
def _release_compiled_programs():
    """After each test: this module's tests alone compile enough programs to reach the mapping limit."""
    yield
    release_compiled_programs()


def make_layer(memory, controller, fused, dtype=None, cell_options=None, **kwargs):
    keras.utils.set_random_seed(1)
    extra = {"output_size": 6} if controller == "linear" else {}
    extra.update(cell_options or {})
    cell = CELLS[memory](ALL_CONTROLLERS[controller](), memory_width=3, dtype=dtype, **extra)
    return MemoryRNN(cell, fused=fused, return_sequences=True, return_state=True, dtype=dtype, **kwargs)


def loss_weights(values):
    """Fixed, distinct weights so that every output and state gets its own cotangent."""
    rng = np.random.default_rng(7)
    return [rng.normal(size=tuple(v.shape)).astype(keras.backend.standardize_dtype(v.dtype)) for v in values]


def outputs_and_gradients(layer, x, mask=None, initial_state=None, training=False):
    """Outputs, final states (less `written`) and d loss / d (weights, x, initial states)."""
    initial_state = list(initial_state or [])
    if keras.backend.backend() == "jax":
        import jax
        import jax.numpy as jnp

        def run(trainable, x, states):
            out, _ = layer.stateless_call(
                trainable, [v.value for v in layer.non_trainable_variables], x,
                mask=mask, initial_state=states or None, training=training,
            )  # fmt: skip
            return out[:-1]

        def loss(trainable, x, states):
            results = run(trainable, x, states)
            return sum(jnp.sum(r * w) for r, w in zip(results, loss_weights(results)))

        trainable = [v.value for v in layer.trainable_variables]
        results = run(trainable, x, initial_state)
        d_weights, d_x, d_states = jax.grad(loss, argnums=(0, 1, 2))(trainable, x, initial_state)
        gradients = [*d_weights, d_x, *d_states[:-1]] + ([None] if d_states else [])
    else:
        import tensorflow as tf

        x = tf.constant(x)
        states = [tf.constant(s) for s in initial_state]
        with tf.GradientTape() as tape:
            tape.watch([x, *states])
            results = layer(x, mask=mask, initial_state=states or None, training=training)[:-1]
            loss = sum(tf.reduce_sum(r * w) for r, w in zip(results, loss_weights(results)))
        gradients = tape.gradient(loss, [*layer.trainable_variables, x, *states[:-1]])
        gradients += [None] if states else []
    return [np.asarray(r) for r in results], [None if g is None else np.asarray(g) for g in gradients]


def assert_paths_agree(memory, controller, mask=None, with_initial_state=False, fast=None, cell_options=None, **kwargs):
    """The fused scan against Keras' generic loop; `fast`: the path the scan must take (None: either)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, LENGTH, FEATURES)).astype("float32")
    fused = make_layer(memory, controller, True, cell_options=cell_options, **kwargs)
    generic = make_layer(memory, controller, False, cell_options=cell_options, **kwargs)
    assert fused.runs_fused and not generic.runs_fused
    initial_state = None
    if with_initial_state:
        # A realistic state: 4 steps of the same layer into a memory with room for more.
        fused(x[:, :1])  # build
        start = fused.cell.get_initial_state(batch_size=BATCH, capacity=4 + LENGTH)
        prefix = rng.normal(size=(BATCH, 4, FEATURES)).astype("float32")
        initial_state = [np.asarray(s) for s in fused(prefix, initial_state=start)[1:]]
    if not fused.built:
        fused(x[:, :1])
    generic(x[:, :1])
    generic.set_weights(fused.get_weights())
    if fast is not None:
        assert (fast_path_reason(fused.cell) is None) == fast, fast_path_reason(fused.cell)
    got, got_grads = outputs_and_gradients(fused, x, mask, initial_state)
    want, want_grads = outputs_and_gradients(generic, x, mask, initial_state)
    _expect_initial_output_at_leading_masked_steps(generic, want, want_grads, mask, initial_state)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6)
    assert len(got_grads) == len(want_grads)
    for index, (g, w) in enumerate(zip(got_grads, want_grads)):
        if w is None:
            continue
        scale = max(np.abs(w).max(), 1e-3)
        assert np.abs(g - w).max() <= 1e-5 * scale, f"gradient {index}: {np.abs(g - w).max()} vs scale {scale}"


def _expect_initial_output_at_leading_masked_steps(layer, want, want_grads, mask, initial_state):
    """Corrects Keras' TensorFlow loop to the documented output of leading masked steps.

    A masked step repeats the previous output, and before the first step
    that is the initial state's output `o_0` (`states[0]`). Keras' JAX loop
    does that, and so does the fused scan on both backends; Keras'
    TensorFlow loop starts its "previous output" at zeros whatever the
    initial state (`keras/src/backend/tensorflow/rnn.py`). So on
    TensorFlow the generic loop's outputs at a sequence's leading masked
    steps are replaced by `o_0`, and the gradient of `o_0` gains those
    outputs' loss weights. Nothing else differs.
    """
    if keras.backend.backend() != "tensorflow" or mask is None or not initial_state or layer.zero_output_for_mask:
        return
    processed = mask[:, ::-1] if layer.go_backwards else mask
    leading = np.cumprod(~processed, axis=1).astype(bool)[:, :, None]
    if not leading.any():
        return
    initial_output = initial_state[0][:, None, :]
    assert np.all(want[0][np.broadcast_to(leading, want[0].shape)] == 0), "Keras' TF loop no longer outputs zeros there"
    want[0] = np.where(leading, initial_output, want[0])
    output_weights = loss_weights(want)[0]
    index = len(layer.trainable_variables) + 1  # d(initial states)[0] follows the weights and the inputs
    want_grads[index] = want_grads[index] + np.sum(output_weights * leading, axis=1)


def ragged_mask(leading_padding=True):
    mask = np.ones((BATCH, LENGTH), bool)
    mask[0, 2] = False  # a hole
    mask[1, 4:] = False  # padding
    if leading_padding:
        mask[2, :2] = False
    return mask


@pytest.mark.parametrize("controller", list(CONTROLLERS))
@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_matches_generic(memory, controller):
    assert_paths_agree(memory, controller, fast=True)


@pytest.mark.parametrize("controller", list(CONTROLLERS))
@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_matches_generic_with_mask_and_initial_state(memory, controller):
    # Row 2 starts with two masked steps: they output the initial state's
    # `o_0` (on TensorFlow Keras' own loop outputs zeros there, see
    # `_expect_initial_output_at_leading_masked_steps`).
    assert_paths_agree(memory, controller, mask=ragged_mask(), with_initial_state=True, fast=True)


@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_matches_generic_with_mask(memory):
    assert_paths_agree(memory, "lstm", mask=ragged_mask())


@pytest.fixture
def grown_scans(monkeypatch):
    """Every sequence of at least 4 steps runs in stretches (`growth_plan`); yields the stretched calls' plans."""
    monkeypatch.setattr(fused_scan, "GROWTH_MIN_STEPS", 4)
    plans = []
    grown_scan = fused_scan._Scan._grown_scan

    def recording(self, step, carry, steps, step_mask, plan, *args):
        plans.append(plan)
        return grown_scan(self, step, carry, steps, step_mask, plan, *args)

    monkeypatch.setattr(fused_scan._Scan, "_grown_scan", recording)
    yield plans


@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_grown_memory_matches_generic(memory, grown_scans):
    # Outputs, final states and every gradient with the memory grown over
    # 4 stretches of the 7 steps equal the generic loop's full memory.
    assert_paths_agree(memory, "lstm", mask=ragged_mask(), fast=True)
    assert grown_scans and all(plan == [(0, 2, 2), (2, 4, 4), (4, 6, 6), (6, 7, 7)] for plan in grown_scans)


@pytest.mark.parametrize("options", [{"go_backwards": True}, {"zero_output_for_mask": True}])
@pytest.mark.slow
def test_grown_memory_matches_generic_options(options, grown_scans):
    assert_paths_agree("deque", "user", mask=ragged_mask(), fast=False, **options)
    assert grown_scans


@pytest.mark.slow
def test_memory_is_not_grown_from_a_given_state(grown_scans):
    # A given initial state may hold values, so its memory runs whole.
    assert_paths_agree("deque", "lstm", mask=ragged_mask(), with_initial_state=True)
    assert not grown_scans


@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_grown_memory_in_a_compiled_model_of_unknown_batch(memory, monkeypatch):
    # `predict` traces the model for any batch size: the grown memory's
    # shapes then have a symbolic batch. 300 steps grow by default.
    x = np.random.default_rng(0).normal(size=(3, 300, FEATURES)).astype("float32")
    mask = np.ones((3, 300), bool)
    mask[1, :40] = False

    def predictions():
        keras.utils.set_random_seed(1)
        inputs, steps_mask = keras.Input((300, FEATURES)), keras.Input((300,), dtype="bool")
        layer = MemoryRNN(CELLS[memory](keras.layers.LSTMCell(5), memory_width=3), return_sequences=True)
        model = keras.Model([inputs, steps_mask], layer(inputs, mask=steps_mask))
        model.compile(jit_compile=True)
        return model.predict([x, mask], batch_size=2, verbose=0)

    grown = predictions()
    monkeypatch.setattr(fused_scan, "GROWTH_MIN_STEPS", 10**9)
    whole = predictions()
    np.testing.assert_allclose(grown, whole, rtol=0, atol=1e-5)
    assert np.isfinite(grown).all()


def test_growth_plan():
    assert fused_scan.growth_plan(fused_scan.GROWTH_MIN_STEPS - 1, 300) == [(0, 255, 300)]
    assert fused_scan.growth_plan(None, 300) == [(0, None, 300)]
    assert fused_scan.growth_plan(258, 258) == [(0, 65, 65), (65, 130, 130), (130, 195, 195), (195, 258, 258)]
    # A memory smaller than the sequence fills (and overflows) where the whole one would.
    assert fused_scan.growth_plan(400, 150) == [(0, 100, 100), (100, 200, 150), (200, 300, 150), (300, 400, 150)]
    # One larger than the sequence ends at its own capacity.
    assert fused_scan.growth_plan(400, 500)[-1] == (300, 400, 500)


@pytest.mark.parametrize("controller", ["gru", "lstm"])
@pytest.mark.parametrize("options", [{"go_backwards": True}, {"zero_output_for_mask": True}])
@pytest.mark.slow
def test_fused_matches_generic_options(options, controller):
    assert_paths_agree("deque", controller, mask=ragged_mask(), with_initial_state=controller == "lstm", **options)


@pytest.mark.parametrize("controller", list(KERNEL_OPTIONS))
@pytest.mark.slow
def test_fast_path_matches_generic_with_cell_options(controller):
    assert_paths_agree("deque", controller, mask=ragged_mask(), with_initial_state=True, fast=True)


def test_fast_path_sums_the_gradients_of_a_cell_used_twice():
    # The shared cell's variables take both uses' gradients, as autodiff of the loop does.
    assert_paths_agree("stack", "stacked_shared", mask=ragged_mask(), fast=True)


def test_fast_path_refuses_a_controller_without_autocast_under_mixed_precision():
    # Keras would run such a cell in its variables' dtype, not in the cell's compute dtype.
    controller = keras.layers.LSTMCell(6, autocast=False, dtype="mixed_float16")
    controller.build((None, 7))
    assert "autocast=False" in step_kernels.unsupported_reason(controller)


@pytest.mark.parametrize(
    "memory, controller, cell_options",
    [
        ("stack", "linear", {"output_activation": None, "value_activation": "sigmoid"}),  # Hao et al.
        ("queue", "gru", {"output_activation": "sigmoid", "trainable_initial_state": True}),
        ("deque", "lstm", {"gate_activation": "hard_sigmoid"}),
    ],
)
@pytest.mark.slow
def test_fast_path_matches_generic_with_head_options(memory, controller, cell_options):
    assert_paths_agree(memory, controller, mask=ragged_mask(), fast=True, cell_options=cell_options)


@pytest.mark.parametrize("controller", list(GENERIC_CONTROLLERS))
@pytest.mark.slow
def test_generic_path_matches_generic_loop(controller):
    assert_paths_agree("queue", controller, mask=ragged_mask(), with_initial_state=True, fast=False)


@pytest.mark.slow
def test_generic_path_for_unsupported_heads():
    assert_paths_agree("stack", "lstm", mask=ragged_mask(), fast=False, cell_options={"output_activation": "relu"})


def _patch_calls(monkeypatch, layer):
    """Counts the calls of the memory cell's `controls` and of its controller cells' `call`."""
    calls = []
    cell = layer.cell
    controllers = [cell.controller, *getattr(cell.controller, "cells", [])]
    for target, name in [(cell, "controls"), *[(c, "call") for c in controllers]]:
        original = getattr(target, name)

        def counted(*args, _original=original, _name=f"{target.name}.{name}", **kwargs):
            calls.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(target, name, counted)
    return calls


@pytest.mark.parametrize("controller", [*CONTROLLERS, *KERNEL_OPTIONS, *GENERIC_CONTROLLERS])
def test_which_path_each_controller_takes(controller, monkeypatch):
    """The fast path never runs the controller or `controls`, forward or backward; the generic path does."""
    layer = make_layer("deque", controller, True)
    x = np.random.default_rng(0).normal(size=(BATCH, 3, FEATURES)).astype("float32")
    layer(x)
    fast = controller not in GENERIC_CONTROLLERS
    assert (fast_path_reason(layer.cell) is None) == fast, fast_path_reason(layer.cell)
    calls = _patch_calls(monkeypatch, layer)
    outputs_and_gradients(layer, x)
    if fast:
        assert calls == []
    else:
        assert f"{layer.cell.name}.controls" in calls


def test_unsupported_reasons():
    """Every option the step kernels do not derive sends the cell to the generic path, saying why."""

    def built(cell, features=4):
        cell.build((None, features))
        return cell

    reason = step_kernels.unsupported_reason
    for cell in [
        keras.layers.LSTMCell(3),
        keras.layers.GRUCell(3, reset_after=False, use_bias=False),
        keras.layers.SimpleRNNCell(3, activation="sigmoid"),
        keras.layers.StackedRNNCells([keras.layers.GRUCell(3), keras.layers.LSTMCell(2)]),
        LinearController(),
    ]:
        assert reason(built(cell)) is None
        assert step_kernels.step_kernel(cell) is not None
    unsupported = {
        "not built": keras.layers.LSTMCell(3),
        "dropout": built(keras.layers.LSTMCell(3, dropout=0.5)),
        "uses dropout": built(keras.layers.GRUCell(3, recurrent_dropout=0.1)),
        "activation=": built(keras.layers.LSTMCell(3, activation="relu")),
        "recurrent_activation=": built(keras.layers.GRUCell(3, recurrent_activation="relu")),
        "only tanh, sigmoid, hard sigmoid and linear": built(keras.layers.SimpleRNNCell(3, activation="relu")),
        "activity regulariser": built(keras.layers.LSTMCell(3, activity_regularizer="l2")),
        "LSTMSubclass": built(LSTMSubclass(3)),
        "UserCell": built(UserCell(3)),
        "only LSTM, GRU and SimpleRNN cells": built(
            keras.layers.StackedRNNCells([keras.layers.LSTMCell(3), UserCell(2)])
        ),
    }
    for expected, cell in unsupported.items():
        assert expected in (reason(cell) or ""), (expected, reason(cell))
        assert step_kernels.step_kernel(cell) is None

    def memory_cell(controller, **options):
        cell = StackCell(controller, memory_width=3, **options)
        cell.build((None, 4))
        return cell

    assert fast_path_reason(memory_cell(keras.layers.LSTMCell(3))) is None
    assert "output_activation" in fast_path_reason(memory_cell(keras.layers.LSTMCell(3), output_activation="relu"))
    assert "value_activation" in fast_path_reason(memory_cell(keras.layers.LSTMCell(3), value_activation="softsign"))
    mixed = memory_cell(keras.layers.LSTMCell(3, dtype="float32"), dtype="mixed_float16")
    assert "computes in float32" in fast_path_reason(mixed)

    class OwnControls(StackCell):
        def controls(self, *args, **kwargs):
            return super().controls(*args, **kwargs)

    own = OwnControls(keras.layers.LSTMCell(3), memory_width=3)
    own.build((None, 4))
    assert "overrides `controls`" in fast_path_reason(own)


@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_gradient_matches_finite_differences_in_float64(memory, float64):
    """Directional derivatives of the fused path against central differences.

    `float64_helpers.tanh` is a function of the user's, so this is the
    generic path.
    """
    keras.utils.set_random_seed(1)
    tanh = float64_helpers.tanh
    controller = keras.layers.LSTMCell(6, activation=tanh, dtype="float64")
    cell = CELLS[memory](controller, memory_width=3, output_activation=tanh, value_activation=tanh, dtype="float64")
    _check_finite_differences(cell, fast=False)


_FLOAT64_CONTROLLERS = {
    "lstm": lambda: keras.layers.LSTMCell(6, dtype="float64"),
    "gru": lambda: keras.layers.GRUCell(6, dtype="float64"),
    "gru_reset_before": lambda: keras.layers.GRUCell(6, reset_after=False, dtype="float64"),
    "simple": lambda: keras.layers.SimpleRNNCell(6, dtype="float64"),
    "stacked": lambda: keras.layers.StackedRNNCells(
        [keras.layers.LSTMCell(5, dtype="float64"), keras.layers.GRUCell(6, dtype="float64")], dtype="float64"
    ),
    "linear": lambda: LinearController(dtype="float64"),
}


@pytest.mark.parametrize(
    "memory, controller",
    [("stack", "lstm"), ("queue", "lstm"), ("deque", "lstm"), ("deque", "gru"), ("stack", "gru_reset_before"),
     ("queue", "simple"), ("deque", "stacked"), ("stack", "linear")],
)  # fmt: skip
@pytest.mark.slow
def test_fast_path_gradient_matches_finite_differences_in_float64(memory, controller, float64):
    """The hand-derived backward of each step kernel against central differences."""
    keras.utils.set_random_seed(1)
    extra = {"output_size": 6} if controller == "linear" else {}
    cell = CELLS[memory](_FLOAT64_CONTROLLERS[controller](), memory_width=3, dtype="float64", **extra)
    _check_finite_differences(cell, fast=True)


@pytest.mark.slow
def test_fast_path_gradient_with_hard_sigmoid_gates_matches_finite_differences_in_float64(float64):
    """Hard-sigmoid gates: slope 1/6 inside (0, 1), none where clipped (logits of both kinds drawn)."""
    keras.utils.set_random_seed(1)
    cell = CELLS["deque"](
        _FLOAT64_CONTROLLERS["lstm"](), memory_width=3, dtype="float64", gate_activation="hard_sigmoid",
        kernel_initializer=keras.initializers.RandomNormal(stddev=2.0, seed=2), push_bias_init=-3.0, pop_bias_init=3.0,
    )  # biases at the clipping points, so that some strengths are clipped and some not  # fmt: skip
    _check_finite_differences(cell, fast=True)
    trace = trace_memory(cell, np.random.default_rng(3).normal(size=(BATCH, LENGTH, FEATURES)))
    strengths = np.concatenate([trace["push"].ravel(), trace["pop"].ravel()])
    assert np.any(strengths == 0.0) and np.any((strengths > 0) & (strengths < 1))


def _check_finite_differences(cell, fast):
    layer = MemoryRNN(cell, return_sequences=True, return_state=True, dtype="float64")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(BATCH, LENGTH, FEATURES))
    layer(x)
    assert {v.dtype for v in layer.weights} == {"float64"}
    assert (fast_path_reason(cell) is None) == fast, fast_path_reason(cell)
    variables = layer.trainable_variables
    origin = [np.array(v.numpy()) for v in variables]
    _, gradients = outputs_and_gradients(layer, x)
    d_weights, d_x = gradients[: len(variables)], gradients[len(variables)]

    def loss(shift):
        for v, value, u in zip(variables, origin, directions):
            v.assign(value + shift * u)
        results = [np.asarray(r) for r in layer(x + shift * direction_x)[:-1]]
        return sum(np.sum(r * w) for r, w in zip(results, loss_weights(results)))

    for _ in range(3):
        directions = [rng.normal(size=value.shape) for value in origin]
        direction_x = rng.normal(size=x.shape)
        predicted = sum(np.sum(g * u) for g, u in zip(d_weights, directions)) + np.sum(d_x * direction_x)
        step = 1e-6
        measured = (loss(step) - loss(-step)) / (2 * step)
        np.testing.assert_allclose(predicted, measured, rtol=1e-6, atol=1e-8)
    for v, value in zip(variables, origin):
        v.assign(value)


@pytest.mark.parametrize("memory, controller", [("stack", "lstm"), ("deque", "stacked"), ("queue", "user")])
@pytest.mark.slow
def test_mixed_float16_matches_float32(memory, controller):
    """`mixed_float16` against float32 with the same weights, on both paths.

    float16 keeps 11 significant bits (a relative rounding error of 4.9e-4
    per operation). Over 7 steps the outputs and final states must stay
    within 1e-2 of float32's, and every gradient within 2e-2 of its largest
    entry (measured on both backends: at most 1.3e-3 and 2e-3). Inputs
    near a kink of the memory's `min`/`max` can flip a branch in float16
    and move a gradient by far more, on Keras' generic loop as much as on
    the fused scan; these inputs are not near one.
    """
    mask = ragged_mask()
    x = np.random.default_rng(0).normal(size=(BATCH, LENGTH, FEATURES)).astype("float32")
    full = make_layer(memory, controller, True)
    full(x[:, :1])
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        mixed = make_layer(memory, controller, True)
        mixed(x[:, :1])
    finally:
        keras.mixed_precision.set_global_policy("float32")
    mixed.set_weights(full.get_weights())
    assert mixed.cell.compute_dtype == "float16" and mixed.cell.kernel.dtype == "float32"
    fast = controller in CONTROLLERS
    assert (fast_path_reason(mixed.cell) is None) == (fast_path_reason(full.cell) is None) == fast
    got, got_grads = outputs_and_gradients(mixed, x, mask)
    want, want_grads = outputs_and_gradients(full, x, mask)
    for g, w in zip(got, want):
        assert g.dtype == "float16"
        np.testing.assert_allclose(g.astype("float32"), w, rtol=0, atol=1e-2)
    for index, (g, w) in enumerate(zip(got_grads, want_grads)):
        assert g.dtype == w.dtype, index
        scale = max(np.abs(w).max(), 1e-3)
        error = np.abs(g.astype("float32") - w).max()
        assert error <= 2e-2 * scale, f"gradient {index}: {error} vs scale {scale}"


@pytest.mark.slow
def test_fused_trains_under_jit_compile_with_masking():
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(8, 5, mask_zero=True)(inputs)
    layer = MemoryRNN(QueueCell(keras.layers.GRUCell(6), memory_width=3), return_sequences=True)
    model = keras.Model(inputs, keras.layers.Dense(8)(layer(x)))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
    tokens = np.random.default_rng(0).integers(1, 8, (8, 9)).astype("int32")
    tokens[:4, 6:] = 0
    history = model.fit(tokens, tokens, epochs=3, verbose=0)
    assert layer.runs_fused
    assert np.isfinite(history.history["loss"]).all()
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_fallbacks_and_config():
    assert not make_layer("stack", "lstm", True, unroll=True).runs_fused
    assert not make_layer("stack", "lstm", False).runs_fused
    layer = make_layer("stack", "lstm", False)
    assert MemoryRNN.from_config(layer.get_config()).fused is False
    with pytest.raises(TypeError, match="fused"):
        MemoryRNN(StackCell(keras.layers.LSTMCell(4)), fused="yes")


_PEAK_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys
    import keras, numpy as np
    from keras_neural_memory import MemoryRNN, StackCell
    length, fused = int(sys.argv[1]), sys.argv[2] == "1"
    inputs = keras.Input((None, 4))
    layer = MemoryRNN(StackCell(keras.layers.LSTMCell(16), memory_width=32), return_sequences=True, fused=fused)
    model = keras.Model(inputs, keras.layers.Dense(1)(layer(inputs)))
    model.compile("sgd", "mse", jit_compile=True)
    x = np.random.default_rng(0).normal(size=(2, length, 4)).astype("float32")
    model.train_on_batch(x, x[..., :1])
    print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
    """
)


def _peak_mib(length, fused=True):
    run = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, str(length), str(int(fused))], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_training_memory_grows_linearly_in_length():
    # The generic loop stores V (2 x T slots x 32 floats) at every step:
    # 2 * 2048 * 2048 * 32 * 4 bytes = 1 GiB at T = 2048. The fused scan
    # stores O(T * slots) strengths (32 MiB) and one V.
    growth = _peak_mib(2048) - _peak_mib(256)
    assert growth < 200, f"a training step at T=2048 took {growth:.0f} MiB more than at T=256"
