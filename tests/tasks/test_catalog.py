"""The dataset pages (docs/datasets/) and their index in tfds_tasks/README.md are what docs/make_catalog.py generates.

* the committed pages and index are what the generator writes now (``--check``);
* every builder the package registers has a page and a line in the index,
  and its page names its ``VERSION``, release notes, every config with
  each split's size, and the citation;
* the hand-written text around the index's markers is kept, and
  ``--check`` prints a diff when a page is stale and writes nothing.
"""

import importlib.util
import pathlib
import re

import pytest
import tensorflow_datasets as tfds

import tfds_tasks
from tfds_tasks import generators
from tfds_tasks.builders.base import CITATIONS, TaskBuilder
from tfds_tasks.generators.base import SPLITS


def _load_generator():
    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "make_catalog.py"
    spec = importlib.util.spec_from_file_location("make_catalog", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_catalog = _load_generator()
PAGE = make_catalog.PAGE


@pytest.fixture(scope="module")
def index():
    return make_catalog.build_index()


@pytest.fixture(scope="module")
def pages():
    return make_catalog.build_pages()


def _registered():
    # Every registered builder defined in the package, found independently
    # of the generator's own listing.
    registry = tfds.core.registered._DATASET_REGISTRY
    return {name: cls for name, cls in registry.items() if cls.__module__.startswith("tfds_tasks.")}


def _stale(committed, generated, name):
    import difflib

    diff = "".join(difflib.unified_diff(
        committed.splitlines(keepends=True), generated.splitlines(keepends=True), "committed", "generated"
    ))
    return f"{name} is stale: run `python docs/make_catalog.py`\n{diff}"


def test_committed_pages_are_up_to_date(index, pages):
    readme = PAGE.read_text(encoding="utf-8")
    start, end = readme.index(make_catalog.START), readme.index(make_catalog.END) + len(make_catalog.END)
    assert readme[start:end] == index, _stale(readme[start:end], index, PAGE.name)
    for path, text in pages.items():
        committed = path.read_text(encoding="utf-8") if path.exists() else ""
        assert committed == text, _stale(committed, text, path.name)
    assert set(make_catalog.PAGES.glob("*.md")) == set(pages)


def test_check_mode_passes_on_the_committed_pages(monkeypatch, index, pages):
    monkeypatch.setattr(make_catalog, "build_index", lambda: index)
    monkeypatch.setattr(make_catalog, "build_pages", lambda: pages)
    assert make_catalog.main(["--check"]) == 0


def test_check_mode_fails_with_a_diff_on_a_stale_page(monkeypatch, tmp_path, capsys, index, pages):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{make_catalog.START}\nold text\n{make_catalog.END}\noutro\n", encoding="utf-8")
    stale_page = tmp_path / "datasets" / "sequence_copy.md"
    stale_page.parent.mkdir()
    stale_page.write_text("old page\n", encoding="utf-8")
    moved = {stale_page.parent / path.name: text for path, text in pages.items()}
    monkeypatch.setattr(make_catalog, "PAGE", readme)
    monkeypatch.setattr(make_catalog, "PAGES", stale_page.parent)
    monkeypatch.setattr(make_catalog, "ROOT", tmp_path)
    monkeypatch.setattr(make_catalog, "build_index", lambda: index)
    monkeypatch.setattr(make_catalog, "build_pages", lambda: moved)
    assert make_catalog.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert "-old text" in out and "+## The datasets" in out
    assert "-old page" in out and "+# `sequence_copy`" in out
    # --check never writes.
    assert readme.read_text(encoding="utf-8").count("old text") == 1
    assert stale_page.read_text(encoding="utf-8") == "old page\n"


def test_generator_keeps_the_hand_written_text(monkeypatch, index):
    monkeypatch.setattr(make_catalog, "build_index", lambda: index)
    text = f"# intro\n\nhand\n\n{make_catalog.START}\nold\n{make_catalog.END}\n\n## after\n\nmore\n"
    assert make_catalog.render(text) == f"# intro\n\nhand\n\n{index}\n\n## after\n\nmore\n"
    with pytest.raises(ValueError, match="marker"):
        make_catalog.render("no markers here")


def test_every_registered_builder_has_a_page_and_an_index_line(index, pages):
    registered = _registered()
    assert set(generators.TASK_NAMES) <= set(registered)
    assert set(tfds_tasks.BUILDERS) <= set(registered)
    assert [path.stem for path in pages] == list(make_catalog.registered_builders())
    assert {path.stem for path in pages} == set(registered)
    for name in registered:
        assert f"* [`{name}`](../docs/datasets/{name}.md)" in index, f"no index line for {name}"
        page = pages[make_catalog.PAGES / f"{name}.md"]
        assert page.startswith(f"# `{name}`\n"), name
        assert f'`tfds.load("{name}/' in page.split("\n\n", 3)[2], f"{name}: the page does not open with its command"


# chomsky_hierarchy is no TaskBuilder (other configs and features); its
# page is checked in test_chomsky_hierarchy_builder.py.
@pytest.mark.parametrize("name", sorted(n for n, c in _registered().items() if issubclass(c, TaskBuilder)))
def test_page_names_version_configs_sizes_and_citation(pages, name):
    cls = _registered()[name]
    page = pages[make_catalog.PAGES / f"{name}.md"]
    assert f"* **Version**: `{cls.VERSION}`" in page
    for version, note in cls.RELEASE_NOTES.items():
        assert f"`{version}`: {note}" in page
    assert cls.BUILDER_CONFIGS
    # The split table: | config | split | examples | lengths | ...
    rows, config = {}, None
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 4 and cells[1].strip("`") in SPLITS:
            config = cells[0].strip("`") or config
            rows[config, cells[1].strip("`")] = (int(cells[2].replace(",", "")), cells[3])
    for builder_config in cls.BUILDER_CONFIGS:
        assert f"* `{builder_config.name}` (" in page, f"{name}: config {builder_config.name} not listed"
        assert builder_config.description in page
        settings = builder_config.to_settings()
        for split in SPLITS:
            regime = settings.regime(split)
            lengths = f"{regime.min_length}..{regime.max_length}"
            if regime.min_length == regime.max_length:
                lengths = str(regime.min_length)
            assert rows[builder_config.name, split] == (settings.size(split), lengths)
    assert CITATIONS[cls.PAPER].strip() in page
    for key in ("source", "target", "source_text", "target_text"):
        assert f"| `{key}` |" in page
