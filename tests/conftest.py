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


def release_compiled_programs():
    """Drops JAX's compiled programs (no-op on other backends).

    JAX keeps every program it compiles, eager operations included, and XLA
    maps each into memory: one process running many tests reaches Linux's
    default limit of 65,530 memory mappings (`vm.max_map_count`), and XLA's
    compiler then crashes with a segmentation fault.
    """
    if keras.backend.backend() == "jax":
        import jax

        jax.clear_caches()


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs_after_each_module():
    yield
    release_compiled_programs()


def pytest_configure(config):
    # `pytest tests -m "not slow"` is the quick suite for development; CI runs everything.
    config.addinivalue_line("markers", "slow: trains models or builds datasets; skip with -m 'not slow'")
    # TensorFlow's EagerTensor.__array__ takes no `copy` argument, so NumPy 2
    # warns on every conversion of one to an array (Keras' `convert_to_numpy`,
    # `Model.predict`). The cause is in TensorFlow; ignore exactly that warning.
    config.addinivalue_line(
        "filterwarnings", "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
    )
