"""The speed record, `docs/results/speed_runs.json`, and the measured part of the speed page.

`throughput.py`, `memory_scan.py` and `profile_scan.py` each add one row to
the record per run (`add_run`). `report(rows)` gives the measured part of
`docs/results/speed.md`, its headline figures and tables, from the record
alone; `python benchmarks/speed_tables.py` writes it between its markers
and keeps the page's hand-written text around them.

A row of the record:

* `benchmark`: "throughput", "memory_scan" or "profile_scan";
* `command`: the command line as typed, `python benchmarks/NAME.py ...`;
* `backend`, `machine` (the CPU, its cores, and the accelerators the
  backend sees), `versions` (Keras, TensorFlow, JAX, Python), `date` (UTC);
* `repetition`: 1 for the first run of a command on a backend and a
  machine, 2 for the second, and so on;
* `args`: the script's arguments;
* `results`: what the script measures. `throughput`: per model label
  ("stack (XLA)"), `batches_per_s` (the median of the rounds), `all_rates`
  (every round's) and `params`. `memory_scan`: per "MODEL@LENGTH",
  `seconds_per_step`, `peak_mib` and `params`, or `error`. `profile_scan`:
  `wall_ms_per_step`, `operations_ms_per_step`, `phases` (ms per step of
  each phase) and `loop_copies`.

The module imports no Keras and sets no backend, so that reading the
record costs nothing; `add_run` imports Keras, which the script that calls
it has loaded already.

Usage:
    python benchmarks/speed_tables.py [--record docs/results/speed_runs.json] [--output docs/results/speed.md]
"""

import argparse
import datetime
import importlib.metadata
import pathlib
import platform
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
RECORD = "docs/results/speed_runs.json"
PAGE = ROOT / "docs" / "results" / "speed.md"
WRITER = "benchmarks/speed_tables.py"
TITLE = "# Speed and memory against length"
PAPER_LENGTH = 131

#: The commands that fill the record, each run twice (two repetitions).
COMMANDS = [
    "KERAS_BACKEND=jax python benchmarks/throughput.py --models lstm2,stack,queue,deque",
    "KERAS_BACKEND=tensorflow python benchmarks/throughput.py --models lstm2,stack,queue,deque",
    "KERAS_BACKEND=jax python benchmarks/throughput.py --models lstm2,stack,queue,deque --length 1027 --steps 3 --warmup 1",
    "KERAS_BACKEND=tensorflow python benchmarks/throughput.py --models lstm2,stack,queue,deque --length 1027 --steps 3 --warmup 1",
    "KERAS_BACKEND=jax python benchmarks/memory_scan.py --models lstm2,stack,queue,deque --lengths 1027 --steps 3",
    "KERAS_BACKEND=tensorflow python benchmarks/memory_scan.py --models lstm2,stack,queue,deque --lengths 1027 --steps 3",
    "KERAS_BACKEND=jax python benchmarks/profile_scan.py --memory stack --length 131 --steps 5",
    "KERAS_BACKEND=jax python benchmarks/profile_scan.py --memory stack --length 1027 --steps 2",
]

BACKENDS = {"jax": "JAX", "tensorflow": "TensorFlow", "torch": "PyTorch", "numpy": "NumPy"}
MODELS = {"lstm1": "1-layer LSTM", "lstm2": "2-layer LSTM", "stack": "Stack-LSTM", "queue": "Queue-LSTM",
          "deque": "DeQue-LSTM"}  # fmt: skip
VARIANTS = {"": "", "nojit": " without XLA", "generic": " on Keras' generic loop"}


# ------------------------------------------------------------- the record


def versions():
    """The versions of Keras, TensorFlow, JAX (None where one is not installed) and Python."""
    found = {}
    for name, distributions in (
        ("keras", ["keras"]),
        ("tensorflow", ["tensorflow", "tensorflow-cpu"]),
        ("jax", ["jax"]),
    ):
        found[name] = None
        for distribution in distributions:
            try:
                found[name] = importlib.metadata.version(distribution)
                break
            except importlib.metadata.PackageNotFoundError:
                pass
    found["python"] = platform.python_version()
    return found


def command_line(argv):
    """`argv` as typed, with the script named from the repository's root: "python benchmarks/throughput.py --models ..."."""
    return shlex.join(["python", f"benchmarks/{pathlib.Path(argv[0]).name}", *argv[1:]])


def row_key(row):
    """The key a row replaces its own in the record with."""
    return row["benchmark"], row["command"], row["backend"], row["machine"], row["repetition"]


def add_run(path, benchmark, args, results, argv=None):
    """Adds the row of a run to the record at `path` and returns it; `path` "" adds nothing.

    The row's repetition is one more than the last repetition in the
    record of the same command on the same backend and machine, so that
    the two runs of a command are repetitions 1 and 2. (Two runs of one
    command at the same time would take the same number; a speed
    measurement has the machine to itself anyway.)

    Args:
        path: The record (a JSON list of rows), or "" for none. The default,
            `RECORD`, is the repository's record wherever the script runs.
        benchmark: "throughput", "memory_scan" or "profile_scan".
        args: The script's `argparse.Namespace`.
        results: What the run measured (see the module's docstring).
        argv: The command line; `sys.argv` by default.
    """
    import keras

    from keras_neural_memory.experiments.training import machine_description

    command = command_line(sys.argv if argv is None else argv)
    row = {
        "benchmark": benchmark,
        "command": command,
        "backend": keras.backend.backend(),
        "machine": machine_description(),
        "repetition": 1,
        "versions": versions(),
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "args": vars(args),
        "results": results,
    }
    if path:
        from study_record import add_row, read_rows

        path = ROOT / RECORD if path == RECORD else pathlib.Path(path)
        same = [r["repetition"] for r in read_rows(path)
                if (r["command"], r["backend"], r["machine"]) == (command, row["backend"], row["machine"])]  # fmt: skip
        row["repetition"] = max(same, default=0) + 1
        add_row(path, row, row_key)
        print(f"added repetition {row['repetition']} of `{command}` ({row['backend']}) to {path}")
    return row


# -------------------------------------------------------------- the page


def _both(values, text, most=2, unit=""):
    """Every run's figure, `text(value)` each, in the order of the runs.

    A single figure, where the table holds `most` > 1 runs, says "(1 run)";
    a table of single runs says so once, beside its command.
    """
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    return ", ".join(text(v) for v in values) + unit + (" (1 run)" if len(values) == 1 and most > 1 else "")


def _span(values, text, unit=""):
    """The figures' range, "1.62-1.64x"; "(1 run)" after a single one."""
    values = [v for v in values if v is not None]
    if len(values) == 1:
        return f"{text(values[0])}{unit} (1 run)"
    low, high = text(min(values)), text(max(values))
    return f"{low}{unit}" if low == high else f"{low}-{high}{unit}"


def _times(value):
    return f"{value:.2f}x"


def _rate(value):
    return f"{value:.2f}"


def _mib(value):
    return f"{value:,.0f}"


def _ms(value):
    return f"{value:.2f}"


def _share(value):
    return f"{value:.1f}%"


def _model_key(label):
    """The model of a `throughput.py` label ("stack (XLA)") or a `memory_scan.py` name ("stack:generic")."""
    if "(" in label:
        kind, mode = label.split(" (", 1)
        return kind if mode.startswith("XLA") else f"{kind}:nojit"
    return label


def _model_name(key):
    kind, _, variant = key.partition(":")
    return MODELS.get(kind, kind) + VARIANTS.get(variant, f" ({variant})")


def _ordered(keys):
    """Model keys in the tables' order: the LSTMs, then the Stack, Queue and DeQue; variants after their model."""
    order = list(MODELS)
    return sorted(
        set(keys), key=lambda k: (order.index(k.split(":")[0]) if k.split(":")[0] in order else len(order), k)
    )


def _runs(rows):
    return sorted(rows, key=lambda r: (r["command"], r["repetition"]))


def _shown(row):
    return f"KERAS_BACKEND={row['backend']} {row['command']}"


def _commands(rows):
    """The commands of `rows`, each with its number of runs."""
    counts = {}
    for row in _runs(rows):
        counts[_shown(row)] = counts.get(_shown(row), 0) + 1
    return "; ".join(f"`{command}` ({n} run{'s' * (n != 1)})" for command, n in counts.items())


def _versions(rows, backend):
    names = [("keras", "Keras"), (backend, BACKENDS.get(backend, backend))]
    parts = []
    for key, name in names:
        found = sorted({r["versions"].get(key) for r in rows if r["versions"].get(key)})
        if found:
            parts.append(f"{name} {'/'.join(found)}")
    return ", ".join(parts)


def _sizes(args):
    return args.get("batch"), args.get("hidden"), args.get("width")


def _setting(backend, machine, sizes, rows):
    batch, hidden, width = sizes
    return (f"{BACKENDS.get(backend, backend)} ({_versions(rows, backend)}) on {machine}; batch {batch}, hidden {hidden},"
            f" memory width {width}")  # fmt: skip


def _params(*results):
    found = sorted({r["params"] for r in results if r and "params" in r})
    return "/".join(f"{p:,}" for p in found) or "–"


def _throughput(run):
    """`{model key: (batches/s, ratio to the fastest 2-layer LSTM of the run, params)}` of a throughput row."""
    results = {_model_key(label): r for label, r in run["results"].items()}
    baselines = [r["batches_per_s"] for key, r in results.items() if key.split(":")[0] == "lstm2"]
    base = max(baselines, default=None)
    return {
        key: (r["batches_per_s"], r["batches_per_s"] / base if base else None, r["params"])
        for key, r in results.items()
    }


def _group(rows, key):
    groups = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return groups


def _throughput_groups(rows, paper_length):
    """Throughput rows grouped by (backend, machine, sizes, length), at the paper's length or at the others."""
    rows = [r for r in rows if r["benchmark"] == "throughput" and (r["args"]["length"] == PAPER_LENGTH) == paper_length]
    return _group(rows, lambda r: (r["backend"], r["machine"], _sizes(r["args"]), r["args"]["length"]))


def _paper_length_table(runs):
    measured, most = [_throughput(run) for run in _runs(runs)], len(runs)
    keys = _ordered(k for m in measured for k in m)
    lines = ["| model | parameters | batches/s | speed vs the 2-layer LSTM |", "|---|--:|--:|--:|"]
    for key in keys:
        figures = [m.get(key) for m in measured]
        lines.append(
            f"| {_model_name(key)} | {_params(*({'params': f[2]} for f in figures if f))} |"
            f" {_both([f[0] for f in figures if f], _rate, most)} | {_both([f[1] for f in figures if f], _times, most)} |"
        )
    return lines


def _rounds(runs):
    found = sorted({(r["args"]["repeats"], r["args"]["steps"]) for r in runs})
    return "; ".join(f"{repeats} interleaved round{'s' * (repeats != 1)} of {steps} steps" for repeats, steps in found)


def _headline(groups):
    """A sentence per backend at the paper's length: the baseline's rate and size, and every model's ratio to it."""
    sentences = []
    for (backend, machine, sizes, length), runs in sorted(groups.items()):
        measured = [_throughput(run) for run in _runs(runs)]
        base = [m["lstm2"] for m in measured if "lstm2" in m]
        if not base:
            continue
        others = [
            f"the {_model_name(key)} ({_params(*({'params': m[key][2]} for m in measured if key in m))} parameters) at"
            f" {_span([m[key][1] for m in measured if key in m], _rate, 'x')}"
            for key in _ordered(k for m in measured for k in m)
            if key.split(":")[0] not in ("lstm1", "lstm2")
        ]
        sentences.append(
            f"With {BACKENDS.get(backend, backend)} on {machine}, at T = {length} the 2-layer `keras.layers.LSTM({sizes[1]})`"
            f" baseline ({_params(*({'params': b[2]} for b in base))} parameters) trains at"
            f" {_span([b[0] for b in base], _rate, ' batches/s')}"
            + (f"; against it, {', '.join(others)} its speed." if others else ".")
        )
    return sentences


def _length_figures(rows):
    """Section (b)'s figures: `{(backend, machine, sizes, length): (rows, {model key: figures})}`.

    Every backend, machine, sizes and length other than the paper's with a
    `throughput.py` figure, and every one with a `memory_scan.py` figure.
    A model's figures: `rates` (batches/s), `speed` (ratio to the fastest
    2-layer LSTM), `step` (its inverse), `peaks` (MiB), `memory` (ratio to
    the 2-layer LSTM's peak), `failed` (memory runs that failed), `params`.
    """
    speed = _throughput_groups(rows, paper_length=False)
    memory = {}
    for row in _runs([r for r in rows if r["benchmark"] == "memory_scan"]):
        by_length = {}
        for entry, result in row["results"].items():
            name, length = entry.rsplit("@", 1)
            by_length.setdefault(int(length), {})[name] = result
        for length, measured in by_length.items():
            memory.setdefault((row["backend"], row["machine"], _sizes(row["args"]), length), []).append((row, measured))
    figures = {}
    for group in sorted(set(speed) | set(memory)):
        speed_runs = [_throughput(run) for run in _runs(speed.get(group, []))]
        memory_runs = memory.get(group, [])
        models = {}
        for key in _ordered([k for m in speed_runs for k in m] + [k for _, m in memory_runs for k in m]):
            rates = [m[key] for m in speed_runs if key in m]
            found = {"rates": [r[0] for r in rates], "speed": [r[1] for r in rates],
                     "step": [1 / r[1] if r[1] else None for r in rates], "peaks": [], "memory": [], "failed": 0}  # fmt: skip
            for _, measured in memory_runs:
                result, base = measured.get(key), measured.get("lstm2", {})
                if result is None:
                    continue
                if "error" in result:
                    found["failed"] += 1
                    continue
                found["peaks"].append(result["peak_mib"])
                found["memory"].append(result["peak_mib"] / base["peak_mib"] if "peak_mib" in base else None)
            found["params"] = _params(*({"params": r[2]} for r in rates), *(m.get(key) for _, m in memory_runs))
            models[key] = found
        figures[group] = (
            speed.get(group, []) + [row for row, _ in memory_runs],
            models,
            max(len(speed_runs), len(memory_runs)),
        )
    return figures


def _length_headline(figures):
    """A sentence per backend and length of section (b): each memory model's step time and peak memory against the LSTM's."""
    sentences = []
    for (backend, machine, sizes, length), (_, models, _) in figures.items():
        base = models.get("lstm2")
        clauses = []
        for key, found in models.items():
            if key.split(":")[0] in ("lstm1", "lstm2"):
                continue
            parts = []
            if any(v is not None for v in found["step"]):
                parts.append(f"takes {_span(found['step'], _rate, 'x')} its time per step")
            if any(v is not None for v in found["memory"]):
                parts.append(f"uses {_span(found['memory'], _rate, 'x')} its peak memory")
            if parts:
                clauses.append(f"the {_model_name(key)} ({found['params']} parameters) {' and '.join(parts)}")
        if base and clauses:
            sentences.append(
                f"At T = {length} with {BACKENDS.get(backend, backend)}, against the 2-layer `keras.layers.LSTM({sizes[1]})`"
                f" ({base['params']} parameters), {'; '.join(clauses)}."
            )
    return sentences


def _length_tables(figures):
    """Section (b)'s tables: speed (`throughput.py`) and peak memory (`memory_scan.py`) against the 2-layer LSTM."""
    lines = []
    for (backend, machine, sizes, length), (used, models, most) in figures.items():
        lines += [
            f"**T = {length}**, {_setting(backend, machine, sizes, used)}: {_commands(used)}.",
            "",
            "| model | parameters | batches/s (`throughput.py`) | speed vs the 2-layer LSTM | step time vs the 2-layer LSTM"
            " | peak MiB (`memory_scan.py`) | memory vs the 2-layer LSTM |",
            "|---|--:|--:|--:|--:|--:|--:|",
        ]
        for key, found in models.items():
            peak = _both(found["peaks"], _mib, most) + (f" ({found['failed']} failed)" if found["failed"] else "")
            lines.append(
                f"| {_model_name(key)} | {found['params']} | {_both(found['rates'], _rate, most)} |"
                f" {_both(found['speed'], _times, most)} | {_both(found['step'], _times, most)} | {peak} |"
                f" {_both(found['memory'], _times, most)} |"
            )
        lines.append("")
    return lines


def _profile_tables(rows):
    """Section (c): the time per phase of every `profile_scan.py` setting."""
    groups = _group([r for r in rows if r["benchmark"] == "profile_scan"],
                    lambda r: (r["backend"], r["machine"], r["args"]["memory"], r["args"]["path"], r["args"]["length"],
                               _sizes(r["args"])))  # fmt: skip
    lines = []
    for (backend, machine, memory, path, length, sizes), runs in sorted(groups.items()):
        runs = _runs(runs)
        results = [r["results"] for r in runs]
        copies = sorted({c for r in results for c in r["loop_copies"]})
        lines += [
            f"**{MODELS.get(memory, memory)}, {path} path, T = {length}**, {_setting(backend, machine, sizes, runs)}:"
            f" {_commands(runs)}. Wall time per step {_both([r['wall_ms_per_step'] for r in results], _ms, len(runs), ' ms')},"
            f" of which operations {_both([r['operations_ms_per_step'] for r in results], _ms, len(runs), ' ms')}. Copies of a"
            f" (batch, slots, width) array inside a loop: {', '.join(copies) if copies else 'none'}.",
            "",
            "| phase | ms per step | share |",
            "|---|--:|--:|",
        ]
        phases = list(dict.fromkeys(label for r in results for label in r["phases"]))
        for label in phases:
            ms = [r["phases"].get(label) for r in results]
            if not any(ms):
                continue
            shares = [100 * r["phases"][label] / sum(r["phases"].values()) for r in results if label in r["phases"]]
            lines.append(f"| {label} | {_both(ms, _ms, len(runs))} | {_both(shares, _share, len(runs))} |")
        lines.append("")
    return lines


def empty_statement():
    """What the page says while the record holds no measurement."""
    return ("No measurement in the record yet: run " + ", ".join(f"`{c}`" for c in COMMANDS)
            + ", each twice, then `python benchmarks/speed_tables.py`.")  # fmt: skip


def report(rows):
    """The measured part of the speed page, from the record's `rows` alone."""
    if not rows:
        return empty_statement()
    paper, against = _throughput_groups(rows, paper_length=True), _length_figures(rows)
    headline = _headline(paper) + _length_headline(against)
    lines = [" ".join(headline), ""] if headline else []
    if paper:
        lines += [f"## At the paper's length, T = {PAPER_LENGTH}", ""]
        for (backend, machine, sizes, _), runs in sorted(paper.items()):
            lines += [f"{_setting(backend, machine, sizes, runs)}; {_rounds(runs)}, median: {_commands(runs)}.", ""]
            lines += _paper_length_table(runs) + [""]
    if against:
        lines += ["## Against length", "", *_length_tables(against)]
    profiles = _profile_tables(rows)
    if profiles:
        lines += ["## Where the time goes", "", *profiles]
    return "\n".join(lines).rstrip() + "\n"


def page_parts(record=ROOT / RECORD, page=PAGE):
    """`[(page, writer, part, title)]`, `marked_part.write_part`'s arguments: this script's part of `page`, from `record` alone (default: the committed one)."""
    from study_record import read_rows

    return [(pathlib.Path(page), WRITER, report(read_rows(pathlib.Path(record))), TITLE)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", default=str(ROOT / RECORD))
    parser.add_argument("--output", default=str(PAGE))
    args = parser.parse_args(argv)
    from marked_part import write_part

    for part in page_parts(args.record, args.output):
        write_part(*part)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
