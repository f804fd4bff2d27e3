"""`benchmarks/itg_study.py`: ITG runs on other grammars and lexicons, and their table."""

import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import itg_study  # noqa: E402


@pytest.mark.slow
def test_the_study_trains_on_the_setting_s_grammar_and_lexicon_and_tables_it(tmp_path, monkeypatch):
    # Quick scale, two batches an epoch: the plumbing, not the learning.
    monkeypatch.setattr(itg_study, "SCALE", "quick")
    monkeypatch.setattr(itg_study, "STEPS_PER_EPOCH", 2)
    monkeypatch.setattr(itg_study, "VALIDATION_EXAMPLES", 10)
    page = tmp_path / "page.md"
    page.write_text("# Page\n\nKept.\n")
    args = ["--settings", "no_relative_clauses", "--vocab-sizes", "3", "--models", "stack", "--seeds", "0",
            "--epochs", "1", "--runs-dir", str(tmp_path / "runs"), "--record", str(tmp_path / "record.json"),
            "--output", str(page)]  # fmt: skip
    itg_study.main(args)
    [row] = json.loads((tmp_path / "record.json").read_text())
    assert row["settings"]["rule_probabilities"] == {"O": [0.55, 0.0, 0.45], "S": [0.5, 0.0, 0.5]}
    assert row["settings"]["vocab_size"] == 3 and row["batches"] == 2
    text = page.read_text()
    assert text.startswith("# Page\n\nKept.\n")
    assert "--settings no_relative_clauses --vocab-sizes 3 --models stack --seeds 0" in text
    assert "| no relative clauses | 3 | stack | " in text
    # The analysis scripts sample the run's own lexicon (4 source symbols), which its embedding was built for.
    [run] = [path.parent for path in (tmp_path / "runs").rglob("results.json")]
    import error_positions
    import strength_drift

    strength_drift.main([str(run), "--lengths", "8", "--examples", "2"])
    monkeypatch.setattr(sys, "argv", ["error_positions.py", str(run), "--examples", "2"])
    error_positions.main()
    # The shipped probabilities are the grammar's own: recorded as no override.
    itg_study.main([*args[:1], "shipped", *args[2:]])
    shipped = [r for r in json.loads((tmp_path / "record.json").read_text()) if r["setting"] == "shipped"]
    assert "rule_probabilities" not in shipped[0]["settings"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--tasks", "sequence_copy"], "--tasks takes itg_svo_sov, itg_gender_conjugation; received sequence_copy"),
        (["--settings", "rare_verb_objects"], "--settings of itg_svo_sov are shipped, less_recursion"),
        (["--models", "deque"], "--models takes queue, stack, lstm; received deque"),
    ],
)
def test_bad_arguments_name_the_choices(args, message, capsys):
    with pytest.raises(SystemExit) as exit:
        itg_study.parse_args(args)
    assert exit.value.code == 2 and message in capsys.readouterr().err
