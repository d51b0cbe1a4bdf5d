from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.rendering import Directive, Rendering, client_supports_rendering, with_directive
from mcp.types import CallToolResult, ContentBlock, TextContent

HITS = [f"hit {n}: ACME Trading {n}" for n in range(1, 8)]
PAGE_SIZE = 5

rendering = Rendering()


@rendering.tool(verbatim_hint=True, description="Sanctions screening hits, at most five at a time.")
def screening(ctx: Context) -> CallToolResult:
    page = HITS[:PAGE_SIZE]
    content: list[ContentBlock] = [TextContent(type="text", text=hit) for hit in page]
    if not client_supports_rendering(ctx):
        content.append(TextContent(type="text", text=f"(first {len(page)} of {len(HITS)} hits)"))
    result = CallToolResult(content=content)
    return with_directive(result, Directive(mode="verbatim", null_display="n/a", complete=len(page) == len(HITS)))


mcp = MCPServer("screening", extensions=[rendering])
