"""`StrengthNoiseScheduler`: the strength noise of each epoch is the schedule's.

Checked by what training does, on both backends and under XLA: with a
learning rate of 0, an epoch's training loss equals the model's inference
loss exactly when that epoch adds no noise.
"""

import keras
import numpy as np
import pytest

from keras_neural_memory import DequeCell, MemoryRNN, StackCell, StrengthNoiseScheduler
from keras_neural_memory.validation import InvalidArgumentError


def _model(strength_noise=1.0, jit_compile=True, run_eagerly=False):
    keras.utils.set_random_seed(0)
    cell = DequeCell(keras.layers.LSTMCell(6), memory_width=3, strength_noise=strength_noise, seed=1)
    model = keras.Sequential([keras.Input((7, 4)), MemoryRNN(cell), keras.layers.Dense(2)])
    # A learning rate of 0: every epoch sees the same weights.
    model.compile(keras.optimizers.SGD(0.0), "mse", jit_compile=jit_compile, run_eagerly=run_eagerly)
    return model


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(8, 7, 4)).astype("float32"), rng.normal(size=(8, 2)).astype("float32")


def test_each_epoch_trains_with_the_noise_the_schedule_gives():
    model = _model()
    x, y = _data()
    clean = model.evaluate(x, y, batch_size=8, verbose=0)
    noises = {0: 1.0, 1: 0.0, 2: 0.5, 3: 0.0}
    history = model.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0,
                        callbacks=[StrengthNoiseScheduler(lambda epoch, noise: noises[epoch])])  # fmt: skip
    losses = history.history["loss"]
    for epoch, noise in noises.items():
        if noise:
            assert abs(losses[epoch] - clean) > 1e-4, (epoch, losses, clean)
        else:
            np.testing.assert_allclose(losses[epoch], clean, rtol=1e-5)
    assert model.layers[0].cell.strength_noise == 0.0
    # The model still trains, saves and predicts as before.
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=8, verbose=0), clean, rtol=1e-6)


def test_noise_is_drawn_only_in_noisy_epochs_and_a_resumed_schedule_turns_it_on_again(capsys):
    model = _model(jit_compile=False, run_eagerly=True)
    cell = model.layers[0].cell
    draws = []
    draw = cell.draw_strength_noise
    cell.draw_strength_noise = lambda sequences: draws.append(1) or draw(sequences)
    x, y = _data()
    per_epoch = []
    count = keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: per_epoch.append(len(draws)))
    off_after_one = StrengthNoiseScheduler(lambda epoch, noise: 1.0 if epoch < 1 else 0.0, verbose=1)
    model.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=[off_after_one, count])
    assert per_epoch == [2, 2, 2]  # 2 batches of noise in epoch 0, none after
    assert "Epoch 2: StrengthNoiseScheduler setting strength noise to 0." in capsys.readouterr().out
    # A second fit (a resumed run) starting in a noisy epoch turns the noise back on.
    model.fit(x, y, batch_size=4, epochs=2, initial_epoch=0, verbose=0, callbacks=[off_after_one, count])
    assert per_epoch[3:] == [4, 4]
    assert cell.strength_noise == 0.0


def test_the_buffered_network_and_its_stack_follow_the_schedule():
    from keras_neural_memory import BufferedStackRNN, LinearController

    inputs = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(4, 3, mask_zero=True)(inputs)
    network = BufferedStackRNN(LinearController(), output_size=4, memory_width=2, strength_noise=1.0, seed=0)
    model = keras.Model(inputs, network(x))
    model.compile(keras.optimizers.SGD(0.0), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    ids = np.array([[1, 2, 3], [3, 1, 0]], "int32")
    model.fit(ids, ids, epochs=2, verbose=0, callbacks=[StrengthNoiseScheduler(lambda epoch, noise: noise / 2)])
    assert network.strength_noise == 0.25 and network.cell.stack_cell.strength_noise == 0.25


def test_errors_name_the_argument_and_the_fix():
    with pytest.raises(InvalidArgumentError, match="`schedule` must be a function"):
        StrengthNoiseScheduler(0.5)
    with pytest.raises(InvalidArgumentError, match="`verbose` must be 0 or 1"):
        StrengthNoiseScheduler(lambda epoch, noise: noise, verbose=2)
    x, y = _data()
    quiet = _model(strength_noise=0.0)
    with pytest.raises(InvalidArgumentError, match="no memory layer built with strength_noise > 0"):
        quiet.fit(x, y, epochs=1, verbose=0, callbacks=[StrengthNoiseScheduler(lambda epoch, noise: 0.5)])
    for bad in (-1.0, float("nan"), "0.5", None):
        with pytest.raises(InvalidArgumentError, match=r"returned .*; it must return a finite number >= 0"):
            _model().fit(x, y, epochs=1, verbose=0, callbacks=[StrengthNoiseScheduler(lambda epoch, noise: bad)])


def test_a_stack_cell_inside_keras_rnn_is_found_too():
    cell = StackCell(keras.layers.LSTMCell(4), memory_width=2, strength_noise=0.5, seed=0)
    model = keras.Sequential([keras.Input((5, 3)), MemoryRNN(cell), keras.layers.Dense(1)])
    model.compile("rmsprop", "mse")
    x, y = np.zeros((4, 5, 3), "float32"), np.zeros((4, 1), "float32")
    model.fit(x, y, epochs=1, verbose=0, callbacks=[StrengthNoiseScheduler(lambda epoch, noise: 0.0)])
    assert cell.strength_noise == 0.0


def test_a_schedule_may_return_numpy_numbers():
    x, y = _data()
    model = _model()
    model.fit(x, y, epochs=1, verbose=0, callbacks=[StrengthNoiseScheduler(lambda epoch, noise: np.float32(0.25))])
    noisy = [layer for layer in model._flatten_layers() if getattr(layer, "strength_noise", 0)]
    assert noisy and all(type(layer.strength_noise) is float and layer.strength_noise == 0.25 for layer in noisy)


def test_a_model_trained_with_a_schedule_saves_and_loads(tmp_path):
    model = _model()
    x, y = _data()
    model.fit(x, y, epochs=2, verbose=0, callbacks=[StrengthNoiseScheduler(lambda epoch, noise: 1.0 if epoch < 1 else 0.0)])
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    # Saved as it ended: without noise, predicting exactly as before.
    assert loaded.layers[0].cell.strength_noise == 0.0
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
