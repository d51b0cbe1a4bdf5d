"""The one workload every benchmark measures: a general ledger, and its verbatim result as a host receives it."""

from __future__ import annotations

import json
from typing import Any

from mcp_rendering import EXTENSION_ID
from mcp_rendering.builder import verbatim_result
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.types import Rendering

TOOL = "ledger"
SERVER = "ledger-server"
GUIDANCE = "Keep the order of accounts and every subtotal."
SECTION_ROWS = 500


def ledger(rows: int) -> Document:
    """A general ledger of `rows` rows: sections of 500, a subtotal every 25 rows, nulls, indent levels."""
    sections: list[Section] = []
    for start in range(0, rows, SECTION_ROWS):
        body = tuple(
            Row(
                id=f"r{n}",
                label=f"{600000 + n} Account {n % 97}",
                values=(n * 3, round(n * 1.25, 2), None if n % 7 == 0 else "EUR", n % 2 == 0),
                kind="subtotal" if n % 25 == 24 else "item",
                level=n % 3,
            )
            for n in range(start, min(rows, start + SECTION_ROWS))
        )
        sections.append(
            Section(
                id=f"s{start}",
                title=f"Part {start // SECTION_ROWS + 1}",
                columns=("debit", "credit", "ccy", "ok"),
                rows=body,
            )
        )
    return Document(title="General ledger FY2025", sections=tuple(sections))


def directive() -> Rendering:
    return Rendering(mode="verbatim", guidance=GUIDANCE, complete=True)


def tool_wire() -> dict[str, Any]:
    """The ledger tool as a host lists it: the verbatim hint in the extension's carrier."""
    return {
        "name": TOOL,
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
        "_meta": {EXTENSION_ID: {"verbatimHint": True}},
    }


def result_json(rows: int) -> str:
    """The JSON text of the ledger's verbatim result, as it arrives at a host."""
    result = verbatim_result(ledger(rows), directive())
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True))
