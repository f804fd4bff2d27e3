"""The Chomsky-hierarchy table: `neural-memory train` on tasks x models x seeds, at one learning rate, in one record.

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
  epochs: from step 1,000), at the table's learning rate: the recipe's
  own rate is RMSProp's, not Adam's;
- `superposition_stack`: the authors' Stack-RNN;
- `lstm`: the authors' LSTM.

The table runs at one learning rate of the authors' three, chosen once
(`CHOICE_TASK`, `CHOICE_SEED`, `CHOICE_MODELS`): the rate of the highest
mean score over those runs, which `--learning-rates 1e-4,3e-4,5e-4` trains
into the same record. After its runs the script writes the page's part
(the choice, then per task every model's score by seed, the seeds that
solve it, the best, the median and the authors' Table 2 figure, then a
paragraph of who solves each task and how the other runs fail) and one
figure per task from the record; `--page-only` only does that.

Each run is its own `neural-memory train` process. Every run resumes where
it stopped and a finished run is not retrained (`train`'s guarantees), nor
is a run that the record holds with the same settings, even without its
folder; so starting the same command again, at any later time,
only does what is missing. The runs share JAX's persistent compilation
cache (`--compilation-cache`, default RUNS_DIR/jax-cache): the programs
of a task and model, one per training length and evaluation bucket, are
compiled by its first run and loaded by its other runs and resumptions.
`--shard I/N` takes every N-th run of the
ordered list (seeds, then tasks, then models), from the I-th: N processes
with shards 1/N ... N/N share the work (one per core, each pinned with
`taskset -c`), and merge their rows into one record, under a lock. The
device of every run is in its row ("devices", from its segments); on a
machine with a GPU the same command trains there.

Usage:
    python benchmarks/chomsky_table.py [--tasks reverse_string,...] [--models stack,...] [--seeds 0,1,2] \\
        [--learning-rates 1e-4,3e-4,5e-4] [--shard 1/2] [--runs-dir runs/chomsky-table] \\
        [--compilation-cache DIR] [--record docs/results/chomsky_table_runs.json] [--page-only]
"""

import argparse
import json
import os
import pathlib
import shlex
import statistics
import sys

from default_scale_table import choice_list, train_results
from marked_part import write_part
from study_record import add_row, rate_text, read_rows, runs_text, seeds_text

from keras_neural_memory.experiments import chomsky, cli
from keras_neural_memory.experiments.cli import list_of, positive_float
from keras_neural_memory.experiments.common import CHOMSKY_LEARNING_RATES, CHOMSKY_PROTOCOL, SOLVES_AT, solves
from keras_neural_memory.experiments.config import DEQUE_RECIPE, deque_recipe
from tfds_tasks.generators.chomsky_hierarchy import CHOMSKY_TASK_NAMES, CHOMSKY_TASKS

#: The six tasks where the kind of memory should matter: deterministic context-free, then context-sensitive.
TASKS = ("reverse_string", "stack_manipulation", "modular_arithmetic_brackets", "duplicate_string", "odds_first",
         "bucket_sort")  # fmt: skip
SEEDS = (0, 1, 2)
#: Delétang et al. (2023), Table 2: the best score over their seeds and learning rates, per task, of the
#: two models of the table that they ran (their percentages as fractions), `{task: {model: score}}`. A
#: figure not read from the paper itself is left out, and the page marks it "not read".
AUTHORS_SCORES = {}
#: The models of the table that the authors ran.
AUTHORS_MODELS = ("superposition_stack", "lstm")
ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The committed record, the page of its parts and the folder of its figures, from the repository's root.
RECORD = "docs/results/chomsky_table_runs.json"
PAGE = "docs/results/chomsky.md"
FIGURES = "docs/results/figures/chomsky/table"
WRITER = "benchmarks/chomsky_table.py"
TITLE = "# The Chomsky-hierarchy benchmark"
#: The learning rate is chosen once, on one task and seed, over one model of each kind (a Grefenstette
#: memory, the authors' Stack-RNN, no memory): the rate of the highest mean score.
CHOICE_TASK, CHOICE_SEED, CHOICE_MODELS = "reverse_string", 0, ("stack", "superposition_stack", "lstm")


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
    parser.add_argument("--learning-rates", type=list_of(positive_float), default=[CHOMSKY_PROTOCOL["learning_rate"]],
                        help="of the authors' 1e-4,3e-4,5e-4; default: the table's")  # fmt: skip
    parser.add_argument("--shard", type=shard, default=(1, 1), help="I/N: every N-th run from the I-th")
    parser.add_argument("--runs-dir", default="runs/chomsky-table")
    parser.add_argument("--compilation-cache", default=None,
                        help="JAX's persistent compilation cache of the runs (default RUNS_DIR/jax-cache; '' for none)")  # fmt: skip
    parser.add_argument("--record", default=RECORD)
    parser.add_argument("--page", default=PAGE, help="the results page whose parts are written after the runs")
    parser.add_argument("--figures", default=FIGURES, help="the folder of the per-task figures")
    parser.add_argument("--page-only", action="store_true", help="write the page and figures from the record, train nothing")
    parser.add_argument("--train-flags", type=shlex.split, default=[],
                        help="more `neural-memory train` flags for every run (smoke tests: a tiny budget)")  # fmt: skip
    return parser.parse_args(argv)


def command(task, model, seed, learning_rate):
    """The `neural-memory train` arguments of one run, as a user types them."""
    return ["train", "--task", f"chomsky_hierarchy/{task}", *MODELS[model], "--seed", str(seed),
            "--learning-rate", f"{learning_rate:g}"]  # fmt: skip


def row_key(row):
    """What identifies a run in the record."""
    return row["task"], row["model"], row["seed"], row["settings"]["learning_rate"]


def planned_runs(args):
    """The `(task, model, seed, learning_rate)` of this process's shard, in order: seeds, then tasks, then
    models, then learning rates."""
    runs = [(task, model, seed, rate) for seed in args.seeds for task in args.tasks for model in args.models
            for rate in args.learning_rates]  # fmt: skip
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


#: The page's name of each model.
MODEL_NAMES = {
    "stack": "Stack-LSTM",
    "queue": "Queue-LSTM",
    "deque": "DeQue-LSTM, paper's",
    "deque_recipe": "DeQue-LSTM, recipe",
    "superposition_stack": "Stack-RNN",
    "lstm": "LSTM",
}
#: The name of a model inside a sentence, where it differs from the page's.
PROSE_NAMES = {**MODEL_NAMES, "deque": "paper's DeQue-LSTM", "deque_recipe": "DeQue-LSTM with the recipe"}


def table_rows(rows, learning_rate=CHOMSKY_PROTOCOL["learning_rate"]):
    """The rows of the table: those at its learning rate."""
    return [row for row in rows if row["settings"]["learning_rate"] == learning_rate]


def _scored(row):
    """Whether `row`'s run has a score: it did not diverge, and its evaluation is recorded."""
    return not row["diverged"] and row["score"] is not None


def _of(rows, task, model):
    return sorted((row for row in rows if row["task"] == task and row["model"] == model), key=lambda row: row["seed"])


def score_cells(rows, score_of=lambda row: row["score"]):
    """The table's cells of one model on one task: every seed's score, k of n solved, the best and the median."""
    scored = [(row["seed"], score_of(row)) for row in rows if not row["diverged"] and score_of(row) is not None]
    scores = [value for _, value in scored]
    cells = [", ".join(f"{value:.3f} (seed {seed})" for seed, value in scored)]
    for what, which in (("diverged", lambda row: row["diverged"]),
                        ("no score", lambda row: not row["diverged"] and score_of(row) is None)):  # fmt: skip
        seeds = [row["seed"] for row in rows if which(row)]
        cells.append(f"{what}: {seeds_text(seeds)}" if seeds else "")
    by_seed = "; ".join(cell for cell in cells if cell)
    solved = f"{sum(solves(value) for value in scores)} of {len(rows)} ({seeds_text([row['seed'] for row in rows])})"
    best, median = (f"{value:.3f}" for value in (max(scores), statistics.median(scores))) if scores else ("-", "-")
    return by_seed, solved, best, median


def learning_rate_part(rows):
    """The page's part that states the table's learning rate and the runs it was chosen on."""
    chosen = CHOMSKY_PROTOCOL["learning_rate"]
    runs = {(row["model"], row["settings"]["learning_rate"]): row for row in rows
            if row["task"] == CHOICE_TASK and row["seed"] == CHOICE_SEED and row["model"] in CHOICE_MODELS
            and _scored(row)}  # fmt: skip
    rates = CHOMSKY_LEARNING_RATES
    command = (f"`python benchmarks/chomsky_table.py --tasks {CHOICE_TASK} --models {','.join(CHOICE_MODELS)} "
               f"--seeds {CHOICE_SEED} --learning-rates {','.join(rate_text(rate) for rate in rates)}`")  # fmt: skip
    lines = [
        f"The table's learning rate is chosen once, on `{CHOICE_TASK}` with seed {CHOICE_SEED}, over one model "
        f"of each kind: the Stack-LSTM, the Stack-RNN and the LSTM. It is the rate of the highest mean score "
        f"of the three. {command}:",
        "",
        "| model | " + " | ".join(rate_text(rate) for rate in rates) + " |",
        "|---|" + "--:|" * len(rates),
    ]
    for model in CHOICE_MODELS:
        cells = [f"{runs[model, rate]['score']:.3f}" if (model, rate) in runs else "-" for rate in rates]
        lines.append(f"| {MODEL_NAMES[model]} | " + " | ".join(cells) + " |")
    whole = [rate for rate in rates if all((model, rate) in runs for model in CHOICE_MODELS)]
    means = {rate: statistics.fmean(runs[model, rate]["score"] for model in CHOICE_MODELS) for rate in whole}
    lines.append("| mean | " + " | ".join(f"{means[rate]:.3f}" if rate in means else "-" for rate in rates) + " |")
    lines.append("")
    if len(whole) == len(rates):
        best = max(means, key=means.get)
        lines.append(f"The highest mean is at {rate_text(best)}; the table runs at {rate_text(chosen)}.")
    else:
        missing = ", ".join(f"{MODEL_NAMES[m]} at {rate_text(r)}" for r in rates for m in CHOICE_MODELS
                            if (m, r) not in runs)  # fmt: skip
        lines.append(f"The table runs at {rate_text(chosen)}, the protocol's default, until the choice's runs are "
                     f"all recorded; without a recorded score: {missing}.")  # fmt: skip
    return "\n".join(lines)


def table_part(rows, figures):
    """The page's part: per task, every model's scores by seed, k of n solved, best, median and the authors'."""
    rows = table_rows(rows)
    lines = [
        f"A run *solves* a task when its score is at least {SOLVES_AT:.2f} (the bar of "
        "[the results](../results.md#how-runs-are-counted)). The authors' figure is the best score over their "
        "seeds and learning rates in their Table 2, for the two models they ran (\"not read\": a figure not "
        "read from the paper itself); the other models are not in their paper. The Stack-RNN is measured twice: with its 30-vector training stack, and with a stack "
        "that holds the whole tape.",
    ]
    from_42 = from_42_sentence(rows)
    lines += ["", from_42] if from_42 else []
    for task in dict.fromkeys([*TASKS, *(row["task"] for row in rows)]):
        if not any(row["task"] == task for row in rows):
            continue
        lines += ["", f"### {task}", "", "| model | score by seed (lengths 41-500) | solves | best | median | authors |",
                  "|---|---|---|--:|--:|--:|"]  # fmt: skip
        for model in MODELS:
            runs = _of(rows, task, model)
            authors = AUTHORS_SCORES.get(task, {}).get(model)
            authors = f"{authors:.3f}" if authors is not None else "not read" if model in AUTHORS_MODELS else "-"
            if not runs:
                lines.append(f"| {MODEL_NAMES[model]} | not run | | | | {authors} |")
                continue
            lines.append(f"| {MODEL_NAMES[model]} | " + " | ".join(score_cells(runs)) + f" | {authors} |")
            if model == "superposition_stack":
                deep = [row for row in runs if "whole_tape_stack" in row]
                cells = score_cells(deep, lambda row: row["whole_tape_stack"]["score"])
                lines.append(f"| {MODEL_NAMES[model]}, whole-tape stack | " + " | ".join(cells) + " | - |")
        if any(_scored(row) for row in rows if row["task"] == task):
            lines += ["", f"![{task}: accuracy against length, each model's best seed]({figures}/{task}_lengths.png)"]
    return "\n".join(lines)


def from_42_sentence(rows):
    """The one statement of the score from length 42 (the authors' `example.py`) beside the score from 41."""
    pairs = [(row["score"], row["score_from_42"]) for row in rows
             if _scored(row) and row.get("score_from_42") is not None]  # fmt: skip
    if not pairs:
        return ""
    largest = max(abs(score - from_42) for score, from_42 in pairs)
    return (f"The authors' `example.py` averages from length 42, not 41: over the {len(pairs)} scored "
            f"{'run' if len(pairs) == 1 else 'runs'} of the table, that mean differs from the score by at most "
            f"{largest:.4f} (`score_from_42` in each row of the record).")


def cost_sentence(rows):
    """What the recorded runs cost, per task and model: the hours of training plus evaluation, and where they ran.

    Per task, because a task's tape lengths set its cost: `modular_arithmetic_brackets` answers in one
    token, `duplicate_string` in twice its input.
    """
    timed = [row for row in rows if row.get("eval_seconds") is not None]
    if not timed:
        return ""
    tasks = []
    for task in dict.fromkeys(row["task"] for row in timed):
        parts = []
        for model in MODELS:
            hours = sorted((row["train_seconds"] + row["eval_seconds"]) / 3600 for row in timed
                           if row["task"] == task and row["model"] == model)  # fmt: skip
            if hours:
                span = f"{hours[0]:.1f}" if f"{hours[0]:.1f}" == f"{hours[-1]:.1f}" else f"{hours[0]:.1f}-{hours[-1]:.1f}"
                parts.append(f"{MODEL_NAMES[model]} {span} h ({runs_text(len(hours))})")
        tasks.append(f" On `{task}`: " + "; ".join(parts) + ".")
    devices = ", ".join(dict.fromkeys(device for row in timed for device in row["devices"]))
    return (f"One run's training and evaluation (`train_seconds` + `eval_seconds` of its row), every recorded run "
            f"of the record, on {devices}." + "".join(tasks))


def task_outcome(rows, task):
    """Who solves `task`, as a clause: each model some run of which solves it, k of n, then the rest's one count.

    A model is named with its own count when a run of it solves the task
    (the Stack-RNN also when its whole-tape stack does); the models none
    of whose runs solve the task share one count. "" when no run of the
    task is recorded.
    """
    solving, failing, failed_runs = [], [], 0
    for model in MODELS:
        runs = _of(rows, task, model)
        if not runs:
            continue
        solved = sum(_solved(row) for row in runs)
        deep = [row for row in runs if "whole_tape_stack" in row]
        deep_solved = sum(_solved(row, whole_tape=True) for row in deep)
        if not solved and not deep_solved:
            failing.append(f"the {PROSE_NAMES[model]}")
            failed_runs += len(runs)
            continue
        text = f"the {PROSE_NAMES[model]} {'solves it ' if not solving else ''}in {solved} of {runs_text(len(runs))}"
        if deep_solved:
            text += f" ({deep_solved} of {len(deep)} with a stack that holds the whole tape)"
        solving.append(text)
    if failing:
        names = "every model" if len(failing) == len(MODELS) else _and(failing)
        if solving:
            # "their" keeps a shared count from reading as each model's own.
            count = f"0 of {'their ' if len(failing) > 1 else ''}{runs_text(failed_runs)}"
            solving.append(f"and {names} in {count}")
        else:
            solving.append(f"no run solves it (0 of {runs_text(failed_runs)}, {names})")
    return ", ".join(solving)


def _solved(row, whole_tape=False):
    """Whether `row`'s run solves its task: with its training stack, or (`whole_tape`) with the whole-tape one."""
    if row["diverged"]:
        return False
    score = (row.get("whole_tape_stack") or {}).get("score") if whole_tape else row["score"]
    return score is not None and solves(score)


def readme_claim(rows):
    """The README's one-line summary of the table: per task, the models whose runs solve it, k of n, then the rest."""
    rows = [row for row in table_rows(rows) if row["task"] in TASKS]
    if not rows:
        return "no run of the table is recorded yet."
    parts = [f"on `{task}`, {outcome}" for task in TASKS if (outcome := task_outcome(rows, task))]
    planned = len(TASKS) * len(MODELS) * len(SEEDS)
    recorded = f"{len(rows)} of its {planned} runs ({len(TASKS)} tasks x {len(MODELS)} models x {seeds_text(SEEDS)})"
    return "; ".join(parts) + f"; {recorded} {'is' if len(rows) == 1 else 'are'} recorded, the others not run."


def findings_part(rows):
    """The page's "What the table shows": per task, who solves it, and how the other runs fail.

    A run that does not solve a task, with either stack, either fits the
    strings it trains on (its mean accuracy over the training lengths
    reaches the bar) and fails beyond them, or fits not even those: the
    accuracy over the training lengths and at the longest length tell the
    two apart.
    """
    rows = table_rows(rows)
    sentences = []
    for task in dict.fromkeys([*TASKS, *(row["task"] for row in rows)]):
        outcome = task_outcome(rows, task)
        if not outcome:
            continue
        sentences.append(f"On `{task}` ({CHOMSKY_TASKS[task].level_name}), {outcome}.")
        scored = [row for row in rows if row["task"] == task and _scored(row)]
        failed = [row for row in scored if not _solved(row) and not _solved(row, whole_tape=True)]
        if failed:
            unscored = sum(row["task"] == task for row in rows) > len(scored)
            sentences.append(_how_runs_fail(failed, CHOMSKY_PROTOCOL["train_lengths"], len(failed) == len(scored),
                                            unscored))  # fmt: skip
    if not sentences:
        return ""
    return "### What the table shows\n\n" + " ".join(sentences)


def _how_runs_fail(failed, train_lengths, everyone, unscored):
    """One sentence: whether the `failed` runs reach the bar on their training lengths, and their longest length.

    `everyone`: they are all the task's scored runs; `unscored`: the task
    also has runs without a score (diverged), which have no curve to tell.
    """
    low, high = train_lengths
    on_training = [statistics.fmean(row["accuracy_by_length"][low - 1:high]) for row in failed]
    longest = len(failed[0]["accuracy_by_length"])
    at_longest = [row["accuracy_by_length"][-1] for row in failed]
    fit, one = sum(solves(value) for value in on_training), len(failed) == 1
    noun = f"{'scored ' if unscored else ''}run{'' if one else 's'}"
    if everyone:
        runs = f"its {noun}" if one else f"its {len(failed)} {noun}"
    else:
        runs = f"the {len(failed)} {noun} that {'does' if one else 'do'} not solve it"
    if fit == len(failed):
        verdict = f"{runs} {'reaches' if one else 'reach'} the bar on the training lengths {low}-{high} but not beyond them"
    elif not fit:
        verdict = f"{runs} {'stays' if one else 'stay'} below the bar even on the training lengths {low}-{high}"
    else:
        verdict = (f"{fit} of {runs} {'reaches' if fit == 1 else 'reach'} the bar on the training lengths "
                   f"{low}-{high}, and none beyond them")
    return (f"{verdict[0].upper()}{verdict[1:]} (mean accuracy over them {_range(on_training)}; "
            f"at length {longest}, {_range(at_longest)}).")


def _range(values):
    """"0.500" or "0.500-0.600"."""
    low, high = f"{min(values):.3f}", f"{max(values):.3f}"
    return low if low == high else f"{low}-{high}"


def _and(names):
    """"a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def draw_figures(rows, folder):
    """One figure per task: per-token accuracy against length, the best seed's curve of every model."""
    rows = table_rows(rows)
    for task in dict.fromkeys(row["task"] for row in rows):
        setup = chomsky.task_setup(f"chomsky_hierarchy/{task}")
        curves = {}
        for model in MODELS:
            runs = [row for row in _of(rows, task, model) if _scored(row)]
            measured = [(MODEL_NAMES[model], runs, lambda row: row)]
            if model == "superposition_stack":
                deep = [row for row in runs if "whole_tape_stack" in row]
                measured.append((f"{MODEL_NAMES[model]}, whole-tape stack", deep, lambda row: row["whole_tape_stack"]))
            for name, scored, of in measured:
                if not scored:
                    continue
                best = max(scored, key=lambda row: of(row)["score"])
                curve = [{"length": length, "accuracy": value}
                         for length, value in enumerate(of(best)["accuracy_by_length"], start=1)]  # fmt: skip
                label = f"{name} (seed {best['seed']}, best of {len(scored)})"
                curves[label] = chomsky.curve_record(setup, label, curve, best["seed"], CHOMSKY_PROTOCOL["eval_sequences"])
        if not curves:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        chomsky.plot_curves(curves, folder / f"{task}_lengths.png", title=f"{task}: accuracy against length")


def page_parts(record=ROOT / RECORD, page=ROOT / PAGE, figures=ROOT / FIGURES):
    """`[(page, writer, part, title)]`: the table's parts of `page`, from `record` alone; none without rows."""
    rows = read_rows(pathlib.Path(record))
    if not rows:
        return []
    page = pathlib.Path(page)
    link = pathlib.Path(os.path.relpath(figures, page.parent)).as_posix()
    cost = cost_sentence(rows)
    parts = [learning_rate_part(rows), table_part(rows, link), findings_part(rows),
             cost and f"### What a run costs\n\n{cost}"]  # fmt: skip
    return [(page, WRITER, "\n\n".join(part for part in parts if part), TITLE)]


def score_line(row):
    """What the sweep prints of a finished row."""
    if row["diverged"]:
        return "diverged"
    text = chomsky.score_text(row["score"], row.get("whole_tape_stack"))
    return f"{text}; on {row['devices'][-1]}"


def use_compilation_cache(folder):
    """Has the runs started from here keep JAX's compiled programs in `folder` (none if empty).

    A run compiles its training step once per training length (1-40) and
    its forward pass once per evaluation bucket; the programs of one task
    and model do not depend on the seed, so later seeds and every resumed
    run load them instead. A cache the environment already names
    (`JAX_COMPILATION_CACHE_DIR`) is kept. The TensorFlow backend ignores it.
    """
    if folder:
        os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(pathlib.Path(folder).resolve()))


def main(argv=None):
    args = parse_args(argv)
    record_path = pathlib.Path(args.record)
    record_path.parent.mkdir(parents=True, exist_ok=True)
    if not args.page_only:
        use_compilation_cache(pathlib.Path(args.runs_dir) / "jax-cache" if args.compilation_cache is None
                              else args.compilation_cache)  # fmt: skip
    for task, model, seed, rate in [] if args.page_only else planned_runs(args):
        folder = str(pathlib.Path(args.runs_dir) / f"{task}-{model}-seed{seed}-lr{rate:g}")
        shown = [*command(task, model, seed, rate), *args.train_flags]
        argv = [*shown, "--output-dir", folder, "--verbose", "0"]
        settings = cli.train_config(cli.parser().parse_args(argv)).resolved().settings()
        recorded = [r for r in read_rows(record_path) if row_key(r) == (task, model, seed, rate) and r["settings"] == settings]
        row = recorded[0] if recorded else run_row(task, model, seed, argv, shown, folder)
        add_row(record_path, row, key=row_key)  # under the record's lock
        print(f"{task} {model} seed {seed} at {rate:g}: {score_line(row)}", flush=True)
    rows = read_rows(record_path)
    draw_figures(rows, pathlib.Path(args.figures))
    for part in page_parts(record_path, args.page, args.figures):
        write_part(*part)
    return 0


if __name__ == "__main__":
    sys.exit(main())
