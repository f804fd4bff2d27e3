"""The results pages are what the recorded runs say, and read as reference pages.

* `docs/make_results_pages.py --check`: every page under docs/results/, the
  README's results matrix and the tables of docs/results.md are what the
  generator writes from the results files, and every figure they show
  exists;
* the README and docs/results.md stay short, no image lies directly in
  docs/, and every figure under docs/results/figures/ is named after its
  run and shown on a page;
* the docs state results, never the story of how they were produced.
"""

import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("make_results_pages", DOCS / "make_results_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_pages_are_up_to_date(generator, capsys):
    status = generator.main(["--check"])
    assert status == 0, f"the results pages are stale: run `python docs/make_results_pages.py`\n{capsys.readouterr().out}"


def test_both_matrices_are_the_recorded_results_with_a_run_count_in_every_cell(generator):
    import json

    default = generator.default_table(json.loads(generator.DEFAULT_TABLE_RUNS.read_text()))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"<!-- begin generated: default-matrix -->\n{default}\n<!-- end generated: default-matrix -->" in readme
    paper = generator.matrix(generator.read_runs(generator.PAPER_RUNS), DOCS)
    overview = (DOCS / "results.md").read_text(encoding="utf-8")
    assert f"<!-- begin generated: matrix -->\n{paper}\n<!-- end generated: matrix -->" in overview
    for matrix, pages in ((default, "docs/results/"), (paper, "results/")):
        # One row per task of the paper, each linked to its page.
        rows = matrix.splitlines()[2:]
        assert len(rows) == len(generator.TASKS)
        for task in generator.TASKS:
            assert f"({pages}{task}.md)" in matrix
        # Every cell that was run says how many runs learn, of how many.
        for row in rows:
            for cell in row.strip("| ").split(" | ")[1:]:
                assert re.search(r"\b\d+/\d+( runs?)?\b", cell) or cell.startswith("–") or cell == "not run", cell


def test_hand_written_text_is_kept(generator):
    existing = f"old generated part\n{generator.HAND_WRITTEN}\n## What the runs show\n\nKept.\n"
    page = generator._with_hand_written("# New\n", existing)
    assert page == f"# New\n\n{generator.HAND_WRITTEN}\n## What the runs show\n\nKept.\n"
    assert generator._with_hand_written("# New\n", "").endswith(generator.HAND_WRITTEN + "\n")


def test_missing_block_is_named(generator):
    with pytest.raises(SystemExit, match="README.md has no block <!-- begin generated: default-matrix -->"):
        generator._fill("no markers here", "default-matrix", "table", "README.md")


# The README holds the first screen (install, a quick start that trains, loading a run, citing)
# beside the results at a glance.
@pytest.mark.parametrize("path, most", [("README.md", 280), ("docs/results.md", 400)])
def test_front_pages_stay_short(path, most):
    lines = (ROOT / path).read_text(encoding="utf-8").count("\n")
    assert lines <= most, f"{path} has {lines} lines; it should have at most {most}"


def test_no_image_lies_directly_in_docs():
    assert not sorted(p.name for p in DOCS.glob("*.png")), "figures belong under docs/results/figures/<scale>/<task>/"


def test_every_figure_is_named_after_its_run_and_shown():
    pages = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *DOCS.rglob("*.md")])
    run_name = re.compile(r"^(stack|queue|deque|lstm\d+)(-noise[0-9.]+)?_lr[0-9.e-]+_seed\d+_(convergence|lengths)\.png$")
    for figure in (DOCS / "results" / "figures").rglob("*.png"):
        assert figure.name in pages, f"{figure.relative_to(ROOT)} is shown on no page"
        if figure.parts[-3] == "paper":
            assert run_name.match(figure.name), f"{figure.relative_to(ROOT)} is not named <model>_lr<lr>_seed<seed>_<kind>.png"


# What a page must not tell: how, where and when its numbers were produced.
DIARY = re.compile(
    r"\bsittings?\b|\bGPU machine\b|\b(?:finished|run|trained) so far\b|\b(?:was|were) lost\b|\brun started again\b", re.I
)


def _pages():
    return [ROOT / "README.md", ROOT / "tfds_tasks" / "README.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("path", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_state_results_not_their_story(path):
    found = [
        f"line {number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DIARY.search(line)
    ]
    assert not found, f"{path.relative_to(ROOT)} tells how its results were produced:\n" + "\n".join(found)
