"""tfds_tasks/README.md is the catalog that docs/make_catalog.py generates.

* the committed page is what the generator writes now (``--check``);
* every builder the package registers has a section, which names its
  ``VERSION``, release notes, every config with each split's size, and
  the citation;
* the hand-written text around the markers is kept, ``--check`` prints a
  diff when the page is stale, and the page's relative links resolve.
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
def catalog():
    return make_catalog.build_catalog()


@pytest.fixture(scope="module")
def page():
    return PAGE.read_text(encoding="utf-8")


def _sections(text):
    """{dataset name: its section} of the catalog."""
    parts = re.split(r"^## `(\w+)`$", text, flags=re.M)
    return {name: re.split(r"^## ", body, flags=re.M)[0] for name, body in zip(parts[1::2], parts[2::2])}


def _registered():
    # Every registered builder defined in the package, found independently
    # of the generator's own listing.
    registry = tfds.core.registered._DATASET_REGISTRY
    return {name: cls for name, cls in registry.items() if cls.__module__.startswith("tfds_tasks.")}


def test_committed_page_is_up_to_date(page, catalog):
    start, end = page.index(make_catalog.START), page.index(make_catalog.END) + len(make_catalog.END)
    committed = page[start:end]
    if committed != catalog:
        import difflib

        diff = "".join(difflib.unified_diff(
            committed.splitlines(keepends=True), catalog.splitlines(keepends=True), "committed", "generated"
        ))
        pytest.fail(f"{PAGE.name} is stale: run `python docs/make_catalog.py`\n{diff}")


def test_check_mode_passes_on_the_committed_page(monkeypatch, catalog):
    monkeypatch.setattr(make_catalog, "build_catalog", lambda: catalog)
    assert make_catalog.main(["--check"]) == 0


def test_check_mode_fails_with_a_diff_on_a_stale_page(monkeypatch, tmp_path, capsys, catalog):
    stale = tmp_path / "README.md"
    stale.write_text(f"intro\n{make_catalog.START}\nold text\n{make_catalog.END}\noutro\n", encoding="utf-8")
    monkeypatch.setattr(make_catalog, "PAGE", stale)
    monkeypatch.setattr(make_catalog, "ROOT", tmp_path)
    monkeypatch.setattr(make_catalog, "build_catalog", lambda: catalog)
    assert make_catalog.main(["--check"]) == 1
    out = capsys.readouterr().out
    assert "-old text" in out and "+## `sequence_copy`" in out
    assert stale.read_text(encoding="utf-8").count("old text") == 1  # --check never writes


def test_generator_keeps_the_hand_written_text(monkeypatch, catalog):
    monkeypatch.setattr(make_catalog, "build_catalog", lambda: catalog)
    text = f"# intro\n\nhand\n\n{make_catalog.START}\nold\n{make_catalog.END}\n\n## after\n\nmore\n"
    assert make_catalog.render(text) == f"# intro\n\nhand\n\n{catalog}\n\n## after\n\nmore\n"
    with pytest.raises(ValueError, match="marker"):
        make_catalog.render("no markers here")


def test_every_registered_builder_has_a_section(page):
    registered = _registered()
    assert set(generators.TASK_NAMES) <= set(registered)
    assert set(tfds_tasks.BUILDERS) <= set(registered)
    sections = _sections(page)
    assert list(sections) == list(make_catalog.registered_builders())
    assert set(sections) == set(registered)
    for name in registered:
        assert f"* [`{name}`](#{name})" in page, f"no contents line for {name}"


# chomsky_hierarchy is no TaskBuilder (other configs and features); its
# section is checked in test_chomsky_hierarchy_builder.py.
@pytest.mark.parametrize("name", sorted(n for n, c in _registered().items() if issubclass(c, TaskBuilder)))
def test_section_names_version_configs_sizes_and_citation(page, name):
    cls = _registered()[name]
    section = _sections(page)[name]
    assert f"* **Version**: `{cls.VERSION}`" in section
    for version, note in cls.RELEASE_NOTES.items():
        assert f"`{version}`: {note}" in section
    assert cls.BUILDER_CONFIGS
    # The split table: | config | split | examples | lengths | ...
    rows, config = {}, None
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) >= 4 and cells[1].strip("`") in SPLITS:
            config = cells[0].strip("`") or config
            rows[config, cells[1].strip("`")] = (int(cells[2].replace(",", "")), cells[3])
    for builder_config in cls.BUILDER_CONFIGS:
        assert f"* `{builder_config.name}` (" in section, f"{name}: config {builder_config.name} not listed"
        assert builder_config.description in section
        settings = builder_config.to_settings()
        for split in SPLITS:
            regime = settings.regime(split)
            lengths = f"{regime.min_length}..{regime.max_length}"
            if regime.min_length == regime.max_length:
                lengths = str(regime.min_length)
            assert rows[builder_config.name, split] == (settings.size(split), lengths)
    assert CITATIONS[cls.PAPER].strip() in section
    for key in ("source", "target", "source_text", "target_text"):
        assert f"| `{key}` |" in section


def test_relative_links_resolve(page):
    text = re.sub(r"^```.*?^```", "", page, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    anchors = {make_catalog.slug(h) for h in re.findall(r"^#{1,6}\s+(.*?)\s*$", re.sub(r"^```.*?^```", "", page, flags=re.S | re.M), re.M)}
    broken = []
    for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue
        file_part, _, anchor = target.partition("#")
        if file_part and not (PAGE.parent / file_part).exists():
            broken.append(target)
        elif not file_part and anchor not in anchors:
            broken.append(target)
    assert not broken, broken
