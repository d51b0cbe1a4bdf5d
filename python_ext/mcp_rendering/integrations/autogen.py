"""The whole result to the user in AutoGen AgentChat (`autogen-agentchat`, `autogen-ext[mcp]`): AutoGen's own agent
makes every call, through its workbench, over the application's own MCP session, and a step whose every call
answered verbatim ends the turn with the host's view.

Load the tools with AutoGen's `mcp_server_tools` over the application's session wrapped by `recording_session`
(which names the server), give the agent their `DirectAnswerWorkbench`, and build the agent as a
`DirectAnswerAgent` (an `AssistantAgent`, every option as AutoGen's)::

    from autogen_ext.tools.mcp import create_mcp_server_session, mcp_server_tools
    from mcp_rendering.integrations.autogen import DirectAnswerAgent, DirectAnswerWorkbench, recording_session

    async with create_mcp_server_session(server_params) as session:
        await session.initialize()
        tools = await mcp_server_tools(server_params, session=recording_session(session, server="bank"))
        agent = DirectAnswerAgent("analyst", model_client, workbench=DirectAnswerWorkbench(tools))
        result = await agent.run(task="Show the annual accounts")
        print(result.messages[-1].content)  # the host's view: caption, notice, every record

`DirectAnswerWorkbench` is a `Workbench` AutoGen's agent calls as any other (its `ToolCallRequestEvent` and
`ToolCallExecutionEvent`, and whatever the application wraps around the workbench, see each call). Each call is
the tool's own, on the session the tools were loaded over; that session, wrapped by `recording_session`, hands the
raw `CallToolResult` (its ``isError`` and ``_meta``, which AutoGen drops) and the tool as listed (its hints) to
the workbench call it is made for. A call of a tool the server marks verbatim (the tool's hint, and `allow` names
it under its server) returns the host's view of the result (`mcp_rendering.integrations.answer.final_answer`: the
caption naming the tool and the server its session was named for, a partial result's notice with how to get the
rest, every record, bounded by `max_rows` and `max_bytes`), or, for an error result, the host's line saying the
tool failed and then the server's message, as an error. The other tools' results are AutoGen's own, untouched, and
so are those of tools loaded without `recording_session` (each of their calls on a session of its own). A result's
own directive on a tool that is not marked does not take the route: the route is chosen from the tool's hint, as
for tools the model must be able to choose before any call. With several servers, load each one's tools over its
own named session and give the agent one `DirectAnswerWorkbench` of them all: each result is captioned with its
own server's name, and `allow` names each server's tools under that name.

AutoGen's `McpWorkbench` is refused (`TypeError`): it hands on neither a result's ``_meta`` nor a tool's hints,
and has no public way to reach either, so the host could only read a result by calling the tool a second time or
on a second session of its own, never the call AutoGen made.

AutoGen's route is agent-wide (``reflect_on_tool_use=False``, AutoGen's default without structured output): its loop
goes back to the model after each step of tool calls, whatever the results, until the model answers in text or
``max_tool_iterations`` steps are done, and only then ends the turn with a `ToolCallSummaryMessage`.
`DirectAnswerAgent` keeps that loop as it is (overriding only the public `on_messages_stream`) and ends it at the
end of the first step whose every call answered verbatim, before the next model call (whatever its
``reflect_on_tool_use``), with the `ToolCallSummaryMessage` that route ends a turn with: its content is the host's
view (several calls' views joined by `join_answers`, in the order called, each closed by the host's end line,
bounded as a whole by `max_bytes`); `Response.chat_message` and the last message of `run()`'s and `run_stream()`'s
`TaskResult` are that message.

- An error result, or a result the server lets the model summarize, goes back to the model, which reads it (the
  host's error line, then the server's message; or the host's text of the result) and may correct its call, while
  steps are left, as AutoGen's loop does.
- A step that also called another tool goes back to the model, which reads every result, the host's view among them
  (in the step's `ToolCallExecutionEvent` too, for the application to show beside the answer).
- With no step left, AutoGen's own summary ends the turn (``reflect_on_tool_use=False``): its content is the host's
  answers of the step (views, error lines), joined, opened by a host line naming the tools of the step's other calls,
  whose results it does not show (`other_calls_line`); a step with no call of a marked tool keeps AutoGen's summary.
  An agent that reflects (``reflect_on_tool_use=True``) has the model answer then, as without the adapter.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, cast

# Resolved where `autogen-agentchat` and `autogen-ext[mcp]` are installed; the project's own environment goes without.
from autogen_agentchat.agents import AssistantAgent  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from autogen_agentchat.base import Response  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from autogen_agentchat.messages import (  # pyright: ignore[reportMissingImports]
    ModelClientStreamingChunkEvent,  # pyright: ignore[reportUnknownVariableType]
    ToolCallExecutionEvent,  # pyright: ignore[reportUnknownVariableType]
    ToolCallRequestEvent,  # pyright: ignore[reportUnknownVariableType]
    ToolCallSummaryMessage,  # pyright: ignore[reportUnknownVariableType]
)
from autogen_core.tools import (  # pyright: ignore[reportMissingImports]
    StaticWorkbench,  # pyright: ignore[reportUnknownVariableType]
    TextResultContent,  # pyright: ignore[reportUnknownVariableType]
    ToolResult,  # pyright: ignore[reportUnknownVariableType]
    Workbench,  # pyright: ignore[reportUnknownVariableType]
)
from autogen_ext.tools.mcp import (  # pyright: ignore[reportMissingImports, reportMissingTypeStubs]
    McpWorkbench,  # pyright: ignore[reportUnknownVariableType]
)

from mcp_rendering.integrations.answer import (
    DEFAULT_MAX_BYTES,
    AllowByServer,
    AnswerOptions,
    is_verbatim_tool,
    other_calls_line,
)

__all__ = ["DirectAnswerAgent", "DirectAnswerWorkbench", "recording_session"]

_KEPT_LIMIT = 1024
"""The most answers a turn keeps: a model calling without end cannot grow it without bound."""


@dataclass
class _Kept:
    """The host's answer for one call of a turn, as the workbench handed it to AutoGen."""

    name: str
    text: str
    direct: bool
    """A verbatim result, not an error: it may end the turn."""
    options: AnswerOptions


@dataclass
class _Turn:
    """The answers of the calls of one turn of a `DirectAnswerAgent`, by call id."""

    answers: dict[str, _Kept] = field(default_factory=dict[str, _Kept])
    open: bool = True


@dataclass(frozen=True)
class _Call:
    """One MCP call a recording session made for a workbench call."""

    server: str | None
    """The name the session was given for its server."""
    tool: Any
    """The tool as the server listed it (None: not listed)."""
    result: Any
    """The raw `CallToolResult`."""
    arguments: Mapping[str, Any]


@dataclass
class _Slot:
    """What a recording session saw of one workbench call: each MCP call made for it."""

    calls: list[_Call] = field(default_factory=list[_Call])


def _new(cls: Any) -> Callable[..., Any]:
    """AutoGen's class `cls` as a constructor (its types are unknown where AutoGen is not installed)."""
    return cast("Callable[..., Any]", cls)


def _tool_result(name: str, text: str, *, is_error: bool) -> Any:
    """AutoGen's `ToolResult` of a call of `name`: `text`, as one text block."""
    return _new(ToolResult)(name=name, result=[_new(TextResultContent)(content=text)], is_error=is_error)


_TURN: ContextVar[_Turn | None] = ContextVar("mcp_rendering_autogen_turn", default=None)
"""The turn of the `DirectAnswerAgent` whose tool calls run in this context (AutoGen runs them in tasks of its turn,
which copy its context)."""
_SLOT: ContextVar[_Slot | None] = ContextVar("mcp_rendering_autogen_slot", default=None)
"""The workbench call whose MCP call runs in this context."""


class _RecordingSession:
    """An MCP client session that hands each call's raw result to the workbench call it is made for."""

    def __init__(self, session: Any, server: str | None) -> None:
        self._session = session
        self._server = server
        self._tools: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        listed: Any = await self._session.list_tools(*args, **kwargs)
        self._tools.update({tool.name: tool for tool in cast("list[Any]", listed.tools)})
        return listed

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        result: Any = await self._session.call_tool(name, arguments, *args, **kwargs)
        slot = _SLOT.get()
        if slot is not None:
            if name not in self._tools:
                await self.list_tools()
            slot.calls.append(_Call(self._server, self._tools.get(name), result, dict(arguments or {})))
        return result


def recording_session(session: Any, *, server: str | None = None) -> Any:
    """`session` (an initialized MCP `ClientSession`), as `mcp_server_tools(server_params, session=...)` takes it,
    handing the raw result of each call to the `DirectAnswerWorkbench` call it is made for; it is used as the session
    itself otherwise.

    Args:
        session: the application's session to the server.
        server: the server's name, chosen by the host: shown in the caption of its results, and the key of its
            tools in the workbench's `allow` (None: the caption says the server is unnamed, and `allow`, when
            given, names none of its tools).

    Raises:
        TypeError, ValueError: `server` is not a name (a non-empty string) or None.
    """
    return _RecordingSession(session, AnswerOptions(server=server).server)


_MCP_WORKBENCH_REFUSED = (
    "DirectAnswerWorkbench cannot read the results of an McpWorkbench: AutoGen's McpWorkbench hands on neither a "
    "result's _meta nor a tool's hints. Load the tools over the application's own session instead, "
    "mcp_server_tools(server_params, session=recording_session(session, server=...)), and give the agent "
    "DirectAnswerWorkbench(tools)"
)


class DirectAnswerWorkbench(Workbench):  # pyright: ignore[reportUntypedBaseClass]
    """A workbench whose marked tools' calls return the host's view of their result; see the module docstring.

    Use it as AutoGen's workbenches are used (an async context manager, or `start()` and `stop()`, which start and
    stop the workbench it wraps; a workbench of tools needs neither). It is no AutoGen component: an agent holding
    it cannot be saved as a component configuration.

    Args:
        workbench: the tools `mcp_server_tools` loads over `recording_session` (of one server or several), or a
            workbench of such tools (a `StaticWorkbench` of the application's).
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown, and of a turn's answers as a whole (None: no
            bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: by server name (`recording_session`'s), the names of its tools (the server's) that may answer
            directly; a server missing from it has none. None: every tool each server marks.

    Raises:
        TypeError: `workbench` is an `McpWorkbench` (see the module docstring); `allow` is not a mapping of server
            names to tool names.
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
    """

    def __init__(
        self,
        workbench: Any,
        *,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        if isinstance(workbench, McpWorkbench):
            raise TypeError(_MCP_WORKBENCH_REFUSED)
        self._options = AnswerOptions(max_rows=max_rows, max_bytes=max_bytes, markdown=markdown)
        self._allowed = AllowByServer(allow)
        inner: Any = workbench if isinstance(workbench, Workbench) else _new(StaticWorkbench)(list(workbench))
        self._inner = inner

    @property
    def workbench(self) -> Any:
        """The workbench this one hands on to."""
        return self._inner

    async def list_tools(self) -> Any:
        return await self._inner.list_tools()

    async def start(self) -> None:
        await self._inner.start()

    async def stop(self) -> None:
        await self._inner.stop()

    async def reset(self) -> None:
        await self._inner.reset()

    async def save_state(self) -> Mapping[str, Any]:
        return cast("Mapping[str, Any]", await self._inner.save_state())

    async def load_state(self, state: Mapping[str, Any]) -> None:
        await self._inner.load_state(state)

    def _selects(self, call: _Call) -> bool:
        """Whether `call`'s tool answers directly: `allow` names it under its server, and its hint reads verbatim."""
        return self._allowed.allows(call.server, getattr(call.tool, "name", None)) and is_verbatim_tool(call.tool)

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        cancellation_token: Any = None,
        call_id: str | None = None,
    ) -> Any:
        slot = _Slot()
        reset = _SLOT.set(slot)
        try:
            handed: Any = await self._inner.call_tool(name, arguments, cancellation_token, call_id)
        finally:
            _SLOT.reset(reset)
        # One MCP call read, of a marked tool: anything else is not this workbench's to answer.
        if len(slot.calls) != 1 or not self._selects(slot.calls[0]):
            return handed
        call = slot.calls[0]
        answer = self._options.answer(call.tool, call.result, arguments=call.arguments, default_server=call.server)
        text = self._options.text(answer)
        turn = _TURN.get()
        if turn is not None and turn.open and call_id is not None and len(turn.answers) < _KEPT_LIMIT:
            turn.answers[call_id] = _Kept(name, text, answer.verbatim and not answer.is_error, self._options)
        return _tool_result(name, text, is_error=answer.is_error)


def _direct(results: Sequence[Any], turn: _Turn) -> list[tuple[Any, _Kept | None]]:
    """Each result of a step with the host's answer the workbench handed AutoGen for it, if any."""
    pairs: list[tuple[Any, _Kept | None]] = []
    ids = [result.call_id for result in results]
    for result in results:
        kept = turn.answers.get(result.call_id)
        matches = kept is not None and ids.count(result.call_id) == 1 and kept.text == result.content
        pairs.append((result, kept if matches else None))
    return pairs


def _answer_text(pairs: Sequence[tuple[Any, _Kept | None]]) -> str | None:
    """The content of the summary ending the turn: the host's answers joined, after a host line naming the other
    calls' tools; None when the step has no host answer."""
    answers = [kept for _, kept in pairs if kept is not None]
    if not answers:
        return None
    options = answers[0].options
    shown = options.join([kept.text for kept in answers], [kept.name for kept in answers])
    others = [str(result.name or "unknown") for result, kept in pairs if kept is None]
    line = other_calls_line(others, markdown=options.markdown)
    return f"{line}\n\n{shown}" if line else shown


class DirectAnswerAgent(AssistantAgent):  # pyright: ignore[reportUntypedBaseClass]
    """AutoGen's `AssistantAgent`, whose turn ends at the end of the first step whose every call returned the host's
    view of a verbatim result (a `DirectAnswerWorkbench`'s), with that view; see the module docstring."""

    async def on_messages_stream(self, messages: Any, cancellation_token: Any) -> AsyncGenerator[Any, None]:
        turn = _Turn()
        # The tool calls run in tasks of this turn, which copy the context: the workbench finds the turn there. Not
        # reset after the turn (a generator may be closed in another context): the turn is closed instead.
        _TURN.set(turn)
        stream: Any = cast("Any", super()).on_messages_stream(messages, cancellation_token)
        inner: list[Any] = []
        request: Any = None
        try:
            async for event in stream:
                if isinstance(event, Response):
                    yield _rewritten(event, turn)
                    return
                if not isinstance(event, ModelClientStreamingChunkEvent):
                    inner.append(event)
                if isinstance(event, ToolCallRequestEvent):
                    request = event
                yield event
                if isinstance(event, ToolCallExecutionEvent) and request is not None:
                    pairs = _direct(cast("list[Any]", event.content), turn)
                    text = _answer_text(pairs)
                    if text is not None and all(kept is not None and kept.direct for _, kept in pairs):
                        # AutoGen's loop would call the model next: the turn ends here, as its route ends one.
                        summary = _new(ToolCallSummaryMessage)(
                            content=text,
                            source=cast("Any", self).name,
                            tool_calls=list(cast("list[Any]", request.content)),
                            results=[result for result, _ in pairs],
                        )
                        yield _new(Response)(chat_message=summary, inner_messages=inner)
                        return
        finally:
            turn.open = False
            turn.answers.clear()
            await stream.aclose()


def _rewritten(response: Any, turn: _Turn) -> Any:
    """AutoGen's response ending the turn, its summary's content the host's answers when the step has any."""
    message: Any = response.chat_message
    if not isinstance(message, ToolCallSummaryMessage):
        return response
    text = _answer_text(_direct(cast("list[Any]", message.results), turn))
    if text is None:
        return response
    return _new(Response)(
        chat_message=message.model_copy(update={"content": text}), inner_messages=response.inner_messages
    )
