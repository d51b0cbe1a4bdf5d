"""Generate the patch of the pull request to `langchain-mcp-adapters` (honour the `verbatimHint` of MCP tools).

The release's own files are not committed: under `upstream/langchain-mcp-adapters/`, `files/` holds the files the
pull request adds, whole, and `changes/` one `<path>.diff` per file of the release it changes (that file's hunks in
the patch), laid out as in the project's tree (see scripts/upstream_changes.py). This script applies the diffs to
the pinned release (the sdist on PyPI, fetched by version and sha256) and writes
`upstream/langchain-mcp-adapters/patches/0001-honor-verbatim-hint.patch`, which applies with `git apply`
(`upstream/langchain-mcp-adapters/check.sh` applies it and runs the project's own tests and linters).

Usage:
    python scripts/gen_langchain_patch.py              # (re)write the patch (and any diff not in canonical form)
    python scripts/gen_langchain_patch.py --check      # exit 1 when the committed patch or a diff is stale
    python scripts/gen_langchain_patch.py --fetch      # print the path of the verified sdist (downloading it once)
    python scripts/gen_langchain_patch.py --unpack DIR # the release with the patch applied, as a git repository
    python scripts/gen_langchain_patch.py --repack DIR # rewrite files/ and changes/ from DIR, then the patch

Exit status: 0 done (or current), 1 stale (only with --check), 2 any other error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import generated
import upstream_changes

REPO_ROOT = Path(__file__).resolve().parent.parent
PROJECT_DIR = REPO_ROOT / "upstream" / "langchain-mcp-adapters"
PART = upstream_changes.Part(PROJECT_DIR / "files", PROJECT_DIR / "changes")
PATCH = PROJECT_DIR / "patches" / "0001-honor-verbatim-hint.patch"
CACHE_DIR = REPO_ROOT / ".cache" / "upstream"

SDIST_NAME = "langchain_mcp_adapters"
REQUIREMENT = "langchain-mcp-adapters"
SDIST_VERSION = "0.3.2"
SDIST_SHA256 = "61cd1a09597adb619a9bafb0642938ffc2a9463d699a753f7af0420ea46c381a"
AUTHOR = "mcp-rendering"
SUBJECT = "Honor the verbatimHint of MCP tools with return_direct and one text"
BODY = (
    'A server can mark a tool verbatimHint (in _meta["io.modelcontextprotocol/rendering"]): its\n'
    "results are to reach the user whole, not rewritten by a model. With honor_verbatim_hint=True\n"
    "(load_mcp_tools, convert_mcp_tool_to_langchain_tool, MultiServerMCPClient), such a tool is\n"
    "return_direct and its successful result is one text (blocks separated by blank lines, other\n"
    "blocks named), so that the agent's final message reads as the result. An error result is\n"
    "handled as for any other tool (handle_tool_errors). Off by default."
)

EXIT_STALE = 1
EXIT_ERROR = 2


class GenError(Exception):
    """Anything that stops the patch from being rendered (as opposed to a stale patch)."""


def fetch_sdist() -> Path:
    """The pinned sdist, downloaded once with pip (hash-checked) into the cache, verified on every use."""
    try:
        return generated.fetch_sdist(
            REQUIREMENT, SDIST_VERSION, SDIST_SHA256, CACHE_DIR / f"{SDIST_NAME}-{SDIST_VERSION}.tar.gz"
        )
    except generated.SdistError as error:
        raise GenError(str(error)) from error


def _originals(sdist: Path, paths: set[str]) -> dict[str, str]:
    return generated.sdist_texts(sdist, f"{SDIST_NAME}-{SDIST_VERSION}", paths)


def render(sdist: Path) -> tuple[str, dict[Path, str]]:
    """The patch, in `git format-patch` form, and the canonical text of each committed diff that differs from it."""
    originals = _originals(sdist, set(PART.paths()))
    try:
        after = upstream_changes.state(PART, originals, originals)
        diffs = "".join(upstream_changes.file_diff(path, originals.get(path), after[path]) for path in sorted(after))
        stale = upstream_changes.stale_changes(PART, originals, after)
    except upstream_changes.ChangesError as error:
        raise GenError(str(error)) from error
    return f"From: {AUTHOR}\nSubject: [PATCH] {SUBJECT}\n\n{BODY}\n---\n{diffs}", stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when the committed patch or a diff is stale")
    group.add_argument("--fetch", action="store_true", help="print the path of the verified sdist")
    group.add_argument("--unpack", metavar="DIR", type=Path, help="write the patched release into DIR (a new folder)")
    group.add_argument("--repack", metavar="DIR", type=Path, help="rewrite files/ and changes/ from an unpacked DIR")
    args = parser.parse_args(argv)
    try:
        sdist = fetch_sdist()
        if args.fetch:
            print(sdist)
            return 0
        if args.repack:
            upstream_changes.repack(args.repack, PART)
        text, stale = render(sdist)
        if args.unpack:
            upstream_changes.unpack(args.unpack, upstream_changes.tar_extractor(sdist), [], text)
            print(f"gen_langchain_patch.py: unpacked into {args.unpack}; edit there, then --repack {args.unpack}")
            return 0
    except (GenError, upstream_changes.ChangesError) as error:
        print(f"gen_langchain_patch.py: {error}", file=sys.stderr)
        return EXIT_ERROR
    current = PATCH.read_text(encoding="utf-8") if PATCH.exists() else None
    if args.check:
        for path in [*([PATCH] if current != text else []), *stale]:
            print(f"gen_langchain_patch.py: {path.relative_to(REPO_ROOT)} is stale", file=sys.stderr)
        return EXIT_STALE if current != text or stale else 0
    for path, canonical in stale.items():
        path.write_text(canonical, encoding="utf-8")
        print(f"gen_langchain_patch.py: wrote {path.relative_to(REPO_ROOT)}")
    if current != text:
        PATCH.parent.mkdir(parents=True, exist_ok=True)
        PATCH.write_text(text, encoding="utf-8")
        print(f"gen_langchain_patch.py: wrote {PATCH.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
