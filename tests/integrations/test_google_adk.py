"""The Agent Development Kit adapter, in the environment of `google-adk`.

Each test runs ADK's own `InMemoryRunner` with a scripted `BaseLlm` (no model, no network) and an `McpToolset`
against the example servers over stdio, and reads the final text the user would receive.
"""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from collections.abc import AsyncGenerator, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from google.adk.agents import LlmAgent  # pyright: ignore[reportMissingImports]
from google.adk.models import BaseLlm, LlmRequest, LlmResponse  # pyright: ignore[reportMissingImports]
from google.adk.runners import InMemoryRunner  # pyright: ignore[reportMissingImports]
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams  # pyright: ignore[reportMissingImports]
from google.genai import types  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from pydantic import Field

from mcp_rendering import audit
from mcp_rendering.integrations.google_adk import direct_answers
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import page_examples, reference_result, run_example
from tests.support.directive_server import DIRECTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
MARKED = str(Path(__file__).with_name("marked_server.py"))
RENDERING = "io.modelcontextprotocol/rendering"


class ScriptedModel(BaseLlm):  # pyright: ignore[reportUntypedBaseClass]
    """Calls `tool` with `arguments` once (and each tool of `also`, without arguments, in the same turn); once it
    has function responses, writes `SUMMARY`."""

    tool: str
    arguments: dict[str, Any]
    also: list[str] = Field(default_factory=list)
    calls: int = 0
    responses: list[str] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        del stream
        self.calls += 1
        answered = any(
            part.function_response is not None for content in llm_request.contents for part in content.parts or []
        )
        if answered:
            self.responses = [
                part.function_response.name
                for content in llm_request.contents
                for part in content.parts or []
                if part.function_response is not None
            ]
            parts = [types.Part(text=SUMMARY)]
        else:
            calls = [(self.tool, self.arguments), *((name, {}) for name in self.also)]
            parts = [
                types.Part(function_call=types.FunctionCall(id=f"call-{index}", name=name, args=arguments))
                for index, (name, arguments) in enumerate(calls, 1)
            ]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


async def _final(
    python: str, module: str, tool: str, arguments: Mapping[str, Any], also: Sequence[str] = ()
) -> tuple[str, int]:
    final, model = await _run(python, module, tool, arguments, also)
    return final, model.calls


async def _final_text(agent: Any) -> str:
    """The text of the final response of a run of `agent` on "Go." (`_events`)."""
    final = ""
    for event in await _events(agent, "test"):
        if event.is_final_response() and event.content is not None:
            final = "".join(part.text or "" for part in event.content.parts or [])
    return final


async def _run(
    python: str,
    module: str,
    tool: str,
    arguments: Mapping[str, Any],
    also: Sequence[str],
    *,
    markdown: bool = False,
    allow: Mapping[str, Sequence[str]] | None = None,
    max_bytes: int | None = 512 * 1024,
) -> tuple[str, ScriptedModel]:
    params = StdioServerParameters(command=python, args=["-m", module])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    model = ScriptedModel(model="scripted", tool=tool, arguments=dict(arguments), also=list(also))
    agent = LlmAgent(
        name="test",
        model=model,
        tools=[toolset],
        **direct_answers({"example": toolset}, markdown=markdown, allow=allow, max_bytes=max_bytes),
    )
    try:
        final = await _final_text(agent)
    finally:
        await toolset.close()
    return final, model


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    final, calls = asyncio.run(_final(example_python, FINANCIAL, "financial_statements", {}))
    assert calls == 1  # the model never read the result
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    final, _ = asyncio.run(_run(example_python, FINANCIAL, "financial_statements", {}, [], markdown=True))
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


async def _two_servers(python: str, allow: Mapping[str, Sequence[str]] | None = None) -> tuple[str, ScriptedModel]:
    """One agent with two MCP servers, the example server as "bank" and the one marking every tool as "ledger",
    whose `entry` the model calls."""

    def toolset(*args: str) -> Any:
        params = StdioServerParameters(command=python, args=list(args))
        return McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))

    bank, ledger = toolset("-m", FINANCIAL), toolset(MARKED)
    model = ScriptedModel(model="scripted", tool="entry", arguments={"account": "A-1"})
    answers = direct_answers({"bank": bank, "ledger": ledger}, allow=allow)
    agent = LlmAgent(name="test", model=model, tools=[bank, ledger], **answers)
    try:
        final = await _final_text(agent)
    finally:
        await bank.close()
        await ledger.close()
    return final, model


def test_a_second_servers_result_is_captioned_with_its_own_name(example_python: str) -> None:
    final, model = asyncio.run(_two_servers(example_python))
    assert model.calls == 1
    assert final.startswith('Verbatim result from tool "entry" of server "ledger".')
    assert '"bank"' not in final


def test_a_tool_name_allowed_on_one_server_allows_nothing_of_another(example_python: str) -> None:
    final, model = asyncio.run(_two_servers(example_python, allow={"bank": ["entry"]}))
    assert final == SUMMARY and model.calls == 2


def test_direct_answers_takes_the_servers_by_name_and_no_name_for_them_all() -> None:
    with pytest.raises(TypeError):
        direct_answers([])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        direct_answers({"": object()})
    with pytest.raises(TypeError):
        direct_answers({}, allow=["entry"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        direct_answers({}, server="bank")  # pyright: ignore[reportCallIssue]


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    final, model = asyncio.run(
        _run(example_python, FINANCIAL, "financial_statements", {}, [], allow={"example": ["key_figures"]})
    )
    assert final == SUMMARY and model.calls == 2


def test_other_tools_and_errors_go_to_the_model(example_python: str) -> None:
    for module, tool, arguments in (
        (FINANCIAL, "key_figures", {}),
        (SCREENING, "screening_report", {"batch": "nope"}),
    ):
        final, calls = asyncio.run(_final(example_python, module, tool, arguments))
        assert final == SUMMARY and calls == 2, tool


def test_a_turn_with_a_verbatim_tool_and_another_goes_to_the_model_in_either_order(example_python: str) -> None:
    for first, second in (("financial_statements", "key_figures"), ("key_figures", "financial_statements")):
        final, model = asyncio.run(_run(example_python, FINANCIAL, first, {}, [second]))
        # The model read both results and its answer is the turn's final text; no host answer follows it.
        assert model.calls == 2 and sorted(model.responses) == ["financial_statements", "key_figures"], first
        assert final == SUMMARY, first


def test_a_turn_of_verbatim_calls_only_answers_with_each_in_order(example_python: str) -> None:
    final, model = asyncio.run(_run(example_python, FINANCIAL, "financial_statements", {}, ["financial_statements"]))
    assert model.calls == 1
    assert final.count('Verbatim result from tool "financial_statements" of server "example".') == 2


def test_a_joined_answer_names_by_tool_the_results_its_bound_leaves_out(example_python: str) -> None:
    # Each whole answer is about a third of the bound: the third is left out, and named by its tool.
    calls = ("financial_statements", {}, ["financial_statements", "financial_statements"])
    final, model = asyncio.run(_run(example_python, FINANCIAL, *calls, max_bytes=16000))
    assert model.calls == 1
    left_out = final.split("\n\n")[1]
    assert left_out.startswith(f"{PARTIAL_MARKER} this answer shows the first 2 of 3 results")
    assert 'result 3, of tool "financial_statements", is not in it.' in left_out


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    final, _ = asyncio.run(_final(example_python, SCREENING, "screening_report", {}))
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("google-adk.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""
CAPTION = 'Verbatim result from tool "directed" of server "example".'


def test_a_result_directive_alone_takes_the_route_and_a_summarizable_result_does_not(example_python: str) -> None:
    # The route is taken after the call: the result's directive decides, with or without the tool's hint.
    final, model = asyncio.run(_run(example_python, DIRECTIVE, "directed", {}, []))
    assert final == f"{CAPTION}\n\n{DIRECTED_TEXT}" and model.calls == 1
    final, _ = asyncio.run(_run(example_python, DIRECTIVE, "hinted", {}, []))
    assert final == SUMMARY


def test_a_turn_left_undecided_never_meets_another_invocations_calls() -> None:
    """A call whose callback never runs (a plugin answered in its place, or the invocation failed) leaves its turn
    undecided: a later invocation whose calls have the same ids must decide on its own calls only. Driven through the
    callbacks themselves, in the order ADK could run them."""
    raw = {"name": "entry", "inputSchema": {"type": "object"}, "_meta": {RENDERING: {"verbatimHint": True}}}
    toolset = SimpleNamespace(get_tools=lambda context: _listed([SimpleNamespace(raw_mcp_tool=raw)]))
    callbacks = direct_answers({"ledger": toolset})
    marked = SimpleNamespace(name="entry", raw_mcp_tool=raw)
    other = SimpleNamespace(name="lookup")
    turn = _Context(
        content=SimpleNamespace(
            parts=[SimpleNamespace(function_call=SimpleNamespace(id=call)) for call in ("call-1", "call-2")]
        )
    )
    agent = SimpleNamespace(
        name="test",
        before_tool_callback=callbacks["before_tool_callback"],
        after_tool_callback=callbacks["after_tool_callback"],
        after_agent_callback=callbacks["after_agent_callback"],
    )

    def context(invocation: str, call: str) -> Any:
        return _Context(
            get_invocation_context=lambda: SimpleNamespace(agent=agent),
            invocation_id=invocation,
            function_call_id=call,
            session=SimpleNamespace(events=[turn]),
            actions=SimpleNamespace(skip_summarization=False),
            state={},
        )

    result = {"content": [{"type": "text", "text": "One entry."}]}
    before_tool, after_tool = callbacks["before_tool_callback"], callbacks["after_tool_callback"]
    stale = context("first", "call-2")
    before_tool(marked, {}, stale)
    asyncio.run(after_tool(marked, {}, stale, result))  # call-1's after-tool callback never ran
    first, second = context("second", "call-1"), context("second", "call-2")
    before_tool(marked, {}, first)
    asyncio.run(after_tool(marked, {}, first, result))
    before_tool(other, {}, second)
    asyncio.run(after_tool(other, {}, second, {"value": 1}))
    # The second turn holds a call that is not verbatim: the model answers.
    assert not first.actions.skip_summarization and not second.actions.skip_summarization


async def _listed(tools: list[Any]) -> list[Any]:
    return tools


class _Context:
    """A tool context as ADK makes one per call (an object of its own, shared by the call's callbacks)."""

    def __init__(self, **members: Any) -> None:
        self.__dict__.update(members)


REFUSAL = "Refused by the approval policy."


async def _events(agent: Any, runner_name: str) -> list[Any]:
    runner = InMemoryRunner(agent=agent, app_name=runner_name)
    session = await runner.session_service.create_session(app_name=runner_name, user_id="user")
    message = types.Content(role="user", parts=[types.Part(text="Go.")])
    return [event async for event in runner.run_async(user_id="user", session_id=session.id, new_message=message)]


async def _function_responses(probe: Any) -> list[Any]:
    """The function responses of a run of `probe`, in order."""
    return [
        part.function_response.response
        for event in await _events(probe, "probe")
        if event.content is not None
        for part in event.content.parts or []
        if part.function_response is not None
    ]


async def _run_hooked(
    python: str, *, before: Sequence[Any] = (), after: Sequence[Any] = ()
) -> tuple[str, ScriptedModel, list[dict[str, Any]]]:
    """An agent on the server marking every tool, with no allow-list, calling `entry`, with the application's own
    `before_tool_callback`s and `after_tool_callback`s, before the adapter's; with the calls of `entry` the server
    received, asked of the server by a second agent on the same toolset."""
    params = StdioServerParameters(command=python, args=[MARKED])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    model = ScriptedModel(model="scripted", tool="entry", arguments={"account": "A-1"})
    answers = direct_answers({"example": toolset})
    agent = LlmAgent(
        name="test",
        model=model,
        tools=[toolset],
        before_tool_callback=[*before, answers["before_tool_callback"]],
        after_tool_callback=[*after, answers["after_tool_callback"]],
        after_agent_callback=answers["after_agent_callback"],
    )
    probe = LlmAgent(
        name="probe", model=ScriptedModel(model="scripted", tool="received", arguments={}), tools=[toolset]
    )
    try:
        events = await _events(agent, "test")
        final = next(
            "".join(part.text or "" for part in event.content.parts or [])
            for event in reversed(events)
            if event.is_final_response() and event.content is not None
        )
        responses = await _function_responses(probe)
    finally:
        await toolset.close()
    return final, model, json.loads(responses[0]["content"][0]["text"])


def test_the_applications_callbacks_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []

    def log_before(tool: Any, args: dict[str, Any], tool_context: Any) -> None:
        seen.append(("before", tool.name, dict(args)))

    def log_after(tool: Any, args: dict[str, Any], tool_context: Any, tool_response: Any) -> None:
        seen.append(("after", tool.name, dict(args)))

    final, model, received = asyncio.run(_run_hooked(example_python, before=[log_before], after=[log_after]))
    assert seen == [("before", "entry", {"account": "A-1"}), ("after", "entry", {"account": "A-1"})]
    assert received == [{"account": "A-1"}]
    # The route is still taken, from the result of the call ADK made.
    assert model.calls == 1 and final.startswith('Verbatim result from tool "entry" of server "example".')
    assert "Entry of A-1" in final


def test_a_callback_that_answers_in_place_of_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    refusals: list[dict[str, Any]] = [
        {"error": REFUSAL},
        # A refusal shaped as an MCP result: still the application's, not the server's.
        {"content": [{"type": "text", "text": REFUSAL}], "isError": False},
    ]
    for refusal in refusals:

        def refuse(tool: Any, args: dict[str, Any], tool_context: Any, refusal: dict[str, Any] = refusal) -> Any:
            return refusal

        final, model, received = asyncio.run(_run_hooked(example_python, before=[refuse]))
        assert received == []  # the server never received the call
        # The model read the refusal and answered, as ADK does without the adapter.
        assert final == SUMMARY and model.calls == 2, refusal


def test_a_callback_that_rewrites_the_arguments_decides_what_the_server_receives_and_the_view_shows(
    example_python: str,
) -> None:
    def rewrite(tool: Any, args: dict[str, Any], tool_context: Any) -> None:
        args["account"] = "B-2"

    final, model, received = asyncio.run(_run_hooked(example_python, before=[rewrite]))
    assert received == [{"account": "B-2"}]
    assert model.calls == 1 and "Entry of B-2" in final and "A-1" not in final


def test_a_callback_that_replaces_the_result_means_no_route(example_python: str) -> None:
    def redact(tool: Any, args: dict[str, Any], tool_context: Any, tool_response: Any) -> Any:
        return {"content": [{"type": "text", "text": "Redacted."}], "isError": False}

    final, model, received = asyncio.run(_run_hooked(example_python, after=[redact]))
    assert received == [{"account": "A-1"}]
    assert final == SUMMARY and model.calls == 2


def test_a_call_that_failed_leaves_nothing_a_later_refusal_could_pass_for(example_python: str) -> None:
    """A call let through by the adapter's before-tool callback whose run then fails (a callback raises) leaves
    no mark: in the next invocation, whose call has the same id, the application refuses the call with a response
    shaped as an MCP result, which is never read as the server's."""
    params = StdioServerParameters(command=example_python, args=[MARKED])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    model = ScriptedModel(model="scripted", tool="entry", arguments={"account": "A-1"})
    answers = direct_answers({"example": toolset})
    invocation = {"count": 0}

    def refuse_the_second(tool: Any, args: dict[str, Any], tool_context: Any) -> Any:
        invocation["count"] += 1
        if invocation["count"] == 2:
            return {"content": [{"type": "text", "text": REFUSAL}], "isError": False}
        return None

    def fail_the_first(tool: Any, args: dict[str, Any], tool_context: Any, tool_response: Any) -> None:
        if invocation["count"] == 1:
            raise RuntimeError("the application's check failed")

    agent = LlmAgent(
        name="test",
        model=model,
        tools=[toolset],
        before_tool_callback=[refuse_the_second, answers["before_tool_callback"]],
        after_tool_callback=[fail_the_first, answers["after_tool_callback"]],
        after_agent_callback=answers["after_agent_callback"],
    )

    async def both() -> list[Any]:
        try:
            with pytest.raises(RuntimeError, match="check failed"):
                await _events(agent, "first")
            return await _events(agent, "second")
        finally:
            await toolset.close()

    events = asyncio.run(both())
    final = next(
        "".join(part.text or "" for part in event.content.parts or [])
        for event in reversed(events)
        if event.is_final_response() and event.content is not None
    )
    assert invocation["count"] == 2 and final == SUMMARY


def test_a_turn_lists_each_toolset_once_for_all_its_results(example_python: str) -> None:
    """The toolsets' listings a turn's results are captioned from are read once per turn, not once per result."""
    listed_for_results: list[str] = []

    class Counted(McpToolset):  # pyright: ignore[reportUntypedBaseClass]
        async def get_tools(self, readonly_context: Any = None) -> Any:
            if getattr(readonly_context, "function_call_id", None) is not None:
                listed_for_results.append(str(readonly_context.function_call_id))
            return await super().get_tools(readonly_context)

    def toolset(*args: str) -> Any:
        params = StdioServerParameters(command=example_python, args=list(args))
        return Counted(connection_params=StdioConnectionParams(server_params=params, timeout=60))

    bank, ledger = toolset("-m", FINANCIAL), toolset(MARKED)
    model = ScriptedModel(model="scripted", tool="entry", arguments={"account": "A-1"}, also=["key_figures"])
    agent = LlmAgent(name="test", model=model, tools=[bank, ledger], **direct_answers({"bank": bank, "ledger": ledger}))

    async def run() -> list[Any]:
        try:
            return await _events(agent, "test")
        finally:
            await bank.close()
            await ledger.close()

    events = asyncio.run(run())
    assert any(event.is_final_response() for event in events)
    # Two results of one turn, two toolsets: each toolset listed once for them.
    assert len(listed_for_results) == 2, listed_for_results


def _redact(tool: Any, args: dict[str, Any], tool_context: Any, tool_response: Any) -> Any:
    return {"content": [{"type": "text", "text": "Redacted."}], "isError": False}


def _refuse(tool: Any, args: dict[str, Any], tool_context: Any) -> Any:
    return {"content": [{"type": "text", "text": REFUSAL}], "isError": False}


def _withhold(callback_context: Any) -> Any:
    return types.Content(role="model", parts=[types.Part(text="Withheld by the application's policy.")])


@pytest.mark.parametrize("field", ["after_tool_callback", "before_tool_callback", "after_agent_callback"])
def test_an_application_callback_listed_after_the_adapters_is_refused_before_the_call(
    example_python: str, field: str
) -> None:
    """ADK stops a callback chain at the first callback that returns a value: a redaction (or a refusal, or an
    agent's answer withheld) listed after the adapter's would never run on a verbatim result. The agent is refused
    with an error naming the order, before the server receives the call. The other order:
    `test_a_callback_that_replaces_the_result_means_no_route`."""
    params = StdioServerParameters(command=example_python, args=[MARKED])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    answers = direct_answers({"example": toolset})
    callbacks: dict[str, Any] = dict(answers)
    callbacks[field] = [
        answers[field],
        {"after_tool_callback": _redact, "before_tool_callback": _refuse}.get(field, _withhold),
    ]
    model = ScriptedModel(model="scripted", tool="entry", arguments={"account": "A-1"})
    agent = LlmAgent(name="test", model=model, tools=[toolset], **callbacks)
    probe = LlmAgent(
        name="probe", model=ScriptedModel(model="scripted", tool="received", arguments={}), tools=[toolset]
    )

    async def run() -> list[Any]:
        try:
            with pytest.raises(ValueError, match=rf"{field}=\[yours, answers\[\"{field}\"\]\]"):
                await _events(agent, "test")
            return await _function_responses(probe)
        finally:
            await toolset.close()

    responses = asyncio.run(run())
    assert json.loads(responses[0]["content"][0]["text"]) == []  # the server never received the call


@pytest.mark.parametrize("own", [True, False])
def test_an_agent_without_the_adapters_before_tool_callback_is_refused_at_its_first_result(
    example_python: str, own: bool
) -> None:
    """The adapter's `before_tool_callback` notes that a call goes on to the tool: without it (the application's
    own alone, or none) every call would read as answered by a callback and the route would silently never be
    taken. The adapter's `after_tool_callback` refuses the agent, naming `before_tool_callback`."""
    params = StdioServerParameters(command=example_python, args=["-m", FINANCIAL])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    answers = direct_answers({"example": toolset})

    def audit_call(tool: Any, args: dict[str, Any], tool_context: Any) -> None:
        del tool, args, tool_context

    agent = LlmAgent(
        name="test",
        model=ScriptedModel(model="scripted", tool="financial_statements", arguments={}),
        tools=[toolset],
        before_tool_callback=audit_call if own else None,
        after_tool_callback=answers["after_tool_callback"],
        after_agent_callback=answers["after_agent_callback"],
    )

    async def run() -> None:
        try:
            with pytest.raises(ValueError, match=r"the before_tool_callback of direct_answers\(\) is missing"):
                await _events(agent, "test")
        finally:
            await toolset.close()

    asyncio.run(run())


class LeaderModel(BaseLlm):  # pyright: ignore[reportUntypedBaseClass]
    """A parent agent's model: calls `call` with `arguments` (a sub-agent's tool, or ADK's transfer); once it has a
    function response, keeps it in `read` and writes its own answer."""

    call: str
    arguments: dict[str, Any]
    read: list[Any] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        del stream
        responses = [
            part.function_response.response
            for content in llm_request.contents
            for part in content.parts or []
            if part.function_response is not None
        ]
        if responses:
            self.read.append(responses[-1])
            part = types.Part(text="The leader says revenue is fine.")
        else:
            part = types.Part(function_call=types.FunctionCall(id="lead-1", name=self.call, args=self.arguments))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


@pytest.mark.parametrize("reached_by", ["transfer", "task", "agent_tool_skipping_summarization"])
def test_an_agent_reached_by_a_transfer_or_a_summary_skipping_agent_tool_answers_the_user(
    example_python: str, reached_by: str
) -> None:
    """The callbacks end the turn of the agent holding them. Reached by a transfer (or as a sub-agent in ``task``
    mode), that agent answers the user itself; through `AgentTool(skip_summarization=True)` (ADK's own route), its
    caller's turn ends on the view."""
    from google.adk.tools.agent_tool import AgentTool  # pyright: ignore[reportMissingImports]

    params = StdioServerParameters(command=example_python, args=["-m", FINANCIAL])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    member = LlmAgent(
        name="member",
        description="Reads the accounts.",
        model=ScriptedModel(model="scripted", tool="financial_statements", arguments={}),
        tools=[toolset],
        mode="task" if reached_by == "task" else None,
        **direct_answers({"example": toolset}),
    )
    if reached_by == "task":
        model = LeaderModel(model="leader", call="member", arguments={"request": "Show the accounts."})
        leader = LlmAgent(name="test", model=model, sub_agents=[member])
    elif reached_by == "transfer":
        model = LeaderModel(model="leader", call="transfer_to_agent", arguments={"agent_name": "member"})
        leader = LlmAgent(name="test", model=model, sub_agents=[member])
    else:
        model = LeaderModel(model="leader", call="member", arguments={"request": "Show the accounts."})
        leader = LlmAgent(name="test", model=model, tools=[AgentTool(member, skip_summarization=True)])

    async def run() -> str:
        try:
            return await _final_text(leader)
        finally:
            await toolset.close()

    final = asyncio.run(run())
    assert model.read == []  # the leader's model never read the view
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".'), final


def test_a_single_turn_sub_agent_is_refused_before_its_call_reaches_the_server(
    example_python: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A sub-agent in ``single_turn`` mode runs as a tool of its parent, whose model would read the host's view and
    write its own answer. The sub-agent's first call is refused before the server receives it; ADK logs the
    `ValueError` (naming the fixes) and tells the parent's model the sub-agent failed."""
    params = StdioServerParameters(command=example_python, args=[MARKED])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    member = LlmAgent(
        name="member",
        description="Reads the accounts.",
        model=ScriptedModel(model="scripted", tool="entry", arguments={"account": "A-1"}),
        tools=[toolset],
        mode="single_turn",
        **direct_answers({"example": toolset}),
    )
    model = LeaderModel(model="leader", call="member", arguments={"request": "Show the accounts."})
    leader = LlmAgent(name="test", model=model, sub_agents=[member])
    probe = LlmAgent(
        name="probe", model=ScriptedModel(model="scripted", tool="received", arguments={}), tools=[toolset]
    )

    async def run() -> tuple[str, list[Any]]:
        try:
            return await _final_text(leader), await _function_responses(probe)
        finally:
            await toolset.close()

    final, responses = asyncio.run(run())
    assert json.loads(responses[0]["content"][0]["text"]) == []  # the server never received the call
    assert "Verbatim result" not in str(model.read) and final == "The leader says revenue is fine."
    refusals = [
        str(record.exc_info[1])
        for record in caplog.records
        if record.exc_info is not None and isinstance(record.exc_info[1], ValueError)
    ]
    assert any("single-turn sub-agent of 'test'" in text and "skip_summarization=True" in text for text in refusals)


def test_a_run_aborted_in_a_turn_keeps_nothing_of_it() -> None:
    """A turn whose other call raises (or whose run is cancelled) reaches neither its own end nor the agent's: the
    listing its verbatim result was captioned from goes when ADK lets go of the turn's event, not with the agent.
    Driven through the callbacks themselves, in the order ADK runs them."""
    raw = {"name": "entry", "inputSchema": {"type": "object"}, "_meta": {RENDERING: {"verbatimHint": True}}}
    served = [_Context(raw_mcp_tool=raw)]
    toolset = SimpleNamespace(get_tools=lambda context: _listed(list(served)))
    callbacks = direct_answers({"ledger": toolset})
    kept = weakref.ref(served[0])
    agent = SimpleNamespace(
        name="test",
        before_tool_callback=callbacks["before_tool_callback"],
        after_tool_callback=callbacks["after_tool_callback"],
        after_agent_callback=callbacks["after_agent_callback"],
    )
    turn = _Context(
        content=SimpleNamespace(
            parts=[SimpleNamespace(function_call=SimpleNamespace(id=call)) for call in ("call-1", "call-2")]
        )
    )
    context = _Context(
        get_invocation_context=lambda: SimpleNamespace(agent=agent),
        invocation_id="aborted",
        function_call_id="call-1",
        session=SimpleNamespace(events=[turn]),
        actions=SimpleNamespace(skip_summarization=False),
        state={},
    )
    marked = SimpleNamespace(name="entry", raw_mcp_tool=raw)
    callbacks["before_tool_callback"](marked, {}, context)
    answer = asyncio.run(callbacks["after_tool_callback"](marked, {}, context, {"content": []}))
    served.clear()
    assert answer is not None and kept() is not None  # call-2 raised: the turn is left open
    del turn, context
    gc.collect()
    assert kept() is None
