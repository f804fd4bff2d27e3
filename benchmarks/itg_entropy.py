"""What the ITG grammars' rule probabilities make a model hold: entropy and verb movement.

For each of the two ITG tasks of Grefenstette et al. (2015, §4.2, Appendix
C), a sweep of rule-probability settings (the shipped ones, more and less
recursion, rare and frequent relative clauses or verb objects) and the
training (8-16) and test (17-32) lengths of the ``default_scale`` configs,
this samples derivations with the task's own rejection sampler and
measures:

* the entropy of the source and target word-class sequences, and of the
  target word strings of each lexicon config (``default_scale``,
  ``default_scale_one_word``), in bits per token;
* how far each verb moves between its source and target position, and how
  many words separate the head noun of a verb's subject from the verb, on
  each side;
* the share of sentences with a relative clause, and the mean length.

Entropy estimator: the sampler draws exactly from the PCFG conditioned on
the length range, and the probability of every sampled class string
``x`` (summed over all its derivations, with an inside pass over that
side of the synchronous grammar) is exact, so the mean of ``-log2 P(x |
range)`` is an unbiased Monte-Carlo estimate of the exact entropy ``H``;
its standard error is reported. Words are drawn uniformly and
independently within their class, so the entropy of the word strings is
``H + E[sum of log2 |class| over the class tokens]``, exactly. "Per token"
divides by the mean length (a ratio of expectations).

It writes the tables into the marked part of ``--output`` and the raw
numbers to ``--record`` (JSON, written atomically).

Usage::

    python benchmarks/itg_entropy.py [--examples 5000] \\
        [--output docs/results/itg_grammar.md] [--record docs/results/itg_grammar.json]
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import random
import sys
from collections import defaultdict

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from marked_part import write_part  # noqa: E402

from keras_neural_memory.experiments.run_folder import write_atomically  # noqa: E402
from tfds_tasks import generators  # noqa: E402
from tfds_tasks.generators.base import derive_seed  # noqa: E402
from tfds_tasks.generators.itg import SyncGrammar, split_vocabulary  # noqa: E402

#: The committed record and the page of its part, from the repository's root.
RECORD, PAGE = "docs/results/itg_grammar.json", "docs/results/itg_grammar.md"
LEXICON_CONFIGS = ("default_scale", "default_scale_one_word")
# The rule-probability sweep: (name, what it changes, {nonterminal: probabilities in RULES order}).
# SVO -> SOV: S: (S S, S rpi S VT, ST); O: (O O, S rpi S VT, OT).
# Gender: A: (B, V); B: (B or B, S and S, B V, S); V: (W B, W).
SWEEPS = {
    "itg_svo_sov": (
        ("shipped", "the package's probabilities", {}),
        ("less recursion", "S 0.15/0.10/0.75, O 0.15/0.10/0.75",
         {"S": (0.15, 0.10, 0.75), "O": (0.15, 0.10, 0.75)}),
        ("more recursion", "S 0.33/0.27/0.40, O 0.35/0.30/0.35",
         {"S": (0.33, 0.27, 0.40), "O": (0.35, 0.30, 0.35)}),
        ("no relative clauses", "S 0.50/0/0.50, O 0.55/0/0.45",
         {"S": (0.50, 0.0, 0.50), "O": (0.55, 0.0, 0.45)}),
        ("rare relative clauses", "S 0.45/0.05/0.50, O 0.50/0.05/0.45",
         {"S": (0.45, 0.05, 0.50), "O": (0.50, 0.05, 0.45)}),
        ("frequent relative clauses", "S 0.05/0.45/0.50, O 0.05/0.50/0.45",
         {"S": (0.05, 0.45, 0.50), "O": (0.05, 0.50, 0.45)}),
    ),
    "itg_gender_conjugation": (
        ("shipped", "the package's probabilities", {}),
        ("less recursion", "B 0.10/0.25/0.30/0.35, V 0.15/0.85",
         {"B": (0.10, 0.25, 0.30, 0.35), "V": (0.15, 0.85)}),
        ("more recursion", "B 0.25/0.20/0.50/0.05, V 0.45/0.55",
         {"B": (0.25, 0.20, 0.50, 0.05), "V": (0.45, 0.55)}),
        ("rare verb objects", "V 0.05/0.95", {"V": (0.05, 0.95)}),
        ("frequent verb objects", "V 0.60/0.40", {"V": (0.60, 0.40)}),
    ),
}  # fmt: skip
VERB_CLASS = {"itg_svo_sov": "VT", "itg_gender_conjugation": "W"}
RELATIVE_PRONOUN = {"itg_svo_sov": "rpi", "itg_gender_conjugation": None}
# Grammatical roles, by (lhs, source side): the link of the phrase's head
# word, and the (subject, verb) link pairs the rule creates. A compound
# (S S, O O) is headed by its last noun, a relative clause by the noun it
# modifies; in "S1 rpi S2 VT3" S2 is the subject of VT3.
ROLES = {
    "itg_svo_sov": {
        ("A", "S1 VT2 O3"): (None, ((("S", 1), ("VT", 2)),)),
        ("S", "S1 S2"): (("S", 2), ()),
        ("S", "S1 rpi S2 VT3"): (("S", 1), ((("S", 2), ("VT", 3)),)),
        ("S", "ST1"): (("ST", 1), ()),
        ("O", "O1 O2"): (("O", 2), ()),
        ("O", "S1 rpi S2 VT3"): (("S", 1), ((("S", 2), ("VT", 3)),)),
        ("O", "OT1"): (("OT", 1), ()),
    },
    "itg_gender_conjugation": {
        ("A", "B1"): (("B", 1), ()),
        ("A", "V1"): (("V", 1), ()),
        ("B", "B1 or B2"): (("B", 2), ()),
        ("B", "S1 and S2"): (("S", 2), ()),
        ("B", "B1 V1"): (("B", 1), ((("B", 1), ("V", 1)),)),
        ("B", "S1"): (("S", 1), ()),
        ("V", "W1 B2"): (("W", 1), ()),
        ("V", "W1"): (("W", 1), ()),
        **{("S", f"{article} {g}1"): ((g, 1), ()) for article in ("the", "a") for g in "MFN"},
    },
}
# Strings of one length are scored together, at most this many at a time (memory).
INSIDE_BATCH = 1000


def annotated_yields(grammar: SyncGrammar, roles, tree, leaves=None):
    """Returns the aligned yields of a derivation with its roles.

    Args:
      grammar: the task's grammar.
      roles: the task's ``ROLES`` entry.
      tree: a derivation from ``ItgTask.sample_derivation``.
      leaves: the running count of lexical leaves (internal).

    Returns:
      ``(source, target, head, pairs)``: the sides as lists of ``(symbol,
      leaf)`` (the class name and a leaf number for a class word, the word
      and None for a function word), the phrase's head leaf, and the
      ``(subject head leaf, verb leaf, is the root's verb)`` triples.
    """
    leaves = leaves if leaves is not None else [0]
    head, body = tree
    if isinstance(head, str):  # a class word
        leaves[0] += 1
        item = (head, leaves[0])
        return [item], [item], leaves[0], []
    parts = {link: annotated_yields(grammar, roles, sub, leaves) for link, sub in body.items()}
    head_link, subject_verb = roles[head.lhs, " ".join(head.source)]
    pairs = [pair for part in parts.values() for pair in part[3]]
    pairs += [(parts[s][2], parts[v][2], head.lhs == grammar.root) for s, v in subject_verb]

    def side(items, index):
        out = []
        for x in items:
            link = grammar._link(x)
            out.extend(parts[link][index] if link else [(x, None)])
        return out

    head_leaf = parts[head_link][2] if head_link else None
    return side(head.source, 0), side(head.target, 1), head_leaf, pairs


def side_rules(grammar: SyncGrammar, side: str):
    """Returns one side of the grammar as ``(lhs, probability, symbols)`` rules."""
    out = []
    for lhs, alts in grammar.rules.items():
        for r in alts:
            items = r.source if side == "source" else r.target
            out.append((lhs, r.prob, tuple(link[0] if (link := grammar._link(x)) else x for x in items)))
    return out


def inside_probabilities(grammar: SyncGrammar, side: str, strings: np.ndarray, alphabet) -> np.ndarray:
    """Returns P(string) under one side of the PCFG, summed over derivations.

    Args:
      grammar: the grammar (class words emit their class with probability 1).
      side: ``"source"`` or ``"target"``.
      strings: ``(B, n)`` symbol ids into ``alphabet``, all of length ``n``.
      alphabet: the class names and function words of that side.

    Returns:
      ``(B,)`` probabilities, unconditioned on the length range.
    """
    count, n = strings.shape
    rules = side_rules(grammar, side)
    # chart[symbol][b, start, length]: P(symbol derives that span of string b).
    chart = {}
    for i, symbol in enumerate(alphabet):
        chart[symbol] = np.zeros((count, n, n + 1))
        chart[symbol][:, :, 1] = strings == i
    for lhs in grammar.rules:
        chart[lhs] = np.zeros((count, n, n + 1))
    # prefix[r][k]: P(the first k + 1 symbols of rule r derive the span), for rules of 3+ symbols.
    prefix = {r: {k: np.zeros((count, n, n + 1)) for k in range(1, len(items) - 1)}
              for r, (_, _, items) in enumerate(rules) if len(items) > 2}  # fmt: skip
    # Unary rules (B -> S) need their child's chart at the same span first.
    order, pending = [], set(grammar.rules)
    while pending:
        ready = sorted(
            lhs for lhs in pending
            if not any(l == lhs and len(it) == 1 and it[0] in pending for l, _, it in rules)
        )  # fmt: skip
        order += ready
        pending -= set(ready)
    for length in range(1, n + 1):
        starts = n - length + 1
        at = np.arange(starts)[:, None]
        split = np.arange(1, length)[None, :]
        complete = {}
        for r, (_, _, items) in enumerate(rules):
            if len(items) < 2 or length < 2:
                continue
            left = chart[items[0]]
            for k in range(1, len(items)):
                right = chart[items[k]]
                value = (left[:, at, split] * right[:, at + split, length - split]).sum(axis=2)
                if k == len(items) - 1:
                    complete[r] = value
                else:
                    prefix[r][k][:, :starts, length] = value
                    left = prefix[r][k]
        for lhs in order:
            total = np.zeros((count, starts))
            for r, (rule_lhs, prob, items) in enumerate(rules):
                if rule_lhs != lhs:
                    continue
                if len(items) == 1:
                    total += prob * chart[items[0]][:, :starts, length]
                elif r in complete:
                    total += prob * complete[r]
            chart[lhs][:, :starts, length] = total
    return chart[grammar.root][:, 0, n]


def class_string_surprisals(grammar: SyncGrammar, side: str, strings, alphabet) -> np.ndarray:
    """Returns ``-log2 P(x)`` (unconditioned) of each class string ``x``, in order."""
    index = {symbol: i for i, symbol in enumerate(alphabet)}
    by_length = defaultdict(list)
    for position, string in enumerate(strings):
        by_length[len(string)].append(position)
    out = np.zeros(len(strings))
    for positions in by_length.values():
        for chunk in range(0, len(positions), INSIDE_BATCH):
            batch = positions[chunk : chunk + INSIDE_BATCH]
            ids = np.array([[index[s] for s in strings[p]] for p in batch])
            out[batch] = -np.log2(inside_probabilities(grammar, side, ids, alphabet))
    return out


def alphabet_of(task, side: str):
    words = task.SOURCE_FUNCTION_WORDS if side == "source" else task.TARGET_FUNCTION_WORDS
    return tuple(words) + tuple(c.name for c in task.LEXICAL)


def entropy(surprisals: np.ndarray, log2_range_mass: float, mean_length: float) -> dict:
    """The entropy estimate (bits) of the length-conditioned distribution, total and per token."""
    total = float(surprisals.mean() + log2_range_mass)
    error = float(surprisals.std(ddof=1) / math.sqrt(len(surprisals)))
    return {"bits": total, "bits_per_token": total / mean_length, "standard_error_per_token": error / mean_length}


def measure(name: str, probabilities: dict, split: str, examples: int, setting: str) -> dict:
    """Samples ``examples`` derivations of one task, setting and split and measures them."""
    regime = generators.settings(name, "default_scale").regime(split)
    task_class = generators.task_class(name)
    task = task_class(regime, task_class.min_vocab_size, rule_probabilities=probabilities)
    rng = random.Random(derive_seed(0, f"{name}/{setting}", split))
    sources, targets, moves, main_moves, gaps = [], [], [], [], {"source": [], "target": []}
    verb = VERB_CLASS[name]
    for _ in range(examples):
        tree, _, _ = task.sample_derivation(rng)
        source, target, _, pairs = annotated_yields(task.grammar, ROLES[name], tree)
        sources.append(tuple(symbol for symbol, _ in source))
        targets.append(tuple(symbol for symbol, _ in target))
        where = {"source": {leaf: i for i, (_, leaf) in enumerate(source) if leaf},
                 "target": {leaf: i for i, (_, leaf) in enumerate(target) if leaf}}  # fmt: skip
        for symbol, leaf in source:
            if symbol == verb:
                moves.append(where["target"][leaf] - where["source"][leaf])
        for subject, verb_leaf, is_main in pairs:
            for side in gaps:
                gaps[side].append(abs(where[side][verb_leaf] - where[side][subject]) - 1)
            if is_main:
                main_moves.append(where["target"][verb_leaf] - where["source"][verb_leaf])
    lengths = np.array([len(s) for s in sources])
    mean_length = float(lengths.mean())
    mass = sum(task.grammar.length_distribution(regime.max_length)[regime.min_length :])
    result = {
        "task": name, "setting": setting, "rule_probabilities": task.rule_probabilities,
        "split": split, "lengths": [regime.min_length, regime.max_length], "examples": examples,
        "mean_length": mean_length,
        "relative_clause_share": (
            float(np.mean([RELATIVE_PRONOUN[name] in s for s in sources])) if RELATIVE_PRONOUN[name] else None
        ),
    }  # fmt: skip
    for side, strings in (("source", sources), ("target", targets)):
        surprisals = class_string_surprisals(task.grammar, side, strings, alphabet_of(task, side))
        result[f"{side}_classes"] = entropy(surprisals, math.log2(mass), mean_length)
    target_words = {}
    for config in LEXICON_CONFIGS:
        vocab_size = generators.settings(name, config).vocab_size
        sizes = dict(zip((c.name for c in task.LEXICAL), split_vocabulary(vocab_size, len(task.LEXICAL))))
        word_bits = np.mean([sum(math.log2(sizes[s]) for s in string if s in sizes) for string in targets])
        bits = result["target_classes"]["bits"] + float(word_bits)
        target_words[config] = {"vocab_size": vocab_size, "bits": bits, "bits_per_token": bits / mean_length}
    result["target_words"] = target_words
    result["verbs_per_sentence"] = len(moves) / examples
    result["verb_move"] = {"mean": float(np.mean(moves)), "max": int(np.max(moves))}
    result["main_verb_move"] = (
        {"mean": float(np.mean(main_moves)), "max": int(np.max(main_moves))} if main_moves else None
    )
    result["subject_verb_gap"] = {
        side: ({"mean": float(np.mean(v)), "max": int(np.max(v))} if v else None) for side, v in gaps.items()
    }
    return result


def _stat(value, digits=1):
    return "—" if value is None else f"{value['mean']:.{digits}f} / {value['max']}"


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE) -> list[tuple]:
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one)."""
    part = report(json.loads(pathlib.Path(record).read_text()))
    return [(pathlib.Path(page), "benchmarks/itg_entropy.py", part, "# The ITG grammars: entropy and verb movement")]


def report(record: dict) -> str:
    """The markdown tables of the record's results, under the command that measured them."""
    results = record["results"]
    lines = [
        f"Command: `{record['command']}`",
        "",
        # One command measures every row, on the same number of sentences.
        f"{results[0]['examples']:,} sampled sentences per row. Entropies are in bits per token, ± one standard error "
        "(the Monte-Carlo error of the mean surprisal; the estimator is unbiased): the class "
        "sequences of each side, scored exactly with an inside pass over all their derivations, and "
        "the target word strings of each lexicon config, which add the exact within-class word "
        "entropy. Moves and gaps are in tokens, `mean / max`: a verb's move is its target position "
        "minus its source position; the subject-verb gap is the number of words between the head "
        "noun of a verb's subject and the verb (SVO: `A -> S1 VT2 O3`, the subject S2 of `S1 rpi S2 "
        "VT3`, compounds headed by their last noun; gender: `B -> B1 V1`).",
    ]
    for name in SWEEPS:
        rows = [r for r in results if r["task"] == name]
        sizes = {c: rows[0]["target_words"][c]["vocab_size"] for c in LEXICON_CONFIGS}
        lines += [
            "",
            f"## `{name}`",
            "",
            "| setting | split | mean length | relative clauses | source classes | target classes "
            f"| target words, `{LEXICON_CONFIGS[0]}` ({sizes[LEXICON_CONFIGS[0]]}) "
            f"| target words, `{LEXICON_CONFIGS[1]}` ({sizes[LEXICON_CONFIGS[1]]}) |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for r in rows:
            share = "—" if r["relative_clause_share"] is None else f"{100 * r['relative_clause_share']:.1f}%"
            source, target = r["source_classes"], r["target_classes"]
            words = [r["target_words"][c]["bits_per_token"] for c in LEXICON_CONFIGS]
            lines.append(
                f"| {r['setting']} | {r['split']} {r['lengths'][0]}-{r['lengths'][1]} | {r['mean_length']:.1f} "
                f"| {share} | {source['bits_per_token']:.3f} ± {source['standard_error_per_token']:.3f} "
                f"| {target['bits_per_token']:.3f} ± {target['standard_error_per_token']:.3f} "
                f"| {words[0]:.3f} | {words[1]:.3f} |"
            )
        lines += [
            "",
            "| setting | split | verbs per sentence | verb move | main-verb move | subject-verb gap, source "
            "| subject-verb gap, target |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for r in rows:
            gap = r["subject_verb_gap"]
            lines.append(
                f"| {r['setting']} | {r['split']} {r['lengths'][0]}-{r['lengths'][1]} "
                f"| {r['verbs_per_sentence']:.2f} | {_stat(r['verb_move'], 2)} | {_stat(r['main_verb_move'])} "
                f"| {_stat(gap['source'])} | {_stat(gap['target'])} |"
            )
        lines += ["", "Settings (rule probabilities in the order of the grammar's rules):", ""]
        lines += [f"* {setting}: {what}" for setting, what, _ in SWEEPS[name]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=5_000, help="sentences per task, setting and split")
    parser.add_argument("--output", default=PAGE, help="the page whose marked part is written")
    parser.add_argument("--record", default=RECORD, help="the raw numbers (JSON)")
    args = parser.parse_args(argv)
    results = []
    for name, sweep in SWEEPS.items():
        for setting, _, probabilities in sweep:
            for split in ("train", "test"):
                results.append(measure(name, probabilities, split, args.examples, setting))
                print(name, setting, split, f"{results[-1]['source_classes']['bits_per_token']:.3f}", flush=True)
    command = "python benchmarks/itg_entropy.py" + (
        f" --examples {args.examples}" if args.examples != 5_000 else ""
    )
    write_atomically(pathlib.Path(args.record), json.dumps({"command": command, "results": results}, indent=1) + "\n")
    for part in page_parts(args.record, args.output):
        write_part(*part)


if __name__ == "__main__":
    main()
