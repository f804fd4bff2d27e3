"""`benchmarks/gpu_check.sh`: its report on any machine, and its failures recorded, not fatal."""

import importlib.util
import os
import pathlib
import platform
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gpu_check.sh"
MODELS = ["2-layer LSTM", "Stack-LSTM", "Queue-LSTM", "DeQue-LSTM"]


def gpu_check(outdir, *args, timeout=600, **env):
    environment = {**os.environ, "PYTHON": sys.executable, **env}
    return subprocess.run(
        ["bash", str(SCRIPT), *args, str(outdir)], capture_output=True, text=True, timeout=timeout, env=environment
    )


def helper():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def section(report, title):
    return report.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.slow
def test_quick_check_reports_devices_versions_tests_and_timings(tmp_path):
    # A doubled budget, so that a slow machine does not time a part out: the
    # limits only stop parts that run long, and this one fails on any.
    run = gpu_check(tmp_path, "--quick", GPU_CHECK_BUDGET="480")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = (tmp_path / "gpu_check.md").read_text()
    assert run.stdout.rstrip().endswith(f"report in {tmp_path}/gpu_check.md; exit status 0")
    assert "every part passed" in report and re.search(r"Date: \d{4}-\d\d-\d\d", report)

    devices = section(report, "Devices")
    for backend in ("TensorFlow", "JAX"):
        (listed,) = re.findall(rf"^\| {backend} \| (.+) \|$", devices, re.M)
        assert "cpu" in listed.lower() and "unknown" not in listed

    import jax
    import keras
    import tensorflow as tf

    versions = section(report, "Versions")
    for package, version in [("python", platform.python_version()), ("keras", keras.__version__),
                             ("tensorflow", tf.__version__), ("jax", jax.__version__)]:  # fmt: skip
        assert f"| {package} | {version} |" in versions

    tests = section(report, "Tests")
    for backend in ("TensorFlow", "JAX"):
        assert re.search(rf"^\| {backend} \| [1-9]\d* \| 0 \| \d+ \| \d+ s \| passed \|$", tests, re.M), tests

    timings = section(report, "Training speed")
    for backend in ("TensorFlow", "JAX"):
        table = timings.split(f"### {backend}\n", 1)[1].split("\n### ", 1)[0]
        assert "T=16 batches/s" in table and "T=64 batches/s" in table
        for model in MODELS:
            (row,) = re.findall(rf"^\| {model}.*\|$", table, re.M)
            assert "n/a" not in row and re.search(r"\| \d+\.\d\dx \|", row), row
        assert re.search(r"^\| 2-layer LSTM \(baseline\) \| [\d.]+ \| 1\.00x \|", table, re.M)


def test_parts_without_time_are_recorded_and_fail_the_check(tmp_path):
    run = gpu_check(tmp_path, "--quick", GPU_CHECK_BUDGET="5")
    assert run.returncode == 1
    report = (tmp_path / "gpu_check.md").read_text()
    assert "**FAILED**: devices (tensorflow), devices (jax), tests (tensorflow, xla)" in report
    assert report.count("skipped: the check's time budget (5 s) was spent") == 2 + 2 + 4
    assert all(model in report for model in MODELS)


def test_a_python_without_the_package_is_named_in_one_line(tmp_path):
    bare = tmp_path / "bare-python"
    # Isolated and without site-packages: keras_neural_memory cannot be imported.
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    bare.chmod(0o755)
    run = gpu_check(tmp_path / "out", PYTHON=str(bare))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1
    assert f"cannot import keras_neural_memory with {bare} (ModuleNotFoundError" in run.stderr
    assert 'pip install -e ".[test]"' in run.stderr


@pytest.mark.parametrize("args", [[], ["--quick", "a", "b"], ["--fast"]])
def test_usage(args):
    run = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.startswith("usage: bash benchmarks/gpu_check.sh [--quick] OUTDIR")


def test_a_timed_out_test_run_counts_what_it_finished(tmp_path):
    (tmp_path / "tests-jax-other.status").write_text("124 150 150\n")
    (tmp_path / "tests-jax-other.log").write_text(
        "tests/core/test_cells.py::test_a PASSED [ 1%]\n"
        "tests/core/test_cells.py::test_b[StackCell] FAILED [ 2%]\n"
        "tests/core/test_cells.py::test_c SKIPPED (why) [ 3%]\n"
    )
    (tmp_path / "tests-jax-xla.status").write_text("1 60 150\n")
    (tmp_path / "tests-jax-xla.log").write_text(
        "FAILED tests/core/test_fused_scan.py::test_x - AssertionError\n"
        "============= 1 failed, 4 passed, 86 deselected in 58.20s =============\n"
    )
    gpu_check = helper()
    failures = gpu_check.report(str(tmp_path), "full", 200, "bash benchmarks/gpu_check.sh out")
    assert "tests (jax, other)" in failures and "tests (jax, xla)" in failures
    report = (tmp_path / "gpu_check.md").read_text()
    assert "| JAX | 5 | 2 | 1 | 210 s | FAILED |" in report
    assert "JAX, other tests: 1 passed, 1 failed, 1 skipped; timed out after 150 s (limit 150 s)." in report
    assert "failed: `tests/core/test_fused_scan.py::test_x`" in report
