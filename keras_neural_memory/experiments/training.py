"""Training one run: the model, the paper's compile recipe, and a run that survives a kill.

Example:

```python
from keras_neural_memory.experiments import RunConfig, training

results = training.train(RunConfig("sequence_reversal", scale="quick", output_dir="runs/demo"))
results["test_accuracy"]  # {"coarse": ..., "fine": ..., "masked": ...}
```
"""

import collections
import contextlib
import importlib.util
import math
import os
import platform
import time

from keras_neural_memory.experiments import data
from keras_neural_memory.experiments.config import UsageError
# The papers' compile recipe and measurement, where the app's users have always found them.
from keras_neural_memory.experiments.protocols import compile_model, evaluation_batch_size, measure  # noqa: F401
from keras_neural_memory.experiments.run_folder import RunError, RunFolder


# The example streams of a run seeded s: epoch e trains on `data.epoch_seed(s, e)`, the held-out
# strings measured after every epoch come from s + VALIDATION_SEED_OFFSET, and the final accuracies
# from s + EVALUATION_SEED_OFFSET.
VALIDATION_SEED_OFFSET = 2000
EVALUATION_SEED_OFFSET = 1000


def task_setup(config):
    """The task of `config`, from its protocol: a `chomsky.ChomskySetup` or a `data.TaskSetup`."""
    return config.protocol.task_setup(config)


def build_model(setup, config):
    """The model the resolved `config` describes, for the task of `setup` (from `task_setup`), from its protocol.

    Grefenstette et al. tasks get `models.build_transducer`; Hao et al. tasks
    `models.build_hao_model`; Chomsky-hierarchy tasks
    `models.build_chomsky_model`.
    """
    return config.protocol.build_model(setup, config)


def distribution_scope(batch_size):
    """Data parallelism over all devices when the backend sees more than one.

    TensorFlow: `tf.distribute.MirroredStrategy`. JAX: the Keras 3
    distribution API, `keras.distribution.DataParallel`, which shards each
    batch over the devices (so the batch size must divide evenly).

    Returns:
        `(scope, replicas, on_gpus)`.
    """
    import keras

    backend = keras.backend.backend()
    if backend == "jax":
        devices = keras.distribution.list_devices()
        on_gpus = any(device.startswith(("gpu", "cuda")) for device in devices)
        if len(devices) < 2:
            return contextlib.nullcontext(), 1, on_gpus
        if batch_size % len(devices):
            raise UsageError(f"--batch-size {batch_size} does not split over {len(devices)} devices; "
                             f"pass a multiple of {len(devices)}")
        distribution = keras.distribution.DataParallel(devices=devices)
        return distribution.scope(), len(devices), on_gpus
    if backend != "tensorflow":
        return contextlib.nullcontext(), 1, False
    import tensorflow as tf

    gpus = tf.config.list_logical_devices("GPU")
    devices = gpus or tf.config.list_logical_devices("CPU")
    if len(devices) > 1:
        strategy = tf.distribute.MirroredStrategy([d.name for d in devices])
        return strategy.scope(), strategy.num_replicas_in_sync, bool(gpus)
    return contextlib.nullcontext(), 1, bool(gpus)


def train(config):
    """Trains the run `config` describes; returns the results it writes to `results.json`.

    A run survives being killed at any moment. Every epoch ends with the
    history row, then the backup (`OUTPUT/backup`); the same command then
    continues from the last backed-up epoch and rewrites the rows after it.
    Epoch `e` trains on the example stream seeded by `(seed, e)`, so a resumed
    run sees the examples an uninterrupted one would. `model.keras` and
    `results.json` are written atomically, and the backup is removed only
    after both: a finished run is recognised by its `results.json` and not
    retrained (unless `config.overwrite`). The run's settings are written to
    `settings.json` when it starts: a folder whose run under way has other
    settings is refused, except for its budget
    (`run_folder.BUDGET_SETTINGS`: resume it with a larger `epochs` to
    train it longer), and `run_folder.load_run` can load a run that has not
    finished from its backup. The folder is a `run_folder.RunFolder`.

    Args:
        config: A `RunConfig`.

    Returns:
        The results dict, with "output_dir" added. A run whose loss became
        NaN has `"diverged": True` and no accuracies. Its "train_seconds"
        is the sum of the epochs' wall-clock times, over every process that
        trained the run (the history's "epoch_seconds"; see `EpochHistory`
        for what they count); in a run resumed from files written before
        epochs were timed, where the history has no "epoch_seconds", it is
        the time of the process that finished the run alone. "segments" says where each process started.
        A Chomsky-hierarchy run has, in place of the accuracies, "score"
        (mean accuracy over lengths 41 and up), "scored_lengths",
        "evaluation", "eval_seconds" and "accuracy_by_length", the name of
        the curve file (`chomsky.CURVE_FILE`) it writes into its folder
        with its plot (`chomsky.PLOT_FILE`).

    Raises:
        UsageError: The folder holds a run of other settings, or another
            process is training it (one process trains a folder at a time;
            two would overwrite each other's backups and history).
        RunError: The disk filled up (the same command resumes the run
            once there is space), or the model does not fit in memory.
    """
    config = config.resolved()
    setup = config.protocol.task_setup(config)
    if config.curriculum_epochs:
        data.curriculum_regimes(setup, config.curriculum_epochs)  # a task without shorter lengths fails here
    run = RunFolder.create(config.output_path())
    with run.held():
        return _train_in(run, config, setup)


def _train_in(run, config, setup):
    """`train`, once it holds its folder `run`."""
    import keras

    from keras_neural_memory import StrengthNoiseScheduler
    from keras_neural_memory.experiments import callbacks as callbacks_lib

    settings = config.settings()
    finished, first_epoch = run.resume(settings, config.overwrite)
    if finished is not None:
        print(f"{run.path} holds this finished run; not retraining (pass --overwrite to retrain)", flush=True)
        return finished
    keras.utils.set_random_seed(config.seed)
    scope, replicas, on_gpus = distribution_scope(config.batch_size)
    jit_compile = config.jit_compile
    if replicas > 1 and not on_gpus and jit_compile and keras.backend.backend() == "tensorflow":
        # XLA cannot reach variables mirrored on other logical CPU devices.
        print("note: XLA is off for MirroredStrategy over several CPU devices", flush=True)
        jit_compile = False
    # The JAX distribution must stay current through fit and evaluate too.
    with scope:
        protocol = config.protocol
        model = _built(protocol, setup, config)
        protocol.compile_model(model, config.learning_rate, jit_compile)
        described = protocol.describe(setup, config)
        train_lengths, test_lengths = described["train_lengths"], described["test_lengths"]
        print(f"{model.name}: {model.count_params():,} parameters; task {config.task} ({setup.layout} layout), "
              f"train lengths {train_lengths[0]}-{train_lengths[1]}, "
              f"test lengths {test_lengths[0]}-{test_lengths[1]}; {replicas} replica(s)", flush=True)
        # Once the model exists: a model too large for memory leaves the folder as it was.
        segments = run.begin(settings, first_epoch, device_description(replicas))
        steps = config.steps_per_epoch
        # Only the papers' tasks take a curriculum (RunConfig refuses it on the others).
        curriculum = {"curriculum_epochs": config.curriculum_epochs} if config.curriculum_epochs else {}
        batches = protocol.training_batches(setup, config.seed, config.batch_size, first_epoch, steps, **curriculum)
        callbacks = [
            # Before the backup: an epoch is backed up only once its row is written.
            callbacks_lib.EpochHistory(run.history_path, first_epoch),
            keras.callbacks.BackupAndRestore(str(run.backup_path), double_checkpoint=True, delete_checkpoint=False),
            keras.callbacks.TerminateOnNaN(),
        ]
        if importlib.util.find_spec("tensorflow") is not None:
            callbacks.append(keras.callbacks.TensorBoard(str(run.logs_path)))
        else:
            print("note: no TensorBoard logs, as they need TensorFlow (pip install tensorflow)", flush=True)
        validation = {}
        if config.validation_examples:
            validation_data, validation_steps = data.whole_batches(
                setup, "validation", config.validation_examples, config.seed + VALIDATION_SEED_OFFSET, evaluation_batch_size(config)
            )
            validation = {"validation_data": validation_data, "validation_steps": validation_steps}
        if config.strength_noise_epochs or config.strength_noise_delay:
            noise, first, end = config.memory_options.strength_noise, config.strength_noise_delay or 0, config.strength_noise_epochs

            def noise_at(epoch, _):
                return noise if first <= epoch and (end is None or epoch < end) else 0.0

            callbacks.append(StrengthNoiseScheduler(noise_at, verbose=int(config.verbose > 0)))
        if config.stop_at_coarse is not None:
            monitor = "val_coarse_accuracy" if validation else "coarse_accuracy"
            callbacks.append(callbacks_lib.StopWhenLearned(run.history_path, config.stop_at_coarse, monitor=monitor))
        start = time.perf_counter()
        model.fit(batches, epochs=config.epochs, steps_per_epoch=steps, callbacks=callbacks,
                  verbose=config.verbose, shuffle=False, **validation)  # fmt: skip
        history = run.history()
        seconds = sum(history["epoch_seconds"]) if "epoch_seconds" in history else time.perf_counter() - start
        results = {
            "settings": settings,
            "task": config.task,
            "memory": config.memory,
            "model": model.name,
            "parameters": model.count_params(),
            "scale": described["scale"],
            "seed": config.seed,
            "learning_rate": config.learning_rate,
            "batches": len(history.get("loss", [])) * steps,
            "steps_per_epoch": steps,
            "train_seconds": round(seconds, 1),
            "segments": segments,
            "train_lengths": train_lengths,
            "test_lengths": test_lengths,
            "history": history,
            "diverged": not all(math.isfinite(loss) for loss in history.get("loss", [math.nan])),
        }
        if not results["diverged"]:
            results.update(protocol.measure(model, setup, config, run.path, config.seed + EVALUATION_SEED_OFFSET))
        return run.finish(model, results)


def finished_run(config):
    """The results of `config`'s run, as `train` wrote them, if it has finished; else None.

    The run is finished when its folder holds the `results.json` of a run of
    the same settings (`RunConfig.settings`, sizes resolved): see
    `RunFolder.finished`.

    Returns:
        The results dict with "output_dir" added, or None.

    Raises:
        UsageError: The folder holds a finished run of other settings.
    """
    config = config.resolved()
    return RunFolder(config.output_path()).finished(config.settings())


def _built(protocol, setup, config):
    """`protocol.build_model(setup, config)`; a `RunError` if the model does not fit in memory.

    Each backend fails in its own way on a model too large to allocate; its
    parameters are then counted (`_count_parameters`) to say how large it is.
    """
    try:
        return protocol.build_model(setup, config)
    except Exception as error:
        import keras
        import numpy as np

        try:
            parameters = _count_parameters(lambda: protocol.build_model(setup, config))
        except Exception:
            raise error from None
        size = parameters * np.dtype(keras.config.floatx()).itemsize
        if not (_is_allocation_error(error) or size > (_memory_bytes() or math.inf)):
            raise
        raise RunError(f"the model does not fit in memory: its {parameters:,} parameters ask for {_bytes_text(size)} "
                       f"({keras.config.floatx()}); pass a smaller --hidden-size or --memory-width") from None  # fmt: skip


def _count_parameters(build):
    """The parameters of the model `build()` returns, counted from their shapes, none allocated."""
    import keras
    from keras.src.backend.common import global_state  # where Keras keeps the variables it has not allocated

    pending = list(global_state.get_global_attribute("uninitialized_variables", None) or [])
    try:
        with keras.StatelessScope(initialize_variables=False):
            return build().count_params()
    finally:
        # No later stateless scope may allocate these.
        global_state.set_global_attribute("uninitialized_variables", pending)


def _is_allocation_error(error):
    """Whether `error` is the failure of an allocation, as NumPy, TensorFlow or XLA report it."""
    text = str(error)
    return (isinstance(error, MemoryError) or type(error).__name__ == "ResourceExhaustedError"
            or "RESOURCE_EXHAUSTED" in text or "Out of memory" in text)  # fmt: skip


def _memory_bytes():
    """The machine's memory in bytes; None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _bytes_text(size):
    """`size` bytes in the largest decimal unit that keeps a number of at least 1, e.g. "6.4 GB"."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB"):
        if size < 1000:
            break
        size /= 1000
    else:
        unit = "YB"
    return f"{size:,.3g} {unit}" if size < 1000 else f"{size:,.0f} {unit}"


def device_description(replicas=1):
    """The backend and device kind this process trains on, e.g. "jax, 1 x NVIDIA H100 80GB HBM3"."""
    import keras

    accelerators = _accelerators()
    kind = accelerators[0] if accelerators else f"CPU ({platform.machine()}, {_cpu_cores()})"
    return f"{keras.backend.backend()}, {replicas} x {kind}"


def machine_description():
    """The machine this process runs on: its CPU, and the accelerators the backend sees.

    E.g. "Intel(R) Xeon(R) CPU @ 2.20GHz (x86_64, 2 cores)", or
    "AMD EPYC 7B13 (x86_64, 16 cores), 1 x NVIDIA H200". The CPU's name is
    /proc/cpuinfo's "model name" where the system has one.
    """
    counts = collections.Counter(_accelerators())
    return ", ".join([f"{_cpu_model()} ({platform.machine()}, {_cpu_cores()})", *(f"{n} x {k}" for k, n in counts.items())])


def _accelerators():
    """The kind of every device other than the CPU that the backend sees (GPUs, TPUs), in its order."""
    import keras

    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        return [device.device_kind for device in jax.devices() if device.platform != "cpu"]
    if backend == "tensorflow":
        import tensorflow as tf

        return [tf.config.experimental.get_device_details(gpu).get("device_name") or "GPU"
                for gpu in tf.config.list_physical_devices("GPU")]  # fmt: skip
    return []


def _cpu_model():
    """The CPU's name from /proc/cpuinfo, else what `platform` says, else "CPU"."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "CPU"


def _cpu_cores():
    """`"N cores"`, or `"K of N cores"` when this process may run on only K of them (`taskset`)."""
    total = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else total
    return f"{total} cores" if usable == total else f"{usable} of {total} cores"


