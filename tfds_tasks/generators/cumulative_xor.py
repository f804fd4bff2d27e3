"""Cumulative XOR evaluation (Hao et al. 2018, §4.2).

At each step the output is the XOR of all input bits read so far. Every
position is scored.
"""

from __future__ import annotations

import random

from tfds_tasks.generators.base import Example
from tfds_tasks.generators.binary import BinaryStringTask


class CumulativeXor(BinaryStringTask):
    """``target[t] = source[0] ^ ... ^ source[t]``; vocabularies ``0 1``.

    Example:
      >>> from tfds_tasks.generators.base import Regime
      >>> task = CumulativeXor(Regime(4, 4))
      >>> ex = task.sample(random.Random(0))
      >>> task.source_text(ex), task.target_text(ex)
      ('1 0 1 1', '1 1 0 1')
    """

    name = "cumulative_xor"

    def __init__(self, regime, vocab_size=None):
        super().__init__(regime, vocab_size)
        self.source_vocab = ("0", "1")
        self.target_vocab = ("0", "1")

    def sample(self, rng: random.Random) -> Example:
        bits = self.sample_bits(rng)
        out, parity = [], 0
        for b in bits:
            parity ^= b
            out.append(parity)
        return Example(tuple(bits), tuple(out), (1,) * len(bits))
