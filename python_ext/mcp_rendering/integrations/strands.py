"""The whole result to the user in Strands Agents (`strands-agents`): its own cancel route for the MCP tools'
verbatim results, with the host's view of the result as the final message.

Make each MCP client a `DirectAnswerMCPClient` (Strands' `MCPClient`, which also keeps each result's blocks as the
server sent them) and give the agent the hook provider (one line per agent), naming each client whose tools' results
may answer by its server's name::

    from mcp_rendering.integrations.strands import DirectAnswerMCPClient, DirectAnswers

    mcp_client = DirectAnswerMCPClient(lambda: stdio_client(params))
    agent = Agent(model=model, tools=[mcp_client], hooks=[DirectAnswers({"accounts": mcp_client})])
    answer = str(await agent.invoke_async("Show the accounts"))

When every tool call of a model turn returned a result the host presents verbatim (the tool's hint or the result's
directive) from an MCP tool, the provider's `AfterToolCallEvent` callback calls Strands' own
``agent.cancel(message=..., after_current_tools=True)``: the loop ends before the next model call, and the final
assistant message, the text of the `AgentResult` (``str(result)``, ``result.message``), is the host's view
(`mcp_rendering.integrations.answer.final_answer`: the caption, a partial result's notice with how to get the rest,
every record). The result's `stop_reason` is then ``"cancelled"``, as Strands reports any cancel.

An error result never ends the loop: the model reads it, as without the route, and may correct its call. In a turn
that also called another tool (or a tool that is not an MCP tool), the model answers, having read every result,
each verbatim one as the host's view in place of the raw result (so the application finds that view in the
conversation, to show beside the answer). Tools the server does not mark are untouched.

Strands' `MCPClient` keeps no server name, so the application names each client: a result is captioned with the
name of the client its tool belongs to (the tool's own `mcp_client`), never one name for the whole agent, and
``allow`` maps a server's name to its tools' names (the server's own). Tools of clients not named are untouched.

The host's view is built from the result's blocks as the server sent them, not from Strands' mapping of them for
the model (which drops a resource link or audio): `DirectAnswerMCPClient` overrides
`map_mcp_content_to_tool_result_content` (where Strands hands each raw block, the method it documents for a subclass
to intercept blocks) to record the blocks of the calls the adapter follows, and maps them as Strands does.
`DirectAnswers` refuses any other client (TypeError). A client whose own override (a subclass of
`DirectAnswerMCPClient`) maps a block otherwise than Strands does, or maps one without handing it to the
`DirectAnswerMCPClient` method, keeps its result with the model; a block it drops without handing it on is never
seen, so an override hands every block on (the page says so).

The application's own hooks see every call. The provider's `BeforeToolCallEvent` callback hands Strands each MCP
tool wrapped so that the adapter keeps the result the tool returned; only that result, as it came, takes the route:
a call the application's hooks cancel, give another tool or whose result they replace goes to the model. Give the
provider first among the agent's hooks, so that its `AfterToolCallEvent` callback runs after the application's.
What the provider keeps of a run is dropped when the run ends (`AfterInvocationEvent`), unless it stopped on an
interrupt, whose resumed turn needs it.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from contextlib import aclosing
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, cast

# Resolved where `strands-agents` is installed; the project's own environment goes without it.
from strands.hooks import (  # pyright: ignore[reportMissingImports]
    AfterInvocationEvent,  # pyright: ignore[reportUnknownVariableType]
    AfterToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
    BeforeToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
)
from strands.tools.mcp import MCPClient  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from strands.types.tools import AgentTool  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, servers_by_name

__all__ = ["DirectAnswerMCPClient", "DirectAnswers"]

_STRANDS_MAPPING: Callable[[Any, Any], Any] = cast("Any", MCPClient).map_mcp_content_to_tool_result_content
"""Strands' own mapping of an MCP content block to the model's."""

_FOLLOWED: ContextVar[list[Any] | None] = ContextVar("mcp_rendering_strands_followed", default=None)
"""Where the content blocks of the MCP call the adapter follows in this task are recorded, as the server sent them;
set only while the call's tool runs (Strands maps a result's blocks in the task that called the tool)."""


class DirectAnswerMCPClient(MCPClient):  # pyright: ignore[reportUntypedBaseClass]
    """Strands' `MCPClient`, which also records for `DirectAnswers` the content blocks of each result of the calls
    the adapter follows, as the server sent them, from its `map_mcp_content_to_tool_result_content` (the method
    Strands documents for a subclass to intercept each block); it maps them as Strands does. Use it in place of
    `MCPClient` for each client given to `DirectAnswers`, or as the base of your own subclass."""

    def map_mcp_content_to_tool_result_content(self, content: Any) -> Any:
        mapped = cast("Any", super()).map_mcp_content_to_tool_result_content(content)
        followed = _FOLLOWED.get()
        if followed is not None:
            followed.append(content)
        return mapped


def _wire(client: Any, raw: list[Any], result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The wire JSON of the `CallToolResult` a call returned: its raw content blocks, and what Strands' `MCPToolResult`
    keeps whole (`structuredContent`, `_meta` as `metadata`, `isError`); None when the client's own mapping (an
    override) made the model's content otherwise than Strands' mapping of those blocks does (the model reads what
    it made)."""
    mapped = cast("list[Any]", result.get("content") or [])
    if len(raw) < len(mapped):
        return None  # fewer blocks recorded than mapped: an override mapped some without handing them on
    try:
        strands = [block for block in (_STRANDS_MAPPING(client, each) for each in raw) if block is not None]
    except Exception:  # a block Strands' mapping refuses, which the client's own mapping mapped
        return None
    if strands != mapped:
        return None  # an override changed, added or dropped a block
    content = [
        cast("Callable[..., Any]", block.model_dump)(mode="json", by_alias=True, exclude_none=True) for block in raw
    ]
    wire: dict[str, Any] = {"content": content, "isError": result.get("status") == "error"}
    if "structuredContent" in result:
        wire["structuredContent"] = result["structuredContent"]
    if isinstance(result.get("metadata"), Mapping):
        wire["_meta"] = result["metadata"]
    return wire


def _turn_calls(agent: Any, own: str) -> tuple[str, ...]:
    """The ids of every tool use of the model's message that made this call (this call's alone when not found)."""
    for message in reversed(cast("list[Any]", getattr(agent, "messages", None) or [])):
        if not isinstance(message, Mapping) or cast("Mapping[str, Any]", message).get("role") != "assistant":
            continue
        blocks = cast("list[Any]", cast("Mapping[str, Any]", message).get("content") or [])
        ids = tuple(
            str(cast("Mapping[str, Any]", block)["toolUse"].get("toolUseId"))
            for block in blocks
            if isinstance(block, Mapping) and isinstance(cast("Mapping[str, Any]", block).get("toolUse"), Mapping)
        )
        if own in ids:
            return ids
    return (own,)


class _Recorded(AgentTool):  # pyright: ignore[reportUntypedBaseClass]
    """An MCP tool as the adapter hands it to Strands for one call: the tool itself, whose result (the last event
    it yields) is handed to `record` with the raw content blocks of the call (as its `DirectAnswerMCPClient`
    recorded them), so that the adapter answers only with the result of the call the tool made, as the
    application's hooks and middleware left it."""

    def __init__(self, tool: Any, record: Callable[[Any, list[Any]], None]) -> None:
        super().__init__()  # pyright: ignore[reportUnknownMemberType]
        self._tool = tool
        self._record = record

    @property
    def tool_name(self) -> str:
        return cast("str", self._tool.tool_name)

    @property
    def tool_spec(self) -> Any:
        return self._tool.tool_spec

    @property
    def tool_type(self) -> str:
        return cast("str", self._tool.tool_type)

    @property
    def mcp_tool(self) -> Any:
        return self._tool.mcp_tool

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tool, name)

    async def stream(self, tool_use: Any, invocation_state: dict[str, Any], **kwargs: Any) -> AsyncGenerator[Any]:
        raw: list[Any] = []
        async with aclosing(self._tool.stream(tool_use, invocation_state, **kwargs)) as events:
            while True:
                # Recorded only while the tool runs, never across this generator's own yield: nothing is left
                # behind when the call returns, raises or is cancelled.
                token = _FOLLOWED.set(raw)
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    return
                finally:
                    _FOLLOWED.reset(token)
                self._record(getattr(event, "tool_result", None), list(raw))
                yield event


_NOT_MADE = object()
"""No result recorded for a call: the application's hooks cancelled it or gave it another tool."""


@dataclass
class _Run:
    """What the provider keeps of one agent's run, by the run's unique tool use ids."""

    turns: dict[tuple[str, ...], dict[str, tuple[str | None, str]]] = field(
        default_factory=dict[tuple[str, ...], dict[str, tuple[str | None, str]]]
    )
    """The answers of each turn's calls so far (None: not verbatim) with their tools' names, by the turn's tool use
    ids. Strands runs a turn's tools concurrently on one event loop and the callback never awaits, so the last call
    of the turn to finish sees every other one and alone decides."""
    results: dict[str, tuple[Any, list[Any]]] = field(default_factory=dict[str, tuple[Any, list[Any]]])
    """The result each MCP tool's call returned, by tool use id, as the tool made it, with its raw content blocks."""


class DirectAnswers:
    """A Strands hook provider (`Agent(hooks=[...])`) that ends the loop on a turn of verbatim MCP results with the
    host's view as the final message; see the module docstring."""

    def __init__(
        self,
        servers: Mapping[str, Any],
        *,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        """
        Args:
            servers: each MCP server's name (shown in its results' captions) mapped to its `MCPClient`: the clients
                whose tools may answer directly.
            max_rows: the host's bound on the records shown.
            max_bytes: the host's bound on the size of the records shown (None: no bound).
            markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
                renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
            allow: by server name, the names (the server's own) of the tools whose verbatim result may end the
                loop; a server missing from it has none. None: every tool each server marks. A server could mark
                every tool: name the ones you mean.

        Raises:
            TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions` and `AllowByServer`),
                or `servers` is not a mapping of names to MCP clients.
        """
        self._options = AnswerOptions(max_rows=max_rows, max_bytes=max_bytes, markdown=markdown)
        self._allowed = AllowByServer(allow)
        self._servers = servers_by_name(servers, "MCP clients")
        for name, client in self._servers.items():
            if not isinstance(client, DirectAnswerMCPClient):
                raise TypeError(
                    f"the client of server {name!r} is a {type(client).__name__}: make each client given to"
                    " DirectAnswers a mcp_rendering.integrations.strands.DirectAnswerMCPClient (Strands' MCPClient,"
                    " which also records each result's content blocks as the server sent them)"
                )
        # By agent (one provider may serve several): what its run keeps, dropped when the run ends (Strands'
        # `AfterInvocationEvent`, also when a call raised or was cancelled), or with the agent.
        self._runs: weakref.WeakKeyDictionary[Any, _Run] = weakref.WeakKeyDictionary()

    def register_hooks(self, registry: Any, **kwargs: Any) -> None:
        """Strands' `HookProvider` method: subscribe to `BeforeToolCallEvent`, `AfterToolCallEvent` and
        `AfterInvocationEvent`."""
        registry.add_callback(BeforeToolCallEvent, self.before_tool_call)
        registry.add_callback(AfterToolCallEvent, self.after_tool_call)
        registry.add_callback(AfterInvocationEvent, self.after_invocation)

    def after_invocation(self, event: Any) -> None:
        """Drop what the agent's run kept, unless it stopped on an interrupt: Strands resumes that run's turn, whose
        calls that finished do not run again (the next run of the agent that does not stop so drops it)."""
        result = getattr(event, "result", None)
        if getattr(result, "stop_reason", None) != "interrupt":
            self._runs.pop(event.agent, None)

    def before_tool_call(self, event: Any) -> None:
        """Hand Strands the MCP tool of the call as a `_Recorded` tool (the application's hooks registered after
        this provider's run next, and may still cancel the call, rewrite it or give it another tool)."""
        tool = event.selected_tool
        if getattr(tool, "mcp_tool", None) is None or isinstance(tool, _Recorded):
            return
        own = str(cast("Mapping[str, Any]", event.tool_use).get("toolUseId"))
        results = self._runs.setdefault(event.agent, _Run()).results
        results.pop(own, None)

        def record(result: Any, raw: list[Any]) -> None:
            results[own] = (result, raw)

        event.selected_tool = _Recorded(tool, record)

    def after_tool_call(self, event: Any) -> None:
        """Record this call's verbatim answer (or None), and cancel the loop with the turn's answers when every call
        of the turn has one."""
        tool_use = cast("Mapping[str, Any]", event.tool_use)
        own = str(tool_use.get("toolUseId"))
        calls = _turn_calls(event.agent, own)
        run = self._runs.setdefault(event.agent, _Run())
        answered = run.turns.setdefault(calls, {})
        made, raw = run.results.pop(own, (_NOT_MADE, []))
        # Only the result of the call the tool made, as it came: not one the application's hooks or middleware
        # made in its place (a cancelled call, another tool, a replaced result).
        answer = self._answer(event, raw) if event.result is made else None
        answered[own] = (answer, str(tool_use.get("name") or "unknown"))
        if answer is not None:
            # The tool message holds the host's view in place of the raw result: the model reads it when another
            # call of the turn keeps the loop going, and the application finds it in the conversation.
            event.result = {**cast("Mapping[str, Any]", event.result), "content": [{"text": answer}]}
        if len(answered) < len(set(calls)):
            return
        del run.turns[calls]
        if all(text is not None for text, _ in answered.values()):
            ordered = [answered[call] for call in dict.fromkeys(calls)]
            message = self._options.join([text or "" for text, _ in ordered], [name for _, name in ordered])
            event.agent.cancel(message=message, after_current_tools=True)

    def _answer(self, event: Any, blocks: list[Any]) -> str | None:
        raw = getattr(event.selected_tool, "mcp_tool", None)
        result = event.result
        if raw is None or event.exception is not None or not isinstance(result, Mapping):
            return None  # not an MCP tool's result
        client = getattr(event.selected_tool, "mcp_client", None)
        server = next((name for name, given in self._servers.items() if given is client), None)
        if server is None or not self._allowed.allows(server, getattr(raw, "name", None)):
            return None  # a tool of a client not named, or not allowed on its own server
        wire = _wire(client, blocks, cast("Mapping[str, Any]", result))
        if wire is None:
            return None  # the client's own mapping made the model's content otherwise than Strands does
        tool_use = cast("Mapping[str, Any]", event.tool_use)
        arguments = tool_use.get("input")
        return self._options.direct_answer(
            raw,
            wire,
            arguments=cast("Mapping[str, Any]", arguments) if isinstance(arguments, Mapping) else None,
            default_server=server,
        )
