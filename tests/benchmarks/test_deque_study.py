"""`benchmarks/deque_study.py`: the DeQue study's page, from its record."""

import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import deque_study  # noqa: E402


def _row(condition, seed, invocation_seeds, test_coarse, scale="default", epochs=60, learning_rate=5e-3):
    trace = {"push (source)": 0.9, "pop before output": 0.5, "push (target)": 0.0, "pop (target)": 0.9}
    ends = [trace] if condition in ("queue", "stack") else [trace, trace]
    return {"task": "sequence_copy", "condition": condition, "seed": seed, "invocation_seeds": invocation_seeds,
            "settings": {"scale": scale, "epochs": epochs, "learning_rate": learning_rate}, "batches": 900, "converged": True, "train_coarse": 1.0,
            "test_coarse": test_coarse, "test_fine": 1.0, "segments": None, "trace": ends}  # fmt: skip


def test_the_page_gives_one_command_per_invocation_that_trained_its_runs():
    rows = [
        *(_row("queue", seed, [3, 4], 1.0) for seed in (3, 4)),
        *(_row("hard_sigmoid_quiet_end", seed, [3, 4], 0.99) for seed in (3, 4)),
        # A later command on seeds that continue the first: its own command, not merged into the first.
        _row("hard_sigmoid_quiet_end", 5, [5], 0.5),
        # The paper's scale: a section of its own, whose command says so.
        _row("hard_sigmoid_quiet_end", 3, [3], 1.0, scale="paper", epochs=40),
    ]
    text = deque_study.report(rows)
    assert "`python benchmarks/deque_study.py --tasks sequence_copy --conditions hard_sigmoid_quiet_end --seeds 3,4`" in text
    assert "`python benchmarks/deque_study.py --tasks sequence_copy --conditions hard_sigmoid_quiet_end --seeds 5`" in text
    assert "| hard_sigmoid_quiet_end | 2 / 3 (seeds 3-5) | 900 (900-900) | 1.000 | 0.500-0.990 |" in text
    assert "sequence_reversal" not in text  # no rows, no section
    default, paper = text.split("- Paper scale: training strings of length 8-64, test 65-128, 128 symbols, LSTM 256")
    # The memory traces stay in the record, which the page links to.
    assert text.startswith("Every run's memory trace") and "(deque_study_runs.json)" in text
    assert "\n- Default scale: training strings of length 8-16" in default and "budget of 6,000 batches" in default
    assert "### sequence_copy, paper scale" in paper and "epochs of 250 batches, or at its budget of 10,000 batches" in paper
    # A budget other than the default is part of the command that reproduces the run.
    assert ("`python benchmarks/deque_study.py --scale paper --tasks sequence_copy --conditions hard_sigmoid_quiet_end "
            "--seeds 3 --epochs 40`") in paper
    assert "| hard_sigmoid_quiet_end | 1 / 1 (seed 3) |" in paper
    assert "RMSProp 5e-3, batch 10" in default


def test_the_train_command_s_runs_have_their_own_command_and_budget_and_leave_the_protocol_alone():
    defaults = [{**_row("train_defaults", seed, [13, 14], test, epochs=10), "batches": 3000, "converged": False}
                for seed, test in ((13, 1.0), (14, 0.5))]  # fmt: skip
    for row in defaults:
        row["settings"].update(steps_per_epoch=300, learning_rate=2e-3)
    text = deque_study.report([_row("queue", 3, [3], 1.0), *defaults])
    # The command gives no --epochs: the train command's own budget is not the study's.
    assert "`python benchmarks/deque_study.py --tasks sequence_copy --conditions train_defaults --seeds 13,14`" in text
    assert "| train_defaults | 1 / 2 (seeds 13,14) | 3,000 (3,000-3,000) | 1.000 | 0.500-1.000 |" in text
    assert "with no other option, which trains its whole budget (3,000 batches) without the stopping rule" in text
    # The study's protocol sentence speaks of its own runs only: one rate, its budget.
    assert "RMSProp 5e-3, batch 10" in text and "budget of 6,000 batches" in text


def test_the_protocol_names_every_learning_rate_of_its_runs():
    rows = [_row("queue", 3, [3], 1.0), _row("queue_lr2e-3", 3, [3], 1.0, learning_rate=2e-3)]
    assert "RMSProp 5e-3 (2e-3 in the conditions named so), batch 10." in deque_study.report(rows)


def test_a_run_at_exactly_the_bar_learns_although_float32_holds_it_below():
    from study_record import learned_row, learns

    assert learns(float(np.float32(475 / 500))) and not learns(float(np.float32(474 / 500)))
    runs = [{"seed": seed, "batches": 100, "train_coarse": 1.0, "test_coarse": float(np.float32(475 / 500))} for seed in (0, 1)]
    assert learned_row(runs).startswith("2 / 2 (seeds 0,1)")


def test_a_learning_rate_keeps_every_digit_of_its_mantissa():
    from study_record import rate_text

    assert [rate_text(rate) for rate in (5e-3, 2.5e-3, 1e-4)] == ["5e-3", "2.5e-3", "1e-4"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--tasks", "bigram_flip"], "--tasks takes sequence_copy, sequence_reversal; received bigram_flip"),
        (["--conditions", "loud"], "'loud' is not one of queue, stack, sigmoid"),
    ],
)
def test_bad_arguments_name_the_choices(args, message, capsys):
    with pytest.raises(SystemExit) as exit:
        deque_study.parse_args(args)
    assert exit.value.code == 2 and message in capsys.readouterr().err


def test_a_run_the_record_holds_with_the_same_settings_is_not_retrained(tmp_path, monkeypatch):
    import json

    args = ["--tasks", "sequence_copy", "--conditions", "hard_sigmoid_quiet_end", "--seeds", "3",
            "--runs-dir", str(tmp_path / "runs"), "--record", str(tmp_path / "record.json"), "--output", ""]  # fmt: skip
    parsed = deque_study.parse_args(args)
    rows = []
    for condition in ("queue", "hard_sigmoid_quiet_end"):
        settings = deque_study.run_config(parsed, "sequence_copy", condition, 3).resolved().settings()
        rows.append({**_row(condition, 3, [3], 1.0), "settings": settings})
    (tmp_path / "record.json").write_text(json.dumps(rows))
    trained = []
    monkeypatch.setattr(deque_study, "run_row", lambda *a: trained.append(a[2]) or rows[0])
    deque_study.main(args)
    assert trained == []  # both runs came from the record, although no run folder exists
    # Other settings (here a longer budget) make another run, which is trained.
    deque_study.main([*args, "--epochs", "70"])
    assert trained == ["queue", "hard_sigmoid_quiet_end"]


@pytest.mark.parametrize("scale, first_noisy_batch", [("default", 600), ("paper", 1000)])
def test_train_recipe_starts_the_noise_at_the_batch_where_train_starts_it(scale, first_noisy_batch, tmp_path):
    from keras_neural_memory.experiments import cli

    # `neural-memory train --memory deque` at this scale, as a user types it.
    argv = ["train", "--task", "sequence_copy", "--memory", "deque", "--scale", scale, "--output-dir", str(tmp_path)]
    train = cli.train_config(cli.parser().parse_args(argv)).resolved()
    parsed = deque_study.parse_args(["--scale", scale, "--conditions", "train_recipe", "--output", ""])
    study = deque_study.run_config(parsed, "sequence_copy", "train_recipe", 3).resolved()
    assert train.strength_noise_delay * train.steps_per_epoch == first_noisy_batch
    assert study.strength_noise_delay * study.steps_per_epoch == first_noisy_batch
    # Everything else of the recipe is train's; the budget and the stopping rule are the study's.
    assert study.memory_options == train.memory_options and study.learning_rate == train.learning_rate
    assert (study.steps_per_epoch, study.stop_at_coarse) == (deque_study.STEPS[scale], deque_study.STOP_AT)


def test_train_recipe_runs_without_the_baseline_and_the_page_states_its_noise_in_batches(tmp_path, monkeypatch):
    args = ["--scale", "paper", "--tasks", "sequence_copy", "--conditions", "train_recipe", "--seeds", "6",
            "--epochs", "40", "--runs-dir", str(tmp_path / "runs"), "--record", str(tmp_path / "record.json"), "--output", ""]  # fmt: skip
    trained = []
    monkeypatch.setattr(deque_study, "run_row", lambda *a: trained.append(a[2]) or _row(a[2], 6, [6], 1.0, "paper", 40))
    deque_study.main(args)
    assert trained == ["train_recipe"]
    text = deque_study.report([_row("train_recipe", 6, [6], 1.0, "paper", 40)])
    assert ("`train_recipe`: the DeQue recipe as `neural-memory train --scale paper --memory deque` trains it "
            "(hard-sigmoid gates, a random quiet end, 2e-3, strength noise 0.5 from batch 1,000)") in text
    assert "| train_recipe | 1 / 1 (seed 6) |" in text
