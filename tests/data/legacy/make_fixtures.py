"""Writes the run folders and `.keras` outputs under tests/data/legacy/.

They were written by keras-neural-memory at commit daa416f (the run folder
of `train` as `training.py`, `files.py` and `evaluation.py` kept it then),
with the TensorFlow backend, from a scratch directory:

    PYTHONPATH=CHECKOUT_OF_daa416f TF_CPP_MIN_LOG_LEVEL=2 python tests/data/legacy/make_fixtures.py OUT

and OUT/* copied here without the TensorBoard `logs/` folders. The runs:

* `stack_finished`: neural-memory train --task sequence_copy --memory stack
  --scale quick --eval-examples 20 --hidden-size 16 --memory-width 8
  --epochs 2 --steps-per-epoch 5 --verbose 0
* `deque_finished`: the same with --task sequence_reversal --memory deque
  (the DeQue recipe of `cli.train_config`)
* `stack_interrupted`: the command of `stack_finished`, stopped by a
  KeyboardInterrupt right after epoch 1's backup was written (epoch 0 in
  history.csv); it has `settings.json`, `segments.json`, one history row
  and `backup/`, and no `model.keras` or `results.json`.
* `chomsky_finished`: neural-memory train --task
  chomsky_hierarchy/reverse_string --memory stack --epochs 2
  --steps-per-epoch 5 --batch-size 8 --hidden-size 16 --memory-width 8
  --eval-max-length 4 --eval-sequences 2 --verbose 0

`NAME/outputs.npz` holds `inputs` (one batch of the task's examples) and
`logits`, the run's predictions of them: from its `model.keras`, and for
`stack_interrupted` from its backup as `evaluation.load_run` loaded it.
"""

import pathlib
import shutil
import sys

import keras
import numpy as np

from keras_neural_memory.experiments import cli, data

COMMON = ["--epochs", "2", "--steps-per-epoch", "5", "--verbose", "0"]
SMALL = ["--hidden-size", "16", "--memory-width", "8"]
RUNS = {
    "stack_finished": ["--task", "sequence_copy", "--memory", "stack", "--scale", "quick", "--eval-examples", "20", *SMALL],
    "deque_finished": ["--task", "sequence_reversal", "--memory", "deque", "--scale", "quick", "--eval-examples", "20", *SMALL],
    "chomsky_finished": ["--task", "chomsky_hierarchy/reverse_string", "--memory", "stack", "--batch-size", "8", *SMALL,
                         "--eval-max-length", "4", "--eval-sequences", "2"],
}


class _StopAfterFirstBackup(keras.callbacks.BackupAndRestore):
    def on_epoch_end(self, epoch, logs=None):
        super().on_epoch_end(epoch, logs)
        if epoch == 0:
            raise KeyboardInterrupt


def _train(folder, options):
    assert cli.main(["train", *options, *COMMON, "--output-dir", str(folder)]) == 0
    _tidy(folder)


def _tidy(folder):
    """Without what a run writes besides its run files: TensorBoard logs and lock files."""
    shutil.rmtree(folder / "logs", ignore_errors=True)
    for lock in folder.glob(".lock-*"):
        lock.unlink()


def _store_outputs(folder, task, model=None):
    import keras_neural_memory  # noqa: F401  (registers the layers)

    if model is None:
        model = keras.saving.load_model(folder / "model.keras")
    if task.startswith("chomsky_hierarchy/"):
        from keras_neural_memory.experiments import chomsky

        setup = chomsky.task_setup(task)
        inputs = next(iter(chomsky.training_batches(setup, 7, 4, 0, 1)))[0]
    else:
        setup = data.task_setup(task, "quick")
        inputs = next(iter(data.whole_batches(setup, "test", 4, 7, 4)[0]))[0]
    inputs = np.asarray(inputs)
    np.savez(folder / "outputs.npz", inputs=inputs, logits=np.asarray(model.predict(inputs, verbose=0)))


def main(out):
    out = pathlib.Path(out)
    for name, options in RUNS.items():
        _train(out / name, options)
        _store_outputs(out / name, options[1])
    keras.callbacks.BackupAndRestore, original = _StopAfterFirstBackup, keras.callbacks.BackupAndRestore
    try:
        cli.main(["train", *RUNS["stack_finished"], *COMMON, "--output-dir", str(out / "stack_interrupted")])
        raise AssertionError("the run was not interrupted")
    except KeyboardInterrupt:
        pass
    finally:
        keras.callbacks.BackupAndRestore = original
    _tidy(out / "stack_interrupted")
    from keras_neural_memory.experiments import evaluation

    model, _, source = evaluation.load_run(out / "stack_interrupted")
    assert source.endswith("(after epoch 1; the run has not finished)"), source
    _store_outputs(out / "stack_interrupted", "sequence_copy", model)


if __name__ == "__main__":
    main(sys.argv[1])
