"""Example server: a five-level org chart of a few thousand people.

Here the shape is the value: each person sits directly under their manager, and `Row.level` carries the depth.
Flattening the chart, reordering it for readability or keeping only the leaders would misreport who reports to
whom. The chart is far larger than one page, so the tool returns bounded pages at record boundaries, each with a
continuation token; every person has a canonical record URI that `resources/read` resolves for the same caller.

Run over stdio: ``python -m mcp_rendering.examples.orgchart``. The company and its people are invented.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any

import mcp_types
from mcp.server.mcpserver import Context, MCPServer

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
from mcp_rendering.examples.orgchart_data import DIVISIONS, Headcount, headcount_summary, org_chart_document
from mcp_rendering.types import Rendering

__all__ = ["BUDGET", "GUIDANCE", "RECORD_URIS", "TOOL", "build_server", "main"]

TOOL = "org_chart"
"""Name of the verbatim tool."""

RECORD_URIS = RecordUris("orgchart://quillmoor/people/{row_id}")
"""Canonical URI of one person; the same template is served as a resource template."""

BUDGET = Budget(max_bytes=64_000, max_items=400)
"""Page limits: the whole chart takes several pages."""

GUIDANCE = (
    "Org chart: show every person in the order given, indented by level, so that each person appears under their "
    "manager. Do not reorder, group or drop people. If the result is incomplete, say so and fetch the rest."
)


@cache
def _document(division: str | None) -> Document:
    return RECORD_URIS.assign(org_chart_document(division))


@cache
def _fingerprint(division: str | None) -> str:
    # A digest of the content, so that any change to a person (not only to the headcount) voids older tokens;
    # computed once per division because the data is static, so a call pays nothing for it.
    return content_fingerprint(_document(division))


def _load(params: Mapping[str, str], caller: str) -> Document | None:
    del params, caller  # everyone in this example may see the whole chart
    return _document(None)


DESCRIPTION = "Example MCP server: a five-level org chart, paged (synthetic data)."
"""What `--help` says the server is."""


def build_server(*, plain: bool = False, record_links: bool = False) -> MCPServer:
    """Build the org chart server (installs the SDK patch first, unless `plain`).

    With `record_links`, each record also comes as a `resource_link` block to its URI (its URI is in the
    structured record either way).
    """
    server = new_server(
        "example-orgchart",
        "The org chart of a fictional company, a few thousand people over five levels (synthetic data).",
        plain=plain,
    )
    envelope = Envelope(tool=TOOL, tokens=continuation_tokens(), budget=BUDGET, argument="cursor")

    @server.tool(
        name=TOOL,
        meta=None if plain else continuation_tool_meta("cursor"),
        annotations=tool_annotations("Org chart (every person, by level)", verbatim=True, plain=plain),
    )
    def org_chart(
        ctx: Context[Any, Any], division: str | None = None, cursor: str | None = None
    ) -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        """The org chart, depth-first: each manager followed by their reports, one section per division.
        `division` (one of exec, eng, ops, sales, fin, people, legal) keeps one division. Results are paged: when
        the result is incomplete, call again with the same arguments plus the returned `cursor`."""
        if division is not None and division not in DIVISIONS:
            return error_result(f"unknown division {division!r}; choose one of {', '.join(DIVISIONS)}")
        return paged_result(
            envelope,
            _document(division),
            arguments=call_arguments(cursor, division=division),
            caller=caller_of(ctx),
            directive=Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True),
            record_links=record_links,
            fingerprint=_fingerprint(division),
        )

    @server.tool(
        name="headcount",
        annotations=tool_annotations("Headcount by division", summarize_ok=True, plain=plain),
    )
    def headcount() -> Headcount:
        """Headcount per division: headline numbers, fine to summarize."""
        return headcount_summary()

    @server.resource(
        RECORD_URIS.template,
        name="person",
        description="One person of the org chart, with their title, site and manager.",
        mime_type="application/json",
    )
    def person(row_id: str, ctx: Context[Any, Any]) -> str:
        uri = RECORD_URIS.record_uri(row_id)
        return record_text(uri, uris=RECORD_URIS, load=_load, ctx=ctx)

    return server


def main(argv: list[str] | None = None) -> int:
    """Serve over stdio, or over streamable HTTP with `--http HOST:PORT`."""
    return serve(build_server, argv, description=DESCRIPTION)


if __name__ == "__main__":
    sys.exit(main())
