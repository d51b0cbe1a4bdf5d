import anyio

from mcp import Client
from mcp.client.rendering import RENDERING_SUPPORT, read_rendering


async def report(client: Client) -> list[str]:
    lines: list[str] = []
    for tool in (await client.list_tools()).tools:
        reading = read_rendering(tool, await client.call_tool(tool.name, {}))
        if reading is not None:
            lines.append(f"{tool.name}: {reading.mode}, partial={reading.partial}")
    return lines


async def main() -> None:
    async with Client("http://localhost:8000/mcp", extensions=[RENDERING_SUPPORT]) as client:
        for line in await report(client):
            print(line)


if __name__ == "__main__":
    anyio.run(main)
