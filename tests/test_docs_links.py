"""The documentation site builds in strict mode, includes the SEP, and has no broken internal link or anchor; its
API page documents every public name exactly once; its style sheet keeps identifiers whole in tables.

The site is built once for this module into a temporary directory; every `href` of every generated page that points
inside the site is resolved against the built files, and its `#fragment`, if any, against the ids of the target.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path
from types import FunctionType
from urllib.parse import unquote, urlsplit

import griffe
import pytest
import yaml

import mcp_rendering

ROOT = Path(__file__).resolve().parent.parent
SEP_PATH = ROOT / "sep" / "0000-rendering-directives.md"
MARKERS = ("<!-- BEGIN compat-matrix -->", "<!-- END compat-matrix -->")


class _Page(HTMLParser):
    """Collects the ids and the link targets of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("name"):
            self.ids.add(str(values["name"]))
        if tag in ("a", "link") and values.get("href") is not None:
            self.links.append(str(values["href"]))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return out


def _target(site: Path, page: Path, href: str) -> tuple[Path, str] | None:
    """The built file and fragment an internal href points to; None for an external or non-page link."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
        return None
    if not parts.path:
        return page, unquote(parts.fragment)
    # The 404 page links from the site root, since it is served at any depth.
    base = site if parts.path.startswith("/") else page.parent
    target = (base / unquote(parts.path).lstrip("/")).resolve()
    if target.is_dir() or parts.path.endswith("/"):
        target = target / "index.html"
    if not str(target).startswith(str(site.resolve())):
        return target, ""  # escapes the site: reported as missing by the caller
    return target, unquote(parts.fragment)


def test_every_internal_link_and_anchor_resolves(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 8
    parsed = {path.resolve(): _parse(path) for path in pages}
    broken: list[str] = []
    for path, page in parsed.items():
        for href in page.links:
            resolved = _target(site, path, href)
            if resolved is None:
                continue
            target, fragment = resolved
            if not target.exists() or not str(target).startswith(str(site.resolve())):
                broken.append(f"{path.relative_to(site.resolve())}: {href} (no such file)")
                continue
            if fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if fragment not in ids:
                    broken.append(f"{path.relative_to(site.resolve())}: {href} (no such anchor)")
    assert broken == [], "\n".join(broken)


def test_link_checker_reports_a_missing_anchor(tmp_path: Path) -> None:
    """The resolver itself: a fragment that names no id is caught, one that does is accepted."""
    page = tmp_path / "a" / "index.html"
    page.parent.mkdir()
    page.write_text('<h2 id="here">x</h2><a href="#here">ok</a><a href="../b/#gone">bad</a>', encoding="utf-8")
    other = tmp_path / "b" / "index.html"
    other.parent.mkdir()
    other.write_text('<h2 id="there">y</h2>', encoding="utf-8")
    assert _target(tmp_path, page, "#here") == (page, "here")
    target, fragment = _target(tmp_path, page, "../b/#gone") or (None, "")
    assert target == other.resolve() and fragment == "gone"
    assert fragment not in _parse(other).ids
    assert _target(tmp_path, page, "https://example.org/") is None


@pytest.mark.parametrize(
    ("source", "page"),
    [(SEP_PATH, "sep"), (ROOT / "sep" / "rendering.mdx", "specification")],
)
def test_the_sep_and_the_specification_are_published_whole(site: Path, source: Path, page: str) -> None:
    """Each site page is generated from its file in sep/ (scripts/gen_docs_sep.py --check keeps it current):
    every section heading of the source is on the page."""
    html = (site / page / "index.html").read_text(encoding="utf-8")
    headings = [line[3:].strip() for line in source.read_text(encoding="utf-8").splitlines() if line[:3] == "## "]
    assert len(headings) >= 9
    for heading in headings:
        assert heading.replace("&", "&amp;") in html, heading


def test_compat_matrix_markers_are_in_place() -> None:
    """The harness replaces what lies between the markers; the page holds each marker once, in order."""
    path = ROOT / "docs" / "compatibility.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    begin, end = (lines.index(marker) for marker in MARKERS)
    assert all(lines.count(marker) == 1 for marker in MARKERS), path
    assert begin < end, path


# ----------------------------------------------------------------------------------------------------- the API page

API_PAGE = ROOT / "docs" / "api.md"
_DIRECTIVE = re.compile(r"^::: (?P<path>\S+)\n(?P<options>(?:    .*\n)*)", re.M)
_KIND_RANK = {"function": 0, "class": 1, "attribute": 2}


@pytest.fixture(scope="module")
def package() -> griffe.Module:
    """The package as the API page's renderer sees it: statically, aliases resolved."""
    loaded = griffe.load("mcp_rendering", search_paths=[str(ROOT / "python_ext")], resolve_aliases=True)
    assert isinstance(loaded, griffe.Module)
    return loaded


def _lookup(package: griffe.Module, path: str) -> griffe.Object | griffe.Alias:
    found: griffe.Object | griffe.Alias = package
    for part in path.split(".")[1:]:
        found = found.members[part]
    return found


def _canonical(package: griffe.Module, path: str) -> str:
    """The path of the object that `path` names, once re-exports are followed to the defining module."""
    found = _lookup(package, path)
    return found.final_target.path if isinstance(found, griffe.Alias) else found.path


def _kind(package: griffe.Module, path: str) -> str:
    found = _lookup(package, path)
    return (found.final_target if isinstance(found, griffe.Alias) else found).kind.value


def _directives() -> list[tuple[str, list[str]]]:
    """(object path, its explicit member list) for every `:::` directive of the API page, in page order."""
    directives: list[tuple[str, list[str]]] = []
    for match in _DIRECTIVE.finditer(API_PAGE.read_text(encoding="utf-8")):
        options = yaml.safe_load(textwrap.dedent(match.group("options"))) or {}
        members = options.get("options", {}).get("members")
        assert members is False or isinstance(members, list), f"{match.group('path')}: list its members explicitly"
        directives.append((match.group("path"), members or []))
    return directives


def _public_modules(package: griffe.Module) -> list[griffe.Module]:
    found: list[griffe.Module] = []
    pending = [package]
    while pending:
        module = pending.pop()
        found.append(module)
        pending += [child for name, child in module.modules.items() if not name.startswith("_")]
    return found


def _exports(module: griffe.Module) -> list[str]:
    return [name if isinstance(name, str) else name.name for name in module.exports or ()]


def test_the_api_page_documents_every_public_name_once(package: griffe.Module) -> None:
    """Each public name is rendered by exactly one directive, in the module that defines it; each module's members
    come functions first, then classes, then the rest; and every public module and every name of every `__all__`
    (the package's re-exports included) is covered."""
    documented: dict[str, str] = {}
    duplicates: list[str] = []
    misordered: list[str] = []
    for path, members in _directives():
        entries = [path] + [f"{path}.{member}" for member in members]
        for entry in entries:
            canonical = _canonical(package, entry)
            if canonical in documented:
                duplicates.append(f"{entry} (already as {documented[canonical]})")
            documented[canonical] = entry
        ranks = [_KIND_RANK[_kind(package, f"{path}.{member}")] for member in members]
        if ranks != sorted(ranks):
            misordered.append(path)
    assert duplicates == [], "\n".join(duplicates)
    assert misordered == [], f"members not in the order functions, classes, others: {misordered}"

    uncovered: list[str] = []
    for module in _public_modules(package):
        if module.path not in documented.values():
            uncovered.append(module.path)
        for name in _exports(module):
            entry = f"{module.path}.{name}"
            if module is package and isinstance(getattr(mcp_rendering, name), FunctionType):
                # The package attribute `audit` is the function; statically the submodule shadows it.
                function = getattr(mcp_rendering, name)
                entry = f"{function.__module__}.{function.__qualname__}"
            if _canonical(package, entry) not in documented:
                uncovered.append(entry)
    assert uncovered == [], "not documented: " + ", ".join(uncovered)


def test_the_built_api_page_shows_no_object_twice(site: Path, package: griffe.Module) -> None:
    """The rendered page agrees: no two headings of modules or module members stand for the same object."""
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    headings = re.findall(r'<h\d id="(mcp_rendering[^"]*)" class="doc doc-heading', page)
    modules = {path for path in headings if _kind(package, path) == "module"}
    top_level = [path for path in headings if path in modules or path.rpartition(".")[0] in modules]
    assert len(set(top_level)) == len(top_level)
    objects = [_canonical(package, path) for path in top_level]
    twice = sorted({path for path in objects if objects.count(path) > 1})
    assert twice == []
    assert len(objects) >= 150


# ------------------------------------------------------------------------------------------------------ the styles


def test_table_code_never_breaks_inside_an_identifier(site: Path) -> None:
    """The schema reference (and every page) loads the site's style sheet, whose rule keeps code in table cells
    from breaking mid-word against the theme's `word-break: break-word`; the reference's identifiers are in such
    cells."""
    css = (site / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    rule = re.search(r"\.md-typeset td code,\s*\.md-typeset th code\s*\{(?P<body>[^}]*)\}", css)
    assert rule is not None
    body = " ".join(rule.group("body").split())
    assert "word-break: normal;" in body and "overflow-wrap: normal;" in body
    theme = next((site / "assets" / "stylesheets").glob("main.*.min.css")).read_text(encoding="utf-8")
    assert ".md-typeset code{" in theme and "word-break:break-word" in theme  # what the rule overrides
    schema = site / "reference" / "schema" / "index.html"
    html = schema.read_text(encoding="utf-8")
    links = [href for href in _parse(schema).links if href.endswith("extra.css")]
    assert links and (schema.parent / links[0]).resolve() == (site / "stylesheets" / "extra.css").resolve()
    assert html.count("<td><code>") >= 10
    assert "summarizeOkHint</code></td>" in html


def test_every_fenced_block_of_a_source_reaches_its_page_unchanged() -> None:
    """Links are rewritten in the prose of a page, never inside its code: a pattern such as `[0-9](\\.[0-9])` in the
    types is no link."""
    fence = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.M | re.S)
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        pages: dict[Path, Path] = importlib.import_module("gen_docs_sep").PAGES
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    blocks = {source: fence.findall(source.read_text(encoding="utf-8")) for source in pages}
    assert sum(map(len, blocks.values())) >= 4
    for source, target in pages.items():
        page = target.read_text(encoding="utf-8")
        for block in blocks[source]:
            assert block in page, (source.name, block[:80])
