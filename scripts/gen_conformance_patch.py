"""Generate the patches of the pull requests to the MCP conformance suite.

Two patches, applied in order with `git apply`:

- `0001-rendering-scenarios.patch`: the rendering extension's opt-in scenarios, their fixtures in the suite's
  everything-server and everything-client, broken examples and vitest files (part `rendering`). Under
  `upstream/conformance/`, `files/` holds the files it adds, whole, and `changes/` one `<path>.diff` per file of the
  suite it changes (that file's hunks), laid out as in the suite's tree (see scripts/upstream_changes.py).
- `0002-result-continuation-scenarios.patch`: the result continuation extension's scenarios, on top of the first
  (part `continuation`): `files-continuation/` and `changes-continuation/`, the diffs against the tree the first
  patch leaves.

The first patch's traceability file `src/seps/sep-0000.yaml` is the project's `sep/conformance/sep-0000.yaml` in the
suite's prettier style. Result continuation is apart from any SEP: its traceability stays in the project
(`sep/conformance/result-continuation.yaml`).

The suite's source at the pinned commit (the snapshot `conformance-<commit>.tar.gz`) is found in
`$CONFORMANCE_SNAPSHOT` when set, else in `shared/upstream/` beside this checkout (or beside the main checkout of a
git worktree).

Usage:
    python scripts/gen_conformance_patch.py            # (re)write the patches (and any diff not in canonical form)
    python scripts/gen_conformance_patch.py --check    # exit 1 when a committed patch or diff is stale
    python scripts/gen_conformance_patch.py --snapshot # print the path of the snapshot
    python scripts/gen_conformance_patch.py --unpack DIR [--part rendering|continuation]
        # the suite with the part applied (and the patches before it committed), as a git repository
    python scripts/gen_conformance_patch.py --repack DIR [--part rendering|continuation]
        # rewrite the part's files and diffs from an unpacked DIR, then the patches

`--part` is `continuation` (the last) unless given. The traceability file is written from the project's, never
repacked.

Exit status: 0 done (or current), 1 a committed patch is stale (`--check` only), 2 anything else that stopped it (a
snapshot or source file that cannot be read or parsed), 3 no snapshot, so that a caller never reports such a failure
as a stale patch, and can tell a checkout without the suite's source from a broken one.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import upstream_changes
from upstream_changes import ChangesError, Part, file_diff

REPO_ROOT = Path(__file__).resolve().parent.parent
SUITE_DIR = REPO_ROOT / "upstream" / "conformance"
PATCHES_DIR = SUITE_DIR / "patches"
YAML_PATH = "src/seps/sep-0000.yaml"
PROJECT_YAML = REPO_ROOT / "sep" / "conformance" / "sep-0000.yaml"

SUITE_COMMIT = "c321dd3"
SNAPSHOT_NAME = f"conformance-{SUITE_COMMIT}.tar.gz"
AUTHOR = "mcp-rendering maintainers <maintainers@mcp-rendering.invalid>"


@dataclass(frozen=True)
class Patch:
    name: str
    label: str
    part: Part
    subject: str
    body: str


PATCHES = (
    Patch(
        "0001-rendering-scenarios.patch",
        "rendering",
        Part(SUITE_DIR / "files", SUITE_DIR / "changes"),
        "Add opt-in scenarios for the rendering extension (SEP-0000)",
        "rendering-server and rendering-client for io.modelcontextprotocol/rendering, in an opt-in suite\n"
        "(--suite rendering) and in no other, `all` included. Fixtures in the everything-server\n"
        "(test_rendering_statement, test_rendering_limited) and a reader in the everything-client; a broken\n"
        "server and a broken client, with vitest cases for every check id; untestableCheck where a fixture is\n"
        "missing; the traceability file src/seps/sep-0000.yaml.",
    ),
    Patch(
        "0002-result-continuation-scenarios.patch",
        "continuation",
        Part(SUITE_DIR / "files-continuation", SUITE_DIR / "changes-continuation"),
        "Add opt-in scenarios for the result continuation extension",
        "result-continuation-server and result-continuation-client for mcp-rendering/result-continuation, on\n"
        "top of the rendering scenarios, in the opt-in suite result-continuation. The server command takes\n"
        "--bearer-token; ConnectOptions takes an optional fetch, so that the server scenario can read the\n"
        "response bytes for a member name given twice.",
    ),
)

EXIT_STALE = 1
EXIT_ERROR = 2
EXIT_NO_SNAPSHOT = 3


def find_snapshot() -> Path:
    """The suite's source snapshot, or exit with where it was looked for."""
    override = os.environ.get("CONFORMANCE_SNAPSHOT")
    candidates = [Path(override)] if override else []
    roots = [REPO_ROOT]
    common = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        capture_output=True,
        text=True,
        check=False,
    )
    if common.returncode == 0:
        roots.append(Path(common.stdout.strip()).parent)
    candidates += [root.parent / "shared" / "upstream" / SNAPSHOT_NAME for root in roots]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    looked = ", ".join(str(candidate) for candidate in candidates)
    message = f"the suite snapshot {SNAPSHOT_NAME} is absent (looked in: {looked})"
    print(f"gen_conformance_patch: {message}", file=sys.stderr)
    sys.exit(EXIT_NO_SNAPSHOT)


_SINGLE_QUOTED = re.compile(r"^(\s*(?:- )?[a-z_]+: )'(.*)'$")


def suite_yaml_style(text: str) -> str:
    """The YAML as the suite's prettier writes it: a single-quoted scalar holding a quote and no double quote is
    double-quoted instead (the same value), and the file ends with exactly one newline."""

    def restyle(line: str) -> str:
        match = _SINGLE_QUOTED.match(line)
        # Double quotes give a backslash a meaning: such a value stays as it is.
        if match is None or "''" not in match[2] or '"' in match[2] or "\\" in match[2]:
            return line
        value = match[2].replace("''", "'")
        return f'{match[1]}"{value}"'

    return "\n".join(restyle(line) for line in text.splitlines()).rstrip("\n") + "\n"


def _snapshot_texts(snapshot: Path, paths: set[str]) -> dict[str, str]:
    """The text of each of `paths` the snapshot holds as a file."""
    found: dict[str, str] = {}
    with tarfile.open(snapshot) as archive:
        for member in archive.getmembers():
            path = member.name.split("/", 1)[1] if "/" in member.name else ""
            if path in paths and member.isfile():
                extracted = archive.extractfile(member)
                assert extracted is not None
                found[path] = extracted.read().decode("utf-8")
    return found


def render_patches(snapshot: Path) -> tuple[dict[Path, str], dict[Path, str]]:
    """Every patch, by its path (each the diff from the tree the ones before it leave), and the canonical text of
    each committed diff that differs from it."""
    wanted = {path for patch in PATCHES for path in patch.part.paths()} | {YAML_PATH}
    pinned = _snapshot_texts(snapshot, wanted)
    tree: dict[str, str] = dict(pinned)
    rendered: dict[Path, str] = {}
    stale: dict[Path, str] = {}
    for number, patch in enumerate(PATCHES, start=1):
        state = upstream_changes.state(patch.part, tree, pinned)
        if number == 1:
            state[YAML_PATH] = suite_yaml_style(PROJECT_YAML.read_text(encoding="utf-8"))
        stale |= upstream_changes.stale_changes(patch.part, tree, state)
        diffs = "".join(file_diff(path, tree.get(path), state[path]) for path in sorted(state))
        tree.update(state)
        rendered[PATCHES_DIR / patch.name] = (
            f"From: {AUTHOR}\nSubject: [PATCH {number}/{len(PATCHES)}] {patch.subject}\n\n{patch.body}\n---\n{diffs}"
        )
    return rendered, stale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when a committed patch or diff is stale")
    group.add_argument("--snapshot", action="store_true", help="print the path of the snapshot")
    group.add_argument("--unpack", metavar="DIR", type=Path, help="write the patched suite into DIR (a new folder)")
    group.add_argument("--repack", metavar="DIR", type=Path, help="rewrite a part's files and diffs from DIR")
    parser.add_argument("--part", choices=[patch.label for patch in PATCHES], default=PATCHES[-1].label)
    args = parser.parse_args()
    snapshot = find_snapshot()
    if args.snapshot:
        print(snapshot)
        return 0
    index = [patch.label for patch in PATCHES].index(args.part)
    try:
        if args.repack:
            upstream_changes.repack(args.repack, PATCHES[index].part, derived={YAML_PATH} if index == 0 else ())
        rendered, stale = render_patches(snapshot)
        if args.unpack:
            texts = [rendered[PATCHES_DIR / patch.name] for patch in PATCHES[: index + 1]]
            upstream_changes.unpack(args.unpack, upstream_changes.tar_extractor(snapshot), texts[:-1], texts[-1])
            print(f"gen_conformance_patch: unpacked into {args.unpack}; edit there, then --repack {args.unpack}")
            return 0
    except (OSError, tarfile.TarError, UnicodeDecodeError, EOFError, ChangesError) as error:
        # Not a stale patch: the inputs could not be read, so nothing is known about the patch.
        print(f"gen_conformance_patch: error: cannot build the patch: {error}", file=sys.stderr)
        return EXIT_ERROR
    on_disk = {path: path.read_text(encoding="utf-8") for path in PATCHES_DIR.glob("*.patch")}
    if args.check:
        stale_patches = [path for path in set(on_disk) | set(rendered) if on_disk.get(path) != rendered.get(path)]
        names = sorted(path.name for path in stale_patches) + sorted(
            path.relative_to(SUITE_DIR).as_posix() for path in stale
        )
        if names:
            print(f"gen_conformance_patch: stale: {', '.join(names)}; run it without --check")
            return EXIT_STALE
        return 0
    PATCHES_DIR.mkdir(parents=True, exist_ok=True)
    for path in set(on_disk) - set(rendered):
        path.unlink()
    for path, text in {**stale, **rendered}.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
