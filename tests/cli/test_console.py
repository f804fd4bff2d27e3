"""The `neural-memory` console script speaks first: TensorFlow's and absl's start-up logs do not precede it."""

import os
import re
import subprocess
import sys

import pytest

import keras_neural_memory_console as console

# What TensorFlow and absl print at start-up; none of it is the app's.
NOISE = re.compile(r"^[IWEF]\d{4} |E0000|cuInit|oneDNN|absl|tensorflow/|cuda|TF_ENABLE_ONEDNN_OPTS", re.M)
# The installed console script: the declared entry point, loaded and called as pip's wrapper does.
ENTRY_POINT = (
    "import sys; from importlib.metadata import entry_points; "
    "sys.exit(entry_points(group='console_scripts')['neural-memory'].load()())"
)


def _clean_env(**extra):
    """This environment, without a TF_CPP_MIN_LOG_LEVEL of its own, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if key != "TF_CPP_MIN_LOG_LEVEL"}
    return {**env, **extra}


def neural_memory(*args, timeout=300, **env):
    """Runs `neural-memory ARGS`; stdout and stderr together, in the order written."""
    return subprocess.run([sys.executable, "-c", ENTRY_POINT, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout, env=_clean_env(**env))  # fmt: skip


def test_the_console_script_is_the_entry_module():
    from importlib.metadata import entry_points

    assert entry_points(group="console_scripts")["neural-memory"].value == "keras_neural_memory_console:main"


def test_help_is_the_first_thing_printed():
    result = neural_memory("--help")
    assert result.returncode == 0, result.stdout[-3000:]
    assert result.stdout.startswith("usage: neural-memory [-h] {train,evaluate,reproduce}"), result.stdout[:3000]
    assert not NOISE.search(result.stdout), result.stdout[:3000]


@pytest.mark.parametrize(
    "args,error",
    [
        (["train"], "neural-memory train: error: the following arguments are required: --task"),
        (["train", "--task", "x", "--epochs", "-1"], "neural-memory train: error: argument --epochs: must be a positive integer, not -1"),
    ],
)  # fmt: skip
def test_an_argument_error_prints_only_the_usage_and_the_error(args, error):
    result = neural_memory(*args)
    assert result.returncode == 2, result.stdout[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0].startswith("usage: neural-memory train [-h]"), result.stdout[:3000]
    assert lines[-1] == error
    # The usage's continuation lines, indented under its first.
    assert all(line.startswith(" " * 20) for line in lines[1:-1]), result.stdout
    assert not NOISE.search(result.stdout), result.stdout


@pytest.mark.parametrize("own,kept", [(None, "3"), ("0", "0"), ("1", "1")])
def test_a_log_level_of_the_user_s_own_is_kept(own, kept):
    script = (
        "import os, keras_neural_memory_console as console\n"
        "try:\n    console.main()\nexcept SystemExit:\n    pass\n"
        "print('TF_CPP_MIN_LOG_LEVEL', os.environ['TF_CPP_MIN_LOG_LEVEL'])"
    )
    env = _clean_env() if own is None else _clean_env(TF_CPP_MIN_LOG_LEVEL=own)
    result = subprocess.run([sys.executable, "-c", script, "--help"], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[-1] == f"TF_CPP_MIN_LOG_LEVEL {kept}"


def test_importing_the_library_leaves_the_log_level_alone():
    # JAX sets a default of its own as it is imported (TensorFlow imports it
    # where installed); that one is let be, and taken away, first.
    script = (
        "import os\ntry:\n    import jax\nexcept ImportError:\n    pass\nos.environ.pop('TF_CPP_MIN_LOG_LEVEL', None)\n"
        "import keras_neural_memory, tfds_tasks, keras_neural_memory.experiments.cli, keras_neural_memory_console\n"
        "print(os.environ.get('TF_CPP_MIN_LOG_LEVEL'))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=_clean_env())
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines()[-1] == "None"


@pytest.mark.parametrize(
    "min_level,kept",
    [
        (1, b"a note of Python's\nW0000 00:00:1795853459.351027   14537 assert_op.cc:39] a warning\n"
            b"E0000 00:00:1795853455.974415   14466 cuda_platform.cc:52] an error\n  of two lines\n"),
        (3, b"a note of Python's\n"),
    ],
)  # fmt: skip
def test_only_absl_s_messages_below_the_level_are_held_back(capfd, min_level, kept):
    with console._stderr_without_logs_below(min_level):
        os.write(2, b"a note of Python's\n"
                    b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
                    b"I0000 00:00:1795853040.745709    4158 port.cc:153] oneDNN custom operations are on.\n"
                    b"I0000 00:00:1795853040.798309    4158 cpu_feature_guard.cc:227] This TensorFlow binary is optimized.\n"
                    b"To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow.\n"
                    b"W0000 00:00:1795853459.351027   14537 assert_op.cc:39] a warning\n"
                    b"E0000 00:00:1795853455.974415   14466 cuda_platform.cc:52] an error\n  of two lines\n")  # fmt: skip
    assert capfd.readouterr().err.encode() == kept


def test_held_back_output_is_passed_on_when_the_block_raises(capfd):
    with pytest.raises(ImportError), console._stderr_without_logs_below(3):
        os.write(2, b"why it failed\n")
        raise ImportError("no module")
    assert capfd.readouterr().err == "why it failed\n"


@pytest.mark.slow
def test_train_speaks_first(tmp_path):
    result = neural_memory("train", "--task", "sequence_copy", "--memory", "stack", "--scale", "quick", "--epochs", "1",
                           "--steps-per-epoch", "2", "--eval-examples", "10", "--verbose", "0", "--output-dir", str(tmp_path),
                           KERAS_BACKEND="tensorflow")  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    assert result.stdout.startswith("stack_lstm_32: "), result.stdout[:3000]
    assert not NOISE.search(result.stdout), result.stdout
