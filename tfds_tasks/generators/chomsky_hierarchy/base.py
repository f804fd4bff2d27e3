"""The task interface and random draws shared by the Chomsky-hierarchy tasks.

Every task of Delétang et al. (2023) is a :class:`ChomskyTask`. All
randomness comes from a ``random.Random``, through ``getrandbits`` and
``randrange`` only (their algorithms are stable since Python 3.2), so a
seed gives the same data on every machine. Tasks whose examples are plain
strings of uniform symbols draw a whole batch at once with
:func:`uniform_ints` and compute the answers with NumPy; the others (the
grammar and big-number tasks) are defined one example at a time.

``length`` is always the authors' ``length`` argument of
``sample_batch(rng, batch_size, length)``; each task says what it counts.
"""

from __future__ import annotations

import abc
import random
from typing import ClassVar, NamedTuple

import numpy as np

from tfds_tasks.generators.base import check_int

LEVELS = ("regular", "deterministic_context_free", "context_sensitive")
#: How the docs write each level.
LEVEL_NAMES = {"regular": "regular", "deterministic_context_free": "deterministic context-free",
               "context_sensitive": "context-sensitive"}  # fmt: skip


class ChomskyBatch(NamedTuple):
    """A batch of examples of one length, as int32 NumPy arrays.

    Args:
      input: input ids, ``[batch, input_length]``.
      output: target ids, ``[batch, output_length]`` (padding included).
      output_mask: ``[batch, output_length]``, 1 where the target counts.

    Example:
      >>> from tfds_tasks.generators.chomsky_hierarchy import chomsky_task
      >>> batch = chomsky_task("parity_check").sample_batch(random.Random(0), 4, 6)
      >>> batch.input.shape, batch.output.shape, batch.output_mask.shape
      ((4, 6), (4, 1), (4, 1))
    """

    input: np.ndarray
    output: np.ndarray
    output_mask: np.ndarray


def uniform_ints(rng: random.Random, count: int, high: int) -> np.ndarray:
    """Draws ``count`` independent ints uniform on ``0..high-1``, vectorised.

    The bits come from ``rng.getrandbits`` in one call per round; values at
    or above ``high`` are rejected (rounds repeat until enough are kept), so
    the draw is exactly uniform and depends on ``rng`` alone.

    Args:
      rng: the random source.
      count: how many ints to draw, >= 0.
      high: the exclusive upper bound, >= 1.

    Returns:
      An int64 array of shape ``(count,)``.

    Raises:
      ValueError: if ``count`` or ``high`` is not an int in range.

    Example:
      >>> values = uniform_ints(random.Random(0), 1000, 5)
      >>> sorted(set(values.tolist()))
      [0, 1, 2, 3, 4]
    """
    check_int(count, "count", minimum=0)
    check_int(high, "high", minimum=1)
    if high == 1 or count == 0:
        return np.zeros(count, dtype=np.int64)
    width = (high - 1).bit_length()
    kept = []
    needed = count
    while needed:
        # Ask for enough candidates that one round usually suffices.
        draws = needed if high == 1 << width else needed * 2 + 16
        nbytes = (draws * width + 7) // 8
        raw = rng.getrandbits(nbytes * 8).to_bytes(nbytes, "little")
        bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
        chunks = bits[: draws * width].reshape(draws, width).astype(np.int64)
        values = chunks @ (1 << np.arange(width, dtype=np.int64))
        values = values[values < high][:needed]
        kept.append(values)
        needed -= len(values)
    return np.concatenate(kept)


def int_to_bits(value: int, width: int, little_endian: bool) -> list[int]:
    """Returns ``value`` in binary over ``width`` digits (more if it needs them).

    Args:
      value: a non-negative int.
      width: the least number of digits; 0 means as few as possible, with
        one ``0`` digit for zero (like the authors' ``zfill``).
      little_endian: least significant digit first.

    Returns:
      The digits, as a list of 0/1 ints.

    Example:
      >>> int_to_bits(6, 4, little_endian=True), int_to_bits(6, 0, little_endian=False)
      ([0, 1, 1, 0], [1, 1, 0])
    """
    digits = [int(d) for d in format(value, "b").zfill(width)]
    return digits[::-1] if little_endian else digits


class ChomskyTask(abc.ABC):
    """One task of Delétang et al. (2023), sampling examples of a given length.

    Subclasses set the class attributes and implement
    :meth:`_sample_batch` (vectorised) or :meth:`_sample_one` (one
    example; batches stack them).

    Attributes:
      name: the task name, e.g. ``"reverse_string"``.
      level: one of :data:`LEVELS`.
      input_vocab_size: the authors' ``input_size``; input ids lie below it.
      output_vocab_size: the authors' ``output_size``; output ids lie below it.
      terminator: the output id that ends the answer (the rest is zero
        padding that ``output_mask`` leaves out), or None.
      description: the definition, the token ids, what ``length`` counts,
        and where the authors' docstring and code disagree.
    """

    name: ClassVar[str] = ""
    level: ClassVar[str] = ""
    input_vocab_size: ClassVar[int] = 0
    output_vocab_size: ClassVar[int] = 0
    terminator: ClassVar[int | None] = None
    description: ClassVar[str] = ""

    def input_length(self, length: int) -> int:
        """Returns the number of input ids of an example of ``length``.

        Args:
          length: the authors' ``length`` argument, >= 1.

        Returns:
          ``length`` (modular_arithmetic overrides it).
        """
        return check_int(length, "length", minimum=1)

    @property
    def level_name(self) -> str:
        """The level as the docs write it, e.g. ``"deterministic context-free"``."""
        return LEVEL_NAMES[self.level]

    def output_length(self, length: int) -> int:
        """Returns the number of output ids of an example of ``length``.

        Args:
          length: the authors' ``length`` argument, >= 1.

        Returns:
          1 for the classification tasks; each sequence task says.
        """
        check_int(length, "length", minimum=1)
        return 1

    def sample(self, rng: random.Random, length: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Draws one example.

        Args:
          rng: the random source; all randomness comes from it.
          length: the authors' ``length`` argument, >= 1.

        Returns:
          ``(input ids, output ids, output_mask)`` as tuples of ints.

        Raises:
          ValueError: if ``length`` is not an int >= 1.

        Example:
          >>> from tfds_tasks.generators.chomsky_hierarchy import chomsky_task
          >>> inputs, outputs, mask = chomsky_task("reverse_string").sample(random.Random(0), 5)
          >>> outputs == inputs[::-1], mask
          (True, (1, 1, 1, 1, 1))
        """
        batch = self.sample_batch(rng, 1, length)
        return tuple(tuple(array[0].tolist()) for array in batch)

    def sample_batch(self, rng: random.Random, batch_size: int, length: int) -> ChomskyBatch:
        """Draws ``batch_size`` examples of one ``length``.

        Args:
          rng: the random source; all randomness comes from it.
          batch_size: the number of examples, >= 1.
          length: the authors' ``length`` argument, >= 1.

        Returns:
          A :class:`ChomskyBatch` of int32 arrays.

        Raises:
          ValueError: if ``batch_size`` or ``length`` is not an int >= 1.

        Example:
          >>> from tfds_tasks.generators.chomsky_hierarchy import chomsky_task
          >>> task = chomsky_task("binary_addition")
          >>> batch = task.sample_batch(random.Random(0), 3, 7)
          >>> batch.output.shape == (3, task.output_length(7))
          True
        """
        check_int(batch_size, "batch_size", minimum=1)
        check_int(length, "length", minimum=1)
        inputs, outputs = self._sample_batch(rng, batch_size, length)
        inputs = np.asarray(inputs, dtype=np.int32).reshape(batch_size, self.input_length(length))
        outputs = np.asarray(outputs, dtype=np.int32).reshape(batch_size, self.output_length(length))
        return ChomskyBatch(inputs, outputs, self.output_mask(outputs))

    def output_mask(self, outputs: np.ndarray) -> np.ndarray:
        """Returns 1 on the output positions that count, 0 on the padding.

        For a task with a terminator, the positions up to and including the
        first terminator count (the authors' ``accuracy_mask``); for the
        others, every position.

        Args:
          outputs: output ids, ``[batch, output_length]``.

        Returns:
          An int32 array of the same shape.
        """
        outputs = np.asarray(outputs)
        if self.terminator is None:
            return np.ones(outputs.shape, dtype=np.int32)
        ends = np.argmax(outputs == self.terminator, axis=-1)[..., None]
        return (np.arange(outputs.shape[-1]) <= ends).astype(np.int32)

    def _sample_batch(self, rng: random.Random, batch_size: int, length: int):
        """Returns ``(inputs, outputs)`` for a batch; by default stacks examples."""
        pairs = [self._sample_one(rng, length) for _ in range(batch_size)]
        return [p[0] for p in pairs], [p[1] for p in pairs]

    def _sample_one(self, rng: random.Random, length: int) -> tuple[list[int], list[int]]:
        """Returns ``(input ids, output ids)`` of one example."""
        raise NotImplementedError(f"{type(self).__name__} samples whole batches only")

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, level={self.level!r})"
