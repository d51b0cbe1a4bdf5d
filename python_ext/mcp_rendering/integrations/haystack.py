"""The whole result to the user in Haystack (`haystack-ai` with `mcp-haystack`): the Agent's own stop for the MCP
tools' verbatim results, and the host's view of the result as the last message.

Give the agent the hook (one line per agent), naming each MCP toolset (or tool) whose results may answer by its
server's name::

    from mcp_rendering.integrations.haystack import direct_answers

    agent = Agent(chat_generator=generator, tools=toolset, hooks=direct_answers({"accounts": toolset}))
    answer = agent.run(messages=[ChatMessage.from_user("Show the accounts")])["last_message"].text

`mcp-haystack`'s tools keep neither the server's name nor its tool definitions, so the application names each
server, and the hook reads the definitions (their hints) itself: at the Agent's warm-up, once per toolset, it lists
the server's tools with `mcp-haystack`'s own client for the toolset's `server_info` (a connection of its own, closed
at once). A result is captioned with the name of the server whose toolset (or tool) ran the call, never one name
for the whole agent, and ``allow`` maps a server's name to its tools' names. An `MCPTool` given alone keeps its
server's connection private: only a result's directive counts for it.

The hook runs at the Agent's ``after_tool`` point, where it puts the host's view in place of each verbatim result
(and at ``before_tool``, where it notes, in the run's own State, the calls that go on to the tools, so that a result
an application's hook gave in place of a call is never read as the server's, and a step in which a hook answered a
call itself, as `ConfirmationHook` does for a rejected one, goes to the model). When every tool call of the model's
turn returned a result the host presents verbatim (the result's directive, or the tool's hint), the decision waits
for the next ``before_llm`` point, where every ``after_tool`` hook has run whatever their order: if each tool
message of the step is still the host's view the hook put there, it appends an assistant message holding the
host's view (`mcp_rendering.integrations.answer.final_answer`: the caption, a partial result's notice with how to
get the rest, every record) and sets the Agent's ``stop_run`` state key, which the Agent reads after its
``before_llm`` hooks, so that the run ends before the next model call; ``exit_reason`` is then the first such
tool's name, as an exit condition would set it (a run that ``max_agent_steps`` ends right after that step is
decided the same way at ``after_run``). An ``after_tool`` hook listed after the adapter's that refused or
replaced a result sends the turn to the model, which reads what the hook left. Haystack reads ``stop_run`` right
after the ``before_llm`` hooks, so the decision is taken at the adapter's place in that list: a hook that changes a
step's result after the decision (listed after the adapter's at ``before_llm``, or at ``after_run``) makes the
adapter's ``after_run`` hook refuse the run with a `ValueError` naming the order, never an answer showing what the
hook removed. `direct_answers` gives a copy of the hook to each of the four points, each knowing its own; a list
the application replaced without it is refused with a `ValueError` naming the point at the first run (the Agent
warms up each of its hooks at each run), or, for an Agent restored from its serialized form, at the first point
that misses its note. The last message's ``.text`` is
the answer, where Haystack applications read it; without the hook, with ``exit_conditions``, the last message is
the tool message, whose ``.text`` is None and whose result is the whole `CallToolResult` as JSON.

The route is read only from the tool message of one of the given tools that the application gave neither
``outputs_to_string`` nor ``outputs_to_state`` (the Agent's ``tools`` state key, kept for hooks, says which tool ran
each call): its text is then the SDK's JSON dump of the
`CallToolResult` that `mcp-haystack` made, where the server's text sits only inside strings. A tool whose output
the application converts goes to the model, as without the hook: its message may hold the server's text alone, and
a server's text worded as a whole result (a directive saying verbatim among it) must not pass for one. The
``tools`` state key is the Agent's own, read by Haystack's confirmation hook too, though not in its reference
documentation; a test of the adapter fails, naming it, if a release stops keeping it.

An Agent given the hook and run as a tool of another (Haystack's `AgentTool`, whose result is the last message's
text) records, in the calling step's record (a context variable Haystack copies into each tool call), the text object
it ended with. The calling Agent, given the hook too (``direct_answers({})`` when it has no MCP toolset of its own),
reads a call's result as a view only when it is that very object, unchanged, never by its wording, and ends its run
on it by the same rule as on a verbatim result of its own tools.

``exit_conditions`` is not used: it is fixed by tool name, so it cannot follow a result's own directive, and it
stops when any exit tool of a turn succeeded, so a turn that also called another tool would end with that result
unread. Here, an error result never ends the run (`mcp-haystack` raises on one, and the model reads the error), and
in a turn that also called another tool the model answers, having read every result, each verbatim one as the
host's view in place of the raw result (the hook rewrites those tool messages, so the application finds the view
among the messages, to show beside the answer).
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import importlib
import json
import weakref
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, servers_by_name
from mcp_rendering.reading import parse_json

__all__ = ["DirectAnswerHook", "direct_answers"]


def _tool_names(tools: Any) -> list[str]:
    """The names of a server's tools: an MCP tool's, the tools of an MCP toolset (a Haystack `Toolset` iterates over
    its tools, once connected), or names given as such (a hook `from_dict` made)."""
    if isinstance(getattr(tools, "name", None), str):
        return [str(tools.name)]
    return list(dict.fromkeys(str(getattr(tool, "name", tool)) for tool in cast("Iterable[Any]", tools)))


async def _listed_tools(server_info: Any) -> dict[str, Any]:
    """The server's tool definitions by name, listed with `mcp-haystack`'s own client for `server_info`."""
    client = server_info.create_client()
    try:
        return {str(tool.name): tool for tool in cast("list[Any]", await client.connect())}
    finally:
        await client.aclose()


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


def _run_step(state: Any, servers: Iterable[str]) -> dict[str, Any]:
    """The hook's record of the run's current step, kept in the run's own State (its ``hook_context``, which Haystack
    makes for each run and keeps for hooks), so that runs of one Agent at once never share it, and it goes with the
    run whatever way the run ends. The application's ``hook_context`` dict is never changed: a copy holding the
    record replaces it in the State. It is named by the hook's servers, not by the hook object: an Agent restored
    from its serialized form holds one copy of the hook at each point, and they share the record."""
    key = f"{__name__}:{json.dumps(sorted(servers))}"
    context = cast("dict[str, Any]", state.data.get("hook_context") or {})
    record = context.get(key)
    if not isinstance(record, dict):
        record = {}
        state.set("hook_context", {**context, key: record}, handler_override=_replace)
    return cast("dict[str, Any]", record)


def _replace(current: Any, new: Any) -> Any:
    """A `State.set` handler putting `new` in place of `current` (the default for messages appends)."""
    del current
    return new


def _unconverted_tools(state: Any, servers: Mapping[str, Any]) -> dict[str, str]:
    """The server's name of each tool that ran this step (the Agent's ``tools`` state key, kept for hooks), by tool
    name, for the tools of `servers` (an MCP tool, a member of an MCP toolset, or a name `from_dict` gave) given
    neither ``outputs_to_string`` nor ``outputs_to_state``: those whose tool message holds the result string
    `mcp-haystack` made. Any other tool's message is the application's conversion of the result, which may hold the
    server's text alone: text worded as a whole result would then pass for one."""
    given: dict[int, str] = {}
    named: dict[str, str] = {}
    for server, tools in servers.items():
        if isinstance(getattr(tools, "name", None), str):
            given[id(tools)] = server
        else:  # a toolset (its tools, once connected), or names
            for member in cast("Iterable[Any]", tools):
                if isinstance(member, str):
                    named[member] = server
                else:
                    given[id(member)] = server
    served: dict[str, str] = {}
    for tool in cast("list[Any]", state.data.get("tools") or []):
        server = given.get(id(tool)) or named.get(str(tool.name))
        if server is not None and not tool.outputs_to_string and not tool.outputs_to_state:
            served[str(tool.name)] = server
    return served


def _still_the_views(messages: list[Any], ending: list[list[str]]) -> bool:
    """Whether the tool message of each call of `ending` (``[call id, view, tool name]`` each) is still there holding
    exactly the host's view the hook put there (a message a hook added since, as a `before_llm` hook listed first
    may, changes nothing)."""
    results: dict[str, Any] = {}
    for message in messages:
        result = getattr(message, "tool_call_result", None)
        if result is not None:
            results[str(result.origin.id)] = result
    for call, view, _ in ending:
        result = results.get(call)
        if result is None or result.error or result.result != view:
            return False
    return True


class _NestedViews:
    """The host's views that runs of agents under one step's tool calls ended with (each `_end`'s own text object),
    kept in the calling run's step record, so that they go with that run."""

    def __init__(self, outer: weakref.ReferenceType[_NestedViews] | None) -> None:
        self.texts: list[str] = []
        # The calling run's own record, when that run is itself a tool of another agent's step.
        self.outer = outer

    def take(self, text: object) -> bool:
        """Whether `text` is one of the views recorded (the same object, so unchanged), which it then removes: each
        recorded view answers for one tool result."""
        for index, recorded in enumerate(self.texts):
            if recorded is text:
                del self.texts[index]
                return True
        return False


_STEP_VIEWS: contextvars.ContextVar[weakref.ReferenceType[_NestedViews] | None] = contextvars.ContextVar(
    f"{__name__}.step_views", default=None
)
"""The record of the step whose tool calls are running, in the context Haystack copies into each tool call (its
threads and tasks), so that an agent run as one of those tools records its view there. A weak reference: the record
lives as long as the calling run's State, whatever way that run ends."""


_POINTS = ("before_llm", "before_tool", "after_tool", "after_run")
"""The Agent hook points `direct_answers` puts a copy of the hook at."""


def _missing(point: str) -> ValueError:
    return ValueError(
        f"DirectAnswerHook is missing from the Agent's {point} hooks: keep the hook direct_answers({{...}}) puts "
        f'at each of {", ".join(_POINTS)}, and add your own beside it (hooks["{point}"] = [yours, *hooks["{point}"]])'
    )


def _require(step: dict[str, Any], note: str, point: str) -> Any:
    """The step's `note`, which the copy of the hook at `point` makes: a clear error when that copy is missing (the
    application replaced the list), since without it the hook would silently take no route."""
    if note not in step:
        raise _missing(point)
    return step[note]


class DirectAnswerHook:
    """A Haystack `Hook` at one of the Agent's points (`direct_answers` gives a copy to each of its four); see the
    module docstring."""

    def __init__(
        self,
        servers: Mapping[str, Any],
        *,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        """The arguments are those of `direct_answers`.

        Raises:
            TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions` and `AllowByServer`),
                or `servers` is not a mapping of names to MCP toolsets or tools.
        """
        self._options = AnswerOptions(max_rows=max_rows, max_bytes=max_bytes, markdown=markdown)
        self._allowed = AllowByServer(allow)
        self.servers = servers_by_name(servers, "MCP toolsets or tools")
        """The MCP toolsets and tools whose results may answer, by their server's name."""
        # The Agent hook point this copy runs at (`direct_answers` gives one copy to each of `_POINTS`): it notes, in
        # the run's own State, where each model reply starts and the calls that go on to the tools, and decides at
        # ``before_llm`` (or ``after_run``) from what every ``after_tool`` hook left. A hook made alone refuses to
        # run.
        self._point: str | None = None
        # Each server's tool definitions, shared by the copies `direct_answers` makes, so that they list it once.
        self._listed: dict[str, dict[str, Any]] = {}
        # The points whose copy the Agent warmed up (it warms up each hook of its own lists at each run), shared by
        # the copies `direct_answers` makes: a list the application replaced without the copy shows at the first
        # run. None for a copy `from_dict` made, alone of its kind.
        self._warmed: set[str] | None = None

    @property
    def options(self) -> AnswerOptions:
        """The hook's options, as checked when it was made."""
        return self._options

    @property
    def allowed(self) -> AllowByServer:
        """`allow`, as checked when the hook was made."""
        return self._allowed

    async def warm_up_async(self) -> None:
        """List each MCP toolset's tools (their hints) once, with `mcp-haystack`'s own client; the Agent calls this
        at its warm-up."""
        if self._warmed is not None and self._point is not None:
            self._warmed.add(self._point)
        for server, tools in self.servers.items():
            info = getattr(tools, "server_info", None)
            if server not in self._listed and info is not None and callable(getattr(info, "create_client", None)):
                self._listed[server] = await _listed_tools(info)

    def warm_up(self) -> None:
        """`warm_up_async`, in a thread of its own (the caller may be running an event loop)."""
        with ThreadPoolExecutor(max_workers=1) as pool:
            pool.submit(asyncio.run, self.warm_up_async()).result()

    def run(self, state: Any) -> None:
        """Note, at ``before_llm`` and ``before_tool``, where the model's reply starts and the calls that go on to the
        tools; put, at ``after_tool``, the host's view in place of each verbatim result; end the run, at the next
        ``before_llm`` (or ``after_run``), when every tool call of the step answered verbatim, the application
        answered none of them itself, and each tool message is still the host's view."""
        point = self._point
        if point is None:
            # At `after_tool` alone the hook could only decide where it is listed, and a hook listed after it that
            # refused or replaced a result would never count.
            raise ValueError(
                "DirectAnswerHook runs at the Agent's before_llm, before_tool, after_tool and after_run points: give "
                "the Agent hooks=direct_answers({...}), and list your own hooks at those points first"
            )
        if self._warmed:
            for needed in _POINTS:
                if needed not in self._warmed:
                    raise _missing(needed)
        messages = list(cast("list[Any]", state.data.get("messages") or []))
        step = _run_step(state, self.servers)
        if point == "before_tool":
            self._before_tool(step, messages)
        elif point == "after_tool":
            _require(step, "mark", "before_llm")
            let_through = _require(step, "let_through", "before_tool")
            del step["let_through"]
            answered = step.pop("answered", True)
            nested = cast("_NestedViews", step.pop("nested"))
            _STEP_VIEWS.set(nested.outer)
            self._after_tool(state, messages, set(cast("list[str]", let_through)), nested, answered=answered)
        else:  # before_llm, after_run: every `after_tool` hook of the last step has run, in whatever order
            if "let_through" in step:
                raise _missing("after_tool")
            ended = step.pop("ended", None)
            if ended is not None and not _still_the_views(messages, cast("list[list[str]]", ended)):
                # Past the decision (a `before_llm` hook listed after this one, an `after_run` hook listed before
                # it), a hook changed a result the answer shows: the run has ended, the model can no longer read it.
                raise ValueError(
                    "DirectAnswerHook ended the run on the host's view of the step's results, and a hook that ran "
                    "after that decision (listed after it at before_llm, or at after_run) changed those results: "
                    'list your own before_llm hooks first (hooks["before_llm"] = [yours, *hooks["before_llm"]]), '
                    "and rewrite tool results at after_tool, where a rewritten result goes to the model"
                )
            ending = step.pop("ending", None)
            if ending is not None and _still_the_views(messages, cast("list[list[str]]", ending)):
                self._end(state, cast("list[list[str]]", ending), after_run=point == "after_run")
                step["ended"] = ending
            step["mark"] = len(messages)

    async def run_async(self, state: Any) -> None:
        """`run`, in the Agent's own task (Haystack would run `run` in a thread, whose context the step's record set
        at ``before_tool`` would not outlive)."""
        self.run(state)

    @staticmethod
    def _before_tool(step: dict[str, Any], messages: list[Any]) -> None:
        """Note the calls that go on to the tools, after the application's ``before_tool`` hooks: a result a hook
        gave in place of a call (a refusal) is then never read as the server's. A tool message between the model's
        reply and these calls is a call a hook answered itself (`ConfirmationHook` puts a rejected call and its
        rejection there): the model must read it, so this step ends no run. Open the step's record of the views
        that agents run as its tools end with."""
        mark = _require(step, "mark", "before_llm")
        pending = cast("list[Any]", getattr(messages[-1], "tool_calls", None) or []) if messages else []
        step["answered"] = not pending or any(
            getattr(message, "tool_call_result", None) is not None for message in messages[mark:-1]
        )
        step["let_through"] = [str(call.id) for call in pending]
        views = _NestedViews(_STEP_VIEWS.get())
        step["nested"] = views
        _STEP_VIEWS.set(weakref.ref(views))

    def _end(self, state: Any, ending: list[list[str]], *, after_run: bool) -> None:
        """Append the host's view of the step's results (each ``[call id, view, tool name]``) as the last message and
        end the run before the next model call, with the first tool's name as its ``exit_reason``."""
        chat_message: Any = importlib.import_module("haystack.dataclasses").ChatMessage
        text = self._options.join([view for _, view, _ in ending], [tool for _, _, tool in ending])
        state.set("messages", [chat_message.from_assistant(text)])
        state.set("stop_run", ending[0][2])
        if after_run:
            # The Agent sets the exit reason from `stop_run` at ``before_llm``; here it would stay `max_agent_steps`,
            # which says the answer may be incomplete (an `AgentTool` appends that to its result).
            state.set("exit_reason", ending[0][2])
        # Run as a tool of another agent's step, this run records the very text object it ended with: that agent's
        # hook accepts the tool's result as a view only if it is this object, which no tool or server can give.
        calling = _STEP_VIEWS.get()
        record = calling() if calling is not None else None
        if record is not None:
            record.texts.append(text)

    def _after_tool(
        self, state: Any, messages: list[Any], let_through: set[str], nested: _NestedViews, *, answered: bool
    ) -> None:
        start = len(messages)
        while start > 0 and getattr(messages[start - 1], "tool_call_result", None) is not None:
            start -= 1
        if start == len(messages):
            return
        results = [message.tool_call_result for message in messages[start:]]
        served = _unconverted_tools(state, self.servers)
        answers = [
            result.result
            if self._nested_view(result, nested, let_through)
            else self._answer(result, served, let_through)
            for result in results
        ]
        if all(answer is None for answer in answers):
            return
        # Haystack's own message type, from the environment the agent runs in (this package does not depend on it).
        chat_message: Any = importlib.import_module("haystack.dataclasses").ChatMessage
        # The tool messages hold the host's view in place of the raw result (the `after_tool` point is where
        # Haystack lets a hook rewrite them): the model reads it when another call keeps the run going, and the
        # application finds it among the messages.
        for offset, (result, answer) in enumerate(zip(results, answers, strict=True)):
            if answer is not None and answer is not result.result:
                messages[start + offset] = chat_message.from_tool(answer, origin=result.origin)
        state.set("messages", messages, handler_override=_replace)
        if answered or any(answer is None for answer in answers):
            return
        ending = [
            [str(result.origin.id), answer or "", str(getattr(result.origin, "tool_name", None) or "unknown")]
            for result, answer in zip(results, answers, strict=True)
        ]
        _run_step(state, self.servers)["ending"] = ending

    @staticmethod
    def _nested_view(result: Any, nested: _NestedViews, let_through: set[str]) -> bool:
        """Whether the call's result is the host's view an agent run as that tool ended with, unchanged (the text
        object that run's hook recorded in this step's record)."""
        return not result.error and str(result.origin.id) in let_through and nested.take(result.result)

    def _answer(self, result: Any, served: Mapping[str, str], let_through: set[str]) -> str | None:
        origin = result.origin
        name = str(origin.tool_name)
        server = served.get(name)
        if result.error or server is None or not isinstance(result.result, str):
            return None
        if not self._allowed.allows(server, name):
            return None
        if str(origin.id) not in let_through:
            return None  # no tool ran for this call: the result is the application's own
        wire = _wire(result.result)
        if wire is None:
            return None
        arguments = getattr(origin, "arguments", None)
        return self._options.direct_answer(
            self._listed.get(server, {}).get(name, {"name": name}),
            wire,
            arguments=cast("Mapping[str, Any]", arguments) if isinstance(arguments, Mapping) else None,
            default_server=server,
        )

    def to_dict(self) -> dict[str, Any]:
        """Haystack's serialization of the hook: each server's tools by name, and the point `direct_answers` gave
        it."""
        return {
            "type": f"{type(self).__module__}.{type(self).__qualname__}",
            "init_parameters": {
                "servers": {server: _tool_names(tools) for server, tools in self.servers.items()},
                "max_rows": self._options.max_rows,
                "max_bytes": self._options.max_bytes,
                "markdown": self._options.markdown,
                "allow": self._allowed.listed(),
            },
            "point": self._point,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DirectAnswerHook:
        """The hook `to_dict` serialized."""
        hook = cls(**cast("dict[str, Any]", data["init_parameters"]))
        point = data.get("point")
        hook._point = point if point in _POINTS else None
        return hook


def direct_answers(
    servers: Mapping[str, Any],
    *,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, list[Any]]:
    """The Agent's ``hooks`` argument holding a copy of `DirectAnswerHook` at each of ``before_llm``,
    ``before_tool``, ``after_tool`` and ``after_run``: a verbatim result of a tool of `servers` ends the run with the
    host's view as the last message. At ``before_llm`` and ``before_tool`` the hook notes where the model's reply
    starts and the calls that go on to the tools: an application with hooks of its own there lists them first, so
    that a result one of them gives in place of a call is never read as the server's, a step in which one of them
    answered a call itself (a rejection) goes to the model, and a ``before_llm`` hook's change to a result is read
    before the run ends on it. Keep each copy in its list: a list without it is refused at the first run.

    Args:
        servers: each MCP server's name (shown in its results' captions) mapped to its `MCPToolset` (or an
            `MCPTool`): the toolsets and tools whose results may answer directly. Empty for an Agent whose only
            verbatim answers are those of Agents run as its tools.
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: by server name, the names (the server's own) of the tools whose verbatim result may end the run; a
            server missing from it has none. None: every tool each server marks.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions` and `AllowByServer`), or
            `servers` is not a mapping of names to MCP toolsets or tools.
    """
    hook = DirectAnswerHook(servers, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow)
    # One copy per point, each knowing its own, sharing the options and the listings (a shallow copy). At
    # ``after_run`` too: a run that `max_agent_steps` ends right after a verbatim step reaches no ``before_llm``.
    hook._warmed = set()  # pyright: ignore[reportPrivateUsage]
    hooks: dict[str, list[Any]] = {}
    for point in _POINTS:
        placed = copy.copy(hook)
        placed._point = point  # pyright: ignore[reportPrivateUsage]
        hooks[point] = [placed]
    return hooks
