"""The first Chomsky-hierarchy result: reverse_string for the Stack-LSTM, the Stack-RNN and the LSTM.

Trains `neural-memory train --task chomsky_hierarchy/reverse_string` for
`--models` (default the package's Stack-LSTM `stack`, the authors'
Stack-RNN `superposition_stack` with their 30-vector stack, and `lstm`;
`superposition_stack@N` is the Stack-RNN with a stack of N vectors,
`--stack-size N`) and `--seeds` (default 0, 1, 2) at one learning rate, with the protocol of Delétang et al. (2023):
batches of 128 of one length uniform on 1-40, accuracy at every length
1-500 over 512 sequences, the score its mean over lengths 41-500. The
budget is `--epochs` x `--steps-per-epoch` steps (default 10 x 1,000, the
`train` default; the authors train 1,000,000).

Runs go one per core, each pinned to its core with `taskset -c`, in the
order models x seeds. Every run resumes and is never retrained, so start the
same command again after any interruption; a run stopped during its
final evaluation continues it at the length where it stopped. At the end
(or alone, with `--collect-only`) it gathers the finished runs into
`--results-file` (scores, curves, provenance), draws the mean accuracy
against length of each model over its seeds into `--figure`, and writes the
table of scores into its part of `--page`. Speed is not taken from these
runs, which share the machine: `benchmarks/chomsky_cost.py` measures it.

Usage:
    nohup python benchmarks/chomsky_first_result.py > chomsky_first.log 2>&1 &
    python benchmarks/chomsky_first_result.py --epochs 1 --steps-per-epoch 2 --eval-max-length 3 \
        --eval-sequences 4 --runs-dir /tmp/smoke --results-file /tmp/smoke/runs.json --figure /tmp/smoke/lengths.png \
        --page /tmp/smoke/chomsky.md
"""

import argparse
import json
import os
import pathlib
import queue
import shutil
import statistics
import subprocess
import sys
import threading

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from keras_neural_memory.experiments import chomsky  # noqa: E402
from keras_neural_memory.experiments.run_folder import write_atomically  # noqa: E402
from keras_neural_memory.models import CHOMSKY_STACK_SIZE  # noqa: E402
from marked_part import write_part  # noqa: E402

TASK = "chomsky_hierarchy/reverse_string"
#: The committed record, its figure and the page of its part, from the repository's root.
RECORD = "docs/results/chomsky_runs.json"
FIGURE = "docs/results/figures/chomsky/reverse_string/chomsky_reverse_string_lengths.png"
PAGE = "docs/results/chomsky.md"
#: `--memory`, or "superposition_stack@N" for the Stack-RNN with `--stack-size N`.
MODELS = ("stack", "superposition_stack", "lstm")
#: What each `--memory` is, in the page's table.
MODEL_NAMES = {
    "stack": "Stack-LSTM (Grefenstette et al.)",
    "queue": "Queue-LSTM (Grefenstette et al.)",
    "deque": "DeQue-LSTM (Grefenstette et al.)",
    "superposition_stack": "Stack-RNN (Joulin & Mikolov, superposition)",
    "lstm": "LSTM",
}


def arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-dir", default="runs/chomsky-first-result")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated --memory values; superposition_stack@N: the Stack-RNN with --stack-size N")
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated seeds")
    parser.add_argument("--learning-rate", type=float, default=5e-4, help="one of the paper's {1e-4, 3e-4, 5e-4}")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps-per-epoch", type=int, default=1000)
    parser.add_argument("--eval-max-length", type=int, default=500)
    parser.add_argument("--eval-sequences", type=int, default=512)
    parser.add_argument("--results-file", default=RECORD)
    parser.add_argument("--figure", default=FIGURE)
    parser.add_argument("--page", default=PAGE, help="the results page whose part is written")
    parser.add_argument("--collect-only", action="store_true", help="only gather the finished runs and draw them")
    args = parser.parse_args(argv)
    for model in args.models.split(","):
        memory, _, stack_size = model.partition("@")
        if stack_size and not (memory == "superposition_stack" and stack_size.isdigit() and int(stack_size) > 0):
            parser.error(f"--models: {model!r}: only superposition_stack takes @N, a positive stack size, "
                         "e.g. superposition_stack@500")  # fmt: skip
    return args


def model_flags(model):
    """The `train` flags of a `--models` entry: `--memory`, and `--stack-size` for "superposition_stack@N"."""
    memory, _, stack_size = model.partition("@")
    return ["--memory", memory, *(["--stack-size", stack_size] if stack_size else [])]


def model_name(model):
    """The page's name of a `--models` entry."""
    memory, _, stack_size = model.partition("@")
    if memory == "superposition_stack":
        return f"{MODEL_NAMES[memory]}, {stack_size or CHOMSKY_STACK_SIZE}-vector stack"
    return MODEL_NAMES.get(memory, memory)


def run_dir(args, model, seed):
    return pathlib.Path(args.runs_dir) / model.replace("@", "-stack") / f"lr{args.learning_rate:g}-seed{seed}"


def train_command(args, model, seed):
    return [sys.executable, "-m", "keras_neural_memory.experiments.cli", "train", "--task", TASK, *model_flags(model),
            "--seed", str(seed), "--learning-rate", str(args.learning_rate), "--epochs", str(args.epochs),
            "--steps-per-epoch", str(args.steps_per_epoch), "--eval-max-length", str(args.eval_max_length),
            "--eval-sequences", str(args.eval_sequences), "--verbose", "2",
            "--output-dir", str(run_dir(args, model, seed))]  # fmt: skip


def train_all(args, runs):
    """Trains `runs` ((`--models` entry, seed) pairs), one process per core, each pinned to its core."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [None]
    pending = queue.Queue()
    for run in runs:
        pending.put(run)
    failures = []

    def worker(core):
        while True:
            try:
                model, seed = pending.get_nowait()
            except queue.Empty:
                return
            folder = run_dir(args, model, seed)
            folder.mkdir(parents=True, exist_ok=True)
            command = train_command(args, model, seed)
            if core is not None and shutil.which("taskset"):
                command = ["taskset", "-c", str(core), *command]
            print(f"core {core}: {model} seed {seed} -> {folder}", flush=True)
            with open(folder / "train.log", "a") as log:
                status = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                         env={"KERAS_BACKEND": "jax", **os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})  # fmt: skip
            if status:
                failures.append(f"{model} seed {seed}: exit status {status} (see {folder / 'train.log'})")
            print(f"core {core}: {model} seed {seed} done (status {status})", flush=True)

    threads = [threading.Thread(target=worker, args=(core,)) for core in cores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def collect(args, runs):
    """Gathers the finished runs into `--results-file` and draws `--figure`; returns the summary."""
    records, curves = [], {}
    for model, seed in runs:
        folder = run_dir(args, model, seed)
        if not (folder / "results.json").is_file():
            continue
        results = json.loads((folder / "results.json").read_text())
        curve = None
        if not results["diverged"]:
            curve = json.loads((folder / chomsky.CURVE_FILE).read_text())["accuracy_by_length"]
            curves.setdefault(model, []).append(curve)
        records.append({
            "model": model, "seed": seed, "settings": results["settings"], "parameters": results["parameters"],
            "diverged": results["diverged"], "score": results.get("score"), "batches": results["batches"],
            "segments": results["segments"],
            "accuracy_by_length": [point["accuracy"] for point in curve] if curve else None,
        })  # fmt: skip
    summary = {}
    for model in dict.fromkeys(model for model, _ in runs):
        mine = [record for record in records if record["model"] == model]
        scores = {record["seed"]: record["score"] for record in mine if record["score"] is not None}
        summary[model] = {
            "runs": len(mine),
            "diverged": sum(record["diverged"] for record in mine),
            "scores_by_seed": scores,
            "best_score": max(scores.values()) if scores else None,
            "median_score": statistics.median(scores.values()) if scores else None,
            "mean_score": float(np.mean(list(scores.values()))) if scores else None,
        }
    record = {
        "task": TASK,
        "models": args.models.split(","),
        "seeds": [int(seed) for seed in args.seeds.split(",")],
        "protocol": {"learning_rate": args.learning_rate, "batch_size": 128, "train_lengths": [1, 40],
                     "steps": args.epochs * args.steps_per_epoch, "eval_max_length": args.eval_max_length,
                     "eval_sequences": args.eval_sequences},
        "summary": summary,
        "runs": records,
    }  # fmt: skip
    write_atomically(args.results_file, json.dumps(record, indent=2))
    curves = {model: model_curves for model, model_curves in curves.items() if model in drawn_models(record)}
    if curves:
        setup = chomsky.task_setup(TASK)
        mean_curves = {}
        for model, model_curves in curves.items():
            lengths = [point["length"] for point in model_curves[0]]
            mean = np.mean([[point["accuracy"] for point in curve] for curve in model_curves], axis=0)
            label = f"{model} (mean of {len(model_curves)} seed{'s' * (len(model_curves) > 1)})"
            curve = [{"length": length, "accuracy": float(value)} for length, value in zip(lengths, mean)]
            mean_curves[label] = chomsky.curve_record(setup, label, curve, None, args.eval_sequences)
        pathlib.Path(args.figure).parent.mkdir(parents=True, exist_ok=True)
        chomsky.plot_curves(mean_curves, args.figure, title=f"{TASK}: accuracy against length")
    for part in page_parts(args.results_file, args.page, args.figure):
        write_part(*part)
    return summary


def asked(record):
    """The `--models` entries and the seeds that the record's command asked for.

    A record written before it kept them asked for the models of its
    summary and the seeds of its runs.
    """
    seeds = record.get("seeds", sorted({run["seed"] for run in record["runs"]}))
    return record.get("models", list(record["summary"])), seeds


def whole_models(record):
    """The models of the record whose every seed asked for has finished: only those are tabled and drawn."""
    models, seeds = asked(record)
    return [model for model in models if record["summary"][model]["runs"] == len(seeds)]


def drawn_models(record):
    """The whole models with a run that did not diverge: those whose mean curve the figure shows."""
    summary = record["summary"]
    return [model for model in whole_models(record) if summary[model]["runs"] > summary[model]["diverged"]]


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE, figure=ROOT / FIGURE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one); `figure` is where its figure lies, for the page's link."""
    page = pathlib.Path(page)
    part = report(json.loads(pathlib.Path(record).read_text()), os.path.relpath(figure, page.parent))
    return [(page, "benchmarks/chomsky_first_result.py", part, "# The Chomsky-hierarchy benchmark")]


def report(record, figure):
    """The page's part: the command, the scores of every model whose seeds have all finished, and the figure.

    Args:
        record: The record that `collect` writes.
        figure: The link from the page to the figure, drawn when a model has curves to draw.
    """
    models, seeds = asked(record)
    protocol, summary = record["protocol"], record["summary"]
    max_length = protocol["eval_max_length"]
    lines = [
        "`python benchmarks/chomsky_first_result.py"
        + (f" --models {','.join(models)}" if models != list(MODELS) else "")
        + f" --seeds {','.join(map(str, seeds))}` "
        f"(`neural-memory train --task {TASK} --memory M --seed S --learning-rate {protocol['learning_rate']:g}`"
        + (", and `--stack-size N` for `superposition_stack@N`" if any("@" in m for m in models) else "") + "): "
        f"{protocol['steps']:,} steps at learning rate {protocol['learning_rate']:g}, "
        f"accuracy at every length 1-{max_length} over {protocol['eval_sequences']} sequences each.",
    ]
    table, missing = [], []
    whole = whole_models(record)
    for model in models:
        row = summary[model]
        scores = row["scores_by_seed"]  # by seed as a string, as JSON keeps it
        by_seed = ", ".join(f"{scores[seed]:.3f} (seed {seed})" for seed in sorted(scores, key=int))
        if model not in whole:
            missing.append(f"{model_name(model)}, {row['runs']} of {len(seeds)} seeds"
                           + (f": {by_seed}" if by_seed else ""))
            continue
        if row["diverged"]:
            by_seed += f"; {row['diverged']} diverged"
        best, median = (f"{row[key]:.3f}" if row[key] is not None else "-" for key in ("best_score", "median_score"))
        table.append(f"| {model_name(model)} | `{model}` | {by_seed or '-'} | {best} | {median} |")
    if table:
        lines += ["", f"| model | `--models` entry | score by seed (mean accuracy, lengths 41-{max_length}) "
                      "| best | median |", "|---|---|---|--:|--:|", *table]  # fmt: skip
    if missing:
        lines += ["", "Not tabled or drawn until all their seeds have finished: " + "; ".join(missing) + "."]
    if drawn_models(record):
        lines += ["", f"![{TASK}: per-token accuracy against length, mean over seeds]({figure})"]
    return "\n".join(lines)


def main(argv=None):
    args = arguments(argv)
    runs = [(model, int(seed)) for model in args.models.split(",") for seed in args.seeds.split(",")]
    failures = [] if args.collect_only else train_all(args, runs)
    summary = collect(args, runs)
    for model, row in summary.items():
        print(f"{model:20s} runs {row['runs']}  scores {row['scores_by_seed']}")
    print(f"results: {args.results_file}\nfigure: {args.figure}")
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
