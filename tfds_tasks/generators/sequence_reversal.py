"""Sequence reversal (Grefenstette et al. 2015, §4.1): target = reversed source."""

from __future__ import annotations

from tfds_tasks.generators.symbols import SymbolSequenceTask


class SequenceReversal(SymbolSequenceTask):
    """``a1 a2 ... ak ||| ak ... a2 a1``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> ex = SequenceReversal(Regime(3, 3), vocab_size=5).sample(random.Random(1))
      >>> ex.target == ex.source[::-1]
      True
    """

    name = "sequence_reversal"

    def transform(self, source):
        return tuple(reversed(source))
