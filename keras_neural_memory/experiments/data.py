"""The examples a run trains and is measured on, from `tfds_tasks`.

Every batch is `(inputs, targets, loss_mask)` in the task's layout
(`tfds_tasks.joint`), padded with id 0 (which the models mask) to a
multiple of 16 steps.

Example:

```python
from keras_neural_memory.experiments import data

setup = data.task_setup("sequence_reversal", "quick")
inputs, targets, loss_mask = next(iter(data.examples(setup, "train", 10, seed=0, batch_size=10)))
```
"""

import dataclasses
import itertools

import numpy as np

from keras_neural_memory.experiments.config import SCALES, UsageError


@dataclasses.dataclass
class TaskSetup:
    """A task's data settings and vocabulary at a scale.

    Attributes:
        name: The `tfds_tasks` task name.
        layout: "joint" (Grefenstette et al.) or "aligned" (Hao et al.).
        settings: The task's `tfds_tasks.TaskSettings` (its regimes).
        source_vocab_size: `S`, source symbols.
        target_vocab_size: `T`, target symbols.
    """

    name: str
    layout: str
    settings: object
    source_vocab_size: int
    target_vocab_size: int


def task_setup(name, scale, train_lengths=None, test_lengths=None):
    """The task's settings at `scale`, optionally with other length ranges.

    Args:
        name: A task of `tfds_tasks.TASK_NAMES`.
        scale: A key of `SCALES` (Hao et al. tasks keep their own regimes).
        train_lengths: `(min, max)` source lengths of training, if not the scale's.
        test_lengths: `(min, max)` source lengths of the test regime, if not the scale's.

    Raises:
        UsageError: An unknown task, or lengths the task cannot have.
    """
    from tfds_tasks import TASK_NAMES, generators, layout_for
    from tfds_tasks.generators import Regime

    if name not in TASK_NAMES:
        raise UsageError(f"unknown task {name!r}; choose one of: {', '.join(TASK_NAMES)}")
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
        settings = base  # Hao et al. tasks keep their own regimes at every scale
    try:
        if train_lengths:
            settings = dataclasses.replace(settings, train=_with_lengths(settings.train, train_lengths))
        if test_lengths:
            settings = dataclasses.replace(settings, test=_with_lengths(settings.test, test_lengths))
        task = generators.make_task(name, settings.train, settings.vocab_size)
        generators.make_task(name, settings.test, settings.vocab_size)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return TaskSetup(name, layout, settings, len(task.source_vocab), len(task.target_vocab))


def _with_lengths(regime, lengths):
    return dataclasses.replace(regime, min_length=lengths[0], max_length=lengths[1])


def input_vocab_size(setup):
    """Input ids a model of `setup`'s task reads (`tfds_tasks.joint`)."""
    from tfds_tasks import joint

    return joint.input_vocab_size(setup.source_vocab_size, setup.target_vocab_size, setup.layout)


def examples(setup, split, count, seed, batch_size):
    """Fresh examples of `split`'s regime as padded `(inputs, targets, loss_mask)` batches.

    Args:
        setup: A `TaskSetup`.
        split: "train", "validation" or "test": the regime to sample.
        count: Examples; None gives the endless stream that training reads.
        seed: The stream's seed.
        batch_size: Examples per batch.

    Returns:
        A `tf.data.Dataset`.
    """
    import tfds_tasks

    ds = tfds_tasks.stream(setup.name, seed=seed, config=setup.settings, split=split, training_sequences=True)
    if count is not None:
        ds = ds.take(count)
    batches = ds.map(lambda e: (e["inputs"], e["targets"], e["loss_mask"])).padded_batch(batch_size)
    return batches.map(pad_to_bucket)


def pad_to_bucket(inputs, targets, weights, multiple=16):
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


def epoch_seed(seed, epoch):
    """The seed of epoch `epoch`'s training examples in a run seeded `seed`."""
    return int(np.random.SeedSequence([seed, epoch]).generate_state(1)[0])


def training_batches(setup, seed, batch_size, first_epoch, steps):
    """The endless training batches from epoch `first_epoch` on.

    Epoch `e` reads `steps` batches of the stream seeded `epoch_seed(seed, e)`,
    so a run resumed at any epoch sees the examples an uninterrupted one would.
    """
    import tensorflow as tf

    def batches():
        for epoch in itertools.count(first_epoch):
            yield from examples(setup, "train", steps * batch_size, epoch_seed(seed, epoch), batch_size)

    spec = examples(setup, "train", 1, seed, batch_size).element_spec
    return tf.data.Dataset.from_generator(batches, output_signature=spec).prefetch(2)
