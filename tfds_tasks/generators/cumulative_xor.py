"""Cumulative XOR evaluation (Hao et al. 2018, §4.2).

At each step the output is the XOR of all input bits read so far. Every
position is scored.
"""

from __future__ import annotations

import random  # noqa: F401  (used by the doctest)

from tfds_tasks.generators.binary import XorTask


class CumulativeXor(XorTask):
    """``target[t] = source[0] ^ ... ^ source[t]``; vocabularies ``0 1``.

    Example:
      >>> from tfds_tasks.generators.base import Regime
      >>> task = CumulativeXor(Regime(4, 4))
      >>> ex = task.sample(random.Random(0))
      >>> task.source_text(ex), task.target_text(ex)
      ('1 0 1 1', '1 1 0 1')
    """

    name = "cumulative_xor"
