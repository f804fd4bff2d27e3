"""Writes docs/api.md from the public objects' signatures and docstrings.

    python docs/make_api_reference.py          # rewrite docs/api.md
    python docs/make_api_reference.py --check  # exit 1 if docs/api.md is stale

The page has two parts, so that a reader can tell what they may rely on:

1. **The library (public API)**: what users import.

   * every name in `keras_neural_memory.__all__`;
   * `keras_neural_memory.memory` and `keras_neural_memory.models`: their
     `__all__`, or else the classes and functions they define whose names
     do not start with `_` (so `memory`'s helper functions, which its
     `__all__` leaves out, are not listed);
   * every name in `tfds_tasks.__all__`;
   * a module listed in one of those `__all__`s gets a section of its own
     with its public names (its `__all__`, or else the classes and
     functions it defines), and names already documented elsewhere link
     there.

2. **The experiment application (internal)**: the `neural-memory`
   command's own code, with no stability promise: the `__all__` of
   `keras_neural_memory.experiments`, then the classes and functions each
   of its modules defines (every module of the subpackage, in name order).

Docstrings are Google style (`Args:`, `Returns:`, `Example:` ...); they are
turned into markdown lists and code blocks. Methods are listed when they
have a docstring and are defined in this project's code (never Keras' or
TFDS' own), so the page does not change with the Keras version; the few
methods that only serve the implementation are left out
(`INTERNAL_METHODS`). `tests/docs/test_docs.py` checks that the committed
page is up to date.
"""

import argparse
import dataclasses
import importlib
import inspect
import os
import pathlib
import pkgutil
import re
import sys
import textwrap

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "api.md"
OWN_PACKAGES = ("keras_neural_memory", "tfds_tasks")

# Methods of public classes that are not public API, by the module that
# defines them. The memory classes' public methods are the four the README
# promises (`initial_state`, `step`, `strengths`, `read_weights`); these
# others are the contract between the memories and the cells
# (`MemoryCell`, the fused scan of `MemoryRNN`), which may change with them.
# They keep their names (renaming would break code that calls them anyway).
INTERNAL_METHODS = {
    "keras_neural_memory.memory": (
        "num_slots", "write_slots", "update_strengths", "update", "slot_indices", "filled_slots",
    ),
}

HEADER = """\
# API reference

Generated from the docstrings by `python docs/make_api_reference.py`; do not
edit by hand (`tests/docs/test_docs.py` fails when this page is stale). How
the pieces fit together: [how_it_works.md](how_it_works.md).
"""

PUBLIC_HEADING = "The library (public API)"
PUBLIC_INTRO = """\
What users import: `keras_neural_memory` (the memory cells, `MemoryRNN`,
the controllers and layers, the memories, the model builders, metrics,
traces and figures) and `tfds_tasks` (the tasks' data). Helper functions
and methods these modules use internally are not listed: they may change
without notice."""

INTERNAL_HEADING = "The experiment application (internal)"
INTERNAL_INTRO = """\
`keras_neural_memory.experiments` is the code of the `neural-memory`
command (`train`, `evaluate`, `reproduce`): the internals of that
application, documented for its contributors. It carries **no stability
promise**: any name below may change or go in any release. Use the
command, or the library above, instead of importing it."""

SECTION_RE = re.compile(
    r"^(Args|Arguments|Call arguments|Keyword arguments|Attributes|Raises|Returns|Yields|Example|Examples):\s*$"
)
LIST_SECTIONS = {"Args", "Arguments", "Call arguments", "Keyword arguments", "Attributes", "Raises"}
ENTRY_RE = re.compile(r"^(\*{0,2}[\w.]+)(\s*\([^)]*\))?:\s*(.*)$")
REST_TABLE_RULE = re.compile(r"^=+(\s+=+)+\s*$")
MAX_SIGNATURE = 88


# ----------------------------------------------------------------- helpers


def _is_own(obj):
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] in OWN_PACKAGES


def slug(heading):
    """GitHub's anchor for a heading."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def rest_to_markdown(text):
    """The reST bits some docstrings use: ``code``, :role:`name`, `::`."""
    text = re.sub(r":(?:func|class|mod|data|meth|attr|obj):`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"(?<!`)``([^`]+)``(?!`)", r"`\1`", text)
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
    return re.sub(r"^::$", "", text, flags=re.M)


def _fence_rest_tables(lines):
    """Wraps reST simple tables (`=== ===` rules) in a code block."""
    out, rules = [], 0
    for line in lines:
        if REST_TABLE_RULE.match(line.strip()):
            if rules == 0:
                out.append("```text")
            out.append(line)
            rules += 1
            if rules == 3:
                out.append("```")
                rules = 0
        else:
            out.append(line)
    return out


def _fence_doctests(lines):
    """Puts each run of `>>>` lines and their output in a python block."""
    out, inside = [], False
    for line in lines:
        if not inside and line.lstrip().startswith(">>>"):
            out.append("```python")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    if inside:
        out.append("```")
    return out


def _entries(block):
    """`name: text` entries of an Args-like section, continuation lines joined."""
    lines = textwrap.dedent("\n".join(block)).splitlines()
    entries = []
    for line in lines:
        match = ENTRY_RE.match(line)
        if match and not line.startswith((" ", "\t")):
            name, kind, text = match.groups()
            entries.append([name, (kind or "").strip(), [text] if text else []])
        elif entries and line.strip():
            entries[-1][2].append(line.strip())
        elif line.strip():  # text before the first entry
            entries.append([None, "", [line.strip()]])
    out = []
    for name, kind, text in entries:
        body = " ".join(text)
        if name is None:
            out.append(body)
        else:
            out.append(f"- `{name}`{' ' + kind if kind else ''}: {body}".rstrip())
    return out


def _strip_blank(lines):
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def docstring_to_markdown(doc):
    """Google-style docstring -> markdown."""
    if not doc:
        return "*(no docstring)*"
    lines, in_table = [], False
    for line in _fence_rest_tables(doc.splitlines()):
        in_table = (in_table or line == "```text") and line != "```"
        lines.append(line if in_table else rest_to_markdown(line))
    out, i = [], 0
    while i < len(lines):
        match = SECTION_RE.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        section = match.group(1)
        j = i + 1
        if section.startswith("Example"):
            # Runs to the next section header (doctests may sit at column 0).
            while j < len(lines) and not SECTION_RE.match(lines[j]):
                j += 1
        else:
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
                j += 1
        block = _strip_blank(lines[i + 1 : j])
        out.append(f"**{section}:**")
        out.append("")
        if section in LIST_SECTIONS:
            out.extend(_entries(block))
        elif section.startswith("Example"):
            body = textwrap.dedent("\n".join(block)).splitlines()
            out.extend(body if any(line.lstrip().startswith("```") for line in body) else _fence_doctests(body))
        else:
            out.append(" ".join(line.strip() for line in block if line.strip()))
        out.append("")
        i = j
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _parameters(obj):
    """The signature's parameters without annotations, as `name=default` strings."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = []
    seen_keyword_only = False
    for param in signature.parameters.values():
        if param.kind is param.KEYWORD_ONLY and not seen_keyword_only:
            params.append("*")
            seen_keyword_only = True
        if param.kind is param.VAR_POSITIONAL:
            seen_keyword_only = True
            params.append(f"*{param.name}")
        elif param.kind is param.VAR_KEYWORD:
            params.append(f"**{param.name}")
        elif param.default is param.empty:
            params.append(param.name)
        elif param.default is dataclasses.MISSING:
            params.append(param.name)
        else:
            params.append(f"{param.name}={param.default!r}")
    return params


def _constructor(cls):
    """The class's `__init__`, or None when it comes from Keras/TFDS/object."""
    for klass in cls.__mro__:
        if "__init__" in vars(klass) or "__new__" in vars(klass):  # __new__: namedtuples
            return klass if _is_own(klass) else None
    return None


def signature_line(name, obj):
    if inspect.isclass(obj):
        if _constructor(obj) is None:
            base = next((k for k in obj.__mro__[1:] if not _is_own(k)), object)
            if base is object:
                return f"class {name}()"
            return f"class {name}(**kwargs)  # the arguments of {base.__name__}"
        params = _parameters(obj)
        prefix = f"class {name}"
    else:
        params = _parameters(obj)
        prefix = name
    if params is None:
        return prefix
    one_line = f"{prefix}({', '.join(params)})"
    if len(one_line) <= MAX_SIGNATURE:
        return one_line
    return prefix + "(\n" + "".join(f"    {p},\n" for p in params) + ")"


def _describe_constant(value):
    if isinstance(value, dict):
        keys = ", ".join(f"`{k}`" for k in value)
        return f"A `dict` with keys {keys}."
    if isinstance(value, (tuple, list)) and all(isinstance(v, (str, int, float)) for v in value):
        return f"`{value!r}`"
    if isinstance(value, (str, int, float, bool)):
        return f"`{value!r}`"
    return f"A `{type(value).__name__}`."


# ----------------------------------------------------------------- entries


def public_members(module):
    """`module.__all__`, else the classes and functions it defines, in order."""
    names = getattr(module, "__all__", None)
    if names is None:
        return own_functions_and_classes(module)
    return [(name, getattr(module, name)) for name in names]


def own_functions_and_classes(module):
    """Classes and functions `module` defines (names without `_`), in order."""
    return [
        (name, value)
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", None) == module.__name__
    ]


def _short(module):
    return module.__name__.replace("keras_neural_memory.", "")


def public_sections():
    """The library's sections, `[(module, [(qualified name, object), ...]), ...]`."""
    import keras_neural_memory
    import tfds_tasks

    memory = importlib.import_module("keras_neural_memory.memory")
    models = importlib.import_module("keras_neural_memory.models")

    sections, done = [], set()
    # Each package, then the modules it lists in its `__all__`.
    for group in ((keras_neural_memory, memory, models), (tfds_tasks,)):
        listed_modules = []
        for package in group:
            members = public_members(package)
            prefix = "" if package is keras_neural_memory else _short(package) + "."
            sections.append((package, [(prefix + name, value) for name, value in members]))
            done.add(package.__name__)
            listed_modules += [value for _, value in members if inspect.ismodule(value)]
        for module in listed_modules:
            if module.__name__ not in done:
                done.add(module.__name__)
                members = public_members(module)
                sections.append((module, [(f"{_short(module)}.{name}", value) for name, value in members]))
    return sections


def internal_sections():
    """The experiment application's sections: its `__all__`, then each of its modules."""
    experiments = importlib.import_module("keras_neural_memory.experiments")
    sections = [(experiments, [(f"experiments.{name}", value) for name, value in public_members(experiments)])]
    for info in sorted(pkgutil.iter_modules(experiments.__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{experiments.__name__}.{info.name}")
        members = own_functions_and_classes(module)
        sections.append((module, [(f"{_short(module)}.{name}", value) for name, value in members]))
    return sections


def collect_parts():
    """`[(heading, intro, sections), ...]`: the public library, then the internal application."""
    return [
        (PUBLIC_HEADING, PUBLIC_INTRO, public_sections()),
        (INTERNAL_HEADING, INTERNAL_INTRO, internal_sections()),
    ]


def _is_documentable(obj):
    return inspect.isclass(obj) or inspect.isfunction(obj)


def _methods(cls, documented):
    """Own public methods with a docstring, and the documented classes they come from.

    Returns `(methods, inherited)`: methods defined by `cls` or by private
    project classes it inherits from, as `(name, params, doc)`; and
    `{documented base name: [method names]}` for the rest.
    """
    found, inherited, seen = [], {}, set()
    for klass in cls.__mro__:
        if not _is_own(klass):
            continue
        hidden = INTERNAL_METHODS.get(klass.__module__, ())
        for attr, value in vars(klass).items():
            if attr.startswith("_") or attr in seen or attr in hidden:
                continue
            func = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            doc = func.__doc__ if isinstance(func, property) or inspect.isfunction(func) else None
            if not doc:
                continue
            seen.add(attr)
            if klass is not cls and id(klass) in documented:
                inherited.setdefault(documented[id(klass)], []).append(attr)
                continue
            if isinstance(func, property):
                found.append((attr, None, doc))
            else:
                params = _parameters(func) or []
                if params and params[0] in ("self", "cls"):
                    params = params[1:]
                found.append((attr, params, doc))
    return found, inherited


def render_entry(qualified, obj, documented):
    name = qualified.split(".")[-1]
    parts = [f"#### `{qualified}`"]
    if _is_documentable(obj) and documented.get(id(obj)) != qualified:
        other = documented[id(obj)]
        parts.append(f"The same object as [`{other}`](#{slug(other)}).")
    elif _is_documentable(obj):
        parts.append(f"```python\n{signature_line(name, obj)}\n```")
        parts.append(docstring_to_markdown(inspect.getdoc(obj)))
        if inspect.isclass(obj):
            methods, inherited = _methods(obj, documented)
            for attr, params, doc in methods:
                call = attr if params is None else f"{attr}({', '.join(params)})"
                parts.append(f"##### `{name}.{call}`\n\n{docstring_to_markdown(inspect.cleandoc(doc))}")
            for base, attrs in inherited.items():
                names = ", ".join(f"`{attr}`" for attr in attrs)
                parts.append(f"Methods documented under [`{base}`](#{slug(base)}): {names}.")
    elif inspect.ismodule(obj):
        parts.append(f"The module `{obj.__name__}`: see [its section](#{slug(obj.__name__)}).")
    else:
        parts.append(_describe_constant(obj))
    return "\n\n".join(parts)


def build_reference():
    """The text of docs/api.md."""
    parts = collect_parts()
    documented = {}  # id(class or function) -> the qualified name it is documented under
    for _, _, sections in parts:
        for _, members in sections:
            for qualified, obj in members:
                if _is_documentable(obj):
                    documented.setdefault(id(obj), qualified)
    # A short table of contents: the two parts and their modules. Each
    # module's section starts with an index of its names.
    toc, body = ["## Contents", ""], []
    for heading, intro, sections in parts:
        toc.append(f"- [{heading}](#{slug(heading)})")
        body.append(f"## {heading}")
        body.append(intro)
        for module, members in sections:
            toc.append(f"  - [{module.__name__}](#{slug(module.__name__)})")
            body.append(f"### {module.__name__}")
            body.append(docstring_to_markdown(inspect.getdoc(module)))
            if members:
                body.append("Names: " + ", ".join(f"[`{q.split('.')[-1]}`](#{slug(q)})" for q, _ in members) + ".")
            for qualified, obj in members:
                body.append(render_entry(qualified, obj, documented))
    text = "\n\n".join([HEADER, "\n".join(toc), *body])
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/api.md is not up to date")
    args = parser.parse_args(argv)
    text = build_reference()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is stale: run `python docs/make_api_reference.py`.", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
