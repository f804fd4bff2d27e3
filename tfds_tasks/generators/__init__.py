"""Pure-Python task generators (no TensorFlow import anywhere in here).

Example:
  >>> from tfds_tasks import generators
  >>> splits = generators.generate("sequence_copy", "tiny")
  >>> len(splits["train"]), len(splits["test"])
  (20, 5)
"""

from __future__ import annotations

import random
from typing import Iterator, Mapping, Sequence

from tfds_tasks.generators.base import Example, Regime, Task, derive_seed, iterate
from tfds_tasks.generators.bigram_flip import BigramFlip
from tfds_tasks.generators.boolean_formula import BooleanFormula
from tfds_tasks.generators.configs import DESCRIPTIONS, SETTINGS
from tfds_tasks.generators.cumulative_xor import CumulativeXor
from tfds_tasks.generators.delayed_xor import DelayedXor
from tfds_tasks.generators.itg import ItgTask
from tfds_tasks.generators.itg_gender_conjugation import ItgGenderConjugation
from tfds_tasks.generators.itg_svo_sov import ItgSvoSov
from tfds_tasks.generators.parenthesis_prediction import ParenthesisPrediction
from tfds_tasks.generators.sequence_copy import SequenceCopy
from tfds_tasks.generators.sequence_reversal import SequenceReversal
from tfds_tasks.generators.splits import TaskSettings, generate_splits
from tfds_tasks.generators.string_reversal import StringReversal
from tfds_tasks.generators.subject_auxiliary_agreement import SubjectAuxiliaryAgreement

TASKS: dict[str, type[Task]] = {
    cls.name: cls
    for cls in (
        SequenceCopy,
        SequenceReversal,
        BigramFlip,
        ItgSvoSov,
        ItgGenderConjugation,
        StringReversal,
        CumulativeXor,
        DelayedXor,
        ParenthesisPrediction,
        BooleanFormula,
        SubjectAuxiliaryAgreement,
    )
}

TASK_NAMES: tuple[str, ...] = tuple(TASKS)


def task_class(name: str) -> type[Task]:
    """Returns the generator class of a task.

    Args:
      name: a task name, e.g. ``"itg_svo_sov"``.

    Returns:
      The :class:`Task` subclass.

    Raises:
      ValueError: for an unknown task name.
    """
    if name not in TASKS:
        raise ValueError(f"unknown task name {name!r}; known tasks: {', '.join(TASK_NAMES)}")
    return TASKS[name]


def make_task(
    name: str,
    regime: Regime,
    vocab_size: int | None = None,
    rule_probabilities: Mapping[str, Sequence[float]] | None = None,
) -> Task:
    """Builds the sampler of a task for one regime.

    Args:
      name: the task name.
      regime: the length/depth range.
      vocab_size: content-vocabulary size (tasks with a configurable one).
      rule_probabilities: ``{nonterminal: (p1, p2, ...)}`` replacing the
        grammar's rule probabilities (the ITG tasks only); None keeps them.

    Raises:
      ValueError: for an unknown task, a bad regime or vocabulary, or
        ``rule_probabilities`` for a task without a grammar.

    Returns:
      A :class:`Task`.

    Example:
      >>> make_task("bigram_flip", Regime(2, 2), vocab_size=3).sample(random.Random(0))
      Example(source=(1, 0), target=(0, 1), eval_mask=None)
    """
    cls = task_class(name)
    if rule_probabilities is None:
        return cls(regime, vocab_size)
    if not issubclass(cls, ItgTask):
        grammars = ", ".join(n for n, c in TASKS.items() if issubclass(c, ItgTask))
        raise ValueError(f"rule_probabilities: task {name} has no grammar; only {grammars} take them")
    return cls(regime, vocab_size, rule_probabilities=dict(rule_probabilities))


def settings(name: str, config: str | TaskSettings = "default") -> TaskSettings:
    """Returns the settings of a named config of a task (or validates given ones).

    Args:
      name: the task name.
      config: ``"default"``, ``"paper"``, ``"tiny"`` or a :class:`TaskSettings`.

    Returns:
      The :class:`TaskSettings`.

    Raises:
      ValueError: for an unknown task or config name.
    """
    task_class(name)
    if isinstance(config, TaskSettings):
        return config
    if config not in SETTINGS[name]:
        raise ValueError(
            f"unknown config {config!r} for task {name}; known configs: "
            f"{', '.join(SETTINGS[name])}"
        )
    return SETTINGS[name][config]


def tasks_for(name: str, config: str | TaskSettings = "default") -> tuple[Task, Task]:
    """Returns the (train-regime, test-regime) samplers of a config."""
    s = settings(name, config)
    return (
        make_task(name, s.train, s.vocab_size, s.rule_probabilities),
        make_task(name, s.test, s.vocab_size, s.rule_probabilities),
    )


def generate(name: str, config: str | TaskSettings = "default") -> dict[str, list[Example]]:
    """Generates the train/validation/test splits of a config.

    Args:
      name: the task name.
      config: a config name or :class:`TaskSettings`.

    Returns:
      ``{split: [Example, ...]}``, byte-identical for the same inputs.
    """
    train_task, test_task = tasks_for(name, config)
    return generate_splits(name, train_task, test_task, settings(name, config))


def sample_stream(
    name: str,
    seed: int = 0,
    config: str | TaskSettings = "default",
    split: str = "train",
) -> Iterator[Example]:
    """Yields fresh examples forever, as the papers train (no fixed split).

    Args:
      name: the task name.
      seed: the stream's seed; the same seed gives the same stream.
      config: whose regimes to use.
      split: ``"train"`` (also validation) or ``"test"`` regime.

    Returns:
      An infinite iterator of :class:`Example`.
    """
    s = settings(name, config)
    task = make_task(name, s.regime(split), s.vocab_size, s.rule_probabilities)
    return iterate(task, random.Random(derive_seed(seed, name, "stream", split)))


__all__ = [
    "Example",
    "Regime",
    "Task",
    "TaskSettings",
    "TASKS",
    "TASK_NAMES",
    "DESCRIPTIONS",
    "SETTINGS",
    "task_class",
    "make_task",
    "settings",
    "tasks_for",
    "generate",
    "sample_stream",
    "derive_seed",
]
