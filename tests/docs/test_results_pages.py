"""The results pages are what the recorded runs say, and read as reference pages.

* `docs/make_results_pages.py --check`: every page under docs/results/, the
  README's results matrix and the tables of docs/results.md are what the
  generator writes from the results files, every part a benchmark script
  writes is what the script gives from its committed record, and every
  figure they show exists;
* the README and docs/results.md stay short, no image lies directly in
  docs/, and every figure under docs/results/figures/ is named after its
  run and shown on a page;
* the docs state results, never the story of how they were produced.
"""

import importlib.util
import pathlib
import re
import subprocess
import sys

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


def test_every_script_that_writes_a_part_of_a_page_is_checked_or_excluded_with_a_reason(generator):
    scripts = [path for path in (ROOT / "benchmarks").glob("*.py") if path.name != "marked_part.py"]
    writers = sorted(path.stem for path in scripts if re.search(r"\bwrite_part\(", path.read_text(encoding="utf-8")))
    parts = generator.record_parts()
    assert all(page.resolve().parent == generator.RESULTS for page, _, _, _ in parts)
    # A script is checked when it is listed, or when a listed module gives the parts its markers name.
    checked = {*generator.RECORD_SCRIPTS, *(writer.split()[0].removeprefix("benchmarks/").removesuffix(".py")
                                             for _, writer, _, _ in parts)}  # fmt: skip
    excluded = dict(generator.UNCHECKED_SCRIPTS)
    unlisted = [name for name in writers if name not in checked and name not in excluded]
    assert not unlisted, (f"{', '.join(unlisted)} write a part of a page: give each `page_parts()` and add it to "
                          "RECORD_SCRIPTS, or add it to UNCHECKED_SCRIPTS with the reason")  # fmt: skip
    assert not checked & set(excluded)
    assert all(reason.strip() for reason in excluded.values())


def test_a_part_edited_by_hand_makes_the_check_fail(generator, tmp_path, monkeypatch, capsys):
    [(page, writer, part, title)] = generator._benchmark("deque_study").page_parts()
    copy = tmp_path / page.name
    copy.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(generator, "record_parts", lambda: [(copy, writer, part, title)])
    assert generator.main(["--check"]) == 0, capsys.readouterr().out  # the page as committed
    begin, end = generator._benchmark("marked_part").markers(writer)
    head, rest = copy.read_text(encoding="utf-8").split(begin, 1)
    inside, after = rest.split(end, 1)
    edited = inside.replace("| 1.000 |", "| 0.999 |", 1)
    assert edited != inside
    copy.write_text(head + begin + edited + end + after, encoding="utf-8")
    capsys.readouterr()
    assert generator.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert f"{copy} (committed)" in out and "| 0.999 |" in out


def test_parts_compose_on_one_page_and_with_the_generated_text(generator, tmp_path):
    page = (tmp_path / "page.md").resolve()
    parts = [(page, "benchmarks/a.py", "| a |", "# A"), (page, "benchmarks/b.py", "| b |", "# B")]
    text = generator.with_record_parts({page: "# Page\n\nGenerated.\n"}, parts)[page]
    assert text.startswith("# Page\n\nGenerated.\n") and text.index("| a |") < text.index("| b |")
    # Written again, each part replaces itself.
    assert generator.with_record_parts({page: text}, parts)[page] == text
    # A page the generator does not write is read from disk, and its text kept.
    other = tmp_path / "other.md"
    other.write_text("# Other\n\nKept.\n", encoding="utf-8")
    [(path, text)] = generator.with_record_parts({}, [(other, "benchmarks/a.py", "| a |", "# A")]).items()
    assert path == other.resolve() and text.startswith("# Other\n\nKept.\n\n<!-- Written by benchmarks/a.py")


def test_importing_the_record_scripts_leaves_the_environment_as_it_is(generator):
    # The generator imports them: a script that sets KERAS_BACKEND must do so when run, not when imported.
    code = ("import os, sys; sys.path.insert(0, 'benchmarks'); before = dict(os.environ); "
            f"[__import__(name) for name in {generator.RECORD_SCRIPTS!r}]; "
            "print(sorted(k for k in {*before, *os.environ} if before.get(k) != os.environ.get(k)))")  # fmt: skip
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.splitlines()[-1] == "[]", run.stdout


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
