"""Shared, cached data for the tfds_tasks tests."""

import functools

from tfds_tasks import generators


@functools.lru_cache(maxsize=None)
def cached_splits(name, config):
    """Generates (once per test run) the splits of a named config."""
    return generators.generate(name, config)
