"""A server whose state lasts as long as the session to it, for the tests that a marked call is made on the
application's own session; it runs on the project's environment (the SDK 2.x), as a script:
``python tests/integrations/login_server.py``.

`login` (not marked) records the account of the session; `statement` (marked verbatim) returns that account's two
records, or says that no one logged in on this session.
"""

from typing import Any

NOT_LOGGED_IN = "No one is logged in on this session."


def build_server() -> Any:
    # The SDK 2.x is imported here only: the framework environments import this module for its constants.
    import mcp_types

    from mcp_rendering.examples._server import new_server, tool_annotations

    server = new_server("login", "A server that remembers who logged in on the session.")
    account: list[str] = []

    @server.tool(name="login", description="Logs in.", annotations=tool_annotations("Login"))
    def login(name: str) -> str:
        account[:] = [name]
        return f"Logged in as {name}."

    @server.tool(
        name="statement", description="The account's records.", annotations=tool_annotations("Statement", verbatim=True)
    )
    def statement() -> mcp_types.CallToolResult:
        text = f"Record 1 of {account[0]}\nRecord 2 of {account[0]}" if account else NOT_LOGGED_IN
        return mcp_types.CallToolResult.model_validate({"content": [{"type": "text", "text": text}]})

    return server


if __name__ == "__main__":
    build_server().run()
