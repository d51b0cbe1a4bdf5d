"""Measures what Strands Agents (`strands-agents`) hands the model for one call of the financial tool.

No model is involved: the tool is called through the framework's `MCPClient`, and the `content` of the
`ToolResult` it built is reported. That list is what the model providers send in the tool result message (they
send neither its `structuredContent` nor its `metadata`).
"""

from __future__ import annotations

from typing import Any

from _common import failure, run
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client
from strands.tools.mcp import MCPClient  # pyright: ignore[reportMissingImports]


def _parts(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"kind": "text", "text": item["text"]} if "text" in item else {"kind": "json", "value": item}
        for item in content
    ]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    with MCPClient(lambda: stdio_client(params), startup_timeout=60) as client:
        try:
            result = await client.call_tool_async("call-1", tool_name, {})
        except Exception as error:  # the agent hands the model the error's text instead
            return failure(error)
    content = list(result["content"])
    if result["status"] == "error":
        text = "\n".join(str(item.get("text", item)) for item in content)
        return {"payload": content, "parts": [{"kind": "error", "text": text}]}
    return {"payload": content, "parts": _parts(content)}


if __name__ == "__main__":
    run(_observe, "strands-agents", "mcp")
