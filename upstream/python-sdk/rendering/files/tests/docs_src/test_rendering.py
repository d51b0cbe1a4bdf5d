"""`docs/advanced/rendering.md`: the page's tutorials, driven in-process against the real SDK.

The reading rules the page lists are proved case by case in `tests/client/test_rendering.py`,
and the `Directive` rules in `tests/server/test_rendering.py`.
"""

import pytest
from mcp_types import TextContent

from docs_src.rendering import tutorial001, tutorial001_client, tutorial002
from mcp import Client
from mcp.client.rendering import RENDERING_SUPPORT, read_rendering
from mcp.server.rendering import EXTENSION_ID

# See test_index.py for why this is a per-module mark and not a conftest hook.
pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("error::mcp.MCPDeprecationWarning")]


async def test_the_host_prints_what_the_page_shows() -> None:
    """tutorial001_client's `report`, driven against tutorial001's server: the output
    block of "Reading it in a host", line for line."""
    async with Client(tutorial001.mcp, extensions=[RENDERING_SUPPORT]) as client:
        lines = await tutorial001_client.report(client)
    assert lines == ["balance_sheet: verbatim, partial=False", "headlines: summarizable, partial=True"]


async def test_the_hints_ride_each_tools_list_entry_and_the_capability_is_advertised() -> None:
    """tutorial001: `@rendering.tool(...)` stamps its hints under the extension's key, and
    `extensions=[rendering]` advertises `io.modelcontextprotocol/rendering`."""
    async with Client(tutorial001.mcp) as client:
        listed = await client.list_tools()
        assert client.server_capabilities.extensions == {EXTENSION_ID: {}}
    assert {tool.name: tool.meta for tool in listed.tools} == {
        "balance_sheet": {EXTENSION_ID: {"verbatimHint": True}},
        "headlines": {EXTENSION_ID: {"summarizeOkHint": True}},
    }


async def test_the_default_directive_is_stamped_on_the_result() -> None:
    """tutorial001: `balance_sheet`'s `directive=` reaches the host on each result."""
    async with Client(tutorial001.mcp) as client:
        result = await client.call_tool("balance_sheet", {})
    assert result.content == [TextContent(text=tutorial001.BALANCE_SHEET)]
    assert result.meta is not None
    assert result.meta[EXTENSION_ID] == {"mode": "verbatim", "guidance": "Show every line, in order.", "complete": True}


async def test_a_bounded_part_reads_partial_and_both_clients_get_the_same_hits() -> None:
    """tutorial002: the per-call directive says `complete: false`; a client that did not
    declare the extension gets the same five hits, plus the tool's note."""
    async with Client(tutorial002.mcp, extensions=[RENDERING_SUPPORT]) as declaring:
        [tool] = (await declaring.list_tools()).tools
        declared = await declaring.call_tool("screening", {})
    async with Client(tutorial002.mcp) as silent:
        not_declared = await silent.call_tool("screening", {})
    hits = [TextContent(text=hit) for hit in tutorial002.HITS[:5]]
    assert declared.content == hits
    assert not_declared.content == [*hits, TextContent(text="(first 5 of 7 hits)")]
    assert declared.meta is not None
    assert declared.meta[EXTENSION_ID] == {"mode": "verbatim", "nullDisplay": "-", "complete": False}
    reading = read_rendering(tool, declared)
    assert reading is not None
    assert (reading.mode, reading.null_display, reading.partial) == ("verbatim", "-", True)
