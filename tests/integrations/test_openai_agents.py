"""The OpenAI Agents SDK adapter, in the environment of `openai-agents`.

Each test runs a real `Runner` with the SDK's scripted model (no model, no network, tracing off) against the example
servers over stdio, and reads what the second model turn received for the tool call.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from agents import (  # pyright: ignore[reportMissingImports]
    Agent,
    RunConfig,
    RunHooks,
    Runner,
    ToolGuardrailFunctionOutput,
    set_tracing_disabled,
    tool_input_guardrail,
    tool_output_guardrail,
)
from agents.exceptions import UserError  # pyright: ignore[reportMissingImports]
from agents.items import ToolCallOutputItem  # pyright: ignore[reportMissingImports]
from agents.mcp import MCPServer, MCPServerStdio  # pyright: ignore[reportMissingImports]
from agents.testing import ScriptedModel, assistant_message, function_call  # pyright: ignore[reportMissingImports]
from agents.tool_context import ToolContext  # pyright: ignore[reportMissingImports]

from mcp_rendering import audit
from mcp_rendering.host import FRAMING_HEADER
from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES
from mcp_rendering.integrations.openai_agents import (
    CUSTOM_DATA_KEY,
    RenderedCall,
    RenderingMCPServerStdio,
    rendered_output,
    verbatim_final_output,
)
from mcp_rendering.reading import combine_parts
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, page_examples, records_in_text, reference_result, run_example
from tests.support.directive_server import DIRECTED_TEXT

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"

set_tracing_disabled(True)


def _function_output(model: ScriptedModel, turn: int) -> Any:
    for item in model.calls[turn].input:
        entry = item if isinstance(item, dict) else item.model_dump()
        if entry.get("type") == "function_call_output":
            return entry["output"]
    raise AssertionError(f"model turn {turn} received no function_call_output")


def _texts(output: Any) -> list[str]:
    items: Sequence[Any] = [output] if isinstance(output, str) else output
    return [item if isinstance(item, str) else item["text"] for item in items]


def _financial_server(python: str, name: str = "example", **options: Any) -> RenderingMCPServerStdio:
    """The financial example server over stdio, as a rendering server class named `name`."""
    return RenderingMCPServerStdio(
        params={"command": python, "args": ["-m", FINANCIAL], "cwd": str(ROOT)},
        name=name,
        client_session_timeout_seconds=60,
        **options,
    )


async def _run(
    python: str, module: str, calls: Sequence[tuple[str, Mapping[str, Any]]], **options: Any
) -> tuple[ScriptedModel, list[Any], list[RenderedCall]]:
    shown: list[RenderedCall] = []
    steps: list[Any] = [[function_call(name, dict(args), call_id=f"call-{n}")] for n, (name, args) in enumerate(calls)]
    model = ScriptedModel([*steps, [assistant_message("done")]])
    server = RenderingMCPServerStdio(
        params={"command": python, "args": ["-m", module]},
        name="example",
        on_presentation=shown.append,
        client_session_timeout_seconds=60,
        **options,
    )
    async with server:
        agent = Agent(name="test", model=model, mcp_servers=[server])
        result = await Runner.run(agent, "Go.", run_config=RunConfig(tracing_disabled=True))
    return model, list(result.new_items), shown


def test_host_side_imports_without_the_sdk() -> None:
    probe = (
        "import sys, json\n"
        "import mcp_rendering, mcp_rendering.host, mcp_rendering.reading, mcp_rendering.audit\n"
        "import mcp_rendering.records, mcp_rendering.render\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_model_gets_the_framing_and_every_record(example_python: str) -> None:
    model, items, shown = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})]))
    raw = reference_result(FINANCIAL, "financial_statements")
    texts = _texts(_function_output(model, 1))
    assert texts[0].startswith(FRAMING_HEADER) and "Mode: verbatim." in texts[0]
    assert records_in_text(texts, raw) == 54

    [call] = shown
    assert (call.server, call.tool) == ("example", "financial_statements")
    assert audit(call.presentation.text, raw).clean

    outputs = [item for item in items if isinstance(item, ToolCallOutputItem)]
    [output] = outputs
    data = rendered_output(output)
    assert data is not None and output.custom_data is not None and CUSTOM_DATA_KEY in output.custom_data
    assert data["mode"] == "verbatim" and data["complete"] is True
    assert data["text"] == call.presentation.text and data["caption"] == call.presentation.caption
    assert audit(data["markdown"], raw, markup="markdown").clean
    # The application's copy travels in `_meta`, which the SDK never forwards to the model.
    assert '"markdown"' not in json.dumps(_function_output(model, 1))


def test_structured_content_mode_still_gets_the_framing(example_python: str) -> None:
    model, _, shown = asyncio.run(
        _run(example_python, FINANCIAL, [("financial_statements", {})], use_structured_content=True)
    )
    output = _function_output(model, 1)
    assert not isinstance(output, str), "the SDK would have sent json.dumps(structuredContent) alone"
    texts = _texts(output)
    assert texts[0].startswith(FRAMING_HEADER)
    raw = reference_result(FINANCIAL, "financial_statements")
    assert records_in_text(texts, raw) == 54 and shown[0].presentation.complete


def test_summarizable_tool_mode_comes_from_its_hints(example_python: str) -> None:
    model, _, shown = asyncio.run(_run(example_python, FINANCIAL, [("key_figures", {})]))
    assert shown[0].presentation.mode == "summarizable"
    assert "Mode: summarizable." in _texts(_function_output(model, 1))[0]


def test_partial_pages_carry_the_notice(example_python: str) -> None:
    async def pages() -> tuple[list[Any], list[RenderedCall]]:
        shown: list[RenderedCall] = []
        server = RenderingMCPServerStdio(
            params={"command": example_python, "args": ["-m", SCREENING]},
            on_presentation=shown.append,
            client_session_timeout_seconds=60,
        )
        outputs: list[Any] = []
        arguments: dict[str, Any] | None = {}
        async with server:
            for number in range(50):
                if arguments is None:
                    break
                model = ScriptedModel(
                    [
                        [function_call("screening_report", arguments, call_id=f"call-{number}")],
                        [assistant_message("ok")],
                    ]
                )
                agent = Agent(name="test", model=model, mcp_servers=[server])
                await Runner.run(agent, "Go.", run_config=RunConfig(tracing_disabled=True))
                outputs.append(_function_output(model, 1))
                arguments = shown[-1].presentation.next_arguments(shown[-1].arguments)  # its own call's
        return outputs, shown

    outputs, shown = asyncio.run(pages())
    assert len(outputs) >= 2, "the example batch takes several pages"
    for output, call in zip(outputs[:-1], shown[:-1], strict=True):
        assert PARTIAL_MARKER in _texts(output)[0]
        assert not call.presentation.complete and call.presentation.text.startswith(PARTIAL_MARKER)
    # The last part, read alone, is not the whole: it says so, and that the earlier parts hold the rest.
    assert "the last part of a result fetched in parts" in _texts(outputs[-1])[0]
    assert not shown[-1].presentation.complete
    assert combine_parts([call.presentation.rendering for call in shown])[1]


def test_own_custom_data_extractor_is_kept(example_python: str) -> None:
    seen: list[str] = []

    def extractor(context: Any) -> dict[str, Any]:
        seen.append(context.tool_name)
        return {"audit": "kept"}

    _, items, _ = asyncio.run(
        _run(example_python, FINANCIAL, [("financial_statements", {})], custom_data_extractor=extractor)
    )
    [output] = [item for item in items if isinstance(item, ToolCallOutputItem)]
    assert seen == ["financial_statements"]
    assert output.custom_data is not None and output.custom_data["audit"] == "kept"
    assert rendered_output(output) is not None


def test_tool_errors_reach_the_model_unchanged(example_python: str) -> None:
    model, items, shown = asyncio.run(_run(example_python, SCREENING, [("screening_report", {"batch": "nope"})]))
    texts = _texts(_function_output(model, 1))
    assert "unknown batch" in texts[0] and FRAMING_HEADER not in texts[0]
    assert shown == []
    [output] = [item for item in items if isinstance(item, ToolCallOutputItem)]
    data = rendered_output(output)
    assert data is not None and set(data) == {"answer"} and data["answer"]["is_error"] is True


def test_rendered_output_of_other_items() -> None:
    assert rendered_output(object()) is None
    with pytest.raises(TypeError):
        RenderingMCPServerStdio()  # type: ignore[call-arg]


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    example, route, _ = page_examples("openai-agents.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "example-financial" in done.stdout  # the caption names the server
    assert "Capitaux propres" in done.stdout  # a record, as the user sees it
    done = run_example(route, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
"""What the scripted model writes after the tool call: a stand-in for a model that summarizes."""


async def _route(
    python: str,
    module: str,
    turn: Sequence[tuple[str, Mapping[str, Any]]],
    behavior: Any = verbatim_final_output,
    allow: Sequence[str] | None = None,
    markdown: bool = False,
    **options: Any,
) -> tuple[Any, ScriptedModel]:
    calls = [function_call(name, dict(args), call_id=f"call-{n}") for n, (name, args) in enumerate(turn)]
    model = ScriptedModel([calls, [assistant_message(SUMMARY)]])
    server = RenderingMCPServerStdio(
        params={"command": python, "args": ["-m", module], "cwd": str(ROOT)},
        name="example",
        allow=allow,
        markdown=markdown,
        client_session_timeout_seconds=60,
        **options,
    )
    async with server:
        agent = Agent(name="test", model=model, mcp_servers=[server], tool_use_behavior=behavior)
        result = await Runner.run(agent, "Go.", run_config=RunConfig(tracing_disabled=True))
    return result, model


def test_the_route_answers_with_every_record_and_no_model_turn(example_python: str) -> None:
    result, model = asyncio.run(_route(example_python, FINANCIAL, [("financial_statements", {})]))
    raw = reference_result(FINANCIAL, "financial_statements")
    assert len(model.calls) == 1  # the model never read the result
    answer = result.final_output
    # A plain `str`, as applications expect of a text final output.
    assert type(answer) is str and answer.startswith('Verbatim result from tool "financial_statements"')
    report = audit(answer, raw, markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean
    assert SUMMARY not in answer


def test_the_markdown_route_answers_with_the_fenced_form(example_python: str) -> None:
    result, _ = asyncio.run(_route(example_python, FINANCIAL, [("financial_statements", {})], markdown=True))
    answer = result.final_output
    assert isinstance(answer, str) and answer.startswith('Verbatim result from tool "financial\\_statements"')
    report = audit(answer, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_route_leaves_other_tools_errors_and_mixed_turns_to_the_model(example_python: str) -> None:
    for module, turn in (
        (FINANCIAL, [("key_figures", {})]),
        (SCREENING, [("screening_report", {"batch": "nope"})]),
        (FINANCIAL, [("financial_statements", {}), ("key_figures", {})]),
    ):
        result, model = asyncio.run(_route(example_python, module, turn))
        assert result.final_output == SUMMARY and len(model.calls) == 2, turn


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    turn = [("financial_statements", {})]
    result, model = asyncio.run(_route(example_python, FINANCIAL, turn, allow=["key_figures"]))
    assert result.final_output == SUMMARY and len(model.calls) == 2
    result, _ = asyncio.run(_route(example_python, FINANCIAL, turn, allow=["financial_statements"]))
    assert result.final_output.startswith("Verbatim result from tool")


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    result, _ = asyncio.run(_route(example_python, SCREENING, [("screening_report", {})]))
    answer = result.final_output
    assert isinstance(answer, str) and answer.split("\n\n")[1].startswith(PARTIAL_MARKER)


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""
CAPTION = 'Verbatim result from tool "directed" of server "example".'


def test_a_result_directive_alone_takes_the_route_and_a_summarizable_result_does_not(example_python: str) -> None:
    # The route is taken after the call: the result's directive decides, with or without the tool's hint.
    result, _ = asyncio.run(_route(example_python, DIRECTIVE, [("directed", {})]))
    assert result.final_output == f"{CAPTION}\n\n{DIRECTED_TEXT}"
    result, _ = asyncio.run(_route(example_python, DIRECTIVE, [("hinted", {})]))
    assert result.final_output == SUMMARY


HOSTILE = "tests.support.hostile_server"
"""A server with a result far over the default bound of an answer (`huge`)."""


def test_a_turn_of_many_verbatim_calls_is_bounded_as_a_whole(example_python: str) -> None:
    turn = [("huge", {})] * 12
    result, _ = asyncio.run(_route(example_python, HOSTILE, turn))
    answer = result.final_output
    assert isinstance(answer, str) and len(answer.encode()) < DEFAULT_MAX_BYTES + 4_000
    left_out = answer.split("\n\n")[0]
    assert left_out.startswith(f"{PARTIAL_MARKER} this answer shows the first 1 of 12 results")
    assert 'results 2 to 12, of tool "huge", are not in it' in left_out


def test_no_byte_bound_means_none_on_the_answer_either(example_python: str) -> None:
    raw = reference_result(HOSTILE, "huge")
    result, _ = asyncio.run(_route(example_python, HOSTILE, [("huge", {})], max_bytes=None))
    answer = result.final_output
    assert isinstance(answer, str) and len(answer.encode()) > 4 * DEFAULT_MAX_BYTES
    assert PARTIAL_MARKER not in answer and raw["content"][0]["text"] in answer


MARKED = str(Path(__file__).with_name("marked_server.py"))
ENTRY = [("entry", {"account": "A-1"})]
REFUSAL = "Refused by the approval policy."
_GUARDRAILS = pytest.mark.skipif(
    "tool_input_guardrails" not in inspect.signature(MCPServer.__init__).parameters,
    reason="this SDK release takes no tool guardrails on an MCP server",
)


async def _route_hooked(
    python: str, *, hooks: Any = None, **options: Any
) -> tuple[Any, ScriptedModel, list[dict[str, Any]]]:
    """`_route` on the server marking every tool, with no allow-list, with the application's own `hooks` and
    server `options` (its tool guardrails); with the calls of `entry` the server received."""
    calls = [function_call(name, dict(args), call_id=f"call-{n}") for n, (name, args) in enumerate(ENTRY)]
    model = ScriptedModel([calls, [assistant_message(SUMMARY)]])
    server = RenderingMCPServerStdio(
        params={"command": python, "args": [MARKED]}, name="example", client_session_timeout_seconds=60, **options
    )
    async with server:
        agent = Agent(name="test", model=model, mcp_servers=[server], tool_use_behavior=verbatim_final_output)
        result = await Runner.run(agent, "Go.", hooks=hooks, run_config=RunConfig(tracing_disabled=True))
        # Asked of the server itself, past the adapter's presentation.
        received = await MCPServerStdio.call_tool(server, "received", {})
    return result, model, json.loads(received.content[0].text)


@_GUARDRAILS
def test_the_applications_hooks_and_guardrails_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, str, Any]] = []

    class Logging(RunHooks):  # pyright: ignore[reportUntypedBaseClass]
        async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
            seen.append(("on_tool_start", tool.name, json.loads(context.tool_arguments)))

    @tool_input_guardrail
    def log_input(data: Any) -> Any:
        seen.append(("input guardrail", data.context.tool_name, json.loads(data.context.tool_arguments)))
        return ToolGuardrailFunctionOutput.allow()

    @tool_output_guardrail
    def log_output(data: Any) -> Any:
        seen.append(("output guardrail", data.context.tool_name, json.loads(data.context.tool_arguments)))
        return ToolGuardrailFunctionOutput.allow()

    result, model, received = asyncio.run(
        _route_hooked(
            example_python, hooks=Logging(), tool_input_guardrails=[log_input], tool_output_guardrails=[log_output]
        )
    )
    arguments = {"account": "A-1"}
    assert seen == [
        ("input guardrail", "entry", arguments),
        ("on_tool_start", "entry", arguments),
        ("output guardrail", "entry", arguments),
    ]
    assert received == [arguments]
    # The route is still taken, from the result of the call the SDK made.
    assert len(model.calls) == 1 and result.final_output.startswith('Verbatim result from tool "entry"')
    assert "Entry of A-1" in result.final_output


@_GUARDRAILS
def test_a_guardrail_that_rejects_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    @tool_input_guardrail
    def refuse(data: Any) -> Any:
        return ToolGuardrailFunctionOutput.reject_content(REFUSAL)

    result, model, received = asyncio.run(_route_hooked(example_python, tool_input_guardrails=[refuse]))
    assert received == []  # the server never received the call
    # The model read the refusal and answered, as the SDK does without the adapter.
    assert result.final_output == SUMMARY and len(model.calls) == 2
    assert _function_output(model, 1) == REFUSAL


@_GUARDRAILS
def test_a_guardrail_that_replaces_the_output_means_no_route(example_python: str) -> None:
    @tool_output_guardrail
    def redact(data: Any) -> Any:
        return ToolGuardrailFunctionOutput.reject_content("Redacted.")

    result, model, received = asyncio.run(_route_hooked(example_python, tool_output_guardrails=[redact]))
    assert received == [{"account": "A-1"}]
    # The model read what the guardrail left of the output, not the host's view of what it withheld.
    assert result.final_output == SUMMARY and len(model.calls) == 2
    assert _function_output(model, 1) == "Redacted."


def test_an_extractor_set_after_the_server_is_made_keeps_the_route(example_python: str) -> None:
    """The application's `custom_data_extractor` set on the server after it is made runs, its keys kept, and the
    presentation's view is still added: the route is taken."""
    seen: list[str] = []

    def extractor(context: Any) -> dict[str, Any]:
        seen.append(context.tool_name)
        return {"audit": "kept"}

    async def run() -> tuple[Any, ScriptedModel]:
        model = ScriptedModel(
            [[function_call("financial_statements", {}, call_id="call-0")], [assistant_message(SUMMARY)]]
        )
        server = RenderingMCPServerStdio(
            params={"command": example_python, "args": ["-m", FINANCIAL]},
            name="example",
            client_session_timeout_seconds=60,
        )
        server.custom_data_extractor = extractor
        server.custom_data_extractor = server.custom_data_extractor  # set again as read: wrapped once
        async with server:
            agent = Agent(name="test", model=model, mcp_servers=[server], tool_use_behavior=verbatim_final_output)
            result = await Runner.run(agent, "Go.", run_config=RunConfig(tracing_disabled=True))
        return result, model

    result, model = asyncio.run(run())
    assert seen == ["financial_statements"] and len(model.calls) == 1
    assert isinstance(result.final_output, str)
    assert result.final_output.startswith('Verbatim result from tool "financial_statements"')
    [output] = [item for item in result.new_items if isinstance(item, ToolCallOutputItem)]
    assert output.custom_data is not None and output.custom_data["audit"] == "kept"


def test_the_route_on_an_agent_with_no_rendering_server_is_refused(example_python: str) -> None:
    """`verbatim_final_output` on an agent whose MCP servers are the SDK's own classes could never take the route:
    a clear error naming the classes to use, not a run that silently ends on the model's text."""

    async def run() -> None:
        model = ScriptedModel(
            [[function_call("financial_statements", {}, call_id="call-0")], [assistant_message(SUMMARY)]]
        )
        server = MCPServerStdio(
            params={"command": example_python, "args": ["-m", FINANCIAL]},
            name="plain",
            client_session_timeout_seconds=60,
        )
        async with server:
            agent = Agent(name="test", model=model, mcp_servers=[server], tool_use_behavior=verbatim_final_output)
            await Runner.run(agent, "Go.", run_config=RunConfig(tracing_disabled=True))

    with pytest.raises(UserError, match="RenderingMCPServerStdio"):
        asyncio.run(run())


async def _under_another_agent(python: str, caller: str, **as_tool: Any) -> tuple[Any, ScriptedModel]:
    """An analyst with the route, run by an orchestrator through the SDK's `as_tool` whose run stops on it (`caller`
    "stop_at_tools") or reached by a handoff (`caller` "handoff"); returns the run's result and the orchestrator's
    model."""
    from agents import StopAtTools  # pyright: ignore[reportMissingImports]

    server = _financial_server(python)
    analyst_model = ScriptedModel(
        [[function_call("financial_statements", {}, call_id="a-0")], [assistant_message("x")]]
    )
    async with server:
        analyst = Agent(
            name="analyst", model=analyst_model, mcp_servers=[server], tool_use_behavior=verbatim_final_output
        )
        if caller == "handoff":
            model = ScriptedModel(
                [[function_call("transfer_to_analyst", {}, call_id="o-0")], [assistant_message(SUMMARY)]]
            )
            orchestrator = Agent(name="orchestrator", model=model, handoffs=[analyst])
        else:
            model = ScriptedModel(
                [[function_call("analyst", {"input": "Go."}, call_id="o-0")], [assistant_message(SUMMARY)]]
            )
            tool = analyst.as_tool(tool_name="analyst", tool_description="The analyst.", **as_tool)
            behavior = StopAtTools(stop_at_tool_names=["analyst"])
            orchestrator = Agent(name="orchestrator", model=model, tools=[tool], tool_use_behavior=behavior)
        result = await Runner.run(orchestrator, "Go.", run_config=RunConfig(tracing_disabled=True))
    return result, model


async def _as_tool_refused(python: str, caller: str, **as_tool: Any) -> tuple[Any, Any, Any, list[dict[str, Any]]]:
    """An analyst with the route on the server marking every tool, run through `as_tool` by an orchestrator whose
    `tool_use_behavior` is named by `caller`; returns the run's result (or the error it raised), the orchestrator's
    and the analyst's models, and the calls of `entry` the server received."""
    from agents import StopAtTools  # pyright: ignore[reportMissingImports]
    from agents.agent import ToolsToFinalOutputResult  # pyright: ignore[reportMissingImports]

    def own(context: Any, results: list[Any]) -> Any:
        return ToolsToFinalOutputResult(is_final_output=False, final_output=None)

    server = RenderingMCPServerStdio(
        params={"command": python, "args": [MARKED]}, name="marked", client_session_timeout_seconds=60
    )
    analyst_model = ScriptedModel([[function_call("entry", {"account": "A-1"}, call_id="a-0")]])
    model = ScriptedModel(
        [[function_call("analyst", {"input": "Entry of A-1"}, call_id="o-0")], [assistant_message(SUMMARY)]]
    )
    behaviors: dict[str, Any] = {
        "run_llm_again": "run_llm_again",
        "stop_on_first_tool": "stop_on_first_tool",
        "own_function": own,
        "stop_at_another_tool": StopAtTools(stop_at_tool_names=["other"]),
    }
    async with server:
        analyst = Agent(
            name="analyst", model=analyst_model, mcp_servers=[server], tool_use_behavior=verbatim_final_output
        )
        tool = analyst.as_tool(tool_name="analyst", tool_description="The analyst.", **as_tool)
        orchestrator = Agent(
            name="orchestrator",
            model=model,
            tools=[tool],
            tool_use_behavior=behaviors[caller],
        )
        try:
            result: Any = await Runner.run(orchestrator, "Go.", run_config=RunConfig(tracing_disabled=True))
        except Exception as error:
            result = error
        received = await MCPServerStdio.call_tool(server, "received", {})
    return result, model, analyst_model, json.loads(received.content[0].text)


@pytest.mark.parametrize("caller", ["run_llm_again", "stop_on_first_tool", "own_function", "stop_at_another_tool"])
def test_an_agent_run_as_a_tool_whose_caller_goes_on_is_refused_before_any_call(
    example_python: str, caller: str
) -> None:
    """`as_tool` runs the analyst with a `ToolContext` naming its caller, which the SDK passes to the server's
    `list_tools`: unless the caller ends its run on that tool (the page's one line, or `StopAtTools` naming it), the
    nested run is refused there, before its model is asked and so before any call reaches the server. With
    `failure_error_function=None`, the application gets the error."""

    result, model, analyst_model, received = asyncio.run(
        _as_tool_refused(example_python, caller, failure_error_function=None)
    )
    assert isinstance(result, UserError)
    assert "give 'orchestrator' tool_use_behavior=verbatim_final_output too" in str(result)
    assert received == [] and len(analyst_model.calls) == 0 and len(model.calls) == 1


def test_a_refused_agent_tool_gives_the_callers_model_the_sdks_text_the_page_quotes(example_python: str) -> None:
    """With `as_tool`'s default `failure_error_function`, the refusal reaches the caller's model as the SDK's text,
    quoted whole on the page; the server received nothing, and the run ends on the caller's model."""
    result, model, analyst_model, received = asyncio.run(_as_tool_refused(example_python, "run_llm_again"))
    assert received == [] and len(analyst_model.calls) == 0
    [read] = _texts(_function_output(model, 1))
    assert result.final_output == SUMMARY
    page = " ".join((ROOT / "docs" / "openai-agents.md").read_text(encoding="utf-8").split())
    text = "An error occurred while running the tool. Please try again."
    assert f'"{text}"' in page
    # The SDK 0.21 adds the error's message; later releases give the text alone.
    assert read == text or (read.startswith(f"{text} Error: ") and "verbatim_final_output" in read)
    assert 'followed by "Error: " and the `UserError`\'s message' in " ".join(page.split())


@pytest.mark.parametrize("caller", ["stop_at_tools", "handoff"])
def test_an_agent_under_a_caller_that_stops_on_it_or_hands_off_answers_with_the_view(
    example_python: str, caller: str
) -> None:
    result, model = asyncio.run(_under_another_agent(example_python, caller))
    answer = result.final_output
    assert isinstance(answer, str) and answer.startswith('Verbatim result from tool "financial_statements"')
    report = audit(answer, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean
    assert len(model.calls) == 1  # the orchestrator's model never read the view


TRANSFER = "Transfer of 100 declined."


async def _callers_with_the_route(
    python: str,
    *,
    levels: int = 1,
    transfer: bool = False,
    own_call: bool = False,
    output_extractor: Any = None,
    tool_guardrails: Sequence[Any] = (),
    analyst_guardrails: Sequence[Any] = (),
    runs: int = 1,
) -> tuple[list[Any], list[ScriptedModel], list[int]]:
    """The analyst with the route on the financial example (with the agent output guardrails `analyst_guardrails`),
    under `levels` callers, each given the page's one line and calling the agent below through `as_tool` (with
    `output_extractor` and the tool output guardrails `tool_guardrails` at the lowest); the top caller's model calls
    the agent below, with `transfer` an ordinary function tool first in the same step (with `own_call` the verbatim
    tool of the top caller's own rendering server after it), then writes SUMMARY. `runs`
    runs of the top caller at once. Returns the runs' results, the models from the top down, and the transfers
    made."""
    from agents import function_tool  # pyright: ignore[reportMissingImports]

    made: list[int] = []

    @function_tool
    def move(amount: int) -> str:
        """Moves money."""
        made.append(amount)
        return TRANSFER

    server = _financial_server(python)
    mine = _financial_server(python, "mine")
    analyst_model = ScriptedModel([[function_call("financial_statements", {}, call_id="a-0")]] * runs)
    models = [analyst_model]
    async with server, mine if own_call else contextlib.nullcontext():
        below = Agent(
            name="analyst",
            model=analyst_model,
            mcp_servers=[server],
            tool_use_behavior=verbatim_final_output,
            output_guardrails=list(analyst_guardrails),
        )
        for level in range(levels):
            top = level == levels - 1
            # One call id at every level and in every run: the records tell them apart by run and tool.
            calls = [function_call(below.name, {"input": "Go."}, call_id="o-0")]
            if top and transfer:
                calls.insert(0, function_call("move", {"amount": 100}, call_id="o-1"))
            if top and own_call:
                calls.append(function_call("financial_statements", {}, call_id="o-2"))
            model = ScriptedModel([calls] * runs + [[assistant_message(SUMMARY)]] * runs)
            tool = below.as_tool(
                tool_name=below.name,
                tool_description="The agent below.",
                custom_output_extractor=output_extractor if level == 0 else None,
            )
            if level == 0:
                tool.tool_output_guardrails = list(tool_guardrails)
            below = Agent(
                name=f"caller-{level}",
                model=model,
                tools=[tool, move] if top else [tool],
                mcp_servers=[mine] if top and own_call else [],
                tool_use_behavior=verbatim_final_output,
            )
            models.insert(0, model)
        config = RunConfig(tracing_disabled=True)
        results = await asyncio.gather(*(Runner.run(below, "Go.", run_config=config) for _ in range(runs)))
    return list(results), models, made


def _is_the_view(answer: Any, python: str) -> bool:
    report = audit(answer, reference_result(FINANCIAL, "financial_statements"), markup="text")
    return (
        isinstance(answer, str)
        and answer.startswith('Verbatim result from tool "financial_statements" of server "example".')
        and report.rows_expected == report.rows_intact == 54
        and report.clean
    )


@pytest.mark.parametrize("levels", [1, 2])
def test_callers_given_the_one_line_answer_with_the_nested_agents_view(example_python: str, levels: int) -> None:
    """The view a nested agent's route made is its caller's final output, with no caller's model reading it, at
    every level of nesting."""
    [result], models, _ = asyncio.run(_callers_with_the_route(example_python, levels=levels))
    assert _is_the_view(result.final_output, example_python)
    assert SUMMARY not in result.final_output
    assert [len(model.calls) for model in models] == [1] * (levels + 1)


def test_a_callers_step_with_another_tool_goes_to_its_model_which_reads_both(example_python: str) -> None:
    [result], [model, analyst_model], made = asyncio.run(_callers_with_the_route(example_python, transfer=True))
    assert made == [100] and len(analyst_model.calls) == 1
    assert result.final_output == SUMMARY and len(model.calls) == 2
    read = [
        entry["output"]
        for item in model.calls[1].input
        if (entry := item if isinstance(item, dict) else item.model_dump()).get("type") == "function_call_output"
    ]
    assert len(read) == 2 and TRANSFER in read
    [view] = [output for output in read if output != TRANSFER]
    assert _is_the_view(view, example_python)


async def _unchanged(run: Any) -> Any:
    return run.final_output


async def _equal_copy(run: Any) -> str:
    return "".join(list(run.final_output))


async def _changed(run: Any) -> str:
    return run.final_output.replace("Verbatim result", "Result")


@pytest.mark.parametrize(
    ("extractor", "route"),
    [(_unchanged, True), (_equal_copy, False), (_changed, False)],
    ids=["unchanged", "an_equal_copy", "changed"],
)
def test_an_output_extractor_keeps_the_route_only_when_it_returns_the_view_itself(
    example_python: str, extractor: Any, route: bool
) -> None:
    """The caller recognises the view by identity, never by its text: an extractor's new object, even an equal
    text, goes to the caller's model."""
    [result], [model, _], _ = asyncio.run(_callers_with_the_route(example_python, output_extractor=extractor))
    if route:
        assert _is_the_view(result.final_output, example_python) and len(model.calls) == 1
    else:
        assert result.final_output == SUMMARY and len(model.calls) == 2
        [read] = _texts(_function_output(model, 1))
        assert read.startswith("Verbatim result" if extractor is _equal_copy else "Result from tool")


def test_concurrent_runs_of_one_agent_pair_keep_their_own_views_and_leave_none(example_python: str) -> None:
    import gc
    import weakref

    from mcp_rendering.integrations import openai_agents

    results, [model, analyst_model], _ = asyncio.run(_callers_with_the_route(example_python, runs=2))
    assert all(_is_the_view(result.final_output, example_python) for result in results)
    assert len(model.calls) == 2 and len(analyst_model.calls) == 2
    usages = [result.context_wrapper.usage for result in results]
    assert len({id(usage) for usage in usages}) == 2
    # Each view was taken out of the records by its caller; the run's record set goes with the run.
    assert [openai_agents._nested_views.get(id(usage)) for usage in usages] == [{}, {}]  # pyright: ignore[reportPrivateUsage]
    keys = [id(usage) for usage in usages]
    gone = [weakref.ref(usage) for usage in usages]
    del results, usages
    gc.collect()
    assert all(ref() is None for ref in gone)
    assert not any(key in openai_agents._nested_views for key in keys)  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize("replaced_by", ["tool output guardrail", "failure_error_function"])
def test_a_view_replaced_after_the_nested_run_made_it_goes_to_the_callers_model(
    example_python: str, replaced_by: str
) -> None:
    """The nested run made and kept its view, then something replaced it: a tool output guardrail on the `as_tool`
    tool, or the SDK's `failure_error_function` text for a nested run that failed after its route (an output
    guardrail of the analyst's that trips). The caller's model reads what replaced it."""
    from agents import GuardrailFunctionOutput, output_guardrail  # pyright: ignore[reportMissingImports]

    @tool_output_guardrail
    def redact(data: Any) -> Any:
        return ToolGuardrailFunctionOutput.reject_content("Redacted.")

    @output_guardrail
    def trip(context: Any, agent: Any, output: Any) -> Any:
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered=True)

    options: dict[str, Any] = (
        {"tool_guardrails": [redact]} if replaced_by == "tool output guardrail" else {"analyst_guardrails": [trip]}
    )
    [result], [model, analyst_model], _ = asyncio.run(_callers_with_the_route(example_python, **options))
    assert len(analyst_model.calls) == 1  # the analyst's route ended its run on the view
    assert result.final_output == SUMMARY and len(model.calls) == 2
    [read] = _texts(_function_output(model, 1))
    if replaced_by == "tool output guardrail":
        assert read == "Redacted."
    else:
        assert read.startswith("An error occurred while running the tool. Please try again.")


def test_a_step_with_the_nested_agent_and_a_verbatim_tool_of_the_callers_own_answers_with_both(
    example_python: str,
) -> None:
    """As for several verbatim calls of one step: one answer holding each view, in the order called."""
    from mcp_rendering.host import JOINED_HEAD

    [result], [model, _], _ = asyncio.run(_callers_with_the_route(example_python, own_call=True))
    answer = result.final_output
    assert len(model.calls) == 1 and isinstance(answer, str)
    head, *parts = answer.split("\n\n")
    assert head.startswith(JOINED_HEAD.split("{mark}")[0].format(count=2))
    assert 'Verbatim result from tool "financial_statements" of server "example".' in parts
    assert 'Verbatim result from tool "financial_statements" of server "mine".' in parts
    assert answer.index('server "example".') < answer.index('server "mine".')


def test_a_streamed_caller_over_a_streamed_nested_agent_answers_with_the_view(example_python: str) -> None:
    """`Runner.run_streamed` for the caller, and `as_tool(on_stream=...)`, which runs the nested agent streamed."""

    async def run() -> tuple[Any, ScriptedModel, int]:
        server = _financial_server(example_python)
        events: list[Any] = []
        model = ScriptedModel(
            [[function_call("analyst", {"input": "Go."}, call_id="o-0")], [assistant_message(SUMMARY)]]
        )
        async with server:
            analyst = Agent(
                name="analyst",
                model=ScriptedModel([[function_call("financial_statements", {}, call_id="a-0")]]),
                mcp_servers=[server],
                tool_use_behavior=verbatim_final_output,
            )
            tool = analyst.as_tool(tool_name="analyst", tool_description="The analyst.", on_stream=events.append)
            orchestrator = Agent(
                name="orchestrator", model=model, tools=[tool], tool_use_behavior=verbatim_final_output
            )
            result = Runner.run_streamed(orchestrator, "Go.", run_config=RunConfig(tracing_disabled=True))
            async for _ in result.stream_events():
                pass
        return result, model, len(events)

    result, model, events = asyncio.run(run())
    assert events > 0  # the nested run was streamed
    assert _is_the_view(result.final_output, example_python) and len(model.calls) == 1


def _approval_refused() -> bool:
    from importlib.metadata import version

    return tuple(int(part) for part in version("openai-agents").split(".")[:2]) < (0, 24)


@pytest.mark.parametrize(
    ("policy", "waits"),
    [
        (None, False),
        ("never", False),
        ({"never": {"tool_names": ["financial_statements"]}}, False),
        ("always", True),
        ({"financial_statements": "always"}, True),
        ({"always": {"tool_names": ["financial_statements"]}}, True),
        (lambda *_: False, True),
    ],
)
def test_require_approval_that_can_wait_is_refused_before_the_sdk_0_24(policy: Any, waits: bool) -> None:
    """Before the SDK 0.24 a resumed step's decision got only the approved call's result, so a server whose calls
    can wait for an approval is refused at construction, naming the release; from 0.24 nothing is refused."""
    options = {} if policy is None else {"require_approval": policy}

    def make() -> RenderingMCPServerStdio:
        return RenderingMCPServerStdio(params={"command": sys.executable}, name="mine", **options)

    if waits and _approval_refused():
        with pytest.raises(UserError, match=r"rendering server 'mine' needs openai-agents 0\.24 or later"):
            make()
    else:
        assert make().name == "mine"


def test_a_tool_needing_approval_on_an_agent_with_the_route_is_refused_before_the_sdk_0_24() -> None:
    """`as_tool(..., needs_approval=True)` can make a call of the orchestrator's step wait, as a server's
    `require_approval` can: before the SDK 0.24 the agent is refused at its first tool step; from 0.24 the step
    goes on as usual (here to the model, since `move` is not verbatim)."""
    from agents import function_tool  # pyright: ignore[reportMissingImports]

    @function_tool
    def move(amount: int) -> str:
        """Moves money."""
        return TRANSFER

    analyst = Agent(name="analyst", model=ScriptedModel([]), tool_use_behavior=verbatim_final_output)
    model = ScriptedModel([[function_call("move", {"amount": 5}, call_id="o-0")], [assistant_message(SUMMARY)]])
    orchestrator = Agent(
        name="orchestrator",
        model=model,
        tools=[analyst.as_tool(tool_name="analyst", tool_description="The analyst.", needs_approval=True), move],
        tool_use_behavior=verbatim_final_output,
    )

    def run() -> Any:
        return asyncio.run(Runner.run(orchestrator, "Go.", run_config=RunConfig(tracing_disabled=True)))

    if _approval_refused():
        with pytest.raises(UserError, match=r"needs_approval on tool 'analyst' .* needs openai-agents 0\.24 or later"):
            run()
    else:
        assert run().final_output == SUMMARY


@pytest.mark.parametrize("resume", ["in memory", "serialized"])
def test_a_resumed_nested_run_answers_with_the_view_in_memory_and_through_the_model_when_serialized(
    example_python: str, resume: str
) -> None:
    """The analyst's server asks for approval; the application approves and runs the orchestrator's state again,
    as `result.to_state()` gave it or restored by `RunState.from_string`. In memory the analyst's view is the
    orchestrator's final output; a serialized state keeps no mark of the view, so the orchestrator's model reads it
    and answers (as the page says). Before the SDK 0.24 the server is refused (the test below)."""
    from agents.run_state import RunState  # pyright: ignore[reportMissingImports]

    if _approval_refused():
        pytest.skip("require_approval is refused before the SDK 0.24")

    async def run() -> tuple[Any, ScriptedModel, int]:
        server = _financial_server(example_python, require_approval="always")
        model = ScriptedModel(
            [[function_call("analyst", {"input": "Go."}, call_id="o-0")], [assistant_message(SUMMARY)]] * 2
        )
        async with server:
            analyst = Agent(
                name="analyst",
                model=ScriptedModel([[function_call("financial_statements", {}, call_id="a-0")]]),
                mcp_servers=[server],
                tool_use_behavior=verbatim_final_output,
            )
            tool = analyst.as_tool(tool_name="analyst", tool_description="The analyst.")
            orchestrator = Agent(
                name="orchestrator", model=model, tools=[tool], tool_use_behavior=verbatim_final_output
            )
            config = RunConfig(tracing_disabled=True)
            result = await Runner.run(orchestrator, "Go.", run_config=config)
            approvals = 0
            while result.interruptions and approvals < 3:
                state = result.to_state()
                if resume == "serialized":
                    state = await RunState.from_string(orchestrator, state.to_string())
                for item in state.get_interruptions():
                    state.approve(item)
                    approvals += 1
                result = await Runner.run(orchestrator, state, run_config=config)
        return result, model, approvals

    result, model, approvals = asyncio.run(run())
    assert approvals == 1 and not result.interruptions
    assert type(result.final_output) is str
    if resume == "in memory":
        assert _is_the_view(result.final_output, example_python) and len(model.calls) == 1
    else:
        assert result.final_output == SUMMARY and len(model.calls) == 2
        [read] = _texts(_function_output(model, 1))
        assert _is_the_view(read, example_python)


@pytest.mark.parametrize("resume", ["in memory", "serialized"])
def test_a_callers_step_resumed_after_its_nested_agent_answered_goes_to_its_model(
    example_python: str, resume: str
) -> None:
    """In one step the orchestrator called the analyst, which answered, and a tool of its own server, which waits
    for an approval. `result.to_state()` copies the run's `Usage`, under which the analyst's view was kept, and a
    serialized state keeps no mark of it at all: resumed either way, the orchestrator's model reads both views and
    answers. Before the SDK 0.24, whose resumed step's decision got only the approved call's result, the server
    waiting for approvals is refused at construction, naming the release."""
    from agents.run_state import RunState  # pyright: ignore[reportMissingImports]

    async def run() -> tuple[Any, ScriptedModel]:
        def server(name: str, **options: Any) -> RenderingMCPServerStdio:
            return _financial_server(example_python, name, **options)

        model = ScriptedModel(
            [
                [
                    function_call("analyst", {"input": "Go."}, call_id="o-0"),
                    function_call("financial_statements", {}, call_id="o-1"),
                ],
                [assistant_message(SUMMARY)],
            ]
        )
        async with server("example") as analysts, server("mine", require_approval="always") as own:
            analyst = Agent(
                name="analyst",
                model=ScriptedModel([[function_call("financial_statements", {}, call_id="a-0")]]),
                mcp_servers=[analysts],
                tool_use_behavior=verbatim_final_output,
            )
            orchestrator = Agent(
                name="orchestrator",
                model=model,
                mcp_servers=[own],
                tools=[analyst.as_tool(tool_name="analyst", tool_description="The analyst.")],
                tool_use_behavior=verbatim_final_output,
            )
            config = RunConfig(tracing_disabled=True)
            result = await Runner.run(orchestrator, "Go.", run_config=config)
            state = result.to_state()
            if resume == "serialized":
                state = await RunState.from_string(orchestrator, state.to_string())
            [waiting] = state.get_interruptions()
            state.approve(waiting)
            result = await Runner.run(orchestrator, state, run_config=config)
        return result, model

    if _approval_refused():
        with pytest.raises(UserError, match=r"require_approval on rendering server 'mine' needs openai-agents 0\.24"):
            asyncio.run(run())
        return
    result, model = asyncio.run(run())
    assert type(result.final_output) is str
    assert result.final_output == SUMMARY and len(model.calls) == 2
    read = [item if isinstance(item, dict) else item.model_dump() for item in model.calls[1].input]
    outputs = [_texts(entry["output"]) for entry in read if entry.get("type") == "function_call_output"]
    # The analyst's view, and the framed result of the orchestrator's own tool.
    assert len(outputs) == 2 and any(_is_the_view(texts[0], example_python) for texts in outputs)


async def _own_nested_tool(
    python: str, returned: Any, *, with_context: bool = True
) -> tuple[Any, ScriptedModel, list[str]]:
    """An orchestrator with the page's one line whose function tool runs the analyst (the one line too) with
    `Runner.run`, passing its own `ToolContext` when `with_context`, and returns `returned(result)`, or is the page's
    own function tool (`returned` None); returns the orchestrator's result, its model, and the analyst's own final
    outputs."""
    from agents import function_tool  # pyright: ignore[reportMissingImports]

    server = _financial_server(python)
    model = ScriptedModel(
        [[function_call("run_analyst", {"question": "Go."}, call_id="o-0")], [assistant_message(SUMMARY)]]
    )
    ended: list[str] = []

    class _Runner:
        """The SDK's `Runner`, keeping what the analyst's run ended on."""

        @staticmethod
        async def run(agent: Any, question: str, context: Any = None) -> Any:
            nested = await Runner.run(agent, question, context=context)
            ended.append(nested.final_output)
            return nested

    async with server:
        analyst = Agent(
            name="analyst",
            model=ScriptedModel([[function_call("financial_statements", {}, call_id="a-0")]]),
            mcp_servers=[server],
            tool_use_behavior=verbatim_final_output,
        )
        if returned is None:
            names: dict[str, Any] = {"function_tool": function_tool, "Runner": _Runner, "analyst": analyst}
            exec(page_examples("openai-agents.md")[2], names)  # the page's block, as written
            run_analyst = names["run_analyst"]
        else:

            @function_tool
            async def run_analyst(ctx: ToolContext, question: str) -> str:
                """Asks the analyst."""
                return returned(await _Runner.run(analyst, question, context=ctx if with_context else None))

        orchestrator = Agent(
            name="orchestrator", model=model, tools=[run_analyst], tool_use_behavior=verbatim_final_output
        )
        result = await Runner.run(orchestrator, "Go.", run_config=RunConfig(tracing_disabled=True))
    return result, model, ended


@pytest.mark.parametrize(
    ("returned", "with_context", "route"),
    [
        (None, True, True),
        (lambda run: run.final_output, True, True),
        (lambda run: str(run.final_output), True, True),
        (lambda run: run.final_output, False, False),
        (lambda run: "".join(list(run.final_output)), True, False),
        (lambda run: run.final_output + "\n", True, False),
    ],
    ids=["the_pages_tool", "final_output", "str_of_it", "without_context", "an_equal_copy", "changed"],
)
def test_a_function_tool_that_runs_the_nested_agent_answers_with_its_final_output_only(
    example_python: str, returned: Any, with_context: bool, route: bool
) -> None:
    """The SDK's other way to nest an agent: a function tool of the application's calling `Runner.run` with its own
    `ToolContext`. Its `result.final_output` returned as it is (`str()` of it is the same object) ends the
    orchestrator's run on the view; a new object, even an equal text, a changed text, or a run made without the
    tool's context goes to the orchestrator's model, which reads it and answers."""
    result, model, [ended] = asyncio.run(_own_nested_tool(example_python, returned, with_context=with_context))
    assert type(ended) is str and _is_the_view(ended, example_python)
    assert type(result.final_output) is str
    if route:
        assert result.final_output == ended and len(model.calls) == 1
    else:
        assert result.final_output == SUMMARY and len(model.calls) == 2
        [read] = _texts(_function_output(model, 1))
        assert read.startswith("Verbatim result")
