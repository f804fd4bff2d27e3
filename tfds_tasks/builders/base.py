"""The one TFDS builder class that every task builder specialises.

A task builder only names its task, its version and cites its source; the
features, configs and split generation live here. Data is generated
locally from :mod:`tfds_tasks.generators`; nothing is downloaded.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import tensorflow_datasets as tfds

from tfds_tasks import generators
from tfds_tasks.generators import Regime, TaskSettings

HOMEPAGES = {
    "grefenstette2015": "https://arxiv.org/abs/1506.02516",
    "hao2018": "https://aclanthology.org/W18-5433/",
    "deletang2023": "https://arxiv.org/abs/2207.02098",
}

CITATIONS = {
    "grefenstette2015": """@inproceedings{grefenstette2015learning,
  title={Learning to Transduce with Unbounded Memory},
  author={Grefenstette, Edward and Hermann, Karl Moritz and Suleyman, Mustafa and Blunsom, Phil},
  booktitle={Advances in Neural Information Processing Systems},
  year={2015}
}""",
    "hao2018": """@inproceedings{hao2018context,
  title={Context-Free Transductions with Neural Stacks},
  author={Hao, Yiding and Merrill, William and Angluin, Dana and Frank, Robert and Amsel, Noah and Benz, Andrew and Mendelsohn, Simon},
  booktitle={Proceedings of the 2018 EMNLP Workshop BlackboxNLP},
  year={2018}
}""",
    "deletang2023": """@inproceedings{deletang2023neural,
  title={Neural Networks and the Chomsky Hierarchy},
  author={Del{\\'e}tang, Gr{\\'e}goire and Ruoss, Anian and Grau-Moya, Jordi and Genewein, Tim and Wenliang, Li Kevin and Catt, Elliot and Cundy, Chris and Hutter, Marcus and Legg, Shane and Veness, Joel and Ortega, Pedro A.},
  booktitle={International Conference on Learning Representations},
  year={2023}
}""",
}


@dataclasses.dataclass(eq=False, kw_only=True)
class TaskBuilderConfig(tfds.core.BuilderConfig):
    """A builder config: split sizes, length/depth ranges, vocabulary, seed.

    Lengths are inclusive ``(min, max)`` pairs. ``validation`` uses the
    training ranges. Depths are only used by the grammar tasks of Hao et
    al. (parenthesis prediction, boolean formulas, agreement).

    Args:
      name: the config name.
      train_size: examples in ``train``.
      validation_size: examples in ``validation``.
      test_size: examples in ``test``.
      train_lengths: ``(min, max)`` length of ``train``/``validation``.
      test_lengths: ``(min, max)`` length of ``test``.
      train_max_depth: derivation-depth bound of ``train``/``validation``.
      test_max_depth: derivation-depth bound of ``test``.
      vocab_size: content-vocabulary size (copy/reversal/flip/ITG) or None.
      seed: base seed of the splits.

    Example:
      >>> cfg = TaskBuilderConfig(name="short", train_size=100,
      ...     validation_size=10, test_size=10, train_lengths=(2, 5),
      ...     test_lengths=(6, 9))
      >>> cfg.to_settings().test.max_length
      9
    """

    train_size: int
    validation_size: int
    test_size: int
    train_lengths: tuple[int, int]
    test_lengths: tuple[int, int]
    train_max_depth: int | None = None
    test_max_depth: int | None = None
    vocab_size: int | None = None
    seed: int = 0

    def to_settings(self) -> TaskSettings:
        """Returns the pure-Python :class:`TaskSettings` (validating them)."""
        for what in ("train_lengths", "test_lengths"):
            value = getattr(self, what)
            if not isinstance(value, (tuple, list)) or len(value) != 2:
                raise ValueError(f"{what} must be a (min, max) pair, got {value!r}")
        return TaskSettings(
            train_size=self.train_size,
            validation_size=self.validation_size,
            test_size=self.test_size,
            train=Regime(*self.train_lengths, max_depth=self.train_max_depth),
            test=Regime(*self.test_lengths, max_depth=self.test_max_depth),
            vocab_size=self.vocab_size,
            seed=self.seed,
        )

    @classmethod
    def from_settings(
        cls, name: str, settings: TaskSettings, description: str | None = None
    ) -> "TaskBuilderConfig":
        """Builds a config from :class:`TaskSettings`."""
        return cls(
            name=name,
            description=description,
            train_size=settings.train_size,
            validation_size=settings.validation_size,
            test_size=settings.test_size,
            train_lengths=(settings.train.min_length, settings.train.max_length),
            test_lengths=(settings.test.min_length, settings.test.max_length),
            train_max_depth=settings.train.max_depth,
            test_max_depth=settings.test.max_depth,
            vocab_size=settings.vocab_size,
            seed=settings.seed,
        )


def configs_for(task_name: str) -> list[TaskBuilderConfig]:
    """Returns the named configs (default, paper, tiny) of a task."""
    return [
        TaskBuilderConfig.from_settings(name, s, generators.DESCRIPTIONS[name])
        for name, s in generators.SETTINGS[task_name].items()
    ]


class TaskBuilder(tfds.core.GeneratorBasedBuilder, skip_registration=True):
    """Base TFDS builder: one subclass per task, sharing everything else.

    Features:

    * ``source``, ``target``: ``Sequence(ClassLabel)`` token ids; the names
      are the vocabularies (``info.features["source"].feature.names``).
    * ``source_text``, ``target_text``: space-separated token names.
    * ``eval_mask`` (Hao et al. tasks only): int32, 1 where ``target`` is
      scored.

    Subclasses set ``name``, ``TASK_NAME``, ``PAPER`` (a key of
    ``CITATIONS``), ``VERSION``, ``RELEASE_NOTES`` and ``BUILDER_CONFIGS``.
    """

    TASK_NAME: ClassVar[str] = ""
    PAPER: ClassVar[str] = ""
    DEFAULT_BUILDER_CONFIG_NAME = "default"

    @classmethod
    def make_config(
        cls, name: str, based_on: str = "default", **changes
    ) -> TaskBuilderConfig:
        """Returns a custom config: a named config with some fields changed.

        Args:
          name: the new config's name (must differ from the named configs).
          based_on: the config to start from.
          **changes: fields of :class:`TaskBuilderConfig` to replace.

        Returns:
          The new config; pass it as ``tfds.builder(name, config=...)``.

        Raises:
          ValueError: for an unknown ``based_on`` or invalid values.

        Example:
          >>> from tfds_tasks.builders.sequence_copy import SequenceCopy
          >>> cfg = SequenceCopy.make_config("short", train_lengths=(2, 5))
          >>> cfg.train_lengths, cfg.test_lengths
          ((2, 5), (65, 128))
        """
        base = {c.name: c for c in cls.BUILDER_CONFIGS}
        if based_on not in base:
            raise ValueError(
                f"unknown config {based_on!r} for {cls.name}; known: {', '.join(base)}"
            )
        config = dataclasses.replace(base[based_on], name=name, description=None, **changes)
        generators.tasks_for(cls.TASK_NAME, config.to_settings())  # validate now
        return config

    def _settings_and_tasks(self):
        # Cached: TFDS calls _info() from inside DatasetBuilder.__init__.
        cached = getattr(self, "_cached_tasks", None)
        if cached is None:
            settings = self.builder_config.to_settings()
            cached = (settings, *generators.tasks_for(self.TASK_NAME, settings))
            self._cached_tasks = cached
        return cached

    def _info(self) -> tfds.core.DatasetInfo:
        _, task, _ = self._settings_and_tasks()
        features = {
            "source": tfds.features.Sequence(tfds.features.ClassLabel(names=task.source_vocab)),
            "target": tfds.features.Sequence(tfds.features.ClassLabel(names=task.target_vocab)),
            "source_text": tfds.features.Text(),
            "target_text": tfds.features.Text(),
        }
        if task.uses_eval_mask:
            features["eval_mask"] = tfds.features.Sequence(np.int32)
        doc = (type(self).__doc__ or "").strip().split("\n\n")[0]
        return tfds.core.DatasetInfo(
            builder=self,
            description=doc,
            features=tfds.features.FeaturesDict(features),
            supervised_keys=("source", "target"),
            homepage=HOMEPAGES.get(self.PAPER),
            citation=CITATIONS.get(self.PAPER),
        )

    def _split_generators(self, dl_manager):
        del dl_manager  # everything is generated locally
        settings, train_task, test_task = self._settings_and_tasks()
        splits = generators.generate_splits(self.TASK_NAME, train_task, test_task, settings)
        return {
            split: self._generate_examples(examples=examples, task=train_task)
            for split, examples in splits.items()
        }

    def _generate_examples(self, examples, task):
        # Train and test tasks share vocabularies, so either renders text.
        for i, ex in enumerate(examples):
            features = {
                "source": list(ex.source),
                "target": list(ex.target),
                "source_text": task.source_text(ex),
                "target_text": task.target_text(ex),
            }
            if task.uses_eval_mask:
                features["eval_mask"] = np.asarray(ex.eval_mask, dtype=np.int32)
            yield i, features
