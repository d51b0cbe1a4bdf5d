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

The application's own hooks see every call. The provider's `BeforeToolCallEvent` callback hands Strands each MCP
tool wrapped so that the adapter keeps the result the tool returned; only that result, as it came, takes the route:
a call the application's hooks cancel, give another tool or whose result they replace goes to the model. Give the
provider first among the agent's hooks, so that its `AfterToolCallEvent` callback runs after the application's.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from typing import Any, cast

# Resolved where `strands-agents` is installed; the project's own environment goes without it.
from strands.hooks import (  # pyright: ignore[reportMissingImports]
    AfterToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
    BeforeToolCallEvent,  # pyright: ignore[reportUnknownVariableType]
)
from strands.types.tools import AgentTool  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, servers_by_name

__all__ = ["DirectAnswers"]


def _wire(result: Mapping[str, Any]) -> dict[str, Any]:
    """Strands' `MCPToolResult` (its own content blocks, the result's `structuredContent`, `_meta` as `metadata`)
    as the wire JSON of the `CallToolResult` it came from, as far as Strands kept it."""
    content: list[dict[str, Any]] = []
    for block in cast("list[Any]", result.get("content") or []):
        if isinstance(block, Mapping) and isinstance(text := cast("Mapping[str, Any]", block).get("text"), str):
            content.append({"type": "text", "text": text})
        elif isinstance(block, Mapping) and "image" in block:
            image = cast("Mapping[str, Any]", cast("Mapping[str, Any]", block)["image"])
            content.append({"type": "image", "data": "", "mimeType": f"image/{image.get('format', '')}"})
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
    it yields) is handed to `record`, so that the adapter answers only with the result of the call the tool made,
    as the application's hooks and middleware left it."""

    def __init__(self, tool: Any, record: Callable[[Any], None]) -> None:
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
        async for event in self._tool.stream(tool_use, invocation_state, **kwargs):
            self._record(getattr(event, "tool_result", None))
            yield event


_NOT_MADE = object()
"""No result recorded for a call: the application's hooks cancelled it or gave it another tool."""


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
        # The answers of each turn's calls so far (None: not verbatim) with their tools' names, by the turn's tool
        # use ids. Strands runs a turn's tools concurrently on one event loop and this callback never awaits, so the
        # last call of the turn to finish sees every other one and alone decides.
        self._turns: dict[tuple[str, ...], dict[str, tuple[str | None, str]]] = {}
        # The result each MCP tool's call returned, by tool use id, as the tool made it.
        self._results: dict[str, Any] = {}

    def register_hooks(self, registry: Any, **kwargs: Any) -> None:
        """Strands' `HookProvider` method: subscribe to `BeforeToolCallEvent` and `AfterToolCallEvent`."""
        registry.add_callback(BeforeToolCallEvent, self.before_tool_call)
        registry.add_callback(AfterToolCallEvent, self.after_tool_call)

    def before_tool_call(self, event: Any) -> None:
        """Hand Strands the MCP tool of the call as a `_Recorded` tool (the application's hooks registered after
        this provider's run next, and may still cancel the call, rewrite it or give it another tool)."""
        tool = event.selected_tool
        if getattr(tool, "mcp_tool", None) is None or isinstance(tool, _Recorded):
            return
        own = str(cast("Mapping[str, Any]", event.tool_use).get("toolUseId"))
        self._results.pop(own, None)

        def record(result: Any) -> None:
            self._results[own] = result

        event.selected_tool = _Recorded(tool, record)

    def after_tool_call(self, event: Any) -> None:
        """Record this call's verbatim answer (or None), and cancel the loop with the turn's answers when every call
        of the turn has one."""
        tool_use = cast("Mapping[str, Any]", event.tool_use)
        own = str(tool_use.get("toolUseId"))
        calls = _turn_calls(event.agent, own)
        answered = self._turns.setdefault(calls, {})
        made = self._results.pop(own, _NOT_MADE)
        # Only the result of the call the tool made, as it came: not one the application's hooks or middleware
        # made in its place (a cancelled call, another tool, a replaced result).
        answer = self._answer(event) if event.result is made else None
        answered[own] = (answer, str(tool_use.get("name") or "unknown"))
        if answer is not None:
            # The tool message holds the host's view in place of the raw result: the model reads it when another
            # call of the turn keeps the loop going, and the application finds it in the conversation.
            event.result = {**cast("Mapping[str, Any]", event.result), "content": [{"text": answer}]}
        if len(answered) < len(set(calls)):
            return
        del self._turns[calls]
        if all(text is not None for text, _ in answered.values()):
            ordered = [answered[call] for call in dict.fromkeys(calls)]
            message = self._options.join([text or "" for text, _ in ordered], [name for _, name in ordered])
            event.agent.cancel(message=message, after_current_tools=True)

    def _answer(self, event: Any) -> str | None:
        raw = getattr(event.selected_tool, "mcp_tool", None)
        result = event.result
        if raw is None or event.exception is not None or not isinstance(result, Mapping):
            return None  # not an MCP tool's result
        client = getattr(event.selected_tool, "mcp_client", None)
        server = next((name for name, given in self._servers.items() if given is client), None)
        if server is None or not self._allowed.allows(server, getattr(raw, "name", None)):
            return None  # a tool of a client not named, or not allowed on its own server
        tool_use = cast("Mapping[str, Any]", event.tool_use)
        arguments = tool_use.get("input")
        return self._options.direct_answer(
            raw,
            _wire(cast("Mapping[str, Any]", result)),
            arguments=cast("Mapping[str, Any]", arguments) if isinstance(arguments, Mapping) else None,
            default_server=server,
        )
