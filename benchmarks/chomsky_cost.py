"""What a Chomsky-hierarchy run costs: training steps per second and the evaluation's time and memory.

Builds each model exactly as `neural-memory train --task TASK --memory M`
does (the protocol's sizes, Adam with clipping, XLA) and measures, all
models in one process, in `--rounds` alternating rounds:

* training steps per second at batch 128: `--repeats` `train_on_batch`
  steps for each length of `--train-lengths` (default 3, 8, ..., 38, whose
  mean 20.5 is the mean of the uniform 1-40 the protocol draws), each
  compiled beforehand, so the rate is that of an average training batch;
  and its step time as a multiple of the LSTM's, measured in the same
  round;
* the evaluation's seconds at each length of `--eval-lengths` (default 125,
  250, 375, 500), 512 sequences each in the protocol's batches of 128; the
  time of the whole evaluation (every length 1-500) is the sum over all
  lengths of the quadratic in the length that passes through those
  measurements (least squares), since a Stack or DeQue step reads every
  slot;
* the process's peak resident memory once every model has been trained and
  evaluated at the longest length (`resource.getrusage`), which bounds
  what each of them needs.

From these it states the cost of one run (`--steps` training steps plus
one evaluation) and of the full sweep: 15 tasks x the models x 3 learning
rates x `--sweep-seeds` seeds, on the machine it runs on. Results go to
`--output` (JSON, written atomically) with the machine, the backend and the
command, and the table to this script's part of `--page`. Run it while
nothing else runs.

Usage:
    KERAS_BACKEND=jax python benchmarks/chomsky_cost.py [--models stack,superposition_stack,lstm] \\
        [--task chomsky_hierarchy/reverse_string] [--output docs/results/chomsky_cost.json]
    KERAS_BACKEND=jax python benchmarks/chomsky_cost.py --train-lengths 2,3 --eval-lengths 4,6,8 \\
        --eval-sequences 8 --rounds 1 --output /tmp/cost.json --page /tmp/cost.md   # a smoke run
"""

import argparse
import json
import pathlib
import resource
import sys
import time

import numpy as np

from keras_neural_memory.experiments import chomsky
from keras_neural_memory.experiments.cli import list_of, positive_int
from keras_neural_memory.experiments.config import CHOMSKY_LEARNING_RATES, CHOMSKY_PROTOCOL, RunConfig
from keras_neural_memory.experiments.run_folder import write_atomically
from marked_part import write_part
from study_record import provenance
from tfds_tasks.generators.chomsky_hierarchy import CHOMSKY_TASKS, evaluation_batches, training_batches

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record and the page of its part, from the repository's root.
RECORD, PAGE = "docs/results/chomsky_cost.json", "docs/results/chomsky.md"
BASELINE = "lstm"
#: The training steps of one run in Delétang et al.
AUTHORS_STEPS = 1_000_000


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="chomsky_hierarchy/reverse_string")
    parser.add_argument("--models", type=list_of(str), default=["stack", "superposition_stack", BASELINE])
    parser.add_argument("--train-lengths", type=list_of(int), default=list(range(3, 40, 5)))
    parser.add_argument("--eval-lengths", type=list_of(int), default=[125, 250, 375, 500])
    parser.add_argument("--eval-sequences", type=positive_int, default=CHOMSKY_PROTOCOL["eval_sequences"])
    parser.add_argument("--rounds", type=positive_int, default=2, help="measurements of each figure")
    parser.add_argument("--repeats", type=positive_int, default=5, help="training steps per length and round")
    parser.add_argument("--steps", type=positive_int, default=CHOMSKY_PROTOCOL["epochs"] * CHOMSKY_PROTOCOL["steps"],
                        help="training steps of one run, for its cost (default: the `train` default)")  # fmt: skip
    parser.add_argument("--sweep-seeds", type=positive_int, default=3)
    parser.add_argument("--output", default=RECORD)
    parser.add_argument("--page", default=PAGE, help="the results page whose part is written")
    args = parser.parse_args(argv)
    if BASELINE not in args.models:
        parser.error(f"--models must include the baseline {BASELINE!r}: every rate is also given as a ratio to it")
    return args


def build(setup, memory):
    config = RunConfig(setup.name, memory=memory).resolved()
    model = chomsky.build_model(setup, config)
    chomsky.compile_model(model, config.learning_rate)
    return model


def training_step_seconds(model, examples):
    """Mean seconds of one training step over `examples` (one batch per length), compiled beforehand."""
    start = time.perf_counter()
    for tape, targets, weights in examples:
        model.train_on_batch(tape, targets, sample_weight=weights)
    return (time.perf_counter() - start) / len(examples)


def evaluation_seconds(model, setup, length, sequences):
    """Seconds to measure `sequences` sequences of `length`, as `chomsky.accuracy_by_length` does."""
    start = time.perf_counter()
    chomsky.accuracy_by_length(model, setup, 0, length, sequences, min_length=length, verbose=False)
    return time.perf_counter() - start


def whole_evaluation_seconds(lengths, seconds, max_length):
    """The evaluation of every length 1-`max_length`: the least-squares quadratic through the measurements, summed."""
    coefficients = np.polyfit(lengths, seconds, deg=min(2, len(lengths) - 1))
    return float(np.sum(np.clip(np.polyval(coefficients, np.arange(1, max_length + 1)), 0, None)))


def peak_memory_gib():
    # ru_maxrss is KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one)."""
    part = report(json.loads(pathlib.Path(record).read_text()))
    return [(pathlib.Path(page), "benchmarks/chomsky_cost.py", part, "# The Chomsky-hierarchy benchmark")]


def _against_the_lstm(models):
    """The sentence that names the LSTM's size beside each model's step time as a multiple of its own."""
    lstm = models["lstm"]
    others = []
    for memory, row in models.items():
        if memory != "lstm":
            low, high = min(row["step_time_ratio_to_lstm"]), max(row["step_time_ratio_to_lstm"])
            others.append(f"`{memory}` ({row['parameters']:,} parameters) {low:.2f}-{high:.2f}x")
    return (f"Against the protocol's 1-layer LSTM ({lstm['parameters']:,} parameters), a training step takes, as a "
            f"multiple of the LSTM's step in the same round (over {len(lstm['step_time_ratio_to_lstm'])} rounds): "
            f"{'; '.join(others)}.")


def report(record):
    """The page's part: how it was measured, and the table."""
    longest = max(record["eval_lengths"])
    figures = ", ".join(map(str, record["eval_lengths"]))
    lines = [
        f"`KERAS_BACKEND={record['backend']} {record['command'].strip()}` on a {record['cpus']}-core CPU with nothing "
        f"else running ({record['device']}). Training: steps per second at batch {record['batch_size']}, averaged "
        f"over {record['repeats']} batches of each length {', '.join(map(str, record['train_lengths']))} (mean "
        f"{np.mean(record['train_lengths']):g}; the protocol's uniform 1-40 has mean 20.5), in each of "
        f"{len(next(iter(record['models'].values()))['steps_per_second'])} rounds; the step time is also "
        f"given as a multiple of the LSTM's in the same round. Evaluation: the seconds of {record['eval_sequences']} "
        f"strings at lengths {figures}, and the whole evaluation (every length 1-{longest}) summed from the quadratic "
        f"in the length through them. One run: {record['run_steps']:,} training steps and one evaluation; at the "
        f"authors' budget, {AUTHORS_STEPS:,} steps and one evaluation. The full sweep: {record['sweep']['note']}. "
        f"The process's peak memory, with every model trained and evaluated at length {longest} "
        f"({record['eval_sequences']} strings in batches of {chomsky.EVAL_BATCH_SIZE}), is "
        f"{record['peak_memory_gib']:.1f} GiB.",
        "",
        f"| model | parameters | steps / s | step time / LSTM's | evaluation 1-{longest} | one run | full sweep "
        f"| one run at {AUTHORS_STEPS:,} steps |",
        "|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for memory, row in record["models"].items():
        rates = ", ".join(f"{rate:.2f}" for rate in row["steps_per_second"])
        ratios = ", ".join(f"{ratio:.2f}x" for ratio in row["step_time_ratio_to_lstm"])
        lines.append(
            f"| `{memory}` | {row['parameters']:,} | {rates} | {ratios} | {row['whole_evaluation_seconds'] / 60:.0f} min "
            f"| {row['run_hours']:.2f} h | {record['sweep']['hours_by_model'][memory]:,.0f} h "
            f"| {row['authors_budget_run_hours']:,.0f} h |"
        )
    lines += ["", _against_the_lstm(record["models"])]
    total = sum(record["sweep"]["hours_by_model"].values())
    lines += ["", f"The full sweep of these models takes {total:,.0f} hours of one process on the CPU above "
                  f"({total / 24:,.1f} days)."]
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    setup = chomsky.task_setup(args.task)
    examples = [chomsky.training_example(setup.task, batch) for batch in (
        next(training_batches(setup.task.name, seed=0, batch_size=CHOMSKY_PROTOCOL["batch_size"],
                              min_length=length, max_length=length, num_batches=1))
        for length in args.train_lengths)] * args.repeats  # fmt: skip
    models, measured = {}, {memory: {"step_seconds": [], "eval_seconds": {}} for memory in args.models}
    for memory in args.models:
        models[memory] = build(setup, memory)
        training_step_seconds(models[memory], examples)  # compiles every training length
        for length in args.eval_lengths:  # compiles every evaluation shape
            evaluation_seconds(models[memory], setup, length, min(args.eval_sequences, chomsky.EVAL_BATCH_SIZE))
    for round_index in range(args.rounds):
        for memory in args.models:
            model = models[memory]
            measured[memory]["step_seconds"].append(training_step_seconds(model, examples))
            for length in args.eval_lengths:
                seconds = evaluation_seconds(model, setup, length, args.eval_sequences)
                measured[memory]["eval_seconds"].setdefault(str(length), []).append(round(seconds, 2))
            print(f"round {round_index}: {memory}: {1 / measured[memory]['step_seconds'][-1]:.2f} steps/s; "
                  f"evaluation at {args.eval_lengths[-1]}: {measured[memory]['eval_seconds'][str(args.eval_lengths[-1])][-1]} s",
                  flush=True)  # fmt: skip
    baseline = measured[BASELINE]["step_seconds"]
    rows = {}
    for memory in args.models:
        steps = measured[memory]["step_seconds"]
        eval_seconds = [min(measured[memory]["eval_seconds"][str(length)]) for length in args.eval_lengths]
        whole = whole_evaluation_seconds(args.eval_lengths, eval_seconds, max(args.eval_lengths))
        steps_per_second = [round(1 / s, 2) for s in steps]
        run_seconds = args.steps * min(steps) + whole
        rows[memory] = {
            "parameters": models[memory].count_params(),
            "steps_per_second": steps_per_second,
            "step_time_ratio_to_lstm": [round(s / b, 3) for s, b in zip(steps, baseline)],
            "eval_seconds_by_length": measured[memory]["eval_seconds"],
            "whole_evaluation_seconds": round(whole),
            "run_hours": round(run_seconds / 3600, 2),
            "authors_budget_run_hours": round((AUTHORS_STEPS * min(steps) + whole) / 3600, 1),
        }
    sweep_runs = len(CHOMSKY_TASKS) * len(CHOMSKY_LEARNING_RATES) * args.sweep_seeds
    record = {
        "task": args.task,
        **provenance("benchmarks/chomsky_cost.py", argv),
        "batch_size": CHOMSKY_PROTOCOL["batch_size"],
        "train_lengths": args.train_lengths,
        "eval_lengths": args.eval_lengths,
        "eval_sequences": args.eval_sequences,
        "run_steps": args.steps,
        "repeats": args.repeats,
        "peak_memory_gib": round(peak_memory_gib(), 2),
        "models": rows,
        "sweep": {
            "runs_per_model": sweep_runs,
            "note": f"{len(CHOMSKY_TASKS)} tasks x {len(CHOMSKY_LEARNING_RATES)} learning rates x {args.sweep_seeds} "
                    f"seeds, one run after another, each {args.steps:,} steps and one evaluation of lengths 1-"
                    f"{max(args.eval_lengths)}, all tasks costed as {args.task}",
            "hours_by_model": {memory: round(row["run_hours"] * sweep_runs, 1) for memory, row in rows.items()},
        },
    }  # fmt: skip
    write_atomically(args.output, json.dumps(record, indent=2))
    for part in page_parts(args.output, args.page):
        write_part(*part)
    for memory, row in rows.items():
        print(f"{memory:20s} {row['steps_per_second']} steps/s (step time x{row['step_time_ratio_to_lstm']} the LSTM's); "
              f"evaluation 1-{max(args.eval_lengths)} {row['whole_evaluation_seconds']} s")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
