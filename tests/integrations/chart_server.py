"""A server whose tools, all marked verbatim, return a text record, an image and audio: the result of `chart` says
it may be summarized, that of `chart_verbatim` says nothing (verbatim); `chart_linked` returns a text record and a
resource link, in a result that says it may be summarized. It runs on the project's environment (the SDK 2.x), as a
script: ``python tests/integrations/chart_server.py``."""

from typing import Any

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
"""A one-pixel PNG image, base64."""
BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "Revenue by quarter"},
    {"type": "image", "data": PNG, "mimeType": "image/png"},
    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
]
"""The content of the results of `chart` and `chart_verbatim`, in order."""
LINKED: list[dict[str, Any]] = [
    {"type": "text", "text": "Revenue by quarter"},
    {"type": "resource_link", "uri": "file:///exports/chart.csv", "name": "chart.csv"},
]
"""The content of the result of `chart_linked`, in order."""


def build_server() -> Any:
    # The SDK 2.x is imported here only: the framework environments import this module for its constants.
    import mcp_types

    from mcp_rendering.examples._server import new_server, tool_annotations
    from mcp_rendering.types import EXTENSION_ID

    server = new_server("chart", "A chart of revenue.")

    @server.tool(name="chart", description="The chart.", annotations=tool_annotations("Chart", verbatim=True))
    def chart() -> mcp_types.CallToolResult:
        directive = {"mode": "summarizable", "complete": True}
        return mcp_types.CallToolResult.model_validate({"content": BLOCKS, "_meta": {EXTENSION_ID: directive}})

    @server.tool(name="chart_verbatim", description="The chart.", annotations=tool_annotations("Chart", verbatim=True))
    def chart_verbatim() -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult.model_validate({"content": BLOCKS})

    @server.tool(name="chart_linked", description="The chart.", annotations=tool_annotations("Chart", verbatim=True))
    def chart_linked() -> mcp_types.CallToolResult:
        directive = {"mode": "summarizable", "complete": True}
        return mcp_types.CallToolResult.model_validate({"content": LINKED, "_meta": {EXTENSION_ID: directive}})

    return server


if __name__ == "__main__":
    build_server().run()
