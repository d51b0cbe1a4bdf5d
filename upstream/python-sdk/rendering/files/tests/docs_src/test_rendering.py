"""`docs/advanced/rendering.md`: every claim the page makes, proved against the real SDK."""

from types import SimpleNamespace
from typing import Any, cast

import pytest
from mcp_types import CallToolResult, ClientCapabilities, TextContent, Tool
from pydantic import ValidationError

from docs_src.rendering import tutorial001, tutorial001_client, tutorial002
from mcp import Client
from mcp.client.rendering import RENDERING_SUPPORT, read_rendering
from mcp.server import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.rendering import EXTENSION_ID, Directive, Rendering, client_supports_rendering

# See test_index.py for why this is a per-module mark and not a conftest hook.
pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("error::mcp.MCPDeprecationWarning")]


async def test_the_tools_carry_their_hints() -> None:
    """tutorial001: `@rendering.tool(verbatim_hint=True)` stamps the tool carrier."""
    async with Client(tutorial001.mcp) as client:
        listed = await client.list_tools()
    assert [(tool.name, tool.meta) for tool in listed.tools] == [
        ("balance_sheet", {EXTENSION_ID: {"verbatimHint": True}}),
        ("headlines", {EXTENSION_ID: {"summarizeOkHint": True}}),
    ]


async def test_the_directive_is_stamped_on_each_result() -> None:
    """tutorial001: the tool's `directive` rides every successful result."""
    async with Client(tutorial001.mcp) as client:
        result = await client.call_tool("balance_sheet", {})
    assert result.content == [TextContent(type="text", text=tutorial001.BALANCE_SHEET)]
    assert result.meta is not None
    assert result.meta[EXTENSION_ID] == {"mode": "verbatim", "guidance": "Show every line, in order.", "complete": True}


async def test_opting_in_advertises_the_extension() -> None:
    """tutorial001: `extensions=[rendering]` advertises the extension through `server/discover`
    and in the 2025 `initialize` response alike; a server that does not opt in advertises nothing."""
    async with Client(tutorial001.mcp, mode="auto") as client:
        assert client.server_capabilities.extensions == {EXTENSION_ID: {}}
    async with Client(tutorial001.mcp, mode="legacy") as client:
        assert client.server_capabilities.extensions == {EXTENSION_ID: {}}
        legacy = await client.call_tool("balance_sheet", {})
    async with Client(MCPServer("plain")) as client:
        assert client.server_capabilities.extensions is None
    assert legacy.meta is not None and legacy.meta[EXTENSION_ID]["mode"] == "verbatim"


async def test_a_tool_error_gets_no_directive_and_stays_verbatim() -> None:
    """The page: an error result carries no directive, and a host reads it as verbatim by the tool's hint."""
    rendering = Rendering()

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True))
    def ledger() -> str:
        raise ToolError("the ledger is closed")

    async with Client(MCPServer("ledger", extensions=[rendering])) as client:
        tool = (await client.list_tools()).tools[0]
        error = await client.call_tool("ledger", {})
    assert error.is_error
    assert error.meta is None or EXTENSION_ID not in error.meta
    assert read_rendering(tool, error).mode == "verbatim"


@pytest.mark.parametrize(
    "fields",
    [
        {"null_display": ""},
        {"null_display": "   "},
        {"null_display": "0"},
        {"null_display": "-"},
        {"null_display": "\u2014"},
        {"null_display": "n/a  x"},
        {"guidance": "x" * 1001},
        {"complete": "true"},
        {"completed": True},
        {"mode": "verbatim"},
    ],
)
def test_a_directive_is_validated_when_built(fields: dict[str, Any]) -> None:
    """The page's list of what `Directive` refuses."""
    with pytest.raises(ValidationError):
        Directive.model_validate(fields)


@pytest.mark.parametrize("null_display", ["n/a", "N/A", "null", "\u2014 n\u00e9ant \u2014"])
def test_a_null_text_holds_a_letter_that_resembles_no_digit(null_display: str) -> None:
    """The page: a null text holds one of the letters that resemble no digit."""
    directive = Directive(null_display=null_display, complete=True)
    assert directive.to_wire() == {"nullDisplay": null_display, "complete": True}


@pytest.mark.parametrize("null_display", ["O", "l", "O.OO", "l,OOO", "(O)", "S", "\u00ba", "lO"])
def test_a_null_text_of_digit_look_alikes_is_refused(null_display: str) -> None:
    """The page: look-alikes such as `"O.OO"` or `"l,OOO"` cannot stand for a null."""
    with pytest.raises(ValidationError):
        Directive(null_display=null_display, complete=True)


async def test_the_client_prints_what_the_page_shows() -> None:
    """tutorial001_client's `report`, driven in-process against tutorial001's server."""
    async with Client(tutorial001.mcp, extensions=[RENDERING_SUPPORT]) as client:
        lines = await tutorial001_client.report(client)
    assert lines == ["balance_sheet: verbatim, partial=False", "headlines: summarizable, partial=True"]


def _tool(carrier: Any) -> Tool:
    return Tool(name="t", input_schema={"type": "object"}, _meta={EXTENSION_ID: carrier})


def _result(directive: Any, *, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[], is_error=is_error, _meta={EXTENSION_ID: directive})


@pytest.mark.parametrize(
    ("tool", "directive", "mode"),
    [
        pytest.param({"verbatimHint": "no"}, None, "verbatim", id="malformed-verbatim-hint-reads-true"),
        pytest.param({"summarizeOkHint": 1}, None, "verbatim", id="malformed-summarize-ok-makes-it-unclean"),
        pytest.param({"summarizeOkHint": True, "verbatim": True}, None, "verbatim", id="unclean-hints-read-verbatim"),
        pytest.param({"summarizeOkHint": True}, {"completed": True}, "verbatim", id="unclean-directive-no-mode"),
        pytest.param({"summarizeOkHint": True}, {"mode": "tabular"}, "verbatim", id="other-strings-read-verbatim"),
        pytest.param({"summarizeOkHint": True}, {"mode": 1}, "verbatim", id="malformed-mode-reads-verbatim"),
        pytest.param({"summarizeOkHint": True}, {"mode": "summarizable"}, "summarizable", id="summarizable"),
        pytest.param({}, {"mode": "summarizable", "completed": True}, "verbatim", id="unclean-never-shows-less"),
        pytest.param({"verbatimHint": True, "summarizeOkHint": True}, None, "verbatim", id="verbatim-wins"),
        pytest.param({}, None, "unspecified", id="no-hint"),
        pytest.param("verbatim", None, "verbatim", id="carrier-not-an-object"),
    ],
)
def test_the_mode_table(tool: Any, directive: Any, mode: str) -> None:
    """The page's table and bullets: mode and the hints."""
    result = _result(directive) if directive is not None else CallToolResult(content=[])
    assert read_rendering(_tool(tool), result).mode == mode


@pytest.mark.parametrize(
    ("directive", "guidance", "null_display", "completeness", "problems"),
    [
        ({"complete": True, "guidance": "ok", "nullDisplay": "n/a"}, "ok", "n/a", "complete", 0),
        ({"complete": False}, None, "n/a", "incomplete", 0),
        ({}, None, "n/a", "unstated", 0),
        ({"completed": True}, None, "n/a", "unstated", 1),
        ({"complete": "true"}, None, "n/a", "unstated", 1),
        ({"complete": True, "guidance": "x" * 1001, "nullDisplay": "0"}, None, "n/a", "unstated", 2),
        ({"complete": True, "nullDisplay": " "}, None, "n/a", "unstated", 1),
        ({"complete": True, "nullDisplay": "\u2800"}, None, "n/a", "unstated", 1),
        ({"complete": True, "nullDisplay": "x" * 17}, None, "n/a", "unstated", 1),
        ({"complete": True, "nullDisplay": "-"}, None, "n/a", "unstated", 1),
        ({"complete": True, "nullDisplay": "\u2014"}, None, "n/a", "unstated", 1),
        ({"complete": True, "nullDisplay": "- -"}, None, "n/a", "unstated", 1),
        ({"complete": True, "nullDisplay": "n/a 1"}, None, "n/a", "unstated", 1),
        ({"complete": True, "nullDisplay": "\u00e9t\u00e9 \u2014"}, None, "\u00e9t\u00e9 \u2014", "complete", 0),
        ({"complete": True, "nullDisplay": "NaN"}, None, "NaN", "complete", 0),
    ],
)
def test_the_directive_table(
    directive: Any, guidance: str | None, null_display: str, completeness: str, problems: int
) -> None:
    """The page's table and bullets: guidance, nullDisplay, complete; only `complete: true`
    is not partial; each odd value is one problem."""
    reading = read_rendering(None, _result(directive))
    assert (reading.guidance, reading.null_display, reading.completeness) == (guidance, null_display, completeness)
    assert reading.partial is (completeness != "complete")
    assert len(reading.problems) == problems


@pytest.mark.parametrize(
    ("tool", "is_error", "mode"),
    [
        pytest.param({"verbatimHint": True}, True, "verbatim", id="error-of-a-verbatim-tool"),
        pytest.param({"verbatimHint": True}, False, "summarizable", id="success-of-a-verbatim-tool"),
        pytest.param({"summarizeOkHint": True}, True, "summarizable", id="error-of-another-tool"),
    ],
)
def test_an_error_result_of_a_verbatim_tool_stays_verbatim(tool: Any, is_error: bool, mode: str) -> None:
    """The page's bullet: an error result of a verbatim tool reads verbatim, whatever its `mode` says."""
    assert read_rendering(_tool(tool), _result({"mode": "summarizable"}, is_error=is_error)).mode == mode


@pytest.mark.parametrize(
    ("arguments", "completeness"),
    [
        pytest.param(None, "unstated", id="arguments-not-given"),
        pytest.param({"cursor": "p2"}, "unstated", id="later-part"),
        pytest.param({}, "complete", id="first-part"),
        pytest.param({"cursor": None}, "unstated", id="set-to-null-is-a-later-part"),
    ],
)
def test_a_result_of_a_tool_that_declares_a_continuation_argument(arguments: Any, completeness: str) -> None:
    """The page's bullet: such a result is complete only when read with the arguments of its call,
    and that call did not set the continuation argument."""
    tool = Tool(
        name="ledger",
        input_schema={"type": "object", "properties": {"cursor": {"type": "string"}}},
        _meta={"io.modelcontextprotocol/result-continuation": {"argument": "cursor"}},
    )
    reading = read_rendering(tool, _result({"complete": True}), arguments=arguments)
    assert (reading.completeness, reading.partial) == (completeness, completeness != "complete")


@pytest.mark.parametrize(
    ("tool", "partial"),
    [
        pytest.param({"verbatimHint": True}, True, id="tool-with-hints"),
        pytest.param(None, False, id="tool-without-hints"),
    ],
)
def test_a_result_without_a_directive(tool: Any, partial: bool) -> None:
    """The page's bullet: a tool's hints make its results read, and without a directive their
    completeness is not stated; a result with neither carrier is not read, so not partial."""
    reading = read_rendering(_tool(tool), CallToolResult(content=[]))
    assert (reading.completeness, reading.partial) == ("unstated", partial)


@pytest.mark.parametrize(
    ("settings", "declared"),
    [({}, True), ({"unknownSetting": 1}, True), (None, False), (False, False), (True, False), ("yes", False)],
)
def test_only_an_object_declares_the_extension(settings: Any, declared: bool) -> None:
    """The page: an object under `capabilities.extensions`, whatever settings it holds, declares
    the extension; any other value declares nothing."""
    capabilities = ClientCapabilities.model_construct(extensions={EXTENSION_ID: settings})
    ctx = ServerRequestContext(
        session=cast("Any", SimpleNamespace(client_capabilities=capabilities)),
        lifespan_context={},
        protocol_version="2026-07-28",
        method="tools/call",
    )
    assert client_supports_rendering(ctx) is declared


async def test_a_bounded_part_reads_as_partial_and_keeps_its_records() -> None:
    """tutorial002: `with_directive(..., complete=False)` makes the result partial for a host;
    a client that did not declare the extension gets the same hits plus a note."""
    async with Client(tutorial002.mcp, extensions=[RENDERING_SUPPORT]) as declared:
        tool = (await declared.list_tools()).tools[0]
        part = await declared.call_tool("screening", {})
    async with Client(tutorial002.mcp) as undeclared:
        noted = await undeclared.call_tool("screening", {})
    reading = read_rendering(tool, part)
    assert (reading.mode, reading.completeness, reading.partial, reading.null_display) == (
        "verbatim",
        "incomplete",
        True,
        "n/a",
    )
    hits = [TextContent(type="text", text=hit) for hit in tutorial002.HITS[: tutorial002.PAGE_SIZE]]
    assert part.content == hits
    assert noted.content == [*hits, TextContent(type="text", text="(first 5 of 7 hits)")]
    assert noted.meta == part.meta
