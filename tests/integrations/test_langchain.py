"""The LangChain adapter, in the environment of `langchain-mcp-adapters` (which runs on the MCP SDK's 1.x line).

Checks that the host side imports and reads carriers without the SDK 2.x, then drives the interceptor through a
real `load_mcp_tools` against the example servers over stdio.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from importlib import metadata
from pathlib import Path
from typing import Any, cast

import pytest
from langchain_core.messages import ToolMessage  # pyright: ignore[reportMissingImports]
from langchain_core.tools import ToolException  # pyright: ignore[reportMissingImports]
from langchain_mcp_adapters.tools import load_mcp_tools  # pyright: ignore[reportMissingImports]
from mcp import ClientSession, StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]
from mcp.client.stdio import stdio_client

from mcp_rendering import audit, resolve_rendering
from mcp_rendering.host import FRAMING_HEADER
from mcp_rendering.integrations.langchain import RenderedCall, rendering_interceptor
from mcp_rendering.reading import combine_parts
from mcp_rendering.types import EXTENSION_ID, PARTIAL_MARKER
from tests.integrations.conftest import page_examples, records_in_text, run_example
from tests.support.directive_server import HINTED_TEXT

_ADAPTERS_VERSION = tuple(int(part) for part in metadata.version("langchain-mcp-adapters").split(".")[:2])
ROUTE_ENVIRONMENT = _ADAPTERS_VERSION >= (0, 3)
"""The route's examples and tests need LangChain's agent loop (`langchain`, installed as docs/langchain.md says),
pinned in the newest environment; the lowest one pins the adapters alone, to test their lower bound. Where it is
pinned, a failed import fails the tests rather than skipping them."""

FINANCIAL = "mcp_rendering.examples.financial"
SCREENING = "mcp_rendering.examples.screening"


def test_runs_on_the_sdk_1x() -> None:
    assert metadata.version("mcp").startswith("1."), "this file must run where langchain-mcp-adapters resolved"


def test_host_side_imports_without_the_sdk_2x() -> None:
    # A fresh interpreter: this test module itself has imported `mcp` (1.x) for the client.
    probe = (
        "import sys, json\n"
        "import mcp_rendering, mcp_rendering.host, mcp_rendering.reading, mcp_rendering.audit\n"
        "import mcp_rendering.records, mcp_rendering.render\n"
        "import mcp_rendering.integrations.langchain\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_server_side_names_say_what_they_need() -> None:
    import mcp_rendering

    with pytest.raises(ImportError, match=r"mcp-rendering\[sdk\]"):
        _ = mcp_rendering.verbatim_result


def test_reading_accepts_sdk_1x_models_and_wire_dicts() -> None:
    from mcp.types import CallToolResult, Tool

    tool_wire = {
        "name": "statements",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True, "summarizeOkHint": True},
        "_meta": {EXTENSION_ID: {"verbatimHint": True}},
    }
    result_wire = {
        "content": [{"type": "text", "text": "a"}],
        # Core form only: a host that opts in reads it where the result carrier is absent.
        "_rendering": {"mode": "verbatim", "guidance": "Keep the order.", "nullDisplay": "n/a", "complete": False},
    }
    tool, result = Tool.model_validate(tool_wire), CallToolResult.model_validate(result_wire)
    assert result.model_extra is not None and "_rendering" in result.model_extra  # kept by 1.x as an extra
    for pair in ((tool, result), (tool_wire, result_wire)):
        rendering = resolve_rendering(*pair, core_form=True)  # the core form is read only on opt-in
        assert rendering.mode == "verbatim"
        assert rendering.source == "result._rendering"
        assert rendering.guidance == "Keep the order."
        assert rendering.null_display == "n/a"
        assert rendering.complete is False
        # The tool carrier is present, so the core-form hint in its annotations is not read.
        assert rendering.hints.verbatim_hint is True and rendering.hints.summarize_ok_hint is None
    assert resolve_rendering(tool, None).mode == "verbatim"


@asynccontextmanager
async def _session(python: str, module: str, *args: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=python, args=["-m", module, *args])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _texts(message: ToolMessage) -> list[str]:
    content: Any = message.content
    blocks: Sequence[Any] = [content] if isinstance(content, str) else content
    return [
        block if isinstance(block, str) else block["text"]
        for block in blocks
        if isinstance(block, str) or block.get("type") == "text"
    ]


async def _call(tool: Any, args: dict[str, Any], call_id: str = "call-1") -> ToolMessage:
    message = await tool.ainvoke({"type": "tool_call", "id": call_id, "name": tool.name, "args": args})
    assert isinstance(message, ToolMessage)
    return message


def test_interceptor_gives_the_model_the_framing_and_every_record(example_python: str) -> None:
    async def scenario() -> None:
        async with _session(example_python, FINANCIAL) as session:
            shown: list[RenderedCall] = []
            interceptor = rendering_interceptor(session, server="example-financial", on_presentation=shown.append)
            tools = {tool.name: tool for tool in await load_mcp_tools(session, tool_interceptors=[interceptor])}
            message = await _call(tools["financial_statements"], {})
            raw = await session.call_tool("financial_statements", {})

        texts = _texts(message)
        assert texts[0].startswith(FRAMING_HEADER)
        assert "Mode: verbatim." in texts[0]
        assert message.status == "success" and message.tool_call_id == "call-1"
        # The adapters forward content blocks alone: the records come in the text after the framing.
        assert records_in_text(texts, raw.model_dump(mode="json", by_alias=True, exclude_none=True)) == 54

        [call] = shown
        presentation = call.presentation
        assert (call.server, call.tool, dict(call.arguments)) == ("example-financial", "financial_statements", {})
        assert presentation.mode == "verbatim" and presentation.complete
        assert presentation.caption is not None and "example-financial" in presentation.caption
        assert audit(presentation.text, raw).clean
        assert audit(presentation.markdown, raw, markup="markdown").clean

        artifact = message.artifact
        assert artifact is not None
        assert artifact["structured_content"]["_rendering"]["mode"] == "verbatim"
        assert len(artifact["structured_content"]["document"]["sections"]) == 4

    asyncio.run(scenario())


def test_interceptor_uses_the_tool_hints(example_python: str) -> None:
    async def scenario() -> None:
        async with _session(example_python, FINANCIAL) as session:
            shown: list[RenderedCall] = []
            interceptor = rendering_interceptor(session, on_presentation=shown.append)
            tools = {tool.name: tool for tool in await load_mcp_tools(session, tool_interceptors=[interceptor])}
            listed = (await session.list_tools()).tools
            tool = await interceptor.tool("unknown", "financial_statements")
            assert tool is not None and resolve_rendering(tool, None).mode == "verbatim"
            message = await _call(tools["key_figures"], {})

            fixed: list[RenderedCall] = []
            by_list = rendering_interceptor(tools=listed, on_presentation=fixed.append)
            tools = {tool.name: tool for tool in await load_mcp_tools(session, tool_interceptors=[by_list])}
            await _call(tools["key_figures"], {})

        # key_figures sends no directive: only its summarizeOkHint, read from the listed tool, sets the mode.
        assert [call.presentation.mode for call in shown + fixed] == ["summarizable", "summarizable"]
        assert _texts(message)[0].startswith(FRAMING_HEADER)
        assert "Mode: summarizable." in _texts(message)[0]

    asyncio.run(scenario())


def test_interceptor_with_a_multi_server_client(example_python: str) -> None:
    from langchain_mcp_adapters.client import MultiServerMCPClient  # pyright: ignore[reportMissingImports]

    async def scenario() -> tuple[ToolMessage, list[RenderedCall]]:
        shown: list[RenderedCall] = []
        interceptor = rendering_interceptor(on_presentation=shown.append)
        connection: Any = {"transport": "stdio", "command": example_python, "args": ["-m", FINANCIAL]}
        client = MultiServerMCPClient({"accounts": connection}, tool_interceptors=[interceptor])
        interceptor.client = client
        tools = {tool.name: tool for tool in await client.get_tools()}
        message = await _call(tools["key_figures"], {})
        return message, shown

    message, shown = asyncio.run(scenario())
    [call] = shown
    # The mode comes from the tool's hint, listed through a session the client opened for "accounts".
    assert call.server == "accounts" and call.presentation.mode == "summarizable"
    assert _texts(message)[0].startswith(FRAMING_HEADER)


def test_partial_pages_carry_the_notice_and_combine_whole(example_python: str) -> None:
    async def scenario() -> tuple[list[ToolMessage], list[RenderedCall]]:
        async with _session(example_python, SCREENING) as session:
            shown: list[RenderedCall] = []
            interceptor = rendering_interceptor(session, on_presentation=shown.append)
            tools = {tool.name: tool for tool in await load_mcp_tools(session, tool_interceptors=[interceptor])}
            report = tools["screening_report"]
            messages = [await _call(report, {})]
            for page in range(2, 50):
                following = shown[-1].presentation.next_arguments(shown[-1].arguments)  # its own call's
                if following is None:
                    break
                messages.append(await _call(report, following, f"call-{page}"))
        return messages, shown

    messages, shown = asyncio.run(scenario())
    assert len(messages) >= 2, "the example batch takes several pages"
    for message, call in zip(messages[:-1], shown[:-1], strict=True):
        assert PARTIAL_MARKER in _texts(message)[0]
        assert not call.presentation.complete
        assert call.presentation.notice is not None and call.presentation.notice.startswith(PARTIAL_MARKER)
        assert call.presentation.text.startswith(PARTIAL_MARKER)
    # The last part, read alone, is not the whole: it says so, and that the earlier parts hold the rest.
    assert "the last part of a result fetched in parts" in _texts(messages[-1])[0]
    assert not shown[-1].presentation.complete and shown[-1].presentation.next_arguments(shown[-1].arguments) is None
    assert combine_parts([call.presentation.rendering for call in shown])[1]
    rows = [
        row.id
        for call in shown
        if call.presentation.document
        for s in call.presentation.document.sections
        for row in s.rows
    ]
    assert len(rows) == len(set(rows)), "no record is shown twice across pages"


def test_tool_errors_reach_the_model_unchanged(example_python: str) -> None:
    async def scenario() -> tuple[ToolMessage | ToolException, list[RenderedCall]]:
        async with _session(example_python, SCREENING) as session:
            shown: list[RenderedCall] = []
            interceptor = rendering_interceptor(session, on_presentation=shown.append)
            tools = {tool.name: tool for tool in await load_mcp_tools(session, tool_interceptors=[interceptor])}
            try:
                return await _call(tools["screening_report"], {"batch": "no-such-batch"}), shown
            except ToolException as error:
                return error, shown

    outcome, shown = asyncio.run(scenario())
    if _ADAPTERS_VERSION < (0, 3):
        # Before 0.3 the adapters raise an error result as ToolException, which LangChain's tool node hands the model.
        assert isinstance(outcome, ToolException)
        text = str(outcome)
    else:
        assert isinstance(outcome, ToolMessage) and outcome.status == "error"
        text = _texts(outcome)[0]
    assert "unknown batch" in text and FRAMING_HEADER not in text
    assert shown == []


def test_at_most_one_tool_source() -> None:
    with pytest.raises(ValueError, match="at most one"):
        rendering_interceptor(object(), tools=[])  # type: ignore[arg-type]


def test_a_server_name_only_for_a_session() -> None:
    # A client's or a tools list's calls may come from several servers: each is captioned with its own name.
    with pytest.raises(ValueError, match="only with session"):
        rendering_interceptor(client=cast("Any", object()), server="bank")
    with pytest.raises(ValueError, match="only with session"):
        rendering_interceptor(tools=[], server="bank")
    with pytest.raises(ValueError, match="only with session"):
        rendering_interceptor(server="bank")


def test_the_docs_page_examples_run_as_written(tmp_path: Path) -> None:
    example, multi_server, route = page_examples("langchain.md")
    done = run_example(example, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "example-financial" in done.stdout  # the caption names the server
    assert "Capitaux propres" in done.stdout  # a record, as the user sees it
    assert FRAMING_HEADER in done.stdout  # the framing the model reads first
    done = run_example(multi_server, tmp_path)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    if ROUTE_ENVIRONMENT:
        done = run_example(route, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith('Verbatim result from tool "financial_statements" of server "example-financial".')
        assert "Capitaux propres" in done.stdout and "Equity is up." not in done.stdout


# ------------------------------------------------------------------------------------- the return-direct route

SUMMARY = "Revenue grew.\nEquity is up.\nNothing else to report."
"""What the scripted model writes after the tool calls: a stand-in for a model that summarizes."""


def _scripted_model(
    turn: Sequence[tuple[str, dict[str, Any]]], more_turns: Sequence[Sequence[tuple[str, dict[str, Any]]]] = ()
) -> Any:
    """LangChain's own fake chat model, answering tool-calling turns and then `SUMMARY` (tools bound as given)."""
    from langchain_core.language_models.fake_chat_models import (  # pyright: ignore[reportMissingImports]
        GenericFakeChatModel,
    )
    from langchain_core.messages import AIMessage  # pyright: ignore[reportMissingImports]

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    replies = [
        AIMessage(
            content="",
            tool_calls=[
                {"name": name, "args": args, "id": f"call-{n}" if not index else f"call-{index}-{n}"}
                for n, (name, args) in enumerate(calls)
            ],
        )
        for index, calls in enumerate([turn, *more_turns])
    ]
    return Scripted(messages=iter([*replies, AIMessage(content=SUMMARY)]))


async def _agent_run(
    python: str,
    module: str,
    turn: Sequence[tuple[str, dict[str, Any]]],
    *,
    markdown: bool = False,
    allow: Sequence[str] | None = None,
    more_turns: Sequence[Sequence[tuple[str, dict[str, Any]]]] = (),
    with_interceptor: bool = True,
) -> tuple[Any, Any]:
    if not ROUTE_ENVIRONMENT:
        pytest.skip("the lowest environment pins the adapters alone, without LangChain's agent loop")
    from langchain.agents import create_agent  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.langchain import answer_directly, direct_answer_interceptor

    async with _session(python, module) as session:
        interceptors = [direct_answer_interceptor()] if with_interceptor else []
        loaded = await load_mcp_tools(session, tool_interceptors=interceptors)
        allowed = None if allow is None else {"example": allow}
        tools = answer_directly({"example": loaded}, markdown=markdown, allow=allowed)
        agent = create_agent(_scripted_model(turn, more_turns), tools)
        state = await agent.ainvoke({"messages": [("user", "Show the accounts")]})
        raw = await session.call_tool(turn[0][0], turn[0][1])
    return state["messages"], raw


def test_the_route_answers_with_every_record_and_no_model_turn(example_python: str) -> None:
    messages, raw = asyncio.run(_agent_run(example_python, FINANCIAL, [("financial_statements", {})]))
    last = messages[-1]
    assert isinstance(last, ToolMessage) and last.status == "success"
    answer = last.text
    assert answer.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(answer, raw, markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean
    assert all(SUMMARY not in message.text for message in messages)


def test_the_markdown_option_answers_with_the_fenced_form(example_python: str) -> None:
    messages, raw = asyncio.run(_agent_run(example_python, FINANCIAL, [("financial_statements", {})], markdown=True))
    answer = messages[-1].text
    assert answer.startswith('Verbatim result from tool "financial\\_statements" of server "example".')
    report = audit(answer, raw, markup="markdown")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_route_and_the_answer_are_loaded_together_in_one_call(example_python: str) -> None:
    from mcp_rendering.integrations.langchain import load_direct_answer_tools

    async def loaded() -> tuple[dict[str, bool], ToolMessage]:
        async with _session(example_python, FINANCIAL) as session:
            tools = {tool.name: tool for tool in await load_direct_answer_tools(session, server="example")}
            together = await _call(tools["financial_statements"], {})
        return {name: tool.return_direct for name, tool in tools.items()}, together

    flags, together = asyncio.run(loaded())
    assert flags == {"financial_statements": True, "key_figures": False}
    assert together.text.startswith('Verbatim result from tool "financial_statements" of server "example".')


def test_answer_directly_alone_answers_with_the_host_view(example_python: str) -> None:
    # Without the interceptor the view is made from what the adapters give the tool: still captioned, every record.
    from mcp_rendering.integrations.langchain import answer_directly

    async def called() -> tuple[ToolMessage, Any]:
        async with _session(example_python, FINANCIAL) as session:
            alone = {tool.name: tool for tool in answer_directly({"example": await load_mcp_tools(session)})}
            message = await _call(alone["financial_statements"], {})
            raw = await session.call_tool("financial_statements", {})
        return message, raw

    message, raw = asyncio.run(called())
    assert message.status == "success" and _texts(message) == [message.text]
    # The adapters were given no server name: the caption names the server as `answer_directly` was given it.
    assert message.text.startswith('Verbatim result from tool "financial_statements" of server "example".')
    report = audit(message.text, raw, markup="text")
    assert report.rows_expected == 54 and report.rows_intact == 54 and report.clean


def test_the_caption_names_the_server_and_the_tool_as_the_adapters_loaded_them(example_python: str) -> None:
    # The adapters' server name, and the tool's own name rather than the LangChain tool's prefixed one.
    from mcp_rendering.integrations.langchain import answer_directly, direct_answer_interceptor

    async def called() -> ToolMessage:
        async with _session(example_python, FINANCIAL) as session:
            loaded = await load_mcp_tools(
                session, tool_interceptors=[direct_answer_interceptor()], server_name="bank", tool_name_prefix=True
            )
            tools = {tool.name: tool for tool in answer_directly({"bank": loaded})}
            return await _call(tools["bank_financial_statements"], {})

    message = asyncio.run(called())
    assert message.text.startswith('Verbatim result from tool "financial_statements" of server "bank".')


def test_answer_directly_leaves_the_given_tools_unchanged(example_python: str) -> None:
    from mcp_rendering.integrations.langchain import answer_directly

    async def scenario() -> None:
        async with _session(example_python, FINANCIAL) as session:
            loaded = await load_mcp_tools(session)
            before = [(tool.return_direct, tool.coroutine) for tool in loaded]
            chosen = answer_directly({"example": loaded})
            await _call(chosen[[tool.name for tool in chosen].index("financial_statements")], {})
            assert [(tool.return_direct, tool.coroutine) for tool in loaded] == before
            assert not any(tool.return_direct for tool in loaded)
            changed = [new is not old for new, old in zip(chosen, loaded, strict=True)]
            assert changed == [tool.name == "financial_statements" for tool in loaded]

    asyncio.run(scenario())


RUG_PULL = "tests.integrations.rug_pull_server"


@pytest.mark.parametrize("with_interceptor", [True, False])
def test_a_hint_withdrawn_after_loading_still_ends_on_the_bounded_host_view(
    example_python: str, with_interceptor: bool
) -> None:
    # The server marks `ledger` verbatim in its first listing only, and its result is about 3 MB: the route fixed
    # at load ends the turn, on the host's view (captioned, bounded), not on the server's raw text.
    if not ROUTE_ENVIRONMENT:
        pytest.skip("the lowest environment pins the adapters alone, without LangChain's agent loop")
    from langchain.agents import create_agent  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES
    from mcp_rendering.integrations.langchain import answer_directly, direct_answer_interceptor
    from tests.integrations.rug_pull_server import LEDGER_LINE, LEDGER_LINES

    async def run() -> tuple[Any, list[Any]]:
        async with _session(example_python, RUG_PULL) as session:
            interceptors = [direct_answer_interceptor()] if with_interceptor else []
            tools = answer_directly({"example": await load_mcp_tools(session, tool_interceptors=interceptors)})
            relisted = [tool.meta for tool in (await session.list_tools()).tools]
            state = await create_agent(_scripted_model([("ledger", {})]), tools).ainvoke(
                {"messages": [("user", "Show the ledger")]}
            )
        return state["messages"], relisted

    messages, relisted = asyncio.run(run())
    assert relisted == [None]  # the server did withdraw the hint
    last = messages[-1]
    assert isinstance(last, ToolMessage) and last.status == "success"
    answer = last.text
    assert answer.startswith('Verbatim result from tool "ledger" of server "example".')
    assert LEDGER_LINE.format(index=0) in answer
    assert LEDGER_LINE.format(index=LEDGER_LINES - 1) not in answer
    assert len(answer.encode()) < 2 * DEFAULT_MAX_BYTES
    assert all(SUMMARY not in message.text for message in messages)


def test_only_tools_the_server_marks_verbatim_return_directly(example_python: str) -> None:
    async def loaded() -> dict[str, Any]:
        from mcp_rendering.integrations.langchain import answer_directly

        async with _session(example_python, FINANCIAL) as session:
            return {
                tool.name: tool.return_direct for tool in answer_directly({"example": await load_mcp_tools(session)})
            }

    assert asyncio.run(loaded()) == {"financial_statements": True, "key_figures": False}


def test_the_allowlist_keeps_a_marked_tool_it_does_not_name_with_the_model(example_python: str) -> None:
    # A server marking its tools verbatim takes over only those the host names; an error of an unnamed one reaches
    # the model, which answers.
    for module, turn in (
        (FINANCIAL, [("financial_statements", {})]),
        (SCREENING, [("screening_report", {"batch": "nope"})]),
    ):
        messages, _ = asyncio.run(_agent_run(example_python, module, turn, allow=["key_figures"]))
        assert messages[-1].text == SUMMARY, turn
    messages, _ = asyncio.run(
        _agent_run(example_python, FINANCIAL, [("financial_statements", {})], allow=["financial_statements"])
    )
    assert messages[-1].text.startswith("Verbatim result from tool")


def test_other_tools_and_mixed_turns_go_to_the_model(example_python: str) -> None:
    for turn in ([("key_figures", {})], [("financial_statements", {}), ("key_figures", {})]):
        messages, _ = asyncio.run(_agent_run(example_python, FINANCIAL, turn))
        assert messages[-1].text == SUMMARY, turn


@pytest.mark.parametrize("with_interceptor", [True, False])
def test_an_error_goes_back_to_the_model_with_the_host_error_line(example_python: str, with_interceptor: bool) -> None:
    # The model reads the failed call and answers: the route does not end the turn on an error.
    turn = [("screening_report", {"batch": "nope"})]
    messages, _ = asyncio.run(_agent_run(example_python, SCREENING, turn, with_interceptor=with_interceptor))
    assert messages[-1].text == SUMMARY
    failed = [message for message in messages if isinstance(message, ToolMessage)]
    assert len(failed) == 1 and failed[0].status == "error" and failed[0].tool_call_id == "call-0"
    assert failed[0].text.startswith('The tool "screening_report" of server "example" reported an error.')
    assert "unknown batch" in failed[0].text


def test_after_an_error_the_corrected_call_ends_the_turn_with_the_host_view(example_python: str) -> None:
    turns = [[("screening_report", {"batch": "nope"})], [("screening_report", {})]]
    messages, _ = asyncio.run(_agent_run(example_python, SCREENING, turns[0], more_turns=turns[1:]))
    last = messages[-1]
    assert isinstance(last, ToolMessage) and last.status == "success"
    assert last.text.startswith('Verbatim result from tool "screening_report" of server "example".')
    assert all(SUMMARY not in message.text for message in messages)


@pytest.mark.parametrize("with_interceptor", [True, False])
def test_outside_a_graph_an_error_is_the_host_error_answer(example_python: str, with_interceptor: bool) -> None:
    from mcp_rendering.integrations.langchain import answer_directly, load_direct_answer_tools

    async def called() -> str:
        async with _session(example_python, SCREENING) as session:
            loading = (
                load_direct_answer_tools(session, server="example")
                if with_interceptor
                else _answer_directly_alone(answer_directly, session)
            )
            tools = {tool.name: tool for tool in await loading}
            try:
                message = await _call(tools["screening_report"], {"batch": "nope"})
            except ToolException as error:  # langchain-mcp-adapters before 0.3 raises an error result
                return str(error)
            assert message.status == "error"
            return message.text

    answer = asyncio.run(called())
    assert answer.startswith('The tool "screening_report" of server "example" reported an error.')


async def _answer_directly_alone(answer_directly: Any, session: ClientSession) -> list[Any]:
    return answer_directly({"example": await load_mcp_tools(session)})


def test_a_partial_result_answers_with_the_notice_first(example_python: str) -> None:
    messages, _ = asyncio.run(_agent_run(example_python, SCREENING, [("screening_report", {})]))
    assert messages[-1].text.split("\n\n")[1].startswith(PARTIAL_MARKER)


def test_a_partial_result_notice_offers_the_next_call_as_the_server_declares_it(example_python: str) -> None:
    # The notice is the one the MCP tool itself gives (its input schema declares the continuation argument).
    from mcp_rendering.integrations.answer import final_answer
    from mcp_rendering.integrations.langchain import load_direct_answer_tools

    async def called() -> tuple[ToolMessage, str | None]:
        async with _session(example_python, SCREENING) as session:
            tools = {tool.name: tool for tool in await load_direct_answer_tools(session, server="example")}
            message = await _call(tools["screening_report"], {})
            [listed] = [tool for tool in (await session.list_tools()).tools if tool.name == "screening_report"]
            raw = await session.call_tool("screening_report", {})
        return message, final_answer(listed, raw, server="example", arguments={}).presentation.notice

    message, notice = asyncio.run(called())
    assert notice is not None and message.text.split("\n\n")[1] == notice


DIRECTIVE = "tests.support.directive_server"
"""A server whose results' directives and tools' hints disagree."""


def test_a_result_directive_alone_does_not_take_the_route_fixed_at_load(example_python: str) -> None:
    # `return_direct` is set from the hint when the tools are loaded: a result's directive alone cannot set it, and
    # LangChain does not look at the result of a tool that has it, so a summarizable result ends the turn too, as
    # the host's view of it.
    messages, _ = asyncio.run(_agent_run(example_python, DIRECTIVE, [("directed", {})]))
    assert messages[-1].text == SUMMARY
    messages, _ = asyncio.run(_agent_run(example_python, DIRECTIVE, [("hinted", {})]))
    assert messages[-1].type == "tool" and messages[-1].text == HINTED_TEXT


MARKED = str(Path(__file__).with_name("marked_server.py"))
ENTRY = [("entry", {"account": "A-1"})]


def test_two_servers_each_answer_under_their_own_name_and_allow_list(example_python: str) -> None:
    # Two servers with the same tool: each call is captioned with its own connection's name, `allow` lets one
    # server's tool through and not the other's, and tools given under another server's name are never shown as it.
    from langchain_mcp_adapters.client import MultiServerMCPClient  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.langchain import answer_directly, direct_answer_interceptor

    async def scenario() -> tuple[list[str], dict[str, bool], str]:
        connection: Any = {"transport": "stdio", "command": example_python, "args": [MARKED]}
        client = MultiServerMCPClient(
            {"bank": connection, "crm": connection}, tool_interceptors=[direct_answer_interceptor()]
        )
        servers = {name: await client.get_tools(server_name=name) for name in ("bank", "crm")}

        def entries(tools: list[Any]) -> list[Any]:
            return [tool for tool in tools if tool.name == "entry"]

        everyone = entries(answer_directly(servers))
        captions = [(await _call(tool, {"account": "A-1"})).text.split("\n")[0] for tool in everyone]
        bank, crm = entries(answer_directly(servers, allow={"bank": ["entry"]}))
        [swapped] = entries(answer_directly({"bank": servers["crm"]}))
        shown = (await _call(swapped, {"account": "A-1"})).text
        return captions, {"bank": bank.return_direct, "crm": crm.return_direct}, shown

    captions, routes, shown = asyncio.run(scenario())
    assert captions == [f'Verbatim result from tool "entry" of server "{name}".' for name in ("bank", "crm")]
    assert routes == {"bank": True, "crm": False}
    # The adapters say the "crm" connection answered: not shown under the name "bank", handed on as it came.
    assert shown == "Entry of A-1"


REFUSAL = "Refused by the approval policy."


async def _hooked_run(
    python: str, *, interceptors: Sequence[Any] = (), middleware: Sequence[Any] = ()
) -> tuple[list[Any], list[dict[str, Any]]]:
    """An agent on the server marking every tool, with no allow-list, loaded by `load_direct_answer_tools` with the
    application's own interceptors, and with its agent middleware; with the calls of `entry` the server received."""
    if not ROUTE_ENVIRONMENT:
        pytest.skip("the lowest environment pins the adapters alone, without LangChain's agent loop")
    from langchain.agents import create_agent  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.langchain import load_direct_answer_tools

    params = StdioServerParameters(command=python, args=[MARKED])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await load_direct_answer_tools(session, server="example", tool_interceptors=interceptors)
        agent = create_agent(_scripted_model(ENTRY), tools, middleware=list(middleware))
        state = await agent.ainvoke({"messages": [("user", "Show the entry")]})
        received = await session.call_tool("received", {})
    return state["messages"], json.loads(getattr(received.content[0], "text", ""))


def _wrap_tool_call() -> Any:
    """LangChain's decorator making agent middleware of a `wrap_tool_call` function."""
    if not ROUTE_ENVIRONMENT:
        pytest.skip("the lowest environment pins the adapters alone, without LangChain's agent loop")
    from langchain.agents.middleware import wrap_tool_call  # pyright: ignore[reportMissingImports]

    return wrap_tool_call


def _refusal_result() -> Any:
    from mcp.types import CallToolResult, TextContent  # pyright: ignore[reportMissingImports]

    return CallToolResult(content=[TextContent(type="text", text=REFUSAL)])


def test_the_applications_interceptors_and_middleware_see_a_verbatim_call(example_python: str) -> None:
    wrap_tool_call = _wrap_tool_call()

    seen: list[tuple[str, str, dict[str, Any]]] = []

    async def log_interceptor(request: Any, handler: Any) -> Any:
        seen.append(("interceptor", request.name, dict(request.args)))
        return await handler(request)

    @wrap_tool_call
    async def log_middleware(request: Any, handler: Any) -> Any:
        seen.append(("middleware", request.tool_call["name"], dict(request.tool_call["args"])))
        return await handler(request)

    messages, received = asyncio.run(
        _hooked_run(example_python, interceptors=[log_interceptor], middleware=[log_middleware])
    )
    assert seen == [("middleware", "entry", {"account": "A-1"}), ("interceptor", "entry", {"account": "A-1"})]
    assert received == [{"account": "A-1"}]
    # The route is still taken, from the result of the call the adapters made.
    last = messages[-1]
    assert isinstance(last, ToolMessage) and last.text.startswith('Verbatim result from tool "entry"')
    assert "Entry of A-1" in last.text and all(SUMMARY not in message.text for message in messages)


def test_an_interceptor_that_refuses_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    async def refuse(request: Any, handler: Any) -> Any:
        return _refusal_result()

    messages, received = asyncio.run(_hooked_run(example_python, interceptors=[refuse]))
    assert received == []  # the server never received the call
    # The model read the refusal and answered, as LangChain does without the route.
    tool_messages = [message for message in messages if isinstance(message, ToolMessage)]
    assert [message.text for message in tool_messages] == [REFUSAL]
    assert messages[-1].text == SUMMARY
    assert all("Verbatim result" not in message.text for message in messages)


def test_a_middleware_that_refuses_the_call_means_no_call_and_no_hosts_view(example_python: str) -> None:
    wrap_tool_call = _wrap_tool_call()

    @wrap_tool_call
    async def refuse(request: Any, handler: Any) -> Any:
        return ToolMessage(content=REFUSAL, tool_call_id=request.tool_call["id"], name=request.tool_call["name"])

    messages, received = asyncio.run(_hooked_run(example_python, middleware=[refuse]))
    assert received == []
    # LangChain's route is fixed per tool: the turn ends on the application's own message, never a host's view.
    assert messages[-1].text == REFUSAL
    assert all("Verbatim result" not in message.text for message in messages)


def test_a_rewriting_hook_decides_what_the_server_receives_and_the_view_shows(example_python: str) -> None:
    wrap_tool_call = _wrap_tool_call()

    async def rewrite_interceptor(request: Any, handler: Any) -> Any:
        return await handler(request.override(args={**request.args, "account": "B-2"}))

    @wrap_tool_call
    async def rewrite_middleware(request: Any, handler: Any) -> Any:
        call = {**request.tool_call, "args": {**request.tool_call["args"], "account": "B-2"}}
        return await handler(request.override(tool_call=call))

    for options in ({"interceptors": [rewrite_interceptor]}, {"middleware": [rewrite_middleware]}):
        messages, received = asyncio.run(_hooked_run(example_python, **options))
        assert received == [{"account": "B-2"}]
        last = messages[-1]
        assert last.text.startswith('Verbatim result from tool "entry"'), options
        assert "Entry of B-2" in last.text and "A-1" not in last.text


def test_an_interceptor_that_replaces_the_result_is_what_the_model_reads(example_python: str) -> None:
    async def redact(request: Any, handler: Any) -> Any:
        await handler(request)
        return _refusal_result()

    messages, received = asyncio.run(_hooked_run(example_python, interceptors=[redact]))
    assert received == [{"account": "A-1"}]
    tool_messages = [message for message in messages if isinstance(message, ToolMessage)]
    assert [message.text for message in tool_messages] == [REFUSAL] and messages[-1].text == SUMMARY
    assert all("Verbatim result" not in message.text for message in messages)


def test_a_step_with_a_call_the_reviewer_rejected_goes_back_to_the_model(example_python: str) -> None:
    """LangChain's `HumanInTheLoopMiddleware` answers a rejected call itself before the tools run: the step's
    approved verbatim call takes no route, and the model reads the host's view and the rejection with its reason."""
    if not ROUTE_ENVIRONMENT:
        pytest.skip("the lowest environment pins the adapters alone, without LangChain's agent loop")
    from langchain.agents import create_agent  # pyright: ignore[reportMissingImports]
    from langchain.agents.middleware import HumanInTheLoopMiddleware  # pyright: ignore[reportMissingImports]
    from langgraph.checkpoint.memory import InMemorySaver  # pyright: ignore[reportMissingImports]
    from langgraph.types import Command  # pyright: ignore[reportMissingImports]

    from mcp_rendering.integrations.langchain import load_direct_answer_tools

    async def run(decisions: list[dict[str, Any]]) -> tuple[list[Any], list[dict[str, Any]]]:
        params = StdioServerParameters(command=example_python, args=[MARKED])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await load_direct_answer_tools(session, server="example")
            model = _scripted_model([("entry", {"account": "A-1"}), ("entry", {"account": "B-2"})])
            review = HumanInTheLoopMiddleware(interrupt_on={"entry": True})
            agent = create_agent(model, tools, middleware=[review], checkpointer=InMemorySaver())
            config: Any = {"configurable": {"thread_id": "review"}}
            await agent.ainvoke({"messages": [("user", "Show A-1")]}, config)
            state = await agent.ainvoke(Command(resume={"decisions": decisions}), config)
            received = await session.call_tool("received", {})
        return state["messages"], json.loads(getattr(received.content[0], "text", ""))

    messages, received = asyncio.run(run([{"type": "approve"}, {"type": "reject", "message": "wrong account"}]))
    assert received == [{"account": "A-1"}]
    assert messages[-1].text == SUMMARY  # the model answered, having read both tool messages
    tool_messages = [message for message in messages if isinstance(message, ToolMessage)]
    texts = sorted(message.text for message in tool_messages)
    assert len(texts) == 2 and "wrong account" in texts[0]
    assert texts[1].startswith('Verbatim result from tool "entry"') and "Entry of A-1" in texts[1]
    # Both approved: the route is taken as before.
    messages, received = asyncio.run(run([{"type": "approve"}, {"type": "approve"}]))
    assert len(received) == 2 and isinstance(messages[-1], ToolMessage)
    assert all(SUMMARY not in message.text for message in messages)
