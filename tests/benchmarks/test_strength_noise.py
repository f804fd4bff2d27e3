"""`benchmarks/strength_noise.py`: its page parts, written from its record."""

import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import strength_noise  # noqa: E402


def _row(memory, noise, seed, tested, diverged=False):
    ranges = [f"{a}-{b}" for a, b in strength_noise.LENGTH_RANGES["default"]]
    accuracy = None if diverged else {name: {"coarse": tested if name == "66-128" else 1.0, "fine": 1.0, "masked": 1.0}
                                      for name in ranges}  # fmt: skip
    return {"scale": "default", "memory": memory, "strength_noise": noise, "seed": seed, "learning_rate": 5e-3,
            "epochs": 20, "batches": 5000, "examples": 500, "command": "python benchmarks/strength_noise.py",
            "segments": [], "diverged": diverged, "train_coarse": 1.0, "accuracy": accuracy, "fraction": 0.1}  # fmt: skip


def test_the_page_counts_the_runs_that_learn_at_the_papers_test_lengths_against_the_one_bar():
    rows = [_row("queue", 1.0, 0, 1.0), _row("queue", 1.0, 1, 0.95), _row("queue", 0.0, 0, 0.94),
            _row("queue", 0.0, 1, 0.0, diverged=True)]  # fmt: skip
    page = strength_noise.report(rows, "default")
    assert "- Command: `KERAS_BACKEND=jax python benchmarks/strength_noise.py`" in page
    assert "RMSProp 0.005 with clipping at 1, batch 10, 5,000 batches" in page
    assert ("Runs that learn the task (coarse accuracy at least 0.95 at lengths 66-128): "
            "queue with strength_noise 0 after 5,000 batches: 0 of 2 (seeds 0,1); "
            "queue with strength_noise 1 after 5,000 batches: 2 of 2 (seeds 0,1).") in page
    assert "| queue | 0 | 5,000 | 1 | 1.000 | diverged |" in page


@pytest.mark.slow
def test_a_run_is_trained_measured_and_recorded_with_its_fraction(tmp_path, monkeypatch):
    # Two batches, two strings per length range: the plumbing, not the learning.
    monkeypatch.setattr(strength_noise, "STEPS_PER_EPOCH", 2)
    record = tmp_path / "record.json"
    strength_noise.main(["--memories", "queue", "--noise", "1", "--seeds", "0", "--epochs", "1", "--examples", "2",
                         "--runs-dir", str(tmp_path / "runs"), "--record", str(record), "--output", ""])  # fmt: skip
    [row] = json.loads(record.read_text())
    assert row["memory"] == "queue" and row["strength_noise"] == 1.0 and row["batches"] == 2
    assert set(row["accuracy"]) == {"8-16", "18-32", "34-64", "66-128"}
    assert 0.0 <= row["fraction"] <= 0.5


def test_the_page_has_a_part_for_each_scale_the_record_holds_runs_of(tmp_path):
    record, page = tmp_path / "record.json", tmp_path / "page.md"
    assert strength_noise.page_parts(record, page) == []  # no record yet: the page keeps its text
    rows = [_row("queue", 1.0, 0, 1.0)]
    record.write_text(json.dumps(rows))
    # Only the default scale has runs: the paper scale's text stays as it is.
    [(path, writer, part, _)] = strength_noise.page_parts(record, page)
    assert (path, writer) == (page, "benchmarks/strength_noise.py --scale default")
    assert part == strength_noise.report(rows, "default")
