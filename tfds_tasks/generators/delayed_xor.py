"""Delayed XOR evaluation (Hao et al. 2018, §4.2).

Like cumulative XOR, but the most recent input bit is left out: the output
at step t is the XOR of bits 0..t-1 (0 at the first step, the XOR of
nothing). Every position is scored.
"""

from __future__ import annotations

import random  # noqa: F401  (used by the doctest)

from tfds_tasks.generators.binary import XorTask


class DelayedXor(XorTask):
    """``target[t] = source[0] ^ ... ^ source[t-1]``; vocabularies ``0 1``.

    Example:
      >>> from tfds_tasks.generators.base import Regime
      >>> task = DelayedXor(Regime(4, 4))
      >>> ex = task.sample(random.Random(0))
      >>> task.source_text(ex), task.target_text(ex)
      ('1 0 1 1', '0 1 1 0')
    """

    name = "delayed_xor"
    delayed = True
