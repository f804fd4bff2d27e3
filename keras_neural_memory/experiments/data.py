"""The examples a run trains and is measured on, from `tfds_tasks`.

Every batch is `(inputs, targets, loss_mask)` in the task's layout
(`tfds_tasks.joint`), padded with id 0 (which the models mask) to a
multiple of 16 steps. Examples are sampled by `tfds_tasks.generators` and
laid out by `tfds_tasks.joint` in NumPy, so on JAX a run needs neither
TensorFlow nor TFDS.

Example:

```python
from keras_neural_memory.experiments import data

setup = data.task_setup("sequence_reversal", "quick")
inputs, targets, loss_mask = next(iter(data.examples(setup, "train", 10, seed=0, batch_size=10)))
```
"""

import dataclasses
import itertools

import keras
import numpy as np

from keras_neural_memory.experiments.common import SCALES, UsageError

#: Batches are padded to a multiple of this many steps (see `pad_to_bucket`).
BUCKET_STEPS = 16


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

    @property
    def id_layout(self):
        """The `tfds_tasks.Layout` of the task's ids, which the models are built with."""
        from tfds_tasks import Layout

        return Layout(self.layout, self.source_vocab_size, self.target_vocab_size)
def task_setup(name, scale, train_lengths=None, test_lengths=None, vocab_size=None, rule_probabilities=None):
    """The task's settings at `scale`, optionally with other lengths, vocabulary or grammar.

    Args:
        name: A task of `tfds_tasks.TASK_NAMES`.
        scale: A key of `SCALES` (Hao et al. tasks keep their own regimes).
        train_lengths: `(min, max)` source lengths of training, if not the scale's.
        test_lengths: `(min, max)` source lengths of the test regime, if not the scale's.
        vocab_size: Content symbols, if not the scale's (Grefenstette et al. tasks).
        rule_probabilities: `{nonterminal: probabilities}` (or its pairs)
            replacing the grammar's (the ITG tasks).

    Raises:
        UsageError: An unknown task, or lengths, a vocabulary or rule
            probabilities the task cannot have.
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
        if vocab_size is not None:
            if layout != "joint":
                raise ValueError(f"vocab_size: task {name} (Hao et al.) has a fixed vocabulary; leave it out")
            settings = dataclasses.replace(settings, vocab_size=vocab_size)
        if rule_probabilities is not None:
            settings = dataclasses.replace(settings, rule_probabilities=rule_probabilities)
        if train_lengths:
            settings = dataclasses.replace(settings, train=_with_lengths(settings.train, train_lengths))
        if test_lengths:
            settings = dataclasses.replace(settings, test=_with_lengths(settings.test, test_lengths))
        task = generators.make_task(name, settings.train, settings.vocab_size, settings.rule_probabilities)
        generators.make_task(name, settings.test, settings.vocab_size, settings.rule_probabilities)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return TaskSetup(name, layout, settings, len(task.source_vocab), len(task.target_vocab))


def _with_lengths(regime, lengths):
    return dataclasses.replace(regime, min_length=lengths[0], max_length=lengths[1])


def examples(setup, split, count, seed, batch_size):
    """Fresh examples of `split`'s regime as padded `(inputs, targets, loss_mask)` batches.

    The examples are those of `tfds_tasks.stream(setup.name, seed, ...,
    training_sequences=True)`, batched in order.

    Args:
        setup: A `TaskSetup`.
        split: "train", "validation" or "test": the regime to sample.
        count: Examples; None gives the endless stream that training reads.
            The last batch holds the remainder of `count`.
        seed: The stream's seed.
        batch_size: Examples per batch.

    Returns:
        Batches that `fit`, `evaluate` and `predict` read, again from the
        first each time they are iterated (see `as_batches`).
    """

    def make_batches():
        sequences = training_sequences(setup, split, seed)
        return padded_batches(itertools.islice(sequences, count), batch_size)

    return as_batches(make_batches, None if count is None else batch_count(count, batch_size))


def whole_batches(setup, split, count, seed, batch_size):
    """At least `count` fresh examples of `split`, rounded up to whole batches.

    Measurements read whole batches: a data-parallel batch must split evenly
    over the replicas, and Keras needs the number of batches of a stream.

    Returns:
        `(batches, steps)`: the batches of `examples`, and how many there are.
    """
    steps = batch_count(count, batch_size)
    return examples(setup, split, steps * batch_size, seed, batch_size), steps


def batch_count(count, batch_size):
    """Batches that hold `count` examples, the last one possibly partial.

    Example:

    >>> batch_count(101, 50), batch_count(100, 50)
    (3, 2)
    """
    return -(-count // batch_size)


def training_sequences(setup, split, seed):
    """The endless stream of `split`'s examples as `tfds_tasks.joint` training triples."""
    from tfds_tasks import generators, joint

    make = joint.make_joint_sequence if setup.layout == "joint" else joint.make_aligned_sequence
    for example in generators.sample_stream(setup.name, seed, setup.settings, split):
        yield make(example.source, example.target, setup.source_vocab_size, setup.target_vocab_size, example.eval_mask)


def padded_batches(sequences, batch_size):
    """Stacks `{"inputs", "targets", "loss_mask"}` dicts into padded batch triples.

    Args:
        sequences: An iterable of training triples (`tfds_tasks.joint`).
        batch_size: Sequences per batch; the last batch holds the remainder.

    Yields:
        `(inputs, targets, loss_mask)` NumPy arrays of shape `[batch, steps]`,
        padded by `pad_to_bucket`.
    """
    sequences = iter(sequences)
    while batch := list(itertools.islice(sequences, batch_size)):
        steps = pad_to_bucket(max(len(sequence["inputs"]) for sequence in batch))
        yield tuple(
            np.stack([np.pad(sequence[key], (0, steps - len(sequence[key]))) for sequence in batch])
            for key in ("inputs", "targets", "loss_mask")
        )


def pad_to_bucket(steps, multiple=BUCKET_STEPS):
    """The padded length of a batch whose longest sequence has `steps` steps.

    Under XLA every new batch length is a new compilation (and its memory):
    buckets keep that to a few shapes. The padding is id 0 with weight 0,
    which the models mask, so it changes no loss and no metric.

    Example:

    >>> pad_to_bucket(19), pad_to_bucket(32)
    (32, 32)
    """
    return -(-steps // multiple) * multiple


def as_batches(make_batches, num_batches):
    """Batches from `make_batches()`, in the form the Keras backend reads best.

    This is the data pipeline's one backend seam. TensorFlow gets a
    `tf.data.Dataset` whose signature leaves the batch and time axes open
    (Keras would fix them from the first batches it peeks at, and batches
    differ in length). Other backends get a `keras.utils.PyDataset` of NumPy
    batches, with no TensorFlow involved.

    Args:
        make_batches: A function returning a new iterator of batches, the
            same ones each call.
        num_batches: Batches per iteration; None when endless.
    """
    if keras.backend.backend() == "tensorflow":
        import tensorflow as tf

        signature = (
            tf.TensorSpec([None, None], tf.int32),
            tf.TensorSpec([None, None], tf.int32),
            tf.TensorSpec([None, None], tf.float32),
        )
        return tf.data.Dataset.from_generator(make_batches, output_signature=signature).prefetch(2)
    return OrderedBatches(make_batches, num_batches)


class OrderedBatches(keras.utils.PyDataset):
    """A `PyDataset` over an iterator that is read in order.

    Keras reads a `PyDataset` by index, from 0 upwards (one worker, so in
    order); reading an earlier index starts a new iterator, so each pass
    over a finite dataset sees the same batches.

    Args:
        make_batches: A function returning a new iterator of batches.
        num_batches: Batches per pass; None when endless.
    """

    def __init__(self, make_batches, num_batches):
        super().__init__()
        self._make_batches = make_batches
        self._num_batches = num_batches
        self._iterator = None
        self._position = 0

    @property
    def num_batches(self):
        return self._num_batches

    def __getitem__(self, index):
        if self._num_batches is not None and not 0 <= index < self._num_batches:
            raise IndexError(f"batch {index} of {self._num_batches}")
        if self._iterator is None or index < self._position:
            self._iterator, self._position = self._make_batches(), 0
        for _ in itertools.islice(self._iterator, index - self._position):  # skip forward
            pass
        self._position = index + 1
        try:
            return next(self._iterator)
        except StopIteration:
            raise IndexError(f"the batches ended before batch {index}; num_batches is {self._num_batches}") from None


def epoch_seed(seed, epoch):
    """The seed of epoch `epoch`'s training examples in a run seeded `seed`."""
    return int(np.random.SeedSequence([seed, epoch]).generate_state(1)[0])


def training_batches(setup, seed, batch_size, first_epoch, steps, curriculum_epochs=None):
    """The endless training batches from epoch `first_epoch` on.

    Epoch `e` reads `steps` batches of the stream seeded `epoch_seed(seed, e)`,
    so a run resumed at any epoch sees the examples an uninterrupted one would.
    With `curriculum_epochs`, the first epochs read the shorter sources of
    `curriculum_regimes`.
    """
    curriculum = curriculum_regimes(setup, curriculum_epochs) if curriculum_epochs else []

    def make_batches():
        for epoch in itertools.count(first_epoch):
            epoch_setup = setup
            if epoch < len(curriculum):
                epoch_setup = dataclasses.replace(setup, settings=dataclasses.replace(setup.settings, train=curriculum[epoch]))
            sequences = training_sequences(epoch_setup, "train", epoch_seed(seed, epoch))
            yield from padded_batches(itertools.islice(sequences, steps * batch_size), batch_size)

    return as_batches(make_batches, None)


def curriculum_regimes(setup, epochs):
    """The training regimes of a length curriculum of `epochs` epochs.

    Epoch `e < epochs` draws source lengths from the task's shortest, `low`,
    up to a longest that grows linearly from the first length above `low`
    (epoch 0) towards the longest training length (reached after the
    curriculum); later epochs train on the training regime. Short sources
    first keep what a memory mixes in with small strengths small: a leak of
    strength `p` per step adds up to `p * n` under a source of `n` symbols.

    Each regime is one the task can sample (bigram_flip's lengths are
    even, an ITG's sentences are those its grammar derives); a depth limit
    of the training regime is kept.

    Raises:
        UsageError: The task has no lengths below its training maximum.

    >>> setup = task_setup("sequence_copy", "default")
    >>> [(r.min_length, r.max_length) for r in curriculum_regimes(setup, 4)]
    [(1, 2), (1, 5), (1, 9), (1, 12)]
    >>> [(r.min_length, r.max_length) for r in curriculum_regimes(task_setup("bigram_flip", "default"), 4)]
    [(2, 4), (2, 8), (2, 10), (2, 14)]
    """
    train = setup.settings.train

    def regime(low, high):
        """`train` with lengths `low`-`high`, or None where the task cannot sample them."""
        from tfds_tasks import generators

        candidate = dataclasses.replace(train, min_length=low, max_length=high)
        try:
            generators.make_task(setup.name, candidate, setup.settings.vocab_size, setup.settings.rule_probabilities)
        except ValueError:
            return None
        return candidate

    def first_regime(low, at_least):
        return next(filter(None, (regime(low, high) for high in range(at_least, train.max_length + 1))), None)

    for low in range(1, train.max_length):
        first = first_regime(low, low + 1)
        if first is not None and first.max_length < train.max_length:
            break
    else:
        raise UsageError(f"--curriculum-epochs: task {setup.name} has no training lengths shorter than "
                         f"{train.max_length} to start from; leave it out")  # fmt: skip
    span = train.max_length - first.max_length
    return [first_regime(low, first.max_length + span * epoch // epochs) for epoch in range(epochs)]
