"""The experiment app's batches: the TFDS stream's examples, padded to buckets, re-readable."""

import itertools

import numpy as np
import pytest
import tensorflow as tf

import tfds_tasks
from keras_neural_memory.experiments import data


def _stream_batches(setup, split, count, seed, batch_size):
    """The same batches built with `tfds_tasks.stream` and `tf.data`, to compare against."""
    ds = tfds_tasks.stream(setup.name, seed=seed, config=setup.settings, split=split, training_sequences=True)
    ds = ds.take(count).map(lambda e: (e["inputs"], e["targets"], e["loss_mask"])).padded_batch(batch_size)
    for batch in ds:
        steps = int(batch[0].shape[1])
        yield tuple(np.pad(x.numpy(), [(0, 0), (0, data.pad_to_bucket(steps) - steps)]) for x in batch)


@pytest.mark.parametrize(
    "task, split", [("sequence_reversal", "train"), ("itg_svo_sov", "test"), ("cumulative_xor", "train")]
)
def test_examples_are_the_tfds_stream_padded_to_buckets(task, split):
    setup = data.task_setup(task, "quick")
    got = list(data.examples(setup, split, 23, seed=3, batch_size=5))
    want = list(_stream_batches(setup, split, 23, 3, 5))
    assert len(got) == len(want) == 5  # the last batch holds the remaining 3
    for got_batch, want_batch in zip(got, want):
        assert got_batch[0].shape[1] % 16 == 0
        for g, w in zip(got_batch, want_batch):
            np.testing.assert_array_equal(np.asarray(g), w)
            assert np.asarray(g).dtype == w.dtype


def test_batches_differ_in_length_and_each_pass_reads_the_same():
    setup = data.task_setup("sequence_reversal", "quick")
    batches = data.examples(setup, "train", 40, seed=0, batch_size=2)
    first, second = list(batches), list(batches)
    assert len({b[0].shape[1] for b in first}) > 1  # the signature must leave the time axis open
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a[0], b[0])


def test_ordered_batches_restart_skip_and_end():
    made = []

    def make_batches():
        made.append(1)
        return iter(range(10))

    batches = data.OrderedBatches(make_batches, num_batches=10)
    assert [batches[i] for i in (0, 1, 2)] == [0, 1, 2] and len(made) == 1
    assert batches[5] == 5 and len(made) == 1  # skipped forward, same iterator
    assert batches[1] == 1 and len(made) == 2  # an earlier batch starts again
    with pytest.raises(IndexError):
        batches[10]
    assert list(batches) == list(range(10))
    assert data.OrderedBatches(make_batches, None).num_batches is None


def test_ordered_batches_train_a_model():
    import keras

    def make_batches():
        rng = np.random.default_rng(0)
        for _ in range(4):
            x = rng.normal(size=(8, 3)).astype("float32")
            yield x, x.sum(axis=1, keepdims=True)

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(data.OrderedBatches(make_batches, 4), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


def test_training_batches_continue_across_epochs_in_order():
    setup = data.task_setup("sequence_copy", "quick")
    batches = list(itertools.islice(data.training_batches(setup, seed=1, batch_size=3, first_epoch=2, steps=2), 4))
    for epoch, pair in ((2, batches[:2]), (3, batches[2:])):
        want = list(data.examples(setup, "train", 6, seed=data.epoch_seed(1, epoch), batch_size=3))
        for got_batch, want_batch in zip(pair, want):
            np.testing.assert_array_equal(np.asarray(got_batch[0]), np.asarray(want_batch[0]))


def test_a_curriculum_trains_short_sources_first_then_the_training_lengths():
    setup = data.task_setup("sequence_copy", "quick")  # training lengths 4-8
    regimes = data.curriculum_regimes(setup, 3)
    assert [(regime.min_length, regime.max_length) for regime in regimes] == [(1, 2), (1, 4), (1, 6)]
    batches = data.training_batches(setup, seed=1, batch_size=50, first_epoch=0, steps=2, curriculum_epochs=3)
    batches = list(itertools.islice(batches, 8))
    # A copy's scored targets are its source and the end marker.
    lengths = [set(np.asarray(batch[2]).sum(axis=1).astype(int) - 1) for batch in batches]
    for epoch, (low, high) in enumerate([(1, 2), (1, 4), (1, 6), (4, 8)]):
        seen = lengths[2 * epoch] | lengths[2 * epoch + 1]
        assert seen == set(range(low, high + 1)), (epoch, seen)
    # Resumed at any epoch, the batches are those of the uninterrupted run.
    resumed = data.training_batches(setup, seed=1, batch_size=50, first_epoch=2, steps=2, curriculum_epochs=3)
    for got, want in zip(itertools.islice(resumed, 4), batches[4:]):
        np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]))


def test_a_curriculum_starts_where_the_task_can_sample():
    assert [(r.min_length, r.max_length) for r in data.curriculum_regimes(data.task_setup("bigram_flip", "default"), 2)] \
        == [(2, 4), (2, 10)]  # even lengths only
    assert data.curriculum_regimes(data.task_setup("itg_svo_sov", "default"), 1)[0].max_length == 3  # a sentence
    with pytest.raises(data.UsageError, match="--curriculum-epochs: task sequence_copy has no training lengths shorter than 1"):
        data.curriculum_regimes(data.task_setup("sequence_copy", "quick", train_lengths=(1, 1)), 2)


def test_the_generators_and_app_data_need_no_tensorflow():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['tensorflow'] = None; sys.modules['tensorflow_datasets'] = None\n"
        "import tfds_tasks\n"
        "from keras_neural_memory.experiments import data\n"
        "setup = data.task_setup('sequence_reversal', 'quick')\n"
        "batch = next(iter(data.training_sequences(setup, 'train', 0)))\n"
        "assert batch['inputs'][0] == tfds_tasks.joint.BOS\n"
        "try:\n    tfds_tasks.BUILDERS\nexcept ImportError as e:\n    print(e)\n"
    )
    env = {"KERAS_BACKEND": "jax", "PATH": ""}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "tfds_tasks.BUILDERS needs TFDS; install it with: pip install tensorflow-datasets" in out.stdout
