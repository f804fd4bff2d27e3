"""`strength_noise`: Gaussian noise on the push and pop logits while training.

The noise must enter exactly where the docstring says (added to the logits,
push noise then pop noise per end), only while training and only through
`MemoryRNN`; the fused scan and the generic loop must agree on it; and a
cell with noise must serialise, save and train like any other.
"""

import keras
import numpy as np
import pytest

from keras_neural_memory import DequeCell, MemoryOptions, MemoryRNN, QueueCell, StackCell
from keras_neural_memory.models import build_hao_model, build_transducer
from tfds_tasks import Layout
from tests.core.test_fused_scan import BATCH, FEATURES, LENGTH, outputs_and_gradients

CELLS = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}


def _logit(p):
    p = np.asarray(p, "float64")
    return np.log(p) - np.log1p(-p)


@pytest.mark.parametrize("memory", list(CELLS))
def test_noise_is_added_to_each_push_and_pop_logit(memory):
    cell = CELLS[memory](keras.layers.LSTMCell(5), memory_width=3, strength_noise=1.0, seed=0)
    cell.build((None, FEATURES))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, FEATURES)).astype("float32")
    controller = [np.zeros((BATCH, 5), "float32")] * 2
    reads = rng.normal(size=(BATCH, cell.num_ends * 3)).astype("float32")
    noise = rng.normal(size=(BATCH, cell.strength_noise_size)).astype("float32")
    assert cell.strength_noise_size == 2 * cell.num_ends
    *_, clean_pops, clean_pushes = cell.controls(x, controller, reads, training=False)
    *_, pops, pushes = cell.controls(np.concatenate([x, noise], -1), controller, reads, training=True)
    ends = cell.num_ends
    np.testing.assert_allclose(_logit(pushes) - _logit(clean_pushes), noise[:, :ends], atol=2e-4)
    np.testing.assert_allclose(_logit(pops) - _logit(clean_pops), noise[:, ends:], atol=2e-4)


def _noisy_layer(memory, fused, **cell_options):
    keras.utils.set_random_seed(1)
    cell = CELLS[memory](keras.layers.LSTMCell(6), memory_width=3, strength_noise=1.5, seed=3, **cell_options)
    return MemoryRNN(cell, fused=fused, return_sequences=True, return_state=True)


@pytest.mark.parametrize("memory", list(CELLS))
@pytest.mark.slow
def test_fused_matches_generic_while_training_with_noise(memory):
    x = np.random.default_rng(0).normal(size=(BATCH, LENGTH, FEATURES)).astype("float32")
    fused, generic = _noisy_layer(memory, True), _noisy_layer(memory, False)
    assert fused.runs_fused and not generic.runs_fused
    fused(x[:, :1])
    generic(x[:, :1])
    generic.set_weights(fused.get_weights())
    # The same seed draws the same noise in both, so every output and gradient must agree.
    got, got_grads = outputs_and_gradients(fused, x, training=True)
    want, want_grads = outputs_and_gradients(generic, x, training=True)
    clean, _ = outputs_and_gradients(generic, x)
    assert np.abs(got[0] - clean[0]).max() > 1e-3, "training drew no noise"
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-6)
    for index, (g, w) in enumerate(zip(got_grads, want_grads)):
        scale = max(np.abs(w).max(), 1e-3)
        assert np.abs(g - w).max() <= 1e-5 * scale, f"gradient {index}: {np.abs(g - w).max()} vs scale {scale}"


def test_inference_adds_no_noise():
    x = np.random.default_rng(0).normal(size=(BATCH, LENGTH, FEATURES)).astype("float32")
    keras.utils.set_random_seed(1)
    noisy = MemoryRNN(StackCell(keras.layers.LSTMCell(6), memory_width=3, strength_noise=5.0), return_sequences=True)
    keras.utils.set_random_seed(1)
    plain = MemoryRNN(StackCell(keras.layers.LSTMCell(6), memory_width=3), return_sequences=True)
    np.testing.assert_array_equal(np.asarray(noisy(x)), np.asarray(plain(x)))
    assert np.abs(np.asarray(noisy(x, training=True)) - np.asarray(plain(x))).max() > 1e-3


def test_plain_rnn_refuses_to_train_with_noise_but_runs_inference():
    layer = keras.layers.RNN(QueueCell(keras.layers.LSTMCell(6), strength_noise=1.0), return_sequences=True)
    x = np.zeros((2, 4, FEATURES), "float32")
    assert layer(x).shape == (2, 4, 6)
    with pytest.raises(ValueError, match=r"strength_noise=1.0.*MemoryRNN"):
        layer(x, training=True)


def test_validation_and_config():
    with pytest.raises(ValueError, match=r"`strength_noise` must be a finite number >= 0"):
        StackCell(keras.layers.LSTMCell(4), strength_noise=-1.0)
    with pytest.raises(TypeError, match=r"`seed` must be an integer or None"):
        StackCell(keras.layers.LSTMCell(4), strength_noise=1.0, seed="7")
    cell = DequeCell(keras.layers.LSTMCell(4), strength_noise=0.5, seed=7)
    config = cell.get_config()
    assert (config["strength_noise"], config["seed"]) == (0.5, 7)
    assert DequeCell.from_config(config).get_config() == config
    # Without noise the cell has no seed state, so its saved weights are unchanged.
    assert not hasattr(StackCell(keras.layers.LSTMCell(4)), "seed_generator")


@pytest.mark.slow
def test_trains_saves_and_loads_under_jit_compile_with_masking(tmp_path):
    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(8, 5, mask_zero=True)(inputs)
    cell = DequeCell(keras.layers.LSTMCell(6), memory_width=3, strength_noise=1.0, seed=0)
    model = keras.Model(inputs, keras.layers.Dense(8)(MemoryRNN(cell, return_sequences=True)(x)))
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
    tokens = np.random.default_rng(0).integers(1, 8, (8, 9)).astype("int32")
    tokens[:4, 6:] = 0
    history = model.fit(tokens, tokens, epochs=3, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert history.history["loss"][-1] < history.history["loss"][0]
    path = tmp_path / "noisy.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.layers[2].cell.strength_noise == 1.0
    np.testing.assert_array_equal(loaded.predict(tokens, verbose=0), model.predict(tokens, verbose=0))
    loaded.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
    assert np.isfinite(loaded.fit(tokens, tokens, epochs=1, verbose=0).history["loss"]).all()


@pytest.mark.slow
def test_mixed_float16_trains_with_noise():
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        inputs = keras.Input((None,), dtype="int32")
        x = keras.layers.Embedding(8, 5, mask_zero=True)(inputs)
        layer = MemoryRNN(StackCell(keras.layers.LSTMCell(6), strength_noise=1.0, seed=0), return_sequences=True)
        model = keras.Model(inputs, keras.layers.Dense(8, dtype="float32")(layer(x)))
        model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        tokens = np.random.default_rng(0).integers(1, 8, (8, 9)).astype("int32")
        assert np.isfinite(model.fit(tokens, tokens, epochs=2, verbose=0).history["loss"]).all()
    finally:
        keras.mixed_precision.set_global_policy("float32")


def test_model_builders_pass_it_to_the_memory_and_refuse_it_without_one():
    noisy = MemoryOptions(strength_noise=0.5)
    transducer = build_transducer(Layout("joint", 4, 4), memory="queue", hidden_size=8, memory_width=4, memory_options=noisy)
    assert transducer.get_layer("queue_rnn").cell.strength_noise == 0.5
    hao = build_hao_model(Layout("aligned", 2, 2), controller="linear", memory_options=noisy)
    assert hao.get_layer("stack_rnn").cell.strength_noise == 0.5
    with pytest.raises(ValueError, match=r"`strength_noise` applies to memory models, not memory='lstm'"):
        build_transducer(Layout("joint", 4, 4), memory="lstm", memory_options=noisy)
    with pytest.raises(ValueError, match=r"`strength_noise` applies to memory models, not memory='lstm'"):
        build_hao_model(Layout("aligned", 2, 2), stack=False, memory_options=noisy)
