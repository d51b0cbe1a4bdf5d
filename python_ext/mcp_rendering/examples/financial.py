"""Example server: annual accounts in the regulatory order of the French plan comptable général (PCG).

An auditor reads a balance sheet by its order of accounts and its subtotals: "total actif immobilisé", "total
capitaux propres", the operating result. A host that collapses those lines into a three-line synthesis, or drops the
five-year section as low value, breaks the document. The statements tool declares `verbatimHint` and returns its
result with a verbatim directive; a separate key-figures tool declares `summarizeOkHint`.

Run over stdio: ``python -m mcp_rendering.examples.financial``. The company and every figure are invented.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any

import mcp_types
from mcp.server.mcpserver import Context, MCPServer

from mcp_rendering.builder import VerbatimContent, verbatim_result
from mcp_rendering.document import Document
from mcp_rendering.envelope import RecordUris
from mcp_rendering.examples._server import new_server, record_text, tool_annotations
from mcp_rendering.examples.financial_data import KeyFigures, financial_statements, key_figures
from mcp_rendering.types import Rendering

__all__ = ["GUIDANCE", "RECORD_URIS", "TOOL", "build_server", "main"]

TOOL = "financial_statements"
"""Name of the verbatim tool."""

RECORD_URIS = RecordUris("accounts://atelier-fictif/fy2025/lines/{row_id}")
"""Canonical URI of one line of the accounts; the same template is served as a resource template."""

GUIDANCE = (
    "Regulatory statements (PCG): show every line of every section in the order given, keeping subtotals and totals "
    "and the five-year CAGR section. Amounts are in euros. Show a null value as '-'; never replace it with 0."
)


@cache
def _document() -> Document:
    return RECORD_URIS.assign(financial_statements())


def _load(params: Mapping[str, str], caller: str) -> Document | None:
    del params, caller  # one set of accounts, visible to every caller of this example
    return _document()


def build_server() -> MCPServer:
    """Build the financial statements server (installs the SDK patch first)."""
    server = new_server(
        "example-financial",
        "Annual accounts of a fictional French company in plan comptable général order (synthetic data).",
    )

    @server.tool(
        name=TOOL,
        annotations=tool_annotations("Annual accounts (PCG order)", verbatim=True),
    )
    def statements() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        """The FY2025 annual accounts of Atelier Fictif SAS: balance sheet (assets, then equity and liabilities),
        income statement, and the five-year history with compound annual growth rates, every line in PCG order."""
        return verbatim_result(_document(), Rendering(mode="verbatim", guidance=GUIDANCE, null_display="-"))

    @server.tool(
        name="key_figures",
        annotations=tool_annotations("Key figures", summarize_ok=True),
    )
    def figures() -> KeyFigures:
        """A few headline numbers from the same accounts (revenue, results, equity): fine to summarize."""
        return key_figures()

    @server.resource(
        RECORD_URIS.template,
        name="account-line",
        description="One line of the annual accounts, with its section and columns.",
        mime_type="application/json",
    )
    def account_line(row_id: str, ctx: Context[Any, Any]) -> str:
        uri = RECORD_URIS.record_uri(row_id)
        return record_text(uri, uris=RECORD_URIS, load=_load, ctx=ctx)

    return server


def main() -> None:
    """Serve over stdio."""
    build_server().run("stdio")


if __name__ == "__main__":
    main()
