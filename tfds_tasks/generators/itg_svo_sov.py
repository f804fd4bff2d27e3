"""SVO to SOV ITG task (Grefenstette et al. 2015, §4.2 and Appendix C).

The grammar is the paper's Table 1 (Appendix C, with its typesetting errors corrected). Rule
probabilities were lost from the paper; the values below were tuned with
``SyncGrammar.length_distribution`` (see ``benchmarks/itg_lengths.py``) to
make lengths in 8..128 as even as a PCFG allows. Both recursive
nonterminals are set at criticality (expected number of recursive
children = 1: 2 * (0.28 + 0.22) = 1 for S, and close to it for O), since any
sub- or super-critical setting decays faster than the n^-3/2 length tail of
a critical branching process.
"""

from __future__ import annotations

from tfds_tasks.generators.itg import ItgTask, LexicalClass, rule

RULES = (
    rule("A", "S1 VT2 O3", "S1 O3 VT2", 1.0),
    rule("S", "S1 S2", "S1 S2", 0.28),
    rule("S", "S1 rpi S2 VT3", "S1 rpo S2 VT3", 0.22),
    rule("S", "ST1", "ST1", 0.50),
    rule("O", "O1 O2", "O1 O2", 0.30),
    rule("O", "S1 rpi S2 VT3", "S1 rpo S2 VT3", 0.25),
    rule("O", "OT1", "OT1", 0.45),
)

LEXICAL = (
    LexicalClass("ST", "si", "so"),
    LexicalClass("OT", "oi", "oo"),
    LexicalClass("VT", "vi", "vo"),
)


class ItgSvoSov(ItgTask):
    """Subject-verb-object to subject-object-verb, with relative clauses.

    Source vocabulary: ``rpi`` then ``si*``, ``oi*``, ``vi*`` (43 + 43 + 42
    words for the default 128). Target: ``rpo``, ``so*``, ``oo*``, ``vo*``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.base import Regime
      >>> task = ItgSvoSov(Regime(8, 12))
      >>> ex = task.sample(random.Random(0))
      >>> 8 <= len(ex.source) == len(ex.target) <= 12
      True
    """

    name = "itg_svo_sov"
    RULES = RULES
    LEXICAL = LEXICAL
    SOURCE_FUNCTION_WORDS = ("rpi",)
    TARGET_FUNCTION_WORDS = ("rpo",)
