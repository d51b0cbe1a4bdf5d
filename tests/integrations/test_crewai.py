"""The CrewAI adapter, in the environment of `crewai-tools[mcp]`.

Each test runs CrewAI's own crew (one agent, one task) with a scripted `BaseLLM` that calls tools through native
function calling and then summarizes (no model, no network), with the tools that mcpadapt's `MCPAdapt` loads over
stdio, and reads the final answer the user would receive (`CrewOutput.raw`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import Agent, Crew, Task  # pyright: ignore[reportMissingImports]
from crewai.llms.base_llm import BaseLLM  # pyright: ignore[reportMissingImports]
from crewai_tools import MCPServerAdapter  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters
from mcpadapt.core import MCPAdapt  # pyright: ignore[reportMissingImports]
from pydantic import Field

from mcp_rendering import audit
from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES
from mcp_rendering.integrations.crewai import (  # pyright: ignore[reportPrivateUsage]
    _CREWAI_TOOL_ADAPTER,
    DirectAnswerToolAdapter,
    _other_calls,
)
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, page_examples, reference_result, run_example
from tests.support.directive_server import HINTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
HOSTILE = str(ROOT / "tests" / "integrations" / "hostile_server.py")
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
CAPTION = 'Verbatim result from tool "financial_statements" of server "example".'
REACHED = "which did not run or whose result is not shown here."


class ScriptedLLM(BaseLLM):  # pyright: ignore[reportUntypedBaseClass]
    """Calls each tool of `calls` (name, JSON arguments) in one step; once it read tool results, writes `SUMMARY`."""

    calls: list[tuple[str, str]] = Field(default_factory=list[tuple[str, str]])
    steps: int = 0
    read: list[str] = Field(default_factory=list[str])

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        del tools, args, kwargs
        self.steps += 1
        listed = messages if isinstance(messages, list) else [{"role": "user", "content": messages}]
        read = [str(message.get("content")) for message in listed if message.get("role") == "tool"]
        if read:
            self.read = read
            return SUMMARY
        return [
            {"id": f"call-{index}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for index, (name, arguments) in enumerate(self.calls, 1)
        ]

    def supports_function_calling(self) -> bool:
        return True


def _params(python: str, module: str) -> StdioServerParameters:
    return StdioServerParameters(command=python, args=[module] if module.endswith(".py") else ["-m", module])


def _kickoff(tools: Sequence[Any], llm: ScriptedLLM, guardrail: Any = None) -> str:
    agent = Agent(role="analyst", goal="Answer the question.", backstory="An analyst.", tools=list(tools), llm=llm)
    task = Task(description="Go.", expected_output="The answer.", agent=agent, guardrail=guardrail)
    return str(Crew(agents=[agent], tasks=[task]).kickoff().raw)


def run(
    python: str, module: str, *tools: str, arguments: str = "{}", guarded: bool = True, **options: Any
) -> tuple[str, ScriptedLLM]:
    llm = ScriptedLLM(model="scripted", calls=[(tool, arguments) for tool in tools])
    adapter = DirectAnswerToolAdapter(server="example", **options)
    with MCPAdapt(_params(python, module), adapter) as loaded:
        return _kickoff(loaded, llm, adapter.guardrail if guarded else None), llm


def test_without_the_adapter_the_model_summarizes(example_python: str) -> None:
    llm = ScriptedLLM(model="scripted", calls=[("financial_statements", "{}")])
    with MCPServerAdapter(_params(example_python, FINANCIAL)) as loaded:
        final = _kickoff(loaded, llm)
    assert final == SUMMARY and llm.steps == 2


def test_the_route_answers_with_every_record_and_no_model_step(example_python: str) -> None:
    final, llm = run(example_python, FINANCIAL, "financial_statements")
    assert llm.steps == 1  # the model never read the result
    assert final.startswith(CAPTION + "\n\n")
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_tools_the_server_does_not_mark_and_tools_not_allowed_stay_with_the_model(example_python: str) -> None:
    final, llm = run(example_python, FINANCIAL, "key_figures")
    assert final == SUMMARY and llm.steps == 2 and "Verbatim result" not in llm.read[0]
    final, llm = run(example_python, FINANCIAL, "financial_statements", allow=["key_figures"])
    assert final == SUMMARY and llm.steps == 2


def test_a_partial_result_answers_with_the_notice_and_how_to_get_the_rest(example_python: str) -> None:
    final, _ = run(example_python, SCREENING, "screening_report")
    caption, notice, *_ = final.split("\n\n")
    assert caption == 'Verbatim result from tool "screening_report" of server "example".'
    assert notice.startswith(PARTIAL_MARKER) and "screening_report" in notice


def test_an_error_result_is_a_failure_the_model_reads_and_the_agent_keeps_working(example_python: str) -> None:
    final, llm = run(example_python, HOSTILE, "fails")
    assert final == SUMMARY and llm.steps == 2
    [read] = llm.read
    assert read.startswith('The tool "fails" of server "example" reported an error.')
    assert "Upstream ledger unavailable" in read


def test_a_step_with_another_tool_before_the_verbatim_one_names_it_as_not_run_or_not_shown(example_python: str) -> None:
    # CrewAI runs the step's calls in order and ends on the verbatim result: key_figures ran, and no one reads it.
    final, llm = run(example_python, FINANCIAL, "key_figures", "financial_statements")
    assert llm.steps == 1
    line = f'In the same step, the model also called tool "key_figures", {REACHED}'
    assert final.startswith(f"{line}\n\n{CAPTION}\n\n") and "Revenue grew." not in final
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_a_step_with_another_tool_after_the_verbatim_one_names_it_as_not_run(example_python: str) -> None:
    final, llm = run(example_python, FINANCIAL, "financial_statements", "key_figures")
    assert llm.steps == 1
    line = 'In the same step, the model also called tool "key_figures", which was not run.'
    assert final.startswith(f"{line}\n\n{CAPTION}\n\n")


def test_a_step_with_two_verbatim_calls_answers_with_the_first_and_names_the_second(example_python: str) -> None:
    # CrewAI cannot give the second verbatim result: it never runs a call after a direct result.
    final, llm = run(example_python, HOSTILE, "lookup", "picture")
    assert llm.steps == 1
    line = 'In the same step, the model also called tool "picture", which was not run.'
    assert final.startswith(f'{line}\n\nVerbatim result from tool "lookup" of server "example".\n\n')
    assert "[image: image/png]" not in final


def test_without_the_guardrail_the_answer_is_the_first_direct_result_alone(example_python: str) -> None:
    # The finding the guardrail closes: nothing says the step called another tool.
    final, _ = run(example_python, HOSTILE, "lookup", "picture", guarded=False)
    assert final.startswith('Verbatim result from tool "lookup" of server "example".\n\n')
    assert "picture" not in final


def test_a_server_marking_every_tool_verbatim_never_writes_host_lines(example_python: str) -> None:
    final, _ = run(example_python, HOSTILE, "lookup")
    assert final.startswith('Verbatim result from tool "lookup" of server "example".\n\n')
    assert final.index('of server "trusted-bank"') > final.index('of server "example"')
    assert "host verified these figures" not in final


def test_a_result_with_no_text_answers_with_the_host_lines_alone(example_python: str) -> None:
    final, _ = run(example_python, HOSTILE, "picture")
    assert final == 'Verbatim result from tool "picture" of server "example".\n\n[image: image/png]'


def test_a_huge_result_is_bounded_and_says_so(example_python: str) -> None:
    final, _ = run(example_python, HOSTILE, "huge")
    assert len(final.encode()) < DEFAULT_MAX_BYTES + 4096
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER)
    assert "row 00000:" in final and "row 39999:" not in final


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    final, _ = run(example_python, FINANCIAL, "financial_statements", markdown=True)
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("crewai.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""


def test_a_result_directive_alone_does_not_take_the_route_fixed_at_load(example_python: str) -> None:
    # `result_as_answer` is set from the hint when the tools are loaded: a result's directive alone cannot set it,
    # and CrewAI does not look at the result of a tool that has it, so a summarizable result ends the task too, as
    # the host's view of it.
    final, _ = run(example_python, DIRECTIVE, "directed")
    assert final == SUMMARY
    final, _ = run(example_python, DIRECTIVE, "hinted")
    assert final == HINTED_TEXT


def test_crewai_tools_keeps_its_mcp_tool_adapter_where_the_adapter_reads_it() -> None:
    """No public name exports crewai-tools' tool adapter: a release that moves it, or stops building
    `MCPServerAdapter`'s tools with it, fails here by name."""
    import importlib
    import inspect

    module_name, _, name = _CREWAI_TOOL_ADAPTER.rpartition(".")
    module = importlib.import_module(module_name)
    assert hasattr(module, name), f"crewai-tools no longer defines {_CREWAI_TOOL_ADAPTER}: the CrewAI adapter reads it"
    assert f"{name}()" in inspect.getsource(MCPServerAdapter.__init__), (
        f"MCPServerAdapter no longer builds its tools with {name}: the CrewAI adapter's unmarked tools would differ"
    )


def test_a_moved_tool_adapter_fails_when_the_adapter_is_made_saying_where_it_looked(monkeypatch: Any) -> None:
    import importlib

    import pytest

    module_name, _, name = _CREWAI_TOOL_ADAPTER.rpartition(".")
    monkeypatch.delattr(importlib.import_module(module_name), name)
    with pytest.raises(ImportError, match=f"not at {_CREWAI_TOOL_ADAPTER.replace('.', '[.]')}"):
        DirectAnswerToolAdapter()


MARKED = str(ROOT / "tests" / "integrations" / "marked_server.py")
REFUSAL = "Refused by the approval policy."


def _run_hooked(python: str, *, before: Any = None, after: Any = None) -> tuple[str, ScriptedLLM, list[dict[str, Any]]]:
    """`run` on the server marking every tool, with no allow-list, calling `entry`, with the application's own
    CrewAI tool hooks (registered for the run alone); with the calls of `entry` the server received."""
    from crewai.hooks import (  # pyright: ignore[reportMissingImports]
        register_after_tool_call_hook,
        register_before_tool_call_hook,
        unregister_after_tool_call_hook,
        unregister_before_tool_call_hook,
    )

    llm = ScriptedLLM(model="scripted", calls=[("entry", json.dumps({"account": "A-1"}))])
    adapter = DirectAnswerToolAdapter(server="example")
    if before is not None:
        register_before_tool_call_hook(before)
    if after is not None:
        register_after_tool_call_hook(after)
    try:
        with MCPAdapt(_params(python, MARKED), adapter) as loaded:
            final = _kickoff(loaded, llm, adapter.guardrail)
            [probe] = [tool for tool in loaded if tool.name == "received"]
            received = str(probe.run())
    finally:
        if before is not None:
            unregister_before_tool_call_hook(before)
        if after is not None:
            unregister_after_tool_call_hook(after)
    # The probe is a marked tool too: its answer is the host's view, the server's JSON after the caption.
    return final, llm, json.loads(received.split("\n\n")[-1])


def test_the_applications_tool_hooks_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []

    def log_before(context: Any) -> None:
        seen.append(("before", context.tool_name, dict(context.tool_input)))

    def log_after(context: Any) -> None:
        seen.append(("after", context.tool_name, dict(context.tool_input)))

    final, llm, received = _run_hooked(example_python, before=log_before, after=log_after)
    assert seen == [("before", "entry", {"account": "A-1"}), ("after", "entry", {"account": "A-1"})]
    assert received == [{"account": "A-1"}]
    # The route is still taken, from the result of the call CrewAI made.
    assert llm.steps == 1 and final.startswith('Verbatim result from tool "entry" of server "example".')
    assert "Entry of A-1" in final


def test_a_hook_that_blocks_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    def refuse(context: Any) -> bool:
        return False

    final, llm, received = _run_hooked(example_python, before=refuse)
    assert received == []  # the server never received the call
    # CrewAI's route is fixed per tool: the task ends on CrewAI's own blocked-call message, never on a host's view.
    assert final == "Tool execution blocked by hook. Tool: entry" and llm.steps == 1


def test_a_hook_that_rewrites_the_input_decides_what_the_server_receives_and_the_view_shows(
    example_python: str,
) -> None:
    def rewrite(context: Any) -> None:
        context.tool_input["account"] = "B-2"

    final, llm, received = _run_hooked(example_python, before=rewrite)
    assert received == [{"account": "B-2"}]
    assert llm.steps == 1 and "Entry of B-2" in final and "A-1" not in final


def test_a_hook_that_replaces_the_result_is_never_shown_as_the_hosts_view(example_python: str) -> None:
    def redact(context: Any) -> str:
        return "Redacted."

    final, _, received = _run_hooked(example_python, after=redact)
    assert received == [{"account": "A-1"}]
    # CrewAI's route is fixed per tool: the task ends on the application's own result, never on a host's view.
    assert final == "Redacted."


def test_a_step_with_a_refused_call_beside_a_verbatim_one_names_each_other_call_on_its_own_line(
    example_python: str,
) -> None:
    """The model calls the application's own `note` (it runs) and `transfer` (the application's hook refuses it), then
    the verbatim `entry`, then `transfer` again. CrewAI ends the task on `entry` and no model reads the other calls:
    the answer names each on its own line, the two CrewAI reached alike (a refusal is never told from a result), the
    last as not run."""
    from crewai.hooks import (  # pyright: ignore[reportMissingImports]
        register_before_tool_call_hook,
        unregister_before_tool_call_hook,
    )
    from crewai.tools import tool  # pyright: ignore[reportMissingImports]

    ran: list[str] = []

    @tool("note")
    def note(text: str) -> str:
        """Keep a note."""
        ran.append("note")
        return f"Noted: {text}"

    @tool("transfer")
    def transfer(amount: int) -> str:
        """Transfer money."""
        ran.append("transfer")
        return f"Transferred {amount}."

    def policy(context: Any) -> bool | None:
        return False if context.tool_name == "transfer" else None

    calls = [
        ("note", json.dumps({"text": "checked"})),
        ("transfer", json.dumps({"amount": 1000000})),
        ("entry", json.dumps({"account": "A-1"})),
        ("transfer", json.dumps({"amount": 5})),
    ]
    llm = ScriptedLLM(model="scripted", calls=calls)
    adapter = DirectAnswerToolAdapter(server="example")
    register_before_tool_call_hook(policy)
    try:
        with MCPAdapt(_params(example_python, MARKED), adapter) as loaded:
            final = _kickoff([note, transfer, *loaded], llm, adapter.guardrail)
    finally:
        unregister_before_tool_call_hook(policy)
    assert ran == ["note"] and llm.steps == 1  # the transfer never ran; no model read anything
    opening = "In the same step, the model also called tool"
    lines = [
        f'{opening} "note", {REACHED}',
        f'{opening} "transfer", {REACHED}',
        f'{opening} "transfer", which was not run.',
    ]
    assert final.startswith("\n".join(lines) + '\n\nVerbatim result from tool "entry" of server "example".\n\n')
    assert final.endswith("Entry of A-1")


def test_a_tool_that_returns_crewais_blocked_call_text_is_never_called_refused(example_python: str) -> None:
    """CrewAI records a hook-blocked call only as a tool message of fixed text, which any tool can return: a tool
    that ran and returned that text beside a verbatim call is named as any call CrewAI reached, never as refused."""
    from crewai.tools import tool  # pyright: ignore[reportMissingImports]

    ran: list[str] = []

    @tool("lookup")
    def lookup() -> str:
        """Look up."""
        ran.append("lookup")
        return "Tool execution blocked by hook. Tool: lookup"

    llm = ScriptedLLM(model="scripted", calls=[("lookup", "{}"), ("entry", json.dumps({"account": "A-1"}))])
    adapter = DirectAnswerToolAdapter(server="example")
    with MCPAdapt(_params(example_python, MARKED), adapter) as loaded:
        final = _kickoff([lookup, *loaded], llm, adapter.guardrail)
    assert ran == ["lookup"] and llm.steps == 1
    line = f'In the same step, the model also called tool "lookup", {REACHED}'
    assert final.startswith(f'{line}\n\nVerbatim result from tool "entry" of server "example".\n\n')


def test_crewais_guardrail_retry_runs_the_task_again_so_the_verbatim_call_would_run_twice(example_python: str) -> None:
    """Why the adapter's guardrail names the other calls of the step and never fails the output to hand them to the
    model: CrewAI's retry runs the task from its start, without the step's tool results, and the verbatim tool runs
    again. A release that keeps the step's results for the retry fails here."""
    llm = ScriptedLLM(model="scripted", calls=[("entry", json.dumps({"account": "A-1"}))])
    attempts: list[str] = []

    def fail_once(output: Any):  # no return annotation: CrewAI would read the string as a type
        attempts.append(str(output.raw))
        return (False, "Read the other results.") if len(attempts) == 1 else (True, output)

    with MCPAdapt(_params(example_python, MARKED), DirectAnswerToolAdapter(server="example")) as loaded:
        final = _kickoff(loaded, llm, fail_once)
        [probe] = [tool for tool in loaded if tool.name == "received"]
        received = json.loads(str(probe.run()).split("\n\n")[-1])
    assert len(attempts) == 2 and llm.steps == 2 and llm.read == []  # the retry's model read no tool result
    assert received == [{"account": "A-1"}, {"account": "A-1"}]
    assert final.endswith("Entry of A-1")


def test_in_the_markdown_form_each_other_call_is_a_paragraph_of_its_own() -> None:
    # The messages CrewAI records for a step as in the test above (whose end-to-end run gives the plain text form).
    calls = [("call-1", "take_note"), ("call-2", "wire_transfer"), ("call-3", "entry"), ("call-4", "wire_transfer")]
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "tool_calls": [{"id": id_, "function": {"name": name}} for id_, name in calls]},
        {"role": "tool", "tool_call_id": "call-1", "content": "Noted: checked"},
        {"role": "tool", "tool_call_id": "call-2", "content": "Tool execution blocked by hook. Tool: wire_transfer"},
        {"role": "tool", "tool_call_id": "call-3", "content": "Entry of A-1"},
    ]
    opening = "In the same step, the model also called tool"
    assert _other_calls(messages, markdown=True).split("\n\n") == [
        f'{opening} "take\\_note", {REACHED}',
        f'{opening} "wire\\_transfer", {REACHED}',
        f'{opening} "wire\\_transfer", which was not run.',
    ]
