"""The Agno adapter, in the environment of `agno`.

Each test runs Agno's own agent loop (`Agent.arun`) with a scripted `Model` (no provider, no network) and the
adapter's toolkit against a server over stdio, and reads `RunOutput.content`, where Agno applications read the
answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agno.agent import Agent  # pyright: ignore[reportMissingImports]
from agno.models.base import Model  # pyright: ignore[reportMissingImports]
from agno.models.response import ModelResponse  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]

from mcp_rendering import audit
from mcp_rendering.integrations.agno import (  # pyright: ignore[reportPrivateUsage]
    _CALL,  # pyright: ignore[reportPrivateUsage]
    _RUNS_KEPT,  # pyright: ignore[reportPrivateUsage]
    DirectAnswerMCPTools,
    _open_call,  # pyright: ignore[reportPrivateUsage]
)
from mcp_rendering.integrations.answer import UNSTATED_COMPLETENESS
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, page_examples, reference_result, run_example
from tests.support.directive_server import DIRECTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
HOSTILE = "tests.support.hostile_server"
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."


class ScriptedModel(Model):  # pyright: ignore[reportUntypedBaseClass]
    """Calls each of `script` (name, arguments) in one turn; once it has tool results, writes `SUMMARY`."""

    def __init__(self, script: Sequence[tuple[str, dict[str, Any]]], preamble: str | None = None) -> None:
        super().__init__(id="scripted")
        self.script = list(script)
        self.preamble = preamble
        self.calls = 0

    def _respond(self, messages: list[Any]) -> Any:
        self.calls += 1
        if any(message.role == "tool" for message in messages):
            return ModelResponse(role="assistant", content=SUMMARY)
        calls = [
            {"id": f"call-{index}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for index, (name, args) in enumerate(self.script, 1)
        ]
        return ModelResponse(role="assistant", content=self.preamble, tool_calls=calls)

    def invoke(self, messages: list[Any], **kwargs: Any) -> Any:
        return self._respond(messages)

    async def ainvoke(self, messages: list[Any], **kwargs: Any) -> Any:
        return self._respond(messages)

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def ainvoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> Any:
        return response

    def _parse_provider_response_delta(self, response: Any) -> Any:
        return response


def _run(
    python: str,
    module: str,
    script: Sequence[tuple[str, dict[str, Any]]],
    preamble: str | None = None,
    hooked: bool = True,
    **options: Any,
) -> tuple[str, ScriptedModel]:
    async def go() -> tuple[str, ScriptedModel]:
        params = StdioServerParameters(command=python, args=["-m", module], cwd=str(ROOT))
        model = ScriptedModel(script, preamble)
        options.setdefault("server", "example")
        async with DirectAnswerMCPTools(server_params=params, timeout_seconds=60, **options) as toolkit:
            hooks = [toolkit.final_answer_hook] if hooked else None
            agent = Agent(model=model, tools=[toolkit], post_hooks=hooks)
            output = await agent.arun("Go.")
            assert not toolkit._answers  # pyright: ignore[reportPrivateUsage]  # every answer taken by the hook
        return str(output.content), model

    return asyncio.run(go())


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    final, model = _run(example_python, FINANCIAL, [("financial_statements", {})])
    assert model.calls == 1  # the model never read the result
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_model_text_before_its_call_is_not_part_of_the_answer(example_python: str) -> None:
    final, _ = _run(example_python, FINANCIAL, [("financial_statements", {})], preamble="Let me look that up.")
    assert final.startswith('Verbatim result from tool "financial_statements"') and "Let me look" not in final


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    final, _ = _run(example_python, FINANCIAL, [("financial_statements", {})], markdown=True)
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_other_tools_go_to_the_model_as_agno_gives_them(example_python: str) -> None:
    final, model = _run(example_python, FINANCIAL, [("key_figures", {})])
    assert final == SUMMARY and model.calls == 2


def test_an_error_marked_verbatim_goes_to_the_model(example_python: str) -> None:
    for module, tool, arguments in ((SCREENING, "screening_report", {"batch": "nope"}), (HOSTILE, "broken", {})):
        final, model = _run(example_python, module, [(tool, arguments)])
        assert final == SUMMARY and model.calls == 2, tool


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    final, model = _run(example_python, HOSTILE, [("notes", {})], allow=["ledger"])
    assert final == SUMMARY and model.calls == 2


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    final, _ = _run(example_python, SCREENING, [("screening_report", {})])
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_turn_with_a_verbatim_call_and_a_call_of_another_tool_goes_to_the_model(example_python: str) -> None:
    for calls in (
        [("key_figures", {}), ("financial_statements", {})],
        [("financial_statements", {}), ("key_figures", {})],
    ):
        final, model = _run(example_python, FINANCIAL, calls)
        # The model read both results and answered: the verbatim one is never left out of what it reads.
        assert model.calls == 2 and final == SUMMARY, calls


def test_a_turn_of_verbatim_calls_alone_names_no_other_call(example_python: str) -> None:
    final, _ = _run(example_python, FINANCIAL, [("financial_statements", {})])
    assert final.startswith('Verbatim result from tool "financial_statements"')


def test_two_verbatim_calls_answer_with_both_each_closed_by_the_host(example_python: str) -> None:
    final, model = _run(example_python, FINANCIAL, [("financial_statements", {}), ("financial_statements", {})])
    assert model.calls == 1
    assert final.startswith("2 results follow, in the order called")
    assert final.count('Verbatim result from tool "financial_statements" of server "example".') == 2


def test_the_tool_hint_alone_takes_the_route(example_python: str) -> None:
    final, _ = _run(example_python, HOSTILE, [("bare", {})])  # no directive in the result
    assert final.split("\n\n")[:2] == ['Verbatim result from tool "bare" of server "example".', UNSTATED_COMPLETENESS]


def test_verbatim_answers_follow_the_order_called(example_python: str) -> None:
    for first, second in (("notes", "ledger"), ("ledger", "notes")):
        final, _ = _run(example_python, HOSTILE, [(first, {}), (second, {})])
        caption = 'Verbatim result from tool "{}" of server "example".'
        assert final.index(caption.format(first)) < final.index(caption.format(second)), first


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("agno.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""
CAPTION = 'Verbatim result from tool "directed" of server "example".'


def test_a_result_directive_alone_takes_the_route_and_a_summarizable_result_does_not(example_python: str) -> None:
    # The route is taken after the call: the result's directive decides, with or without the tool's hint.
    final, _ = _run(example_python, DIRECTIVE, [("directed", {})])
    assert final == f"{CAPTION}\n\n{DIRECTED_TEXT}"
    final, _ = _run(example_python, DIRECTIVE, [("hinted", {})])
    assert final == SUMMARY


def test_an_agent_without_the_post_hook_answers_all_the_same(example_python: str) -> None:
    final, model = _run(
        example_python, FINANCIAL, [("financial_statements", {})], preamble="Let me look.", hooked=False
    )
    assert model.calls == 1
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".')
    assert "Let me look." not in final


def test_a_toolkit_given_to_a_team_itself_answers_through_the_teams_post_hooks(example_python: str) -> None:
    from agno.team import Team  # pyright: ignore[reportMissingImports]

    async def go(hooked: bool) -> tuple[str, ScriptedModel]:
        params = StdioServerParameters(command=example_python, args=["-m", FINANCIAL], cwd=str(ROOT))
        model = ScriptedModel([("financial_statements", {})])
        async with DirectAnswerMCPTools(server_params=params, timeout_seconds=60, server="example") as toolkit:
            hooks = [toolkit.final_answer_hook] if hooked else None
            member = Agent(model=ScriptedModel([]), name="member")
            team = Team(members=[member], model=model, tools=[toolkit], post_hooks=hooks)
            output = await team.arun("Go.")
            assert not toolkit._answers  # pyright: ignore[reportPrivateUsage]
        return str(output.content), model

    for hooked in (True, False):
        final, model = asyncio.run(go(hooked))
        assert model.calls == 1, hooked
        assert final.startswith('Verbatim result from tool "financial_statements" of server "example".'), hooked


def _run_member(
    python: str, respond_directly: bool, alone: list[Any] | None = None
) -> tuple[Any, ScriptedModel, list[str], list[dict[str, Any]]]:
    """A team whose leader delegates to a member given the toolkit (the leader reads the member's reply, then
    writes `SUMMARY`); with the tool results the leader read and the calls of `entry` the server received. `alone`:
    the member then runs alone, and its output is added to it."""
    from agno.team import Team  # pyright: ignore[reportMissingImports]

    class Leader(ScriptedModel):
        def _respond(self, messages: list[Any]) -> Any:
            self.calls += 1
            if any(message.role == "tool" for message in messages):
                return ModelResponse(role="assistant", content=SUMMARY)
            task = {"member_id": "member", "task": "Show the entry of A-1."}
            call = {"name": "delegate_task_to_member", "arguments": json.dumps(task)}
            return ModelResponse(role="assistant", tool_calls=[{"id": "lead-1", "type": "function", "function": call}])

    async def go() -> tuple[Any, ScriptedModel, list[str], list[dict[str, Any]]]:
        params = StdioServerParameters(command=python, args=[MARKED], cwd=str(ROOT))
        leader = Leader([])
        async with DirectAnswerMCPTools(server_params=params, timeout_seconds=60, server="example") as toolkit:
            member = Agent(
                name="member", model=ScriptedModel(ENTRY), tools=[toolkit], post_hooks=[toolkit.final_answer_hook]
            )
            team = Team(name="desk", members=[member], model=leader, respond_directly=respond_directly)
            output = await team.arun("Show the entry of A-1.")
            if alone is not None:
                member.model = ScriptedModel(ENTRY)
                alone.append(await member.arun("Show the entry of A-1."))
            assert not toolkit._answers  # pyright: ignore[reportPrivateUsage]
            received = await toolkit.session.call_tool("received", {})
        read = [str(message.content) for message in output.messages or [] if message.role == "tool"]
        return output, leader, read, json.loads(received.content[0].text)

    return asyncio.run(go())


def test_a_toolkit_on_a_member_of_a_team_whose_leader_answers_is_refused_with_what_to_do(
    example_python: str,
) -> None:
    from agno.run import RunStatus  # pyright: ignore[reportMissingImports]

    alone: list[Any] = []
    output, leader, read, received = _run_member(example_python, respond_directly=False, alone=alone)
    assert received == []  # refused before the call reached the server
    [member] = output.member_responses
    assert member.status == RunStatus.error
    error = str(member.content)
    assert error.startswith("DirectAnswerMCPTools is given to agent 'member', a member of team 'desk',")
    assert "respond_directly=True" in error and "to the team itself" in error
    assert leader.calls == 2 and read == [error]  # the leader read the error, not a host's view to rewrite
    # The same agent run alone afterwards is refused alike, and the text says why and what to run instead.
    [lone] = alone
    assert lone.status == RunStatus.error and str(lone.content) == error
    assert "Agno keeps an agent once made a member of a team a member of it, in the agent's runs alone too" in error
    assert error.endswith("run a separate Agent object alone.")


def test_a_toolkit_on_a_member_of_a_team_that_responds_directly_answers(example_python: str) -> None:
    output, leader, _, received = _run_member(example_python, respond_directly=True)
    assert received == [{"account": "A-1"}] and leader.calls == 1
    caption = 'Verbatim result from tool "entry" of server "example".'
    assert str(output.content) == f"{caption}\n\n{UNSTATED_COMPLETENESS}\n\nEntry of A-1"


def test_the_answers_of_runs_that_never_end_are_not_kept_without_bound() -> None:
    toolkit = DirectAnswerMCPTools(command="python3")
    for run in range(_RUNS_KEPT + 50):
        toolkit._run(f"run-{run}")  # pyright: ignore[reportPrivateUsage]
    kept = toolkit._answers  # pyright: ignore[reportPrivateUsage]
    assert len(kept) == _RUNS_KEPT and next(iter(kept)) == "run-50"


def test_a_turn_of_verbatim_answers_is_bounded_as_a_whole(example_python: str) -> None:
    bound = 6_000  # each answer is cut to it; the three together are over it
    final, _ = _run(example_python, FINANCIAL, [("financial_statements", {})] * 3, max_bytes=bound)
    head, left_out, *parts = final.split("\n\n")
    assert head.startswith("2 results follow")
    assert left_out == (
        f"{PARTIAL_MARKER} this answer shows the first 2 of 3 results (as many as fit this host's bound of {bound}"
        ' bytes per answer); result 3, of tool "financial_statements", is not in it. To see them, ask again with a'
        " narrower query."
    )
    answers = "\n\n".join(parts).split("\n\nEnd of result ")
    assert len(answers) == 3 and sum(len(answer.encode()) for answer in answers[:2]) <= bound


def test_agno_takes_the_session_of_each_call_from_the_toolkit(example_python: str) -> None:
    """Agno's result for the model (`ToolResult`) keeps no blocks of the result: the toolkit reads the raw result
    beneath Agno's own entrypoint, in the object it hands the entrypoint for the session (`get_session_for_run`). A
    release whose entrypoint takes its session elsewhere, or no longer calls `call_tool` on it, fails here by name."""

    from agno.utils.mcp import ping_session  # pyright: ignore[reportMissingImports]

    async def go() -> tuple[Any, Any, dict[str, Any]]:
        params = StdioServerParameters(command=example_python, args=["-m", FINANCIAL], cwd=str(ROOT))
        async with DirectAnswerMCPTools(server_params=params, timeout_seconds=60, server="example") as toolkit:
            await ping_session(await toolkit.get_session_for_run())  # Agno's ping, as its entrypoint sends it
            _open_call()
            returned = await toolkit.functions["financial_statements"].entrypoint()
            return returned, _CALL.get(), dict(vars(toolkit.session))

    returned, call, attributes = asyncio.run(go())
    assert call is not None and [entry.value for entry in call.returned] == [returned], (
        "Agno's MCP entrypoint no longer calls the server over the session the toolkit hands it: the Agno adapter"
        " cannot read the raw result"
    )
    assert call.returned[0].view.startswith('Verbatim result from tool "financial_statements" of server "example".')
    assert "call_tool" not in attributes  # the connection the toolkit built is left as fastmcp made it


def test_agnos_entrypoint_makes_the_same_result_over_the_adapters_session_as_over_the_toolkits_own(
    example_python: str,
) -> None:
    """The object the adapter hands Agno's entrypoint for the session calls fastmcp's `call_tool_mcp` (the call
    fastmcp's `call_tool` makes, never raising on an error result) and returns the SDK's result, where Agno's
    entrypoint calls fastmcp's `call_tool(..., raise_on_error=False)` on the toolkit's own connection. A release of
    either that makes the two differ (in the text, the metadata, or an error result raised) fails here."""
    from agno.utils.mcp import get_entrypoint_for_tool  # pyright: ignore[reportMissingImports]

    async def go(module: str, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[tuple[Any, Any]]:
        params = StdioServerParameters(command=example_python, args=["-m", module], cwd=str(ROOT))
        pairs: list[tuple[Any, Any]] = []
        async with DirectAnswerMCPTools(server_params=params, timeout_seconds=60, server="example") as toolkit:
            tools = {tool.name: tool for tool in await toolkit.session.list_tools()}
            for name, arguments in calls:
                agnos = await get_entrypoint_for_tool(tool=tools[name], session=toolkit.session)(**arguments)
                adapters = await toolkit.functions[name].entrypoint(**arguments)
                pairs.append((agnos, adapters))
        return pairs

    pairs = asyncio.run(go(FINANCIAL, [("financial_statements", {}), ("key_figures", {})]))
    pairs += asyncio.run(go(HOSTILE, [("broken", {}), ("ledger", {})]))
    for agnos, adapters in pairs:
        assert (adapters.content, adapters.metadata) == (agnos.content, agnos.metadata)
    broken = pairs[2][1].content
    assert broken.startswith("Error from MCP tool 'broken':"), broken  # Agno's error result, not a raised error


MARKED = str(Path(__file__).with_name("marked_server.py"))
ENTRY = [("entry", {"account": "A-1"})]
REFUSAL = "Refused by the approval policy."


def _run_hooked(
    python: str,
    hook: Any,
    post_hook: Any = None,
    script: Sequence[tuple[str, dict[str, Any]]] = ENTRY,
    tools: Sequence[Any] = (),
) -> tuple[str, ScriptedModel, list[dict[str, Any]], list[str]]:
    """`_run` on the server marking every tool, with no allow-list, and the application's own Agno tool hook (and
    post-hook, listed before the toolkit's, and `tools` of its own); with the calls of `entry` the server received
    and the tool results the run's messages hold."""

    async def go() -> tuple[str, ScriptedModel, list[dict[str, Any]], list[str]]:
        params = StdioServerParameters(command=python, args=[MARKED], cwd=str(ROOT))
        model = ScriptedModel(script)
        async with DirectAnswerMCPTools(server_params=params, timeout_seconds=60, server="example") as toolkit:
            post_hooks = [toolkit.final_answer_hook] if post_hook is None else [post_hook, toolkit.final_answer_hook]
            agent = Agent(model=model, tools=[toolkit, *tools], post_hooks=post_hooks, tool_hooks=[hook])
            output = await agent.arun("Go.")
            received = await toolkit.session.call_tool("received", {})
        read = [str(message.content) for message in output.messages or [] if message.role == "tool"]
        return str(output.content), model, json.loads(received.content[0].text), read

    return asyncio.run(go())


def test_the_applications_tool_hooks_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def log(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        seen.append((function_name, dict(arguments)))
        return await function_call(**arguments)

    final, model, received, _ = _run_hooked(example_python, log)
    assert seen == [("entry", {"account": "A-1"})]
    assert received == [{"account": "A-1"}]
    # The route is still taken, from the result of the call the hook let through.
    assert model.calls == 1 and final.startswith('Verbatim result from tool "entry" of server "example".')
    assert "Entry of A-1" in final


def test_a_hook_that_refuses_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    async def refuse(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        return REFUSAL

    final, model, received, read = _run_hooked(example_python, refuse)
    assert received == []  # the server never received the call
    # The model read the refusal and answered, as Agno does without the adapter.
    assert final == SUMMARY and model.calls == 2 and read == [REFUSAL]


def test_a_hook_that_rewrites_the_arguments_decides_what_the_server_receives_and_the_view_shows(
    example_python: str,
) -> None:
    async def rewrite(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        # Agno calls the entrypoint with the call's own arguments: a hook rewrites them in place.
        arguments["account"] = "B-2"
        return await function_call(**arguments)

    final, model, received, _ = _run_hooked(example_python, rewrite)
    assert received == [{"account": "B-2"}]
    assert model.calls == 1 and "Entry of B-2" in final and "A-1" not in final


WITHHELD = "Withheld by the application's policy."


def test_a_hook_that_replaces_the_result_decides_what_the_model_reads_and_no_route_is_taken(
    example_python: str,
) -> None:
    seen: list[str] = []

    async def withhold(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        result = await function_call(**arguments)
        seen.append(result.content)
        return WITHHELD

    final, model, received, read = _run_hooked(example_python, withhold)
    # The hook received the result as MCPTools gives it, and what it returned is what the model read.
    assert seen == ["Entry of A-1"] and received == [{"account": "A-1"}]
    assert final == SUMMARY and model.calls == 2 and read == [WITHHELD]


def test_a_hook_that_changes_the_result_in_place_takes_the_route_away(example_python: str) -> None:
    async def redact(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        result = await function_call(**arguments)
        result.content = result.content.replace("A-1", "[account]")
        return result

    final, model, _, read = _run_hooked(example_python, redact)
    assert final == SUMMARY and model.calls == 2 and read == ["Entry of [account]"]


def test_the_applications_post_hooks_read_the_answer_the_user_receives(example_python: str) -> None:
    checked: list[str] = []

    def check(run_output: Any) -> None:  # an output check, listed before the toolkit's post-hook
        checked.append(str(run_output.content))

    async def log(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        return await function_call(**arguments)

    final, _, _, _ = _run_hooked(example_python, log, post_hook=check)
    assert final.startswith('Verbatim result from tool "entry" of server "example".') and checked == [final]


TWO_ENTRIES = [("entry", {"account": "A-1"}), ("entry", {"account": "B-2"})]


def _hook_on_b2(answer: Any, last: bool) -> Any:
    """A tool hook that lets the call for A-1 through and has `answer(function_call, arguments)` say what comes of
    the call for B-2; with `last`, only once the call for A-1 has come out of the hooks (so B-2's ends the turn)."""
    let_through = asyncio.Event()

    async def hook(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        if arguments["account"] != "B-2":
            result = await function_call(**arguments)
            let_through.set()
            return result
        if last:
            await let_through.wait()
        return await answer(function_call, arguments)

    return hook


async def _refuse(function_call: Any, arguments: dict[str, Any]) -> Any:
    return f"{REFUSAL} (wrong account)"


async def _replace(function_call: Any, arguments: dict[str, Any]) -> Any:
    await function_call(**arguments)
    return WITHHELD


def test_a_turn_with_a_call_a_hook_refused_goes_back_to_the_model_whichever_call_ends_last(
    example_python: str,
) -> None:
    for last in (False, True):
        final, model, received, read = _run_hooked(example_python, _hook_on_b2(_refuse, last), script=TWO_ENTRIES)
        assert received == [{"account": "A-1"}], last
        # Agno ends a turn when any call asks to: the turn waits for its last call, and the model reads the refusal.
        assert model.calls == 2 and final == SUMMARY, last
        assert read == ["Entry of A-1", f"{REFUSAL} (wrong account)"], last


def test_a_turn_with_a_call_whose_result_a_hook_replaced_goes_back_to_the_model_whichever_call_ends_last(
    example_python: str,
) -> None:
    for last in (False, True):
        final, model, received, read = _run_hooked(example_python, _hook_on_b2(_replace, last), script=TWO_ENTRIES)
        assert sorted(call["account"] for call in received) == ["A-1", "B-2"], last
        assert model.calls == 2 and final == SUMMARY and read == ["Entry of A-1", WITHHELD], last


def test_a_turn_whose_calls_the_hooks_all_let_through_answers_with_their_results(example_python: str) -> None:
    async def let_through(function_call: Any, arguments: dict[str, Any]) -> Any:
        return await function_call(**arguments)

    for last in (False, True):
        final, model, _, _ = _run_hooked(example_python, _hook_on_b2(let_through, last), script=TWO_ENTRIES)
        assert model.calls == 1 and final.startswith("2 results follow, in the order called"), last
        assert final.index("Entry of A-1") < final.index("Entry of B-2"), last


def test_a_turn_with_a_call_of_another_tool_a_hook_refused_goes_back_to_the_model(example_python: str) -> None:
    # The application's own tool (not an MCP tool), guarded by its approval policy: Agno's tool hooks wrap every
    # function of the agent, and the toolkit sees only its own, so a turn with any other call goes to the model.
    transferred: list[str] = []

    def transfer(amount: str) -> str:
        """Transfers money."""
        transferred.append(amount)
        return f"Transferred {amount}."

    async def policy(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        if function_name == "transfer":
            return f"{REFUSAL} (over the limit)"
        return await function_call(**arguments)

    for script in ([*ENTRY, ("transfer", {"amount": "1000000"})], [("transfer", {"amount": "1000000"}), *ENTRY]):
        final, model, received, read = _run_hooked(example_python, policy, script=script, tools=[transfer])
        assert received == [{"account": "A-1"}] and not transferred, script
        # The model read the refusal, its reason and the verbatim result, and answered.
        assert model.calls == 2 and final == SUMMARY, script
        assert sorted(read) == sorted(["Entry of A-1", f"{REFUSAL} (over the limit)"]), script


def _run_confirmed(python: str, confirmed: set[str]) -> tuple[str, ScriptedModel, list[str]]:
    """Two calls of `entry` in one turn, on a toolkit asking for confirmation of `entry`: the user confirms the
    calls for the accounts in `confirmed` and rejects the others, saying why; with the tool results the run holds."""
    from agno.db.in_memory import InMemoryDb  # pyright: ignore[reportMissingImports]

    async def go() -> tuple[str, ScriptedModel, list[str]]:
        params = StdioServerParameters(command=python, args=[MARKED], cwd=str(ROOT))
        model = ScriptedModel([("entry", {"account": "A-1"}), ("entry", {"account": "B-2"})])
        async with DirectAnswerMCPTools(
            server_params=params, timeout_seconds=60, server="example", requires_confirmation_tools=["entry"]
        ) as toolkit:
            agent = Agent(model=model, tools=[toolkit], post_hooks=[toolkit.final_answer_hook], db=InMemoryDb())
            paused = await agent.arun("Go.")
            assert paused.is_paused and len(paused.tools_requiring_confirmation or []) == 2
            for tool in paused.tools_requiring_confirmation or []:
                tool.confirmed = (tool.tool_args or {}).get("account") in confirmed
                if not tool.confirmed:
                    tool.confirmation_note = "Wrong account."
            output = await agent.acontinue_run(run_response=paused)
            assert not toolkit._answers  # pyright: ignore[reportPrivateUsage]
        read = [str(message.content) for message in output.messages or [] if message.role == "tool"]
        return str(output.content), model, read

    return asyncio.run(go())


def test_a_turn_with_a_rejected_call_goes_back_to_the_model(example_python: str) -> None:
    final, model, read = _run_confirmed(example_python, {"A-1"})
    # The model read the rejection and its reason, and its answer stands: no route for that turn.
    assert "Wrong account." in read and final == SUMMARY and model.calls == 2


def test_a_turn_whose_calls_were_all_confirmed_answers_with_their_results(example_python: str) -> None:
    final, _, _ = _run_confirmed(example_python, {"A-1", "B-2"})
    assert final.startswith("2 results follow, in the order called")
    assert final.index("Entry of A-1") < final.index("Entry of B-2")


def test_a_session_of_the_applications_own_answers_as_well_and_is_left_as_it_was(example_python: str) -> None:
    from agno.utils.mcp import ping_session  # pyright: ignore[reportMissingImports]
    from mcp import ClientSession  # pyright: ignore[reportAttributeAccessIssue]
    from mcp.client.stdio import stdio_client  # pyright: ignore[reportMissingImports]

    async def go() -> tuple[str, ScriptedModel, dict[str, Any]]:
        params = StdioServerParameters(command=example_python, args=["-m", FINANCIAL], cwd=str(ROOT))
        model = ScriptedModel([("financial_statements", {})])
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
            DirectAnswerMCPTools(session=session, server="example") as toolkit,
        ):
            await ping_session(await toolkit.get_session_for_run())  # Agno's ping, as its entrypoint sends it
            agent = Agent(model=model, tools=[toolkit], post_hooks=[toolkit.final_answer_hook])
            output = await agent.arun("Go.")
            attributes = dict(vars(session))
        return str(output.content), model, attributes

    final, model, attributes = asyncio.run(go())
    assert model.calls == 1
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean
    assert "call_tool" not in attributes  # the application's session is never changed


def test_a_session_of_a_class_whose_attributes_cannot_be_set_answers_as_well(example_python: str) -> None:
    from mcp import ClientSession  # pyright: ignore[reportAttributeAccessIssue]
    from mcp.client.stdio import stdio_client  # pyright: ignore[reportMissingImports]

    class Sealed(ClientSession):  # pyright: ignore[reportUntypedBaseClass]
        def __setattr__(self, name: str, value: Any) -> None:
            if name == "call_tool":
                raise AttributeError(name)
            super().__setattr__(name, value)

    async def go() -> tuple[str, ScriptedModel]:
        params = StdioServerParameters(command=example_python, args=["-m", FINANCIAL], cwd=str(ROOT))
        model = ScriptedModel([("financial_statements", {})])
        async with (
            stdio_client(params) as (read, write),
            Sealed(read, write) as session,
            DirectAnswerMCPTools(session=session, server="example") as toolkit,
        ):
            agent = Agent(model=model, tools=[toolkit], post_hooks=[toolkit.final_answer_hook])
            output = await agent.arun("Go.")
        return str(output.content), model

    final, model = asyncio.run(go())
    assert model.calls == 1 and final.startswith('Verbatim result from tool "financial_statements"')
