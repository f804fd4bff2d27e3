"""The results pages are what the recorded runs say, and read as reference pages.

* `docs/make_results_pages.py --check`: every page under docs/results/, the
  README's results matrix and the tables of docs/results.md are what the
  generator writes from the results files, every part a benchmark script
  writes is what the script gives from its committed record, and every
  figure they show exists;
* the README and docs/results.md stay short, no image lies directly in
  docs/, and every figure under docs/results/figures/ is named after its
  run and shown on a page;
* the docs state results, never the story of how they were produced;
* the prose of the README, docs/results.md and the task pages quotes no
  number that no record or generated table holds.
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


def test_the_paper_claim_counts_every_run_of_each_cell_against_the_bar(generator):
    def run(task, model, seed, rate, coarse):
        return {"task": task, "plan_model": model, "seed": seed, "learning_rate": rate,
                "test_accuracy": {"coarse": coarse}}  # fmt: skip

    runs = [run("sequence_copy", "queue", 0, 5e-3, 0.95), run("sequence_copy", "queue", 1, 1e-3, 0.946),
            run("sequence_reversal", "queue", 0, 5e-3, 0.0), run("sequence_reversal", "deque", 0, 5e-3, 0.67),
            run("bigram_flip", "lstm2", 0, 1e-3, 0.0)]  # fmt: skip
    claim = generator.paper_claim(runs)
    assert claim.startswith("the Queue-LSTM learns copy in 1 of 2 runs (seed 0 at 5e-3), and no other task in its "
                            "other 1 run; the DeQue-LSTM learns no task in its 1 run (its best test coarse 0.67, on "
                            "reversal); the deep LSTMs learn a task in 0 of their 1 run")  # fmt: skip
    assert "(docs/results.md#the-papers-table-at-the-papers-scale)" in claim


def test_every_script_that_writes_a_part_of_a_page_is_checked(generator):
    scripts = [path for path in (ROOT / "benchmarks").glob("*.py") if path.name != "marked_part.py"]
    writers = sorted(path.stem for path in scripts if re.search(r"\bwrite_part\(", path.read_text(encoding="utf-8")))
    parts = generator.record_parts()
    assert all(page.resolve().parent == generator.RESULTS for page, _, _, _ in parts)
    # A script is checked when it is listed, or when a listed module gives the parts its markers name.
    checked = {*generator.RECORD_SCRIPTS, *(writer.split()[0].removeprefix("benchmarks/").removesuffix(".py")
                                             for _, writer, _, _ in parts)}  # fmt: skip
    unlisted = [name for name in writers if name not in checked]
    assert not unlisted, (f"{', '.join(unlisted)} write a part of a page: give each `page_parts()` and add it to "
                          "RECORD_SCRIPTS")  # fmt: skip


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


# ------------------------------------------------------- numbers quoted in prose

NUMBER = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
# A quoted number: a rate (5e-3), a count (9 of 10), or a number or range with an optional unit.
QUOTE = re.compile(
    rf"""(?<![\w.,§-])(?:
        (?P<rate>\d+(?:\.\d+)?e-\d+)\b
      | (?P<count>\d+)\s+(?:seeds?\s+)?of\s+(?:the\s+|its\s+|their\s+)?(?P<total>\d+)(?![.,]?\d)
      | (?P<low>{NUMBER})(?:\s?-\s?(?P<high>{NUMBER}))?(?![.,]?\d)(?P<unit>\s?%|x\b|\s?h\b)?
    )""",
    re.X,
)
# A generated part: make_results_pages.py's blocks, and a benchmark's (benchmarks/marked_part.py).
GENERATED = re.compile(
    r"<!-- begin generated: (?P<name>\S+) -->.*?<!-- end generated: (?P=name) -->"
    r"|<!-- Written by (?P<writer>.+?) down to the closing marker; the text around it is kept\. -->"
    r".*?<!-- End of the part written by (?P=writer)\. -->",
    re.S,
)
# Code, HTML comments, link targets and versions.
NOT_PROSE = re.compile(
    r"```.*?```|`[^`\n]*`|<!--.*?-->|\]\([^)\s]*\)"
    r"|\b(?:Python|Keras|TensorFlow|JAX|TFDS|Apache)\s*(?:≥\s*)?\d+(?:\.\d+)+",
    re.S,
)
PAIR = re.compile(r"(?<![\w.,])(\d+)\s*(?:/|of)\s*(\d+)(?![.,]?\d)")
# (page, number) quoted that is no result.
NOT_RESULTS = {
    ("docs/results.md", "475 of 500"),  # the bar's arithmetic: 0.95 of the 500 test strings
    # The protocol's constants, from the authors' code: optax's epsilon, one of their learning rates,
    # and the tolerance `tests/cli/test_chomsky.py` holds the padded logits to.
    ("docs/results/chomsky.md", "1e-8"),
    ("docs/results/chomsky.md", "3e-4"),
    ("docs/results/chomsky.md", "1e-5"),
    # Sums over rows of the same page's generated table: itg_study's three grammars (7 of its 9 runs),
    # and the failed copy runs of two deque_study conditions that `error_positions.py`, whose command
    # the sentence gives, reads (5 of those 7).
    ("docs/results/itg_grammar.md", "7 of 9"),
    ("docs/results/deque.md", "5 of the 7"),
}


def _generated_spans(text, hand_written):
    spans = [match.span() for match in GENERATED.finditer(text)]
    if hand_written in text:
        spans.append((0, text.index(hand_written)))
    return spans


def _blanked(text, spans):
    """`text` with `spans` blanked, newlines kept: offsets and line numbers stay those of `text`."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = re.sub(r"[^\n]", " ", text[start:end])
    return "".join(chars)


def _quoted(match):
    """(as written, as looked up) of each number of a `QUOTE` match: ('5e-3', '0.005'), ('55 %', '55%')."""
    if match["rate"]:
        return [(match["rate"], f"{float(match['rate']):g}")]
    if match["count"]:
        return [(" ".join(match.group(0).split()), f"{match['count']} of {match['total']}")]
    unit = match["unit"] or ""
    numbers = [number for number in (match["low"], match["high"]) if number]
    if unit or any("." in number for number in numbers):
        return [(number + unit, number + unit.strip()) for number in numbers]
    return []


def _written(value):
    """Every way the numbers in `value` (a record: nested dicts and lists) may be written on a page."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return {form for item in value for form in _written(item)}
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return set()
    return {f"{value:.1f}", f"{value:.2f}", f"{value:.3f}", f"{value:g}", f"{100 * value:.0f}%", f"{100 * value:.1f}%"}


def held_numbers(records, generated_parts):
    """Every number a quote may find, as `_quoted` looks it up: the records' and the generated parts'."""
    held = _written(list(records))
    for part in generated_parts:
        held.update(key for match in QUOTE.finditer(part) for _, key in _quoted(match))
        held.update(f"{count} of {total}" for count, total in PAIR.findall(part))
    return held


def unfound_quotes(pages, held, hand_written, not_results=()):
    """`page:line: number (the line)` of every number the prose of `pages` ({name: text}) quotes, not in `held`.

    `not_results` holds `(page, number as written)` pairs that are not results, each with its reason.
    """
    unfound = []
    for name, text in pages.items():
        skipped = _generated_spans(text, hand_written) + [match.span() for match in NOT_PROSE.finditer(text)]
        for match in QUOTE.finditer(_blanked(text, skipped)):
            for written, key in _quoted(match):
                if key not in held and (name, written) not in not_results:
                    line = text.count("\n", 0, match.start()) + 1
                    unfound.append(f"{name}:{line}: {written} ({text.splitlines()[line - 1].strip()})")
    return unfound


def test_every_number_quoted_in_the_results_prose_is_held_by_a_record_or_table(generator):
    """The prose of the README, docs/results.md and every page under docs/results/ quotes only what a record or table holds.

    The prose is the text outside the generated parts, code, HTML comments, link targets and
    versions (`Python ≥ 3.10`, `Apache 2.0`). A number it quotes is:

    * a decimal: `0.98`, `0.946`, `12.0`, and each end of a range such as `0.99-1.00`;
    * a percentage, a ratio or a duration in hours, integer or decimal: `55 %`, `98.7%`,
      `1.62-1.64x`, `0.39 h` (the unit of a range is both ends'), found only in its unit;
    * a rate in scientific notation, `5e-3`, found as its value, 0.005;
    * a count in digits, `9 of 10`, `9 of the 10`, `1 seed of 3`, found as the pair: `9/10`,
      `9 / 10` or `9 of 10` in a generated part.

    Integers alone (lengths `17-32`, budgets `3,000 batches`, seeds, years, `§4.1`, `Table 2`)
    and counts in words (`none of its 10`, `two of three`) are not checked.

    A quoted number is found, at its own precision (`0.950` is not `0.95`), in:

    * every number of every record under docs/results/ (`*.json`, recursively) as the pages
      write them: with 1, 2 or 3 decimals, as `:g`, and times 100 as a percentage with 0 or 1
      decimal (no record holds a ratio or hours: those are found in a generated part only);
    * the paper's figures the package holds: `reproduce.PAPER_TEST` (Table 2) and
      `config.PAPER_LEARNING_RATES` (the paper's grid);
    * every number and `k/n` pair of a generated part of any results page: the blocks between
      `<!-- begin generated: NAME -->` and `<!-- end generated: NAME -->`, a task page above
      `HAND_WRITTEN`, a benchmark's part between `<!-- Written by ... -->` and `<!-- End of
      the part written by ... -->`.

    The records hold thousands of accuracies, so every accuracy with 2 or 3 decimals, every
    percentage with 0 or 1 decimal and every count `k of n` with n up to 4 or 10 is held somewhere: this
    catches a ratio, an hour, a number above 1, a finer number or a rarer count that no record
    or table holds, not a wrong figure among those.
    """
    import json

    from keras_neural_memory.experiments import config, reproduce

    every_page = [ROOT / "README.md", DOCS / "results.md", *sorted(generator.RESULTS.glob("*.md"))]
    texts = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in every_page}
    records = [json.loads(path.read_text()) for path in sorted(generator.RESULTS.rglob("*.json")) if not path.name.startswith(".")]
    records += [reproduce.PAPER_TEST, config.PAPER_LEARNING_RATES]
    generated = [text[start:end] for text in texts.values() for start, end in _generated_spans(text, generator.HAND_WRITTEN)]
    quoting = list(texts)  # every results page, the README and docs/results.md
    held = held_numbers(records, generated)
    unfound = unfound_quotes({name: texts[name] for name in quoting}, held, generator.HAND_WRITTEN, NOT_RESULTS)
    assert not unfound, "numbers quoted on the results pages that no record or generated table holds:\n" + "\n".join(unfound)


def test_a_made_up_number_is_reported(generator):
    page = (
        "<!-- begin generated: matrix -->\n| copy | 0.95 · 2/3 runs | 1.44x |\n<!-- end generated: matrix -->\n"
        "The Queue-LSTM learns copy in 2 of 3 runs at 5e-3 (test coarse 0.946, 94.6 %, `--seed 0.9137`).\n"
        "It reaches test coarse 0.9137 at 7e-3,\nand learns in 7 of\n9 runs at 1.44-1.5x the speed.\n"
    )
    held = held_numbers([{"test_coarse": 0.946, "learning_rate": 0.005}], [page.split("The Queue")[0]])
    assert unfound_quotes({"page.md": page}, held, generator.HAND_WRITTEN) == [
        "page.md:5: 0.9137 (It reaches test coarse 0.9137 at 7e-3,)",
        "page.md:5: 7e-3 (It reaches test coarse 0.9137 at 7e-3,)",
        "page.md:6: 7 of 9 (and learns in 7 of)",
        "page.md:7: 1.5x (9 runs at 1.44-1.5x the speed.)",
    ]
