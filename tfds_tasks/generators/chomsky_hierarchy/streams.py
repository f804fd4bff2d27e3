"""Seeded NumPy batch streams for the protocol of Delétang et al. (2023).

The protocol (their experimental setup): train on batches of 128 whose one
length is drawn uniformly from 1..40 per batch; evaluate on 512 sequences
of every length 1..500. Both are streams here, generated a batch at a
time, so memory holds one batch whatever the number of sequences (the
evaluation is some 64 million tokens per task).

Every stream is a pure function of its arguments: the same seed gives the
same batches, on any machine. Each length of :func:`batches` has a seed of
its own, so one length can be regenerated without the others.
"""

from __future__ import annotations

import random
from typing import Iterator

from tfds_tasks.generators.base import check_int, derive_seed
from tfds_tasks.generators.chomsky_hierarchy.base import ChomskyBatch, ChomskyTask

TRAIN_MIN_LENGTH = 1
TRAIN_MAX_LENGTH = 40
TRAIN_BATCH_SIZE = 128
EVAL_MAX_LENGTH = 500
EVAL_SEQUENCES_PER_LENGTH = 512
EVAL_BATCH_SIZE = 64


def _task(task_name: str) -> ChomskyTask:
    from tfds_tasks.generators.chomsky_hierarchy import chomsky_task

    return chomsky_task(task_name)


def _check_lengths(min_length: int, max_length: int) -> None:
    check_int(min_length, "min_length", minimum=1)
    check_int(max_length, "max_length", minimum=1)
    if min_length > max_length:
        raise ValueError(
            f"length range is empty: min_length={min_length} > max_length={max_length}; "
            "pass min_length <= max_length"
        )


def batches(
    task_name: str, length: int, batch_size: int, num_sequences: int, seed: int = 0
) -> Iterator[ChomskyBatch]:
    """Yields ``num_sequences`` examples of one ``length``, ``batch_size`` at a time.

    Args:
      task_name: a name of :data:`CHOMSKY_TASKS`, e.g. ``"reverse_string"``.
      length: the authors' ``length`` argument, >= 1.
      batch_size: examples per batch, >= 1; the last batch holds the rest.
      num_sequences: examples in all, >= 0.
      seed: the stream's seed (an int).

    Returns:
      An iterator of :class:`ChomskyBatch` (int32 arrays).

    Raises:
      ValueError: for an unknown task name or an argument out of range.

    Example:
      >>> stream = batches("bucket_sort", length=7, batch_size=4, num_sequences=10, seed=3)
      >>> [b.input.shape for b in stream]
      [(4, 7), (4, 7), (2, 7)]
    """
    task = _task(task_name)
    check_int(length, "length", minimum=1)
    check_int(batch_size, "batch_size", minimum=1)
    check_int(num_sequences, "num_sequences", minimum=0)
    check_int(seed, "seed")
    return _batches(task, length, batch_size, num_sequences, seed)


def _batches(task, length, batch_size, num_sequences, seed):
    rng = random.Random(derive_seed(seed, "chomsky_hierarchy", task.name, "length", length))
    for start in range(0, num_sequences, batch_size):
        yield task.sample_batch(rng, min(batch_size, num_sequences - start), length)


def evaluation_batches(
    task_name: str,
    seed: int = 0,
    *,
    min_length: int = 1,
    max_length: int = EVAL_MAX_LENGTH,
    sequences_per_length: int = EVAL_SEQUENCES_PER_LENGTH,
    batch_size: int = EVAL_BATCH_SIZE,
) -> Iterator[tuple[int, ChomskyBatch]]:
    """Yields the protocol's evaluation: every length, ``sequences_per_length`` each.

    The defaults are the paper's: 512 sequences of every length 1..500,
    here in batches of 64 (the authors' sub-batch size). Length ``L``'s
    batches are ``batches(task_name, L, batch_size, sequences_per_length,
    seed)``.

    Args:
      task_name: a name of :data:`CHOMSKY_TASKS`.
      seed: the stream's seed.
      min_length: the first length, >= 1.
      max_length: the last length, >= ``min_length``.
      sequences_per_length: examples of each length, >= 0.
      batch_size: examples per batch, >= 1.

    Returns:
      An iterator of ``(length, ChomskyBatch)``, lengths increasing.

    Raises:
      ValueError: for an unknown task name or an argument out of range.

    Example:
      >>> stream = evaluation_batches("parity_check", max_length=3, sequences_per_length=5, batch_size=4)
      >>> [(length, b.input.shape) for length, b in stream]
      [(1, (4, 1)), (1, (1, 1)), (2, (4, 2)), (2, (1, 2)), (3, (4, 3)), (3, (1, 3))]
    """
    task = _task(task_name)
    _check_lengths(min_length, max_length)
    check_int(sequences_per_length, "sequences_per_length", minimum=0)
    check_int(batch_size, "batch_size", minimum=1)
    check_int(seed, "seed")
    return (
        (length, batch)
        for length in range(min_length, max_length + 1)
        for batch in _batches(task, length, batch_size, sequences_per_length, seed)
    )


def training_batches(
    task_name: str,
    seed: int = 0,
    *,
    batch_size: int = TRAIN_BATCH_SIZE,
    min_length: int = TRAIN_MIN_LENGTH,
    max_length: int = TRAIN_MAX_LENGTH,
    num_batches: int | None = None,
    with_lengths: bool = False,
) -> Iterator[ChomskyBatch] | Iterator[tuple[int, ChomskyBatch]]:
    """Yields training batches, each of one length uniform on ``min_length..max_length``.

    The paper's training distribution: batches of 128, the length drawn
    uniformly from 1..40 for every batch. The stream never repeats itself
    and is independent of :func:`batches` for the same seed.

    Args:
      task_name: a name of :data:`CHOMSKY_TASKS`.
      seed: the stream's seed.
      batch_size: examples per batch, >= 1.
      min_length: the shortest length, >= 1.
      max_length: the longest length, >= ``min_length``.
      num_batches: stop after this many batches; None for an endless stream.
      with_lengths: yield ``(length, batch)`` pairs, as
        :func:`evaluation_batches` does (the input length alone does not
        give ``length`` for modular_arithmetic).

    Returns:
      An iterator of :class:`ChomskyBatch`, or of ``(length, ChomskyBatch)``.

    Raises:
      ValueError: for an unknown task name or an argument out of range.

    Example:
      >>> stream = training_batches("duplicate_string", seed=1, batch_size=8, num_batches=3)
      >>> [(b.input.shape[0], 2 * b.input.shape[1] == b.output.shape[1]) for b in stream]
      [(8, True), (8, True), (8, True)]
    """
    task = _task(task_name)
    check_int(batch_size, "batch_size", minimum=1)
    _check_lengths(min_length, max_length)
    if num_batches is not None:
        check_int(num_batches, "num_batches", minimum=0)
    check_int(seed, "seed")
    if not isinstance(with_lengths, bool):
        raise ValueError(f"with_lengths must be True or False, got {with_lengths!r}")
    pairs = _training_batches(task, seed, batch_size, min_length, max_length, num_batches)
    return pairs if with_lengths else (batch for _, batch in pairs)


def _training_batches(task, seed, batch_size, min_length, max_length, num_batches):
    rng = random.Random(derive_seed(seed, "chomsky_hierarchy", task.name, "train"))
    count = 0
    while num_batches is None or count < num_batches:
        length = min_length + rng.randrange(max_length - min_length + 1)
        yield length, task.sample_batch(rng, batch_size, length)
        count += 1
