"""Generate the pull requests to the official MCP Python SDK, one patch each.

Each pull request is a folder under `upstream/python-sdk/` (see PULL_REQUESTS) holding its added and changed files
as real files under `files/`, laid out as in the SDK's tree, its issue `ISSUE.md` and its description `PR.md`. A
pull request reviewed in parts holds each part's files under `files-<part>/`, in order: a part's files are its
state of each file after the earlier parts. This script diffs the files against the pinned release of the SDK (the
`mcp` sdist on PyPI, fetched by version and sha256), a part's against the release with the earlier parts applied,
and writes:

- `upstream/python-sdk/<folder>/<folder>.patch` (`<folder>-<part>.patch` for a part): the patch, applying with
  `git apply` to the pinned release on its own, a part after the earlier parts of its pull request (no two pull
  requests change the same file, so they also apply together);
- `upstream/python-sdk/constraints.txt`: the exact versions of the SDK's own `uv.lock`, which
  `upstream/python-sdk/check.sh` installs the SDK's development tools from.

Usage:
    python scripts/gen_sdk_patch.py            # (re)write the patches and the constraints
    python scripts/gen_sdk_patch.py --check    # exit 1 when a committed file is stale
    python scripts/gen_sdk_patch.py --fetch    # print the path of the verified sdist (downloading it once)
    python scripts/gen_sdk_patch.py --list     # print each patch's path under upstream/python-sdk/, in order

Exit status: 0 done (or current), 1 stale (only with --check), 2 any other error (the sdist cannot be fetched or
verified, two pull requests change one file, a file is malformed), so that a caller can tell "regenerate" from
"broken".
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import generated

REPO_ROOT = Path(__file__).resolve().parent.parent
SDK_DIR = REPO_ROOT / "upstream" / "python-sdk"
CONSTRAINTS = SDK_DIR / "constraints.txt"
CACHE_DIR = REPO_ROOT / ".cache" / "upstream"

SDIST_NAME = "mcp"
SDIST_VERSION = "2.3.0"
SDIST_SHA256 = "8b147a50441cf059dc88c684e0aeed3687f0aa0f39c6cde7b90330effd2b34d8"
AUTHOR = "mcp-rendering maintainers <maintainers@mcp-rendering.invalid>"


@dataclass(frozen=True)
class PullRequest:
    folder: str
    subject: str
    body: str
    part: str | None = None
    """The part's name when the pull request is reviewed in parts (`1-server`), applied in PULL_REQUESTS order."""

    @property
    def files(self) -> Path:
        return SDK_DIR / self.folder / ("files" if self.part is None else f"files-{self.part}")

    @property
    def patch(self) -> Path:
        return (
            SDK_DIR
            / self.folder
            / (f"{self.folder}.patch" if self.part is None else f"{self.folder}-{self.part}.patch")
        )


EXIT_STALE = 1
EXIT_ERROR = 2


class GenError(Exception):
    """Anything that stops a patch from being rendered or checked (as opposed to a stale patch)."""


PULL_REQUESTS = (
    PullRequest(
        folder="keep-extensions",
        subject="Keep capabilities.extensions in the handshake-era initialize result",
        body=(
            "The handshake-era wire schemas have no ServerCapabilities.extensions, so the per-version\n"
            "sieve dropped the SEP-2133 map from the initialize result, and a client on 2024-11-05,\n"
            "2025-03-26, 2025-06-18 or 2025-11-25 never saw the extensions a server advertises (MCP Apps\n"
            "included). ServerCapabilities is open in those schemas, so ServerRunner now keeps the map\n"
            "beside the members the schema defines. One test of the raw initialize result under each\n"
            "handshake-era version replaces the three that pinned the gap, and docs/advanced/extensions.md\n"
            "says where each era reads the map."
        ),
    ),
    PullRequest(
        folder="stdio-buffer",
        subject="Join a long stdio line once, not on every chunk",
        body=(
            "stdio_client re-joined and re-split the unfinished line on every chunk read from the\n"
            "server's stdout: time quadratic in the length of a long message. The pieces are now kept\n"
            "apart and joined once, when the chunk holding the line's newline arrives. Framing is\n"
            "unchanged."
        ),
    ),
    PullRequest(
        folder="rendering",
        part="1-server",
        subject="Add the provisional rendering extension for servers (io.modelcontextprotocol/rendering)",
        body=(
            "mcp.server.rendering: the Rendering extension, in the shape of mcp.server.apps: tool hints\n"
            "under _meta, a default directive stamped on successful results, and with_directive for a\n"
            "per-call directive. Off unless a server passes Rendering() to MCPServer(extensions=[...]).\n"
            "docs/advanced/rendering.md with its docs_src/rendering/ tutorials and their test."
        ),
    ),
    PullRequest(
        folder="rendering",
        part="2-client",
        subject="Add a host's reading of the rendering extension (mcp.client.rendering)",
        body=(
            "mcp.client.rendering: read_rendering, a host's fail-safe reading of the tool hints and the\n"
            "result directive as the extension's reading tables give, and RENDERING_SUPPORT, the client's\n"
            "declaration. The docs page gains its host section and that tutorial."
        ),
    ),
)


def fetch_sdist() -> Path:
    """The pinned sdist, downloaded once with pip (hash-checked) into the cache, verified on every use."""
    try:
        return generated.fetch_sdist(
            SDIST_NAME, SDIST_VERSION, SDIST_SHA256, CACHE_DIR / f"{SDIST_NAME}-{SDIST_VERSION}.tar.gz"
        )
    except generated.SdistError as error:
        raise GenError(str(error)) from error


def _sdist_text(sdist: Path, paths: set[str]) -> dict[str, str]:
    return generated.sdist_texts(sdist, f"{SDIST_NAME}-{SDIST_VERSION}", paths)


def file_diff(path: str, old: str | None, new: str) -> str:
    if old is None and not new:
        return f"diff --git a/{path} b/{path}\nnew file mode 100644\n"
    if not new.endswith("\n"):
        raise GenError(f"{path} must end with a newline")
    new_lines = new.splitlines(keepends=True)
    if old is None:
        header = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        return header + f"@@ -0,0 +1,{len(new_lines)} @@\n" + "".join(f"+{line}" for line in new_lines)
    hunks = "".join(difflib.unified_diff(old.splitlines(keepends=True), new_lines, f"a/{path}", f"b/{path}", n=3))
    if not hunks:
        raise GenError(f"{path} is unchanged (identical to the SDK's, or to an earlier part's); remove it from files/")
    return f"diff --git a/{path} b/{path}\n" + hunks


def render_patches(sdist: Path) -> dict[Path, str]:
    """Every pull request's patch (each part's), by its path."""
    owners: dict[str, str] = {}
    listed: dict[PullRequest, list[str]] = {}
    for request in PULL_REQUESTS:
        listed[request] = sorted(
            p.relative_to(request.files).as_posix() for p in request.files.rglob("*") if p.is_file()
        )
        if not listed[request]:
            raise GenError(f"{request.files} holds no file")
        for path in listed[request]:
            if owners.get(path, request.folder) != request.folder:
                raise GenError(f"{path} is changed by both {owners[path]} and {request.folder}")
            owners[path] = request.folder
    sdist_texts = _sdist_text(sdist, set(owners))
    rendered: dict[Path, str] = {}
    after_parts: dict[str, dict[str, str]] = {}  # by folder: each file as the parts rendered so far leave it
    for request, paths in listed.items():
        originals = {**sdist_texts, **after_parts.get(request.folder, {})}
        news = {path: (request.files / path).read_text("utf-8") for path in paths}
        after_parts.setdefault(request.folder, {}).update(news)
        diffs = "".join(file_diff(path, originals.get(path), news[path]) for path in paths)
        rendered[request.patch] = f"From: {AUTHOR}\nSubject: [PATCH] {request.subject}\n\n{request.body}\n---\n{diffs}"
    return rendered


def render_constraints(sdist: Path) -> str:
    """The registry packages of the SDK's uv.lock that have one locked version, pinned exactly."""
    # tomllib is 3.11+; the scripts run on 3.11, the package supports 3.10.
    lock = importlib.import_module("tomllib").loads(_sdist_text(sdist, {"uv.lock"})["uv.lock"])
    versions: dict[str, set[str]] = {}
    for package in lock["package"]:
        if "version" in package and "registry" in package.get("source", {}):
            versions.setdefault(package["name"], set()).add(package["version"])
    pins = "".join(f"{name}=={next(iter(found))}\n" for name, found in sorted(versions.items()) if len(found) == 1)
    return (
        f"# Generated by scripts/gen_sdk_patch.py from the uv.lock of {SDIST_NAME} {SDIST_VERSION}; do not edit.\n"
        "# The versions the SDK's own CI uses, for its development tools in upstream/python-sdk/check.sh.\n" + pins
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when a committed file is stale")
    group.add_argument("--fetch", action="store_true", help="print the path of the verified sdist")
    group.add_argument("--list", action="store_true", help="print each patch's path under upstream/python-sdk/")
    args = parser.parse_args()
    if args.list:
        print("\n".join(request.patch.relative_to(SDK_DIR).as_posix() for request in PULL_REQUESTS))
        return 0

    sdist = fetch_sdist()
    if args.fetch:
        print(sdist)
        return 0
    expected = {**render_patches(sdist), CONSTRAINTS: render_constraints(sdist)}
    stray = sorted(set(SDK_DIR.glob("*/*.patch")) - set(expected))
    if args.check:
        stale = [path for path, text in expected.items() if not path.exists() or path.read_text("utf-8") != text]
        for path in [*stale, *stray]:
            print(f"gen_sdk_patch: {path.relative_to(REPO_ROOT)} is stale; run python scripts/gen_sdk_patch.py")
        return EXIT_STALE if stale or stray else 0
    for path in stray:
        path.unlink()
    for path, text in expected.items():
        path.write_text(text, encoding="utf-8")
    return 0


def _run() -> int:
    try:
        return main()
    except GenError as error:
        print(f"gen_sdk_patch: error (not a stale patch): {error}", file=sys.stderr)
    except Exception:  # an unexpected failure must not exit 1, which means "stale"
        traceback.print_exc()
        print("gen_sdk_patch: error (not a stale patch): unexpected failure above", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(_run())
