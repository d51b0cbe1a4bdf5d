"""The Strands Agents adapter, in the environment of `strands-agents`.

Each test runs Strands' own agent loop (`Agent.invoke_async`) with a scripted `Model` (no provider, no network) and
a `DirectAnswerMCPClient` (Strands' `MCPClient`) against a server over stdio, and reads the text of the
`AgentResult` (``str(result)``), where Strands applications read the answer.
"""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client
from strands import Agent  # pyright: ignore[reportMissingImports]
from strands.models import Model  # pyright: ignore[reportMissingImports]
from strands.tools.mcp import MCPClient  # pyright: ignore[reportMissingImports]

from mcp_rendering import audit
from mcp_rendering.integrations.answer import UNSTATED_COMPLETENESS
from mcp_rendering.integrations.strands import DirectAnswerMCPClient, DirectAnswers
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, page_examples, reference_result, run_example
from tests.support.directive_server import DIRECTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
HOSTILE = "tests.support.hostile_server"
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."


class ScriptedModel(Model):  # pyright: ignore[reportUntypedBaseClass]
    """Calls each of `script` (name, arguments) in one turn; once it has tool results, writes `SUMMARY`."""

    def __init__(self, script: Sequence[tuple[str, dict[str, Any]]]) -> None:
        self.script = list(script)
        self.calls = 0
        self.outputs: list[str] = []
        """The text of each tool result of the conversation, once the agent has run."""

    def update_config(self, **model_config: Any) -> None:
        del model_config

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream(self, messages: list[Any], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.calls += 1
        answered = any("toolResult" in block for message in messages for block in message["content"])
        yield {"messageStart": {"role": "assistant"}}
        if answered:
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": SUMMARY}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        for index, (name, arguments) in enumerate(self.script, 1):
            yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": f"call-{index}", "name": name}}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(arguments)}}}}
            yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def _run(python: str, module: str, script: Sequence[tuple[str, dict[str, Any]]], **options: Any) -> tuple[str, Any]:
    params = StdioServerParameters(command=python, args=["-m", module], cwd=str(ROOT))
    model = ScriptedModel(script)
    client = DirectAnswerMCPClient(lambda: stdio_client(params), startup_timeout=60)
    agent = Agent(
        model=model, tools=[client], hooks=[DirectAnswers({"example": client}, **options)], callback_handler=None
    )
    try:
        result = asyncio.run(agent.invoke_async("Go."))
    finally:
        agent.cleanup()  # the agent started the client, as a tool provider: it stops it
    model.outputs = [
        "".join(part.get("text", "") for part in block["toolResult"]["content"])
        for message in agent.messages
        for block in message["content"]
        if "toolResult" in block
    ]
    return str(result), (model, result)


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    final, (model, result) = _run(example_python, FINANCIAL, [("financial_statements", {})])
    assert model.calls == 1 and result.stop_reason == "end_turn"  # the model never read the result
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    final, _ = _run(example_python, FINANCIAL, [("financial_statements", {})], markdown=True)
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_other_tools_go_to_the_model(example_python: str) -> None:
    final, (model, _) = _run(example_python, FINANCIAL, [("key_figures", {})])
    assert final.strip() == SUMMARY and model.calls == 2


def test_an_error_marked_verbatim_goes_to_the_model(example_python: str) -> None:
    for module, tool, arguments in ((SCREENING, "screening_report", {"batch": "nope"}), (HOSTILE, "broken", {})):
        final, (model, _) = _run(example_python, module, [(tool, arguments)])
        assert final.strip() == SUMMARY and model.calls == 2, tool


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    final, (model, _) = _run(example_python, HOSTILE, [("notes", {})], allow={"example": ["ledger"]})
    assert final.strip() == SUMMARY and model.calls == 2


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    final, _ = _run(example_python, SCREENING, [("screening_report", {})])
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_turn_with_a_verbatim_tool_and_another_goes_to_the_model_in_either_order(example_python: str) -> None:
    for first, second in (("financial_statements", "key_figures"), ("key_figures", "financial_statements")):
        final, (model, _) = _run(example_python, FINANCIAL, [(first, {}), (second, {})])
        assert final.strip() == SUMMARY and model.calls == 2, first
        # The model read the verbatim result as the host's view, which the application finds in the conversation.
        [view] = [output for output in model.outputs if output.startswith("Verbatim result from tool")]
        assert view.startswith('Verbatim result from tool "financial_statements" of server "example".'), first


def test_two_verbatim_calls_answer_with_both_each_closed_by_the_host(example_python: str) -> None:
    final, (model, _) = _run(example_python, FINANCIAL, [("financial_statements", {}), ("financial_statements", {})])
    assert model.calls == 1
    assert final.startswith("2 results follow, in the order called")
    assert final.count('Verbatim result from tool "financial_statements" of server "example".') == 2


def test_the_tool_hint_alone_takes_the_route(example_python: str) -> None:
    final, _ = _run(example_python, HOSTILE, [("bare", {})])  # no directive in the result
    assert final.split("\n\n")[:2] == ['Verbatim result from tool "bare" of server "example".', UNSTATED_COMPLETENESS]


MARKED = str(Path(__file__).with_name("marked_server.py"))
"""A server marking every tool verbatim."""


def _two_servers(python: str, allow: Any = None) -> tuple[str, ScriptedModel]:
    """One agent with two MCP servers, the example server as "bank" and the one marking every tool as "ledger",
    whose `entry` the model calls."""
    model = ScriptedModel([("entry", {"account": "A-1"})])
    bank_params = StdioServerParameters(command=python, args=["-m", FINANCIAL], cwd=str(ROOT))
    ledger_params = StdioServerParameters(command=python, args=[MARKED], cwd=str(ROOT))
    bank = DirectAnswerMCPClient(lambda: stdio_client(bank_params), startup_timeout=60)
    ledger = DirectAnswerMCPClient(lambda: stdio_client(ledger_params), startup_timeout=60)
    hooks = [DirectAnswers({"bank": bank, "ledger": ledger}, allow=allow)]
    agent = Agent(model=model, tools=[bank, ledger], hooks=hooks, callback_handler=None)
    try:
        result = asyncio.run(agent.invoke_async("Go."))
    finally:
        agent.cleanup()
    return str(result), model


def test_a_second_servers_result_is_captioned_with_its_own_name(example_python: str) -> None:
    final, model = _two_servers(example_python)
    assert model.calls == 1
    assert final.startswith('Verbatim result from tool "entry" of server "ledger".')
    assert '"bank"' not in final


def test_a_tool_name_allowed_on_one_server_allows_nothing_of_another(example_python: str) -> None:
    final, model = _two_servers(example_python, allow={"bank": ["entry"]})
    assert final.strip() == SUMMARY and model.calls == 2


def test_the_provider_takes_the_servers_by_name_and_no_name_for_them_all() -> None:
    with pytest.raises(TypeError):
        DirectAnswers([])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        DirectAnswers({"": object()})
    with pytest.raises(TypeError):
        DirectAnswers({}, allow=["entry"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        DirectAnswers({}, server="bank")  # pyright: ignore[reportCallIssue]


def test_the_provider_refuses_a_client_that_does_not_record_the_raw_blocks() -> None:
    # Strands' own `MCPClient` keeps no raw block: the route could never be taken, so the provider says what to use.
    client = MCPClient(lambda: stdio_client(StdioServerParameters(command="unused")))
    with pytest.raises(TypeError, match=r"'bank' is a MCPClient: .*DirectAnswerMCPClient"):
        DirectAnswers({"bank": client})
    DirectAnswers({"bank": DirectAnswerMCPClient(lambda: stdio_client(StdioServerParameters(command="unused")))})


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("strands.md")
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
    assert final.strip() == f"{CAPTION}\n\n{DIRECTED_TEXT}"
    final, _ = _run(example_python, DIRECTIVE, [("hinted", {})])
    assert final.strip() == SUMMARY


MARKED = str(Path(__file__).with_name("marked_server.py"))
ENTRY = [("entry", {"account": "A-1"})]
REFUSAL = "Refused by the approval policy."


class AppHooks:
    """The application's own hook provider, registered after the adapter's: `before`, `after` and `after_tools` are
    its `BeforeToolCallEvent`, `AfterToolCallEvent` and `AfterToolsEvent` callbacks."""

    def __init__(self, before: Any = None, after: Any = None, after_tools: Any = None) -> None:
        self.before, self.after, self.after_tools = before, after, after_tools

    def register_hooks(self, registry: Any, **kwargs: Any) -> None:
        from strands.hooks import (  # pyright: ignore[reportMissingImports]
            AfterToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
            AfterToolsEvent,  # pyright: ignore[reportUnknownVariableType]
            BeforeToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
        )

        if self.before is not None:
            registry.add_callback(BeforeToolCallEvent, self.before)
        if self.after is not None:
            registry.add_callback(AfterToolCallEvent, self.after)
        if self.after_tools is not None:
            registry.add_callback(AfterToolsEvent, self.after_tools)


def _run_hooked(
    python: str, hooks: AppHooks, *, app_first: bool = False
) -> tuple[str, ScriptedModel, list[dict[str, Any]]]:
    """`_run` on the server marking every tool, with no allow-list, and the application's hooks, given after the
    provider (as the page asks) or before it; with the calls of `entry` the server received."""
    params = StdioServerParameters(command=python, args=[MARKED], cwd=str(ROOT))
    model = ScriptedModel(ENTRY)
    client = DirectAnswerMCPClient(lambda: stdio_client(params), startup_timeout=60)
    provider = DirectAnswers({"example": client})
    agent = Agent(
        model=model, tools=[client], hooks=[hooks, provider] if app_first else [provider, hooks], callback_handler=None
    )
    try:
        result = asyncio.run(agent.invoke_async("Go."))
        received = client.call_tool_sync("probe", "received", {})
    finally:
        agent.cleanup()
    model.outputs = [
        "".join(part.get("text", "") for part in block["toolResult"]["content"])
        for message in agent.messages
        for block in message["content"]
        if "toolResult" in block
    ]
    return str(result), model, json.loads(received["content"][0]["text"])


def test_the_applications_hooks_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, str, Any]] = []

    def log_before(event: Any) -> None:
        seen.append(("before", event.tool_use["name"], dict(event.tool_use["input"])))

    def log_after(event: Any) -> None:
        seen.append(("after", event.tool_use["name"], dict(event.tool_use["input"])))

    for app_first in (False, True):
        seen.clear()
        final, model, received = _run_hooked(example_python, AppHooks(log_before, log_after), app_first=app_first)
        assert seen == [("before", "entry", {"account": "A-1"}), ("after", "entry", {"account": "A-1"})]
        assert received == [{"account": "A-1"}]
        # The route is still taken, from the result of the call Strands made, whatever the hooks' order.
        assert model.calls == 1 and final.startswith('Verbatim result from tool "entry" of server "example".')
        assert "Entry of A-1" in final, app_first


def test_a_policy_hook_sees_strands_own_mcp_tool_and_its_refusal_stops_the_route(example_python: str) -> None:
    # A policy written against Strands' public types recognises MCP calls by `MCPAgentTool`: the adapter leaves
    # Strands' own tool in place, so the policy applies, before or after the provider.
    from strands.tools.mcp import MCPAgentTool  # pyright: ignore[reportMissingImports]

    seen: list[str] = []

    def needs_approval(event: Any) -> None:
        seen.append(type(event.selected_tool).__name__)
        if isinstance(event.selected_tool, MCPAgentTool):
            event.cancel_tool = REFUSAL

    for app_first in (False, True):
        seen.clear()
        final, model, received = _run_hooked(example_python, AppHooks(before=needs_approval), app_first=app_first)
        assert seen == ["MCPAgentTool"] and received == [], app_first
        assert final.strip() == SUMMARY and model.calls == 2 and model.outputs == [REFUSAL], app_first


def test_a_hook_that_redacts_the_result_stops_the_route_before_or_after_the_provider(example_python: str) -> None:
    # Strands runs `AfterToolCallEvent` callbacks in reverse order: given first, the application's runs after the
    # provider's, on the host's view; the provider decides only once every callback of the turn has run.
    def redact(event: Any) -> None:
        event.result = {**event.result, "content": [{"text": "Withheld by the policy."}]}

    for app_first in (False, True):
        final, model, received = _run_hooked(example_python, AppHooks(after=redact), app_first=app_first)
        assert received == [{"account": "A-1"}], app_first
        assert final.strip() == SUMMARY and model.calls == 2, app_first
        assert model.outputs == ["Withheld by the policy."], app_first


def test_the_applications_own_end_of_the_turn_or_cancel_wins_over_the_route(example_python: str) -> None:
    # The route is Strands' `AfterToolsEvent.end_turn`: a turn the application's callback ends itself keeps its
    # text, in either order with the provider; a run the application cancels (`agent.cancel()`) ends as Strands
    # ends a cancelled run, on the application's message.
    def end_turn(event: Any) -> None:
        event.end_turn = "Ended by the application."

    def cancel(event: Any) -> None:
        event.agent.cancel(message="Stopped by the user.")

    for app_first in (False, True):
        final, model, _ = _run_hooked(example_python, AppHooks(after_tools=end_turn), app_first=app_first)
        assert final.strip() == "Ended by the application." and model.calls == 1, app_first
        final, model, _ = _run_hooked(example_python, AppHooks(after=cancel), app_first=app_first)
        assert final.strip() == "Stopped by the user." and model.calls == 1, app_first


def test_a_hook_that_cancels_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    def refuse(event: Any) -> None:
        event.cancel_tool = REFUSAL

    final, model, received = _run_hooked(example_python, AppHooks(before=refuse))
    assert received == []  # the server never received the call
    # The model read the refusal and answered, as Strands does without the adapter.
    assert final.strip() == SUMMARY and model.calls == 2 and model.outputs == [REFUSAL]


def test_a_hook_that_rewrites_the_call_decides_what_the_server_receives_and_the_view_shows(
    example_python: str,
) -> None:
    def rewrite(event: Any) -> None:
        event.tool_use = {**event.tool_use, "input": {**event.tool_use["input"], "account": "B-2"}}

    final, model, received = _run_hooked(example_python, AppHooks(before=rewrite))
    assert received == [{"account": "B-2"}]
    assert model.calls == 1 and "Entry of B-2" in final and "A-1" not in final


def test_a_hook_that_supplies_its_own_result_means_no_route(example_python: str) -> None:
    from strands import tool  # pyright: ignore[reportMissingImports]

    @tool(name="entry")
    def canned(account: str) -> str:
        """A canned entry."""
        return f"Canned entry of {account}"

    def replace_tool(event: Any) -> None:
        event.selected_tool = canned

    def redact(event: Any) -> None:
        event.result = {**event.result, "content": [{"text": "Redacted."}]}

    for hooks, read, calls in (
        (AppHooks(before=replace_tool), "Canned entry of A-1", []),
        (AppHooks(after=redact), "Redacted.", [{"account": "A-1"}]),
    ):
        final, model, received = _run_hooked(example_python, hooks)
        assert received == calls
        assert final.strip() == SUMMARY and model.calls == 2 and model.outputs == [read], read


def test_a_hook_that_gives_the_call_another_verbatim_tool_answers_with_that_tools_view(example_python: str) -> None:
    def to_received(event: Any) -> None:
        event.selected_tool = event.agent.tool_registry.registry["received"]

    final, model, received = _run_hooked(example_python, AppHooks(before=to_received))
    assert received == []  # `entry` never ran
    assert model.calls == 1
    assert 'Verbatim result from tool "received"' in final and '"entry"' not in final


MIXED = str(Path(__file__).with_name("mixed_blocks_server.py"))


def _run_mixed(python: str, client_class: Any = DirectAnswerMCPClient) -> tuple[str, ScriptedModel, Any]:
    """`_run` on the server whose tool's result holds blocks Strands does not map, with a client of
    `client_class`; with the tool as listed."""
    params = StdioServerParameters(command=python, args=[MIXED], cwd=str(ROOT))
    model = ScriptedModel([("mixed", {})])
    client = client_class(lambda: stdio_client(params), startup_timeout=60)
    agent = Agent(model=model, tools=[client], hooks=[DirectAnswers({"example": client})], callback_handler=None)
    try:
        result = asyncio.run(agent.invoke_async("Go."))
        listed = client.list_tools_sync()[0].mcp_tool
    finally:
        agent.cleanup()
    model.outputs = [
        "".join(part.get("text", "") for part in block["toolResult"]["content"])
        for message in agent.messages
        for block in message["content"]
        if "toolResult" in block
    ]
    return str(result), model, listed


def test_the_answer_is_the_view_of_the_raw_result_with_every_block(example_python: str) -> None:
    # Strands' own mapping drops the link and the audio, and makes the embedded resource a plain text: the answer
    # is built from the blocks as the server sent them. This also pins that Strands maps a result's blocks within
    # the client's `call_tool_async`, in the task that called the tool, where the adapter's recorder reads them
    # (otherwise the route is not taken).
    from mcp_rendering.integrations.answer import final_answer
    from tests.integrations.mixed_blocks_server import BLOCKS

    final, model, tool = _run_mixed(example_python)
    expected = final_answer(tool, {"content": BLOCKS}, server="example").text
    assert model.calls == 1 and final.strip() == expected.strip()
    assert "ledger.csv" in final and "audio/wav" in final and "file:///exports/memo.txt" in final


def test_a_client_mapping_that_changes_a_block_means_no_route(example_python: str) -> None:
    from mcp.types import TextContent  # pyright: ignore[reportMissingImports]

    class Redacting(DirectAnswerMCPClient):
        # Maps "Row two" itself, without handing it on: fewer blocks recorded than mapped.
        def map_mcp_content_to_tool_result_content(self, content: Any) -> Any:
            if isinstance(content, TextContent) and content.text == "Row two":
                return {"text": "Redacted."}
            return super().map_mcp_content_to_tool_result_content(content)

    class RedactingAfter(DirectAnswerMCPClient):
        # Hands every block on, then changes what came back: as many blocks recorded as mapped, one changed.
        def map_mcp_content_to_tool_result_content(self, content: Any) -> Any:
            mapped = super().map_mcp_content_to_tool_result_content(content)
            return {"text": "Redacted."} if mapped == {"text": "Row two"} else mapped

    class Redactor(MCPClient):  # pyright: ignore[reportUntypedBaseClass]
        def map_mcp_content_to_tool_result_content(self, content: Any) -> Any:
            mapped = super().map_mcp_content_to_tool_result_content(content)
            return {"text": "Redacted."} if mapped == {"text": "Row two"} else mapped

    class RedactingBelow(DirectAnswerMCPClient, Redactor):  # pyright: ignore[reportUntypedBaseClass]
        # The application's override comes after the adapter's in the method order: it changes what the adapter's
        # method returns.
        pass

    class Logging(DirectAnswerMCPClient):
        seen: ClassVar[list[str]] = []

        def map_mcp_content_to_tool_result_content(self, content: Any) -> Any:
            self.seen.append(content.type)
            return super().map_mcp_content_to_tool_result_content(content)

    for redacting in (Redacting, RedactingAfter, RedactingBelow):
        final, model, _ = _run_mixed(example_python, redacting)
        assert final.strip() == SUMMARY and model.calls == 2, redacting.__name__
        assert model.outputs == ["Row oneMemoRedacted."], redacting.__name__
    final, model, _ = _run_mixed(example_python, Logging)
    assert model.calls == 1 and final.startswith('Verbatim result from tool "mixed"') and "Row two" in final
    assert Logging.seen == ["text", "resource_link", "audio", "resource", "text"]


TWO_ENTRIES = [("entry", {"account": "A-1"}), ("entry", {"account": "B-2"})]


def _agent_on_marked(
    python: str, hooks: AppHooks, *, app_first: bool = False
) -> tuple[Agent, DirectAnswers, ScriptedModel]:
    params = StdioServerParameters(command=python, args=[MARKED], cwd=str(ROOT))
    model = ScriptedModel(TWO_ENTRIES)
    client = DirectAnswerMCPClient(lambda: stdio_client(params), startup_timeout=60)
    provider = DirectAnswers({"example": client})
    order = [hooks, provider] if app_first else [provider, hooks]
    agent = Agent(model=model, tools=[client], hooks=order, callback_handler=None)
    return agent, provider, model


def test_a_hook_that_redacts_one_call_of_a_turn_sends_the_turn_to_the_model_in_either_order(
    example_python: str,
) -> None:
    def redact_second(event: Any) -> None:
        if event.tool_use["input"]["account"] == "B-2":
            event.result = {**event.result, "content": [{"text": "Withheld by the policy."}]}

    for app_first in (False, True):
        agent, _, model = _agent_on_marked(example_python, AppHooks(after=redact_second), app_first=app_first)
        try:
            result = asyncio.run(agent.invoke_async("Go."))
        finally:
            agent.cleanup()
        assert str(result).strip() == SUMMARY and model.calls == 2, app_first
        outputs = [
            "".join(part.get("text", "") for part in block["toolResult"]["content"])
            for message in agent.messages
            for block in message["content"]
            if "toolResult" in block
        ]
        # The model read the other call's result as the host's view, and the redaction.
        assert "Withheld by the policy." in outputs, app_first
        assert any(output.startswith('Verbatim result from tool "entry"') for output in outputs), app_first


def test_a_run_that_raises_in_a_call_leaves_nothing_kept(example_python: str) -> None:
    # The application's after-call hook (which Strands runs before the provider's) raises on the second call of the
    # turn: the provider's callback never sees that call, and the run raises; the provider keeps nothing of it.
    from strands.types.exceptions import EventLoopException  # pyright: ignore[reportMissingImports]

    def fail_second(event: Any) -> None:
        if event.tool_use["input"]["account"] == "B-2":
            raise RuntimeError("the audit log is down")

    agent, provider, _ = _agent_on_marked(example_python, AppHooks(after=fail_second))
    try:
        with pytest.raises(EventLoopException, match="audit log"):
            asyncio.run(agent.invoke_async("Go."))
    finally:
        agent.cleanup()
    assert agent not in provider._runs  # pyright: ignore[reportPrivateUsage]


def test_an_interrupted_turn_keeps_its_finished_calls_until_resumed_then_nothing(example_python: str) -> None:
    def approve_second(event: Any) -> None:
        if event.tool_use["input"]["account"] == "B-2" and event.interrupt("approval", reason="B-2?") != "yes":
            event.cancel_tool = REFUSAL

    agent, provider, model = _agent_on_marked(example_python, AppHooks(before=approve_second))
    try:
        stopped = asyncio.run(agent.invoke_async("Go."))
        assert stopped.stop_reason == "interrupt"
        responses = [{"interruptResponse": {"interruptId": each.id, "response": "yes"}} for each in stopped.interrupts]
        result = asyncio.run(agent.invoke_async(responses))
    finally:
        agent.cleanup()
    # The resumed turn answers with both calls' views; the provider keeps nothing of the run.
    assert model.calls == 1 and result.stop_reason == "end_turn"
    assert "Entry of A-1" in str(result) and "Entry of B-2" in str(result)
    assert agent not in provider._runs  # pyright: ignore[reportPrivateUsage]


def test_the_blocks_of_a_call_are_recorded_only_while_it_runs_and_only_when_followed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Whether the call returns, raises or is cancelled, nothing of it is left where the client records blocks; a
    # call the provider does not follow in this task (another id, another client's call) is not recorded.
    from mcp.types import TextContent  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.strands import (
        _FOLLOWED,  # pyright: ignore[reportPrivateUsage]
        _NOT_MADE,  # pyright: ignore[reportPrivateUsage]
        _RAW_BLOCKS,  # pyright: ignore[reportPrivateUsage]
        _Call,  # pyright: ignore[reportPrivateUsage]
    )

    async def strands_call(self: Any, tool_use_id: str, ending: str) -> Any:
        # Strands maps each block of the result in the task that called the tool, then returns its result.
        mapped = self.map_mcp_content_to_tool_result_content(TextContent(type="text", text="block"))
        if ending == "raises":
            raise RuntimeError("the call failed")
        if ending == "cancelled":
            await asyncio.sleep(60)
        return {"toolUseId": tool_use_id, "status": "success", "content": [mapped]}

    monkeypatch.setattr(MCPClient, "call_tool_async", strands_call)
    client, other = (
        DirectAnswerMCPClient(lambda: stdio_client(StdioServerParameters(command="unused"))) for _ in range(2)
    )

    def follow(owner: Any, tool_use_id: str) -> Any:
        call = _Call(owner, tool_use_id)
        _FOLLOWED.set(weakref.ref(call))
        return call

    async def main() -> None:
        call = follow(client, "returns")
        result = await client.call_tool_async("returns", "returns")
        assert call.made is result and [block.text for block in call.raw] == ["block"]
        assert _RAW_BLOCKS.get() is None
        call = follow(client, "followed")
        await client.call_tool_async("not followed", "returns")
        await other.call_tool_async("followed", "returns")
        assert call.made is _NOT_MADE and call.raw == []
        call = follow(client, "raises")
        with pytest.raises(RuntimeError, match="the call failed"):
            await client.call_tool_async("raises", "raises")
        assert _RAW_BLOCKS.get() is None and call.made is _NOT_MADE

        async def cancelled() -> None:
            try:
                await client.call_tool_async("cancelled", "cancelled")
            finally:
                assert _RAW_BLOCKS.get() is None  # in the task that was cancelled

        call = follow(client, "cancelled")
        task = asyncio.ensure_future(cancelled())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert _RAW_BLOCKS.get() is None and call.made is _NOT_MADE

    asyncio.run(main())


def test_a_run_leaves_no_record_of_its_calls(example_python: str) -> None:
    # The provider hands each MCP call it follows to the task that runs the call's tool, held weakly; whatever the
    # call's outcome (here one returns, one is refused), no record of it outlives the run.
    from mcp_rendering.integrations.strands import _FOLLOWED  # pyright: ignore[reportPrivateUsage]

    held: list[Any] = []

    def note_and_refuse_second(event: Any) -> None:
        held.append(_FOLLOWED.get())  # the application's callback runs after the provider's
        if event.tool_use["input"]["account"] == "B-2":
            event.cancel_tool = REFUSAL

    agent, provider, model = _agent_on_marked(example_python, AppHooks(before=note_and_refuse_second))
    try:
        result = asyncio.run(agent.invoke_async("Go."))
    finally:
        agent.cleanup()
    assert str(result).strip() == SUMMARY and model.calls == 2
    gc.collect()
    assert len(held) == 2 and all(ref is not None and ref() is None for ref in held)
    assert agent not in provider._runs  # pyright: ignore[reportPrivateUsage]


def test_two_agents_on_one_client_with_the_same_tool_use_ids_each_keep_their_route(example_python: str) -> None:
    # Two runs at once on one client and one provider, whose models both number their calls from `call-1`: each
    # answers with its own call's view, never the other's.
    params = StdioServerParameters(command=example_python, args=[MARKED], cwd=str(ROOT))
    client = DirectAnswerMCPClient(lambda: stdio_client(params), startup_timeout=60)
    provider = DirectAnswers({"example": client})
    accounts = ("A-1", "B-2")
    models = [ScriptedModel([("entry", {"account": account})]) for account in accounts]
    client.start()
    try:
        tools = client.list_tools_sync()
        agents = [Agent(model=model, tools=tools, hooks=[provider], callback_handler=None) for model in models]

        async def both() -> list[Any]:
            return list(await asyncio.gather(*(agent.invoke_async("Go.") for agent in agents)))

        results = asyncio.run(both())
    finally:
        client.stop(None, None, None)
    for account, other, model, result in zip(accounts, reversed(accounts), models, results, strict=True):
        final = str(result)
        assert model.calls == 1 and final.startswith('Verbatim result from tool "entry"'), account
        assert f"Entry of {account}" in final and other not in final, account
    assert not any(agent in provider._runs for agent in agents)  # pyright: ignore[reportPrivateUsage]


def test_a_direct_tool_call_keeps_the_tools_own_result_and_leaves_nothing_kept(example_python: str) -> None:
    # Strands' direct call (`agent.tool.NAME(...)`) is no model turn: the application asked for the tool's result,
    # which it receives (and Strands records in the conversation) as without the provider; nothing of it is kept.
    params = StdioServerParameters(command=example_python, args=["-m", FINANCIAL], cwd=str(ROOT))
    results: list[Any] = []
    for helped in (False, True):
        client = DirectAnswerMCPClient(lambda: stdio_client(params), startup_timeout=60)
        provider = DirectAnswers({"example": client})
        agent = Agent(
            model=ScriptedModel([]), tools=[client], hooks=[provider] if helped else [], callback_handler=None
        )
        try:
            results.append(agent.tool.financial_statements())
        finally:
            agent.cleanup()
        assert agent not in provider._runs  # pyright: ignore[reportPrivateUsage]
        recorded = [
            block["toolResult"] for message in agent.messages for block in message["content"] if "toolResult" in block
        ]
        assert recorded == [results[-1]]
    alone, helped = results
    assert helped["content"] == alone["content"] and len(helped["content"]) >= 1
    assert not "".join(block.get("text", "") for block in helped["content"]).startswith("Verbatim result")
