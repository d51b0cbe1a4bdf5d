"""The steps the generators under scripts/ share.

A generator computes the expected text of its files and hands them here: without `--check` they are written;
with it nothing is written, and any file that is missing, differs or is no longer produced is reported with a
unified diff, and the exit status is 1. The generators of pull requests to other projects also read the pinned
release they patch from here (`fetch_sdist`, `sdist_texts`).
"""

from __future__ import annotations

import difflib
import hashlib
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_or_check(files: Mapping[Path, str], *, check: bool, generator: str, owned: Path | None = None) -> int:
    """Write `files` (path -> text), or with `check` compare them; returns the exit status.

    Args:
        files: every file the generator produces.
        check: compare instead of writing.
        generator: the script's file name, named in the message that tells how to regenerate.
        owned: a folder whose `*.json`/`*.md` files all belong to this generator: one it no longer produces is
            stale (reported by `check`, deleted otherwise).
    """
    stale = _stale(files, owned)
    if not check:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for path in stale:
            path.unlink()
        print(f"{generator}: wrote {len(files)} file(s)" + (f", removed {len(stale)}" if stale else ""))
        return 0
    drifted = 0
    for path, expected in files.items():
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != expected:
            drifted += 1
            rel = path.relative_to(ROOT).as_posix()
            diff = difflib.unified_diff(
                current.splitlines(keepends=True), expected.splitlines(keepends=True), rel, f"{rel} (regenerated)"
            )
            sys.stderr.writelines(diff)
    for path in stale:
        drifted += 1
        print(f"{path.relative_to(ROOT).as_posix()} is no longer generated", file=sys.stderr)
    if drifted:
        print(f"{generator}: {drifted} file(s) out of date; run `python scripts/{generator}`", file=sys.stderr)
        return 1
    print(f"{generator}: {len(files)} file(s) up to date")
    return 0


def _stale(files: Mapping[Path, str], owned: Path | None) -> list[Path]:
    if owned is None or not owned.is_dir():
        return []
    produced = {path.resolve() for path in files}
    return sorted(
        path for path in owned.rglob("*") if path.suffix in (".json", ".md") and path.resolve() not in produced
    )


class SdistError(Exception):
    """A pinned release that cannot be downloaded, or whose file does not have its pinned hash."""


def fetch_sdist(requirement: str, version: str, sha256: str, target: Path) -> Path:
    """The sdist of `requirement`==`version`, downloaded once with pip (hash-checked) to `target`, verified on every
    use."""
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as scratch:
            pinned = Path(scratch) / "requirement.txt"
            pinned.write_text(f"{requirement}=={version} --hash=sha256:{sha256}\n", encoding="utf-8")
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
            command += ["--require-hashes", "-r", str(pinned), "-d", scratch]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SdistError(f"pip could not download {requirement}=={version}:\n{done.stderr}")
            (Path(scratch) / target.name).replace(target)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    if digest != sha256:
        raise SdistError(f"{target} has sha256 {digest}, expected {sha256}; delete it and rerun")
    return target


def sdist_texts(sdist: Path, root: str, paths: set[str]) -> dict[str, str]:
    """The text of each of `paths` (relative to the archive's folder `root`) that the sdist holds as a file."""
    found: dict[str, str] = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            path = member.name.removeprefix(f"{root}/")
            if path in paths and member.isfile():
                extracted = archive.extractfile(member)
                assert extracted is not None
                found[path] = extracted.read().decode("utf-8")
    return found
