"""The `neural-memory` console script: `cli.main` without TensorFlow's start-up noise.

Importing TensorFlow prints a dozen lines to stderr before a command can
speak: oneDNN and CPU-instruction notes, "Could not find cuda drivers", and
absl's "All log messages before absl::InitializeLog() is called are written
to STDERR"; its first computation on a machine without a GPU adds an
`E0000 ... failed call to cuInit` error. `main` sets `TF_CPP_MIN_LOG_LEVEL`
to 3, which quiets TensorFlow's C++ log (its errors that matter reach Python
as exceptions), and imports TensorFlow while holding back what its shared
libraries log as they load, as absl writes that before any level applies.
A `TF_CPP_MIN_LOG_LEVEL` of the user's own wins, for both: 0 shows it all.
Python warnings, Keras' messages and the app's own output are untouched.

This module stands outside `keras_neural_memory` because importing any
module of that package runs its `__init__`, which imports Keras, which on
its TensorFlow backend imports TensorFlow at once.
"""

import contextlib
import importlib.util
import os
import re
import sys
import tempfile

# absl's prefix of one log message, e.g. "I0000 00:00:1795853040.745709    4158 port.cc:153] ".
_ABSL_MESSAGE = re.compile(rb"([IWEF])\d{4} [\d:.]+ +\d+ [^ \]]+:\d+\] ")
_ABSL_PRE_INIT_NOTE = b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR"
_SEVERITIES = b"IWEF"  # TF_CPP_MIN_LOG_LEVEL 1 hides I, 2 also W, 3 also E


def main():
    """Runs `neural-memory` on `sys.argv[1:]`; returns the exit status."""
    # Before anything imports TensorFlow, or JAX, which sets a default of 1 of its own.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    _import_tensorflow(min_level=_log_level(os.environ["TF_CPP_MIN_LOG_LEVEL"]))
    from keras_neural_memory.experiments import cli

    return cli.main()


def _log_level(text):
    """`TF_CPP_MIN_LOG_LEVEL` as TensorFlow reads it: an integer, else 0."""
    try:
        return int(text)
    except ValueError:
        return 0


def _import_tensorflow(min_level):
    """Imports TensorFlow, if installed, passing on only what it logs at `min_level` or above."""
    # The commands need TensorFlow on any backend (tf.data), so importing it
    # first costs only `--help` and argument errors on JAX a second or two.
    if "tensorflow" in sys.modules or importlib.util.find_spec("tensorflow") is None:
        return
    filtered = min_level > 0 and sys.stderr is not None  # None: stderr is closed, nothing to filter
    with _stderr_without_logs_below(min_level) if filtered else contextlib.nullcontext():
        import tensorflow  # noqa: F401


@contextlib.contextmanager
def _stderr_without_logs_below(min_level):
    """Holds back the block's stderr, C++ included; then passes it on less absl's logs below `min_level`.

    absl's pre-initialisation note goes too. The lines after a message's
    first (which carries absl's prefix) go with it; other text is kept. All
    is passed on even when the block raises; if the process dies in the
    block (a fatal TensorFlow log aborts it), it is lost, and
    `TF_CPP_MIN_LOG_LEVEL=0` shows it.
    """
    with tempfile.TemporaryFile() as held:
        sys.stderr.flush()
        original = os.dup(2)
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(original, 2)
            os.close(original)
            held.seek(0)
            kept, keeping = [], True
            for line in held:
                message = _ABSL_MESSAGE.match(line)
                if message:
                    keeping = _SEVERITIES.index(message[1]) >= min_level
                if keeping and line.rstrip() != _ABSL_PRE_INIT_NOTE:
                    kept.append(line)
            if kept:
                with os.fdopen(os.dup(2), "wb") as stderr:
                    stderr.write(b"".join(kept))


if __name__ == "__main__":
    sys.exit(main())
