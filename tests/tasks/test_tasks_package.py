"""Package hygiene: doctests run, generators never import TensorFlow, docs cover every task."""

import ast
import doctest
import importlib
import os
import pathlib
import subprocess
import sys

import pytest

from tfds_tasks import generators

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "tfds_tasks"
REPO = PACKAGE.parent

DOCTEST_MODULES = [
    "tfds_tasks.generators",
    "tfds_tasks.generators.base",
    "tfds_tasks.generators.itg",
    "tfds_tasks.generators.cfg",
    "tfds_tasks.generators.splits",
    "tfds_tasks.joint",
    "tfds_tasks.streaming",
    "tfds_tasks.builders.base",
] + [f"tfds_tasks.generators.{name}" for name in generators.TASK_NAMES]


@pytest.mark.parametrize("module", DOCTEST_MODULES)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_generator_sources_never_import_tensorflow():
    for path in (PACKAGE / "generators").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0].startswith("tensorflow") for n in names), path


def test_generators_run_without_tensorflow():
    """Loaded without the package __init__ (which registers the TFDS builders)."""
    script = f"""
import sys, types
sys.modules["tensorflow"] = None  # any import of it now fails
pkg = types.ModuleType("tfds_tasks")
pkg.__path__ = [{str(PACKAGE)!r}]
sys.modules["tfds_tasks"] = pkg
from tfds_tasks import generators
for name in generators.TASK_NAMES:
    generators.generate(name, "tiny")
print("ok")
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_readme_documents_every_task():
    readme = (PACKAGE / "README.md").read_text()
    for name in generators.TASK_NAMES:
        assert f"`{name}`" in readme
    assert "benchmarks/itg_lengths.py" in readme
