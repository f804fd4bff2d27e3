"""The documentation site builds strictly and reads as a reader's browser shows it.

* `mkdocs build --strict` passes: every link, anchor and cross-reference of
  the pages resolves, every page is in the navigation, and a warning of
  mkdocstrings (a docstring it cannot read) fails it too;
* the API pages render the docstrings' Keras sections (`Args:`, `Call
  arguments:`, `Returns:`, `Example:`) as sections, the experiment
  application on a page apart from the library's;
* served on localhost, the home page, an API page and a results page open
  in headless Chromium (Debian's `chromium` and `chromedriver`) with their
  title and their first table or signature, and with no error in the
  browser console, and the search index is served; a screenshot of each
  page is saved under the test's temporary directory, whose path it prints.
"""

import functools
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import threading
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# Headless, and with nothing that reaches for the network on its own: on a
# machine without one, a refused background connection shows as a console error.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
)
# (name, path, words of its title, CSS selector of its first table or signature)
PAGES = (
    ("home", "", "keras-neural-memory", "article table"),
    ("api_cells", "api/cells/", "Memory cells", "article .doc-signature"),
    ("results_hao", "results/hao/", "Hao et al", "article table"),
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built once with `mkdocs build --strict`."""
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr[-6000:]}"
    return out


def _html(site, page):
    return (site / page / "index.html").read_text(encoding="utf-8")


def test_the_api_pages_render_the_keras_sections(site):
    html = _html(site, "api/cells")
    assert 'id="keras_neural_memory.StackCell"' in html
    for title in ("Parameters:", "Call arguments:", "Example"):
        assert f'<span class="doc-section-title">{title}' in html, title
    # The shared argument sections are filled in, and no section title is left as text.
    assert "{cell_arguments}" not in html
    assert "<p>Call arguments:" not in html and "<p>Example:" not in html
    models = _html(site, "api/models")
    assert '<span class="doc-section-title">Returns:' in models
    assert 'id="keras_neural_memory.models.transduce"' in models


def test_the_experiment_application_has_its_own_page(site):
    internal = _html(site, "api/experiments")
    assert 'id="keras_neural_memory.experiments.cli"' in internal
    assert 'id="keras_neural_memory.experiments.RunConfig"' in internal
    for page in ("cells", "memory_rnn", "memory", "controllers", "models", "metrics", "traces", "tfds_tasks"):
        assert 'id="keras_neural_memory.experiments' not in _html(site, f"api/{page}"), page


def test_the_memories_internal_methods_are_left_out(site):
    html = _html(site, "api/memory")
    for method in ("initial_state", "step", "strengths", "read_weights"):
        assert f'id="keras_neural_memory.memory.NeuralStack.{method}"' in html, method
    for method in ("slot_indices", "filled_slots", "write_slots", "update_strengths"):
        assert f"NeuralStack.{method}" not in html, method


def test_the_dataset_pages_and_the_notebooks_are_in_the_site(site):
    assert "sequence_copy" in _html(site, "datasets")
    assert "Citation" in _html(site, "datasets/sequence_copy")
    assert (site / "examples" / "01_quickstart" / "index.html").is_file()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def browser(tmp_path, monkeypatch):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        message = "Chromium and chromedriver are needed: apt-get install -y chromium chromium-driver"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver

    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager downloads nothing
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_pages_render_in_headless_chromium(served, browser, tmp_path, capsys):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    screenshots = tmp_path / "screenshots"
    screenshots.mkdir()
    for name, path, title, first in PAGES:
        browser.get(served + path)
        element = WebDriverWait(browser, 20).until(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, first)))
        assert title in browser.title, f"{name}: the title is {browser.title!r}"
        assert element.text.strip(), f"{name}: its first {first!r} is empty"
        assert browser.find_element(By.CSS_SELECTOR, "article h1").text.strip()
        browser.save_screenshot(str(screenshots / f"{name}.png"))
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, f"{name}: console errors {errors}"
    with urllib.request.urlopen(served + "search/search_index.json") as response:
        index = json.load(response)
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert {"", "api/cells/", "results/hao/"} <= locations
    with capsys.disabled():
        print(f"\nscreenshots of the site's pages: {screenshots}")
