"""Genderless to gendered ITG task (Grefenstette et al. 2015, §4.2, App. C).

The grammar is the paper's Table 1 (Appendix C, with its typesetting errors corrected) plus two
rules the printed table lacks, each the smallest addition that lets the
grammar produce what the paper describes:

* ``B -> S1 ||| S1``: without it every noun phrase B needs a conjunction,
  so the "NP V NP" / "NP V" sentences of the prose could never have a
  single noun.
* ``A -> V1 ||| V1``: the paper's own sample ``we11 the en19 and the em17``
  starts with a verb, which no derivation from ``A -> B1`` can do.

Rule probabilities were lost; the values below were tuned with
``SyncGrammar.length_distribution`` (see ``benchmarks/itg_lengths.py``) to
make lengths in 8..128 as even as a PCFG allows: B is kept just below
criticality (expected recursive B children 2*0.2 + 0.45*(1+0.3) = 0.985).
The six article rules are equiprobable (each terminal class is balanced).
"""

from __future__ import annotations

from tfds_tasks.generators.itg import ItgTask, LexicalClass, rule

_ARTICLES = (
    ("the", "der", "M"),
    ("the", "die", "F"),
    ("the", "das", "N"),
    ("a", "ein", "M"),
    ("a", "eine", "F"),
    ("a", "ein", "N"),
)

RULES = (
    rule("A", "B1", "B1", 0.9),
    rule("A", "V1", "V1", 0.1),  # addition, see module docstring
    rule("B", "B1 or B2", "B1 oder B2", 0.20),
    rule("B", "S1 and S2", "S1 und S2", 0.25),
    rule("B", "B1 V1", "B1 V1", 0.45),
    rule("B", "S1", "S1", 0.10),  # addition, see module docstring
    rule("V", "W1 B2", "W1 B2", 0.3),
    rule("V", "W1", "W1", 0.7),
) + tuple(rule("S", f"{src} {g}1", f"{tgt} {g}1", 1 / 6) for src, tgt, g in _ARTICLES)

LEXICAL = (
    LexicalClass("W", "we", "wg"),
    LexicalClass("M", "me", "mg"),
    LexicalClass("F", "fe", "fg"),
    LexicalClass("N", "ne", "ng"),
)


class ItgGenderConjugation(ItgTask):
    """English-like articles (the, a) to German-like gendered ones.

    Source vocabulary: ``the a and or`` then ``we* me* fe* ne*`` (32 words
    each for the default 128). Target: ``der die das ein eine und oder`` then
    ``wg* mg* fg* ng*``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> task = ItgGenderConjugation(Regime(8, 12))
      >>> ex = task.sample(random.Random(0))
      >>> 8 <= len(ex.source) == len(ex.target) <= 12
      True
    """

    name = "itg_gender_conjugation"
    RULES = RULES
    LEXICAL = LEXICAL
    SOURCE_FUNCTION_WORDS = ("the", "a", "and", "or")
    TARGET_FUNCTION_WORDS = ("der", "die", "das", "ein", "eine", "und", "oder")
