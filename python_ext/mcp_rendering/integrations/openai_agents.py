"""Rendering for the OpenAI Agents SDK (`openai-agents`): MCP servers whose results are presented.

Install with ``pip install 'mcp-rendering[openai-agents]'`` and use the server classes in place of the SDK's::

    from mcp_rendering.integrations.openai_agents import RenderingMCPServerStdio, rendered_output

    async with RenderingMCPServerStdio(params={"command": "my-server"}) as server:
        agent = Agent(name="analyst", mcp_servers=[server])
        result = await Runner.run(agent, "Show the annual accounts")
        for item in result.new_items:
            shown = rendered_output(item)  # what to show the user for this tool output, or None

Each class overrides `call_tool`, the SDK's own slot for what a server returns: for every successful result it runs
`mcp_rendering.present` and returns `Presentation.model_result` in place of the server's result, so the model reads
the host's framing block first and then the records. With ``use_structured_content=True`` the SDK would forward
`structuredContent` alone and drop the framing, so a presented result is returned without it (its records are in
the content too).

The application receives the presentation through the SDK's slot for data the model never sees: the
`ToolCallOutputItem.custom_data` of the output, under `CUSTOM_DATA_KEY`, holds its JSON view (`presentation_data`);
`rendered_output(item)` reads it. A `custom_data_extractor` of your own (given to the class or set on the server
afterwards) still runs, and its keys are kept. The
`Presentation` itself goes to `on_presentation`, when given.

`present` needs the `Tool` for its hints: it is taken from the server's cached tool list (the SDK lists the tools
before the model may call one), or listed on the spot.

The whole result to the user, with no model in between: give the agent the SDK's own `tool_use_behavior` slot
`verbatim_final_output` (one line per agent)::

    agent = Agent(name="analyst", mcp_servers=[server], tool_use_behavior=verbatim_final_output)
    result = await Runner.run(agent, "Show the annual accounts")
    print(result.final_output)  # the host's view of the verbatim result: caption, notice, every record

It ends the run when every tool call of a turn returned a result the host presents verbatim (the tool's hint or the
result's directive), with `mcp_rendering.integrations.answer.final_answer`'s text as `final_output`; any other turn
goes back to the model as usual, so tools the server does not mark are untouched. An error result never ends the
run: the model reads it, as without the route, and may correct its call. In a turn that also called a tool that is
not verbatim, the model answers, and the verbatim answer stays in the output item's custom data (`rendered_output`,
key "answer") for the application to show beside it. A partial result's answer says so and how to get the rest.
An agent with MCP servers none of which is of these classes (the SDK's own `MCPServerStdio` gives no host's view) is
refused with the SDK's `UserError` at its first tool turn.

Under another agent (`Agent.as_tool`), give the caller the same line. The nested run's `verbatim_final_output` keeps
the view it ends on, under what the SDK gives both runs: the caller's tool call (the `ToolContext` the nested run
is made with) and the caller's run (the `Usage` the two share). The caller's `verbatim_final_output` takes a call's
output for that view only when it is that very object: a `custom_output_extractor`, a tool output guardrail or a
`failure_error_function` text that replaced it goes to the model, whatever its text. The caller's step is then
decided by the same rules: every call returned a view, and the views are the final output; any other call, and
the model answers, reading every result. Several levels nest alike. Each view is taken out of the records when
the caller's step reads it, and the records of a run go with it. Every run's `final_output` is a plain `str`.

A function tool of the application's that runs the agent with `Runner.run` must pass its own context
(`async def run_analyst(ctx: ToolContext, ...)`, `Runner.run(analyst, question, context=ctx)`) and return
`result.final_output` (or `str()` of it, the same object): then the caller ends on the view; without `context=`, the
caller's model answers. A run resumed from a serialized `RunState` (`RunState.from_string`) loses what identifies a
nested view, the nested run's or the caller's: the caller's model answers, reading the view; a nested run resumed
in memory (`result.to_state()`) keeps it. A caller's step resumed in memory whose nested agent had answered before
the interruption goes to the caller's model too, where `to_state()` copies the run's `Usage`, under which the view
is kept (the SDK 0.24 does). Before the SDK 0.24, which gives a step resumed after an approval all its results, a
server class given a `require_approval` that can make a call wait is refused with the SDK's `UserError`, and so
is an agent with the route and a tool given `needs_approval` (`as_tool` takes it), at its first tool step.

A caller whose run would go on to its model (any other `tool_use_behavior` than this line or `StopAtTools` naming the
tool) is refused by the server classes' `list_tools`, before any call of the nested run; only the agent that calls
the one with the server is checked, not the agents above it.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any, Protocol, cast

# Resolved where the `openai-agents` extra is installed; the project's own environment goes without it.
from agents.agent import ToolsToFinalOutputResult  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from agents.exceptions import UserError  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from agents.mcp import (  # pyright: ignore[reportMissingImports]
    MCPServerStdio,  # pyright: ignore[reportUnknownVariableType]
    MCPServerStreamableHttp,  # pyright: ignore[reportUnknownVariableType]
)
from agents.tool_context import ToolContext  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from pydantic import BaseModel

from mcp_rendering.host import Presentation
from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions, FinalAnswer, join_answers

__all__ = [
    "CUSTOM_DATA_KEY",
    "RenderedCall",
    "RenderingMCPServerStdio",
    "RenderingMCPServerStreamableHttp",
    "RenderingServerMixin",
    "presentation_data",
    "rendered_output",
    "verbatim_final_output",
]

CUSTOM_DATA_KEY = "rendering"
"""The key of `ToolCallOutputItem.custom_data` holding `presentation_data` for a presented result."""

_META_KEY = "mcp-rendering/presentation"
"""Where the returned result carries the presentation's JSON view to the custom-data extractor (the SDK hands the
model `content` or `structuredContent`, never `_meta`)."""


@dataclass(frozen=True)
class RenderedCall:
    """One tool call as the server class presented it."""

    server: str
    """The server's name, as shown in a verbatim presentation's caption."""
    tool: str
    arguments: Mapping[str, Any]
    """The arguments the call was made with: `presentation.next_arguments(arguments)` gives the next part's (the
    caller's own arguments, plus the continuation argument set to the new token)."""
    presentation: Presentation


def presentation_data(presentation: Presentation, answer: FinalAnswer | None = None) -> dict[str, Any]:
    """The JSON view of a presentation kept for the application: what to show the user, and how complete it is;
    with `answer`, also the final answer the host would give for it (under "answer")."""
    data: dict[str, Any] = {
        "mode": presentation.mode,
        "complete": presentation.complete,
        "text": presentation.text,
        "markdown": presentation.markdown,
        "caption": presentation.caption,
        "notice": presentation.notice,
    }
    if answer is not None:
        data["answer"] = _answer_data(answer)
    return data


def _answer_data(answer: FinalAnswer) -> dict[str, Any]:
    return {
        "text": answer.text,
        "markdown": answer.markdown,
        "verbatim": answer.verbatim,
        "is_error": answer.is_error,
        "complete": answer.complete,
    }


def rendered_output(item: Any) -> dict[str, Any] | None:
    """The `presentation_data` attached to a run item (a `ToolCallOutputItem`), or None when it has none."""
    custom = getattr(item, "custom_data", None)
    if not isinstance(custom, Mapping):
        return None
    data = cast("Mapping[str, Any]", custom).get(CUSTOM_DATA_KEY)
    return dict(cast("Mapping[str, Any]", data)) if isinstance(data, Mapping) else None


class _AgentsServer(Protocol):
    """The members of the SDK's `MCPServer` this module uses."""

    use_structured_content: bool
    custom_data_extractor: Callable[[Any], Any] | None

    @property
    def name(self) -> str: ...

    @property
    def cached_tools(self) -> list[Any] | None: ...

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[Any]: ...

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> Any: ...


def _is_error(result: BaseModel) -> bool:
    flag = getattr(result, "isError", None)
    if flag is None:
        flag = getattr(result, "is_error", False)
    return flag is True


def _find(tools: list[Any] | None, name: str) -> Any:
    return next((tool for tool in tools or () if getattr(tool, "name", None) == name), None)


class RenderingServerMixin:
    """Presents every result of an SDK MCP server class; put it before the server class in the bases."""

    def __init__(
        self,
        *args: Any,
        server: str | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        on_presentation: Callable[[RenderedCall], object] | None = None,
        allow: Iterable[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Takes the server class's own arguments, and:

        Args:
            server: the server name shown in a verbatim presentation's caption (default: `name`).
            max_rows: the host's bound on the records shown and forwarded (see `mcp_rendering.present`).
            max_bytes: the host's bound on the size of the rendering, of the forwarded blocks and of the final
                answer (`verbatim_final_output`, each result's and the turn's as a whole); None: no bound.
            markdown: the final answer (`verbatim_final_output`) in its Markdown form (every server string escaped
                or fenced) for a front end that renders it as Markdown; the plain text form otherwise, whose server
                text is raw.
            on_presentation: called (and awaited, when it returns an awaitable) with each presented call, before
                the model receives the result.
            allow: the names of the tools whose verbatim result may end the run (`verbatim_final_output`); None:
                every tool the server marks. A server that marks every tool verbatim then takes over no tool the
                host has not named; the others' results go to the model.

        Raises:
            TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
            UserError: `require_approval` that can make a call wait for an approval, with an SDK older than 0.24
                (see the module docstring).
        """
        self._options = AnswerOptions(
            server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow
        )
        self._on_presentation = on_presentation
        self._extractor: Callable[[Any], Awaitable[dict[str, Any] | None]] = _with_presentation(None)
        cast("Any", super()).__init__(*args, **kwargs)
        _check_approval(self)

    @property
    def custom_data_extractor(self) -> Callable[[Any], Awaitable[dict[str, Any] | None]]:
        """The SDK's custom-data extractor of the server: the application's own (given to the constructor or set
        afterwards), whose keys are kept, with the presentation's JSON view added."""
        return self._extractor

    @custom_data_extractor.setter
    def custom_data_extractor(self, extractor: Callable[[Any], Any] | None) -> None:
        # The SDK's constructor sets it too: whoever sets it, the presentation's view is added to what it returns.
        if extractor is not None and getattr(extractor, _ADDS_PRESENTATION, False):
            self._extractor = cast("Callable[[Any], Awaitable[dict[str, Any] | None]]", extractor)
        else:
            self._extractor = _with_presentation(extractor)

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> list[Any]:
        """The server's tools, as the SDK lists them for `agent`'s turn.

        Raises:
            UserError: `agent` has the route (`verbatim_final_output`) and runs as a tool of another agent
                (`Agent.as_tool`) whose run would go on to its model (see the module docstring); raised before the
                agent's model is called, so no call of the nested run reaches the server.
        """
        _check_caller(run_context, agent)
        return await cast("_AgentsServer", super()).list_tools(run_context, agent)

    async def _rendering_tool(self, tool_name: str) -> Any:
        server = cast("_AgentsServer", self)
        tool = _find(server.cached_tools, tool_name)
        if tool is None:
            tool = _find(await server.list_tools(), tool_name)
        return tool

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> Any:
        """The server's result for the call, as the host presents it to the model (see the module docstring)."""
        server = cast("_AgentsServer", self)
        base = cast("_AgentsServer", super())
        result = await base.call_tool(tool_name, arguments, meta)
        if not isinstance(result, BaseModel):
            return result
        tool = await self._rendering_tool(tool_name)
        options = self._options
        shown_server = options.server or server.name
        answer = options.answer(tool, result, arguments=arguments or {}, default_server=shown_server)
        if _is_error(result):
            # Errors reach the model as the server wrote them, so it can correct its call; the answer goes to the
            # application alone.
            wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            wire["_meta"] = {**(wire.get("_meta") or {}), _META_KEY: {"answer": _answer_data(answer)}}
            return type(result).model_validate(wire)
        presentation = answer.presentation
        if self._on_presentation is not None:
            call = RenderedCall(shown_server, tool_name, dict(arguments or {}), presentation)
            outcome = self._on_presentation(call)
            if inspect.isawaitable(outcome):
                await outcome
        forwarded = dict(presentation.model_result)
        if server.use_structured_content and presentation.framing is not None:
            forwarded.pop("structuredContent", None)
        data = presentation_data(presentation, answer if options.allows(tool_name) else None)
        if "answer" in data:
            # What `verbatim_final_output` needs to join the turn's answers: their form, tool and bound.
            data["answer"].update(
                form="markdown" if options.markdown else "text", tool=tool_name, max_bytes=options.max_bytes
            )
        forwarded["_meta"] = {_META_KEY: data}
        # The result's own class, so that the SDK gets the model of the `mcp` version it runs with.
        return type(result).model_validate(forwarded)


def verbatim_final_output(context: Any, tool_results: list[Any]) -> Any:
    """A `ToolsToFinalOutputFunction` for `Agent(tool_use_behavior=...)`: the host's view of the turn's verbatim
    results as the final output, when every tool call of the turn returned one (see the module docstring); in the
    Markdown form when every server class that gave them was made with ``markdown=True``, plain text otherwise.

    The output of another agent run through `Agent.as_tool`, or by a function tool passing its `ToolContext` as
    `context=`, is a view too when it is the very object that agent's own `verbatim_final_output` ended its run on
    (see the module docstring).

    Raises:
        UserError: the agent has MCP servers none of which is of a rendering class (`RenderingMCPServerStdio`,
            `RenderingMCPServerStreamableHttp`, or a class with `RenderingServerMixin`), so that no result of theirs
            could ever end its run (the SDK's own `MCPServerStdio` gives no host's view).
    """
    _check_servers(tool_results)
    _check_tool_approvals(tool_results)
    # Every result is read before deciding, so that each nested agent's recorded view is taken out of the records.
    read = [_result_view(context, tool_result) for tool_result in tool_results]
    views = [view for view in read if view is not None]
    if not views or len(views) != len(read):
        return _outcome(None)
    # One form for the whole answer: the host's end lines and each answer rendered alike.
    markdown = all(view.get("form") == "markdown" for view in views)
    form = "markdown" if markdown else "text"
    # The whole answer within the tightest bound of the servers that gave its parts (none when none has one).
    bounds = [bound for view in views if isinstance(bound := view.get("max_bytes"), int)]
    names = [str(view.get("tool") or "unknown") for view in views]
    joined = join_answers(
        [cast("str", view[form]) for view in views],
        markdown=markdown,
        max_bytes=min(bounds) if bounds else None,
        names=names,
    )
    _record_nested_view(context, joined, form, min(bounds) if bounds else None)
    return _outcome(joined)


def _result_view(context: Any, tool_result: Any) -> Mapping[str, Any] | None:
    """The host's view a tool result gives the step's answer (its "text" or "markdown" by the answer's form, its
    "form", "tool" and "max_bytes"), or None when the result is not one the route ends on."""
    nested = _take_nested_view(context, tool_result)
    if nested is not None:
        return nested
    data = rendered_output(getattr(tool_result, "run_item", None)) or {}
    answer = data.get("answer")
    if not isinstance(answer, Mapping):
        return None
    view = cast("Mapping[str, Any]", answer)
    if view.get("verbatim") is not True or view.get("is_error") is not False:
        return None
    if view.get("output") != _output_digest(getattr(tool_result, "output", None)):
        return None  # the application replaced the output (a tool output guardrail): the model reads it
    return view


@dataclass(frozen=True)
class _NestedView:
    """The final output `verbatim_final_output` gave a run made for a tool call of another agent (`Agent.as_tool`),
    kept for that agent's own `verbatim_final_output`."""

    output: str
    form: str
    max_bytes: int | None


_nested_views: dict[int, dict[tuple[str, str], _NestedView]] = {}
"""The nested runs' views, per run (by the identity of the `Usage` the SDK shares between a run and the runs it makes
for its tool calls), then by the caller's tool call (its id and tool name). Each is taken out when the caller's step
reads it; the rest go with the run's `Usage`."""


def _record_nested_view(context: Any, output: str, form: str, max_bytes: int | None) -> None:
    """Keep the final output of a run made for another agent's tool call, which the SDK runs with a `ToolContext`
    naming that call (the SDK's `Agent.as_tool`, or a function tool passing its own as `context=`): that agent's
    `verbatim_final_output` recognises it by identity."""
    usage = getattr(context, "usage", None)
    call_id = getattr(context, "tool_call_id", None)
    tool = getattr(context, "tool_name", None)
    if (
        not isinstance(context, ToolContext)
        or usage is None
        or not isinstance(call_id, str)
        or not isinstance(tool, str)
    ):
        return
    key = id(usage)
    records = _nested_views.get(key)
    if records is None:
        records = _nested_views[key] = {}
        weakref.finalize(usage, _nested_views.pop, key, None)
    records[(call_id, tool)] = _NestedView(output, form, max_bytes)


def _take_nested_view(context: Any, tool_result: Any) -> Mapping[str, Any] | None:
    """The view a nested agent's run gave this tool call, taken out of the records; None when it gave none, or when
    what the call returned is not that very object (a `custom_output_extractor`, a tool output guardrail, a
    `failure_error_function` text: anything else is read by the model)."""
    records = _nested_views.get(id(getattr(context, "usage", None)))
    run_item = getattr(tool_result, "run_item", None)
    raw = getattr(run_item, "raw_item", None)
    call_id = cast("Mapping[str, Any]", raw).get("call_id") if isinstance(raw, Mapping) else None
    tool = getattr(getattr(tool_result, "tool", None), "name", None)
    if records is None or not isinstance(call_id, str) or not isinstance(tool, str):
        return None
    recorded = records.pop((call_id, tool), None)
    output = getattr(tool_result, "output", None)
    if recorded is None or output is not recorded.output or getattr(run_item, "output", None) is not output:
        return None
    # The nested run's answer exists in the one form it ended in; it is joined as it is in either.
    return {
        "text": recorded.output,
        "markdown": recorded.output,
        "form": recorded.form,
        "tool": tool,
        "max_bytes": recorded.max_bytes,
    }


_APPROVAL_RELEASE = (0, 24)
"""The first SDK release measured to give a step resumed after an approval every result of that step."""


def _before_approval_release() -> bool:
    release = tuple(int(part) for part in version("openai-agents").split(".")[:2] if part.isdigit())
    return release < _APPROVAL_RELEASE


def _check_approval(server: object) -> None:
    """Refuse a server whose calls can wait for an approval under an SDK older than `_APPROVAL_RELEASE`: resumed,
    the step's decision would get only the approved call's result, and would end on its view alone."""
    if not _before_approval_release():
        return
    policy = getattr(server, "_needs_approval_policy", True)  # the SDK's normalised `require_approval`
    if policy is False or (isinstance(policy, Mapping) and not any(cast("Mapping[str, Any]", policy).values())):
        return
    raise cast("Callable[[str], Exception]", UserError)(
        f"require_approval on rendering server {getattr(server, 'name', None)!r} needs openai-agents 0.24 or later:"
        f" with {version('openai-agents')}, a step resumed after an approval gives its other calls' results to no"
        " one"
    )


def _check_tool_approvals(tool_results: list[Any]) -> None:
    """Refuse, under an SDK older than `_APPROVAL_RELEASE`, an agent with a tool whose calls can wait for an approval
    (`needs_approval`, as `Agent.as_tool` takes it): as for a server's `require_approval`, a step resumed after the
    approval would end on the approved call's view alone."""
    if not _before_approval_release():
        return
    for tool_result in tool_results:
        agent = getattr(getattr(tool_result, "run_item", None), "agent", None)
        for tool in cast("list[Any]", getattr(agent, "tools", None) or []):
            if getattr(tool, "needs_approval", False) is not False:
                raise cast("Callable[[str], Exception]", UserError)(
                    f"needs_approval on tool {getattr(tool, 'name', None)!r} of agent {getattr(agent, 'name', None)!r}"
                    f" with tool_use_behavior=verbatim_final_output needs openai-agents 0.24 or later: with"
                    f" {version('openai-agents')}, a step resumed after an approval gives its other calls' results"
                    " to no one"
                )


def _check_servers(tool_results: list[Any]) -> None:
    """Refuse an agent with MCP servers none of which is of a rendering class: their results could never take the
    route. An agent with no MCP server may take it on another agent's view (`Agent.as_tool`)."""
    for tool_result in tool_results:
        agent = getattr(getattr(tool_result, "run_item", None), "agent", None)
        servers = getattr(agent, "mcp_servers", None)
        if agent is None or not isinstance(servers, list) or not servers:
            continue
        if not any(isinstance(server, RenderingServerMixin) for server in cast("list[Any]", servers)):
            raise cast("Callable[[str], Exception]", UserError)(
                f"tool_use_behavior=verbatim_final_output on agent {getattr(agent, 'name', None)!r}, which has no MCP"
                " server of a rendering class: make its servers with RenderingMCPServerStdio or"
                " RenderingMCPServerStreamableHttp (or a class with RenderingServerMixin first in its bases), whose"
                " results carry the host's view the route answers with"
            )


def _check_caller(run_context: Any, agent: Any) -> None:
    """Refuse an agent with the route run as a tool of another agent (the SDK's `Agent.as_tool`, which runs it with
    a `ToolContext` naming the calling agent and tool) unless the caller ends its own run on that tool's output: by
    `verbatim_final_output` (by the same rules for a step as for an MCP server's result) or by `StopAtTools` naming
    it. Any other caller goes on to its model, which would read the host's view and write the answer:
    "run_llm_again", "stop_on_first_tool" (which may end on another call of the step), a function of the
    application's own."""
    caller = getattr(run_context, "agent", None)
    tool = getattr(run_context, "tool_name", None)
    if not isinstance(run_context, ToolContext) or caller is None or not isinstance(tool, str):
        return
    if getattr(agent, "tool_use_behavior", None) is not verbatim_final_output:
        return
    behavior = getattr(caller, "tool_use_behavior", None)
    if behavior is verbatim_final_output:
        return
    if isinstance(behavior, Mapping) and tool in cast("Mapping[str, Any]", behavior).get("stop_at_tool_names", ()):
        return
    name = getattr(caller, "name", None)
    raise cast("Callable[[str], Exception]", UserError)(
        f"tool_use_behavior=verbatim_final_output on agent {getattr(agent, 'name', None)!r}, run as tool {tool!r} of"
        f" agent {name!r}, whose run would go on to its model, which would read the host's view and write the answer"
        f" itself: give {name!r} tool_use_behavior=verbatim_final_output too, so that its run ends on this tool's"
        " view when its model called nothing else in that step"
    )


def _outcome(final_output: str | None) -> Any:
    """The SDK's `ToolsToFinalOutputResult`: the run ends with `final_output`, or the model runs again (None)."""
    build = cast("Callable[..., Any]", ToolsToFinalOutputResult)
    return build(is_final_output=final_output is not None, final_output=final_output)


_ADDS_PRESENTATION = "_mcp_rendering_adds_presentation"
"""The mark of an extractor `_with_presentation` made, which is never wrapped again."""


def _with_presentation(extractor: Callable[[Any], Any] | None) -> Callable[[Any], Awaitable[dict[str, Any] | None]]:
    """A custom-data extractor adding the presentation's JSON view to what `extractor` (if any) returns."""

    async def extract(context: Any) -> dict[str, Any] | None:
        data: dict[str, Any] = {}
        if extractor is not None:
            own = extractor(context)
            if inspect.isawaitable(own):
                own = await own
            if isinstance(own, Mapping):
                data.update(cast("Mapping[str, Any]", own))
        meta = getattr(context, "result_meta", None)
        view = cast("Mapping[str, Any]", meta).get(_META_KEY) if isinstance(meta, Mapping) else None
        if isinstance(view, Mapping):
            kept = dict(cast("Mapping[str, Any]", view))
            answer = kept.get("answer")
            if isinstance(answer, Mapping):
                # What the model would read of the result, so that the route sees an output a tool output
                # guardrail replaced afterwards.
                output = _output_digest(getattr(context, "tool_output", None))
                kept["answer"] = {**cast("Mapping[str, Any]", answer), "output": output}
            data[CUSTOM_DATA_KEY] = kept
        return data or None

    setattr(extract, _ADDS_PRESENTATION, True)
    return extract


def _output_digest(output: Any) -> str:
    """A digest of a tool's model-visible output (the SDK's text and image items, JSON)."""
    encoded = json.dumps(output, sort_keys=True, ensure_ascii=False, default=repr).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


class RenderingMCPServerStdio(RenderingServerMixin, MCPServerStdio):  # pyright: ignore[reportUntypedBaseClass]
    """`agents.mcp.MCPServerStdio` whose results are presented; takes its arguments and the mixin's."""


class RenderingMCPServerStreamableHttp(RenderingServerMixin, MCPServerStreamableHttp):  # pyright: ignore[reportUntypedBaseClass]
    """`agents.mcp.MCPServerStreamableHttp` whose results are presented; takes its arguments and the mixin's."""
