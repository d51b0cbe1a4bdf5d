"""Generate the patch of the pull request to the MCP conformance suite.

The added and changed files live as real files under `upstream/conformance/files/`, laid out as in the suite's
tree, except the traceability file `src/seps/sep-0000.yaml`, which is the project's `sep/conformance/sep-0000.yaml`
in the suite's prettier style. This script diffs them against the suite's source at the pinned commit (the snapshot
`conformance-<commit>.tar.gz`) and writes `upstream/conformance/patches/0001-rendering-scenarios.patch`, which
applies with `git apply`.

The snapshot is found in `$CONFORMANCE_SNAPSHOT` when set, else in `shared/upstream/` beside this checkout (or
beside the main checkout of a git worktree).

Usage:
    python scripts/gen_conformance_patch.py            # (re)write the patch
    python scripts/gen_conformance_patch.py --check    # exit 1 when the committed patch is stale
    python scripts/gen_conformance_patch.py --snapshot # print the path of the snapshot

Exit status: 0 done (or current), 1 the committed patch is stale (`--check` only), 2 anything else that stopped it
(no snapshot, a snapshot or source file that cannot be read or parsed), so that a caller never reports such a
failure as a stale patch.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

from gen_sdk_patch import file_diff

REPO_ROOT = Path(__file__).resolve().parent.parent
SUITE_DIR = REPO_ROOT / "upstream" / "conformance"
FILES_DIR = SUITE_DIR / "files"
PATCH = SUITE_DIR / "patches" / "0001-rendering-scenarios.patch"
# Files of the patch that the project keeps elsewhere: the suite path, and the project file it is copied from.
COPIED = {"src/seps/sep-0000.yaml": REPO_ROOT / "sep" / "conformance" / "sep-0000.yaml"}

SUITE_COMMIT = "c321dd3"
SNAPSHOT_NAME = f"conformance-{SUITE_COMMIT}.tar.gz"
AUTHOR = "mcp-rendering maintainers <maintainers@mcp-rendering.invalid>"
SUBJECT = "Add the rendering and result continuation extensions' server and client scenarios (SEP-0000)"
BODY = (
    "rendering-server and result-continuation-server (ClientScenarios: the suite plays the client and judges a\n"
    "server), rendering-client and result-continuation-client (Scenarios: the suite plays a server with\n"
    "well-formed and malformed carriers and judges a client's reading), with source = { extensionId } of their\n"
    "extension, io.modelcontextprotocol/rendering and io.modelcontextprotocol/result-continuation, registered in\n"
    "src/scenarios/index.ts (the server scenarios as pending: the everything-server implements neither\n"
    "extension), both identifiers in EXTENSION_IDS, vitest tests that run the scenarios against a server and a\n"
    "client that break the rules, and the traceability file src/seps/sep-0000.yaml. ConnectOptions takes an\n"
    "optional fetch, so that the server scenarios can read the response bytes for a member name given twice."
)

EXIT_STALE = 1
EXIT_ERROR = 2


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
    print(f"gen_conformance_patch: error: {message}", file=sys.stderr)
    sys.exit(EXIT_ERROR)


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


def render_patch(snapshot: Path) -> str:
    sources = {p.relative_to(FILES_DIR).as_posix(): p for p in FILES_DIR.rglob("*") if p.is_file()}
    sources.update(COPIED)
    paths = sorted(sources)
    originals: dict[str, str] = {}
    with tarfile.open(snapshot) as archive:
        for member in archive.getmembers():
            path = member.name.split("/", 1)[1] if "/" in member.name else ""
            if path in paths and member.isfile():
                extracted = archive.extractfile(member)
                assert extracted is not None
                originals[path] = extracted.read().decode("utf-8")
    diffs = "".join(file_diff(path, originals.get(path), _text(path, sources[path])) for path in paths)
    return f"From: {AUTHOR}\nSubject: [PATCH] {SUBJECT}\n\n{BODY}\n---\n{diffs}"


def _text(path: str, source: Path) -> str:
    text = source.read_text(encoding="utf-8")
    return suite_yaml_style(text) if path in COPIED else text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when the committed patch is stale")
    group.add_argument("--snapshot", action="store_true", help="print the path of the snapshot")
    args = parser.parse_args()
    snapshot = find_snapshot()
    if args.snapshot:
        print(snapshot)
        return 0
    try:
        text = render_patch(snapshot)
        committed = PATCH.read_text(encoding="utf-8") if PATCH.exists() else None
    except (OSError, tarfile.TarError, UnicodeDecodeError, EOFError) as error:
        # Not a stale patch: the inputs could not be read, so nothing is known about the patch.
        print(f"gen_conformance_patch: error: cannot build the patch: {error}", file=sys.stderr)
        return EXIT_ERROR
    if args.check:
        if committed != text:
            print(f"gen_conformance_patch: {PATCH.relative_to(REPO_ROOT)} is stale; run it without --check")
            return EXIT_STALE
        return 0
    PATCH.parent.mkdir(parents=True, exist_ok=True)
    PATCH.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
