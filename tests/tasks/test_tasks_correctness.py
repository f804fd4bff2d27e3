"""Every example of every task is checked against an independent computation."""

import random

import pytest
from tasks_fixtures import cached_splits
from task_checks import check_example
from tasks_checkers import ItgChecker, SVO_LEXICAL, SVO_RULES, GENDER_LEXICAL, GENDER_RULES

from tfds_tasks import generators

NAMES = generators.TASK_NAMES


@pytest.mark.parametrize("config", ["tiny", "default"])
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_every_example_of_every_split_is_correct(name, config):
    settings = generators.settings(name, config)
    train_task, test_task = generators.tasks_for(name, config)
    splits = cached_splits(name, config)
    for split, examples in splits.items():
        assert len(examples) == settings.size(split)
        task = test_task if split == "test" else train_task
        if name.startswith("itg_") and config == "default" and split == "train":
            # The synchronous parse costs ~3 ms a sentence: check every 5th of
            # the 10k training sentences (all of validation, test and tiny).
            examples = examples[::5]
        for ex in examples:
            check_example(name, task, ex, settings.regime(split))


@pytest.mark.parametrize("name", NAMES)
def test_streamed_examples_are_correct(name):
    settings = generators.settings(name, "default")
    task = generators.make_task(name, settings.train, settings.vocab_size)
    stream = generators.sample_stream(name, seed=7)
    for _ in range(200):
        check_example(name, task, next(stream), settings.train)


def test_itg_checker_accepts_the_paper_samples_and_rejects_corruptions():
    svo = ItgChecker(SVO_RULES, SVO_LEXICAL)
    src = "si1 vi28 oi5 oi7 si15 rpi si19 vi16 oi10 oi24".split()
    tgt = "so1 oo5 oo7 so15 rpo so19 vo16 oo10 oo24 vo28".split()
    assert svo.accepts(src, tgt)
    assert not svo.accepts(src, tgt[:-1] + ["vo16"])  # wrong verb moved
    assert not svo.accepts(src, [tgt[-1]] + tgt[:-1])  # verb moved to the front
    assert not svo.accepts(src, ["so1", "vo28"] + tgt[1:-1])  # no reordering
    gender = ItgChecker(GENDER_RULES, GENDER_LEXICAL)
    # The paper's sample with the paper's class names (en -> ne, em -> me).
    src = "we11 the ne19 and the me17".split()
    assert gender.accepts(src, "wg11 das ng19 und der mg17".split())
    assert not gender.accepts(src, "wg11 der ng19 und der mg17".split())  # wrong gender
    assert not gender.accepts(src, "wg11 das ng19 oder der mg17".split())  # and -> oder
    assert not gender.accepts("the me1 and".split(), "der mg1 und".split())  # ungrammatical


def test_itg_grammars_cover_what_the_paper_describes():
    """Single-noun NPs and verb-initial sentences exist (the two additions)."""
    splits = cached_splits("itg_gender_conjugation", "default")
    task = generators.tasks_for("itg_gender_conjugation", "default")[0]
    texts = [task.source_text(ex).split() for ex in splits["train"]]
    assert any(t[0].startswith("we") for t in texts)  # A -> V
    # "the me1 we2 ...": a one-noun subject right before a verb needs B -> S
    # (without it the shortest noun phrase is "S and S").
    assert any(t[0] in ("the", "a") and t[2].startswith("we") for t in texts)


@pytest.mark.parametrize("name", ["itg_svo_sov", "itg_gender_conjugation"])
def test_itg_terminal_classes_are_balanced(name):
    task = generators.make_task(name, generators.Regime(8, 64))
    classes = {}
    for w in task.source_vocab:
        prefix = w.rstrip("0123456789")
        if prefix != w:
            classes[prefix] = classes.get(prefix, 0) + 1
    k = len(classes)
    assert sum(classes.values()) == 128
    assert all(abs(n - 128 / k) < 1 for n in classes.values()), classes
    # Each word of a class is about equally likely.
    rng = random.Random(0)
    counts = {}
    for _ in range(300):
        for w in task.source_text(task.sample(rng)).split():
            counts[w] = counts.get(w, 0) + 1
    si = [counts.get(w, 0) for w in task.source_vocab if w.startswith(("si", "me"))]
    assert min(si) > 0.3 * (sum(si) / len(si))
