"""Bigram flipping (Grefenstette et al. 2015, §4.1): swap each adjacent pair."""

from __future__ import annotations

from tfds_tasks.generators.symbols import SymbolSequenceTask


class BigramFlip(SymbolSequenceTask):
    """``a1 a2 a3 a4 ... ||| a2 a1 a4 a3 ...`` on even-length sources.

    Both ends of the length range must be even (the paper restricts sources
    to even lengths), so the paper's test range 65..128 becomes 66..128.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> task = BigramFlip(Regime(4, 4), vocab_size=5)
      >>> ex = task.sample(random.Random(1))
      >>> ex.target == (ex.source[1], ex.source[0], ex.source[3], ex.source[2])
      True
    """

    name = "bigram_flip"
    even_lengths_only = True

    def transform(self, source):
        out = []
        for i in range(0, len(source), 2):
            out += [source[i + 1], source[i]]
        return tuple(out)
