"""TFDS builder for ``sequence_reversal``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class SequenceReversal(base.TaskBuilder):
    """Sequence reversal: the target is the reversed source (Grefenstette et al. 2015, §4.1).

    Sources are drawn uniformly from 128 symbols (``x0``..``x127``); the
    target vocabulary is separate (``y0``..``y127``). Training/validation
    lengths are uniform on 8..64, test lengths on 65..128 (§4.1, §4.3).
    """

    name = "sequence_reversal"
    TASK_NAME = "sequence_reversal"
    PAPER = "grefenstette2015"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("sequence_reversal")
