"""The example notebooks share one home for their settings, and each twin holds the same code."""

import importlib.util
import json
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("0*.ipynb"))


def _notebook_settings():
    spec = importlib.util.spec_from_file_location("notebook_settings", EXAMPLES / "notebook_settings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_choose_settings_reads_the_variable(monkeypatch, capsys):
    settings = _notebook_settings()
    sizes = {"fast": {"steps": 2}, "default": {"steps": 200}}
    monkeypatch.delenv("NEURAL_MEMORY_EXAMPLES", raising=False)
    assert settings.choose_settings(sizes) == ("default", {"steps": 200})
    assert "NEURAL_MEMORY_EXAMPLES=default: {'steps': 200}" in capsys.readouterr().out
    monkeypatch.setenv("NEURAL_MEMORY_EXAMPLES", "fast")
    assert settings.choose_settings(sizes) == ("fast", {"steps": 2})
    monkeypatch.setenv("NEURAL_MEMORY_EXAMPLES", "slow")
    with pytest.raises(ValueError, match="NEURAL_MEMORY_EXAMPLES must be 'fast' or 'default', not 'slow'"):
        settings.choose_settings(sizes)
    with pytest.raises(ValueError, match="exactly the keys"):
        settings.choose_settings({"fast": {}})


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_notebook_takes_its_settings_from_the_one_home(notebook):
    code = "\n".join("".join(cell["source"]) for cell in json.loads(notebook.read_text())["cells"] if cell["cell_type"] == "code")
    assert "from notebook_settings import choose_settings" in code
    assert 'os.environ.get("NEURAL_MEMORY_EXAMPLES"' not in code


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_py_twin_holds_the_notebooks_code(notebook):
    twin = notebook.with_suffix(".py").read_text()
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] == "code":
            assert "".join(cell["source"]).strip() in twin, f"{notebook.name}: a code cell differs from its .py twin"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_stored_outputs_hold_no_python_warning_and_no_path_of_the_machine_that_ran_them(notebook):
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("text", "")) + json.dumps(output.get("data", {}))
            assert "Warning:" not in text and "site-packages" not in text, f"{notebook.name}: {text[:200]}"
