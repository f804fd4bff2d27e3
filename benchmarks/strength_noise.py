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
default scale). It writes markdown tables of the results into `--output`,
between two marker lines named after the scale, so that the default and
the paper scale share one page: a later run of the same scale rewrites its
part and keeps everything else (a file without the markers gets the part
appended; a new file gets a title and the part).

Every run resumes where it stopped and a finished run is not retrained (the
`train` command's own guarantees); each measurement is kept in its run's
folder, written atomically, so starting the same command again after a kill
only does what is missing.

Usage:
    KERAS_BACKEND=jax python benchmarks/strength_noise.py \\
        [--scale default] [--memories queue,deque] [--noise 0,1] [--seeds 0,1,2] [--epochs 20] \\
        [--learning-rate 5e-3] [--runs-dir runs/strength-noise] [--output docs/results/strength_noise.md]

At `--scale paper` (training lengths 8-64, 128 symbols, LSTM 256, memory
256) the runs are named `paper-...` in the same folder.
"""

import argparse
import json
import pathlib
import sys

import numpy as np

from keras_neural_memory import MemoryOptions
from keras_neural_memory.experiments import data, evaluation, training
from keras_neural_memory.experiments.cli import list_of, non_negative_float, positive_float, positive_int
from keras_neural_memory.experiments.config import SCALES, RunConfig
from keras_neural_memory.experiments.run_folder import write_atomically
from marked_part import write_part
from strength_drift import TRACEABLE, fraction, traces

TASK, STEPS_PER_EPOCH = "bigram_flip", 250
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
    parser.add_argument("--output", default="docs/results/strength_noise.md", help="markdown report ('' to skip)")
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
        return fraction([trace for trace, _ in traces(model, memory, setup, "train", examples, seed=1)])

    return kept_measurement(run, f"fraction:train:{examples}", measure)


def main(argv=None):
    args = parse_args(argv)
    rows = []
    for memory in args.memories:
        for noise in args.noise:
            for seed in args.seeds:
                run = run_dir(args, memory, noise, seed)
                config = RunConfig(
                    TASK, memory=memory, scale=args.scale, memory_options=MemoryOptions(strength_noise=noise), seed=seed, epochs=args.epochs,
                    steps_per_epoch=STEPS_PER_EPOCH, learning_rate=args.learning_rate, output_dir=str(run), verbose=0,
                )  # fmt: skip
                results = training.train(config)
                if results["diverged"]:
                    print(f"{run}: the loss became NaN; left out of the table", file=sys.stderr)
                    rows.append((memory, noise, seed, results, None, None))
                    continue
                accuracy = [measured(run, lengths, args.examples) for lengths in LENGTH_RANGES[args.scale]]
                fraction = measured_fraction(run, memory, args.scale)
                print(memory, f"noise {noise:g}", f"seed {seed}",
                      " ".join(f"{a}-{b}: {acc['coarse']:.3f}" for (a, b), acc in zip(LENGTH_RANGES[args.scale], accuracy)),
                      flush=True)  # fmt: skip
                rows.append((memory, noise, seed, results, accuracy, fraction))
    if args.output:
        write_part(pathlib.Path(args.output), f"benchmarks/strength_noise.py --scale {args.scale}",
                   report(args, rows, argv), "# Bigram flipping with `strength_noise`")  # fmt: skip
        print(f"wrote {args.output}")


def report(args, rows, argv):
    """The markdown of one run of the script: its command, the table of every run and the solved counts."""
    command = " ".join(["python benchmarks/strength_noise.py", *(argv if argv is not None else sys.argv[1:])])
    ranges, scale = LENGTH_RANGES[args.scale], SCALES[args.scale]
    lines = [
        f"- Command: `KERAS_BACKEND=jax {command}`",
        f"- Task `{TASK}` at scale `{args.scale}`: training strings of length {scale['train'][0]}-{scale['train'][1]},"
        f" {scale['vocab']} symbols, LSTM {scale['hidden']}, memory width {scale['width']}; RMSProp"
        f" {args.learning_rate:g} with clipping at 1, batch 10, {args.epochs * STEPS_PER_EPOCH:,} batches for every"
        f" run (no early stopping); accuracy on {args.examples} fresh strings per length range.",
        "",
        "| memory | strength_noise | seed | train coarse (last epoch) | "
        + " | ".join(f"coarse {a}-{b}" for a, b in ranges)
        + f" | fine {ranges[-1][0]}-{ranges[-1][1]} | fraction |",
        "|---|--:|--:|--:|" + "--:|" * (len(ranges) + 2),
    ]
    for memory, noise, seed, results, accuracy, fraction in rows:
        train = results["history"]["coarse_accuracy"][-1] if results["history"].get("coarse_accuracy") else float("nan")
        cells = [memory, f"{noise:g}", str(seed), f"{train:.3f}"]
        if accuracy is None:
            cells += ["diverged"] * (len(ranges) + 2)
        else:
            cells += [f"{acc['coarse']:.3f}" for acc in accuracy] + [f"{accuracy[-1]['fine']:.3f}", f"{fraction:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    solved_at = next(i for i, (low, _) in enumerate(ranges) if low > 64)  # the paper's test lengths
    low, high = ranges[solved_at]
    counts = []
    for memory in args.memories:
        for noise in args.noise:
            finished = [row[4] for row in rows if row[:2] == (memory, noise)]
            solved = sum(acc is not None and acc[solved_at]["coarse"] >= 0.99 for acc in finished)
            counts.append(f"{memory} with strength_noise {noise:g}: {solved} / {len(finished)}")
    lines += ["", f"Runs with coarse accuracy of at least 0.99 at lengths {low}-{high}: {'; '.join(counts)}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
