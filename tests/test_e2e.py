"""End to end: a real MCPServer and a real mcp.Client, in process and over stdio, in every protocol mode.

Four servers (see `tests.support.hinted_server`): one that writes the core form (the extension moves it into the
`_meta` carrier), the same keeping the core form on opt-in, one that sends only the `_meta` carrier, and one that
sends both, disagreeing. A client reads the
`_meta`-only server fully, with or without the SDK patch, and reads the other from `_meta` member by member.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import Context, MCPServer

import mcp_rendering
from mcp_rendering import EXTENSION_ID, Rendering, client_supports_rendering, resolve_rendering
from mcp_rendering.host import next_call_arguments
from mcp_rendering.reading import read_rendering_object
from mcp_rendering.types import CONTINUATION_ID
from tests.support.hinted_server import DISAGREEING_CORE, GUIDANCE, LINES, META, Carriers, build_server

MODES = ["legacy", "2026-07-28", "auto"]
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def patched() -> Iterator[None]:
    with mcp_rendering.installed():
        yield


async def _exercise(client: Client) -> tuple[dict[str, mcp_types.Tool], mcp_types.CallToolResult]:
    tools = await client.list_tools()
    result = await client.call_tool("balance_sheet", {})
    return {tool.name: tool for tool in tools.tools}, result


def _stdio(carriers: Carriers, wire_log: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "tests.support.wire_tee",
            str(wire_log),
            "--",
            sys.executable,
            "-m",
            "tests.support.hinted_server",
            carriers,
        ],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO)},
    )


def _run(server: Any, mode: str) -> tuple[dict[str, mcp_types.Tool], mcp_types.CallToolResult]:
    async def run() -> tuple[dict[str, mcp_types.Tool], mcp_types.CallToolResult]:
        async with Client(server, mode=mode, extensions=[mcp_rendering.client_extension()]) as client:
            return await _exercise(client)

    return anyio.run(run)


def _wire_results(wire_log: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    messages = [json.loads(line) for line in wire_log.read_text().splitlines() if line.strip()]
    results = [message["result"] for message in messages if isinstance(message.get("result"), dict)]
    listed = next(r for r in results if "tools" in r)
    return next(tool for tool in listed["tools"] if tool["name"] == "balance_sheet"), next(
        r for r in results if "content" in r
    )


def _check_core(tools: dict[str, mcp_types.Tool], result: mcp_types.CallToolResult, *, kept: bool) -> None:
    sheet = tools["balance_sheet"]
    expected = Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True)
    if kept:
        assert sheet.annotations is not None
        assert sheet.annotations.verbatim_hint is True  # pyright: ignore[reportAttributeAccessIssue]
        assert tools["headline"].annotations is not None
        assert tools["headline"].annotations.summarize_ok_hint is True  # pyright: ignore[reportAttributeAccessIssue]
        assert result.rendering == expected.model_dump(by_alias=True, exclude_none=True)  # pyright: ignore[reportAttributeAccessIssue]
    else:
        # Moved: the wire holds one carrier, so even a client reading the core form finds none.
        assert sheet.annotations is None
        assert tools["headline"].annotations == mcp_types.ToolAnnotations(read_only_hint=True)
        assert result.rendering is None  # pyright: ignore[reportAttributeAccessIssue]
    assert sheet.meta is not None and sheet.meta[EXTENSION_ID] == {"verbatimHint": True, "summarizeOkHint": False}
    assert tools["headline"].meta is not None and tools["headline"].meta[EXTENSION_ID] == {"summarizeOkHint": True}
    assert resolve_rendering(tools["plain"], None).mode == "unspecified"
    assert result.meta is not None and Rendering.model_validate(result.meta[EXTENSION_ID]) == expected
    assert result.structured_content == LINES
    effective = resolve_rendering(sheet, result)
    assert (effective.mode, effective.source, effective.guidance, effective.null_display, effective.complete) == (
        "verbatim",
        "result._meta",
        GUIDANCE,
        "n/a",
        True,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.usefixtures("patched")
def test_the_core_form_is_moved_into_its_meta_carrier(mode: str, tmp_path: Path) -> None:
    _check_core(*_run(build_server("core"), mode), kept=False)
    wire_log = tmp_path / "server-to-client.jsonl"
    _check_core(*_run(_stdio("core", wire_log), mode), kept=False)
    tool, called = _wire_results(wire_log)
    assert "annotations" not in tool and "_rendering" not in called
    assert tool["_meta"][EXTENSION_ID] == {"verbatimHint": True, "summarizeOkHint": False}
    assert called["_meta"][EXTENSION_ID] == {
        "mode": "verbatim",
        "guidance": GUIDANCE,
        "nullDisplay": "n/a",
        "complete": True,
    }


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.usefixtures("patched")
def test_the_core_form_is_kept_beside_its_carrier_on_opt_in(mode: str, tmp_path: Path) -> None:
    _check_core(*_run(build_server("core-kept"), mode), kept=True)
    wire_log = tmp_path / "server-to-client.jsonl"
    _check_core(*_run(_stdio("core-kept", wire_log), mode), kept=True)
    tool, called = _wire_results(wire_log)
    assert tool["annotations"]["verbatimHint"] is True
    assert tool["_meta"][EXTENSION_ID] == {"verbatimHint": True, "summarizeOkHint": False}
    assert called["_rendering"] == {"mode": "verbatim", "guidance": GUIDANCE, "nullDisplay": "n/a", "complete": True}
    assert called["_meta"][EXTENSION_ID] == called["_rendering"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("client_patched", [True, False], ids=["patched", "unpatched"])
def test_a_server_sending_only_the_meta_carrier_is_read_fully(mode: str, client_patched: bool, tmp_path: Path) -> None:
    wire_log = tmp_path / "server-to-client.jsonl"
    # In process, server and client share one SDK, which the server's extension patches: the unpatched client is
    # tried over stdio only, where the server patches its own process.
    servers = [build_server("meta"), _stdio("meta", wire_log)] if client_patched else [_stdio("meta", wire_log)]
    with mcp_rendering.installed() if client_patched else _unpatched():
        for server in servers:
            tools, result = _run(server, mode)
            assert mcp_rendering.is_installed() is client_patched
            effective = resolve_rendering(tools["balance_sheet"], result)
            assert (effective.mode, effective.source) == ("verbatim", "result._meta")
            assert effective.directive == read_rendering_object(META)[0]
            assert not effective.complete and effective.null_display == "n/a"
            assert resolve_rendering(tools["balance_sheet"], None).source == "tool._meta"
            assert next_call_arguments({}, result, tools["balance_sheet"]) == {"cursor": "meta.1"}
    tool, called = _wire_results(wire_log)
    assert "verbatimHint" not in tool.get("annotations", {}) and "_rendering" not in called
    assert called["_meta"][EXTENSION_ID] == META


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.usefixtures("patched")
def test_a_server_sending_both_is_read_from_meta(mode: str, tmp_path: Path) -> None:
    wire_log = tmp_path / "server-to-client.jsonl"
    for server in (build_server("both"), _stdio("both", wire_log)):
        tools, result = _run(server, mode)
        sheet = tools["balance_sheet"]
        assert result.rendering == DISAGREEING_CORE  # pyright: ignore[reportAttributeAccessIssue]
        effective = resolve_rendering(sheet, result)
        # The carrier alone is read; the server's mirror filled in the guidance, which only its core form had.
        assert effective.directive == read_rendering_object({**META, "guidance": DISAGREEING_CORE["guidance"]})[0]
        assert (effective.mode, effective.source, effective.null_display) == ("verbatim", "result._meta", "n/a")
        assert next_call_arguments({}, result, sheet) == {"cursor": "meta.1"}
        hints = resolve_rendering(sheet, None)
        assert (hints.mode, hints.source) == ("verbatim", "tool._meta")
        assert (hints.hints.verbatim_hint, hints.hints.summarize_ok_hint) == (True, False)
    tool, called = _wire_results(wire_log)
    assert tool["annotations"] == {"verbatimHint": False, "summarizeOkHint": True}
    # The extension's mirror filled in, member by member, what only the core form held: the guidance.
    assert called["_rendering"] == DISAGREEING_CORE
    assert called["_meta"][EXTENSION_ID] == {**META, "guidance": DISAGREEING_CORE["guidance"]}


class _unpatched:
    """A context in which the SDK patch is not installed (and is not left installed)."""

    def __enter__(self) -> None:
        mcp_rendering.uninstall()

    def __exit__(self, *_: object) -> None:
        mcp_rendering.uninstall()


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


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_server_declares_both_extensions_on_the_wire_under_each_era(mode: str, tmp_path: Path) -> None:
    """2025-11-25 `initialize` (whose capabilities the SDK's model for that version filters) and 2026-07-28
    `server/discover` both carry the declarations, as the server's process writes them."""
    wire_log = tmp_path / "server-to-client.jsonl"
    _run(_stdio("meta", wire_log), mode)
    messages = [json.loads(line) for line in wire_log.read_text().splitlines() if line.strip()]
    declared = [
        message["result"]
        for message in messages
        if isinstance(message.get("result"), dict) and "capabilities" in message["result"]
    ]
    assert declared, "no initialize or discover result on the wire"
    for result in declared:
        assert set(result["capabilities"]["extensions"]) >= {EXTENSION_ID, CONTINUATION_ID}, result


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


@pytest.mark.usefixtures("patched")
def test_the_server_warns_when_a_directive_has_no_model_facing_copy(caplog: pytest.LogCaptureFixture) -> None:
    rendering = mcp_rendering.RenderingExtension()
    server = MCPServer("forgetful", extensions=[rendering], middleware=[rendering])
    directive = Rendering(mode="verbatim", guidance="Every row.", complete=True)

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


@pytest.mark.usefixtures("patched")
@pytest.mark.parametrize(
    ("as_extension", "as_middleware", "warning"),
    [
        (True, True, None),
        (True, False, "registered as an extension but not as a middleware"),
        (False, True, "registered as a middleware but not as an extension"),
    ],
)
def test_a_half_registered_extension_warns_once(
    as_extension: bool, as_middleware: bool, warning: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    rendering = mcp_rendering.RenderingExtension()
    server = MCPServer(
        "half",
        extensions=[rendering] if as_extension else [],
        middleware=[rendering] if as_middleware else [],
    )

    @server.tool(annotations=mcp_rendering.tool_annotations(verbatim_hint=True))
    def sheet() -> str:
        return "Cash 10"

    async def run() -> mcp_types.Tool:
        async with Client(server, mode="legacy") as client:
            (tool,) = (await client.list_tools()).tools
            for _ in range(3):
                await client.call_tool("sheet", {})
            return tool

    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        tool = anyio.run(run)
    messages = [record.getMessage() for record in caplog.records]
    warnings = [message for message in messages if "RenderingExtension is registered" in message]
    assert len(warnings) == (0 if warning is None else 1)  # once, however many calls
    if warning is not None:
        assert warning in warnings[0] and "middleware=[rendering]" in warnings[0]
    # The hint mirror is the middleware's: without it, the tool's `_meta` carries nothing.
    assert (tool.meta or {}).get(EXTENSION_ID) == ({"verbatimHint": True} if as_middleware else None)
