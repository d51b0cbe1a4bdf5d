"""The committed form of a pull request to an upstream project, shared by the `gen_*_patch.py` generators.

Upstream's own files are never committed whole. A part of a pull request (one patch) is two folders, laid out as the
upstream tree:

- `files/` (`files-<part>/`): the files the pull request adds, absent from the pinned upstream source, whole;
- `changes/` (`changes-<part>/`): for each file of the pinned source the part changes, `<path>.diff`, that file's
  section of the patch (`diff --git` header and hunks, against the tree the earlier parts leave).

A generator applies each diff with `git apply` to the file it names, diffs the result again, and writes the patch
from that, so a diff that no longer applies is an error, and one whose hunks are not the canonical ones is stale.

To edit a part as a tree, `unpack` writes the pinned source into a folder made a git repository: the pinned source
(tag `pinned`), then each earlier part, are committed (tag `base`) and the part is applied to the work tree,
uncommitted. After editing there, `repack` rewrites the part's `files/` and `changes/` from what differs from `base`
(ignored files, such as build output under the tree's `.gitignore`, are left out).
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

DIFF_SUFFIX = ".diff"
_GIT_CONFIG = (
    *("-c", "user.name=mcp-rendering", "-c", "user.email=maintainers@mcp-rendering.invalid"),
    *("-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"),
)


class ChangesError(Exception):
    """A part's folders are malformed, a diff does not apply, or a tree cannot be unpacked or repacked."""


@dataclass(frozen=True)
class Part:
    files: Path
    """The added files, whole."""
    changes: Path
    """One `<path>.diff` per changed file of the pinned source."""

    def added_paths(self) -> list[str]:
        if not self.files.is_dir():
            return []
        return sorted(p.relative_to(self.files).as_posix() for p in self.files.rglob("*") if p.is_file())

    def changed_paths(self) -> list[str]:
        if not self.changes.is_dir():
            return []
        paths: list[str] = []
        for diff in self.changes.rglob("*"):
            if not diff.is_file():
                continue
            relative = diff.relative_to(self.changes).as_posix()
            if not relative.endswith(DIFF_SUFFIX):
                raise ChangesError(f"{diff} is not a `{DIFF_SUFFIX}` file")
            paths.append(relative.removesuffix(DIFF_SUFFIX))
        return sorted(paths)

    def paths(self) -> list[str]:
        return sorted({*self.added_paths(), *self.changed_paths()})


def file_diff(path: str, old: str | None, new: str) -> str:
    """One file's section of a patch, as `git apply` reads it: `old` is None for an added file."""
    if old is None and not new:
        return f"diff --git a/{path} b/{path}\nnew file mode 100644\n"
    if not new.endswith("\n"):
        raise ChangesError(f"{path} must end with a newline")
    new_lines = new.splitlines(keepends=True)
    if old is None:
        header = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        return header + f"@@ -0,0 +1,{len(new_lines)} @@\n" + "".join(f"+{line}" for line in new_lines)
    hunks = "".join(difflib.unified_diff(old.splitlines(keepends=True), new_lines, f"a/{path}", f"b/{path}", n=3))
    if not hunks:
        raise ChangesError(f"{path} is unchanged (identical to upstream's, or to an earlier part's); remove it")
    return f"diff --git a/{path} b/{path}\n" + hunks


def _git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    # The folder may sit inside another repository (a cache in this checkout): git must not look above it.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(cwd.parent)}
    result = subprocess.run(
        ["git", *_GIT_CONFIG, *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env, check=False
    )
    if result.returncode != 0:
        raise ChangesError(f"git {' '.join(args)} failed in {cwd}: {result.stderr.strip()}")
    return result.stdout


def state(part: Part, before: Mapping[str, str], pinned: Collection[str]) -> dict[str, str]:
    """Each file of the part as the part leaves it.

    `before` holds the text of every file of the part as the earlier parts leave it (the pinned source's when
    there is none), `pinned` the paths the pinned source holds."""
    added = part.added_paths()
    changed = part.changed_paths()
    for path in added:
        if path in pinned:
            raise ChangesError(f"{part.files / path} is a file of the pinned source: its changes go in {part.changes}")
    both = sorted(set(added) & set(changed))
    if both:
        raise ChangesError(f"{both[0]} is both in {part.files} and in {part.changes}")
    result = {path: (part.files / path).read_text(encoding="utf-8") for path in added}
    if not changed:
        return result
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        for path in changed:
            if path not in before:
                raise ChangesError(f"{part.changes / path}{DIFF_SUFFIX}: the source has no {path} to change")
            target = tree / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(before[path], encoding="utf-8")
        for path in changed:
            diff = (part.changes / f"{path}{DIFF_SUFFIX}").read_text(encoding="utf-8")
            if not diff.startswith(f"diff --git a/{path} b/{path}\n") or diff.count("\ndiff --git ") > 0:
                raise ChangesError(f"{part.changes / path}{DIFF_SUFFIX} must hold the diff of {path} alone")
            try:
                _git(tree, "apply", "--whitespace=nowarn", "-", stdin=diff)
            except ChangesError as error:
                raise ChangesError(f"{part.changes / path}{DIFF_SUFFIX} does not apply: {error}") from error
        for path in changed:
            result[path] = (tree / path).read_text(encoding="utf-8")
    return result


def stale_changes(part: Part, before: Mapping[str, str], after: Mapping[str, str]) -> dict[Path, str]:
    """The canonical diff file of each changed file whose committed diff differs from it (context moved, hunks split
    otherwise than `difflib` splits them): rewriting them changes no patch byte, since patches use the canonical."""
    stale: dict[Path, str] = {}
    for path in part.changed_paths():
        diff_file = part.changes / f"{path}{DIFF_SUFFIX}"
        canonical = file_diff(path, before[path], after[path])
        if diff_file.read_text(encoding="utf-8") != canonical:
            stale[diff_file] = canonical
    return stale


def tar_extractor(archive: Path) -> Callable[[Path], None]:
    """Extract `archive` (an sdist or a source snapshot: one top folder) into a folder, without its top folder."""

    def extract(dest: Path) -> None:
        with tarfile.open(archive) as tar:
            members: list[tarfile.TarInfo] = []
            for member in tar.getmembers():
                _, _, inner = member.name.partition("/")
                if inner:
                    members.append(member.replace(name=inner))
            tar.extractall(dest, members=members, filter="data")

    return extract


def unpack(dest: Path, extract: Callable[[Path], None], earlier: list[str], patch: str) -> None:
    """Write the pinned source (`extract(dest)`) into the empty or absent folder `dest`, commit it (tag `pinned`),
    apply and commit each of the `earlier` patches (tag `base`), and apply `patch` to the work tree."""
    if dest.exists() and any(dest.iterdir()):
        raise ChangesError(f"{dest} is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    extract(dest)
    _git(dest, "init", "--quiet")
    _git(dest, "add", "--force", ".")
    _git(dest, "commit", "--quiet", "--no-verify", "-m", "pinned upstream source")
    _git(dest, "tag", "pinned")
    for number, text in enumerate(earlier, start=1):
        _git(dest, "apply", "--whitespace=nowarn", "-", stdin=text)
        _git(dest, "add", "--force", ".")
        _git(dest, "commit", "--quiet", "--no-verify", "-m", f"earlier part {number}")
    _git(dest, "tag", "base")
    _git(dest, "apply", "--whitespace=nowarn", "-", stdin=patch)


def repack(tree: Path, part: Part, *, derived: Collection[str] = ()) -> list[str]:
    """Rewrite the part's folders from what the unpacked `tree` holds apart from its tag `base`; returns the paths.

    A file the pinned source holds becomes a diff against `base`, any other a whole file; `derived` paths (written
    by the generator from elsewhere) are left out. Deleting a file of the source is not a change parts can hold."""
    _git(tree, "rev-parse", "--verify", "--quiet", "base")
    changed: set[str] = set()
    entries = _git(tree, "diff", "--name-status", "--no-renames", "-z", "base").split("\0")
    for status, path in zip(entries[0::2], entries[1::2], strict=False):
        if status == "D":
            raise ChangesError(f"{path} is deleted in {tree}: a part cannot delete a file")
        changed.add(path)
    changed.update(p for p in _git(tree, "ls-files", "--others", "--exclude-standard", "-z").split("\0") if p)
    changed -= set(derived)
    if not changed:
        raise ChangesError(f"{tree} holds no change from its tag `base`")
    pinned = set(_git(tree, "ls-tree", "-r", "--name-only", "-z", "pinned").split("\0"))
    for folder in (part.files, part.changes):
        if folder.exists():
            shutil.rmtree(folder)
    for path in sorted(changed):
        text = (tree / path).read_text(encoding="utf-8")
        if path in pinned:
            target = part.changes / f"{path}{DIFF_SUFFIX}"
            text = file_diff(path, _git(tree, "show", f"base:{path}"), text)
        else:
            target = part.files / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return sorted(changed)
