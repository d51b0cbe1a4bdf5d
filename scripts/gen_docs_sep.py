"""Publish the SEP, the two extension specifications and the promotion draft on the documentation site.

The files of `sep/` are written for the repositories they are proposed to, where they link to each other and to
files beside them. The site has other paths, so this generator copies each to its page under `docs/` with its links
rewritten: the documents point at each other's page, `../docs/<page>.md` becomes `<page>.md`, and a link to any
other repository file becomes its path in code type (the site does not publish it). The MDX front matter is
dropped, and the MDX `<Info>` header becomes a quotation.

Usage:
    python scripts/gen_docs_sep.py            # rewrite the pages
    python scripts/gen_docs_sep.py --check    # exit 1 when a page is out of date
"""

from __future__ import annotations

import argparse
import re
import sys

from generated import ROOT, write_or_check

SEP = ROOT / "sep" / "0000-rendering-directives.md"
SPEC = ROOT / "sep" / "rendering.mdx"
CONTINUATION = ROOT / "sep" / "result-continuation.mdx"
PROMOTION = ROOT / "sep" / "0000-rendering-core-fields.md"
PAGES = {
    SEP: ROOT / "docs" / "sep.md",
    SPEC: ROOT / "docs" / "specification.md",
    CONTINUATION: ROOT / "docs" / "result-continuation.md",
    PROMOTION: ROOT / "docs" / "promotion.md",
}
_SITE_NAMES = {source.name: page.name for source, page in PAGES.items()}

_LINK = re.compile(r"\[(?P<text>[^\]\n]+)\]\((?P<target>[^)\s]+)\)")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n+", re.S)
_INFO = re.compile(r"^<Info>(.*)</Info>$", re.M)
_FENCE = re.compile(r"(^```[^\n]*\n.*?^```[ \t]*$)", re.M | re.S)


def _site_link(match: re.Match[str]) -> str:
    text, target = match.group("text"), match.group("target")
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
        return match.group(0)  # absolute URLs and anchors stay as they are
    path, _, anchor = target.partition("#")
    fragment = f"#{anchor}" if anchor else ""
    if path in _SITE_NAMES:
        return f"[{text}]({_SITE_NAMES[path]}{fragment})"
    if path.startswith("../docs/"):
        return f"[{text}]({path.removeprefix('../docs/')}{fragment})"
    # A repository file the site does not publish: name it instead of linking to nothing.
    named = f"`sep/{path}`" if not path.startswith("../") else f"`{path.removeprefix('../')}`"
    return named if text.strip("`") == path else f"{text} ({named})"


def page(source_text: str, source_name: str) -> str:
    """The site page made from one source document."""
    body = _INFO.sub(r"> \1", _FRONT_MATTER.sub("", source_text))
    notice = f"<!-- Generated from sep/{source_name} by scripts/gen_docs_sep.py; do not edit by hand. -->\n\n"
    # Links are rewritten in the prose only: a fenced code block (the types, a pattern) is copied as it is.
    parts = _FENCE.split(body)
    return notice + "".join(part if part.startswith("```") else _LINK.sub(_site_link, part) for part in parts)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if a page is out of date; write nothing")
    args = parser.parse_args(argv)
    files = {target: page(source.read_text(encoding="utf-8"), source.name) for source, target in PAGES.items()}
    return write_or_check(files, check=args.check, generator="gen_docs_sep.py")


if __name__ == "__main__":
    sys.exit(main())
