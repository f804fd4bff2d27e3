"""The documentation stays true to the code.

* `docs/api.md` is what `docs/make_api_reference.py` generates now: the
  public library first, then the experiment application's internals, and
  the memories' internal methods in neither;
* every public class and function of `keras_neural_memory` documents its
  arguments (`Args:`) and shows an `Example:` with code;
* relative links in the READMEs and every page under docs/ point to files (and headings)
  that exist;
* the code in docs/how_it_works.md and the README example runs, and so do
  the `Example:` of every public class and function (its ```python blocks
  and `>>>` lines) and every `>>>` example in `keras_neural_memory`;
* CITATION.cff is valid YAML and carries the package's version, and the
  installed distribution has that version (setup.py reads it from the
  package) and the LICENSE file.
"""

import difflib
import importlib.util
import inspect
import pathlib
import re

import numpy as np
import pytest

import keras_neural_memory

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_api_reference", DOCS / "make_api_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------ API reference


def test_api_reference_is_up_to_date():
    expected = _load_generator().build_reference()
    committed = (DOCS / "api.md").read_text(encoding="utf-8") if (DOCS / "api.md").exists() else ""
    if committed != expected:
        diff = difflib.unified_diff(
            committed.splitlines(), expected.splitlines(), "docs/api.md (committed)", "docs/api.md (generated)", lineterm=""
        )
        shown = "\n".join(list(diff)[:60])
        pytest.fail(f"docs/api.md is stale: run `python docs/make_api_reference.py`.\n{shown}")


def _public_classes_and_functions():
    return [
        name
        for name in keras_neural_memory.__all__
        if inspect.isclass(getattr(keras_neural_memory, name)) or inspect.isfunction(getattr(keras_neural_memory, name))
    ]


def _takes_arguments(obj):
    try:
        parameters = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return True
    return any(name not in ("self", "cls") for name in parameters)


@pytest.mark.parametrize("name", _public_classes_and_functions())
def test_public_docstring_has_args_and_example(name):
    obj = getattr(keras_neural_memory, name)
    doc = inspect.cleandoc(obj.__doc__ or "")  # its own docstring, not an inherited one
    assert doc, f"keras_neural_memory.{name} has no docstring"
    assert "Example:" in doc, f"the docstring of keras_neural_memory.{name} has no `Example:` section"
    if _takes_arguments(obj):
        assert "Args:" in doc, f"the docstring of keras_neural_memory.{name} has no `Args:` section"


def _api_parts():
    """`(public part, internal part)` of docs/api.md, split at the parts' headings."""
    generator = _load_generator()
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    public_heading, internal_heading = f"\n## {generator.PUBLIC_HEADING}\n", f"\n## {generator.INTERNAL_HEADING}\n"
    assert public_heading in text and internal_heading in text, "docs/api.md lacks the headings of its two parts"
    public_start, internal_start = text.index(public_heading), text.index(internal_heading)
    assert public_start < internal_start, "the public API must come before the internal part"
    return text[public_start:internal_start], text[internal_start:]


def test_the_generator_documents_every_public_name():
    import tfds_tasks
    from keras_neural_memory import experiments, memory

    public, internal = _api_parts()
    names = [
        *keras_neural_memory.__all__,
        *(f"memory.{name}" for name in memory.__all__),
        *(f"models.{name}" for name in ("build_transducer", "build_hao_model", "transduce", "parameter_table")),
        *(f"tfds_tasks.{name}" for name in tfds_tasks.__all__),
    ]
    for name in names:
        assert f"#### `{name}`\n" in public, f"the public part of docs/api.md has no entry for {name}"
    for name in experiments.__all__:
        assert f"#### `experiments.{name}`\n" in internal, f"the internal part of docs/api.md has no experiments.{name}"
        assert f"`experiments.{name}`" not in public
    # The experiment application's modules are all in the internal part, none in the public one.
    assert "### keras_neural_memory.experiments" not in public
    assert "### keras_neural_memory.experiments.cli\n" in internal


def test_memory_internals_are_not_public():
    """The methods the cells and the fused scan call on a memory are not public API."""
    public, _ = _api_parts()
    for name in ("slot_indices", "filled_slots"):
        assert name not in public, f"docs/api.md lists the memory internal `{name}` as public API"
    hidden = _load_generator().INTERNAL_METHODS["keras_neural_memory.memory"]
    for cls in ("NeuralStack", "NeuralQueue", "NeuralDeque"):
        for method in hidden:
            assert f"`{cls}.{method}(" not in public
        for method in ("initial_state", "step", "strengths", "read_weights"):  # what the README promises
            assert f"##### `{cls}.{method}(" in public, f"docs/api.md does not document {cls}.{method}"
    # `memory`'s helper functions, left out of its `__all__`, are not listed either.
    for helper in ("pop", "push", "read", "read_weights"):
        assert f"#### `memory.{helper}`" not in public


# -------------------------------------------------------------------- links

LINK_RE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE_RE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE_RE = re.compile(r"`[^`\n]*`")


def _markdown_files():
    """Every page a reader follows links on: the READMEs and every page under docs/, subfolders included."""
    readmes = [ROOT / "README.md", ROOT / "tfds_tasks" / "README.md", ROOT / "examples" / "README.md"]
    return [*readmes, *sorted(DOCS.rglob("*.md"))]


def _without_code(text):
    return INLINE_CODE_RE.sub("", FENCE_RE.sub("", text))


def _anchors(path):
    """GitHub's heading anchors of a markdown file."""
    slug = _load_generator().slug
    headings = re.findall(r"^#{1,6}\s+(.*?)\s*$", FENCE_RE.sub("", path.read_text(encoding="utf-8")), re.M)
    return {slug(heading) for heading in headings}


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_to_existing_files(path):
    broken = []
    for target in LINK_RE.findall(_without_code(path.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto: ...
            continue
        file_part, _, anchor = target.partition("#")
        linked = path if not file_part else (path.parent / file_part).resolve()
        if not linked.exists():
            broken.append(f"{target} (no file {linked})")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target} (no heading #{anchor} in {linked.name})")
    assert not broken, f"broken links in {path.relative_to(ROOT)}: {broken}"


# ---------------------------------------------------------- runnable code


def _python_blocks(path):
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def test_how_it_works_examples_run():
    namespace = {}
    for block in _python_blocks(DOCS / "how_it_works.md"):
        exec(compile(block, str(DOCS / "how_it_works.md"), "exec"), namespace)
    # The overflow example: the 5th step is the first past capacity 4.
    np.testing.assert_array_equal(namespace["nan_steps"], [False] * 5 + [True] * 2)
    # The custom controller example.
    assert tuple(namespace["outputs"].shape) == (2, 50, 32)
    assert "keras.layers.Dropout" in namespace["message"]


def test_readme_example_runs():
    block = _python_blocks(ROOT / "README.md")[0]
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["model"].output_shape == (None, None, 130)


def test_readme_keeps_the_commands_ci_runs_first():
    # .ci/run takes the second ```bash block of README.md as the test command.
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    fences = re.findall(r"^```(\w*)$", text, re.M)
    openings = fences[::2]
    assert openings[:2] == ["bash", "bash"], "the first two code blocks of README.md must be the bash commands"
    blocks = re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M)
    assert "neural-memory train" in blocks[0]
    assert "pytest tests" in blocks[1]


# ---------------------------------------------------------------- citation


def test_citation_file_names_the_package_version_and_both_papers():
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: {re.escape(keras_neural_memory.__version__)}$", text, re.M)
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load(text)
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"] == "keras-neural-memory"
    assert str(cff["version"]) == keras_neural_memory.__version__
    titles = {reference["title"]: reference for reference in cff["references"]}
    grefenstette = titles["Learning to Transduce with Unbounded Memory"]
    hao = titles["Context-Free Transductions with Neural Stacks"]
    assert [a["family-names"] for a in grefenstette["authors"]] == ["Grefenstette", "Hermann", "Suleyman", "Blunsom"]
    assert [a["family-names"] for a in hao["authors"]] == [
        "Hao", "Merrill", "Angluin", "Frank", "Amsel", "Benz", "Mendelsohn",
    ]


def test_installed_distribution_has_the_package_version_and_the_license():
    import importlib.metadata

    assert importlib.metadata.version("keras-neural-memory") == keras_neural_memory.__version__
    files = [str(f) for f in importlib.metadata.files("keras-neural-memory") or []]
    assert any(f.endswith("LICENSE") for f in files), files
    assert (ROOT / "LICENSE").read_text().startswith(" " * 33 + "Apache License")


def _package_modules():
    import pkgutil

    return sorted(info.name for info in pkgutil.walk_packages(keras_neural_memory.__path__, "keras_neural_memory."))


def _modules_with_doctests():
    """The modules of `keras_neural_memory` with at least one `>>>` example."""
    import doctest

    finder = doctest.DocTestFinder()
    return [
        name for name in _package_modules() if any(test.examples for test in finder.find(importlib.import_module(name)))
    ]


@pytest.mark.parametrize("module", _modules_with_doctests())
def test_docstring_examples_run(module):
    """Every `>>>` example in `keras_neural_memory` runs and prints what it shows.

    Only the modules that have `>>>` examples are listed, so that none
    passes with nothing run; it also covers the `>>>` examples of private
    helpers and methods. The `Example:` of every public class and function,
    fenced or `>>>`, runs in `test_public_example_runs`, one test per object.
    """
    import doctest

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


# The `Example:` sections of the public API. A fenced ```python block is a
# script: it runs with `exec` in a fresh, empty namespace, so it imports
# what it uses and can be copied as it is. `>>>` examples run with
# `doctest`, whose namespace is the defining module's globals, and must
# print what they show.


def _public_objects():
    """`{qualified name: object}` for the classes and functions of docs/api.md's public part."""
    found, seen = {}, set()
    for _, members in _load_generator().public_sections():
        for qualified, obj in members:
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) not in seen:
                seen.add(id(obj))
                found[qualified] = obj
    return found


PUBLIC_OBJECTS = _public_objects()
# The library's own (`tfds_tasks`' objects run their examples when they have one).
LIBRARY_OBJECTS = [name for name, obj in PUBLIC_OBJECTS.items() if obj.__module__.startswith("keras_neural_memory")]


def _example_section(obj):
    """The text of the `Example:` (or `Examples:`) section of `obj`'s own docstring, or None."""
    section_re = _load_generator().SECTION_RE
    lines = inspect.cleandoc(obj.__doc__ or "").splitlines()
    starts = [i for i, line in enumerate(lines) if section_re.match(line) and line.startswith("Example")]
    if not starts:
        return None
    end = next((j for j in range(starts[0] + 1, len(lines)) if section_re.match(lines[j])), len(lines))
    return "\n".join(lines[starts[0] + 1 : end])


def _example_code(obj):
    """`(python blocks, doctest)` of `obj`'s `Example:` section; the doctest is None without `>>>` lines."""
    import doctest
    import textwrap

    section = textwrap.dedent(_example_section(obj) or "")
    blocks = [block for block in re.findall(r"^```python\n(.*?)^```", section, re.S | re.M) if block.strip()]
    module = inspect.getmodule(obj)
    test = doctest.DocTestParser().get_doctest(
        re.sub(r"^```.*?^```", "", section, flags=re.S | re.M), dict(vars(module)), obj.__qualname__, module.__file__, 0
    )
    return blocks, (test if test.examples else None)


@pytest.mark.parametrize("name", LIBRARY_OBJECTS)
def test_public_object_has_a_runnable_example(name):
    """Every public class and function of the library shows code that runs, not just a heading."""
    obj = PUBLIC_OBJECTS[name]
    assert _example_section(obj) is not None, f"the docstring of {name} has no `Example:` section"
    blocks, doctest_ = _example_code(obj)
    assert blocks or doctest_, f"the `Example:` of {name} has no code (a ```python block or `>>>` lines)"


@pytest.mark.parametrize("name", [name for name, obj in PUBLIC_OBJECTS.items() if _example_section(obj) is not None])
def test_public_example_runs(name, tmp_path, monkeypatch):
    """The `Example:` of each public class and function runs: its python blocks, then its `>>>` lines."""
    import doctest
    import io

    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # the figures examples save go there
    blocks, doctest_ = _example_code(PUBLIC_OBJECTS[name])
    for number, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"<the Example of {name}, block {number}>", "exec"), {"__name__": "__example__"})
        except Exception as error:
            raise AssertionError(f"the Example of {name} (block {number}) fails: {error!r}\n{block}") from error
    if doctest_ is not None:
        output = io.StringIO()
        result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(doctest_, out=output.write)
        assert result.failed == 0, f"the Example of {name} fails:\n{output.getvalue()}"


def test_memory_cells_share_one_argument_section():
    from keras_neural_memory import DequeCell, QueueCell, StackCell
    from keras_neural_memory.memory_cell import MemoryCell

    def arguments(cls):
        doc = inspect.getdoc(cls)
        assert "{cell_arguments}" not in doc
        return doc[doc.index("Args:") : doc.index("Example:")]

    assert arguments(StackCell) == arguments(QueueCell)
    names = ["controller:", "output_size:", "memory_width:", "capacity:", "kernel_regularizer:", "training:"]
    for cls in (MemoryCell, StackCell, DequeCell):
        section = arguments(cls)
        assert section.startswith("Args:\n    controller: Any Keras RNN cell, e.g.")
        assert all(name in section for name in names) and "Call arguments:" in section
