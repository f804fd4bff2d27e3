"""TFDS builders, one module per task; importing this registers them all."""

from tfds_tasks.builders.base import TaskBuilder, TaskBuilderConfig, configs_for
from tfds_tasks.builders.bigram_flip import BigramFlip
from tfds_tasks.builders.boolean_formula import BooleanFormula
from tfds_tasks.builders.cumulative_xor import CumulativeXor
from tfds_tasks.builders.delayed_xor import DelayedXor
from tfds_tasks.builders.itg_gender_conjugation import ItgGenderConjugation
from tfds_tasks.builders.itg_svo_sov import ItgSvoSov
from tfds_tasks.builders.parenthesis_prediction import ParenthesisPrediction
from tfds_tasks.builders.sequence_copy import SequenceCopy
from tfds_tasks.builders.sequence_reversal import SequenceReversal
from tfds_tasks.builders.string_reversal import StringReversal
from tfds_tasks.builders.subject_auxiliary_agreement import SubjectAuxiliaryAgreement

BUILDERS = {
    cls.name: cls
    for cls in (
        SequenceCopy,
        SequenceReversal,
        BigramFlip,
        ItgSvoSov,
        ItgGenderConjugation,
        StringReversal,
        CumulativeXor,
        DelayedXor,
        ParenthesisPrediction,
        BooleanFormula,
        SubjectAuxiliaryAgreement,
    )
}

__all__ = ["BUILDERS", "TaskBuilder", "TaskBuilderConfig", "configs_for"] + [
    cls.__name__ for cls in BUILDERS.values()
]
