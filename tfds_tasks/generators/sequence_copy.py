"""Sequence copying (Grefenstette et al. 2015, §4.1): target = source."""

from __future__ import annotations

from tfds_tasks.generators.symbols import SymbolSequenceTask


class SequenceCopy(SymbolSequenceTask):
    """``a1 ... ak ||| a1 ... ak``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> ex = SequenceCopy(Regime(3, 3), vocab_size=5).sample(random.Random(1))
      >>> ex.source == ex.target
      True
    """

    name = "sequence_copy"

    def transform(self, source):
        return tuple(source)
