"""TFDS builder for ``string_reversal``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class StringReversal(base.TaskBuilder):
    """String reversal with delayed output, f(w #^|w|) = #^|w| w^R (Hao et al. 2018, §3, §4.1).

    Binary ``w``; ``eval_mask`` scores only the ``w^R`` half (§4.1).
    Choice where the paper is silent (§5 gives only mean lengths 10 and 20):
    ``|w|`` is uniform on 5..15 for training/validation and 16..24 for
    test, so every test string is longer than every training string.
    """

    name = "string_reversal"
    TASK_NAME = "string_reversal"
    PAPER = "hao2018"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("string_reversal")
