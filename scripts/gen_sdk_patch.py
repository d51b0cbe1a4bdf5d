"""Generate the pull requests to the official MCP Python SDK, one patch each.

Each pull request is a folder under `upstream/python-sdk/` (see PULL_REQUESTS) holding its issue `ISSUE.md`, its
description `PR.md` and its changes, laid out as in the SDK's tree (see scripts/upstream_changes.py): `files/`, the
files it adds, whole, and `changes/`, one `<path>.diff` per file of the release it changes (that file's hunks). The
SDK's own files are never kept whole. A pull request reviewed in parts holds each part's under `files-<part>/` and
`changes-<part>/`, in order: a part's diffs are against the release with the earlier parts applied. This script
applies the diffs to the pinned release of the SDK (the `mcp` sdist on PyPI, fetched by version and sha256) and
writes:

- `upstream/python-sdk/<folder>/<folder>.patch` (`<folder>-<part>.patch` for a part): the patch, applying with
  `git apply` to the pinned release on its own, a part after the earlier parts of its pull request (no two pull
  requests change the same file, so they also apply together);
- `upstream/python-sdk/constraints.txt`: the exact versions of the SDK's own `uv.lock`, which
  `upstream/python-sdk/check.sh` installs the SDK's development tools from.

Usage:
    python scripts/gen_sdk_patch.py            # (re)write the patches, the constraints and any non-canonical diff
    python scripts/gen_sdk_patch.py --check    # exit 1 when a committed file is stale
    python scripts/gen_sdk_patch.py --fetch    # print the path of the verified sdist (downloading it once)
    python scripts/gen_sdk_patch.py --list     # print each patch's path under upstream/python-sdk/, in order
    python scripts/gen_sdk_patch.py --unpack DIR --part NAME  # the release with that patch applied (and its pull
                                                              # request's earlier parts committed), a git repository
    python scripts/gen_sdk_patch.py --repack DIR --part NAME  # rewrite its files and diffs from DIR, then the patches

NAME is a patch's name without `.patch` (`stdio-buffer`, `rendering-2-client`).

Exit status: 0 done (or current), 1 stale (only with --check), 2 any other error (the sdist cannot be fetched or
verified, two pull requests change one file, a file is malformed, a diff does not apply), so that a caller can tell
"regenerate" from "broken".
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import generated
import upstream_changes
from upstream_changes import file_diff

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
    def dirs(self) -> upstream_changes.Part:
        suffix = "" if self.part is None else f"-{self.part}"
        return upstream_changes.Part(
            SDK_DIR / self.folder / f"files{suffix}", SDK_DIR / self.folder / f"changes{suffix}"
        )

    @property
    def files(self) -> Path:
        return self.dirs.files

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


def render_patches(sdist: Path) -> tuple[dict[Path, str], dict[Path, str]]:
    """Every pull request's patch (each part's), by its path, and the canonical text of each committed diff that
    differs from it."""
    owners: dict[str, str] = {}
    listed: dict[PullRequest, list[str]] = {}
    for request in PULL_REQUESTS:
        listed[request] = request.dirs.paths()
        if not listed[request]:
            raise GenError(f"{request.files} and {request.dirs.changes} hold no file")
        for path in listed[request]:
            if owners.get(path, request.folder) != request.folder:
                raise GenError(f"{path} is changed by both {owners[path]} and {request.folder}")
            owners[path] = request.folder
    sdist_texts = _sdist_text(sdist, set(owners))
    rendered: dict[Path, str] = {}
    stale: dict[Path, str] = {}
    after_parts: dict[str, dict[str, str]] = {}  # by folder: each file as the parts rendered so far leave it
    for request, paths in listed.items():
        originals = {**sdist_texts, **after_parts.get(request.folder, {})}
        try:
            news = upstream_changes.state(request.dirs, originals, sdist_texts)
            stale |= upstream_changes.stale_changes(request.dirs, originals, news)
            diffs = "".join(file_diff(path, originals.get(path), news[path]) for path in paths)
        except upstream_changes.ChangesError as error:
            raise GenError(str(error)) from error
        after_parts.setdefault(request.folder, {}).update(news)
        rendered[request.patch] = f"From: {AUTHOR}\nSubject: [PATCH] {request.subject}\n\n{request.body}\n---\n{diffs}"
    return rendered, stale


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


def _unpack_or_repack(sdist: Path, args: argparse.Namespace) -> int:
    names = {request.patch.stem: request for request in PULL_REQUESTS}
    if args.part not in names:
        raise GenError(f"--part must be one of: {', '.join(names)}")
    request = names[args.part]
    if args.repack:
        try:
            upstream_changes.repack(args.repack, request.dirs)
        except upstream_changes.ChangesError as error:
            raise GenError(str(error)) from error
        return write(sdist)
    rendered, _ = render_patches(sdist)
    earlier = [other for other in PULL_REQUESTS[: PULL_REQUESTS.index(request)] if other.folder == request.folder]
    try:
        upstream_changes.unpack(
            args.unpack,
            upstream_changes.tar_extractor(sdist),
            [rendered[other.patch] for other in earlier],
            rendered[request.patch],
        )
    except upstream_changes.ChangesError as error:
        raise GenError(str(error)) from error
    print(f"gen_sdk_patch: unpacked into {args.unpack}; edit there, then --repack {args.unpack} --part {args.part}")
    return 0


def _expected(sdist: Path) -> tuple[dict[Path, str], dict[Path, str]]:
    patches, stale = render_patches(sdist)
    return {**patches, CONSTRAINTS: render_constraints(sdist)}, stale


def write(sdist: Path) -> int:
    expected, stale = _expected(sdist)
    for path in sorted(set(SDK_DIR.glob("*/*.patch")) - set(expected)):
        path.unlink()
    for path, text in {**stale, **expected}.items():
        path.write_text(text, encoding="utf-8")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when a committed file is stale")
    group.add_argument("--fetch", action="store_true", help="print the path of the verified sdist")
    group.add_argument("--list", action="store_true", help="print each patch's path under upstream/python-sdk/")
    group.add_argument("--unpack", metavar="DIR", type=Path, help="write the patched release into DIR (a new folder)")
    group.add_argument("--repack", metavar="DIR", type=Path, help="rewrite a part's files and diffs from DIR")
    parser.add_argument("--part", metavar="NAME", help="the patch to unpack or repack, its name without .patch")
    args = parser.parse_args()
    if args.list:
        print("\n".join(request.patch.relative_to(SDK_DIR).as_posix() for request in PULL_REQUESTS))
        return 0
    if (args.unpack or args.repack) and not args.part:
        parser.error("--unpack and --repack need --part")

    sdist = fetch_sdist()
    if args.fetch:
        print(sdist)
        return 0
    if args.unpack or args.repack:
        return _unpack_or_repack(sdist, args)
    if not args.check:
        return write(sdist)
    expected, stale_diffs = _expected(sdist)
    stray = sorted(set(SDK_DIR.glob("*/*.patch")) - set(expected))
    stale = [path for path, text in expected.items() if not path.exists() or path.read_text("utf-8") != text]
    for path in [*stale, *stray, *stale_diffs]:
        print(f"gen_sdk_patch: {path.relative_to(REPO_ROOT)} is stale; run python scripts/gen_sdk_patch.py")
    return EXIT_STALE if stale or stray or stale_diffs else 0


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
