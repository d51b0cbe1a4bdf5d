"""Example server: a KYC / sanctions screening that must show every flagged customer.

A compliance reviewer has to see each hit; a summary such as "about 250 hits, mostly adverse media" is exactly the
failure the rendering hints exist to prevent. The report is larger than one page, so the tool returns bounded
pages at record boundaries, each with a continuation token, and every hit has a canonical record URI that
`resources/read` resolves for the same caller.

Run over stdio: ``python -m mcp_rendering.examples.screening``. All names and lists are fictional.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any

import mcp_types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from mcp_rendering.builder import VerbatimContent, continuation_tool_meta, error_result, paged_result
from mcp_rendering.document import Document
from mcp_rendering.envelope import Budget, Envelope, RecordUris, content_fingerprint
from mcp_rendering.examples._server import (
    call_arguments,
    caller_of,
    continuation_tokens,
    new_server,
    record_text,
    serve,
    tool_annotations,
)
from mcp_rendering.examples.screening_data import (
    DEFAULT_BATCH,
    ScreeningSummary,
    screening_document,
    screening_summary,
)
from mcp_rendering.types import Rendering

__all__ = ["BUDGET", "GUIDANCE", "RECORD_URIS", "TOOL", "build_server", "main"]

TOOL = "screening_report"
"""Name of the verbatim tool."""

RECORD_URIS = RecordUris("screening://batches/{batch}/hits/{row_id}")
"""Canonical URI of one hit; the same template is served as a resource template."""

BUDGET = Budget(max_bytes=40_000, max_items=100)
"""Page limits: small enough that the example batch takes a few pages."""

GUIDANCE = (
    "Compliance report: show every flagged customer, in the order given, under its list heading, with its score "
    "and source list. Show a missing date of birth as 'n/a'. If the result is incomplete, say so and fetch the rest."
)

KNOWN_BATCHES = (DEFAULT_BATCH, "onboarding-2025-q3")
"""Batches this server holds (the data of each is generated from its name)."""


@cache
def _document(batch: str) -> Document:
    return RECORD_URIS.assign(screening_document(batch), batch=batch)


@cache
def _fingerprint(batch: str) -> str:
    # A digest of the content, so that any change to a hit (not only to their count) voids older tokens; computed
    # once per batch because the data is static, so a call pays nothing for it.
    return content_fingerprint(_document(batch))


def _load(params: Mapping[str, str], caller: str) -> Document | None:
    # Every caller of this example may see every batch; a real server would check `caller` here, so that a record
    # URI resolves only for a caller who could have received it from the tool.
    del caller
    batch = params.get("batch")
    return _document(batch) if batch in KNOWN_BATCHES else None


DESCRIPTION = "Example MCP server: a KYC / sanctions screening listing every flagged customer, paged (synthetic data)."
"""What `--help` says the server is."""


def build_server(*, plain: bool = False, record_links: bool = False) -> MCPServer:
    """Build the screening server (installs the SDK patch first, unless `plain`).

    With `record_links`, each record also comes as a `resource_link` block to its URI (its URI is in the
    structured record either way).
    """
    server = new_server(
        "example-screening",
        "Sanctions and KYC screening of customer batches (synthetic data). Reports list every flagged customer.",
        plain=plain,
    )
    envelope = Envelope(tool=TOOL, tokens=continuation_tokens(), budget=BUDGET, argument="cursor")

    @server.tool(
        name=TOOL,
        meta=None if plain else continuation_tool_meta("cursor"),
        annotations=tool_annotations("Screening report (every flagged customer)", verbatim=True, plain=plain),
    )
    def screening_report(
        ctx: Context[Any, Any], batch: str = DEFAULT_BATCH, cursor: str | None = None
    ) -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        """Every customer of a screening batch flagged against the (fictional) sanctions, PEP and adverse-media
        lists, grouped by list. Results are paged: when the result is incomplete, call again with the same
        arguments plus the returned `cursor`. Each hit links to its record URI."""
        if batch not in KNOWN_BATCHES:
            return error_result(f"unknown batch {batch!r}; known batches: {', '.join(KNOWN_BATCHES)}")
        return paged_result(
            envelope,
            _document(batch),
            arguments=call_arguments(cursor, batch=batch),
            caller=caller_of(ctx),
            directive=Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True),
            record_links=record_links,
            fingerprint=_fingerprint(batch),
        )

    @server.tool(
        name="screening_summary",
        annotations=tool_annotations("Screening counts", summarize_ok=True, plain=plain),
    )
    def summary(batch: str = DEFAULT_BATCH) -> ScreeningSummary:
        """Counts of flagged customers per list for a batch: headline numbers, fine to summarize."""
        if batch not in KNOWN_BATCHES:
            raise ToolError(f"unknown batch {batch!r}; known batches: {', '.join(KNOWN_BATCHES)}")
        return screening_summary(batch)

    @server.resource(
        RECORD_URIS.template,
        name="screening-hit",
        description="One flagged customer of a screening batch, as returned by screening_report.",
        mime_type="application/json",
    )
    def screening_hit(batch: str, row_id: str, ctx: Context[Any, Any]) -> str:
        uri = RECORD_URIS.record_uri(row_id, batch=batch)
        return record_text(uri, uris=RECORD_URIS, load=_load, ctx=ctx)

    return server


def main(argv: list[str] | None = None) -> int:
    """Serve over stdio, or over streamable HTTP with `--http HOST:PORT`."""
    return serve(build_server, argv, description=DESCRIPTION)


if __name__ == "__main__":
    sys.exit(main())
