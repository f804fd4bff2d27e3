"""TFDS builder for ``sequence_copy``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class SequenceCopy(base.TaskBuilder):
    """Sequence copying: the target is the source (Grefenstette et al. 2015, §4.1).

    Sources are drawn uniformly from 128 symbols (``x0``..``x127``); the
    target vocabulary is separate (``y0``..``y127``, ``xi -> yi``).
    Training/validation lengths are uniform on 8..64, test lengths on
    65..128 (§4.1, §4.3). Choice where the paper is silent: the fixed
    ``train`` split exists for convenience; the paper trains on an
    unbounded stream, which :func:`tfds_tasks.stream` provides.
    """

    name = "sequence_copy"
    TASK_NAME = "sequence_copy"
    PAPER = "grefenstette2015"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("sequence_copy")
