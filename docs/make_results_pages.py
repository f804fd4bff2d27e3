"""Writes the results pages under docs/results/ from the recorded results files.

    python docs/make_results_pages.py          # rewrite the pages, draw missing figures
    python docs/make_results_pages.py --check  # exit 1 if a page is stale or a figure missing

The recorded results files (lists of finished runs, as `neural-memory
reproduce --results-file` accumulates them) are the one source of every
figure on the pages:

* `docs/results/paper_scale_runs.json`: the paper's table at the paper's
  scale (`benchmarks/paper_table.sh`);
* `docs/results/quick_plan_runs.json` and `docs/results/train_default_runs.json`:
  the default-scale runs over three seeds (`benchmarks/default_scale_tables.sh`);
* `docs/results/reversal_sweeps.json`: accuracy against length of the
  default-scale reversal runs (`benchmarks/default_scale_tables.sh`);
* `docs/results/default_table_runs.json`: `neural-memory train` at its
  defaults, every memory on every task over seeds 0-4
  (`benchmarks/default_scale_table.py`);
* the committed record of each script of `RECORD_SCRIPTS` in benchmarks/
  (e.g. `docs/results/deque_study_runs.json` of `benchmarks/deque_study.py`).

What it writes:

* one page per task of Grefenstette et al. 2015, `docs/results/<task>.md`:
  every run of the grid, the selected rows beside the paper's, the
  commands that reproduce them and the figures. Text written by hand below
  `HAND_WRITTEN` on a page is kept as it is;
* the blocks between `<!-- begin generated: NAME -->` and `<!-- end
  generated: NAME -->` in README.md and docs/results.md (the results
  matrix and the tables);
* the part of a results page that each script of `RECORD_SCRIPTS` writes
  between its marker lines (`benchmarks/marked_part.py`), as the script's
  `page_parts()` gives it from its committed record, so that a part gone
  stale against its record, or edited by hand, is found: e.g. the DeQue
  study's tables in docs/results/deque.md;
* the convergence figure of every run, and the figures drawn from the
  sweeps, under `docs/results/figures/<scale>/<task>/`, when missing. The
  accuracy-against-length figure of a paper-scale run needs its trained
  model, so `neural-memory evaluate --sweep --plot` draws it; a page shows
  it where it exists.

`tests/docs/test_results_pages.py` runs `--check`.
"""

import argparse
import difflib
import json
import math
import os
import pathlib
import re
import statistics
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
FIGURES = RESULTS / "figures"
PAPER_RUNS = RESULTS / "paper_scale_runs.json"
QUICK_RUNS = RESULTS / "quick_plan_runs.json"
TRAIN_RUNS = RESULTS / "train_default_runs.json"
SWEEPS = RESULTS / "reversal_sweeps.json"
DEFAULT_TABLE_RUNS = RESULTS / "default_table_runs.json"
HAND_WRITTEN = "<!-- Written by hand below this line; docs/make_results_pages.py keeps it. -->"

# (title, paper section, what the target is) of each task of Grefenstette et al. 2015.
TASKS = {
    "sequence_copy": ("Sequence copying", "§4.1", "the source itself"),
    "sequence_reversal": ("Sequence reversal", "§4.1", "the source reversed"),
    "bigram_flip": ("Bigram flipping", "§4.1", "the source with each pair of neighbours swapped"),
    "itg_svo_sov": ("SVO to SOV", "§4.2", "the sentence's verbs moved after their objects (an ITG)"),
    "itg_gender_conjugation": ("Gender conjugation", "§4.2", "the sentence translated with gendered articles (an ITG)"),
}
MODEL_NAMES = {"stack": "Stack-LSTM", "queue": "Queue-LSTM", "deque": "DeQue-LSTM",
               "lstm1": "1-layer LSTM", "lstm2": "2-layer LSTM", "lstm4": "4-layer LSTM", "lstm8": "8-layer LSTM"}  # fmt: skip
MODEL_ORDER = tuple(MODEL_NAMES)
# The models of the default-scale table (`benchmarks/default_scale_table.py`), with the
# `neural-memory train` options that choose each.
DEFAULT_TABLE_MODELS = {
    "stack": ("Stack-LSTM", "--memory stack"),
    "queue": ("Queue-LSTM", "--memory queue"),
    "deque": ("DeQue-LSTM, recipe", "--memory deque"),
    "deque_paper": ("DeQue-LSTM, paper's", "--memory deque --paper-deque"),
    "lstm": ("2-layer LSTM", "--memory lstm"),
}
# After `--epochs N` (each run's budget, from its settings).
PAPER_FLAGS = "--steps-per-epoch 250 --stop-at-coarse 0.99 --output-dir runs/paper-table"
# The modules in benchmarks/ whose `page_parts()` gives the (page, writer, part, title) of the parts that a
# script writes on a results page, from its committed record alone: the script's own module, or one it
# takes its parts from.
RECORD_SCRIPTS = (
    "chomsky_cost",
    "chomsky_stack_depth",
    "chomsky_table",
    "deque_study",
    "hao_table",
    "itg_entropy",
    "itg_study",
    "lstm_budget",
    "memory_growth",
    "speed_tables",
    "strength_noise",
)


# ------------------------------------------------------------------ runs


def read_runs(path):
    from keras_neural_memory.experiments import reproduce

    return reproduce.read_results(path)


def _ordered(runs):
    return sorted(runs, key=lambda r: (MODEL_ORDER.index(r["plan_model"]), -r["learning_rate"], r["seed"]))


def _of_task(runs, task):
    return _ordered([run for run in runs if run["task"] == task])


def _devices(run):
    """Where a run trained, from its segments: e.g. 'NVIDIA H100 80GB HBM3; CPU (x86_64, 2 cores)'."""
    names = [segment["device"].split(" x ", 1)[-1] for segment in run.get("segments", [])]
    return "; ".join(dict.fromkeys(names)) or "not recorded"


def _span(values):
    low, high = min(values), max(values)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"


def _seeds(runs, named=False):
    return _benchmark("study_record").seeds_text((run["seed"] for run in runs), named=named)


def _figure(scale, task, run, kind):
    return FIGURES / scale / task / f"{run['plan_model']}_lr{run['learning_rate']:g}_seed{run['seed']}_{kind}.png"


def _link(path, page_dir=RESULTS):
    return os.path.relpath(path, page_dir).replace(os.sep, "/")


# ---------------------------------------------------------------- tables


def paper_table(runs, tasks=tuple(TASKS)):
    """The selected row of every (task, model), grouped by task and then by model (paper §4.4)."""
    from keras_neural_memory.experiments import reproduce

    ordered = [run for task in tasks for run in _of_task(runs, task)]
    lines = reproduce.markdown_table(ordered).splitlines()
    header, rows = lines[:2], lines[2:]
    # `select` keeps the order in which each (task, model) first appears.
    return "\n".join(header + rows)


def matrix(runs, page_dir=ROOT):
    """Test coarse accuracy, task by model, with the paper's figure and the grid's run count in each cell."""
    from keras_neural_memory.experiments import reproduce
    from keras_neural_memory.experiments.common import learns

    selected = {(run["task"], run["plan_model"]): run for run in reproduce.select(runs)}

    def cell(run, paper, grid):
        learned = sum(learns(r["test_accuracy"]["coarse"]) for r in grid)
        count = f"{learned}/{len(grid)} run{'s' if len(grid) != 1 else ''}"
        return f"{run['test_accuracy']['coarse']:.2f} ({paper:.2f}) · {count}" if run else f"– ({paper:.2f})"

    lines = ["| task | Stack-LSTM | Queue-LSTM | DeQue-LSTM | deep LSTM |", "|---|---|---|---|---|"]
    for task, (title, _, _) in TASKS.items():
        cells = []
        for model in ("stack", "queue", "deque"):
            grid = [run for run in runs if run["task"] == task and run["plan_model"] == model]
            cells.append(cell(selected.get((task, model)), reproduce.PAPER_TEST[task][model][0], grid))
        lstms = [run for (t, model), run in selected.items() if t == task and model.startswith("lstm")]
        grid = [run for run in runs if run["task"] == task and run["plan_model"].startswith("lstm")]
        coarse, _, layers = reproduce.PAPER_TEST[task]["lstm"]
        cells.append(cell(min(lstms, key=reproduce._selection_key) if lstms else None, coarse, grid))
        link = _link(RESULTS / f"{task}.md", page_dir)
        lines.append(f"| [{title}]({link}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def learned_cell(values):
    """`k/n · median (min-max)` of test coarse accuracies: how many learn, and where they end.

    >>> learned_cell([1.0, 0.96, 0.2])
    '2/3 · 0.96 (0.20-1.00)'
    """
    from keras_neural_memory.experiments.common import learns

    k = sum(learns(value) for value in values)
    spread = f" ({min(values):.2f}-{max(values):.2f})" if len(values) > 1 else ""
    return f"{k}/{len(values)} · {statistics.median(values):.2f}{spread}"


def default_table(rows, page_dir=ROOT):
    """The default-scale table: per task and model, `k/n · median test coarse (min-max)` over its seeds."""
    lines = ["| task | " + " | ".join(name for name, _ in DEFAULT_TABLE_MODELS.values()) + " |",
             "|---|" + "---|" * len(DEFAULT_TABLE_MODELS)]  # fmt: skip
    for task, (title, _, _) in TASKS.items():
        cells = []
        for model in DEFAULT_TABLE_MODELS:
            values = [row["test_coarse"] for row in rows if row["task"] == task and row["model"] == model]
            cells.append(learned_cell(values) if values else "not run")
        lines.append(f"| [{title}]({_link(RESULTS / f'{task}.md', page_dir)}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def default_table_commands(rows):
    """How to rerun one cell, and the whole table; with the seeds the table holds."""
    seeds = _seeds(rows) if rows else "none yet"
    lines = [f"Seeds: {seeds}. One cell's run, for TASK in the task's name and SEED its seed:", "", "```bash"]
    lines += [f"neural-memory train --task TASK {flags} --seed SEED   # {name}" for name, flags in DEFAULT_TABLE_MODELS.values()]
    lines += ["python benchmarks/default_scale_table.py          # every cell (resumable; one process per core with --models)", "```"]
    return "\n".join(lines)


def train_claim(rows):
    """One sentence: how many runs of the main job learn, against the LSTM's, from the default-scale table."""
    from keras_neural_memory.experiments.common import learns

    def runs(model):
        return [row for row in rows if row["task"] == "sequence_reversal" and row["model"] == model]

    def claim(group):
        learned = sum(learns(row["test_coarse"]) for row in group)
        return (f"{learned} of {len(group)} runs ({_seeds(group, named=True)}; test coarse accuracy "
                f"{_span([row['test_coarse'] for row in group])} at lengths 17-32)")  # fmt: skip

    stack, lstm = runs("stack"), runs("lstm")
    if not stack:
        return "(not measured yet: run `benchmarks/default_scale_table.py`)."
    sentence = f"learns the task in {claim(stack)}"
    if lstm:
        sentence += f", where the 2-layer LSTM (`--memory lstm`) learns it in {claim(lstm)}"
    return sentence + " ([the default-scale table](docs/results.md#the-default-scale-table-every-memory-on-every-task))."


# How the claims name each task in a sentence.
TASK_WORDS = {"sequence_copy": "copy", "sequence_reversal": "reversal", "bigram_flip": "bigram flipping",
              "itg_svo_sov": "SVO to SOV", "itg_gender_conjugation": "gender conjugation"}  # fmt: skip


def _runs(count):
    return _benchmark("study_record").runs_text(count)


def paper_claim(runs, page_dir=ROOT):
    """One sentence: how many runs of the paper-scale grid learn each task, per memory, with their seeds.

    Every run of a (task, memory) cell counts, at every learning rate of
    the grid; a memory that learns no task gets its best test coarse
    accuracy instead.
    """
    from keras_neural_memory.experiments.common import learns

    rate_text = _benchmark("study_record").rate_text
    parts = []
    for model in ("stack", "queue", "deque"):
        mine = [run for run in runs if run["plan_model"] == model]
        if not mine:
            continue
        learned, others = [], 0
        for task in TASKS:
            grid = _of_task([run for run in mine if run["task"] == task], task)
            winners = [run for run in grid if learns(run["test_accuracy"]["coarse"])]
            if winners:
                where = ", ".join(f"seed {run['seed']} at {rate_text(run['learning_rate'])}" for run in winners)
                learned.append(f"{TASK_WORDS[task]} in {len(winners)} of {_runs(len(grid))} ({where})")
            else:
                others += len(grid)
        name = MODEL_NAMES[model]
        if learned:
            text = f"the {name} learns " + ", ".join(learned)
            parts.append(text + (f", and no other task in its other {_runs(others)}" if others else ""))
        else:
            best = max(mine, key=lambda run: run["test_accuracy"]["coarse"])
            parts.append(f"the {name} learns no task in its {_runs(len(mine))} (its best test coarse"
                         f" {best['test_accuracy']['coarse']:.2f}, on {TASK_WORDS[best['task']]})")  # fmt: skip
    lstms = [run for run in runs if run["plan_model"].startswith("lstm")]
    if lstms:
        learned = sum(learns(run["test_accuracy"]["coarse"]) for run in lstms)
        parts.append(f"the deep LSTMs learn a task in {learned} of their {_runs(len(lstms))}")
    link = _link(ROOT / "docs" / "results.md", page_dir)
    return "; ".join(parts) + f" ([every run]({link}#the-papers-table-at-the-papers-scale))."


def grid_table(runs, task, page_dir=RESULTS):
    """Every run of a task at the paper's scale."""
    lines = [
        "| model | lr | seed | batches | converged | train perplexity | train coarse / fine | test coarse / fine "
        "| trained on | figures |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    from keras_neural_memory.experiments import reproduce

    for run in _of_task(runs, task):
        figures = [f"[{kind}]({_link(_figure('paper', task, run, kind), page_dir)})"
                   for kind in ("convergence", "lengths") if _figure("paper", task, run, kind).exists()]  # fmt: skip
        train, test = run["train_accuracy"], run["test_accuracy"]
        perplexity = "diverged" if run.get("diverged") else f"{math.exp(run['history']['loss'][-1]):.3f}"
        lines.append(
            f"| {run['plan_model']} | {run['learning_rate']:g} | {run['seed']} | {run['batches']:,} "
            f"| {'yes' if reproduce._converged(run) else 'no'} | {perplexity} "
            f"| {train['coarse']:.2f} / {train['fine']:.2f} | {test['coarse']:.2f} / {test['fine']:.2f} "
            f"| {_devices(run)} | {', '.join(figures)} |"
        )
    return "\n".join(lines)


def seeds_table(runs, task=None):
    """Default-scale runs over seeds: each accuracy as the range over seeds."""
    from keras_neural_memory.experiments import reproduce

    lines = [
        "| task | model | params | batches | seeds | train coarse | test coarse | test fine | paper test coarse / fine |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    groups = {}
    for run in _ordered(runs):
        if task in (None, run["task"]):
            groups.setdefault((run["task"], run["plan_model"]), []).append(run)
    for (task_name, model), group in sorted(groups.items(), key=lambda item: list(TASKS).index(item[0][0])):
        lines.append(
            f"| {task_name} | {model} | {group[0]['parameters']:,} | {group[0]['batches']:,} | {_seeds(group)} "
            f"| {_span([r['train_accuracy']['coarse'] for r in group])} "
            f"| {_span([r['test_accuracy']['coarse'] for r in group])} "
            f"| {_span([r['test_accuracy']['fine'] for r in group])} | {reproduce.paper_cell(task_name, model)} |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- figures


def draw_convergence(runs, path, title):
    """Training coarse accuracy against batches of `runs`, one line each, one colour per model."""
    from keras_neural_memory import viz

    label = lambda r: f"{r['plan_model']}, lr {r['learning_rate']:g}, seed {r['seed']}"  # noqa: E731
    path.parent.mkdir(parents=True, exist_ok=True)
    figure = viz.plot_convergence(
        {label(r): r["history"] for r in runs},
        metric="coarse_accuracy",
        steps_per_epoch={label(r): r["steps_per_epoch"] for r in runs},
        title=title,
    )
    _one_colour_per_model(figure, runs)
    figure.savefig(path, dpi=100)


def _one_colour_per_model(figure, runs):
    """Colours a figure's lines (one per run, in order) by model, with one legend entry per model."""
    models = list(dict.fromkeys(run["plan_model"] for run in runs))
    if len(models) == len(runs):
        return
    axis = figure.axes[0]
    for line, run in zip(axis.get_lines(), runs):
        group = [r for r in runs if r["plan_model"] == run["plan_model"]]
        line.set_color(f"C{models.index(run['plan_model'])}")
        first = run is group[0]
        line.set_label(f"{MODEL_NAMES[run['plan_model']]}, {_seeds(group, named=True)}" if first else "_nolegend_")
    axis.legend(fontsize="small")


def draw_sweeps(sweeps, path):
    """The README's figure: coarse accuracy against length, Stack-LSTM against LSTM, every seed."""
    from keras_neural_memory import viz

    results = {f"{s['plan_model']}, seed {s['seed']}": s["sweep"] for s in sweeps}
    path.parent.mkdir(parents=True, exist_ok=True)
    figure = viz.plot_length_generalisation(
        results, train_range=tuple(sweeps[0]["train_lengths"]), metric="coarse",
        title="sequence reversal, trained on lengths 8-16",
    )  # fmt: skip
    _one_colour_per_model(figure, sweeps)
    figure.savefig(path, dpi=100)


def figures_to_draw(paper, quick, sweeps):
    """(path, draw) of every figure the pages show that this script draws."""
    jobs = []
    for run in paper:
        path = _figure("paper", run["task"], run, "convergence")
        jobs.append((path, lambda r=run, p=path: draw_convergence([r], p, f"{r['task']} ({r['plan_model']})")))
    for task in TASKS:
        runs = _of_task(quick, task)
        if runs:
            path = FIGURES / "default" / task / "quick_plan_convergence.png"
            jobs.append((path, lambda r=runs, p=path, t=task: draw_convergence(r, p, f"{t}, quick plan")))
    if sweeps:
        path = FIGURES / "default" / "sequence_reversal" / "stack_lstm2_lengths.png"
        jobs.append((path, lambda p=path: draw_sweeps(sweeps, p)))
    return jobs


# ------------------------------------------------------------------ pages


def _bash(lines):
    return "```bash\n" + "\n".join(lines) + "\n```"


def paper_commands(runs, task):
    """One command per model, seed and budget, with exactly the learning rates recorded for them."""
    commands = []
    for run in _of_task(runs, task):
        key = (task, run["plan_model"], run["seed"], run["settings"]["epochs"])
        group = [r for r in runs if (r["task"], r["plan_model"], r["seed"], r["settings"]["epochs"]) == key]
        rates = ",".join(f"{rate:g}" for rate in sorted({r["learning_rate"] for r in group}, reverse=True))
        command = (
            f"KERAS_BACKEND=jax neural-memory reproduce --plan paper --tasks {task} --models {run['plan_model']} "
            f"--learning-rates {rates} --seeds {run['seed']} --epochs {key[-1]} {PAPER_FLAGS} "
            f"--results-file {_link(PAPER_RUNS, ROOT)}"
        )
        if command not in commands:
            commands.append(command)
    return commands


def task_page(task, paper, quick, train):
    title, section, target = TASKS[task]
    runs = _of_task(paper, task)
    parts = [
        f"# {title}",
        f"Grefenstette et al. 2015, {section}: the target is {target}. Accuracy is coarse (the share of "
        "target strings right in every symbol) and fine (the share of target symbols right); "
        "the protocol is in [the results overview](../results.md#protocol), beside the other tasks' tables. This page is written by "
        "`python docs/make_results_pages.py` from the recorded runs, apart from its last section.",
        "## The paper's scale",
        "Training lengths 8-64, test lengths 65-128, 128 symbols, hidden size 256; each run trains to convergence "
        "or for at most 50,000 batches, and each row is the run of lowest training perplexity. A cell the paper "
        "reports near 0 (the Stack-LSTM on copy and bigram flipping, the Queue-LSTM on reversal) trains at the "
        "learning rate of the matching positive row, for twice the batches that row needed: "
        "`bash benchmarks/paper_table.sh runs/paper-table stack_copy stack_bigram queue_reversal`.",
        paper_table(runs, (task,)),
        "Every run, with the device it trained on:",
        grid_table(runs, task),
        "The commands that train and record these runs (each resumes where it stopped):",
        _bash(paper_commands(runs, task)),
    ]
    from keras_neural_memory.experiments import reproduce

    for run in reproduce.select(runs):
        shown = [path for path in (_figure("paper", task, run, "convergence"), _figure("paper", task, run, "lengths"))
                 if path.exists()]  # fmt: skip
        if shown:
            name = f"{MODEL_NAMES[run['plan_model']]}, lr {run['learning_rate']:g}, seed {run['seed']}"
            parts.append(f"**{name}** (selected): training accuracy against batches"
                         + (" and accuracy against length." if len(shown) > 1 else "."))
            parts.append(" ".join(f"![{name}]({_link(path)})" for path in shown))
    quick_runs = _of_task(quick, task)
    if quick_runs:
        parts += [
            "## The default scale: the quick plan",
            "Training lengths 8-16, test lengths 17-32, 32 symbols, hidden size 64, 1,500 batches per run; each "
            "cell is the range over the seeds. The paper's column is at its own scale, so it shows the pattern "
            "to expect, not the digits.",
            _bash([f"neural-memory reproduce --plan quick --tasks {task} --seeds 0,1,2 "
                   f"--results-file {_link(QUICK_RUNS, ROOT)}"]),
            seeds_table(quick_runs),
        ]
        convergence = FIGURES / "default" / task / "quick_plan_convergence.png"
        if convergence.exists():
            parts.append(f"![{title}, quick plan, training accuracy against batches]({_link(convergence)})")
    train_runs = _of_task(train, task)
    if train_runs:
        parts += [
            "## The default scale: `neural-memory train`",
            "The default run of `neural-memory train` (3,000 batches), for three seeds:",
            _bash([f"for seed in {' '.join(str(seed) for seed in sorted({run['seed'] for run in train_runs}))}; do",
                   f"  neural-memory train --task {task} --memory stack --seed $seed --output-dir runs/{task}-stack-seed$seed",
                   f"  neural-memory train --task {task} --memory lstm --seed $seed --output-dir runs/{task}-lstm-seed$seed",
                   "done"]),
            seeds_table(train_runs),
        ]
        pitch = FIGURES / "default" / task / "stack_lstm2_lengths.png"
        if pitch.exists():
            parts += [
                "Coarse accuracy against length, 100 fresh strings per length "
                f"(`python benchmarks/reversal_sweeps.py`, recorded in `{_link(SWEEPS, ROOT)}`):",
                f"![Stack-LSTM against LSTM, coarse accuracy against length]({_link(pitch)})",
            ]
    return "\n\n".join(parts) + "\n"


def _with_hand_written(generated, existing):
    kept = existing.split(HAND_WRITTEN, 1)[1] if existing and HAND_WRITTEN in existing else "\n"
    return generated + "\n" + HAND_WRITTEN + kept


def _fill(text, name, content, source):
    begin, end = f"<!-- begin generated: {name} -->", f"<!-- end generated: {name} -->"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{source} has no block {begin} ... {end}")
    return pattern.sub(lambda _: f"{begin}\n{content}\n{end}", text)


def _benchmark(name):
    """The module of `benchmarks/<name>.py`, imported on first use (the scripts import Keras)."""
    import importlib

    benchmarks = str(ROOT / "benchmarks")
    if benchmarks not in sys.path:
        sys.path.insert(0, benchmarks)
    return importlib.import_module(name)


def record_parts():
    """(page, writer, part, title) of every part that the scripts of `RECORD_SCRIPTS` write from their records."""
    return [part for name in RECORD_SCRIPTS for part in _benchmark(name).page_parts()]


def with_record_parts(pages, parts):
    """`pages` ({path: text}) with `parts` written in; a page that is not in `pages` is taken from disk.

    Several parts may fall on one page, and on a page that this script also
    writes: each is written into the text the ones before left.
    """
    with_part = _benchmark("marked_part").with_part
    pages = dict(pages)
    for page, writer, part, title in parts:
        page = pathlib.Path(page).resolve()
        if page not in pages:
            pages[page] = page.read_text(encoding="utf-8") if page.exists() else ""
        pages[page] = with_part(pages[page], writer, part, title)
    return pages


def expected_files():
    """{path: text} of every page and block this script writes, the parts of `RECORD_SCRIPTS` included."""
    paper, quick, train = read_runs(PAPER_RUNS), read_runs(QUICK_RUNS), read_runs(TRAIN_RUNS)
    table = json.loads(DEFAULT_TABLE_RUNS.read_text()) if DEFAULT_TABLE_RUNS.exists() else []
    pages = {}
    for task in TASKS:
        path = RESULTS / f"{task}.md"
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        pages[path] = _with_hand_written(task_page(task, paper, quick, train), existing)
    readme = ROOT / "README.md"
    text = _fill(readme.read_text(encoding="utf-8"), "default-matrix", default_table(table), "README.md")
    text = _fill(text, "train-claim", train_claim(table), "README.md")
    text = _fill(text, "paper-claim", paper_claim(paper), "README.md")
    chomsky_table = _benchmark("chomsky_table")
    chomsky_rows = chomsky_table.read_rows(ROOT / chomsky_table.RECORD)
    pages[readme] = _fill(text, "chomsky-claim", chomsky_table.readme_claim(chomsky_rows), "README.md")
    overview = ROOT / "docs" / "results.md"
    text = _fill(overview.read_text(encoding="utf-8"), "matrix", matrix(paper, ROOT / "docs"), "docs/results.md")
    text = _fill(text, "paper-table", paper_table(paper), "docs/results.md")
    text = _fill(text, "paper-claim", paper_claim(paper, ROOT / "docs"), "docs/results.md")
    text = _fill(text, "quick-table", seeds_table(quick), "docs/results.md")
    text = _fill(text, "train-table", seeds_table(train), "docs/results.md")
    text = _fill(text, "default-table", default_table(table, ROOT / "docs"), "docs/results.md")
    text = _fill(text, "default-table-commands", default_table_commands(table), "docs/results.md")
    pages[overview] = text
    return with_record_parts(pages, record_parts())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is stale or a figure is missing")
    parser.add_argument("--redraw", action="store_true", help="draw every figure again, not only the missing ones")
    args = parser.parse_args(argv)
    pages = expected_files()
    sweeps = json.loads(SWEEPS.read_text()) if SWEEPS.exists() else []
    jobs = figures_to_draw(read_runs(PAPER_RUNS), read_runs(QUICK_RUNS), sweeps)
    if args.check:
        stale = [path for path, text in pages.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
        missing = [path for path, _ in jobs if not path.exists()]
        for path in stale:
            old = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
            diff = difflib.unified_diff(old, pages[path].splitlines(), f"{path} (committed)", f"{path} (generated)", lineterm="")
            print("\n".join(list(diff)[:40]))
        for path in missing:
            print(f"missing figure: {path.relative_to(ROOT)}")
        if stale or missing:
            print("stale results pages: run `python docs/make_results_pages.py`", file=sys.stderr)
            return 1
        return 0
    for path, draw in jobs:
        if args.redraw or not path.exists():
            draw()
    pages = expected_files()  # again: the pages link the figures that exist
    for path, text in pages.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
