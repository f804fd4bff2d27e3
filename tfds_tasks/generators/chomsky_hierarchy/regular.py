"""The regular tasks of Delétang et al. (2023, appendix): one output id each.

Every example is a string of independent uniform symbols, so a batch is
drawn at once with :func:`uniform_ints` and answered with NumPy.
"""

from __future__ import annotations

import random

import numpy as np

from tfds_tasks.generators.chomsky_hierarchy.base import ChomskyTask, uniform_ints

MODULUS = 5


class EvenPairs(ChomskyTask):
    """Whether a binary string holds an even number of ``01`` and ``10`` pairs."""

    name = "even_pairs"
    level = "regular"
    input_vocab_size = 2
    output_vocab_size = 2
    description = (
        "Even Pairs (Delétang et al. 2023, appendix, regular): the input is a "
        "uniform binary string of `length` bits (ids 0, 1); the output is one "
        "id, 1 if the number of adjacent unequal pairs (`01` or `10`) is odd, "
        "else 0 (equivalently, whether the first and last bits differ)."
    )

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        strings = uniform_ints(rng, batch_size * length, 2).reshape(batch_size, length)
        unequal_pairs = (strings[:, 1:] != strings[:, :-1]).sum(axis=1)
        return strings, unequal_pairs % 2


class ParityCheck(ChomskyTask):
    """Whether a binary string holds an odd number of ones."""

    name = "parity_check"
    level = "regular"
    input_vocab_size = 2
    output_vocab_size = 2
    description = (
        "Parity Check (Delétang et al. 2023, appendix, regular): the input is "
        "a uniform binary string of `length` bits (ids 0, 1); the output is "
        "one id, the number of 1s modulo 2."
    )

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        strings = uniform_ints(rng, batch_size * length, 2).reshape(batch_size, length)
        return strings, strings.sum(axis=1) % 2


class CycleNavigation(ChomskyTask):
    """The final position of a walk on a cycle of five positions."""

    name = "cycle_navigation"
    level = "regular"
    input_vocab_size = 3
    output_vocab_size = MODULUS
    description = (
        "Cycle Navigation (Delétang et al. 2023, appendix, regular): the input "
        "is `length` uniform moves on a cycle of 5 positions, starting at 0; "
        "the output is one id, the final position (0..4). Move ids follow the "
        "authors' code, which answers `sum(move - 1) mod 5`: id 0 steps left "
        "(-1), id 1 stays, id 2 steps right (+1). Their docstring says "
        "0 stays, 1 goes right and -1 left; the code is followed."
    )

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        moves = uniform_ints(rng, batch_size * length, 3).reshape(batch_size, length)
        return moves, (moves - 1).sum(axis=1) % MODULUS


class ModularArithmetic(ChomskyTask):
    """The value modulo 5 of ``d op d op ... d`` with ``+``, ``-``, ``*``, no brackets."""

    name = "modular_arithmetic"
    level = "regular"
    PLUS, MINUS, TIMES, BLANK = MODULUS, MODULUS + 1, MODULUS + 2, MODULUS + 3
    input_vocab_size = MODULUS + 4
    output_vocab_size = MODULUS
    description = (
        "Modular Arithmetic, simple (Delétang et al. 2023, appendix, regular): "
        "the input alternates uniform digits 0..4 (ids 0..4) and uniform "
        "operators `+` (id 5), `-` (id 6), `*` (id 7), starting and ending "
        "with a digit; the output is one id, the expression's value modulo 5 "
        "with the usual precedence (`*` before `+` and `-`, left to right). "
        "Input ids have 9 classes because the authors' alphabet also holds a "
        "blank `_` (id 8) that their sampler never emits. The input has "
        "`length` ids if `length` is odd and `length - 1` if it is even (the "
        "authors' code drops one to keep it odd)."
    )

    def input_length(self, length: int) -> int:
        """Returns ``length`` if it is odd, else ``length - 1`` (the authors' rule).

        Args:
          length: the authors' ``length`` argument, >= 1.

        Returns:
          The number of input ids, always odd.

        Example:
          >>> ModularArithmetic().input_length(6)
          5
        """
        length = super().input_length(length)
        return length if length % 2 else length - 1

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        terms = (self.input_length(length) + 1) // 2
        digits = uniform_ints(rng, batch_size * terms, MODULUS).reshape(batch_size, terms)
        operators = MODULUS + uniform_ints(rng, batch_size * (terms - 1), 3).reshape(batch_size, terms - 1)
        expressions = np.empty((batch_size, 2 * terms - 1), dtype=np.int64)
        expressions[:, ::2] = digits
        expressions[:, 1::2] = operators
        # Left to right: `total` holds the finished additive terms, `term` the
        # signed product being built; `*` extends it, `+`/`-` start a new one.
        total = np.zeros(batch_size, dtype=np.int64)
        term = digits[:, 0].copy()
        for i in range(terms - 1):
            operator, digit = operators[:, i], digits[:, i + 1]
            times = operator == self.TIMES
            total = np.where(times, total, (total + term) % MODULUS)
            term = np.where(times, term * digit, np.where(operator == self.PLUS, digit, -digit)) % MODULUS
        return expressions, (total + term) % MODULUS
