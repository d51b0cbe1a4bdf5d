"""Tests for the server half of the rendering extension (`io.modelcontextprotocol/rendering`).

The headline properties: tool hints ride the tool carrier, a tool's default
directive is stamped on its successful results only, nothing happens unless the
server opts in, and a `Directive` is well-formed by construction.
"""

from typing import Any

import pytest
from inline_snapshot import snapshot
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
)
from pydantic import ValidationError

from mcp.client import ClientRequestContext
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.rendering import EXTENSION_ID, Directive, Rendering, with_directive

pytestmark = pytest.mark.anyio


def _ledger_server() -> MCPServer:
    rendering = Rendering()

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True), name="balance_sheet")
    def ledger() -> str:
        return "Assets 1,200"

    @rendering.tool(verbatim_hint=True, directive=Directive(mode="verbatim", complete=True))
    def closed_ledger() -> str:
        raise ToolError("ledger closed")

    @rendering.tool(directive=Directive(mode="verbatim", complete=True))
    def first_page() -> CallToolResult:
        return with_directive(CallToolResult(content=[TextContent(text="row 1")]), Directive(complete=False))

    @rendering.tool(summarize_ok_hint=True, meta={"com.example/owner": "desk"})
    def headlines() -> str:
        return "Markets rose."

    return MCPServer("ledger", extensions=[rendering])


async def test_hints_ride_the_tool_carrier_beside_other_meta() -> None:
    """SDK-defined: `@rendering.tool` stamps the hints it is given (and only those)
    under the extension's `_meta` key, and merges other `meta=` keys alongside."""
    async with Client(_ledger_server()) as client:
        listed = await client.list_tools()
    assert {tool.name: tool.meta for tool in listed.tools} == snapshot(
        {
            "balance_sheet": {"io.modelcontextprotocol/rendering": {"verbatimHint": True}},
            "closed_ledger": {"io.modelcontextprotocol/rendering": {"verbatimHint": True}},
            "first_page": {"io.modelcontextprotocol/rendering": {}},
            "headlines": {"com.example/owner": "desk", "io.modelcontextprotocol/rendering": {"summarizeOkHint": True}},
        }
    )


async def test_the_default_directive_is_stamped_on_a_successful_result() -> None:
    """SDK-defined: a tool's `directive=` reaches the client under the extension's key
    of the result's `_meta`, in wire names, for a tool registered under another name."""
    async with Client(_ledger_server()) as client:
        result = await client.call_tool("balance_sheet", {})
    assert result.meta is not None
    assert result.meta[EXTENSION_ID] == snapshot({"mode": "verbatim", "complete": True})


async def test_a_directive_of_the_result_wins_over_the_default() -> None:
    """SDK-defined: a result that already carries a directive (`with_directive`) keeps it."""
    async with Client(_ledger_server()) as client:
        result = await client.call_tool("first_page", {})
    assert result.meta is not None
    assert result.meta[EXTENSION_ID] == snapshot({"complete": False})


async def test_an_error_result_gets_no_directive() -> None:
    """SDK-defined: an error is not the tool's data, so the default directive is not stamped."""
    async with Client(_ledger_server()) as client:
        result = await client.call_tool("closed_ledger", {})
    assert result.is_error is True
    assert EXTENSION_ID not in (result.meta or {})


async def test_a_tool_without_a_default_directive_returns_its_result_unchanged() -> None:
    """SDK-defined: the interceptor stamps only a directive given to `@rendering.tool`;
    a tool registered without one gets no directive from the extension."""
    async with Client(_ledger_server()) as client:
        result = await client.call_tool("headlines", {})
    assert EXTENSION_ID not in (result.meta or {})
    assert result.content == [TextContent(text="Markets rose.")]


async def test_an_interim_input_required_result_gets_no_directive_and_the_final_one_does() -> None:
    """SDK-defined: only the tool's final result is its data. The interim
    `InputRequiredResult` passes through the extension unchanged (it has no place
    for the directive), and the final result after the client's answer carries it.

    Steps:
    1. the tool asks for a region; 2. the client's elicitation callback answers;
    3. the retried call returns the result, which gets the default directive.
    """
    rendering = Rendering()
    ask = ElicitRequest(
        params=ElicitRequestFormParams(
            message="Which region?",
            requested_schema={"type": "object", "properties": {"region": {"type": "string"}}},
        )
    )

    @rendering.tool(directive=Directive(mode="verbatim", complete=True))
    def provision(ctx: Context) -> CallToolResult | InputRequiredResult:
        answer = (ctx.input_responses or {}).get("region")
        if not isinstance(answer, ElicitResult) or answer.content is None:
            return InputRequiredResult(input_requests={"region": ask})
        return CallToolResult(content=[TextContent(text=f"in {answer.content['region']}")])

    asked: list[str] = []

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"region": "eu-west-1"})

    async with Client(MCPServer("db", extensions=[rendering]), elicitation_callback=answer) as client:
        result = await client.call_tool("provision", {})
    assert asked == ["Which region?"]
    assert result.content == [TextContent(text="in eu-west-1")]
    assert result.meta is not None
    assert result.meta[EXTENSION_ID] == snapshot({"mode": "verbatim", "complete": True})


async def test_the_capability_is_advertised_only_by_an_opted_in_server() -> None:
    """SEP-2133: an extension is off by default; passing the instance opts in."""
    async with Client(MCPServer("plain")) as plain, Client(_ledger_server()) as opted_in:
        assert plain.server_capabilities.extensions is None
        assert opted_in.server_capabilities.extensions == snapshot({"io.modelcontextprotocol/rendering": {}})


def test_a_meta_key_owned_by_the_extension_is_rejected() -> None:
    """SDK-defined: the decorator owns the extension's `_meta` key, so a caller's entry
    there, which it would overwrite, is rejected at decoration time."""
    rendering = Rendering()
    with pytest.raises(ValueError) as exc_info:
        rendering.tool(meta={EXTENSION_ID: {"verbatimHint": True}})
    assert str(exc_info.value) == snapshot(
        "Rendering.tool() owns _meta['io.modelcontextprotocol/rendering']; pass the hints as arguments instead"
    )


def test_with_directive_keeps_other_meta_and_replaces_a_directive() -> None:
    """SDK-defined: `_meta` is shared with other extensions, so `with_directive` sets only
    the rendering key, replaces a directive already there, and copies the result."""
    result = CallToolResult(content=[], _meta={"com.example/trace": "t-1", EXTENSION_ID: {"complete": True}})
    stamped = with_directive(result, Directive(mode="summarizable", guidance="Top five first.", complete=False))
    assert stamped.meta == snapshot(
        {
            "com.example/trace": "t-1",
            "io.modelcontextprotocol/rendering": {
                "mode": "summarizable",
                "guidance": "Top five first.",
                "complete": False,
            },
        }
    )
    assert result.meta == {"com.example/trace": "t-1", EXTENSION_ID: {"complete": True}}


def test_a_directive_takes_wire_names_and_dumps_to_them() -> None:
    """Spec-mandated (the directive's member names are camelCase on the wire): a
    `Directive` validates from them and dumps to them."""
    directive = Directive.model_validate({"mode": "verbatim", "nullDisplay": "-", "complete": True})
    assert directive.null_display == "-"
    assert with_directive(CallToolResult(content=[]), directive).meta == snapshot(
        {"io.modelcontextprotocol/rendering": {"mode": "verbatim", "nullDisplay": "-", "complete": True}}
    )


@pytest.mark.parametrize("null_display", ["-", "n/a", "—", "néant", "無", "N A"])
def test_a_null_display_that_stays_visibly_a_null_is_accepted(null_display: str) -> None:
    """Spec-mandated (rendering.mdx, usable null text): any script, `-` included."""
    assert Directive(null_display=null_display, complete=True).null_display == null_display


@pytest.mark.parametrize(
    "null_display",
    [
        "",
        "   ",
        "0",
        "0.00",
        "٣",
        "Ⅻ",
        "十",
        "\u200b",
        "n/a\u202e",
        "a\x07",
        "x" * 17,
        "\u2800",
        "\u3164\ufe0f",
        "\u115f\uffa0",
    ],
)
def test_a_null_display_that_could_hide_a_null_or_pass_for_an_amount_is_rejected(null_display: str) -> None:
    """Spec-mandated (rendering.mdx, usable null text): 1 to 16 code points, not only
    white space or invisible characters, no control, format or numeric character."""
    with pytest.raises(ValidationError) as exc_info:
        Directive(null_display=null_display, complete=True)
    [error] = exc_info.value.errors()
    assert error["type"] == "value_error"
    assert "ctx" in error
    assert str(error["ctx"]["error"]) == snapshot(
        "null_display must be 1 to 16 characters, not only white space or invisible characters, "
        "with no control, format or numeric character"
    )


@pytest.mark.parametrize(
    ("fields", "error_type"),
    [
        pytest.param({}, "missing", id="complete-missing"),
        pytest.param({"complete": "true"}, "bool_type", id="complete-a-string"),
        pytest.param({"complete": 1}, "bool_type", id="complete-a-number"),
        pytest.param({"complete": True, "mode": "brief"}, "literal_error", id="mode-unknown"),
        pytest.param({"complete": True, "guidance": "g" * 1001}, "string_too_long", id="guidance-too-long"),
        pytest.param({"complete": True, "completed": True}, "extra_forbidden", id="member-misspelled"),
    ],
)
def test_a_directive_is_well_formed_by_construction(fields: dict[str, Any], error_type: str) -> None:
    """SDK-defined: a server can only build a directive the extension calls
    well-formed. The error types are pydantic's stable codes, not its wording."""
    with pytest.raises(ValidationError) as exc_info:
        Directive.model_validate(fields)
    assert [error["type"] for error in exc_info.value.errors()] == [error_type]
