"""The paper-scale results tables show what the results file records.

`docs/results.md` and the README show the table of the paper at its own
scale. Every figure in it must be the one that `neural-memory reproduce
--redraw` computes from `docs/paper_table_results.json`, apart from the
cells named in `RECORDED_ELSEWHERE`: a few runs finished before that file
was kept, and docs/results.md gives their figures in prose. The README's
table is the same table without the perplexity column.
"""

import pathlib

import pytest

from keras_neural_memory.experiments import reproduce

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS_FILE = ROOT / "docs" / "paper_table_results.json"
HEADER_START = "| task | model | params | converged / runs |"

# (task, model) -> the columns whose cells come from runs the results file lacks, and why.
RECORDED_ELSEWHERE = {
    ("sequence_reversal", "stack"): (
        {"converged / runs"},
        "the grid's seed-0 runs at 5e-3 and 1e-3 finished before the results file was kept",
    ),
    ("sequence_copy", "queue"): (
        {"converged / runs"},
        "the 1e-3 run of seed 0 finished before the results file was kept",
    ),
    ("sequence_reversal", "lstm2"): (
        {"converged / runs", "selected lr, seed", "train perplexity", "train coarse / fine", "test coarse / fine"},
        "the selected 5e-3 run finished before the results file was kept",
    ),
}


def _cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table(text, source):
    """The header and the rows, as lists of cells, of the first paper-scale table in `text`.

    Later tables of that shape in docs/results.md are redraws of one
    learning rate's runs, printed beside the paragraph of their row.
    """
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(HEADER_START)]
    assert starts, f"{source} should hold the paper-scale table"
    header = _cells(lines[starts[0]])
    rows = []
    for line in lines[starts[0] + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(_cells(line))
    return header, rows


def _keyed(header, rows):
    return {(row[0], row[1]): dict(zip(header, row)) for row in rows}


@pytest.fixture(scope="module")
def recorded_rows():
    header, rows = _table(reproduce.markdown_table(reproduce.read_results(RESULTS_FILE)), "the redrawn table")
    return _keyed(header, rows)


@pytest.fixture(scope="module")
def documented_table():
    return _table((ROOT / "docs" / "results.md").read_text(encoding="utf-8"), "docs/results.md")


def test_every_recorded_row_is_in_the_docs_table(recorded_rows, documented_table):
    documented = _keyed(*documented_table)
    missing = sorted(set(recorded_rows) - set(documented))
    assert not missing, f"rows recorded in {RESULTS_FILE.name} but missing from docs/results.md: {missing}"


def test_docs_table_cells_are_the_recorded_ones(recorded_rows, documented_table):
    header, rows = documented_table
    for key, documented in _keyed(header, rows).items():
        assert key in recorded_rows, f"row {key} of docs/results.md has no run in {RESULTS_FILE.name}"
        elsewhere = RECORDED_ELSEWHERE.get(key, (set(), ""))[0]
        for column in header:
            if column not in elsewhere:
                assert documented[column] == recorded_rows[key][column], (
                    f"docs/results.md row {key}, column {column!r}: {documented[column]!r}, "
                    f"but the results file gives {recorded_rows[key][column]!r}"
                )


def test_cells_recorded_elsewhere_still_differ(recorded_rows, documented_table):
    # An exception that no longer applies (the run was recorded after all) should go.
    documented = _keyed(*documented_table)
    for key, (columns, reason) in RECORDED_ELSEWHERE.items():
        assert key in documented, f"RECORDED_ELSEWHERE names {key}, which docs/results.md no longer shows"
        differing = {column for column in columns if documented[key][column] != recorded_rows[key][column]}
        assert differing, f"{key} matches the results file now ({reason}): drop it from RECORDED_ELSEWHERE"


def test_readme_table_is_the_docs_table_without_perplexity(documented_table):
    header, rows = documented_table
    readme_header, readme_rows = _table((ROOT / "README.md").read_text(encoding="utf-8"), "README.md")
    kept = [i for i, column in enumerate(header) if column != "train perplexity"]
    assert readme_header == [header[i] for i in kept]
    assert readme_rows == [[row[i] for i in kept] for row in rows]
