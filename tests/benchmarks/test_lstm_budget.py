"""`benchmarks/lstm_budget.py`: its page part, written from its record alone."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import lstm_budget  # noqa: E402


def _row(learning_rate, seed, lstm_layers=2, epochs=40):
    return {"task": "sequence_copy", "lstm_layers": lstm_layers, "learning_rate": learning_rate, "seed": seed,
            "settings": {"epochs": epochs}, "batches": epochs * 300, "diverged": False, "batches_to_0.5": 600,
            "batches_to_0.9": None, "train_coarse": 0.9, "test_coarse": 0.1}  # fmt: skip


def test_the_page_gives_the_commands_that_train_the_record_s_runs_naming_only_what_differs_from_the_defaults():
    defaults = [_row(rate, seed) for rate in (5e-3, 1e-3, 5e-4, 1e-4) for seed in (0, 1, 2)]
    assert lstm_budget.commands(defaults) == ["python benchmarks/lstm_budget.py"]
    deeper = [_row(rate, seed, lstm_layers=4, epochs=20) for rate in (5e-3, 1e-3) for seed in (0, 1)]
    assert lstm_budget.commands([*defaults, *deeper]) == [
        "python benchmarks/lstm_budget.py",
        "python benchmarks/lstm_budget.py --lstm-layers 4 --learning-rates 0.005,0.001 --seeds 0,1 --epochs 20",
    ]
    text = lstm_budget.report(deeper)
    assert text.startswith("- Command: `python benchmarks/lstm_budget.py --lstm-layers 4")
    assert "| sequence_copy | 4 | 0.005 | 0 | 6,000 | 600 | never | 0.900 | 0.100 |" in text
