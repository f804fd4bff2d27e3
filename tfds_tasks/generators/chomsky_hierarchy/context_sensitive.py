"""The context-sensitive tasks of Delétang et al. (2023, appendix).

The string tasks draw whole batches with NumPy; the arithmetic tasks use
Python's unbounded ints one example at a time (their numbers have up to
``length`` bits).
"""

from __future__ import annotations

import math
import random

import numpy as np

from tfds_tasks.generators.base import check_int
from tfds_tasks.generators.chomsky_hierarchy.base import ChomskyTask, int_to_bits, uniform_ints


class DuplicateString(ChomskyTask):
    """The input string written twice."""

    name = "duplicate_string"
    level = "context_sensitive"
    input_vocab_size = 2
    output_vocab_size = 2
    description = (
        "Duplicate String (Delétang et al. 2023, appendix, context-sensitive; "
        "vocabulary 2): the input is a uniform binary string `w` of `length` "
        "bits (ids 0, 1); the output is `ww` (2 * `length` ids)."
    )

    def output_length(self, length: int) -> int:
        """Returns ``2 * length``: the string twice."""
        return 2 * check_int(length, "length", minimum=1)

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        strings = uniform_ints(rng, batch_size * length, 2).reshape(batch_size, length)
        return strings, np.concatenate([strings, strings], axis=1)


class MissingDuplicateString(ChomskyTask):
    """The symbol hidden in a string written twice."""

    name = "missing_duplicate_string"
    level = "context_sensitive"
    MISSING, PAD = 2, 3
    input_vocab_size = 4
    output_vocab_size = 2
    description = (
        "Missing Duplicate (Delétang et al. 2023, appendix, context-sensitive): "
        "a uniform binary string `w` of `length` // 2 bits is written twice, "
        "`ww`; one uniform position of `ww` is replaced by the placeholder "
        "(id 2), and an odd `length` adds one padding id (id 3) at the end. "
        "The output is one id, the hidden bit. For `length` = 1 the authors' "
        "code gives input `1` and answer 1; so does this one."
    )

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        if length == 1:
            return np.ones((batch_size, 1)), np.ones((batch_size, 1))
        half = length // 2
        strings = uniform_ints(rng, batch_size * half, 2).reshape(batch_size, half)
        doubled = np.concatenate([strings, strings], axis=1)
        hidden = uniform_ints(rng, batch_size, 2 * half)
        rows = np.arange(batch_size)
        answers = doubled[rows, hidden]
        doubled[rows, hidden] = self.MISSING
        padding = np.full((batch_size, length % 2), self.PAD)
        return np.concatenate([doubled, padding], axis=1), answers


class OddsFirst(ChomskyTask):
    """The symbols at odd (0-based) positions, then those at even positions."""

    name = "odds_first"
    level = "context_sensitive"
    input_vocab_size = 2
    output_vocab_size = 2
    description = (
        "Odds First (Delétang et al. 2023, appendix, context-sensitive; "
        "vocabulary 2): the input is a uniform binary string `s` of `length` "
        "bits (ids 0, 1); the output (`length` ids) is, with 0-based "
        "indices, `s[1::2]` followed by `s[::2]`, as the authors' code "
        "computes it. Their docstring (`s_1 s_3 s_5 ... s_2 s_4 ...`, "
        "1-based) and its example put the other half first; the code is "
        "followed."
    )

    def output_length(self, length: int) -> int:
        """Returns ``length``: the same symbols, reordered."""
        return check_int(length, "length", minimum=1)

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        strings = uniform_ints(rng, batch_size * length, 2).reshape(batch_size, length)
        return strings, np.concatenate([strings[:, 1::2], strings[:, ::2]], axis=1)


def _two_operands(rng: random.Random, length: int) -> tuple[list[int], int, int]:
    """The authors' operands: ``n`` and ``m`` of ``|n| + |m| = length - 1`` digits.

    ``|n|`` is uniform on ``1..length-2``; each number is uniform on
    ``1..2**digits - 1`` and written little-endian over its digits (so it
    may end in zeros); the separator (id 2) sits between them.
    """
    n_digits = rng.randrange(1, length - 1)
    m_digits = length - 1 - n_digits
    n = rng.randrange(1, 1 << n_digits)
    m = rng.randrange(1, 1 << m_digits)
    tokens = int_to_bits(n, n_digits, little_endian=True) + [2] + int_to_bits(m, m_digits, little_endian=True)
    return tokens, n, m


def _short_operand(rng: random.Random, length: int) -> tuple[list[int], int]:
    """For ``length <= 2``: a number uniform on ``0..2**length - 2``, no separator.

    The authors draw ``np.random.randint(0, 2**length - 1)``, whose upper
    bound is exclusive, so ``length = 1`` always gives 0.
    """
    number = rng.randrange((1 << length) - 1)
    return int_to_bits(number, length, little_endian=True), number


_ARITHMETIC_NOTE = (
    "`|n|` is uniform on 1..`length`-2, `|m|` = `length` - 1 - `|n|`, and "
    "each number is uniform on 1..2^digits - 1, written little-endian over "
    "its digits (it may end in 0s). The answer is little-endian without "
    "trailing 0s (`0` for zero), then the terminator (id 2), then 0s; "
    "`output_mask` covers the answer and the terminator."
)


class BinaryAddition(ChomskyTask):
    """The sum of two little-endian binary numbers."""

    name = "binary_addition"
    level = "context_sensitive"
    input_vocab_size = 3
    output_vocab_size = 3
    terminator = 2
    description = (
        "Binary Addition (Delétang et al. 2023, appendix, context-sensitive): "
        "the input (`length` ids) is `n + m` in little-endian binary, bits "
        "ids 0, 1 and `+` id 2; the output (`length` + 1 ids) is `n + m`. "
        + _ARITHMETIC_NOTE
        + " For `length` <= 2 the authors' code has no `+`: the input is one "
        "number uniform on 0..2^`length` - 2 over `length` bits, and the "
        "answer is that number; so it is here."
    )

    def output_length(self, length: int) -> int:
        """Returns ``length + 1``: room for the sum and the terminator."""
        return check_int(length, "length", minimum=1) + 1

    def _sample_one(self, rng: random.Random, length: int):
        if length <= 2:
            tokens, total = _short_operand(rng, length)
        else:
            tokens, n, m = _two_operands(rng, length)
            total = n + m
        answer = int_to_bits(total, 0, little_endian=True) + [self.terminator]
        return tokens, answer + [0] * (length + 1 - len(answer))


class BinaryMultiplication(ChomskyTask):
    """The product of two little-endian binary numbers."""

    name = "binary_multiplication"
    level = "context_sensitive"
    input_vocab_size = 3
    output_vocab_size = 3
    terminator = 2
    description = (
        "Binary Multiplication (Delétang et al. 2023, appendix, "
        "context-sensitive): the input (`length` ids) is `n * m` in "
        "little-endian binary, bits ids 0, 1 and `*` id 2; the output "
        "(`length` ids: the product has at most `length` - 1 digits) is "
        "`n * m`. "
        + _ARITHMETIC_NOTE
        + " For `length` <= 2 the authors' code has no `*`: the input is one "
        "number uniform on 0..2^`length` - 2 over `length` bits and the "
        "answer is fixed, `length` - 1 zeros then the terminator; so it is "
        "here."
    )

    def output_length(self, length: int) -> int:
        """Returns ``length``: room for the product and the terminator."""
        return check_int(length, "length", minimum=1)

    def _sample_one(self, rng: random.Random, length: int):
        if length <= 2:
            tokens, _ = _short_operand(rng, length)
            return tokens, [0] * (length - 1) + [self.terminator]
        tokens, n, m = _two_operands(rng, length)
        answer = int_to_bits(n * m, 0, little_endian=True) + [self.terminator]
        return tokens, answer + [0] * (length - len(answer))


class ComputeSqrt(ChomskyTask):
    """The floor of the square root of a big-endian binary number."""

    name = "compute_sqrt"
    level = "context_sensitive"
    input_vocab_size = 2
    output_vocab_size = 2
    description = (
        "Compute Sqrt (Delétang et al. 2023, appendix, context-sensitive): "
        "the input is a number uniform on 1..2^`length` - 1 in big-endian "
        "binary over `length` bits (ids 0, 1, leading 0s kept); the output "
        "is the floor of its square root, big-endian over ceil(`length` / 2) "
        "bits."
    )

    def output_length(self, length: int) -> int:
        """Returns ``ceil(length / 2)``: the square root's number of bits."""
        return math.ceil(check_int(length, "length", minimum=1) / 2)

    def _sample_one(self, rng: random.Random, length: int):
        number = rng.randrange(1, 1 << length)
        root = math.isqrt(number)
        return (
            int_to_bits(number, length, little_endian=False),
            int_to_bits(root, self.output_length(length), little_endian=False),
        )


class BucketSort(ChomskyTask):
    """The input symbols in increasing order."""

    name = "bucket_sort"
    level = "context_sensitive"
    input_vocab_size = 5
    output_vocab_size = 5
    description = (
        "Bucket Sort (Delétang et al. 2023, appendix, context-sensitive; "
        "vocabulary 5): the input is `length` uniform symbols (ids 0..4); the "
        "output is the same symbols sorted increasingly (`length` ids)."
    )

    def output_length(self, length: int) -> int:
        """Returns ``length``: the same symbols, sorted."""
        return check_int(length, "length", minimum=1)

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        strings = uniform_ints(rng, batch_size * length, 5).reshape(batch_size, length)
        return strings, np.sort(strings, axis=1)
