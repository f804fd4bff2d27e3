"""Shared pieces of the pure-Python task generators (no TensorFlow here).

Every task is a subclass of :class:`Task`. A task is built for one length
(and, for the grammar tasks, depth) :class:`Regime` and draws
:class:`Example` objects from a ``random.Random``. Only ``randrange``,
``random`` and ``getrandbits``-based draws are used, whose algorithms have
been stable since Python 3.2, so a seed gives byte-identical data on every
machine and Python 3 version this package supports.
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
import random
from typing import ClassVar, Iterator, Sequence

SPLITS = ("train", "validation", "test")


def check_int(value, what: str, minimum: int | None = None) -> int:
    """Returns ``value`` if it is an int (not a bool) ``>= minimum``.

    Args:
      value: the value to check.
      what: its name, used in the error message.
      minimum: the smallest allowed value, or None for no bound.

    Returns:
      ``value`` unchanged.

    Raises:
      ValueError: if ``value`` is not an int or is below ``minimum``.

    Example:
      >>> check_int(3, "size", minimum=0)
      3
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be >= {minimum}, got {value}")
    return value


@dataclasses.dataclass(frozen=True)
class Regime:
    """The length (and optional depth) range one split is sampled from.

    What "length" counts is task-specific and documented on each task
    (source tokens for most tasks, ``|w|`` for string reversal).

    Args:
      min_length: smallest length, >= 1.
      max_length: largest length, >= min_length.
      max_depth: for the grammar tasks, the largest derivation depth
        (tree height, terminals counting as one level); None elsewhere.

    Example:
      >>> Regime(8, 64)
      Regime(min_length=8, max_length=64, max_depth=None)
    """

    min_length: int
    max_length: int
    max_depth: int | None = None

    def __post_init__(self):
        check_int(self.min_length, "min_length", minimum=1)
        check_int(self.max_length, "max_length", minimum=1)
        if self.min_length > self.max_length:
            raise ValueError(
                f"length range is empty: min_length={self.min_length} > "
                f"max_length={self.max_length}"
            )
        if self.max_depth is not None:
            check_int(self.max_depth, "max_depth", minimum=1)


@dataclasses.dataclass(frozen=True)
class Example:
    """One source/target pair as integer token ids.

    Args:
      source: source token ids (indices into ``Task.source_vocab``).
      target: target token ids (indices into ``Task.target_vocab``). The EOS
        symbol is *not* included; :mod:`tfds_tasks.joint` adds it.
      eval_mask: for the Hao et al. tasks, 1 where ``target[t]`` is scored
        and 0 elsewhere (same length as ``target``); None for tasks where the
        whole target is scored.

    Example:
      >>> Example(source=(3, 1), target=(1, 3)).target
      (1, 3)
    """

    source: tuple[int, ...]
    target: tuple[int, ...]
    eval_mask: tuple[int, ...] | None = None


class Task(abc.ABC):
    """A deterministic sampler of examples for one task and one regime.

    Subclasses set ``name`` and ``uses_eval_mask``, define their vocabularies
    in ``__init__`` and implement :meth:`sample`.

    Args:
      regime: the length/depth range to sample from.
      vocab_size: the number of content symbols, for tasks whose vocabulary
        size is configurable; must be None for tasks with a fixed alphabet.

    Example:
      >>> from tfds_tasks.generators import make_task
      >>> task = make_task("sequence_reversal", Regime(2, 4), vocab_size=4)
      >>> ex = task.sample(random.Random(0))
      >>> list(reversed(ex.source)) == list(ex.target)
      True
    """

    name: ClassVar[str] = ""
    uses_eval_mask: ClassVar[bool] = False
    # None: the task has a fixed alphabet and rejects vocab_size.
    default_vocab_size: ClassVar[int | None] = None
    min_vocab_size: ClassVar[int] = 1

    def __init__(self, regime: Regime, vocab_size: int | None = None):
        if not isinstance(regime, Regime):
            raise ValueError(f"{self.name}: regime must be a Regime, got {regime!r}")
        self.regime = regime
        if self.default_vocab_size is None:
            if vocab_size is not None:
                raise ValueError(
                    f"{self.name} has a fixed vocabulary; vocab_size must be "
                    f"None, got {vocab_size!r}"
                )
            self.vocab_size = None
        else:
            if vocab_size is None:
                vocab_size = self.default_vocab_size
            check_int(vocab_size, f"{self.name} vocab_size")
            if vocab_size < self.min_vocab_size:
                raise ValueError(
                    f"{self.name}: vocabulary too small: vocab_size="
                    f"{vocab_size}, needs at least {self.min_vocab_size}"
                )
            self.vocab_size = vocab_size
        self.source_vocab: tuple[str, ...] = ()
        self.target_vocab: tuple[str, ...] = ()

    @abc.abstractmethod
    def sample(self, rng: random.Random) -> Example:
        """Draws one example.

        Args:
          rng: the random source; all randomness comes from it.

        Returns:
          An :class:`Example` whose length lies in ``self.regime``.
        """

    def length(self, example: Example) -> int:
        """Returns the quantity the regime's length range constrains.

        Args:
          example: an example of this task.

        Returns:
          The number of source tokens (string reversal overrides this).
        """
        return len(example.source)

    def source_text(self, example: Example) -> str:
        """Returns the source as space-separated vocabulary names."""
        return " ".join(self.source_vocab[i] for i in example.source)

    def target_text(self, example: Example) -> str:
        """Returns the target as space-separated vocabulary names."""
        return " ".join(self.target_vocab[i] for i in example.target)

    def encode_source(self, text: str) -> tuple[int, ...]:
        """Turns a space-separated source text back into ids.

        Args:
          text: e.g. the output of :meth:`source_text`.

        Returns:
          The source ids.

        Raises:
          ValueError: on a token that is not in the source vocabulary.
        """
        return _encode(text, self.source_vocab, f"{self.name} source")

    def encode_target(self, text: str) -> tuple[int, ...]:
        """Turns a space-separated target text back into ids (see encode_source)."""
        return _encode(text, self.target_vocab, f"{self.name} target")


def _encode(text: str, vocab: Sequence[str], what: str) -> tuple[int, ...]:
    index = {w: i for i, w in enumerate(vocab)}
    ids = []
    for token in text.split():
        if token not in index:
            raise ValueError(f"unknown {what} token {token!r}")
        ids.append(index[token])
    return tuple(ids)


def derive_seed(*parts) -> int:
    """Derives a 64-bit seed from ints and strings, identically everywhere.

    Python's ``hash`` of a string changes between processes, so seeds are
    derived from SHA-256 of the parts' ``repr`` instead.

    Args:
      *parts: ints and strings, e.g. ``(0, "itg_svo_sov", "train")``.

    Returns:
      A non-negative int below 2**64.

    Example:
      >>> derive_seed(0, "a") == derive_seed(0, "a")
      True
    """
    digest = hashlib.sha256(repr(tuple(parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def iterate(task: Task, rng: random.Random) -> Iterator[Example]:
    """Yields fresh examples from ``task`` forever.

    Args:
      task: the task sampler.
      rng: the random source.

    Yields:
      :class:`Example` objects.
    """
    while True:
        yield task.sample(rng)


def uniform_choice(rng: random.Random, weights: Sequence[int]) -> int:
    """Picks index i with probability ``weights[i] / sum(weights)`` exactly.

    Weights are (possibly huge) non-negative ints; the draw uses
    ``rng.randrange`` so it is exact and reproducible.

    Args:
      rng: the random source.
      weights: non-negative ints, not all zero.

    Returns:
      The chosen index.
    """
    total = sum(weights)
    if total <= 0:
        raise ValueError("uniform_choice needs a positive total weight")
    r = rng.randrange(total)
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable")
