"""TFDS builder for the 15 tasks of Delétang et al. (2023), one config per task."""

from __future__ import annotations

import dataclasses

import numpy as np
import tensorflow_datasets as tfds

from tfds_tasks.builders.base import CITATIONS, HOMEPAGES
from tfds_tasks.generators.base import check_int
from tfds_tasks.generators.chomsky_hierarchy import (
    CHOMSKY_TASKS,
    chomsky_task,
    evaluation_batches,
    training_batches,
)


@dataclasses.dataclass(eq=False, kw_only=True)
class ChomskyHierarchyConfig(tfds.core.BuilderConfig):
    """A config: which task, the split sizes and lengths, and the seed.

    Args:
      name: the config name (the task name for the named configs).
      task_name: a name of ``CHOMSKY_TASKS``; defaults to ``name``.
      train_size: examples in ``train``, each of its own length.
      train_lengths: ``(min, max)``: every ``train`` example's length is
        uniform on this range.
      test_sequences_per_length: ``test`` examples of every length.
      test_lengths: ``(min, max)``: ``test`` holds every length of the range.
      seed: the seed of both splits.

    Example:
      >>> cfg = ChomskyHierarchyConfig(name="bucket_sort")
      >>> cfg.task_name, cfg.train_size, cfg.test_size
      ('bucket_sort', 10000, 16000)
    """

    task_name: str = ""
    train_size: int = 10_000
    train_lengths: tuple[int, int] = (1, 40)
    test_sequences_per_length: int = 32
    test_lengths: tuple[int, int] = (1, 500)
    seed: int = 0

    def __post_init__(self):
        if not self.task_name:
            self.task_name = self.name
        chomsky_task(self.task_name)
        check_int(self.train_size, "train_size", minimum=0)
        check_int(self.test_sequences_per_length, "test_sequences_per_length", minimum=0)
        check_int(self.seed, "seed")
        for what in ("train_lengths", "test_lengths"):
            value = getattr(self, what)
            if not (isinstance(value, (tuple, list)) and len(value) == 2):
                raise ValueError(f"{what} must be a (min, max) pair of ints, got {value!r}")
            low, high = (check_int(v, what, minimum=1) for v in value)
            if low > high:
                raise ValueError(f"{what} is empty: {low} > {high}; pass (min, max) with min <= max")

    @property
    def test_size(self) -> int:
        """Returns the number of ``test`` examples."""
        low, high = self.test_lengths
        return (high - low + 1) * self.test_sequences_per_length


class ChomskyHierarchy(tfds.core.GeneratorBasedBuilder):
    """The 15 length-generalisation tasks of the Chomsky hierarchy (Delétang et al. 2023, appendix).

    One config per task, named after it: regular (``even_pairs``,
    ``parity_check``, ``cycle_navigation``, ``modular_arithmetic``),
    deterministic context-free (``reverse_string``,
    ``stack_manipulation``, ``modular_arithmetic_brackets``,
    ``solve_equation``) and context-sensitive (``duplicate_string``,
    ``missing_duplicate_string``, ``odds_first``, ``binary_addition``,
    ``binary_multiplication``, ``compute_sqrt``, ``bucket_sort``). Token
    ids, vocabulary sizes, output lengths and sampling rules are those of
    the authors' code; each config's description gives them.

    Features: ``input`` and ``output`` (int32 token ids; the model reads
    the input and emits all outputs at once, non-autoregressively, as the
    authors train), ``output_mask`` (int32, 1 where the output counts: up
    to and including the terminator for the three tasks that have one, 1
    everywhere otherwise) and ``length`` (the authors' ``length``
    argument the example was drawn with).

    ``train``: 10,000 examples, each of a length uniform on 1..40, the
    paper's training lengths; ``test``: 32 examples of every length
    1..500 (the paper evaluates 512 of each, a stream that
    ``tfds_tasks.generators.chomsky_hierarchy.evaluation_batches`` gives).
    Choice where the paper is silent: the fixed ``train`` split exists for
    convenience; the paper trains on a fresh stream, which
    ``training_batches`` gives. Data is generated locally, seeded.
    """

    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "Initial release."}
    PAPER = "deletang2023"
    BUILDER_CONFIGS = [
        ChomskyHierarchyConfig(name=name, description=task.description)
        for name, task in CHOMSKY_TASKS.items()
    ]

    @classmethod
    def make_config(cls, name: str, based_on: str = "reverse_string", **changes) -> ChomskyHierarchyConfig:
        """Returns a custom config: a named config with some fields changed.

        Args:
          name: the new config's name (must differ from the named configs).
          based_on: the named config (task) to start from.
          **changes: fields of :class:`ChomskyHierarchyConfig` to replace.

        Returns:
          The new config; pass it as ``tfds.builder("chomsky_hierarchy", config=...)``.

        Raises:
          ValueError: for an unknown ``based_on`` or invalid values.

        Example:
          >>> cfg = ChomskyHierarchy.make_config("sort_short", based_on="bucket_sort",
          ...                                    train_size=100, test_lengths=(41, 60))
          >>> cfg.task_name, cfg.test_size
          ('bucket_sort', 640)
        """
        base = {c.name: c for c in cls.BUILDER_CONFIGS}
        if based_on not in base:
            raise ValueError(f"unknown config {based_on!r}; pass one of: {', '.join(base)}")
        if name in base:
            raise ValueError(f"config name {name!r} is taken by a named config; pass a new name")
        return dataclasses.replace(base[based_on], name=name, task_name=base[based_on].task_name, **changes)

    def _info(self) -> tfds.core.DatasetInfo:
        doc = (type(self).__doc__ or "").strip().split("\n\n")[0]
        return tfds.core.DatasetInfo(
            builder=self,
            description=" ".join(doc.split()),
            features=tfds.features.FeaturesDict(
                {
                    "input": tfds.features.Sequence(np.int32),
                    "output": tfds.features.Sequence(np.int32),
                    "output_mask": tfds.features.Sequence(np.int32),
                    "length": np.int32,
                }
            ),
            supervised_keys=("input", "output"),
            homepage=HOMEPAGES[self.PAPER],
            citation=CITATIONS[self.PAPER],
        )

    def _split_generators(self, dl_manager):
        del dl_manager  # everything is generated locally
        config = self.builder_config
        train = training_batches(
            config.task_name,
            config.seed,
            batch_size=1,
            min_length=config.train_lengths[0],
            max_length=config.train_lengths[1],
            num_batches=config.train_size,
            with_lengths=True,
        )
        test = evaluation_batches(
            config.task_name,
            config.seed,
            min_length=config.test_lengths[0],
            max_length=config.test_lengths[1],
            sequences_per_length=config.test_sequences_per_length,
            batch_size=max(1, config.test_sequences_per_length),
        )
        return {
            "train": self._generate_examples(train),
            "test": self._generate_examples(test),
        }

    def _generate_examples(self, length_batches):
        index = 0
        for length, batch in length_batches:
            for inputs, outputs, mask in zip(*batch):
                yield index, {"input": inputs, "output": outputs, "output_mask": mask, "length": length}
                index += 1
