"""The Chomsky-hierarchy benchmark scripts: the stack-depth rebuild, the cost model, the grown memory, their pages."""

import json
import pathlib
import random
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import chomsky_cost  # noqa: E402
import chomsky_stack_depth  # noqa: E402
import memory_growth  # noqa: E402

from keras_neural_memory import models  # noqa: E402
from keras_neural_memory.experiments import chomsky  # noqa: E402


def test_a_stack_run_with_a_deeper_stack_keeps_its_weights_and_its_answers_within_the_old_depth():
    setup = chomsky.task_setup("chomsky_hierarchy/reverse_string")
    task = setup.task
    trained = models.build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory="superposition_stack",
                                         hidden_size=6, memory_width=3, stack_size=4)  # fmt: skip
    deeper = chomsky.with_stack_size(trained, setup, 64)
    for old, new in zip(trained.get_weights(), deeper.get_weights()):
        np.testing.assert_array_equal(old, new)
    # A string of 2 never reaches the bottom of a stack of 4: the same answers.
    batch = task.sample_batch(random.Random(0), 3, 2)
    tape, _, _ = chomsky.training_example(task, batch)
    np.testing.assert_allclose(deeper.predict_on_batch(tape), trained.predict_on_batch(tape), atol=1e-6)
    lstm = models.build_chomsky_model(task.input_vocab_size, task.output_vocab_size, memory="lstm", hidden_size=6)
    with pytest.raises(ValueError, match="`model` must be a Stack-RNN of build_chomsky_model"):
        chomsky.with_stack_size(lstm, setup, 64)
    # The trace's actions are the cell's own: probabilities over push, pop and no-op in each phase.
    trace = chomsky_stack_depth.action_trace(trained, setup, length=5, sequences=3, seed=0)
    assert list(trace) == ["reading", "answering"]
    for actions in trace.values():
        assert list(actions) == ["push", "pop", "no_op"] and sum(actions.values()) == pytest.approx(1, abs=2e-3)


def test_the_depth_table_takes_the_runs_own_curves_and_measures_only_other_depths(tmp_path, monkeypatch):
    from keras_neural_memory.experiments import cli

    run = tmp_path / "run"
    argv = ["train", "--task", "chomsky_hierarchy/reverse_string", "--memory", "superposition_stack",
            "--stack-size", "2", "--hidden-size", "4", "--memory-width", "2", "--batch-size", "4", "--epochs", "1",
            "--steps-per-epoch", "2", "--eval-max-length", "3", "--eval-sequences", "4", "--verbose", "0",
            "--output-dir", str(run)]  # fmt: skip
    assert cli.main(argv) == 0
    measure = chomsky.accuracy_by_length
    measured_depths = []

    def counted(model, *args, **kwargs):
        measured_depths.append(model.get_layer("superposition_stack_rnn").cell.stack_size)
        return measure(model, *args, **kwargs)

    monkeypatch.setattr(chomsky, "accuracy_by_length", counted)
    page, record = tmp_path / "chomsky.md", tmp_path / "depth.json"
    page.write_text("# The Chomsky-hierarchy benchmark\n")
    # Depth 2 trained it and 6 holds the tape of length 3: the run measured both itself.
    args = ["--runs", str(run), "--output", str(record), "--page", str(page), "--trace-length", "3"]
    assert chomsky_stack_depth.main([*args, "--stack-sizes", "2,6,9"]) == 0
    assert measured_depths == [9]
    rows = {row["stack_size"]: row for row in json.loads(record.read_text())["runs"]}
    for depth, curve_file in ((2, chomsky.CURVE_FILE), (6, chomsky.WHOLE_TAPE_CURVE_FILE)):
        own = json.loads((run / curve_file).read_text())["accuracy_by_length"]
        assert rows[depth]["accuracy_by_length"] == [point["accuracy"] for point in own]
    # No stack that holds the whole tape drops a vector: a deeper one gives the same answers.
    assert rows[9]["accuracy_by_length"] == pytest.approx(rows[6]["accuracy_by_length"])
    assert "nan" not in page.read_text()  # lengths 1-3 have no score, nor a capacity's


def test_the_capacity_score_is_the_mean_of_half_plus_what_fits_over_the_scored_lengths():
    assert chomsky_stack_depth.capacity_score(500) == pytest.approx(1.0)
    assert chomsky_stack_depth.capacity_score(0) == pytest.approx(0.5)
    lengths = np.arange(41, 501)
    assert chomsky_stack_depth.capacity_score(30) == pytest.approx(np.mean(0.5 + 15 / lengths))


def test_the_depth_table_marks_lengths_a_run_was_not_measured_at():
    actions = {phase: {"push": 0.5, "pop": 0.5, "no_op": 0.0} for phase in ("reading", "answering")}
    row = {"seed": 1, "stack_size": 30, "trained_stack_size": 30, "score": 0.9, "actions": actions,
           "trace_length": 60, "accuracy_at": {"40": 1.0, "60": 0.8}, "accuracy_by_length": [1.0] * 60}  # fmt: skip
    table = chomsky_stack_depth.report([row])
    assert "| 1 | 30 | 0.900 | 1.000 | - | 0.800 | 0.50 / 0.50 / 0.00 | 0.50 / 0.50 / 0.00 |" in table
    assert "nan" not in table


def test_the_whole_evaluation_is_the_quadratic_through_the_measured_lengths_summed():
    lengths, seconds = [125, 250, 375, 500], [0.5 + 0.01 * n + 1e-5 * n * n for n in (125, 250, 375, 500)]
    expected = sum(0.5 + 0.01 * n + 1e-5 * n * n for n in range(1, 501))
    assert chomsky_cost.whole_evaluation_seconds(lengths, seconds, 500) == pytest.approx(expected)


def test_the_cost_script_measures_every_model_and_writes_its_part_of_the_page(tmp_path):
    page = tmp_path / "chomsky.md"
    page.write_text("# Page\n\nKept.\n")
    output = tmp_path / "cost.json"
    assert chomsky_cost.main(["--models", "superposition_stack,lstm", "--train-lengths", "2,3", "--eval-lengths",
                              "3,4,5", "--eval-sequences", "4", "--rounds", "1", "--output", str(output),
                              "--page", str(page)]) == 0  # fmt: skip
    record = json.loads(output.read_text())
    assert list(record["models"]) == ["superposition_stack", "lstm"]
    assert record["models"]["lstm"]["step_time_ratio_to_lstm"] == [1.0]
    assert record["sweep"]["runs_per_model"] == 15 * 3 * 3
    text = page.read_text()
    assert text.startswith("# Page\n\nKept.\n") and "| `superposition_stack` |" in text
    with pytest.raises(SystemExit):
        chomsky_cost.main(["--models", "stack", "--output", str(output)])


def test_the_growth_script_measures_both_memories_and_writes_its_part_of_the_page(tmp_path):
    page = tmp_path / "chomsky.md"
    page.write_text("# Page\n\nKept.\n")
    output = tmp_path / "growth.json"
    # Length 130: a tape of 288 steps, which grows.
    assert memory_growth.main(["--models", "stack", "--lengths", "130", "--sequences", "4", "--rounds", "1",
                               "--output", str(output), "--page", str(page)]) == 0  # fmt: skip
    record = json.loads(output.read_text())
    row = record["models"]["stack"]["130"]
    assert row["tape_steps"] == 288 and len(row["grown_to_whole"]) == 1
    assert row["accuracy"]["whole"] == row["accuracy"]["grown"]
    assert row["largest_logit_difference"] < 1e-5
    text = page.read_text()
    assert text.startswith("# Page\n\nKept.\n") and "| `stack` | 130 | 288 |" in text
