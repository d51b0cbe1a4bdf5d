"""`present()` and `audit()` take the result objects of the frameworks the project integrates with, read over a
real transport from a real server: FastMCP's own `CallToolResult` (what `fastmcp.Client.call_tool()` returns) reads
exactly as the SDK model of the same call."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

import mcp_rendering
from mcp_rendering.audit import AuditInputError, audit
from mcp_rendering.examples.financial import TOOL
from mcp_rendering.host import as_wire, present

fastmcp = pytest.importorskip("fastmcp")
from fastmcp.client.transports import StdioTransport  # noqa: E402

SERVER_ARGS = ["-m", "mcp_rendering.examples.financial", "--framework", "fastmcp"]


async def _both_results() -> tuple[Any, Any, Any]:
    transport = StdioTransport(command=sys.executable, args=SERVER_ARGS)
    async with fastmcp.Client(transport, extensions=[mcp_rendering.client_extension()]) as client:
        tool = next(tool for tool in await client.list_tools() if tool.name == TOOL)
        framework_result = await client.call_tool(TOOL, {})
        sdk_result = await client.call_tool_mcp(TOOL, {})
        return tool, framework_result, sdk_result


@pytest.fixture(scope="module")
def results() -> tuple[Any, Any, Any]:
    return anyio.run(_both_results)


def test_fastmcps_own_result_reads_as_the_sdk_model_of_the_same_call(results: tuple[Any, Any, Any]) -> None:
    tool, framework_result, sdk_result = results
    assert type(framework_result).__module__.startswith("fastmcp")
    sdk_wire = as_wire(sdk_result)
    sdk_wire.pop("resultType", None)  # the SDK's protocol bookkeeping, which FastMCP's result does not keep
    assert as_wire(framework_result) == sdk_wire
    from_framework = present(tool, framework_result)
    from_sdk = present(tool, sdk_result)
    assert from_framework.mode == "verbatim"
    assert (from_framework.text, from_framework.markdown, from_framework.model_result) == (
        from_sdk.text,
        from_sdk.markdown,
        from_sdk.model_result,
    )


def test_the_audit_reads_fastmcps_own_result(results: tuple[Any, Any, Any]) -> None:
    tool, framework_result, _ = results
    shown = present(tool, framework_result)
    assert audit(shown.markdown, framework_result, markup="markdown").clean
    assert audit(shown.text, framework_result, markup="text").clean


def test_anything_else_is_refused_with_a_clear_error() -> None:
    with pytest.raises(TypeError, match="the result is int"):
        present(None, 3)
    with pytest.raises(AuditInputError, match="not a CallToolResult"):
        audit("", object())
