"""The AutoGen AgentChat adapter, in the environment of `autogen-agentchat` and `autogen-ext[mcp]`.

Each test runs AutoGen's own `AssistantAgent` (its tool call loop, unmodified) with its
`ReplayChatCompletionClient` (no model, no network) and the example servers' tools over stdio, and reads the
last message of the `TaskResult`, where the user's answer is.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent  # pyright: ignore[reportMissingImports]
from autogen_agentchat.messages import ToolCallExecutionEvent  # pyright: ignore[reportMissingImports]
from autogen_core import FunctionCall  # pyright: ignore[reportMissingImports]
from autogen_core.models import CreateResult, RequestUsage  # pyright: ignore[reportMissingImports]
from autogen_ext.models.replay import ReplayChatCompletionClient  # pyright: ignore[reportMissingImports]
from autogen_ext.tools.mcp import StdioServerParams, mcp_server_tools  # pyright: ignore[reportMissingImports]

from mcp_rendering import audit
from mcp_rendering.integrations.answer import IMITATION_WARNING, UNSTATED_COMPLETENESS
from mcp_rendering.integrations.autogen import direct_answer_tools
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import page_examples, run_example
from tests.integrations.marked_server import FAKE_CAPTION, HOSTILE_GUIDANCE
from tests.support.directive_server import HINTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
MARKED = str(Path(__file__).with_name("marked_server.py"))
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
MODEL_INFO: Any = {
    "vision": False,
    "function_calling": True,
    "json_output": False,
    "family": "unknown",
    "structured_output": False,
}


def _model(calls: Sequence[tuple[str, Mapping[str, Any]]], *later: Sequence[tuple[str, Mapping[str, Any]]]) -> Any:
    """Calls each of `calls` in one turn, then each of `later` in turn, then (when asked again) writes `SUMMARY`."""
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    replies: list[Any] = [
        CreateResult(
            finish_reason="function_calls",
            content=[
                FunctionCall(id=f"call-{turn}-{index}", name=name, arguments=json.dumps(dict(arguments)))
                for index, (name, arguments) in enumerate(turn_calls, 1)
            ],
            usage=usage,
            cached=False,
        )
        for turn, turn_calls in enumerate((calls, *later))
    ]
    return ReplayChatCompletionClient([*replies, SUMMARY], model_info=MODEL_INFO)


def _params(python: str, module: str) -> Any:
    args = [module] if module.endswith(".py") else ["-m", module]
    return StdioServerParams(command=python, args=args, read_timeout_seconds=60)


async def _run(
    python: str, module: str, calls: Sequence[tuple[str, Mapping[str, Any]]], **options: Any
) -> tuple[str, Any, AssistantAgent]:
    model = _model(calls)
    tools = await direct_answer_tools(_params(python, module), server="example", **options)
    agent = tools.agent("records", model)
    result = await agent.run(task="Go.")
    return result.messages[-1].content, model, agent


async def _run_plain(python: str, module: str, calls: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[str, Any]:
    model = _model(calls)
    tools = await mcp_server_tools(_params(python, module))
    agent = AssistantAgent("analyst", model, tools=tools, reflect_on_tool_use=True)
    result = await agent.run(task="Go.")
    return result.messages[-1].content, model


async def _run_steps(
    python: str, module: str, turns: Sequence[Sequence[tuple[str, Mapping[str, Any]]]], steps: int
) -> tuple[Any, Any]:
    """The dedicated agent's `TaskResult` for a model making `turns`, given `steps` as ``max_tool_iterations``."""
    model = _model(*turns)
    tools = await direct_answer_tools(_params(python, module), server="example")
    return await tools.agent("records", model, max_tool_iterations=steps).run(task="Go."), model


def _reference(python: str, module: str, name: str) -> dict[str, Any]:
    probe = (
        "import anyio, sys\n"
        "from mcp import Client\n"
        "from mcp.client.stdio import StdioServerParameters, stdio_client\n"
        "async def main():\n"
        "    params = StdioServerParameters(command=sys.executable, args=['-m', sys.argv[1]])\n"
        "    async with Client(stdio_client(params)) as client:\n"
        "        result = await client.call_tool(sys.argv[2], {})\n"
        "    print(result.model_dump_json(by_alias=True, exclude_none=True))\n"
        "anyio.run(main)\n"
    )
    done = subprocess.run([python, "-c", probe, module, name], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_without_the_adapter_a_reflecting_agent_answers_with_the_summary(example_python: str) -> None:
    final, model = asyncio.run(_run_plain(example_python, FINANCIAL, [("financial_statements", {})]))
    assert final == SUMMARY and len(model.create_calls) == 2


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    final, model, _ = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})]))
    assert len(model.create_calls) == 1  # the model was asked once: it never read the result
    assert final.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(final, _reference(example_python, FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    final, _, _ = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], markdown=True))
    assert final.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(final, _reference(example_python, FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_tools_are_split_and_the_unmarked_ones_are_autogens_own(example_python: str) -> None:
    tools = asyncio.run(direct_answer_tools(_params(example_python, FINANCIAL)))
    own = asyncio.run(mcp_server_tools(_params(example_python, FINANCIAL)))
    assert [tool.name for tool in tools.verbatim] == ["financial_statements"]
    assert [tool.name for tool in tools.others] == [tool.name for tool in own if tool.name != "financial_statements"]
    assert [type(tool) for tool in tools.others] == [type(tool) for tool in own if tool.name != "financial_statements"]
    allowed = asyncio.run(direct_answer_tools(_params(example_python, FINANCIAL), allow=["key_figures"]))
    assert allowed.verbatim == [] and len(allowed.others) == len(own)
    with pytest.raises(ValueError, match="marks no tool verbatim"):
        allowed.agent("records", _model([]))


def test_an_error_result_is_the_hosts_error_answer_and_stays_in_the_models_context(example_python: str) -> None:
    final, _, agent = asyncio.run(_run(example_python, SCREENING, [("screening_report", {"batch": "nope"})]))
    assert final.startswith(
        'The tool "screening_report" of server "example" reported an error. Its message, as the server wrote it:'
    )
    assert "Verbatim result" not in final
    context = asyncio.run(agent.model_context.get_messages())
    results = [result for message in context if isinstance(message.content, list) for result in message.content]
    assert [result.is_error for result in results if hasattr(result, "is_error")] == [True]


def test_an_error_goes_back_to_the_model_and_the_corrected_call_answers(example_python: str) -> None:
    turns = [[("screening_report", {"batch": "nope"})], [("screening_report", {})]]
    result, model = asyncio.run(_run_steps(example_python, SCREENING, turns, steps=3))
    final = result.messages[-1].content
    assert len(model.create_calls) == 2  # the model read the error and made the corrected call, nothing more
    assert final.startswith('Verbatim result from tool "screening_report" of server "example".')
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER) and "nope" not in final
    outputs = [
        item.content
        for message in result.messages
        if isinstance(message, ToolCallExecutionEvent)
        for item in message.content
    ]
    assert outputs[0].startswith('The tool "screening_report" of server "example" reported an error.')


def test_with_no_step_left_the_error_line_is_the_answer(example_python: str) -> None:
    turns = [[("screening_report", {"batch": "nope"})], [("screening_report", {"batch": "still-not"})]]
    result, model = asyncio.run(_run_steps(example_python, SCREENING, turns, steps=2))
    assert len(model.create_calls) == 2
    assert result.messages[-1].content.startswith('The tool "screening_report" of server "example" reported an error.')


def test_a_call_to_a_tool_the_agent_does_not_hold_goes_back_to_the_model(example_python: str) -> None:
    """The dedicated agent holds the verbatim tools only: a turn that also calls another tool fails that call, and
    the model answers, having read both results; the host's view is among the tool results, to show beside it."""
    turns = [[("financial_statements", {}), ("key_figures", {})]]
    result, model = asyncio.run(_run_steps(example_python, FINANCIAL, turns, steps=2))
    assert result.messages[-1].content == SUMMARY and len(model.create_calls) == 2
    executions = [
        item for message in result.messages if isinstance(message, ToolCallExecutionEvent) for item in message.content
    ]
    assert [item.is_error for item in executions] == [False, True]
    report = audit(executions[0].content, _reference(example_python, FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_a_turn_of_verbatim_calls_only_answers_with_each_in_order(example_python: str) -> None:
    calls = [("financial_statements", {}), ("financial_statements", {})]
    final, _, _ = asyncio.run(_run(example_python, FINANCIAL, calls))
    assert final.count('Verbatim result from tool "financial_statements" of server "example".') == 2
    assert final.startswith("2 results follow, in the order called")


def test_several_hostile_results_of_one_turn_are_each_closed_by_the_hosts_end_line(example_python: str) -> None:
    """AutoGen joins a turn's results with a bare newline; the answer is `join_answers` of them, so a server's
    imitation of a caption inside one result stays inside its bounds."""
    final, _, _ = asyncio.run(_run(example_python, MARKED, [("hostile", {}), ("empty", {})]))
    lines = final.split("\n\n")
    assert lines[0].startswith("2 results follow, in the order called; the host ends each with a line marked ")
    mark = lines[0].rsplit(" ", 1)[1].rstrip(".")
    ends = [index for index, line in enumerate(lines) if line.startswith("End of result")]
    assert [lines[index] for index in ends] == [f"End of result 1 of 2 ({mark}).", f"End of result 2 of 2 ({mark})."]
    # The hostile result's imitation sits before the first end line, the empty result's caption after it.
    assert lines.index(FAKE_CAPTION) < ends[0] < lines.index('Verbatim result from tool "empty" of server "example".')
    assert lines[1] == 'Verbatim result from tool "hostile" of server "example".' and lines[2] == IMITATION_WARNING


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    final, _, _ = asyncio.run(_run(example_python, SCREENING, [("screening_report", {})]))
    assert final.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_huge_result_is_bounded_as_present_bounds_it(example_python: str) -> None:
    final, _, _ = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], max_rows=3))
    report = audit(final, _reference(example_python, FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_intact == 3 and final.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_result_with_no_content_answers_with_the_hosts_line(example_python: str) -> None:
    final, _, _ = asyncio.run(_run(example_python, MARKED, [("empty", {})]))
    assert final == (
        'Verbatim result from tool "empty" of server "example".\n\n'
        f'The tool "empty" of server "example" returned nothing to show.\n\n{UNSTATED_COMPLETENESS}'
    )


def test_a_hostile_result_sits_below_the_hosts_caption_and_its_guidance_is_not_shown(example_python: str) -> None:
    final, _, _ = asyncio.run(_run(example_python, MARKED, [("hostile", {})]))
    lines = final.split("\n\n")
    assert lines[0] == 'Verbatim result from tool "hostile" of server "example".'
    # The host's warning, then the server's imitation, after the host's caption, as its text.
    assert lines[1] == IMITATION_WARNING and lines[2] == FAKE_CAPTION
    assert HOSTILE_GUIDANCE not in final


def test_an_error_of_a_server_marking_every_tool_is_the_hosts_error_answer(example_python: str) -> None:
    final, _, _ = asyncio.run(_run(example_python, MARKED, [("failing", {})]))
    assert final == (
        'The tool "failing" of server "example" reported an error. Its message, as the server wrote it:'
        "\n\nThe ledger is closed."
    )


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("autogen.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""


def test_a_result_directive_alone_does_not_take_the_agent_wide_route(example_python: str) -> None:
    # The tools are split from their hints when loaded: a tool without the hint goes to the agent that reflects,
    # whatever its results say; the dedicated agent shows a hinted tool's summarizable result as `present()` does.
    tools = asyncio.run(direct_answer_tools(_params(example_python, DIRECTIVE)))
    assert [tool.name for tool in tools.verbatim] == ["hinted"]
    assert [tool.name for tool in tools.others] == ["directed"]
    final, model, _ = asyncio.run(_run(example_python, DIRECTIVE, [("hinted", {})]))
    assert final == HINTED_TEXT and len(model.create_calls) == 1
