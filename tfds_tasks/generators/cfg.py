"""Exact length- and depth-constrained sampling from a context-free grammar.

Used by the Hao et al. (2018) grammar tasks (parenthesis prediction,
boolean formulas, subject-auxiliary agreement). The paper samples "from the
set of strings of derivation depth at most d" without saying how; this
module makes that precise:

1. the length ``n`` is drawn uniformly from the lengths in
   ``[min_length, max_length]`` that some derivation of depth ``<= d`` has;
2. a derivation is drawn uniformly among all derivations of the start
   symbol with that length and depth ``<= d``.

Depth is the height of the derivation tree with terminals counting as one
level (a rule ``T -> ( )`` has height 2). With this convention the maximum
lengths reproduce the numbers stated in Hao et al. §5 (checked in the
tests). Counts are exact Python ints, and choices use ``rng.randrange``
over them, so sampling is exact and reproducible.
"""

from __future__ import annotations

import random
from typing import Mapping, Sequence

from tfds_tasks.generators.base import uniform_choice


class Cfg:
    """A CFG with derivation counting by (height, length).

    Args:
      rules: nonterminal -> list of right-hand sides (tuples of symbols).
        Every symbol that is not a key is a terminal.
      start: the start nonterminal.
      max_depth: the largest derivation height that will be sampled.
      max_length: the longest yield that will be sampled.

    Example:
      >>> g = Cfg({"S": [("S", "S", "or"), ("T",), ("F",)]}, "S", 4, 7)
      >>> g.count("S", 4, 3)  # T T or, T F or, F T or, F F or
      4
    """

    def __init__(
        self,
        rules: Mapping[str, Sequence[Sequence[str]]],
        start: str,
        max_depth: int,
        max_length: int,
    ):
        self.rules = {nt: [tuple(r) for r in alts] for nt, alts in rules.items()}
        if start not in self.rules:
            raise ValueError(f"start symbol {start} has no rules")
        self.start = start
        self.max_depth = max_depth
        self.max_length = max_length
        size = max_length + 1
        zero = [0] * size
        # counts[d][X][n]: derivations of X with height <= d and yield n.
        self._counts: list[dict[str, list[int]]] = [{nt: zero for nt in self.rules}]
        # suffix[d][(nt, r)][i][n]: ways items i.. of rule r yield n, each
        # item of height <= d.
        self._suffix: list[dict[tuple[str, int], list[list[int]]]] = []
        for d in range(1, max_depth + 1):
            below = d - 1
            suffix = {}
            for nt, alts in self.rules.items():
                for r, rhs in enumerate(alts):
                    tables = [None] * (len(rhs) + 1)
                    tables[len(rhs)] = [1] + [0] * max_length
                    for i in range(len(rhs) - 1, -1, -1):
                        item = self._item_counts(rhs[i], below)
                        tables[i] = _convolve(item, tables[i + 1], size)
                    suffix[(nt, r)] = tables
            self._suffix.append(suffix)
            layer = {}
            for nt, alts in self.rules.items():
                acc = [0] * size
                for r in range(len(alts)):
                    acc = [a + b for a, b in zip(acc, suffix[(nt, r)][0])]
                layer[nt] = acc
            self._counts.append(layer)

    def _item_counts(self, symbol: str, height: int) -> list[int]:
        """Counts for one rhs item whose height must be <= ``height``."""
        if symbol in self.rules:
            return self._counts[height][symbol]
        out = [0] * (self.max_length + 1)
        if height >= 1 and self.max_length >= 1:
            out[1] = 1  # a terminal: height 1, length 1
        return out

    def count(self, symbol: str, depth: int, length: int) -> int:
        """Number of derivations of ``symbol`` with height <= depth and this yield length."""
        return self._counts[depth][symbol][length]

    def lengths(self, depth: int, min_length: int, max_length: int) -> list[int]:
        """The lengths in the range that the start symbol can yield at this depth."""
        return [
            n
            for n in range(min_length, max_length + 1)
            if self._counts[depth][self.start][n] > 0
        ]

    def sample(self, rng: random.Random, depth: int, length: int) -> list[str]:
        """Draws a derivation uniformly among those of given height bound and length.

        Args:
          rng: the random source.
          depth: the height bound.
          length: the yield length; must have a positive count.

        Returns:
          The derived terminal string as a list of symbols.
        """
        out: list[str] = []
        self._sample_into(rng, self.start, depth, length, out)
        return out

    def _sample_into(self, rng, nt: str, depth: int, length: int, out: list[str]):
        alts = self.rules[nt]
        suffix = self._suffix[depth - 1]
        r = uniform_choice(rng, [suffix[(nt, i)][0][length] for i in range(len(alts))])
        rhs = alts[r]
        tables = suffix[(nt, r)]
        remaining = length
        for i, symbol in enumerate(rhs):
            item = self._item_counts(symbol, depth - 1)
            rest = tables[i + 1]
            weights = [item[k] * rest[remaining - k] for k in range(remaining + 1)]
            k = uniform_choice(rng, weights)
            if symbol in self.rules:
                self._sample_into(rng, symbol, depth - 1, k, out)
            else:
                out.append(symbol)
            remaining -= k


def _convolve(a: list[int], b: list[int], size: int) -> list[int]:
    out = [0] * size
    for i, x in enumerate(a):
        if x:
            for j in range(size - i):
                if b[j]:
                    out[i + j] += x * b[j]
    return out
