"""TFDS builder for ``cumulative_xor``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class CumulativeXor(base.TaskBuilder):
    """Cumulative XOR: output the XOR of all bits read so far (Hao et al. 2018, §4.2).

    Uniform random bits; length 12 for training/validation, 24 for test
    (§5, Experiment 2). Every position is scored (``eval_mask`` all ones).
    """

    name = "cumulative_xor"
    TASK_NAME = "cumulative_xor"
    PAPER = "hao2018"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("cumulative_xor")
