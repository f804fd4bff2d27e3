"""Parenthesis prediction on two bracket types (Hao et al. 2018, §4.3, §5).

Strings come from the paper's CFG exactly as printed::

    S -> S T | T S | T
    T -> ( T ) | ( ) | [ T ] | [ ]

(so T is a single chain of nested brackets, and S a concatenation of
chains). At each step the model predicts the next symbol; only steps whose
correct prediction is ``)`` or ``]`` are scored. With depth counted as tree
height including the terminal level, depth 6 gives strings of length up to
20 and depth 12 up to 110, exactly the paper's §5 figures.
"""

from __future__ import annotations

from tfds_tasks.generators.grammar_tasks import NextSymbolTask


class ParenthesisPrediction(NextSymbolTask):
    """Dyck-2 next-symbol prediction, scored on closing brackets.

    Source vocabulary ``( ) [ ]``; target adds ``<eos>``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> task = ParenthesisPrediction(Regime(4, 4, max_depth=6))
      >>> ex = task.sample(random.Random(0))
      >>> task.source_text(ex), task.target_text(ex), ex.eval_mask
      ('[ ] ( )', '] ( ) <eos>', (1, 0, 1, 0))
    """

    name = "parenthesis_prediction"
    GRAMMAR = {
        "S": [("S", "T"), ("T", "S"), ("T",)],
        "T": [("(", "T", ")"), ("(", ")"), ("[", "T", "]"), ("[", "]")],
    }
    SOURCE_VOCAB = ("(", ")", "[", "]")
    SCORED = frozenset({")", "]"})
