"""A server whose results' directives and tools' hints disagree, for the rule on which results take a framework's
return-direct route (the "Which results take the route" table of the Agent frameworks page):
``python -m tests.support.directive_server``.

- `directed`: a tool without the hint whose result's directive alone says verbatim;
- `hinted`: a tool with the verbatim hint whose result's directive says it may be summarized.

The constants are importable without the SDK 2.x (the frameworks' environments import them).
"""

from typing import Any

DIRECTED_TEXT = "Cash 120\nDebt 80"
"""The text of `directed`'s result."""
HINTED_TEXT = "Revenue 300\nCosts 250"
"""The text of `hinted`'s result."""


def build_server() -> Any:
    # The SDK 2.x is imported here only, as the server runs on the project's environment.
    import mcp_types
    from mcp.server.mcpserver import MCPServer

    from mcp_rendering import RenderingExtension
    from mcp_rendering.types import EXTENSION_ID

    rendering = RenderingExtension()
    server = MCPServer("directive", extensions=[rendering], middleware=[rendering])

    def result(text: str, mode: str) -> Any:
        directive = {"mode": mode, "complete": True}
        return mcp_types.CallToolResult.model_validate(
            {"content": [{"type": "text", "text": text}], "_meta": {EXTENSION_ID: directive}}
        )

    @server.tool()
    def directed() -> mcp_types.CallToolResult:
        """The balance; the tool carries no hint."""
        return result(DIRECTED_TEXT, "verbatim")

    @server.tool(meta={EXTENSION_ID: {"verbatimHint": True}})
    def hinted() -> mcp_types.CallToolResult:
        """The income statement, marked verbatim."""
        return result(HINTED_TEXT, "summarizable")

    return server


if __name__ == "__main__":
    build_server().run("stdio")
