"""The Pydantic AI adapter, in the environment of `pydantic-ai-slim[mcp]`.

Each test runs Pydantic AI's own agent loop (`Agent.run`) with its `FunctionModel` (no model, no network) and an
`MCPToolset` against the example servers over stdio, and reads the run's output, where the user's answer is.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    from builtins import BaseExceptionGroup
else:
    from exceptiongroup import BaseExceptionGroup  # pyright: ignore[reportMissingImports]

import pytest
from fastmcp.client.transports import StdioTransport  # pyright: ignore[reportMissingImports]
from fastmcp.exceptions import ToolError  # pyright: ignore[reportMissingImports]
from pydantic_ai import (  # pyright: ignore[reportMissingImports]
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ToolDenied,
)
from pydantic_ai.capabilities import Hooks  # pyright: ignore[reportMissingImports]
from pydantic_ai.exceptions import ModelRetry, UserError  # pyright: ignore[reportMissingImports]
from pydantic_ai.mcp import MCPToolset  # pyright: ignore[reportMissingImports]
from pydantic_ai.messages import (  # pyright: ignore[reportMissingImports]
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # pyright: ignore[reportMissingImports]
from pydantic_ai.toolsets import WrapperToolset  # pyright: ignore[reportMissingImports]

from mcp_rendering import audit
from mcp_rendering.integrations.answer import IMITATION_WARNING, UNSTATED_COMPLETENESS
from mcp_rendering.integrations.pydantic_ai import DirectAnswers
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import page_examples, reference_result, run_example
from tests.integrations.marked_server import FAKE_CAPTION, HOSTILE_GUIDANCE

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"
MARKED = str(Path(__file__).with_name("marked_server.py"))
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."


@dataclass
class Script:
    """Calls each of `calls` (tool name, arguments) in one turn; once it has tool results (or retry prompts),
    writes `SUMMARY`, having read them (`read`)."""

    calls: list[tuple[str, dict[str, Any]]]
    requests: int = 0
    read: list[str] = field(default_factory=list[str])

    def respond(self, messages: list[Any], info: AgentInfo) -> ModelResponse:
        del info
        self.requests += 1
        parts = [part for message in messages for part in getattr(message, "parts", [])]
        returns = [part for part in parts if isinstance(part, (ToolReturnPart, RetryPromptPart))]
        if returns:
            self.read = [
                part.model_response_str() if isinstance(part, ToolReturnPart) else str(part.content) for part in returns
            ]
            return ModelResponse(parts=[TextPart(SUMMARY)])
        calls = [
            ToolCallPart(tool_name=name, args=dict(arguments), tool_call_id=f"call-{index}")
            for index, (name, arguments) in enumerate(self.calls, 1)
        ]
        return ModelResponse(parts=calls)


async def _run(
    python: str,
    module: str,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    helped: bool = True,
    **options: Any,
) -> tuple[str, Script]:
    script = Script([(name, dict(arguments)) for name, arguments in calls])
    args = [module] if module.endswith(".py") else ["-m", module]
    toolset = MCPToolset(StdioTransport(command=python, args=args), id="example", init_timeout=60)
    capabilities = [DirectAnswers(**options)] if helped else []
    agent = Agent(FunctionModel(script.respond), toolsets=[toolset], capabilities=capabilities)
    async with agent:
        result = await agent.run("Go.")
    return result.output, script


def test_without_the_adapter_the_output_is_the_summary(example_python: str) -> None:
    output, script = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], helped=False))
    assert output == SUMMARY and script.requests == 2


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    output, script = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})]))
    assert script.requests == 1  # the model never read the result
    assert output.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(output, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    output, _ = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], markdown=True))
    assert output.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(output, reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    output, script = asyncio.run(
        _run(example_python, FINANCIAL, [("financial_statements", {})], allow={"example": ["key_figures"]})
    )
    assert output == SUMMARY and script.requests == 2


def test_each_toolset_captions_with_its_own_id_and_allows_only_its_own_tools(example_python: str) -> None:
    """Two servers of one agent, told apart by prefix: a result of one is never captioned with the other's name,
    and a name the allow-list gives one of them allows nothing of the other."""

    def toolset(name: str) -> Any:
        transport = StdioTransport(command=example_python, args=[MARKED])
        return MCPToolset(transport, id=f"{name}-server", init_timeout=60).prefixed(name)

    async def run(call: str) -> tuple[str, Script]:
        script = Script([(call, {})])
        direct = DirectAnswers(allow={"trusted-server": ["empty"]})
        agent = Agent(
            FunctionModel(script.respond), toolsets=[toolset("trusted"), toolset("untrusted")], capabilities=[direct]
        )
        async with agent:
            result = await agent.run("Go.")
        return result.output, script

    output, script = asyncio.run(run("trusted_empty"))
    assert script.requests == 1
    assert output.startswith('Verbatim result from tool "empty" of server "trusted-server".')
    output, script = asyncio.run(run("untrusted_empty"))
    # Not allowed on its own server: the model reads it, as the toolset hands it on.
    assert output == SUMMARY and script.requests == 2
    assert "trusted-server" not in "".join(script.read)


def test_a_toolset_without_an_allow_list_entry_answers_with_its_own_name_only(example_python: str) -> None:
    def toolset(name: str) -> Any:
        transport = StdioTransport(command=example_python, args=[MARKED])
        return MCPToolset(transport, id=f"{name}-server", init_timeout=60).prefixed(name)

    async def run() -> tuple[str, Script]:
        script = Script([("untrusted_empty", {})])
        agent = Agent(
            FunctionModel(script.respond),
            toolsets=[toolset("trusted"), toolset("untrusted")],
            capabilities=[DirectAnswers()],
        )
        async with agent:
            result = await agent.run("Go.")
        return result.output, script

    output, script = asyncio.run(run())
    assert script.requests == 1
    assert output.startswith('Verbatim result from tool "empty" of server "untrusted-server".')
    assert '"trusted-server"' not in output


def test_unmarked_tools_go_to_the_model_untouched(example_python: str) -> None:
    output, script = asyncio.run(_run(example_python, FINANCIAL, [("key_figures", {})]))
    _, unhelped = asyncio.run(_run(example_python, FINANCIAL, [("key_figures", {})], helped=False))
    assert output == SUMMARY and script.requests == 2
    assert script.read == unhelped.read  # the model read what it reads without the adapter


def test_an_error_result_goes_to_the_model_as_without_the_adapter(example_python: str) -> None:
    calls = [("screening_report", {"batch": "nope"})]
    output, script = asyncio.run(_run(example_python, SCREENING, calls))
    _, unhelped = asyncio.run(_run(example_python, SCREENING, calls, helped=False))
    assert output == SUMMARY and script.requests == 2
    # The toolset's own error handling: the model reads the server's message, as without the adapter.
    assert script.read == unhelped.read and "unknown batch 'nope'" in script.read[0]


def test_a_turn_with_a_verbatim_tool_and_another_goes_to_the_model_in_either_order(example_python: str) -> None:
    for first, second in (("financial_statements", "key_figures"), ("key_figures", "financial_statements")):
        output, script = asyncio.run(_run(example_python, FINANCIAL, [(first, {}), (second, {})]))
        assert output == SUMMARY and script.requests == 2, first
        # The model read the verbatim result as the host's view.
        assert sum(read.startswith("Verbatim result from tool") for read in script.read) == 1, first


def test_a_turn_of_verbatim_calls_only_answers_with_each_in_order(example_python: str) -> None:
    calls = [("financial_statements", {}), ("financial_statements", {})]
    output, script = asyncio.run(_run(example_python, FINANCIAL, calls))
    assert script.requests == 1
    assert output.count('Verbatim result from tool "financial_statements" of server "example".') == 2
    assert output.startswith("2 results follow, in the order called")


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    output, _ = asyncio.run(_run(example_python, SCREENING, [("screening_report", {})]))
    assert output.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_huge_result_is_bounded_as_present_bounds_it(example_python: str) -> None:
    output, _ = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], max_rows=3))
    report = audit(output, reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_intact == 3 and output.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_result_with_no_content_answers_with_the_hosts_line(example_python: str) -> None:
    output, script = asyncio.run(_run(example_python, MARKED, [("empty", {})]))
    assert script.requests == 1
    assert output == (
        'Verbatim result from tool "empty" of server "example".\n\n'
        f'The tool "empty" of server "example" returned nothing to show.\n\n{UNSTATED_COMPLETENESS}'
    )


def test_a_hostile_result_sits_below_the_hosts_caption_and_its_guidance_is_not_shown(example_python: str) -> None:
    output, _ = asyncio.run(_run(example_python, MARKED, [("hostile", {})]))
    lines = output.split("\n\n")
    assert lines[0] == 'Verbatim result from tool "hostile" of server "example".'
    # The host's warning, then the server's imitation, after the host's caption, as its text.
    assert lines[1] == IMITATION_WARNING and lines[2] == FAKE_CAPTION
    assert HOSTILE_GUIDANCE not in output


def test_an_error_of_a_server_marking_every_tool_never_becomes_the_answer(example_python: str) -> None:
    output, script = asyncio.run(_run(example_python, MARKED, [("failing", {})]))
    _, unhelped = asyncio.run(_run(example_python, MARKED, [("failing", {})], helped=False))
    assert output == SUMMARY and script.requests == 2
    assert script.read == unhelped.read and "The ledger is closed." in script.read[0]


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("pydantic-ai.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""


def test_a_result_directive_alone_does_not_take_the_route_nor_a_summarizable_result(example_python: str) -> None:
    # The toolset keeps no result's `_meta`: the adapter makes the call itself only for a tool with the hint, so a
    # result's directive alone reaches the model as the toolset maps it; a hinted tool's summarizable result too.
    for tool in ("directed", "hinted"):
        output, _ = asyncio.run(_run(example_python, DIRECTIVE, [(tool, {})]))
        assert output == SUMMARY, tool


def test_the_capability_checks_its_options_when_made() -> None:
    with pytest.raises(TypeError):
        DirectAnswers(max_rows=True)
    with pytest.raises(ValueError):
        DirectAnswers(max_bytes=-1)
    with pytest.raises(TypeError):
        DirectAnswers(allow=["financial_statements"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        DirectAnswers(allow={"example": "financial_statements"})
    assert DirectAnswers(allow={"example": ["a", "a"]}).allow == {"example": frozenset({"a"})}
    with pytest.raises(TypeError):
        # One name for the whole agent would caption a second toolset's results with it: the toolset's id names.
        DirectAnswers(server="bank")  # pyright: ignore[reportCallIssue]


def _shouted(text: str) -> str:
    return text.upper()


def test_an_agent_whose_output_cannot_be_text_is_refused_when_made(example_python: str) -> None:
    """A structured `output_type` would never end on the host's view (the model would be asked again and answer in
    its own structure): the agent is refused when made, naming what to do; an output type that allows text keeps
    the route."""
    from pydantic import BaseModel
    from pydantic_ai import TextOutput  # pyright: ignore[reportMissingImports]

    class Accounts(BaseModel):
        summary: str

    def agent(output_type: Any) -> Any:
        return Agent(FunctionModel(Script([]).respond), output_type=output_type, capabilities=[DirectAnswers()])

    for structured in (Accounts, [Accounts, DeferredToolRequests], Accounts | None):
        with pytest.raises(UserError, match=r"allows no text: keep output_type=str"):
            agent(structured)
    for textual in (str, [Accounts, str], str | Accounts, TextOutput(_shouted)):
        agent(textual)

    async def run() -> tuple[Any, Script]:
        script = Script([("financial_statements", {})])
        toolset = MCPToolset(StdioTransport(command=example_python, args=["-m", FINANCIAL]), id="example")
        made = Agent(
            FunctionModel(script.respond),
            toolsets=[toolset],
            output_type=[Accounts, str],
            capabilities=[DirectAnswers()],
        )
        async with made:
            return (await made.run("Go.")).output, script

    output, script = asyncio.run(run())
    assert script.requests == 1 and output.startswith('Verbatim result from tool "financial_statements"')


ENTRY = [("entry", {"account": "A-1"})]
REFUSAL = "Refused by the approval policy."
REDACTED = "Withheld by the application's policy."


def _marked_toolset(python: str, **options: Any) -> Any:
    """The server marking every tool, as a toolset with the application's `options` (its hooks)."""
    return MCPToolset(StdioTransport(command=python, args=[MARKED]), id="example", init_timeout=60, **options)


async def _received(toolset: Any) -> list[dict[str, Any]]:
    """The calls of `entry` the server received, asked of the server itself."""
    received = await toolset.direct_call_tool("received", {})
    return json.loads(received) if isinstance(received, str) else received


async def _run_hooked(
    python: str,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    toolset: Any = None,
    capabilities: Sequence[Any] = (),
    **options: Any,
) -> tuple[str, Script, list[dict[str, Any]]]:
    """`_run` with the adapter and no allow-list, on the server marking every tool, with the application's own
    toolset `options` (`process_tool_call`) and `capabilities`; with the calls the server received."""
    script = Script([(name, dict(arguments)) for name, arguments in calls])
    toolset = toolset if toolset is not None else _marked_toolset(python, **options)
    agent = Agent(FunctionModel(script.respond), toolsets=[toolset], capabilities=[DirectAnswers(), *capabilities])
    async with agent:
        result = await agent.run("Go.")
        received = await _received(toolset)
    return result.output, script, received


def test_the_applications_hooks_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []

    async def log_call(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        seen.append(("process_tool_call", name, dict(args)))
        return await call_tool(name, args)

    hooks = Hooks()

    @hooks.on.before_tool_execute
    async def log_execute(ctx: Any, *, call: Any, tool_def: Any, args: Any) -> Any:
        seen.append(("before_tool_execute", call.tool_name, dict(args)))
        return args

    output, script, received = asyncio.run(
        _run_hooked(example_python, ENTRY, capabilities=[hooks], process_tool_call=log_call)
    )
    assert seen == [
        ("before_tool_execute", "entry", {"account": "A-1"}),
        ("process_tool_call", "entry", {"account": "A-1"}),
    ]
    assert received == [{"account": "A-1"}]
    # The route is still taken, from the result of the call the toolset's hook made.
    assert script.requests == 1 and output.startswith('Verbatim result from tool "entry" of server "example".')
    assert "Entry of A-1" in output


def test_a_hook_that_refuses_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    async def refuse(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        return REFUSAL

    output, script, received = asyncio.run(_run_hooked(example_python, ENTRY, process_tool_call=refuse))
    assert received == []  # the server never received the call
    # The model read the refusal and answered, as Pydantic AI does without the adapter.
    assert output == SUMMARY and script.requests == 2 and script.read == [REFUSAL]

    async def denied() -> tuple[Any, Script, list[dict[str, Any]]]:
        """Pydantic AI's own tool approval: the run stops on the call, which the application then denies."""
        script = Script(list(ENTRY))
        leaf = _marked_toolset(example_python)
        agent = Agent(
            FunctionModel(script.respond),
            toolsets=[leaf.approval_required()],
            capabilities=[DirectAnswers()],
            output_type=[str, DeferredToolRequests],
        )
        async with agent:
            first = await agent.run("Go.")
            assert isinstance(first.output, DeferredToolRequests)
            results = DeferredToolResults(
                approvals={c.tool_call_id: ToolDenied(REFUSAL) for c in first.output.approvals}
            )
            second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
            return second.output, script, await _received(leaf)

    output, script, received = asyncio.run(denied())
    assert received == [] and output == SUMMARY and script.read == [REFUSAL]


def test_an_argument_rewriting_hook_decides_what_the_server_receives_and_the_view_shows(example_python: str) -> None:
    async def rewrite_call(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        return await call_tool(name, {**args, "account": "B-2"})

    hooks = Hooks()

    @hooks.on.before_tool_execute
    async def rewrite_execute(ctx: Any, *, call: Any, tool_def: Any, args: Any) -> Any:
        return {**args, "account": "B-2"}

    for options, capabilities in (({"process_tool_call": rewrite_call}, []), ({}, [hooks])):
        output, script, received = asyncio.run(_run_hooked(example_python, ENTRY, capabilities=capabilities, **options))
        assert received == [{"account": "B-2"}]
        assert script.requests == 1 and "Entry of B-2" in output and "A-1" not in output


def test_a_hook_that_replaces_the_result_is_what_the_model_reads(example_python: str) -> None:
    async def redact(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        await call_tool(name, args)
        return "Redacted."

    output, script, received = asyncio.run(_run_hooked(example_python, ENTRY, process_tool_call=redact))
    assert received == [{"account": "A-1"}]
    assert output == SUMMARY and script.requests == 2 and script.read == ["Redacted."]


def test_a_capabilitys_hook_that_replaces_the_result_after_the_call_is_what_the_model_reads(
    example_python: str,
) -> None:
    """A redaction capability rewrites the tool's result after the call (`after_tool_execute`): listed before or
    after the adapter's, its value is what the model reads, never the host's view of the server's result; a hook
    that hands the result on unchanged keeps the route."""

    async def redact(ctx: Any, *, call: Any, tool_def: Any, args: Any, result: Any) -> Any:
        return REDACTED

    async def keep(ctx: Any, *, call: Any, tool_def: Any, args: Any, result: Any) -> Any:
        return result

    async def run(hook: Any, *, first: bool) -> tuple[str, Script]:
        script = Script(list(ENTRY))
        hooks = Hooks(after_tool_execute=hook)
        capabilities = [hooks, DirectAnswers()] if first else [DirectAnswers(), hooks]
        agent = Agent(
            FunctionModel(script.respond), toolsets=[_marked_toolset(example_python)], capabilities=capabilities
        )
        async with agent:
            return (await agent.run("Go.")).output, script

    for first in (True, False):
        output, script = asyncio.run(run(redact, first=first))
        assert output == SUMMARY and script.requests == 2 and script.read == [REDACTED], first
        output, script = asyncio.run(run(keep, first=first))
        assert script.requests == 1 and output.startswith('Verbatim result from tool "entry"'), first


@dataclass
class _Withholding(WrapperToolset):  # pyright: ignore[reportUntypedBaseClass]
    """An application's toolset wrapper that makes the call and withholds its result."""

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
        await self.wrapped.call_tool(name, tool_args, ctx, tool)
        return REDACTED


def test_an_application_toolset_wrapper_that_replaces_the_result_is_what_the_model_reads(example_python: str) -> None:
    script = Script(list(ENTRY))
    toolset = _Withholding(_marked_toolset(example_python))
    agent = Agent(FunctionModel(script.respond), toolsets=[toolset], capabilities=[DirectAnswers()])

    async def run() -> str:
        async with agent:
            return (await agent.run("Go.")).output

    assert asyncio.run(run()) == SUMMARY and script.requests == 2 and script.read == [REDACTED]


def test_the_toolsets_hook_receives_the_result_as_the_toolset_maps_it(example_python: str) -> None:
    """An auditing `process_tool_call` hook logs what the call returned: the toolset's mapping of the result, as
    without the adapter, not the host's view, which replaces it only once the hook has returned it."""
    logged: list[Any] = []

    async def audit_call(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        value = await call_tool(name, args)
        logged.append(value)
        return value

    async def unhelped() -> str:
        script = Script(list(ENTRY))
        toolset = _marked_toolset(example_python, process_tool_call=audit_call)
        async with Agent(FunctionModel(script.respond), toolsets=[toolset]) as agent:
            return (await agent.run("Go.")).output

    output, script, _ = asyncio.run(_run_hooked(example_python, ENTRY, process_tool_call=audit_call))
    helped, logged[:] = list(logged), []
    assert asyncio.run(unhelped()) == SUMMARY
    assert helped == logged == ["Entry of A-1"]
    assert script.requests == 1 and output.startswith('Verbatim result from tool "entry" of server "example".')


def test_a_hook_that_edits_the_result_in_place_is_what_the_model_reads(example_python: str) -> None:
    async def annotate(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        value = await call_tool("received", {})  # a JSON list, which the toolset maps to a list
        value.append({"note": "seen by the auditor"})
        return value

    output, script, _ = asyncio.run(_run_hooked(example_python, [("received", {})], process_tool_call=annotate))
    assert output == SUMMARY and script.requests == 2 and "seen by the auditor" in script.read[0]


def test_a_toolset_whose_class_makes_its_calls_its_own_way_keeps_them(example_python: str) -> None:
    """The wrapper cannot stand in for a call an application's subclass makes: the toolset makes it, the route is
    not taken."""
    seen: list[tuple[str, dict[str, Any]]] = []

    class LoggingToolset(MCPToolset):  # pyright: ignore[reportUntypedBaseClass]
        async def direct_call_tool(self, name: str, args: dict[str, Any], **options: Any) -> Any:
            seen.append((name, dict(args)))
            return await super().direct_call_tool(name, args, **options)

    toolset = LoggingToolset(StdioTransport(command=example_python, args=[MARKED]), id="example", init_timeout=60)
    output, script, received = asyncio.run(_run_hooked(example_python, ENTRY, toolset=toolset))
    assert seen[0] == ("entry", {"account": "A-1"}) and received == [{"account": "A-1"}]
    assert output == SUMMARY and script.requests == 2


def test_an_error_of_a_verbatim_tool_follows_the_toolsets_error_behaviour(example_python: str) -> None:
    parts: list[Any] = []

    async def run(behavior: str) -> str:
        script = Script([("failing", {})])

        def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
            parts.extend(part for message in messages for part in getattr(message, "parts", []))
            return script.respond(messages, info)

        toolset = _marked_toolset(example_python, tool_error_behavior=behavior)
        agent = Agent(FunctionModel(respond), toolsets=[toolset], capabilities=[DirectAnswers()])
        async with agent:
            return (await agent.run("Go.")).output

    # "failed": a failed tool return, not a retry prompt, holding the server's message.
    assert asyncio.run(run("failed")) == SUMMARY
    [failed] = [part for part in parts if isinstance(part, (ToolReturnPart, RetryPromptPart))]
    assert isinstance(failed, ToolReturnPart) and failed.outcome == "failed"
    assert failed.content == "The ledger is closed."
    # "error": the MCP client's error ends the run, as it does without the adapter.
    with pytest.raises(ToolError, match="The ledger is closed"):
        asyncio.run(run("error"))


def test_a_grouped_client_error_is_handled_as_the_toolset_handles_it(example_python: str) -> None:
    """The MCP client runs its session in a task group, so its error may come grouped: the wrapper's call retries or
    fails it as the toolset's own call does, and lets any other group through unchanged."""
    from fastmcp import Client  # pyright: ignore[reportMissingImports]
    from fastmcp.exceptions import McpError  # pyright: ignore[reportMissingImports, reportPrivateImportUsage]

    def grouped(kind: str) -> BaseException:
        errors: dict[str, BaseException] = {
            "protocol": McpError(-32603, "The session went away."),
            "tool": ToolError("The ledger is closed."),
            "other": RuntimeError("Something else."),
        }
        return BaseExceptionGroup("session", [errors[kind]])

    class RacingClient(Client):  # pyright: ignore[reportUntypedBaseClass]
        """A client whose call of `entry` fails with a grouped error, as one racing its session's teardown."""

        kind = "protocol"

        async def call_tool(self, name: str, *args: Any, **kwargs: Any) -> Any:
            if name == "entry":
                raise grouped(self.kind)
            return await super().call_tool(name, *args, **kwargs)

    async def run(kind: str, behavior: str, *, helped: bool) -> tuple[str, Script, list[Any]]:
        script = Script(list(ENTRY))
        parts: list[Any] = []

        def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
            parts[:] = [part for message in messages for part in getattr(message, "parts", [])]
            return script.respond(messages, info)

        client = RacingClient(StdioTransport(command=example_python, args=[MARKED]), init_timeout=60)
        client.kind = kind
        toolset = MCPToolset(client, id="example", tool_error_behavior=behavior)
        capabilities = [DirectAnswers()] if helped else []
        agent = Agent(FunctionModel(respond), toolsets=[toolset], capabilities=capabilities)
        async with agent:
            output = (await agent.run("Go.")).output
        kinds = [type(part).__name__ for part in parts if isinstance(part, (ToolReturnPart, RetryPromptPart))]
        return output, script, kinds

    for kind, behavior in (("protocol", "retry"), ("protocol", "failed"), ("tool", "retry"), ("tool", "failed")):
        output, script, kinds = asyncio.run(run(kind, behavior, helped=True))
        expected = asyncio.run(run(kind, behavior, helped=False))
        assert output == SUMMARY and (script.read, kinds) == (expected[1].read, expected[2]), (kind, behavior)
        assert len(kinds) == 1 and "The ledger is closed." in script.read[0] if kind == "tool" else True
    with pytest.raises(BaseExceptionGroup):
        asyncio.run(run("other", "retry", helped=True))


@dataclass
class _AppRecordProbe(WrapperToolset):  # pyright: ignore[reportUntypedBaseClass]
    """Calls the wrapped `MCPToolset` with each tool naming a UI resource, as the adapter does, and keeps what the
    toolset's `call_tool` returned or raised."""

    returned: list[Any] = field(default_factory=list[Any])

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
        metadata = {**(tool.tool_def.metadata or {})}
        metadata["meta"] = {**(metadata.get("meta") or {}), "ui": {"resourceUri": "ui://probe"}}
        app_tool = dataclasses.replace(tool, tool_def=dataclasses.replace(tool.tool_def, metadata=metadata))
        try:
            value = await self.wrapped.call_tool(name, tool_args, ctx, app_tool)
        except Exception as error:
            self.returned.append(error)
            raise
        self.returned.append(value)
        return value.return_value if isinstance(value, ToolReturn) else value


def test_the_toolsets_app_record_that_the_route_reads_is_pinned(example_python: str) -> None:
    """The adapter gets the raw result of the toolset's own call from `MCPToolset.call_tool`'s record for a tool
    that names a UI resource (`MCPAppToolResult`, Pydantic AI's one public way to it). Pinned here: the record holds
    the result as the server sent it, beside what `direct_call_tool` returns; it is made only when the toolset's
    `process_tool_call` hook hands that value on unchanged; an error result is raised as the toolset's error
    behaviour says, with no record. A release that changes any of it fails here."""

    async def run(module: str, calls: list[tuple[str, dict[str, Any]]], **options: Any) -> tuple[Script, list[Any]]:
        script = Script(calls)
        args = [module] if module.endswith(".py") else ["-m", module]
        toolset = MCPToolset(
            StdioTransport(command=example_python, args=args), id="example", init_timeout=60, **options
        )
        probe = _AppRecordProbe(toolset)
        async with Agent(FunctionModel(script.respond), toolsets=[probe]) as agent:
            await agent.run("Go.")
            mapped = None if calls[0][0] == "failing" else await toolset.direct_call_tool(*calls[0])
        return script, [*probe.returned, mapped]

    _, (returned, mapped) = asyncio.run(run(FINANCIAL, [("financial_statements", {})]))
    assert isinstance(returned, ToolReturn) and returned.return_value == mapped
    sent = reference_result(FINANCIAL, "financial_statements")
    wire = ("content", "structuredContent", "_meta", "isError")  # the result's members (not the protocol's)
    assert returned.metadata["mcp_app"]["result"] == {key: sent[key] for key in wire}

    async def replace(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        await call_tool(name, args)
        return REDACTED

    async def edit(ctx: Any, call_tool: Any, name: str, args: dict[str, Any]) -> Any:
        value = await call_tool("received", {})
        value.append({"note": "seen by the auditor"})
        return value

    _, (returned, _) = asyncio.run(run(MARKED, list(ENTRY), process_tool_call=replace))
    assert returned == REDACTED
    _, (returned, _) = asyncio.run(run(MARKED, [("received", {})], process_tool_call=edit))
    assert isinstance(returned, list) and {"note": "seen by the auditor"} in returned

    script, returned = asyncio.run(run(MARKED, [("failing", {})]))
    assert isinstance(returned[0], ModelRetry) and script.read and "The ledger is closed." in script.read[0]
