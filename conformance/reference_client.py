"""The client under test of the rendering-client scenario: the project's reference host over streamable HTTP.

Usage (as the conformance runner calls it, the server URL last)::

    .venv/bin/python conformance/reference_client.py http://127.0.0.1:PORT/mcp

It installs the SDK patch (so that the core form is typed and read as well as the `_meta` carrier), declares the
extension (`mcp_rendering.client_extension()`), lists the tools, picks the first tool whose hints
read as verbatim (`resolve_rendering`), calls it with the arguments named in MCP_CONFORMANCE_CONTEXT (its
`arguments` member; none when unset), and follows each continuation with `next_call_arguments` until the result is
complete or offers nothing to follow, at most 20 calls. One line per call on stdout; exit status 0 when the walk
ended without a tool error.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
from mcp import Client

import mcp_rendering
from mcp_rendering.host import next_call_arguments
from mcp_rendering.reading import resolve_rendering

MAX_CALLS = 20


def _context_arguments() -> dict[str, Any]:
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    if not raw:
        return {}
    context = json.loads(raw)
    arguments = context.get("arguments") if isinstance(context, dict) else None
    return dict(arguments) if isinstance(arguments, dict) else {}


async def walk(url: str) -> int:
    arguments = _context_arguments()
    mcp_rendering.install()  # before any client is created: the core form (annotations, `_rendering`) is typed
    async with Client(url, extensions=[mcp_rendering.client_extension()]) as client:
        tools = (await client.list_tools()).tools
        verbatim = [tool for tool in tools if resolve_rendering(tool, None).mode == "verbatim"]
        print(f"tools: {', '.join(tool.name for tool in tools)}; verbatim: {', '.join(t.name for t in verbatim)}")
        if not verbatim:
            print("no tool is marked verbatim; nothing to call", file=sys.stderr)
            return 1
        tool = verbatim[0]
        call_arguments: dict[str, Any] = dict(arguments)
        for number in range(1, MAX_CALLS + 1):
            result = await client.call_tool(tool.name, call_arguments)
            rendering = resolve_rendering(tool, result)
            following = next_call_arguments(arguments, result, tool)
            problems = f"; {len(rendering.problems)} malformed value(s) read safe" if rendering.problems else ""
            print(
                f"call {number}: {tool.name} {json.dumps(call_arguments, sort_keys=True)} -> "
                f"isError={bool(result.is_error)} mode={rendering.mode} complete={rendering.complete} "
                f"next={json.dumps(following, sort_keys=True) if following is not None else 'none'}{problems}"
            )
            if result.is_error or following is None:
                return 1 if result.is_error else 0
            call_arguments = following
        print(f"stopped after {MAX_CALLS} calls without a complete result", file=sys.stderr)
        return 1


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: reference_client.py SERVER_URL", file=sys.stderr)
        return 2
    return anyio.run(walk, argv[-1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
