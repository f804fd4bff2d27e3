"""Boolean formula evaluation in reverse Polish notation (Hao et al. 2018, §4.4).

Formulas come from ``S -> S S or | S S and | T | F``. At each step the
output is the truth value of the longest sub-formula ending at that symbol
(the value on top of an evaluation stack); every step is scored.

The literals are written through a preterminal (``S -> L``, ``L -> T | F``).
This does not change the language; it makes the depth convention of
:mod:`tfds_tasks.generators.cfg` reproduce the paper's §5 figures: depth 6
gives formulas of length up to 15 and depth 7 up to 31.
"""

from __future__ import annotations

from tfds_tasks.generators.grammar_tasks import CfgStringTask


class BooleanFormula(CfgStringTask):
    """RPN boolean formulas; source ``T F or and``, target ``F T``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> task = BooleanFormula(Regime(5, 5, max_depth=6))
      >>> ex = task.sample(random.Random(3))
      >>> task.source_text(ex), task.target_text(ex)
      ('F F and T or', 'F F F T T')
    """

    name = "boolean_formula"
    GRAMMAR = {
        "S": [("S", "S", "or"), ("S", "S", "and"), ("L",)],
        "L": [("T",), ("F",)],
    }
    SOURCE_VOCAB = ("T", "F", "or", "and")

    def __init__(self, regime, vocab_size=None):
        super().__init__(regime, vocab_size)
        self.target_vocab = ("F", "T")

    def outputs(self, words):
        stack, out = [], []
        for w in words:
            if w in ("T", "F"):
                stack.append(w == "T")
            else:
                b, a = stack.pop(), stack.pop()
                stack.append((a or b) if w == "or" else (a and b))
            out.append("T" if stack[-1] else "F")
        return out, [1] * len(words)
