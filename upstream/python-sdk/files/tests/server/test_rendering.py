"""Tests for the server half of the rendering extension (`io.modelcontextprotocol/rendering`).

The headline properties: tool hints ride the tool carrier, a tool's default
directive is stamped on its successful results, nothing happens unless the
server opts in, and no client declaration (or its absence, or odd request
`_meta`) makes a call fail or changes a result.
"""

from types import SimpleNamespace
from typing import Any, cast

import mcp_types as types
import pytest
from inline_snapshot import snapshot
from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError

from mcp.client import advertise
from mcp.client.client import Client
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.rendering import EXTENSION_ID, Directive, Rendering, client_supports_rendering, with_directive

pytestmark = pytest.mark.anyio

LEDGER = "Assets 1,200\nLiabilities 800\nEquity 400"


def _ledger_server() -> MCPServer:
    rendering = Rendering()

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True))
    def balance_sheet() -> str:
        return LEDGER

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True))
    def failing_sheet() -> str:
        raise ToolError("ledger closed")

    @rendering.tool(summarize_ok_hint=True, name="news", meta={"vendor.example/x": 1})
    def headlines() -> str:
        return "Markets up."

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True))
    def first_page() -> CallToolResult:
        return with_directive(
            CallToolResult(content=[TextContent(text="Assets 1,200")]), Directive(mode="verbatim", complete=False)
        )

    @rendering.tool()
    def plain() -> str:
        return "no hints"

    mcp = MCPServer("ledger", extensions=[rendering])

    @mcp.tool()
    def outside() -> str:
        return "not the extension's"

    return mcp


async def test_hints_ride_the_tool_carrier() -> None:
    """`@rendering.tool(...)` stamps the hints given, and only those, under the extension's key;
    other `meta=` keys are merged beside it; a tool without hints carries no entry."""
    async with Client(_ledger_server()) as client:
        listed = await client.list_tools()
    assert [(tool.name, tool.meta) for tool in listed.tools] == snapshot(
        [
            ("balance_sheet", {"io.modelcontextprotocol/rendering": {"verbatimHint": True}}),
            ("failing_sheet", {"io.modelcontextprotocol/rendering": {"verbatimHint": True}}),
            ("news", {"vendor.example/x": 1, "io.modelcontextprotocol/rendering": {"summarizeOkHint": True}}),
            ("first_page", {"io.modelcontextprotocol/rendering": {"verbatimHint": True}}),
            ("plain", None),
            ("outside", None),
        ]
    )


async def test_the_default_directive_is_stamped_on_successful_results() -> None:
    async with Client(_ledger_server()) as client:
        result = await client.call_tool("balance_sheet", {})
    assert result.content == [TextContent(text=LEDGER)]
    assert result.meta is not None
    assert result.meta[EXTENSION_ID] == snapshot({"mode": "verbatim", "complete": True})


async def test_a_directive_of_the_result_wins_over_the_default() -> None:
    async with Client(_ledger_server()) as client:
        result = await client.call_tool("first_page", {})
    assert result.meta is not None
    assert result.meta[EXTENSION_ID] == snapshot({"mode": "verbatim", "complete": False})


async def test_an_error_result_gets_no_directive() -> None:
    """A tool error is not the tool's data: it carries no directive (hosts read the
    tool's `verbatimHint` for it, see `mcp.client.rendering`)."""
    async with Client(_ledger_server()) as client:
        result = await client.call_tool("failing_sheet", {})
    assert result.is_error
    assert result.meta is None or EXTENSION_ID not in result.meta


async def test_tools_without_a_default_directive_are_untouched() -> None:
    async with Client(_ledger_server()) as client:
        news = await client.call_tool("news", {})
        outside = await client.call_tool("outside", {})
        plain = await client.call_tool("plain", {})
    for result in (news, outside, plain):
        assert result.meta is None or EXTENSION_ID not in result.meta


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_capability_is_advertised_only_by_an_opted_in_server(mode: Any) -> None:
    """Opting in is passing the instance to `MCPServer(extensions=[...])`; the
    declaration reaches the client through `server/discover` and through the 2025
    `initialize` response alike."""
    plain = MCPServer("plain")
    async with Client(_ledger_server(), mode=mode) as client:
        declared = client.server_capabilities.extensions
    async with Client(plain, mode=mode) as client:
        assert client.server_capabilities.extensions is None
    assert declared == {EXTENSION_ID: {}}


async def test_odd_client_declarations_and_request_meta_never_fail_a_call() -> None:
    """Whatever the client declares, or puts in the request's `_meta`, the result's
    content and directive are the same."""
    server = _ledger_server()
    results: list[CallToolResult] = []
    for extensions in (None, [advertise(EXTENSION_ID)], [advertise(EXTENSION_ID, {"unknown": [1, "x"]})]):
        async with Client(server, extensions=extensions) as client:
            results.append(await client.call_tool("balance_sheet", {}))
            results.append(
                await client.call_tool("balance_sheet", {}, meta={EXTENSION_ID: "not an object", "complete": 0})
            )
    assert all(result.content == results[0].content and result.meta == results[0].meta for result in results)


def test_a_meta_key_owned_by_the_extension_is_rejected() -> None:
    with pytest.raises(ValueError, match="owns _meta"):
        Rendering().tool(meta={EXTENSION_ID: {"verbatimHint": True}})


async def test_client_supports_rendering_from_both_contexts() -> None:
    """`client_supports_rendering` reads the client's declaration from an `MCPServer`
    `Context` and from a lowlevel `ServerRequestContext`, under both protocol eras."""
    observed: list[tuple[str, bool]] = []
    rendering = Rendering()

    @rendering.tool()
    def probe(ctx: Context) -> str:
        observed.append(("context", client_supports_rendering(ctx)))
        return "ok"

    async def list_tools(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="probe", input_schema={"type": "object"})])

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> CallToolResult:
        observed.append(("lowlevel", client_supports_rendering(ctx)))
        return CallToolResult(content=[TextContent(text="ok")])

    servers = (
        MCPServer("probe", extensions=[rendering]),
        Server("probe", on_list_tools=list_tools, on_call_tool=call_tool),
    )
    for server in servers:
        for mode in ("auto", "legacy"):
            for extensions in (None, [advertise(EXTENSION_ID)], [advertise("vendor.example/other")]):
                async with Client(server, mode=mode, extensions=extensions) as client:
                    await client.call_tool("probe", {})
    assert observed == snapshot(
        [
            ("context", False),
            ("context", True),
            ("context", False),
            ("context", False),
            ("context", True),
            ("context", False),
            ("lowlevel", False),
            ("lowlevel", True),
            ("lowlevel", False),
            ("lowlevel", False),
            ("lowlevel", True),
            ("lowlevel", False),
        ]
    )


async def test_client_supports_rendering_with_unknown_settings() -> None:
    """Any object declares the extension: settings this version does not know are ignored."""
    observed: list[bool] = []
    rendering = Rendering()

    @rendering.tool()
    def probe(ctx: Context) -> str:
        observed.append(client_supports_rendering(ctx))
        return "ok"

    settings = [{}, {"vendor.example/setting": True}, {"unknownSetting": {"nested": [1]}}]
    for mode in ("auto", "legacy"):
        for each in settings:
            async with Client(
                MCPServer("probe", extensions=[rendering]), mode=mode, extensions=[advertise(EXTENSION_ID, each)]
            ) as client:
                await client.call_tool("probe", {})
    assert observed == [True] * 6


@pytest.mark.parametrize(
    ("extensions", "declared"),
    [
        pytest.param({EXTENSION_ID: {}}, True, id="empty-object"),
        pytest.param({EXTENSION_ID: {"unknownSetting": 1}}, True, id="unknown-settings"),
        pytest.param({EXTENSION_ID: None}, False, id="null"),
        pytest.param({EXTENSION_ID: False}, False, id="false"),
        pytest.param({EXTENSION_ID: True}, False, id="true"),
        pytest.param({EXTENSION_ID: "yes"}, False, id="string"),
        pytest.param({EXTENSION_ID: []}, False, id="array"),
        pytest.param({"vendor.example/other": {}}, False, id="another-extension"),
        pytest.param(None, False, id="no-extensions"),
    ],
)
def test_only_an_object_declares_the_extension(extensions: Any, declared: bool) -> None:
    """However the capabilities were recorded (the SDK's models validate the wire, but a
    capabilities object can be built without validation), only an object is a declaration."""
    capabilities = types.ClientCapabilities.model_construct(extensions=extensions)
    ctx = ServerRequestContext(
        session=cast("Any", SimpleNamespace(client_capabilities=capabilities)),
        lifespan_context={},
        protocol_version="2026-07-28",
        method="tools/call",
    )
    assert client_supports_rendering(ctx) is declared


def test_with_directive_keeps_other_meta_and_replaces_a_directive() -> None:
    result = CallToolResult(content=[], _meta={"vendor.example/x": 1, EXTENSION_ID: {"mode": "summarizable"}})
    stamped = with_directive(
        result, Directive(mode="verbatim", null_display="n/a", guidance="Every line.", complete=True)
    )
    assert stamped.meta == snapshot(
        {
            "vendor.example/x": 1,
            "io.modelcontextprotocol/rendering": {
                "mode": "verbatim",
                "guidance": "Every line.",
                "nullDisplay": "n/a",
                "complete": True,
            },
        }
    )
    assert result.meta == {"vendor.example/x": 1, EXTENSION_ID: {"mode": "summarizable"}}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"null_display": ""}, "null_display: empty, blank or invisible", id="null-display-empty"),
        pytest.param({"null_display": " \u200b"}, "null_display: empty, blank or invisible", id="null-display-blank"),
        pytest.param({"null_display": "\u2800"}, "null_display: empty, blank or invisible", id="null-display-braille"),
        pytest.param({"null_display": "\u3164"}, "null_display: empty, blank or invisible", id="null-display-filler"),
        pytest.param({"null_display": "n/a  -"}, "null_display: outside the printable", id="null-display-type"),
        pytest.param({"null_display": "-"}, "null_display: holds no letter", id="null-display-dash"),
        pytest.param({"null_display": "\u2014"}, "null_display: holds no letter", id="null-display-em-dash"),
        pytest.param({"null_display": "- . -"}, "null_display: holds no letter", id="null-display-punctuation"),
        pytest.param({"null_display": "O.OO"}, "null_display: holds no letter", id="null-display-zero-look-alike"),
        pytest.param({"null_display": "l,OOO"}, "null_display: holds no letter", id="null-display-look-alikes"),
        pytest.param({"null_display": "0"}, "null_display: holds a decimal digit", id="null-display-zero"),
        pytest.param({"null_display": "n/a 1"}, "null_display: holds a decimal digit", id="null-display-digit"),
        pytest.param({"mode": "verbatim"}, "complete\n  Field required", id="complete-unstated"),
        pytest.param({"null_display": "x" * 17}, "longer than 16", id="null-display-long"),
        pytest.param({"guidance": "x" * 1001}, "longer than 1000", id="guidance-long"),
        pytest.param({"complete": "true"}, "Input should be a valid boolean", id="complete-string"),
        pytest.param({"completed": True}, "Extra inputs", id="misspelled-member"),
    ],
)
def test_a_directive_is_well_formed_by_construction(fields: dict[str, Any], message: str) -> None:
    """A server cannot build a directive the specification calls malformed."""
    with pytest.raises(ValidationError, match=message):
        Directive.model_validate(fields)


def test_a_directive_takes_wire_names_and_keeps_open_modes() -> None:
    directive = Directive.model_validate({"mode": "tabular", "nullDisplay": "— néant —", "complete": False})
    assert directive.to_wire() == snapshot({"mode": "tabular", "nullDisplay": "— néant —", "complete": False})
