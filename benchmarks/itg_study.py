"""Which ITG grammars the Queue-, Stack- and 2-layer LSTM learn to transduce at twice the training length.

For each ITG task, rule-probability setting (the sweep of
`itg_entropy.SWEEPS`, named with underscores: `shipped`,
`no_relative_clauses`, ...), lexicon size, model and seed, this trains
`neural-memory train` at the default scale (training sentences of length
8-16, test 17-32, LSTM 64, memory width 32; RMSProp 5e-3, batch 10) with
`--rule-probabilities` and `--vocab-size`, in epochs of 100 batches, until
the held-out coarse accuracy at training lengths reaches 1.0 at two
consecutive epochs (`--stop-at-coarse 1.0 --validation-examples 200`) or
the budget runs out, and records the batches trained and the train and
test accuracy on 500 fresh sentences of the same grammar.

Every run resumes where it stopped, and a finished run is not retrained
(`train`'s guarantees), so starting the same command again only does what
is missing. It writes every run to `--record` (JSON, written atomically)
and the table to the marked part of `--output`.

Usage:
    python benchmarks/itg_study.py [--tasks itg_svo_sov] \\
        [--settings shipped,no_relative_clauses,frequent_relative_clauses] [--vocab-sizes 32,3] \\
        [--models queue,stack,lstm] [--seeds 0,1,2] [--epochs 60] [--runs-dir runs/itg-study] \\
        [--record docs/results/itg_study_runs.json] [--output docs/results/itg_grammar.md]
"""

import argparse
import pathlib
import sys

from itg_entropy import SWEEPS
from marked_part import write_part
from study_record import SCALE, STEPS_PER_EPOCH, STOP_AT, VALIDATION_EXAMPLES, add_row, learned_row, protocol, read_rows, span

from keras_neural_memory.experiments import training
from keras_neural_memory.experiments.cli import list_of, positive_int
from keras_neural_memory.experiments.config import SCALES, RunConfig

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record and the page of its part, from the repository's root.
RECORD, PAGE = "docs/results/itg_study_runs.json", "docs/results/itg_grammar.md"
MODELS = ("queue", "stack", "lstm")
# Each task's settings by name: (what it changes, {nonterminal: probabilities}).
SETTINGS = {task: {name.replace(" ", "_"): (about, rules) for name, about, rules in sweep} for task, sweep in SWEEPS.items()}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=list_of(str), default=["itg_svo_sov"], help=f"of {', '.join(SETTINGS)}")
    parser.add_argument("--settings", type=list_of(str), default=["shipped", "no_relative_clauses", "frequent_relative_clauses"],
                        help="rule-probability settings of itg_entropy.SWEEPS, spaces written as underscores")  # fmt: skip
    parser.add_argument("--vocab-sizes", type=list_of(positive_int), default=[SCALES[SCALE]["vocab"]],
                        help="class words (the default scale's 32; 3 for one per class)")  # fmt: skip
    parser.add_argument("--models", type=list_of(str), default=list(MODELS), help=f"of {', '.join(MODELS)}")
    parser.add_argument("--seeds", type=list_of(int), default=[0, 1, 2])
    parser.add_argument("--epochs", type=positive_int, default=60, help=f"most epochs of {STEPS_PER_EPOCH} batches")
    parser.add_argument("--runs-dir", default="runs/itg-study")
    parser.add_argument("--record", default=RECORD)
    parser.add_argument("--output", default=PAGE, help="markdown page ('' to skip)")
    args = parser.parse_args(argv)
    for task in args.tasks:
        if task not in SETTINGS:
            parser.error(f"--tasks takes {', '.join(SETTINGS)}; received {task}")
        unknown = [name for name in args.settings if name not in SETTINGS[task]]
        if unknown:
            parser.error(f"--settings of {task} are {', '.join(SETTINGS[task])}; received {', '.join(unknown)}")
    unknown = [model for model in args.models if model not in MODELS]
    if unknown:
        parser.error(f"--models takes {', '.join(MODELS)}; received {', '.join(unknown)}")
    return args


def study_run(args, task, setting, vocab_size, model, seed):
    """Trains (or reuses) one run and returns its row of the record."""
    rules = SETTINGS[task][setting][1]
    name = f"{task}-{setting}-vocab{vocab_size}-{model}-seed{seed}"
    config = RunConfig(
        task, memory=model, scale=SCALE, seed=seed, epochs=args.epochs, steps_per_epoch=STEPS_PER_EPOCH,
        stop_at_coarse=STOP_AT, validation_examples=VALIDATION_EXAMPLES, vocab_size=vocab_size,
        rule_probabilities=rules or None, output_dir=str(pathlib.Path(args.runs_dir) / name), verbose=0,
    )  # fmt: skip
    results = training.train(config)
    return {
        "task": task,
        "setting": setting,
        "vocab_size": vocab_size,
        "model": model,
        "seed": seed,
        "settings": results["settings"],
        "batches": results["batches"],
        "train_coarse": results["train_accuracy"]["coarse"],
        "test_coarse": results["test_accuracy"]["coarse"],
        "test_fine": results["test_accuracy"]["fine"],
        "segments": results.get("segments"),
    }


def _key(row):
    return row["task"], row["setting"], row["vocab_size"], row["model"], row["seed"]


def main(argv=None):
    args = parse_args(argv)
    record_path = pathlib.Path(args.record)
    for task in args.tasks:
        for setting in args.settings:
            for vocab_size in args.vocab_sizes:
                for model in args.models:
                    for seed in args.seeds:
                        row = study_run(args, task, setting, vocab_size, model, seed)
                        add_row(record_path, row, key=_key)
                        print(f"{'/'.join(map(str, _key(row)))}: {row['batches']} batches, train "
                              f"{row['train_coarse']:.3f}, test {row['test_coarse']:.3f}", flush=True)  # fmt: skip
    if args.output:
        for part in page_parts(record_path, args.output):
            write_part(*part)
        print(f"wrote {args.output}")


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one)."""
    part = report(read_rows(pathlib.Path(record)))
    return [(pathlib.Path(page), "benchmarks/itg_study.py", part, "# The ITG grammars: entropy and verb movement")]


def report(rows):
    """The markdown of the record: per task, the command of each lexicon, then a row per setting, lexicon and model."""
    lines = [
        "## Training on other grammars",
        "",
        protocol(rows, strings="sentences", symbols=False)
        + " Sentences are sampled from the run's own grammar and lexicon; the settings are those of the tables above.",
        "",
    ]
    for task in SETTINGS:
        task_rows = [r for r in rows if r["task"] == task]
        if not task_rows:
            continue
        settings = [s for s in SETTINGS[task] if any(r["setting"] == s for r in task_rows)]
        vocab_sizes = sorted({r["vocab_size"] for r in task_rows}, reverse=True)
        models = [m for m in MODELS if any(r["model"] == m for r in task_rows)]
        lines += [f"### `{task}`", ""]
        for vocab_size in vocab_sizes:  # the command that reproduces the runs of each lexicon
            runs = [r for r in task_rows if r["vocab_size"] == vocab_size]
            lines += [f"`python benchmarks/itg_study.py --tasks {task} "
                      f"--settings {','.join(s for s in settings if any(r['setting'] == s for r in runs))} "
                      f"--vocab-sizes {vocab_size} --models {','.join(m for m in models if any(r['model'] == m for r in runs))} "
                      f"--seeds {','.join(map(str, sorted({r['seed'] for r in runs})))}`", ""]  # fmt: skip
        lines += ["| setting | class words | model | learned | batches (median, range) | train coarse | test coarse | test fine |",
                  "|---|--:|---|--:|--:|--:|--:|--:|"]  # fmt: skip
        for setting in settings:
            for vocab_size in vocab_sizes:
                for model in models:
                    runs = sorted((r for r in task_rows if (r["setting"], r["vocab_size"], r["model"]) == (setting, vocab_size, model)),
                                  key=lambda r: r["seed"])  # fmt: skip
                    if not runs:
                        continue
                    lines.append(f"| {setting.replace('_', ' ')} | {vocab_size} | {model} | {learned_row(runs)} |"
                                 f" {span([r['test_fine'] for r in runs])} |")  # fmt: skip
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
