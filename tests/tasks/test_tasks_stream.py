"""The infinite seeded tf.data training stream."""

import numpy as np
import pytest
from task_checks import check_example

import tfds_tasks
from tfds_tasks import generators


def take(ds, n):
    return [{k: v.numpy().tolist() for k, v in ex.items()} for ex in ds.take(n)]


@pytest.mark.parametrize("name", generators.TASK_NAMES)
def test_stream_is_seeded_and_correct(name):
    ds = tfds_tasks.stream(name, seed=11, config="tiny")
    first = take(ds, 30)
    assert first == take(ds, 30)  # re-iterating restarts the same stream
    assert first == take(tfds_tasks.stream(name, seed=11, config="tiny"), 30)
    assert first != take(tfds_tasks.stream(name, seed=12, config="tiny"), 30)
    task = generators.tasks_for(name, "tiny")[0]
    regime = generators.settings(name, "tiny").train
    for item in first:
        ex = generators.Example(
            tuple(item["source"]), tuple(item["target"]),
            tuple(item["eval_mask"]) if "eval_mask" in item else None,
        )
        check_example(name, task, ex, regime)


def test_stream_is_infinite_and_fresh():
    """Far more examples than any fixed split, with (almost) no repeats."""
    items = take(tfds_tasks.stream("sequence_copy", seed=0), 2000)
    assert len(items) == 2000
    assert len({tuple(x["source"]) for x in items}) == 2000


def test_stream_test_regime():
    items = take(tfds_tasks.stream("sequence_reversal", seed=0, split="test"), 50)
    assert all(65 <= len(x["source"]) <= 128 for x in items)


def test_stream_training_sequences_batch():
    ds = tfds_tasks.stream("sequence_reversal", seed=0, config="tiny", training_sequences=True)
    batch = next(iter(ds.padded_batch(10)))
    assert set(batch) == {"inputs", "targets", "loss_mask"}
    assert batch["inputs"].shape[0] == 10
    mask = batch["loss_mask"].numpy()
    assert np.all(batch["targets"].numpy()[mask == 0] == 0)
    aligned = tfds_tasks.stream("cumulative_xor", config="tiny", training_sequences=True)
    item = next(iter(aligned))
    assert item["inputs"].shape == item["targets"].shape == (6,)
