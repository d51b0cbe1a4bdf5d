"""The whole result to the user in Haystack (`haystack-ai` with `mcp-haystack`): the Agent's own stop for the MCP
tools' verbatim results, and the host's view of the result as the last message.

Give the agent the hook (one line per agent), naming the MCP tools or toolsets whose results may answer::

    from mcp_rendering.integrations.haystack import direct_answers

    agent = Agent(chat_generator=generator, tools=toolset, hooks=direct_answers(toolset))
    answer = agent.run(messages=[ChatMessage.from_user("Show the accounts")])["last_message"].text

The hook runs at the Agent's ``after_tool`` point (and at ``before_tool``, where it notes the calls that go on to the
tools, so that a result an application's hook gave in place of a call is never read as the server's). When every tool
call of the model's turn returned a result the host presents verbatim (the result's directive, or the tool's hint when
the listed tools are given), it appends an assistant message holding the host's view
(`mcp_rendering.integrations.answer.final_answer`: the caption, a partial result's notice with how to get the rest,
every record) and sets the Agent's ``stop_run`` state key, so that the run ends before the next model call;
``exit_reason`` is then the first such tool's name, as an exit condition would set it. The last message's ``.text`` is
the answer, where Haystack applications read it; without the hook, with ``exit_conditions``, the last message is the
tool message, whose ``.text`` is None and whose result is the whole `CallToolResult` as JSON.

The route is read only from the tool message of one of the given tools (a name stands for an MCP tool of that
name) that the application gave neither ``outputs_to_string`` nor ``outputs_to_state`` (the Agent's ``tools``
state key, kept for hooks, says which tool ran each call): its text is then the SDK's JSON dump of the
`CallToolResult` that `mcp-haystack` made, where the server's text sits only inside strings. A tool whose output
the application converts goes to the model, as without the hook: its message may hold the server's text alone, and
a server's text worded as a whole result (a directive saying verbatim among it) must not pass for one. The
``tools`` state key is the Agent's own, read by Haystack's confirmation hook too, though not in its reference
documentation; a test of the adapter fails, naming it, if a release stops keeping it.

``exit_conditions`` is not used: it is fixed by tool name, so it cannot follow a result's own directive, and it
stops when any exit tool of a turn succeeded, so a turn that also called another tool would end with that result
unread. Here, an error result never ends the run (`mcp-haystack` raises on one, and the model reads the error), and
in a turn that also called another tool the model answers, having read every result, each verbatim one as the
host's view in place of the raw result (the hook rewrites those tool messages, so the application finds the view
among the messages, to show beside the answer).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any, cast

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions
from mcp_rendering.reading import parse_json

__all__ = ["DirectAnswerHook", "direct_answers"]


def _tool_names(tools: Iterable[Any]) -> list[str]:
    """The names of tools given by name, of MCP tools, and of the tools of MCP toolsets (a Haystack `Toolset`
    iterates over its tools, once connected: read at each run, since a toolset connects at the Agent's warm-up)."""
    names: list[str] = []
    for tool in tools:
        name = tool if isinstance(tool, str) else getattr(tool, "name", None)
        if isinstance(name, str):
            names.append(name)
        else:
            names.extend(str(member.name) for member in cast("Iterable[Any]", tool))
    return list(dict.fromkeys(names))


def _listed_name(tool: object) -> object:
    if isinstance(tool, Mapping):
        return cast("Mapping[str, Any]", tool).get("name")
    return getattr(tool, "name", None)


def _wire(text: str) -> dict[str, Any] | None:
    """`mcp-haystack`'s result string (the SDK's `CallToolResult` dumped with its wire names) as wire JSON, read as
    the host reads any message (`parse_json`: an amount exact, a repeated member marked); None when it is not one,
    or holds what JSON cannot (`NaN`, `1e999`): then the model reads the result, never a host view of a number
    changed."""
    try:
        value = parse_json(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(cast("dict[str, Any]", value).get("content"), list):
        return None
    wire = cast("dict[str, Any]", value)
    # The dump writes every unset member as null; absent is what the wire means. Removed in place: the object
    # `parse_json` made remembers the members it repeated.
    for key in [key for key, item in wire.items() if item is None]:
        del wire[key]
    return wire


def _replace(current: Any, new: Any) -> Any:
    """A `State.set` handler putting `new` in place of `current` (the default for messages appends)."""
    del current
    return new


def _unconverted_tools(state: Any, tools: Iterable[Any]) -> frozenset[str]:
    """The names of `tools` (names, `MCPTool`s, `MCPToolset`s) whose tool message holds the result string
    `mcp-haystack` made: the tools that ran this step (the Agent's ``tools`` state key, kept for hooks) given
    neither ``outputs_to_string`` nor ``outputs_to_state``, each one of `tools` itself (an MCP tool, or a member of
    an MCP toolset) or named by them. Any other tool's message is the application's conversion of the result, which
    may hold the server's text alone: text worded as a whole result would then pass for one."""
    given: set[int] = set()
    named: set[str] = set()
    for tool in tools:
        if isinstance(tool, str):
            named.add(tool)
        elif isinstance(getattr(tool, "name", None), str):
            given.add(id(tool))
        else:  # a toolset: its tools, once connected
            given.update(id(member) for member in cast("Iterable[Any]", tool))
    return frozenset(
        str(tool.name)
        for tool in cast("list[Any]", state.data.get("tools") or [])
        if (id(tool) in given or tool.name in named) and not tool.outputs_to_string and not tool.outputs_to_state
    )


class DirectAnswerHook:
    """A Haystack `Hook` for the Agent's ``after_tool`` point; see the module docstring and `direct_answers`."""

    def __init__(
        self,
        tools: Iterable[Any],
        *,
        listed_tools: Iterable[Any] = (),
        server: str | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Iterable[str] | None = None,
    ) -> None:
        """The arguments are those of `direct_answers`.

        Raises:
            TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
        """
        self._options = AnswerOptions(
            server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow
        )
        self.tools = list(tools)
        """The tools whose results may answer: names, `MCPTool`s, `MCPToolset`s."""
        # The ids of the tool calls the Agent was about to run at the last `before_tool` point (None: the hook is
        # not registered there, and every result is read as the server's).
        self._let_through: set[str] | None = None
        self._listed: dict[str, Any] = {}
        for tool in listed_tools:
            name = _listed_name(tool)
            if isinstance(name, str):
                self._listed[name] = tool

    @property
    def options(self) -> AnswerOptions:
        """The hook's options, as checked when it was made."""
        return self._options

    def run(self, state: Any) -> None:
        """Put the host's view in place of each verbatim result of the last model turn, and end the run with it when
        every tool call of the turn answered verbatim."""
        messages = list(cast("list[Any]", state.data.get("messages") or []))
        pending = cast("list[Any]", getattr(messages[-1], "tool_calls", None) or []) if messages else []
        if pending:
            # The `before_tool` point, after the application's hooks there: these calls go on to the tools. A
            # result a hook gave in place of a call (a refusal) is then never read as the server's.
            self._let_through = {str(call.id) for call in pending}
            return
        let_through = self._let_through
        if let_through is not None:
            self._let_through = set()  # each step's calls once
        start = len(messages)
        while start > 0 and getattr(messages[start - 1], "tool_call_result", None) is not None:
            start -= 1
        if start == len(messages):
            return
        results = [message.tool_call_result for message in messages[start:]]
        names = _unconverted_tools(state, self.tools)
        answers = [self._answer(result, names, let_through) for result in results]
        if all(answer is None for answer in answers):
            return
        # Haystack's own message type, from the environment the agent runs in (this package does not depend on it).
        chat_message: Any = importlib.import_module("haystack.dataclasses").ChatMessage
        # The tool messages hold the host's view in place of the raw result (the `after_tool` point is where
        # Haystack lets a hook rewrite them): the model reads it when another call keeps the run going, and the
        # application finds it among the messages.
        for offset, (result, answer) in enumerate(zip(results, answers, strict=True)):
            if answer is not None:
                messages[start + offset] = chat_message.from_tool(answer, origin=result.origin)
        state.set("messages", messages, handler_override=_replace)
        if any(answer is None for answer in answers):
            return
        text = self._options.join(
            [answer or "" for answer in answers],
            [str(getattr(result.origin, "tool_name", None) or "unknown") for result in results],
        )
        state.set("messages", [chat_message.from_assistant(text)])
        state.set("stop_run", str(results[0].origin.tool_name))

    def _answer(self, result: Any, names: frozenset[str], let_through: set[str] | None) -> str | None:
        origin = result.origin
        name = str(origin.tool_name)
        if result.error or name not in names or not isinstance(result.result, str):
            return None
        if let_through is not None and str(origin.id) not in let_through:
            return None  # no tool ran for this call: the result is the application's own
        wire = _wire(result.result)
        if wire is None:
            return None
        arguments = getattr(origin, "arguments", None)
        return self._options.direct_answer(
            self._listed.get(name, {"name": name}),
            wire,
            name=name,
            arguments=cast("Mapping[str, Any]", arguments) if isinstance(arguments, Mapping) else None,
        )

    def to_dict(self) -> dict[str, Any]:
        """Haystack's serialization of the hook: the tools by name (the listed tools are not kept)."""
        return {
            "type": f"{type(self).__module__}.{type(self).__qualname__}",
            "init_parameters": {
                "tools": _tool_names(self.tools),
                "server": self._options.server,
                "max_rows": self._options.max_rows,
                "max_bytes": self._options.max_bytes,
                "markdown": self._options.markdown,
                "allow": None if self._options.allow is None else sorted(self._options.allow),
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DirectAnswerHook:
        """The hook `to_dict` serialized."""
        return cls(**cast("dict[str, Any]", data["init_parameters"]))


def direct_answers(
    *tools: Any,
    listed_tools: Iterable[Any] = (),
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Iterable[str] | None = None,
) -> dict[str, list[Any]]:
    """The Agent's ``hooks`` argument holding `DirectAnswerHook` at ``after_tool``: a verbatim result of one of
    `tools` (`MCPTool`s and `MCPToolset`s, or their names) ends the run with the host's view as the last message.
    The hook is at ``before_tool`` too, where it notes the calls that go on to the tools: an application with hooks
    of its own there lists them first, so that a result one of them gives in place of a call is never read as the
    server's.

    Args:
        tools: the MCP tools and toolsets whose results may answer directly; a server could mark every tool
            verbatim: name only the ones you mean. A name (a string) stands for itself.
        listed_tools: the server's `Tool` definitions (SDK models or wire dicts), to read their hints: Haystack's
            MCP tools keep neither `_meta` nor annotations, so without them only a result's directive counts.
        server: the server name shown in the caption (default: none, the tool alone is named).
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: the names of the tools, among `tools`, whose verbatim result may end the run; None: every one.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
    """
    hook = DirectAnswerHook(
        tools,
        listed_tools=listed_tools,
        server=server,
        max_rows=max_rows,
        max_bytes=max_bytes,
        markdown=markdown,
        allow=allow,
    )
    hook._let_through = set()  # pyright: ignore[reportPrivateUsage]  # registered at `before_tool` below
    return {"before_tool": [hook], "after_tool": [hook]}
