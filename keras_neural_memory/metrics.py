"""Sequence accuracies of Grefenstette et al. 2015 (§4.3) and Hao et al. 2018.

All three metrics read `y_true` as `(batch, time)` output ids where id 0
is padding (the `tfds_tasks.joint` layouts) and `y_pred` as
`(batch, time, classes)` scores. A position is *scored* when its target id
is not 0 and, if a `sample_weight` is given, its weight is positive. Pass
the loss mask as `sample_weight` (i.e. list the metric in
`compile(weighted_metrics=...)`) for tasks that score only some target
positions (the Hao et al. tasks); for the joint `<s> source ||| target </s>`
layout, the non-zero targets already are the scored positions.

Coarse and fine accuracy are computed exactly from one teacher-forced
pass: greedy decoding emits the same symbols as teacher forcing up to the
first error, and both metrics only look up to the first error.
"""

from keras import ops
from keras.metrics import Metric
from keras.saving import register_keras_serializable


def _scored_and_wrong(y_true, y_pred, sample_weight):
    y_true = ops.cast(y_true, "int32")
    if len(y_true.shape) == 3:  # (batch, time, 1) sparse labels
        y_true = ops.squeeze(y_true, axis=-1)
    predicted = ops.cast(ops.argmax(y_pred, axis=-1), "int32")
    scored = ops.not_equal(y_true, 0)
    if sample_weight is not None:
        weight = ops.convert_to_tensor(sample_weight)
        if len(weight.shape) == 3:
            weight = ops.squeeze(weight, axis=-1)
        scored = ops.logical_and(scored, ops.greater(weight, 0))
    scored = ops.cast(scored, "float32")
    wrong = ops.cast(ops.not_equal(predicted, y_true), "float32") * scored
    return scored, wrong


class _SequenceMean(Metric):
    """Mean over sequences that have at least one scored position."""

    def __init__(self, name, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count")

    def _per_sequence(self, scored, wrong):
        raise NotImplementedError

    def update_state(self, y_true, y_pred, sample_weight=None):
        scored, wrong = _scored_and_wrong(y_true, y_pred, sample_weight)
        has_target = ops.cast(ops.sum(scored, axis=1) > 0, "float32")
        values = self._per_sequence(scored, wrong) * has_target
        self.total.assign_add(ops.cast(ops.sum(values), self.dtype))
        self.count.assign_add(ops.cast(ops.sum(has_target), self.dtype))

    def result(self):
        return ops.divide_no_nan(self.total, self.count)


@register_keras_serializable(package="keras_neural_memory")
class CoarseAccuracy(_SequenceMean):
    """Fraction of sequences whose scored symbols are all right (§4.3).

    Args:
        name: Metric name.
        dtype: Dtype of the result.

    Example:

    >>> import numpy as np
    >>> metric = CoarseAccuracy()
    >>> y_true = np.array([[0, 3, 1], [0, 2, 1]])       # 0: not scored
    >>> y_pred = np.eye(4)[[[0, 3, 1], [0, 2, 2]]]      # second is wrong at </s>
    >>> metric.update_state(y_true, y_pred)
    >>> float(metric.result())
    0.5
    """

    def __init__(self, name="coarse_accuracy", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def _per_sequence(self, scored, wrong):
        return ops.cast(ops.sum(wrong, axis=1) == 0, "float32")


@register_keras_serializable(package="keras_neural_memory")
class FineAccuracy(_SequenceMean):
    """Mean fraction of each target that is right before its first error (§4.3).

    `#correct_i / |target_i|`, where `#correct_i` counts the scored symbols
    before the first wrong one and `|target_i|` all scored symbols (EOS
    included in the joint layout).

    Args:
        name: Metric name.
        dtype: Dtype of the result.

    Example:

    >>> import numpy as np
    >>> metric = FineAccuracy()
    >>> y_true = np.array([[0, 3, 2, 1]])
    >>> y_pred = np.eye(4)[[[0, 3, 1, 1]]]   # right, wrong, right
    >>> metric.update_state(y_true, y_pred)
    >>> round(float(metric.result()), 4)     # 1 of 3 before the first error
    0.3333
    """

    def __init__(self, name="fine_accuracy", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def _per_sequence(self, scored, wrong):
        before_first_error = ops.cast(ops.cumsum(wrong, axis=1) == 0, "float32") * scored
        return ops.divide_no_nan(ops.sum(before_first_error, axis=1), ops.sum(scored, axis=1))


@register_keras_serializable(package="keras_neural_memory")
class MaskedAccuracy(Metric):
    """Per-symbol accuracy over the scored positions (Hao et al. 2018, §5).

    Args:
        name: Metric name.
        dtype: Dtype of the result.

    Example:

    >>> import numpy as np
    >>> metric = MaskedAccuracy()
    >>> y_true = np.array([[1, 2, 1, 2]])
    >>> y_pred = np.eye(3)[[[1, 1, 1, 2]]]
    >>> metric.update_state(y_true, y_pred, sample_weight=np.array([[0, 1, 1, 1]]))
    >>> round(float(metric.result()), 4)     # 2 of the 3 scored positions
    0.6667
    """

    def __init__(self, name="masked_accuracy", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.right = self.add_variable(shape=(), initializer="zeros", name="right")
        self.scored = self.add_variable(shape=(), initializer="zeros", name="scored")

    def update_state(self, y_true, y_pred, sample_weight=None):
        scored, wrong = _scored_and_wrong(y_true, y_pred, sample_weight)
        self.right.assign_add(ops.cast(ops.sum(scored - wrong), self.dtype))
        self.scored.assign_add(ops.cast(ops.sum(scored), self.dtype))

    def result(self):
        return ops.divide_no_nan(self.right, self.scored)
