"""The Chomsky-hierarchy table: `neural-memory train` on tasks x models x seeds, one learning rate, one record.

Each run is `neural-memory train --task chomsky_hierarchy/TASK --memory M
--seed S --learning-rate LR` as a user types it (plus `--output-dir`), so
with the protocol of the authors' code (`experiments.chomsky`): batches
of 128 of one length uniform on 1-40, `OptaxAdam` with clipping at global
norm 1, 10 epochs of 1,000 steps (10,000 steps), and accuracy at every
length 1-500 over 512 strings; the score is its mean over lengths 41-500,
and the record also keeps the mean over 42-500 (the authors'
`example.py` slices from 42). Every Stack-RNN trains with the authors'
30-vector stack and is measured again with a stack that holds the whole
tape ("whole_tape_stack"). The models:

- `stack`, `queue`: the Stack- and Queue-LSTM;
- `deque`: the paper's DeQue-LSTM (`train` adds no recipe on these tasks);
- `deque_recipe`: the DeQue with the memory options of the package's DeQue
  recipe (`config.DEQUE_RECIPE`: hard-sigmoid gates, a random quiet end,
  strength noise 0.5 after the first 500 steps, rounded up to whole
  epochs), at the table's learning rate: the recipe's own rate is
  RMSProp's, not Adam's;
- `superposition_stack`: the authors' Stack-RNN;
- `lstm`: the authors' LSTM.

Each run is its own `neural-memory train` process. Every run resumes where
it stopped and a finished run is not retrained (`train`'s guarantees), nor
is a run that the record holds with the same settings, even without its
folder; so starting the same command again, at any later time,
only does what is missing. `--shard I/N` takes every N-th run of the
ordered list (seeds, then tasks, then models), from the I-th: N processes
with shards 1/N ... N/N share the work (one per core, each pinned with
`taskset -c`), and merge their rows into one record, under a lock. The
device of every run is in its row ("devices", from its segments); on a
machine with a GPU the same command trains there.

Usage:
    python benchmarks/chomsky_table.py [--tasks reverse_string,...] [--models stack,...] [--seeds 0,1,2] \\
        [--learning-rate 5e-4] [--shard 1/2] [--runs-dir runs/chomsky-table] \\
        [--record docs/results/chomsky_table_runs.json]
"""

import argparse
import json
import pathlib
import shlex
import statistics
import sys

from default_scale_table import choice_list, train_results
from study_record import add_row, read_rows

from keras_neural_memory.experiments import chomsky, cli
from keras_neural_memory.experiments.cli import list_of, positive_float
from keras_neural_memory.experiments.common import CHOMSKY_PROTOCOL
from keras_neural_memory.experiments.config import DEQUE_RECIPE, deque_recipe
from tfds_tasks.generators.chomsky_hierarchy import CHOMSKY_TASK_NAMES

#: The six tasks where the kind of memory should matter: deterministic context-free, then context-sensitive.
TASKS = ("reverse_string", "stack_manipulation", "modular_arithmetic_brackets", "duplicate_string", "odds_first",
         "bucket_sort")  # fmt: skip
SEEDS = (0, 1, 2)


def _recipe_flags():
    """The `train` flags of the DeQue recipe's memory options and noise delay, at the protocol's epochs."""
    flags = []
    for name, value in DEQUE_RECIPE["memory_options"].changed().items():
        flags += [f"--{name.replace('_', '-')}", f"{value:g}" if isinstance(value, float) else str(value)]
    delay = deque_recipe(CHOMSKY_PROTOCOL["steps"])["strength_noise_delay"]
    return (*flags, "--strength-noise-delay", str(delay))


#: A model of the table: the `neural-memory train` options that choose it.
MODELS = {
    "stack": ("--memory", "stack"),
    "queue": ("--memory", "queue"),
    "deque": ("--memory", "deque"),
    "deque_recipe": ("--memory", "deque", *_recipe_flags()),
    "superposition_stack": ("--memory", "superposition_stack"),
    "lstm": ("--memory", "lstm"),
}


def shard(text):
    """argparse type: "I/N", 1 <= I <= N, as `(I, N)`."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise argparse.ArgumentTypeError(f"{text!r} is not I/N with 1 <= I <= N, e.g. 1/2")
    return int(index), int(count)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=choice_list(CHOMSKY_TASK_NAMES), default=list(TASKS))
    parser.add_argument("--models", type=choice_list(tuple(MODELS)), default=list(MODELS))
    parser.add_argument("--seeds", type=list_of(int), default=list(SEEDS))
    parser.add_argument("--learning-rate", type=positive_float, default=CHOMSKY_PROTOCOL["learning_rate"],
                        help="one of the authors' {1e-4, 3e-4, 5e-4}")  # fmt: skip
    parser.add_argument("--shard", type=shard, default=(1, 1), help="I/N: every N-th run from the I-th")
    parser.add_argument("--runs-dir", default="runs/chomsky-table")
    parser.add_argument("--record", default="docs/results/chomsky_table_runs.json")
    parser.add_argument("--train-flags", type=shlex.split, default=[],
                        help="more `neural-memory train` flags for every run (smoke tests: a tiny budget)")  # fmt: skip
    return parser.parse_args(argv)


def command(task, model, seed, learning_rate):
    """The `neural-memory train` arguments of one run, as a user types them."""
    return ["train", "--task", f"chomsky_hierarchy/{task}", *MODELS[model], "--seed", str(seed),
            "--learning-rate", f"{learning_rate:g}"]  # fmt: skip


def row_key(row):
    """What identifies a run in the record."""
    return row["task"], row["model"], row["seed"]


def planned_runs(args):
    """The `(task, model, seed)` of this process's shard, in order: seeds, then tasks, then models."""
    runs = [(task, model, seed) for seed in args.seeds for task in args.tasks for model in args.models]
    index, count = args.shard
    return runs[index - 1 :: count]


def run_row(task, model, seed, argv, shown, folder):
    """Trains (or reuses, from its folder) the run of `argv` in a `neural-memory train` process; returns its row."""
    results = train_results(argv, folder)
    folder = pathlib.Path(folder)
    row = {
        "task": task,
        "model": model,
        "seed": seed,
        "command": "neural-memory " + " ".join(shown),
        "settings": results["settings"],
        "parameters": results["parameters"],
        "batches": results["batches"],
        "diverged": results["diverged"],
        "train_seconds": results["train_seconds"],
        "eval_seconds": results.get("eval_seconds"),
        "devices": list(dict.fromkeys(segment["device"] for segment in results["segments"])),
        "segments": results["segments"],
    }
    if not results["diverged"]:
        curve = json.loads((folder / results["accuracy_by_length"]).read_text())["accuracy_by_length"]
        row["score"] = results["score"]
        row["score_from_42"] = mean_from(curve, 42)
        row["accuracy_by_length"] = [point["accuracy"] for point in curve]
        whole_tape = results.get("whole_tape_stack")
        if whole_tape is not None:
            deep = json.loads((folder / whole_tape["accuracy_by_length"]).read_text())["accuracy_by_length"]
            row["whole_tape_stack"] = {"stack_size": whole_tape["stack_size"], "score": whole_tape["score"],
                                       "score_from_42": mean_from(deep, 42),
                                       "accuracy_by_length": [point["accuracy"] for point in deep]}  # fmt: skip
    return row


def mean_from(curve, first_length):
    """The mean accuracy of `curve` from `first_length` on; None if it does not reach it."""
    values = [point["accuracy"] for point in curve if point["length"] >= first_length]
    return statistics.fmean(values) if values else None


def score_line(row):
    """What the sweep prints of a finished row."""
    if row["diverged"]:
        return "diverged"
    text = chomsky.score_text(row["score"], row.get("whole_tape_stack"))
    return f"{text}; on {row['devices'][-1]}"


def main(argv=None):
    args = parse_args(argv)
    record_path = pathlib.Path(args.record)
    record_path.parent.mkdir(parents=True, exist_ok=True)
    for task, model, seed in planned_runs(args):
        folder = str(pathlib.Path(args.runs_dir) / f"{task}-{model}-seed{seed}")
        shown = [*command(task, model, seed, args.learning_rate), *args.train_flags]
        argv = [*shown, "--output-dir", folder, "--verbose", "0"]
        settings = cli.train_config(cli.parser().parse_args(argv)).resolved().settings()
        recorded = [r for r in read_rows(record_path) if row_key(r) == (task, model, seed) and r["settings"] == settings]
        row = recorded[0] if recorded else run_row(task, model, seed, argv, shown, folder)
        add_row(record_path, row, key=row_key)  # under the record's lock
        print(f"{task} {model} seed {seed}: {score_line(row)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
