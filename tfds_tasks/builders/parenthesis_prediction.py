"""TFDS builder for ``parenthesis_prediction``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class ParenthesisPrediction(base.TaskBuilder):
    """Dyck-2 next-symbol prediction scored on closing brackets (Hao et al. 2018, §4.3, §5).

    Strings from the printed CFG ``S -> S T | T S | T``, ``T -> ( T ) | ( )
    | [ T ] | [ ]``; training depth <= 6 (length <= 20), test depth <= 12
    (length <= 110), as in §5. ``target[t] = source[t+1]`` (``<eos>`` last);
    ``eval_mask`` is 1 where the target is ``)`` or ``]``.

    Choices where the paper is silent: depth is tree height counting the
    terminal level (this reproduces the paper's 20 and 110); the length is
    uniform over the possible lengths, then the derivation uniform among
    those of that length; test strings are restricted to lengths 22..110 so
    they are all longer than training strings.
    """

    name = "parenthesis_prediction"
    TASK_NAME = "parenthesis_prediction"
    PAPER = "hao2018"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("parenthesis_prediction")
