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
result's notice with how to get the rest, every record). Only tools whose hint reads verbatim are changed (the
route is fixed when the agent is built, before any result); a result's own directive still reaches the model
through `rendering_interceptor`. An error result of such a tool does not end the turn, although LangChain's route
does not look at the outcome: inside the agent's graph the interceptor answers it with a LangGraph `Command` (the
adapters' own slot for an interceptor's result) holding the failed `ToolMessage`, the host's error line with the
server's message below it, and ``goto`` the model node, so that the model reads the error and may correct its call
(`create_agent`'s model node is ``"model"``; an agent whose `before_model` middleware must run first, or
`create_react_agent`, whose node is ``"agent"``, names its node with ``model_node``). Outside a graph (no tool call
id to answer), the error is the host's error answer, marked failed. `create_agent` ends the turn only when every
tool call of it was return-direct: in a turn that also called another tool, the model reads the host's view and
answers. LangGraph's `create_react_agent` ends on any return-direct message, even when the last message is another
tool's: prefer `create_agent`.

The module imports nothing from LangChain (`load_direct_answer_tools` reaches the adapters when called), nor from
the MCP SDK unless a 2.x session pages its tool list: it works with the SDK's 1.x models, which is what the
adapters use, and with 2.x.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from pydantic import BaseModel

from mcp_rendering.host import Presentation, present
from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions

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
        server = self._server or request.server_name
        presentation = present(
            tool, model, server=server, max_rows=self._max_rows, max_bytes=self._max_bytes, arguments=request.args
        )
        if self._on_presentation is not None:
            outcome = self._on_presentation(RenderedCall(server, request.name, dict(request.args), presentation))
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
        server: the server name shown in a verbatim presentation's caption; defaults to the adapters' server
            name for the call.
        max_rows: the host's bound on the records shown and forwarded (see `mcp_rendering.present`).
        max_bytes: the host's bound on the size of the rendering and of the forwarded blocks.
        on_presentation: called (and awaited, when it returns an awaitable) with each presented call, before the
            model receives the result: the place to show `presentation.text` to the user.

    Raises:
        ValueError: more than one of `session`, `client` and `tools`.
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
    """The MCP tool a loaded LangChain tool came from, as far as its hints go: the adapters keep the tool's `_meta`
    in the LangChain tool's `metadata`."""
    metadata = getattr(tool, "metadata", None)
    meta = cast("Mapping[str, Any]", metadata).get("_meta") if isinstance(metadata, Mapping) else None
    carrier: dict[str, Any] = {"name": getattr(tool, "name", None)}
    if meta is not None:
        carrier["_meta"] = meta
    return carrier


def answer_directly(tools: Iterable[_T], *, allow: Iterable[str] | None = None) -> list[_T]:
    """The loaded tools, with LangChain's own `return_direct` set on those whose server marks them verbatim (their
    hint), so that an agent's turn ends on their result with no model writing the answer; the other tools are
    left as they are. Load them with `direct_answer_interceptor`, which makes that result the host's view: alone,
    the turn would end on the server's raw blocks, with no caption. `load_direct_answer_tools` does both.

    Args:
        tools: the loaded tools.
        allow: the names of the tools the host allows to answer directly; None: every tool the server marks. A
            server that marks every tool verbatim would take over the answer of every tool: name the ones you
            mean.

    Raises:
        TypeError: `allow` is not tool names.
    """
    options = AnswerOptions(allow=allow)
    chosen = list(tools)
    for tool in chosen:
        if options.selects(_hint_carrier(tool)):
            cast("Any", tool).return_direct = True
    return chosen


class DirectAnswerInterceptor:
    """A `ToolCallInterceptor` that turns the result of a tool marked verbatim into the host's view of it (see
    `direct_answer_interceptor`); the results of other tools pass unchanged."""

    def __init__(
        self,
        session: _ToolListing | None = None,
        *,
        client: _SessionFactory | None = None,
        tools: Iterable[Any] | None = None,
        server: str | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Iterable[str] | None = None,
        model_node: str = "model",
    ) -> None:
        self._options = AnswerOptions(
            server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow
        )
        self._lookup = RenderingInterceptor(session, client=client, tools=tools)
        self._model_node = model_node

    @property
    def client(self) -> _SessionFactory | None:
        """The `MultiServerMCPClient` whose sessions list the tools; may be set after the client is built."""
        return self._lookup.client

    @client.setter
    def client(self, client: _SessionFactory | None) -> None:
        self._lookup.client = client

    async def __call__(self, request: _Request, handler: Callable[[_Request], Awaitable[Any]]) -> Any:
        result = await handler(request)
        if not _is_call_tool_result(result):
            return result
        tool = await self._lookup.tool(request.server_name, request.name)
        if not self._options.selects(tool, name=request.name):
            return result  # not a return-direct tool: the model reads its result as usual
        model = cast("BaseModel", result)
        answer = self._options.answer(tool, model, arguments=request.args, default_server=request.server_name)
        text = self._options.text(answer)
        call_id = getattr(getattr(request, "runtime", None), "tool_call_id", None)
        if answer.is_error and isinstance(call_id, str):
            return _back_to_model(text, call_id, request.name, self._model_node)
        # One text block, the answer; an error stays an error, so that the adapters mark the message as failed.
        view: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": answer.is_error}
        return type(model).model_validate(view)


def _back_to_model(text: str, call_id: str, name: str, model_node: str) -> Any:
    """The failed tool message of a return-direct tool, sent on to the model node: `return_direct` alone would end
    the turn on it, since LangChain's route is fixed per tool and does not look at the outcome."""
    messages: Any = importlib.import_module("langchain_core.messages")
    types: Any = importlib.import_module("langgraph.types")
    message = messages.ToolMessage(content=text, tool_call_id=call_id, name=name, status="error")
    return types.Command(update={"messages": [message]}, goto=model_node)


def direct_answer_interceptor(
    session: _ToolListing | None = None,
    *,
    client: _SessionFactory | None = None,
    tools: Iterable[Any] | None = None,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Iterable[str] | None = None,
    model_node: str = "model",
) -> DirectAnswerInterceptor:
    """An interceptor for ``load_mcp_tools(..., tool_interceptors=[...])`` (or a `MultiServerMCPClient`'s) that
    makes the result of every tool the server marks verbatim the host's view of it: one text block holding
    `mcp_rendering.integrations.answer.final_answer`'s text (the caption, a partial result's notice, every record
    shown, bounded by `max_rows` and `max_bytes`), or for an error result the host's error answer. With
    `answer_directly` on the loaded tools, that text is the agent's final answer.

    Args:
        session: where the tools' hints are read, as for `rendering_interceptor`.
        client: where the tools' hints are read, as for `rendering_interceptor`.
        tools: where the tools' hints are read, as for `rendering_interceptor`.
        server: the server name shown in the caption; defaults to the adapters' server name for the call.
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: the names of the tools whose result becomes the host's view, as for `answer_directly`; None: every
            tool the server marks.
        model_node: the agent graph's node an error result of a marked tool is sent on to, so that the turn goes
            on (see the module docstring); ``"model"`` is `create_agent`'s.

    Raises:
        ValueError: more than one of `session`, `client` and `tools`; an option out of range (see `AnswerOptions`).
        TypeError: an option of the wrong type (see `AnswerOptions`).
    """
    return DirectAnswerInterceptor(
        session,
        client=client,
        tools=tools,
        server=server,
        max_rows=max_rows,
        max_bytes=max_bytes,
        markdown=markdown,
        allow=allow,
        model_node=model_node,
    )


async def load_direct_answer_tools(
    session: Any,
    *,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Iterable[str] | None = None,
    model_node: str = "model",
) -> list[Any]:
    """The session's tools loaded by the adapters' `load_mcp_tools` with `direct_answer_interceptor`, through
    `answer_directly`: the route and the host's view decided from the same hint, in one call. The arguments are
    those of `direct_answer_interceptor` and `answer_directly`."""
    # The adapters' own loader, from the environment the agent runs in (this module does not import them).
    adapters: Any = importlib.import_module("langchain_mcp_adapters.tools")
    interceptor = direct_answer_interceptor(
        session,
        server=server,
        max_rows=max_rows,
        max_bytes=max_bytes,
        markdown=markdown,
        allow=allow,
        model_node=model_node,
    )
    loaded = cast("list[Any]", await adapters.load_mcp_tools(session, tool_interceptors=[interceptor]))
    return answer_directly(loaded, allow=allow)
