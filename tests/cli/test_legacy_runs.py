"""Run folders and `.keras` files written by an earlier `neural-memory train` load, resume and match as then.

They are under tests/data/legacy/; its `make_fixtures.py` says which
commands wrote them, with which version, and what `outputs.npz` holds.
Each test that trains or evaluates works on a copy.
"""

import dataclasses
import importlib.util
import json
import pathlib
import shutil

import numpy as np
import pytest

LEGACY = pathlib.Path(__file__).parents[1] / "data" / "legacy"
FINISHED = ["stack_finished", "deque_finished", "chomsky_finished"]


def _fixtures():
    """`make_fixtures.py`, for the commands that wrote the runs."""
    spec = importlib.util.spec_from_file_location("make_fixtures", LEGACY / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _command(name, folder, *extra):
    """The `train` command that wrote the run `name`, into `folder`."""
    fixtures = _fixtures()
    options = fixtures.RUNS["stack_finished" if name == "stack_interrupted" else name]
    return ["train", *options, *fixtures.COMMON, "--output-dir", str(folder), *extra]


def _copy(name, tmp_path):
    return pathlib.Path(shutil.copytree(LEGACY / name, tmp_path / name))


@pytest.mark.parametrize("name", FINISHED)
def test_a_stored_model_gives_the_outputs_it_gave_when_it_was_saved(name):
    import keras

    import keras_neural_memory  # noqa: F401  (registers the layers)

    model = keras.saving.load_model(LEGACY / name / "model.keras")
    stored = np.load(LEGACY / name / "outputs.npz")
    np.testing.assert_allclose(model.predict(stored["inputs"], verbose=0), stored["logits"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["stack_finished", "deque_finished"])
def test_train_recognises_a_stored_finished_run_and_does_not_retrain_it(name, tmp_path, capsys):
    from keras_neural_memory.experiments import cli, training
    from keras_neural_memory.experiments.config import RunConfig

    folder = _copy(name, tmp_path)
    results, model = (folder / "results.json").read_text(), (folder / "model.keras").read_bytes()
    assert cli.main(_command(name, folder)) == 0
    assert f"{folder} holds this finished run; not retraining" in capsys.readouterr().out
    assert (folder / "results.json").read_text() == results
    assert (folder / "model.keras").read_bytes() == model
    config = dataclasses.replace(RunConfig.from_settings(json.loads(results)["settings"]), output_dir=str(folder))
    assert training.finished_run(config) == {**json.loads(results), "output_dir": str(folder)}


def test_train_does_not_take_a_run_of_the_earlier_chomsky_protocol_for_one_of_the_authors(tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    folder = _copy("chomsky_finished", tmp_path)
    results = (folder / "results.json").read_text()
    assert cli.main(_command("chomsky_finished", folder)) == 2
    err = capsys.readouterr().err
    assert err.startswith("neural-memory train: error: ") and "other settings" in err and "--overwrite" in err, err
    assert err.count("\n") == 1 and (folder / "results.json").read_text() == results


@pytest.mark.slow
def test_a_stored_interrupted_run_resumes_from_its_backup_and_finishes(tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    folder = _copy("stack_interrupted", tmp_path)
    stored_history = (folder / "history.csv").read_text().splitlines()
    stored_segment = json.loads((folder / "segments.json").read_text())[0]
    assert cli.main(_command("stack_interrupted", folder, "--verbose", "2")) == 0
    out = capsys.readouterr().out
    assert "resuming after 1 finished epoch (epoch 0 in history.csv)" in out
    assert "Epoch 1/2" not in out and "Epoch 2/2" in out
    results = json.loads((folder / "results.json").read_text())
    assert results["settings"] == json.loads((LEGACY / "stack_interrupted" / "settings.json").read_text())
    assert len(results["history"]["loss"]) == 2 and results["batches"] == 10
    assert (folder / "history.csv").read_text().splitlines()[1] == stored_history[1]  # epoch 0, as it was trained
    assert [segment["first_epoch"] for segment in results["segments"]] == [0, 1]
    assert results["segments"][0] == stored_segment
    assert (folder / "model.keras").is_file() and not (folder / "backup").exists()


def test_a_stored_interrupted_run_loads_from_its_backup_as_it_did():
    from keras_neural_memory.experiments.run_folder import load_run

    folder = LEGACY / "stack_interrupted"
    run = load_run(folder)
    assert (run.epoch, run.folder, run.path) == (1, folder, folder / "backup" / "latest.weights.h5")
    assert run.source == f"{folder / 'backup' / 'latest.weights.h5'} (after epoch 1; the run has not finished)"
    assert run.record["settings"]["task"] == "sequence_copy" and run.record["task"] == "sequence_copy"
    stored = np.load(folder / "outputs.npz")
    np.testing.assert_allclose(run.model.predict(stored["inputs"], verbose=0), stored["logits"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["stack_finished", "deque_finished", "stack_interrupted"])
def test_evaluate_loads_a_stored_run(name, tmp_path):
    from keras_neural_memory.experiments import cli

    folder = _copy(name, tmp_path)
    report = tmp_path / "report.json"
    assert cli.main(["evaluate", "--model", str(folder), "--examples", "10", "--output", str(report)]) == 0
    recorded = json.loads(report.read_text())
    assert recorded["task"] == json.loads((folder / "settings.json").read_text())["task"]
    assert recorded["scale"] == "quick" and 0 <= recorded["coarse"] <= recorded["fine"] <= 1
    if name == "stack_interrupted":
        assert recorded["model"].endswith("latest.weights.h5 (after epoch 1; the run has not finished)")
    else:
        assert recorded["model"] == str(folder / "model.keras")


def test_evaluate_redraws_a_stored_chomsky_hierarchy_run_in_its_folder(tmp_path):
    from keras_neural_memory.experiments import chomsky, cli

    folder = _copy("chomsky_finished", tmp_path)
    (folder / chomsky.CURVE_FILE).unlink()
    report = tmp_path / "report.json"
    assert cli.main(["evaluate", "--model", str(folder), "--output", str(report)]) == 0
    curve = json.loads((folder / chomsky.CURVE_FILE).read_text())
    stored = json.loads((LEGACY / "chomsky_finished" / chomsky.CURVE_FILE).read_text())
    assert [point["length"] for point in curve["accuracy_by_length"]] == [1, 2, 3, 4]
    assert curve["accuracy_by_length"] == stored["accuracy_by_length"]  # the run's own lengths, sequences and seed
    assert json.loads(report.read_text())["model"] == str(folder / "model.keras")
