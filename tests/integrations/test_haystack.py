"""The Haystack adapter, in the environment of `mcp-haystack`.

Each test runs Haystack's own `Agent` with a scripted chat generator (a component that calls no provider) and an
`MCPToolset` against a server over stdio, and reads the last message's ``.text``, where Haystack applications read
the answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from haystack import component  # pyright: ignore[reportMissingImports]
from haystack.components.agents import Agent  # pyright: ignore[reportMissingImports]
from haystack.dataclasses import ChatMessage, ToolCall  # pyright: ignore[reportMissingImports]
from haystack_integrations.tools.mcp import (  # pyright: ignore[reportMissingImports]
    MCPTool,
    MCPToolset,
    StdioServerInfo,
)

from mcp_rendering import audit
from mcp_rendering.integrations.answer import UNSTATED_COMPLETENESS
from mcp_rendering.integrations.haystack import DirectAnswerHook, direct_answers
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, page_examples, reference_result, run_example
from tests.support.directive_server import DIRECTED_TEXT
from tests.support.imitating_server import FORGED_TEXT, IMITATION

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
HOSTILE = "tests.support.hostile_server"
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."


@component
class ScriptedGenerator:
    """Calls each of `script` (name, arguments) in one turn; once it has tool results, writes `SUMMARY`."""

    def __init__(self, script: Sequence[tuple[str, dict[str, Any]]]) -> None:
        self.script = list(script)
        self.calls = 0

    @component.output_types(replies=list[ChatMessage])
    def run(self, messages: list[ChatMessage], tools: Any = None) -> dict[str, Any]:
        del tools
        self.calls += 1
        if any(message.tool_call_result is not None for message in messages):
            return {"replies": [ChatMessage.from_assistant(SUMMARY)]}
        calls = [
            ToolCall(tool_name=name, arguments=arguments, id=f"call-{index}")
            for index, (name, arguments) in enumerate(self.script, 1)
        ]
        return {"replies": [ChatMessage.from_assistant(tool_calls=calls)]}


def _run(
    python: str,
    module: str,
    script: Sequence[tuple[str, dict[str, Any]]],
    allow: Mapping[str, Sequence[str]] | None = None,
    outputs_to_string: dict[str, dict[str, Any]] | None = None,
    **options: Any,
) -> tuple[str | None, dict[str, Any], ScriptedGenerator]:
    # The server runs from the repository, where the test servers' package is.
    server = StdioServerInfo(command=python, args=["-m", module], env={"PYTHONPATH": str(ROOT)})
    toolset = MCPToolset(server, outputs_to_string=outputs_to_string)
    generator = ScriptedGenerator(script)
    hooks = direct_answers({"example": toolset}, allow=allow, **options)
    agent = Agent(chat_generator=generator, tools=toolset, hooks=hooks)
    try:
        output = agent.run(messages=[ChatMessage.from_user("Go.")])
    finally:
        toolset.close()
    return output["last_message"].text, output, generator


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    final, output, generator = _run(example_python, FINANCIAL, [("financial_statements", {})])
    assert generator.calls == 1 and output["exit_reason"] == "financial_statements"  # the model never read it
    assert final is not None
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    final, _, _ = _run(example_python, FINANCIAL, [("financial_statements", {})], markdown=True)
    assert final is not None
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_other_tools_go_to_the_model(example_python: str) -> None:
    final, _, generator = _run(example_python, FINANCIAL, [("key_figures", {})])
    assert final == SUMMARY and generator.calls == 2


def test_a_tool_hint_alone_takes_the_route_the_hook_lists_the_tools_itself(example_python: str) -> None:
    # `bare`'s result carries no directive and Haystack's tools keep no hint: the hook's own listing marks it.
    final, _, generator = _run(example_python, HOSTILE, [("bare", {})])
    assert final is not None and generator.calls == 1
    assert final.split("\n\n")[:2] == ['Verbatim result from tool "bare" of server "example".', UNSTATED_COMPLETENESS]


def test_an_error_marked_verbatim_goes_to_the_model(example_python: str) -> None:
    for module, tool, arguments in ((SCREENING, "screening_report", {"batch": "nope"}), (HOSTILE, "broken", {})):
        final, _, generator = _run(example_python, module, [(tool, arguments)])
        assert final == SUMMARY and generator.calls == 2, tool


def test_only_the_named_tools_answer_directly(example_python: str) -> None:
    final, _, generator = _run(example_python, HOSTILE, [("notes", {})], allow={"example": ["ledger"]})
    assert final == SUMMARY and generator.calls == 2


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    # How to get the rest: the continuation's argument is declared in the tool's `_meta`, which Haystack's MCP tools
    # do not keep; the hook's own listing has it.
    final, _, _ = _run(example_python, SCREENING, [("screening_report", {})])
    assert final is not None
    notice = final.split("\n\n")[1]
    assert notice.startswith(PARTIAL_MARKER) and notice.endswith(
        'The rest can be fetched from the tool "screening_report".'
    )


def test_a_turn_with_a_verbatim_tool_and_another_goes_to_the_model_in_either_order(example_python: str) -> None:
    for first, second in (("financial_statements", "key_figures"), ("key_figures", "financial_statements")):
        final, output, generator = _run(example_python, FINANCIAL, [(first, {}), (second, {})])
        assert final == SUMMARY and generator.calls == 2, first
        # The model read the verbatim result as the host's view, which the application finds among the messages.
        results = [message.tool_call_result.result for message in output["messages"] if message.tool_call_result]
        [view] = [result for result in results if result.startswith("Verbatim result from tool")]
        assert view.startswith('Verbatim result from tool "financial_statements" of server "example".'), first


def test_two_verbatim_calls_answer_with_both_each_closed_by_the_host(example_python: str) -> None:
    final, _, generator = _run(example_python, FINANCIAL, [("financial_statements", {}), ("financial_statements", {})])
    assert generator.calls == 1 and final is not None
    assert final.startswith("2 results follow, in the order called")
    assert final.count('Verbatim result from tool "financial_statements" of server "example".') == 2


def test_the_hook_serializes_each_servers_tools_by_name() -> None:
    hook = DirectAnswerHook({"example": ["financial_statements"]}, markdown=True, allow={"example": ["x"]})
    again = DirectAnswerHook.from_dict(hook.to_dict())
    assert again.to_dict() == hook.to_dict() and again.servers == {"example": ["financial_statements"]}
    assert again.options.markdown and again.allowed.allow == {"example": frozenset({"x"})}


def test_direct_answers_takes_the_servers_by_name_and_no_name_for_them_all() -> None:
    with pytest.raises(TypeError):
        direct_answers([])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        direct_answers({"": []})
    with pytest.raises(TypeError):
        direct_answers({}, allow=["entry"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        direct_answers({}, server="bank")  # pyright: ignore[reportCallIssue]


MARKED = str(Path(__file__).with_name("marked_server.py"))
"""A server marking every tool with the tool's hint only: its results carry no directive."""


def _two_servers(python: str, allow: Mapping[str, Sequence[str]] | None = None) -> tuple[str | None, ScriptedGenerator]:
    """One agent with two MCP servers, the example server as "bank" and the one marking every tool as "ledger",
    whose `entry` the model calls."""
    bank = MCPToolset(StdioServerInfo(command=python, args=["-m", FINANCIAL]))
    ledger = MCPToolset(StdioServerInfo(command=python, args=[MARKED]))
    generator = ScriptedGenerator([("entry", {"account": "A-1"})])
    hooks = direct_answers({"bank": bank, "ledger": ledger}, allow=allow)
    agent = Agent(chat_generator=generator, tools=[bank, ledger], hooks=hooks)
    try:
        output = agent.run(messages=[ChatMessage.from_user("Go.")])
    finally:
        bank.close()
        ledger.close()
    return output["last_message"].text, generator


def test_a_hint_only_servers_result_is_captioned_with_its_own_servers_name(example_python: str) -> None:
    """The documented line against a server that sets only the tool's hint takes the route, and a second server's
    result is captioned with its own name, never the first's."""
    final, generator = _two_servers(example_python)
    assert final is not None and generator.calls == 1
    assert final.startswith('Verbatim result from tool "entry" of server "ledger".')
    assert '"bank"' not in final


def test_a_tool_name_allowed_on_one_server_allows_nothing_of_another(example_python: str) -> None:
    final, generator = _two_servers(example_python, allow={"bank": ["entry"]})
    assert final == SUMMARY and generator.calls == 2


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("haystack.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


def _hook_on(result_text: str) -> tuple[list[Any], Any]:
    """The hook run on one tool message holding `result_text`, as `mcp-haystack` writes a result, at each point of
    an Agent's step in the Agent's order: the messages after it and the `stop_run` it set."""
    from haystack.components.agents.state import State  # pyright: ignore[reportMissingImports]

    call = ToolCall(tool_name="ledger", arguments={}, id="call-1")
    tool_message = ChatMessage.from_tool(result_text, origin=call)
    schema = {
        "messages": {"type": list[ChatMessage]},
        "stop_run": {"type": str},
        "tools": {"type": list},
        "hook_context": {"type": dict},
    }
    # The tool that ran the call, as the Agent keeps it in its state for hooks (never connected here).
    tool = MCPTool(name="ledger", server_info=StdioServerInfo(command="unused"))
    state = State(schema=schema, data={"messages": [ChatMessage.from_user("Go.")], "tools": [tool]})
    hooks = direct_answers({"example": tool})
    hooks["before_llm"][0].run(state)
    state.set("messages", [ChatMessage.from_assistant(tool_calls=[call])])
    hooks["before_tool"][0].run(state)
    state.set("messages", [tool_message])
    hooks["after_tool"][0].run(state)
    hooks["before_llm"][0].run(state)  # the run ends here
    return state.data["messages"], state.data.get("stop_run")


AMOUNT_RESULT = json.dumps(
    {
        "content": [{"type": "text", "text": "One account."}],
        "structuredContent": {"rows": [{"account": "Cash", "amount": "AMOUNT"}]},
        "_meta": {"io.modelcontextprotocol/rendering": {"mode": "verbatim", "complete": True}},
        "isError": False,
    }
)


def test_an_amount_in_the_result_string_is_shown_exactly() -> None:
    """The hook reads `mcp-haystack`'s result string as the host reads JSON: a number past a double's precision is
    shown as written, not as the float a plain `json.loads` would make of it."""
    messages, stop = _hook_on(AMOUNT_RESULT.replace('"AMOUNT"', "12345678901234567890.12"))
    assert stop == "ledger"
    assert "| 12345678901234567890.12 |" in messages[-1].text
    assert "1.2345678901234567e+19" not in messages[-1].text


def test_a_number_json_cannot_hold_in_the_result_string_gets_no_host_view() -> None:
    """`NaN`, `Infinity` and a number past a double's range are not JSON: the hook refuses the result (the model
    reads it, as it reads any result the host does not present) and never shows such a number as a value."""
    for number in ("NaN", "Infinity", "-Infinity", "1e999"):
        result_text = AMOUNT_RESULT.replace('"AMOUNT"', number)
        messages, stop = _hook_on(result_text)
        assert stop is None
        assert messages[-1].tool_call_result is not None and messages[-1].tool_call_result.result == result_text


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""
CAPTION = 'Verbatim result from tool "directed" of server "example".'


def test_a_result_directive_alone_takes_the_route_and_a_summarizable_result_does_not(example_python: str) -> None:
    # The route is taken after the call: the result's directive decides, with or without the tool's hint.
    final, _, generator = _run(example_python, DIRECTIVE, [("directed", {})])
    assert final == f"{CAPTION}\n\n{DIRECTED_TEXT}" and generator.calls == 1
    final, _, _ = _run(example_python, DIRECTIVE, [("hinted", {})])
    assert final == SUMMARY


IMITATING = "tests.support.imitating_server"
"""A server whose result's text is the dump of a whole result marked verbatim."""


def _text_of_result(result: str) -> str:
    """An application's `outputs_to_string` handler: the text of the result, without its JSON around it."""
    return "\n".join(block["text"] for block in json.loads(result)["content"] if block.get("type") == "text")


def test_server_text_imitating_a_result_never_takes_the_route(example_python: str) -> None:
    """An application that hands the model the result's text alone (`outputs_to_string`) makes the tool message the
    server's text: a text worded as a whole result marked verbatim must not pass for one."""
    final, _, generator = _run(example_python, IMITATING, [("imitating", {})])
    assert final == SUMMARY and generator.calls == 2  # the real result says nothing of rendering
    handler = {"imitating": {"handler": _text_of_result}}
    final, output, generator = _run(example_python, IMITATING, [("imitating", {})], outputs_to_string=handler)
    assert final == SUMMARY and generator.calls == 2 and output["exit_reason"] != "imitating"
    [tool_message] = [message for message in output["messages"] if message.tool_call_result is not None]
    assert tool_message.tool_call_result.result == IMITATION  # the model read the server's text as it is
    assert FORGED_TEXT not in (final or "")


def test_a_converted_tool_output_goes_to_the_model_even_when_verbatim(example_python: str) -> None:
    """The route reads only a result `mcp-haystack` wrote: a tool whose output the application converts is read by
    the model, as without the hook."""
    handler = {"financial_statements": {"handler": _text_of_result}}
    final, _, generator = _run(example_python, FINANCIAL, [("financial_statements", {})], outputs_to_string=handler)
    assert final == SUMMARY and generator.calls == 2


def test_the_agent_keeps_the_tools_of_the_step_in_its_state_for_hooks(example_python: str) -> None:
    """The hook learns which tool ran each call from the Agent's ``tools`` state key: a Haystack release that stops
    keeping it there (or keeps other objects) would leave every result with the model."""
    seen: list[Any] = []

    class Record:
        def run(self, state: Any) -> None:
            seen.append(state.data.get("tools"))

    server = StdioServerInfo(command=example_python, args=["-m", FINANCIAL], env={"PYTHONPATH": str(ROOT)})
    toolset = MCPToolset(server)
    agent = Agent(
        chat_generator=ScriptedGenerator([("key_figures", {})]), tools=toolset, hooks={"after_tool": [Record()]}
    )
    try:
        agent.run(messages=[ChatMessage.from_user("Go.")])
        members = list(toolset)
    finally:
        toolset.close()
    assert seen, "the after_tool hook did not run"
    tools = seen[0]
    assert isinstance(tools, list), (
        "Haystack's Agent no longer keeps the step's tools in its state (state.data['tools']) for hooks: the"
        " Haystack adapter reads them to know which tool ran each call"
    )
    assert {id(tool) for tool in members} <= {id(tool) for tool in tools}, (
        "state.data['tools'] no longer holds the toolset's own tool objects: the Haystack adapter matches them"
    )


MARKED = str(Path(__file__).with_name("marked_server.py"))
ENTRY = [("entry", {"account": "A-1"})]
REFUSAL = "Refused by the approval policy."


class AppHook:
    """The application's own Agent hook: `act` run on the Agent's state."""

    def __init__(self, act: Any) -> None:
        self.act = act

    def run(self, state: Any) -> None:
        self.act(state)


def _run_hooked(
    python: str, *, before: Any = None, after: Any = None, after_the_adapters: Any = None
) -> tuple[str | None, ScriptedGenerator, list[dict[str, Any]], list[str]]:
    """`_run` on the server marking every tool, with no allow-list, and the application's own `before_tool` hook
    and `after_tool` hook (before the adapter's, or `after_the_adapters` after it); with the calls of `entry` the
    server received and the tool results the model read."""
    toolset = MCPToolset(StdioServerInfo(command=python, args=[MARKED]))
    generator = ScriptedGenerator(ENTRY)
    hooks = direct_answers({"example": toolset})
    if before is not None:
        hooks["before_tool"] = [AppHook(before), *hooks["before_tool"]]
    if after is not None:
        hooks["after_tool"] = [AppHook(after), *hooks["after_tool"]]
    if after_the_adapters is not None:
        hooks["after_tool"] = [*hooks["after_tool"], AppHook(after_the_adapters)]
    agent = Agent(chat_generator=generator, tools=toolset, hooks=hooks)
    try:
        output = agent.run(messages=[ChatMessage.from_user("Go.")])
        [probe] = [tool for tool in toolset if tool.name == "received"]
        received = json.loads(probe.invoke())["content"][0]["text"]
    finally:
        toolset.close()
    read = [str(message.tool_call_result.result) for message in output["messages"] if message.tool_call_result]
    return output["last_message"].text, generator, json.loads(received), read


def test_the_applications_hooks_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []

    def log_before(state: Any) -> None:
        seen.extend(("before", call.tool_name, dict(call.arguments)) for call in state.data["messages"][-1].tool_calls)

    def log_after(state: Any) -> None:
        results = [message.tool_call_result for message in state.data["messages"] if message.tool_call_result]
        seen.extend(("after", result.origin.tool_name, dict(result.origin.arguments)) for result in results)

    final, generator, received, _ = _run_hooked(example_python, before=log_before, after=log_after)
    assert seen == [("before", "entry", {"account": "A-1"}), ("after", "entry", {"account": "A-1"})]
    assert received == [{"account": "A-1"}]
    # The route is still taken, from the result of the call Haystack made.
    assert generator.calls == 1 and final is not None
    assert final.startswith('Verbatim result from tool "entry" of server "example".') and "Entry of A-1" in final


def test_a_hook_that_answers_in_place_of_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    refusals = [REFUSAL, json.dumps({"content": [{"type": "text", "text": REFUSAL}], "isError": False})]
    for refusal in refusals:

        def refuse(state: Any, refusal: str = refusal) -> None:
            [call] = state.data["messages"][-1].tool_calls
            state.set("messages", [ChatMessage.from_tool(refusal, origin=call)])

        final, generator, received, read = _run_hooked(example_python, before=refuse)
        assert received == []  # the server never received the call
        # The model read the refusal and answered, as Haystack does without the adapter.
        assert final == SUMMARY and generator.calls == 2 and read == [refusal], refusal


def test_a_hook_that_rewrites_the_call_decides_what_the_server_receives_and_the_view_shows(
    example_python: str,
) -> None:
    from haystack.components.agents.state import replace_values  # pyright: ignore[reportMissingImports]

    def rewrite(state: Any) -> None:
        messages = list(state.data["messages"])
        [call] = messages[-1].tool_calls
        rewritten = ToolCall(tool_name=call.tool_name, arguments={**call.arguments, "account": "B-2"}, id=call.id)
        messages[-1] = ChatMessage.from_assistant(tool_calls=[rewritten])
        state.set("messages", messages, handler_override=replace_values)

    final, generator, received, _ = _run_hooked(example_python, before=rewrite)
    assert received == [{"account": "B-2"}]
    assert generator.calls == 1 and final is not None and "Entry of B-2" in final and "A-1" not in final


def test_a_hook_that_replaces_the_result_means_no_route(example_python: str) -> None:
    # Listed before the adapter's hook or after it: the run ends only on what every hook left.
    for order in ("after", "after_the_adapters"):
        final, generator, received, read = _run_hooked(example_python, **{order: _redact})
        assert received == [{"account": "A-1"}]
        assert final == SUMMARY and generator.calls == 2 and read == ["Redacted."], order


def test_a_step_with_a_call_the_user_rejected_goes_to_the_model(example_python: str) -> None:
    """Haystack's `ConfirmationHook` (listed first at ``before_tool``) rejects one of the model's two verbatim calls:
    the approved call's host view and the rejection with its reason go to the model, which answers."""
    from haystack.hooks.human_in_the_loop import (  # pyright: ignore[reportMissingImports]
        AlwaysAskPolicy,
        BlockingConfirmationStrategy,
        ConfirmationHook,
    )
    from haystack.hooks.human_in_the_loop.dataclasses import (  # pyright: ignore[reportMissingImports]
        ConfirmationUIResult,
    )

    class Reviewer:
        def get_user_confirmation(self, tool_name: str, tool_description: str, tool_params: dict[str, Any]) -> Any:
            del tool_name, tool_description
            if tool_params.get("account") == "A-1" or not reject:
                return ConfirmationUIResult(action="confirm")
            return ConfirmationUIResult(action="reject", feedback="wrong account")

        def to_dict(self) -> dict[str, Any]:
            return {}

    for reject in (True, False):
        toolset = MCPToolset(StdioServerInfo(command=example_python, args=[MARKED]))
        generator = ScriptedGenerator([("entry", {"account": "A-1"}), ("entry", {"account": "B-2"})])
        hooks = direct_answers({"example": toolset})
        strategy = BlockingConfirmationStrategy(confirmation_policy=AlwaysAskPolicy(), confirmation_ui=Reviewer())
        hooks["before_tool"] = [ConfirmationHook({"entry": strategy}), *hooks["before_tool"]]
        agent = Agent(chat_generator=generator, tools=toolset, hooks=hooks)
        try:
            output = agent.run(messages=[ChatMessage.from_user("Go.")])
        finally:
            toolset.close()
        read = [str(message.tool_call_result.result) for message in output["messages"] if message.tool_call_result]
        if reject:
            assert output["last_message"].text == SUMMARY and generator.calls == 2
            assert any("wrong account" in text for text in read)
            assert any(text.startswith('Verbatim result from tool "entry"') and "Entry of A-1" in text for text in read)
        else:  # both confirmed: the route, with both views
            final = output["last_message"].text or ""
            assert generator.calls == 1 and "Entry of A-1" in final and "Entry of B-2" in final


def test_two_runs_of_one_agent_at_once_each_take_the_route(example_python: str) -> None:
    """The hook keeps what it notes of a step in each run's own State: two `run_async` of one Agent whose steps
    interleave each end on the host's view."""
    import asyncio

    @component
    class SlowGenerator:
        """A provider's latency, so that the two runs' steps interleave; each call a fresh id."""

        def __init__(self) -> None:
            self.made = 0

        @component.output_types(replies=list[ChatMessage])
        def run(self, messages: list[ChatMessage], tools: Any = None) -> dict[str, Any]:
            del tools
            if any(message.tool_call_result is not None for message in messages):
                return {"replies": [ChatMessage.from_assistant(SUMMARY)]}
            self.made += 1
            call = ToolCall(tool_name="financial_statements", arguments={}, id=f"call-{self.made}")
            return {"replies": [ChatMessage.from_assistant(tool_calls=[call])]}

        @component.output_types(replies=list[ChatMessage])
        async def run_async(self, messages: list[ChatMessage], tools: Any = None) -> dict[str, Any]:
            await asyncio.sleep(0.2)
            return self.run(messages, tools)

    async def both() -> list[str]:
        server = StdioServerInfo(command=example_python, args=["-m", FINANCIAL])
        toolset = MCPToolset(server)
        agent = Agent(chat_generator=SlowGenerator(), tools=toolset, hooks=direct_answers({"example": toolset}))
        agent.warm_up()
        try:
            outputs = await asyncio.gather(
                *(agent.run_async(messages=[ChatMessage.from_user("Go.")], hook_context=shared) for _ in "ab")
            )
        finally:
            toolset.close()
        return [output["last_message"].text or "" for output in outputs]

    shared = {"tenant": "one"}  # the application's own context, one dict for both runs, which stays unchanged
    finals = asyncio.run(both())
    assert len(finals) == 2 and shared == {"tenant": "one"}
    assert all(final.startswith('Verbatim result from tool "financial_statements"') for final in finals), finals


def test_an_agent_restored_from_its_serialized_form_keeps_the_hooks_checks(
    example_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Haystack restores a serialized Agent's hooks as one copy per point: the copies share each run's record, so a
    step with a rejected call still goes to the model, and a step without one still takes the route."""
    from haystack.hooks.human_in_the_loop import (  # pyright: ignore[reportMissingImports]
        AlwaysAskPolicy,
        BlockingConfirmationStrategy,
        ConfirmationHook,
    )
    from haystack.hooks.human_in_the_loop.dataclasses import (  # pyright: ignore[reportMissingImports]
        ConfirmationUIResult,
    )
    from haystack.hooks.utils import (  # pyright: ignore[reportMissingImports]
        _deserialize_hooks_dictionary,  # pyright: ignore[reportPrivateUsage]
        _serialize_hooks_dictionary,  # pyright: ignore[reportPrivateUsage]
    )

    class Reviewer:
        """Confirms the first call it is asked about; rejects the second when `reject`."""

        def __init__(self) -> None:
            self.asked = 0

        def get_user_confirmation(self, tool_name: str, tool_description: str, tool_params: dict[str, Any]) -> Any:
            del tool_name, tool_description, tool_params
            self.asked += 1
            if self.asked == 2 and reject:
                return ConfirmationUIResult(action="reject", feedback="not this one")
            return ConfirmationUIResult(action="confirm")

        def to_dict(self) -> dict[str, Any]:
            return {}

    # Haystack restores classes of the modules an application trusts.
    monkeypatch.setenv("HAYSTACK_DESERIALIZATION_ALLOWLIST", "mcp_rendering.integrations.haystack")
    for reject in (True, False):
        server = StdioServerInfo(command=example_python, args=["-m", FINANCIAL])
        toolset = MCPToolset(server)
        toolset.warm_up()  # connected, so that its tools are serialized by name
        generator = ScriptedGenerator([("financial_statements", {}), ("financial_statements", {})])
        restored = _deserialize_hooks_dictionary(_serialize_hooks_dictionary(direct_answers({"example": toolset})))
        assert restored["before_tool"][0] is not restored["after_tool"][0]  # one copy per point
        strategy = BlockingConfirmationStrategy(confirmation_policy=AlwaysAskPolicy(), confirmation_ui=Reviewer())
        restored["before_tool"] = [ConfirmationHook({"financial_statements": strategy}), *restored["before_tool"]]
        agent = Agent(chat_generator=generator, tools=toolset, hooks=restored)
        try:
            output = agent.run(messages=[ChatMessage.from_user("Go.")])
        finally:
            toolset.close()
        final = output["last_message"].text or ""
        if reject:
            assert final == SUMMARY and generator.calls == 2
        else:
            assert generator.calls == 1 and final.count('Verbatim result from tool "financial_statements"') == 2


def test_a_hook_given_alone_at_one_point_is_refused() -> None:
    """Alone at `after_tool`, the hook could decide only where it is listed: a hook after it that replaced a result
    would not count. It is refused, naming `direct_answers`."""
    from haystack.components.agents.state import State  # pyright: ignore[reportMissingImports]

    hook = DirectAnswerHook({"example": ["ledger"]})
    state = State(schema={"messages": {"type": list[ChatMessage]}}, data={"messages": [ChatMessage.from_user("Go.")]})
    with pytest.raises(ValueError, match=r"hooks=direct_answers"):
        hook.run(state)


def test_a_run_that_max_agent_steps_ends_after_a_verbatim_step_ends_on_the_hosts_view(example_python: str) -> None:
    """With `max_agent_steps=1` the Agent stops right after the tool step, before any `before_llm` point: the hook
    decides at `after_run`, so the last message is the host's view, not the tool message (whose `.text` is None)."""
    toolset = MCPToolset(StdioServerInfo(command=example_python, args=[MARKED]))
    generator = ScriptedGenerator(ENTRY)
    agent = Agent(
        chat_generator=generator, tools=toolset, hooks=direct_answers({"example": toolset}), max_agent_steps=1
    )
    try:
        output = agent.run(messages=[ChatMessage.from_user("Go.")])
    finally:
        toolset.close()
    final = output["last_message"].text
    assert generator.calls == 1 and final is not None and output["exit_reason"] == "entry"
    assert final.startswith('Verbatim result from tool "entry" of server "example".') and "Entry of A-1" in final


def test_a_before_llm_hook_listed_first_that_adds_a_message_keeps_the_route(example_python: str) -> None:
    """The run ends at `before_llm`, after the application's hooks there (listed first, as the page asks): one that
    adds a message after the step's tool messages leaves them the host's views, and the route is taken."""
    toolset = MCPToolset(StdioServerInfo(command=example_python, args=[MARKED]))
    generator = ScriptedGenerator(ENTRY)
    hooks = direct_answers({"example": toolset})

    def remind(state: Any) -> None:
        if state.data["messages"][-1].tool_call_result is not None:
            state.set("messages", [ChatMessage.from_system("Answer briefly.")])

    hooks["before_llm"] = [AppHook(remind), *hooks["before_llm"]]
    agent = Agent(chat_generator=generator, tools=toolset, hooks=hooks)
    try:
        output = agent.run(messages=[ChatMessage.from_user("Go.")])
    finally:
        toolset.close()
    final = output["last_message"].text
    assert generator.calls == 1 and final is not None and output["exit_reason"] == "entry"
    assert final.startswith('Verbatim result from tool "entry" of server "example".') and "Entry of A-1" in final


def _redact(state: Any) -> None:
    """The application's hook that replaces every tool message by "Redacted."."""
    from haystack.components.agents.state import replace_values  # pyright: ignore[reportMissingImports]

    messages = [
        ChatMessage.from_tool("Redacted.", origin=message.tool_call_result.origin)
        if message.tool_call_result
        else message
        for message in state.data["messages"]
    ]
    state.set("messages", messages, handler_override=replace_values)


def _run_with(python: str, hooks: dict[str, list[Any]], toolset: Any) -> tuple[dict[str, Any], ScriptedGenerator]:
    generator = ScriptedGenerator(ENTRY)
    agent = Agent(chat_generator=generator, tools=toolset, hooks=hooks)
    try:
        return agent.run(messages=[ChatMessage.from_user("Go.")]), generator
    finally:
        toolset.close()


def test_a_before_llm_hook_that_redacts_the_results_is_read_first_and_refused_after_the_decision(
    example_python: str,
) -> None:
    """The run ends inside the `before_llm` chain, at the adapter's place, and Haystack offers no later point before
    the model call. Listed first (as the page asks), the application's redaction is what the model reads; listed
    after the adapter's, or at `after_run` (both past the decision), it is refused with an error naming the order,
    never shown to the user as the host's view of the unredacted records."""
    toolset = MCPToolset(StdioServerInfo(command=example_python, args=[MARKED]))
    hooks = direct_answers({"example": toolset})
    hooks["before_llm"] = [AppHook(_redact), *hooks["before_llm"]]
    output, generator = _run_with(example_python, hooks, toolset)
    assert output["last_message"].text == SUMMARY and generator.calls == 2

    for point, placed in (("before_llm", "after"), ("after_run", "before")):
        toolset = MCPToolset(StdioServerInfo(command=example_python, args=[MARKED]))
        hooks = direct_answers({"example": toolset})
        mine = [AppHook(_redact)]
        hooks[point] = [*hooks[point], *mine] if placed == "after" else [*mine, *hooks[point]]
        with pytest.raises(ValueError, match=r'list your own before_llm hooks first \(hooks\["before_llm"\]'):
            _run_with(example_python, hooks, toolset)


@pytest.mark.parametrize("point", ["before_llm", "before_tool", "after_tool", "after_run"])
def test_a_list_that_leaves_out_the_adapters_hook_is_refused_at_the_first_run(example_python: str, point: str) -> None:
    """`hooks[point] = [mine]` in place of the list `direct_answers` gave: without the hook at that point the route
    would silently never be taken (or never checked); the first run is refused, naming the point, before any tool
    runs."""
    toolset = MCPToolset(StdioServerInfo(command=example_python, args=[MARKED]))
    hooks = direct_answers({"example": toolset})
    hooks[point] = [AppHook(lambda state: None)]
    with pytest.raises(ValueError, match=rf"missing from the Agent's {point} hooks"):
        _run_with(example_python, hooks, toolset)


def test_a_restored_agent_whose_before_tool_list_was_replaced_is_refused_at_its_first_tool_step(
    example_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copies `from_dict` made do not know each other: the run's own notes show the missing point instead, at the
    first `after_tool` of a step whose calls the hook did not see go on."""
    from haystack.hooks.utils import (  # pyright: ignore[reportMissingImports]
        _deserialize_hooks_dictionary,  # pyright: ignore[reportPrivateUsage]
        _serialize_hooks_dictionary,  # pyright: ignore[reportPrivateUsage]
    )

    monkeypatch.setenv("HAYSTACK_DESERIALIZATION_ALLOWLIST", "mcp_rendering.integrations.haystack")
    toolset = MCPToolset(StdioServerInfo(command=example_python, args=[MARKED]))
    restored = _deserialize_hooks_dictionary(_serialize_hooks_dictionary(direct_answers({"example": toolset})))
    restored["before_tool"] = [AppHook(lambda state: None)]
    with pytest.raises(ValueError, match=r"missing from the Agent's before_tool hooks"):
        _run_with(example_python, restored, toolset)


ANALYST = [("analyst", {"messages": [{"role": "user", "content": "Show the accounts"}]})]


def _under_a_caller(
    python: str,
    caller_script: Sequence[tuple[str, dict[str, Any]]],
    *,
    other_tools: Sequence[Any] = (),
    caller_hooks: Any = None,
    outputs_to_string: dict[str, Any] | None = None,
    nested_steps: int = 100,
    component_tool: bool = False,
) -> tuple[dict[str, Any], ScriptedGenerator, ScriptedGenerator]:
    """A caller Agent (hooks: `direct_answers({})`, or `caller_hooks` given the hooks) whose tool `analyst` is an
    Agent with the hooks on the example server, calling `financial_statements` (an `AgentTool`, or a `ComponentTool`
    handing on the last message's text); each with its scripted generator."""
    from haystack.tools import AgentTool, ComponentTool  # pyright: ignore[reportMissingImports]

    toolset = MCPToolset(StdioServerInfo(command=python, args=["-m", FINANCIAL]))
    nested_generator = ScriptedGenerator([("financial_statements", {})])
    analyst = Agent(
        chat_generator=nested_generator,
        tools=toolset,
        hooks=direct_answers({"example": toolset}),
        max_agent_steps=nested_steps,
    )
    if component_tool:
        last_text = {"source": "last_message", "handler": lambda message: message.text}
        tool = ComponentTool(
            component=analyst, name="analyst", description="Shows the accounts.", outputs_to_string=last_text
        )
    else:
        tool = AgentTool(
            agent=analyst, name="analyst", description="Shows the accounts.", outputs_to_string=outputs_to_string
        )
    generator = ScriptedGenerator(caller_script)
    hooks = direct_answers({})
    if caller_hooks is not None:
        hooks = caller_hooks(hooks)
    caller = Agent(chat_generator=generator, tools=[tool, *other_tools], hooks=hooks)
    try:
        output = caller.run(messages=[ChatMessage.from_user("Go.")])
    finally:
        toolset.close()
    return output, generator, nested_generator


@pytest.mark.parametrize("component_tool", [False, True], ids=["AgentTool", "ComponentTool"])
def test_an_agent_run_as_a_tool_ends_the_callers_run_with_its_view(example_python: str, component_tool: bool) -> None:
    output, generator, nested = _under_a_caller(example_python, ANALYST, component_tool=component_tool)
    final = output["last_message"].text
    assert generator.calls == 1 and nested.calls == 1 and output["exit_reason"] == "analyst"
    assert final is not None
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_two_calls_of_the_agent_in_one_step_end_the_callers_run_with_both_views(example_python: str) -> None:
    output, generator, _ = _under_a_caller(example_python, ANALYST * 2)
    final = output["last_message"].text or ""
    assert generator.calls == 1 and output["exit_reason"] == "analyst"
    assert final.count('Verbatim result from tool "financial_statements" of server "example".') == 2


def test_an_agent_whose_max_agent_steps_ends_it_after_its_verbatim_step_answers_the_caller_too(
    example_python: str,
) -> None:
    # The nested run decides at `after_run`: its exit reason is the tool's, so `AgentTool` appends no notice that the
    # result may be incomplete, and the caller's run ends on the view.
    output, generator, nested = _under_a_caller(example_python, ANALYST, nested_steps=1)
    assert generator.calls == 1 and nested.calls == 1 and output["exit_reason"] == "analyst"
    assert (output["last_message"].text or "").startswith('Verbatim result from tool "financial_statements"')


def test_a_step_with_the_agent_and_a_verbatim_tool_of_the_callers_own_ends_with_both_views(example_python: str) -> None:
    own = MCPToolset(StdioServerInfo(command=example_python, args=["-m", FINANCIAL]))
    try:
        output, generator, _ = _under_a_caller(
            example_python,
            [*ANALYST, ("financial_statements", {})],
            other_tools=[own],
            caller_hooks=lambda hooks: direct_answers({"own": own}),
        )
    finally:
        own.close()
    final = output["last_message"].text or ""
    assert generator.calls == 1
    nested_at = final.index('Verbatim result from tool "financial_statements" of server "example".')
    own_at = final.index('Verbatim result from tool "financial_statements" of server "own".')
    assert nested_at < own_at


def test_a_step_with_the_agent_and_another_tool_goes_to_the_model(example_python: str) -> None:
    from haystack.tools import create_tool_from_function  # pyright: ignore[reportMissingImports]

    def weather(city: str) -> str:
        """The weather in a city."""
        return f"Sunny in {city}."

    other = create_tool_from_function(weather)
    for script in ([*ANALYST, ("weather", {"city": "Oslo"})], [("weather", {"city": "Oslo"}), *ANALYST]):
        output, generator, nested = _under_a_caller(example_python, script, other_tools=[other])
        assert output["last_message"].text == SUMMARY and generator.calls == 2 and nested.calls == 1, script
        read = [str(message.tool_call_result.result) for message in output["messages"] if message.tool_call_result]
        assert "Sunny in Oslo." in read
        assert any(text.startswith('Verbatim result from tool "financial_statements"') for text in read)


def test_a_changed_view_or_the_same_text_from_another_tool_goes_to_the_model(example_python: str) -> None:
    # The caller recognizes the object the nested run recorded, never the text: a handler or an application's
    # hook that changes the view, or a tool returning a copy of its text, leaves the answer to the model.
    upper = {"source": "last_message", "handler": lambda message: message.text.upper()}
    output, generator, _ = _under_a_caller(example_python, ANALYST, outputs_to_string=upper)
    assert output["last_message"].text == SUMMARY and generator.calls == 2

    def mark(state: Any) -> None:
        messages = state.data["messages"]
        result = messages[-1].tool_call_result
        messages[-1] = ChatMessage.from_tool(result.result + "\n(checked)", origin=result.origin)

    for place in ("before", "after"):

        def with_mark(hooks: dict[str, list[Any]], place: str = place) -> dict[str, list[Any]]:
            own = AppHook(mark)
            hooks["after_tool"] = [own, *hooks["after_tool"]] if place == "before" else [*hooks["after_tool"], own]
            return hooks

        output, generator, _ = _under_a_caller(example_python, ANALYST, caller_hooks=with_mark)
        assert output["last_message"].text == SUMMARY and generator.calls == 2, place

    view = _under_a_caller(example_python, ANALYST)[0]["last_message"].text
    assert view is not None
    from haystack.tools import create_tool_from_function  # pyright: ignore[reportMissingImports]

    def echo() -> str:
        """The accounts, as a copy of the text an earlier run showed."""
        return "".join(list(view))

    copied = create_tool_from_function(echo)
    output, generator, _ = _under_a_caller(example_python, [("echo", {})], other_tools=[copied])
    assert output["last_message"].text == SUMMARY and generator.calls == 2


def test_two_caller_runs_at_once_each_end_with_their_own_view(example_python: str) -> None:
    import asyncio

    from haystack.tools import AgentTool  # pyright: ignore[reportMissingImports]

    async def both() -> tuple[list[dict[str, Any]], ScriptedGenerator]:
        toolset = MCPToolset(StdioServerInfo(command=example_python, args=["-m", FINANCIAL]))
        analyst = Agent(
            chat_generator=ScriptedGenerator([("financial_statements", {})]),
            tools=toolset,
            hooks=direct_answers({"example": toolset}),
        )
        generator = ScriptedGenerator(ANALYST)
        tool = AgentTool(agent=analyst, name="analyst", description="Shows the accounts.")
        caller = Agent(chat_generator=generator, tools=[tool], hooks=direct_answers({}))
        caller.warm_up()
        try:
            outputs = await asyncio.gather(*(caller.run_async(messages=[ChatMessage.from_user("Go.")]) for _ in "ab"))
        finally:
            toolset.close()
        return list(outputs), generator

    outputs, generator = asyncio.run(both())
    assert generator.calls == 2  # once per run
    for output in outputs:
        assert output["exit_reason"] == "analyst"
        assert (output["last_message"].text or "").startswith('Verbatim result from tool "financial_statements"')
