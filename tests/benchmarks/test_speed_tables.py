"""The speed record: `throughput.py`, `memory_scan.py` and `profile_scan.py` add its rows, `speed_tables.py` its page."""

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import speed_tables  # noqa: E402
from marked_part import markers  # noqa: E402

MACHINE = "Example CPU (x86_64, 2 cores)"
VERSIONS = {"keras": "3.0.0", "tensorflow": "2.0.0", "jax": "0.4.0", "python": "3.11.0"}


def _row(benchmark, command, repetition, args, results, backend="jax"):
    return {"benchmark": benchmark, "command": command, "backend": backend, "machine": MACHINE,
            "repetition": repetition, "versions": VERSIONS, "date": "2026-01-01", "args": args,
            "results": results}  # fmt: skip


def _throughput(repetition, length, lstm2, stack, steps=20):
    args = {"models": "lstm2,stack", "hidden": 256, "width": 256, "batch": 10, "length": length, "steps": steps,
            "warmup": 3, "repeats": 3, "jit_compile": True, "json": None, "record": "docs/results/speed_runs.json"}  # fmt: skip
    results = {"lstm2 (XLA)": {"batches_per_s": lstm2, "all_rates": [lstm2] * 3, "params": 896388},
               "stack (XLA)": {"batches_per_s": stack, "all_rates": [stack] * 3, "params": 765318}}  # fmt: skip
    command = f"python benchmarks/throughput.py --models lstm2,stack --length {length}"
    return _row("throughput", command, repetition, args, results)


def test_the_page_gives_both_runs_of_every_command_and_names_the_baselines_size():
    memory = _row(
        "memory_scan", "python benchmarks/memory_scan.py --models lstm2,stack,queue --lengths 1027", 1,
        {"models": "lstm2,stack,queue", "lengths": "1027", "batch": 10, "hidden": 256, "width": 256, "steps": 3},
        {"lstm2@1027": {"seconds_per_step": 0.6, "peak_mib": 800.0, "params": 896388},
         "stack@1027": {"seconds_per_step": 0.8, "peak_mib": 880.0, "params": 765318},
         "queue@1027": {"error": "out of memory"}},
    )  # fmt: skip
    phases = {"controller + heads forward": 15.0, "rest of the model (embedding, dense, loss)": 5.0}
    profile = [
        _row("profile_scan", "python benchmarks/profile_scan.py --memory stack", repetition,
             {"memory": "stack", "path": "fast", "length": 131, "steps": 5, "batch": 10, "hidden": 256, "width": 256},
             {"wall_ms_per_step": wall, "operations_ms_per_step": 20.0, "phases": phases, "loop_copies": []})
        for repetition, wall in ((1, 25.0), (2, 26.0))
    ]  # fmt: skip
    rows = [_throughput(1, 131, 10.0, 16.0), _throughput(2, 131, 12.0, 18.0), _throughput(1, 1027, 2.0, 1.6, 3),
            memory, *profile]  # fmt: skip
    page = speed_tables.report(rows)
    # The headline: the baseline's rate and size in the sentence of each ratio.
    assert ("With JAX on Example CPU (x86_64, 2 cores), at T = 131 the 2-layer `keras.layers.LSTM(256)` baseline"
            " (896,388 parameters) trains at 10.00-12.00 batches/s; against it, the Stack-LSTM (765,318 parameters)"
            " at 1.50-1.60x its speed.") in page  # fmt: skip
    assert ("At T = 1027 with JAX, against the 2-layer `keras.layers.LSTM(256)` (896,388 parameters), the Stack-LSTM"
            " (765,318 parameters) takes 1.25x (1 run) its time per step and uses 1.10x (1 run) its peak memory.") in page  # fmt: skip
    # T = 131: the two repetitions side by side.
    assert "JAX (Keras 3.0.0, JAX 0.4.0) on Example CPU (x86_64, 2 cores); batch 10, hidden 256, memory width 256" in page
    assert "`KERAS_BACKEND=jax python benchmarks/throughput.py --models lstm2,stack --length 131` (2 runs)" in page
    assert "| 2-layer LSTM | 896,388 | 10.00, 12.00 | 1.00x, 1.00x |" in page
    assert "| Stack-LSTM | 765,318 | 16.00, 18.00 | 1.60x, 1.50x |" in page
    # T = 1027: one run of each command, so every cell is that run's.
    assert "| Stack-LSTM | 765,318 | 1.60 | 0.80x | 1.25x | 880 | 1.10x |" in page
    assert "| Queue-LSTM | – | – | – | – | – (1 failed) | – |" in page
    # The profile: both runs of each phase.
    assert "Wall time per step 25.00, 26.00 ms, of which operations 20.00, 20.00 ms" in page
    assert "| controller + heads forward | 15.00, 15.00 | 75.0%, 75.0% |" in page


def test_a_record_without_measurements_says_what_to_run():
    statement = speed_tables.report([])
    assert statement.startswith("No measurement in the record yet: run `KERAS_BACKEND=jax python benchmarks/throughput.py")
    assert "\n" not in statement and all(command in statement for command in speed_tables.COMMANDS)


def test_the_page_holds_what_the_record_gives():
    ((page, writer, part, _),) = speed_tables.page_parts()
    assert part == speed_tables.report(json.loads((ROOT / speed_tables.RECORD).read_text()))
    begin, end = markers(writer)
    assert f"{begin}\n\n{part.rstrip()}\n{end}\n" in page.read_text(encoding="utf-8"), "run python benchmarks/speed_tables.py"


def test_two_runs_of_throughput_are_repetitions_1_and_2_of_one_machine(tmp_path):
    record = tmp_path / "speed_runs.json"
    command = ["benchmarks/throughput.py", "--models", "lstm2,stack", "--hidden", "8", "--width", "8", "--length", "9",
               "--steps", "1", "--warmup", "1", "--repeats", "1", "--record", str(record)]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    for _ in range(2):
        run = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, env=environment)
        assert run.returncode == 0, run.stderr[-3000:]
    rows = json.loads(record.read_text())
    assert [r["repetition"] for r in rows] == [1, 2]
    assert {r["command"] for r in rows} == {"python " + " ".join(command)}
    assert len({r["machine"] for r in rows}) == 1 and "cores" in rows[0]["machine"]
    assert rows[0]["versions"]["keras"] and rows[0]["args"]["length"] == 9
    assert set(rows[0]["results"]) == {"lstm2 (XLA)", "stack (XLA)"}
    page = speed_tables.report(rows)
    stack = next(line for line in page.splitlines() if line.startswith("| Stack-LSTM |"))
    assert stack.count("x, ") == 2, stack  # the speed and step-time ratios of both runs
    assert "(2 runs)" in page and rows[0]["machine"] in page
