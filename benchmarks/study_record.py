"""The record of a study script (`deque_study.py`, `itg_study.py`): its runs, kept in one JSON file.

A study trains many runs, each identified by a key of its row; the record
keeps the latest row of every key. Two instances of a study (say, one
task on each core) may share a record: each merges its new row into what
is on disk, and writes atomically. The measuring scripts
(`chomsky_cost.py`, `memory_growth.py`) open their records with
`provenance`: the command, backend, device and date of the measurement.
"""

import datetime
import json
import os
import platform
import sys

import keras

from keras_neural_memory.experiments.common import LEARNS_AT, learns
from keras_neural_memory.experiments.config import SCALES
from keras_neural_memory.experiments.run_folder import locked, write_atomically
from keras_neural_memory.experiments.training import device_description
from speed_tables import command_line
#: Every study's protocol: the scale, batches per epoch, and the stopping rule (held-out coarse
#: accuracy at training lengths, on this many strings, at two consecutive epochs).
SCALE, STOP_AT, VALIDATION_EXAMPLES = "default", 1.0, 200
#: Batches per epoch at each scale a study runs at: the default scale's, and the paper-scale table's
#: (`paper_table.sh`).
STEPS = {"default": 100, "paper": 250}
STEPS_PER_EPOCH = STEPS[SCALE]


def provenance(script, argv=None):
    """Where and how a measuring script ran: the first keys of its record.

    Args:
        script: The script's path, e.g. "benchmarks/chomsky_cost.py"; the
            command names it from the repository's root.
        argv: Its arguments (without the program's name); `sys.argv[1:]` by
            default.

    Returns:
        A dict of the command, the Keras backend, the device, the CPU count,
        the platform and the date.

    >>> record = provenance("benchmarks/chomsky_cost.py", ["--models", "lstm"])
    >>> record["command"], sorted(record)
    ('python benchmarks/chomsky_cost.py --models lstm', ['backend', 'command', 'cpus', 'date', 'device', 'platform'])
    """
    return {
        "command": command_line([script, *(sys.argv[1:] if argv is None else argv)]),
        # The backend Keras loaded (from `KERAS_BACKEND` or keras.json), as `speed_tables` records it.
        "backend": keras.backend.backend(),
        "device": device_description(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "date": datetime.date.today().isoformat(),
    }


def read_rows(path):
    """The rows of the record at `path` (a `pathlib.Path`); none if it does not exist."""
    return json.loads(path.read_text()) if path.exists() else []


def add_row(path, row, key):
    """Writes `row` into the record at `path`, replacing the row of the same `key(row)`; returns every row.

    The read, merge and write hold the record's lock, so that rows that
    processes sharing the record add at the same time are all kept.
    """
    with locked(path):
        rows = {key(r): r for r in read_rows(path)} | {key(row): row}
        write_atomically(path, json.dumps(list(rows.values()), indent=1) + "\n")
    return list(rows.values())


def span(values, digits=3):
    """`low-high` of `values`, or the one value.

    >>> span([0.5, 0.25]), span([1.0, 1.0])
    ('0.250-0.500', '1.000')
    """
    low, high = min(values), max(values)
    return f"{low:.{digits}f}" if low == high else f"{low:.{digits}f}-{high:.{digits}f}"


def budgets(rows, steps_per_epoch):
    """The runs' budgets in batches, "6,000" or "2,000/6,000"."""
    return "/".join(f"{b:,}" for b in sorted({r["settings"]["epochs"] * steps_per_epoch for r in rows}))


def learned_row(runs):
    """The table cells every study gives a group of runs: learned, batches, train and test coarse accuracy."""
    batches = sorted(r["batches"] for r in runs)
    learned = sum(learns(r["test_coarse"]) for r in runs)
    return (
        f"{learned} / {len(runs)} ({seeds_text(r['seed'] for r in runs)}) |"
        f" {batches[len(batches) // 2]:,} ({batches[0]:,}-{batches[-1]:,}) |"
        f" {span([r['train_coarse'] for r in runs])} | {span([r['test_coarse'] for r in runs])}"
    )


def rate_text(rate):
    """A learning rate as the pages write it: 0.005 as "5e-3", 0.0025 as "2.5e-3"."""
    mantissa, exponent = f"{rate:e}".split("e")
    return f"{float(mantissa):g}e{int(exponent)}"


def seeds_text(seeds, named=True):
    """Seeds as the pages write them: sorted, three or more consecutive ones as a range.

    `named=False` leaves out the word "seed(s)", for a table's seeds column.

    >>> seeds_text([0]), seeds_text([1, 0]), seeds_text(range(5)), seeds_text([0, 1, 2, 5, 7], named=False)
    ('seed 0', 'seeds 0,1', 'seeds 0-4', '0-2,5,7')
    """
    seeds, parts = sorted(set(seeds)), []
    if not seeds:
        raise ValueError("seeds_text needs at least one seed")
    start = seeds[0]
    for previous, seed in zip(seeds, seeds[1:] + [None]):
        if seed is None or seed != previous + 1:  # the end of a consecutive run
            parts += [f"{start}-{previous}"] if previous - start >= 2 else list(map(str, range(start, previous + 1)))
            start = seed
    word = ("seed " if len(seeds) == 1 else "seeds ") if named else ""
    return word + ",".join(parts)


def runs_text(count):
    """A count of runs as the pages write it: "1 run", "3 runs"."""
    return f"{count} run" if count == 1 else f"{count} runs"


def protocol(rows, strings="strings", symbols=True, scale=SCALE):
    """The sentence that opens a study's page: sizes, optimiser, stopping rule, budgets and the bar for *learns*.

    Args:
        rows: The study's rows at `scale` (for the budgets).
        strings: What the task's examples are called ("strings", "sentences").
        symbols: Whether to name the scale's vocabulary (a study that varies it does not).
        scale: "default" or "paper".
    """
    steps, sizes = STEPS[scale], SCALES[scale]
    vocabulary = f" {sizes['vocab']} symbols," if symbols else ""
    rates = sorted({r["settings"]["learning_rate"] for r in rows}, reverse=True)
    others = f" ({', '.join(map(rate_text, rates[1:]))} in the conditions named so)" if len(rates) > 1 else ""
    return (
        f"{scale.capitalize()} scale: training {strings} of length {sizes['train'][0]}-{sizes['train'][1]}, test"
        f" {sizes['test'][0]}-{sizes['test'][1]},{vocabulary} LSTM {sizes['hidden']}, memory width {sizes['width']};"
        f" RMSProp {rate_text(rates[0])}{others}, batch 10. Each run stops once its coarse accuracy on {VALIDATION_EXAMPLES} held-out"
        f" training-length {strings} reaches {STOP_AT} at two consecutive epochs of {steps} batches, or at"
        f" its budget of {budgets(rows, steps)} batches. Accuracy on 500 fresh {strings}; a run *learns*"
        f" the task when its test coarse accuracy is at least {LEARNS_AT}."
    )
