"""Fixtures shared by the test folders."""

import keras
import pytest


@pytest.fixture
def float64():
    """JAX computes in float32 unless x64 is enabled; finite differences need float64."""
    if keras.backend.backend() != "jax":
        yield
        return
    import jax

    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", False)
