"""`neural-memory`: train and evaluate memory-augmented transducers.

    neural-memory train --task sequence_reversal --memory stack
    neural-memory evaluate --model runs/sequence_reversal-stack-default --lengths 17 64 --sweep
    neural-memory reproduce --scale quick

`train` trains on freshly sampled examples (the papers' unbounded stream)
with the paper's optimiser (RMSProp, batch 10, gradient clipping at 1),
shows a Keras progress bar, writes TensorBoard logs, backs up every epoch
(an interrupted run started again with the same command continues from its
last epoch; a finished one is recognised and not retrained), and ends by
printing coarse and fine accuracy at training and at test lengths, which it
also writes to `results.json`. A run whose loss becomes NaN exits with
status 1 and is recorded as diverged.
"""

import argparse
import dataclasses
import json
import math
import os
import pathlib
import shutil
import sys
import time
import zipfile

SCALES = {
    # Grefenstette et al. tasks: source lengths, vocabulary and model size.
    # "quick" is for smoke tests; "default" shows the effect in minutes on a
    # 2-core CPU; "paper" is §4 (training runs far longer there).
    "quick": dict(train=(4, 8), test=(9, 16), vocab=8, hidden=32, width=16, epochs=4, steps=100),
    "default": dict(train=(8, 16), test=(17, 32), vocab=32, hidden=64, width=32, epochs=10, steps=300),
    "paper": dict(train=(8, 64), test=(65, 128), vocab=128, hidden=256, width=256, epochs=100, steps=1000),
}


class CliError(Exception):
    """A user error: printed as one message, exit status 2."""


@dataclasses.dataclass
class TaskSetup:
    """A task's data settings and vocabulary at a scale."""

    name: str
    layout: str
    settings: object
    source_vocab_size: int
    target_vocab_size: int


def task_setup(name, scale, train_lengths=None, test_lengths=None):
    """The task's settings at `scale`, optionally with other length ranges."""
    from tfds_tasks import TASK_NAMES, generators, layout_for
    from tfds_tasks.generators import Regime

    if name not in TASK_NAMES:
        raise CliError(f"unknown task {name!r}; choose one of: {', '.join(TASK_NAMES)}")
    layout = layout_for(name)
    base = generators.settings(name, "default")
    if layout == "joint":
        spec = SCALES[scale]
        train, test = Regime(*spec["train"]), Regime(*spec["test"])
        if name == "bigram_flip" and test.min_length % 2:
            # Flipping needs even lengths (like the dataset's own 66..128).
            test = Regime(test.min_length + 1, test.max_length)
        settings = dataclasses.replace(base, train=train, test=test, vocab_size=spec["vocab"])
    else:
        settings = base  # Hao et al. tasks: their own regimes at every scale
    try:
        if train_lengths:
            settings = dataclasses.replace(settings, train=dataclasses.replace(settings.train, min_length=train_lengths[0], max_length=train_lengths[1]))
        if test_lengths:
            settings = dataclasses.replace(settings, test=dataclasses.replace(settings.test, min_length=test_lengths[0], max_length=test_lengths[1]))
        task = generators.make_task(name, settings.train, settings.vocab_size)
        generators.make_task(name, settings.test, settings.vocab_size)
    except ValueError as error:
        raise CliError(str(error)) from None
    return TaskSetup(name, layout, settings, len(task.source_vocab), len(task.target_vocab))


def examples(setup, split, count, seed, batch_size):
    """Fresh examples of `split`'s regime as padded `(inputs, targets, loss_mask)` batches.

    `count=None` gives the endless stream that training reads.
    """
    import tfds_tasks

    ds = tfds_tasks.stream(setup.name, seed=seed, config=setup.settings, split=split, training_sequences=True)
    if count is not None:
        ds = ds.take(count)
    batches = ds.map(lambda e: (e["inputs"], e["targets"], e["loss_mask"])).padded_batch(batch_size)
    return batches.map(_pad_to_bucket)


def _pad_to_bucket(inputs, targets, weights, multiple=16):
    """Pads a batch's time axis to a multiple of 16.

    Under XLA every new batch length is a new compilation (and its memory):
    buckets keep that to a few shapes. The padding is id 0 with weight 0,
    which the models mask, so it changes no loss and no metric.
    """
    import tensorflow as tf

    length = tf.shape(inputs)[1]
    extra = (-length) % multiple
    pad = [[0, 0], [0, extra]]
    return tf.pad(inputs, pad), tf.pad(targets, pad), tf.pad(weights, pad)


def build_model(setup, args):
    from keras_neural_memory import models

    if setup.layout == "joint":
        return models.build_transducer(
            setup.source_vocab_size,
            setup.target_vocab_size,
            memory=args.memory,
            hidden_size=args.hidden_size,
            memory_width=args.memory_width,
            lstm_layers=args.lstm_layers,
        )
    if args.memory not in ("stack", "lstm"):
        raise CliError(f"task {setup.name} takes --memory stack or lstm (Hao et al.), not {args.memory!r}")
    return models.build_hao_model(
        setup.source_vocab_size,
        setup.target_vocab_size,
        controller=args.controller,
        stack=args.memory == "stack",
        hidden_size=args.hidden_size,
        memory_width=args.memory_width,
    )


def compile_model(model, learning_rate, jit_compile):
    import keras

    from keras_neural_memory import CoarseAccuracy, FineAccuracy, MaskedAccuracy

    model.compile(
        optimizer=keras.optimizers.RMSprop(learning_rate, clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        weighted_metrics=[CoarseAccuracy(), FineAccuracy(), MaskedAccuracy()],
        jit_compile=jit_compile,
    )


def measure(model, setup, split, count, seed, batch_size):
    """Coarse, fine and masked accuracy on `count` fresh examples."""
    steps = -(-count // batch_size)  # the stream's length is unknown to Keras
    count = steps * batch_size  # whole batches only: a data-parallel batch must split evenly
    values = model.evaluate(examples(setup, split, count, seed, batch_size), steps=steps, verbose=0, return_dict=True)
    return {key: float(values[f"{key}_accuracy"]) for key in ("coarse", "fine", "masked")}


def writable_dir(path):
    path = pathlib.Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CliError(f"cannot create output directory {str(path)!r}: {error.strerror}") from None
    if not os.access(path, os.W_OK):
        raise CliError(f"output directory {str(path)!r} is not writable; pass another --output-dir")
    return path


def distribution_scope(batch_size):
    """Data parallelism over all devices when the backend sees more than one.

    TensorFlow: `tf.distribute.MirroredStrategy`. JAX: the Keras 3
    distribution API, `keras.distribution.DataParallel`, which shards each
    batch over the devices (so the batch size must divide evenly).

    Returns:
        `(scope, replicas, on_gpus)`.
    """
    import contextlib

    import keras

    backend = keras.backend.backend()
    if backend == "jax":
        devices = keras.distribution.list_devices()
        on_gpus = any(device.startswith(("gpu", "cuda")) for device in devices)
        if len(devices) < 2:
            return contextlib.nullcontext(), 1, on_gpus
        if batch_size % len(devices):
            raise CliError(f"--batch-size {batch_size} does not split over {len(devices)} devices; "
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


def train_run(args):
    """Trains one model as `args` say; returns the results dict `train` writes.

    A run survives being killed at any moment. Every epoch ends with the
    history row, then the backup (`OUTPUT/backup`); the same command then
    continues from the last backed-up epoch and rewrites the rows after it.
    Epoch `e` trains on the example stream seeded by `(seed, e)`, so a resumed
    run sees the examples an uninterrupted one would. `model.keras` and
    `results.json` are written atomically, and the backup is removed only
    after both: a finished run is recognised by its `results.json` and not
    retrained (pass `--overwrite` to retrain).
    """
    import keras

    from keras_neural_memory.experiments import callbacks as callbacks_lib

    setup = task_setup(args.task, args.scale)
    spec = SCALES[args.scale]
    hidden_size = args.hidden_size or (spec["hidden"] if setup.layout == "joint" else 10)
    memory_width = args.memory_width or (spec["width"] if setup.layout == "joint" else 2)
    epochs = args.epochs or spec["epochs"]
    steps = args.steps_per_epoch or spec["steps"]
    output = writable_dir(args.output_dir or f"runs/{args.task}-{args.memory}-{args.scale}")
    settings = {
        "task": args.task, "memory": args.memory, "lstm_layers": args.lstm_layers, "controller": args.controller,
        "scale": args.scale, "hidden_size": hidden_size, "memory_width": memory_width,
        "learning_rate": args.learning_rate, "batch_size": args.batch_size, "epochs": epochs,
        "steps_per_epoch": steps, "stop_at_coarse": args.stop_at_coarse, "eval_examples": args.eval_examples,
        "seed": args.seed,
    }  # fmt: skip
    finished = _finished_run(output, settings, args.overwrite)
    if finished is not None:
        print(f"{output} holds this finished run; not retraining (pass --overwrite to retrain)", flush=True)
        return {**finished, "output_dir": str(output)}
    args.hidden_size, args.memory_width = hidden_size, memory_width
    backup_dir = output / "backup"
    first_epoch = _backed_up_epochs(backup_dir)
    keras.utils.set_random_seed(args.seed)
    scope, replicas, on_gpus = distribution_scope(args.batch_size)
    if replicas > 1 and not on_gpus and args.jit_compile and keras.backend.backend() == "tensorflow":
        # XLA cannot reach variables mirrored on other logical CPU devices.
        print("note: XLA is off for MirroredStrategy over several CPU devices", flush=True)
        args.jit_compile = False
    # The JAX distribution must stay current through fit and evaluate too.
    with scope:
        model = build_model(setup, args)
        compile_model(model, args.learning_rate, args.jit_compile)
        print(f"{model.name}: {model.count_params():,} parameters; task {args.task} ({setup.layout} layout), "
              f"train lengths {setup.settings.train.min_length}-{setup.settings.train.max_length}, "
              f"test lengths {setup.settings.test.min_length}-{setup.settings.test.max_length}; "
              f"{replicas} replica(s)", flush=True)
        if first_epoch:
            print(f"resuming after epoch {first_epoch} from {backup_dir}", flush=True)
        train = training_batches(setup, args.seed, args.batch_size, first_epoch, steps)
        history_path = output / "history.csv"
        callbacks = [
            # Before the backup: an epoch is backed up only once its row is written.
            callbacks_lib.EpochHistory(history_path, first_epoch),
            keras.callbacks.BackupAndRestore(str(backup_dir), double_checkpoint=True, delete_checkpoint=False),
            keras.callbacks.TensorBoard(str(output / "logs")),
            keras.callbacks.TerminateOnNaN(),
        ]
        if args.stop_at_coarse is not None:
            callbacks.append(callbacks_lib.StopWhenLearned(history_path, args.stop_at_coarse))
        start = time.perf_counter()
        model.fit(train, epochs=epochs, steps_per_epoch=steps, callbacks=callbacks, verbose=args.verbose, shuffle=False)
        seconds = time.perf_counter() - start
        history = read_history(history_path)
        trained_epochs = len(history.get("loss", []))
        results = {
            "settings": settings,
            "task": args.task,
            "memory": args.memory,
            "model": model.name,
            "parameters": model.count_params(),
            "scale": args.scale,
            "seed": args.seed,
            "learning_rate": args.learning_rate,
            "batches": trained_epochs * steps,
            "steps_per_epoch": steps,
            "train_seconds": round(seconds, 1),
            "train_lengths": [setup.settings.train.min_length, setup.settings.train.max_length],
            "test_lengths": [setup.settings.test.min_length, setup.settings.test.max_length],
            "history": history,
            "diverged": not all(math.isfinite(loss) for loss in history.get("loss", [math.nan])),
        }
        if not results["diverged"]:
            # A multiple of the batch size, so every evaluation batch splits over the replicas.
            eval_batch = args.batch_size * max(1, 50 // args.batch_size)
            for split in ("train", "test"):
                results[f"{split}_accuracy"] = measure(model, setup, split, args.eval_examples, args.seed + 1000, eval_batch)
        save_model_atomically(model, output / "model.keras")
    write_atomically(output / "results.json", json.dumps(results, indent=2))
    shutil.rmtree(backup_dir, ignore_errors=True)
    results["output_dir"] = str(output)
    return results


def write_atomically(path, text):
    """Writes `text` to `path` through a temporary file and a rename."""
    path = pathlib.Path(path)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def save_model_atomically(model, path):
    """`model.save(path)` through a temporary file and a rename."""
    path = pathlib.Path(path)
    temporary = path.with_name(f".tmp-{path.name}")  # Keras wants the .keras suffix
    model.save(temporary)
    os.replace(temporary, path)


def _finished_run(output, settings, overwrite):
    """The results of a finished run of these settings in `output`, or None."""
    path = output / "results.json"
    if not path.is_file():
        return None
    if overwrite:
        path.unlink()
        (output / "history.csv").unlink(missing_ok=True)
        shutil.rmtree(output / "backup", ignore_errors=True)
        return None
    results = json.loads(path.read_text())
    if results.get("settings") != settings:
        raise CliError(
            f"{str(output)!r} holds a finished run with other settings; pass another --output-dir, "
            "or --overwrite to replace it"
        )
    return results


def _backed_up_epochs(backup_dir):
    """Epochs already trained by an interrupted run (0 for a new run).

    Read from the metadata `keras.callbacks.BackupAndRestore` writes with
    its backup, which is where it will resume.
    """
    path = backup_dir / "training_metadata.json"
    return json.loads(path.read_text())["epoch"] if path.is_file() else 0


def epoch_seed(seed, epoch):
    """The seed of epoch `epoch`'s training examples in a run seeded `seed`."""
    import numpy as np

    return int(np.random.SeedSequence([seed, epoch]).generate_state(1)[0])


def training_batches(setup, seed, batch_size, first_epoch, steps):
    """The endless training batches from epoch `first_epoch` on.

    Epoch `e` reads `steps` batches of the stream seeded `epoch_seed(seed, e)`.
    """
    import itertools

    import tensorflow as tf

    def batches():
        for epoch in itertools.count(first_epoch):
            yield from examples(setup, "train", steps * batch_size, epoch_seed(seed, epoch), batch_size)

    spec = examples(setup, "train", 1, seed, batch_size).element_spec
    return tf.data.Dataset.from_generator(batches, output_signature=spec).prefetch(2)


def read_history(path):
    """Every epoch's logs from `history.csv`, the last row of each epoch winning."""
    import csv

    if not pathlib.Path(path).is_file():
        return {}
    with open(path, newline="") as f:
        rows = {int(row.pop("epoch")): row for row in csv.DictReader(f)}
    epochs = sorted(rows)
    # "NA" marks a metric an epoch did not log (val_* without validation data).
    keys = [key for key in (rows[epochs[0]] if epochs else ()) if all(rows[e][key] != "NA" for e in epochs)]
    return {key: [float(rows[epoch][key]) for epoch in epochs] for key in keys}


def cmd_train(args):
    results = train_run(args)
    output = pathlib.Path(results["output_dir"])
    if results["diverged"]:
        print(f"neural-memory train: error: the loss became NaN after {results['batches']:,} batches; "
              f"the run is recorded as diverged in {output / 'results.json'} (try a lower --learning-rate)",
              file=sys.stderr)
        return 1
    print(f"\n{'lengths':14s}{'coarse':>8s}{'fine':>8s}{'per-symbol':>12s}")
    for split in ("train", "test"):
        acc = results[f"{split}_accuracy"]
        lengths = results[f"{split}_lengths"]
        print(f"{split:5s} {lengths[0]:>3d}-{lengths[1]:<4d}{acc['coarse']:8.3f}{acc['fine']:8.3f}{acc['masked']:12.3f}")
    print(f"model: {output / 'model.keras'}\nresults: {output / 'results.json'}")
    return 0


def saved_run(model_arg):
    """`(model path, the run's results.json or {})` for `evaluate --model`.

    `model_arg` is a `model.keras` written by `train` or the run directory
    that holds it.
    """
    path = pathlib.Path(model_arg)
    if path.is_dir():
        path = path / "model.keras"
    if not path.is_file():
        raise CliError(f"no saved model at {str(path)!r}; pass the model.keras that `train` wrote, or its run directory")
    if not zipfile.is_zipfile(path):
        raise CliError(f"{str(path)!r} is not a complete .keras file (it is empty or truncated); train the model again")
    results_path = path.with_name("results.json")
    if not results_path.is_file():
        return path, {}
    try:
        return path, json.loads(results_path.read_text())
    except json.JSONDecodeError:
        raise CliError(f"{str(results_path)!r} is not valid JSON; remove it, and pass --task and --scale") from None


def recorded_choice(flag, given, recorded, default=None):
    """`given` if it agrees with the run's record, else the record; one-line error on a mismatch."""
    if given is not None and recorded is not None and given != recorded:
        raise CliError(f"the model was trained with {flag} {recorded}, not {given}; leave {flag} out or pass {flag} {recorded}")
    chosen = given if given is not None else recorded if recorded is not None else default
    if chosen is None:
        raise CliError(f"pass {flag}: the model has no results.json beside it that records it")
    return chosen


def cmd_evaluate(args):
    import keras

    model_path, recorded = saved_run(args.model)
    task = recorded_choice("--task", args.task, recorded.get("task"))
    scale = recorded_choice("--scale", args.scale, recorded.get("scale"), default="default")
    setup = task_setup(task, scale, test_lengths=args.lengths)
    import keras_neural_memory  # noqa: F401  (registers the layers)

    model = keras.saving.load_model(model_path)
    check_vocabulary(model, setup, scale)
    compile_model(model, 1e-3, args.jit_compile)
    split = "test" if args.lengths else args.split
    summary = measure(model, setup, split, args.examples, args.seed, 50)
    regime = setup.settings.regime(split)
    print(f"{task} lengths {regime.min_length}-{regime.max_length}: coarse {summary['coarse']:.3f} fine {summary['fine']:.3f}")
    lengths = [regime.min_length, regime.max_length]
    report = {"task": task, "scale": scale, "model": str(model_path), "lengths": lengths, **summary}
    if args.sweep:
        sweep = []
        for length in range(regime.min_length, regime.max_length + 1, args.sweep_step):
            at = task_setup(task, scale, test_lengths=(length, length))
            sweep.append({"length": length, **measure(model, at, "test", args.sweep_examples, args.seed, 50)})
            print(f"  length {length:4d}: coarse {sweep[-1]['coarse']:.3f} fine {sweep[-1]['fine']:.3f}", flush=True)
        report["sweep"] = sweep
        if args.plot:
            plot_sweep(sweep, setup, args.plot, model.name)
            print(f"plot: {args.plot}")
    if args.output:
        write_atomically(args.output, json.dumps(report, indent=2))
    return 0


def check_vocabulary(model, setup, scale):
    """The saved model must read the ids of `setup`: same task and scale."""
    embeddings = [layer for layer in model.layers if layer.__class__.__name__ == "Embedding"]
    if setup.layout == "joint":
        expected = 3 + setup.source_vocab_size + setup.target_vocab_size
    else:
        expected = 1 + setup.source_vocab_size
    if embeddings and embeddings[0].input_dim != expected:
        raise CliError(
            f"the model reads {embeddings[0].input_dim} input ids, but task {setup.name} at --scale {scale} "
            f"has {expected}; pass the --task and --scale the model was trained with"
        )


def plot_sweep(sweep, setup, path, label):
    """Coarse and fine accuracy against length, training range shaded."""
    from keras_neural_memory import viz

    train = setup.settings.train
    viz.plot_length_generalisation(
        {label: sweep},
        train_range=(train.min_length, train.max_length),
        metric=("coarse", "fine"),
        save_to=path,
        title=setup.name,
    )


def positive_int(text):
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text}")
    return value


def positive_float(text):
    """argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, not {text}")
    return value


def unit_float(text):
    """argparse type: a number in (0, 1]."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be at most 1, not {text}")
    return value


def parser():
    from keras_neural_memory.models import MEMORY_KINDS

    top = argparse.ArgumentParser(prog="neural-memory", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True)

    train = sub.add_parser("train", help="train a model on a task and report coarse/fine accuracy")
    train.add_argument("--task", required=True, help="a tfds_tasks name, e.g. sequence_reversal")
    train.add_argument("--memory", choices=MEMORY_KINDS, default="stack", help="memory kind, or lstm for the deep-LSTM baseline")
    train.add_argument("--lstm-layers", type=positive_int, default=2, help="layers of the lstm baseline (1, 2, 4, 8 in the paper)")
    train.add_argument("--controller", choices=("lstm", "linear"), default="lstm", help="controller of Hao et al. tasks")
    train.add_argument("--scale", choices=tuple(SCALES), default="default")
    train.add_argument("--hidden-size", type=positive_int, help="default: from --scale (10 for Hao et al. tasks)")
    train.add_argument("--memory-width", type=positive_int, help="default: from --scale (2 for Hao et al. tasks)")
    train.add_argument("--learning-rate", type=positive_float, default=5e-3, help="default 5e-3, from the paper's grid")
    train.add_argument("--batch-size", type=positive_int, default=10)
    train.add_argument("--epochs", type=positive_int, help="default: from --scale")
    train.add_argument("--steps-per-epoch", type=positive_int, help="batches per epoch; default: from --scale")
    train.add_argument("--stop-at-coarse", type=unit_float, metavar="ACCURACY",
                       help="stop once training coarse accuracy reaches ACCURACY at two consecutive epochs")
    train.add_argument("--eval-examples", type=positive_int, default=500, help="examples per accuracy measurement")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--output-dir", help="default: runs/TASK-MEMORY-SCALE")
    train.add_argument("--overwrite", action="store_true", help="retrain a finished run in --output-dir")
    train.add_argument("--jit-compile", action=argparse.BooleanOptionalAction, default=True, help="XLA (default on)")
    train.add_argument("--verbose", type=int, default=1, choices=(0, 1, 2), help="Keras fit verbosity")
    train.set_defaults(run=cmd_train)

    evaluate = sub.add_parser("evaluate", help="evaluate a saved model on a task, split or length range")
    evaluate.add_argument("--model", required=True, help="a model.keras written by train, or its run directory")
    evaluate.add_argument("--task", help="default: the task recorded in the run's results.json")
    evaluate.add_argument("--scale", choices=tuple(SCALES), help="default: the scale recorded in the run's results.json")
    evaluate.add_argument("--split", choices=("train", "test"), default="test", help="regime to sample")
    evaluate.add_argument("--lengths", type=int, nargs=2, metavar=("MIN", "MAX"), help="source length range instead of --split")
    evaluate.add_argument("--examples", type=positive_int, default=500)
    evaluate.add_argument("--sweep", action="store_true", help="also measure every length of the range")
    evaluate.add_argument("--sweep-step", type=positive_int, default=1)
    evaluate.add_argument("--sweep-examples", type=positive_int, default=100)
    evaluate.add_argument("--plot", help="PNG path for the length sweep")
    evaluate.add_argument("--output", help="JSON path for the results")
    evaluate.add_argument("--seed", type=int, default=1)
    evaluate.add_argument("--jit-compile", action=argparse.BooleanOptionalAction, default=True)
    evaluate.set_defaults(run=cmd_evaluate)

    from keras_neural_memory import reproduce

    reproduce.add_parser(sub)
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except CliError as error:
        print(f"neural-memory {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
