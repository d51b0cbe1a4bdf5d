"""The write-or-check step that every generator under scripts/ shares.

A generator computes the expected text of its files and hands them here: without `--check` they are written;
with it nothing is written, and any file that is missing, differs or is no longer produced is reported with a
unified diff, and the exit status is 1.
"""

from __future__ import annotations

import difflib
import sys
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
