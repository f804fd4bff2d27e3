"""The first Chomsky-hierarchy result: reverse_string for the Stack-LSTM, the Stack-RNN and the LSTM.

Trains `neural-memory train --task chomsky_hierarchy/reverse_string` for
`--models` (default the package's Stack-LSTM `stack`, the authors'
Stack-RNN `superposition_stack`, and `lstm`) and `--seeds` (default 0, 1,
2) at one learning rate, with the protocol of Delétang et al. (2023, §4):
batches of 128 of one length uniform on 1-40, accuracy at every length
1-500 over 512 sequences, the score its mean over lengths 41-500. The
budget is `--epochs` x `--steps-per-epoch` steps (default 10 x 1,000, the
`train` default; the authors train 1,000,000).

Runs go one per core, each pinned to its core with `taskset -c`, in the
order models x seeds. Every run resumes and is never retrained, so start the
same command again after any interruption. At the end (or alone, with
`--collect-only`) it gathers the finished runs into `--results-file`
(scores, curves, training steps per second at batch 128 measured on epochs
after the first, which compiles the 40 training lengths) and draws the mean
accuracy against length of each model over its seeds into `--figure`.

Usage:
    nohup python benchmarks/chomsky_first_result.py > chomsky_first.log 2>&1 &
    python benchmarks/chomsky_first_result.py --epochs 1 --steps-per-epoch 2 --eval-max-length 3 \
        --eval-sequences 4 --runs-dir /tmp/smoke --results-file /tmp/smoke/runs.json --figure /tmp/smoke/lengths.png
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
from keras_neural_memory.experiments.files import write_atomically  # noqa: E402

TASK = "chomsky_hierarchy/reverse_string"
MODELS = ("stack", "superposition_stack", "lstm")


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs-dir", default="runs/chomsky-first-result")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated --memory values")
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated seeds")
    parser.add_argument("--learning-rate", type=float, default=5e-4, help="one of the paper's {1e-4, 3e-4, 5e-4}")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps-per-epoch", type=int, default=1000)
    parser.add_argument("--eval-max-length", type=int, default=500)
    parser.add_argument("--eval-sequences", type=int, default=512)
    parser.add_argument("--results-file", default="docs/results/chomsky_runs.json")
    parser.add_argument("--figure", default="docs/results/figures/chomsky/reverse_string/chomsky_reverse_string_lengths.png")
    parser.add_argument("--collect-only", action="store_true", help="only gather the finished runs and draw them")
    return parser.parse_args()


def run_dir(args, memory, seed):
    return pathlib.Path(args.runs_dir) / memory / f"lr{args.learning_rate:g}-seed{seed}"


def train_command(args, memory, seed):
    return [sys.executable, "-m", "keras_neural_memory.experiments.cli", "train", "--task", TASK, "--memory", memory,
            "--seed", str(seed), "--learning-rate", str(args.learning_rate), "--epochs", str(args.epochs),
            "--steps-per-epoch", str(args.steps_per_epoch), "--eval-max-length", str(args.eval_max_length),
            "--eval-sequences", str(args.eval_sequences), "--verbose", "2",
            "--output-dir", str(run_dir(args, memory, seed))]  # fmt: skip


def train_all(args, runs):
    """Trains `runs` ((memory, seed) pairs), one process per core, each pinned to its core."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [None]
    pending = queue.Queue()
    for run in runs:
        pending.put(run)
    failures = []

    def worker(core):
        while True:
            try:
                memory, seed = pending.get_nowait()
            except queue.Empty:
                return
            folder = run_dir(args, memory, seed)
            folder.mkdir(parents=True, exist_ok=True)
            command = train_command(args, memory, seed)
            if core is not None and shutil.which("taskset"):
                command = ["taskset", "-c", str(core), *command]
            print(f"core {core}: {memory} seed {seed} -> {folder}", flush=True)
            with open(folder / "train.log", "a") as log:
                status = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                         env={"KERAS_BACKEND": "jax", **os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})  # fmt: skip
            if status:
                failures.append(f"{memory} seed {seed}: exit status {status} (see {folder / 'train.log'})")
            print(f"core {core}: {memory} seed {seed} done (status {status})", flush=True)

    threads = [threading.Thread(target=worker, args=(core,)) for core in cores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def steps_per_second(results):
    """Training steps per second after the first epoch (which also compiles each training length)."""
    seconds = results["history"].get("epoch_seconds", [])
    later = seconds[1:] or seconds
    return round(results["steps_per_epoch"] / statistics.median(later), 2) if later else None


def collect(args, runs):
    """Gathers the finished runs into `--results-file` and draws `--figure`; returns the summary."""
    records, curves = [], {}
    for memory, seed in runs:
        folder = run_dir(args, memory, seed)
        if not (folder / "results.json").is_file():
            continue
        results = json.loads((folder / "results.json").read_text())
        curve = None
        if not results["diverged"]:
            curve = json.loads((folder / chomsky.CURVE_FILE).read_text())["accuracy_by_length"]
            curves.setdefault(memory, []).append(curve)
        records.append({
            "memory": memory, "seed": seed, "settings": results["settings"], "parameters": results["parameters"],
            "diverged": results["diverged"], "score": results.get("score"), "batches": results["batches"],
            "train_seconds": results["train_seconds"], "steps_per_second": steps_per_second(results),
            "eval_seconds": results.get("eval_seconds"), "segments": results["segments"],
            "accuracy_by_length": [point["accuracy"] for point in curve] if curve else None,
        })  # fmt: skip
    summary = {}
    for memory in dict.fromkeys(memory for memory, _ in runs):
        mine = [record for record in records if record["memory"] == memory]
        scores = [record["score"] for record in mine if record["score"] is not None]
        speeds = [record["steps_per_second"] for record in mine if record["steps_per_second"]]
        summary[memory] = {
            "runs": len(mine),
            "scores": scores,
            "mean_score": round(float(np.mean(scores)), 4) if scores else None,
            "steps_per_second": round(float(np.median(speeds)), 2) if speeds else None,
        }
    write_atomically(args.results_file, json.dumps({
        "task": TASK,
        "protocol": {"learning_rate": args.learning_rate, "batch_size": 128, "train_lengths": [1, 40],
                     "steps": args.epochs * args.steps_per_epoch, "eval_max_length": args.eval_max_length,
                     "eval_sequences": args.eval_sequences},
        "summary": summary,
        "runs": records,
    }, indent=2))  # fmt: skip
    if curves:
        setup = chomsky.task_setup(TASK)
        mean_curves = {}
        for memory, model_curves in curves.items():
            lengths = [point["length"] for point in model_curves[0]]
            mean = np.mean([[point["accuracy"] for point in curve] for curve in model_curves], axis=0)
            label = f"{memory} (mean of {len(model_curves)} seed{'s' * (len(model_curves) > 1)})"
            curve = [{"length": length, "accuracy": float(value)} for length, value in zip(lengths, mean)]
            mean_curves[label] = chomsky.curve_record(setup, label, curve, None, args.eval_sequences)
        pathlib.Path(args.figure).parent.mkdir(parents=True, exist_ok=True)
        chomsky.plot_curves(mean_curves, args.figure, title=f"{TASK}: accuracy against length")
    return summary


def main():
    args = arguments()
    runs = [(memory, int(seed)) for memory in args.models.split(",") for seed in args.seeds.split(",")]
    failures = [] if args.collect_only else train_all(args, runs)
    summary = collect(args, runs)
    for memory, row in summary.items():
        print(f"{memory:20s} runs {row['runs']}  mean score {row['mean_score']}  steps/s {row['steps_per_second']}")
    print(f"results: {args.results_file}\nfigure: {args.figure}")
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
