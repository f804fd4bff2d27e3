"""The deterministic context-free tasks of Delétang et al. (2023, appendix)."""

from __future__ import annotations

import random

from tfds_tasks.generators.base import check_int
from tfds_tasks.generators.chomsky_hierarchy.base import ChomskyTask, uniform_ints

MODULUS = 5


class ReverseString(ChomskyTask):
    """The input string, reversed."""

    name = "reverse_string"
    level = "deterministic_context_free"
    input_vocab_size = 2
    output_vocab_size = 2
    description = (
        "Reverse String (Delétang et al. 2023, appendix, deterministic "
        "context-free): the input is a uniform binary string of `length` bits "
        "(ids 0, 1); the output is the same string reversed (`length` ids)."
    )

    def output_length(self, length: int) -> int:
        """Returns ``length``: the reversed string."""
        return check_int(length, "length", minimum=1)

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        strings = uniform_ints(rng, batch_size * length, 2).reshape(batch_size, length)
        return strings, strings[:, ::-1]


class StackManipulation(ChomskyTask):
    """The stack left by a sequence of ``POP``/``PUSH`` actions, top first."""

    name = "stack_manipulation"
    level = "deterministic_context_free"
    POP, PUSH_0, PUSH_1 = 2, 3, 4
    input_vocab_size = 5
    output_vocab_size = 3
    terminator = 2
    description = (
        "Stack Manipulation (Delétang et al. 2023, appendix, deterministic "
        "context-free): the input is an initial binary stack, bottom to top "
        "(ids 0, 1; its size uniform on 1..`length`-1), then uniform actions "
        "`POP` (id 2), `PUSH 0` (id 3), `PUSH 1` (id 4) filling the rest of "
        "the `length` ids; a `POP` on an empty stack does nothing. The output "
        "(`length` + 1 ids) is the final stack top to bottom, the terminator "
        "(id 2), then zeros; `output_mask` covers the stack and the "
        "terminator. For `length` = 1 the input is one bit, the stack itself."
    )

    def output_length(self, length: int) -> int:
        """Returns ``length + 1``: room for a full stack and the terminator."""
        return check_int(length, "length", minimum=1) + 1

    def _sample_one(self, rng: random.Random, length: int):
        if length == 1:
            stack = uniform_ints(rng, 1, 2).tolist()
            return stack, stack + [self.terminator]
        stack_size = rng.randrange(1, length)
        initial = uniform_ints(rng, stack_size, 2).tolist()
        actions = (self.POP + uniform_ints(rng, length - stack_size, 3)).tolist()
        stack = list(initial)
        for action in actions:
            if action == self.POP:
                if stack:
                    stack.pop()
            else:
                stack.append(action - self.PUSH_0)
        answer = stack[::-1] + [self.terminator]
        return initial + actions, answer + [0] * (length + 1 - len(answer))


def sample_expression(rng: random.Random, length: int, ids: dict[str, int], multiply: bool) -> tuple[list[int], int]:
    """Draws a bracketed expression of exactly ``length`` ids and its value mod 5.

    The authors' grammar: lengths 1..4 give ``d``, ``-d``, ``(d)``,
    ``(-d)`` for a uniform digit ``d``; a longer one is ``(L op R)`` with
    ``|L|`` uniform on ``1..length-4`` and ``op`` uniform on ``+ -`` (and
    ``*`` if ``multiply``).

    Args:
      rng: the random source.
      length: the number of ids, >= 1.
      ids: the ids of ``"+"``, ``"-"``, ``"*"``, ``"("``, ``")"``; digits are
        their own ids.
      multiply: whether ``*`` may appear.

    Returns:
      ``(ids, value)``.

    Example:
      >>> ids = {"+": 5, "-": 6, "*": 7, "(": 8, ")": 9}
      >>> tokens, value = sample_expression(random.Random(1), 9, ids, multiply=True)
      >>> len(tokens), tokens[0] == 8, 0 <= value < 5
      (9, True, True)
    """
    tokens: list[int] = []
    value = _write_expression(rng, length, ids, multiply, tokens)
    return tokens, value


def _write_expression(rng, length, ids, multiply, tokens):
    """Appends an expression of ``length`` ids to ``tokens``; returns its value."""
    if length <= 4:
        digit = rng.randrange(MODULUS)
        negate = length in (2, 4)
        bracket = length >= 3
        tokens += [ids["("]] * bracket + [ids["-"]] * negate + [digit] + [ids[")"]] * bracket
        return -digit % MODULUS if negate else digit
    left_length = rng.randrange(1, length - 3)
    tokens.append(ids["("])
    left = _write_expression(rng, left_length, ids, multiply, tokens)
    operator_at = len(tokens)
    tokens.append(None)  # the operator is drawn after both operands, as the authors do
    right = _write_expression(rng, length - 3 - left_length, ids, multiply, tokens)
    tokens.append(ids[")"])
    operator = "+-*"[rng.randrange(3 if multiply else 2)]
    tokens[operator_at] = ids[operator]
    if operator == "+":
        return (left + right) % MODULUS
    if operator == "-":
        return (left - right) % MODULUS
    return left * right % MODULUS


class ModularArithmeticBrackets(ChomskyTask):
    """The value modulo 5 of a random bracketed expression with ``+``, ``-``, ``*``."""

    name = "modular_arithmetic_brackets"
    level = "deterministic_context_free"
    IDS = {"+": MODULUS, "-": MODULUS + 1, "*": MODULUS + 2, "(": MODULUS + 3, ")": MODULUS + 4}
    input_vocab_size = MODULUS + 6
    output_vocab_size = MODULUS
    description = (
        "Modular Arithmetic with brackets (Delétang et al. 2023, appendix, "
        "deterministic context-free; the authors' `mult=True`): the input is "
        "an expression of exactly `length` ids from the grammar: for lengths "
        "1..4, `d`, `-d`, `(d)`, `(-d)` with a uniform digit `d`; longer, "
        "`(L op R)` with `|L|` uniform on 1..`length`-4 and `op` uniform on "
        "`+ - *`. Ids: digits 0..4, `+` 5, `-` 6, `*` 7, `(` 8, `)` 9; the "
        "authors' `input_size` is 11 because their alphabet also numbers `x` "
        "(id 10, never emitted here). The output is one id, the value "
        "modulo 5."
    )

    def _sample_one(self, rng: random.Random, length: int):
        tokens, value = sample_expression(rng, length, self.IDS, multiply=True)
        return tokens, [value]


class SolveEquation(ChomskyTask):
    """The value of ``x`` in ``expression(x) = value`` modulo 5."""

    name = "solve_equation"
    level = "deterministic_context_free"
    IDS = {"+": MODULUS, "-": MODULUS + 1, "(": MODULUS + 2, ")": MODULUS + 3, "x": MODULUS + 4, "=": MODULUS + 5}
    input_vocab_size = MODULUS + 6
    output_vocab_size = MODULUS
    description = (
        "Solve Equation (Delétang et al. 2023, appendix, deterministic "
        "context-free; the authors' `mult=False`): an expression of "
        "`length` - 2 ids is drawn from the modular_arithmetic_brackets "
        "grammar without `*`; the digit at a uniform position (or, if that "
        "is not a digit, the next digit cyclically) is replaced by `x`, and "
        "`=` and the expression's value are appended. The output is one id, "
        "the replaced digit (unique, since `x` appears once and only with "
        "coefficient +1 or -1). Ids differ from modular_arithmetic_brackets "
        "(no `*`): digits 0..4, `+` 5, `-` 6, `(` 7, `)` 8, `x` 9, `=` 10. "
        "For `length` < 3 the authors' code returns `length` zeros and the "
        "answer 0; so does this one."
    )

    def _sample_one(self, rng: random.Random, length: int):
        if length < 3:
            return [0] * length, [0]
        tokens, value = sample_expression(rng, length - 2, self.IDS, multiply=False)
        position = rng.randrange(len(tokens))
        while tokens[position] >= MODULUS:
            position = (position + 1) % len(tokens)
        solution = tokens[position]
        tokens[position] = self.IDS["x"]
        return tokens + [self.IDS["="], value], [solution]
