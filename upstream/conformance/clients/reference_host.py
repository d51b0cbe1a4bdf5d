"""The project's reference host (`mcp_rendering`), for the suite's `rendering-client` and
`result-continuation-client` scenarios (the suite names the scenario in `MCP_CONFORMANCE_SCENARIO`).

For `rendering-client` it calls every tool but `report_readings`, reads each result with
`mcp_rendering.reading.resolve_rendering`, and reports what it read (partial: a result that the reader does not read
as complete; ignored: the unknown members the reader reported as ignored). For `result-continuation-client` it calls
every tool but `report_parts`, follows each usable continuation in its own code until a part has none or the server
refuses the token, reads each part with the arguments of the call that returned it, combines the parts with
`mcp_rendering.reading.combine_parts`, and reports the combined mode, whether the whole is partial, and the text of
every part. Run by the suite with the project's environment: python reference_host.py SERVER_URL
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio

import mcp_rendering
from mcp import Client
from mcp_rendering.reading import EffectiveRendering, combine_parts, resolve_rendering

REPORT_READINGS = "report_readings"
REPORT_PARTS = "report_parts"
MAX_PARTS = 100
"""A bound on the parts a host fetches for one answer: a server that never ends its result cannot hold it."""


async def report_readings(client: Client) -> None:
    readings: dict[str, dict[str, object]] = {}
    for tool in (await client.list_tools()).tools:
        if tool.name == REPORT_READINGS:
            continue
        reading = resolve_rendering(tool, await client.call_tool(tool.name, {}))
        # Not complete: what a directive or, without one, a tool with hints does not state complete. A result with
        # neither carrier is not read (its completeness is None, which `complete` counts as complete).
        partial = not reading.complete
        # The unknown members the reader reported as ignored (the problems whose effect is "ignored").
        ignored = [problem.member for problem in reading.problems if problem.reads_as == "ignored"]
        readings[tool.name] = {"mode": reading.mode, "partial": partial, "ignored": ignored}
    await client.call_tool(REPORT_READINGS, {"readings": readings})


async def report_parts(client: Client) -> None:
    results: dict[str, dict[str, object]] = {}
    for tool in (await client.list_tools()).tools:
        if tool.name == REPORT_PARTS:
            continue
        original: dict[str, Any] = {}
        parts: list[EffectiveRendering] = []
        texts: list[str] = []
        all_fetched = True
        arguments: dict[str, Any] = dict(original)
        result = await client.call_tool(tool.name, arguments)
        while True:
            if result.is_error and parts:  # the continuation was refused: the whole stays partial
                all_fetched = False
                break
            # Read with the arguments of its own call: how `combine_parts` knows a later part, and checks the chain.
            reading = resolve_rendering(tool, result, original_arguments=original, call_arguments=arguments)
            parts.append(reading)
            texts.extend(block.text for block in result.content if block.type == "text")
            continuation = reading.continuation
            if continuation is None:
                break
            if len(parts) >= MAX_PARTS:
                all_fetched = False
                break
            arguments = {**original, continuation.argument: continuation.token}
            result = await client.call_tool(tool.name, arguments)
        mode, complete = combine_parts(parts, all_fetched=all_fetched)
        results[tool.name] = {"mode": mode, "partial": not complete, "text": texts}
    await client.call_tool(REPORT_PARTS, {"results": results})


async def main(url: str) -> None:
    async with Client(url, extensions=[mcp_rendering.client_extension()]) as client:
        if os.environ.get("MCP_CONFORMANCE_SCENARIO") == "result-continuation-client":
            await report_parts(client)
        else:
            await report_readings(client)


if __name__ == "__main__":
    anyio.run(main, sys.argv[-1])
