"""A server whose one tool, marked verbatim, returns content blocks of every kind a framework may not map for its
model (a resource link, audio, an embedded text resource) between two text records; it runs on the project's
environment (the SDK 2.x), as a script: ``python tests/integrations/mixed_blocks_server.py``."""

from typing import Any

BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "Row one"},
    {"type": "resource_link", "uri": "file:///exports/ledger.csv", "name": "ledger.csv"},
    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
    {"type": "resource", "resource": {"uri": "file:///exports/memo.txt", "mimeType": "text/plain", "text": "Memo"}},
    {"type": "text", "text": "Row two"},
]
"""The content of the result of `mixed`, in order."""


def build_server() -> Any:
    # The SDK 2.x is imported here only: the framework environments import this module for its constants.
    import mcp_types

    from mcp_rendering.examples._server import new_server, tool_annotations

    server = new_server("mixed", "One tool whose result holds blocks of several kinds.")

    @server.tool(name="mixed", description="Rows and files.", annotations=tool_annotations("Mixed", verbatim=True))
    def mixed() -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult.model_validate({"content": BLOCKS})

    return server


if __name__ == "__main__":
    build_server().run()
