"""The reverse direction: a patched Python client talking to servers that know nothing of the extension.

Each session lists tools, calls a few, reads a resource and gets a prompt, once unpatched and once with
`mcp_rendering.install()`. The patched client must see exactly what the unpatched one sees, and nothing may read as
verbatim (or summarizable) that the server did not say.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

import mcp_rendering
from interop.run import NODE_MODULES, ROOT, InteropSetupError, installed_node_package
from mcp_rendering.reading import resolve_rendering

EVERYTHING = "@modelcontextprotocol/server-everything"


@dataclass(frozen=True)
class Plan:
    """What to do in one session against one server."""

    calls: tuple[tuple[str, dict[str, Any]], ...]
    resource: str
    prompt: tuple[str, dict[str, str]]


@dataclass
class Session:
    """What the application saw, dumped to JSON, plus the effective rendering of every tool and result."""

    protocol: str = ""
    tools: list[Any] = field(default_factory=list[Any])
    calls: dict[str, Any] = field(default_factory=dict[str, Any])
    resource: Any = None
    prompt: Any = None
    modes: dict[str, str] = field(default_factory=dict[str, str])


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


async def _session(params: StdioServerParameters, plan: Plan, mode: str) -> Session:
    seen = Session()
    async with Client(params, mode=mode) as client:  # pyright: ignore[reportArgumentType]
        seen.protocol = client.protocol_version
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        seen.tools = [_dump(tool) for tool in tools.values()]
        for name, tool in tools.items():
            seen.modes[f"tool {name}"] = resolve_rendering(tool, None).mode
        for name, arguments in plan.calls:
            result = await client.call_tool(name, arguments)
            seen.calls[name] = _dump(result)
            seen.modes[f"call {name}"] = resolve_rendering(tools[name], result).mode
        seen.resource = _dump(await client.read_resource(plan.resource))
        seen.prompt = _dump(await client.get_prompt(*plan.prompt))
    return seen


def _before_and_after(params: StdioServerParameters, plan: Plan, mode: str) -> tuple[Session, Session]:
    assert not mcp_rendering.is_installed(), "another test left the patch installed; this baseline would be patched"
    before = anyio.run(_session, params, plan, mode)
    with mcp_rendering.installed():
        after = anyio.run(_session, params, plan, mode)
    return before, after


def _text(dumped_result: dict[str, Any]) -> str:
    return "\n".join(block.get("text", "") for block in dumped_result["content"])


PLAIN = StdioServerParameters(command=sys.executable, args=["-m", "interop.plain_server"], cwd=str(ROOT))
PLAIN_PLAN = Plan(
    calls=(("add", {"a": 2, "b": 3}), ("stock_report", {})),
    resource="inventory://readme",
    prompt=("restock", {"item": "nuts"}),
)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_patched_client_sees_a_plain_server_as_before(mode: str) -> None:
    before, after = _before_and_after(PLAIN, PLAIN_PLAN, mode)

    assert after == before
    assert after.protocol == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    # The sessions really worked (two identical failures would also compare equal).
    assert [tool["name"] for tool in after.tools] == ["add", "stock_report"]
    assert after.calls["add"]["structuredContent"] == {"result": 5}
    assert after.calls["stock_report"]["structuredContent"]["total"] == 200
    assert after.resource["contents"][0]["text"].startswith("A small inventory server")
    assert after.prompt["messages"][0]["content"]["text"] == "Plan a restock of nuts."
    assert set(after.modes.values()) == {"unspecified"}, after.modes
    assert len(after.modes) == 4


def _everything() -> StdioServerParameters:
    try:
        installed_node_package(EVERYTHING)
    except InteropSetupError as missing:
        if os.environ.get("CI"):
            pytest.fail(str(missing))
        pytest.skip(str(missing))
    entry = NODE_MODULES / EVERYTHING / "dist" / "index.js"
    return StdioServerParameters(command="node", args=[str(entry), "stdio"], cwd=str(ROOT))


EVERYTHING_PLAN = Plan(
    calls=(
        ("echo", {"message": "hello"}),
        ("get-sum", {"a": 2, "b": 3}),
        ("get-annotated-message", {"messageType": "success", "includeImage": False}),
    ),
    resource="demo://resource/static/document/architecture.md",
    prompt=("args-prompt", {"city": "Lyon"}),
)


def test_patched_client_sees_the_reference_server_as_before() -> None:
    before, after = _before_and_after(_everything(), EVERYTHING_PLAN, "auto")

    assert after == before
    assert len(after.tools) >= 10
    assert _text(after.calls["echo"]) == "Echo: hello"
    assert "5" in _text(after.calls["get-sum"])
    assert after.resource["contents"][0]["text"]
    assert "Lyon" in after.prompt["messages"][0]["content"]["text"]
    assert set(after.modes.values()) == {"unspecified"}, after.modes
    assert len(after.modes) == len(after.tools) + len(EVERYTHING_PLAN.calls)
