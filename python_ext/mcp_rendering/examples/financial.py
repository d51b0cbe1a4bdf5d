"""Example server: annual accounts in the regulatory order of the French plan comptable général (PCG).

An auditor reads a balance sheet by its order of accounts and its subtotals: "total actif immobilisé", "total
capitaux propres", the operating result. A host that collapses those lines into a three-line synthesis, or drops the
five-year section as low value, breaks the document. The statements tool declares `verbatimHint` and returns its
result with a verbatim directive; a separate key-figures tool declares `summarizeOkHint`.

Run over stdio: ``python -m mcp_rendering.examples.financial``; add ``--framework fastmcp`` to serve the same tools
from FastMCP 4 (the `fastmcp` extra). The company and every figure are invented.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

import mcp_types
from mcp.server.mcpserver import Context, MCPServer

from mcp_rendering.builder import VerbatimContent, verbatim_result
from mcp_rendering.document import Document
from mcp_rendering.envelope import RecordNotFoundError, RecordUris, read_record
from mcp_rendering.examples._server import ANONYMOUS_CALLER, new_server, record_text, serve, tool_annotations
from mcp_rendering.examples.financial_data import KeyFigures, financial_statements, key_figures
from mcp_rendering.types import Rendering

if TYPE_CHECKING:
    from fastmcp import FastMCP

__all__ = ["GUIDANCE", "RECORD_URIS", "TOOL", "build_fastmcp_server", "build_server", "main"]

TOOL = "financial_statements"
"""Name of the verbatim tool."""

RECORD_URIS = RecordUris("accounts://atelier-fictif/fy2025/lines/{row_id}")
"""Canonical URI of one line of the accounts; the same template is served as a resource template."""

GUIDANCE = (
    "Regulatory statements (PCG): show every line of every section in the order given, keeping subtotals and totals "
    "and the five-year CAGR section. Amounts are in euros. Show a null value as 'n/a'; never replace it with 0."
)

DESCRIPTION = "Example MCP server: annual accounts in plan comptable général order (synthetic data)."
"""What `--help` says the server is."""

# What both builds declare, written once so that the MCPServer and FastMCP servers cannot drift apart.
_NAME = "example-financial"
_INSTRUCTIONS = "Annual accounts of a fictional French company in plan comptable général order (synthetic data)."
_STATEMENTS_DESCRIPTION = (
    "The FY2025 annual accounts of Atelier Fictif SAS: balance sheet (assets, then equity and liabilities), income "
    "statement, and the five-year history with compound annual growth rates, every line in PCG order."
)
_FIGURES_DESCRIPTION = "A few headline numbers from the same accounts (revenue, results, equity): fine to summarize."
_LINE_DESCRIPTION = "One line of the annual accounts, with its section and columns."


@cache
def _document() -> Document:
    return RECORD_URIS.assign(financial_statements())


def _load(params: Mapping[str, str], caller: str) -> Document | None:
    del params, caller  # one set of accounts, visible to every caller of this example
    return _document()


def _statements(*, record_links: bool) -> mcp_types.CallToolResult:
    return verbatim_result(
        _document(),
        Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True),
        record_links=record_links,
    )


def build_server(*, plain: bool = False, record_links: bool = False) -> MCPServer:
    """Build the financial statements server (installs the SDK patch first, unless `plain`).

    With `record_links`, each record also comes as a `resource_link` block to its URI (its URI is in the
    structured record either way).
    """
    server = new_server(_NAME, _INSTRUCTIONS, plain=plain)

    @server.tool(
        name=TOOL,
        description=_STATEMENTS_DESCRIPTION,
        annotations=tool_annotations("Annual accounts (PCG order)", verbatim=True, plain=plain),
    )
    def statements() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        return _statements(record_links=record_links)

    @server.tool(
        name="key_figures",
        description=_FIGURES_DESCRIPTION,
        annotations=tool_annotations("Key figures", summarize_ok=True, plain=plain),
    )
    def figures() -> KeyFigures:
        return key_figures()

    @server.resource(
        RECORD_URIS.template, name="account-line", description=_LINE_DESCRIPTION, mime_type="application/json"
    )
    def account_line(row_id: str, ctx: Context[Any, Any]) -> str:
        uri = RECORD_URIS.record_uri(row_id)
        return record_text(uri, uris=RECORD_URIS, load=_load, ctx=ctx)

    return server


def build_fastmcp_server(*, plain: bool = False, record_links: bool = False) -> FastMCP[Any]:
    """The same server built with FastMCP 4: same tools, hints, results and resource template.

    The rendering extension is registered with `enable_rendering` (advertisement and `_meta` carriers), unless
    `plain`. Needs the `fastmcp` extra, imported here so that the MCPServer build does not.
    """
    from fastmcp import FastMCP
    from mcp import MCPError

    server: FastMCP[Any] = FastMCP(_NAME, instructions=_INSTRUCTIONS, version="0.1.0")
    if not plain:
        from mcp_rendering.integrations.fastmcp import enable_rendering

        enable_rendering(server)  # installs the SDK patch: before any tool is declared

    @server.tool(
        name=TOOL,
        description=_STATEMENTS_DESCRIPTION,
        annotations=tool_annotations("Annual accounts (PCG order)", verbatim=True, plain=plain),
    )
    def statements() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        return _statements(record_links=record_links)

    @server.tool(
        name="key_figures",
        description=_FIGURES_DESCRIPTION,
        annotations=tool_annotations("Key figures", summarize_ok=True, plain=plain),
    )
    def figures() -> KeyFigures:
        return key_figures()

    @server.resource(
        RECORD_URIS.template, name="account-line", description=_LINE_DESCRIPTION, mime_type="application/json"
    )
    def account_line(row_id: str) -> str:
        uri = RECORD_URIS.record_uri(row_id)
        try:
            return read_record(uri, uris=RECORD_URIS, load=_load, caller=_fastmcp_caller()).text
        except RecordNotFoundError as error:
            # FastMCP masks other exceptions as internal errors: answer not-found as FastMCP and MCPServer do.
            raise MCPError(code=mcp_types.INVALID_PARAMS, message=str(error), data={"uri": uri}) from None

    return server


def _fastmcp_caller() -> str:
    """The caller's authorization context under FastMCP, by the rules of `caller_of` for MCPServer: the
    authenticated principal when there is one, else `ANONYMOUS_CALLER`."""
    from fastmcp.server.dependencies import get_access_token
    from mcp.server.auth.provider import principal_components

    token = get_access_token()
    if token is not None:
        return json.dumps(principal_components(token), separators=(",", ":"))
    return ANONYMOUS_CALLER


def main(argv: list[str] | None = None) -> int:
    """Serve over stdio, or over streamable HTTP with `--http HOST:PORT`; `--framework fastmcp` for FastMCP."""
    return serve(build_server, argv, description=DESCRIPTION, fastmcp_build=build_fastmcp_server)


if __name__ == "__main__":
    sys.exit(main())
