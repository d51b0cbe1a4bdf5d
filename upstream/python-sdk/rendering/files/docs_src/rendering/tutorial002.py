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
    content: list[ContentBlock] = [TextContent(text=hit) for hit in page]
    if not client_supports_rendering(ctx):
        content.append(TextContent(text=f"(first {len(page)} of {len(HITS)} hits)"))
    directive = Directive(mode="verbatim", null_display="-", complete=len(page) == len(HITS))
    return with_directive(CallToolResult(content=content), directive)


mcp = MCPServer("screening", extensions=[rendering])
