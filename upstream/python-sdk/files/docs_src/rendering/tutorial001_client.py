import anyio

from mcp import Client
from mcp.client.rendering import RENDERING_SUPPORT, read_rendering


async def report(client: Client) -> list[str]:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    lines: list[str] = []
    for name in ("balance_sheet", "headlines"):
        result = await client.call_tool(name, {})
        reading = read_rendering(tools[name], result)
        lines.append(f"{name}: {reading.mode}, partial={reading.partial}")
    return lines


async def main() -> None:
    async with Client("http://localhost:8000/mcp", extensions=[RENDERING_SUPPORT]) as client:
        for line in await report(client):
            print(line)


if __name__ == "__main__":
    anyio.run(main)
