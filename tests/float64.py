"""Helpers for the float64 finite-difference checks."""

import keras


def tanh(x):
    """tanh in the input's dtype.

    `keras.ops.tanh` returns float32 for a float64 input on the JAX backend
    (Keras 3.15), which rounds a float64 finite-difference check away; the
    sigmoid keeps the dtype on every backend.
    """
    return 2.0 * keras.ops.sigmoid(2.0 * x) - 1.0
