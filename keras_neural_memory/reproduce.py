"""`neural-memory reproduce`: the results table of Grefenstette et al. 2015.

Trains every (task, model) pair of a plan with `neural-memory train`'s code
path and writes, to `--output-dir`:

* `results.md`: a markdown table of the measured coarse/fine accuracy at
  training and at test lengths, beside the paper's test numbers;
* `convergence.png`: training coarse accuracy against batches, memory
  models against LSTMs (the paper's Figure 2b), one panel per task;
* `results.json` and one `train` output folder per run.
"""

import argparse
import json
import math
import os
import time

TASKS = ("sequence_copy", "sequence_reversal", "bigram_flip", "itg_svo_sov", "itg_gender_conjugation")
ALL_MODELS = ("stack", "queue", "deque", "lstm1", "lstm2", "lstm4", "lstm8")

# What each plan trains. "quick" is the documented subset: every task, the
# three memories and the parameter-matched 2-layer LSTM, at the default data
# scale (lengths 8-16, test 17-32, 32 symbols) and 1,500 batches each.
PLANS = {
    "quick": dict(data_scale="default", models=("stack", "queue", "deque", "lstm2"), epochs=15, steps=100),
    "default": dict(data_scale="default", models=ALL_MODELS, epochs=30, steps=100),
    "paper": dict(data_scale="paper", models=ALL_MODELS, epochs=100, steps=1000),
}

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
    their own (training coarse accuracy at least `CONVERGED` at two
    consecutive epochs).
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
    coarse = run["history"].get("coarse_accuracy", [])
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

    One curve per model: its selected run (`select`).
    """
    from matplotlib.figure import Figure

    from keras_neural_memory import viz

    runs = select(runs)
    tasks = list(dict.fromkeys(run["task"] for run in runs))
    figure = Figure(figsize=(3.2 * len(tasks), 3), layout="constrained")
    axes = figure.subplots(1, len(tasks), sharey=True, squeeze=False)[0]
    for axis, task in zip(axes, tasks):
        task_runs = [r for r in runs if r["task"] == task]
        viz.plot_convergence(
            {r["plan_model"]: r["history"] for r in task_runs},
            metric="coarse_accuracy",
            steps_per_epoch={r["plan_model"]: r["steps_per_epoch"] for r in task_runs},
            title=task,
            axis=axis,
        )
        axis.set_ylabel("")
        if axis is not axes[-1]:
            axis.get_legend().remove()
    axes[0].set_ylabel("training coarse accuracy")
    temporary = path.with_name(f".tmp-{path.name}")
    figure.savefig(temporary, dpi=110, format="png")
    os.replace(temporary, path)


def _run(args, plan, task, model, learning_rate, seed, run_dir):
    """Trains (or, when finished, reads) one run of the grid; None if `--redraw` finds it unfinished."""
    import keras

    from keras_neural_memory import cli

    if args.redraw:
        path = run_dir / "results.json"
        return {**json.loads(path.read_text()), "plan_model": model} if path.is_file() else None
    memory = "lstm" if model.startswith("lstm") else model
    run_args = argparse.Namespace(
        task=task,
        memory=memory,
        lstm_layers=int(model[4:]) if memory == "lstm" else 1,
        controller="lstm",
        scale=plan["data_scale"],
        hidden_size=args.hidden_size,
        memory_width=args.memory_width,
        learning_rate=learning_rate,
        batch_size=10,
        epochs=args.epochs or plan["epochs"],
        steps_per_epoch=args.steps_per_epoch or plan["steps"],
        stop_at_coarse=args.stop_at_coarse,
        eval_examples=args.eval_examples,
        seed=seed,
        output_dir=str(run_dir),
        overwrite=args.overwrite,
        jit_compile=args.jit_compile,
        verbose=0,
    )
    keras.backend.clear_session()  # free the previous run's graphs and compilations
    run = {**cli.train_run(run_args), "plan_model": model}
    if run["diverged"]:
        print(f"{task:24s} {model:6s} lr {learning_rate:g} seed {seed}: diverged (NaN loss)", flush=True)
    else:
        test = run["test_accuracy"]
        print(f"{task:24s} {model:6s} lr {learning_rate:g} seed {seed}: test coarse {test['coarse']:.2f} "
              f"fine {test['fine']:.2f} ({run['train_seconds']:.0f} s)", flush=True)
    return run


def cmd_reproduce(args):
    from keras_neural_memory import cli

    plan = PLANS[args.scale]
    models = args.models.split(",") if args.models else list(plan["models"])
    tasks = args.tasks.split(",") if args.tasks else list(TASKS)
    for model in models:
        if model not in ALL_MODELS:
            raise cli.CliError(f"unknown model {model!r} in --models; choose from {', '.join(ALL_MODELS)}")
    for task in tasks:
        if task not in TASKS:
            raise cli.CliError(f"unknown task {task!r} in --tasks; choose from {', '.join(TASKS)}")
    output = cli.writable_dir(args.output_dir or f"runs/reproduce-{args.scale}")
    runs, start = [], time.perf_counter()
    for task in tasks:
        for model in models:
            for learning_rate in args.learning_rates:
                for seed in args.seeds:
                    run = _run(args, plan, task, model, learning_rate, seed, output / f"{task}-{model}" / f"lr{learning_rate:g}-seed{seed}")
                    if run is not None:
                        runs.append(run)
    if not runs:
        raise cli.CliError(f"no finished runs in {str(output)!r} to draw a table from; run without --redraw first")
    minutes = (time.perf_counter() - start) / 60
    table = markdown_table(runs)
    header = (
        f"Measured by `neural-memory reproduce --scale {args.scale}` ({len(runs)} runs; this call took {minutes:.0f} minutes); "
        f"train lengths {runs[0]['train_lengths'][0]}-{runs[0]['train_lengths'][1]}, "
        f"test lengths {runs[0]['test_lengths'][0]}-{runs[0]['test_lengths'][1]}. "
        "The paper's column is at its own scale (train 8-64, test 65-128, hidden 256/512, best of a grid)."
    )
    cli.write_atomically(output / "results.md", header + "\n\n" + table + "\n")
    cli.write_atomically(output / "results.json", json.dumps(runs, indent=2))
    plot_convergence(runs, output / "convergence.png")
    print("\n" + table)
    print(f"\ntable: {output / 'results.md'}\nplot: {output / 'convergence.png'}")
    return 0


def _list_of(item_type):
    """argparse type: a comma-separated list of `item_type`."""

    def parse(text):
        return [item_type(item) for item in text.split(",")]

    return parse


def add_parser(sub):
    from keras_neural_memory import cli

    reproduce = sub.add_parser("reproduce", help="run the paper's results table and its convergence plot")
    reproduce.add_argument(
        "--scale", choices=tuple(PLANS), default="quick",
        help="the plan: quick = the three memories and the 2-layer LSTM at the default data scale, 1,500 batches "
        "per run; default = every model, 3,000 batches; paper = every model at the paper's sizes (§4), 100,000 "
        "batches (--epochs and --steps-per-epoch override the batches)",
    )  # fmt: skip
    reproduce.add_argument("--tasks", help=f"comma-separated subset of {','.join(TASKS)}")
    reproduce.add_argument("--models", help=f"comma-separated subset of {','.join(ALL_MODELS)}")
    reproduce.add_argument("--hidden-size", type=cli.positive_int)
    reproduce.add_argument("--memory-width", type=cli.positive_int)
    reproduce.add_argument("--learning-rates", "--learning-rate", dest="learning_rates", type=_list_of(cli.positive_float),
                           default=[5e-3], help="comma-separated grid, from the paper's {5e-3,1e-3,5e-4,1e-4,5e-5}")
    reproduce.add_argument("--epochs", type=cli.positive_int)
    reproduce.add_argument("--steps-per-epoch", type=cli.positive_int)
    reproduce.add_argument("--stop-at-coarse", type=cli.unit_float, metavar="ACCURACY",
                           help="stop each run once training coarse accuracy reaches ACCURACY at two consecutive epochs")
    reproduce.add_argument("--eval-examples", type=cli.positive_int, default=500)
    reproduce.add_argument("--seeds", "--seed", dest="seeds", type=_list_of(int), default=[0], help="comma-separated seeds")
    reproduce.add_argument("--output-dir", help="default: runs/reproduce-SCALE")
    reproduce.add_argument("--redraw", action="store_true", help="only redraw the table and plot from the finished runs")
    reproduce.add_argument("--overwrite", action="store_true", help="retrain finished runs instead of reusing them")
    reproduce.add_argument("--jit-compile", action=argparse.BooleanOptionalAction, default=True)
    reproduce.set_defaults(run=cmd_reproduce)
