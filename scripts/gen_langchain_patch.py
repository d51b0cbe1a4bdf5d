"""Generate the patch of the pull request to `langchain-mcp-adapters` (honour the `verbatimHint` of MCP tools).

The changed and added files live as real files under `upstream/langchain-mcp-adapters/files/`, laid out as in the
project's tree. This script diffs them against the pinned release (the sdist on PyPI, fetched by version and
sha256) and writes `upstream/langchain-mcp-adapters/patches/0001-honor-verbatim-hint.patch`, which applies with
`git apply` (`upstream/langchain-mcp-adapters/check.sh` applies it and runs the project's own tests and linters).

Usage:
    python scripts/gen_langchain_patch.py            # (re)write the patch
    python scripts/gen_langchain_patch.py --check    # exit 1 when the committed patch is stale
    python scripts/gen_langchain_patch.py --fetch    # print the path of the verified sdist (downloading it once)

Exit status: 0 done (or current), 1 stale (only with --check), 2 any other error.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

import generated

REPO_ROOT = Path(__file__).resolve().parent.parent
PROJECT_DIR = REPO_ROOT / "upstream" / "langchain-mcp-adapters"
FILES_DIR = PROJECT_DIR / "files"
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
    "blocks named), so that the agent's final message reads as the result. An error result goes\n"
    "back to the agent's model instead, as the errors of other tools do. Off by default."
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


def _file_diff(path: str, old: str | None, new: str) -> str:
    if not new.endswith("\n"):
        raise GenError(f"{FILES_DIR / path} must end with a newline")
    new_lines = new.splitlines(keepends=True)
    if old is None:
        header = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        return header + f"@@ -0,0 +1,{len(new_lines)} @@\n" + "".join(f"+{line}" for line in new_lines)
    hunks = "".join(difflib.unified_diff(old.splitlines(keepends=True), new_lines, f"a/{path}", f"b/{path}", n=3))
    if not hunks:
        raise GenError(f"{FILES_DIR / path} is identical to the release's; remove it from files/")
    return f"diff --git a/{path} b/{path}\n" + hunks


def render(sdist: Path) -> str:
    """The patch, in `git format-patch` form."""
    paths = sorted(p.relative_to(FILES_DIR).as_posix() for p in FILES_DIR.rglob("*") if p.is_file())
    originals = _originals(sdist, set(paths))
    diffs = "".join(_file_diff(path, originals.get(path), (FILES_DIR / path).read_text("utf-8")) for path in paths)
    return f"From: {AUTHOR}\nSubject: [PATCH] {SUBJECT}\n\n{BODY}\n---\n{diffs}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when the committed patch is stale")
    group.add_argument("--fetch", action="store_true", help="print the path of the verified sdist")
    args = parser.parse_args(argv)
    try:
        sdist = fetch_sdist()
        if args.fetch:
            print(sdist)
            return 0
        text = render(sdist)
    except GenError as error:
        print(f"gen_langchain_patch.py: {error}", file=sys.stderr)
        return EXIT_ERROR
    current = PATCH.read_text(encoding="utf-8") if PATCH.exists() else None
    if args.check:
        if current != text:
            print(f"gen_langchain_patch.py: {PATCH.relative_to(REPO_ROOT)} is stale", file=sys.stderr)
            return EXIT_STALE
        return 0
    if current != text:
        PATCH.parent.mkdir(parents=True, exist_ok=True)
        PATCH.write_text(text, encoding="utf-8")
        print(f"gen_langchain_patch.py: wrote {PATCH.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
