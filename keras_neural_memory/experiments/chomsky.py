"""The Chomsky-hierarchy benchmark of Delétang et al. (2023) as runs of `neural-memory train`.

A task "chomsky_hierarchy/NAME" is trained and measured with the paper's
protocol ("Neural Networks and the Chomsky Hierarchy", ICLR 2023):

* the model (`models.build_chomsky_model`) reads the input, then one blank
  per output position, and answers at the blanks (non-autoregressive);
* training batches hold 128 sequences of one length, drawn uniformly from
  1-40 for every batch (`tfds_tasks.generators.chomsky_hierarchy.training_batches`);
* Adam with gradient clipping at global norm 1; the loss is the
  cross-entropy summed over a sequence's output positions, averaged over
  the batch, as the authors', but only where `output_mask` is 1 (the
  authors' loss also covers the padding after a terminator);
* the accuracy at a length is the share of right output tokens (where
  `output_mask` is 1) over 512 sequences of that length, for every length
  1-500, and the score is its mean over the lengths beyond training, 41-500.

Shapes. Under XLA each input shape compiles once. Training batches are
never padded: each of the 40 training lengths compiles its own step, once
per process (a few seconds each on a CPU core, so a few
minutes a run, against tens of thousands of steps). Evaluation tapes are
padded on the left to a multiple of `EVAL_BUCKET_STEPS` steps, which the
models mask exactly (`models.chomsky_tape`), so lengths 1-500 compile some
30-50 shapes instead of 500.

Example:

```python
from keras_neural_memory.experiments import RunConfig, training

results = training.train(RunConfig("chomsky_hierarchy/reverse_string", memory="stack", output_dir="runs/demo"))
results["score"]  # mean accuracy over lengths 41-500
```
"""

import dataclasses
import itertools
import json
import math
import pathlib
import time

import numpy as np

from keras_neural_memory.experiments import data, files
from keras_neural_memory.experiments.common import CHOMSKY_PROTOCOL, chomsky_task

#: The accuracy against length a run writes into its folder, and its plot.
CURVE_FILE = "accuracy_by_length.json"
PLOT_FILE = "accuracy_by_length.png"
#: The partial curve of a run's final measurement, one length at a time (removed when it ends).
PROGRESS_FILE = "evaluation_progress.json"
#: Sequences per evaluation batch: 512 per length in 4 batches keeps a
#: length-500 evaluation well inside a few GiB (docs/results/chomsky.md#cost).
EVAL_BATCH_SIZE = 128
#: Evaluation tapes are left-padded to a multiple of this many steps.
EVAL_BUCKET_STEPS = 32


@dataclasses.dataclass
class ChomskySetup:
    """A Chomsky-hierarchy task of a run.

    Attributes:
        name: The run's task, "chomsky_hierarchy/NAME".
        task: Its `ChomskyTask` (vocabularies, lengths, sampling).
        layout: "chomsky" (`protocols.CHOMSKY`).
    """

    name: str
    task: object
    layout: str = "chomsky"

    @property
    def train_lengths(self):
        return CHOMSKY_PROTOCOL["train_lengths"]


def task_setup(name):
    """The `ChomskySetup` of "chomsky_hierarchy/NAME"; a `UsageError` listing the tasks for an unknown NAME."""
    return ChomskySetup(name, chomsky_task(name))


def build_model(setup, config):
    """`models.build_chomsky_model` for `setup`'s task, sized by the resolved `config`."""
    from keras_neural_memory import models

    return models.build_chomsky_model(
        setup.task.input_vocab_size,
        setup.task.output_vocab_size,
        memory=config.memory,
        hidden_size=config.hidden_size,
        memory_width=config.memory_width,
        stack_size=config.stack_size or models.CHOMSKY_STACK_SIZE,
        memory_options=config.memory_options,
    )


def compile_model(model, learning_rate, jit_compile=True):
    """Compiles `model` with the authors' recipe.

    Adam with gradient clipping at global norm 1, and the cross-entropy
    summed over the batch: `training_example`'s weights are
    `output_mask / batch rows`, which makes it the authors' per-sequence sum
    averaged over the batch. "accuracy" is per output token, where the mask
    is 1.
    """
    import keras

    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate, global_clipnorm=1.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum"),
        weighted_metrics=[keras.metrics.SparseCategoricalAccuracy(name="accuracy")],
        jit_compile=jit_compile,
    )


def training_example(task, batch, steps=None):
    """`(tape, targets, weights)` of a `ChomskyBatch`, for `fit` and `evaluate`.

    Args:
        task: The batch's `ChomskyTask`.
        batch: A `ChomskyBatch` of one length.
        steps: Left-pad the tapes to this many steps (see `models.chomsky_tape`).

    Returns:
        `(batch, steps)` arrays: the tape ids (int32), the target ids at
        the output positions and 0 elsewhere (int32), and the loss weights
        (float32): `output_mask / batch rows` at the output positions, 0
        elsewhere.

    Example:

    ```python
    import random
    from keras_neural_memory.experiments import chomsky

    task = chomsky.task_setup("chomsky_hierarchy/reverse_string").task
    tape, targets, weights = chomsky.training_example(task, task.sample_batch(random.Random(0), 2, 3))
    tape.shape, targets[:, 3:].tolist() == task.sample_batch(random.Random(0), 2, 3).output.tolist()  # (2, 6), True
    ```
    """
    from keras_neural_memory.models import chomsky_tape

    output_length = batch.output.shape[1]
    tape = chomsky_tape(batch.input, output_length, task.input_vocab_size, steps)
    targets = np.zeros(tape.shape, np.int32)
    weights = np.zeros(tape.shape, np.float32)
    targets[:, -output_length:] = batch.output
    weights[:, -output_length:] = batch.output_mask / len(batch.output)
    return tape, targets, weights


def training_batches(setup, seed, batch_size, first_epoch, steps):
    """The endless training batches from epoch `first_epoch` on, as `data.training_batches` gives them.

    Epoch `e` reads `steps` batches of the protocol's stream seeded
    `data.epoch_seed(seed, e)`, so a run resumed at any epoch sees the
    examples an uninterrupted one would.
    """
    from tfds_tasks.generators.chomsky_hierarchy import training_batches as stream

    min_length, max_length = setup.train_lengths

    def make_batches():
        for epoch in itertools.count(first_epoch):
            for batch in stream(setup.task.name, data.epoch_seed(seed, epoch), batch_size=batch_size,
                                min_length=min_length, max_length=max_length, num_batches=steps):  # fmt: skip
                yield training_example(setup.task, batch)

    return data.as_batches(make_batches, None)


def accuracy_by_length(model, setup, seed, max_length, sequences, min_length=1, batch_size=EVAL_BATCH_SIZE,
                       verbose=True, progress_file=None):  # fmt: skip
    """Per-token accuracy at every length, streamed from the protocol's evaluation batches.

    Each length's accuracy pools its `sequences` sequences: right output
    tokens over scored tokens (`output_mask` 1). Batches are generated one
    at a time (`evaluation_batches`), so memory holds one batch whatever
    the number of sequences. Every length's sequences are drawn from the
    stream seeded `seed` for that length alone, so a measurement resumed
    at any length sees the sequences an uninterrupted one would.

    Args:
        model: A model of `models.build_chomsky_model`, compiled.
        setup: The run's `ChomskySetup`.
        seed: The evaluation stream's seed.
        max_length: The last length.
        sequences: Sequences per length (the protocol: 512).
        min_length: The first length.
        batch_size: Sequences per batch.
        verbose: Print each length's accuracy as it is measured.
        progress_file: A JSON file holding the curve up to the last
            measured length, rewritten atomically after each length. A
            measurement with the same `seed`, `sequences` and `min_length`,
            by the model at the same optimizer step, continues after the
            last length it holds.

    Returns:
        A list of `{"length": L, "accuracy": a}`, lengths increasing.
    """
    from tfds_tasks.generators.chomsky_hierarchy import evaluation_batches

    task = setup.task
    optimizer = getattr(model, "optimizer", None)
    measured = {"seed": seed, "sequences": sequences, "min_length": min_length,
                "optimizer_step": int(optimizer.iterations) if optimizer is not None else None}  # fmt: skip
    curve = _measured_so_far(progress_file, measured, max_length)
    if curve:
        print(f"resuming the evaluation after length {curve[-1]['length']} from {progress_file}", flush=True)
    first = curve[-1]["length"] + 1 if curve else min_length
    if first > max_length:
        return curve
    stream = evaluation_batches(task.name, seed, min_length=first, max_length=max_length,
                                sequences_per_length=sequences, batch_size=min(batch_size, sequences))  # fmt: skip
    for length, batches in itertools.groupby(stream, key=lambda item: item[0]):
        output_length = task.output_length(length)
        steps = data.pad_to_bucket(task.input_length(length) + output_length, EVAL_BUCKET_STEPS)
        right = scored = 0
        for _, batch in batches:
            tape, targets, weights = training_example(task, batch, steps)
            logits = np.asarray(model.predict_on_batch(tape))[:, -output_length:]
            mask = batch.output_mask.astype(bool)
            right += int(np.sum((np.argmax(logits, axis=-1) == batch.output) & mask))
            scored += int(np.sum(mask))
        curve.append({"length": length, "accuracy": right / scored})
        if progress_file is not None:
            files.write_atomically(progress_file, json.dumps({**measured, "accuracy_by_length": curve}))
        if verbose:
            print(f"  length {length:4d}: accuracy {curve[-1]['accuracy']:.3f}", flush=True)
    return curve


def _measured_so_far(progress_file, measured, max_length):
    """The curve a progress file holds for the measurement `measured`, up to `max_length`; [] if none."""
    if progress_file is None or not pathlib.Path(progress_file).is_file():
        return []
    progress = json.loads(pathlib.Path(progress_file).read_text())
    if any(progress.get(key) != value for key, value in measured.items()):
        return []
    return [point for point in progress["accuracy_by_length"] if point["length"] <= max_length]


def score(curve, train_max_length=CHOMSKY_PROTOCOL["train_lengths"][1]):
    """The paper's score: the mean accuracy over the lengths beyond training.

    Returns:
        The mean accuracy of `curve`'s lengths above `train_max_length`, or
        None if it has none.

    Example:

    >>> score([{"length": 40, "accuracy": 1.0}, {"length": 41, "accuracy": 0.5}, {"length": 42, "accuracy": 0.25}])
    0.375
    """
    beyond = [point["accuracy"] for point in curve if point["length"] > train_max_length]
    return float(np.mean(beyond)) if beyond else None


def curve_record(setup, label, curve, seed, sequences):
    """What `CURVE_FILE` holds: the curve, its score and how it was measured."""
    train_max = setup.train_lengths[1]
    lengths = [point["length"] for point in curve]
    scored = [length for length in lengths if length > train_max]
    return {
        "task": setup.name,
        "model": label,
        "train_lengths": list(setup.train_lengths),
        "scored_lengths": [scored[0], scored[-1]] if scored else None,
        "score": score(curve, train_max),
        "evaluation": {"lengths": [lengths[0], lengths[-1]], "sequences_per_length": sequences, "seed": seed},
        "accuracy_by_length": curve,
    }


def plot_curves(records, path, title=None):
    """Accuracy against length of several `curve_record`s, one line each, training lengths shaded.

    Args:
        records: `{label: curve_record}`.
        path: The PNG to write.
        title: The plot's title; default the task's name.
    """
    from keras_neural_memory import viz

    first = next(iter(records.values()))
    figure = viz.plot_length_generalisation(
        {label: record["accuracy_by_length"] for label, record in records.items()},
        train_range=first["train_lengths"],
        metric="accuracy",
        xlabel="length",
        title=title or first["task"],
    )
    axis = figure.axes[0]
    axis.set_ylabel("per-token accuracy")
    with files.atomic_path(path) as temporary:
        figure.savefig(temporary, dpi=120)
    return figure


def write_curve(folder, setup, label, curve, seed, sequences):
    """Writes `CURVE_FILE` and `PLOT_FILE` into `folder`, atomically; returns the record."""
    folder = pathlib.Path(folder)
    record = curve_record(setup, label, curve, seed, sequences)
    files.write_atomically(folder / CURVE_FILE, json.dumps(record, indent=2))
    plot_curves({label: record}, folder / PLOT_FILE)
    return record


def describe(setup, config):
    """The results' entries on the task of a run: no scale; trained on 1-40, measured on 1-`eval_max_length`."""
    return {"scale": None, "train_lengths": list(setup.train_lengths), "test_lengths": [1, config.eval_max_length]}


def measure_run(model, setup, config, output, seed):
    """The final measurement of a training run: writes the curve files into `output`; returns results' entries.

    The curve is written to `output`'s `PROGRESS_FILE` length by length,
    so a run stopped during its measurement continues it when it resumes;
    "eval_seconds" counts this process's part.
    """
    output = pathlib.Path(output)
    start = time.perf_counter()
    curve = accuracy_by_length(model, setup, seed, config.eval_max_length, config.eval_sequences,
                               verbose=config.verbose > 0, progress_file=output / PROGRESS_FILE)  # fmt: skip
    record = write_curve(output, setup, model.name, curve, seed, config.eval_sequences)
    (output / PROGRESS_FILE).unlink(missing_ok=True)
    return {
        "score": record["score"],
        "scored_lengths": record["scored_lengths"],
        "accuracy_by_length": CURVE_FILE,
        "evaluation": record["evaluation"],
        "eval_seconds": round(time.perf_counter() - start, 1),
    }


def score_text(score_value):
    """The score as `train` and `evaluate` print it."""
    if score_value is None or (isinstance(score_value, float) and math.isnan(score_value)):
        return "no score: no length beyond 40 was measured (raise --eval-max-length)"
    return f"score (mean accuracy over lengths 41 and up): {score_value:.3f}"
