"""A small sampler for probabilistic inversion transduction grammars (ITGs).

Used by the two Grefenstette et al. (2015) §4.2 tasks. A rule reads
``LHS -> source side ||| target side``; a right-hand-side item such as
``S1`` or ``VT2`` is a nonterminal with a link index that ties its source
and target occurrences together (the link is the pair (name, index): the
paper writes ``B -> B1 V1``, so indices are per nonterminal name), and any
other item is a terminal word.
Lexical classes (``ST -> si ||| so``) expand to one word pair chosen
uniformly from the class, e.g. ``si17 ||| so17``.

Rejection sampling (paper §4.2) is done with early abandonment: a partial
derivation whose emitted words plus the fewest words its open nonterminals
can still produce already exceed ``max_length`` would be rejected anyway,
so it is dropped at once. This gives exactly the distribution of "sample
from the PCFG, keep samples inside [min_length, max_length]" at a fraction
of the cost.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from typing import Mapping, Sequence

from tfds_tasks.generators.base import Example, Regime, Task

_LINKED = re.compile(r"^([A-Z][A-Za-z]*)(\d+)$")

# Bounds the work one sample may take: the grammars here accept a sample
# every few dozen attempts, so hitting this means an unreachable regime.
_MAX_ATTEMPTS = 1_000_000


@dataclasses.dataclass(frozen=True)
class SyncRule:
    """One synchronous rule with its probability.

    Args:
      lhs: the left-hand nonterminal.
      source: source-side items, e.g. ``("S1", "rpi", "S2", "VT3")``.
      target: target-side items.
      prob: the probability of choosing this rule when expanding ``lhs``.
    """

    lhs: str
    source: tuple[str, ...]
    target: tuple[str, ...]
    prob: float


@dataclasses.dataclass(frozen=True)
class LexicalClass:
    """A terminal-generating class ``X -> <src>k ||| <tgt>k``, k uniform.

    Args:
      name: the class nonterminal, e.g. ``"ST"``.
      source_prefix: e.g. ``"si"``; words are ``si0, si1, ...``.
      target_prefix: e.g. ``"so"``.
    """

    name: str
    source_prefix: str
    target_prefix: str


def rule(lhs: str, source: str, target: str, prob: float) -> SyncRule:
    """Builds a :class:`SyncRule` from space-separated sides.

    Example:
      >>> rule("A", "S1 VT2 O3", "S1 O3 VT2", 1.0).target
      ('S1', 'O3', 'VT2')
    """
    return SyncRule(lhs, tuple(source.split()), tuple(target.split()), prob)


def probabilities_by_nonterminal(rules: Sequence[SyncRule]) -> dict[str, tuple[float, ...]]:
    """Returns each nonterminal's rule probabilities, in the order of ``rules``.

    Args:
      rules: synchronous rules, e.g. a task's ``RULES``.

    Returns:
      ``{lhs: (p1, p2, ...)}`` with one entry per rule of ``lhs``.

    Example:
      >>> probabilities_by_nonterminal((rule("A", "B1", "B1", 0.9), rule("A", "b", "c", 0.1)))
      {'A': (0.9, 0.1)}
    """
    out: dict[str, tuple[float, ...]] = {}
    for r in rules:
        out[r.lhs] = out.get(r.lhs, ()) + (r.prob,)
    return out


def rule_probability_pairs(
    probabilities: Mapping[str, Sequence[float]] | Sequence[tuple[str, Sequence[float]]],
) -> tuple[tuple[str, tuple[float, ...]], ...]:
    """``probabilities`` as sorted ``(nonterminal, probabilities)`` pairs.

    The one hashable form of a rule-probability override, kept by settings
    and configs (a dict is not hashable; its pairs, as tuples, are).

    Args:
      probabilities: ``{lhs: (p1, p2, ...)}`` or its ``(lhs, probabilities)``
        pairs, e.g. as read back from JSON.

    Example:
      >>> rule_probability_pairs({"S": [0.5, 0.5], "A": (1.0,)})
      (('A', (1.0,)), ('S', (0.5, 0.5)))
    """
    return tuple(sorted((lhs, tuple(probs)) for lhs, probs in dict(probabilities).items()))


def with_rule_probabilities(
    rules: Sequence[SyncRule], probabilities: Mapping[str, Sequence[float]]
) -> tuple[SyncRule, ...]:
    """Returns ``rules`` with the probabilities of some nonterminals replaced.

    Args:
      rules: synchronous rules, e.g. a task's ``RULES``.
      probabilities: ``{lhs: (p1, p2, ...)}``, one probability per rule of
        ``lhs`` in the order of ``rules``; nonterminals left out keep theirs.

    Returns:
      The rules, in the same order, with the new probabilities.

    Raises:
      ValueError: for an unknown nonterminal, a wrong number of
        probabilities, a probability outside [0, 1], or probabilities that do
        not sum to 1.

    Example:
      >>> rules = (rule("A", "B1", "B1", 0.9), rule("A", "b", "c", 0.1))
      >>> probabilities_by_nonterminal(with_rule_probabilities(rules, {"A": (0.5, 0.5)}))
      {'A': (0.5, 0.5)}
    """
    current = probabilities_by_nonterminal(rules)
    checked: dict[str, list[float]] = {}
    for lhs, probs in probabilities.items():
        if lhs not in current:
            raise ValueError(
                f"rule_probabilities: unknown nonterminal {lhs!r}; known: {', '.join(current)}"
            )
        probs = list(probs)
        if len(probs) != len(current[lhs]):
            raise ValueError(
                f"rule_probabilities[{lhs!r}] has {len(probs)} values; {lhs} has "
                f"{len(current[lhs])} rules"
            )
        if not all(
            isinstance(p, (int, float)) and not isinstance(p, bool) and 0.0 <= p <= 1.0
            for p in probs
        ):
            raise ValueError(f"rule_probabilities[{lhs!r}] must lie in [0, 1], got {probs}")
        if abs(math.fsum(probs) - 1.0) > 1e-9:
            raise ValueError(
                f"rule_probabilities[{lhs!r}] sum to {math.fsum(probs)}, not 1: {probs}"
            )
        checked[lhs] = probs
    # Consumed in rule order, so the i-th value goes to the i-th rule of lhs.
    pending = {lhs: iter(probs) for lhs, probs in checked.items()}
    return tuple(
        dataclasses.replace(r, prob=float(next(pending[r.lhs]))) if r.lhs in pending else r
        for r in rules
    )


def split_vocabulary(vocab_size: int, num_classes: int) -> list[int]:
    """Splits ``vocab_size`` words over classes as evenly as possible.

    The first ``vocab_size % num_classes`` classes get one extra word, so the
    sizes are ``floor`` or ``ceil`` of ``vocab_size / num_classes`` (paper:
    "approximately 128/k" each) and sum to ``vocab_size``.

    Example:
      >>> split_vocabulary(128, 3)
      [43, 43, 42]
    """
    base, extra = divmod(vocab_size, num_classes)
    return [base + (1 if i < extra else 0) for i in range(num_classes)]


class SyncGrammar:
    """A probabilistic synchronous grammar with lexical classes.

    Args:
      rules: the non-lexical rules; probabilities per lhs must sum to 1.
      lexical: the lexical classes, in vocabulary order.
      class_sizes: number of words per lexical class.
      root: the start nonterminal.

    Raises:
      ValueError: on a malformed grammar (unknown nonterminal, unbalanced
        links, probabilities that do not sum to 1).
    """

    def __init__(
        self,
        rules: Sequence[SyncRule],
        lexical: Sequence[LexicalClass],
        class_sizes: Sequence[int],
        root: str = "A",
    ):
        self.root = root
        self.lexical = {c.name: c for c in lexical}
        self.class_sizes = dict(zip((c.name for c in lexical), class_sizes))
        self.rules: dict[str, list[SyncRule]] = {}
        for r in rules:
            self.rules.setdefault(r.lhs, []).append(r)
        known = set(self.rules) | set(self.lexical)
        for lhs, alts in self.rules.items():
            total = sum(r.prob for r in alts)
            if abs(total - 1.0) > 1e-9:
                raise ValueError(f"rule probabilities for {lhs} sum to {total}, not 1")
            for r in alts:
                src = [self._link(x) for x in r.source]
                tgt = [self._link(x) for x in r.target]
                src_links = sorted(x for x in src if x is not None)
                tgt_links = sorted(x for x in tgt if x is not None)
                if src_links != tgt_links or len(set(src_links)) != len(src_links):
                    raise ValueError(f"unbalanced links in rule {r}")
                for nt, _ in src_links:
                    if nt not in known:
                        raise ValueError(f"unknown nonterminal {nt} in rule {r}")
        if root not in self.rules:
            raise ValueError(f"root {root} has no rules")
        self.min_length = self._min_lengths()

    @staticmethod
    def _link(item: str):
        m = _LINKED.match(item)
        return (m.group(1), int(m.group(2))) if m else None

    def _min_lengths(self) -> dict[str, int]:
        """Fewest source words each nonterminal can yield (fixpoint).

        Rules of probability 0 are never sampled, so they do not count.
        """
        inf = float("inf")
        best = {nt: inf for nt in self.rules}
        best.update({c: 1 for c in self.lexical})
        changed = True
        while changed:
            changed = False
            for lhs, alts in self.rules.items():
                for r in (r for r in alts if r.prob > 0):
                    n = sum(best[l[0]] if (l := self._link(x)) else 1 for x in r.source)
                    if n < best[lhs]:
                        best[lhs], changed = n, True
        for nt, n in best.items():
            if n == inf:
                raise ValueError(f"nonterminal {nt} derives no finite string")
        return best

    def sample_derivation(self, rng: random.Random, max_length: int):
        """Samples a derivation tree, or None if it must exceed max_length.

        Args:
          rng: the random source.
          max_length: the longest source yield that is kept.

        Returns:
          A tree ``(rule, {(nonterminal, index): subtree})`` with lexical leaves
          ``(class_name, word_index)``, or None if abandoned.
        """
        committed = self.min_length[self.root]
        if committed > max_length:
            return None
        root = [self.root, None]
        stack = [root]  # slots [nonterminal, subtree-or-None] still to expand
        while stack:
            slot = stack.pop()
            nt = slot[0]
            if nt in self.lexical:
                slot[1] = (nt, rng.randrange(self.class_sizes[nt]))
                continue
            alts = self.rules[nt]
            u = rng.random()
            # The fallback (for u left >= 0 by rounding) is the last rule that
            # can be sampled at all.
            chosen = next(r for r in reversed(alts) if r.prob > 0)
            for r in alts:
                if u < r.prob:
                    chosen = r
                    break
                u -= r.prob
            children = {}
            added = -self.min_length[nt]
            for x in chosen.source:
                link = self._link(x)
                if link is None:
                    added += 1
                else:
                    child = [link[0], None]
                    children[link] = child
                    added += self.min_length[link[0]]
            committed += added
            if committed > max_length:
                return None
            slot[1] = (chosen, children)
            # Reversed so the leftmost child is expanded first (stack order).
            stack.extend(reversed(list(children.values())))
        return _freeze(root)

    def yields(self, tree) -> tuple[list[str], list[str]]:
        """Returns the (source words, target words) of a derivation tree."""
        head, body = tree
        if isinstance(head, str):  # lexical leaf (class_name, index)
            cls = self.lexical[head]
            return [f"{cls.source_prefix}{body}"], [f"{cls.target_prefix}{body}"]
        sub = {k: self.yields(t) for k, t in body.items()}
        src, tgt = [], []
        for x in head.source:
            link = self._link(x)
            src.extend(sub[link][0] if link else [x])
        for x in head.target:
            link = self._link(x)
            tgt.extend(sub[link][1] if link else [x])
        return src, tgt

    def length_distribution(self, max_length: int) -> list[float]:
        """Exact P(source length = n) for n = 0..max_length under the PCFG.

        Computed by iterating the grammar's generating functions truncated
        at ``max_length``; used to tune the rule probabilities and checked
        against sampled histograms in the tests.

        Args:
          max_length: the largest length of interest.

        Returns:
          A list ``p`` with ``p[n]`` the probability of length ``n``.
        """
        import numpy as np  # only needed here, for speed

        size = max_length + 1
        one = np.zeros(size)
        one[1] = 1.0
        dist = {nt: np.zeros(size) for nt in self.rules}
        dist.update({c: one for c in self.lexical})
        # Degree n is exact after n + (longest unit-rule chain) iterations.
        for _ in range(size + len(self.rules) + 1):
            new = {}
            for lhs, alts in self.rules.items():
                acc = np.zeros(size)
                for r in alts:
                    poly = np.zeros(size)
                    poly[0] = r.prob
                    for x in r.source:
                        link = self._link(x)
                        poly = np.convolve(poly, dist[link[0]] if link else one)[:size]
                    acc += poly
                new[lhs] = acc
            dist.update(new)
        return [float(x) for x in dist[self.root]]


def _freeze(slot):
    """Turns the mutable expansion slots into nested tuples."""
    _, content = slot
    if isinstance(content[0], str):
        return content  # lexical leaf (class_name, word_index)
    rule_, children = content
    return (rule_, {k: _freeze(v) for k, v in children.items()})


class ItgTask(Task):
    """Base class of the ITG tasks: rejection-sampled synchronous derivations.

    Subclasses define ``RULES`` (a tuple of :class:`SyncRule`),
    ``LEXICAL`` (lexical classes) and the function words of each side.
    ``vocab_size`` is the number of lexical words, split evenly over the
    classes (default 128, as in the paper); the source vocabulary adds the
    source function words to them (``len(source_vocab) == vocab_size +
    len(SOURCE_FUNCTION_WORDS)``).

    Args:
      regime: source length range (source and target lengths are equal in
        both grammars; both are checked).
      vocab_size: total number of class words; at least one per class.
      rule_probabilities: ``{nonterminal: (p1, p2, ...)}`` replacing the
        probabilities of that nonterminal's rules, in ``RULES`` order (see
        :func:`probabilities_by_nonterminal` for the shipped ones); None keeps them all.
        Other probabilities sample other data from the same seed.

    Raises:
      ValueError: for a bad regime, vocabulary or ``rule_probabilities``.

    Example:
      >>> import random
      >>> from tfds_tasks.generators.itg_svo_sov import ItgSvoSov
      >>> task = ItgSvoSov(Regime(8, 16), vocab_size=3,
      ...                  rule_probabilities={"S": (0.5, 0.0, 0.5)})
      >>> task.source_vocab
      ('rpi', 'si0', 'oi0', 'vi0')
      >>> task.rule_probabilities["S"]
      (0.5, 0.0, 0.5)
    """

    RULES: tuple[SyncRule, ...] = ()
    LEXICAL: tuple[LexicalClass, ...] = ()
    SOURCE_FUNCTION_WORDS: tuple[str, ...] = ()
    TARGET_FUNCTION_WORDS: tuple[str, ...] = ()
    default_vocab_size = 128

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Every lexical class needs at least one word.
        cls.min_vocab_size = max(1, len(cls.LEXICAL))

    def __init__(
        self,
        regime: Regime,
        vocab_size: int | None = None,
        rule_probabilities: Mapping[str, Sequence[float]] | None = None,
    ):
        super().__init__(regime, vocab_size)
        if regime.max_depth is not None:
            raise ValueError(f"{self.name} has no depth; max_depth must be None")
        sizes = split_vocabulary(self.vocab_size, len(self.LEXICAL))
        if rule_probabilities is None:
            rules = self.RULES
            self.grammar = SyncGrammar(rules, self.LEXICAL, sizes)
        else:
            rules = with_rule_probabilities(self.RULES, rule_probabilities)
            try:
                self.grammar = SyncGrammar(rules, self.LEXICAL, sizes)
            except ValueError as error:  # e.g. a nonterminal left with no way to stop
                raise ValueError(f"rule_probabilities: {error}") from None
        #: ``{nonterminal: (p1, p2, ...)}``: the probabilities this task samples with.
        self.rule_probabilities = probabilities_by_nonterminal(rules)
        shortest = self.grammar.min_length[self.grammar.root]
        if regime.max_length < shortest:
            raise ValueError(
                f"{self.name}: max_length={regime.max_length} is below the "
                f"shortest sentence the grammar derives ({shortest})"
            )
        src = list(self.SOURCE_FUNCTION_WORDS)
        tgt = list(self.TARGET_FUNCTION_WORDS)
        for cls, n in zip(self.LEXICAL, sizes):
            src += [f"{cls.source_prefix}{i}" for i in range(n)]
            tgt += [f"{cls.target_prefix}{i}" for i in range(n)]
        self.source_vocab = tuple(src)
        self.target_vocab = tuple(tgt)
        self._src_index = {w: i for i, w in enumerate(src)}
        self._tgt_index = {w: i for i, w in enumerate(tgt)}

    def sample_derivation(self, rng: random.Random):
        """Rejection-samples one derivation whose yields lie in the regime.

        Args:
          rng: the random source.

        Returns:
          ``(tree, source words, target words)``, the tree as in
          :meth:`SyncGrammar.sample_derivation`.

        Raises:
          ValueError: if no sentence in the length range is found.
        """
        lo, hi = self.regime.min_length, self.regime.max_length
        for _ in range(_MAX_ATTEMPTS):
            tree = self.grammar.sample_derivation(rng, hi)
            if tree is None:
                continue
            src, tgt = self.grammar.yields(tree)
            if lo <= len(src) <= hi and lo <= len(tgt) <= hi:
                return tree, src, tgt
        raise ValueError(
            f"{self.name}: no sentence with length in [{lo}, {hi}] after "
            f"{_MAX_ATTEMPTS} attempts"
        )

    def sample_words(self, rng: random.Random) -> tuple[list[str], list[str]]:
        """Rejection-samples one (source words, target words) pair."""
        _, src, tgt = self.sample_derivation(rng)
        return src, tgt

    def sample(self, rng: random.Random) -> Example:
        src, tgt = self.sample_words(rng)
        return Example(
            source=tuple(self._src_index[w] for w in src),
            target=tuple(self._tgt_index[w] for w in tgt),
        )
