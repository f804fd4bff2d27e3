"""The results table of Grefenstette et al. 2015, and its convergence plot.

`reproduce` trains every (task, model) pair of a plan over a grid of
learning rates and seeds, each run as `training.train` does it (so a
finished run is reused and an interrupted one resumes), and writes, to
the output folder:

* `results.md`: a markdown table of the measured coarse/fine accuracy at
  training and at test lengths, beside the paper's test numbers;
* `convergence.png`: training coarse accuracy against batches, memory
  models against LSTMs (the paper's Figure 2b), one panel per task;
* one run folder per run;
* the results file (default `results.json` in the output folder): every
  finished run, as `training.train` returns it. Runs accumulate there
  across calls, rows and processes, and a run recorded there is reused
  even once its run folder is gone, so the file alone (which is small
  enough to keep under version control) redraws the table and tells a
  later call which runs are already done.
"""

import dataclasses
import json
import math
import pathlib
import time

from keras_neural_memory.experiments import files, training
from keras_neural_memory.experiments.config import PAPER_MODELS, RunConfig, UsageError, model_kind

TASKS = ("sequence_copy", "sequence_reversal", "bigram_flip", "itg_svo_sov", "itg_gender_conjugation")


@dataclasses.dataclass(frozen=True)
class Plan:
    """What a plan trains: its data scale, models and batches per run."""

    data_scale: str
    models: tuple
    epochs: int
    steps_per_epoch: int
    description: str


PLANS = {
    "quick": Plan("default", ("stack", "queue", "deque", "lstm2"), 15, 100,
                  "the three memories and the 2-layer LSTM at the default data scale (lengths 8-16, "
                  "test 17-32, 32 symbols), 1,500 batches per run"),
    "default": Plan("default", PAPER_MODELS, 30, 100, "every model of the paper at the default data scale, 3,000 batches per run"),
    "paper": Plan("paper", PAPER_MODELS, 100, 1000,
                  "every model at the paper's sizes (§4: lengths 8-64, test 65-128, 128 symbols, hidden 256), "
                  "100,000 batches per run"),
}  # fmt: skip


# Grefenstette et al. 2015, Table 2: test coarse / fine accuracy (lengths 65-128) read from the
# paper; the LSTM entry is its best deep LSTM, with its number of layers.
PAPER_TEST = {
    "sequence_copy": {"lstm": (0.01, 0.50, 4), "stack": (0.00, 0.22), "queue": (1.00, 1.00), "deque": (1.00, 1.00)},
    "sequence_reversal": {"lstm": (0.04, 0.13, 8), "stack": (1.00, 1.00), "queue": (0.00, 0.01), "deque": (1.00, 1.00)},
    "bigram_flip": {"lstm": (0.02, 0.52, 2), "stack": (0.00, 0.48), "queue": (0.55, 0.98), "deque": (0.53, 0.98)},
    "itg_svo_sov": {"lstm": (0.98, 0.99, 8), "stack": (1.00, 1.00), "queue": (1.00, 1.00), "deque": (1.00, 1.00)},
    # One reading of the paper puts 0.93/0.97 on the Queue row instead.
    "itg_gender_conjugation": {"lstm": (0.99, 0.99, 8), "stack": (0.93, 0.97), "queue": (1.00, 1.00), "deque": (1.00, 1.00)},
}


def paper_cell(task, model):
    if model.startswith("lstm"):
        coarse, fine, layers = PAPER_TEST[task]["lstm"]
        return f"{coarse:.2f} / {fine:.2f} (best: {layers} layers)"
    coarse, fine = PAPER_TEST[task][model]
    return f"{coarse:.2f} / {fine:.2f}"


def select(runs):
    """One row per (task, model): the run of lowest final training loss (paper §4.4).

    Selection is by training perplexity, the exponential of the loss, never
    by test accuracy. Diverged runs are never selected while another exists.
    Each row also counts the runs of its grid and how many converged on
    their own (training coarse accuracy, or that of the held-out strings
    where the run measured them, at least `CONVERGED` at two consecutive
    epochs).
    """
    rows = {}
    for run in runs:
        rows.setdefault((run["task"], run["plan_model"]), []).append(run)
    selected = []
    for group in rows.values():
        best = min(group, key=_selection_key)
        converged = sum(_converged(run) for run in group)
        selected.append({**best, "grid_runs": len(group), "grid_converged": converged})
    return selected


CONVERGED = 0.99


def _selection_key(run):
    """Not diverged first, then the lowest final training loss (runs of older versions lack both)."""
    return run.get("diverged", False), run["history"].get("loss", [math.inf])[-1]


def _converged(run):
    # The accuracy the run's stopping rule read: of held-out strings, where the run measured them.
    history = run["history"]
    coarse = history.get("val_coarse_accuracy", history.get("coarse_accuracy", []))
    return any(a >= CONVERGED and b >= CONVERGED for a, b in zip(coarse, coarse[1:]))


def markdown_table(runs):
    """The selected run of every (task, model), beside the paper's test numbers."""
    rows = [
        "| task | model | params | converged / runs | selected lr, seed | batches | train perplexity "
        "| train coarse / fine | test coarse / fine | paper test coarse / fine |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in select(runs):
        head = (f"| {run['task']} | {run['plan_model']} | {run['parameters']:,} | {run['grid_converged']} / {run['grid_runs']} "
                f"| {run['learning_rate']:g}, {run['seed']} | {run['batches']:,} ")
        paper = paper_cell(run["task"], run["plan_model"])
        if run.get("diverged", False):
            rows.append(head + f"| diverged | | | {paper} |")
            continue
        train, test = run["train_accuracy"], run["test_accuracy"]
        rows.append(
            head + f"| {math.exp(run['history']['loss'][-1]):.3f} | {train['coarse']:.2f} / {train['fine']:.2f} "
            f"| {test['coarse']:.2f} / {test['fine']:.2f} | {paper} |"
        )
    return "\n".join(rows)


def plot_convergence(runs, path):
    """Training coarse accuracy against batches (the paper's Figure 2b), one panel per task.

    One curve per model: its selected run (`select`), labelled with the
    model, learning rate and seed, so that plots of different runs of one
    model tell which run they show.
    """
    from matplotlib.figure import Figure

    from keras_neural_memory import viz

    runs = select(runs)
    tasks = list(dict.fromkeys(run["task"] for run in runs))
    figure = Figure(figsize=(3.2 * len(tasks), 3), layout="constrained")
    axes = figure.subplots(1, len(tasks), sharey=True, squeeze=False)[0]
    for axis, task in zip(axes, tasks):
        task_runs = {f"{r['plan_model']} (lr {r['learning_rate']:g}, seed {r['seed']})": r for r in runs if r["task"] == task}
        viz.plot_convergence(
            {label: r["history"] for label, r in task_runs.items()},
            metric="coarse_accuracy",
            steps_per_epoch={label: r["steps_per_epoch"] for label, r in task_runs.items()},
            title=task,
            axis=axis,
        )
        axis.set_ylabel("")
        if axis is not axes[-1]:
            axis.get_legend().remove()
    axes[0].set_ylabel("training coarse accuracy")
    with files.atomic_path(path) as temporary:
        figure.savefig(temporary, dpi=110, format="png")


def reproduce(plan="quick", tasks=TASKS, models=None, learning_rates=(5e-3,), seeds=(0,), output_dir=None,
              hidden_size=None, memory_width=None, epochs=None, steps_per_epoch=None, stop_at_coarse=None,
              validation_examples=None, eval_examples=500, results_file=None, redraw=False, overwrite=False, jit_compile=True):  # fmt: skip
    """Trains (or reuses) every run of a plan's grid; writes and returns the table.

    Args:
        plan: A key of `PLANS`.
        tasks: Tasks of `TASKS` to run.
        models: Models of `PAPER_MODELS` to run; default the plan's.
        learning_rates: The grid's learning rates (the paper's is
            `config.PAPER_LEARNING_RATES`).
        seeds: The grid's seeds.
        output_dir: The folder of the table and the runs; default
            "runs/reproduce-PLAN".
        hidden_size: Controller units; default the plan's scale.
        memory_width: Memory vector size; default the plan's scale.
        epochs: Most epochs per run; default the plan's.
        steps_per_epoch: Batches per epoch; default the plan's.
        stop_at_coarse: Stop each run once training coarse accuracy reaches
            this at two consecutive epochs.
        validation_examples: Held-out strings of training lengths measured
            after every epoch (see `RunConfig`).
        eval_examples: Examples per accuracy measurement.
        results_file: The JSON file where finished runs accumulate; default
            "results.json" in `output_dir`. A run of the same settings
            recorded there is not retrained, even without its run folder.
        redraw: Only redraw the table and the plot from the finished runs.
        overwrite: Train every run from the start, replacing finished runs
            and runs under way instead of reusing or resuming them.
        jit_compile: Compile with XLA.

    Returns:
        The markdown table.
    """
    import keras

    if plan not in PLANS:
        raise UsageError(f"unknown plan {plan!r}; choose one of: {', '.join(PLANS)}")
    chosen = PLANS[plan]
    models = list(models or chosen.models)
    for model in models:
        if model not in PAPER_MODELS:
            raise UsageError(f"unknown model {model!r} in --models; choose from {', '.join(PAPER_MODELS)}")
    for task in tasks:
        if task not in TASKS:
            raise UsageError(f"unknown task {task!r} in --tasks; choose from {', '.join(TASKS)}")
    output = files.writable_dir(output_dir or f"runs/reproduce-{plan}")
    ledger = pathlib.Path(results_file) if results_file else output / "results.json"
    files.writable_dir(ledger.parent, flag="--results-file")
    recorded = read_results(ledger)
    runs, start = [], time.perf_counter()
    for task in tasks:
        for model in models:
            memory, lstm_layers = model_kind(model)
            for learning_rate in learning_rates:
                for seed in seeds:
                    run_dir = output / f"{task}-{model}" / f"lr{learning_rate:g}-seed{seed}"
                    config = RunConfig(
                        task, memory=memory, lstm_layers=lstm_layers, scale=chosen.data_scale,
                        hidden_size=hidden_size, memory_width=memory_width, learning_rate=learning_rate,
                        epochs=epochs or chosen.epochs, steps_per_epoch=steps_per_epoch or chosen.steps_per_epoch,
                        stop_at_coarse=stop_at_coarse, validation_examples=validation_examples,
                        eval_examples=eval_examples, seed=seed,
                        output_dir=str(run_dir), overwrite=overwrite, jit_compile=jit_compile, verbose=0,
                    ).resolved()  # fmt: skip
                    run = None if overwrite else _recorded_run(config, recorded)
                    if run is None:
                        if redraw:
                            run = training.finished_run(config)
                        else:
                            keras.backend.clear_session()  # free the previous run's graphs and compilations
                            run = training.train(config)
                            _report({**run, "plan_model": model})
                        if run is not None:
                            recorded = record_results(ledger, [{**run, "plan_model": model}])
                    if run is not None:
                        runs.append({**run, "plan_model": model})
    if not runs:
        raise UsageError(f"no finished runs in {str(output)!r} or {str(ledger)!r} to draw a table from; "
                         "run without --redraw first")
    minutes = (time.perf_counter() - start) / 60
    table = markdown_table(runs)
    header = (
        f"Measured by `neural-memory reproduce --plan {plan}` ({len(runs)} runs; this call took {minutes:.0f} minutes); "
        f"train lengths {runs[0]['train_lengths'][0]}-{runs[0]['train_lengths'][1]}, "
        f"test lengths {runs[0]['test_lengths'][0]}-{runs[0]['test_lengths'][1]}. "
        "The paper's column is at its own scale (train 8-64, test 65-128, hidden 256/512, best of a grid)."
    )
    files.write_atomically(output / "results.md", header + "\n\n" + table + "\n")
    plot_convergence(runs, output / "convergence.png")
    print("\n" + table)
    print(f"\ntable: {output / 'results.md'}\nplot: {output / 'convergence.png'}\nresults: {ledger}")
    return table


def read_results(path):
    """The finished runs recorded in the results file `path` (none if it does not exist yet)."""
    path = pathlib.Path(path)
    if not path.is_file():
        return []
    try:
        runs = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{str(path)!r} is not a results file ({error}); pass another --results-file") from None
    if not isinstance(runs, list) or not all(isinstance(run, dict) and "settings" in run for run in runs):
        raise UsageError(f"{str(path)!r} is not a results file (a JSON list of finished runs); pass another --results-file")
    return runs


def record_results(path, new_runs):
    """Adds `new_runs` to the results file `path`, each replacing any run of the same settings.

    The file is read again and replaced atomically under a lock, so that
    several processes (say, the rows of a table sharing one GPU) can record
    into the same file. Returns every run the file now holds.
    """
    with files.locked(path):
        runs = read_results(path)
        for new in new_runs:
            runs = [run for run in runs if run["settings"] != new["settings"]] + [new]
        files.write_atomically(path, json.dumps(runs, indent=2))
    return runs


def _recorded_run(config, recorded):
    """The run of the resolved `config`'s settings among the `recorded` runs, or None."""
    settings = config.settings()
    return next((run for run in recorded if run["settings"] == settings), None)


def _report(run):
    task, model, learning_rate, seed = run["task"], run["plan_model"], run["learning_rate"], run["seed"]
    if run["diverged"]:
        print(f"{task:24s} {model:6s} lr {learning_rate:g} seed {seed}: diverged (NaN loss)", flush=True)
    else:
        test = run["test_accuracy"]
        print(f"{task:24s} {model:6s} lr {learning_rate:g} seed {seed}: test coarse {test['coarse']:.2f} "
              f"fine {test['fine']:.2f} ({run['train_seconds']:.0f} s)", flush=True)
