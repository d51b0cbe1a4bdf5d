"""The whole result to the user in AutoGen AgentChat (`autogen-agentchat`, `autogen-ext[mcp]`): AutoGen's own agent
makes every call, through its workbench, and a step whose every call answered verbatim ends the turn with the host's
view.

Wrap the agent's workbench and build the agent as a `DirectAnswerAgent` (an `AssistantAgent`, every option as
AutoGen's)::

    from autogen_ext.tools.mcp import McpWorkbench
    from mcp_rendering.integrations.autogen import DirectAnswerAgent, DirectAnswerWorkbench

    async with DirectAnswerWorkbench(McpWorkbench(server_params), server="bank") as workbench:
        agent = DirectAnswerAgent("analyst", model_client, workbench=workbench, max_tool_iterations=3)
        result = await agent.run(task="Show the annual accounts")
        print(result.messages[-1].content)  # the host's view: caption, notice, every record

The tools `mcp_server_tools` loads go the same way, loaded over a shared session that `recording_session` wraps::

    tools = await mcp_server_tools(server_params, session=recording_session(session))
    workbench = DirectAnswerWorkbench(tools, server="bank")

`DirectAnswerWorkbench` is a `Workbench` AutoGen's agent calls as any other (its `ToolCallRequestEvent` and
`ToolCallExecutionEvent`, and whatever the application wraps around the workbench, see each call). A call of a tool
the server marks verbatim (the tool's hint, and `allow` names it) returns the host's view of the result
(`mcp_rendering.integrations.answer.final_answer`: the caption, a partial result's notice with how to get the rest,
every record, bounded by `max_rows` and `max_bytes`), or, for an error result, the host's line saying the tool failed
and then the server's message, as an error; the workbench reads the raw `CallToolResult` (its ``isError`` and
``_meta``) for it. The other tools' results are AutoGen's own, untouched. A result's own directive on a tool that is
not marked does not take the route: the route is chosen from the tool's hint, as for tools the model must be able
to choose before any call.

AutoGen hands on only a result's content blocks, so the workbench reads the raw result where the call is made:

- over an `McpWorkbench`, whose session is its own, the workbench calls the marked tools over an `McpSessionActor`
  (AutoGen's, the one `McpWorkbench` runs on) opened on the same server parameters: a second session to the server,
  open while the workbench is started; the other tools, the listing and the rest go to the `McpWorkbench`. A
  wrapper of the application's belongs around the `DirectAnswerWorkbench`, which the agent calls: inside, around the
  `McpWorkbench`, it would not see the marked tools' calls.
- over tools (or any other workbench of them), the call is theirs: `recording_session` wraps the session they were
  loaded over, and hands the raw result of each call to the workbench call it belongs to. A tool loaded without it
  (each call on a session of its own) is not read: its result stays AutoGen's own.

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

import asyncio
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
from autogen_core import (  # pyright: ignore[reportMissingImports]
    CancellationToken,  # pyright: ignore[reportUnknownVariableType]
    trace_tool_span,  # pyright: ignore[reportUnknownVariableType]
)
from autogen_core.tools import (  # pyright: ignore[reportMissingImports]
    StaticWorkbench,  # pyright: ignore[reportUnknownVariableType]
    TextResultContent,  # pyright: ignore[reportUnknownVariableType]
    ToolResult,  # pyright: ignore[reportUnknownVariableType]
    Workbench,  # pyright: ignore[reportUnknownVariableType]
)
from autogen_ext.tools.mcp import (  # pyright: ignore[reportMissingImports, reportMissingTypeStubs]
    McpSessionActor,  # pyright: ignore[reportUnknownVariableType]
    McpWorkbench,  # pyright: ignore[reportUnknownVariableType]
)

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions, other_calls_line

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


@dataclass
class _Slot:
    """What a recording session saw of one workbench call: each MCP call made for it."""

    calls: list[tuple[Any, Any, Mapping[str, Any]]] = field(default_factory=list[tuple[Any, Any, Mapping[str, Any]]])
    """(the tool as listed, the raw `CallToolResult`, the arguments)"""


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

    def __init__(self, session: Any) -> None:
        self._session = session
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
            slot.calls.append((self._tools.get(name), result, dict(arguments or {})))
        return result


def recording_session(session: Any) -> Any:
    """`session` (an initialized MCP `ClientSession`), as `mcp_server_tools(server_params, session=...)` takes it,
    handing the raw result of each call to the `DirectAnswerWorkbench` call it is made for; it is used as the session
    itself otherwise."""
    return _RecordingSession(session)


def _overrides(workbench: Any) -> dict[str, str]:
    """The names an `McpWorkbench`'s tool overrides give its tools, mapped to the server's names."""
    config = cast("Mapping[str, Any]", workbench.dump_component().config)
    overrides = cast("Mapping[str, Mapping[str, Any]]", config.get("tool_overrides") or {})
    return {str(override["name"]): original for original, override in overrides.items() if override.get("name")}


class DirectAnswerWorkbench(Workbench):  # pyright: ignore[reportUntypedBaseClass]
    """A workbench whose marked tools' calls return the host's view of their result; see the module docstring.

    Use it as AutoGen's workbenches are used, as an async context manager (or `start()` and `stop()`): it starts and
    stops the workbench it wraps, and, over an `McpWorkbench`, its own session. It is no AutoGen component: an agent
    holding it cannot be saved as a component configuration.

    Args:
        workbench: an `McpWorkbench`, a sequence of AutoGen tools (`mcp_server_tools` over `recording_session`),
            or a workbench of such tools.
        server: the server name shown in the caption (default: none, the tool alone is named).
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown, and of a turn's answers as a whole (None: no
            bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: the names of the tools (the server's) that may answer directly; None: every tool the server marks.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
    """

    def __init__(
        self,
        workbench: Any,
        *,
        server: str | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Iterable[str] | None = None,
    ) -> None:
        self._options = AnswerOptions(
            server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow
        )
        inner: Any = workbench if isinstance(workbench, Workbench) else _new(StaticWorkbench)(list(workbench))
        self._inner = inner
        self._mcp = isinstance(inner, McpWorkbench)
        self._actor: Any = None
        self._tools: dict[str, Any] = {}

    @property
    def workbench(self) -> Any:
        """The workbench this one hands on to."""
        return self._inner

    async def list_tools(self) -> Any:
        return await self._inner.list_tools()

    async def start(self) -> None:
        await self._inner.start()

    async def stop(self) -> None:
        try:
            if self._actor is not None:
                actor, self._actor = self._actor, None
                await actor.close()
        finally:
            await self._inner.stop()

    async def reset(self) -> None:
        await self._inner.reset()

    async def save_state(self) -> Mapping[str, Any]:
        return cast("Mapping[str, Any]", await self._inner.save_state())

    async def load_state(self, state: Mapping[str, Any]) -> None:
        await self._inner.load_state(state)

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        cancellation_token: Any = None,
        call_id: str | None = None,
    ) -> Any:
        token: Any = cancellation_token or _new(CancellationToken)()
        given = dict(arguments or {})
        if self._mcp:
            tool = await self._mcp_tool(_overrides(self._inner).get(name, name))
            if tool is None or not self._options.selects(tool):
                return await self._inner.call_tool(name, arguments, token, call_id)
            try:
                # The span `McpWorkbench` traces each of its calls in.
                with cast("Any", trace_tool_span)(tool_name=name, tool_call_id=call_id):
                    result = await self._mcp_call(tool.name, given, token)
            except Exception as error:  # as `McpWorkbench` hands AutoGen a call that failed: an error, its text
                return _tool_result(name, str(error), is_error=True)
            answer = self._options.answer(tool, result, arguments=given)
        else:
            slot = _Slot()
            reset = _SLOT.set(slot)
            try:
                handed: Any = await self._inner.call_tool(name, arguments, token, call_id)
            finally:
                _SLOT.reset(reset)
            # One MCP call read, of a marked tool: anything else is not this workbench's to answer.
            if len(slot.calls) != 1 or not self._options.selects(slot.calls[0][0]):
                return handed
            tool, result, sent = slot.calls[0]
            answer = self._options.answer(tool, result, arguments=sent)
        text = self._options.text(answer)
        turn = _TURN.get()
        if turn is not None and turn.open and call_id is not None and len(turn.answers) < _KEPT_LIMIT:
            turn.answers[call_id] = _Kept(name, text, answer.verbatim and not answer.is_error, self._options)
        return _tool_result(name, text, is_error=answer.is_error)

    async def _mcp_tool(self, name: str) -> Any:
        """The `Tool` the server lists as `name`, with its hints (the `McpWorkbench` hands on its schema only)."""
        if name not in self._tools:
            listed: Any = await (await (await self._session()).call("list_tools", None))
            self._tools = {tool.name: tool for tool in cast("list[Any]", listed.tools)}
        return self._tools.get(name)

    async def _mcp_call(self, name: str, arguments: dict[str, Any], token: Any) -> Any:
        if token.is_cancelled():
            raise asyncio.CancelledError("Operation cancelled")
        pending: Any = await (await self._session()).call("call_tool", {"name": name, "kargs": arguments})
        token.link_future(pending)
        return await pending

    async def _session(self) -> Any:
        actor: Any = self._actor
        if actor is None:
            actor = _new(McpSessionActor)(self._inner.server_params)
            await actor.initialize()
            self._actor = actor
        return actor


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
