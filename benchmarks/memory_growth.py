"""What growing the memory saves in a Chomsky-hierarchy evaluation, and that it changes nothing.

`MemoryRNN` runs a sequence of `GROWTH_MIN_STEPS` or more steps from an
empty memory in `GROWTH_STRETCHES` stretches, each with room for the steps
taken by its end (`keras_neural_memory.fused_scan.growth_plan`), instead of
one loop over a memory of the whole sequence. This script builds each model
exactly as `neural-memory train --task TASK --memory M` does, twice with the
same weights, one traced with growth and one without, and for each length of
`--lengths`:

* times the evaluation of `--sequences` strings (as
  `chomsky.accuracy_by_length` runs it) with each, alternating, in
  `--rounds` rounds, and gives the grown evaluation's time as a share of
  the whole memory's in the same round;
* checks that both give the same accuracy and states the largest
  difference between their logits;
* states the seconds of each one's first call (its compilation): growth
  compiles one loop per stretch.

Results go to `--output` (JSON, written atomically) with the machine, the
backend and the command, and the table to this script's part of `--page`.
Run it while nothing else runs.

Usage:
    KERAS_BACKEND=jax python benchmarks/memory_growth.py [--models stack,queue,deque] [--lengths 250,500]
    KERAS_BACKEND=jax python benchmarks/memory_growth.py --models stack --lengths 130 --sequences 8 \\
        --rounds 1 --output /tmp/growth.json --page /tmp/growth.md   # a smoke run
"""

import argparse
import contextlib
import json
import pathlib
import sys
import time

import numpy as np

from chomsky_cost import build
from keras_neural_memory import fused_scan
from keras_neural_memory.experiments import chomsky, data
from keras_neural_memory.experiments.cli import list_of, positive_int
from keras_neural_memory.experiments.config import CHOMSKY_PROTOCOL
from keras_neural_memory.experiments.run_folder import write_atomically
from marked_part import write_part
from study_record import provenance
from tfds_tasks.generators.chomsky_hierarchy import evaluation_batches

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record and the page of its part, from the repository's root.
RECORD, PAGE = "docs/results/memory_growth.json", "docs/results/chomsky.md"
MODES = ("whole", "grown")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="chomsky_hierarchy/reverse_string")
    parser.add_argument("--models", type=list_of(str), default=["stack", "queue", "deque"])
    parser.add_argument("--lengths", type=list_of(int), default=[250, 500], help="string lengths evaluated")
    parser.add_argument("--sequences", type=positive_int, default=CHOMSKY_PROTOCOL["eval_sequences"])
    parser.add_argument("--rounds", type=positive_int, default=2, help="measurements of each figure")
    parser.add_argument("--output", default=RECORD)
    parser.add_argument("--page", default=PAGE, help="the results page whose part is written")
    return parser.parse_args(argv)


def build_pair(setup, memory):
    """`{"whole": model, "grown": model}`: the same weights, traced without and with growth."""
    models = {mode: build(setup, memory) for mode in MODES}
    models["grown"].set_weights(models["whole"].get_weights())
    return models


@contextlib.contextmanager
def growth(mode):
    """Runs (and traces) a model with the memory grown ("grown") or whole ("whole")."""
    threshold = fused_scan.GROWTH_MIN_STEPS
    fused_scan.GROWTH_MIN_STEPS = sys.maxsize if mode == "whole" else threshold
    try:
        yield
    finally:
        fused_scan.GROWTH_MIN_STEPS = threshold


def evaluate(models, mode, setup, length, sequences):
    """`(seconds, accuracy)` of `sequences` strings of `length`, as `chomsky.accuracy_by_length` measures them."""
    with growth(mode):
        start = time.perf_counter()
        curve = chomsky.accuracy_by_length(models[mode], setup, 0, length, sequences, min_length=length, verbose=False)
        return time.perf_counter() - start, curve[-1]["accuracy"]


def largest_logit_difference(models, setup, length):
    """The largest difference between the two models' logits on one batch of strings of `length`."""
    task = setup.task
    output_length = task.output_length(length)
    steps = data.pad_to_bucket(task.input_length(length) + output_length, chomsky.EVAL_BUCKET_STEPS)
    _, batch = next(evaluation_batches(task.name, 0, min_length=length, max_length=length,
                                       sequences_per_length=chomsky.EVAL_BATCH_SIZE,
                                       batch_size=chomsky.EVAL_BATCH_SIZE))  # fmt: skip
    tape = chomsky.training_example(task, batch, steps)[0]
    logits = []
    for mode in MODES:
        with growth(mode):
            logits.append(np.asarray(models[mode].predict_on_batch(tape))[:, -output_length:])
    return float(np.abs(logits[0] - logits[1]).max())


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments, from `record` alone."""
    part = report(json.loads(pathlib.Path(record).read_text()))
    return [(pathlib.Path(page), "benchmarks/memory_growth.py", part, "# The Chomsky-hierarchy benchmark")]


def report(record):
    """The page's part: how it was measured, and the table."""
    lines = [
        f"`KERAS_BACKEND={record['backend']} {record['command'].strip()}` on a {record['cpus']}-core CPU with nothing "
        f"else running ({record['device']}): the evaluation of {record['sequences']} strings of each length, in the "
        f"protocol's batches of {chomsky.EVAL_BATCH_SIZE}, with the memory grown over {record['stretches']} stretches "
        f"of the tape and with one memory of the whole tape, from the same weights, alternating, in each of "
        f"{record['rounds']} rounds. First call: the seconds of the first batch, compilation included.",
        "",
        "| model | length | tape steps | whole memory, s | grown, s | grown / whole | accuracy, whole / grown "
        "| largest logit difference | first call, whole / grown, s |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for memory, rows in record["models"].items():
        for length, row in rows.items():
            seconds = {mode: ", ".join(f"{s:.1f}" for s in row["seconds"][mode]) for mode in MODES}
            ratios = ", ".join(f"{ratio:.2f}" for ratio in row["grown_to_whole"])
            lines.append(
                f"| `{memory}` | {length} | {row['tape_steps']} | {seconds['whole']} | {seconds['grown']} | {ratios} "
                f"| {row['accuracy']['whole']:.4f} / {row['accuracy']['grown']:.4f} "
                f"| {row['largest_logit_difference']:.1e} "
                f"| {row['compile_seconds']['whole']:.0f} / {row['compile_seconds']['grown']:.0f} |"
            )
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    setup = chomsky.task_setup(args.task)
    measured = {}
    for memory in args.models:
        models = build_pair(setup, memory)
        rows = measured[memory] = {}
        for length in args.lengths:
            steps = data.pad_to_bucket(
                setup.task.input_length(length) + setup.task.output_length(length), chomsky.EVAL_BUCKET_STEPS
            )
            rows[str(length)] = {"tape_steps": steps, "compile_seconds": {}, "seconds": {m: [] for m in MODES},
                                 "accuracy": {}}  # fmt: skip
            for mode in MODES:
                first_call = evaluate(models, mode, setup, length, min(args.sequences, chomsky.EVAL_BATCH_SIZE))
                rows[str(length)]["compile_seconds"][mode] = round(first_call[0], 1)
            rows[str(length)]["largest_logit_difference"] = largest_logit_difference(models, setup, length)
        for round_index in range(args.rounds):
            for length in args.lengths:
                row = rows[str(length)]
                for mode in MODES:
                    seconds, accuracy = evaluate(models, mode, setup, length, args.sequences)
                    row["seconds"][mode].append(round(seconds, 2))
                    row["accuracy"][mode] = accuracy
                print(f"round {round_index}: {memory} at {length}: whole {row['seconds']['whole'][-1]} s, "
                      f"grown {row['seconds']['grown'][-1]} s", flush=True)  # fmt: skip
        for row in rows.values():
            row["grown_to_whole"] = [round(g / w, 3) for g, w in zip(row["seconds"]["grown"], row["seconds"]["whole"])]
            if row["accuracy"]["whole"] != row["accuracy"]["grown"]:
                raise AssertionError(f"{memory}: the grown memory's accuracy differs: {row['accuracy']}")
    record = {
        "task": args.task,
        **provenance("benchmarks/memory_growth.py", argv),
        "min_steps": fused_scan.GROWTH_MIN_STEPS,
        "stretches": fused_scan.GROWTH_STRETCHES,
        "sequences": args.sequences,
        "rounds": args.rounds,
        "models": measured,
    }
    write_atomically(args.output, json.dumps(record, indent=2))
    for part in page_parts(args.output, args.page):
        write_part(*part)
    print(report(record))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
