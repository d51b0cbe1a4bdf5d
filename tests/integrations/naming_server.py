"""A server whose tool names SK's MCP plugin normalizes alike, with a prompt, for the Semantic Kernel adapter's
tests; it runs on the project's environment (the SDK 2.x), as a script: ``python naming_server.py``.

`read ledger` (listed first, not marked) and `read-ledger` (marked verbatim) both become SK's function
``read-ledger``, which SK binds to the first; each returns its own name. `greeting` is a prompt (SK makes it a
function of the plugin too), and `listings` returns how many `tools/list` requests the server received. `ledger`
is marked verbatim in the listings before `unmark` is called only.
"""

from typing import Any

CALLED = "Called: {name}"
"""What each of the two tools returns, with its own name."""


def build_server() -> Any:
    # The SDK 2.x is imported here only: the framework environments import this module for its constants.
    import mcp_types

    from mcp_rendering.examples._server import new_server, tool_annotations

    server = new_server("naming", "Two tools whose names normalize alike, and a prompt.")

    @server.tool(name="read ledger", description="Reads the ledger.", annotations=tool_annotations("Read"))
    def read_ledger() -> str:
        return CALLED.format(name="read ledger")

    @server.tool(
        name="read-ledger", description="Reads the ledger too.", annotations=tool_annotations("Also", verbatim=True)
    )
    def also_read_ledger() -> mcp_types.CallToolResult:
        text = CALLED.format(name="read-ledger")
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)])

    @server.prompt(name="greeting", description="A greeting.")
    def greeting() -> str:
        return "Hello."

    marked = True

    @server.tool(name="ledger", description="The ledger.", annotations=tool_annotations("Ledger", verbatim=True))
    def ledger() -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="Ledger entries.")])

    @server.tool(name="unmark", description="Unmarks the ledger.", annotations=tool_annotations("Unmark"))
    def unmark() -> str:
        nonlocal marked
        marked = False
        return "Unmarked."

    listings = 0

    @server.tool(name="listings", description="The tools/list requests so far.", annotations=tool_annotations("N"))
    def count_listings() -> str:
        return str(listings)

    listed = server.list_tools

    async def list_tools() -> list[Any]:
        nonlocal listings
        listings += 1
        tools = await listed()
        if marked:
            return tools
        # Once unmarked: the same tools, the ledger's hint gone (the SDK patch writes it from the annotations).
        plain = tool_annotations("Ledger", plain=True)
        return [
            tool.model_copy(update={"annotations": plain, "meta": None}) if tool.name == "ledger" else tool
            for tool in tools
        ]

    server.list_tools = list_tools  # pyright: ignore[reportAttributeAccessIssue]
    return server


if __name__ == "__main__":
    build_server().run()
