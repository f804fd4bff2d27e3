"""How deep a stack the Stack-RNN needs: trained Stack-RNN runs measured again with deeper stacks.

The Stack-RNN (`--memory superposition_stack`) has the authors' fixed stack
of 30 vectors (`SuperpositionStackCell(stack_size=30)`), and what falls off
its bottom is lost. On `reverse_string`, a model that pushes every input
symbol and pops one per output can then reverse the last 30 or so symbols
of a string and must guess the rest, so its accuracy at length L is about
`0.5 + c / (2 L)` for a capacity of c symbols: a score near 0.58 whatever
it has learned. The stack's depth is no weight: the same trained weights
run with a stack of any depth. This script rebuilds each finished run of
`--runs` with every stack depth of `--stack-sizes`, loads its weights, and
measures the protocol's accuracy at every length 1-`--eval-max-length`
(the run's own evaluation seed and sequences per length; with the trained
depth, and with the whole-tape depth where the run measured it, the run's
own curve). It also traces
what each trained stack does: the mean probabilities of push, pop and
no-op while the model reads the input and while it writes the answer, over
`--trace-sequences` evaluation strings of length `--trace-length`. The
scores and traces go to `--output` (JSON, written atomically; rows already
there are kept and not measured again) and the table to this script's part
of `--page`.

Usage:
    python benchmarks/chomsky_stack_depth.py \\
        --runs runs/chomsky-table/reverse_string-superposition_stack-seed0-lr0.0005,... [--stack-sizes 30,1000]
"""

import argparse
import json
import pathlib
import sys

import numpy as np

from keras_neural_memory import models
from keras_neural_memory.experiments import chomsky
from keras_neural_memory.experiments.common import CHOMSKY_PROTOCOL
from keras_neural_memory.experiments.cli import list_of, positive_int
from keras_neural_memory.experiments.run_folder import load_run, write_atomically
from marked_part import write_part

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record and the page of its part, from the repository's root.
RECORD, PAGE = "docs/results/chomsky_stack_depth.json", "docs/results/chomsky.md"
#: The length of the strings whose stack actions are traced, unless `--trace-length` says otherwise.
TRACE_LENGTH = 60


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=list_of(str), required=True, help="comma-separated finished Stack-RNN run folders")
    parser.add_argument("--stack-sizes", type=list_of(int), default=[models.CHOMSKY_STACK_SIZE, 512])
    parser.add_argument("--eval-max-length", type=positive_int, help="default: the run's own")
    parser.add_argument("--trace-length", type=positive_int, default=TRACE_LENGTH)
    parser.add_argument("--trace-sequences", type=positive_int, default=64)
    parser.add_argument("--output", default=RECORD)
    parser.add_argument("--page", default=PAGE, help="the results page whose part is written")
    return parser.parse_args(argv)


def action_trace(model, setup, length, sequences, seed):
    """Mean push, pop and no-op probabilities of `model`'s stack while it reads the input and while it answers.

    Runs the trained cell one step at a time on `sequences` evaluation
    strings of `length`, reading each step's actions from
    `SuperpositionStackCell.step`.

    Returns:
        `{"reading": {"push": p, "pop": q, "no_op": r}, "answering": {...}}`.
    """
    from keras import ops

    from keras_neural_memory.superposition_stack import ACTIONS
    from tfds_tasks.generators.chomsky_hierarchy import evaluation_batches

    cell = model.get_layer("superposition_stack_rnn").cell
    _, batch = next(evaluation_batches(setup.task.name, seed, min_length=length, max_length=length,
                                       sequences_per_length=sequences, batch_size=sequences))  # fmt: skip
    tape, _, _ = chomsky.training_example(setup.task, batch)
    steps = model.get_layer("one_hot")(tape)
    states = cell.get_initial_state(batch_size=len(tape))
    actions = []
    for t in range(tape.shape[1]):
        _, states, info = cell.step(steps[:, t], states)
        actions.append(ops.convert_to_numpy(info["actions"]).mean(axis=0))
    actions = np.array(actions)
    input_length = setup.task.input_length(length)
    phases = {"reading": actions[:input_length], "answering": actions[input_length:]}
    return {phase: {name: round(float(value), 3) for name, value in zip(ACTIONS, rows.mean(axis=0))}
            for phase, rows in phases.items()}  # fmt: skip


def main(argv=None):
    args = parse_args(argv)
    output = pathlib.Path(args.output)
    # Measured rows are kept: the same command with more runs measures only what is new.
    rows = json.loads(output.read_text())["runs"] if output.is_file() else []
    for run in args.runs:
        measured = {row["stack_size"] for row in rows if row["run"] == run}
        stack_sizes = [size for size in args.stack_sizes if size not in measured]
        if not stack_sizes:
            continue
        loaded = load_run(run)
        trained, record = loaded.model, loaded.record
        trained_stack_size = record["settings"].get("stack_size", models.CHOMSKY_STACK_SIZE)
        if record["settings"]["memory"] != "superposition_stack":
            raise SystemExit(f"{run}: a run of --memory {record['settings']['memory']}, not superposition_stack")
        setup = chomsky.task_setup(record["task"])
        evaluation = record["evaluation"]
        max_length = args.eval_max_length or evaluation["lengths"][1]
        trace = action_trace(trained, setup, args.trace_length, args.trace_sequences, evaluation["seed"])
        recorded = recorded_curves(run, record, trained_stack_size)
        for stack_size in stack_sizes:
            if stack_size in recorded and recorded[stack_size][-1]["length"] == max_length:
                curve = recorded[stack_size]
            else:
                model = chomsky.with_stack_size(trained, setup, stack_size)
                curve = chomsky.accuracy_by_length(model, setup, evaluation["seed"], max_length,
                                                   evaluation["sequences_per_length"], verbose=False)  # fmt: skip
            accuracy = {point["length"]: point["accuracy"] for point in curve}
            rows.append({
                "run": run, "seed": record["seed"], "task": record["task"], "stack_size": stack_size,
                "score": chomsky.score(curve), "accuracy_at": {str(n): accuracy[n] for n in (40, 100, max_length)
                                                                if n in accuracy},
                "trained_stack_size": trained_stack_size, "actions": trace, "trace_length": args.trace_length,
                "accuracy_by_length": [point["accuracy"] for point in curve],
            })  # fmt: skip
            print(f"{run}: stack of {stack_size}: {chomsky.score_text(rows[-1]['score'])}", flush=True)
            write_atomically(output, json.dumps({"command": command(argv), "runs": rows}, indent=2))
    for part in page_parts(output, args.page):
        write_part(*part)
    return 0


def recorded_curves(run, record, trained_stack_size):
    """The curves `run` measured itself, by stack depth: with its training stack, and with its whole-tape stack.

    The training's own measurement of a Stack-RNN (`chomsky.measure_run`)
    also holds, where its stack was shallower than the longest tape, the
    curve with a stack as deep as that tape; measuring it again would give
    the same answers.
    """
    folder = pathlib.Path(run)
    curves = {trained_stack_size: folder / chomsky.CURVE_FILE}
    whole_tape = record.get("whole_tape_stack")
    if whole_tape is not None:
        curves[whole_tape["stack_size"]] = folder / whole_tape["accuracy_by_length"]
    return {size: json.loads(path.read_text())["accuracy_by_length"] for size, path in curves.items() if path.is_file()}


def command(argv):
    return "python benchmarks/chomsky_stack_depth.py " + " ".join(argv if argv is not None else sys.argv[1:])


def capacity_score(capacity, train_max_length=CHOMSKY_PROTOCOL["train_lengths"][1], max_length=500):
    """The score of a model that reverses the last `capacity` symbols exactly and guesses the rest."""
    lengths = np.arange(train_max_length + 1, max_length + 1)
    return float(np.mean(0.5 + np.minimum(capacity, lengths) / (2 * lengths)))


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one)."""
    part = report(json.loads(pathlib.Path(record).read_text())["runs"])
    return [(pathlib.Path(page), "benchmarks/chomsky_stack_depth.py", part, "# The Chomsky-hierarchy benchmark")]


def report(rows):
    """The page's part: the command's shape, a row per run and stack depth, and the scores of capacities."""
    max_length = max(len(row["accuracy_by_length"]) for row in rows)
    # Rows measured before they kept their trace's length traced strings of the default length.
    trace_lengths = "/".join(str(n) for n in sorted({row.get("trace_length", TRACE_LENGTH) for row in rows}))
    lines = [
        "`python benchmarks/chomsky_stack_depth.py --runs RUNS --stack-sizes "
        f"{','.join(str(size) for size in dict.fromkeys(row['stack_size'] for row in rows))}`: each trained Stack-RNN "
        f"(stack of {' or '.join(str(size) for size in sorted({row['trained_stack_size'] for row in rows}))} in "
        "training) measured again, with the same weights and evaluation "
        "strings, with a stack of each depth.",
        "",
        f"| seed | stack depth | score | accuracy at 40 | at 100 | at {max_length} "
        f"| push / pop / no-op while reading (length {trace_lengths}) | while answering |",
        "|--:|--:|--:|--:|--:|--:|---|---|",
    ]
    for row in rows:
        at = row["accuracy_at"]
        reading, answering = ("{push:.2f} / {pop:.2f} / {no_op:.2f}".format(**row["actions"][phase])
                              for phase in ("reading", "answering"))  # fmt: skip
        score = "-" if row["score"] is None else f"{row['score']:.3f}"
        # "-" where a run was measured on shorter strings than a column's length.
        cells = [f"{at[str(n)]:.3f}" if str(n) in at else "-" for n in (40, 100, max_length)]
        lines.append(f"| {row['seed']} | {row['stack_size']} | {score} | {' | '.join(cells)} | {reading} | {answering} |")
    if max_length > CHOMSKY_PROTOCOL["train_lengths"][1]:  # a score needs lengths beyond training
        lines += ["", "A model that answers the last c symbols of a string right and guesses the rest has accuracy "
                      "0.5 + c / (2L) at length L, and scores "
                      + ", ".join(f"{capacity_score(c, max_length=max_length):.3f} for c = {c}" for c in (30, 35, 40))
                      + "."]  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
