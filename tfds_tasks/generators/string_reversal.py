"""String reversal with delayed output (Hao et al. 2018, §3-4.1).

``f(w #^|w|) = #^|w| w^R`` over the binary alphabet: the network reads
``w`` followed by as many ``#`` as ``w`` has symbols, emits ``#`` while
reading ``w`` and then ``w`` reversed. Only the ``w^R`` half is scored
(§4.1: "we evaluate the network solely based on the portion of its output
where w^R should appear").
"""

from __future__ import annotations

import random

from tfds_tasks.generators.base import Example
from tfds_tasks.generators.binary import BinaryStringTask


class StringReversal(BinaryStringTask):
    """Delayed-output reversal; the regime constrains ``|w|`` (half the source).

    Vocabularies (source and target): ``0 1 #`` with ids 0, 1, 2.

    Example:
      >>> from tfds_tasks.generators.base import Regime
      >>> task = StringReversal(Regime(3, 3))
      >>> task.source_text(task.sample(random.Random(2)))
      '0 0 1 # # #'
    """

    name = "string_reversal"

    def __init__(self, regime, vocab_size=None):
        super().__init__(regime, vocab_size)
        self.source_vocab = ("0", "1", "#")
        self.target_vocab = ("0", "1", "#")

    def length(self, example):
        return len(example.source) // 2

    def sample(self, rng: random.Random) -> Example:
        w = self.sample_bits(rng)
        n = len(w)
        hash_id = 2
        return Example(
            source=tuple(w) + (hash_id,) * n,
            target=(hash_id,) * n + tuple(reversed(w)),
            eval_mask=(0,) * n + (1,) * n,
        )
