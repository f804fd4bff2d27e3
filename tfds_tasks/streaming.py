"""Infinite, seeded ``tf.data`` streams of freshly sampled examples.

The papers train on an unbounded stream of samples (Grefenstette et al.
2015, §4.1), not on a fixed split; :func:`stream` provides that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfds_tasks import generators, joint
from tfds_tasks.generators import TaskSettings

if TYPE_CHECKING:
    import tensorflow as tf


def stream(
    name: str,
    seed: int = 0,
    *,
    config: str | TaskSettings = "default",
    split: str = "train",
    training_sequences: bool = False,
    layout: str | None = None,
) -> tf.data.Dataset:
    """Returns an infinite dataset of freshly sampled examples of a task.

    Examples come from :func:`tfds_tasks.generators.sample_stream` (the
    regime of ``split`` in ``config``); the same arguments give the same
    stream, each time it is iterated. The stream is independent of the TFDS
    splits (its seed is derived separately); for the default configs its
    ``train`` regime never overlaps the ``test`` lengths.

    Args:
      name: the task name.
      seed: the stream's seed.
      config: a config name (``"default"``, ``"paper"``, ``"tiny"``) or
        :class:`TaskSettings` whose regimes and vocabulary to use.
      split: ``"train"`` (same as ``"validation"``) or ``"test"`` regime.
      training_sequences: map each example to the model triple
        ``{"inputs", "targets", "loss_mask"}`` of :mod:`tfds_tasks.joint`.
      layout: ``"joint"`` or ``"aligned"`` for ``training_sequences``;
        default: the paper's layout for the task (``joint.layout_for``).

    Returns:
      A ``tf.data.Dataset``. Raw elements are ``{"source", "target"}``
      (int32 vectors) plus ``"eval_mask"`` for the Hao et al. tasks.

    Raises:
      ValueError: for an unknown task, config, split or layout.

    Example:
      >>> import tensorflow as tf
      >>> ds = stream("sequence_reversal", seed=0, config="tiny")
      >>> ex = next(iter(ds))
      >>> bool(tf.reduce_all(ex["target"] == tf.reverse(ex["source"], [0])))
      True
      >>> batches = stream("sequence_reversal", config="tiny",
      ...                  training_sequences=True).padded_batch(10)
    """
    import tensorflow as tf  # imported here: the package's generators need no TensorFlow

    settings = generators.settings(name, config)
    regime = settings.regime(split)
    task = generators.make_task(name, regime, settings.vocab_size)
    if layout is not None and not training_sequences:
        raise ValueError("layout is only used with training_sequences=True")
    layout = layout or joint.layout_for(name)
    joint._check_layout(layout)  # fail here, not inside tf.data

    signature = {
        "source": tf.TensorSpec([None], tf.int32),
        "target": tf.TensorSpec([None], tf.int32),
    }
    if task.uses_eval_mask:
        signature["eval_mask"] = tf.TensorSpec([None], tf.int32)

    def gen():
        # A new iterator (hence the same seed) every time tf.data restarts.
        for ex in generators.sample_stream(name, seed, settings, split):
            item = {"source": list(ex.source), "target": list(ex.target)}
            if task.uses_eval_mask:
                item["eval_mask"] = list(ex.eval_mask)
            yield item

    ds = tf.data.Dataset.from_generator(gen, output_signature=signature)
    if training_sequences:
        fn = joint.training_map_fn(len(task.source_vocab), len(task.target_vocab), layout)
        ds = ds.map(fn)  # sequential map: order (and so determinism) is kept
    return ds
