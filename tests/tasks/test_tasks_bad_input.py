"""Bad input raises a ValueError that names the problem; nothing is clamped."""

import pytest
import tensorflow_datasets as tfds

import tfds_tasks
from tfds_tasks import generators, joint
from tfds_tasks.generators import Regime, TaskSettings


@pytest.mark.parametrize(
    "call",
    [
        lambda: generators.make_task("sequence_kopy", Regime(1, 2)),
        lambda: generators.generate("nope"),
        lambda: tfds_tasks.stream("nope"),
        lambda: joint.layout_for("nope"),
    ],
)
def test_unknown_task_name(call):
    with pytest.raises(ValueError, match="unknown task name"):
        call()


def test_min_greater_than_max():
    with pytest.raises(ValueError, match="min_length=9 > max_length=8"):
        Regime(9, 8)
    with pytest.raises(ValueError, match="min_length=9 > max_length=8"):
        tfds_tasks.BUILDERS["sequence_copy"].make_config("bad", train_lengths=(9, 8))


@pytest.mark.parametrize("bad", [0, -3])
def test_min_below_one(bad):
    with pytest.raises(ValueError, match="min_length must be >= 1"):
        Regime(bad, 8)


def test_non_integer_length():
    with pytest.raises(ValueError, match="max_length must be an int"):
        Regime(1, 8.5)


@pytest.mark.parametrize("lengths", [(7, 64), (8, 65)])
def test_odd_bigram_flip_length(lengths):
    with pytest.raises(ValueError, match="even source lengths.*is odd"):
        generators.make_task("bigram_flip", Regime(*lengths))


@pytest.mark.parametrize(
    "name, size, minimum",
    [("sequence_copy", 1, 2), ("sequence_reversal", 0, 2), ("itg_svo_sov", 2, 3),
     ("itg_gender_conjugation", 3, 4)],
)
def test_vocabulary_too_small(name, size, minimum):
    with pytest.raises(ValueError, match=f"vocabulary too small: vocab_size={size}, needs at least {minimum}"):
        generators.make_task(name, Regime(8, 16), vocab_size=size)


def test_vocabulary_for_fixed_alphabet():
    with pytest.raises(ValueError, match="fixed vocabulary"):
        generators.make_task("cumulative_xor", Regime(4, 4), vocab_size=3)


def test_unknown_config():
    with pytest.raises(ValueError, match="unknown config 'huge'"):
        generators.settings("sequence_copy", "huge")
    with pytest.raises(ValueError, match="unknown config 'huge'"):
        tfds_tasks.stream("sequence_copy", config="huge")
    with pytest.raises(ValueError, match="unknown config 'huge'"):
        tfds_tasks.BUILDERS["sequence_copy"].make_config("x", based_on="huge")
    with pytest.raises(ValueError, match="BuilderConfig huge not found"):
        tfds.builder("sequence_copy/huge")


def test_unknown_split_and_layout():
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        tfds_tasks.stream("sequence_copy", split="dev")
    with pytest.raises(ValueError, match="unknown layout 'flat'"):
        tfds_tasks.stream("sequence_copy", training_sequences=True, layout="flat")


def test_grammar_regimes():
    with pytest.raises(ValueError, match="needs a max_depth"):
        generators.make_task("parenthesis_prediction", Regime(2, 20))
    with pytest.raises(ValueError, match=r"no string with length in \[3, 3\] has derivation depth <= 6"):
        generators.make_task("parenthesis_prediction", Regime(3, 3, max_depth=6))
    with pytest.raises(ValueError, match="has no depth"):
        generators.make_task("sequence_copy", Regime(2, 4, max_depth=3))
    with pytest.raises(ValueError, match="below the shortest sentence"):
        generators.make_task("itg_svo_sov", Regime(1, 2))


def test_split_too_large_for_its_range():
    # Length 1 has two strings; 30 training draws take both, so validation
    # has no unseen source left to draw (it is not silently shrunk).
    settings = TaskSettings(30, 5, 1, Regime(1, 1), Regime(4, 4))
    with pytest.raises(ValueError, match="cannot draw 5 validation examples"):
        generators.generate("cumulative_xor", settings)


def test_bad_sizes_and_seed():
    with pytest.raises(ValueError, match="train_size must be >= 0"):
        TaskSettings(-1, 1, 1, Regime(1, 2), Regime(3, 4))
    with pytest.raises(ValueError, match="seed must be an int"):
        TaskSettings(1, 1, 1, Regime(1, 2), Regime(3, 4), seed="0")


def test_joint_rejects_out_of_range_ids():
    with pytest.raises(ValueError, match=r"source ids must lie in \[0, 4\)"):
        joint.make_joint_sequence([4], [0], 4, 4)
    with pytest.raises(ValueError, match="target_mask has length 1, target has 2"):
        joint.make_joint_sequence([0], [0, 1], 4, 4, target_mask=[1])
    with pytest.raises(ValueError, match="aligned layout needs equal lengths"):
        joint.make_aligned_sequence([0], [0, 1], 4, 4)
