"""Shared base for the Hao et al. (2018) binary-string tasks (§4.1, §4.2)."""

from __future__ import annotations

import random

from tfds_tasks.generators.base import Example, Regime, Task


class BinaryStringTask(Task):
    """Base class: a uniform random string over ``{0, 1}``.

    The length is uniform on the regime's range; each bit is uniform.
    These tasks are same-length (aligned) transductions: ``target[t]`` is
    the output after reading ``source[t]``.
    """

    uses_eval_mask = True

    def __init__(self, regime: Regime, vocab_size: int | None = None):
        super().__init__(regime, vocab_size)
        if regime.max_depth is not None:
            raise ValueError(f"{self.name} has no depth; max_depth must be None")

    def sample_bits(self, rng: random.Random) -> list[int]:
        """Draws the random input bits."""
        n = rng.randrange(self.regime.min_length, self.regime.max_length + 1)
        return [rng.randrange(2) for _ in range(n)]


class XorTask(BinaryStringTask):
    """Base of the two XOR evaluation tasks (§4.2): running parity of the bits.

    ``delayed`` leaves the newest bit out of the parity (Delayed XOR).
    """

    delayed = False

    def __init__(self, regime: Regime, vocab_size: int | None = None):
        super().__init__(regime, vocab_size)
        self.source_vocab = ("0", "1")
        self.target_vocab = ("0", "1")

    def sample(self, rng: random.Random) -> Example:
        bits = self.sample_bits(rng)
        out, parity = [], 0
        for b in bits:
            if self.delayed:
                out.append(parity)
            parity ^= b
            if not self.delayed:
                out.append(parity)
        return Example(tuple(bits), tuple(out), (1,) * len(bits))
