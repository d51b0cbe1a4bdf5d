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

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, IMITATION_WARNING
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
    async with RenderingMCPServerStdio(params=_params(), name=SERVER, allow_direct=allow) as server:
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
    agent = LlmAgent(
        name="t", model=Scripted(model="scripted"), tools=[toolset], **direct_answers(server=SERVER, allow=allow)
    )
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


_RUNNERS: dict[str, tuple[str, Runner]] = {
    "langchain": ("langchain.agents", _langchain),
    "openai-agents": ("agents.testing", _openai_agents),
    "google-adk": ("google.adk", _google_adk),
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
    assert caption == _caption("huge") and notice.startswith(f"{PARTIAL_MARKER} this host shows the first ")
    shown = records.splitlines()
    assert 0 < len(shown) < HUGE_LINES and shown == [HUGE_LINE.format(n=n) for n in range(len(shown))]


def test_a_server_marking_every_tool_takes_over_only_the_tools_the_host_allows(answer: Callable[..., str]) -> None:
    from tests.support.hostile import NOTES_TEXT

    assert answer(["notes"]) == f"{_caption('notes')}\n\n{NOTES_TEXT}"
    assert answer(["notes"], allow=["ledger"]) == SUMMARY
    assert answer(["broken"], allow=["ledger"]) == SUMMARY
