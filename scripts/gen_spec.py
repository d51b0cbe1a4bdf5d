"""Fill the generated blocks of the two extension specifications (sep/rendering.mdx, sep/result-continuation.mdx).

- `<!-- BEGIN types <part> ... -->`: the declarations between `/* BEGIN <part> */` and `/* END <part> */` of
  `schema/rendering.ts`, without the `@example` tags (which point at files); the TypeScript stays the single source
  of the types, and each specification shows only its own.
- `<!-- BEGIN example <Type>/<name> ... -->`: the example `schema/examples/<Type>/<name>.json`, made by
  `scripts/gen_examples.py` with the reference builder.

Usage:
    python scripts/gen_spec.py            # rewrite the blocks
    python scripts/gen_spec.py --check    # exit 1 when a block is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from generated import ROOT, write_or_check

SPECS = (ROOT / "sep" / "rendering.mdx", ROOT / "sep" / "result-continuation.mdx")
TYPES_SOURCE = ROOT / "schema" / "rendering.ts"
EXAMPLES = ROOT / "schema" / "examples"

_BLOCK = re.compile(
    r"(<!-- BEGIN (types ([\w-]+)|example ([\w/-]+)) [^>]*-->\n)(.*?)(<!-- END (?:types|example) -->)", re.S
)
_EXAMPLE_TAG = re.compile(r"^ \* @example .*\n(?: \* \{@includeCode [^}]+\}\n)(?: \*\n)?", re.M)


def types_block(part: str) -> str:
    """The TypeScript declarations of one part, as a fenced block.

    Raises:
        KeyError: `schema/rendering.ts` has no such part.
    """
    source = TYPES_SOURCE.read_text(encoding="utf-8")
    found = re.search(rf"/\* BEGIN {re.escape(part)} \*/\n(.*?)/\* END {re.escape(part)} \*/", source, re.S)
    if found is None:
        raise KeyError(f"schema/rendering.ts has no part {part!r}")
    body = _EXAMPLE_TAG.sub("", found.group(1).strip("\n") + "\n")
    body = re.sub(r"^ \*\n( \*/)", r"\1", body, flags=re.M)  # a JSDoc left ending in an empty line
    return f"```typescript\n{body.rstrip()}\n```\n"


def example_block(name: str) -> str:
    """One generated example, as a fenced block."""
    text = (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")
    return f"```json\n{text.rstrip()}\n```\n"


def fill(text: str) -> str:
    """`text` with every generated block rewritten."""

    def replace(match: re.Match[str]) -> str:
        part, example = match.group(3), match.group(4)
        body = types_block(part) if part is not None else example_block(example)
        return f"{match.group(1)}{body}{match.group(6)}"

    return _BLOCK.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify instead of writing; exit 1 on drift")
    args = parser.parse_args(argv)
    filled = {spec: fill(spec.read_text(encoding="utf-8")) for spec in SPECS}
    return write_or_check(filled, check=args.check, generator=Path(__file__).name)


if __name__ == "__main__":
    sys.exit(main())
