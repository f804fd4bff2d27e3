"""The Chomsky-hierarchy benchmark (Delétang et al. 2023): its models, loss, evaluation and runs.

The model and evaluation tests run on any backend (`KERAS_BACKEND=jax` too);
the runs train tiny models for a few steps.
"""

import json
import random

import keras
import numpy as np
import pytest

from keras_neural_memory import MemoryOptions
from keras_neural_memory.experiments import chomsky
from keras_neural_memory.models import (
    CHOMSKY_MODELS,
    build_chomsky_model,
    chomsky_blank_id,
    chomsky_output_logits,
    chomsky_tape,
)
from tfds_tasks.generators.chomsky_hierarchy import chomsky_task, evaluation_batches

TINY_MODEL = dict(hidden_size=6, memory_width=3, stack_size=5)


def tiny_model(task, memory):
    return build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory=memory, **TINY_MODEL)


@pytest.mark.parametrize("memory", CHOMSKY_MODELS)
def test_the_model_reads_the_input_then_blanks_and_answers_at_the_blanks(memory):
    task = chomsky_task("duplicate_string")  # output twice as long as the input
    batch = task.sample_batch(random.Random(0), 3, 4)
    tape = chomsky_tape(batch.input, task.output_length(4), task.input_vocab_size)
    blank = chomsky_blank_id(task.input_vocab_size)
    np.testing.assert_array_equal(tape[:, :4], batch.input + 1)
    np.testing.assert_array_equal(tape[:, 4:], np.full((3, 8), blank))
    model = tiny_model(task, memory)
    assert model(tape).shape == (3, 12, task.output_vocab_size)
    logits = chomsky_output_logits(model, batch.input, 8, task.input_vocab_size)
    assert logits.shape == (3, 8, task.output_vocab_size)
    # Left padding is masked: several lengths can share one compiled shape without changing an answer.
    padded = chomsky_output_logits(model, batch.input, 8, task.input_vocab_size, steps=32)
    np.testing.assert_allclose(padded, logits, atol=1e-5)


def test_the_tape_is_checked():
    with pytest.raises(ValueError, match=r"`steps` must be at least input_length \+ output_length = 5"):
        chomsky_tape(np.zeros((1, 3), int), 2, 2, steps=4)
    with pytest.raises(ValueError, match=r"ids must lie in \[0, 2\)"):
        chomsky_tape(np.full((1, 3), 2), 2, 2)
    with pytest.raises(ValueError, match="`gate_activation` applies to memory models, not memory='superposition_stack'"):
        build_chomsky_model(2, 2, memory="superposition_stack", memory_options=MemoryOptions(gate_activation="hard_sigmoid"))
    with pytest.raises(ValueError, match="`strength_noise` applies to memory models, not memory='superposition_stack'"):
        build_chomsky_model(2, 2, memory="superposition_stack", memory_options=MemoryOptions(strength_noise=1.0))


def test_accuracy_by_length_is_the_same_whatever_the_batches_it_predicts():
    """Sub-batches of 64 (the last partial) are the unit of the accuracy, whatever the prediction batch."""
    setup = chomsky.task_setup("chomsky_hierarchy/binary_addition")
    model = tiny_model(setup.task, "queue")
    chomsky.compile_model(model, 1e-3)
    curves = [chomsky.accuracy_by_length(model, setup, seed=3, max_length=3, sequences=130, batch_size=size,
                                         verbose=False) for size in (1, 128)]  # fmt: skip
    assert [point["length"] for point in curves[0]] == [1, 2, 3]
    for one, other in zip(*curves):
        assert one["accuracy"] == pytest.approx(other["accuracy"], abs=1e-12)


def test_the_score_is_the_mean_accuracy_beyond_the_training_lengths():
    curve = [{"length": length, "accuracy": 1.0 if length <= 40 else length / 100} for length in range(1, 51)]
    assert chomsky.score(curve) == pytest.approx(np.mean(np.arange(41, 51) / 100))
    assert chomsky.score(curve[:40]) is None  # nothing beyond training measured
    record = chomsky.curve_record(chomsky.task_setup("chomsky_hierarchy/parity_check"), "m", curve, 1000, 8)
    assert record["scored_lengths"] == [41, 50] and record["evaluation"]["lengths"] == [1, 50]


@pytest.mark.parametrize("memory", CHOMSKY_MODELS)
def test_every_model_kind_survives_a_keras_file(memory, tmp_path):
    import keras_neural_memory  # noqa: F401  (registers the layers)

    task = chomsky_task("reverse_string")
    model = tiny_model(task, memory)
    tape = chomsky_tape(task.sample_batch(random.Random(0), 2, 3).input, 3, task.input_vocab_size, steps=8)
    model.save(tmp_path / "model.keras")
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    np.testing.assert_allclose(loaded(tape), model(tape), atol=1e-6)


# ------------------------------------------------------------------- runs

RUN = ["--task", "chomsky_hierarchy/reverse_string", "--hidden-size", "4", "--memory-width", "2",
       "--batch-size", "4", "--steps-per-epoch", "2", "--eval-max-length", "3", "--eval-sequences", "4",
       "--verbose", "0"]  # fmt: skip


def train(out, *extra):
    from keras_neural_memory.experiments import cli

    return cli.main(["train", *RUN, "--output-dir", str(out), *extra])


def test_a_run_resumes_after_an_interruption_and_is_not_trained_again(tmp_path, monkeypatch, capsys):
    from keras_neural_memory.experiments import protocols

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    # Killed after its first epoch, while measuring: the backup survives.
    monkeypatch.setattr(protocols.CHOMSKY, "measure", killed)
    with pytest.raises(KeyboardInterrupt):
        train(tmp_path, "--epochs", "1", "--memory", "superposition_stack")
    assert not (tmp_path / "results.json").exists()
    first_row = (tmp_path / "history.csv").read_text().splitlines()[1]
    monkeypatch.undo()
    capsys.readouterr()
    # Given a second epoch, the same command trains only that one.
    assert train(tmp_path, "--epochs", "2", "--memory", "superposition_stack") == 0
    out = capsys.readouterr().out
    assert "resuming after 1 finished epoch (epoch 0 in history.csv)" in out
    assert "no score: no length beyond 40 was measured" in out
    rows = (tmp_path / "history.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[1] == first_row
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["batches"] == 4 and results["settings"]["learning_rate"] == 5e-4
    assert results["score"] is None and results["accuracy_by_length"] == chomsky.CURVE_FILE
    curve = json.loads((tmp_path / chomsky.CURVE_FILE).read_text())["accuracy_by_length"]
    assert [point["length"] for point in curve] == [1, 2, 3]
    assert (tmp_path / chomsky.PLOT_FILE).stat().st_size > 1000
    assert not (tmp_path / "backup").exists()
    # Finished: not trained again.
    model = (tmp_path / "model.keras").read_bytes()
    assert train(tmp_path, "--epochs", "2", "--memory", "superposition_stack") == 0
    assert "not retraining" in capsys.readouterr().out
    assert (tmp_path / "model.keras").read_bytes() == model


def test_the_final_measurement_resumes_at_the_length_it_stopped(tmp_path, monkeypatch, capsys):
    original = chomsky.training_example
    measured_lengths, stop_at = [], [3]

    def stopped_at_length_3(task, batch, steps=None):
        if steps is not None:  # an evaluation batch
            measured_lengths.append(batch.input.shape[1])
            if batch.input.shape[1] in stop_at:
                raise KeyboardInterrupt
        return original(task, batch, steps)

    monkeypatch.setattr(chomsky, "training_example", stopped_at_length_3)
    with pytest.raises(KeyboardInterrupt):
        train(tmp_path, "--epochs", "1", "--memory", "superposition_stack", "--eval-max-length", "4")
    progress = json.loads((tmp_path / chomsky.PROGRESS_FILE).read_text())
    assert [point["length"] for point in progress["accuracy_by_length"]] == [1, 2]
    assert progress["optimizer_step"] == 2 and progress["sequences"] == 4
    measured_lengths.clear()
    stop_at.clear()
    capsys.readouterr()
    assert train(tmp_path, "--epochs", "1", "--memory", "superposition_stack", "--eval-max-length", "4") == 0
    assert "resuming the evaluation after length 2" in capsys.readouterr().out
    assert sorted(set(measured_lengths)) == [3, 4]  # lengths 1 and 2 are not measured again
    curve = json.loads((tmp_path / chomsky.CURVE_FILE).read_text())["accuracy_by_length"]
    assert curve[:2] == progress["accuracy_by_length"] and [point["length"] for point in curve] == [1, 2, 3, 4]
    assert not (tmp_path / chomsky.PROGRESS_FILE).exists()


def test_the_stack_rnn_takes_the_depth_of_its_stack_from_the_command_line(tmp_path, capsys):
    from keras_neural_memory.experiments.config import RunConfig

    assert train(tmp_path, "--epochs", "1", "--memory", "superposition_stack", "--stack-size", "7") == 0
    assert json.loads((tmp_path / "results.json").read_text())["settings"]["stack_size"] == 7
    loaded = keras.saving.load_model(tmp_path / "model.keras")
    assert loaded.get_layer("superposition_stack_rnn").cell.stack_size == 7
    # Another depth is another run.
    assert train(tmp_path, "--epochs", "1", "--memory", "superposition_stack") == 2
    assert "holds a finished run with other settings" in capsys.readouterr().err
    # The authors' depth is recorded as runs made before the flag existed, so theirs still match.
    task = "chomsky_hierarchy/reverse_string"
    default = RunConfig(task, memory="superposition_stack").resolved()
    assert default.stack_size == 30 and "stack_size" not in default.settings()
    assert RunConfig(task, memory="superposition_stack", stack_size=30).resolved().settings() == default.settings()
    assert RunConfig(task, memory="lstm").resolved().stack_size is None


def test_a_stack_rnn_is_measured_again_with_a_stack_that_holds_the_whole_tape(tmp_path, capsys):
    assert train(tmp_path, "--epochs", "1", "--memory", "superposition_stack", "--stack-size", "2") == 0
    results = json.loads((tmp_path / "results.json").read_text())
    # reverse_string at the last length, 3: 3 input steps and 3 output steps.
    whole_tape = results["whole_tape_stack"]
    assert whole_tape["stack_size"] == 6 and whole_tape["accuracy_by_length"] == chomsky.WHOLE_TAPE_CURVE_FILE
    record = json.loads((tmp_path / chomsky.WHOLE_TAPE_CURVE_FILE).read_text())
    assert [point["length"] for point in record["accuracy_by_length"]] == [1, 2, 3]
    assert (tmp_path / chomsky.WHOLE_TAPE_PLOT_FILE).is_file()
    assert not (tmp_path / chomsky.WHOLE_TAPE_PROGRESS_FILE).exists()
    assert "with a stack of 6 vectors" not in capsys.readouterr().out  # no score below length 41
    # The stack as deep as each tape answers as one deeper than every tape.
    setup = chomsky.task_setup("chomsky_hierarchy/reverse_string")
    deep = chomsky.with_stack_size(keras.saving.load_model(tmp_path / "model.keras"), setup, 100)
    curve = chomsky.accuracy_by_length(deep, setup, results["evaluation"]["seed"], 3, 4, verbose=False)
    assert curve == record["accuracy_by_length"]
    # A stack as deep as the tape needs no second measurement, nor does a model without one.
    assert train(tmp_path / "deep", "--epochs", "1", "--memory", "superposition_stack", "--stack-size", "6") == 0
    assert "whole_tape_stack" not in json.loads((tmp_path / "deep" / "results.json").read_text())


def test_evaluate_redraws_the_curve_and_scores_the_lengths_beyond_training(tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    assert train(tmp_path, "--epochs", "1", "--memory", "lstm", "--learning-rate", "1e-4") == 0
    trained = json.loads((tmp_path / chomsky.CURVE_FILE).read_text())
    for name in (chomsky.CURVE_FILE, chomsky.PLOT_FILE):
        (tmp_path / name).unlink()
    # By default, the run's own measurement again: the same curve.
    assert cli.main(["evaluate", "--model", str(tmp_path)]) == 0
    assert json.loads((tmp_path / chomsky.CURVE_FILE).read_text()) == trained
    assert (tmp_path / chomsky.PLOT_FILE).is_file()
    report = tmp_path / "report.json"
    args = ["evaluate", "--model", str(tmp_path), "--eval-max-length", "42", "--eval-sequences", "2"]
    assert cli.main([*args, "--output", str(report)]) == 0
    record = json.loads((tmp_path / chomsky.CURVE_FILE).read_text())
    accuracies = [point["accuracy"] for point in record["accuracy_by_length"]]
    assert len(accuracies) == 42 and record["scored_lengths"] == [41, 42]
    assert record["score"] == pytest.approx(np.mean(accuracies[40:]))
    assert json.loads(report.read_text())["score"] == record["score"]
    assert (tmp_path / chomsky.PLOT_FILE).stat().st_size > 1000
    assert "score (mean accuracy over lengths 41 and up)" in capsys.readouterr().out
    # The flags of the other tasks' evaluation do not apply.
    assert cli.main([*args, "--lengths", "3", "4"]) == 2
    err = capsys.readouterr().err
    assert "--lengths does not apply to chomsky_hierarchy/reverse_string" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--task", "chomsky_hierarchy/reverse"], "unknown task 'chomsky_hierarchy/reverse'; choose one of: "
         "chomsky_hierarchy/even_pairs, chomsky_hierarchy/parity_check"),
        (["--task", "chomsky_hierarchy/reverse_string", "--scale", "quick"],
         "--scale does not apply to chomsky_hierarchy/reverse_string"),
        (["--task", "chomsky_hierarchy/reverse_string", "--eval-examples", "10"],
         "--eval-examples does not apply to chomsky_hierarchy/reverse_string"),
        (["--task", "chomsky_hierarchy/reverse_string", "--memory", "superposition_stack", "--strength-noise", "1"],
         "`strength_noise` applies to memory models, not memory='superposition_stack'"),
        (["--task", "sequence_copy", "--memory", "superposition_stack"],
         "--memory superposition_stack is the Stack-RNN of the chomsky_hierarchy/ tasks"),
        (["--task", "sequence_copy", "--eval-sequences", "8"], "--eval-sequences applies to chomsky_hierarchy/ tasks only"),
        (["--task", "chomsky_hierarchy/reverse_string", "--memory", "stack", "--stack-size", "64"],
         "--stack-size sizes the stack of --memory superposition_stack, not of stack, whose memory grows"),
    ],
)  # fmt: skip
def test_a_wrong_command_exits_2_with_one_line(args, message, tmp_path, capsys):
    from keras_neural_memory.experiments import cli

    assert cli.main(["train", *args, "--output-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()
