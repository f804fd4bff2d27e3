"""`BufferedStackRNN` against the paper (§2.3), by hand, by gradient, and as a Keras layer."""

import keras
import numpy as np
import pytest
from keras import ops

from keras_neural_memory import BufferedStackRNN, LinearController, MemoryRNN, StackCell
from keras_neural_memory.buffered_stack_rnn import binary_strength_penalty
from tests import float64 as float64_helpers
from tests.buffered import reference

OUT, WIDTH, FEATURES = 3, 2, 4


def linear_layer(**kwargs):
    kwargs = {"output_size": OUT, "memory_width": WIDTH, **kwargs}
    return BufferedStackRNN(LinearController(), **kwargs)


def np_out(x):
    return ops.convert_to_numpy(x)


def set_projection(layer, kernel, bias):
    layer.cell.stack_cell.kernel.assign(kernel.astype("float32"))
    layer.cell.stack_cell.bias.assign(bias.astype("float32"))


def gate_free_weights(in_logit, out_logit, buffered=True):
    """`y_t = x_t` (first OUT features) and constant buffer gates: a network computed by hand."""
    extra = 2 if buffered else 0
    heads = OUT + extra + 2 + WIDTH
    kernel = np.zeros((FEATURES + WIDTH, heads))
    kernel[:OUT, :OUT] = np.eye(OUT)
    bias = np.zeros(heads)
    if buffered:
        bias[OUT : OUT + 2] = in_logit, out_logit
    return kernel, bias


# -------------------------------------------------------------- the paper


@pytest.mark.parametrize("buffered,steps_per_input", [(True, 2), (True, 3), (False, 1)])
def test_matches_the_loop_reference(buffered, steps_per_input):
    rng = np.random.default_rng(3)
    layer = linear_layer(buffered=buffered, steps_per_input=steps_per_input)
    x = rng.normal(size=(2, 5, FEATURES)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], bool)
    layer(x)  # build
    kernel = rng.normal(scale=1.5, size=layer.cell.stack_cell.kernel.shape)
    bias = rng.normal(size=layer.cell.stack_cell.bias.shape)
    set_projection(layer, kernel, bias)
    got = np_out(layer(x, mask=mask))
    for b, n in enumerate(mask.sum(1)):
        expected, gates = reference.buffered_linear_network(
            x[b, :n].tolist(), kernel.tolist(), bias.tolist(), OUT, WIDTH, steps_per_input * n, buffered
        )
        np.testing.assert_allclose(got[b, :n], np.array(expected), rtol=1e-4, atol=1e-5)
        if buffered:  # the gates really are fractional: the buffers are exercised, not bypassed
            assert 0.05 < np.mean(gates) < 0.95


def test_fixed_num_steps_and_output_length_match_the_reference():
    rng = np.random.default_rng(4)
    layer = linear_layer(num_steps=7)
    x = rng.normal(size=(1, 3, FEATURES)).astype("float32")
    layer(x)
    kernel = rng.normal(size=layer.cell.stack_cell.kernel.shape)
    bias = rng.normal(size=layer.cell.stack_cell.bias.shape)
    set_projection(layer, kernel, bias)
    got = np_out(layer(x, output_length=5))
    expected, _ = reference.buffered_linear_network(
        x[0].tolist(), kernel.tolist(), bias.tolist(), OUT, WIDTH, 7, output_length=5
    )
    assert got.shape == (1, 5, OUT)
    np.testing.assert_allclose(got[0], np.array(expected), rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------ by hand


@pytest.mark.parametrize("steps_per_input", [1, 2, 4])
@pytest.mark.slow
def test_input_pops_of_one_reproduce_the_input_in_order(steps_per_input):
    # i_t = o_t = sigmoid(50) == 1.0 exactly in float32, and y_t = x_t: the
    # buffers hand the input straight through, whatever the extra steps do.
    x = np.random.default_rng(0).normal(size=(2, 6, FEATURES)).astype("float32")
    layer = linear_layer(steps_per_input=steps_per_input)
    layer(x)
    set_projection(layer, *gate_free_weights(50.0, 50.0))
    np.testing.assert_allclose(np_out(layer(x)), x[..., :OUT], atol=1e-6)


def test_no_input_pops_read_the_first_item_forever():
    x = np.random.default_rng(1).normal(size=(1, 4, FEATURES)).astype("float32")
    layer = linear_layer()
    layer(x)
    set_projection(layer, *gate_free_weights(-50.0, 50.0))
    np.testing.assert_allclose(np_out(layer(x))[0], np.repeat(x[0, :1, :OUT], 4, axis=0), atol=1e-6)


def test_no_output_pushes_leave_an_empty_output():
    x = np.ones((1, 4, FEATURES), "float32")
    layer = linear_layer()
    layer(x)
    set_projection(layer, *gate_free_weights(50.0, -200.0))
    np.testing.assert_allclose(np_out(layer(x)), 0.0, atol=1e-12)


def test_half_input_pops_interpolate_the_input():
    # i_t = 1/2: x_1 = I1, x_2 = (I1 + I2)/2, x_3 = I2, x_4 = I2/2 (half of I2 is left).
    x = np.array([[[1, 0, 0, 0], [0, 1, 0, 0]]], "float32")
    layer = linear_layer(num_steps=4)
    layer(x)
    set_projection(layer, *gate_free_weights(0.0, 50.0))
    got = np_out(layer(x, output_length=4))[0]
    i1, i2 = x[0, 0, :OUT], x[0, 1, :OUT]
    np.testing.assert_allclose(got, [i1, (i1 + i2) / 2, i2, i2 / 2], atol=1e-6)


def test_output_is_read_off_by_dequeues_of_one():
    # o_t = 1/2 at every step and y_t = x_t with i_t = 1: each output mixes two steps.
    x = np.array([[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]], "float32")
    layer = linear_layer(steps_per_input=1)
    layer(x)
    set_projection(layer, *gate_free_weights(50.0, 0.0))
    got = np_out(layer(x))[0]
    # Strengths 1/2 each: read 1 = y1/2 + y2/2; after one dequeue of 1, y3/2 only.
    np.testing.assert_allclose(got, [[0.5, 0.5, 0], [0, 0, 0.5], [0, 0, 0]], atol=1e-6)


@pytest.mark.parametrize("output_offset", [0, 1])
def test_output_offset_dequeues_before_the_first_read(output_offset):
    # o_t = 1 and y_t = x_t with i_t = 1: the output buffer holds y1, y2, y3.
    # The reference code's convention (offset 1) reads output k after k
    # dequeues, so y1 is never read and the last output is empty.
    x = np.array([[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]], "float32")
    layer = linear_layer(steps_per_input=1, output_offset=output_offset)
    layer(x)
    set_projection(layer, *gate_free_weights(50.0, 50.0))
    y = np.eye(OUT)
    expected = [y[0], y[1], y[2]] if output_offset == 0 else [y[1], y[2], np.zeros(OUT)]
    np.testing.assert_allclose(np_out(layer(x))[0], expected, atol=1e-6)


def test_unbuffered_equals_the_stack_cell_network():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(2, 6, FEATURES)).astype("float32")
    layer = linear_layer(buffered=False, steps_per_input=1)
    cell = StackCell(LinearController(), output_size=OUT, memory_width=WIDTH, output_activation=None, value_activation="sigmoid")
    rnn = MemoryRNN(cell, return_sequences=True)
    layer(x), rnn(x)
    kernel = rng.normal(size=cell.kernel.shape)
    bias = rng.normal(size=cell.bias.shape)
    set_projection(layer, kernel, bias)
    cell.kernel.assign(kernel.astype("float32")), cell.bias.assign(bias.astype("float32"))
    np.testing.assert_allclose(np_out(layer(x)), np_out(rnn(x)), rtol=1e-5, atol=1e-6)


def test_padding_does_not_change_predictions():
    x = np.random.default_rng(6).normal(size=(1, 3, FEATURES)).astype("float32")
    padded = np.concatenate([x, np.full((1, 4, FEATURES), 9.0, "float32")], axis=1)
    layer = BufferedStackRNN(keras.layers.GRUCell(5), output_size=OUT, memory_width=WIDTH)
    alone = np_out(layer(x))
    in_batch = np_out(layer(padded, mask=np.array([[1, 1, 1, 0, 0, 0, 0]], bool)))
    np.testing.assert_allclose(in_batch[:, :3], alone, rtol=1e-5, atol=1e-6)


def test_padding_under_a_float64_floatx(float64):
    # The step mask compares a range of steps with the lengths; both must
    # share an integer type, which `ops.arange` alone makes int64 here.
    keras.config.set_floatx("float64")
    try:
        x = np.random.default_rng(6).normal(size=(2, 3, FEATURES))
        layer = BufferedStackRNN(keras.layers.GRUCell(5), output_size=OUT, memory_width=WIDTH)
        outputs = np_out(layer(x, mask=np.array([[1, 1, 1], [1, 1, 0]], bool)))
    finally:
        keras.config.set_floatx("float32")
    assert np.isfinite(outputs).all()


def test_buffer_gate_biases_start_at_the_argument():
    layer = linear_layer(buffer_bias_init=1.0, pop_bias_init=-1.0)
    layer(np.zeros((1, 2, FEATURES), "float32"))
    bias = np_out(layer.cell.stack_cell.bias)
    np.testing.assert_allclose(bias[OUT : OUT + 2], [1.0, 1.0])
    np.testing.assert_allclose(bias[OUT + 2 : OUT + 4], [0.0, -1.0])  # push, pop
    assert np.all(bias[:OUT] == 0)


def test_strength_penalty_values():
    got = np_out(binary_strength_penalty(ops.convert_to_tensor([0.0, 0.5, 1.0])))
    np.testing.assert_allclose(got, [0.0029409, 1.0, 0.0029409], rtol=1e-4)


# ------------------------------------------------------------ gradients


def _grad(f, x):
    if keras.backend.backend() == "jax":
        import jax

        return np.asarray(jax.grad(f)(x))
    import tensorflow as tf

    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


@pytest.mark.parametrize("controller", ["linear", "lstm"])
@pytest.mark.slow
def test_gradients_match_finite_differences(float64, controller):
    rng = np.random.default_rng(7)
    # The controller computes in its own dtype: float64 too, or it would round the check away.
    if controller == "linear":
        cell = LinearController(dtype="float64")
    else:
        cell = keras.layers.LSTMCell(3, activation=float64_helpers.tanh, dtype="float64")
    layer = BufferedStackRNN(cell, output_size=OUT, memory_width=WIDTH, dtype="float64")
    x = rng.normal(size=(1, 3, FEATURES))
    layer(x)
    weights = rng.normal(size=(1, 3, OUT))

    def f(inputs):
        return ops.sum(layer(inputs) * weights)

    grad = _grad(f, x)
    numeric = np.zeros_like(x)
    eps = 1e-5
    for pos in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[pos] += eps
        minus[pos] -= eps
        numeric[pos] = (float(f(plus)) - float(f(minus))) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-4, atol=1e-7)
    assert np.abs(grad).sum() > 0


# ------------------------------------------------------------ Keras layer


def small_model(**kwargs):
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(5, 4, mask_zero=True)(inputs)
    logits = BufferedStackRNN(keras.layers.LSTMCell(6), output_size=5, memory_width=2, **kwargs)(x)
    return keras.Model(inputs, logits)


def toy_data(n=20, length=6):
    ids = np.random.default_rng(8).integers(1, 5, size=(n, length)).astype("int32")
    ids[: n // 2, length - 2 :] = 0
    return ids, ids[:, ::-1].copy(), (ids > 0).astype("float32")


@pytest.mark.slow
def test_jit_compiled_training_step_with_the_regulariser():
    model = small_model(strength_regularization=0.5)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
    ids, targets, weights = toy_data()
    before = [np_out(w).copy() for w in model.trainable_weights]
    # Batches of 8 from 20 strings: the last is short, so the batch size is unknown to XLA.
    history = model.fit(ids, targets, sample_weight=weights, batch_size=8, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert all(np.any(np_out(w) != b) for w, b in zip(model.trainable_weights, before))
    model(ids)
    (penalty,) = model.losses
    assert 0.0 < float(np_out(penalty)) <= 0.5


@pytest.mark.slow
def test_keras_file_round_trip_is_identical(tmp_path):
    model = small_model(steps_per_input=3, buffer_bias_init=0.5)
    ids, _, _ = toy_data()
    expected = model.predict(ids, verbose=0)
    path = tmp_path / "buffered.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_array_equal(loaded.predict(ids, verbose=0), expected)
    layer = loaded.layers[-1]
    assert isinstance(layer, BufferedStackRNN) and layer.steps_per_input == 3 and layer.buffer_bias_init == 0.5


def test_config_round_trip():
    layer = linear_layer(
        num_steps=9,
        buffered=True,
        strength_regularization=0.1,
        output_activation="tanh",
        output_offset=1,
        strength_noise=0.5,
        seed=3,
    )
    clone = BufferedStackRNN.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    assert isinstance(clone.controller, LinearController)


# ------------------------------------------------------------ strength noise


def _logit(p):
    p = np.asarray(p, "float64")
    return np.log(p) - np.log1p(-p)


@pytest.mark.parametrize("buffered", [True, False])
def test_strength_noise_is_added_to_each_strength_logit(buffered):
    layer = linear_layer(buffered=buffered, steps_per_input=2 if buffered else 1, strength_noise=1.0, seed=0)
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, FEATURES)).astype("float32")
    layer(x)
    cell = layer.cell
    assert cell.strength_noise_size == (4 if buffered else 2)
    states, _, _, _ = layer._start(ops.convert_to_tensor(x))
    noise = rng.normal(size=(2, cell.strength_noise_size)).astype("float32")
    _, _, clean = cell.step(states, training=False)
    _, _, noisy = cell.step(states, training=True, noise=ops.convert_to_tensor(noise))
    # Column order: stack push, stack pop, then input pop i_t and output push o_t.
    names = ["push", "pop"] + (["input_pop", "output_push"] if buffered else [])
    for column, name in enumerate(names):
        shift = _logit(np_out(noisy[name])[:, 0]) - _logit(np_out(clean[name])[:, 0])
        np.testing.assert_allclose(shift, noise[:, column], atol=2e-4, err_msg=name)


def test_strength_noise_only_while_training():
    x = np.random.default_rng(0).normal(size=(3, 4, FEATURES)).astype("float32")
    noisy = linear_layer(strength_noise=5.0, seed=1)
    plain = linear_layer()
    noisy(x)
    plain(x)
    for target, source in zip(plain.trainable_weights, noisy.trainable_weights, strict=True):
        target.assign(source)
    np.testing.assert_array_equal(np_out(noisy(x)), np_out(plain(x)))
    trained = [np_out(noisy(x, training=True)) for _ in range(2)]
    assert np.abs(trained[0] - np_out(plain(x))).max() > 1e-3
    assert np.abs(trained[0] - trained[1]).max() > 1e-3, "each call must draw new noise"


@pytest.mark.slow
def test_strength_noise_trains_under_jit_compile_and_round_trips(tmp_path):
    model = small_model(strength_noise=1.0, seed=0, strength_regularization=0.5)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
    ids, targets, weights = toy_data()
    history = model.fit(ids, targets, sample_weight=weights, batch_size=10, epochs=3, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    path = tmp_path / "noisy_buffered.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    layer = loaded.layers[-1]
    assert (layer.strength_noise, layer.seed) == (1.0, 0)
    np.testing.assert_array_equal(loaded.predict(ids, verbose=0), model.predict(ids, verbose=0))
    loaded.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
    assert np.isfinite(loaded.fit(ids, targets, sample_weight=weights, epochs=1, verbose=0).history["loss"]).all()


@pytest.mark.slow
def test_mixed_float16_trains_with_noise_and_the_regulariser():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        inputs = keras.Input((None,), dtype="int32")
        x = keras.layers.Embedding(5, 4, mask_zero=True)(inputs)
        layer = BufferedStackRNN(
            keras.layers.LSTMCell(6), output_size=5, memory_width=2, strength_noise=1.0, strength_regularization=0.5
        )
        model = keras.Model(inputs, keras.layers.Activation("linear", dtype="float32")(layer(x)))
        model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
        ids, targets, weights = toy_data()
        history = model.fit(ids, targets, sample_weight=weights, batch_size=8, epochs=2, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
        model(ids)
        (penalty,) = model.losses
        assert penalty.dtype == "float32"
    finally:
        keras.mixed_precision.set_global_policy("float32")


# ------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "kwargs,error,name",
    [
        ({"steps_per_input": 0}, ValueError, "steps_per_input"),
        ({"steps_per_input": 1.5}, ValueError, "steps_per_input"),
        ({"num_steps": -2}, ValueError, "num_steps"),
        ({"num_steps": True}, ValueError, "num_steps"),
        ({"buffered": "yes"}, TypeError, "buffered"),
        ({"buffered": False}, ValueError, "steps_per_input"),
        ({"buffer_bias_init": "1"}, TypeError, "buffer_bias_init"),
        ({"strength_regularization": -1.0}, ValueError, "strength_regularization"),
        ({"strength_noise": -1.0}, ValueError, "strength_noise"),
        ({"strength_noise": 1.0, "seed": "7"}, TypeError, "seed"),
        ({"pop_bias_init": None}, TypeError, "pop_bias_init"),
        ({"memory_width": 0}, ValueError, "memory_width"),
        ({"output_offset": 2}, ValueError, "output_offset"),
        ({"output_offset": True}, ValueError, "output_offset"),
        ({"output_offset": 1, "buffered": False, "steps_per_input": 1}, ValueError, "output_offset"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, error, name):
    with pytest.raises(error, match=name):
        BufferedStackRNN(keras.layers.LSTMCell(4), **kwargs)


@pytest.mark.parametrize("controller", [keras.layers.Dense(3), keras.layers.LSTM(3), "lstm"])
def test_non_cell_controller_is_rejected(controller):
    with pytest.raises(TypeError, match="controller"):
        BufferedStackRNN(controller)


def test_linear_controller_needs_sizes_and_inputs_need_features():
    with pytest.raises(ValueError, match="output_size"):
        BufferedStackRNN(LinearController())
    with pytest.raises(ValueError, match="features"):
        linear_layer().build((2, 5))
    with pytest.raises(ValueError, match="output_length"):
        linear_layer()(np.zeros((1, 2, FEATURES), "float32"), output_length=0)
