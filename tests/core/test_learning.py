"""Learning smoke test: a StackCell learns to reverse strings (the README demo)."""

import importlib.util
import pathlib

import pytest

DEMO = pathlib.Path(__file__).resolve().parents[2] / "examples" / "demo_reversal.py"


def _demo():
    spec = importlib.util.spec_from_file_location("demo_reversal", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_stack_lstm_learns_reversal():
    # Seeded; about 30 s of CPU. Chance is 0.25 per symbol and ~0 per string.
    results = _demo().train_and_evaluate(memory=True, epochs=8, seed=0)
    symbol, string = results["train_lengths"]
    assert symbol > 0.95, results
    assert string > 0.8, results
