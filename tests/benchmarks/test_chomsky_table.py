"""`benchmarks/chomsky_table.py`: the sweep of the Chomsky-hierarchy table, on a tiny budget."""

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import chomsky_table  # noqa: E402

from keras_neural_memory.experiments import cli  # noqa: E402

TINY = ("--hidden-size 4 --memory-width 2 --batch-size 4 --epochs 1 --steps-per-epoch 2 --eval-max-length 3 "
        "--eval-sequences 4 --stack-size 2")  # fmt: skip


@pytest.mark.parametrize("model", tuple(chomsky_table.MODELS))
def test_every_model_is_a_train_command_of_the_protocol(model):
    argv = chomsky_table.command("reverse_string", model, 1, 3e-4)
    config = cli.train_config(cli.parser().parse_args(argv)).resolved()
    assert config.task == "chomsky_hierarchy/reverse_string" and config.learning_rate == 3e-4 and config.seed == 1
    assert config.epochs * config.steps_per_epoch == 10_000
    if model == "deque_recipe":
        assert config.memory_options.changed() == {"gate_activation": "hard_sigmoid", "strength_noise": 0.5,
                                                   "quiet_end": "random"}  # fmt: skip
        assert config.strength_noise_delay == 1  # the recipe's 500 quiet steps, in epochs of 1,000
    elif model in ("deque", "stack", "queue"):
        assert config.memory_options.changed() == {}


def test_the_shards_split_the_runs_without_overlap():
    args = chomsky_table.parse_args(["--seeds", "0,1"])
    every = chomsky_table.planned_runs(args)
    assert len(every) == 2 * len(chomsky_table.TASKS) * len(chomsky_table.MODELS)
    assert every[0] == ("reverse_string", "stack", 0)  # seeds first: a partial sweep covers every task
    shards = [chomsky_table.planned_runs(chomsky_table.parse_args(["--seeds", "0,1", "--shard", f"{i}/3"]))
              for i in (1, 2, 3)]  # fmt: skip
    assert sorted(run for part in shards for run in part) == sorted(every)
    with pytest.raises(SystemExit):
        chomsky_table.parse_args(["--shard", "3/2"])


def test_the_sweep_writes_one_record_and_a_second_start_trains_nothing(tmp_path, monkeypatch, capsys):
    record = tmp_path / "runs.json"
    argv = ["--tasks", "reverse_string", "--models", "superposition_stack", "--seeds", "0", "--runs-dir",
            str(tmp_path / "runs"), "--record", str(record), "--train-flags", TINY]  # fmt: skip
    assert chomsky_table.main(argv) == 0
    (row,) = json.loads(record.read_text())
    assert (row["task"], row["model"], row["seed"]) == ("reverse_string", "superposition_stack", 0)
    assert row["command"].startswith("neural-memory train --task chomsky_hierarchy/reverse_string --memory "
                                     "superposition_stack --seed 0 --learning-rate 0.0005 --hidden-size 4")  # fmt: skip
    assert row["devices"] and row["devices"][0].split(",")[0] in ("jax", "tensorflow", "torch")
    assert len(row["accuracy_by_length"]) == 3 and row["score"] is None and row["score_from_42"] is None
    assert row["whole_tape_stack"]["stack_size"] == 6 and len(row["whole_tape_stack"]["accuracy_by_length"]) == 3
    assert "reverse_string superposition_stack seed 0: no score" in capsys.readouterr().out

    def no_training(*args, **kwargs):
        raise AssertionError("a recorded run was trained again")

    monkeypatch.setattr(subprocess, "run", no_training)
    assert chomsky_table.main(argv) == 0
    assert json.loads(record.read_text()) == [row]


def test_the_mean_from_42_is_the_authors_slice():
    curve = [{"length": length, "accuracy": length / 100} for length in range(1, 45)]
    assert chomsky_table.mean_from(curve, 42) == pytest.approx(0.43)
    assert chomsky_table.mean_from(curve[:40], 42) is None
