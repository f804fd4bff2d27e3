"""TFDS builder for ``delayed_xor``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class DelayedXor(base.TaskBuilder):
    """Delayed XOR: output the XOR of all bits before the current one (Hao et al. 2018, §4.2).

    Uniform random bits; length 12 for training/validation, 24 for test
    (§5, Experiment 2). The first output is 0 (the XOR of no bits). Every
    position is scored.
    """

    name = "delayed_xor"
    TASK_NAME = "delayed_xor"
    PAPER = "hao2018"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("delayed_xor")
