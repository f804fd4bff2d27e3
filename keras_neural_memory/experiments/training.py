"""Training one run: the model, the paper's compile recipe, and a run that survives a kill.

Example:

```python
from keras_neural_memory.experiments import RunConfig, training

results = training.train(RunConfig("sequence_reversal", scale="quick", output_dir="runs/demo"))
results["test_accuracy"]  # {"coarse": ..., "fine": ..., "masked": ...}
```
"""

import contextlib
import csv
import dataclasses
import datetime
import importlib.util
import json
import math
import os
import pathlib
import platform
import shutil
import time

from keras_neural_memory.experiments import chomsky, data, files
from keras_neural_memory.experiments.config import RunConfig, UsageError, is_chomsky_task


# The example streams of a run seeded s: epoch e trains on `data.epoch_seed(s, e)`, the held-out
# strings measured after every epoch come from s + VALIDATION_SEED_OFFSET, and the final accuracies
# from s + EVALUATION_SEED_OFFSET.
VALIDATION_SEED_OFFSET = 2000
EVALUATION_SEED_OFFSET = 1000
#: Where a run's `RunConfig.settings` are written when it starts.
SETTINGS_FILE = "settings.json"
#: The settings a run under way may change when it resumes: how long it may train, when it stops,
#: and how many examples measure it at the end. None of them changes an epoch already trained.
BUDGET_SETTINGS = ("epochs", "stop_at_coarse", "eval_examples", "eval_max_length", "eval_sequences")


def task_setup(config):
    """The task of `config`: a `chomsky.ChomskySetup` for "chomsky_hierarchy/NAME", else a `data.TaskSetup`."""
    if is_chomsky_task(config.task):
        return chomsky.task_setup(config.task)
    return data.task_setup(config.task, config.scale, vocab_size=config.vocab_size,
                           rule_probabilities=config.rule_probabilities)  # fmt: skip


def build_model(setup, config):
    """The model `config` describes, for the task of `setup` (from `task_setup`).

    Grefenstette et al. tasks get `models.build_transducer`; Hao et al. tasks
    `models.build_hao_model`; Chomsky-hierarchy tasks
    `models.build_chomsky_model`. `config` must be `resolved`.
    """
    return protocol_of(setup).build_model(setup, config)


def _build_papers_model(setup, config):
    """`build_model` for the tasks of Grefenstette et al. and Hao et al."""
    from keras_neural_memory import models

    if setup.layout == "joint":
        return models.build_transducer(
            setup.source_vocab_size,
            setup.target_vocab_size,
            memory=config.memory,
            hidden_size=config.hidden_size,
            memory_width=config.memory_width,
            lstm_layers=config.lstm_layers,
            strength_noise=config.strength_noise,
            gate_activation=config.gate_activation,
            quiet_end=config.quiet_end,
            strength_noise_ends=config.strength_noise_ends,
        )
    if config.gate_activation != "sigmoid":
        raise UsageError(f"task {setup.name} (Hao et al.) takes --gate-activation sigmoid, not {config.gate_activation}")
    if config.memory not in ("stack", "lstm"):
        raise UsageError(f"task {setup.name} takes --memory stack or lstm (Hao et al.), not {config.memory!r}")
    return models.build_hao_model(
        setup.source_vocab_size,
        setup.target_vocab_size,
        controller=config.controller,
        stack=config.memory == "stack",
        hidden_size=config.hidden_size,
        memory_width=config.memory_width,
        strength_noise=config.strength_noise,
    )


def compile_model(model, learning_rate, jit_compile=True):
    """Compiles `model` with the papers' recipe.

    RMSProp with gradient-norm clipping at 1, sparse cross-entropy on
    logits weighted by the loss mask, and the paper's coarse and fine
    accuracy with per-symbol (masked) accuracy as weighted metrics.
    """
    import keras

    from keras_neural_memory import CoarseAccuracy, FineAccuracy, MaskedAccuracy

    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate, clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        weighted_metrics=[CoarseAccuracy(), FineAccuracy(), MaskedAccuracy()],
        jit_compile=jit_compile,
    )


def measure(model, setup, split, count, seed, batch_size):
    """Coarse, fine and masked accuracy on `count` fresh examples of `split`, in whole batches."""
    batches, steps = data.whole_batches(setup, split, count, seed, batch_size)
    values = model.evaluate(batches, steps=steps, verbose=0, return_dict=True)
    return {key: float(values[f"{key}_accuracy"]) for key in ("coarse", "fine", "masked")}


def evaluation_batch_size(config):
    """The batch of held-out measurements: a multiple of the batch size, so it splits over the replicas."""
    return config.batch_size * max(1, 50 // config.batch_size)


def _describe_papers(setup, config):
    """The results' entries on the task of a Grefenstette et al. or Hao et al. run."""
    train, test = setup.settings.train, setup.settings.test
    return {
        "scale": config.scale,
        "train_lengths": [train.min_length, train.max_length],
        "test_lengths": [test.min_length, test.max_length],
    }


def _measure_papers(model, setup, config, output, seed):
    """The final accuracies of a Grefenstette et al. or Hao et al. run on fresh train and test examples."""
    batch_size = evaluation_batch_size(config)
    return {f"{split}_accuracy": measure(model, setup, split, config.eval_examples, seed, batch_size)
            for split in ("train", "test")}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Protocol:
    """How the runs of a family of tasks are built, compiled, fed and measured.

    `train` runs every task through the same steps; the protocol supplies
    what differs between the papers' tasks and the Chomsky hierarchy.

    Attributes:
        build_model: `(setup, config) -> model`.
        compile_model: `(model, learning_rate, jit_compile)`.
        training_batches: `(setup, seed, batch_size, first_epoch, steps) -> batches`.
        describe: `(setup, config) -> dict`: the results' "scale",
            "train_lengths" and "test_lengths".
        measure: `(model, setup, config, output, seed) -> dict`: the
            results' entries of the final measurement.
    """

    build_model: object
    compile_model: object
    training_batches: object
    describe: object
    measure: object


PAPERS_PROTOCOL = Protocol(_build_papers_model, compile_model, data.training_batches, _describe_papers,
                           _measure_papers)  # fmt: skip
CHOMSKY_HIERARCHY_PROTOCOL = Protocol(chomsky.build_model, chomsky.compile_model, chomsky.training_batches,
                                      chomsky.describe, chomsky.measure_run)  # fmt: skip


def protocol_of(setup):
    """The `Protocol` of a task setup from `task_setup`."""
    return CHOMSKY_HIERARCHY_PROTOCOL if setup.layout == "chomsky" else PAPERS_PROTOCOL


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
    settings is refused, except for its budget (`BUDGET_SETTINGS`: resume
    it with a larger `epochs` to train it longer), and
    `evaluation.load_run` can load a run that has not finished from its
    backup.

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
    """
    setup = task_setup(config)
    config = config.resolved()
    if config.curriculum_epochs:
        data.curriculum_regimes(setup, config.curriculum_epochs)  # a task without shorter lengths fails here
    output = files.writable_dir(config.output_path())
    in_use = UsageError(
        f"{str(output)!r} is being trained by another process; wait for it to finish, or pass another --output-dir"
    )
    with files.locked(output / SETTINGS_FILE, busy=in_use):
        return _train_in(output, config, setup)


def _train_in(output, config, setup):
    """`train`, once its folder `output` is locked."""
    import keras

    from keras_neural_memory import StrengthNoiseScheduler
    from keras_neural_memory.experiments import callbacks as callbacks_lib

    settings = config.settings()
    if config.overwrite:
        _forget_run(output)
    finished = finished_run(config)
    if finished is not None:
        print(f"{output} holds this finished run; not retraining (pass --overwrite to retrain)", flush=True)
        return finished
    backup_dir = output / "backup"
    first_epoch = _backed_up_epochs(backup_dir)
    _claim_folder(output, settings, first_epoch)
    keras.utils.set_random_seed(config.seed)
    scope, replicas, on_gpus = distribution_scope(config.batch_size)
    jit_compile = config.jit_compile
    if replicas > 1 and not on_gpus and jit_compile and keras.backend.backend() == "tensorflow":
        # XLA cannot reach variables mirrored on other logical CPU devices.
        print("note: XLA is off for MirroredStrategy over several CPU devices", flush=True)
        jit_compile = False
    # The JAX distribution must stay current through fit and evaluate too.
    with scope:
        protocol = protocol_of(setup)
        model = protocol.build_model(setup, config)
        protocol.compile_model(model, config.learning_rate, jit_compile)
        described = protocol.describe(setup, config)
        train_lengths, test_lengths = described["train_lengths"], described["test_lengths"]
        print(f"{model.name}: {model.count_params():,} parameters; task {config.task} ({setup.layout} layout), "
              f"train lengths {train_lengths[0]}-{train_lengths[1]}, "
              f"test lengths {test_lengths[0]}-{test_lengths[1]}; {replicas} replica(s)", flush=True)
        if first_epoch:
            print(_resume_message(first_epoch, backup_dir), flush=True)
        segments = _record_segment(output / "segments.json", first_epoch, replicas)
        steps = config.steps_per_epoch
        # Only the papers' tasks take a curriculum (RunConfig refuses it on the others).
        curriculum = {"curriculum_epochs": config.curriculum_epochs} if config.curriculum_epochs else {}
        batches = protocol.training_batches(setup, config.seed, config.batch_size, first_epoch, steps, **curriculum)
        history_path = output / "history.csv"
        callbacks = [
            # Before the backup: an epoch is backed up only once its row is written.
            callbacks_lib.EpochHistory(history_path, first_epoch),
            keras.callbacks.BackupAndRestore(str(backup_dir), double_checkpoint=True, delete_checkpoint=False),
            keras.callbacks.TerminateOnNaN(),
        ]
        if importlib.util.find_spec("tensorflow") is not None:
            callbacks.append(keras.callbacks.TensorBoard(str(output / "logs")))
        else:
            print("note: no TensorBoard logs, as they need TensorFlow (pip install tensorflow)", flush=True)
        validation = {}
        if config.validation_examples:
            validation_data, validation_steps = data.whole_batches(
                setup, "validation", config.validation_examples, config.seed + VALIDATION_SEED_OFFSET, evaluation_batch_size(config)
            )
            validation = {"validation_data": validation_data, "validation_steps": validation_steps}
        if config.strength_noise_epochs or config.strength_noise_delay:
            noise, first, end = config.strength_noise, config.strength_noise_delay or 0, config.strength_noise_epochs

            def noise_at(epoch, _):
                return noise if first <= epoch and (end is None or epoch < end) else 0.0

            callbacks.append(StrengthNoiseScheduler(noise_at, verbose=int(config.verbose > 0)))
        if config.stop_at_coarse is not None:
            monitor = "val_coarse_accuracy" if validation else "coarse_accuracy"
            callbacks.append(callbacks_lib.StopWhenLearned(history_path, config.stop_at_coarse, monitor=monitor))
        start = time.perf_counter()
        model.fit(batches, epochs=config.epochs, steps_per_epoch=steps, callbacks=callbacks,
                  verbose=config.verbose, shuffle=False, **validation)  # fmt: skip
        history = read_history(history_path)
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
            results.update(protocol.measure(model, setup, config, output, config.seed + EVALUATION_SEED_OFFSET))
        files.save_model_atomically(model, output / "model.keras")
    files.write_atomically(output / "results.json", json.dumps(results, indent=2))
    shutil.rmtree(backup_dir, ignore_errors=True)
    return {**results, "output_dir": str(output)}


def read_history(path):
    """Every epoch's logs from `history.csv`, the last row of each epoch winning.

    Returns:
        `{metric: [value per epoch]}`, without metrics some epoch did not log.
    """
    if not pathlib.Path(path).is_file():
        return {}
    with open(path, newline="") as f:
        rows = {int(row.pop("epoch")): row for row in csv.DictReader(f)}
    epochs = sorted(rows)
    # "NA" marks a metric an epoch did not log.
    keys = [key for key in (rows[epochs[0]] if epochs else ()) if all(rows[e][key] != "NA" for e in epochs)]
    return {key: [float(rows[epoch][key]) for epoch in epochs] for key in keys}


def finished_run(config):
    """The results of `config`'s run, as `train` wrote them, if it has finished; else None.

    The run is finished when its folder holds the `results.json` of a run of
    the same settings (`RunConfig.settings`, sizes resolved).

    Returns:
        The results dict with "output_dir" added, or None.

    Raises:
        UsageError: The folder holds a finished run of other settings.
    """
    config = config.resolved()
    output = pathlib.Path(config.output_path())
    path = output / "results.json"
    if not path.is_file():
        return None
    results = json.loads(path.read_text())
    if _as_current(results.get("settings")) != config.settings():
        raise UsageError(
            f"{str(output)!r} holds a finished run with other settings; pass another --output-dir, "
            "or --overwrite to replace it"
        )
    return {**results, "output_dir": str(output)}


def _forget_run(output):
    """Removes the run in `output`, finished or under way, so that it trains again from the start."""
    for name in ("results.json", "history.csv", "segments.json", SETTINGS_FILE, chomsky.PROGRESS_FILE):
        (output / name).unlink(missing_ok=True)
    shutil.rmtree(output / "backup", ignore_errors=True)


def _resume_message(first_epoch, backup_dir):
    """Names the finished epochs as `history.csv` numbers them, from 0."""
    if first_epoch == 1:
        return f"resuming after 1 finished epoch (epoch 0 in history.csv) from {backup_dir}"
    return f"resuming after {first_epoch} finished epochs (epochs 0-{first_epoch - 1} in history.csv) from {backup_dir}"


def _claim_folder(output, settings, first_epoch):
    """Writes `settings` to the run's `settings.json`, refusing a folder whose run under way has others.

    Resuming another run's backup would mix two runs in one history. Only
    the `BUDGET_SETTINGS` may differ, so that a run under way can be given
    more epochs (or fewer, down to those it has trained) without starting
    again. The file also lets `evaluation.load_run` rebuild a run that has
    not finished. Folders of runs started before the file existed are
    claimed as they are.

    Args:
        output: The run's folder.
        settings: `RunConfig.settings()` of the run to train there.
        first_epoch: Epochs the run under way in `output` has backed up.

    Raises:
        UsageError: `output` holds a run under way with other settings, or
            one that has trained more epochs than `settings` allow.
    """
    path = output / SETTINGS_FILE
    if path.is_file():
        recorded = _as_current(json.loads(path.read_text()))
        if recorded is None or _without_budget(recorded) != _without_budget(settings):
            raise UsageError(
                f"{str(output)!r} holds a run under way with other settings ({SETTINGS_FILE}); pass another "
                "--output-dir, or --overwrite to start it again"
            )
        if settings["epochs"] < first_epoch:
            raise UsageError(
                f"{str(output)!r} holds a run under way that has trained {first_epoch} epochs; pass --epochs "
                f"{first_epoch} or more to resume it, or --overwrite to start it again"
            )
        for key in BUDGET_SETTINGS:
            if recorded.get(key) != settings.get(key):
                print(f"note: {key} of the run under way in {output} changes from {recorded.get(key)} to "
                      f"{settings.get(key)}", flush=True)  # fmt: skip
    files.write_atomically(path, json.dumps(settings, indent=2))


def _as_current(recorded):
    """Settings read from a run's files, as `RunConfig.settings` writes them now; None if they are not settings."""
    try:
        return RunConfig.from_settings(recorded).settings()
    except (TypeError, KeyError, ValueError):
        return None


def _without_budget(settings):
    return {key: value for key, value in settings.items() if key not in BUDGET_SETTINGS}


def device_description(replicas=1):
    """The backend and device kind this process trains on, e.g. "jax, 1 x NVIDIA H100 80GB HBM3"."""
    import keras

    backend = keras.backend.backend()
    kind = None
    if backend == "jax":
        import jax

        kind = jax.devices()[0].device_kind
    elif backend == "tensorflow":
        import tensorflow as tf

        gpus = tf.config.list_physical_devices("GPU")
        kind = tf.config.experimental.get_device_details(gpus[0]).get("device_name") if gpus else None
    if kind is None or kind.lower() == "cpu":
        kind = f"CPU ({platform.machine()}, {_cpu_cores()})"
    return f"{backend}, {replicas} x {kind}"


def _cpu_cores():
    """`"N cores"`, or `"K of N cores"` when this process may run on only K of them (`taskset`)."""
    total = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else total
    return f"{total} cores" if usable == total else f"{usable} of {total} cores"


def _record_segment(path, first_epoch, replicas):
    """Adds this process's start (epoch, device, time) to the run's segments; returns them all.

    A run may be resumed on other machines; its results say which trained
    which epochs (a segment runs from its first epoch to the next's).
    """
    segments = json.loads(path.read_text()) if path.is_file() else []
    segments = [segment for segment in segments if segment["first_epoch"] < first_epoch]
    segments.append({
        "first_epoch": first_epoch,
        "device": device_description(replicas),
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    })
    files.write_atomically(path, json.dumps(segments, indent=2))
    return segments


def _backed_up_epochs(backup_dir):
    """Epochs already trained by an interrupted run (0 for a new run).

    Read from the metadata `keras.callbacks.BackupAndRestore` writes with
    its backup, which is where it will resume.
    """
    path = backup_dir / "training_metadata.json"
    return json.loads(path.read_text())["epoch"] if path.is_file() else 0
