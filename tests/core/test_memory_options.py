"""`MemoryOptions`: one value for the options of a memory cell, validated once, giving each cell its arguments."""

import dataclasses

import keras
import pytest

from keras_neural_memory import DequeCell, MemoryOptions, QueueCell, StackCell
from keras_neural_memory.memory_options import MEMORY_CELL_KINDS
from keras_neural_memory.validation import InvalidArgumentError

CELLS = {"stack": StackCell, "queue": QueueCell, "deque": DequeCell}
CHANGED = MemoryOptions(gate_activation="hard_sigmoid", strength_noise=0.5, strength_noise_ends="quiet",
                        quiet_end="random", pop_bias_init=-2.0)  # fmt: skip


def test_defaults_are_the_papers_cells():
    for memory, cell_class in CELLS.items():
        built = cell_class(keras.layers.LSTMCell(4, name="c"), memory_width=3, name="m", **MemoryOptions().cell_kwargs(memory))
        assert built.get_config() == cell_class(keras.layers.LSTMCell(4, name="c"), memory_width=3, name="m").get_config()
    assert MemoryOptions().changed() == {}


def test_each_cell_gets_the_options_it_takes_as_its_own_keyword_arguments():
    kwargs = CHANGED.cell_kwargs("deque")
    assert kwargs == {field.name: getattr(CHANGED, field.name) for field in dataclasses.fields(MemoryOptions)}
    built = DequeCell(keras.layers.LSTMCell(4, name="c"), memory_width=3, seed=0, name="m", **kwargs)
    flat = DequeCell(keras.layers.LSTMCell(4, name="c"), memory_width=3, seed=0, name="m", gate_activation="hard_sigmoid", strength_noise=0.5,
                     strength_noise_ends="quiet", quiet_end="random", pop_bias_init=-2.0)  # fmt: skip
    assert built.get_config() == flat.get_config()
    stack_options = MemoryOptions(gate_activation="hard_sigmoid", strength_noise=0.5)
    assert set(stack_options.cell_kwargs("stack")) == {"gate_activation", "strength_noise", "pop_bias_init"}


def test_changed_lists_only_what_differs_and_reads_back():
    assert CHANGED.changed() == dict(gate_activation="hard_sigmoid", strength_noise=0.5, strength_noise_ends="quiet",
                                     quiet_end="random", pop_bias_init=-2.0)  # fmt: skip
    record = {"task": "sequence_copy", "seed": 3, **CHANGED.changed()}
    assert MemoryOptions.from_record(record) == CHANGED
    assert MemoryOptions.from_record({"task": "sequence_copy"}) == MemoryOptions()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(gate_activation="relu"), "`gate_activation` must be one of 'sigmoid', 'hard_sigmoid'; received"),
        (dict(quiet_end="left"), "`quiet_end` must be one of None, 'random', 'top', 'bottom', 'both'"),
        (dict(strength_noise_ends="loud"), "`strength_noise_ends` must be one of 'all', 'quiet'"),
        (dict(strength_noise=-0.5), "`strength_noise` must be a finite number >= 0"),
        (dict(strength_noise=float("nan")), "`strength_noise` must be a finite number"),
        (dict(pop_bias_init=float("inf")), "`pop_bias_init` must be a finite number"),
        (dict(strength_noise=1.0, strength_noise_ends="quiet"), "no end starts quiet"),
        (dict(quiet_end="top", strength_noise_ends="quiet"), "set strength_noise, or strength_noise_ends='all'"),
    ],
)
def test_bad_values_are_refused_once_naming_the_option(kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        MemoryOptions(**kwargs)


@pytest.mark.parametrize(
    "memory, kwargs, match",
    [
        ("lstm", dict(strength_noise=1.0), "`strength_noise` applies to memory models, not memory='lstm'"),
        ("superposition_stack", dict(gate_activation="hard_sigmoid"), "`gate_activation` applies to memory models"),
        ("lstm", dict(pop_bias_init=0.0), "`pop_bias_init` applies to memory models, not memory='lstm'"),
        ("queue", dict(quiet_end="random"), "`quiet_end` applies to the DeQue, not memory='queue'"),
        ("stack", dict(quiet_end="top", strength_noise=1.0, strength_noise_ends="quiet"), "`strength_noise_ends` applies to the DeQue"),
    ],
)
def test_an_option_a_memory_does_not_take_is_refused(memory, kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        MemoryOptions(**kwargs).check_for(memory)
    if memory in MEMORY_CELL_KINDS:
        with pytest.raises(InvalidArgumentError, match=match):
            MemoryOptions(**kwargs).cell_kwargs(memory)


def test_options_are_frozen_and_compare_by_value():
    assert MemoryOptions(strength_noise=1) == MemoryOptions(strength_noise=1.0)
    assert MemoryOptions(strength_noise=1).strength_noise == 1.0 and isinstance(MemoryOptions(strength_noise=1).strength_noise, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        CHANGED.quiet_end = None
