"""Tests for the host's reading of the rendering extension (`mcp.client.rendering`).

Every case travels through a real server and client, so each also shows that no
value in a carrier makes the SDK reject the `tools/list` or `tools/call` response
that holds it. The expected readings are the extension's reading tables
(rendering.mdx section 4): only a literal `true` reads complete or summarizable,
unknown members are ignored, and a malformed member reads towards verbatim.
"""

from typing import Any, Literal

import pytest
from mcp_types import CallToolResult, TextContent

from mcp.client.client import Client
from mcp.client.rendering import RenderingReading, read_rendering
from mcp.server.mcpserver import MCPServer

pytestmark = pytest.mark.anyio

ID = "io.modelcontextprotocol/rendering"
ABSENT = object()


async def _read(tool_carrier: Any, result_carrier: Any, *, is_error: bool = False) -> RenderingReading | None:
    mcp = MCPServer("probe")
    tool_meta = None if tool_carrier is ABSENT else {ID: tool_carrier}
    result_meta = None if result_carrier is ABSENT else {ID: result_carrier}

    @mcp.tool(meta=tool_meta)
    def probe() -> CallToolResult:
        return CallToolResult(content=[TextContent(text="row 1")], is_error=is_error, _meta=result_meta)

    async with Client(mcp) as client:
        [tool] = (await client.list_tools()).tools
        result = await client.call_tool("probe", {})
    assert result.content == [TextContent(text="row 1")]
    return read_rendering(tool, result)


def _reading(
    mode: Literal["verbatim", "summarizable"] | None,
    complete: bool | None = None,
    *problems: str,
    guidance: str | None = None,
    null_display: str = "n/a",
) -> RenderingReading:
    return RenderingReading(
        mode=mode,
        complete=complete,
        guidance=guidance,
        null_display=null_display,
        problems=problems,
    )


async def test_a_result_of_a_tool_without_either_carrier_is_not_read() -> None:
    """Spec-mandated: with no hints carrier and no directive, the extension reads nothing."""
    assert await _read(ABSENT, ABSENT) is None


@pytest.mark.parametrize(
    ("tool_carrier", "expected"),
    [
        pytest.param({"verbatimHint": True}, _reading("verbatim"), id="verbatim-hint"),
        pytest.param({"summarizeOkHint": True}, _reading("summarizable"), id="summarize-ok-hint"),
        pytest.param({"verbatimHint": True, "summarizeOkHint": True}, _reading("verbatim"), id="verbatim-wins"),
        pytest.param({}, _reading(None), id="no-hint-the-host-keeps-its-default"),
        pytest.param({"verbatimHint": False, "summarizeOkHint": None}, _reading(None), id="false-and-null"),
        pytest.param(
            {"summarizeOkHint": True, "laterHint": {"x": 1}},
            _reading("summarizable", None, "tool: unknown member 'laterHint' ignored"),
            id="a-later-member-changes-nothing",
        ),
        pytest.param(
            {"verbatimHint": "yes"},
            _reading("verbatim", None, "tool: verbatimHint is malformed; the carrier reads as unclean"),
            id="malformed-verbatim-hint-reads-true",
        ),
        pytest.param(
            {"summarizeOkHint": True, "verbatimHint": 0},
            _reading("verbatim", None, "tool: verbatimHint is malformed; the carrier reads as unclean"),
            id="unclean-carrier-is-not-summarizable",
        ),
        pytest.param(
            "verbatim",
            _reading("verbatim", None, "tool: the carrier is not an object; read as unclean"),
            id="carrier-not-an-object",
        ),
    ],
)
async def test_tool_hints_without_a_directive_leave_completeness_unstated(
    tool_carrier: Any, expected: RenderingReading
) -> None:
    """Spec-mandated (the tool hints table, and the effective mode without a `mode`):
    a result of a tool with a hints carrier and no directive is partial."""
    reading = await _read(tool_carrier, ABSENT)
    assert reading == expected
    assert reading is not None
    assert reading.partial is True


@pytest.mark.parametrize(
    ("directive", "expected"),
    [
        pytest.param({"mode": "verbatim", "complete": True}, _reading("verbatim", True), id="verbatim-complete"),
        pytest.param(
            {"mode": "summarizable", "complete": False, "guidance": "Top five first.", "nullDisplay": "-"},
            _reading("summarizable", False, guidance="Top five first.", null_display="-"),
            id="every-member",
        ),
        pytest.param({"complete": True}, _reading(None, True), id="no-mode-no-hints"),
        pytest.param({"mode": None, "complete": None}, _reading(None, None), id="null-members-are-absent"),
        pytest.param(
            {"mode": "brief", "complete": True},
            _reading("verbatim", True, "result: mode 'brief' is unknown; read as 'verbatim'"),
            id="unknown-mode-reads-verbatim",
        ),
        pytest.param(
            {"complete": True, "completed": True, "laterMember": [1]},
            _reading(
                None,
                True,
                "result: unknown member 'completed' ignored",
                "result: unknown member 'laterMember' ignored",
            ),
            id="unknown-members-change-nothing",
        ),
        pytest.param(
            {"mode": "summarizable", "complete": "true"},
            _reading("verbatim", None, "result: complete is malformed; the carrier reads as unclean"),
            id="complete-as-a-string-is-not-stated",
        ),
        pytest.param(
            {"mode": "summarizable", "complete": True, "nullDisplay": "0"},
            _reading("verbatim", None, "result: nullDisplay is malformed; the carrier reads as unclean"),
            id="an-unclean-carrier-is-verbatim-and-its-true-does-not-count",
        ),
        pytest.param(
            {"complete": False, "guidance": "g" * 1001},
            _reading("verbatim", False, "result: guidance is malformed; the carrier reads as unclean"),
            id="guidance-too-long",
        ),
        pytest.param(
            {"mode": 1, "complete": True},
            _reading("verbatim", None, "result: mode is malformed; the carrier reads as unclean"),
            id="mode-not-a-string",
        ),
        pytest.param(
            ["verbatim"],
            _reading("verbatim", None, "result: the carrier is not an object; read as unclean"),
            id="carrier-not-an-object",
        ),
    ],
)
async def test_a_directive_reads_as_the_tables_give(directive: Any, expected: RenderingReading) -> None:
    """Spec-mandated (the result directive table)."""
    assert await _read(ABSENT, directive) == expected


@pytest.mark.parametrize(
    ("tool_carrier", "directive", "is_error", "mode"),
    [
        pytest.param({"verbatimHint": True}, {"mode": "summarizable", "complete": True}, False, "summarizable"),
        pytest.param({"verbatimHint": True}, {"mode": "summarizable", "complete": True}, True, "verbatim"),
        pytest.param({"summarizeOkHint": True}, {"mode": "verbatim", "complete": True}, False, "verbatim"),
        pytest.param({"summarizeOkHint": True}, {"complete": True}, True, "summarizable"),
        pytest.param({"verbatimHint": True}, {"complete": True}, False, "verbatim"),
    ],
)
async def test_the_effective_mode_combines_the_directive_and_the_hints(
    tool_carrier: Any, directive: Any, is_error: bool, mode: str
) -> None:
    """Spec-mandated (the effective mode table): a verbatim tool's error result stays
    verbatim whatever its `mode` says."""
    reading = await _read(tool_carrier, directive, is_error=is_error)
    assert reading is not None
    assert (reading.mode, reading.complete, reading.partial) == (mode, True, False)
