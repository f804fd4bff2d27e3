"""What every example notebook does before it imports Keras.

The one home of the `NEURAL_MEMORY_EXAMPLES` setting and of the backend
choice; each notebook keeps its own sizes, one dict per setting, where a
reader sees them:

* `fast` (what CI runs): tiny models and a few batches, only to check that
  every cell runs;
* `default` (unset): the sizes of the stored outputs.

The notebooks import this file from their own folder, `examples/`.
"""

import importlib.util
import os

VARIABLE = "NEURAL_MEMORY_EXAMPLES"
MODES = ("fast", "default")


def choose_settings(settings, prefer_jax=False):
    """Returns `(mode, settings[mode])` for the mode `NEURAL_MEMORY_EXAMPLES` names, and prints it.

    Also hides TensorFlow's start-up log lines, unless `TF_CPP_MIN_LOG_LEVEL`
    is already set. Call it before importing Keras.

    Args:
        settings: `{"fast": {...}, "default": {...}}`, the notebook's sizes.
        prefer_jax: Use the JAX backend when JAX is installed and
            `KERAS_BACKEND` is not set. Notebooks that train many small
            models do: on a CPU, JAX compiles them faster than TensorFlow's XLA.

    Example:

    ```python
    MODE, SETTINGS = choose_settings({"fast": dict(steps=20), "default": dict(steps=1500)})
    ```
    """
    if sorted(settings) != sorted(MODES):
        raise ValueError(f"`settings` must have exactly the keys {MODES}; received {sorted(settings)}.")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if prefer_jax and importlib.util.find_spec("jax") is not None:
        os.environ.setdefault("KERAS_BACKEND", "jax")
    mode = os.environ.get(VARIABLE, "default")
    if mode not in MODES:
        raise ValueError(f"{VARIABLE} must be 'fast' or 'default', not {mode!r}")
    print(f"{VARIABLE}={mode}: {settings[mode]}")
    return mode, settings[mode]
