"""The options that configure a memory cell for training, as one value.

`MemoryOptions` gathers the keyword arguments of `StackCell`, `QueueCell`
and `DequeCell` that an experiment varies (the gates' activation, strength
noise and the ends it goes to, the DeQue's quiet end, the pop gate's
initial bias). The model builders take it as one argument, and the cells
keep their own flat keyword arguments, so a saved model's config does not
change.

Each field's metadata says which memories take it, its choices or bounds,
and the help of its `neural-memory train` flag (the field's name, with
dashes), so a new option is added here and in the cell alone.
"""

import dataclasses

from keras_neural_memory.validation import InvalidArgumentError, check_real

#: The memories that have a memory cell of this package.
MEMORY_CELL_KINDS = ("stack", "queue", "deque")
#: The activations a memory's push or pop gate may have, both into [0, 1]: the paper's sigmoid, or one that
#: reaches exactly 0 and 1.
GATE_ACTIVATIONS = ("sigmoid", "hard_sigmoid")
#: `DequeCell`'s quiet end: None (both ends alike, the paper), or which end starts quiet.
QUIET_ENDS = (None, "random", "top", "bottom", "both")
#: `DequeCell`'s ends that get strength noise: every end, or the quiet one only.
STRENGTH_NOISE_ENDS = ("all", "quiet")


def _option(default, memories, help, choices=None, minimum=None):
    """A `MemoryOptions` field: its default, the memories that take it, and its flag's help and values."""
    return dataclasses.field(default=default, metadata=dict(memories=memories, help=help, choices=choices, minimum=minimum))


@dataclasses.dataclass(frozen=True)
class MemoryOptions:
    """How a memory cell trains: the options an experiment varies, validated once.

    Every default is the paper's, so `MemoryOptions()` builds the cells of
    Grefenstette et al. `cell_kwargs` gives a cell its keyword arguments;
    `changed` lists the options that differ from the defaults, which is
    how a run records them.

    Args:
        gate_activation: Activation of the push and pop logits, "sigmoid"
            (the paper) or "hard_sigmoid" (`MemoryCell`).
        strength_noise: Standard deviation of Gaussian noise on the push
            and pop logits while training (`MemoryCell`); 0 for none.
        strength_noise_ends: Which ends of a DeQue get the noise: "all",
            or "quiet" for the end (or ends) of `quiet_end` only
            (`DequeCell`). "quiet" needs `strength_noise` and `quiet_end`.
        quiet_end: Which end of a DeQue starts with low push and pop
            biases: None (both alike, the paper), "random", "top",
            "bottom" or "both" (`DequeCell`).
        pop_bias_init: Initial bias of the pop gates (the paper's
            Appendix B: -1).

    Raises:
        InvalidArgumentError: A value out of its choices or bounds, or
            `strength_noise_ends="quiet"` without a quiet end or noise.

    Example:

    >>> options = MemoryOptions(gate_activation="hard_sigmoid", quiet_end="random")
    >>> options.changed()
    {'gate_activation': 'hard_sigmoid', 'quiet_end': 'random'}
    >>> options.cell_kwargs("stack")
    Traceback (most recent call last):
    ...
    keras_neural_memory.validation.InvalidArgumentError: `quiet_end` applies to the DeQue, not memory='stack'; received quiet_end='random'. Choose memory 'deque', or quiet_end=None.
    >>> sorted(MemoryOptions(strength_noise=0.5).cell_kwargs("queue"))
    ['gate_activation', 'pop_bias_init', 'strength_noise']
    """

    gate_activation: str = _option("sigmoid", MEMORY_CELL_KINDS, choices=GATE_ACTIVATIONS,
                                   help="activation of the push and pop gates: sigmoid, as in the paper, or "
                                   "hard_sigmoid, which reaches exactly 0 and 1")  # fmt: skip
    strength_noise: float = _option(0.0, MEMORY_CELL_KINDS, minimum=0.0,
                                    help="standard deviation of Gaussian noise on the push and pop logits while "
                                    "training; 0 for none")  # fmt: skip
    strength_noise_ends: str = _option("all", ("deque",), choices=STRENGTH_NOISE_ENDS,
                                       help="which ends of the DeQue get the strength noise: all, or quiet, the "
                                       "end of the quiet end only")  # fmt: skip
    quiet_end: str | None = _option(None, ("deque",), choices=QUIET_ENDS,
                                    help="which end of the DeQue starts with low push and pop biases (random, top "
                                    "or bottom; both: both ends); none: both ends alike, as in the paper")  # fmt: skip
    pop_bias_init: float = _option(-1.0, MEMORY_CELL_KINDS, help="initial bias of the pop gates (the paper's -1)")

    def __post_init__(self):
        for field in dataclasses.fields(self):
            object.__setattr__(self, field.name, check_option(field.name, getattr(self, field.name)))
        check_strength_noise_ends(self.strength_noise_ends, self.quiet_end)
        if self.strength_noise_ends == "quiet" and not self.strength_noise:
            raise InvalidArgumentError(
                "`strength_noise_ends='quiet'` sets where `strength_noise` goes, and strength_noise=0; "
                "set strength_noise, or strength_noise_ends='all'.",
                "'all' without strength noise",
            )

    @classmethod
    def option_names(cls):
        """The options' names, in order."""
        return tuple(field.name for field in dataclasses.fields(cls))

    @classmethod
    def from_record(cls, record):
        """The options among a record's keys (as `changed` writes them); the others are left alone.

        Example:

        >>> MemoryOptions.from_record({"task": "sequence_copy", "strength_noise": 0.5}).strength_noise
        0.5
        """
        return cls(**{name: record[name] for name in cls.option_names() if name in record})

    def changed(self):
        """`{name: value}` of the options that differ from their defaults, in order."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)
                if getattr(self, field.name) != field.default}  # fmt: skip

    def check_for(self, memory):
        """Checks that every changed option applies to `memory` ("stack", "queue", "deque", or another model).

        Raises:
            InvalidArgumentError: An option that `memory` does not take,
                naming it and its default.
        """
        for field in dataclasses.fields(self):
            memories, value = field.metadata["memories"], getattr(self, field.name)
            if value != field.default and memory not in memories:
                applies_to = "the DeQue" if memories == ("deque",) else "memory models"
                choose = "'deque'" if memories == ("deque",) else "'stack', 'queue' or 'deque'"
                raise InvalidArgumentError(
                    f"`{field.name}` applies to {applies_to}, not memory={memory!r}; received {field.name}={value!r}. "
                    f"Choose memory {choose}, or {field.name}={field.default!r}.",
                    f"{field.default} without {applies_to}",
                )

    def cell_kwargs(self, memory):
        """The keyword arguments of `memory`'s cell ("stack", "queue" or "deque"): the options it takes.

        Raises:
            InvalidArgumentError: A changed option that `memory` does not take.
        """
        self.check_for(memory)
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)
                if memory in field.metadata["memories"]}  # fmt: skip


_FIELDS = {field.name: field for field in dataclasses.fields(MemoryOptions)}


def check_option(name, value):
    """Checks one option's `value` against its choices or bounds; returns it (a number as a float).

    The cells check their own keyword arguments with it, as `MemoryOptions`
    checks its fields.

    Example:

    >>> check_option("gate_activation", "relu")
    Traceback (most recent call last):
    ...
    keras_neural_memory.validation.InvalidArgumentError: `gate_activation` must be one of 'sigmoid', 'hard_sigmoid'; received gate_activation='relu'.
    """
    meta = _FIELDS[name].metadata
    if meta["choices"] is None:
        check_real(name, value, minimum=meta["minimum"])
        return float(value)
    if value not in meta["choices"]:
        raise InvalidArgumentError(
            f"`{name}` must be one of {', '.join(map(repr, meta['choices']))}; received {name}={value!r}.",
            "one of " + ", ".join(map(str, meta["choices"])),
        )
    return value


def check_strength_noise_ends(strength_noise_ends, quiet_end):
    """Checks that `strength_noise_ends="quiet"` has a quiet end to put the noise on (`DequeCell`)."""
    check_option("strength_noise_ends", strength_noise_ends)
    if strength_noise_ends == "quiet" and quiet_end is None:
        raise InvalidArgumentError(
            "`strength_noise_ends='quiet'` adds the noise to the quiet end only, and no end starts quiet; "
            f"received quiet_end={quiet_end!r}. Set quiet_end ('random', 'top', 'bottom' or 'both'), "
            "or strength_noise_ends='all'.",
            "'all' without a quiet end",
        )
