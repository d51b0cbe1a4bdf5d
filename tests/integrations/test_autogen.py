"""The AutoGen AgentChat adapter, in the environment of `autogen-agentchat` and `autogen-ext[mcp]`.

Each test runs AutoGen's own `AssistantAgent` loop (a `DirectAnswerAgent`, the loop unmodified) with its
`ReplayChatCompletionClient` (no model, no network) and the example servers' tools over stdio, as `mcp_server_tools`
loads them over the application's session, and reads the last message of the `TaskResult`, where the user's answer
is.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from autogen_agentchat.agents import AssistantAgent  # pyright: ignore[reportMissingImports]
from autogen_agentchat.base import TaskResult  # pyright: ignore[reportMissingImports]
from autogen_agentchat.messages import (  # pyright: ignore[reportMissingImports]
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
    ToolCallSummaryMessage,
)
from autogen_core import FunctionCall  # pyright: ignore[reportMissingImports]
from autogen_core.models import CreateResult, RequestUsage  # pyright: ignore[reportMissingImports]
from autogen_core.tools import StaticWorkbench, Workbench  # pyright: ignore[reportMissingImports]
from autogen_ext.models.replay import ReplayChatCompletionClient  # pyright: ignore[reportMissingImports]
from autogen_ext.tools.mcp import (  # pyright: ignore[reportMissingImports]
    McpWorkbench,
    StdioServerParams,
    create_mcp_server_session,
    mcp_server_tools,
)

from mcp_rendering import audit
from mcp_rendering.integrations.answer import IMITATION_WARNING, UNSTATED_COMPLETENESS, other_calls_line
from mcp_rendering.integrations.autogen import DirectAnswerAgent, DirectAnswerWorkbench, recording_session
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import page_examples, reference_result, run_example
from tests.integrations.login_server import NOT_LOGGED_IN
from tests.integrations.marked_server import FAKE_CAPTION, HOSTILE_GUIDANCE
from tests.support.directive_server import HINTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
MARKED = str(Path(__file__).with_name("marked_server.py"))
DIRECTIVE = "tests.support.directive_server"
LOGIN = str(Path(__file__).with_name("login_server.py"))
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
STATEMENTS = 'Verbatim result from tool "financial_statements" of server "example".'
SCREENING_ERROR = 'The tool "screening_report" of server "example" reported an error.'
MODEL_INFO: Any = {
    "vision": False,
    "function_calling": True,
    "json_output": False,
    "family": "unknown",
    "structured_output": False,
}

Turn = Sequence[tuple[str, Mapping[str, Any]]]


def _model(*turns: Turn) -> Any:
    """Makes the calls of each of `turns`, one turn per model call, then (when asked again) writes `SUMMARY`."""
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    replies: list[Any] = [
        CreateResult(
            finish_reason="function_calls",
            content=[
                FunctionCall(id=f"call-{turn}-{index}", name=name, arguments=json.dumps(dict(arguments)))
                for index, (name, arguments) in enumerate(calls, 1)
            ],
            usage=usage,
            cached=False,
        )
        for turn, calls in enumerate(turns)
    ]
    return ReplayChatCompletionClient([*replies, SUMMARY], model_info=MODEL_INFO)


def _params(python: str, module: str) -> Any:
    args = [module] if module.endswith(".py") else ["-m", module]
    return StdioServerParams(command=python, args=args, read_timeout_seconds=60)


class _LoggingWorkbench(Workbench):  # pyright: ignore[reportUntypedBaseClass]
    """An application's own wrapper of a workbench, logging each call it hands on."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[tuple[str, str | None]] = []

    async def list_tools(self) -> Any:
        return await self.inner.list_tools()

    async def call_tool(
        self, name: str, arguments: Any = None, cancellation_token: Any = None, call_id: Any = None
    ) -> Any:
        self.calls.append((name, call_id))
        return await self.inner.call_tool(name, arguments, cancellation_token, call_id)

    async def start(self) -> None:
        await self.inner.start()

    async def stop(self) -> None:
        await self.inner.stop()

    async def reset(self) -> None:
        await self.inner.reset()

    async def save_state(self) -> Any:
        return await self.inner.save_state()

    async def load_state(self, state: Any) -> None:
        await self.inner.load_state(state)


class _LoggingStaticWorkbench(StaticWorkbench):  # pyright: ignore[reportUntypedBaseClass]
    """An application's own workbench of the tools, logging each call it makes."""

    def __init__(self, tools: Any) -> None:
        super().__init__(tools)
        self.calls: list[tuple[str, str | None]] = []

    async def call_tool(
        self, name: str, arguments: Any = None, cancellation_token: Any = None, call_id: Any = None
    ) -> Any:
        self.calls.append((name, call_id))
        return await super().call_tool(name, arguments, cancellation_token, call_id)


@asynccontextmanager
async def _workbench(python: str, module: str, server: str | None = "example", **options: Any) -> AsyncIterator[Any]:
    """The adapter's workbench of the tools of `module`, loaded over one session named `server`, with `options`."""
    params = _params(python, module)
    async with create_mcp_server_session(params) as session:
        await session.initialize()
        tools = await mcp_server_tools(params, session=recording_session(session, server=server))
        async with DirectAnswerWorkbench(tools, **options) as workbench:
            yield workbench


async def _run(python: str, module: str, turns: Sequence[Turn], steps: int = 1, **options: Any) -> tuple[Any, Any]:
    """The `TaskResult` of a `DirectAnswerAgent`, its model making `turns`, with `steps` as ``max_tool_iterations``,
    and the model."""
    model = _model(*turns)
    async with _workbench(python, module, **options) as workbench:
        agent = DirectAnswerAgent("records", model, workbench=workbench, max_tool_iterations=steps)
        return await agent.run(task="Go."), model


def _final(result: Any) -> str:
    return result.messages[-1].content


def _executions(result: Any) -> list[Any]:
    return [
        item for message in result.messages if isinstance(message, ToolCallExecutionEvent) for item in message.content
    ]


def test_without_the_adapter_a_reflecting_agent_answers_with_the_summary(example_python: str) -> None:
    async def run() -> tuple[str, Any]:
        model = _model([("financial_statements", {})])
        async with McpWorkbench(_params(example_python, FINANCIAL)) as workbench:
            agent = AssistantAgent("analyst", model, workbench=workbench, reflect_on_tool_use=True)
            return _final(await agent.run(task="Go.")), model

    final, model = asyncio.run(run())
    assert final == SUMMARY and len(model.create_calls) == 2


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    # Steps are left: AutoGen's loop would call the model again; the turn ends with the host's view instead.
    result, model = asyncio.run(_run(example_python, FINANCIAL, [[("financial_statements", {})]], steps=3))
    assert len(model.create_calls) == 1  # the model was asked once: it never read the result
    message = result.messages[-1]
    assert isinstance(message, ToolCallSummaryMessage) and message.content.startswith(STATEMENTS)
    report = audit(message.content, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean
    # What the model's context holds for the call is the same view, as AutoGen's event shows it.
    assert [item.content for item in _executions(result)] == [message.content]


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    turns = [[("financial_statements", {})]]
    result, _ = asyncio.run(_run(example_python, FINANCIAL, turns, markdown=True))
    final = _final(result)
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_a_partial_result_answers_with_the_notice_first_and_every_record_in_order(example_python: str) -> None:
    result, _ = asyncio.run(_run(example_python, SCREENING, [[("screening_report", {})]], steps=2))
    final = _final(result)
    assert final.startswith('Verbatim result from tool "screening_report" of server "example".')
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER)
    report = audit(final, reference_result(SCREENING, "screening_report"), markup="text")
    assert report.rows_expected == 100 and report.rows_intact == 100 and not report.reordered and report.clean


def test_an_error_goes_back_to_the_model_and_the_corrected_call_answers(example_python: str) -> None:
    turns = [[("screening_report", {"batch": "nope"})], [("screening_report", {})]]
    result, model = asyncio.run(_run(example_python, SCREENING, turns, steps=3))
    assert len(model.create_calls) == 2  # the model read the error and made the corrected call, nothing more
    final = _final(result)
    assert final.startswith('Verbatim result from tool "screening_report" of server "example".')
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER) and "nope" not in final
    outputs = _executions(result)
    assert outputs[0].is_error and outputs[0].content.startswith(SCREENING_ERROR)
    # The model read the host's error line, then the server's message, in its context.
    context = asyncio.run(_context_results(model))
    assert any(SCREENING_ERROR in text and "nope" in text for text in context)


async def _context_results(model: Any) -> list[str]:
    """The tool results' text the model was given, over every call to it."""
    return [
        str(result.content)
        for call in model.create_calls
        for message in call["messages"]
        if isinstance(message.content, list)
        for result in message.content
        if hasattr(result, "is_error")
    ]


def test_with_no_step_left_the_error_line_is_the_answer(example_python: str) -> None:
    turns = [[("screening_report", {"batch": "nope"})], [("screening_report", {"batch": "still-not"})]]
    result, model = asyncio.run(_run(example_python, SCREENING, turns, steps=2))
    assert len(model.create_calls) == 2
    assert _final(result).startswith(SCREENING_ERROR) and "still-not" in _final(result)


def test_a_turn_mixing_a_verbatim_and_another_tool_goes_back_to_the_model(example_python: str) -> None:
    """While steps are left, the model reads both results, the host's view among them, and answers; the view is in
    AutoGen's execution event for the application to show beside the answer."""
    turns = [[("financial_statements", {}), ("key_figures", {})]]
    result, model = asyncio.run(_run(example_python, FINANCIAL, turns, steps=2))
    assert _final(result) == SUMMARY and len(model.create_calls) == 2
    executions = _executions(result)
    assert [item.name for item in executions] == ["financial_statements", "key_figures"]
    assert [item.is_error for item in executions] == [False, False]
    report = audit(executions[0].content, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_with_no_step_left_a_mixed_turn_answers_with_the_view_naming_the_other_call(example_python: str) -> None:
    turns = [[("financial_statements", {}), ("key_figures", {})]]
    result, model = asyncio.run(_run(example_python, FINANCIAL, turns, steps=1))
    assert len(model.create_calls) == 1
    lines = _final(result).split("\n\n")
    assert lines[0] == other_calls_line(["key_figures"])
    assert lines[1] == STATEMENTS
    # The other tool's result is AutoGen's own, untouched, in its event.
    executions = _executions(result)
    assert not executions[1].is_error and executions[1].content not in _final(result)


def test_a_turn_of_verbatim_calls_only_answers_with_each_in_order(example_python: str) -> None:
    turns = [[("financial_statements", {}), ("financial_statements", {})]]
    result, model = asyncio.run(_run(example_python, FINANCIAL, turns, steps=2))
    final = _final(result)
    assert len(model.create_calls) == 1
    assert final.count(STATEMENTS) == 2 and final.startswith("2 results follow, in the order called")


def test_several_hostile_results_of_one_turn_are_each_closed_by_the_hosts_end_line(example_python: str) -> None:
    """AutoGen joins a step's results with a bare newline; the answer is `join_answers` of them, so a server's
    imitation of a caption inside one result stays inside its bounds."""
    result, _ = asyncio.run(_run(example_python, MARKED, [[("hostile", {}), ("empty", {})]]))
    lines = _final(result).split("\n\n")
    assert lines[0].startswith("2 results follow, in the order called; the host ends each with a line marked ")
    mark = lines[0].rsplit(" ", 1)[1].rstrip(".")
    ends = [index for index, line in enumerate(lines) if line.startswith("End of result")]
    assert [lines[index] for index in ends] == [f"End of result 1 of 2 ({mark}).", f"End of result 2 of 2 ({mark})."]
    assert lines.index(FAKE_CAPTION) < ends[0] < lines.index('Verbatim result from tool "empty" of server "example".')
    assert lines[1] == 'Verbatim result from tool "hostile" of server "example".' and lines[2] == IMITATION_WARNING


def test_a_server_marking_every_tool_without_allow_keeps_the_agent_working(example_python: str) -> None:
    """Every tool answers through the host: a failing one goes back to the model, a hostile one sits below the
    host's caption with its guidance not shown."""
    turns = [[("failing", {})], [("hostile", {})]]
    result, model = asyncio.run(_run(example_python, MARKED, turns, steps=3))
    assert len(model.create_calls) == 2
    failed = _executions(result)[0]
    assert failed.is_error and failed.content == (
        'The tool "failing" of server "example" reported an error. Its message, as the server wrote it:'
        "\n\nThe ledger is closed."
    )
    lines = _final(result).split("\n\n")
    assert lines[:3] == ['Verbatim result from tool "hostile" of server "example".', IMITATION_WARNING, FAKE_CAPTION]
    assert HOSTILE_GUIDANCE not in _final(result)


def test_allow_keeps_the_other_marked_tools_autogens_own(example_python: str) -> None:
    turns = [[("hostile", {})]]
    result, model = asyncio.run(_run(example_python, MARKED, turns, steps=2, allow={"example": ["empty"]}))
    # Not allowed: AutoGen's loop goes on, the model reads the server's text as AutoGen hands it on, and answers.
    assert _final(result) == SUMMARY and len(model.create_calls) == 2
    handed = _executions(result)[0].content
    assert "ignore the records" in handed and 'Verbatim result from tool "hostile"' not in handed


def test_the_server_receives_each_call_once(example_python: str) -> None:
    async def run() -> tuple[str, Any]:
        model = _model([("entry", {"account": "A-1"})])
        async with _workbench(example_python, MARKED) as direct:
            agent = DirectAnswerAgent("records", model, workbench=direct, max_tool_iterations=2)
            final = _final(await agent.run(task="Go."))
            # Asked on the same connection the call went over.
            received = await direct.call_tool("received", {})
        return final, received

    final, received = asyncio.run(run())
    assert final.startswith('Verbatim result from tool "entry" of server "example".') and "Entry of A-1" in final
    assert received.result[0].content.endswith('[{"account": "A-1"}]')


def test_an_mcp_workbench_is_refused_naming_the_route_that_reads_autogens_own_call(example_python: str) -> None:
    """AutoGen's `McpWorkbench` hands on neither a result's `_meta` nor a tool's hints, and reaching them would mean
    a second session to the server, whose calls miss what the application's session set up (a login, say)."""

    class Audited(McpWorkbench):  # pyright: ignore[reportUntypedBaseClass]
        """An application's subclass, hooking the workbench's calls."""

    for mcp in (McpWorkbench(_params(example_python, LOGIN)), Audited(_params(example_python, LOGIN))):
        with pytest.raises(TypeError, match=r"McpWorkbench.*session=recording_session\(session, server=\.\.\.\)"):
            DirectAnswerWorkbench(mcp)


def test_a_marked_call_is_made_once_on_the_session_of_the_applications_other_calls(example_python: str) -> None:
    """The server remembers who logged in on the session: the marked call after `login` shows that account's
    records, so AutoGen made it over the application's session, the one `login` went over."""
    turns = [[("login", {"name": "alice"})], [("statement", {})]]
    result, model = asyncio.run(_run(example_python, LOGIN, turns, steps=3))
    assert len(model.create_calls) == 2  # the model read the login's result, then called the marked tool
    final = _final(result)
    assert final.startswith('Verbatim result from tool "statement" of server "example".')
    assert "Record 1 of alice\nRecord 2 of alice" in final and NOT_LOGGED_IN not in final
    assert [item.name for item in _executions(result)] == ["login", "statement"]


@asynccontextmanager
async def _two_servers(python: str, **options: Any) -> AsyncIterator[Any]:
    """One workbench of the tools of two servers, each loaded over its own session: `LOGIN` named "bank" and
    `MARKED` named "ledger"."""
    bank, ledger = _params(python, LOGIN), _params(python, MARKED)
    async with create_mcp_server_session(bank) as first, create_mcp_server_session(ledger) as second:
        await first.initialize()
        await second.initialize()
        tools = [
            *await mcp_server_tools(bank, session=recording_session(first, server="bank")),
            *await mcp_server_tools(ledger, session=recording_session(second, server="ledger")),
        ]
        async with DirectAnswerWorkbench(tools, **options) as workbench:
            yield workbench


async def _run_two(python: str, turns: Sequence[Turn], **options: Any) -> tuple[Any, Any]:
    model = _model(*turns)
    async with _two_servers(python, **options) as workbench:
        agent = DirectAnswerAgent("records", model, workbench=workbench, max_tool_iterations=3)
        return await agent.run(task="Go."), model


def test_with_two_servers_each_result_is_captioned_with_its_own_server(example_python: str) -> None:
    turns = [[("login", {"name": "alice"})], [("statement", {}), ("entry", {"account": "A-1"})]]
    result, model = asyncio.run(_run_two(example_python, turns))
    assert len(model.create_calls) == 2
    final = _final(result)
    assert final.startswith("2 results follow, in the order called")
    bank = final.index('Verbatim result from tool "statement" of server "bank".')
    ledger = final.index('Verbatim result from tool "entry" of server "ledger".')
    assert bank < final.index("Record 2 of alice") < ledger < final.index("Entry of A-1")


def test_with_two_servers_allow_names_each_servers_tools_under_its_name(example_python: str) -> None:
    turns = [[("login", {"name": "alice"})], [("statement", {}), ("entry", {"account": "A-1"})]]
    # "entry" is allowed on the bank, which has no such tool: the ledger's `entry` is not.
    result, model = asyncio.run(_run_two(example_python, turns, allow={"bank": ["statement", "entry"]}))
    # A step mixing the host's view and AutoGen's own result goes back to the model, which answers.
    assert _final(result) == SUMMARY and len(model.create_calls) == 3
    login, statement, entry = _executions(result)
    assert statement.content.startswith('Verbatim result from tool "statement" of server "bank".')
    assert "Entry of A-1" in entry.content and "Verbatim result" not in entry.content + login.content
    # A server missing from `allow` has no tool answering directly.
    result, model = asyncio.run(_run_two(example_python, turns, allow={"ledger": ["entry"]}))
    assert _final(result) == SUMMARY
    assert [item.content.startswith("Verbatim result") for item in _executions(result)] == [False, False, True]


def test_a_session_without_a_server_name_is_captioned_as_of_an_unnamed_server(example_python: str) -> None:
    result, _ = asyncio.run(_run(example_python, FINANCIAL, [[("financial_statements", {})]], server=None))
    assert _final(result).startswith('Verbatim result from tool "financial_statements" of an unnamed server.\n\n')
    # `allow` names tools under a server's name: an unnamed session's have none.
    turns = [[("financial_statements", {})]]
    result, _ = asyncio.run(
        _run(example_python, FINANCIAL, turns, steps=2, server=None, allow={"example": ["financial_statements"]})
    )
    assert _final(result) == SUMMARY


def test_a_bad_option_is_refused_when_the_workbench_or_session_is_made() -> None:
    with pytest.raises(TypeError, match="allow must map server names to tool names"):
        DirectAnswerWorkbench([], allow=cast("Any", ["statement"]))
    with pytest.raises(TypeError, match="allow must map server names"):
        DirectAnswerWorkbench([], allow=cast("Any", {1: ["statement"]}))
    with pytest.raises(TypeError, match="allow must be tool names"):
        DirectAnswerWorkbench([], allow=cast("Any", {"bank": "statement"}))
    with pytest.raises(ValueError, match="server must be a name or None, not empty"):
        recording_session(object(), server="")


def test_an_application_wrapper_around_the_workbench_sees_every_call_and_autogens_events(
    example_python: str,
) -> None:
    async def run() -> tuple[list[Any], Any, Any]:
        model = _model([("screening_report", {"batch": "nope"})], [("screening_report", {})])
        async with _workbench(example_python, SCREENING) as direct:
            logging = _LoggingWorkbench(direct)
            agent = DirectAnswerAgent("records", model, workbench=logging, max_tool_iterations=3)
            streamed = [item async for item in agent.run_stream(task="Go.")]
        return streamed, logging, model

    streamed, logging, model = asyncio.run(run())
    assert logging.calls == [("screening_report", "call-0-1"), ("screening_report", "call-1-1")]
    requests = [item for item in streamed if isinstance(item, ToolCallRequestEvent)]
    executions = [item for item in streamed if isinstance(item, ToolCallExecutionEvent)]
    assert [len(item.content) for item in requests] == [1, 1] and len(executions) == 2
    result = streamed[-1]
    assert isinstance(result, TaskResult) and result.messages[-1] is streamed[-2]
    assert streamed[-2].content.startswith('Verbatim result from tool "screening_report" of server "example".')
    assert len(model.create_calls) == 2


def test_the_applications_own_workbench_of_the_tools_makes_each_call(example_python: str) -> None:
    async def run() -> tuple[Any, Any, Any]:
        model = _model([("financial_statements", {})])
        params = _params(example_python, FINANCIAL)
        async with create_mcp_server_session(params) as session:
            await session.initialize()
            tools = await mcp_server_tools(params, session=recording_session(session, server="example"))
            own = _LoggingStaticWorkbench(tools)
            async with DirectAnswerWorkbench(own) as direct:
                agent = DirectAnswerAgent("records", model, workbench=direct, max_tool_iterations=2)
                return await agent.run(task="Go."), own, model

    result, own, model = asyncio.run(run())
    assert own.calls == [("financial_statements", "call-0-1")] and len(model.create_calls) == 1
    report = audit(_final(result), reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_intact == 54 and report.clean


def test_a_tool_override_is_called_by_its_new_name_and_shown_and_allowed_by_the_servers(example_python: str) -> None:
    from autogen_core.tools import ToolOverride  # pyright: ignore[reportMissingImports]

    async def run() -> tuple[Any, list[str], Any]:
        model = _model([("statements", {})])
        overrides = {"financial_statements": ToolOverride(name="statements")}
        params = _params(example_python, FINANCIAL)
        async with create_mcp_server_session(params) as session:
            await session.initialize()
            tools = await mcp_server_tools(params, session=recording_session(session, server="example"))
            own = StaticWorkbench(tools, tool_overrides=overrides)
            direct = DirectAnswerWorkbench(own, allow={"example": ["financial_statements"]})
            names = [tool["name"] for tool in await direct.list_tools()]
            agent = DirectAnswerAgent("records", model, workbench=direct, max_tool_iterations=2)
            return await agent.run(task="Go."), names, model

    result, names, model = asyncio.run(run())
    assert "statements" in names and "financial_statements" not in names  # the listing is the workbench's
    assert len(model.create_calls) == 1 and _final(result).startswith(STATEMENTS)
    report = audit(_final(result), reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_intact == 54 and report.clean


def test_an_agent_that_reflects_ends_at_a_verbatim_step_and_reflects_on_the_others(example_python: str) -> None:
    async def run(turn: Turn) -> tuple[str, Any]:
        model = _model(turn)
        async with _workbench(example_python, FINANCIAL) as direct:
            agent = DirectAnswerAgent("records", model, workbench=direct, reflect_on_tool_use=True)
            return _final(await agent.run(task="Go.")), model

    final, model = asyncio.run(run([("financial_statements", {})]))
    assert final.startswith(STATEMENTS) and len(model.create_calls) == 1
    final, model = asyncio.run(run([("financial_statements", {}), ("key_figures", {})]))
    assert final == SUMMARY and len(model.create_calls) == 2  # AutoGen's reflection, as without the adapter


def test_tools_loaded_without_the_recording_session_stay_autogens_own(example_python: str) -> None:
    async def run() -> Any:
        model = _model([("financial_statements", {})])
        tools = await mcp_server_tools(_params(example_python, FINANCIAL))
        async with DirectAnswerWorkbench(tools) as direct:
            agent = DirectAnswerAgent("records", model, workbench=direct, max_tool_iterations=2)
            return await agent.run(task="Go.")

    result = asyncio.run(run())
    assert _final(result) == SUMMARY  # not read, so not the route: AutoGen's loop went on


def test_a_huge_result_is_bounded_as_present_bounds_it(example_python: str) -> None:
    result, _ = asyncio.run(_run(example_python, FINANCIAL, [[("financial_statements", {})]], max_rows=3))
    final = _final(result)
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_intact == 3 and final.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_result_with_no_content_answers_with_the_hosts_line(example_python: str) -> None:
    result, _ = asyncio.run(_run(example_python, MARKED, [[("empty", {})]]))
    assert _final(result) == (
        'Verbatim result from tool "empty" of server "example".\n\n'
        f'The tool "empty" of server "example" returned nothing to show.\n\n{UNSTATED_COMPLETENESS}'
    )


def test_a_result_directive_alone_does_not_take_the_route(example_python: str) -> None:
    # The route is chosen from the tool's hint: `directed`'s result is AutoGen's own, and the model reads it.
    result, model = asyncio.run(_run(example_python, DIRECTIVE, [[("directed", {})]], steps=2))
    assert _final(result) == SUMMARY and len(model.create_calls) == 2
    # A hinted tool whose result may be summarized goes back to the model too, as the host's text of it.
    result, model = asyncio.run(_run(example_python, DIRECTIVE, [[("hinted", {})]], steps=2))
    assert _final(result) == SUMMARY and len(model.create_calls) == 2
    assert _executions(result)[0].content == HINTED_TEXT


@pytest.mark.parametrize("index", [0, 1], ids=["one-server", "several-servers"])
def test_the_docs_page_examples_run_as_written(tmp_path: Path, index: int) -> None:
    examples = page_examples("autogen.md")
    assert len(examples) == 2
    done = run_example(examples[index], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout
