"""TFDS builder for ``subject_auxiliary_agreement``."""

import tensorflow_datasets as tfds

from tfds_tasks.builders import base


class SubjectAuxiliaryAgreement(base.TaskBuilder):
    """Subject-auxiliary agreement: next-word prediction scored on has/have (Hao et al. 2018, §4.5, §5).

    Sentences from the §4.5 CFG (lobsters, PPs, subject and object relative
    clauses). ``target[t] = source[t+1]`` (``<eos>`` last); ``eval_mask`` is
    1 where the target is ``has`` or ``have``. Training depth <= 16
    (length <= 23), test depth <= 32 and length <= 49, as in §5.

    Choices where the paper is silent: ``(PP | Rel)`` is read as an optional
    modifier of ``the lobster(s)``; depth 32 allows length 51, so the test
    length is capped at the paper's 49; lengths uniform, then derivations
    uniform; test lengths 24..49 (longer than any training sentence).
    """

    name = "subject_auxiliary_agreement"
    TASK_NAME = "subject_auxiliary_agreement"
    PAPER = "hao2018"
    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    BUILDER_CONFIGS = base.configs_for("subject_auxiliary_agreement")
