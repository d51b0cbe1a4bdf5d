"""Generate the patch series of the pull request to the official MCP Python SDK.

The added and changed files live as real files under `upstream/python-sdk/files/`, laid out as in the SDK's tree.
This script diffs them against the pinned release of the SDK (the `mcp` sdist on PyPI, fetched by version and
sha256) and writes:

- `upstream/python-sdk/patches/NNNN-*.patch`: the series, each applying with `git apply` in order;
- `upstream/python-sdk/constraints.txt`: the exact versions of the SDK's own `uv.lock`, which
  `upstream/python-sdk/check.sh` installs the SDK's development tools from.

Usage:
    python scripts/gen_sdk_patch.py            # (re)write the series and the constraints
    python scripts/gen_sdk_patch.py --check    # exit 1 when a committed file is stale
    python scripts/gen_sdk_patch.py --fetch    # print the path of the verified sdist (downloading it once)

Exit status: 0 done (or current), 1 stale (only with --check), 2 any other error (the sdist cannot be fetched or
verified, files/ and SERIES disagree, a file is malformed), so that a caller can tell "regenerate" from "broken".
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
FILES_DIR = SDK_DIR / "files"
PATCHES_DIR = SDK_DIR / "patches"
CONSTRAINTS = SDK_DIR / "constraints.txt"
CACHE_DIR = REPO_ROOT / ".cache" / "upstream"

SDIST_NAME = "mcp"
SDIST_VERSION = "2.3.0"
SDIST_SHA256 = "8b147a50441cf059dc88c684e0aeed3687f0aa0f39c6cde7b90330effd2b34d8"
AUTHOR = "mcp-rendering maintainers <maintainers@mcp-rendering.invalid>"


@dataclass(frozen=True)
class Patch:
    name: str
    subject: str
    body: str
    paths: tuple[str, ...]


EXIT_STALE = 1
EXIT_ERROR = 2


class GenError(Exception):
    """Anything that stops the series from being rendered or checked (as opposed to a stale series)."""


SERIES = (
    Patch(
        name="0001-keep-extensions-in-legacy-initialize.patch",
        subject="Keep capabilities.extensions in the handshake-era initialize result",
        body=(
            "The 2025 wire schemas have no ServerCapabilities.extensions, so the per-version sieve\n"
            "dropped the SEP-2133 map from the initialize result and a legacy client never saw the\n"
            "extensions a server advertises (MCP Apps included). ServerCapabilities is open in those\n"
            "schemas, so ServerRunner now keeps the map beside the members the schema defines.\n"
            "The tests that pinned the gap now pin the map's presence."
        ),
        paths=(
            "src/mcp/server/runner.py",
            "tests/server/test_runner.py",
            "tests/server/test_extensions_capability.py",
            "tests/server/test_apps.py",
            "tests/server/mcpserver/test_extension.py",
        ),
    ),
    Patch(
        name="0002-rendering-extension.patch",
        subject="Add the rendering extension (io.modelcontextprotocol/rendering)",
        body=(
            "mcp.server.rendering: the Rendering extension (tool hints under _meta, a default directive\n"
            "stamped on successful results, with_directive, client_supports_rendering). mcp.client.rendering:\n"
            "the host's closed, fail-safe reading (read_rendering) and the client's declaration.\n"
            "Disabled unless the server passes Rendering() to MCPServer(extensions=[...])."
        ),
        paths=(
            "src/mcp/shared/rendering.py",
            "src/mcp/server/rendering.py",
            "src/mcp/client/rendering.py",
            "tests/server/test_rendering.py",
            "tests/client/test_rendering.py",
        ),
    ),
    Patch(
        name="0003-rendering-docs.patch",
        subject="Document the rendering extension",
        body=(
            "docs/advanced/rendering.md with its docs_src/rendering/ tutorials (two servers, one host) and\n"
            "tests/docs_src/test_rendering.py, which proves each claim of the page."
        ),
        paths=(
            "mkdocs.yml",
            "docs/advanced/rendering.md",
            "docs_src/rendering/__init__.py",
            "docs_src/rendering/tutorial001.py",
            "docs_src/rendering/tutorial001_client.py",
            "docs_src/rendering/tutorial002.py",
            "tests/docs_src/test_rendering.py",
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
        raise GenError(f"{FILES_DIR / path} must end with a newline")
    new_lines = new.splitlines(keepends=True)
    if old is None:
        header = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        return header + f"@@ -0,0 +1,{len(new_lines)} @@\n" + "".join(f"+{line}" for line in new_lines)
    hunks = "".join(difflib.unified_diff(old.splitlines(keepends=True), new_lines, f"a/{path}", f"b/{path}", n=3))
    if not hunks:
        raise GenError(f"{FILES_DIR / path} is identical to the SDK's; remove it from files/")
    return f"diff --git a/{path} b/{path}\n" + hunks


def render_series(sdist: Path) -> dict[Path, str]:
    """Every patch of the series, by its path."""
    listed = [path for patch in SERIES for path in patch.paths]
    on_disk = sorted(p.relative_to(FILES_DIR).as_posix() for p in FILES_DIR.rglob("*") if p.is_file())
    if sorted(listed) != on_disk or len(set(listed)) != len(listed):
        missing = sorted(set(on_disk) - set(listed))
        absent = sorted(set(listed) - set(on_disk))
        raise GenError(f"SERIES and files/ disagree (not in SERIES: {missing}; not in files/: {absent})")
    originals = _sdist_text(sdist, set(listed))
    rendered: dict[Path, str] = {}
    for number, patch in enumerate(SERIES, start=1):
        diffs = "".join(
            file_diff(path, originals.get(path), (FILES_DIR / path).read_text(encoding="utf-8")) for path in patch.paths
        )
        rendered[PATCHES_DIR / patch.name] = (
            f"From: {AUTHOR}\nSubject: [PATCH {number}/{len(SERIES)}] {patch.subject}\n\n{patch.body}\n---\n{diffs}"
        )
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
    args = parser.parse_args()

    sdist = fetch_sdist()
    if args.fetch:
        print(sdist)
        return 0
    expected = {**render_series(sdist), CONSTRAINTS: render_constraints(sdist)}
    stray = sorted(set(PATCHES_DIR.glob("*.patch")) - set(expected))
    if args.check:
        stale = [path for path, text in expected.items() if not path.exists() or path.read_text("utf-8") != text]
        for path in [*stale, *stray]:
            print(f"gen_sdk_patch: {path.relative_to(REPO_ROOT)} is stale; run python scripts/gen_sdk_patch.py")
        return EXIT_STALE if stale or stray else 0
    PATCHES_DIR.mkdir(parents=True, exist_ok=True)
    for path in stray:
        path.unlink()
    for path, text in expected.items():
        path.write_text(text, encoding="utf-8")
    return 0


def _run() -> int:
    try:
        return main()
    except GenError as error:
        print(f"gen_sdk_patch: error (not a stale series): {error}", file=sys.stderr)
    except Exception:  # an unexpected failure must not exit 1, which means "stale"
        traceback.print_exc()
        print("gen_sdk_patch: error (not a stale series): unexpected failure above", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(_run())
