"""The published site holds documentation only, and every page carries the site navigation at desktop width.

Built once for this module, as `scripts/test.sh` and the docs workflow build it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PUBLISHED_SUFFIXES = {".html", ".css", ".js", ".map", ".json", ".xml", ".gz", ".inv", ".svg", ".png", ".ico", ".woff2"}
"""What a documentation site is made of; anything else in the build (a tool's configuration, a script) is a leak."""

_PRIMARY_SIDEBAR = re.compile(r'<div class="md-sidebar md-sidebar--primary"[^>]*>')


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)]
    subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=240)
    return out


def test_nothing_but_documentation_is_published(site: Path) -> None:
    leaked = sorted(
        str(path.relative_to(site))
        for path in site.rglob("*")
        if path.is_file() and path.suffix not in PUBLISHED_SUFFIXES
    )
    assert leaked == []


def test_every_page_has_the_site_navigation(site: Path) -> None:
    pages = sorted(site.rglob("index.html"))
    assert len(pages) >= 10
    for page in pages:
        html = page.read_text(encoding="utf-8")
        sidebars = _PRIMARY_SIDEBAR.findall(html)
        assert len(sidebars) == 1, page
        # Material marks a page's navigation `hidden` when its front matter hides it.
        assert not re.search(r"\bhidden\b", sidebars[0]), page
