"""The Semantic Kernel adapter, in the environment of `semantic-kernel`.

Each test runs SK's own `ChatCompletionAgent` (its auto function invocation loop, unmodified) with a scripted chat
completion service (no model, no network) and an MCP stdio plugin (the adapter's `DirectAnswerMCPStdioPlugin`, or SK's
own `MCPStdioPlugin` without the adapter) against the example servers over stdio, and reads the final message the
user would receive.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import Field
from semantic_kernel import Kernel  # pyright: ignore[reportMissingImports]
from semantic_kernel.agents import ChatCompletionAgent  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.ai import FunctionChoiceBehavior  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.ai.chat_completion_client_base import ChatCompletionClientBase  # pyright: ignore[reportMissingImports]
from semantic_kernel.connectors.ai.prompt_execution_settings import (  # pyright: ignore[reportMissingImports]
    PromptExecutionSettings,
)
from semantic_kernel.connectors.mcp import MCPStdioPlugin  # pyright: ignore[reportMissingImports]
from semantic_kernel.contents import (  # pyright: ignore[reportMissingImports]
    AuthorRole,
    ChatMessageContent,
    FunctionCallContent,
    FunctionResultContent,
    TextContent,
)
from semantic_kernel.functions import (  # pyright: ignore[reportMissingImports]
    FunctionResult,
    KernelArguments,
    kernel_function,
)

from mcp_rendering import audit
from mcp_rendering.integrations.answer import IMITATION_WARNING, UNSTATED_COMPLETENESS
from mcp_rendering.integrations.semantic_kernel import (
    ANSWER_METADATA_KEY,
    DirectAnswerMCPStdioPlugin,
    direct_answers,
)
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations.conftest import ROOT, page_examples, reference_result, run_example
from tests.integrations.marked_server import FAKE_CAPTION, HOSTILE_GUIDANCE

FINANCIAL = "mcp_rendering.examples.financial"
MARKED = str(Path(__file__).with_name("marked_server.py"))
SCREENING = "mcp_rendering.examples.screening"
SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
PLUGIN = "example"


def _plugin(helped: bool) -> Any:
    """The stdio plugin class of a run: the adapter's, or SK's own without the adapter."""
    return DirectAnswerMCPStdioPlugin if helped else MCPStdioPlugin


class ScriptedService(ChatCompletionClientBase):  # pyright: ignore[reportUntypedBaseClass]
    """Calls each of `calls` (function name, arguments) in one turn; once it has function results, writes
    `SUMMARY`, having read them (`read`). A `stubborn` one calls them again in each request that offers functions;
    `offered` says, for each request, whether it offered functions (SK's function choice configured them, as a
    provider's service does, and had not reset them)."""

    SUPPORTS_FUNCTION_CALLING: ClassVar[bool] = True
    calls: list[tuple[str, dict[str, Any]]] = Field(default_factory=list)
    plugin: str = PLUGIN
    plugin_of: dict[str, str] = Field(default_factory=dict)
    stubborn: bool = False
    requests: int = 0
    read: list[str] = Field(default_factory=list)
    offered: list[bool] = Field(default_factory=list)
    configured: Any = None

    def _update_function_choice_settings_callback(self) -> Callable[..., None]:
        def configure(configuration: Any, settings: Any, choice: Any) -> None:
            del configuration, choice
            self.configured = settings

        return configure

    def _reset_function_choice_settings(self, settings: Any) -> None:
        if settings is self.configured:
            self.configured = None

    async def _inner_get_chat_message_contents(self, chat_history: Any, settings: Any) -> list[Any]:
        self.requests += 1
        offered = settings is self.configured
        self.offered.append(offered)
        results = [
            item
            for message in chat_history.messages
            for item in message.items
            if isinstance(item, FunctionResultContent)
        ]
        if results and not (self.stubborn and offered):
            self.read = [str(item.result) for item in results]
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, content=SUMMARY)]
        items = [
            FunctionCallContent(
                id=f"call-{index}",
                function_name=name,
                plugin_name=self.plugin_of.get(name, self.plugin),
                arguments=dict(arguments),
            )
            for index, (name, arguments) in enumerate(self.calls, 1)
        ]
        return [ChatMessageContent(role=AuthorRole.ASSISTANT, items=items)]


async def _run(
    python: str,
    module: str,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    helped: bool = True,
    **options: Any,
) -> tuple[Any, ScriptedService]:
    service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[(n, dict(a)) for n, a in calls])
    args = [module] if module.endswith(".py") else ["-m", module]
    async with _plugin(helped)(name=PLUGIN, command=python, args=args) as plugin:
        answers: Any = direct_answers(service, {"example": plugin}, **options) if helped else {"service": service}
        agent = ChatCompletionAgent(name="analyst", plugins=[plugin], **answers)
        filters = list(agent.kernel.auto_function_invocation_filters)
        response = await agent.get_response(messages="Go.")
        assert agent.kernel.auto_function_invocation_filters == filters  # the call leaves the kernel as it was
    return response.message, service


def test_without_the_adapter_the_final_message_is_the_summary(example_python: str) -> None:
    message, service = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], helped=False))
    assert str(message) == SUMMARY and service.requests == 2


def test_the_route_answers_with_every_record_and_no_summary(example_python: str) -> None:
    message, service = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})]))
    assert service.requests == 1  # the model never read the result
    assert message.role == AuthorRole.ASSISTANT and message.metadata[ANSWER_METADATA_KEY] is True
    assert str(message) == message.content
    assert str(message).startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(str(message), reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    message, _ = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], markdown=True))
    assert str(message).startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(str(message), reference_result(FINANCIAL, "financial_statements"), markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    message, service = asyncio.run(
        _run(example_python, FINANCIAL, [("financial_statements", {})], allow={"example": ["key_figures"]})
    )
    assert str(message) == SUMMARY and service.requests == 2


def test_each_plugin_captions_with_its_own_servers_name_and_allows_only_its_own_tools(example_python: str) -> None:
    """Two servers of one agent: a result of the second is captioned with its own server's name, never the first's,
    and a tool name allowed on the first allows nothing of the second."""

    async def run(**options: Any) -> tuple[Any, ScriptedService]:
        service = ScriptedService(
            service_id="scripted", ai_model_id="scripted", calls=[("entry", {"account": "A-1"})], plugin="ledger"
        )
        async with (
            DirectAnswerMCPStdioPlugin(name="bank", command=example_python, args=["-m", FINANCIAL]) as bank,
            DirectAnswerMCPStdioPlugin(name="ledger", command=example_python, args=[MARKED]) as ledger,
        ):
            answers = direct_answers(service, {"bank": bank, "ledger-2": ledger}, **options)
            agent = ChatCompletionAgent(name="analyst", plugins=[bank, ledger], **answers)
            response = await agent.get_response(messages="Go.")
        return response.message, service

    message, service = asyncio.run(run())
    assert service.requests == 1
    assert str(message).startswith('Verbatim result from tool "entry" of server "ledger-2".')
    assert '"bank"' not in str(message)
    message, service = asyncio.run(run(allow={"bank": ["entry"]}))
    assert str(message) == SUMMARY and service.requests == 2


def test_unmarked_tools_go_to_the_model_untouched(example_python: str) -> None:
    plain, _ = asyncio.run(_run(example_python, FINANCIAL, [("key_figures", {})], helped=False))
    message, service = asyncio.run(_run(example_python, FINANCIAL, [("key_figures", {})]))
    unhelped = asyncio.run(_run(example_python, FINANCIAL, [("key_figures", {})], helped=False))[1]
    assert str(message) == str(plain) == SUMMARY and service.requests == 2
    assert service.read == unhelped.read  # the model read what it reads without the adapter


def test_an_error_result_goes_to_the_model_marked_as_an_error(example_python: str) -> None:
    message, service = asyncio.run(_run(example_python, SCREENING, [("screening_report", {"batch": "nope"})]))
    assert str(message) == SUMMARY and service.requests == 2
    [read] = service.read
    assert read.startswith('The tool "screening_report" of server "example" reported an error.')


def test_a_turn_with_a_verbatim_tool_and_another_goes_to_the_model_in_either_order(example_python: str) -> None:
    for first, second in (("financial_statements", "key_figures"), ("key_figures", "financial_statements")):
        message, service = asyncio.run(_run(example_python, FINANCIAL, [(first, {}), (second, {})]))
        assert str(message) == SUMMARY and service.requests == 2, first
        # The model read the verbatim result as the host's view.
        assert sum(read.startswith("Verbatim result from tool") for read in service.read) == 1, first


def test_a_turn_of_verbatim_calls_only_answers_with_each_in_order(example_python: str) -> None:
    calls = [("financial_statements", {}), ("financial_statements", {})]
    message, service = asyncio.run(_run(example_python, FINANCIAL, calls))
    assert service.requests == 1
    assert str(message).count('Verbatim result from tool "financial_statements" of server "example".') == 2
    assert str(message).startswith("2 results follow, in the order called")


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    message, _ = asyncio.run(_run(example_python, SCREENING, [("screening_report", {})]))
    assert str(message).split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_huge_result_is_bounded_as_present_bounds_it(example_python: str) -> None:
    message, _ = asyncio.run(_run(example_python, FINANCIAL, [("financial_statements", {})], max_rows=3))
    reference = reference_result(FINANCIAL, "financial_statements")
    report = audit(str(message), reference, markup="text")
    assert report.rows_intact == 3 and str(message).split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_result_with_no_content_answers_with_the_hosts_line(example_python: str) -> None:
    message, service = asyncio.run(_run(example_python, MARKED, [("empty", {})]))
    assert service.requests == 1
    assert str(message) == (
        'Verbatim result from tool "empty" of server "example".\n\n'
        f'The tool "empty" of server "example" returned nothing to show.\n\n{UNSTATED_COMPLETENESS}'
    )


def test_a_hostile_result_sits_below_the_hosts_caption_and_its_guidance_is_not_shown(example_python: str) -> None:
    message, _ = asyncio.run(_run(example_python, MARKED, [("hostile", {})]))
    lines = str(message).split("\n\n")
    assert lines[0] == 'Verbatim result from tool "hostile" of server "example".'
    # The host's warning, then the server's imitation, after the host's caption, as its text.
    assert lines[1] == IMITATION_WARNING and lines[2] == FAKE_CAPTION
    assert HOSTILE_GUIDANCE not in str(message)


def test_an_error_of_a_server_marking_every_tool_never_becomes_the_answer(example_python: str) -> None:
    message, service = asyncio.run(_run(example_python, MARKED, [("failing", {})]))
    assert str(message) == SUMMARY and service.requests == 2
    assert service.read == [
        'The tool "failing" of server "example" reported an error. Its message, as the server wrote it:'
        "\n\nThe ledger is closed."
    ]


def test_the_docs_page_example_runs_as_written(tmp_path: Path) -> None:
    [example] = page_examples("semantic-kernel.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
    assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


def test_the_service_refuses_a_kernel_without_its_filter_and_changes_no_kernel(example_python: str) -> None:
    # An application that gives the agent the service alone (not the kernel holding its filter).
    async def run() -> None:
        service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[("financial_statements", {})])
        async with DirectAnswerMCPStdioPlugin(name=PLUGIN, command=example_python, args=["-m", FINANCIAL]) as plugin:
            answers = direct_answers(service, {"example": plugin}, allow={"example": ["financial_statements"]})
            chosen = answers["service"]
            assert chosen.plugins == (plugin,) and chosen.servers == {PLUGIN: "example"}
            assert chosen.allowed.allow == {"example": frozenset({"financial_statements"})}
            assert len(answers["kernel"].auto_function_invocation_filters) == 1
            agent = ChatCompletionAgent(name="analyst", service=chosen, plugins=[plugin])
            with pytest.raises(ValueError, match=r"\*\*direct_answers\(service, plugins, kernel=kernel\)"):
                await agent.get_response(messages="Go.")
            assert agent.kernel.auto_function_invocation_filters == []
            assert service.requests == 0  # refused before any model call

    asyncio.run(run())


def test_direct_answers_checks_its_options_when_called() -> None:
    service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[])
    with pytest.raises(TypeError):
        direct_answers(service, {}, max_rows=True)
    with pytest.raises(TypeError):
        direct_answers(service, {}, allow="financial_statements")  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        direct_answers(service, {}, allow=["financial_statements"])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        direct_answers(service, [])  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError):
        # One name for every plugin would caption a second server's results with it.
        direct_answers(service, {}, server="bank")  # pyright: ignore[reportCallIssue]
    with pytest.raises(ValueError):
        direct_answers(service, {}, max_bytes=-1)
    with pytest.raises(TypeError, match="Kernel"):
        direct_answers(service, {}, kernel=object())


def test_the_one_line_takes_the_applications_own_kernel(example_python: str) -> None:
    """An application's kernel, already holding the model's service, a filter of its own and another plugin: the
    agent runs in that kernel, with the wrapped service in place of the model's, and the plugin given to the agent
    added to it; the verbatim result is the answer, and the application's filter saw the call."""
    seen: list[str] = []

    async def audit_calls(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        seen.append(context.function.name)
        await next(context)

    class Clock:
        @kernel_function
        def now(self) -> str:
            return "noon"

    async def run() -> tuple[Any, ScriptedService, Any]:
        service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[("financial_statements", {})])
        kernel = Kernel()
        kernel.add_service(service)
        kernel.add_plugin(Clock(), plugin_name="clock")
        kernel.add_filter("auto_function_invocation", audit_calls)
        async with DirectAnswerMCPStdioPlugin(name=PLUGIN, command=example_python, args=["-m", FINANCIAL]) as plugin:
            answers = direct_answers(service, {"example": plugin}, kernel=kernel)
            agent = ChatCompletionAgent(name="analyst", plugins=[plugin], **answers)
            assert agent.kernel is kernel and set(kernel.plugins) == {"clock", PLUGIN}
            assert kernel.get_service("scripted") is answers["service"]
            response = await agent.get_response(messages="Go.")
        return response.message, service, kernel

    message, service, kernel = asyncio.run(run())
    assert str(message).startswith('Verbatim result from tool "financial_statements" of server "example".')
    assert message.metadata[ANSWER_METADATA_KEY] is True and service.requests == 1
    assert seen == ["financial_statements"] and len(kernel.auto_function_invocation_filters) == 2


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""


def test_a_result_directive_alone_does_not_take_the_route_nor_a_summarizable_result(example_python: str) -> None:
    # SK's plugin keeps no result's `_meta`: the filter makes the call itself only for a tool with the hint, so a
    # result's directive alone reaches the model through SK's plugin; a hinted tool's summarizable result too.
    for tool in ("directed", "hinted"):
        message, service = asyncio.run(_run(example_python, DIRECTIVE, [(tool, {})]))
        assert str(message) == SUMMARY and service.requests == 2, tool


Filter = Callable[[Any, Callable[[Any], Awaitable[None]]], Awaitable[None]]


async def _run_filtered(
    python: str,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    before: Sequence[Filter] = (),
    auto: Sequence[Filter] = (),
    function: Sequence[Filter] = (),
    helped: bool = True,
    attempts: int | None = None,
    stubborn: bool = False,
) -> tuple[Any, ScriptedService, list[dict[str, Any]]]:
    """`_run` on the server marking every tool, with no allow-list, and the application's own filters: `before`
    and `auto` added before and after the adapter's, `function` as function-invocation filters; with the calls the
    server received. `attempts`: the agent's automatic function choice allows that many rounds."""
    service = ScriptedService(
        service_id="scripted", ai_model_id="scripted", calls=[(n, dict(a)) for n, a in calls], stubborn=stubborn
    )
    async with _plugin(helped)(name=PLUGIN, command=python, args=[MARKED]) as plugin:
        kernel = Kernel()  # the application's own, holding the filters it adds before the adapter's
        for each in before:
            kernel.add_filter("auto_function_invocation", each)
        answers: Any = (
            direct_answers(service, {"example": plugin}, kernel=kernel)
            if helped
            else {"service": service, "kernel": kernel}
        )
        arguments = None
        if attempts is not None:
            choice = FunctionChoiceBehavior.Auto(maximum_auto_invoke_attempts=attempts)
            arguments = KernelArguments(settings=PromptExecutionSettings(function_choice_behavior=choice))
        agent = ChatCompletionAgent(name="analyst", plugins=[plugin], arguments=arguments, **answers)
        for each in auto:
            agent.kernel.add_filter("auto_function_invocation", each)
        for each in function:
            agent.kernel.add_filter("function_invocation", each)
        response = await agent.get_response(messages="Go.")
        received = await plugin.session.call_tool("received", arguments={})
    return response.message, service, json.loads(received.content[0].text)


ENTRY = [("entry", {"account": "A-1"})]
REFUSAL = "Refused by the approval policy."


def test_the_applications_filters_see_a_verbatim_call_with_its_arguments(example_python: str) -> None:
    seen: list[tuple[str, str, dict[str, Any]]] = []

    async def log_auto(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        seen.append(("auto", context.function.name, dict(context.arguments)))
        await next(context)

    async def log_function(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        seen.append(("function", context.function.name, dict(context.arguments)))
        await next(context)

    message, service, received = asyncio.run(
        _run_filtered(example_python, ENTRY, auto=[log_auto], function=[log_function])
    )
    assert seen == [("auto", "entry", {"account": "A-1"}), ("function", "entry", {"account": "A-1"})]
    assert received == [{"account": "A-1"}]
    # The route is still taken, from the result of the call the chain made.
    assert service.requests == 1 and str(message).startswith('Verbatim result from tool "entry" of server "example".')
    assert "Entry of A-1" in str(message)


def test_an_approval_filter_that_refuses_means_no_call_and_no_hosts_view(example_python: str) -> None:
    async def refuse_auto(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        del next
        context.function_result = FunctionResult(function=context.function.metadata, value=REFUSAL)

    async def refuse_function(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        del next
        context.result = FunctionResult(function=context.function.metadata, value=REFUSAL)

    for auto, function in (([refuse_auto], []), ([], [refuse_function])):
        message, service, received = asyncio.run(_run_filtered(example_python, ENTRY, auto=auto, function=function))
        assert received == []  # the server never received the call
        # The model read the refusal and answered, as SK does without the adapter.
        assert str(message) == SUMMARY and service.requests == 2 and service.read == [REFUSAL]


def test_a_policy_that_recognises_sks_own_function_refuses_the_call_in_either_order(example_python: str) -> None:
    # The chain runs SK's own kernel function: a policy comparing it with SK's own lookup (equality and identity)
    # refuses the call whether its filter comes before or after the adapter's, or is a function-invocation filter.
    seen: list[tuple[bool, bool]] = []

    def restricted(context: Any) -> bool:
        function = context.kernel.get_function(PLUGIN, "entry")
        seen.append((context.function == function, context.function is function))
        return context.function == function and context.function is function

    async def policy_auto(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        if restricted(context):
            context.function_result = FunctionResult(function=context.function.metadata, value=REFUSAL)
            return
        await next(context)

    async def policy_function(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        if restricted(context):
            context.result = FunctionResult(function=context.function.metadata, value=REFUSAL)
            return
        await next(context)

    wheres: list[tuple[list[Filter], list[Filter], list[Filter]]] = [
        ([policy_auto], [], []),
        ([], [policy_auto], []),
        ([], [], [policy_function]),
    ]
    for where in wheres:
        before, auto, function = where
        seen.clear()
        message, service, received = asyncio.run(
            _run_filtered(example_python, ENTRY, before=before, auto=auto, function=function)
        )
        assert seen == [(True, True)], where
        assert received == [], where  # the server never received the call
        assert str(message) == SUMMARY and service.requests == 2 and service.read == [REFUSAL], where


def test_direct_answers_refuses_sks_own_plugin_naming_the_class_to_use() -> None:
    # SK's own plugin records no raw result: refused when the service is made, not silently left without a route.
    service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[])
    plain = MCPStdioPlugin(name=PLUGIN, command="python")
    with pytest.raises(TypeError, match="DirectAnswerMCPStdioPlugin"):
        direct_answers(service, {"example": plain})


def test_an_argument_rewriting_filter_decides_what_the_server_receives_and_the_view_shows(example_python: str) -> None:
    async def rewrite_auto(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        context.arguments["account"] = "B-2"
        await next(context)

    async def rewrite_function(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        context.arguments["account"] = "B-2"
        await next(context)

    for auto, function in (([rewrite_auto], []), ([], [rewrite_function])):
        message, service, received = asyncio.run(_run_filtered(example_python, ENTRY, auto=auto, function=function))
        assert received == [{"account": "B-2"}]
        assert service.requests == 1 and "Entry of B-2" in str(message) and "A-1" not in str(message)


def test_a_filter_that_replaces_the_result_is_what_the_model_reads(example_python: str) -> None:
    async def redact(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        await next(context)
        context.result = FunctionResult(function=context.function.metadata, value="Redacted.")

    async def redact_auto(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        await next(context)
        context.function_result = FunctionResult(function=context.function.metadata, value="Redacted.")

    wheres: list[tuple[list[Filter], list[Filter], list[Filter]]] = [
        ([], [], [redact]),
        ([], [redact_auto], []),
        ([redact_auto], [], []),
    ]
    for where in wheres:
        before, auto, function = where
        message, service, received = asyncio.run(
            _run_filtered(example_python, ENTRY, before=before, auto=auto, function=function)
        )
        assert received == [{"account": "A-1"}], where
        assert str(message) == SUMMARY and service.requests == 2 and service.read == ["Redacted."], where


def _redact_the_list(value: Any) -> None:
    value[:] = [TextContent(text="Redacted.")]


def _redact_a_content(value: Any) -> None:
    value[0].text = "Redacted."


def test_a_filter_that_edits_the_result_in_place_is_what_the_model_reads(example_python: str) -> None:
    # Redacting in place keeps SK's objects (the list its `call_tool` returned, a content of it): what the chain
    # left is compared with what SK made, so the model reads the redaction, as without the adapter.
    for edit in (_redact_the_list, _redact_a_content):

        async def redact(context: Any, next: Callable[[Any], Awaitable[None]], edit: Any = edit) -> None:
            await next(context)
            edit(context.result.value)

        async def redact_auto(context: Any, next: Callable[[Any], Awaitable[None]], edit: Any = edit) -> None:
            await next(context)
            edit(context.function_result.value)

        wheres: list[tuple[list[Filter], list[Filter]]] = [([redact_auto], []), ([], [redact])]
        for auto, function in wheres:
            where = (edit.__name__, auto, function)
            message, service, received = asyncio.run(_run_filtered(example_python, ENTRY, auto=auto, function=function))
            alone = asyncio.run(_run_filtered(example_python, ENTRY, auto=auto, function=function, helped=False))[1]
            assert received == [{"account": "A-1"}], where
            assert str(message) == SUMMARY and service.requests == 2 and service.read == alone.read, where
            [read] = service.read
            assert "Redacted." in read and not read.startswith("Verbatim result"), where


def test_a_filter_added_before_that_replaces_one_result_of_two_means_no_route(example_python: str) -> None:
    # The adapter's filter ends the turn on two verbatim calls; one added before it replaces the second result
    # after the chain returned: the model reads both results as the filters left them.
    async def redact_second(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        await next(context)
        if context.arguments["account"] == "B-2":
            context.function_result = FunctionResult(function=context.function.metadata, value="Redacted.")

    calls = [("entry", {"account": "A-1"}), ("entry", {"account": "B-2"})]
    message, service, received = asyncio.run(_run_filtered(example_python, calls, before=[redact_second]))
    assert sorted(call["account"] for call in received) == ["A-1", "B-2"]
    assert str(message) == SUMMARY and service.requests == 2 and len(service.read) == 2
    assert "Redacted." in service.read and any("Entry of A-1" in read for read in service.read)


async def _withhold(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
    await next(context)
    context.function_result = FunctionResult(function=context.function.metadata, value="Withheld.")


def test_a_replaced_result_at_the_edge_of_the_function_rounds_gets_sks_last_model_call(example_python: str) -> None:
    # One round of function calling allowed; a filter added before the adapter's replaces the verbatim result: as
    # SK alone, the model reads the replacement in a last call without functions, and its text is the answer.
    for helped in (False, True):
        message, service, received = asyncio.run(
            _run_filtered(example_python, ENTRY, before=[_withhold], helped=helped, attempts=1)
        )
        assert received == [{"account": "A-1"}], helped
        assert message.role == AuthorRole.ASSISTANT and str(message) == SUMMARY, helped
        assert service.read == ["Withheld."] and service.offered == [True, False], helped


def test_a_replaced_result_leaves_sks_loop_the_rounds_it_has_left(example_python: str) -> None:
    # A model that calls the verbatim tool in each request offering functions, three rounds allowed: the replaced
    # results take no route, and SK's loop runs its three rounds in all, then its last call without functions.
    runs = [
        asyncio.run(_run_filtered(example_python, ENTRY, before=[_withhold], helped=h, attempts=3, stubborn=True))
        for h in (False, True)
    ]
    for message, service, received in runs:
        assert len(received) == 3 and service.offered == [True, True, True, False]
        assert message.role == AuthorRole.ASSISTANT and str(message) == SUMMARY
        assert service.read == ["Withheld."] * 3


NAMING = str(Path(__file__).with_name("naming_server.py"))
"""A server whose tools `read ledger` (not marked) and `read-ledger` (marked) are both SK's function
``read-ledger``, with a prompt `greeting` and a count of its `tools/list` requests (`listings`)."""


async def _run_probed(
    python: str,
    server: str,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    probe: str,
    *,
    helped: bool,
    prepare: Callable[[Any], object] = id,
) -> tuple[Any, ScriptedService, str]:
    """`_run` on the server script `server`, `prepare` given the connected plugin first; with the text of the
    server's tool `probe` after the turn."""
    service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[(n, dict(a)) for n, a in calls])
    async with _plugin(helped)(name=PLUGIN, command=python, args=[server]) as plugin:
        prepare(plugin)
        answers: Any = direct_answers(service, {"example": plugin}) if helped else {"service": service}
        agent = ChatCompletionAgent(name="analyst", plugins=[plugin], **answers)
        response = await agent.get_response(messages="Go.")
        probed = await plugin.session.call_tool(probe, arguments={})
    return response.message, service, probed.content[0].text


def test_the_filter_calls_the_tool_sks_own_function_calls(example_python: str) -> None:
    # SK binds its function "read-ledger" to the first tool of that normalized name, "read ledger" (not marked):
    # the call is that tool's, and the model reads its result, as without the adapter.
    calls = [("read-ledger", {})]
    message, service, _ = asyncio.run(_run_probed(example_python, NAMING, calls, "listings", helped=True))
    _, unhelped, _ = asyncio.run(_run_probed(example_python, NAMING, calls, "listings", helped=False))
    assert str(message) == SUMMARY and service.requests == 2
    assert service.read == unhelped.read and "Called: read ledger" in service.read[0]


def test_calls_of_a_prompts_function_list_no_tools(example_python: str) -> None:
    # SK lists the tools once, when it connects; the calls of a prompt's function add no listing.
    calls = [("greeting", {})] * 5
    message, _, listings = asyncio.run(_run_probed(example_python, NAMING, calls, "listings", helped=True))
    _, _, unhelped = asyncio.run(_run_probed(example_python, NAMING, calls, "listings", helped=False))
    assert str(message) == SUMMARY and listings == unhelped == "1"


def test_a_plugin_without_its_tools_loaded_refuses_a_verbatim_call_with_sks_own_error(example_python: str) -> None:
    # SK's function refuses the call of a plugin whose tools are not to be loaded; the filter's function refuses it
    # with SK's own error, which the model reads, and the server receives nothing.
    def unload(plugin: Any) -> None:
        plugin.load_tools_flag = False

    message, service, received = asyncio.run(
        _run_probed(example_python, MARKED, ENTRY, "received", helped=True, prepare=unload)
    )
    _, unhelped, _ = asyncio.run(_run_probed(example_python, MARKED, ENTRY, "received", helped=False, prepare=unload))
    assert str(message) == SUMMARY and service.requests == 2 and received == "[]"
    assert service.read == unhelped.read and "load_tools=True" in service.read[0]


def test_the_tools_hints_are_listed_again_when_sk_loads_the_tools_again(example_python: str) -> None:
    # The server unmarks `ledger`, and SK's plugin loads its tools again (`load_tools`, which it runs on the server's
    # notifications/tools/list_changed): the filter lists the hints again, and the next call goes to the model.
    async def run() -> tuple[Any, Any, ScriptedService]:
        service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[("ledger", {})])
        async with DirectAnswerMCPStdioPlugin(name=PLUGIN, command=example_python, args=[NAMING]) as plugin:
            agent = ChatCompletionAgent(
                name="analyst", plugins=[plugin], **direct_answers(service, {"example": plugin})
            )
            first = await agent.get_response(messages="Go.")
            await plugin.session.call_tool("unmark", arguments={})
            await plugin.load_tools()
            second = await agent.get_response(messages="Again.")
        return first.message, second.message, service

    first, second, service = asyncio.run(run())
    assert str(first).startswith('Verbatim result from tool "ledger" of server "example".')
    assert str(second) == SUMMARY and service.requests == 3 and "Ledger entries." in service.read[0]


CHART = str(Path(__file__).with_name("chart_server.py"))
"""A server whose tools `chart` (result summarizable) and `chart_verbatim` return a text, an image and audio."""
SK_CONTENTS = ["TextContent", "ImageContent", "AudioContent"]
"""SK's own contents for the chart's blocks (its plugin's mapping)."""


async def _run_charted(python: str, tool: str, *, helped: bool) -> tuple[Any, ScriptedService, list[list[str]]]:
    """`_run` on the chart server, with the application's filter added after the adapter's; with the kinds of SK
    contents that filter saw as the function's value."""
    seen: list[list[str]] = []

    async def inner(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        await next(context)
        seen.append([type(item).__name__ for item in context.function_result.value])

    service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[(tool, {})])
    async with _plugin(helped)(name=PLUGIN, command=python, args=[CHART]) as plugin:
        answers: Any = direct_answers(service, {"example": plugin}) if helped else {"service": service}
        agent = ChatCompletionAgent(name="analyst", plugins=[plugin], **answers)
        agent.kernel.add_filter("auto_function_invocation", inner)
        response = await agent.get_response(messages="Go.")
    return response.message, service, seen


def test_the_model_and_the_filters_read_sks_own_contents_of_a_result(example_python: str) -> None:
    # A summarizable result of a verbatim-hinted tool: the model reads SK's own contents (an image as SK's
    # ImageContent, not as text), and so does a filter added after the adapter's, as without the adapter.
    message, service, seen = asyncio.run(_run_charted(example_python, "chart", helped=True))
    _, unhelped, seen_alone = asyncio.run(_run_charted(example_python, "chart", helped=False))
    assert seen == seen_alone == [SK_CONTENTS]
    assert str(message) == SUMMARY and service.requests == 2 and service.read == unhelped.read
    # A verbatim result: that filter sees SK's own contents too; the host's view, with every block, is the answer.
    message, service, seen = asyncio.run(_run_charted(example_python, "chart_verbatim", helped=True))
    assert seen == [SK_CONTENTS] and service.requests == 1
    assert str(message).startswith('Verbatim result from tool "chart_verbatim" of server "example".')
    assert "Revenue by quarter" in str(message) and "[image: image/png]" in str(message)


MIXED = str(Path(__file__).with_name("mixed_blocks_server.py"))
"""A server whose tool `mixed`, marked verbatim, returns a resource link between other blocks."""


SK_LINK_ERROR = "An error occurred while invoking the function example-mixed: Failed to call tool 'mixed'."
"""What SK alone makes of a result holding a resource link (semantic-kernel 1.45: its mapping refuses the link)."""


def test_a_verbatim_result_sks_mapping_fails_on_answers_from_the_raw_result(example_python: str) -> None:
    # SK's mapping of a resource link fails, and SK alone tells the model the call failed (the server did run it).
    # The plugin recorded the raw result before the mapping raised: the route is taken from it, every block shown.
    # Fails once SK maps a link (then SK's own mapping is kept, and the page's sentence on it has to follow).
    _, unhelped, _ = asyncio.run(_run_probed(example_python, MIXED, [("mixed", {})], "mixed", helped=False))
    assert unhelped.read == [SK_LINK_ERROR]
    message, service, _ = asyncio.run(_run_probed(example_python, MIXED, [("mixed", {})], "mixed", helped=True))
    assert service.requests == 1 and message.metadata[ANSWER_METADATA_KEY] is True
    assert str(message).startswith('Verbatim result from tool "mixed" of server "example".')
    shown = [str(message).index(text) for text in ("Row one", "ledger.csv", "audio/wav", "memo.txt", "Row two")]
    assert shown == sorted(shown)  # every block, in the order sent


def test_a_filter_that_replaces_sks_error_on_an_unmapped_result_is_what_the_model_reads(example_python: str) -> None:
    # The application's filter after the adapter's sees SK's own error result and replaces it: no route.
    seen: list[str] = []

    async def redact(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        await next(context)
        seen.append(str(context.function_result.value))
        context.function_result = FunctionResult(function=context.function.metadata, value="Redacted.")

    async def run() -> tuple[Any, ScriptedService]:
        service = ScriptedService(service_id="scripted", ai_model_id="scripted", calls=[("mixed", {})])
        async with DirectAnswerMCPStdioPlugin(name=PLUGIN, command=example_python, args=[MIXED]) as plugin:
            agent = ChatCompletionAgent(
                name="analyst", plugins=[plugin], **direct_answers(service, {"example": plugin})
            )
            agent.kernel.add_filter("auto_function_invocation", redact)
            response = await agent.get_response(messages="Go.")
        return response.message, service

    message, service = asyncio.run(run())
    assert seen == [SK_LINK_ERROR]
    assert str(message) == SUMMARY and service.requests == 2 and service.read == ["Redacted."]


def test_a_summarizable_result_sks_mapping_fails_on_reaches_the_model_as_the_hosts_text(example_python: str) -> None:
    # No route for a result that may be summarized; the model reads the host's text of the raw result, not SK's
    # error saying the call failed.
    _, unhelped, _ = asyncio.run(_run_charted(example_python, "chart_linked", helped=False))
    assert unhelped.read == [SK_LINK_ERROR.replace("mixed", "chart_linked")]
    message, service, _ = asyncio.run(_run_charted(example_python, "chart_linked", helped=True))
    assert str(message) == SUMMARY and service.requests == 2
    [read] = service.read
    assert "Failed to call tool" not in read and "Revenue by quarter" in read and "chart.csv" in read


class Clock:
    """A function of the caller's own, beside the agent it is given."""

    @kernel_function(name="now", description="The time.")
    def now(self) -> str:
        return "It is noon."


ASK_ANALYST = ("analyst", {"messages": "Show the accounts"})


async def _run_nested(
    python: str,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    listed: bool = True,
    tool: str = "financial_statements",
    before: Sequence[Filter] = (),
    function: Sequence[Filter] = (),
    analyst_bound: Mapping[str, Any] | None = None,
    caller_bound: Mapping[str, Any] | None = None,
) -> tuple[Any, ScriptedService, ScriptedService]:
    """An agent ("orchestrator") given another ("analyst", with its own line, calling `tool`) as a plugin, and
    `Clock`; the caller's model makes `calls` in one step. `listed`: the caller's line names the analyst. `before`:
    the caller's auto-function-invocation filters added before the adapter's; `function`: its function-invocation
    filters. `analyst_bound`, `caller_bound`: the bounds given to each line. Returns the caller's answer, its service
    and the analyst's."""
    analyst_service = ScriptedService(service_id="analyst", ai_model_id="analyst", calls=[(tool, {})])
    caller_service = ScriptedService(
        service_id="caller",
        ai_model_id="caller",
        calls=[(n, dict(a)) for n, a in calls],
        plugin="analyst",
        plugin_of={"now": "Clock", "financial_statements": PLUGIN},
    )
    async with DirectAnswerMCPStdioPlugin(name=PLUGIN, command=python, args=["-m", FINANCIAL]) as plugin:
        analyst = ChatCompletionAgent(
            name="analyst",
            description="Reads the accounts.",
            plugins=[plugin],
            **direct_answers(analyst_service, {"example": plugin}, **(analyst_bound or {})),
        )
        # The caller holds the analyst's server too: its line names both, as the servers of one agent.
        agents: dict[str, Any] = {"example": plugin, "analyst": analyst} if listed else {"example": plugin}
        kernel = Kernel()
        for each in before:
            kernel.add_filter("auto_function_invocation", each)
        caller = ChatCompletionAgent(
            name="orchestrator",
            plugins=[analyst, Clock(), plugin],
            **direct_answers(caller_service, agents, kernel=kernel, **(caller_bound or {})),
        )
        for each in function:
            caller.kernel.add_filter("function_invocation", each)
        response = await caller.get_response(messages="Go.")
    return response.message, caller_service, analyst_service


def test_an_agent_given_as_a_plugin_ends_the_callers_turn_with_its_view(example_python: str) -> None:
    message, caller, analyst = asyncio.run(_run_nested(example_python, [ASK_ANALYST]))
    assert caller.requests == 1 and analyst.requests == 1  # no model read the result
    assert message.role == AuthorRole.ASSISTANT and message.metadata[ANSWER_METADATA_KEY] is True
    assert str(message) == message.content
    assert str(message).startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(str(message), reference_result(FINANCIAL, "financial_statements"), markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean
    # Not named in the caller's line: the caller's model reads the view and answers.
    unlisted, caller, _ = asyncio.run(_run_nested(example_python, [ASK_ANALYST], listed=False))
    assert str(unlisted) == SUMMARY and caller.requests == 2 and caller.read == [str(message)]


def test_the_nested_agents_view_has_its_own_bounds_not_the_callers(example_python: str) -> None:
    """As the page says: the agent's line bounds its view, whatever the caller's line gives."""
    reference = reference_result(FINANCIAL, "financial_statements")
    bound = {"max_bytes": 2000}
    whole, _, _ = asyncio.run(_run_nested(example_python, [ASK_ANALYST], caller_bound=bound))
    assert audit(str(whole), reference, markup="text").rows_intact == 54 and len(str(whole).encode()) > 2000
    bounded, _, _ = asyncio.run(_run_nested(example_python, [ASK_ANALYST], analyst_bound=bound))
    assert audit(str(bounded), reference, markup="text").rows_intact < 54
    page = " ".join((ROOT / "docs" / "semantic-kernel.md").read_text(encoding="utf-8").split())
    assert "The agent's view keeps the bounds of the agent's own line" in page


def test_a_step_with_the_nested_agent_and_another_function_goes_to_the_callers_model(example_python: str) -> None:
    for calls in ([ASK_ANALYST, ("now", {})], [("now", {}), ASK_ANALYST]):
        message, caller, _ = asyncio.run(_run_nested(example_python, calls))
        assert str(message) == SUMMARY and caller.requests == 2, calls
        assert len(caller.read) == 2 and "It is noon." in caller.read, calls
        assert sum(read.startswith("Verbatim result from tool") for read in caller.read) == 1, calls


def test_two_calls_of_the_nested_agent_in_one_step_answer_with_each_view(example_python: str) -> None:
    message, caller, analyst = asyncio.run(_run_nested(example_python, [ASK_ANALYST, ASK_ANALYST]))
    assert caller.requests == 1 and analyst.requests == 2
    assert str(message).startswith("2 results follow, in the order called")
    assert str(message).count('Verbatim result from tool "financial_statements" of server "example".') == 2


def test_a_step_with_the_nested_agent_and_a_verbatim_tool_answers_with_both_views(example_python: str) -> None:
    calls = [ASK_ANALYST, ("financial_statements", {})]
    message, caller, analyst = asyncio.run(_run_nested(example_python, calls))
    assert caller.requests == 1 and analyst.requests == 1
    assert str(message).startswith("2 results follow, in the order called")
    assert str(message).count('Verbatim result from tool "financial_statements" of server "example".') == 2


def test_a_nested_agent_whose_model_answers_leaves_the_callers_model_to_answer(example_python: str) -> None:
    message, caller, analyst = asyncio.run(_run_nested(example_python, [ASK_ANALYST], tool="key_figures"))
    assert str(message) == SUMMARY and caller.requests == 2 and analyst.requests == 2
    assert caller.read == [SUMMARY]


async def _copy_the_answer(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
    await next(context)
    value = context.result.value
    copied = ChatMessageContent(role=AuthorRole.ASSISTANT, content=str(value))
    context.result = FunctionResult(function=context.function.metadata, value=copied)


async def _edit_the_answer(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
    await next(context)
    context.result.value.items[0].text += "\nReviewed."


def test_a_filter_that_replaces_or_edits_the_nested_answer_leaves_the_callers_model_to_answer(
    example_python: str,
) -> None:
    """Only the very message the nested agent's service made, unchanged, is its answer: an equal copy is not."""
    for each in (_copy_the_answer, _edit_the_answer):
        message, caller, _ = asyncio.run(_run_nested(example_python, [ASK_ANALYST], function=[each]))
        assert str(message) == SUMMARY and caller.requests == 2, each.__name__
        [read] = caller.read
        assert read.startswith("Verbatim result from tool"), each.__name__


async def _reword_after(context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
    await next(context)
    reworded = ChatMessageContent(role=AuthorRole.ASSISTANT, content="All is well.")
    context.function_result = FunctionResult(function=context.function.metadata, value=reworded)


def test_a_filter_added_before_that_rewords_the_nested_answer_leaves_the_callers_model_to_answer(
    example_python: str,
) -> None:
    message, caller, _ = asyncio.run(_run_nested(example_python, [ASK_ANALYST], before=[_reword_after]))
    assert str(message) == SUMMARY and caller.requests == 2 and caller.read == ["All is well."]


def test_concurrent_callers_keep_their_own_nested_answers(example_python: str) -> None:
    """Two callers at once, one whose analyst answers directly and one whose analyst's model answers."""

    async def both() -> list[tuple[Any, ScriptedService, ScriptedService]]:
        return list(
            await asyncio.gather(
                _run_nested(example_python, [ASK_ANALYST]),
                _run_nested(example_python, [ASK_ANALYST], tool="key_figures"),
            )
        )

    (direct, direct_caller, _), (summarized, summarized_caller, _) = asyncio.run(both())
    assert str(direct).startswith('Verbatim result from tool "financial_statements"') and direct_caller.requests == 1
    assert str(summarized) == SUMMARY and summarized_caller.requests == 2 and summarized_caller.read == [SUMMARY]


def test_direct_answers_refuses_a_nested_agent_without_its_own_line_or_of_another_form() -> None:
    service = ScriptedService(service_id="scripted", ai_model_id="scripted")
    plain = ChatCompletionAgent(name="analyst", service=service)
    with pytest.raises(TypeError, match="does not answer directly"):
        direct_answers(service, {"analyst": plain})
    marked = ChatCompletionAgent(name="analyst", **direct_answers(service, {}, markdown=True))
    with pytest.raises(ValueError, match="same markdown option"):
        direct_answers(service, {"analyst": marked})
