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


def test_a_stream_samples_with_the_settings_rule_probabilities():
    """No relative clauses (S and O never take their `S rpi S VT` rule): no `rpi` in any source."""
    import dataclasses

    shipped = generators.settings("itg_svo_sov", "tiny")
    no_clauses = dataclasses.replace(shipped, rule_probabilities={"S": [0.5, 0, 0.5], "O": (0.55, 0, 0.45)})
    # Kept as sorted pairs of tuples, so the settings stay hashable and compare by value.
    assert no_clauses.rule_probabilities == (("O", (0.55, 0, 0.45)), ("S", (0.5, 0, 0.5)))
    assert hash(no_clauses) == hash(dataclasses.replace(shipped, rule_probabilities={"O": [0.55, 0, 0.45], "S": [0.5, 0, 0.5]}))
    task = generators.tasks_for("itg_svo_sov", no_clauses)[0]
    assert task.rule_probabilities["S"] == (0.5, 0.0, 0.5)
    rpi = task.source_vocab.index("rpi")
    stream = generators.sample_stream("itg_svo_sov", 0, no_clauses)
    examples = [next(stream) for _ in range(200)]
    assert all(rpi not in example.source for example in examples)
    for example in examples:
        check_example("itg_svo_sov", task, example, no_clauses.train)
    shipped_sources = [next(generators.sample_stream("itg_svo_sov", seed, shipped)).source for seed in range(50)]
    assert any(rpi in source for source in shipped_sources)


def test_rule_probabilities_are_refused_for_a_task_without_a_grammar():
    with pytest.raises(ValueError, match="task sequence_copy has no grammar; only itg_svo_sov, itg_gender_conjugation"):
        generators.make_task("sequence_copy", generators.Regime(2, 4), 4, {"S": (1.0,)})
