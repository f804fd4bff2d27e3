"""How the deep LSTM's fit of training-length strings depends on learning rate and batches.

Grefenstette et al. train "an unbounded number of steps" (§4.4), and their
Figure 2b shows the LSTMs converging far later than the memory models. At
the default scale this trains `neural-memory train --memory lstm` (2
layers unless `--lstm-layers` says otherwise) for every learning rate and
seed, `--epochs` epochs of 300 batches each, and records the training
coarse accuracy after every epoch (on the epoch's own batches), the
batches at which it first reaches 0.5 and 0.9, and the final train and
test accuracy on 500 fresh strings each.

Runs resume where they stopped and a finished run is not retrained, so
the same command started again only does what is missing. Every run goes
to `--record` (JSON, written atomically), the table to the marked part of
`--output`, under the commands that train the record's runs, which the page
derives from the record.

Usage:
    python benchmarks/lstm_budget.py [--task sequence_copy] [--learning-rates 5e-3,1e-3,5e-4,1e-4] \\
        [--seeds 0,1,2] [--epochs 40] [--runs-dir runs/lstm-budget] \\
        [--record docs/results/lstm_budget_runs.json] [--output docs/results/deep_lstm.md]
"""

import argparse
import json
import pathlib
import sys

from keras_neural_memory.experiments import training
from keras_neural_memory.experiments.cli import list_of, positive_float, positive_int
from keras_neural_memory.experiments.config import SCALES, RunConfig
from keras_neural_memory.experiments.run_folder import write_atomically
from marked_part import write_part

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record and the page of its part, from the repository's root.
RECORD, PAGE = "docs/results/lstm_budget_runs.json", "docs/results/deep_lstm.md"
SCALE, STEPS_PER_EPOCH, THRESHOLDS = "default", 300, (0.5, 0.9)
#: What a run trains unless the command says otherwise.
DEFAULTS = {"task": "sequence_copy", "lstm_layers": 2, "learning_rates": (5e-3, 1e-3, 5e-4, 1e-4), "seeds": (0, 1, 2),
            "epochs": 40}  # fmt: skip


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default=DEFAULTS["task"])
    parser.add_argument("--lstm-layers", type=positive_int, default=DEFAULTS["lstm_layers"])
    parser.add_argument("--learning-rates", type=list_of(positive_float), default=list(DEFAULTS["learning_rates"]))
    parser.add_argument("--seeds", type=list_of(int), default=list(DEFAULTS["seeds"]))
    parser.add_argument("--epochs", type=positive_int, default=DEFAULTS["epochs"],
                        help=f"epochs of {STEPS_PER_EPOCH} batches")  # fmt: skip
    parser.add_argument("--runs-dir", default="runs/lstm-budget")
    parser.add_argument("--record", default=RECORD)
    parser.add_argument("--output", default=PAGE, help="markdown page ('' to skip)")
    return parser.parse_args(argv)


def first_batches(history, threshold):
    """Batches trained when the epoch's training coarse accuracy first reached `threshold`, or None."""
    for epoch, coarse in enumerate(history.get("coarse_accuracy", [])):
        if coarse >= threshold:
            return (epoch + 1) * STEPS_PER_EPOCH
    return None


def budget_run(args, learning_rate, seed):
    """Trains (or reuses) one run and returns its row of the record."""
    name = f"{args.task}-lstm{args.lstm_layers}-lr{learning_rate:g}-seed{seed}"
    config = RunConfig(
        args.task, memory="lstm", lstm_layers=args.lstm_layers, scale=SCALE, learning_rate=learning_rate, seed=seed,
        epochs=args.epochs, steps_per_epoch=STEPS_PER_EPOCH, output_dir=str(pathlib.Path(args.runs_dir) / name), verbose=0,
    )  # fmt: skip
    results = training.train(config)
    history = results["history"]
    return {
        "task": args.task,
        "lstm_layers": args.lstm_layers,
        "learning_rate": learning_rate,
        "seed": seed,
        "settings": results["settings"],
        "batches": results["batches"],
        "diverged": results["diverged"],
        "train_coarse_by_epoch": history.get("coarse_accuracy", []),
        **{f"batches_to_{t:g}": first_batches(history, t) for t in THRESHOLDS},
        "train_coarse": results.get("train_accuracy", {}).get("coarse"),
        "test_coarse": results.get("test_accuracy", {}).get("coarse"),
        "segments": results.get("segments"),
    }


def main(argv=None):
    args = parse_args(argv)
    record_path = pathlib.Path(args.record)
    kept = json.loads(record_path.read_text()) if record_path.exists() else []
    rows = {(r["task"], r["lstm_layers"], r["learning_rate"], r["seed"]): r for r in kept}
    for learning_rate in args.learning_rates:
        for seed in args.seeds:
            row = budget_run(args, learning_rate, seed)
            rows[args.task, args.lstm_layers, learning_rate, seed] = row
            print(f"lr {learning_rate:g} seed {seed}: {row['batches']} batches, train {row['train_coarse']}, "
                  f"test {row['test_coarse']}", flush=True)  # fmt: skip
            write_atomically(record_path, json.dumps(list(rows.values()), indent=1) + "\n")
    if args.output:
        for part in page_parts(record_path, args.output):
            write_part(*part)
        print(f"wrote {args.output}")


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one)."""
    part = report(json.loads(pathlib.Path(record).read_text()))
    return [(pathlib.Path(page), "benchmarks/lstm_budget.py", part, "# The deep LSTM's budget")]


def _order(row):
    return row["task"], row["lstm_layers"], -row["learning_rate"], row["seed"]


def _flag_value(value):
    """A value as the command line writes it: a list comma-separated, a float as `:g` writes it."""
    if isinstance(value, (list, tuple)):
        return ",".join(map(_flag_value, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def commands(rows):
    """The commands that train and record `rows`: one per task, depth and budget, naming what differs from `DEFAULTS`.

    Each trains every learning rate of its rows with every seed of its rows,
    and reuses the runs already trained.
    """
    groups = {}
    for r in sorted(rows, key=_order):
        groups.setdefault((r["task"], r["lstm_layers"], r["settings"]["epochs"]), []).append(r)
    lines = []
    for (task, lstm_layers, epochs), group in groups.items():
        asked = {
            "task": task,
            "lstm_layers": lstm_layers,
            "learning_rates": sorted({r["learning_rate"] for r in group}, reverse=True),
            "seeds": sorted({r["seed"] for r in group}),
            "epochs": epochs,
        }
        flags = [f"--{name.replace('_', '-')} {_flag_value(value)}" for name, value in asked.items()
                 if _flag_value(value) != _flag_value(DEFAULTS[name])]  # fmt: skip
        lines.append(" ".join(["python benchmarks/lstm_budget.py", *flags]))
    return lines


def _batches(value):
    return "never" if value is None else f"{value:,}"


def report(rows):
    """The markdown of the record: the commands that train it, and a row per task, depth, learning rate and seed."""
    scale = SCALES[SCALE]
    lines = [
        *(f"- Command: `{command}`" for command in commands(rows)),
        f"- Default scale: training strings of length {scale['train'][0]}-{scale['train'][1]}, test"
        f" {scale['test'][0]}-{scale['test'][1]}, {scale['vocab']} symbols, LSTM {scale['hidden']} units per layer;"
        f" RMSProp with clipping at 1, batch 10, epochs of {STEPS_PER_EPOCH} batches. \"Reaches\": the first epoch"
        " whose training batches average that coarse accuracy; the final accuracies are on 500 fresh strings.",
        "",
        "| task | layers | learning rate | seed | batches | reaches 0.5 | reaches 0.9 | train coarse | test coarse |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in sorted(rows, key=_order):
        if r["diverged"]:
            accuracy = "diverged | diverged"
        else:
            accuracy = f"{r['train_coarse']:.3f} | {r['test_coarse']:.3f}"
        lines.append(
            f"| {r['task']} | {r['lstm_layers']} | {r['learning_rate']:g} | {r['seed']} | {r['batches']:,} |"
            f" {_batches(r['batches_to_0.5'])} | {_batches(r['batches_to_0.9'])} | {accuracy} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
