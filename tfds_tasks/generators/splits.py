"""Split settings and deterministic, de-duplicated split generation."""

from __future__ import annotations

import dataclasses
import random

from tfds_tasks.generators.base import Example, Regime, Task, check_int, derive_seed
from tfds_tasks.generators.itg import rule_probability_pairs

# A split gives up (ValueError) after this many rejected duplicates per
# requested example: the range is then too small for the requested size.
_MAX_REJECTIONS_PER_EXAMPLE = 200


@dataclasses.dataclass(frozen=True)
class TaskSettings:
    """Sizes, regimes and seed of one dataset configuration.

    ``validation`` is drawn from the ``train`` regime, ``test`` from the
    ``test`` regime. Sizes are numbers of examples.

    Args:
      train_size: examples in ``train``.
      validation_size: examples in ``validation``.
      test_size: examples in ``test``.
      train: regime of ``train`` and ``validation``.
      test: regime of ``test``.
      vocab_size: content-vocabulary size for tasks that have one, else None.
      seed: base seed; each split derives its own from it.
      rule_probabilities: the ITG tasks' ``{nonterminal: (p1, p2, ...)}``
        replacing the grammar's (see ``itg.with_rule_probabilities``);
        None keeps the shipped ones. Stored as sorted ``(nonterminal,
        probabilities)`` pairs, so that settings stay hashable.

    Example:
      >>> s = TaskSettings(10, 2, 2, Regime(2, 4), Regime(5, 6), vocab_size=8)
      >>> s.test.min_length
      5
    """

    train_size: int
    validation_size: int
    test_size: int
    train: Regime
    test: Regime
    vocab_size: int | None = None
    seed: int = 0
    rule_probabilities: tuple[tuple[str, tuple[float, ...]], ...] | None = None

    def __post_init__(self):
        if self.rule_probabilities is not None:
            object.__setattr__(self, "rule_probabilities", rule_probability_pairs(self.rule_probabilities))
        for what in ("train_size", "validation_size", "test_size"):
            check_int(getattr(self, what), what, minimum=0)
        check_int(self.seed, "seed", minimum=0)
        for what in ("train", "test"):
            if not isinstance(getattr(self, what), Regime):
                raise ValueError(f"{what} must be a Regime, got {getattr(self, what)!r}")

    def regime(self, split: str) -> Regime:
        """Returns the regime of ``split`` (validation uses train's)."""
        if split in ("train", "validation"):
            return self.train
        if split == "test":
            return self.test
        raise ValueError(f"unknown split {split!r}; expected train, validation or test")

    def size(self, split: str) -> int:
        """Returns the number of examples of ``split``."""
        self.regime(split)  # validates the name
        return getattr(self, f"{split}_size")


def generate_splits(
    name: str, train_task: Task, test_task: Task, settings: TaskSettings
) -> dict[str, list[Example]]:
    """Generates train, validation and test, in that order, de-duplicated.

    Each split has its own ``random.Random`` seeded from
    ``(settings.seed, name, split)``. Examples inside a split are sampled
    with replacement, as in the papers; an example whose source already
    occurs in an earlier split is redrawn, so no validation or test source
    occurs in train and no test source in validation. (For the default
    configs the test lengths lie above the training lengths, so test is
    disjoint by construction; the redraw matters for validation on small
    alphabets.)

    Args:
      name: the task name (part of the seed).
      train_task: the task built for ``settings.train``.
      test_task: the task built for ``settings.test``.
      settings: sizes and seed.

    Returns:
      ``{"train": [...], "validation": [...], "test": [...]}``.

    Raises:
      ValueError: if a split cannot be filled with sources unseen in the
        earlier splits (the length range is too small for the size).
    """
    seen: set[tuple[int, ...]] = set()
    out: dict[str, list[Example]] = {}
    for split, task in (("train", train_task), ("validation", train_task), ("test", test_task)):
        size = settings.size(split)
        rng = random.Random(derive_seed(settings.seed, name, split))
        examples: list[Example] = []
        rejected = 0
        limit = _MAX_REJECTIONS_PER_EXAMPLE * max(size, 1)
        while len(examples) < size:
            ex = task.sample(rng)
            if ex.source in seen:
                rejected += 1
                if rejected > limit:
                    raise ValueError(
                        f"{name}: cannot draw {size} {split} examples whose sources "
                        f"are not in an earlier split ({rejected} duplicates "
                        f"rejected); widen the length range or shrink the split"
                    )
                continue
            examples.append(ex)
        seen.update(ex.source for ex in examples)
        out[split] = examples
    return out
