"""The package's layout: the library depends on neither the experiment application nor the tasks, and nothing imports in a cycle."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "keras_neural_memory"


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imported_names(name):
    """Every module that module `name` imports, at its top or inside a function, in the package or not."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from package import submodule` imports the submodule.
            found.update(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES else node.module
                         for alias in node.names)  # fmt: skip
    return found


def _imports(name):
    """The package's modules that module `name` imports."""
    return {module for module in _imported_names(name) if module in MODULES and module != name}


GRAPH = {name: _imports(name) for name in MODULES}
PACKAGE_INIT = "keras_neural_memory"


def test_the_library_never_imports_the_experiment_application():
    library = [name for name in MODULES if not name.startswith("keras_neural_memory.experiments")]
    assert len(library) > 10
    for name in library:
        reached = {module for module in GRAPH[name] if module.startswith("keras_neural_memory.experiments")}
        assert not reached, f"{name} imports {sorted(reached)}"


def test_the_library_never_imports_the_tasks():
    # The models take a layout of the ids (`tfds_tasks.Layout`) as an argument instead.
    library = [name for name in MODULES if not name.startswith("keras_neural_memory.experiments")]
    for name in library:
        tasks = {module for module in _imported_names(name) if module.split(".")[0] == "tfds_tasks"}
        assert not tasks, f"{name} imports {sorted(tasks)}"


@pytest.mark.parametrize("start", sorted(MODULES))
def test_no_module_imports_itself_through_others(start):
    # The package's __init__ gathers the public names: importing it is not a dependency edge.
    def neighbours(name):
        return GRAPH[name] - {PACKAGE_INIT} if name != PACKAGE_INIT else set()

    stack, seen = [(start, [start])], set()
    while stack:
        name, path = stack.pop()
        for module in neighbours(name):
            assert module != start, "import cycle: " + " -> ".join([*path, module])
            if module not in seen:
                seen.add(module)
                stack.append((module, [*path, module]))


def test_the_command_line_only_parses_arguments():
    """`experiments.cli` builds no model and reads no data itself: it calls the modules that do."""
    source = MODULES["keras_neural_memory.experiments.cli"].read_text()
    for word in ("import tfds_tasks", "from tfds_tasks", "model.fit", ".compile(", "load_model", "tf.data"):
        assert word not in source, word
