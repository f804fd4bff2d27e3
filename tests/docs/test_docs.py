"""The documentation stays true to the code.

* the API pages (docs/api/, rendered by mkdocstrings) name every public
  class, function and module of the library, the experiment application's
  internals on a page of their own, and the memories' internal methods on
  none (`tests/docs/test_site.py` builds and opens them);
* every public class and function of `keras_neural_memory` documents its
  arguments (`Args:`) and shows an `Example:` with code;
* relative links in the READMEs and every page under docs/ point to files (and headings)
  that exist;
* the code in docs/how_it_works.md and docs/custom_controller.md runs, the
  README's quick start runs as it is in a fresh process, in a minute or so
  on a 2-core CPU, and so does its "load a trained run" snippet; so do the
  `Example:` of every public class and function (its ```python blocks and
  `>>>` lines) and every `>>>` example in `keras_neural_memory`;
* README.md, CITATION.cff and setup.py agree on the version and the papers
  to cite, CITATION.cff is valid YAML, and the installed distribution has
  that version (setup.py reads it from the package) and the LICENSE file.
"""

import importlib
import importlib.util
import inspect
import os
import pathlib
import pkgutil
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import keras_neural_memory

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API = DOCS / "api"
# The page of the experiment application's internals; the others are the library's.
INTERNAL_PAGE = API / "experiments.md"


def _load_docstring_extension():
    spec = importlib.util.spec_from_file_location("keras_docstrings", DOCS / "keras_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SECTION_RE = _load_docstring_extension().SECTION_RE

# ------------------------------------------------------------ API reference

DIRECTIVE_RE = re.compile(r"^::: (\S+)\n((?:    .*\n|\n(?=    ))*)", re.M)


def _directives(page):
    """`[(identifier, members option or None), ...]` of a page's `:::` blocks."""
    out = []
    for identifier, options in DIRECTIVE_RE.findall(page.read_text(encoding="utf-8")):
        match = re.search(r"^\s+members: (.*)$", options, re.M)
        members = None
        if match:
            value = match.group(1).strip()
            members = False if value == "false" else [name.strip() for name in value.strip("[]").split(",")]
        out.append((identifier, members))
    return out


def _import(identifier):
    """The object a dotted identifier names: a module, or an attribute of one."""
    try:
        return importlib.import_module(identifier)
    except ModuleNotFoundError:
        parent, _, name = identifier.rpartition(".")
        return getattr(_import(parent), name)


def _module_members(module):
    """The public names of a module, as mkdocstrings lists them: its `__all__`, or else what it defines."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            name
            for name, value in vars(module).items()
            if not name.startswith("_")
            and (inspect.isclass(value) or inspect.isfunction(value))
            and getattr(value, "__module__", None) == module.__name__
        ]
    return {f"{module.__name__}.{name}": getattr(module, name) for name in names}


def _documented(pages):
    """`{qualified name: object}` of what the `:::` blocks of `pages` render."""
    found = {}
    for page in pages:
        for identifier, members in _directives(page):
            obj = _import(identifier)
            found[identifier] = obj
            if inspect.ismodule(obj) and members is not False:
                listed = _module_members(obj)
                found.update(listed if members is None else {f"{identifier}.{m}": listed[f"{identifier}.{m}"] for m in members})
    return found


LIBRARY_PAGES = sorted(page for page in API.glob("*.md") if page != INTERNAL_PAGE)
PUBLIC_OBJECTS = {}
for _name, _obj in _documented(LIBRARY_PAGES).items():
    if (inspect.isclass(_obj) or inspect.isfunction(_obj)) and all(_obj is not other for other in PUBLIC_OBJECTS.values()):
        PUBLIC_OBJECTS[_name] = _obj
# The library's own (`tfds_tasks`' objects run their examples when they have one).
LIBRARY_OBJECTS = [name for name, obj in PUBLIC_OBJECTS.items() if obj.__module__.startswith("keras_neural_memory")]


def test_the_api_pages_document_every_public_name():
    import tfds_tasks
    from keras_neural_memory import experiments, memory, models

    public = {id(obj) for obj in _documented(LIBRARY_PAGES).values()}
    internal = _documented([INTERNAL_PAGE])
    names = {
        **{f"keras_neural_memory.{name}": getattr(keras_neural_memory, name) for name in keras_neural_memory.__all__},
        **_module_members(memory),
        **_module_members(models),
        **{f"tfds_tasks.{name}": getattr(tfds_tasks, name) for name in tfds_tasks.__all__},
    }
    for name, obj in names.items():
        if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj):
            assert id(obj) in public, f"no API page documents {name}"
    for name in experiments.__all__:
        assert f"keras_neural_memory.experiments.{name}" in internal
    # The experiment application's modules are all on its own page, and on no other.
    modules = {info.name for info in pkgutil.iter_modules(experiments.__path__)}
    assert {f"keras_neural_memory.experiments.{m}" for m in modules} <= set(internal)
    for page in LIBRARY_PAGES:
        assert "keras_neural_memory.experiments" not in "".join(i for i, _ in _directives(page)), page.name


def test_memory_internals_are_not_public():
    """The methods the cells and the fused scan call on a memory are not public API."""
    directives = dict(_directives(API / "memory.md"))
    for cls in ("NeuralStack", "NeuralQueue", "NeuralDeque"):
        # What the README promises, and nothing else.
        assert directives[f"keras_neural_memory.memory.{cls}"] == ["initial_state", "step", "strengths", "read_weights"]
    assert directives["keras_neural_memory.memory"] is False  # not its helper functions either


def test_the_api_reference_generator_is_gone():
    """mkdocstrings writes the API pages; no script writes docs/api.md."""
    assert not (DOCS / "make_api_reference.py").exists() and not (DOCS / "api.md").exists()


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


def slug(heading):
    """GitHub's anchor for a heading (the site's `toc` slugify makes the same)."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path):
    """GitHub's heading anchors of a markdown file."""
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


def _readme_block(heading):
    """The first ```python block of the README's section `heading` (## or ###)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(rf"^#{{2,6}} {re.escape(heading)}\n(.*?)(?=^#{{2,6}} |\Z)", text, re.S | re.M)
    assert section, f"README.md has no section {heading!r}"
    blocks = re.findall(r"^```python\n(.*?)^```", section.group(1), re.S | re.M)
    assert blocks, f"the section {heading!r} of README.md has no python block"
    return blocks[0]


def test_how_it_works_examples_run():
    namespace = {}
    for block in _python_blocks(DOCS / "how_it_works.md"):
        exec(compile(block, str(DOCS / "how_it_works.md"), "exec"), namespace)
    # The overflow example: the 5th step is the first past capacity 4.
    np.testing.assert_array_equal(namespace["nan_steps"], [False] * 5 + [True] * 2)


def test_custom_controller_examples_run():
    namespace = {}
    for block in _python_blocks(DOCS / "custom_controller.md"):
        exec(compile(block, str(DOCS / "custom_controller.md"), "exec"), namespace)
    assert tuple(namespace["outputs"].shape) == (2, 50, 32)
    assert "keras.layers.Dropout" in namespace["message"]


@pytest.mark.slow
def test_readme_quick_start_runs_as_it_is(tmp_path):
    """The quick start, verbatim, in a fresh process: it trains, prints its accuracy, saves and loads."""
    block = _readme_block("Quick start")
    env = {**os.environ, "TFDS_DATA_DIR": str(tmp_path / "tfds"), "TF_CPP_MIN_LOG_LEVEL": "3"}
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-"], input=block, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    took = time.perf_counter() - start
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(r"^test coarse accuracy at lengths 17-32: [01]\.\d\d$", result.stdout, re.M), result.stdout
    assert (tmp_path / "stack_lstm.keras").is_file()
    print(f"the README's quick start took {took:.0f} s")


def test_readme_loads_a_trained_run(tmp_path, monkeypatch, capsys):
    """The "load a trained run" snippet, verbatim, on a model saved where `neural-memory train` saves one."""
    import tfds_tasks
    from keras_neural_memory.experiments import common

    vocab = common.SCALES["default"]["vocab"]
    layout = tfds_tasks.Layout("joint", vocab, vocab)
    model = keras_neural_memory.models.build_transducer(layout, hidden_size=8, memory_width=4, memory="stack")
    run = tmp_path / "runs" / "sequence_reversal-stack-default"
    run.mkdir(parents=True)
    model.save(run / "model.keras")
    monkeypatch.chdir(tmp_path)
    exec(compile(_readme_block("Load a trained run"), "README.md", "exec"), {"__name__": "__readme__"})
    printed = capsys.readouterr().out.strip()
    assert re.fullmatch(r"\[\[(\d+(, )?)*\]\]", printed), printed


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


PAPERS = {
    "Learning to Transduce with Unbounded Memory": ["Grefenstette", "Hermann", "Suleyman", "Blunsom"],
    "Context-Free Transductions with Neural Stacks": ["Hao", "Merrill", "Angluin", "Frank", "Amsel", "Benz", "Mendelsohn"],
    "Neural Networks and the Chomsky Hierarchy": [
        "Delétang", "Ruoss", "Grau-Moya", "Genewein", "Wenliang", "Catt", "Cundy", "Hutter", "Legg", "Veness", "Ortega",
    ],
    "Inferring Algorithmic Patterns with Stack-Augmented Recurrent Nets": ["Joulin", "Mikolov"],
}


def test_citation_file_names_the_package_version_and_the_papers():
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: {re.escape(keras_neural_memory.__version__)}$", text, re.M)
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load(text)
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"] == "keras-neural-memory"
    assert str(cff["version"]) == keras_neural_memory.__version__
    titles = {reference["title"]: reference for reference in cff["references"]}
    for title, authors in PAPERS.items():
        assert [a["family-names"] for a in titles[title]["authors"]] == authors, title


def test_readme_cites_the_package_and_the_papers():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    citing = text[text.index("## Citing") :]
    bibtex = re.search(r"^```bibtex\n(.*?)^```", citing, re.S | re.M).group(1)
    assert bibtex.startswith("@software{keras_neural_memory,")
    assert re.search(rf"version = \{{{re.escape(keras_neural_memory.__version__)}\}}", bibtex)
    prose = " ".join(citing.split())
    for title, authors in PAPERS.items():
        assert f"*{title}.*" in prose, title
        assert authors[-1] in prose


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


def _example_section(obj):
    """The text of the `Example:` (or `Examples:`) section of `obj`'s own docstring, or None."""
    section_re = SECTION_RE
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
