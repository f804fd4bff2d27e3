"""The file helpers of `run_folder`, by the module name `chomsky`, `reproduce` and `cli` import them from.

They are defined in `run_folder`; import them from there.
"""

from keras_neural_memory.experiments.run_folder import (  # noqa: F401
    atomic_path,
    locked,
    save_model_atomically,
    writable_dir,
    write_atomically,
)
