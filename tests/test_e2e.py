"""End to end: a real MCPServer and a real mcp.Client, in process and over stdio, in every protocol mode."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp_types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import Context, MCPServer

import mcp_rendering
from mcp_rendering import EXTENSION_ID, Rendering, client_supports_rendering, resolve_rendering
from tests.support.hinted_server import GUIDANCE, build_server

MODES = ["legacy", "2026-07-28", "auto"]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _patched() -> Iterator[None]:
    with mcp_rendering.installed():
        yield


async def _exercise(client: Client) -> tuple[mcp_types.ListToolsResult, mcp_types.CallToolResult]:
    tools = await client.list_tools()
    result = await client.call_tool("balance_sheet", {})
    return tools, result


def _check(tools: mcp_types.ListToolsResult, result: mcp_types.CallToolResult) -> None:
    by_name = {tool.name: tool for tool in tools.tools}
    sheet = by_name["balance_sheet"]
    assert sheet.annotations is not None
    assert sheet.annotations.verbatim_hint is True  # pyright: ignore[reportAttributeAccessIssue]
    assert sheet.annotations.summarize_ok_hint is False  # pyright: ignore[reportAttributeAccessIssue]
    assert sheet.meta is not None
    assert sheet.meta[EXTENSION_ID] == {"verbatimHint": True, "summarizeOkHint": False}
    headline = by_name["headline"]
    assert headline.annotations is not None
    assert headline.annotations.summarize_ok_hint is True  # pyright: ignore[reportAttributeAccessIssue]
    assert headline.annotations.read_only_hint is True
    assert resolve_rendering(by_name["plain"], None).mode == "unspecified"

    expected = Rendering(mode="verbatim", guidance=GUIDANCE, null_display="-")
    assert result.rendering == expected  # pyright: ignore[reportAttributeAccessIssue]
    assert result.meta is not None
    assert Rendering.model_validate(result.meta[EXTENSION_ID]) == expected
    assert result.structured_content == {"lines": [["Total assets", 1200], ["Total liabilities", None]]}
    effective = resolve_rendering(sheet, result)
    assert (effective.mode, effective.source, effective.null_display) == ("verbatim", "result._rendering", "-")


@pytest.mark.parametrize("mode", MODES)
def test_in_process(mode: str) -> None:
    async def run() -> None:
        async with Client(build_server(), mode=mode, extensions=[mcp_rendering.client_extension()]) as client:
            _check(*await _exercise(client))

    anyio.run(run)


@pytest.mark.parametrize("mode", MODES)
def test_stdio_and_the_wire_bytes(mode: str, tmp_path: Path) -> None:
    wire_log = tmp_path / "server-to-client.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.support.wire_tee", str(wire_log), "--", sys.executable, "-m", "tests.support.hinted_server"],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO)},
    )

    async def run() -> None:
        async with Client(params, mode=mode, extensions=[mcp_rendering.client_extension()]) as client:
            _check(*await _exercise(client))

    anyio.run(run)
    messages = [json.loads(line) for line in wire_log.read_text().splitlines() if line.strip()]
    results = [message["result"] for message in messages if isinstance(message.get("result"), dict)]
    listed = next(r for r in results if "tools" in r)
    sheet = next(tool for tool in listed["tools"] if tool["name"] == "balance_sheet")
    assert sheet["annotations"]["verbatimHint"] is True
    assert sheet["annotations"]["summarizeOkHint"] is False
    assert sheet["_meta"][EXTENSION_ID] == {"verbatimHint": True, "summarizeOkHint": False}
    called = next(r for r in results if "content" in r)
    assert called["_rendering"] == {"mode": "verbatim", "guidance": GUIDANCE, "nullDisplay": "-"}
    assert called["_meta"][EXTENSION_ID] == called["_rendering"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("declare", [True, False])
def test_the_server_can_ask_whether_the_client_declared_support(mode: str, declare: bool) -> None:
    rendering = mcp_rendering.RenderingExtension()
    server = MCPServer("negotiation", extensions=[rendering], middleware=[rendering])

    @server.tool()
    def supported(ctx: Context) -> str:
        return "yes" if client_supports_rendering(ctx) else "no"

    async def run() -> str:
        extensions = [mcp_rendering.client_extension()] if declare else []
        async with Client(server, mode=mode, extensions=extensions) as client:
            result = await client.call_tool("supported", {})
            block = result.content[0]
            assert isinstance(block, mcp_types.TextContent)
            return block.text

    assert anyio.run(run) == ("yes" if declare else "no")


def test_the_server_advertises_the_extension_through_discovery() -> None:
    # A pinned 2026 client adopts a synthesized discovery result and a legacy `initialize` result has no
    # `extensions` field, so the advertisement is observable where the client really discovers: mode "auto".
    async def run() -> None:
        async with Client(build_server(), mode="auto") as client:
            capabilities = client.session.server_capabilities
            assert capabilities is not None
            assert capabilities.extensions is not None
            assert EXTENSION_ID in capabilities.extensions

    anyio.run(run)


def test_the_server_warns_when_a_directive_has_no_model_facing_copy(caplog: pytest.LogCaptureFixture) -> None:
    rendering = mcp_rendering.RenderingExtension()
    server = MCPServer("forgetful", extensions=[rendering], middleware=[rendering])
    directive = Rendering(mode="verbatim", guidance="Every row.")

    @server.tool()
    def without_copy() -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[], structured_content={"rows": [1, 2]}, rendering=directive)  # pyright: ignore[reportCallIssue]

    @server.tool()
    def with_copy() -> mcp_types.CallToolResult:
        copy = {"rows": [1, 2], "_rendering": directive.model_dump(by_alias=True, exclude_none=True)}
        return mcp_types.CallToolResult(content=[], structured_content=copy, rendering=directive)  # pyright: ignore[reportCallIssue]

    async def call(name: str) -> None:
        async with Client(server, mode="legacy") as client:
            await client.call_tool(name, {})

    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        anyio.run(call, "with_copy")
        assert "no '_rendering' copy" not in caplog.text
        anyio.run(call, "without_copy")
    assert "no '_rendering' copy" in caplog.text
