"""The documentation site builds in strict mode, includes the SEP, and has no broken internal link or anchor.

The site is built once for this module into a temporary directory; every `href` of every generated page that points
inside the site is resolved against the built files, and its `#fragment`, if any, against the ids of the target.
"""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

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


def test_sep_page_includes_the_whole_sep(site: Path) -> None:
    """The SEP page is the file in sep/ included at build time, not a copy that can drift."""
    html = (site / "sep" / "index.html").read_text(encoding="utf-8")
    headings = [line[3:].strip() for line in SEP_PATH.read_text(encoding="utf-8").splitlines() if line[:3] == "## "]
    assert len(headings) >= 9
    for heading in headings:
        assert heading.replace("&", "&amp;") in html, heading


def test_compat_matrix_markers_are_in_place() -> None:
    """The harness replaces what lies between the markers; each file holds each marker once, in order."""
    for path in (SEP_PATH, ROOT / "docs" / "compatibility.md"):
        lines = path.read_text(encoding="utf-8").splitlines()
        begin, end = (lines.index(marker) for marker in MARKERS)
        assert all(lines.count(marker) == 1 for marker in MARKERS), path
        assert begin < end, path
