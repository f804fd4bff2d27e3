"""TFDS builder for ``bigram_flip``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class BigramFlip(base.TaskBuilder):
    """Bigram flipping: swap each adjacent pair (Grefenstette et al. 2015, §4.1).

    Sources have even length, drawn uniformly over the even lengths of the
    range from 128 symbols. Choice where the paper is silent: its test range
    65..128 begins with an odd length, so the test range is 66..128 (the
    odd lengths are simply not allowed; an odd bound raises ValueError).
    """

    name = "bigram_flip"
    TASK_NAME = "bigram_flip"
    PAPER = "grefenstette2015"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("bigram_flip")
