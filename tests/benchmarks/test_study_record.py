"""`benchmarks/study_record.py`: a record that several processes share keeps every row they add; seeds as the pages name them; where a measurement ran."""

import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import keras  # noqa: E402
import pytest  # noqa: E402
import study_record  # noqa: E402
from study_record import add_row, provenance, read_rows, seeds_text  # noqa: E402

# One process adding its rows one by one, as a sweep on each core does; all
# start writing together, once every one has imported the package.
WRITER = """
import pathlib, sys, time
sys.path.insert(0, {benchmarks!r})
from study_record import add_row
name, count, folder = sys.argv[1], int(sys.argv[2]), pathlib.Path({folder!r})
(folder / f"ready-{{name}}").touch()
while not (folder / "go").exists():
    time.sleep(0.01)
for i in range(count):
    add_row(folder / "record.json", {{"writer": name, "i": i}}, key=lambda row: (row["writer"], row["i"]))
"""


@pytest.mark.parametrize("seeds, text", [
    ([0], "seed 0"),
    ([1, 0, 1], "seeds 0,1"),
    (range(5), "seeds 0-4"),
    ([0, 2, 4], "seeds 0,2,4"),
    ([9, 0, 2, 3, 4, 10], "seeds 0,2-4,9,10"),
])  # fmt: skip
def test_seeds_are_named_sorted_with_three_or_more_consecutive_ones_as_a_range(seeds, text):
    assert seeds_text(seeds) == text
    assert seeds_text(seeds, named=False) == text.split(" ", 1)[1]


def test_no_seeds_is_an_error():
    with pytest.raises(ValueError, match="at least one seed"):
        seeds_text([])


def test_rows_replace_the_row_of_their_key(tmp_path):
    record = tmp_path / "record.json"
    key = lambda row: row["seed"]  # noqa: E731
    add_row(record, {"seed": 0, "test": 0.1}, key)
    add_row(record, {"seed": 1, "test": 0.2}, key)
    assert add_row(record, {"seed": 0, "test": 0.9}, key) == [{"seed": 0, "test": 0.9}, {"seed": 1, "test": 0.2}]
    assert read_rows(record) == json.loads(record.read_text())


def test_processes_writing_one_record_at_once_keep_every_row(tmp_path):
    record = tmp_path / "record.json"
    code = WRITER.format(benchmarks=str(ROOT / "benchmarks"), folder=str(tmp_path))
    writers = [subprocess.Popen([sys.executable, "-c", code, name, "150"], stderr=subprocess.PIPE, text=True) for name in "abc"]
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready-*"))) < 3 and all(writer.poll() is None for writer in writers):
        assert time.monotonic() < deadline, "the writers did not start"
        time.sleep(0.05)
    (tmp_path / "go").touch()
    errors = [writer.communicate()[1] for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0, 0], errors
    rows = read_rows(record)
    assert sorted((row["writer"], row["i"]) for row in rows) == [(name, i) for name in "abc" for i in range(150)]
    assert not list(tmp_path.glob(".tmp-*")), "no temporary file is left behind"


def test_the_provenance_of_a_measurement_names_its_command_backend_device_and_date(monkeypatch):
    # The backend is the one Keras loaded, not whatever the environment says after the import.
    monkeypatch.setenv("KERAS_BACKEND", "not-the-loaded-backend")
    record = provenance("benchmarks/chomsky_cost.py", ["--models", "stack,lstm", "--page", "a page.md"])
    assert record["command"] == "python benchmarks/chomsky_cost.py --models stack,lstm --page 'a page.md'"
    assert record["backend"] == keras.backend.backend() and record["cpus"] >= 1 and record["device"] and record["platform"]
    assert len(record["date"]) == len("2026-01-31")
    monkeypatch.setattr(sys, "argv", ["chomsky_cost.py", "--rounds", "1"])
    assert provenance("benchmarks/chomsky_cost.py")["command"] == "python benchmarks/chomsky_cost.py --rounds 1"


def test_the_docstring_examples_run():
    import doctest

    result = doctest.testmod(study_record)
    assert result.attempted >= 4 and result.failed == 0
