"""The Chomsky-hierarchy benchmark of Delétang et al. (2023) as runs of `neural-memory train`.

A task "chomsky_hierarchy/NAME" is trained and measured with the protocol
of the authors' code ("Neural Networks and the Chomsky Hierarchy", ICLR
2023; google-deepmind/neural_networks_chomsky_hierarchy):

* the model (`models.build_chomsky_model`, Haiku's initialisation) reads
  the input, then one blank per output position, and answers at the
  blanks (non-autoregressive);
* training batches hold 128 sequences of one length, drawn uniformly from
  1-40 for every batch (`tfds_tasks.generators.chomsky_hierarchy.training_batches`);
* `optax.chain(clip_by_global_norm(1.0), adam(lr))` (`OptaxAdam` with
  `global_clipnorm=1.0`); the loss is the authors' `loss_fn`: the
  cross-entropy averaged over the batch and over every output position,
  the padding after a terminator included (it is not masked);
* the accuracy at a length is, as the authors' `range_evaluation`, the
  mean over sub-batches of 64 sequences of each sub-batch's share of right
  output tokens (where `output_mask` is 1), over 512 sequences of that
  length, for every length 1-500; the score is its mean over the lengths
  beyond training, 41-500;
* a Stack-RNN (`superposition_stack`) trains with the authors' stack of
  30 vectors and is measured twice: with that stack, and with one that
  holds the whole tape of every string (`WHOLE_TAPE_CURVE_FILE`; the
  weights do not depend on the stack's depth).

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
#: The curve of a Stack-RNN measured with a stack that holds the whole tape, and its plot and partial curve.
WHOLE_TAPE_CURVE_FILE = "accuracy_by_length_whole_tape_stack.json"
WHOLE_TAPE_PLOT_FILE = "accuracy_by_length_whole_tape_stack.png"
WHOLE_TAPE_PROGRESS_FILE = "evaluation_progress_whole_tape_stack.json"
#: Sequences per evaluation batch: 512 per length in 4 batches keeps a
#: length-500 evaluation well inside a few GiB (docs/results/chomsky.md#cost).
EVAL_BATCH_SIZE = 128
#: Sequences per sub-batch of the accuracy (the authors' `range_test_sub_batch_size`).
EVAL_SUB_BATCH_SIZE = 64
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
    """Compiles `model` with the authors' optimiser and loss.

    `OptaxAdam(learning_rate, global_clipnorm=1.0)`, the authors'
    `optax.chain(clip_by_global_norm(1.0), adam(learning_rate))`, and the
    cross-entropy summed over the batch: `training_example`'s weights are
    `1 / (batch rows * output positions)` at every output position, which
    makes it the authors' mean over the batch and the output positions.
    "accuracy" is per output token, with the same weights (the padding
    after a terminator counts; the measured accuracy, `accuracy_by_length`,
    leaves it out).
    """
    import keras

    from keras_neural_memory import OptaxAdam

    model.compile(
        optimizer=OptaxAdam(learning_rate, global_clipnorm=1.0),
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
        (float32): `1 / (batch rows * output positions)` at every output
        position, the padding after a terminator included (the authors'
        loss is not masked), 0 elsewhere.

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
    weights[:, -output_length:] = 1.0 / (len(batch.output) * output_length)
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
                       verbose=True, progress_file=None, optimizer_step=None):  # fmt: skip
    """Per-token accuracy at every length, streamed from the protocol's evaluation batches.

    Each length's accuracy is the authors' (`range_evaluation`): its
    `sequences` sequences are drawn in sub-batches of
    `EVAL_SUB_BATCH_SIZE` (the last may hold fewer), each sub-batch's
    accuracy is its right output tokens over its scored tokens
    (`output_mask` 1), and the length's accuracy is their mean. The
    strings are generated one length at a time (`evaluation_batches`) and
    predicted `batch_size` at a time, so memory holds one length's strings
    and one batch's activations. Every length's sequences are drawn from the stream
    seeded `seed` for that length alone, so a measurement resumed at any
    length sees the sequences an uninterrupted one would.

    Args:
        model: A model of `models.build_chomsky_model`.
        setup: The run's `ChomskySetup`.
        seed: The evaluation stream's seed.
        max_length: The last length.
        sequences: Sequences per length (the protocol: 512).
        min_length: The first length.
        batch_size: Sequences per predicted batch: whole sub-batches, at
            least one.
        verbose: Print each length's accuracy as it is measured.
        progress_file: A JSON file holding the curve up to the last
            measured length, rewritten atomically after each length. A
            measurement with the same `seed`, `sequences` and `min_length`,
            by the model at the same optimizer step, continues after the
            last length it holds.
        optimizer_step: The step of the trained weights, recorded with the
            progress; default the model's optimizer's.

    Returns:
        A list of `{"length": L, "accuracy": a}`, lengths increasing.
    """
    from tfds_tasks.generators.chomsky_hierarchy import evaluation_batches

    task = setup.task
    if optimizer_step is None:
        optimizer = getattr(model, "optimizer", None)
        optimizer_step = int(optimizer.iterations) if optimizer is not None else None
    measured = {"seed": seed, "sequences": sequences, "min_length": min_length, "optimizer_step": optimizer_step}
    curve = _measured_so_far(progress_file, measured, max_length)
    if curve:
        print(f"resuming the evaluation after length {curve[-1]['length']} from {progress_file}", flush=True)
    first = curve[-1]["length"] + 1 if curve else min_length
    if first > max_length:
        return curve
    sub_batch = min(EVAL_SUB_BATCH_SIZE, sequences)
    per_prediction = max(1, batch_size // sub_batch)
    stream = evaluation_batches(task.name, seed, min_length=first, max_length=max_length,
                                sequences_per_length=sequences, batch_size=sub_batch)  # fmt: skip
    for length, batches in itertools.groupby(stream, key=lambda item: item[0]):
        output_length = task.output_length(length)
        steps = data.pad_to_bucket(task.input_length(length) + output_length, EVAL_BUCKET_STEPS)
        sub_batches = [batch for _, batch in batches]
        accuracies = []
        for first_batch in range(0, len(sub_batches), per_prediction):
            group = sub_batches[first_batch : first_batch + per_prediction]
            tape = np.concatenate([training_example(task, batch, steps)[0] for batch in group])
            predicted = np.argmax(np.asarray(model.predict_on_batch(tape))[:, -output_length:], axis=-1)
            offset = 0
            for batch in group:
                mask = batch.output_mask.astype(bool)
                right = (predicted[offset : offset + len(batch.output)] == batch.output) & mask
                accuracies.append(np.sum(right) / np.sum(mask))
                offset += len(batch.output)
        curve.append({"length": length, "accuracy": float(np.mean(accuracies))})
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


def write_curve(folder, setup, label, curve, seed, sequences, curve_file=CURVE_FILE, plot_file=PLOT_FILE):
    """Writes `curve_file` and `plot_file` into `folder`, atomically; returns the record."""
    folder = pathlib.Path(folder)
    record = curve_record(setup, label, curve, seed, sequences)
    files.write_atomically(folder / curve_file, json.dumps(record, indent=2))
    plot_curves({label: record}, folder / plot_file)
    return record


def describe(setup, config):
    """The results' entries on the task of a run: no scale; trained on 1-40, measured on 1-`eval_max_length`."""
    return {"scale": None, "train_lengths": list(setup.train_lengths), "test_lengths": [1, config.eval_max_length]}


def whole_tape_stack_size(setup, max_length):
    """Stack vectors that hold every step of the tape of a string of `max_length`: its input and output steps.

    Example:

    >>> whole_tape_stack_size(task_setup("chomsky_hierarchy/duplicate_string"), 500)
    1500
    """
    return setup.task.input_length(max_length) + setup.task.output_length(max_length)


def with_stack_size(model, setup, stack_size):
    """The Stack-RNN `model` (memory "superposition_stack"), rebuilt with a stack of `stack_size` vectors.

    No weight depends on the depth of the stack: the new model has
    `model`'s weights, and is compiled (`compile_model`) to be measured.

    Raises:
        ValueError: `model` is not a Stack-RNN of `models.build_chomsky_model`.
    """
    from keras_neural_memory import models

    names = [layer.name for layer in model.layers]
    if "superposition_stack_rnn" not in names:
        raise ValueError(f"`model` must be a Stack-RNN of build_chomsky_model (memory='superposition_stack'); "
                         f"received a model of layers {names}.")  # fmt: skip
    cell = model.get_layer("superposition_stack_rnn").cell
    deeper = models.build_chomsky_model(
        setup.task.input_vocab_size, setup.task.output_vocab_size, memory="superposition_stack",
        hidden_size=cell.output_size, memory_width=cell.stack_cell_size, stack_size=stack_size,
    )  # fmt: skip
    deeper.set_weights(model.get_weights())
    compile_model(deeper, CHOMSKY_PROTOCOL["learning_rate"])
    return deeper


class _StackAsDeepAsEachTape:
    """The Stack-RNN `model` with, for each batch of tapes, a stack of as many vectors as the tapes have steps.

    No step pushes more than one vector, so such a stack never drops one:
    the answers are those of any deeper stack, at the cost of the tape's
    depth instead of the longest tape's (`with_stack_size` rebuilds the
    model for each new number of steps, one bucket of lengths after
    another).
    """

    optimizer = None

    def __init__(self, model, setup):
        self.model, self.setup = model, setup
        self._steps = self._deeper = None

    def predict_on_batch(self, tape):
        steps = tape.shape[1]
        if steps != self._steps:
            self._steps, self._deeper = steps, with_stack_size(self.model, self.setup, steps)
        return self._deeper.predict_on_batch(tape)


def measure_run(model, setup, config, output, seed):
    """The final measurement of a training run: writes the curve files into `output`; returns results' entries.

    The curve is written to `output`'s `PROGRESS_FILE` length by length,
    so a run stopped during its measurement continues it when it resumes;
    "eval_seconds" counts this process's part. A Stack-RNN is measured
    again with a stack that holds the whole tape of every string (as many
    vectors as the tape has steps), unless it was trained with one that
    holds the longest (`whole_tape_stack_size`): its results get
    "whole_tape_stack", with the longest tape's stack size, the score and
    the curve file (`WHOLE_TAPE_CURVE_FILE`).
    """
    output = pathlib.Path(output)
    start = time.perf_counter()
    step = int(model.optimizer.iterations)

    def measured(measured_model, label, curve_file, plot_file, progress_file):
        curve = accuracy_by_length(measured_model, setup, seed, config.eval_max_length, config.eval_sequences,
                                   verbose=config.verbose > 0, progress_file=output / progress_file,
                                   optimizer_step=step)  # fmt: skip
        return write_curve(output, setup, label, curve, seed, config.eval_sequences, curve_file, plot_file)

    record = measured(model, model.name, CURVE_FILE, PLOT_FILE, PROGRESS_FILE)
    results = {
        "score": record["score"],
        "scored_lengths": record["scored_lengths"],
        "accuracy_by_length": CURVE_FILE,
        "evaluation": record["evaluation"],
    }
    whole_tape = whole_tape_stack_size(setup, config.eval_max_length)
    if config.memory == "superposition_stack" and config.stack_size < whole_tape:
        deeper = _StackAsDeepAsEachTape(model, setup)
        label = f"{model.name}, stack of {whole_tape}"
        deep_record = measured(deeper, label, WHOLE_TAPE_CURVE_FILE, WHOLE_TAPE_PLOT_FILE, WHOLE_TAPE_PROGRESS_FILE)
        results["whole_tape_stack"] = {"stack_size": whole_tape, "score": deep_record["score"],
                                       "accuracy_by_length": WHOLE_TAPE_CURVE_FILE}  # fmt: skip
    # Only now: a run stopped during the second measurement keeps the first.
    for progress_file in (PROGRESS_FILE, WHOLE_TAPE_PROGRESS_FILE):
        (output / progress_file).unlink(missing_ok=True)
    results["eval_seconds"] = round(time.perf_counter() - start, 1)
    return results


def score_text(score_value, whole_tape_stack=None):
    """The score as `train` and `evaluate` print it, and a Stack-RNN's with a stack that holds the whole tape."""
    if score_value is None or (isinstance(score_value, float) and math.isnan(score_value)):
        return "no score: no length beyond 40 was measured (raise --eval-max-length)"
    text = f"score (mean accuracy over lengths 41 and up): {score_value:.3f}"
    if whole_tape_stack is not None:
        text += f"; with a stack of {whole_tape_stack['stack_size']} vectors: {whole_tape_stack['score']:.3f}"
    return text
