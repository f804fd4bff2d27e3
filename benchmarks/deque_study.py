"""What makes the DeQue-LSTM learn copy and reversal: conditions, seeds, memory traces.

At the default scale (training strings of length 8-16, test 17-32, 32
symbols, LSTM 64, memory width 32) this trains, for every task, condition
and seed, `neural-memory train` with the condition's options, in epochs of
100 batches, until the held-out coarse accuracy at training lengths
reaches 1.0 at two consecutive epochs (`--stop-at-coarse 1.0
--validation-examples 200`) or the budget runs out. With `--scale paper`
it trains at the paper's sizes (§4: lengths 8-64, test 65-128, 128
symbols, LSTM 256, memory width 256) by the same rule, in epochs of 250
batches. For each run it records:

- "batches": the batches trained (at the stop, or the whole budget);
- train and test coarse accuracy on 500 fresh strings each;
- a memory trace of 50 training-length strings (`strength_drift.drift`):
  per end, the mean push while the source is read, the pop summed over
  those steps, and the mean push and pop while the target is written.

The condition `train_defaults` is `neural-memory train --task TASK --memory
deque --seed SEED` as it is, with no other option: the DeQue recipe of
`config.DEQUE_RECIPE` and the command's own budget (at the default scale,
10 epochs of 300 batches), with no stopping rule. The condition
`train_recipe` is that recipe as `train` runs it at the scale (its noise
from the batch where `train` starts it: 600 at the default scale, 1,000 at
the paper's) under the study's budget and stopping rule. Both run without
the baseline.

The baselines are the Queue-LSTM on copy and the Stack-LSTM on reversal,
whose batches the DeQue is compared with. Every run resumes where it
stopped, and a finished run is not retrained (`train`'s guarantees), nor is
a run the record holds with the same settings, even without its folder; so
starting the same command again only does what is missing.

It writes every run, its memory trace included, to `--record` (JSON,
written atomically), and the tables to the marked part of `--output`.

Usage:
    python benchmarks/deque_study.py [--scale default|paper] [--tasks sequence_copy,sequence_reversal] \\
        [--conditions sigmoid,hard_sigmoid_quiet_end] [--seeds 3,4,5,6,7] [--epochs 60] \\
        [--runs-dir runs/deque-study] [--record docs/results/deque_study_runs.json] \\
        [--output docs/results/deque.md]
"""

import argparse
import pathlib
import sys

from keras_neural_memory import MemoryOptions
from keras_neural_memory.experiments import cli, data, training
from keras_neural_memory.experiments.cli import list_of, positive_int
from keras_neural_memory.experiments.common import SCALES
from keras_neural_memory.experiments.config import DEQUE_RECIPE, RunConfig, deque_recipe
from marked_part import write_part
from strength_drift import drift
from study_record import SCALE, STEPS, STOP_AT, VALIDATION_EXAMPLES, add_row, learned_row, protocol, rate_text, read_rows

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record and the page of its part, from the repository's root.
RECORD, PAGE = "docs/results/deque_study_runs.json", "docs/results/deque.md"
TRACED = 50
# The curriculum conditions' short epochs: 500 batches, source lengths 1-2 growing to 1-13.
CURRICULUM_EPOCHS = 5

# The DeQue setting most conditions build on: hard-sigmoid gates and a random quiet end.
HARD_QUIET = dict(memory="deque", gate_activation="hard_sigmoid", quiet_end="random")
# ... with strength noise 0.5 at learning rate 2e-3.
HARD_QUIET_NOISE = dict(HARD_QUIET, strength_noise=0.5, learning_rate=2e-3)

# A condition: the memory it trains and the options of `neural-memory train` it adds (`RunConfig` fields, and
# `MemoryOptions` fields by name).
CONDITIONS = {
    "queue": dict(memory="queue"),
    "stack": dict(memory="stack"),
    "sigmoid": dict(memory="deque"),
    "hard_sigmoid": dict(memory="deque", gate_activation="hard_sigmoid"),
    "quiet_end": dict(memory="deque", quiet_end="random"),
    "hard_sigmoid_quiet_end": HARD_QUIET,
    "stack_hard_sigmoid": dict(memory="stack", gate_activation="hard_sigmoid"),
    "hard_sigmoid_quiet_both": dict(HARD_QUIET, quiet_end="both"),
    "curriculum": dict(memory="deque", curriculum_epochs=CURRICULUM_EPOCHS),
    "hard_sigmoid_curriculum": dict(memory="deque", gate_activation="hard_sigmoid", curriculum_epochs=CURRICULUM_EPOCHS),
    "hard_sigmoid_quiet_end_noise": dict(HARD_QUIET, strength_noise=0.5),
    "hard_sigmoid_noise": dict(memory="deque", gate_activation="hard_sigmoid", strength_noise=0.5),
    # At a smaller learning rate, with the yardsticks at the same rate.
    "hard_sigmoid_quiet_end_lr2e-3": dict(HARD_QUIET, learning_rate=2e-3),
    "queue_lr2e-3": dict(memory="queue", learning_rate=2e-3),
    "stack_lr2e-3": dict(memory="stack", learning_rate=2e-3),
    "hard_sigmoid_quiet_end_noise_lr2e-3": HARD_QUIET_NOISE,
    # The same noise in the first 10 epochs (1,000 batches) only.
    "hard_sigmoid_quiet_end_early_noise_lr2e-3": dict(HARD_QUIET_NOISE, strength_noise_epochs=10),
    # The same noise after the first 10 epochs only.
    "hard_sigmoid_quiet_end_late_noise_lr2e-3": dict(HARD_QUIET_NOISE, strength_noise_delay=10),
    # ... after the first 5 epochs.
    "hard_sigmoid_quiet_end_noise_after5_lr2e-3": dict(HARD_QUIET_NOISE, strength_noise_delay=5),
    # The same noise on the quiet end only: it wakes that end with whole strengths; the loud end trains without.
    "hard_sigmoid_quiet_end_quiet_noise_lr2e-3": dict(HARD_QUIET_NOISE, strength_noise_ends="quiet"),
    # Half the noise, at a rate between 2e-3 and 5e-3, with the yardsticks at that rate.
    "hard_sigmoid_quiet_end_light_noise_lr3e-3": dict(HARD_QUIET, strength_noise=0.25, learning_rate=3e-3),
    "queue_lr3e-3": dict(memory="queue", learning_rate=3e-3),
    "stack_lr3e-3": dict(memory="stack", learning_rate=3e-3),
}
# The recipe of `neural-memory train --memory deque` under the study's protocol (`train_recipe_options`).
TRAIN_RECIPE = "train_recipe"
# `neural-memory train --memory deque` with nothing else (`run_config`).
TRAIN_DEFAULTS = "train_defaults"
# Every condition the study takes, in the order of its tables.
CONDITION_NAMES = (*CONDITIONS, TRAIN_RECIPE, TRAIN_DEFAULTS)
# The conditions that run without their task's baseline: `train`'s own recipe and command.
ALONE = (TRAIN_RECIPE, TRAIN_DEFAULTS)
# The seeds of one study: those not used while choosing the conditions.
STUDY_SEEDS = (3, 4, 5, 6, 7)
# Most epochs of a run, unless `--epochs` says otherwise.
EPOCHS = 60
# The memory the DeQue is measured against on each task.
BASELINES = {"sequence_copy": "queue", "sequence_reversal": "stack"}


def condition_name(text):
    """argparse type: one of `CONDITION_NAMES`."""
    if text not in CONDITION_NAMES:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(CONDITION_NAMES)}")
    return text


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=list_of(str), default=list(BASELINES))
    parser.add_argument("--conditions", type=list_of(condition_name), default=["sigmoid", "hard_sigmoid_quiet_end"],
                        help=f"DeQue conditions; each task's baseline is added, unless the only one is {TRAIN_DEFAULTS}")  # fmt: skip
    parser.add_argument("--seeds", type=list_of(int), default=list(STUDY_SEEDS))
    parser.add_argument("--scale", choices=tuple(STEPS), default=SCALE,
                        help="the default scale, or the paper's (§4: lengths 8-64, test 65-128, 128 symbols, LSTM 256)")
    parser.add_argument("--epochs", type=positive_int, default=EPOCHS,
                        help=f"most epochs, of {STEPS['default']} batches at the default scale, {STEPS['paper']} at the paper's")
    parser.add_argument("--runs-dir", default="runs/deque-study")
    parser.add_argument("--record", default=RECORD)
    parser.add_argument("--output", default=PAGE, help="markdown page ('' to skip)")
    args = parser.parse_args(argv)
    unknown = [task for task in args.tasks if task not in BASELINES]
    if unknown:
        parser.error(f"--tasks takes {', '.join(BASELINES)}; received {', '.join(unknown)}")
    return args


def run_folder(args, task, condition, seed):
    """A run's folder; default-scale runs keep the folders they have always had."""
    folder = f"{task}-{condition}-seed{seed}" if args.scale == SCALE else f"{args.scale}-{task}-{condition}-seed{seed}"
    return str(pathlib.Path(args.runs_dir) / folder)


def train_recipe_options(scale):
    """The condition `TRAIN_RECIPE` at `scale`: `config.deque_recipe` as `neural-memory train --memory deque` runs it.

    `train` counts the recipe's noise delay in its own epochs
    (`SCALES[scale]["steps"]` batches); the study's epochs are shorter
    (`STEPS[scale]`), so the delay is converted to start the noise at the
    same batch: 600 at the default scale, 1,000 at the paper's.

    Example:

    >>> train_recipe_options("paper")["strength_noise_delay"] * STEPS["paper"]
    1000
    """
    train_steps, study_steps = SCALES[scale]["steps"], STEPS[scale]
    recipe = deque_recipe(train_steps)
    quiet_batches = recipe.pop("strength_noise_delay") * train_steps
    delay, rest = divmod(quiet_batches, study_steps)
    if rest:  # no such scale now; a new one must keep the noise's first batch
        raise ValueError(f"train's noise starts at batch {quiet_batches}, not at an epoch of {study_steps} batches")
    return dict(memory="deque", **recipe.pop("memory_options").changed(), **recipe, strength_noise_delay=delay)


def run_config(args, task, condition, seed):
    """The `RunConfig` of one run: a condition of `CONDITIONS` under the study's protocol, or `TRAIN_DEFAULTS`."""
    folder = run_folder(args, task, condition, seed)
    if condition == TRAIN_DEFAULTS:  # `neural-memory train --task TASK --memory deque --seed SEED`, as it is
        argv = ["train", "--task", task, "--memory", "deque", "--scale", args.scale, "--seed", str(seed),
                "--output-dir", folder, "--verbose", "0"]  # fmt: skip
        return cli.train_config(cli.parser().parse_args(argv))
    options = train_recipe_options(args.scale) if condition == TRAIN_RECIPE else dict(CONDITIONS[condition])
    memory_options = MemoryOptions(**{name: options.pop(name) for name in MemoryOptions.option_names() if name in options})
    return RunConfig(
        task, scale=args.scale, seed=seed, epochs=args.epochs, steps_per_epoch=STEPS[args.scale], stop_at_coarse=STOP_AT,
        validation_examples=VALIDATION_EXAMPLES, output_dir=folder, verbose=0, memory_options=memory_options, **options,
    )  # fmt: skip


def row_key(row):
    """What identifies a run in the record."""
    return row["task"], row["condition"], row["seed"], row["settings"]["scale"]


def run_row(args, task, condition, seed, config):
    """Trains (or reuses, from its folder) the run of `config` and returns its row of the record."""
    results = training.train(config)
    budget = config.resolved()
    row = {
        "task": task,
        "condition": condition,
        "seed": seed,
        # The seeds of the command that trained it: the page gives one command per such set.
        "invocation_seeds": list(args.seeds),
        "settings": results["settings"],
        "batches": results["batches"],
        # Stopping before the budget means held-out coarse accuracy reached STOP_AT.
        "converged": results["batches"] < budget.epochs * budget.steps_per_epoch,
        "train_coarse": results["train_accuracy"]["coarse"],
        "test_coarse": results["test_accuracy"]["coarse"],
        "test_fine": results["test_accuracy"]["fine"],
        "segments": results.get("segments"),
    }
    if not results["diverged"]:
        import keras

        model = keras.saving.load_model(pathlib.Path(results["output_dir"]) / "model.keras")
        setup = data.task_setup(task, args.scale)
        row["trace"] = drift(model, config.memory, setup, TRACED)
    return row


def main(argv=None):
    args = parse_args(argv)
    record_path = pathlib.Path(args.record)
    rows = read_rows(record_path)
    for task in args.tasks:
        # The baseline is what study conditions are measured against; `train`'s own runs alone are not.
        baseline = [BASELINES[task]] if set(args.conditions) - set(ALONE) else []
        for condition in [*baseline, *args.conditions]:
            for seed in args.seeds:
                config = run_config(args, task, condition, seed)
                settings = config.resolved().settings()
                # A run recorded with these settings is not retrained, even where its folder is gone.
                recorded = [r for r in rows if row_key(r) == (task, condition, seed, args.scale) and r["settings"] == settings]
                row = recorded[0] if recorded else run_row(args, task, condition, seed, config)
                rows = add_row(record_path, row, key=row_key)
                print(f"{task} {condition} seed {seed}: {row['batches']} batches, "
                      f"train {row['train_coarse']:.3f}, test {row['test_coarse']:.3f}", flush=True)  # fmt: skip
    if args.output:
        for part in page_parts(record_path, args.output):
            write_part(*part)
        print(f"wrote {args.output}")


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one)."""
    part = report(read_rows(pathlib.Path(record)))
    return [(pathlib.Path(page), "benchmarks/deque_study.py", part, "# The DeQue-LSTM on copy and reversal")]


def report(rows):
    """The markdown of the record: per scale and task, its commands and a row per condition.

    Each run's memory trace stays in the record (its "trace"), which the
    page links to.
    """
    lines = [
        "Every run's memory trace, each end's mean over 50 training-length strings (the push while the source is read, "
        "the pop summed over those steps, the push and pop while the target is written), is the `trace` of its entry in "
        "the record, [`deque_study_runs.json`](deque_study_runs.json), beside its settings and accuracies.",
        "",
    ]
    for scale in STEPS:
        scale_rows = [r for r in rows if r["settings"]["scale"] == scale]
        if scale_rows:
            study_rows = [r for r in scale_rows if r["condition"] != TRAIN_DEFAULTS]
            lines += [f"- {protocol(study_rows, scale=scale)}", ""]
            if len(study_rows) < len(scale_rows):
                lines += [f"- `{TRAIN_DEFAULTS}`: `neural-memory train --task TASK --memory deque --seed SEED` with no other "
                          f"option, which trains its whole budget ({_budget_text(scale_rows)} batches) without the stopping rule.", ""]  # fmt: skip
            if any(r["condition"] == TRAIN_RECIPE for r in scale_rows):
                delay = train_recipe_options(scale)["strength_noise_delay"] * STEPS[scale]
                lines += [f"- `{TRAIN_RECIPE}`: the DeQue recipe as `neural-memory train{'' if scale == SCALE else f' --scale {scale}'} "
                          f"--memory deque` trains it (hard-sigmoid gates, a random quiet end, {rate_text(DEQUE_RECIPE['learning_rate'])}, "
                          f"strength noise 0.5 from batch {delay:,}), under the protocol above.", ""]  # fmt: skip
            lines += [line for task in BASELINES for line in _task_report(scale, task, [r for r in scale_rows if r["task"] == task])]
    return "\n".join(lines)


def _budget_text(rows):
    """The budgets of the `TRAIN_DEFAULTS` runs among `rows`, "3,000"."""
    return "/".join(sorted({f"{r['settings']['epochs'] * r['settings']['steps_per_epoch']:,}"
                            for r in rows if r["condition"] == TRAIN_DEFAULTS}))  # fmt: skip


def _task_report(scale, task, task_rows):
    """The lines of one task's runs at one scale (none without runs)."""
    if not task_rows:
        return []
    scale_flag = "" if scale == SCALE else f" --scale {scale}"
    # The commands that reproduce these runs: one per set of seeds and budget their conditions were run with.
    invocations = {}
    for condition in CONDITION_NAMES:
        if condition != BASELINES[task]:
            runs = [r for r in task_rows if r["condition"] == condition]
            # `--epochs` does not change a `TRAIN_DEFAULTS` run, which trains the command's own budget.
            budget = (lambda r: EPOCHS) if condition == TRAIN_DEFAULTS else (lambda r: r["settings"]["epochs"])
            for seeds, epochs in sorted({(tuple(r["invocation_seeds"]), budget(r)) for r in runs}):
                invocations.setdefault((seeds, epochs), []).append(condition)
    commands = [f"`python benchmarks/deque_study.py{scale_flag} --tasks {task} --conditions {','.join(conditions)} "
                f"--seeds {','.join(map(str, seeds))}{'' if epochs == EPOCHS else f' --epochs {epochs}'}`"
                for (seeds, epochs), conditions in invocations.items()]  # fmt: skip
    lines = [f"### {task}" if scale == SCALE else f"### {task}, {scale} scale", "",
             *(line for command in commands for line in (command, "")),
             "| condition | learned | batches (median, range) | train coarse | test coarse |", "|---|--:|--:|--:|--:|"]  # fmt: skip
    for condition in CONDITION_NAMES:
        runs = sorted((r for r in task_rows if r["condition"] == condition), key=lambda r: r["seed"])
        if runs:
            lines.append(f"| {condition} | {learned_row(runs)} |")
    return [*lines, ""]


if __name__ == "__main__":
    sys.exit(main())
