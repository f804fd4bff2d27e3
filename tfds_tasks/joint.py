"""Turn task examples into the sequences a model trains on.

Two layouts:

* ``"joint"`` (Grefenstette et al. 2015, §4 and §5.1): the model
  reads one sequence ``<s> source ||| target </s>`` and is trained to
  predict each next symbol, with the loss only on the predicted target
  symbols and the final ``</s>``. Used by the five Grefenstette tasks.
* ``"aligned"`` (Hao et al. 2018): a same-length transduction; at step t
  the model reads ``source[t]`` and emits ``target[t]``, scored where
  ``eval_mask`` is 1. Used by the six Hao tasks.

Id conventions (0 is always padding, so ``padded_batch`` pads correctly):

=========  =======================================  ========================
layout     input ids                                output (target) ids
=========  =======================================  ========================
joint      0 pad, 1 ``<s>``, 2 ``|||``,             0 pad, 1 ``</s>``,
           3+i source symbol i,                     2+j target symbol j
           3+S+j target symbol j (fed back)
aligned    0 pad, 1+i source symbol i               0 pad, 1+j target symbol j
=========  =======================================  ========================

``S`` and ``T`` are the source and target vocabulary sizes. Source and target
symbols get disjoint input ids, so one embedding table over the input ids
holds the separate source and target embeddings the paper describes.

Models and the training command use these helpers; they are the single
definition of the layouts. A model builder or decoder of
`keras_neural_memory.models` takes a :class:`Layout`, so the library's core
never imports this package.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Sequence

import numpy as np

PAD = 0
BOS = 1  # input id of <s>
SEP = 2  # input id of |||
EOS = 1  # output id of </s>
JOINT_INPUT_SPECIALS = ("<pad>", "<s>", "|||")
JOINT_OUTPUT_SPECIALS = ("<pad>", "</s>")
LAYOUTS = ("joint", "aligned")


def input_vocab_size(source_vocab_size: int, target_vocab_size: int, layout: str = "joint") -> int:
    """Number of input ids of a layout.

    Example:
      >>> input_vocab_size(128, 128)
      259
      >>> input_vocab_size(4, 5, "aligned")
      5
    """
    _check_layout(layout)
    if layout == "joint":
        return len(JOINT_INPUT_SPECIALS) + source_vocab_size + target_vocab_size
    return 1 + source_vocab_size


def output_vocab_size(target_vocab_size: int, layout: str = "joint") -> int:
    """Number of output ids of a layout (the softmax size).

    Example:
      >>> output_vocab_size(128)
      130
    """
    _check_layout(layout)
    return target_vocab_size + (len(JOINT_OUTPUT_SPECIALS) if layout == "joint" else 1)


def input_vocab(
    source_vocab: Sequence[str], target_vocab: Sequence[str], layout: str = "joint"
) -> list[str]:
    """Names of the input ids (target names prefixed ``tgt:`` in the joint layout)."""
    _check_layout(layout)
    if layout == "joint":
        return list(JOINT_INPUT_SPECIALS) + list(source_vocab) + [f"tgt:{w}" for w in target_vocab]
    return ["<pad>"] + list(source_vocab)


def output_vocab(target_vocab: Sequence[str], layout: str = "joint") -> list[str]:
    """Names of the output ids."""
    _check_layout(layout)
    specials = JOINT_OUTPUT_SPECIALS if layout == "joint" else ("<pad>",)
    return list(specials) + list(target_vocab)


@dataclasses.dataclass(frozen=True)
class Layout:
    """A layout's ids for one source and one target vocabulary.

    What a model of `keras_neural_memory.models` needs to know of the ids it
    reads and emits: `build_transducer` and `build_hao_model` size their
    embedding and softmax from it, and `transduce` decodes with it.

    Args:
      name: ``"joint"`` or ``"aligned"``.
      source_vocab_size: ``S``, the number of source symbols.
      target_vocab_size: ``T``, the number of target symbols.

    Example:
      >>> layout = Layout("joint", 10, 10)
      >>> layout.input_vocab_size, layout.output_vocab_size
      (23, 12)
      >>> layout.decoding_prefix([5, 7])   # <s> x5 x7 |||
      [1, 8, 10, 2]
      >>> layout.feedback_id(7)            # target symbol 7, read back
      20
      >>> layout.target_ids([9, 7, 1, 4])  # stops at </s>
      [7, 5]
    """

    name: str
    source_vocab_size: int
    target_vocab_size: int

    def __post_init__(self):
        _check_layout(self.name)
        for field in ("source_vocab_size", "target_vocab_size"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"`{field}` must be a positive integer; received {value!r}.")

    @classmethod
    def for_task(cls, task_name: str, info) -> "Layout":
        """The layout a task trains with (:func:`layout_for`), sized from its builder's ``DatasetInfo``."""
        return cls(layout_for(task_name), *vocab_sizes(info))

    @property
    def input_vocab_size(self) -> int:
        """The number of input ids (:func:`input_vocab_size`)."""
        return input_vocab_size(self.source_vocab_size, self.target_vocab_size, self.name)

    @property
    def output_vocab_size(self) -> int:
        """The number of output ids, the softmax size (:func:`output_vocab_size`)."""
        return output_vocab_size(self.target_vocab_size, self.name)

    def decoding_prefix(self, source_ids: Sequence[int]) -> list[int]:
        """The joint layout's ``<s> source |||``: the input ids a decoder reads before its first output."""
        self._check_joint("decoding_prefix")
        return make_joint_sequence(source_ids, [], self.source_vocab_size, self.target_vocab_size)["inputs"].tolist()

    def feedback_id(self, target_id: int) -> int:
        """The input id of target symbol ``target_id``, which a decoder reads back after emitting it."""
        self._check_joint("feedback_id")
        return input_vocab_size(self.source_vocab_size, 0) + int(target_id)

    def target_ids(self, output_ids: Sequence[int]) -> list[int]:
        """Target ids of predicted output ids, up to ``</s>`` or padding (:func:`target_ids_from_outputs`)."""
        return target_ids_from_outputs(output_ids, self.name)

    def _check_joint(self, method: str) -> None:
        # Only the joint layout feeds its outputs back: the aligned layout reads the whole source.
        if self.name != "joint":
            raise ValueError(f"`Layout.{method}` is defined for the joint layout only; this layout is {self.name!r}.")


def _check_layout(layout: str) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; expected one of {LAYOUTS}")


def _check_ids(ids: np.ndarray, size: int, what: str) -> None:
    if ids.ndim != 1:
        raise ValueError(f"{what} must be a 1-D sequence of ids")
    if ids.size and (ids.min() < 0 or ids.max() >= size):
        raise ValueError(f"{what} ids must lie in [0, {size}), got {ids.min()}..{ids.max()}")


def make_joint_sequence(
    source_ids: Sequence[int],
    target_ids: Sequence[int],
    source_vocab_size: int,
    target_vocab_size: int,
    target_mask: Sequence[int] | None = None,
) -> dict[str, np.ndarray]:
    """Builds ``<s> source ||| target </s>`` as model inputs, targets and loss mask.

    With ``n = len(source)`` and ``m = len(target)`` all three arrays have
    length ``n + m + 2``: ``inputs`` is the joint sequence without its last
    symbol, ``targets`` the same sequence shifted left by one, in output
    ids. Positions ``0..n`` (predicting the source and ``|||``) have target
    0 and mask 0; positions ``n+1..n+m`` predict the target symbols and
    position ``n+m+1`` predicts ``</s>``, all with mask 1.

    Args:
      source_ids: source token ids in ``[0, source_vocab_size)``.
      target_ids: target token ids in ``[0, target_vocab_size)``, without EOS.
      source_vocab_size: ``S``.
      target_vocab_size: ``T``.
      target_mask: optional 0/1 weights for the ``m`` target symbols (e.g. a
        Hao task's ``eval_mask``); ``</s>`` always has weight 1.

    Returns:
      ``{"inputs": int32[n+m+2], "targets": int32[n+m+2],
      "loss_mask": float32[n+m+2]}``.

    Raises:
      ValueError: on ids outside their vocabulary or a mask of wrong length.

    Example:
      Source ``x5 x7`` and target ``y7 y5`` with S = T = 10 give
      ``<s> x5 x7 ||| y7 y5 </s>``:

      >>> seq = make_joint_sequence([5, 7], [7, 5], 10, 10)
      >>> seq["inputs"].tolist()    # <s>, 3+5, 3+7, |||, 3+10+7, 3+10+5
      [1, 8, 10, 2, 20, 18]
      >>> seq["targets"].tolist()   # pad x3, 2+7, 2+5, </s>
      [0, 0, 0, 9, 7, 1]
      >>> seq["loss_mask"].tolist()
      [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    """
    src = np.asarray(source_ids, dtype=np.int64).reshape(-1)
    tgt = np.asarray(target_ids, dtype=np.int64).reshape(-1)
    _check_ids(src, source_vocab_size, "source")
    _check_ids(tgt, target_vocab_size, "target")
    n, m = src.size, tgt.size
    if target_mask is None:
        weights = np.ones(m, dtype=np.float32)
    else:
        weights = np.asarray(target_mask, dtype=np.float32).reshape(-1)
        if weights.size != m:
            raise ValueError(f"target_mask has length {weights.size}, target has {m}")
    offset = len(JOINT_INPUT_SPECIALS)
    inputs = np.concatenate([[BOS], src + offset, [SEP], tgt + offset + source_vocab_size])
    targets = np.concatenate([np.zeros(n + 1), tgt + len(JOINT_OUTPUT_SPECIALS), [EOS]])
    loss_mask = np.concatenate([np.zeros(n + 1), weights, [1.0]])
    return {
        "inputs": inputs.astype(np.int32),
        "targets": targets.astype(np.int32),
        "loss_mask": loss_mask.astype(np.float32),
    }


def make_aligned_sequence(
    source_ids: Sequence[int],
    target_ids: Sequence[int],
    source_vocab_size: int,
    target_vocab_size: int,
    eval_mask: Sequence[int] | None = None,
) -> dict[str, np.ndarray]:
    """Builds the same-length (Hao et al.) training triple.

    Args:
      source_ids: source ids in ``[0, source_vocab_size)``.
      target_ids: target ids, same length as the source.
      source_vocab_size: ``S``.
      target_vocab_size: ``T``.
      eval_mask: optional 0/1 weights per position (default all ones).

    Returns:
      ``{"inputs": int32[n], "targets": int32[n], "loss_mask": float32[n]}``
      with ids shifted by one so that 0 is padding.

    Example:
      >>> seq = make_aligned_sequence([0, 1, 1], [0, 1, 0], 2, 2, [1, 1, 1])
      >>> seq["inputs"].tolist(), seq["targets"].tolist()
      ([1, 2, 2], [1, 2, 1])
    """
    src = np.asarray(source_ids, dtype=np.int64).reshape(-1)
    tgt = np.asarray(target_ids, dtype=np.int64).reshape(-1)
    _check_ids(src, source_vocab_size, "source")
    _check_ids(tgt, target_vocab_size, "target")
    if src.size != tgt.size:
        raise ValueError(f"aligned layout needs equal lengths, got {src.size} and {tgt.size}")
    if eval_mask is None:
        weights = np.ones(src.size, dtype=np.float32)
    else:
        weights = np.asarray(eval_mask, dtype=np.float32).reshape(-1)
        if weights.size != src.size:
            raise ValueError(f"eval_mask has length {weights.size}, source has {src.size}")
    return {
        "inputs": (src + 1).astype(np.int32),
        "targets": (tgt + 1).astype(np.int32),
        "loss_mask": weights,
    }


def target_ids_from_outputs(output_ids: Sequence[int], layout: str = "joint") -> list[int]:
    """Maps predicted output ids back to target ids (stops at ``</s>``/padding).

    Example:
      >>> target_ids_from_outputs([9, 7, 1, 4])
      [7, 5]
    """
    _check_layout(layout)
    out = []
    for k in output_ids:
        k = int(k)
        if layout == "joint":
            if k in (PAD, EOS):
                break
            out.append(k - len(JOINT_OUTPUT_SPECIALS))
        else:
            if k == PAD:
                break
            out.append(k - 1)
    return out


def training_map_fn(
    source_vocab_size: int,
    target_vocab_size: int,
    layout: str = "joint",
    use_eval_mask: bool | None = None,
) -> Callable[[Mapping], dict]:
    """Returns a ``tf.data`` map function: example dict -> training triple.

    The function is the TensorFlow twin of :func:`make_joint_sequence` /
    :func:`make_aligned_sequence` (same ids, tested equal). It reads the
    ``source``, ``target`` and, if present, ``eval_mask`` entries.

    Args:
      source_vocab_size: ``S``.
      target_vocab_size: ``T``.
      layout: ``"joint"`` or ``"aligned"``.
      use_eval_mask: weight target positions by ``eval_mask``; default: when
        the example has one.

    Returns:
      ``fn(example) -> {"inputs", "targets", "loss_mask"}``.

    Example:
      >>> import tensorflow as tf
      >>> ds = tf.data.Dataset.from_tensors({"source": [5, 7], "target": [7, 5]})
      >>> out = next(iter(ds.map(training_map_fn(10, 10))))
      >>> out["inputs"].numpy().tolist()
      [1, 8, 10, 2, 20, 18]
    """
    import tensorflow as tf  # the generators stay TensorFlow-free

    _check_layout(layout)
    offset = len(JOINT_INPUT_SPECIALS)
    out_offset = len(JOINT_OUTPUT_SPECIALS)

    def fn(example):
        src = tf.cast(example["source"], tf.int32)
        tgt = tf.cast(example["target"], tf.int32)
        m = tf.shape(tgt)[0]
        use_mask = ("eval_mask" in example) if use_eval_mask is None else use_eval_mask
        weights = tf.cast(example["eval_mask"], tf.float32) if use_mask else tf.ones([m], tf.float32)
        if layout == "aligned":
            return {"inputs": src + 1, "targets": tgt + 1, "loss_mask": weights}
        n = tf.shape(src)[0]
        inputs = tf.concat(
            [[BOS], src + offset, [SEP], tgt + offset + source_vocab_size], axis=0
        )
        targets = tf.concat([tf.zeros([n + 1], tf.int32), tgt + out_offset, [EOS]], axis=0)
        loss_mask = tf.concat([tf.zeros([n + 1], tf.float32), weights, [1.0]], axis=0)
        return {"inputs": inputs, "targets": targets, "loss_mask": loss_mask}

    return fn


def vocab_sizes(info) -> tuple[int, int]:
    """Returns ``(S, T)`` from a task builder's ``tfds.core.DatasetInfo``."""
    return (
        info.features["source"].feature.num_classes,
        info.features["target"].feature.num_classes,
    )


def layout_for(task_name: str) -> str:
    """The layout the task's paper trains with.

    Example:
      >>> layout_for("itg_svo_sov"), layout_for("cumulative_xor")
      ('joint', 'aligned')
    """
    from tfds_tasks import generators

    return "aligned" if generators.task_class(task_name).uses_eval_mask else "joint"
