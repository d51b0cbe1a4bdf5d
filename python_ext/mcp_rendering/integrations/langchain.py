"""Rendering for LangChain's MCP adapters (`langchain-mcp-adapters`): an interceptor that presents every result.

Install with ``pip install 'mcp-rendering[langchain]'`` and pass the interceptor where the adapters load tools::

    from langchain_mcp_adapters.tools import load_mcp_tools
    from mcp_rendering.integrations.langchain import RenderedCall, rendering_interceptor

    def show(call: RenderedCall) -> None:
        print(call.presentation.text)  # what the user sees, whatever the model writes

    interceptor = rendering_interceptor(session, on_presentation=show)
    tools = await load_mcp_tools(session, tool_interceptors=[interceptor])

For every successful tool result the interceptor runs `mcp_rendering.present` and hands the adapters
`Presentation.model_result` in place of the server's result. The `ToolMessage` the model reads then holds the host's
framing block first, followed by the records (the adapters forward content blocks and never `structuredContent`);
its ``artifact["structured_content"]`` holds the model's structured copy, with the directive the host acts on under
``_rendering``. The application receives each `Presentation` (what to show the user: `Presentation.text` or
`.markdown`, its caption and completeness) through `on_presentation`: the adapters build the artifact themselves
from the result alone, and an interceptor cannot return a `ToolMessage` of its own because it is not told the tool
call id outside LangGraph.

`present` needs the `Tool` for its hints: the interceptor lists the tools of `session` (or of the `client`'s session
for the server being called) the first time it meets a tool, and keeps the list until a tool is missing from it; a
fixed `tools` list may be passed instead. Without any of them it decides from the result's directive alone. A
`MultiServerMCPClient` takes its interceptors when it is built, so its interceptor is given the client afterwards::

    interceptor = rendering_interceptor(on_presentation=show)
    client = MultiServerMCPClient(connections, tool_interceptors=[interceptor])
    interceptor.client = client

The whole result to the user, with no model in between: LangChain's own `return_direct` on the tools the server
marks verbatim, and the host's view of their result as the tool message, which then ends the agent's turn (one
line per agent)::

    agent = create_agent(model, await load_direct_answer_tools(session))
    answer = (await agent.ainvoke({"messages": [("user", "Show the accounts")]}))["messages"][-1].text

The last message is then the tool's `ToolMessage`, its one text block the host's view (the caption, a partial
result's notice with how to get the rest, every record). `answer_directly` decides the route and the view from the
same loaded tool (its hint as the adapters listed it, never listed again) and returns new tool objects for the tools
it chooses: such a tool ends a turn only on the host's view, whatever the server lists later. Loaded with
`direct_answer_interceptor`, the tool reads the MCP result itself, with its directive; without it, the view is made
from the blocks the adapters give the tool. A result's own directive on a tool that is not marked does not take the
route (it is fixed when the agent is built); it still reaches the model through `rendering_interceptor`. An error
result of such a tool does not end the turn, although LangChain's route does not look at the outcome: inside the
agent's graph the tool answers it with a LangGraph `Command` holding the failed `ToolMessage`, the host's error line
with the server's message below it, and ``goto`` the model node, so that the model reads the error and may correct
its call (`create_agent`'s model node is ``"model"``; an agent whose `before_model` middleware must run first, or
`create_react_agent`, whose node is ``"agent"``, names its node with ``model_node``). Outside a graph (no tool call
id to answer), the tool fails with the host's error answer. `create_agent` ends the turn only when every
tool call of it was return-direct: in a turn that also called another tool, the model reads the host's view and
answers. LangGraph's `create_react_agent` ends on any return-direct message, even when the last message is another
tool's: prefer `create_agent`. The application's own interceptors (``load_direct_answer_tools(...,
tool_interceptors=[...])``) run outside the adapter's, as its agent middleware does: one that rewrites a call's
arguments decides what the server receives and the view shows; an outcome of its own (a refused call, a replaced
result) goes to the model node as the tool's message and is never shown as the host's view. A step in which the
application answered a call itself before the tools ran (`HumanInTheLoopMiddleware` rejecting it, in its default
``batched`` mode) takes no route: the host's view goes to the model node as the tool message, beside the rejection.

The module imports nothing from LangChain (`load_direct_answer_tools` and the tools `answer_directly` returns reach it
when called), nor from the MCP SDK unless a 2.x session pages its tool list: it works with the SDK's 1.x models,
which is what the adapters use, and with 2.x.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from pydantic import BaseModel

from mcp_rendering.host import Presentation, present
from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, servers_by_name

__all__ = [
    "DirectAnswerInterceptor",
    "RenderedCall",
    "RenderingInterceptor",
    "answer_directly",
    "direct_answer_interceptor",
    "load_direct_answer_tools",
    "rendering_interceptor",
]

_LIST_PAGES_LIMIT = 1000
"""The most `tools/list` pages read in one refresh: a server repeating its cursor cannot keep the call waiting."""


class ToolCallRequest(Protocol):
    """The members of the adapters' `MCPToolCallRequest` this module reads."""

    name: str
    args: dict[str, Any]
    server_name: str


_Request = TypeVar("_Request", bound=ToolCallRequest)
_T = TypeVar("_T")
"""The adapters' request type, which the handler they pass takes back."""


class _ToolListing(Protocol):
    """A client session of `mcp` 1.x or 2.x (or a 2.x `Client`): what `list_tools` is called on."""

    async def list_tools(self) -> Any: ...


class _SessionFactory(Protocol):
    """The adapters' `MultiServerMCPClient`: it opens a session to one named server."""

    def session(self, server_name: str) -> AbstractAsyncContextManager[Any]: ...


@dataclass(frozen=True)
class RenderedCall:
    """One tool call as the interceptor presented it."""

    server: str
    """The server name the adapters gave the call (``"unknown"`` when none was configured)."""
    tool: str
    """The tool's name on its server."""
    arguments: Mapping[str, Any]
    """The arguments the call was made with: `presentation.next_arguments(arguments)` gives the next part's (the
    caller's own arguments, plus the continuation argument set to the new token)."""
    presentation: Presentation
    """What to show the user (`text`, `markdown`, `caption`, `notice`) and what the model received."""


def _is_call_tool_result(value: Any) -> bool:
    # Inner interceptors may already have turned the result into a ToolMessage or a LangGraph Command.
    if not isinstance(value, BaseModel):
        return False
    fields = type(value).model_fields
    return "content" in fields and ("isError" in fields or "is_error" in fields)


def _is_error(result: BaseModel) -> bool:
    flag = getattr(result, "isError", None)
    if flag is None:
        flag = getattr(result, "is_error", False)
    return flag is True


def _name_of(tool: Any) -> str | None:
    name = cast("Mapping[str, Any]", tool).get("name") if isinstance(tool, Mapping) else getattr(tool, "name", None)
    return name if isinstance(name, str) else None


async def _next_page(session: _ToolListing, cursor: str) -> Any:
    list_tools: Any = session.list_tools
    if "cursor" in inspect.signature(list_tools).parameters:
        return await list_tools(cursor=cursor)
    # The 2.x session takes the cursor only inside its request parameters; the SDK is there, as the session is.
    from mcp.types import PaginatedRequestParams

    return await list_tools(params=PaginatedRequestParams(cursor=cursor))


async def _list_all(session: _ToolListing) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(_LIST_PAGES_LIMIT):
        page = await (session.list_tools() if cursor is None else _next_page(session, cursor))
        tools.extend(cast("list[Any]", getattr(page, "tools", None) or []))
        next_cursor = getattr(page, "nextCursor", None) or getattr(page, "next_cursor", None)
        if not isinstance(next_cursor, str) or not next_cursor:
            break
        cursor = next_cursor
    return tools


class RenderingInterceptor:
    """A `ToolCallInterceptor` of `langchain-mcp-adapters` that presents each result; see the module docstring."""

    def __init__(
        self,
        session: _ToolListing | None = None,
        *,
        client: _SessionFactory | None = None,
        tools: Iterable[Any] | None = None,
        server: str | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = None,
        on_presentation: Callable[[RenderedCall], object] | None = None,
    ) -> None:
        if sum(source is not None for source in (session, client, tools)) > 1:
            raise ValueError("give at most one of session, client and tools")
        if server is not None and session is None:
            # Only a session's calls all come from one server: elsewhere each call's server is the adapters' own.
            raise ValueError("server names the server of a session: give it only with session")
        self._session = session
        self.client: _SessionFactory | None = client
        """The `MultiServerMCPClient` whose sessions list the tools; may be set after the client is built."""
        self._server = server
        self._max_rows = max_rows
        self._max_bytes = max_bytes
        self._on_presentation = on_presentation
        self._tools: dict[tuple[str, str], Any] = {}
        self._fixed = tools is not None
        for tool in tools or ():
            name = _name_of(tool)
            if name is not None:
                self._tools["", name] = tool

    async def _refresh(self, server_name: str) -> None:
        if self._session is not None:
            listed = await _list_all(self._session)
        elif self.client is not None:
            async with self.client.session(server_name) as session:
                listed = await _list_all(cast("_ToolListing", session))
        else:
            return
        key = "" if self._session is not None else server_name
        for stale in [entry for entry in self._tools if entry[0] == key]:
            del self._tools[stale]
        for tool in listed:
            name = _name_of(tool)
            if name is not None:
                self._tools[key, name] = tool

    async def tool(self, server_name: str, name: str) -> Any:
        """The `Tool` called `name` (None when unknown), listing the server's tools when it is not cached."""
        key = ("" if self._session is not None or self._fixed else server_name, name)
        if key not in self._tools and not self._fixed:
            await self._refresh(server_name)
        return self._tools.get(key)

    async def __call__(self, request: _Request, handler: Callable[[_Request], Awaitable[Any]]) -> Any:
        result = await handler(request)
        if not _is_call_tool_result(result) or _is_error(cast("BaseModel", result)):
            return result  # errors reach the model as the server wrote them, so it can correct its call
        model = cast("BaseModel", result)
        tool = await self.tool(request.server_name, request.name)
        server = self._server or _adapters_server(request)
        presentation = present(
            tool, model, server=server, max_rows=self._max_rows, max_bytes=self._max_bytes, arguments=request.args
        )
        if self._on_presentation is not None:
            call = RenderedCall(self._server or request.server_name, request.name, dict(request.args), presentation)
            outcome = self._on_presentation(call)
            if inspect.isawaitable(outcome):
                await outcome
        # The result's own class, so that the adapters get the model of the SDK version they were built for.
        return type(model).model_validate(presentation.model_result)


def rendering_interceptor(
    session: _ToolListing | None = None,
    *,
    client: _SessionFactory | None = None,
    tools: Iterable[Any] | None = None,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = None,
    on_presentation: Callable[[RenderedCall], object] | None = None,
) -> RenderingInterceptor:
    """An interceptor for ``load_mcp_tools(..., tool_interceptors=[...])`` or ``MultiServerMCPClient(...,
    tool_interceptors=[...])`` that gives the model the host's framing and the records of every result.

    Args:
        session: the client session the tools were loaded from; its tools are listed for their hints.
        client: the `MultiServerMCPClient`, instead of `session`: the tools of the server being called are listed
            through a session of its own.
        tools: the tools themselves (SDK models or wire dicts), instead of `session` or `client`.
        server: with `session` only (its calls all come from that server), the server name shown in a verbatim
            presentation's caption; otherwise (and by default) the adapters' server name for each call, the
            `MultiServerMCPClient` connection's name.
        max_rows: the host's bound on the records shown and forwarded (see `mcp_rendering.present`).
        max_bytes: the host's bound on the size of the rendering and of the forwarded blocks.
        on_presentation: called (and awaited, when it returns an awaitable) with each presented call, before the
            model receives the result: the place to show `presentation.text` to the user.

    Raises:
        ValueError: more than one of `session`, `client` and `tools`, or `server` without `session`.
    """
    return RenderingInterceptor(
        session,
        client=client,
        tools=tools,
        server=server,
        max_rows=max_rows,
        max_bytes=max_bytes,
        on_presentation=on_presentation,
    )


# ------------------------------------------------------------------------------------- the return-direct route


def _hint_carrier(tool: Any) -> dict[str, Any]:
    """The MCP tool a loaded LangChain tool came from, as the adapters keep it: its input schema as the tool's
    `args_schema` (the continuation argument a partial result's notice offers is declared there), its annotations
    and its `_meta` in the tool's `metadata`."""
    carrier: dict[str, Any] = {"name": getattr(tool, "name", None)}
    schema = getattr(tool, "args_schema", None)
    if isinstance(schema, Mapping):
        carrier["inputSchema"] = schema
    metadata = getattr(tool, "metadata", None)
    if isinstance(metadata, Mapping):
        kept = cast("Mapping[str, Any]", metadata)
        annotations = {key: value for key, value in kept.items() if key != "_meta" and value is not None}
        if annotations:
            carrier["annotations"] = annotations
        if kept.get("_meta") is not None:
            carrier["_meta"] = kept["_meta"]
    return carrier


@dataclass
class _DirectCall:
    """One call of a tool `answer_directly` returned: that tool's own hints and the host's options, and the host's
    view `direct_answer_interceptor` made of the call's MCP result, when it ran."""

    carrier: dict[str, Any]
    options: AnswerOptions
    view: tuple[str, bool] | None = None
    """The host's answer text and whether the result was an error."""
    foreign: bool = False
    """The adapters named the call's server, and not as the tool's server was named to `answer_directly`."""


_DIRECT_CALL: ContextVar[_DirectCall | None] = ContextVar("mcp_rendering_langchain_direct_call", default=None)
"""The return-direct call under way in this task: the adapters run the interceptors inside the tool's coroutine."""


def _adapters_server(request: ToolCallRequest) -> str | None:
    # The adapters name a server they were not given "unknown": no name, as in the other adapters' captions.
    name = request.server_name
    return name if name and name != "unknown" else None


def _mcp_block(block: Any) -> dict[str, Any]:
    """The MCP content block the adapters turned into LangChain's `block`."""
    if isinstance(block, str):
        return {"type": "text", "text": block}
    given: Mapping[str, Any] = cast("Mapping[str, Any]", block) if isinstance(block, Mapping) else {}
    kind, mime = given.get("type"), given.get("mime_type")
    typed: dict[str, Any] = {"mimeType": mime} if isinstance(mime, str) else {}
    if kind == "text":
        return {"type": "text", "text": str(given.get("text", ""))}
    url = given.get("url")
    if isinstance(url, str):
        return {"type": "resource_link", "uri": url, "name": url, **typed}
    data = str(given.get("base64", ""))
    if kind == "image" and typed:
        return {"type": "image", "data": data, **typed}
    # The adapters keep no URI for an embedded blob: the view names the resource with none.
    return {"type": "resource", "resource": {"blob": data, **typed}}


def _converted_result(content: Any, artifact: Any, *, is_error: bool) -> dict[str, Any]:
    """The MCP result the adapters converted to ``(content, artifact)`` (its `_meta` is not kept by them)."""
    blocks = [content] if isinstance(content, str) else cast("list[Any]", content or [])
    result: dict[str, Any] = {"content": [_mcp_block(block) for block in blocks], "isError": is_error}
    if isinstance(artifact, Mapping):
        structured = cast("Mapping[str, Any]", artifact).get("structured_content")
        if structured is not None:
            result["structuredContent"] = structured
    return result


def _answer(call: _DirectCall, result: Any, arguments: Mapping[str, Any], server: str | None) -> tuple[str, bool]:
    answer = call.options.answer(call.carrier, result, arguments=arguments, default_server=server)
    return call.options.text(answer), answer.is_error


def _ending_on_host_view(
    coroutine: Callable[..., Awaitable[Any]],
    carrier: dict[str, Any],
    options: AnswerOptions,
    model_node: str,
    intercepted: bool,
) -> Callable[..., Awaitable[Any]]:
    """The adapters' coroutine of a return-direct tool, whose outcome is the host's view of the result: the one
    `direct_answer_interceptor` made from the MCP result when it ran, else (tools loaded without it) one made from
    what the adapters converted (without the result's directive, which they drop). With `intercepted` (the tools
    were loaded with it), an outcome that did not come through it unchanged is the application's own (an
    interceptor outside it refused the call, answered it, or replaced its result): it goes to the model, as it
    would without the route, and is never shown as the host's view."""

    @functools.wraps(coroutine)
    async def run(*args: Any, **kwargs: Any) -> Any:
        call = _DirectCall(carrier, options)
        arguments = {key: value for key, value in kwargs.items() if key != "runtime"}
        runtime = kwargs.get("runtime", args[0] if args else None)
        token = _DIRECT_CALL.set(call)
        failure: Exception | None = None
        try:
            outcome = await coroutine(*args, **kwargs)
        except Exception as error:
            if not isinstance(error, _tool_exception()):
                raise
            failure, outcome = error, None
        finally:
            _DIRECT_CALL.reset(token)
        call_id = getattr(runtime, "tool_call_id", None)
        if call.foreign or (intercepted and not _came_through(call, outcome, failure)):
            if not isinstance(call_id, str):
                if failure is not None:
                    raise failure
                return outcome
            return _own_outcome_to_model(outcome, failure, call_id, _name_of(carrier) or "", model_node), None
        if call.view is not None:
            text, is_error = call.view
        elif failure is not None:
            blocks = getattr(failure, "tool_content", None) or [str(failure)]
            text, is_error = _answer(call, _converted_result(blocks, None, is_error=True), arguments, None)
        else:
            pair = cast("tuple[Any, Any]", outcome) if isinstance(outcome, tuple) else (outcome, None)
            content, artifact = pair
            if not isinstance(content, (str, list)):
                raise TypeError(
                    "an interceptor of a return-direct tool must hand on the MCP result, not "
                    + type(cast("object", content)).__name__
                )
            result = _converted_result(content, artifact, is_error=False)
            text, is_error = _answer(call, result, arguments, None)
        if not is_error:
            if isinstance(call_id, str) and _step_answered_without_its_tool(runtime):
                # The application answered another call of this step itself (a human-in-the-loop rejection, a
                # reviewer's reply): the model reads that answer with the host's view, and the turn goes on.
                return _view_to_model(text, call_id, _name_of(carrier) or "", model_node), None
            return [{"type": "text", "text": text}], None
        if isinstance(call_id, str):
            return _back_to_model(text, call_id, _name_of(carrier) or "", model_node), None
        # Outside a graph: the adapters' own failure, holding the host's error answer, for their error handler.
        raise _failure_holding(failure, text)

    return run


def _came_through(call: _DirectCall, outcome: Any, failure: Exception | None) -> bool:
    """Whether the tool's outcome is the one `direct_answer_interceptor` made of the MCP result, unchanged."""
    if call.view is None:
        return False
    text, is_error = call.view
    if failure is not None:
        blocks: Any = getattr(failure, "tool_content", None)
        return is_error and _only_text(blocks) == text
    content = cast("tuple[Any, Any]", outcome)[0] if isinstance(outcome, tuple) else outcome
    return not is_error and _only_text(content) == text


def _only_text(content: Any) -> str | None:
    """The text of content the adapters converted that is one text block, else None."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(cast("list[Any]", content)) == 1:
        block = cast("list[Any]", content)[0]
        if isinstance(block, Mapping) and cast("Mapping[str, Any]", block).get("type") == "text":
            text = cast("Mapping[str, Any]", block).get("text")
            return text if isinstance(text, str) else None
    return None


def _own_outcome_to_model(outcome: Any, failure: Exception | None, call_id: str, name: str, model_node: str) -> Any:
    """The application's own outcome of a return-direct tool's call, sent on to the model node as the tool message
    the adapters would have made: `return_direct` alone would end the turn on it."""
    messages: Any = importlib.import_module("langchain_core.messages")
    types: Any = importlib.import_module("langgraph.types")
    if failure is not None:
        content: Any = getattr(failure, "tool_content", None) or str(failure)
        message = messages.ToolMessage(content=content, tool_call_id=call_id, name=name, status="error")
    else:
        content, artifact = cast("tuple[Any, Any]", outcome) if isinstance(outcome, tuple) else (outcome, None)
        if isinstance(content, messages.ToolMessage):
            message = content
        elif isinstance(content, types.Command):
            return content  # the application's own graph step, as it gave it
        else:
            message = messages.ToolMessage(content=content, artifact=artifact, tool_call_id=call_id, name=name)
    return types.Command(update={"messages": [message]}, goto=model_node)


def _step_answered_without_its_tool(runtime: Any) -> bool:
    """Whether the agent's state, as the tools of this step receive it, already holds a tool message after the
    model's last message: a call of the step the application answered in place of its tool, as LangChain's
    `HumanInTheLoopMiddleware` does for a rejected call (its default ``batched`` mode) before the tools run."""
    state = getattr(runtime, "state", None)
    # A graph's state is a dict, or an object of the application's own state schema.
    messages: Any = (
        cast("Mapping[str, Any]", state).get("messages")
        if isinstance(state, Mapping)
        else getattr(state, "messages", None)
    )
    if not isinstance(messages, list):
        return False
    for message in reversed(cast("list[Any]", messages)):
        kind = getattr(message, "type", None)
        if kind == "tool":
            return True
        if kind == "ai":
            return False
    return False


def _view_to_model(text: str, call_id: str, name: str, model_node: str) -> Any:
    """The host's view as the tool message, sent on to the model node instead of ending the turn on it."""
    messages: Any = importlib.import_module("langchain_core.messages")
    types: Any = importlib.import_module("langgraph.types")
    message = messages.ToolMessage(content=[{"type": "text", "text": text}], tool_call_id=call_id, name=name)
    return types.Command(update={"messages": [message]}, goto=model_node)


def _tool_exception() -> type[Exception]:
    tools: Any = importlib.import_module("langchain_core.tools")
    return cast("type[Exception]", tools.ToolException)


def _failure_holding(failure: Exception | None, text: str) -> Exception:
    if failure is None:
        return _tool_exception()(text)
    if hasattr(failure, "tool_content"):
        return type(failure)([{"type": "text", "text": text}])
    return type(failure)(text)


def answer_directly(
    servers: Mapping[str, Iterable[_T]],
    *,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Mapping[str, Iterable[str]] | None = None,
    model_node: str = "model",
    intercepted: bool = False,
) -> list[_T]:
    """The loaded tools of each server, those the server marks verbatim (their hint, as the adapters loaded it) as
    new tool objects with LangChain's own `return_direct`, so that an agent's turn ends on their result with no model
    writing the answer, and that result the host's view of it (the caption, a partial result's notice, every record
    shown, bounded by `max_rows` and `max_bytes`); the other tools are returned as they are, all in one list. The
    route and the view are decided from the same tool object: whatever the server lists later, such a tool ends a
    turn only on the host's view. The tools given are not changed.

    Load the tools with `direct_answer_interceptor`, so that the view reads the result's own directive (whether it
    is complete, how to get the rest), which the adapters drop; without it the view is made from what the adapters
    give the tool, and reads only the tool's hint. An error result does not end the turn: inside the agent's graph
    it goes back to `model_node` as a failed message holding the host's error answer; outside it, the tool fails
    with that answer.

    Args:
        servers: each server's name, shown in its results' captions, mapped to its loaded tools (for a
            `MultiServerMCPClient`, ``{name: await client.get_tools(server_name=name) for name in connections}``).
            With `direct_answer_interceptor`, a call the adapters say another server answered (their connection's
            name differs) is not shown as the host's view: its result goes to the model.
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: by server name, the names (the server's own) of the tools the host allows to answer directly; a
            server missing from it has none. None: every tool each server marks. A server that marks every tool
            verbatim would take over the answer of every tool: name the ones you mean.
        model_node: the agent graph's node an error result is sent on to; ``"model"`` is `create_agent`'s.
        intercepted: the tools were loaded with `direct_answer_interceptor` last among their interceptors (as
            `load_direct_answer_tools` loads them): a call whose outcome did not come through it unchanged (an
            interceptor outside it refused the call, answered it itself or replaced its result) is the
            application's own; inside the agent's graph it goes to `model_node` as the tool message, outside it
            is the tool's outcome as the adapters gave it. It is never shown as the host's view.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions` and `AllowByServer`), or
            `servers` is not a mapping of names to tools.
    """
    allowed = AllowByServer(allow)
    named = servers_by_name(servers, "their loaded tools")
    chosen: list[_T] = []
    for server, tools in cast("Mapping[str, Iterable[_T]]", named).items():
        names = None if allowed.allow is None else allowed.allow.get(server, frozenset[str]())
        options = AnswerOptions(server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=names)
        chosen.extend(_answering_directly(tools, options, model_node, intercepted))
    return chosen


def _answering_directly(tools: Iterable[_T], options: AnswerOptions, model_node: str, intercepted: bool) -> list[_T]:
    """`answer_directly` of one server's tools (`options.server`; None: unnamed)."""
    chosen: list[_T] = []
    for tool in tools:
        carrier = _hint_carrier(tool)
        coroutine = getattr(tool, "coroutine", None)
        if not options.selects(carrier) or not callable(coroutine):
            chosen.append(tool)
            continue
        run = _ending_on_host_view(
            cast("Callable[..., Awaitable[Any]]", coroutine), carrier, options, model_node, intercepted
        )
        copy: Any = cast("Any", tool).model_copy(update={"return_direct": True, "coroutine": run})
        chosen.append(cast("_T", copy))
    return chosen


class DirectAnswerInterceptor:
    """A `ToolCallInterceptor` that hands the MCP result of a call of a tool `answer_directly` returned to that
    tool, which answers with the host's view of it (see `direct_answer_interceptor`); the results of other tools
    pass unchanged."""

    async def __call__(self, request: _Request, handler: Callable[[_Request], Awaitable[Any]]) -> Any:
        result = await handler(request)
        call = _DIRECT_CALL.get()
        if call is None or call.view is not None or not _is_call_tool_result(result):
            return result
        model = cast("BaseModel", result)
        server = call.options.server
        adapters_server = _adapters_server(request)
        if server is not None and adapters_server is not None and adapters_server != server:
            # Another server's tool of the same name: never shown under, nor let through as, the server named.
            call.foreign = True
            return result
        # The tool's name on its server: the LangChain tool's may carry the adapters' server prefix.
        named = _DirectCall({**call.carrier, "name": request.name}, call.options)
        call.view = _answer(named, model, request.args, adapters_server)
        text, is_error = call.view
        # What the adapters convert; the tool answers with `call.view` whatever the interceptors around this do.
        return type(model).model_validate({"content": [{"type": "text", "text": text}], "isError": is_error})


def _back_to_model(text: str, call_id: str, name: str, model_node: str) -> Any:
    """The failed tool message of a return-direct tool, sent on to the model node: `return_direct` alone would end
    the turn on it, since LangChain's route is fixed per tool and does not look at the outcome."""
    messages: Any = importlib.import_module("langchain_core.messages")
    types: Any = importlib.import_module("langgraph.types")
    message = messages.ToolMessage(content=text, tool_call_id=call_id, name=name, status="error")
    return types.Command(update={"messages": [message]}, goto=model_node)


def direct_answer_interceptor() -> DirectAnswerInterceptor:
    """An interceptor for ``load_mcp_tools(..., tool_interceptors=[...])`` (or a `MultiServerMCPClient`'s) that
    lets the tools `answer_directly` returns read the MCP result itself, with its directive (the adapters keep
    only its blocks and structured content). It decides nothing and lists nothing: the route and the view are
    decided by `answer_directly` from each tool's own hints."""
    return DirectAnswerInterceptor()


async def load_direct_answer_tools(
    session: Any,
    *,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Iterable[str] | None = None,
    model_node: str = "model",
    tool_interceptors: Iterable[Any] = (),
) -> list[Any]:
    """The session's tools loaded by the adapters' `load_mcp_tools` with `direct_answer_interceptor`, through
    `answer_directly`, in one call. Its tools all come from the one server of `session`: `server` is that server's
    name in the captions (given to the adapters as its name; None: unnamed) and `allow` the names of its tools that
    may answer directly (None: every tool it marks). The other arguments are those of `answer_directly`;
    `tool_interceptors` are the application's own, which see each call before the adapter's and may refuse it,
    rewrite it or replace its result (see `answer_directly`'s ``intercepted``).

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
    """
    options = AnswerOptions(server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow)
    # The adapters' own loader, from the environment the agent runs in (this module does not import them).
    adapters: Any = importlib.import_module("langchain_mcp_adapters.tools")
    interceptors = [*tool_interceptors, direct_answer_interceptor()]
    loaded = cast(
        "list[Any]", await adapters.load_mcp_tools(session, tool_interceptors=interceptors, server_name=server)
    )
    return _answering_directly(loaded, options, model_node, True)
