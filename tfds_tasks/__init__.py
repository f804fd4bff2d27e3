"""Exact, deterministic TFDS datasets for the tasks of two neural-stack papers.

Importing this package registers one TFDS builder per task, so that, with
no network::

    import tensorflow_datasets as tfds
    import tfds_tasks

    ds = tfds.load("itg_svo_sov", split="test")

Tasks (see ``tfds_tasks/README.md``): from Grefenstette et al. (2015)
``sequence_copy``, ``sequence_reversal``, ``bigram_flip``, ``itg_svo_sov``,
``itg_gender_conjugation``; from Hao et al. (2018) ``string_reversal``,
``cumulative_xor``, ``delayed_xor``, ``parenthesis_prediction``,
``boolean_formula``, ``subject_auxiliary_agreement``; and, as one builder
``chomsky_hierarchy`` with a config per task, the 15 tasks of Delétang et
al. (2023), e.g. ``tfds.load("chomsky_hierarchy/reverse_string")``.

Public API:

* :data:`TASK_NAMES`; :mod:`tfds_tasks.generators` (pure Python, no
  TensorFlow) with ``generate``, ``sample_stream``, ``make_task``.
* :func:`stream`: infinite seeded ``tf.data`` training stream.
* :func:`make_joint_sequence`, :func:`make_aligned_sequence`,
  :func:`training_map_fn`: the model's training sequences (``joint``);
  :class:`Layout`: a layout's ids for given vocabularies, which the model
  builders and the decoder of ``keras_neural_memory.models`` take.
* :mod:`chomsky_hierarchy` (``tfds_tasks.generators.chomsky_hierarchy``):
  the Delétang et al. tasks (``CHOMSKY_TASKS``) and their seeded NumPy
  streams (``batches``, ``training_batches``, ``evaluation_batches``).
* :class:`TaskBuilder`, :class:`TaskBuilderConfig`, :data:`BUILDERS`,
  :class:`ChomskyHierarchy`, :class:`ChomskyHierarchyConfig`: these
  need TFDS, and ``stream`` and ``training_map_fn`` TensorFlow; the
  generators and the NumPy layouts need neither.
"""

import importlib.util

from tfds_tasks import generators, joint
from tfds_tasks.generators import TASK_NAMES, Example, Regime, TaskSettings, chomsky_hierarchy
from tfds_tasks.joint import (
    Layout,
    layout_for,
    make_aligned_sequence,
    make_joint_sequence,
    target_ids_from_outputs,
    training_map_fn,
    vocab_sizes,
)
from tfds_tasks.streaming import stream

# The builders are TFDS's: importing them registers them with TFDS (and
# imports TensorFlow). Without TFDS installed, the generators, layouts and
# streams above still work, and the builders' names say what is missing.
_BUILDER_NAMES = ("BUILDERS", "ChomskyHierarchy", "ChomskyHierarchyConfig", "TaskBuilder", "TaskBuilderConfig")
if importlib.util.find_spec("tensorflow_datasets") is not None:
    from tfds_tasks.builders import (
        BUILDERS,
        ChomskyHierarchy,
        ChomskyHierarchyConfig,
        TaskBuilder,
        TaskBuilderConfig,
    )


def __getattr__(name):
    if name in _BUILDER_NAMES:
        raise ImportError(f"tfds_tasks.{name} needs TFDS; install it with: pip install tensorflow-datasets")
    raise AttributeError(f"module 'tfds_tasks' has no attribute {name!r}")

__all__ = [
    "BUILDERS",
    "ChomskyHierarchy",
    "ChomskyHierarchyConfig",
    "Example",
    "Layout",
    "Regime",
    "TASK_NAMES",
    "TaskBuilder",
    "TaskBuilderConfig",
    "TaskSettings",
    "chomsky_hierarchy",
    "generators",
    "joint",
    "layout_for",
    "make_aligned_sequence",
    "make_joint_sequence",
    "stream",
    "target_ids_from_outputs",
    "training_map_fn",
    "vocab_sizes",
]
