"""Argument checks shared by the layers, the model builders and the command line.

Each check raises one `ValueError` (or `TypeError` for a value of the wrong
kind) whose message names the argument and says what it must be, e.g.
"`capacity` must be a positive integer; received capacity=0.". Layers call
them in `__init__`; `keras_neural_memory.experiments` builds its run
configuration and its command-line argument types from the same checks.
"""

import math
import numbers


class InvalidArgumentError(ValueError):
    """A value out of its argument's range.

    Args:
        message: The whole message, naming the argument.
        expected: What the value must be, e.g. "a positive integer", so that
            a command line can word its own message for its flag.
    """

    def __init__(self, message, expected=None):
        # One positional argument, as Keras re-raises errors from `call`
        # as `type(error)(message)`.
        super().__init__(message)
        self.expected = expected


def _out_of_range(name, value, expected):
    return InvalidArgumentError(f"`{name}` must be {expected}; received {name}={value!r}.", expected)


def check_positive_int(name, value, allow_none=False):
    """Checks that `value` is an `int` of at least 1 (or None when allowed).

    Example:

    >>> check_positive_int("capacity", 0)
    Traceback (most recent call last):
    ...
    keras_neural_memory.validation.InvalidArgumentError: `capacity` must be a positive integer; received capacity=0.
    """
    if allow_none and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise _out_of_range(name, value, "a positive integer or None" if allow_none else "a positive integer")


def check_int(name, value, allow_none=False):
    """Checks that `value` is an `int` (or None when allowed), e.g. a seed.

    Raises:
        TypeError: `value` is not an `int` (a `bool` is not one).

    Example:

    >>> check_int("seed", "0")
    Traceback (most recent call last):
    ...
    TypeError: `seed` must be an integer; received seed='0'.
    """
    if allow_none and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        expected = "an integer or None" if allow_none else "an integer"
        raise TypeError(f"`{name}` must be {expected}; received {name}={value!r}.")


def check_real(name, value, minimum=None, maximum=None, above=None):
    """Checks that `value` is a finite real number in the given bounds.

    Args:
        name: The argument's name, for the message.
        value: The value to check.
        minimum: Smallest allowed value, if any.
        maximum: Largest allowed value, if any.
        above: A bound `value` must exceed, if any.

    Raises:
        TypeError: `value` is not a real number.
        ValueError: `value` is not finite or out of bounds.

    Example:

    >>> check_real("learning_rate", -1.0, above=0)
    Traceback (most recent call last):
    ...
    keras_neural_memory.validation.InvalidArgumentError: `learning_rate` must be a finite number above 0; received learning_rate=-1.0.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a real number; received {name}={value!r}.")
    bounds = [
        text
        for text, bound in (
            (f"above {above}", above),
            (f">= {minimum}", minimum),
            (f"<= {maximum}", maximum),
        )
        if bound is not None
    ]
    ok = (
        math.isfinite(value)
        and (above is None or value > above)
        and (minimum is None or value >= minimum)
        and (maximum is None or value <= maximum)
    )
    if not ok:
        expected = " and ".join(["a finite number " + bounds[0], *bounds[1:]]) if bounds else "a finite number"
        raise _out_of_range(name, value, expected)


def check_choice(name, value, choices):
    """Checks that `value` is one of `choices`.

    Example:

    >>> check_choice("memory", "tape", ("stack", "queue"))
    Traceback (most recent call last):
    ...
    ValueError: Unknown `memory`='tape'; expected one of ('stack', 'queue').
    """
    if value not in choices:
        raise ValueError(f"Unknown `{name}`={value!r}; expected one of {tuple(choices)}.")


def check_lstm_layers(lstm_layers, memory):
    """Checks a model's `lstm_layers`: a positive integer, or None; 1 or None with a memory.

    `lstm_layers` is the depth of the deep-LSTM baseline (`memory="lstm"`);
    a memory model's controller is one LSTM layer, so it cannot take
    another depth.

    Example:

    >>> check_lstm_layers(4, "stack")
    Traceback (most recent call last):
    ...
    keras_neural_memory.validation.InvalidArgumentError: `lstm_layers` sets the depth of the LSTM baseline, not of memory='stack', whose controller is one LSTM layer; received lstm_layers=4. Leave lstm_layers out, or choose memory='lstm'.
    """
    check_positive_int("lstm_layers", lstm_layers, allow_none=True)
    if memory != "lstm" and lstm_layers not in (None, 1):
        raise InvalidArgumentError(
            f"`lstm_layers` sets the depth of the LSTM baseline, not of memory={memory!r}, whose controller is one "
            f"LSTM layer; received lstm_layers={lstm_layers!r}. Leave lstm_layers out, or choose memory='lstm'.",
            "1 with a memory",
        )
