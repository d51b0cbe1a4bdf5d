"""The whole result to the user in Strands Agents (`strands-agents`): its own route to end a turn after its tool
calls (`AfterToolsEvent.end_turn`) for the MCP tools' verbatim results, with the host's view of the result as the
final message.

Make each MCP client a `DirectAnswerMCPClient` (Strands' `MCPClient`, which also keeps each result's blocks as the
server sent them) and give the agent the hook provider (one line per agent), naming each client whose tools' results
may answer by its server's name::

    from mcp_rendering.integrations.strands import DirectAnswerMCPClient, DirectAnswers

    mcp_client = DirectAnswerMCPClient(lambda: stdio_client(params))
    agent = Agent(model=model, tools=[mcp_client], hooks=[DirectAnswers({"accounts": mcp_client})])
    answer = str(await agent.invoke_async("Show the accounts"))

When every tool call of a model turn returned a result the host presents verbatim (the tool's hint or the result's
directive) from an MCP tool, the provider's `AfterToolsEvent` callback (Strands' event once every call of the turn
has ended) sets the event's ``end_turn`` to the host's view (`mcp_rendering.integrations.answer.final_answer`: the
caption, a partial result's notice with how to get the rest, every record): the loop ends before the next model
call, and the final assistant message, the text of the `AgentResult` (``str(result)``, ``result.message``), is that
view; the result's `stop_reason` is ``"end_turn"``, as Strands reports a turn a hook ended. A turn an application
callback already ended (its own ``end_turn``), or a run the application cancelled (``agent.cancel()``, its
`cancel_signal` set), is left to them.

An error result never ends the loop: the model reads it, as without the route, and may correct its call. In a turn
that also called another tool (or a tool that is not an MCP tool), the model answers, having read every result,
each verbatim one as the host's view in place of the raw result (so the application finds that view in the
conversation, to show beside the answer). Tools the server does not mark are untouched, and so is a direct call
(`agent.tool.NAME(...)`, no model turn: Strands' own test, only the loop's calls carry the cycle's id in their
invocation state), whose result stays the tool's own; nothing of it is kept.

Strands' `MCPClient` keeps no server name, so the application names each client: a result is captioned with the
name of the client its tool belongs to (the tool's own `mcp_client`), never one name for the whole agent, and
``allow`` maps a server's name to its tools' names (the server's own). Tools of clients not named are untouched.

The host's view is built from the result's blocks as the server sent them, not from Strands' mapping of them for
the model (which drops a resource link or audio): `DirectAnswerMCPClient` overrides
`map_mcp_content_to_tool_result_content` (where Strands hands each raw block, the method it documents for a subclass
to intercept blocks) to record the blocks of the calls the adapter follows, and maps them as Strands does. The
provider's `BeforeToolCallEvent` callback hands the call it follows to the task that runs the call's tool, where the
client's `call_tool_async` records that call's result (its tool use id checked): two runs at once on one client
(two agents, say) whose models reuse a tool use id each keep their own record. `DirectAnswers` refuses any other
client (TypeError). A client whose own override (a subclass of `DirectAnswerMCPClient`) maps a block otherwise than
Strands does, or maps one without handing it to the `DirectAnswerMCPClient` method, keeps its result with the model;
a block it drops without handing it on is never seen, so an override hands every block on (the page says so).

The application's own hooks see every call, with Strands' own objects (the call's tool is Strands' `MCPAgentTool`),
in either order with the provider. The provider's `AfterToolCallEvent` callback puts the host's view in place of a
verbatim call's result only when the result is still the one the client returned for that call, as it came; its
`AfterToolsEvent` callback takes the route only when every result of the turn, as the whole after-call chain left
it, is still that view. So a call the application's hooks cancel, give another tool or whose result they replace,
before or after the provider's callbacks, goes to the model, which reads what the hooks made. What the provider
keeps of a run, with each record of the run's calls, is dropped when the run ends (`AfterInvocationEvent`), unless it
stopped on an interrupt, whose resumed turn needs it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, cast

# Resolved where `strands-agents` is installed; the project's own environment goes without it.
from strands.hooks import (  # pyright: ignore[reportMissingImports]
    AfterInvocationEvent,  # pyright: ignore[reportUnknownVariableType]
    AfterToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
    AfterToolsEvent,  # pyright: ignore[reportUnknownVariableType]
    BeforeToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
)
from strands.tools.mcp import MCPClient  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, servers_by_name

__all__ = ["DirectAnswerMCPClient", "DirectAnswers"]

_STRANDS_MAPPING: Callable[[Any, Any], Any] = cast("Any", MCPClient).map_mcp_content_to_tool_result_content
"""Strands' own mapping of an MCP content block to the model's."""

_RAW_BLOCKS: ContextVar[list[Any] | None] = ContextVar("mcp_rendering_strands_raw_blocks", default=None)
"""Where the content blocks of the followed MCP call running in this task are recorded, as the server sent them;
set only while `DirectAnswerMCPClient.call_tool_async` runs (Strands maps a result's blocks there, in the task that
called the tool)."""

_NOT_MADE = object()
"""No result recorded for a call: the application's hooks cancelled it or gave it another tool."""


@dataclass(eq=False)
class _Call:
    """One MCP call `DirectAnswers` follows: its client and tool use id, and once the client's `call_tool_async`
    returned, that result with its content blocks as the server sent them."""

    client: Any
    tool_use_id: str
    made: Any = _NOT_MADE
    raw: list[Any] = field(default_factory=list[Any])


_FOLLOWED: ContextVar[weakref.ref[_Call] | None] = ContextVar("mcp_rendering_strands_followed", default=None)
"""The call the provider's `BeforeToolCallEvent` callback last followed in this task, where Strands then runs the
call's tool: the client records its result there, so two runs at once on one client that reuse a tool use id (two
agents, or a model that numbers its calls) each keep their own. Held weakly: the run's record owns the call, so
nothing of it outlives the run."""


class DirectAnswerMCPClient(MCPClient):  # pyright: ignore[reportUntypedBaseClass]
    """Strands' `MCPClient`, which also records for `DirectAnswers` the content blocks of each result of the calls
    the adapter follows, as the server sent them, from its `map_mcp_content_to_tool_result_content` (the method
    Strands documents for a subclass to intercept each block), for the call the provider follows in the task that
    calls the tool; it maps them as Strands does. Use it in place of `MCPClient` for each client given to
    `DirectAnswers`, or as the base of your own subclass."""

    async def call_tool_async(self, tool_use_id: str, *args: Any, **kwargs: Any) -> Any:
        held = _FOLLOWED.get()
        call = held() if held is not None else None
        if call is None or call.client is not self or call.tool_use_id != tool_use_id:
            return await cast("Any", super()).call_tool_async(tool_use_id, *args, **kwargs)
        raw: list[Any] = []
        # Recorded only while this call runs: nothing is left behind when it returns, raises or is cancelled.
        token = _RAW_BLOCKS.set(raw)
        try:
            result = await cast("Any", super()).call_tool_async(tool_use_id, *args, **kwargs)
        finally:
            _RAW_BLOCKS.reset(token)
        call.made, call.raw = result, raw
        return result

    def map_mcp_content_to_tool_result_content(self, content: Any) -> Any:
        mapped = cast("Any", super()).map_mcp_content_to_tool_result_content(content)
        raw = _RAW_BLOCKS.get()
        if raw is not None:
            raw.append(content)
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


def _in_model_turn(event: Any) -> bool:
    """Whether a tool call event belongs to a turn of the agent's loop: Strands' own test (its executor's), since
    only the loop's calls carry the cycle's id in their invocation state; a direct call (`agent.tool.NAME(...)`)
    carries the call's keyword arguments there."""
    state = getattr(event, "invocation_state", None)
    return isinstance(state, Mapping) and "event_loop_cycle_id" in state


@dataclass
class _Run:
    """What the provider keeps of one agent's run, by the run's unique tool use ids."""

    followed: dict[str, _Call] = field(default_factory=dict[str, _Call])
    """Each MCP call followed and not yet ended."""
    views: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])
    """The host's view the provider set as each verbatim call's result, with its tool's name: the route is taken
    only when every result of the turn, as the whole after-call chain left it, is still that view."""


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
        """Strands' `HookProvider` method: subscribe to `BeforeToolCallEvent`, `AfterToolCallEvent`,
        `AfterToolsEvent` and `AfterInvocationEvent`."""
        registry.add_callback(BeforeToolCallEvent, self.before_tool_call)
        registry.add_callback(AfterToolCallEvent, self.after_tool_call)
        registry.add_callback(AfterToolsEvent, self.after_tools)
        registry.add_callback(AfterInvocationEvent, self.after_invocation)

    def after_invocation(self, event: Any) -> None:
        """Drop what the agent's run kept, unless it stopped on an interrupt: Strands resumes that run's turn, whose
        calls that finished do not run again (the next run of the agent that does not stop so drops it)."""
        result = getattr(event, "result", None)
        if getattr(result, "stop_reason", None) == "interrupt":
            return
        self._runs.pop(event.agent, None)

    def before_tool_call(self, event: Any) -> None:
        """Follow the call when its tool is an MCP tool of a named client and the model made it: the client records
        its result in the call's record, which this task holds. Strands' own tool stays the call's tool, as the
        application's hooks see it."""
        client = getattr(event.selected_tool, "mcp_client", None)
        if (
            not _in_model_turn(event)
            or getattr(event.selected_tool, "mcp_tool", None) is None
            or all(client is not given for given in self._servers.values())
        ):
            return
        own = str(cast("Mapping[str, Any]", event.tool_use).get("toolUseId"))
        call = _Call(client, own)
        self._runs.setdefault(event.agent, _Run()).followed[own] = call
        _FOLLOWED.set(weakref.ref(call))

    def after_tool_call(self, event: Any) -> None:
        """Put the host's view in place of the result of a verbatim call, if the result is still the one the tool
        returned, as it came: not one the application's hooks or middleware made in its place (a cancelled call,
        another tool, a replaced result)."""
        run = self._runs.get(event.agent)
        if run is None or not _in_model_turn(event):
            return  # no call of this agent's run is followed, or a direct call, which keeps the tool's own result
        tool_use = cast("Mapping[str, Any]", event.tool_use)
        own = str(tool_use.get("toolUseId"))
        run.views.pop(own, None)
        call = run.followed.pop(own, None)
        answer = self._answer(event, call.raw) if call is not None and event.result is call.made else None
        if answer is None:
            return
        # The tool message holds the host's view in place of the raw result: the model reads it when another call
        # of the turn keeps the loop going, and the application finds it in the conversation.
        event.result = {**cast("Mapping[str, Any]", event.result), "content": [{"text": answer}]}
        run.views[own] = (answer, str(tool_use.get("name") or "unknown"))

    def after_tools(self, event: Any) -> None:
        """When the turn's tool calls have all ended (every application callback of every call has run, in either
        order), end the loop with the turn's answers if every result is still the host's view the provider set."""
        run = self._runs.get(event.agent)
        if run is None or not run.views:
            return
        results: dict[str, Mapping[str, Any]] = {}
        for block in cast("list[Any]", cast("Mapping[str, Any]", event.message).get("content") or []):
            result = cast("Mapping[str, Any]", block).get("toolResult") if isinstance(block, Mapping) else None
            if isinstance(result, Mapping):
                results[str(cast("Mapping[str, Any]", result).get("toolUseId"))] = cast("Mapping[str, Any]", result)
        if not results:
            return
        calls = tuple(dict.fromkeys(_turn_calls(event.agent, next(iter(results)))))
        if any(call not in results for call in calls):
            return  # a turn split by an interrupt: its resumed batch decides
        answered = [(run.views.pop(call, None), results[call]) for call in calls]
        if any(
            view is None or result.get("status") == "error" or result.get("content") != [{"text": view[0]}]
            for view, result in answered
        ):
            return  # a call not verbatim, or a result an application callback refused or replaced after ours
        if event.end_turn or event.agent.cancel_signal.is_set():
            return  # an application callback ended the turn itself, or the application cancelled the run
        ordered = [view for view, _ in answered if view is not None]
        event.end_turn = self._options.join([text for text, _ in ordered], [name for _, name in ordered])

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
