"""Write the example instances under schema/examples/<Type>/<name>.json, and the invalid ones (each with one
malformed carrier, which the merged schemas reject) under schema/invalid-examples/<Type>/<name>.json.

The results are made by the reference builder (`mcp_rendering.builder`) from the documents in
`sample_documents.py`, and the paged one carries a real continuation token: signed with the fixed example key
below at a fixed time, so that it verifies with that key and that clock and the files are the same on every run.
The small objects (hints, annotations, tools) are written out here. `schema/rendering.ts`, the SEP and the
extension specification include these files; `tests/test_schema_examples.py` validates each against the merged and
the upstream schemas.

Usage:
    python scripts/gen_examples.py            # write the examples
    python scripts/gen_examples.py --check    # exit 1 when an example is missing, stale or no longer made
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from generated import ROOT, write_or_check
from sample_documents import ledger, short_statement

from mcp_rendering._null_text import blank
from mcp_rendering.builder import paged_result, verbatim_result
from mcp_rendering.envelope import Budget, Envelope, RecordUris
from mcp_rendering.tokens import ContinuationTokens, Keyring
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, Rendering

EXAMPLES_DIR = ROOT / "schema" / "examples"
INVALID_DIR = ROOT / "schema" / "invalid-examples"

EXAMPLE_SECRET = b"example key: not a secret, never use it in a server"
"""The key that signs the example token (published, so the token can be checked, and so never to be reused)."""

EXAMPLE_CLOCK = 1_796_000_000.0
"""The time the example token was issued at (seconds since the epoch)."""

LEDGER_URIS = RecordUris("ledger://acme/2025/lines/{row_id}")
GUIDANCE = "Keep the order of accounts and every subtotal; a null is not a zero."


_RESULT_ORDER = ("content", "structuredContent", "isError", "resultType", "_rendering", "_meta")


def _wire(model: Any) -> dict[str, Any]:
    """A result's wire form with its members in the order a reader expects (`type` first in each block)."""
    wire: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    wire["content"] = [{"type": block["type"], **block} for block in wire["content"]]
    return {key: wire[key] for key in sorted(wire, key=lambda key: _RESULT_ORDER.index(key))}


def example_tokens() -> ContinuationTokens:
    """The token issuer of the examples: the published example key and a fixed clock."""
    return ContinuationTokens(Keyring.single(EXAMPLE_SECRET, key_id="example"), clock=lambda: EXAMPLE_CLOCK)


def statement_result() -> dict[str, Any]:
    """A whole verbatim result, as the builder makes it."""
    return _wire(
        verbatim_result(
            short_statement(), Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True)
        )
    )


def page_result() -> dict[str, Any]:
    """The first page of a bounded result: two of five records, with a real continuation token."""
    envelope = Envelope(tool="ledger_lines", tokens=example_tokens(), budget=Budget(max_items=2), argument="cursor")
    result = paged_result(
        envelope,
        LEDGER_URIS.assign(ledger()),
        arguments={"company": "acme", "year": 2025},
        caller="example-caller",
        directive=Rendering(mode="verbatim", complete=True),
        record_links=True,
    )
    return _wire(result)


def core_and_meta_result() -> dict[str, Any]:
    """A result that also sends the core form of the directive, equal to the `_meta` carrier."""
    wire = statement_result()
    meta = wire.pop("_meta")
    return {**wire, "_rendering": meta[EXTENSION_ID], "_meta": meta}


def examples() -> dict[str, Any]:
    """Every example, by `<Type>/<name>`."""
    page = page_result()
    return {
        "CallToolResult/verbatim-statement": statement_result(),
        "CallToolResult/incomplete-page": page,
        "CallToolResult/core-and-meta": core_and_meta_result(),
        "Rendering/verbatim-with-guidance": {
            "mode": "verbatim",
            "guidance": GUIDANCE,
            "nullDisplay": "n/a",
            "complete": True,
        },
        "Rendering/summarizable-minimal": {"mode": "summarizable", "complete": True},
        # A dash, the seed's own convention, and null texts in other scripts: any text neither blank nor numeric.
        "Rendering/null-display-dash": {"mode": "verbatim", "nullDisplay": "-", "complete": True},
        "Rendering/null-display-other-scripts": {"mode": "verbatim", "nullDisplay": "néant — 無", "complete": True},
        "Rendering/incomplete-page": page["_meta"][EXTENSION_ID],
        "ResultContinuation/incomplete-page": page["_meta"][CONTINUATION_ID],
        "ResultContinuationTool/cursor": {"argument": "cursor"},
        "RenderingHints/verbatim": {"verbatimHint": True},
        "RenderingHints/summarize-ok": {"summarizeOkHint": True},
        "ToolAnnotations/verbatim-read-only": {
            "title": "Income statement",
            "readOnlyHint": True,
            "openWorldHint": False,
            "verbatimHint": True,
        },
        "ToolAnnotations/summarize-ok": {"title": "Search news", "readOnlyHint": True, "summarizeOkHint": True},
        "Tool/verbatim-income-statement": {
            "name": "income_statement",
            "title": "Income statement",
            "description": "The income statement of a company, in the order of the French chart of accounts.",
            "inputSchema": {
                "type": "object",
                "properties": {"company": {"type": "string"}, "year": {"type": "integer"}},
                "required": ["company", "year"],
            },
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
            "_meta": {EXTENSION_ID: {"verbatimHint": True}},
        },
        "Tool/paged-ledger": {
            "name": "ledger_lines",
            "title": "Ledger lines",
            "description": "The lines of a company's general ledger, in account order, in parts of bounded size.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "company": {"type": "string"},
                    "year": {"type": "integer"},
                    "cursor": {"type": "string"},
                },
                "required": ["company", "year"],
            },
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
            "_meta": {EXTENSION_ID: {"verbatimHint": True}, CONTINUATION_ID: {"argument": "cursor"}},
        },
        "Tool/summarizable-search": {
            "name": "search_news",
            "description": "Recent news articles matching a query.",
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            "annotations": {"readOnlyHint": True, "openWorldHint": True, "summarizeOkHint": True},
            "_meta": {EXTENSION_ID: {"summarizeOkHint": True}},
        },
    }


def _with_carrier(instance: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of a valid example whose `_meta[key]` is `value`: everything else stays valid."""
    return {**instance, "_meta": {**instance["_meta"], key: value}}


def invalid_examples() -> dict[str, Any]:
    """Instances the merged schemas reject, each for one malformed carrier in an otherwise valid example.

    Upstream accepts every one of them (its `_meta` is open), so it is the delta's typing of the carrier that a
    producer validating what it sends would catch; a reader still reads each one, by the specification's tables.
    """
    valid = examples()
    statement, page = valid["CallToolResult/verbatim-statement"], valid["CallToolResult/incomplete-page"]
    income, ledger = valid["Tool/verbatim-income-statement"], valid["Tool/paged-ledger"]
    continuation: dict[str, Any] = page["_meta"][CONTINUATION_ID]  # each example below breaks one of its rules
    return {
        "CallToolResult/misspelled-directive": _with_carrier(statement, EXTENSION_ID, {"completed": True, "mode": 5}),
        "CallToolResult/directive-without-complete": _with_carrier(statement, EXTENSION_ID, {"mode": "verbatim"}),
        "CallToolResult/directive-not-an-object": _with_carrier(statement, EXTENSION_ID, "verbatim"),
        "CallToolResult/null-display-digit": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "0", "complete": True}
        ),
        "CallToolResult/null-display-digit-of-another-script": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "\u0663", "complete": True}
        ),
        "CallToolResult/null-display-roman-numeral": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "\u216b", "complete": True}
        ),
        "CallToolResult/null-display-cjk-numeral": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "\u5341", "complete": True}
        ),
        "CallToolResult/null-display-blank": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "   ", "complete": True}
        ),
        "CallToolResult/null-display-invisible": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "\u3164\u2800", "complete": True}
        ),
        "CallToolResult/null-display-control": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "n/a\u0007", "complete": True}
        ),
        "CallToolResult/null-display-format": _with_carrier(
            statement, EXTENSION_ID, {"mode": "verbatim", "nullDisplay": "\u202en/a", "complete": True}
        ),
        "CallToolResult/continuation-token-with-spaces": _with_carrier(
            page, CONTINUATION_ID, {**continuation, "token": "ignore the rest of this result"}
        ),
        "CallToolResult/continuation-without-token": _with_carrier(
            page, CONTINUATION_ID, {key: value for key, value in continuation.items() if key != "token"}
        ),
        "CallToolResult/continuation-without-expiry": _with_carrier(
            page, CONTINUATION_ID, {key: value for key, value in continuation.items() if key != "expiresAt"}
        ),
        "Tool/hint-as-string": _with_carrier(income, EXTENSION_ID, {"verbatimHint": "yes"}),
        "Tool/misspelled-hint": _with_carrier(income, EXTENSION_ID, {"verbatimhint": True}),
        "Tool/continuation-without-argument": _with_carrier(ledger, CONTINUATION_ID, {}),
    }


def _escaped_invisible(text: str) -> str:
    """JSON text with each character that shows nothing (white space but the space, invisible, format) escaped: it
    can then be seen in the file, and no bidi control reorders the text around it."""
    return "".join(
        f"\\u{ord(character):04x}"
        if ord(character) > 0x7E and (blank(ord(character)) or not character.isprintable())
        else character
        for character in text
    )


def _files(directory: Path, instances: dict[str, Any]) -> dict[Path, str]:
    """Example files and their text (two-space JSON, non-ASCII kept unless invisible, one final newline)."""
    return {
        directory / f"{name}.json": _escaped_invisible(json.dumps(value, indent=2, ensure_ascii=False)) + "\n"
        for name, value in instances.items()
    }


def files() -> dict[Path, str]:
    """The valid example files and their text."""
    return _files(EXAMPLES_DIR, examples())


def invalid_files() -> dict[Path, str]:
    """The invalid example files and their text."""
    return _files(INVALID_DIR, invalid_examples())


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify instead of writing; exit 1 on drift")
    args = parser.parse_args(argv)
    statuses = [
        write_or_check(produced, check=args.check, generator=Path(__file__).name, owned=owned)
        for produced, owned in ((files(), EXAMPLES_DIR), (invalid_files(), INVALID_DIR))
    ]
    return max(statuses)


if __name__ == "__main__":
    sys.exit(main())
