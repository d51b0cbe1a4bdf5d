"""Generate the pull requests to the official MCP Python SDK, one patch each.

Each pull request is a folder under `upstream/python-sdk/` (see PULL_REQUESTS) holding its added and changed files
as real files under `files/`, laid out as in the SDK's tree, and its description `PR.md`. This script diffs the
files against the pinned release of the SDK (the `mcp` sdist on PyPI, fetched by version and sha256) and writes:

- `upstream/python-sdk/<folder>/<folder>.patch`: the pull request's patch, applying with `git apply` to the pinned
  release on its own (no two pull requests change the same file, so they also apply together);
- `upstream/python-sdk/constraints.txt`: the exact versions of the SDK's own `uv.lock`, which
  `upstream/python-sdk/check.sh` installs the SDK's development tools from.

Usage:
    python scripts/gen_sdk_patch.py            # (re)write the patches and the constraints
    python scripts/gen_sdk_patch.py --check    # exit 1 when a committed file is stale
    python scripts/gen_sdk_patch.py --fetch    # print the path of the verified sdist (downloading it once)
    python scripts/gen_sdk_patch.py --list     # print each pull request's folder, in order

Exit status: 0 done (or current), 1 stale (only with --check), 2 any other error (the sdist cannot be fetched or
verified, two pull requests change one file, a file is malformed), so that a caller can tell "regenerate" from
"broken".
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import importlib
import subprocess
import sys
import tarfile
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

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

    @property
    def files(self) -> Path:
        return SDK_DIR / self.folder / "files"

    @property
    def patch(self) -> Path:
        return SDK_DIR / self.folder / f"{self.folder}.patch"


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
            "beside the members the schema defines. The tests that pinned the gap now pin the map, and\n"
            "docs/advanced/extensions.md says where each era reads it."
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
        subject="Add the provisional rendering extension (io.modelcontextprotocol/rendering)",
        body=(
            "mcp.server.rendering: the Rendering extension, in the shape of mcp.server.apps: tool hints\n"
            "under _meta, a default directive stamped on successful results, with_directive and\n"
            "client_supports_rendering. mcp.client.rendering: read_rendering, a host's fail-safe reading\n"
            "of both carriers. Off unless a server passes Rendering() to MCPServer(extensions=[...]).\n"
            "docs/advanced/rendering.md with its docs_src/rendering/ tutorials and their test."
        ),
    ),
)


def fetch_sdist() -> Path:
    """The pinned sdist, downloaded once with pip (hash-checked) into the cache, verified on every use."""
    target = CACHE_DIR / f"{SDIST_NAME}-{SDIST_VERSION}.tar.gz"
    if not target.exists():
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as scratch:
            requirement = Path(scratch) / "requirement.txt"
            requirement.write_text(f"{SDIST_NAME}=={SDIST_VERSION} --hash=sha256:{SDIST_SHA256}\n", encoding="utf-8")
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
            command += ["--require-hashes", "-r", str(requirement), "-d", scratch]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise GenError(f"pip could not download {SDIST_NAME}=={SDIST_VERSION}:\n{done.stderr}")
            (Path(scratch) / target.name).replace(target)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        raise GenError(f"{target} has sha256 {digest}, expected {SDIST_SHA256}; delete it and rerun")
    return target


def _sdist_text(sdist: Path, paths: set[str]) -> dict[str, str]:
    prefix = f"{SDIST_NAME}-{SDIST_VERSION}/"
    found: dict[str, str] = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            path = member.name.removeprefix(prefix)
            if path in paths and member.isfile():
                extracted = archive.extractfile(member)
                assert extracted is not None
                found[path] = extracted.read().decode("utf-8")
    return found


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
        raise GenError(f"{path} is identical to the SDK's; remove it from files/")
    return f"diff --git a/{path} b/{path}\n" + hunks


def render_patches(sdist: Path) -> dict[Path, str]:
    """Every pull request's patch, by its path."""
    owners: dict[str, str] = {}
    listed: dict[PullRequest, list[str]] = {}
    for request in PULL_REQUESTS:
        listed[request] = sorted(
            p.relative_to(request.files).as_posix() for p in request.files.rglob("*") if p.is_file()
        )
        if not listed[request]:
            raise GenError(f"{request.files} holds no file")
        for path in listed[request]:
            if path in owners:
                raise GenError(f"{path} is changed by both {owners[path]} and {request.folder}")
            owners[path] = request.folder
    originals = _sdist_text(sdist, set(owners))
    rendered: dict[Path, str] = {}
    for request, paths in listed.items():
        diffs = "".join(
            file_diff(path, originals.get(path), (request.files / path).read_text("utf-8")) for path in paths
        )
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
    group.add_argument("--list", action="store_true", help="print each pull request's folder, in order")
    args = parser.parse_args()
    if args.list:
        print("\n".join(request.folder for request in PULL_REQUESTS))
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
