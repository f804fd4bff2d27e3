"""Measures the length histograms of the two ITG tasks.

Prints markdown tables (pasted into ``tfds_tasks/README.md``): for each
grammar, the source-length histogram of the ``default`` config's ``train``
and ``test`` splits in buckets of 8, next to the exact percentage the
tuned PCFG predicts for that bucket after rejection to the split's range,
plus the PCFG's acceptance rates.

Usage::

    python benchmarks/itg_lengths.py            # default config splits
    python benchmarks/itg_lengths.py --config paper
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tfds_tasks import generators  # noqa: E402

ITG_TASKS = ("itg_svo_sov", "itg_gender_conjugation")


def buckets(lo: int, hi: int, width: int = 8) -> list[tuple[int, int]]:
    """Splits [lo, hi] into consecutive buckets of ``width`` (last one wider)."""
    out, start = [], lo
    while start <= hi:
        end = min(start + width - 1, hi)
        if hi - end < width // 2:  # fold a short tail into the last bucket
            end = hi
        out.append((start, end))
        start = end + 1
    return out


def table(name: str, split: str, lengths: list[int], exact: list[float], lo: int, hi: int) -> str:
    mass = sum(exact[lo : hi + 1])
    counts = Counter(lengths)
    rows = [
        f"{name} `{split}` ({len(lengths)} examples, lengths {min(lengths)}..{max(lengths)}, "
        f"mean {sum(lengths) / len(lengths):.1f})",
        "",
        "| lengths | count | share | exact PCFG share |",
        "|---|---:|---:|---:|",
    ]
    for a, b in buckets(lo, hi):
        c = sum(counts[n] for n in range(a, b + 1))
        p = sum(exact[a : b + 1]) / mass
        rows.append(f"| {a}-{b} | {c} | {100 * c / len(lengths):.1f}% | {100 * p:.1f}% |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="default", help="config whose splits to measure")
    args = parser.parse_args()
    for name in ITG_TASKS:
        start = time.time()
        settings = generators.settings(name, args.config)
        splits = generators.generate(name, args.config)
        train_task, test_task = generators.tasks_for(name, args.config)
        exact = train_task.grammar.length_distribution(128)
        print(f"## {name} (`{args.config}`, built in {time.time() - start:.1f} s)\n")
        print(
            f"PCFG length law: P(8 <= n <= 64) = {100 * sum(exact[8:65]):.1f}%, "
            f"P(65 <= n <= 128) = {100 * sum(exact[65:129]):.1f}%, "
            f"P(n < 8) = {100 * sum(exact[:8]):.1f}%, "
            f"P(n > 128) = {100 * (1 - sum(exact)):.1f}%\n"
        )
        for split, task in (("train", train_task), ("test", test_task)):
            regime = settings.regime(split)
            lengths = [task.length(ex) for ex in splits[split]]
            print(table(name, split, lengths, exact, regime.min_length, regime.max_length))
            print()


if __name__ == "__main__":
    main()
