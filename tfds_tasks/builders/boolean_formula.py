"""TFDS builder for ``boolean_formula``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class BooleanFormula(base.TaskBuilder):
    """Boolean formula evaluation in reverse Polish notation (Hao et al. 2018, §4.4, §5).

    Formulas from ``S -> S S or | S S and | T | F``; at each step the
    target is the value of the longest sub-formula ending there (all steps
    scored). Training depth <= 6 (length <= 15), test depth <= 7 (length
    <= 31), as in §5.

    Choices where the paper is silent: literals go through a preterminal
    ``L -> T | F`` so that the depth convention gives the paper's 15 and 31;
    lengths uniform, then derivations uniform; test lengths 17..31 (longer
    than any training formula).
    """

    name = "boolean_formula"
    TASK_NAME = "boolean_formula"
    PAPER = "hao2018"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("boolean_formula")
