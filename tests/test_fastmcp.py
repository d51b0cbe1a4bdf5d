"""FastMCP 4: the hints and the directive declared through FastMCP's own API reach a real client over stdio."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

pytest.importorskip("fastmcp", reason="FastMCP is not installed; the FastMCP path is tested only where it is")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

import mcp_rendering
from mcp_rendering import Rendering, resolve_rendering

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _patched() -> Iterator[None]:
    with mcp_rendering.installed():
        yield


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_fastmcp_tools_carry_the_hints_and_results_the_directive(mode: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.support.fastmcp_server"],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO), "FASTMCP_LOG_LEVEL": "ERROR"},
    )

    async def run() -> None:
        async with Client(params, mode=mode, extensions=[mcp_rendering.client_extension()]) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            screening = tools["screening"]
            assert screening.annotations is not None
            assert screening.annotations.verbatim_hint is True  # pyright: ignore[reportAttributeAccessIssue]
            assert screening.annotations.read_only_hint is True
            assert resolve_rendering(tools["overview"], None).mode == "summarizable"
            result = await client.call_tool("screening", {})
            assert result.rendering == Rendering(mode="verbatim", guidance="List every flagged name.")  # pyright: ignore[reportAttributeAccessIssue]
            assert resolve_rendering(screening, result).source == "result._rendering"

    anyio.run(run)
