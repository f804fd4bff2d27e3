"""Subject-auxiliary agreement (Hao et al. 2018, §4.5, §5).

Sentences come from the paper's CFG. The extracted paper prints
``NP_sing -> the lobster | (PP | Rel_sing)``; we read the parentheses as
marking an optional modifier, i.e. ``NP_sing -> the lobster`` optionally
followed by one PP or one singular relative clause (a bare PP or relative
clause is not a noun phrase). The model predicts the next word; only steps
whose correct next word is an auxiliary (``has``/``have``) are scored.

With depth counted as tree height including the terminal level, depth 16
gives sentences of length up to 23, the paper's training figure. Depth 32
allows length 51, while the paper reports 49 for its test set, so the test
regime also caps the length at 49.
"""

from __future__ import annotations

from tfds_tasks.generators.grammar_tasks import NextSymbolTask


class SubjectAuxiliaryAgreement(NextSymbolTask):
    """Next-word prediction scored on ``has``/``have``.

    Source vocabulary: ``the lobster lobsters in that has have slept
    devoured``; the target adds ``<eos>``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> task = SubjectAuxiliaryAgreement(Regime(3, 3, max_depth=16))
      >>> ex = task.sample(random.Random(0))
      >>> task.source_text(ex), ex.eval_mask
      ('the lobsters have', (0, 1, 0))
    """

    name = "subject_auxiliary_agreement"
    GRAMMAR = {
        "S": [("NPs", "has"), ("NPp", "have")],
        "NP": [("NPs",), ("NPp",)],
        "NPs": [("the", "lobster"), ("the", "lobster", "PP"), ("the", "lobster", "RELs")],
        "NPp": [("the", "lobsters"), ("the", "lobsters", "PP"), ("the", "lobsters", "RELp")],
        "PP": [("in", "NP")],
        "RELs": [("that", "has", "VP"), ("RELobj",)],
        "RELp": [("that", "have", "VP"), ("RELobj",)],
        "RELobj": [("that", "NPs", "has", "devoured"), ("that", "NPp", "have", "devoured")],
        "VP": [("slept",), ("devoured", "NP")],
    }
    SOURCE_VOCAB = ("the", "lobster", "lobsters", "in", "that", "has", "have", "slept", "devoured")
    SCORED = frozenset({"has", "have"})
