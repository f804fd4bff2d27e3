"""Bigram flipping with and without `strength_noise`, at equal batches.

Grefenstette et al. (Table 2) find that no model solves bigram flipping on
every test string: the best test coarse accuracy is 0.55. A soft Queue-LSTM
learns the training lengths but pushes and pops fractional amounts, and the
small mismatch per symbol accumulates until, on longer strings, its reads
fall between symbols. `strength_noise` adds Gaussian noise to the push and
pop logits while training, which only whole pushes and pops withstand.

For every memory, noise level and seed this trains `neural-memory train
--task bigram_flip --scale default --strength-noise SIGMA` for the same
number of batches, then measures coarse, fine and per-symbol accuracy on
fresh strings of each length range, up to the paper's test lengths 65-128
(even lengths 66-128: 4 to 8 times the longest training string at the
default scale). Every measured run is a row of the record `--record`
(`docs/results/strength_noise_runs.json`), merged into what is on disk.
From the record's rows of each scale it writes markdown tables into
`--output`, between two marker lines named after the scale, so that the
default and the paper scale share one page: every run rewrites the part of
each scale the record holds runs of and keeps everything else, the text
about a scale without runs included (a file without the markers gets the
part appended; a new file gets a title and the part).
`--page-only` writes the page from the record without training.

Every run resumes where it stopped and a finished run is not retrained (the
`train` command's own guarantees); each measurement is kept in its run's
folder, written atomically, so starting the same command again after a kill
only does what is missing.

Usage:
    KERAS_BACKEND=jax python benchmarks/strength_noise.py \\
        [--scale default] [--memories queue,deque] [--noise 0,1] [--seeds 0,1,2] [--epochs 20] \\
        [--learning-rate 5e-3] [--runs-dir runs/strength-noise] [--record docs/results/strength_noise_runs.json] \\
        [--output docs/results/strength_noise.md] [--page-only]

At `--scale paper` (training lengths 8-64, 128 symbols, LSTM 256, memory
256) the runs are named `paper-...` in the same folder.
"""

import argparse
import json
import pathlib
import sys


from keras_neural_memory import MemoryOptions
from keras_neural_memory.experiments import data, evaluation, training
from keras_neural_memory.experiments.cli import list_of, non_negative_float, positive_float, positive_int
from keras_neural_memory.experiments.common import LEARNS_AT, learns
from keras_neural_memory.experiments.config import SCALES, RunConfig
from keras_neural_memory.experiments.run_folder import write_atomically
from marked_part import write_part
from study_record import add_row, read_rows, seeds_text
from strength_drift import TRACEABLE, fraction, traces

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record and the page of its parts, from the repository's root.
RECORD, PAGE = "docs/results/strength_noise_runs.json", "docs/results/strength_noise.md"
TASK, STEPS_PER_EPOCH = "bigram_flip", 250
#: The first line of the page, when a run writes it new.
TITLE = "# Bigram flipping with `strength_noise`"
# Per scale: the training lengths, then longer ones. Bigram flipping takes
# even lengths only: 66-128 are those of the paper's test range 65-128.
LENGTH_RANGES = {
    "default": ((8, 16), (18, 32), (34, 64), (66, 128)),
    "paper": ((8, 64), (66, 128), (130, 256)),
}


def memory_kind(text):
    """argparse type: a memory that has push and pop strengths."""
    if text not in TRACEABLE:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(TRACEABLE)}")
    return text


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=tuple(LENGTH_RANGES), default="default")
    parser.add_argument("--memories", type=list_of(memory_kind), default=["queue", "deque"])
    parser.add_argument("--noise", type=list_of(non_negative_float), default=[0.0, 1.0], help="strength_noise levels")
    parser.add_argument("--seeds", type=list_of(int), default=[0, 1, 2])
    parser.add_argument("--epochs", type=positive_int, default=20, help=f"epochs of {STEPS_PER_EPOCH} batches per run")
    parser.add_argument("--learning-rate", type=positive_float, default=5e-3, help="RMSProp learning rate")
    parser.add_argument("--examples", type=positive_int, default=500, help="fresh strings per length range")
    parser.add_argument("--runs-dir", default="runs/strength-noise")
    parser.add_argument("--record", default=RECORD, help="the JSON record of the runs")
    parser.add_argument("--output", default=PAGE, help="markdown report ('' to skip)")
    parser.add_argument("--page-only", action="store_true", help="write the page from the record; train nothing")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.examples < 1:
        parser.error("--epochs and --examples must be positive integers")
    return args


def run_dir(args, memory, noise, seed):
    prefix = "" if args.scale == "default" else f"{args.scale}-"
    suffix = "" if args.learning_rate == 5e-3 else f"-lr{args.learning_rate:g}"
    return pathlib.Path(args.runs_dir) / f"{prefix}{memory}-noise{noise:g}-seed{seed}{suffix}"


def kept_measurement(run, key, measure):
    """`measure()`, computed once per `key` and kept in the run's `measurements.json` (written atomically)."""
    path = run / "measurements.json"
    kept = json.loads(path.read_text()) if path.exists() else {}
    if key not in kept:
        kept[key] = measure()
        write_atomically(path, json.dumps(kept, indent=1, sort_keys=True))
    return kept[key]


def measured(run, lengths, examples):
    """Accuracy of the finished run at `lengths`."""

    def measure():
        report = evaluation.evaluate(str(run), lengths=lengths, examples=examples)
        return {name: report[name] for name in ("coarse", "fine", "masked")}

    return kept_measurement(run, f"{lengths[0]}-{lengths[1]}:{examples}", measure)


def measured_fraction(run, memory, scale, examples=20):
    """How far the run's pushes and pops are from whole ones, on training-length strings.

    The mean of `min(s, 1 - s)` over every push and pop strength `s` of
    `examples` strings (0 for whole pushes and pops, 0.5 at most), traced
    step by step with `trace_memory`.
    """

    def measure():
        import keras

        model = keras.saving.load_model(run / "model.keras")
        setup = data.task_setup(TASK, scale)
        traced = traces(model, memory, setup, "train", examples, seed=1)
        return fraction([trace[name] for trace, _ in traced for name in ("push", "pop")])

    return kept_measurement(run, f"fraction:train:{examples}", measure)


def row_key(row):
    """What identifies a run in the record."""
    return row["scale"], row["memory"], row["strength_noise"], row["seed"], row["learning_rate"], row["epochs"]


def main(argv=None):
    args = parse_args(argv)
    record = pathlib.Path(args.record)
    command = " ".join(["python benchmarks/strength_noise.py", *(argv if argv is not None else sys.argv[1:])])
    for memory in ([] if args.page_only else args.memories):
        for noise in args.noise:
            for seed in args.seeds:
                run = run_dir(args, memory, noise, seed)
                config = RunConfig(
                    TASK, memory=memory, scale=args.scale, memory_options=MemoryOptions(strength_noise=noise), seed=seed, epochs=args.epochs,
                    steps_per_epoch=STEPS_PER_EPOCH, learning_rate=args.learning_rate, output_dir=str(run), verbose=0,
                )  # fmt: skip
                results = training.train(config)
                history = results["history"].get("coarse_accuracy")
                row = dict(
                    scale=args.scale, memory=memory, strength_noise=noise, seed=seed, learning_rate=args.learning_rate,
                    epochs=args.epochs, batches=args.epochs * STEPS_PER_EPOCH, examples=args.examples, command=command,
                    segments=results.get("segments", []), diverged=results["diverged"],
                    train_coarse=history[-1] if history else None, accuracy=None, fraction=None,
                )  # fmt: skip
                if results["diverged"]:
                    print(f"{run}: the loss became NaN", file=sys.stderr)
                else:
                    ranges = LENGTH_RANGES[args.scale]
                    accuracy = [measured(run, lengths, args.examples) for lengths in ranges]
                    row.update(accuracy={f"{a}-{b}": acc for (a, b), acc in zip(ranges, accuracy)},
                               fraction=measured_fraction(run, memory, args.scale))  # fmt: skip
                    print(memory, f"noise {noise:g}", f"seed {seed}",
                          " ".join(f"{a}-{b}: {acc['coarse']:.3f}" for (a, b), acc in zip(ranges, accuracy)), flush=True)
                add_row(record, row, row_key)
    if args.output:
        parts = page_parts(record, args.output)
        for part in parts:
            write_part(*part)
        print(f"wrote {args.output}" if parts else f"{args.output} left as it is: the record holds no run")


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE):
    """The parts of the results page that this script writes, one per scale of the record's runs.

    A scale without runs in the record has no part: the page's text about
    it is left as it is.

    Args:
        record: The record (`--record`); by default the committed one.
        page: The results page (`--output`).

    Returns:
        `[(page, writer, part, title)]`, the arguments of `marked_part.write_part`.
    """
    rows = read_rows(pathlib.Path(record))
    parts = []
    for scale in LENGTH_RANGES:
        scale_rows = [row for row in rows if row["scale"] == scale]
        if scale_rows:
            writer = f"benchmarks/strength_noise.py --scale {scale}"
            parts.append((pathlib.Path(page), writer, report(scale_rows, scale), TITLE))
    return parts


def report(rows, scale_name):
    """The markdown of the record's runs at one scale: their commands, the table of every run and the counts that learn."""
    ranges, scale = LENGTH_RANGES[scale_name], SCALES[scale_name]
    rows = sorted(rows, key=lambda row: (row["memory"], row["strength_noise"], row["batches"], row["seed"]))
    rates = ", ".join(f"{rate:g}" for rate in sorted({row["learning_rate"] for row in rows}))
    batches = ", ".join(f"{b:,}" for b in sorted({row["batches"] for row in rows}))
    lines = [f"- Command: `KERAS_BACKEND=jax {command}`" for command in dict.fromkeys(row["command"] for row in rows)]
    lines += [
        f"- Task `{TASK}` at scale `{scale_name}`: training strings of length {scale['train'][0]}-{scale['train'][1]},"
        f" {scale['vocab']} symbols, LSTM {scale['hidden']}, memory width {scale['width']}; RMSProp"
        f" {rates} with clipping at 1, batch 10, {batches} batches for every"
        f" run (no early stopping); accuracy on {rows[0]['examples']} fresh strings per length range.",
        "",
        "| memory | strength_noise | batches | seed | train coarse (last epoch) | "
        + " | ".join(f"coarse {a}-{b}" for a, b in ranges)
        + f" | fine {ranges[-1][0]}-{ranges[-1][1]} | fraction |",
        "|---|--:|--:|--:|--:|" + "--:|" * (len(ranges) + 2),
    ]
    names = [f"{a}-{b}" for a, b in ranges]
    for row in rows:
        train = f"{row['train_coarse']:.3f}" if row["train_coarse"] is not None else "–"
        cells = [row["memory"], f"{row['strength_noise']:g}", f"{row['batches']:,}", str(row["seed"]), train]
        if row["accuracy"] is None:
            cells += ["diverged"] * (len(ranges) + 2)
        else:
            accuracy = [row["accuracy"][name] for name in names]
            cells += [f"{acc['coarse']:.3f}" for acc in accuracy] + [f"{accuracy[-1]['fine']:.3f}", f"{row['fraction']:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    # The bar is met at the paper's test lengths, 66-128.
    tested = next(name for (low, _), name in zip(ranges, names) if low > 64)
    counts = []
    for condition in dict.fromkeys((row["memory"], row["strength_noise"], row["batches"]) for row in rows):
        group = [row for row in rows if (row["memory"], row["strength_noise"], row["batches"]) == condition]
        learned = [row for row in group if row["accuracy"] is not None and learns(row["accuracy"][tested]["coarse"])]
        counts.append(f"{condition[0]} with strength_noise {condition[1]:g} after {condition[2]:,} batches: "
                      f"{len(learned)} of {len(group)} ({seeds_text(row['seed'] for row in group)})")
    lines += ["", f"Runs that learn the task (coarse accuracy at least {LEARNS_AT} at lengths {tested}): {'; '.join(counts)}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
