"""The fused memory scan of `MemoryRNN` against Keras' generic RNN loop.

The two paths must agree on outputs, final states and the gradients of
every weight, the inputs and the initial states, for every memory and
controller, with and without masks and initial states. A subprocess checks that training memory grows linearly, not quadratically, in length.
"""

import json
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

from keras_neural_memory import DequeCell, LinearController, MemoryRNN, QueueCell, StackCell
from tests import float64 as float64_helpers

CELLS = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}
CONTROLLERS = {
    "lstm": lambda: keras.layers.LSTMCell(6),
    "gru": lambda: keras.layers.GRUCell(6),
    "stacked": lambda: keras.layers.StackedRNNCells([keras.layers.LSTMCell(5), keras.layers.GRUCell(6)]),
    "linear": LinearController,
}
BATCH, LENGTH, FEATURES = 3, 7, 4


def make_layer(memory, controller, fused, dtype=None, **kwargs):
    keras.utils.set_random_seed(1)
    extra = {"output_size": 6} if controller == "linear" else {}
    cell = CELLS[memory](CONTROLLERS[controller](), memory_width=3, dtype=dtype, **extra)
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


def assert_paths_agree(memory, controller, mask=None, with_initial_state=False, **kwargs):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, LENGTH, FEATURES)).astype("float32")
    fused, generic = make_layer(memory, controller, True, **kwargs), make_layer(memory, controller, False, **kwargs)
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
    got, got_grads = outputs_and_gradients(fused, x, mask, initial_state)
    want, want_grads = outputs_and_gradients(generic, x, mask, initial_state)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6)
    assert len(got_grads) == len(want_grads)
    for index, (g, w) in enumerate(zip(got_grads, want_grads)):
        if w is None:
            continue
        scale = max(np.abs(w).max(), 1e-3)
        assert np.abs(g - w).max() <= 1e-5 * scale, f"gradient {index}: {np.abs(g - w).max()} vs scale {scale}"


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
    assert_paths_agree(memory, controller)


@pytest.mark.parametrize("controller", list(CONTROLLERS))
@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_matches_generic_with_mask_and_initial_state(memory, controller):
    # Leading masked steps output `o_0` of the initial state here, as on
    # JAX's generic loop; TensorFlow's generic loop outputs zeros for them.
    mask = ragged_mask(leading_padding=keras.backend.backend() == "jax")
    assert_paths_agree(memory, controller, mask=mask, with_initial_state=True)


@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_matches_generic_with_mask(memory):
    assert_paths_agree(memory, "lstm", mask=ragged_mask())


@pytest.mark.parametrize("options", [{"go_backwards": True}, {"zero_output_for_mask": True}])
@pytest.mark.slow
def test_fused_matches_generic_options(options):
    assert_paths_agree("deque", "gru", mask=ragged_mask(), **options)


@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_gradient_matches_finite_differences_in_float64(memory, float64):
    """Directional derivatives of the fused path against central differences."""
    _check_finite_differences(memory)


def _check_finite_differences(memory):
    keras.utils.set_random_seed(1)
    tanh = float64_helpers.tanh
    controller = keras.layers.LSTMCell(6, activation=tanh, dtype="float64")
    cell = CELLS[memory](controller, memory_width=3, output_activation=tanh, value_activation=tanh, dtype="float64")
    layer = MemoryRNN(cell, return_sequences=True, return_state=True, dtype="float64")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(BATCH, LENGTH, FEATURES))
    layer(x)
    assert {v.dtype for v in layer.weights} == {"float64"}
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
