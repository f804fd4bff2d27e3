"""Shared base for the Hao et al. (2018) tasks whose inputs come from a CFG."""

from __future__ import annotations

import random
from typing import ClassVar, Mapping, Sequence

from tfds_tasks.generators.base import Example, Regime, Task
from tfds_tasks.generators.cfg import Cfg

EOS = "<eos>"


class CfgStringTask(Task):
    """Base class: strings from :class:`Cfg` with a depth bound.

    The regime must give ``max_depth``. See :mod:`tfds_tasks.generators.cfg`
    for how lengths and derivations are drawn.

    Subclasses set ``GRAMMAR``, ``START`` and ``SOURCE_VOCAB`` and implement
    :meth:`outputs`.
    """

    GRAMMAR: ClassVar[Mapping[str, Sequence[Sequence[str]]]] = {}
    START: ClassVar[str] = "S"
    SOURCE_VOCAB: ClassVar[tuple[str, ...]] = ()
    uses_eval_mask = True

    def __init__(self, regime: Regime, vocab_size: int | None = None):
        super().__init__(regime, vocab_size)
        if regime.max_depth is None:
            raise ValueError(f"{self.name} needs a max_depth in its regime")
        self.cfg = Cfg(self.GRAMMAR, self.START, regime.max_depth, regime.max_length)
        self.available_lengths = self.cfg.lengths(
            regime.max_depth, regime.min_length, regime.max_length
        )
        if not self.available_lengths:
            raise ValueError(
                f"{self.name}: no string with length in [{regime.min_length}, "
                f"{regime.max_length}] has derivation depth <= {regime.max_depth}"
            )
        self.source_vocab = self.SOURCE_VOCAB
        self._index = {w: i for i, w in enumerate(self.SOURCE_VOCAB)}
        self._target_index = None

    def sample_words(self, rng: random.Random) -> list[str]:
        """Draws one string (as symbols) from the regime."""
        n = self.available_lengths[rng.randrange(len(self.available_lengths))]
        return self.cfg.sample(rng, self.regime.max_depth, n)

    def outputs(self, words: list[str]) -> tuple[list[str], list[int]]:
        """Returns the target symbols and the eval mask for a source string."""
        raise NotImplementedError

    def sample(self, rng: random.Random) -> Example:
        words = self.sample_words(rng)
        target, mask = self.outputs(words)
        if self._target_index is None:  # target_vocab is set by subclasses
            self._target_index = {w: i for i, w in enumerate(self.target_vocab)}
        return Example(
            source=tuple(self._index[w] for w in words),
            target=tuple(self._target_index[w] for w in target),
            eval_mask=tuple(mask),
        )


class NextSymbolTask(CfgStringTask):
    """Language modelling: ``target[t] = source[t+1]``, ``<eos>`` at the end.

    Only positions whose correct next symbol is in ``SCORED`` are evaluated.
    """

    SCORED: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, regime, vocab_size=None):
        super().__init__(regime, vocab_size)
        self.target_vocab = self.SOURCE_VOCAB + (EOS,)

    def outputs(self, words):
        target = list(words[1:]) + [EOS]
        return target, [int(w in self.SCORED) for w in target]
