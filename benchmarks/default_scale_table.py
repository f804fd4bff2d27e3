"""The default-scale table: `neural-memory train` at its defaults, every memory on every task, over seeds.

Each run is `neural-memory train --task TASK --memory MEMORY --seed SEED`
exactly as a user types it (plus `--output-dir`), so at the default scale:
training strings of length 8-16, test 17-32, 32 symbols, LSTM 64, memory
width 32, RMSProp, batch 10, 10 epochs of 300 batches (3,000 batches) with
no stopping rule, and accuracy on 500 fresh strings of each split. The
models:

- `stack`, `queue`: the Stack- and Queue-LSTM;
- `deque`: the DeQue-LSTM with `train`'s DeQue recipe (`config.DEQUE_RECIPE`);
- `deque_paper`: the paper's DeQue-LSTM (`--paper-deque`);
- `lstm`: the 2-layer LSTM (`--memory lstm`).

Each run is its own `neural-memory train` process, as a user's is (one
process that compiled every run in turn would run out of memory maps).
Every run resumes where it stopped and a finished run is not retrained
(`train`'s guarantees), nor is a run the record holds with the same
settings, even without its folder; so starting the same command again only
does what is missing. Several processes may share the record (split the
work with `--tasks`, `--models` or `--seeds`, one process per core): each
merges its rows into what is on disk, atomically.

Usage:
    python benchmarks/default_scale_table.py [--tasks sequence_copy,...] [--models stack,queue,...] \\
        [--seeds 0,1,2,3,4] [--runs-dir runs/default-table] [--record docs/results/default_table_runs.json]
"""

import argparse
import json
import pathlib
import subprocess
import sys

from keras_neural_memory.experiments import cli
from keras_neural_memory.experiments.cli import list_of
from study_record import add_row, read_rows

TASKS = ("sequence_copy", "sequence_reversal", "bigram_flip", "itg_svo_sov", "itg_gender_conjugation")
#: A model of the table: the `neural-memory train` options that choose it.
MODELS = {
    "stack": ("--memory", "stack"),
    "queue": ("--memory", "queue"),
    "deque": ("--memory", "deque"),
    "deque_paper": ("--memory", "deque", "--paper-deque"),
    "lstm": ("--memory", "lstm"),
}
SEEDS = (0, 1, 2, 3, 4)


def choice_list(choices):
    """argparse type: a comma-separated subset of `choices`."""

    def parse(text):
        items = list_of(str)(text)
        unknown = [item for item in items if item not in choices]
        if unknown:
            raise argparse.ArgumentTypeError(f"{', '.join(unknown)} not in {', '.join(choices)}")
        return items

    return parse


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=choice_list(TASKS), default=list(TASKS))
    parser.add_argument("--models", type=choice_list(tuple(MODELS)), default=list(MODELS))
    parser.add_argument("--seeds", type=list_of(int), default=list(SEEDS))
    parser.add_argument("--runs-dir", default="runs/default-table")
    parser.add_argument("--record", default="docs/results/default_table_runs.json")
    return parser.parse_args(argv)


def command(task, model, seed):
    """The `neural-memory train` arguments of one cell's run, as a user types them."""
    return ["train", "--task", task, *MODELS[model], "--seed", str(seed)]


def row_key(row):
    """What identifies a run in the record."""
    return row["task"], row["model"], row["seed"]


def train_results(argv, folder):
    """Trains (or reuses, from its folder) the run of `argv` in a `neural-memory train` process; returns its results.

    Raises:
        SystemExit: The process failed, other than by the loss becoming NaN.
    """
    # `neural-memory` itself: the console script of the package that this interpreter imports.
    console = "import sys, keras_neural_memory_console; sys.exit(keras_neural_memory_console.main())"
    status = subprocess.run([sys.executable, "-c", console, *argv]).returncode
    results_path = pathlib.Path(folder) / "results.json"
    if status not in (0, 1) or not results_path.is_file():  # 1: diverged, and recorded as such
        raise SystemExit(f"neural-memory {' '.join(argv)} failed with status {status}")
    return json.loads(results_path.read_text())


def run_row(task, model, seed, argv, folder):
    """Trains (or reuses, from its folder) the run of `argv` in a `neural-memory train` process; returns its row."""
    results = train_results(argv, folder)
    row = {
        "task": task,
        "model": model,
        "seed": seed,
        "command": "neural-memory " + " ".join(command(task, model, seed)),
        "settings": results["settings"],
        "parameters": results["parameters"],
        "batches": results["batches"],
        "diverged": results["diverged"],
        "train_seconds": results["train_seconds"],
        "segments": results.get("segments"),
    }
    if not results["diverged"]:
        for split in ("train", "test"):
            row[f"{split}_coarse"] = results[f"{split}_accuracy"]["coarse"]
            row[f"{split}_fine"] = results[f"{split}_accuracy"]["fine"]
    return row


def main(argv=None):
    args = parse_args(argv)
    record_path = pathlib.Path(args.record)
    for seed in args.seeds:
        for task in args.tasks:
            for model in args.models:
                folder = str(pathlib.Path(args.runs_dir) / f"{task}-{model}-seed{seed}")
                argv = [*command(task, model, seed), "--output-dir", folder, "--verbose", "0"]
                settings = cli.train_config(cli.parser().parse_args(argv)).resolved().settings()
                recorded = [r for r in read_rows(record_path) if row_key(r) == (task, model, seed) and r["settings"] == settings]
                row = recorded[0] if recorded else run_row(task, model, seed, argv, folder)
                add_row(record_path, row, key=row_key)
                test = "diverged" if row["diverged"] else f"train {row['train_coarse']:.3f}, test {row['test_coarse']:.3f}"
                print(f"{task} {model} seed {seed}: {test}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
