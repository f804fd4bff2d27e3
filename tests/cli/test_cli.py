"""`neural-memory` end to end, as a user runs it: subprocesses on tiny runs."""

import itertools
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from keras_neural_memory import MemoryOptions

TINY = ["--scale", "quick", "--epochs", "2", "--steps-per-epoch", "5", "--eval-examples", "20", "--verbose", "0"]


def run(*args, timeout=300):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run(
        [sys.executable, "-m", "keras_neural_memory.experiments.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    result = run("train", "--task", "sequence_reversal", "--memory", "queue", *TINY, "--output-dir", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result


@pytest.mark.slow
def test_train_writes_model_results_and_logs(trained):
    out, result = trained
    results = json.loads((out / "results.json").read_text())
    for split in ("train", "test"):
        acc = results[f"{split}_accuracy"]
        assert 0.0 <= acc["coarse"] <= acc["fine"] <= 1.0
    assert results["batches"] == 10 and results["test_lengths"] == [9, 16]
    assert (out / "model.keras").is_file()
    assert any((out / "logs").rglob("*tfevents*"))
    assert "coarse" in result.stdout and "test" in result.stdout


@pytest.mark.slow
def test_evaluate_sweeps_lengths_and_plots(trained, tmp_path):
    out, _ = trained
    plot, report = tmp_path / "sweep.png", tmp_path / "report.json"
    result = run(
        "evaluate", "--model", str(out / "model.keras"), "--task", "sequence_reversal", "--scale", "quick",
        "--lengths", "6", "9", "--examples", "20", "--sweep", "--sweep-examples", "10",
        "--plot", str(plot), "--output", str(report),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    sweep = json.loads(report.read_text())["sweep"]
    assert [row["length"] for row in sweep] == [6, 7, 8, 9]
    assert plot.stat().st_size > 1000


@pytest.mark.slow
def test_evaluate_rejects_a_model_of_another_scale(trained, capsys):
    from keras_neural_memory.experiments import cli

    out, _ = trained
    status = cli.main(["evaluate", "--model", str(out / "model.keras"), "--task", "sequence_reversal", "--scale", "default"])
    assert status == 2
    err = capsys.readouterr().err
    assert "the model was trained with --scale quick, not default" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_evaluate_reads_the_task_from_the_run_and_refuses_another(trained, tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    out, _ = trained
    status = cli.main(["evaluate", "--model", str(out), "--task", "sequence_copy"])
    assert status == 2
    assert "trained with --task sequence_reversal, not sequence_copy" in capsys.readouterr().err
    # A model without its run's record needs the task and scale; the
    # embedding size still catches another scale.
    alone = tmp_path / "model.keras"
    alone.write_bytes((out / "model.keras").read_bytes())
    assert cli.main(["evaluate", "--model", str(alone)]) == 2
    assert "pass --task" in capsys.readouterr().err
    assert cli.main(["evaluate", "--model", str(alone), "--task", "sequence_reversal"]) == 2
    assert "pass the --task and --scale the model was trained with" in capsys.readouterr().err


@pytest.mark.slow
def test_evaluate_takes_the_run_directory(trained, tmp_path):
    out, _ = trained
    report = tmp_path / "report.json"
    result = run("evaluate", "--model", str(out), "--examples", "10", "--output", str(report))
    assert result.returncode == 0, result.stderr[-3000:]
    recorded = json.loads(report.read_text())
    assert recorded["task"] == "sequence_reversal" and recorded["scale"] == "quick"


@pytest.mark.slow
def test_error_positions_counts_the_sequences_evaluate_gets_wrong(trained, tmp_path):
    # benchmarks/error_positions.py predicts the same fresh examples as
    # `evaluate` (same split, seed and count), one sequence at a time, so the
    # sequences it finds wrong are exactly those coarse accuracy misses.
    out, _ = trained
    report = tmp_path / "report.json"
    result = run("evaluate", "--model", str(out), "--examples", "50", "--seed", "3", "--output", str(report))
    assert result.returncode == 0, result.stderr[-3000:]
    coarse = json.loads(report.read_text())["coarse"]
    script = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "error_positions.py")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    listed = subprocess.run([sys.executable, script, str(out), "--split", "test", "--examples", "50", "--seed", "3"],
                            capture_output=True, text=True, timeout=300, env=env)  # fmt: skip
    assert listed.returncode == 0, listed.stderr[-3000:]
    wrong = int(listed.stdout.split(" wrong under teacher forcing")[0].rsplit(" ", 1)[1])
    assert wrong == round((1 - coarse) * 50)
    assert "| wrong symbols | wrong sequences |" in listed.stdout
    refused = subprocess.run([sys.executable, script, str(out), "--examples", "0"], capture_output=True, text=True,
                             timeout=300, env=env)  # fmt: skip
    assert refused.returncode == 2 and "--examples must be at least 1" in refused.stderr
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copyfile(out / "model.keras", bare / "model.keras")  # no results.json, no settings.json
    unnamed = subprocess.run([sys.executable, script, str(bare)], capture_output=True, text=True, timeout=300,
                             env=env)  # fmt: skip
    assert unnamed.returncode == 2 and "has no results.json or settings.json naming its task" in unnamed.stderr


def test_strength_drift_reports_each_end_of_a_deque_in_both_phases():
    import importlib.util

    from keras_neural_memory.experiments import data, training
    from keras_neural_memory.experiments.config import RunConfig

    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "strength_drift.py")
    spec = importlib.util.spec_from_file_location("strength_drift", path)
    strength_drift = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(strength_drift)
    config = RunConfig("sequence_copy", memory="deque", lstm_layers=1, scale="quick").resolved()
    setup = data.task_setup("sequence_copy", "quick", train_lengths=(6, 6))
    model = training.build_model(setup, config)
    top, bottom = strength_drift.drift(model, "deque", setup, examples=2)
    for end in (top, bottom):
        assert set(end) == {"push (source)", "pop before output", "push (target)", "pop (target)", "fraction"}
        for key in ("push (source)", "push (target)", "pop (target)"):
            assert 0 < end[key] < 1  # sigmoids of an untrained controller
        # 7 reading steps (`<s>` and 6 symbols), each popping less than 1.
        assert 0 < end["pop before output"] < 7
        assert 0 <= end["fraction"] <= 0.5
    assert top != bottom


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 truncated"])
def test_evaluate_names_an_incomplete_model_file(tmp_path, capsys, content):
    from keras_neural_memory.experiments import cli

    (tmp_path / "model.keras").write_bytes(content)
    assert cli.main(["evaluate", "--model", str(tmp_path), "--task", "sequence_reversal"]) == 2
    assert "is not a complete .keras file (it is empty or truncated)" in capsys.readouterr().err


@pytest.mark.slow
def test_killed_training_resumes_from_its_backup(tmp_path):
    """SIGKILL a run in its second epoch; the same command continues, it does not restart."""
    args = ["train", "--task", "sequence_copy", "--memory", "stack", "--scale", "quick", "--epochs", "3",
            "--steps-per-epoch", "40", "--eval-examples", "10", "--verbose", "2", "--output-dir", str(tmp_path)]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONUNBUFFERED": "1"}
    first = subprocess.Popen(
        [sys.executable, "-m", "keras_neural_memory.experiments.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    seen = []
    for line in first.stdout:
        seen.append(line)
        if line.startswith("Epoch 2/3"):  # epoch 1 is backed up before epoch 2 begins
            first.kill()
            break
    first.wait(timeout=60)
    assert first.returncode != 0, "".join(seen)
    assert not (tmp_path / "results.json").exists()
    second = run(*args)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "Epoch 1/3" not in second.stdout and "Epoch 3/3" in second.stdout
    history = json.loads((tmp_path / "results.json").read_text())["history"]
    assert len(history["loss"]) == 3  # the killed process's epoch too, from history.csv
    assert len(history["coarse_accuracy"]) == 3


def _train_args(out, *extra):
    return ["train", "--task", "sequence_copy", "--memory", "stack", "--scale", "quick", "--epochs", "2",
            "--steps-per-epoch", "3", "--eval-examples", "10", "--verbose", "0", "--output-dir", str(out), *extra]


@pytest.mark.slow
def test_a_finished_run_is_recognised_not_retrained(tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    assert cli.main(_train_args(tmp_path)) == 0
    results = (tmp_path / "results.json").read_text()
    model = (tmp_path / "model.keras").read_bytes()
    assert not (tmp_path / "backup").exists()  # removed once the results are safe
    capsys.readouterr()
    assert cli.main(_train_args(tmp_path)) == 0
    assert "not retraining" in capsys.readouterr().out
    assert (tmp_path / "results.json").read_text() == results
    assert (tmp_path / "model.keras").read_bytes() == model
    # Other settings in the same folder: refused, not mixed.
    assert cli.main(_train_args(tmp_path, "--seed", "3")) == 2
    assert "holds a finished run with other settings" in capsys.readouterr().err
    # --overwrite retrains from scratch, with a fresh history.
    assert cli.main(_train_args(tmp_path, "--seed", "3", "--overwrite")) == 0
    rerun = json.loads((tmp_path / "results.json").read_text())
    assert rerun["seed"] == 3 and len(rerun["history"]["loss"]) == 2


@pytest.mark.slow
def test_an_itg_run_with_its_own_lexicon_and_grammar_records_them_and_is_evaluated_with_them(tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    args = ["train", "--task", "itg_svo_sov", "--scale", "quick", "--epochs", "1", "--steps-per-epoch", "2",
            "--eval-examples", "10", "--verbose", "0", "--output-dir", str(tmp_path), "--vocab-size", "3",
            "--rule-probabilities", "S=0.5,0,0.5", "O=0.55,0,0.45"]  # fmt: skip
    assert cli.main(args) == 0
    settings = json.loads((tmp_path / "results.json").read_text())["settings"]
    assert settings["vocab_size"] == 3
    assert settings["rule_probabilities"] == {"O": [0.55, 0.0, 0.45], "S": [0.5, 0.0, 0.5]}
    capsys.readouterr()
    assert cli.main(args) == 0  # the same run, read back from JSON
    assert "not retraining" in capsys.readouterr().out
    assert cli.main(args[:-3]) == 2  # the shipped probabilities: another run
    assert "holds a finished run with other settings" in capsys.readouterr().err
    # `evaluate` samples the run's own grammar: a one-word lexicon (4 source symbols), no relative clause.
    assert cli.main(["evaluate", "--model", str(tmp_path), "--examples", "10", "--output", str(tmp_path / "e.json")]) == 0
    assert json.loads((tmp_path / "e.json").read_text())["task"] == "itg_svo_sov"


@pytest.mark.slow
def test_a_folder_with_a_run_under_way_of_other_settings_is_refused(tmp_path, capsys):
    """Resuming another run's backup would mix two runs; --overwrite starts the folder again."""
    from keras_neural_memory.experiments import cli, run_folder
    from keras_neural_memory.experiments.config import RunConfig, UsageError

    other = RunConfig("sequence_copy", scale="quick", seed=3, output_dir=str(tmp_path)).resolved().settings()
    (tmp_path / run_folder.SETTINGS_FILE).write_text(json.dumps(other))
    (tmp_path / "history.csv").write_text("epoch,loss\n0,2.5\n")
    assert cli.main(_train_args(tmp_path)) == 2
    assert "holds a run under way with other settings (settings.json)" in capsys.readouterr().err
    assert (tmp_path / "history.csv").is_file()  # refused, nothing removed
    with pytest.raises(UsageError, match="without a backed-up epoch; evaluate it after its first epoch"):
        run_folder.load_run(tmp_path)
    assert cli.main(_train_args(tmp_path, "--overwrite")) == 0
    assert json.loads((tmp_path / run_folder.SETTINGS_FILE).read_text())["seed"] == 0
    assert run_folder.read_history(tmp_path / "history.csv")["loss"][0] != 2.5  # the old row went


def test_a_run_without_a_backed_up_epoch_is_refused_before_its_model_is_built(tmp_path, monkeypatch):
    from keras_neural_memory.experiments import run_folder, training
    from keras_neural_memory.experiments.config import RunConfig, UsageError

    config = RunConfig("sequence_copy", scale="quick", output_dir=str(tmp_path)).resolved()
    (tmp_path / run_folder.SETTINGS_FILE).write_text(json.dumps(config.settings()))
    (tmp_path / "backup").mkdir()  # made when training starts, before the first epoch is backed up

    def build_model(*args):
        raise AssertionError("the model was built for a run with nothing to load into it")

    monkeypatch.setattr(training, "build_model", build_model)
    with pytest.raises(UsageError, match="holds a run without a backed-up epoch; evaluate it after its first epoch"):
        run_folder.load_run(tmp_path)


def test_a_run_under_way_loads_its_previous_backup_while_the_latest_is_unreadable(tmp_path, monkeypatch):
    """The training process rewrites its backup after every epoch; a read that meets the write takes the previous one."""
    from keras_neural_memory.experiments import data, run_folder, training
    from keras_neural_memory.experiments.config import RunConfig, UsageError

    monkeypatch.setattr(run_folder, "BACKUP_READ_PAUSE_SECONDS", 0)
    config = RunConfig("sequence_copy", scale="quick", output_dir=str(tmp_path)).resolved()
    (tmp_path / run_folder.SETTINGS_FILE).write_text(json.dumps(config.settings()))
    model = training.build_model(data.task_setup(config.task, config.scale), config)
    backup = tmp_path / "backup"
    backup.mkdir()
    model.save_weights(backup / "latest.weights.h5")
    os.replace(backup / "latest.weights.h5", backup / "latest.weights.h5.bkp")
    (backup / "training_metadata.json.bkp").write_text('{"epoch": 4, "batch": 0}')
    (backup / "latest.weights.h5").write_bytes(b"\x89HDF\r\n")  # cut short by the write under way
    (backup / "training_metadata.json").write_text('{"epoch": 5, "batch": 0}')
    loaded = run_folder.load_run(tmp_path)
    assert loaded.source == f"{backup / 'latest.weights.h5.bkp'} (after epoch 4; the run has not finished)"
    assert (loaded.path, loaded.epoch, loaded.folder) == (backup / "latest.weights.h5.bkp", 4, tmp_path)
    assert loaded.record["settings"] == config.settings()
    for saved, read in zip(model.weights, loaded.model.weights, strict=True):
        np.testing.assert_array_equal(saved.numpy(), read.numpy())
    (backup / "latest.weights.h5.bkp").write_bytes(b"")
    with pytest.raises(UsageError, match=r"could not read the backup in .* \(it is being written, or is damaged\); try again"):
        run_folder.load_run(tmp_path)


def test_finished_run_is_the_folder_s_results_of_the_same_settings(tmp_path):
    """What `train` and `reproduce --redraw` both read: one definition of a finished run."""
    import dataclasses

    from keras_neural_memory.experiments import training
    from keras_neural_memory.experiments.config import RunConfig, UsageError

    config = RunConfig("sequence_copy", scale="quick", output_dir=str(tmp_path))
    assert training.finished_run(config) is None
    (tmp_path / "backup").mkdir()  # a run under way is not a finished one
    assert training.finished_run(config) is None
    settings = config.resolved().settings()
    assert settings["hidden_size"] == 32  # sizes resolved, as `train` records them
    (tmp_path / "results.json").write_text(json.dumps({"settings": settings, "batches": 6}))
    assert training.finished_run(config) == {"settings": settings, "batches": 6, "output_dir": str(tmp_path)}
    with pytest.raises(UsageError, match="holds a finished run with other settings; pass another --output-dir"):
        training.finished_run(dataclasses.replace(config, seed=1))
    # A memory model's run recorded by an older `train`, with the LSTM baseline's default depth.
    (tmp_path / "results.json").write_text(json.dumps({"settings": {**settings, "lstm_layers": 2}}))
    assert training.finished_run(config)["settings"]["lstm_layers"] == 2
    (tmp_path / "results.json").write_text(json.dumps({"settings": {"task": "sequence_copy"}, "batches": 6}))
    with pytest.raises(UsageError, match="holds a finished run with other settings"):
        training.finished_run(config)


@pytest.mark.parametrize("interrupted", ["save_model_atomically", "measure"])
@pytest.mark.slow
def test_a_run_interrupted_after_training_resumes_without_retraining(tmp_path, monkeypatch, capsys, interrupted):
    """Killed while saving the model or evaluating it: the backup survives, no epoch is retrained."""
    from keras_neural_memory.experiments import cli, protocols, run_folder

    module = run_folder if interrupted == "save_model_atomically" else protocols
    original = getattr(module, interrupted)

    def killed(*args, **kwargs):
        if interrupted == "save_model_atomically":
            original(*args, **kwargs)  # the model reached its temporary file ...
            raise KeyboardInterrupt  # ... and the process died before the rename
        raise KeyboardInterrupt

    monkeypatch.setattr(module, interrupted, killed)
    with pytest.raises(KeyboardInterrupt):
        cli.main(_train_args(tmp_path, "--verbose", "2"))
    assert not (tmp_path / "results.json").exists()
    assert (tmp_path / "backup").is_dir()
    # The unfinished run loads from its backup, as the finished run will from model.keras.
    unfinished = run_folder.load_run(tmp_path)
    assert unfinished.record["task"] == "sequence_copy" and unfinished.record["settings"]["seed"] == 0
    if interrupted == "measure":
        assert unfinished.source.endswith("latest.weights.h5 (after epoch 2; the run has not finished)")
    else:  # the model was saved, the results not yet
        assert unfinished.source == str(tmp_path / "model.keras")
    monkeypatch.setattr(module, interrupted, original)
    capsys.readouterr()
    assert cli.main(_train_args(tmp_path, "--verbose", "2")) == 0
    out = capsys.readouterr().out
    assert "resuming after 2 finished epochs (epochs 0-1 in history.csv)" in out and "Epoch 1/2" not in out
    finished = run_folder.load_run(tmp_path)
    assert finished.source == str(tmp_path / "model.keras") and finished.record["settings"]["seed"] == 0
    for before, after in zip(unfinished.model.weights, finished.model.weights, strict=True):
        np.testing.assert_array_equal(before.numpy(), after.numpy())
    results = json.loads((tmp_path / "results.json").read_text())
    assert len(results["history"]["loss"]) == 2 and results["batches"] == 6
    # Both epochs were trained by the killed process; their times still count.
    assert len(results["history"]["epoch_seconds"]) == 2
    assert results["train_seconds"] == round(sum(results["history"]["epoch_seconds"]), 1) > 0
    assert len((tmp_path / "history.csv").read_text().splitlines()) == 3  # header and one row per epoch
    assert (tmp_path / "model.keras").stat().st_size > 10_000


def test_a_run_under_way_may_change_its_budget_and_nothing_else(tmp_path, capsys):
    """More epochs (or fewer, down to those trained) resume the run; any other setting is another run."""
    import dataclasses

    from keras_neural_memory.experiments.config import RunConfig, UsageError
    from keras_neural_memory.experiments.run_folder import SETTINGS_FILE, RunFolder

    config = RunConfig("sequence_copy", scale="quick", epochs=4, output_dir=str(tmp_path)).resolved()
    run = RunFolder(tmp_path)
    run.claim(config.settings(), first_epoch=0)
    longer = dataclasses.replace(config, epochs=9, stop_at_coarse=0.99, eval_examples=20).settings()
    run.claim(longer, first_epoch=3)
    assert json.loads((tmp_path / SETTINGS_FILE).read_text()) == longer
    out = capsys.readouterr().out
    assert "epochs of the run under way" in out and "changes from 4 to 9" in out
    with pytest.raises(UsageError, match="has trained 3 epochs; pass --epochs 3 or more to resume it"):
        run.claim(dataclasses.replace(config, epochs=2).settings(), first_epoch=3)
    with pytest.raises(UsageError, match=r"holds a run under way with other settings \(settings.json\)"):
        run.claim(dataclasses.replace(config, epochs=9, seed=1).settings(), first_epoch=3)
    assert json.loads((tmp_path / SETTINGS_FILE).read_text()) == longer  # refusals write nothing
    # An older `train` recorded lstm_layers 2 for memory models; it is the same run.
    (tmp_path / SETTINGS_FILE).write_text(json.dumps({**longer, "lstm_layers": 2}))
    run.claim(longer, first_epoch=3)
    assert json.loads((tmp_path / SETTINGS_FILE).read_text()) == longer


@pytest.mark.skipif(sys.platform == "win32", reason="folders are locked with fcntl")
def test_a_folder_another_process_is_training_is_refused_and_left_alone(tmp_path, capsys):
    """Two processes on one run would overwrite each other's backups and history rows."""
    from keras_neural_memory.experiments import cli
    from keras_neural_memory.experiments.config import UsageError
    from keras_neural_memory.experiments.run_folder import SETTINGS_FILE, locked

    # flock locks of separate opens conflict within one process too, so this
    # holds the lock as a training process would.
    (tmp_path / "history.csv").write_text("epoch,loss\n0,2.5\n")
    with locked(tmp_path / SETTINGS_FILE):
        assert cli.main(_train_args(tmp_path)) == 2
        err = capsys.readouterr().err
        assert f"{str(tmp_path)!r} is being trained by another process; wait for it to finish, or pass another " \
               "--output-dir" in err  # fmt: skip
        assert len(err.strip().splitlines()) == 1
        assert cli.main(_train_args(tmp_path, "--overwrite")) == 2  # not even --overwrite removes its files
    assert not (tmp_path / SETTINGS_FILE).exists()
    assert (tmp_path / "history.csv").read_text() == "epoch,loss\n0,2.5\n"
    # Once its holder lets go, the folder is free again.
    with locked(tmp_path / SETTINGS_FILE, busy=UsageError("still locked")):
        pass


def test_the_resume_message_numbers_epochs_as_history_csv_does():
    from keras_neural_memory.experiments.run_folder import RunFolder

    run = RunFolder("A")
    assert run.resume_message(1) == f"resuming after 1 finished epoch (epoch 0 in history.csv) from {run.backup_path}"
    assert run.resume_message(50) == f"resuming after 50 finished epochs (epochs 0-49 in history.csv) from {run.backup_path}"


@pytest.mark.slow
def test_a_run_under_way_resumed_with_more_epochs_trains_on(tmp_path, monkeypatch, capsys):
    from keras_neural_memory.experiments import cli, protocols

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # after its 2 epochs, before its results

    original = protocols.measure
    monkeypatch.setattr(protocols, "measure", killed)
    with pytest.raises(KeyboardInterrupt):
        cli.main(_train_args(tmp_path, "--verbose", "2"))
    monkeypatch.setattr(protocols, "measure", original)
    capsys.readouterr()
    assert cli.main(_train_args(tmp_path, "--epochs", "1")) == 2
    assert "has trained 2 epochs; pass --epochs 2 or more to resume it" in capsys.readouterr().err
    assert cli.main(_train_args(tmp_path, "--verbose", "2", "--epochs", "3")) == 0
    out = capsys.readouterr().out
    assert "resuming after 2 finished epochs (epochs 0-1 in history.csv)" in out and "Epoch 3/3" in out and "Epoch 2/3" not in out
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["settings"]["epochs"] == 3 and results["batches"] == 9
    assert len(results["history"]["loss"]) == 3


@pytest.mark.slow
def test_held_out_strings_measured_every_epoch_drive_the_stopping_rule(tmp_path, monkeypatch):
    """--validation-examples: noise-free accuracy of held-out strings after each epoch, and the stop rule reads it."""
    from keras_neural_memory.experiments import callbacks, cli

    monitored = []
    original = callbacks.StopWhenLearned.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        monitored.append(self.monitor)

    monkeypatch.setattr(callbacks.StopWhenLearned, "__init__", recording)
    args = _train_args(tmp_path, "--strength-noise", "1", "--validation-examples", "20", "--stop-at-coarse", "0.99")
    assert cli.main(args) == 0
    assert monitored == ["val_coarse_accuracy"]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["settings"]["validation_examples"] == 20
    for key in ("val_coarse_accuracy", "val_fine_accuracy", "val_loss"):
        assert len(results["history"][key]) == 2
        assert all(0.0 <= value <= 1.0 for value in results["history"][key]) or key == "val_loss"
    # Without the option nothing is measured, and the settings read as they did before it existed.
    assert cli.main(_train_args(tmp_path / "plain")) == 0
    plain = json.loads((tmp_path / "plain" / "results.json").read_text())
    assert "validation_examples" not in plain["settings"] and "val_loss" not in plain["history"]
    assert "curriculum_epochs" not in plain["settings"]


@pytest.mark.slow
def test_a_curriculum_run_trains_its_first_epochs_on_short_sources_and_records_it(tmp_path, monkeypatch):
    from keras_neural_memory.experiments import cli, data

    regimes = []
    original = data.curriculum_regimes

    def recording(setup, epochs):
        regimes.append(original(setup, epochs))
        return regimes[-1]

    monkeypatch.setattr(data, "curriculum_regimes", recording)
    assert cli.main(_train_args(tmp_path, "--curriculum-epochs", "1", "--validation-examples", "20",
                                "--stop-at-coarse", "0.99")) == 0  # fmt: skip
    assert [(regime.min_length, regime.max_length) for regime in regimes[-1]] == [(1, 2)]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["settings"]["curriculum_epochs"] == 1 and results["batches"] == 6


@pytest.mark.slow
def test_a_run_with_noise_for_its_first_epochs_records_it_and_trains_the_rest_without(tmp_path, capsys):
    from keras_neural_memory.experiments import cli
    from keras_neural_memory.experiments.config import RunConfig

    args = _train_args(tmp_path, "--strength-noise", "1", "--strength-noise-epochs", "1")
    args[args.index("--verbose") + 1] = "2"
    assert cli.main(args) == 0
    assert "Epoch 2: StrengthNoiseScheduler setting strength noise to 0." in capsys.readouterr().out
    settings = json.loads((tmp_path / "results.json").read_text())["settings"]
    assert settings["strength_noise"] == 1.0 and settings["strength_noise_epochs"] == 1
    # Without the option the settings read as they did before it existed.
    assert "strength_noise_epochs" not in RunConfig("sequence_copy", memory_options=MemoryOptions(strength_noise=1.0)).settings()


@pytest.mark.slow
def test_a_run_with_delayed_noise_trains_its_first_epochs_without_and_records_the_delay(tmp_path, capsys):
    from keras_neural_memory.experiments import cli
    from keras_neural_memory.experiments.config import RunConfig

    args = _train_args(tmp_path, "--strength-noise", "1", "--strength-noise-delay", "1", "--strength-noise-epochs", "2")
    args[args.index("--verbose") + 1] = "2"
    args[args.index("--epochs") + 1] = "3"
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    # Off for epoch 1, on for epoch 2 only, off again from epoch 3.
    for epoch, noise in ((1, "0"), (2, "1"), (3, "0")):
        assert f"Epoch {epoch}: StrengthNoiseScheduler setting strength noise to {noise}." in printed
    settings = json.loads((tmp_path / "results.json").read_text())["settings"]
    assert settings["strength_noise_delay"] == 1 and settings["strength_noise_epochs"] == 2
    assert "strength_noise_delay" not in RunConfig("sequence_copy", memory_options=MemoryOptions(strength_noise=1.0)).settings()


@pytest.mark.parametrize(
    "flags, expected",
    [
        # The recipe, its noise after the first 500 batches: from epoch 3 of the default scale's 300 batches.
        ([], dict(gate_activation="hard_sigmoid", quiet_end="random", strength_noise=0.5, strength_noise_delay=2,
                  learning_rate=2e-3)),
        (["--steps-per-epoch", "100"], dict(strength_noise_delay=5)),
        (["--scale", "paper"], dict(strength_noise_delay=1)),
        # An option given replaces the recipe's, and the rest of the recipe stays.
        (["--learning-rate", "5e-3"], dict(learning_rate=5e-3, gate_activation="hard_sigmoid", strength_noise_delay=2)),
        (["--gate-activation", "sigmoid"], dict(gate_activation="sigmoid", quiet_end="random")),
        # The user's noise comes on the user's schedule.
        (["--strength-noise", "0"], dict(strength_noise=0.0, strength_noise_delay=None, quiet_end="random")),
        (["--strength-noise", "0.25"], dict(strength_noise=0.25, strength_noise_delay=None)),
        (["--strength-noise-delay", "4"], dict(strength_noise=0.5, strength_noise_delay=4)),
        (["--paper-deque"], dict(gate_activation="sigmoid", quiet_end=None, strength_noise=0.0, strength_noise_delay=None,
                                 learning_rate=5e-3)),
        (["--paper-deque", "--quiet-end", "top"], dict(gate_activation="sigmoid", quiet_end="top", learning_rate=5e-3)),
    ],
)
def test_train_gives_the_deque_its_recipe_unless_told_otherwise(flags, expected, capsys):
    from keras_neural_memory.experiments import cli

    config = cli.train_config(cli.parser().parse_args(["train", "--task", "sequence_copy", "--memory", "deque", *flags]))
    values = {**config.fields(), **config.memory_options.changed()}
    assert {name: values.get(name, getattr(config.memory_options, name, None)) for name in expected} == expected
    printed = capsys.readouterr().out
    assert ("--paper-deque for the paper's DeQue" in printed) == ("--paper-deque" not in flags)


@pytest.mark.parametrize(
    "argv",
    [
        ["--task", "sequence_copy"],
        ["--task", "sequence_copy", "--memory", "queue"],
        ["--task", "chomsky_hierarchy/reverse_string", "--memory", "deque"],
    ],
)
def test_train_leaves_other_runs_at_their_defaults(argv):
    from keras_neural_memory.experiments import cli
    from keras_neural_memory.experiments.config import RunConfig

    config = cli.train_config(cli.parser().parse_args(["train", *argv]))
    assert config == RunConfig(**{name: getattr(config, name) for name in ("task", "memory")}, output_dir=None, seed=0).resolved()


def test_each_epoch_has_its_own_examples_so_a_resumed_run_sees_the_same_data():
    from keras_neural_memory.experiments import data

    setup = data.task_setup("sequence_copy", "quick")
    from_start = list(itertools.islice(data.training_batches(setup, seed=0, batch_size=4, first_epoch=0, steps=2), 4))
    resumed = list(itertools.islice(data.training_batches(setup, seed=0, batch_size=4, first_epoch=1, steps=2), 2))
    for a, b in zip(from_start[2:], resumed):
        np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(from_start[0][0], from_start[2][0])


def test_stop_when_learned_counts_consecutive_epochs_across_a_resume(tmp_path):
    from keras_neural_memory.experiments.callbacks import EpochHistory, StopWhenLearned

    path = tmp_path / "history.csv"
    history = EpochHistory(path, first_epoch=0)
    history.on_train_begin()
    for epoch, coarse in enumerate([0.5, 0.995, 0.7, 0.99]):
        history.on_epoch_end(epoch, {"loss": 1.0, "coarse_accuracy": coarse})
    resumed = EpochHistory(path, first_epoch=3)  # epoch 3 is retrained: its row goes
    resumed.on_train_begin()
    assert [int(row["epoch"]) for row in resumed.rows] == [0, 1, 2]

    class Model:
        stop_training = False

    stop = StopWhenLearned(path, threshold=0.99)
    stop.set_model(Model())
    path.write_text("epoch,loss,coarse_accuracy\n0,1.0,0.5\n1,1.0,0.995\n")
    stop.on_train_begin()
    assert stop.streak == 1
    stop.on_epoch_end(2, {"coarse_accuracy": 0.99})
    assert stop.model.stop_training


def test_epoch_times_are_kept_and_a_history_without_them_omits_them(tmp_path):
    from keras_neural_memory.experiments.callbacks import EpochHistory
    from keras_neural_memory.experiments.run_folder import read_history

    path = tmp_path / "history.csv"
    path.write_text("epoch,loss\n0,2.0\n")  # written before epochs were timed
    history = EpochHistory(path, first_epoch=1)
    history.on_train_begin()
    history.on_epoch_begin(1)
    history.on_epoch_end(1, {"loss": 1.0})
    assert path.read_text().splitlines()[1:] == ["0,2.0,NA", f"1,1.0,{history.rows[-1]['epoch_seconds']}"]
    assert read_history(path) == {"loss": [2.0, 1.0]}  # not a time for one epoch of two
    timed = EpochHistory(tmp_path / "timed.csv")
    timed.on_train_begin()
    for epoch in range(2):
        timed.on_epoch_begin(epoch)
        timed.on_epoch_end(epoch, {"loss": 1.0})
    seconds = read_history(tmp_path / "timed.csv")["epoch_seconds"]
    assert len(seconds) == 2 and all(value >= 0 for value in seconds)


def test_a_run_records_the_cpu_cores_it_may_use(monkeypatch):
    from keras_neural_memory.experiments import training

    monkeypatch.setattr(training.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(training.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    all_cores = training.device_description()
    if "CPU" not in all_cores:
        pytest.skip(f"trains on {all_cores}")
    assert all_cores.endswith(", 2 cores)")
    monkeypatch.setattr(training.os, "sched_getaffinity", lambda pid: {1}, raising=False)  # taskset -c 1
    assert training.device_description().endswith(", 1 of 2 cores)")


@pytest.mark.parametrize(
    "args,message",
    [
        (["train", "--task", "no_such_task"], "unknown task 'no_such_task'"),
        (["train", "--task", "sequence_copy", "--memory", "tape"], "invalid choice: 'tape'"),
        (["train", "--task", "sequence_copy", "--scale", "huge"], "invalid choice: 'huge'"),
        (["train", "--task", "cumulative_xor", "--memory", "deque"], "stack or lstm"),
        (["train", "--task", "sequence_copy", "--output-dir", "/proc/no/such/dir"], "cannot create output directory"),
        (["evaluate", "--model", "/nonexistent/model.keras", "--task", "sequence_copy"], "no saved model"),
        (["train", "--task", "sequence_copy", "--learning-rate", "nan"], "must be a finite number above 0, not nan"),
        (["train", "--task", "sequence_copy", "--learning-rate", "-1"], "must be a finite number above 0"),
        (["train", "--task", "sequence_copy", "--epochs", "0"], "--epochs: must be a positive integer, not 0"),
        (["train", "--task", "sequence_copy", "--steps-per-epoch", "-1"], "must be a positive integer"),
        (["train", "--task", "sequence_copy", "--hidden-size", "-5"], "must be a positive integer"),
        (["train", "--task", "sequence_copy", "--batch-size", "0"], "must be a positive integer"),
        (["train", "--task", "sequence_copy", "--eval-examples", "0"], "must be a positive integer"),
        (["train", "--task", "sequence_copy", "--strength-noise", "-1"], "--strength-noise: must be a finite number >= 0, not -1"),
        (["train", "--task", "sequence_copy", "--memory", "lstm", "--strength-noise", "1"], "applies to memory models"),
        (["train", "--task", "sequence_copy", "--memory", "lstm", "--gate-activation", "hard_sigmoid"], "applies to memory models"),
        (["train", "--task", "cumulative_xor", "--gate-activation", "hard_sigmoid"], "(Hao et al.) takes --gate-activation at its default, not hard_sigmoid"),
        (["train", "--task", "sequence_copy", "--memory", "stack", "--quiet-end", "random"], "applies to the DeQue"),
        (["train", "--task", "sequence_copy", "--memory", "deque", "--paper-deque", "--quiet-end", "random",
          "--strength-noise-ends", "quiet"],
         "`strength_noise_ends='quiet'` sets where `strength_noise` goes, and strength_noise=0; set strength_noise"),
        (["train", "--task", "sequence_copy", "--memory", "deque", "--paper-deque", "--strength-noise", "1",
          "--strength-noise-ends", "quiet"],
         "no end starts quiet"),
        (["train", "--task", "sequence_copy", "--memory", "queue", "--paper-deque"],
         "--paper-deque chooses the DeQue's settings, not those of --memory queue; leave it out"),
        (["train", "--task", "sequence_copy", "--strength-noise-ends", "loud"], "--strength-noise-ends: invalid choice"),
        (["train", "--task", "sequence_copy", "--lstm-layers", "4"], "`lstm_layers` sets the depth of the LSTM baseline, not of memory='stack'"),
        (["reproduce", "--seeds", "0,x"], "--seeds/--seed: 'x' in '0,x' is not an integer"),
        (["reproduce", "--learning-rates", "1e-3,0"], "--learning-rate: must be a finite number above 0, not 0"),
        (["train", "--task", "sequence_copy", "--validation-examples", "0"], "--validation-examples: must be a positive integer, not 0"),
        (["train", "--task", "sequence_copy", "--stop-at-coarse", "1.5"], "--stop-at-coarse: must be a finite number above 0 and <= 1, not 1.5"),
        (["evaluate", "--model", "m.keras", "--task", "sequence_copy", "--sweep-step", "0"], "must be a positive integer"),
        (["train", "--task", "sequence_copy", "--curriculum-epochs", "0"], "--curriculum-epochs: must be a positive integer"),
        (["train", "--task", "sequence_copy", "--strength-noise-epochs", "0"], "--strength-noise-epochs: must be a positive integer"),
        (["train", "--task", "sequence_copy", "--strength-noise-epochs", "3"],
         "--strength-noise-epochs N sets how long --strength-noise lasts; add --strength-noise STDDEV"),
        (["train", "--task", "sequence_copy", "--strength-noise-delay", "0"], "--strength-noise-delay: must be a positive integer"),
        (["train", "--task", "sequence_copy", "--strength-noise-delay", "3"],
         "--strength-noise-delay N sets when --strength-noise starts; add --strength-noise STDDEV"),
        (["train", "--task", "sequence_copy", "--strength-noise", "1", "--strength-noise-delay", "3", "--strength-noise-epochs", "3"],
         "--strength-noise-delay 3 leaves no noisy epoch before --strength-noise-epochs 3; make the delay smaller"),
        (["train", "--task", "sequence_copy", "--curriculum-epochs", "2", "--stop-at-coarse", "0.9"],
         "--stop-at-coarse with --curriculum-epochs needs --validation-examples N"),
        (["train", "--task", "chomsky_hierarchy/reverse_string", "--curriculum-epochs", "2"],
         "--curriculum-epochs does not apply to chomsky_hierarchy/reverse_string"),
        (["train", "--task", "itg_svo_sov", "--rule-probabilities", "S0.5"],
         "--rule-probabilities: 'S0.5' is not NONTERMINAL=P1,P2,..."),
        (["train", "--task", "itg_svo_sov", "--rule-probabilities", "S=0.5,x"], "'x' in '0.5,x' is not a number"),
        (["train", "--task", "itg_svo_sov", "--rule-probabilities", "S=0.5,0.5"], "rule_probabilities['S'] has 2 values; S has 3"),
        (["train", "--task", "itg_svo_sov", "--rule-probabilities", "X=1"], "rule_probabilities: unknown nonterminal 'X'"),
        (["train", "--task", "sequence_copy", "--rule-probabilities", "S=1"], "task sequence_copy has no grammar"),
        (["train", "--task", "itg_svo_sov", "--vocab-size", "0"], "--vocab-size: must be a positive integer, not 0"),
        (["train", "--task", "itg_svo_sov", "--vocab-size", "2"], "vocab_size"),
        (["train", "--task", "cumulative_xor", "--vocab-size", "3"], "task cumulative_xor (Hao et al.) has a fixed vocabulary"),
        (["train", "--task", "chomsky_hierarchy/reverse_string", "--vocab-size", "3"],
         "--vocab-size does not apply to chomsky_hierarchy/reverse_string"),
    ],
)
def test_bad_input_gives_a_message_not_a_traceback(args, message, capsys):
    # In-process (a subprocess per case would mostly time TensorFlow's import).
    from keras_neural_memory.experiments import cli

    try:
        status = cli.main(args)
    except SystemExit as exit:  # argparse's own errors
        status = exit.code
    err = capsys.readouterr().err
    assert status == 2
    assert message in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_console_script_reports_bad_input_without_traceback():
    result = run("train", "--task", "no_such_task")
    assert result.returncode == 2 and "unknown task" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_train_mirrors_over_two_logical_cpu_devices(tmp_path):
    script = f"""
import sys, tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
from keras_neural_memory.experiments import cli
sys.exit(cli.main(["train", "--task", "sequence_reversal", "--memory", "stack", "--scale", "quick",
                   "--epochs", "1", "--steps-per-epoch", "4", "--eval-examples", "10", "--verbose", "0",
                   "--output-dir", {str(tmp_path)!r}]))
"""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "KERAS_BACKEND": "tensorflow"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "2 replica(s)" in result.stdout
    assert (tmp_path / "results.json").is_file()


@pytest.mark.slow
def test_train_shards_batches_over_two_jax_devices(tmp_path):
    script = f"""
import sys
from keras_neural_memory.experiments import cli
sys.exit(cli.main(["train", "--task", "sequence_reversal", "--memory", "queue", "--scale", "quick",
                   "--epochs", "1", "--steps-per-epoch", "4", "--eval-examples", "10", "--verbose", "0",
                   "--output-dir", {str(tmp_path)!r}]))
"""
    env = {**os.environ, "KERAS_BACKEND": "jax", "JAX_PLATFORMS": "cpu",
           "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "2 replica(s)" in result.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert 0.0 <= results["test_accuracy"]["fine"] <= 1.0

    odd_script = script.replace('"--verbose"', '"--batch-size", "3", "--verbose"').replace(str(tmp_path), str(tmp_path / "odd"))
    odd = subprocess.run([sys.executable, "-c", odd_script],
                         capture_output=True, text=True, env=env, timeout=300)
    assert odd.returncode == 2
    assert "--batch-size 3 does not split over 2 devices" in odd.stderr


@pytest.mark.slow
def test_reproduce_writes_table_beside_the_paper_and_convergence_plot(tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    args = ["reproduce", "--tasks", "sequence_copy", "--models", "queue,lstm1", "--epochs", "2",
            "--steps-per-epoch", "3", "--eval-examples", "10", "--output-dir", str(tmp_path)]
    assert cli.main([*args, "--redraw"]) == 2  # nothing finished yet
    assert "no finished runs" in capsys.readouterr().err
    assert cli.main([*args, "--seeds", "0,1"]) == 0
    table = (tmp_path / "results.md").read_text()
    assert "| sequence_copy | queue |" in table and "| 1.00 / 1.00 |" in table  # the paper's Queue-LSTM
    assert "0.01 / 0.50 (best: 4 layers)" in table  # the paper's best deep LSTM
    assert "/ 2 |" in table  # two seeds per row, one selected
    runs = json.loads((tmp_path / "results.json").read_text())
    assert [len(run["history"]["coarse_accuracy"]) for run in runs] == [2, 2, 2, 2]
    assert (tmp_path / "convergence.png").stat().st_size > 5000
    # Selection is by training loss, whatever the test accuracy.
    queue_runs = [run for run in runs if run["plan_model"] == "queue"]
    best = min(queue_runs, key=lambda run: run["history"]["loss"][-1])
    assert f"| {best['learning_rate']:g}, {best['seed']} |" in table.split("| sequence_copy | queue |")[1].splitlines()[0]
    # The table is redrawn from the finished runs without training.
    (tmp_path / "results.md").unlink()
    capsys.readouterr()
    assert cli.main([*args, "--seeds", "0,1", "--redraw"]) == 0
    assert (tmp_path / "results.md").read_text().split("\n\n", 1)[1] == table.split("\n\n", 1)[1]
    # The results file alone redraws it, and marks the runs as done, once the run folders are gone.
    for folder in tmp_path.glob("sequence_copy-*"):
        shutil.rmtree(folder)
    assert cli.main([*args, "--seeds", "0,1", "--redraw"]) == 0
    assert (tmp_path / "results.md").read_text().split("\n\n", 1)[1] == table.split("\n\n", 1)[1]
    assert cli.main([*args, "--seeds", "0,1"]) == 0
    assert not list(tmp_path.glob("sequence_copy-*"))  # nothing retrained


def _fake_run(config):
    """What `training.train` returns, without training: enough for the table and the plot."""
    resolved = config.resolved()
    epochs = 2
    return {
        "settings": resolved.settings(), "task": config.task, "memory": config.memory, "parameters": 100, "train_seconds": 1.0,
        "seed": config.seed, "learning_rate": config.learning_rate, "batches": epochs * resolved.steps_per_epoch,
        "steps_per_epoch": resolved.steps_per_epoch, "train_lengths": [8, 16], "test_lengths": [17, 32],
        "history": {"loss": [2.0, 1.0 + config.seed], "coarse_accuracy": [0.0, 0.5]}, "diverged": False,
        "train_accuracy": {"coarse": 0.5, "fine": 0.6}, "test_accuracy": {"coarse": 0.1, "fine": 0.2},
        "output_dir": config.output_dir,
    }  # fmt: skip


def test_reproduce_accumulates_runs_in_one_results_file_across_calls(tmp_path, monkeypatch, capsys):
    from keras_neural_memory.experiments import cli, training

    trained = []
    monkeypatch.setattr(training, "train", lambda config: trained.append(config) or _fake_run(config))
    ledger = tmp_path / "kept" / "results.json"
    common = ["reproduce", "--epochs", "2", "--output-dir", str(tmp_path / "runs"), "--results-file", str(ledger)]
    assert cli.main([*common, "--tasks", "sequence_copy", "--models", "queue", "--seeds", "0,1"]) == 0
    assert cli.main([*common, "--tasks", "sequence_reversal", "--models", "stack"]) == 0
    assert len(trained) == 3
    runs = json.loads(ledger.read_text())
    assert [(run["task"], run["plan_model"], run["seed"]) for run in runs] == [
        ("sequence_copy", "queue", 0), ("sequence_copy", "queue", 1), ("sequence_reversal", "stack", 0)]
    # Both rows are done: drawing the whole grid trains nothing more.
    assert cli.main([*common, "--tasks", "sequence_copy,sequence_reversal", "--models", "queue,stack", "--seeds", "0,1", "--redraw"]) == 0
    table = (tmp_path / "runs" / "results.md").read_text()
    assert "| sequence_copy | queue | 100 | 0 / 2 | 0.005, 0 |" in table  # lower final loss: seed 0
    assert "| sequence_reversal | stack |" in table
    assert cli.main([*common, "--tasks", "sequence_copy", "--models", "queue", "--seeds", "0,1"]) == 0
    assert len(trained) == 3
    # --overwrite retrains, and the new results replace the old ones in the file.
    assert cli.main([*common, "--tasks", "sequence_copy", "--models", "queue", "--overwrite"]) == 0
    assert len(trained) == 4 and len(json.loads(ledger.read_text())) == 3
    # A run of other settings (more epochs) is another run.
    assert cli.main([*["reproduce", "--epochs", "3"], *common[3:], "--tasks", "sequence_copy", "--models", "queue"]) == 0
    assert len(trained) == 5 and len(json.loads(ledger.read_text())) == 4


@pytest.mark.parametrize("content", ["{not json", '{"runs": []}', '[{"task": "sequence_copy"}]'])
def test_reproduce_names_a_results_file_it_cannot_read(tmp_path, capsys, content):
    from keras_neural_memory.experiments import cli

    ledger = tmp_path / "results.json"
    ledger.write_text(content)
    assert cli.main(["reproduce", "--output-dir", str(tmp_path), "--results-file", str(ledger), "--redraw"]) == 2
    error = capsys.readouterr().err
    assert "is not a results file" in error and "--results-file" in error and len(error.strip().splitlines()) == 1


def test_reproduce_rejects_unknown_models(capsys):
    from keras_neural_memory.experiments import cli

    assert cli.main(["reproduce", "--models", "stack,tape"]) == 2
    assert "unknown model 'tape'" in capsys.readouterr().err
