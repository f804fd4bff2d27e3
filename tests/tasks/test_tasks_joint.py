"""The joint (and aligned) training-sequence helpers and their tf.data twin."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from tfds_tasks import generators, joint


def test_documented_example():
    seq = joint.make_joint_sequence([5, 7], [7, 5], 10, 10)
    assert seq["inputs"].tolist() == [1, 8, 10, 2, 20, 18]
    assert seq["targets"].tolist() == [0, 0, 0, 9, 7, 1]
    assert seq["loss_mask"].tolist() == [0, 0, 0, 1, 1, 1]
    assert seq["inputs"].dtype == np.int32 and seq["loss_mask"].dtype == np.float32


@settings(max_examples=200, deadline=None)
@given(
    s_size=st.integers(1, 20),
    t_size=st.integers(1, 20),
    data=st.data(),
)
def test_joint_sequence_invariants(s_size, t_size, data):
    src = data.draw(st.lists(st.integers(0, s_size - 1), min_size=1, max_size=30))
    tgt = data.draw(st.lists(st.integers(0, t_size - 1), min_size=0, max_size=30))
    seq = joint.make_joint_sequence(src, tgt, s_size, t_size)
    n, m = len(src), len(tgt)
    inputs, targets, mask = seq["inputs"], seq["targets"], seq["loss_mask"]
    assert len(inputs) == len(targets) == len(mask) == n + m + 2
    # Reading: <s> source ||| target, each symbol in its own id range.
    assert inputs[0] == joint.BOS and inputs[n + 1] == joint.SEP
    assert all(3 <= i < 3 + s_size for i in inputs[1 : n + 1])
    assert all(3 + s_size <= i < 3 + s_size + t_size for i in inputs[n + 2 :])
    assert inputs.max() < joint.input_vocab_size(s_size, t_size)
    # Predicting: only target symbols and </s>, each the next joint symbol.
    assert mask.sum() == m + 1 and not mask[: n + 1].any()
    assert not targets[mask == 0].any()
    assert targets[-1] == joint.EOS
    assert targets.max() < joint.output_vocab_size(t_size)
    assert joint.target_ids_from_outputs(targets[n + 1 :]) == tgt
    # Teacher forcing: the symbol predicted at t is the one read at t + 1.
    for t in range(n + 1, n + m + 1):
        assert inputs[t + 1] - 3 - s_size == targets[t] - 2


def test_target_mask_weights_only_target_symbols():
    seq = joint.make_joint_sequence([0, 1], [1, 0, 1], 2, 2, target_mask=[0, 1, 1])
    assert seq["loss_mask"].tolist() == [0, 0, 0, 0, 1, 1, 1]


def test_aligned_sequence():
    seq = joint.make_aligned_sequence([0, 1, 1], [0, 1, 0], 2, 2, [0, 1, 1])
    assert seq["inputs"].tolist() == [1, 2, 2]
    assert seq["targets"].tolist() == [1, 2, 1]
    assert seq["loss_mask"].tolist() == [0, 1, 1]
    assert joint.target_ids_from_outputs(seq["targets"], "aligned") == [0, 1, 0]


@pytest.mark.parametrize("name", generators.TASK_NAMES)
def test_tf_map_fn_equals_numpy_helper(name):
    layout = joint.layout_for(name)
    task = generators.tasks_for(name, "tiny")[0]
    s_size, t_size = len(task.source_vocab), len(task.target_vocab)
    stream = generators.sample_stream(name, seed=3, config="tiny")
    fn = joint.training_map_fn(s_size, t_size, layout)
    for _ in range(5):
        ex = next(stream)
        item = {"source": tf.constant(ex.source), "target": tf.constant(ex.target)}
        if ex.eval_mask is not None:
            item["eval_mask"] = tf.constant(ex.eval_mask)
        got = fn(item)
        if layout == "joint":
            want = joint.make_joint_sequence(ex.source, ex.target, s_size, t_size, ex.eval_mask)
        else:
            want = joint.make_aligned_sequence(ex.source, ex.target, s_size, t_size, ex.eval_mask)
        for key in ("inputs", "targets", "loss_mask"):
            np.testing.assert_array_equal(got[key].numpy(), want[key])


def test_layouts_follow_the_papers():
    grefenstette = {"sequence_copy", "sequence_reversal", "bigram_flip", "itg_svo_sov",
                    "itg_gender_conjugation"}
    for name in generators.TASK_NAMES:
        assert joint.layout_for(name) == ("joint" if name in grefenstette else "aligned")


def test_vocab_names_line_up_with_ids():
    names = joint.input_vocab(["x0", "x1"], ["y0"])
    seq = joint.make_joint_sequence([1], [0], 2, 1)
    assert [names[i] for i in seq["inputs"]] == ["<s>", "x1", "|||", "tgt:y0"]
    out = joint.output_vocab(["y0"])
    assert [out[i] for i in seq["targets"][seq["loss_mask"] > 0]] == ["y0", "</s>"]


@pytest.mark.parametrize("name", ["itg_svo_sov", "sequence_copy", "cumulative_xor"])
def test_model_ids_keep_zero_for_padding_although_symbol_zero_is_real(name):
    """`source` label 0 is a real symbol (`rpi` in itg_svo_sov); after the layout map, no symbol has id 0.

    So an `Embedding(mask_zero=True)` on the mapped ids masks only padding,
    and masks nothing when applied to a sequence that holds symbol 0.
    """
    layout = joint.layout_for(name)
    task = generators.tasks_for(name, "tiny")[0]
    s_size, t_size = len(task.source_vocab), len(task.target_vocab)
    assert name != "itg_svo_sov" or task.source_vocab[0] == "rpi"
    fn = joint.training_map_fn(s_size, t_size, layout)
    got = fn({"source": tf.constant([0, 0, 1]), "target": tf.constant([0, 1, 0])})
    assert 0 not in got["inputs"].numpy().tolist()
    mask = tf.keras.layers.Embedding(64, 2, mask_zero=True).compute_mask(got["inputs"][None])
    assert bool(tf.reduce_all(mask))
