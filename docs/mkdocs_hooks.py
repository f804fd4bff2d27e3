"""MkDocs hooks: the site is the repository's pages, with links as GitHub follows them.

Every page is written for the repository view, with relative links between
files. These hooks build the site from those same files:

* Pages outside `docs/` join the site (`REPOSITORY_PAGES`): the README is
  the home page, the notebooks are rendered with their stored outputs, the
  datasets' index, the notebooks' and the changelog are pages of their own, and the
  README's install and quick-start sections are also the Guide's first two
  pages (`README_PAGES`).
* Each relative link is read as the repository resolves it and rewritten to
  where its target is in the site; a linked repository file that is no page
  (a script, `LICENSE`, `CITATION.cff`) is copied under `source/`, and a
  link to a folder goes to that folder's page (`docs/results/` to
  `docs/results.md`). MkDocs then checks every link and anchor.
"""

from __future__ import annotations

import pathlib
import posixpath
import re

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = "docs"
# Repository path -> site path of the pages kept outside docs/.
REPOSITORY_PAGES = {
    "README.md": "index.md",
    "CHANGELOG.md": "changelog.md",
    "tfds_tasks/README.md": "datasets/index.md",
    "examples/README.md": "examples/index.md",
    **{f"examples/{path.name}": f"examples/{path.name}" for path in sorted((ROOT / "examples").glob("*.ipynb"))},
}
# Site pages cut from one section of the README: site path -> its heading.
README_PAGES = {"install.md": "Install", "quick_start.md": "Quick start"}
COPIED = "source"

LINK_RE = re.compile(r"(\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")
FENCE_RE = re.compile(r"^\s*(```|~~~)")


def _section(text, heading):
    """The `## heading` section of a markdown text, as a page of its own."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if match is None:
        raise ValueError(f"README.md has no '## {heading}' section for the site's guide")
    return f"# {heading}\n{match.group(1)}"


def _repository_path(site_path):
    """The repository file a site page is made from."""
    for repository, site in REPOSITORY_PAGES.items():
        if site == site_path:
            return repository
    if site_path in README_PAGES:
        return "README.md"
    return f"{DOCS}/{site_path}"


def _resolve(target, page_repository_path):
    """`(repository path, anchor)` of a relative link, or None for any other link."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
        return None
    file_part, _, anchor = target.partition("#")
    path = posixpath.normpath(posixpath.join(posixpath.dirname(page_repository_path), file_part))
    if (ROOT / path).is_dir():
        for candidate in (f"{path}/README.md", f"{path}.md"):
            if (ROOT / candidate).is_file():
                path = candidate
                break
    return path, anchor


def _site_path(repository_path):
    """Where a repository file is in the site."""
    if repository_path in REPOSITORY_PAGES:
        return REPOSITORY_PAGES[repository_path]
    if repository_path.startswith(f"{DOCS}/"):
        return repository_path[len(DOCS) + 1 :]
    return f"{COPIED}/{repository_path}"


def _outside_code(markdown, function):
    """Applies `function` to the markdown outside fenced code blocks."""
    out, chunk, in_code = [], [], False
    for line in markdown.splitlines(keepends=True):
        if FENCE_RE.match(line):
            out.append(("".join(chunk) if in_code else function("".join(chunk))) + line)
            chunk, in_code = [], not in_code
        else:
            chunk.append(line)
    out.append("".join(chunk) if in_code else function("".join(chunk)))
    return "".join(out)


def _links(markdown):
    return [m.group(2) for m in LINK_RE.finditer(_outside_code(markdown, lambda text: text))]


@event_priority(100)  # before mkdocs-jupyter picks up the notebooks
def on_files(files, config):
    for repository, site in REPOSITORY_PAGES.items():
        if repository == site:  # the notebooks: mkdocs-jupyter reads a file from its folder, not a generated one
            files.append(File(repository, src_dir=str(ROOT), dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls))
        else:
            files.append(File.generated(config, site, abs_src_path=str(ROOT / repository)))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for site, heading in README_PAGES.items():
        files.append(File.generated(config, site, content=_section(readme, heading)))
    # The repository files that pages link to and that are no page.
    copied = set()
    for file in list(files):
        if not file.src_uri.endswith(".md"):
            continue
        repository = _repository_path(file.src_uri)
        for target in _links((ROOT / repository).read_text(encoding="utf-8")):
            resolved = _resolve(target, repository)
            if resolved is None:
                continue
            site = _site_path(resolved[0])
            # A markdown file outside `REPOSITORY_PAGES` is no page: its link is left to fail the build.
            linked = ROOT / resolved[0]
            if site.startswith(f"{COPIED}/") and linked.is_file() and linked.suffix != ".md" and site not in copied:
                copied.add(site)
                files.append(File.generated(config, site, abs_src_path=str(ROOT / resolved[0])))
    return files


def on_page_markdown(markdown, page, config, files):
    repository = _repository_path(page.file.src_uri)
    here = posixpath.dirname(page.file.src_uri)

    def rewrite(match):
        resolved = _resolve(match.group(2), repository)
        if resolved is None:
            return match.group(0)
        path, anchor = resolved
        target = posixpath.relpath(_site_path(path), here or ".")
        return f"{match.group(1)}{target}{'#' + anchor if anchor else ''}{match.group(3)}"

    return _outside_code(markdown, lambda text: LINK_RE.sub(rewrite, text))


# MathJax typesets the pages that have equations; the others load no script
# from another host.
MATHJAX = '<script defer src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>'


def on_post_page(output, page, config):
    if 'class="arithmatex"' in output:
        output = output.replace("</body>", f"{MATHJAX}\n</body>", 1)
    return output
