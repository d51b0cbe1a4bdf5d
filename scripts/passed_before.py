"""A record of the upstream checks that passed, by the digest of everything they read, so that the whole check
runs each again only when one of its inputs changed.

An upstream check (`upstream/<project>/check.sh`) applies committed patches to a release pinned by sha256 and runs
that project's own tests in an environment pinned by its lock: its outcome is a function of the files it reads and
of the interpreter. The digest covers each input file's name and bytes (a folder: every file under it, by its path
there) and the interpreter's version. A pass is recorded under it in a cache outside the clone
(`$MCP_RENDERING_CHECK_CACHE`, by default `~/.cache/mcp-rendering/passed`), where a fresh clone of an unchanged tree,
or a CI run that keeps that folder between runs, finds it. `MCP_RENDERING_RECHECK=1` ignores every record.

    python scripts/passed_before.py NAME --query  INPUT...   # exit 0 and say when, if it passed with these inputs
    python scripts/passed_before.py NAME --record INPUT...   # record a pass with these inputs
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sys
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path

_SKIPPED_DIRECTORIES = {"__pycache__"}


def _files(inputs: Sequence[Path]) -> Iterator[tuple[str, Path]]:
    """Each input file with its name: a folder's files under the folder's name, in order."""
    for path in inputs:
        if path.is_dir():
            for found in sorted(path.rglob("*")):
                inner = found.relative_to(path)
                if found.is_file() and not _SKIPPED_DIRECTORIES.intersection(inner.parts):
                    yield f"{path.name}/{inner.as_posix()}", found
        elif path.is_file():
            yield path.name, path
        else:
            raise FileNotFoundError(f"input {path} does not exist")


def digest(inputs: Sequence[Path]) -> str:
    """The digest of the inputs' names and bytes, and of the interpreter."""
    hashed = hashlib.sha256(f"{platform.python_implementation()} {platform.python_version()}\n".encode())
    for name, path in _files(inputs):
        data = path.read_bytes()
        hashed.update(f"{name}\0{len(data)}\0".encode())
        hashed.update(data)
    return hashed.hexdigest()


def cache_directory() -> Path:
    configured = os.environ.get("MCP_RENDERING_CHECK_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mcp-rendering" / "passed"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", help="the check's name, e.g. python-sdk")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--query", action="store_true", help="exit 0 if it passed with these inputs, else 1")
    mode.add_argument("--record", action="store_true", help="record a pass with these inputs")
    parser.add_argument("inputs", nargs="+", type=Path, help="the files and folders the check reads")
    args = parser.parse_args(argv)
    try:
        key = digest(args.inputs)
    except FileNotFoundError as error:
        parser.error(str(error))
    record = cache_directory() / f"{args.name}-{key}"
    if args.record:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(datetime.now(timezone.utc).isoformat(timespec="seconds") + "\n", encoding="utf-8")
        return 0
    if os.environ.get("MCP_RENDERING_RECHECK") == "1" or not record.is_file():
        return 1
    when = record.read_text(encoding="utf-8").strip()
    print(f"{args.name}: passed at {when} with these exact inputs (digest {key[:12]}); not run again")
    print("  (MCP_RENDERING_RECHECK=1 runs it whatever the record says)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
