"""Tools whose server marks them `verbatimHint` return their result directly."""

from typing import Any
from unittest.mock import AsyncMock, MagicMock, patch

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import ToolException
from mcp.server import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session
from mcp.types import CallToolResult, ImageContent, ResourceLink, TextContent
from mcp.types import Tool as MCPTool

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import (
    convert_mcp_tool_to_langchain_tool,
    load_mcp_tools,
)
from tests.test_tools import LANGCHAIN_INSTALLED, FixedGenericFakeChatModel

_SCHEMA = {"type": "object", "properties": {}}
_CALL = {"args": {}, "id": "call-1", "type": "tool_call"}
_KEY = "io.modelcontextprotocol/rendering"


def _tool(meta: dict[str, Any] | None = None) -> MCPTool:
    return MCPTool(name="accounts", inputSchema=_SCHEMA, _meta=meta)


def _session(*content: Any, is_error: bool = False) -> AsyncMock:
    session = AsyncMock()
    session.call_tool.return_value = CallToolResult(
        content=list(content), isError=is_error
    )
    return session


async def test_a_hinted_tool_returns_directly_with_one_text():
    session = _session(
        TextContent(type="text", text="line 1\nline 2"),
        ImageContent(type="image", data="AAAA", mimeType="image/png"),
        TextContent(type="text", text="line 3"),
    )
    tool = convert_mcp_tool_to_langchain_tool(
        session, _tool({_KEY: {"verbatimHint": True}}), honor_verbatim_hint=True
    )
    assert tool.return_direct is True
    message = await tool.ainvoke(_CALL)
    assert isinstance(message, ToolMessage)
    assert len(message.content) == 1
    assert message.text == "line 1\nline 2\n\n[image: image/png]\n\nline 3"


async def test_a_link_keeps_its_uri_in_the_one_text():
    link = ResourceLink(
        type="resource_link",
        name="report",
        uri="https://example.com/report.csv",
        mimeType="text/csv",
    )
    tool = convert_mcp_tool_to_langchain_tool(
        _session(TextContent(type="text", text="rows"), link),
        _tool({_KEY: {"verbatimHint": True}}),
        honor_verbatim_hint=True,
    )
    message = await tool.ainvoke(_CALL)
    assert message.text == "rows\n\n[file: https://example.com/report.csv, text/csv]"


async def test_a_structured_only_result_is_its_json_text():
    session = AsyncMock()
    session.call_tool.return_value = CallToolResult(
        content=[], structuredContent={"total": 3, "name": "é"}
    )
    tool = convert_mcp_tool_to_langchain_tool(
        session, _tool({_KEY: {"verbatimHint": True}}), honor_verbatim_hint=True
    )
    message = await tool.ainvoke(_CALL)
    assert message.text == '{\n  "total": 3,\n  "name": "é"\n}'
    assert message.artifact == {"structured_content": {"total": 3, "name": "é"}}


@pytest.mark.parametrize(
    ("meta", "honor"),
    [
        ({_KEY: {"verbatimHint": True}}, False),
        (None, True),
        ({_KEY: {"verbatimHint": "true"}}, True),
        ({_KEY: {"summarizeOkHint": True}}, True),
        ({_KEY: True}, True),
    ],
)
async def test_other_tools_are_unchanged(meta, honor):
    session = _session(TextContent(type="text", text="result"))
    tool = convert_mcp_tool_to_langchain_tool(
        session, _tool(meta), honor_verbatim_hint=honor
    )
    assert tool.return_direct is False
    message = await tool.ainvoke(_CALL)
    assert [block["text"] for block in message.content] == ["result"]


@pytest.mark.parametrize("honor", [False, True])
async def test_an_error_of_a_hinted_tool_is_handled_as_before(honor):
    # The same failed message with the flag on or off: blocks as the server sent
    # them (not joined), status "error".
    session = _session(
        TextContent(type="text", text="boom"),
        TextContent(type="text", text="retry later"),
        is_error=True,
    )
    tool = convert_mcp_tool_to_langchain_tool(
        session, _tool({_KEY: {"verbatimHint": True}}), honor_verbatim_hint=honor
    )
    message = await tool.ainvoke(_CALL)
    assert message.status == "error"
    assert [block["text"] for block in message.content] == ["boom", "retry later"]


async def test_without_error_handling_an_error_of_a_hinted_tool_raises():
    session = _session(TextContent(type="text", text="boom"), is_error=True)
    tool = convert_mcp_tool_to_langchain_tool(
        session,
        _tool({_KEY: {"verbatimHint": True}}),
        handle_tool_errors=False,
        honor_verbatim_hint=True,
    )
    with pytest.raises(ToolException, match="boom"):
        await tool.ainvoke(_CALL)


async def test_load_mcp_tools_threads_the_flag():
    session = _session(TextContent(type="text", text="result"))
    session.list_tools.return_value = MagicMock(
        tools=[_tool({_KEY: {"verbatimHint": True}})], nextCursor=None
    )
    assert [t.return_direct for t in await load_mcp_tools(session)] == [False]
    tools = await load_mcp_tools(session, honor_verbatim_hint=True)
    assert [t.return_direct for t in tools] == [True]
    assert (await tools[0].ainvoke(_CALL)).text == "result"


async def test_multi_server_client_threads_the_flag():
    connections = {
        "math": {"transport": "stdio", "command": "echo", "args": []},
        "weather": {"transport": "stdio", "command": "echo", "args": []},
    }
    with patch(
        "langchain_mcp_adapters.client.load_mcp_tools",
        new=AsyncMock(return_value=[]),
    ) as mock_load:
        client = MultiServerMCPClient(connections, honor_verbatim_hint=True)
        await client.get_tools()
        await client.get_tools(server_name="math")
        assert mock_load.await_count == len(connections) + 1
        for call in mock_load.await_args_list:
            assert call.kwargs["honor_verbatim_hint"] is True
        mock_load.reset_mock()
        await MultiServerMCPClient(connections).get_tools()
        for call in mock_load.await_args_list:
            assert call.kwargs["honor_verbatim_hint"] is False


def _accounts_server() -> FastMCP:
    server = FastMCP("bank")

    @server.tool(meta={_KEY: {"verbatimHint": True}})
    def accounts(owner: str) -> str:
        """List the accounts of an owner."""
        if owner != "ada":
            msg = f"no owner named {owner!r}"
            raise ValueError(msg)
        return "checking 120.00\nsavings 3400.50"

    return server


def _accounts_call(owner: str, call_id: str) -> AIMessage:
    call = {"name": "accounts", "args": {"owner": owner}, "id": call_id}
    return AIMessage(content="", tool_calls=[{**call, "type": "tool_call"}])


@pytest.mark.skipif(not LANGCHAIN_INSTALLED, reason="langchain not installed")
async def test_an_agent_answers_with_the_result_of_a_hinted_tool():
    from langchain.agents import create_agent  # noqa: PLC0415

    model = FixedGenericFakeChatModel(
        messages=iter([_accounts_call("ada", "call_1"), AIMessage(content="2 rows")])
    )
    server = _accounts_server()._mcp_server
    async with create_connected_server_and_client_session(server) as session:
        agent = create_agent(
            model, await load_mcp_tools(session, honor_verbatim_hint=True)
        )
        result = await agent.ainvoke({"messages": [HumanMessage("Ada's accounts")]})

    final = result["messages"][-1]
    assert isinstance(final, ToolMessage)
    assert final.text == "checking 120.00\nsavings 3400.50"


@pytest.mark.skipif(not LANGCHAIN_INSTALLED, reason="langchain not installed")
async def test_an_agent_ends_its_turn_on_an_error_of_a_hinted_tool():
    from langchain.agents import create_agent  # noqa: PLC0415

    # As for any return_direct tool: `create_agent` ends the turn on the failed
    # message, and the model is not called again (langchain-ai/langchain#36411).
    model = FixedGenericFakeChatModel(
        messages=iter([_accounts_call("Ada", "call_1"), AIMessage(content="unused")])
    )
    server = _accounts_server()._mcp_server
    async with create_connected_server_and_client_session(server) as session:
        agent = create_agent(
            model, await load_mcp_tools(session, honor_verbatim_hint=True)
        )
        result = await agent.ainvoke({"messages": [HumanMessage("Ada's accounts")]})

    final = result["messages"][-1]
    assert isinstance(final, ToolMessage)
    assert final.status == "error"
    assert final.tool_call_id == "call_1"
    assert "no owner named 'Ada'" in final.text
    assert [type(m) for m in result["messages"]] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
    ]
