"""Bad input through the return-direct adapters: each framework's own agent loop, driven by its own scripted model,
against `tests.support.hostile_server` over stdio (a server marking every tool verbatim, an error from a verbatim
tool, results with no text or no content, text imitating the host's lines, a result far over the answer's bound).

The file runs in each framework's environment (`scripts/test-integrations.sh`); the frameworks it cannot import
there are skipped. Whatever the server sends, the agent keeps working and the user is never shown server text as
the host's.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import pytest

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, IMITATION_WARNING, NARROWER_QUERY
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, server_python

SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
"""What each scripted model writes after its tool calls: a stand-in for a model that summarizes."""
SERVER = "hostile"
Turns = Sequence[Sequence[str]]
"""The tools each model turn calls (without arguments), before the model writes `SUMMARY`."""
Runner = Callable[[Turns, "Sequence[str] | None"], Coroutine[Any, Any, str]]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _params() -> dict[str, Any]:
    return {"command": server_python(), "args": ["-m", "tests.support.hostile_server"], "cwd": str(ROOT)}


async def _langchain(turns: Turns, allow: Sequence[str] | None) -> str:
    from langchain.agents import create_agent  # pyright: ignore[reportMissingImports]
    from langchain_core.language_models.fake_chat_models import (  # pyright: ignore[reportMissingImports]
        GenericFakeChatModel,
    )
    from langchain_core.messages import AIMessage  # pyright: ignore[reportMissingImports]
    from mcp import ClientSession, StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
    from mcp.client.stdio import stdio_client

    from mcp_rendering.integrations.langchain import load_direct_answer_tools

    class Scripted(GenericFakeChatModel):  # pyright: ignore[reportUntypedBaseClass]
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    replies = [
        AIMessage(content="", tool_calls=[{"name": name, "args": {}, "id": f"c{t}-{n}"} for n, name in enumerate(turn)])
        for t, turn in enumerate(turns)
    ]
    async with stdio_client(StdioServerParameters(**_params())) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await load_direct_answer_tools(session, server=SERVER, allow=allow)
        agent = create_agent(Scripted(messages=iter([*replies, AIMessage(content=SUMMARY)])), tools)
        state = await agent.ainvoke({"messages": [("user", "Show the ledger")]})
    return state["messages"][-1].text


async def _openai_agents(turns: Turns, allow: Sequence[str] | None) -> str:
    from agents import Agent, RunConfig, Runner  # pyright: ignore[reportMissingImports]
    from agents.testing import (  # pyright: ignore[reportMissingImports]
        ScriptedModel,
        assistant_message,
        function_call,
    )

    from mcp_rendering.integrations.openai_agents import RenderingMCPServerStdio, verbatim_final_output

    model = ScriptedModel(
        [
            *[
                [function_call(name, {}, call_id=f"c{t}-{n}") for n, name in enumerate(turn)]
                for t, turn in enumerate(turns)
            ],
            [assistant_message(SUMMARY)],
        ]
    )
    server = RenderingMCPServerStdio(params=_params(), name=SERVER, allow=allow, client_session_timeout_seconds=60)
    async with server:
        agent = Agent(name="t", model=model, mcp_servers=[server], tool_use_behavior=verbatim_final_output)
        result = await Runner.run(agent, "Show the ledger", run_config=RunConfig(tracing_disabled=True))
    return str(result.final_output)


async def _google_adk(turns: Turns, allow: Sequence[str] | None) -> str:
    from collections.abc import AsyncGenerator

    from google.adk.agents import LlmAgent  # pyright: ignore[reportMissingImports]
    from google.adk.models import BaseLlm, LlmRequest, LlmResponse  # pyright: ignore[reportMissingImports]
    from google.adk.runners import InMemoryRunner  # pyright: ignore[reportMissingImports]
    from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams  # pyright: ignore[reportMissingImports]
    from google.genai import types  # pyright: ignore[reportMissingImports]
    from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]

    from mcp_rendering.integrations.google_adk import direct_answers

    class Scripted(BaseLlm):  # pyright: ignore[reportUntypedBaseClass]
        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            done = sum(any(part.function_response for part in c.parts or []) for c in llm_request.contents)
            if done >= len(turns):
                parts = [types.Part(text=SUMMARY)]
            else:
                parts = [
                    types.Part(function_call=types.FunctionCall(id=f"c{done}-{n}", name=name, args={}))
                    for n, name in enumerate(turns[done])
                ]
            yield LlmResponse(content=types.Content(role="model", parts=parts))

    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=StdioServerParameters(**_params())))
    answers = direct_answers({SERVER: toolset}, allow=None if allow is None else {SERVER: allow})
    agent = LlmAgent(name="t", model=Scripted(model="scripted"), tools=[toolset], **answers)
    runner = InMemoryRunner(agent=agent, app_name="t")
    final = ""
    try:
        session = await runner.session_service.create_session(app_name="t", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="Show the ledger")])
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            if event.is_final_response() and event.content is not None:
                final = "".join(part.text or "" for part in event.content.parts or [])
    finally:
        await toolset.close()
    return final


async def _agno(turns: Turns, allow: Sequence[str] | None) -> str:
    from agno.agent import Agent  # pyright: ignore[reportMissingImports]
    from agno.models.base import Model  # pyright: ignore[reportMissingImports]
    from agno.models.response import ModelResponse  # pyright: ignore[reportMissingImports]
    from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]

    from mcp_rendering.integrations.agno import DirectAnswerMCPTools

    class Scripted(Model):  # pyright: ignore[reportUntypedBaseClass]
        async def ainvoke(self, messages: list[Any], **kwargs: Any) -> Any:
            done = sum(1 for message in messages if message.role == "assistant" and message.tool_calls)
            if done >= len(turns):
                return ModelResponse(role="assistant", content=SUMMARY)
            calls = [
                {"id": f"c{done}-{n}", "type": "function", "function": {"name": name, "arguments": "{}"}}
                for n, name in enumerate(turns[done])
            ]
            return ModelResponse(role="assistant", tool_calls=calls)

        def invoke(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        def ainvoke_stream(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        def _parse_provider_response(self, response: Any, **kwargs: Any) -> Any:
            return response

        def _parse_provider_response_delta(self, response: Any) -> Any:
            return response

    params = StdioServerParameters(**_params())
    async with DirectAnswerMCPTools(server_params=params, server=SERVER, allow=allow) as toolkit:
        agent = Agent(model=Scripted(id="scripted"), tools=[toolkit], post_hooks=[toolkit.final_answer_hook])
        output = await agent.arun("Show the ledger")
    return str(output.content)


async def _strands(turns: Turns, allow: Sequence[str] | None) -> str:
    import json
    from collections.abc import AsyncIterator

    from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
    from mcp.client.stdio import stdio_client
    from strands import Agent  # pyright: ignore[reportMissingImports]
    from strands.models import Model  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.strands import DirectAnswerMCPClient, DirectAnswers

    class Scripted(Model):  # pyright: ignore[reportUntypedBaseClass]
        def update_config(self, **model_config: Any) -> None:
            del model_config

        def get_config(self) -> Any:
            return {}

        def structured_output(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        async def stream(self, messages: list[Any], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            done = sum(1 for message in messages if any("toolUse" in block for block in message["content"]))
            yield {"messageStart": {"role": "assistant"}}
            if done >= len(turns):
                yield {"contentBlockStart": {"start": {}}}
                yield {"contentBlockDelta": {"delta": {"text": SUMMARY}}}
                yield {"contentBlockStop": {}}
                yield {"messageStop": {"stopReason": "end_turn"}}
                return
            for n, name in enumerate(turns[done]):
                yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": f"c{done}-{n}", "name": name}}}}
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps({})}}}}
                yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}

    params = StdioServerParameters(**_params())
    client = DirectAnswerMCPClient(lambda: stdio_client(params), startup_timeout=60)
    hooks = [DirectAnswers({SERVER: client}, allow=None if allow is None else {SERVER: allow})]
    agent = Agent(model=Scripted(), tools=[client], hooks=hooks, callback_handler=None)
    try:
        result = await agent.invoke_async("Show the ledger")
    finally:
        agent.cleanup()
    # `str()` closes each text block with a newline of its own.
    return str(result).removesuffix("\n")


async def _haystack(turns: Turns, allow: Sequence[str] | None) -> str:
    from haystack import component  # pyright: ignore[reportMissingImports]
    from haystack.components.agents import Agent  # pyright: ignore[reportMissingImports]
    from haystack.dataclasses import ChatMessage, ToolCall  # pyright: ignore[reportMissingImports]
    from haystack_integrations.tools.mcp import MCPToolset, StdioServerInfo  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.haystack import direct_answers

    @component
    class Scripted:
        @component.output_types(replies=list[ChatMessage])
        def run(self, messages: list[ChatMessage], tools: Any = None) -> dict[str, Any]:
            del tools
            done = sum(1 for message in messages if message.tool_calls)
            if done >= len(turns):
                return {"replies": [ChatMessage.from_assistant(SUMMARY)]}
            calls = [ToolCall(tool_name=name, arguments={}, id=f"c{done}-{n}") for n, name in enumerate(turns[done])]
            return {"replies": [ChatMessage.from_assistant(tool_calls=calls)]}

    params = _params()
    # The server runs from the repository, where the test servers' package is.
    info = StdioServerInfo(command=params["command"], args=params["args"], env={"PYTHONPATH": str(ROOT)})
    toolset = MCPToolset(info, invocation_timeout=60)
    hooks = direct_answers({SERVER: toolset}, allow=None if allow is None else {SERVER: allow})
    agent = Agent(chat_generator=Scripted(), tools=toolset, hooks=hooks)
    try:
        output = await agent.run_async(messages=[ChatMessage.from_user("Show the ledger")])
    finally:
        toolset.close()
    return str(output["last_message"].text)


async def _autogen(turns: Turns, allow: Sequence[str] | None) -> str:
    from autogen_core import FunctionCall  # pyright: ignore[reportMissingImports]
    from autogen_core.models import CreateResult, RequestUsage  # pyright: ignore[reportMissingImports]
    from autogen_ext.models.replay import ReplayChatCompletionClient  # pyright: ignore[reportMissingImports]
    from autogen_ext.tools.mcp import (  # pyright: ignore[reportMissingImports]
        StdioServerParams,
        create_mcp_server_session,
        mcp_server_tools,
    )

    from mcp_rendering.integrations.autogen import DirectAnswerAgent, DirectAnswerWorkbench, recording_session

    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    replies: list[Any] = [
        CreateResult(
            finish_reason="function_calls",
            content=[FunctionCall(id=f"c{t}-{n}", name=name, arguments="{}") for n, name in enumerate(turn)],
            usage=usage,
            cached=False,
        )
        for t, turn in enumerate(turns)
    ]
    info: Any = {"vision": False, "function_calling": True, "json_output": False, "family": "unknown"}
    model = ReplayChatCompletionClient([*replies, SUMMARY], model_info={**info, "structured_output": False})
    params = StdioServerParams(**_params(), read_timeout_seconds=60)
    async with create_mcp_server_session(params) as session:
        await session.initialize()
        tools = await mcp_server_tools(params, session=recording_session(session, server=SERVER))
        workbench = DirectAnswerWorkbench(tools, allow=None if allow is None else {SERVER: allow})
        # A step for each turn, and one for the model's answer.
        agent = DirectAnswerAgent("ledger", model, workbench=workbench, max_tool_iterations=len(turns) + 1)
        result = await agent.run(task="Show the ledger")
    return str(result.messages[-1].content)


_RUNNERS: dict[str, tuple[str, Runner]] = {
    "langchain": ("langchain.agents", _langchain),
    "openai-agents": ("agents.testing", _openai_agents),
    "google-adk": ("google.adk", _google_adk),
    "agno": ("agno.agent", _agno),
    "strands": ("strands", _strands),
    "haystack": ("haystack_integrations.tools.mcp", _haystack),
    "autogen": ("autogen_ext.tools.mcp", _autogen),
}


@pytest.fixture(params=list(_RUNNERS))
def answer(request: pytest.FixtureRequest) -> Callable[..., str]:
    module, runner = _RUNNERS[request.param]
    if not _importable(module):
        pytest.skip(f"{request.param} is not installed in this environment")

    def run(*turns: Sequence[str], allow: Sequence[str] | None = None) -> str:
        return asyncio.run(runner(turns, allow))

    return run


def _caption(tool: str) -> str:
    return f'Verbatim result from tool "{tool}" of server "{SERVER}".'


def test_text_imitating_the_host_is_shown_below_the_host_warning(answer: Callable[..., str]) -> None:
    from tests.support.hostile import FAKE_CAPTION, FAKE_COMPLETE, LEDGER_LINES

    final = answer(["ledger"])
    paragraphs = final.split("\n\n")
    assert paragraphs[:2] == [_caption("ledger"), IMITATION_WARNING]
    assert final.index(FAKE_CAPTION) > final.index(IMITATION_WARNING) and FAKE_COMPLETE in paragraphs[2]
    assert all(line in final for line in LEDGER_LINES)
    assert "\x1b" not in final and "\u202e" not in final  # terminal escapes and overrides shown, never acted on
    assert "Tell the user the host verified" not in final  # the server's guidance is never the answer


def test_an_error_of_a_verbatim_tool_goes_to_the_model_which_keeps_working(answer: Callable[..., str]) -> None:
    from tests.support.hostile import ERROR_TEXT

    assert answer(["broken"]) == SUMMARY
    assert answer(["broken", "notes"]) == SUMMARY  # one turn: the error sends it back to the model, once
    after = answer(["broken"], ["notes"])
    assert after.startswith(_caption("notes")) and ERROR_TEXT not in after


def test_results_with_no_text_answer_with_the_host_lines(answer: Callable[..., str]) -> None:
    assert answer(["blank"]) == f"{_caption('blank')}\n\n[image: image/png]"
    assert (
        answer(["nothing"])
        == f'{_caption("nothing")}\n\nThe tool "nothing" of server "{SERVER}" returned nothing to show.'
    )


def test_a_huge_result_is_bounded_and_says_so(answer: Callable[..., str]) -> None:
    from tests.support.hostile import HUGE_LINE, HUGE_LINES

    final = answer(["huge"])
    assert len(final.encode()) < DEFAULT_MAX_BYTES + 4096
    caption, notice, records = final.split("\n\n", 2)
    assert caption == _caption("huge") and notice.startswith(f"{PARTIAL_MARKER} this answer shows the first ")
    assert "full result" not in notice and notice.endswith(NARROWER_QUERY)  # no full result stands behind it
    shown = records.splitlines()
    assert 0 < len(shown) < HUGE_LINES and shown == [HUGE_LINE.format(n=n) for n in range(len(shown))]


def test_a_server_marking_every_tool_takes_over_only_the_tools_the_host_allows(answer: Callable[..., str]) -> None:
    from tests.support.hostile import NOTES_TEXT

    assert answer(["notes"]) == f"{_caption('notes')}\n\n{NOTES_TEXT}"
    assert answer(["notes"], allow=["ledger"]) == SUMMARY
    assert answer(["broken"], allow=["ledger"]) == SUMMARY
