"""TFDS builder for ``itg_gender_conjugation``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class ItgGenderConjugation(base.TaskBuilder):
    """Genderless to gendered articles from a synchronous grammar (Grefenstette et al. 2015, §4.2, App. C).

    Grammar: Appendix C: noun phrases ``the/a`` + noun
    become ``der/die/das`` or ``ein/eine/ein`` by the noun class; ``and ->
    und``, ``or -> oder``. The 128 class words are split 32 each over verbs
    and masculine, feminine and neuter nouns. Training/validation sentences
    are rejection-sampled to lengths 8..64, test to 65..128.

    Choices where the paper is silent: two rules are added, ``B -> S1 |||
    S1`` (without it every noun phrase needs a conjunction) and ``A -> V1
    ||| V1`` (the paper's sample starts with a verb). Rule probabilities
    (lost in the paper): A: B 0.9, V 0.1; B: B or B 0.20, S and S 0.25,
    B V 0.45, S 0.10; V: W B 0.3, W 0.7; the six article rules 1/6 each.
    Tuned with the exact length distribution; histograms in
    ``tfds_tasks/README.md`` (``benchmarks/itg_lengths.py``).

    Configs ``default_scale`` and ``default_scale_one_word`` have the
    experiments' default-scale lengths (train 8..16, test 17..32) with 32
    class words and with 4 (one per class; source vocabulary ``the a and
    or we0 me0 fe0 ne0``).
    """

    name = "itg_gender_conjugation"
    TASK_NAME = "itg_gender_conjugation"
    PAPER = "grefenstette2015"
    VERSION = tfds.core.Version("1.1.0")
    RELEASE_NOTES = {
        "1.0.0": "Initial release.",
        "1.1.0": "Configs default_scale and default_scale_one_word; earlier configs unchanged.",
    }
    BUILDER_CONFIGS = base.configs_for("itg_gender_conjugation")
