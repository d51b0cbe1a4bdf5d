"""A host built on the patched SDK only, for the suite's `rendering-client` scenario.

It calls every tool but `report_readings`, reads each result with `mcp.client.rendering.read_rendering`, and
reports what it read. Run by the suite: python sdk_host.py SERVER_URL
"""

import sys

import anyio

from mcp import Client
from mcp.client.rendering import RENDERING_SUPPORT, read_rendering

REPORT_TOOL = "report_readings"


async def main(url: str) -> None:
    async with Client(url, extensions=[RENDERING_SUPPORT]) as client:
        readings: dict[str, dict[str, object]] = {}
        for tool in (await client.list_tools()).tools:
            if tool.name == REPORT_TOOL:
                continue
            reading = read_rendering(tool, await client.call_tool(tool.name, {}))
            readings[tool.name] = {"mode": reading.mode, "partial": reading.partial}
        await client.call_tool(REPORT_TOOL, {"readings": readings})


if __name__ == "__main__":
    anyio.run(main, sys.argv[-1])
