"""`run_folder`'s file helpers, importable from here too; they are defined, and documented, in `run_folder`."""

from keras_neural_memory.experiments.run_folder import (  # noqa: F401
    atomic_path,
    locked,
    save_model_atomically,
    writable_dir,
    write_atomically,
)
