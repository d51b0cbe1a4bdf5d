"""Fill the generated blocks of the extension specification (sep/rendering.mdx).

- `<!-- BEGIN types ... -->`: the declarations of `schema/rendering.ts`, without its file header and without the
  `@example` tags (which point at files); the TypeScript delta stays the single source of the types.
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

SPEC = ROOT / "sep" / "rendering.mdx"
TYPES_SOURCE = ROOT / "schema" / "rendering.ts"
EXAMPLES = ROOT / "schema" / "examples"

_BLOCK = re.compile(r"(<!-- BEGIN (types|example ([\w/-]+)) [^>]*-->\n)(.*?)(<!-- END (?:types|example) -->)", re.S)
_EXAMPLE_TAG = re.compile(r"^ \* @example .*\n(?: \* \{@includeCode [^}]+\}\n)(?: \*\n)?", re.M)


def types_block() -> str:
    """The TypeScript declarations, as a fenced block."""
    source = TYPES_SOURCE.read_text(encoding="utf-8")
    body = source[source.index("*/\n") + 3 :].lstrip("\n")  # after the file header
    body = _EXAMPLE_TAG.sub("", body)
    body = re.sub(r"^ \*\n( \*/)", r"\1", body, flags=re.M)  # a JSDoc left ending in an empty line
    return f"```typescript\n{body.rstrip()}\n```\n"


def example_block(name: str) -> str:
    """One generated example, as a fenced block."""
    text = (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")
    return f"```json\n{text.rstrip()}\n```\n"


def fill(text: str) -> str:
    """`text` with every generated block rewritten."""

    def replace(match: re.Match[str]) -> str:
        body = types_block() if match.group(2) == "types" else example_block(match.group(3))
        return f"{match.group(1)}{body}{match.group(5)}"

    return _BLOCK.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify instead of writing; exit 1 on drift")
    args = parser.parse_args(argv)
    filled = fill(SPEC.read_text(encoding="utf-8"))
    return write_or_check({SPEC: filled}, check=args.check, generator=Path(__file__).name)


if __name__ == "__main__":
    sys.exit(main())
