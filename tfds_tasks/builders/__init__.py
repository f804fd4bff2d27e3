"""TFDS builders, one module per task; importing this registers them all."""

import tensorflow_datasets as tfds

from tfds_tasks.builders.base import TaskBuilder, TaskBuilderConfig, configs_for
from tfds_tasks.builders.bigram_flip import BigramFlip
from tfds_tasks.builders.boolean_formula import BooleanFormula
from tfds_tasks.builders.chomsky_hierarchy import ChomskyHierarchy, ChomskyHierarchyConfig
from tfds_tasks.builders.cumulative_xor import CumulativeXor
from tfds_tasks.builders.delayed_xor import DelayedXor
from tfds_tasks.builders.itg_gender_conjugation import ItgGenderConjugation
from tfds_tasks.builders.itg_svo_sov import ItgSvoSov
from tfds_tasks.builders.parenthesis_prediction import ParenthesisPrediction
from tfds_tasks.builders.sequence_copy import SequenceCopy
from tfds_tasks.builders.sequence_reversal import SequenceReversal
from tfds_tasks.builders.string_reversal import StringReversal
from tfds_tasks.builders.subject_auxiliary_agreement import SubjectAuxiliaryAgreement
from tfds_tasks.generators import TASK_NAMES

# The imports above register every builder with TFDS; list them in task order.
# ``chomsky_hierarchy`` (one builder, a config per task of Delétang et al.
# 2023) has other features and splits, so it is not one of these.
BUILDERS = {name: tfds.builder_cls(name) for name in TASK_NAMES}

__all__ = [
    "BUILDERS",
    "BigramFlip",
    "BooleanFormula",
    "ChomskyHierarchy",
    "ChomskyHierarchyConfig",
    "CumulativeXor",
    "DelayedXor",
    "ItgGenderConjugation",
    "ItgSvoSov",
    "ParenthesisPrediction",
    "SequenceCopy",
    "SequenceReversal",
    "StringReversal",
    "SubjectAuxiliaryAgreement",
    "TaskBuilder",
    "TaskBuilderConfig",
    "configs_for",
]
