"""The LlamaIndex adapter, in the environment of `llama-index-tools-mcp`.

Each test runs LlamaIndex's own `FunctionAgent` with its `MockFunctionCallingLLM` scripted to call tools and then
summarize (no model, no network), with the tools of an `McpToolSpec` over stdio, and reads the final answer the user
would receive (``str(AgentOutput)``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent  # pyright: ignore[reportMissingImports]
from llama_index.core.base.llms.types import MessageRole, ToolCallBlock  # pyright: ignore[reportMissingImports]
from llama_index.core.llms import ChatMessage  # pyright: ignore[reportMissingImports]
from llama_index.core.llms.mock import MockFunctionCallingLLM  # pyright: ignore[reportMissingImports]
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec  # pyright: ignore[reportMissingImports]

from mcp_rendering import audit
from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, join_answers
from mcp_rendering.integrations.llama_index import DirectAnswerAgent, load_direct_answer_tools
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, page_examples, reference_result, run_example
from tests.support.directive_server import HINTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
HOSTILE = str(ROOT / "tests" / "integrations" / "hostile_server.py")
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
CAPTION = 'Verbatim result from tool "financial_statements" of server "example".'


@dataclass
class Script:
    """The model's script: one step calling `calls` (name, arguments), then `SUMMARY` once it read tool results."""

    calls: Sequence[tuple[str, Mapping[str, Any]]]
    steps: int = 0
    read: list[str] = field(default_factory=list[str])
    """The tool messages the model read, in order."""

    def __call__(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        del kwargs
        self.steps += 1
        tool_messages = [message for message in messages if message.role == MessageRole.TOOL]
        if tool_messages:
            self.read = [str(message.content) for message in tool_messages]
            return ChatMessage(role="assistant", content=SUMMARY)
        blocks = [
            ToolCallBlock(tool_call_id=f"call-{index}", tool_name=name, tool_kwargs=dict(arguments))
            for index, (name, arguments) in enumerate(self.calls, 1)
        ]
        return ChatMessage(role="assistant", blocks=blocks)


def _command(python: str, module: str) -> list[str]:
    return [python, module] if module.endswith(".py") else [python, "-m", module]


async def _run(
    python: str,
    module: str,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    direct: bool = True,
    agent_class: Any = DirectAnswerAgent,
    **options: Any,
) -> tuple[str, Script]:
    command, *args = _command(python, module)
    spec = McpToolSpec(client=BasicMCPClient(command, args=args, timeout=60))
    tools = await (load_direct_answer_tools(spec, server="example", **options) if direct else spec.to_tool_list_async())
    script = Script(calls)
    agent_class = agent_class if direct else FunctionAgent
    agent = agent_class(tools=tools, llm=MockFunctionCallingLLM(response_generator=script))
    output = await agent.run(user_msg="Go.")
    return str(output), script


def run(python: str, module: str, *tools: str, **options: Any) -> tuple[str, Script]:
    return asyncio.run(_run(python, module, [(tool, {}) for tool in tools], **options))


def test_without_the_adapter_the_model_summarizes(example_python: str) -> None:
    final, script = run(example_python, FINANCIAL, "financial_statements", direct=False)
    assert final == SUMMARY and script.steps == 2


def test_the_route_answers_with_every_record_and_no_model_step(example_python: str) -> None:
    final, script = run(example_python, FINANCIAL, "financial_statements")
    assert script.steps == 1  # the model never read the result
    assert final.startswith(CAPTION + "\n\n")
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    final, _ = run(example_python, FINANCIAL, "financial_statements", markdown=True)
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_tools_the_server_does_not_mark_stay_with_the_model(example_python: str) -> None:
    final, script = run(example_python, FINANCIAL, "key_figures")
    assert final == SUMMARY and script.steps == 2
    assert script.read and "Verbatim result" not in script.read[0]  # the tool as McpToolSpec made it


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    final, script = run(example_python, FINANCIAL, "financial_statements", allow=["key_figures"])
    assert final == SUMMARY and script.steps == 2


def test_a_partial_result_answers_with_the_notice_and_how_to_get_the_rest(example_python: str) -> None:
    final, _ = run(example_python, SCREENING, "screening_report")
    caption, notice, *_ = final.split("\n\n")
    assert caption == 'Verbatim result from tool "screening_report" of server "example".'
    assert notice.startswith(PARTIAL_MARKER) and "screening_report" in notice


def test_an_error_result_goes_to_the_model_as_an_error_and_the_agent_keeps_working(example_python: str) -> None:
    final, script = asyncio.run(_run(example_python, SCREENING, [("screening_report", {"batch": "nope"})]))
    assert final == SUMMARY and script.steps == 2
    [read] = script.read
    assert read.startswith('The tool "screening_report" of server "example" reported an error.')


def test_a_step_with_a_verbatim_tool_and_another_names_the_other_above_the_verbatim_result(
    example_python: str,
) -> None:
    # LlamaIndex ends the run on the step's first return-direct result, whatever else the step called: the answer
    # opens with the host's line naming the other call, whose result no one reads.
    line = 'In the same step, the model also called tool "key_figures", whose result is not shown here.'
    reference = reference_result(FINANCIAL, "financial_statements")
    for tools in (("financial_statements", "key_figures"), ("key_figures", "financial_statements")):
        final, script = run(example_python, FINANCIAL, *tools)
        assert script.steps == 1, tools
        assert final.startswith(f"{line}\n\n{CAPTION}\n\n") and "Revenue grew." not in final, tools
        report = audit(final, reference, markup="text")
        assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean, tools


def test_a_step_with_two_verbatim_calls_answers_with_both_joined_in_the_order_called(example_python: str) -> None:
    single = {tool: run(example_python, HOSTILE, tool)[0] for tool in ("lookup", "picture")}
    for tools in (("lookup", "picture"), ("picture", "lookup")):
        final, script = run(example_python, HOSTILE, *tools)
        assert script.steps == 1, tools
        assert final == join_answers([single[tool] for tool in tools]), tools
        assert final.startswith("2 results follow, in the order called;"), tools


def test_a_plain_function_agent_shows_one_result_of_the_step_alone(example_python: str) -> None:
    # The finding the agent class closes: LlamaIndex's own answer holds the first result to arrive, nothing else.
    final, script = run(example_python, HOSTILE, "lookup", "picture", agent_class=FunctionAgent)
    assert script.steps == 1
    # One of the two results alone: the picture's placeholder, or the lookup's text (which names a "trusted-bank").
    assert "2 results follow" not in final and ("[image: image/png]" in final) != ("trusted-bank" in final)


def test_an_error_beside_a_verbatim_result_is_named_as_not_shown(example_python: str) -> None:
    final, script = run(example_python, HOSTILE, "fails", "lookup")
    assert script.steps == 1
    line = 'In the same step, the model also called tool "fails", whose result is not shown here.'
    assert final.startswith(f'{line}\n\nVerbatim result from tool "lookup" of server "example".\n\n')


def test_a_server_marking_every_tool_verbatim_never_writes_host_lines(example_python: str) -> None:
    final, script = run(example_python, HOSTILE, "lookup")
    assert script.steps == 1
    # The host's caption first; the server's imitation of one, and its guidance, only below it as its text.
    assert final.startswith('Verbatim result from tool "lookup" of server "example".\n\n')
    assert final.index('of server "trusted-bank"') > final.index('of server "example"')
    assert "host verified these figures" not in final


def test_a_result_with_no_text_answers_with_the_host_lines_alone(example_python: str) -> None:
    final, script = run(example_python, HOSTILE, "picture")
    assert script.steps == 1
    assert final == 'Verbatim result from tool "picture" of server "example".\n\n[image: image/png]'


def test_a_huge_result_is_bounded_and_says_so(example_python: str) -> None:
    final, _ = run(example_python, HOSTILE, "huge")
    assert DEFAULT_MAX_BYTES < 2 * 1024 * 1024
    assert len(final.encode()) < DEFAULT_MAX_BYTES + 4096
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER)
    assert "row 00000:" in final and "row 39999:" not in final


def test_an_error_of_a_server_marking_every_tool_does_not_end_the_run(example_python: str) -> None:
    final, script = run(example_python, HOSTILE, "fails")
    assert final == SUMMARY and script.steps == 2
    assert script.read == [
        'The tool "fails" of server "example" reported an error. Its message, as the server wrote it:\n\n'
        "Upstream ledger unavailable; retry with a smaller period."
    ]


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("llama-index.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""


def test_a_result_directive_alone_does_not_take_the_route_fixed_at_load(example_python: str) -> None:
    # `return_direct` is set from the hint when the tools are loaded: a result's directive alone cannot set it, and
    # LlamaIndex does not look at the result of a tool that has it, so a summarizable result ends the run too, as
    # the host's view of it.
    final, _ = run(example_python, DIRECTIVE, "directed")
    assert final == SUMMARY
    final, _ = run(example_python, DIRECTIVE, "hinted")
    assert final == HINTED_TEXT


MARKED = str(ROOT / "tests" / "integrations" / "marked_server.py")


def test_the_applications_event_stream_sees_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    """LlamaIndex has no hook that may refuse or rewrite a tool call in its agent loop; an application observes the
    calls on the run's event stream, and sees a verbatim tool's call there as without the adapter."""
    from llama_index.core.agent.workflow import ToolCall, ToolCallResult  # pyright: ignore[reportMissingImports]

    async def go() -> tuple[str, list[tuple[str, str, dict[str, Any]]]]:
        command, *args = _command(example_python, MARKED)
        spec = McpToolSpec(client=BasicMCPClient(command, args=args, timeout=60))
        tools = await load_direct_answer_tools(spec, server="example")
        script = Script([("entry", {"account": "A-1"})])
        agent = DirectAnswerAgent(tools=tools, llm=MockFunctionCallingLLM(response_generator=script))
        handler = agent.run(user_msg="Go.")
        seen: list[tuple[str, str, dict[str, Any]]] = []
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                seen.append(("result", event.tool_name, dict(event.tool_kwargs)))
            elif isinstance(event, ToolCall):
                seen.append(("call", event.tool_name, dict(event.tool_kwargs)))
        return str(await handler), seen

    final, seen = asyncio.run(go())
    assert seen[0] == ("call", "entry", {"account": "A-1"}) and seen[-1] == ("result", "entry", {"account": "A-1"})
    # The client opens a session per call, so the server's own record does not outlive it: its answer names the
    # account it received.
    assert final.startswith('Verbatim result from tool "entry" of server "example".') and "Entry of A-1" in final
