"""A plain MCP server that knows nothing of the rendering extension (run with ``python -m interop.plain_server``).

Built with the SDK's high-level `MCPServer` and served over stdio. The reverse harness connects a patched client to
it and checks that the patch changes nothing the server did not say.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("plain-inventory")

_STOCK = {"bolts": 120, "nuts": 80, "washers": 0}


class StockLine(BaseModel):
    """One line of the stock report."""

    item: str
    count: int


class StockReport(BaseModel):
    """The structured result of `stock_report`."""

    lines: list[StockLine]
    total: int


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def stock_report() -> StockReport:
    """Every stock line and the total, as structured content."""
    lines = [StockLine(item=item, count=count) for item, count in _STOCK.items()]
    return StockReport(lines=lines, total=sum(_STOCK.values()))


@server.resource("inventory://readme", mime_type="text/plain")
def readme() -> str:
    """What this server is."""
    return "A small inventory server with no rendering extension."


@server.prompt()
def restock(item: str) -> str:
    """Ask for a restock plan for one item."""
    return f"Plan a restock of {item}."


if __name__ == "__main__":
    server.run("stdio")
