"""The whole result to the user in AutoGen AgentChat (`autogen-agentchat`, `autogen-ext[mcp]`): its own
`reflect_on_tool_use=False` route, which is agent-wide, for a dedicated agent holding the tools the server marks
verbatim, and the host's view of each result as that agent's answer.

Load the server's tools, then make the dedicated agent (one line per agent)::

    from mcp_rendering.integrations.autogen import direct_answer_tools

    tools = await direct_answer_tools(server_params)
    records = tools.agent("records", model_client, max_tool_iterations=3)
    result = await records.run(task="Show the annual accounts")
    print(result.messages[-1].content)  # the host's view: caption, notice, every record

AutoGen's route cannot be set per tool: with ``reflect_on_tool_use=False`` an `AssistantAgent` ends its turn after
any tool call with a `ToolCallSummaryMessage`, each result formatted by its `tool_call_summary_formatter`, and no
model writes the answer. So the adapter does not change an agent whose tools mix verbatim and not: it splits the
server's tools. `DirectAnswerTools.verbatim` holds the tools the server marks verbatim (the tool's hint), each
returning the host's view of its result (`mcp_rendering.integrations.answer.final_answer`: the caption, a partial
result's notice with how to get the rest, every record, bounded by `max_rows` and `max_bytes`); `agent()`
makes a dedicated agent of them with the route and a formatter that shows that view as it is.
`DirectAnswerTools.others` holds AutoGen's own adapters of the other tools, untouched, for an agent that reflects
(a team, such as a `SelectorGroupChat`, can hold both agents).

- An error result: the tool fails, and AutoGen hands the model the host's line saying the tool failed, then the
  server's message, never the result's data. The step goes back to the model, which may correct the call, up to
  ``max_tool_iterations`` steps (AutoGen's own option, each step one model call and its tool calls; 1 by default,
  as in AutoGen); a call to a tool the agent does not hold fails alike. When no step is left, the answer is that
  error line. Only a step whose every call returned the host's view ends the turn with it.
- A result the host does not present verbatim (the result's directive says it may be summarized): `present()`'s
  text, as the dedicated agent has no model step to summarize it.
- Several calls in one turn: one answer holding each in the order called, each closed by the host's end line
  (`join_answers`), in place of AutoGen's own bare newline between them.

A server that marks every tool: name the tools that may answer directly with ``allow``; the others go to `others`.

Only public extension points: the dedicated agent is an `AssistantAgent` overriding its public `on_messages_stream`
(to take a failed step back to the model and to join the turn's results), and each verbatim tool subclasses
AutoGen's MCP tool adapter overriding the public `BaseTool.run`, calling the tool on the MCP session itself: the
adapter's own `run` hands on the result's content blocks only, without the result's directive.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from autogen_agentchat.agents import AssistantAgent  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from autogen_agentchat.base import Response  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from autogen_agentchat.messages import (  # pyright: ignore[reportMissingImports]
    ToolCallSummaryMessage,  # pyright: ignore[reportUnknownVariableType]
)

# Resolved where `autogen-ext[mcp]` is installed; the project's own environment goes without it.
from autogen_ext.tools.mcp import (  # pyright: ignore[reportMissingImports, reportMissingTypeStubs]
    SseMcpToolAdapter,  # pyright: ignore[reportUnknownVariableType]
    SseServerParams,  # pyright: ignore[reportUnknownVariableType]
    StdioMcpToolAdapter,  # pyright: ignore[reportUnknownVariableType]
    StdioServerParams,  # pyright: ignore[reportUnknownVariableType]
    StreamableHttpMcpToolAdapter,  # pyright: ignore[reportUnknownVariableType]
    StreamableHttpServerParams,  # pyright: ignore[reportUnknownVariableType]
    create_mcp_server_session,  # pyright: ignore[reportUnknownVariableType]
)

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions, FinalAnswer, join_answers

__all__ = ["DirectAnswerTools", "direct_answer_tools"]

_LIST_PAGES_LIMIT = 1000
"""The most `tools/list` pages read in one listing: a server repeating its cursor cannot keep the call waiting."""


class _DirectAnswerError(Exception):
    """An error result of a verbatim tool: its message is the host's error answer (AutoGen hands the model, and
    the summary, the text of the exception a tool raises)."""


def _adapter_class(server_params: Any) -> Any:
    """AutoGen's own adapter class for the transport of `server_params`."""
    pairs = cast(
        "list[tuple[type[Any], Any]]",
        [
            (StdioServerParams, StdioMcpToolAdapter),
            (SseServerParams, SseMcpToolAdapter),
            (StreamableHttpServerParams, StreamableHttpMcpToolAdapter),
        ],
    )
    for params_class, adapter in pairs:
        if isinstance(server_params, params_class):
            return adapter
    raise TypeError(f"no AutoGen MCP tool adapter for {type(server_params).__name__}")


def _answer_tool_class(base: Any) -> Any:
    """A subclass of AutoGen's adapter `base` whose result is the host's view."""

    class _DirectAnswerTool(base):  # pyright: ignore[reportUntypedBaseClass]
        def __init__(self, server_params: Any, tool: Any, session: Any, settings: AnswerOptions) -> None:
            base.__init__(self, server_params=server_params, tool=tool, session=session)
            self._direct_params = server_params
            self._direct_session = session
            self._mcp_tool = tool
            self._settings = settings

        async def run(self, args: Any, cancellation_token: Any) -> Any:
            # `BaseTool.run`, public: the adapter's own hands on the result's blocks only, not its directive.
            arguments = cast("dict[str, Any]", args.model_dump(exclude_unset=True))
            if self._direct_session is not None:
                return await self._call(self._direct_session, arguments, cancellation_token)
            open_session = cast("Callable[[Any], Any]", create_mcp_server_session)
            async with open_session(self._direct_params) as session:
                await session.initialize()
                return await self._call(session, arguments, cancellation_token)

        async def _call(self, session: Any, arguments: dict[str, Any], cancellation_token: Any) -> str:
            if cancellation_token.is_cancelled():
                raise asyncio.CancelledError("Operation cancelled")
            call = asyncio.ensure_future(session.call_tool(name=self._mcp_tool.name, arguments=arguments))
            cancellation_token.link_future(call)
            answer = _answer(self._mcp_tool, await call, arguments, self._settings)
            if answer.is_error:
                raise _DirectAnswerError(answer.text)
            return self._settings.text(answer)

        def return_value_as_string(self, value: Any) -> str:
            return value if isinstance(value, str) else cast("str", base.return_value_as_string(self, value))

    return _DirectAnswerTool


def _answer(tool: Any, result: Any, arguments: Mapping[str, Any], settings: AnswerOptions) -> FinalAnswer:
    return settings.answer(tool, result, arguments=arguments)


def _show_as_is(call: Any, result: Any) -> str:
    """The `tool_call_summary_formatter` of the dedicated agent: each result's text as the tool returned it (the
    host's view, or AutoGen's error text holding the host's error answer)."""
    del call
    return cast("str", result.content)


class _DirectAnswerAgent(AssistantAgent):  # pyright: ignore[reportUntypedBaseClass]
    """AutoGen's `AssistantAgent`, each of whose steps is one model call and its tool calls (the base agent runs with
    ``max_tool_iterations=1``): a step whose every call returned the host's view ends the turn with them, joined by
    `join_answers` (AutoGen joins them with a bare newline, where a server's text could imitate the next caption); a
    step with a failed call (an error result, a tool this agent does not hold) goes back to the model, which reads the
    failure in its context, for the next step, up to ``max_tool_iterations`` steps, as AutoGen's own loop does."""

    def __init__(
        self, *args: Any, markdown: bool, max_bytes: int | None, max_tool_iterations: int = 1, **kwargs: Any
    ) -> None:
        cast("Any", super()).__init__(*args, max_tool_iterations=1, **kwargs)
        if max_tool_iterations < 1:
            raise ValueError(f"max_tool_iterations must be at least 1, got {max_tool_iterations}")
        self._direct_markdown = markdown
        self._direct_max_bytes = max_bytes
        self._direct_steps = max_tool_iterations

    async def on_messages_stream(self, messages: Any, cancellation_token: Any) -> AsyncGenerator[Any, None]:
        inner: list[Any] = []
        for step in range(self._direct_steps):
            response: Any = None
            # A later step adds no message: the model's context already holds the failed calls' results.
            async for event in cast("Any", super()).on_messages_stream(
                messages if step == 0 else [], cancellation_token
            ):
                if isinstance(event, Response):
                    response = event
                else:
                    yield event
            if response is None:
                return
            inner.extend(cast("list[Any]", response.inner_messages or []))
            if not (_failed(response) and step < self._direct_steps - 1):
                yield _joined(response, inner, markdown=self._direct_markdown, max_bytes=self._direct_max_bytes)
                return


def _failed(response: Any) -> bool:
    """Whether `response` ends a step with a failed tool call."""
    message: Any = response.chat_message
    if not isinstance(message, ToolCallSummaryMessage):
        return False
    return any(result.is_error for result in cast("list[Any]", message.results))


def _joined(event: Any, inner: list[Any], *, markdown: bool, max_bytes: int | None) -> Any:
    """The agent's response, with every step's inner messages, and, when it holds the turn's results, `join_answers`
    of them as its content, bounded as a whole by `max_bytes`."""
    message: Any = event.chat_message
    response = cast("Callable[..., Any]", Response)
    if not isinstance(message, ToolCallSummaryMessage):
        return response(chat_message=message, inner_messages=inner)
    results = cast("list[Any]", message.results)
    joined = join_answers(
        [cast("str", result.content) for result in results],
        markdown=markdown,
        max_bytes=max_bytes,
        names=[str(getattr(result, "name", None) or "unknown") for result in results],
    )
    return response(chat_message=message.model_copy(update={"content": joined}), inner_messages=inner)


@dataclass
class DirectAnswerTools:
    """A server's tools split for AutoGen's agent-wide route; see the module docstring."""

    verbatim: list[Any] = field(default_factory=list[Any])
    """The tools the server marks verbatim (and `allow` names), each returning the host's view of its result."""
    others: list[Any] = field(default_factory=list[Any])
    """AutoGen's own adapters of the other tools, untouched."""

    markdown: bool = False
    """Whether the answers are in the Markdown form (`direct_answer_tools`' option)."""
    max_bytes: int | None = DEFAULT_MAX_BYTES
    """The bound on the size of a turn's answers as a whole (`direct_answer_tools`' option)."""

    def agent(self, name: str, model_client: Any, **options: Any) -> Any:
        """The dedicated agent: an `AssistantAgent` with the verbatim tools, ``reflect_on_tool_use=False``, a
        `tool_call_summary_formatter` that shows each result as it is, and several results of one turn joined by
        `join_answers`; `options` are the agent's other options. Its ``max_tool_iterations`` bounds the steps of a
        turn (one model call and its tool calls each): a step with a failed call goes back to the model while steps
        are left, and a step whose every call returned the host's view ends the turn.

        Raises:
            ValueError: the server marks no tool verbatim (the agent would have no tool).
        """
        if not self.verbatim:
            raise ValueError("the server marks no tool verbatim: give its tools to an agent that reflects")
        return _DirectAnswerAgent(
            name,
            model_client,
            tools=list(self.verbatim),
            reflect_on_tool_use=False,
            tool_call_summary_formatter=_show_as_is,
            markdown=self.markdown,
            max_bytes=self.max_bytes,
            **options,
        )


async def _list_tools(session: Any) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(_LIST_PAGES_LIMIT):
        page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
        tools.extend(cast("list[Any]", page.tools))
        cursor = cast("str | None", page.nextCursor)
        if not cursor:
            break
    return tools


async def direct_answer_tools(
    server_params: Any,
    *,
    session: Any = None,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Iterable[str] | None = None,
) -> DirectAnswerTools:
    """The server's tools, as AutoGen's `mcp_server_tools` loads them, split into those that answer with the host's
    view and the others; see the module docstring.

    Args:
        server_params: AutoGen's `StdioServerParams`, `SseServerParams` or `StreamableHttpServerParams`.
        session: an MCP client session to reuse (as `mcp_server_tools` takes one); None: each call opens its own.
        server: the server name shown in the caption (default: none, the tool alone is named).
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown, and of a turn's answers as a whole (None: no
            bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: the names of the tools that may answer directly; None: every tool the server marks.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
    """
    options = AnswerOptions(server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow)
    adapter = _adapter_class(server_params)
    if session is None:
        open_session = cast("Callable[[Any], Any]", create_mcp_server_session)
        async with open_session(server_params) as listing:
            await listing.initialize()
            tools = await _list_tools(listing)
    else:
        tools = await _list_tools(session)
    answering = _answer_tool_class(adapter)
    split = DirectAnswerTools(markdown=markdown, max_bytes=max_bytes)
    for tool in tools:
        if options.selects(tool):
            split.verbatim.append(answering(server_params, tool, session, options))
        else:
            split.others.append(adapter(server_params=server_params, tool=tool, session=session))
    return split
