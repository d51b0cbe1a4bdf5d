"""Renders the measured interop matrix into the compatibility page of the docs.

The matrix is measured by `python -m interop.run` into `interop/results/matrix.json`. This generator copies its
Markdown rendering between the marker lines

    <!-- BEGIN compat-matrix -->
    <!-- END compat-matrix -->

of `docs/compatibility.md` (the SEP summarizes the matrix and links that page), and rewrites
`interop/results/matrix.md`. With --check it writes nothing and fails when either text differs from what
matrix.json gives.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make the interop package importable
    sys.path.insert(0, str(ROOT))

from interop.matrix import render_markdown  # noqa: E402
from interop.run import RESULTS, results_markdown  # noqa: E402

BEGIN = "<!-- BEGIN compat-matrix -->"
END = "<!-- END compat-matrix -->"
NOTICE = "<!-- Generated from interop/results/matrix.json by scripts/gen_compat.py; do not edit by hand. -->"
DOCS_PAGE = ROOT / "docs" / "compatibility.md"


class MarkerError(ValueError):
    """A target file lacks the marker lines, or has them out of order or more than once."""


def block(matrix: dict[str, object]) -> str:
    """The text that belongs between the markers (without the marker lines themselves)."""
    return f"{NOTICE}\n\n{render_markdown(matrix)}\n"


def replace_between_markers(text: str, content: str, name: str) -> str:
    """`text` with everything between the marker lines replaced by `content`."""
    lines = text.splitlines(keepends=True)
    begins = [index for index, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [index for index, line in enumerate(lines) if line.strip() == END]
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        raise MarkerError(
            f"{name}: expected exactly one line `{BEGIN}` followed by one line `{END}` "
            f"(found {len(begins)} BEGIN, {len(ends)} END)"
        )
    return "".join(lines[: begins[0] + 1]) + "\n" + content + "\n" + "".join(lines[ends[0] :])


def targets() -> tuple[list[Path], list[str]]:
    """The files to fill, and a problem for each expected place that has no markers."""
    if not DOCS_PAGE.is_file():
        return [], [f"{DOCS_PAGE.relative_to(ROOT)} does not exist (it must carry the compat-matrix markers)"]
    if BEGIN not in DOCS_PAGE.read_text(encoding="utf-8"):
        return [], [f"{DOCS_PAGE.relative_to(ROOT)} has no `{BEGIN}` / `{END}` marker lines"]
    return [DOCS_PAGE], []


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if any generated text is stale; write nothing")
    args = parser.parse_args(argv)
    matrix = json.loads((RESULTS / "matrix.json").read_text(encoding="utf-8"))
    content = block(matrix)
    files, problems = targets()
    outputs: dict[Path, str] = {RESULTS / "matrix.md": results_markdown(matrix)}
    for path in files:
        name = str(path.relative_to(ROOT))
        try:
            outputs[path] = replace_between_markers(path.read_text(encoding="utf-8"), content, name)
        except MarkerError as error:
            problems.append(str(error))
    stale = [path for path, text in outputs.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.check:
        problems += [f"{path.relative_to(ROOT)} is stale: run `python scripts/gen_compat.py`" for path in stale]
    else:
        for path in stale:
            path.write_text(outputs[path], encoding="utf-8")
            print(f"updated {path.relative_to(ROOT)}", file=sys.stderr)
    for problem in problems:
        print(f"gen_compat: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
