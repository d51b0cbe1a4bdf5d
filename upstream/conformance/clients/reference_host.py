"""The project's reference host (`mcp_rendering`), for the suite's `rendering-client` scenario.

It calls every tool but `report_readings`, reads each result with `mcp_rendering.reading.resolve_rendering`, and
reports what it read (partial: a directive that the reader does not read as complete). Run by the suite with the
project's environment: python reference_host.py SERVER_URL
"""

from __future__ import annotations

import sys

import anyio

import mcp_rendering
from mcp import Client
from mcp_rendering.reading import resolve_rendering

REPORT_TOOL = "report_readings"


async def main(url: str) -> None:
    async with Client(url, extensions=[mcp_rendering.client_extension()]) as client:
        readings: dict[str, dict[str, object]] = {}
        for tool in (await client.list_tools()).tools:
            if tool.name == REPORT_TOOL:
                continue
            reading = resolve_rendering(tool, await client.call_tool(tool.name, {}))
            partial = reading.directive is not None and not reading.complete
            readings[tool.name] = {"mode": reading.mode, "partial": partial}
        await client.call_tool(REPORT_TOOL, {"readings": readings})


if __name__ == "__main__":
    anyio.run(main, sys.argv[-1])
