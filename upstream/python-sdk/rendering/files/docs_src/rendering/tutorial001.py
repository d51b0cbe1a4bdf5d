from mcp.server.mcpserver import MCPServer
from mcp.server.rendering import Directive, Rendering

BALANCE_SHEET = """\
Assets            1,200
  Cash              300
  Receivables       900
Liabilities         800
Equity              400"""

rendering = Rendering()


@rendering.tool(
    verbatim_hint=True,
    directive=Directive(mode="verbatim", guidance="Show every line, in order.", complete=True),
    description="The balance sheet, line by line.",
)
def balance_sheet() -> str:
    return BALANCE_SHEET


@rendering.tool(summarize_ok_hint=True, description="Today's market headlines.")
def headlines() -> str:
    return "Markets rose. Bonds were flat. The dollar slipped."


mcp = MCPServer("ledger", extensions=[rendering])
