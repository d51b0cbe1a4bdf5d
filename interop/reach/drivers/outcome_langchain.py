"""Measures the user's final answer from LangChain's own agent loop (`langchain.agents.create_agent`).

LangChain's fake chat model is scripted to call the job's tools (`_common.script`: by default the financial tool),
then to write the three-line summary the job gives (a stand-in for a model that summarizes). The final answer is
the text of the last message of the run, where LangChain applications read it; the outputs, the text of each tool
message. With ``helped``, the tools are loaded with `mcp_rendering.integrations.langchain.direct_answer_interceptor`
and passed through `answer_directly`.
"""

from __future__ import annotations

from typing import Any

from _common import run, script, server_name
from langchain.agents import create_agent  # pyright: ignore[reportMissingImports]
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # pyright: ignore[reportMissingImports]
from langchain_core.messages import AIMessage, ToolMessage  # pyright: ignore[reportMissingImports]
from langchain_mcp_adapters.tools import load_mcp_tools  # pyright: ignore[reportMissingImports]
from mcp import ClientSession, StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client


class ScriptedChatModel(GenericFakeChatModel):  # pyright: ignore[reportUntypedBaseClass]
    """The fake model answers from its script whatever tools it is bound to."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    replies = [
        AIMessage(
            content="",
            tool_calls=[
                {"name": call["name"], "args": call["args"], "id": f"call-{turn}-{index}"}
                for index, call in enumerate(calls)
            ],
        )
        for turn, calls in enumerate(script(job, tool_name))
    ]
    replies.append(AIMessage(content=job["options"]["summary"]))
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        if job["helped"]:
            from mcp_rendering.integrations.langchain import answer_directly, direct_answer_interceptor

            loaded = await load_mcp_tools(session, tool_interceptors=[direct_answer_interceptor()])
            tools = answer_directly({server_name(job): loaded})
        else:
            tools = await load_mcp_tools(session)
        agent = create_agent(ScriptedChatModel(messages=iter(replies)), tools)
        state = await agent.ainvoke({"messages": [("user", "Show the annual accounts.")]})
    outputs = [message.text for message in state["messages"] if isinstance(message, ToolMessage)]
    return {"final": state["messages"][-1].text, "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "langchain", "langgraph", "langchain-mcp-adapters", "mcp")
