"""The keras-tuner grid script in its quick mode."""

import importlib.util
import pathlib

import keras_tuner as kt
import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tuning" / "run_grid.py"


def _run_grid():
    spec = importlib.util.spec_from_file_location("run_grid", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_quick_grid_runs_every_trial_and_resumes(tmp_path, capsys):
    run_grid = _run_grid()
    args = ["--quick", "--task", "sequence_reversal", "--directory", str(tmp_path), "--project", "p"]
    best = run_grid.main(args + ["--overwrite"])
    assert best["model"] in ("lstm1", "stack") and best["hidden_size"] == 16
    oracle = kt.GridSearch(
        run_grid.TransducerHyperModel(8, 8, models=("lstm1", "stack"), hidden_sizes=(16,), learning_rates=(5e-3,)),
        objective=kt.Objective("val_coarse_accuracy", direction="max"),
        directory=str(tmp_path),
        project_name="p",
    ).oracle
    trials = oracle.get_best_trials(10)
    assert len(trials) == 2
    assert all(0.0 <= t.score <= 1.0 for t in trials)
    assert oracle.objective.direction == "max"
    capsys.readouterr()
    run_grid.main(args)  # no --overwrite: resumes, and says so
    assert "resuming the existing tuning project" in capsys.readouterr().out
