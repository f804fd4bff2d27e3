"""A Griffe extension: the project's Keras-style docstrings render as sections.

mkdocstrings reads the docstrings with Griffe's Google-style parser. The
package writes them the way Keras does, which that parser reads otherwise:

* `Call arguments:` is Keras' own section; it becomes a parameters section
  titled "Call arguments" (`Args: Call arguments:` in Google style).
* `Example:` with a blank line under it and its code unindented becomes an
  indented `Examples:` section titled "Example", its ```python blocks and
  `>>>` lines rendered as code.
* The reST of a few docstrings (``code``, :func:`name`, `text::` literal
  blocks and simple tables) becomes Markdown.
* A docstring made or filled in at import (the memory cells' shared
  `{cell_arguments}`, a named tuple's `__doc__`) is read from the imported
  object, as `help()` shows it.

The docstrings themselves stay as they are, so `help()` and the tests that
run their examples read them unchanged.
"""

from __future__ import annotations

import importlib
import inspect
import re

import griffe

# Section titles as the package writes them; a line that is one of these,
# at the docstring's left margin, opens a section.
SECTION_RE = re.compile(
    r"^(Args|Arguments|Call arguments|Keyword arguments|Attributes|Raises|Returns|Yields|Example|Examples|Note|Warning):\s*$"
)
REST_TABLE_RULE = re.compile(r"^\s*=+(\s+=+)+\s*$")


def rest_to_markdown(text):
    """The reST bits some docstrings use: ``code``, :role:`name`, `text::`."""
    text = re.sub(r":(?:func|class|mod|data|meth|attr|obj):`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"(?<!`)``([^`]+)``(?!`)", r"`\1`", text)
    text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
    return re.sub(r"^\s*::$", "", text, flags=re.M)


def _fence_rest_tables(lines):
    """Wraps each reST simple table (three `=== ===` rules) in a text block."""
    out, rules = [], 0
    for line in lines:
        if REST_TABLE_RULE.match(line):
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


def _indent_sections(lines):
    """Keras-style sections as Google-style ones.

    A section title followed by a blank line and content at the margin
    (Keras' `Example:`) gets its content indented up to the next title.
    """
    out, i = [], 0
    while i < len(lines):
        match = SECTION_RE.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        title = match.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        end = j
        # The section runs to the next title at the margin (or the end).
        while end < len(lines) and not SECTION_RE.match(lines[end]):
            end += 1
        body = lines[j:end]
        if body and not body[0].startswith(" "):
            body = [f"    {line}" if line.strip() else "" for line in body]
        while body and not body[-1].strip():
            body.pop()
        if title == "Call arguments":
            heading = "Args: Call arguments:"
        elif title.startswith("Example"):
            heading = f"Examples: {title}:"
        else:
            heading = f"{title}:"
        out += [heading, *body, ""]
        i = end
    return out


def _fence_loose_doctests(lines):
    """Puts each run of `>>>` lines at the margin (outside any section) and their output in a code block."""
    out, in_code, in_doctest = [], False, False
    for line in lines:
        if in_doctest and not line.strip():
            out.append("```")
            in_doctest = False
        elif not in_code and not in_doctest and line.startswith(">>>"):
            out.append("```pycon")
            in_doctest = True
        elif not in_doctest and line.lstrip().startswith("```"):
            in_code = not in_code
        out.append(line)
    if in_doctest:
        out.append("```")
    return out


def keras_to_google(doc):
    """A Keras-style docstring as Griffe's Google-style parser expects it."""
    lines, in_code = [], False
    for line in _fence_rest_tables(inspect.cleandoc(doc).splitlines()):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            lines.append(line)
        else:
            lines.append(line if in_code else rest_to_markdown(line))
    return "\n".join(_fence_loose_doctests(_indent_sections(lines))).rstrip()


def _runtime_docstring(obj):
    """The docstring of `obj`'s imported class, function or module, or None."""
    try:
        module = importlib.import_module(obj.module.path)
    except Exception:  # noqa: BLE001 - a module that does not import keeps its source docstring
        return None
    value = module
    for name in obj.path[len(obj.module.path) :].strip(".").split(".") if obj.path != obj.module.path else []:
        value = getattr(value, name, None)
    if inspect.ismodule(value):
        return value.__doc__ if value.__name__ == obj.path else None
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return None  # a constant's `__doc__` is its type's
    # Only the object defined here, not a class or function an attribute refers to.
    defined_here = value.__module__ == obj.module.path and value.__qualname__ == obj.path[len(obj.module.path) + 1 :]
    return value.__doc__ if defined_here else None


class KerasDocstrings(griffe.Extension):
    """Rewrites each docstring of the documented packages before it is parsed."""

    def on_package(self, *, pkg, loader, **kwargs):
        self.on_object(obj=pkg, loader=loader)  # Griffe fires `on_object` for the package's members only

    def on_object(self, *, obj, loader, **kwargs):
        if obj.is_alias:
            return
        static = obj.docstring.value if obj.docstring else None
        if static is None or "{" in static:
            runtime = _runtime_docstring(obj)
            if runtime:
                obj.docstring = griffe.Docstring(
                    inspect.cleandoc(runtime),
                    parent=obj,
                    parser=loader.docstring_parser,
                    parser_options=loader.docstring_options,
                )
        if obj.docstring:
            obj.docstring.value = keras_to_google(obj.docstring.value)
