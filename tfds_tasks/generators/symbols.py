"""Shared sampler for the Grefenstette et al. (2015) §4.1 synthetic tasks.

Sources are drawn uniformly from ``vocab_size`` meaningless symbols; the
target is a deterministic function of the source. Source symbol ``x17`` maps
to target symbol ``y17``: the two vocabularies are separate (paper §4) but
index-aligned.
"""

from __future__ import annotations

import random

from tfds_tasks.generators.base import Example, Regime, Task


class SymbolSequenceTask(Task):
    """Base class: uniform length, uniform i.i.d. symbols, fixed transform.

    Subclasses implement :meth:`transform`. ``even_lengths_only`` makes the
    length uniform over the even values of the range (bigram flipping).

    Args:
      regime: source length range.
      vocab_size: number of symbols (default 128, the paper's); >= 2 because
        with one symbol the target is fixed by the length alone.
    """

    default_vocab_size = 128
    min_vocab_size = 2
    even_lengths_only = False

    def __init__(self, regime: Regime, vocab_size: int | None = None):
        super().__init__(regime, vocab_size)
        if regime.max_depth is not None:
            raise ValueError(f"{self.name} has no depth; max_depth must be None")
        if self.even_lengths_only:
            for what, n in (("min_length", regime.min_length), ("max_length", regime.max_length)):
                if n % 2:
                    raise ValueError(
                        f"{self.name} needs even source lengths; {what}={n} is odd"
                    )
        self.source_vocab = tuple(f"x{i}" for i in range(self.vocab_size))
        self.target_vocab = tuple(f"y{i}" for i in range(self.vocab_size))

    def transform(self, source: tuple[int, ...]) -> tuple[int, ...]:
        """Maps a source to its target (ids)."""
        raise NotImplementedError

    def sample(self, rng: random.Random) -> Example:
        lo, hi = self.regime.min_length, self.regime.max_length
        if self.even_lengths_only:
            length = 2 * rng.randrange(lo // 2, hi // 2 + 1)
        else:
            length = rng.randrange(lo, hi + 1)
        source = tuple(rng.randrange(self.vocab_size) for _ in range(length))
        return Example(source=source, target=self.transform(source))
