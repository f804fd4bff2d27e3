"""TFDS builder for ``itg_svo_sov``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class ItgSvoSov(base.TaskBuilder):
    """SVO to SOV transduction from a synchronous grammar (Grefenstette et al. 2015, §4.2, App. C).

    Grammar: Appendix C: ``A -> S1 VT2 O3 ||| S1 O3 VT2``
    with relative clauses ``S1 rpi S2 VT3 ||| S1 rpo S2 VT3``. The 128
    class words are split 43/43/42 over subjects, objects and verbs
    (``si*/oi*/vi*`` -> ``so*/oo*/vo*``). Training/validation sentences
    are rejection-sampled to lengths 8..64, test to 65..128.

    Choices where the paper is silent: the rule probabilities (not
    given in the paper's text) are S: S S 0.28, S rpi S VT 0.22, ST 0.50; O: O O 0.30,
    S rpi S VT 0.25, OT 0.45, tuned with the exact length distribution to
    spread lengths as evenly as a PCFG can (a critical branching process;
    lengths still fall off about as n^-3/2, see the histograms in
    ``tfds_tasks/README.md``, measured by ``benchmarks/itg_lengths.py``).

    Configs ``default_scale`` and ``default_scale_one_word`` have the
    experiments' default-scale lengths (train 8..16, test 17..32) with 32
    class words and with 3 (one per class; source vocabulary ``rpi si0 oi0
    vi0``).
    """

    name = "itg_svo_sov"
    TASK_NAME = "itg_svo_sov"
    PAPER = "grefenstette2015"
    VERSION = tfds.core.Version("1.1.0")
    RELEASE_NOTES = {
        "1.0.0": "Initial release.",
        "1.1.0": "Configs default_scale and default_scale_one_word; earlier configs unchanged.",
    }
    BUILDER_CONFIGS = base.configs_for("itg_svo_sov")
