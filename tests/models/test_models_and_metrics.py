"""Model builders, the greedy decoder, and coarse/fine accuracy against it."""

import keras
import numpy as np
import pytest

import tfds_tasks
from keras_neural_memory import CoarseAccuracy, FineAccuracy, MaskedAccuracy
from keras_neural_memory.models import build_hao_model, build_transducer, parameter_table, transduce

S, T = 3, 3
LAYOUT = tfds_tasks.Layout("joint", S, T)
PAPER = tfds_tasks.Layout("joint", 128, 128)


def reversal_batch(rng, n, min_len, max_len):
    sources = [list(rng.integers(0, S, rng.integers(min_len, max_len + 1))) for _ in range(n)]
    seqs = [tfds_tasks.make_joint_sequence(s, s[::-1], S, T) for s in sources]
    width = max(len(q["inputs"]) for q in seqs)
    pad = lambda key: np.stack([np.pad(q[key], (0, width - len(q[key]))) for q in seqs])
    return sources, pad("inputs"), pad("targets"), pad("loss_mask")


@pytest.fixture(scope="module")
def partly_trained():
    """A Stack-LSTM trained briefly on reversal: right on some prefixes, not all."""
    keras.utils.set_random_seed(1)
    model = build_transducer(LAYOUT, memory="stack", hidden_size=16, memory_width=8, embedding_dim=8)
    model.compile(
        keras.optimizers.Adam(3e-3),
        keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        weighted_metrics=[CoarseAccuracy(), FineAccuracy()],
    )
    rng = np.random.default_rng(0)
    _, x, y, w = reversal_batch(rng, 300, 2, 6)
    model.fit(x, y, sample_weight=w, batch_size=20, epochs=3, verbose=0)
    return model


@pytest.mark.slow
def test_coarse_and_fine_equal_a_real_greedy_decode(partly_trained):
    rng = np.random.default_rng(7)
    sources, x, y, w = reversal_batch(rng, 40, 2, 9)
    coarse, fine = CoarseAccuracy(), FineAccuracy()
    logits = partly_trained.predict(x, verbose=0)
    coarse.update_state(y, logits, sample_weight=w)
    fine.update_state(y, logits)  # the scored positions also follow from y != 0
    decoded = transduce(partly_trained, sources, LAYOUT)
    right, fractions = [], []
    for source, output in zip(sources, decoded):
        want = list(source[::-1]) + ["</s>"]
        got = list(output) + ["</s>"]
        prefix = 0
        while prefix < len(want) and prefix < len(got) and got[prefix] == want[prefix]:
            prefix += 1
        right.append(prefix == len(want))
        fractions.append(prefix / len(want))
    assert 0.0 < np.mean(fractions) < 1.0, "the test needs a model that is partly right"
    np.testing.assert_allclose(float(coarse.result()), np.mean(right), atol=1e-6)
    np.testing.assert_allclose(float(fine.result()), np.mean(fractions), atol=1e-6)


@pytest.mark.slow
def test_decoder_runs_far_past_training_lengths(partly_trained):
    (output,) = transduce(partly_trained, [[0, 1, 2] * 100], LAYOUT, max_target_length=20)
    assert len(output) <= 20 and all(0 <= s < T for s in output)


def test_masked_accuracy_uses_only_scored_positions():
    metric = MaskedAccuracy()
    y_true = np.array([[1, 2, 0], [2, 2, 1]])
    y_pred = np.eye(3)[[[1, 1, 0], [2, 1, 1]]]
    metric.update_state(y_true, y_pred, sample_weight=np.array([[1, 1, 1], [0, 1, 1]]))
    assert float(metric.result()) == pytest.approx(2 / 4)


def test_memory_models_are_parameter_matched_to_a_two_layer_lstm():
    """Appendix D: memory-enhanced LSTMs have about as many parameters as a 2-layer LSTM."""
    lstm2 = build_transducer(PAPER, memory="lstm").count_params()
    assert lstm2 == build_transducer(PAPER, memory="lstm", lstm_layers=2).count_params()  # the default depth
    for memory in ("stack", "queue", "deque"):
        ratio = build_transducer(PAPER, memory=memory).count_params() / lstm2
        assert 0.75 < ratio < 1.25, (memory, ratio)
    table = parameter_table([build_transducer(PAPER, memory="stack")])
    assert "stack_lstm_256" in table


@pytest.mark.parametrize("controller,stack", [("linear", True), ("linear", False), ("lstm", True), ("lstm", False)])
@pytest.mark.slow
def test_hao_models_train_on_the_aligned_layout(tmp_path, controller, stack):
    model = build_hao_model(tfds_tasks.Layout("aligned", 2, 2), controller=controller, stack=stack, memory_width=6)
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), weighted_metrics=[MaskedAccuracy()])
    x = np.random.default_rng(0).integers(1, 3, (8, 12)).astype("int32")
    x[:, 9:] = 0
    history = model.fit(x, x, sample_weight=(x > 0).astype("float32"), epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    one_hot = keras.ops.convert_to_numpy(model.get_layer("one_hot")(np.array([[1, 2]])))
    np.testing.assert_array_equal(one_hot[0], np.eye(3)[[1, 2]])
    path = tmp_path / "hao.keras"
    model.save(path)
    np.testing.assert_array_equal(keras.saving.load_model(path).predict(x, verbose=0), model.predict(x, verbose=0))


def test_models_save_and_load(tmp_path, partly_trained):
    path = tmp_path / "model.keras"
    partly_trained.save(path)
    loaded = keras.saving.load_model(path)
    x = np.array([[1, 3, 4, 2, 7]], "int32")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), partly_trained.predict(x, verbose=0))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"memory": "tape"}, "memory"),
        ({"hidden_size": 0}, "hidden_size"),
        ({"lstm_layers": 1.5, "memory": "lstm"}, "lstm_layers"),
        ({"lstm_layers": 2}, "`lstm_layers` sets the depth of the LSTM baseline, not of memory='stack'"),
    ],
)
def test_bad_builder_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        build_transducer(tfds_tasks.Layout("joint", 4, 4), **kwargs)


def test_builders_and_decoder_take_the_layout_of_their_ids():
    # The vocabulary sizes of the earlier signature fail at once, by name.
    with pytest.raises(TypeError, match=r"`layout` must be a layout of the task's ids, e\.g\. tfds_tasks\.Layout\(\"joint\""):
        build_transducer(4, 4)
    with pytest.raises(ValueError, match="`layout` must be the aligned layout"):
        build_hao_model(tfds_tasks.Layout("joint", 2, 2))
    with pytest.raises(ValueError, match="`layout` must be the joint layout"):
        build_transducer(tfds_tasks.Layout("aligned", 4, 4))
    with pytest.raises(ValueError, match="`source_vocab_size` must be a positive integer; received -1"):
        tfds_tasks.Layout("joint", -1, 4)
    model = build_transducer(tfds_tasks.Layout("joint", 4, 5), hidden_size=4, memory_width=2, embedding_dim=2)
    assert model.input_shape == (None, None) and model.output_shape == (None, None, 2 + 5)
    assert model.get_layer("embedding").input_dim == 3 + 4 + 5
    hao = build_hao_model(tfds_tasks.Layout("aligned", 2, 3), memory_width=2)
    assert hao.get_layer("one_hot").input_dim == 1 + 2 and hao.output_shape == (None, None, 1 + 3)


def test_decoder_rejects_bad_input(partly_trained):
    with pytest.raises(ValueError, match="sources"):
        transduce(partly_trained, [[0, 9]], LAYOUT)
    with pytest.raises(ValueError, match="input ids"):
        transduce(partly_trained, [[0]], tfds_tasks.Layout("joint", 5, T))
    with pytest.raises(ValueError, match="build_transducer"):
        transduce(keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)]), [[0]], LAYOUT)
    with pytest.raises(TypeError, match="`layout`"):
        transduce(partly_trained, [[0]], S, T)
