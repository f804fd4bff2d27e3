"""`RunConfig`, the paper's model names, and the argument checks the layers and the command line share."""

import argparse
import math
import re

import keras
import pytest

from keras_neural_memory import DequeCell, MemoryOptions
from keras_neural_memory.experiments import cli
from keras_neural_memory.experiments.config import PAPER_MODELS, SCALES, RunConfig, UsageError, model_kind
from keras_neural_memory.validation import InvalidArgumentError, check_positive_int, check_real


def test_resolved_takes_sizes_from_the_scale_or_from_hao_et_al():
    joint = RunConfig("sequence_reversal", scale="paper").resolved()
    assert (joint.hidden_size, joint.memory_width, joint.epochs, joint.steps_per_epoch) == (256, 256, 100, 1000)
    aligned = RunConfig("cumulative_xor", memory_width=6).resolved()
    assert (aligned.hidden_size, aligned.memory_width) == (10, 6)
    assert aligned.epochs == SCALES["default"]["epochs"]


def test_settings_are_what_makes_two_runs_the_same_run():
    a = RunConfig("sequence_copy", output_dir="x", verbose=0, jit_compile=False)
    b = RunConfig("sequence_copy", output_dir="y", overwrite=True)
    assert a.settings() == b.settings()
    assert a.settings() != RunConfig("sequence_copy", seed=1).settings()
    # The keys of results.json's "settings" in 0.1.0, so older runs are recognised.
    assert list(a.settings()) == [
        "task", "memory", "lstm_layers", "controller", "scale", "hidden_size", "memory_width", "learning_rate",
        "batch_size", "epochs", "steps_per_epoch", "stop_at_coarse", "eval_examples", "seed",
    ]  # fmt: skip
    # A newer option enters the settings only when it is used, for the same reason.
    noisy = RunConfig("sequence_copy", memory_options=MemoryOptions(strength_noise=1.0)).settings()
    assert noisy["strength_noise"] == 1.0 and noisy != a.settings()
    hard = RunConfig("sequence_copy", memory_options=MemoryOptions(gate_activation="hard_sigmoid")).settings()
    assert hard["gate_activation"] == "hard_sigmoid" and hard != a.settings()
    quiet = RunConfig("sequence_copy", memory="deque", memory_options=MemoryOptions(quiet_end="random")).settings()
    assert quiet["quiet_end"] == "random" and "quiet_end" not in RunConfig("sequence_copy", memory="deque").settings()
    quiet_noise = RunConfig("sequence_copy", memory="deque", memory_options=MemoryOptions(
        quiet_end="random", strength_noise=0.5, strength_noise_ends="quiet")).settings()  # fmt: skip
    assert quiet_noise["strength_noise_ends"] == "quiet" and "strength_noise_ends" not in quiet


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(memory="tape"), "Unknown `memory`='tape'"),
        (dict(scale="huge"), "Unknown `scale`='huge'"),
        (dict(epochs=0), "`epochs` must be a positive integer or None; received epochs=0."),
        (dict(batch_size=2.5), "`batch_size` must be a positive integer"),
        (dict(learning_rate=math.nan), "`learning_rate` must be a finite number above 0"),
        (dict(stop_at_coarse=1.5), "`stop_at_coarse` must be a finite number above 0 and <= 1"),
        (dict(strength_noise=-1.0), "`strength_noise` must be a finite number >= 0"),
        (dict(memory="lstm", strength_noise=1.0), "`strength_noise` applies to memory models, not memory='lstm'"),
        (dict(gate_activation="relu"), "`gate_activation` must be one of 'sigmoid', 'hard_sigmoid'"),
        (dict(memory="lstm", gate_activation="hard_sigmoid"), "`gate_activation` applies to memory models, not memory='lstm'"),
        (dict(memory="deque", quiet_end="left"), "`quiet_end` must be one of None, 'random', 'top', 'bottom'"),
        (dict(memory="queue", quiet_end="random"), "`quiet_end` applies to the DeQue, not memory='queue'"),
        (dict(memory="deque", strength_noise_ends="loud"), "`strength_noise_ends` must be one of 'all', 'quiet'"),
        (dict(memory="stack", strength_noise=1.0, quiet_end="top", strength_noise_ends="quiet"),
         "`strength_noise_ends` applies to the DeQue"),
        (dict(memory="deque", strength_noise=1.0, strength_noise_ends="quiet"), "no end starts quiet"),
        (dict(memory="queue", lstm_layers=2), "`lstm_layers` sets the depth of the LSTM baseline, not of memory='queue'"),
        (dict(task="cumulative_xor", memory="lstm", lstm_layers=2), "has models of one controller layer; leave out --lstm-layers 2"),
        (dict(task="sequence_copying"), "unknown task 'sequence_copying'; choose one of: "),
    ],
)
def test_run_config_rejects_bad_values_naming_the_field(kwargs, match):
    options = {name: kwargs.pop(name) for name in MemoryOptions.option_names() if name in kwargs}
    with pytest.raises(ValueError, match=re.escape(match)):
        RunConfig(**{"task": "sequence_copy", **kwargs}, memory_options=MemoryOptions(**options)).resolved()


def test_lstm_layers_are_the_depth_the_model_has():
    assert RunConfig("sequence_copy", memory="lstm").resolved().lstm_layers == 2
    assert RunConfig("sequence_copy", memory="lstm", lstm_layers=8).resolved().lstm_layers == 8
    for memory in ("stack", "queue", "deque"):
        assert RunConfig("sequence_copy", memory=memory).resolved().lstm_layers == 1
    assert RunConfig("cumulative_xor", memory="lstm").resolved().lstm_layers == 1  # Hao et al.: one layer


def test_settings_recorded_before_lstm_layers_was_resolved_read_as_the_run_they_were():
    """`train` once recorded the baseline's default depth, 2, for memory models, which have one layer."""
    queue = RunConfig("sequence_copy", memory="queue").resolved()
    old = {**queue.settings(), "lstm_layers": 2}
    assert RunConfig.from_settings(old) == queue
    hao = RunConfig("cumulative_xor", memory="lstm").resolved()
    assert RunConfig.from_settings({**hao.settings(), "lstm_layers": 2}) == hao
    deep = RunConfig("sequence_copy", memory="lstm", lstm_layers=4).resolved()
    assert RunConfig.from_settings(deep.settings()) == deep  # a baseline's depth is its own


def test_run_config_rejects_a_seed_that_is_not_an_int():
    # The same check as the memory cells' `seed`: a value of the wrong kind is a TypeError.
    for seed in ("0", 1.0, True):
        with pytest.raises(TypeError, match=re.escape(f"`seed` must be an integer; received seed={seed!r}.")):
            RunConfig("sequence_copy", seed=seed)


def test_model_names_of_the_paper_grid():
    assert [model_kind(name) for name in PAPER_MODELS] == [
        ("stack", 1), ("queue", 1), ("deque", 1), ("lstm", 1), ("lstm", 2), ("lstm", 4), ("lstm", 8),
    ]  # fmt: skip
    for bad in ("lstm0", "lstm", "tape", "LSTM2"):
        with pytest.raises(UsageError, match="unknown model"):
            model_kind(bad)


def test_library_and_command_line_share_one_check():
    with pytest.raises(InvalidArgumentError) as error:
        check_positive_int("memory_width", 0)
    assert error.value.expected == "a positive integer"
    # The same rule, worded for a flag by argparse.
    with pytest.raises(argparse.ArgumentTypeError, match="must be a positive integer, not 0"):
        cli.positive_int("0")
    with pytest.raises(ValueError, match="`memory_width` must be a positive integer or None; received memory_width=0."):
        DequeCell(keras.layers.LSTMCell(4), memory_width=0)
    with pytest.raises(TypeError, match="must be a real number"):
        check_real("pop_bias_init", "1")
    with pytest.raises(ValueError, match="finite"):
        DequeCell(keras.layers.LSTMCell(4), pop_bias_init=math.inf)
    check_real("x", 0.5, above=0, maximum=1)
    check_positive_int("x", None, allow_none=True)


def test_reproduce_takes_plan_and_still_reads_the_old_scale_flag(capsys):
    args = cli.parser().parse_args(["reproduce", "--plan", "paper"])
    assert args.plan == "paper"
    assert cli.parser().parse_args(["reproduce"]).plan == "quick"
    assert "note: --scale is now --plan" not in capsys.readouterr().err
    assert cli.parser().parse_args(["reproduce", "--scale", "default"]).plan == "default"
    assert "note: --scale is now --plan" in capsys.readouterr().err


def test_help_describes_every_plan(capsys):
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "--help"])
    out = capsys.readouterr().out
    assert "quick: the three memories" in out and "paper: every model at the paper's sizes" in out
