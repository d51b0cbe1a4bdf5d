"""The whole result to the user in AutoGen AgentChat (`autogen-agentchat`, `autogen-ext[mcp]`): its own
`reflect_on_tool_use=False` route, which is agent-wide, for a dedicated agent holding the tools the server marks
verbatim, and the host's view of each result as that agent's answer.

Load the server's tools, then give the dedicated agent their options (one line per agent)::

    from mcp_rendering.integrations.autogen import direct_answer_tools

    tools = await direct_answer_tools(server_params)
    records = AssistantAgent("records", model_client, **tools.agent_options())
    result = await records.run(task="Show the annual accounts")
    print(result.messages[-1].content)  # the host's view: caption, notice, every record

AutoGen's route cannot be set per tool: with ``reflect_on_tool_use=False`` an `AssistantAgent` ends its turn after
any tool call with a `ToolCallSummaryMessage`, each result formatted by its `tool_call_summary_formatter`, and no
model writes the answer. So the adapter does not change an agent whose tools mix verbatim and not: it splits the
server's tools. `DirectAnswerTools.verbatim` holds the tools the server marks verbatim (the tool's hint), each
returning the host's view of its result (`mcp_rendering.integrations.answer.final_answer`: the caption, a partial
result's notice with how to get the rest, every record, bounded by `max_rows` and `max_bytes`); `agent_options()`
gives them to a dedicated agent with the route and a formatter that shows that view as it is.
`DirectAnswerTools.others` holds AutoGen's own adapters of the other tools, untouched, for an agent that reflects
(a team, such as a `SelectorGroupChat`, can hold both agents).

- An error result: the tool fails, and the dedicated agent's answer is the host's line saying the tool failed, then
  the server's message, never the result's data; the failure stays in the agent's model context, so its next turn
  may correct the call (the route being agent-wide, no model reads it within the turn).
- A result the host does not present verbatim (the result's directive says it may be summarized): `present()`'s
  text, as the dedicated agent has no model step to summarize it.
- Several calls in one turn: AutoGen joins the formatted results with a newline, each opening with its caption.

A server that marks every tool: name the tools that may answer directly with ``allow``; the others go to `others`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

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

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, FinalAnswer, final_answer, is_verbatim_tool

__all__ = ["DirectAnswerTools", "direct_answer_tools"]

_LIST_PAGES_LIMIT = 1000
"""The most `tools/list` pages read in one listing: a server repeating its cursor cannot keep the call waiting."""


class _DirectAnswerError(Exception):
    """An error result of a verbatim tool: its message is the host's error answer (AutoGen hands the model, and
    the summary, the text of the exception a tool raises)."""


@dataclass(frozen=True)
class _Settings:
    server: str | None
    max_rows: int | None
    max_bytes: int | None
    markdown: bool


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
        def __init__(self, server_params: Any, tool: Any, session: Any, settings: _Settings) -> None:
            base.__init__(self, server_params=server_params, tool=tool, session=session)
            self._mcp_tool = tool
            self._settings = settings

        async def _run(self, args: dict[str, Any], cancellation_token: Any, session: Any) -> Any:
            result = await session.call_tool(name=self._mcp_tool.name, arguments=args)
            answer = _answer(self._mcp_tool, result, args, self._settings)
            if answer.is_error:
                raise _DirectAnswerError(answer.text)
            return answer.markdown if self._settings.markdown else answer.text

        def return_value_as_string(self, value: Any) -> str:
            return value if isinstance(value, str) else cast("str", base.return_value_as_string(self, value))

    return _DirectAnswerTool


def _answer(tool: Any, result: Any, arguments: Mapping[str, Any], settings: _Settings) -> FinalAnswer:
    return final_answer(
        tool,
        result,
        server=settings.server,
        max_rows=settings.max_rows,
        max_bytes=settings.max_bytes,
        arguments=arguments,
    )


def _show_as_is(call: Any, result: Any) -> str:
    """The `tool_call_summary_formatter` of the dedicated agent: each result's text as the tool returned it (the
    host's view, or AutoGen's error text holding the host's error answer)."""
    del call
    return cast("str", result.content)


@dataclass
class DirectAnswerTools:
    """A server's tools split for AutoGen's agent-wide route; see the module docstring."""

    verbatim: list[Any] = field(default_factory=list[Any])
    """The tools the server marks verbatim (and `allow` names), each returning the host's view of its result."""
    others: list[Any] = field(default_factory=list[Any])
    """AutoGen's own adapters of the other tools, untouched."""

    def agent_options(self) -> dict[str, Any]:
        """The `AssistantAgent` options of the dedicated agent (pass them with ``**``): the verbatim tools,
        ``reflect_on_tool_use=False`` and a `tool_call_summary_formatter` that shows each result as it is.

        Raises:
            ValueError: the server marks no tool verbatim (the agent would have no tool).
        """
        if not self.verbatim:
            raise ValueError("the server marks no tool verbatim: give its tools to an agent that reflects")
        return {"tools": list(self.verbatim), "reflect_on_tool_use": False, "tool_call_summary_formatter": _show_as_is}


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
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: the names of the tools that may answer directly; None: every tool the server marks.
    """
    adapter = _adapter_class(server_params)
    if session is None:
        open_session = cast("Callable[[Any], Any]", create_mcp_server_session)
        async with open_session(server_params) as listing:
            await listing.initialize()
            tools = await _list_tools(listing)
    else:
        tools = await _list_tools(session)
    allowed = None if allow is None else frozenset(allow)
    settings = _Settings(server, max_rows, max_bytes, markdown)
    answering = _answer_tool_class(adapter)
    split = DirectAnswerTools()
    for tool in tools:
        if is_verbatim_tool(tool) and (allowed is None or tool.name in allowed):
            split.verbatim.append(answering(server_params, tool, session, settings))
        else:
            split.others.append(adapter(server_params=server_params, tool=tool, session=session))
    return split
