"""The whole result to the user in Strands Agents (`strands-agents`): its own cancel route for the MCP tools'
verbatim results, with the host's view of the result as the final message.

Give the agent the hook provider (one line per agent), naming each MCP client whose tools' results may answer by
its server's name::

    from mcp_rendering.integrations.strands import DirectAnswers

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
the model (which drops a resource link or audio): the provider puts, on each client it is given, a recorder in front
of the client's `map_mcp_content_to_tool_result_content` (where Strands hands each raw block, for a subclass to
intercept), which returns what the client's own method returns. A client whose own override maps a block otherwise
than Strands does keeps its result with the model.

The application's own hooks see every call. The provider's `BeforeToolCallEvent` callback hands Strands each MCP
tool wrapped so that the adapter keeps the result the tool returned; only that result, as it came, takes the route:
a call the application's hooks cancel, give another tool or whose result they replace goes to the model. Give the
provider first among the agent's hooks, so that its `AfterToolCallEvent` callback runs after the application's.
What the provider keeps of a run is dropped when the run ends (`AfterInvocationEvent`), unless it stopped on an
interrupt, whose resumed turn needs it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
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

__all__ = ["DirectAnswers"]

_STRANDS_MAPPING: object = cast("Any", MCPClient).map_mcp_content_to_tool_result_content
"""Strands' own mapping of an MCP content block to the model's."""


_CHANGED = object()
"""In place of a content block that the client's own mapping (an override of Strands'
`map_mcp_content_to_tool_result_content`) handed the model otherwise than Strands' default mapping does."""

_RAW_BLOCKS: dict[asyncio.Task[Any], list[Any]] = {}
"""The raw content blocks of each MCP call under way, by the task that awaits it: Strands maps a result's blocks in
the task that called the tool, so the task tells the calls of one event loop apart."""


def _keeping_raw_blocks(client: Any) -> None:
    """Put, in front of `client`'s `map_mcp_content_to_tool_result_content` (where Strands hands each content block
    of a result, as the server sent it, for a subclass to intercept), a recorder of the raw blocks of the calls the
    adapter follows; it returns what the client's own mapping returns, and records nothing for other calls."""
    if getattr(client.map_mcp_content_to_tool_result_content, "_mcp_rendering_keeps_raw", False):
        return
    own = client.map_mcp_content_to_tool_result_content
    overridden = cast("Any", type(client)).map_mcp_content_to_tool_result_content is not _STRANDS_MAPPING

    def mapping(content: Any) -> Any:
        mapped = own(content)
        try:
            blocks = _RAW_BLOCKS.get(cast("asyncio.Task[Any]", asyncio.current_task()))
        except RuntimeError:  # no event loop: a synchronous call the adapter does not follow
            blocks = None
        if blocks is not None:
            same = not overridden or mapped == cast("Callable[..., Any]", _STRANDS_MAPPING)(client, content)
            blocks.append(content if same else _CHANGED)
        return mapped

    mapping._mcp_rendering_keeps_raw = True  # pyright: ignore[reportFunctionMemberAccess]
    client.map_mcp_content_to_tool_result_content = mapping


def _wire(raw: list[Any], result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The wire JSON of the `CallToolResult` a call returned: its raw content blocks, and what Strands' `MCPToolResult`
    keeps whole (`structuredContent`, `_meta` as `metadata`, `isError`); None when the client's own mapping changed
    a block (the model reads what it made)."""
    if any(block is _CHANGED for block in raw) or len(raw) < len(cast("list[Any]", result.get("content") or [])):
        return None  # a block changed, or fewer recorded than Strands mapped (not recorded where it maps them)
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
    it yields) is handed to `record` with the raw content blocks of the call, so that the adapter answers only with
    the result of the call the tool made, as the application's hooks and middleware left it."""

    def __init__(self, tool: Any, record: Callable[[Any, list[Any] | None], None]) -> None:
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
        task = cast("asyncio.Task[Any]", asyncio.current_task())
        raw = _RAW_BLOCKS[task] = []
        # Blocks are recorded only while the adapter's recorder is in front of the client's mapping.
        mapping = getattr(getattr(self._tool, "mcp_client", None), "map_mcp_content_to_tool_result_content", None)
        kept = getattr(mapping, "_mcp_rendering_keeps_raw", False)
        try:
            async for event in self._tool.stream(tool_use, invocation_state, **kwargs):
                self._record(getattr(event, "tool_result", None), list(raw) if kept else None)
                yield event
        finally:
            if _RAW_BLOCKS.get(task) is raw:
                del _RAW_BLOCKS[task]


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
    results: dict[str, tuple[Any, list[Any] | None]] = field(default_factory=dict[str, tuple[Any, list[Any] | None]])
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
        for client in self._servers.values():
            _keeping_raw_blocks(client)
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

        def record(result: Any, raw: list[Any] | None) -> None:
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
        made, raw = run.results.pop(own, (_NOT_MADE, None))
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

    def _answer(self, event: Any, blocks: list[Any] | None) -> str | None:
        raw = getattr(event.selected_tool, "mcp_tool", None)
        result = event.result
        if raw is None or event.exception is not None or not isinstance(result, Mapping):
            return None  # not an MCP tool's result
        wire = _wire(blocks, cast("Mapping[str, Any]", result)) if blocks is not None else None
        if wire is None:
            return None  # no raw blocks (the recorder was not in front of the client's mapping), or changed ones
        client = getattr(event.selected_tool, "mcp_client", None)
        server = next((name for name, given in self._servers.items() if given is client), None)
        if server is None or not self._allowed.allows(server, getattr(raw, "name", None)):
            return None  # a tool of a client not named, or not allowed on its own server
        tool_use = cast("Mapping[str, Any]", event.tool_use)
        arguments = tool_use.get("input")
        return self._options.direct_answer(
            raw,
            wire,
            arguments=cast("Mapping[str, Any]", arguments) if isinstance(arguments, Mapping) else None,
            default_server=server,
        )
