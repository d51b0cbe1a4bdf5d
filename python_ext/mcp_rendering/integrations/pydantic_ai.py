"""The whole result to the user in Pydantic AI (`pydantic-ai-slim[mcp]`): a capability that skips the model
request after the verbatim results of MCP tools, with the host's view as the run's output.

Give the agent the capability (one line per agent)::

    from mcp_rendering.integrations.pydantic_ai import DirectAnswers

    agent = Agent(model, toolsets=[MCPToolset(transport, id="bank")], capabilities=[DirectAnswers()])
    result = await agent.run("Show the annual accounts")
    print(result.output)  # the host's view of the verbatim result: caption, notice, every record

Pydantic AI has no per-tool return-direct flag; its hooks are the route. `DirectAnswers` wraps each `MCPToolset` of
the run (`get_wrapper_toolset`), innermost: the toolset wrappers of the application (approval, deferred tools,
prefixes, filters, `prepare` hooks) and the tool hooks of every capability (`before_tool_execute`,
`wrap_tool_execute`, ...) see each call before it, and may refuse it or rewrite its arguments, as without the
adapter. For a tool the server marks verbatim (the tool's hint), the toolset would hand on neither the result's
directive nor, for a result with structured content, its text (`direct_call_tool` returns the mapped value). Its
one public way to the raw result is the record its own `call_tool` keeps for a tool that names a UI resource (an
MCP App tool): an `MCPAppToolResult` holding the result as the server sent it. So the wrapper passes the call on
to the toolset's own `call_tool` with the tool naming a resource of its own, and takes the record off the value
returned: the toolset makes the call as without the adapter (its connection and per-run copy, its
`process_tool_call` hook, its error handling, its mapping), and keeps the record only when the hook hands on the
value the call returned unchanged. A hook that does not make the call, or returns anything else (a value of its
own, the mapped value edited), decides what the model reads (the route is not taken). A toolset whose class
overrides `call_tool` or `direct_call_tool`, a tool run as a task, and a real MCP App tool: the toolset makes the
call as usual, and the route is not taken. From the raw result of the call made:

- a result the host presents verbatim (`mcp_rendering.integrations.answer.final_answer`): the tool returns the
  host's view, and when every tool return of the model's turn still holds it (no capability's tool hook replaced
  it after the call), the capability's `before_model_request` raises Pydantic AI's `SkipModelRequest` with a
  response whose one text part is the host's view (the caption, a partial result's notice with how to get the
  rest, every record, bounded by `max_rows` and `max_bytes`): no model call follows, and `result.output` is that
  text. This needs the agent's output to allow text (`str`, the default, among its types): an agent whose
  `output_type` allows none is refused when made (`UserError`); one passed to a single run is not seen, and the run
  ends on the model's output;
- an error result: never the answer; the toolset raises as it does without the adapter (`ModelRetry` with the
  server's message by default, `ToolFailed` with `tool_error_behavior="failed"`, the MCP client's error with
  `"error"`);
- a result the host does not present verbatim (the result's directive says it may be summarized): the model reads
  what the toolset's mapping made of it, as without the adapter;
- a turn that also called another tool, or a tool that failed: the model answers, having read every result, the
  verbatim ones as the host's view.

Tools the server does not mark, and toolsets that are not MCP toolsets, are untouched: their calls go through the
toolset as usual (so a result's own directive on such a tool does not take the route). A server that marks every
tool: name the tools that may answer directly with ``allow``.

Each toolset is its own server: the caption names the server by the toolset's own `id` (``MCPToolset(...,
id="bank")``, chosen by the host; a toolset without one is not named), and ``allow`` maps a toolset's `id` to the
names of its tools that may answer (the server's own names, before any prefix). With several MCP toolsets (say
``.prefixed("trusted")`` and ``.prefixed("untrusted")``), a result is captioned with its own toolset's id only, and
an allowed name of one toolset allows nothing of another.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic_ai.capabilities import (  # pyright: ignore[reportMissingImports]
    AbstractCapability,  # pyright: ignore[reportUnknownVariableType]
)
from pydantic_ai.exceptions import (  # pyright: ignore[reportMissingImports]
    SkipModelRequest,  # pyright: ignore[reportUnknownVariableType]
    UserError,  # pyright: ignore[reportUnknownVariableType]
)
from pydantic_ai.mcp import MCPToolset  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from pydantic_ai.messages import (  # pyright: ignore[reportMissingImports]
    ModelRequest,  # pyright: ignore[reportUnknownVariableType]
    ModelResponse,  # pyright: ignore[reportUnknownVariableType]
    TextPart,  # pyright: ignore[reportUnknownVariableType]
    ToolReturn,  # pyright: ignore[reportUnknownVariableType]
    ToolReturnPart,  # pyright: ignore[reportUnknownVariableType]
)
from pydantic_ai.output import TextOutput  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from pydantic_ai.toolsets import WrapperToolset  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, is_verbatim_tool

__all__ = ["DirectAnswers"]

_MCP_TOOLSET = cast("type[Any]", MCPToolset)
"""The toolsets whose tools may answer directly (typed loosely, the framework being optional)."""

_TOOL_RETURN = cast("type[Any]", ToolReturn)
"""The return that carries the toolset's record (typed loosely, the framework being optional)."""

_NO_VIEW = object()
"""Stands for the view of a call that has none, equal to no tool return's content."""

_APP_RECORD_KEY = "mcp_app"
"""Where `MCPToolset.call_tool` puts its `MCPAppToolResult` record in the tool return's metadata (documented on
`MCPAppToolResult`)."""

_RAW_RESULT_URI = "ui://mcp-rendering/raw-result"
"""The UI resource the wrapper names to ask the toolset for its record of the raw result; nothing reads it, as the
wrapper takes the record off before any other layer sees the return."""


def _ends_on_text(output_type: Any) -> bool:
    """Whether an agent's `output_type` (a type, a list of them, a union, an output marker) lets a run end on a
    text response, which the host's view is: `str` or a `TextOutput` among its types."""
    if output_type is str or isinstance(output_type, TextOutput):
        return True
    if isinstance(output_type, (list, tuple)):
        return any(_ends_on_text(item) for item in cast("Iterable[Any]", output_type))
    if typing.get_origin(output_type) in (typing.Union, types.UnionType):
        return any(_ends_on_text(item) for item in typing.get_args(output_type))
    return False


def _tool_wire(tool_def: Any) -> dict[str, Any]:
    """The MCP tool as wire JSON, from what `MCPToolset` keeps of it on the tool definition."""
    metadata = cast("Mapping[str, Any]", tool_def.metadata or {})
    wire: dict[str, Any] = {"name": tool_def.name, "inputSchema": tool_def.parameters_json_schema}
    if isinstance(metadata.get("meta"), Mapping):
        wire["_meta"] = metadata["meta"]
    if isinstance(metadata.get("annotations"), Mapping):
        wire["annotations"] = metadata["annotations"]
    return wire


def _keeps_the_toolsets_call_path(toolset: Any, tool_def: Any) -> bool:
    """Whether the wrapper may ask `toolset` for the raw result of its call: the toolset's class keeps
    `MCPToolset`'s `call_tool` (an override is the application's and runs as it is) and `direct_call_tool` (the
    App path the wrapper asks for does not go through it), and the tool is neither run as a task nor an MCP App
    tool, whose record belongs to its app."""
    kind = cast("Any", type(toolset))
    metadata = cast("Mapping[str, Any]", tool_def.metadata or {})
    meta = metadata.get("meta")
    app = isinstance(meta, Mapping) and ("ui" in meta or "ui/resourceUri" in meta)
    return (
        kind.call_tool is _MCP_TOOLSET.call_tool
        and kind.direct_call_tool is _MCP_TOOLSET.direct_call_tool
        and not metadata.get("task")
        and not app
    )


def _asking_for_the_raw_result(tool: Any) -> Any:
    """`tool` naming a UI resource, so that the toolset's own `call_tool` keeps the raw result of the call and
    hands it on in its `MCPAppToolResult` record, as it does for an MCP App tool (its one public way to it)."""
    tool_def = tool.tool_def
    metadata = dict(cast("Mapping[str, Any]", tool_def.metadata or {}))
    metadata["meta"] = {**cast("Mapping[str, Any]", metadata.get("meta") or {}), "ui": {"resourceUri": _RAW_RESULT_URI}}
    return dataclasses.replace(tool, tool_def=dataclasses.replace(tool_def, metadata=metadata))


def _raw_result(returned: Any) -> dict[str, Any] | None:
    """The raw result (wire JSON) in the toolset's record on `returned`; None when the toolset's hook returned a
    value of its own (or made no call), which then holds no record."""
    if not isinstance(returned, _TOOL_RETURN):
        return None
    metadata: Any = returned.metadata
    record: Any = cast("Mapping[str, Any]", metadata).get(_APP_RECORD_KEY) if isinstance(metadata, Mapping) else None
    if not isinstance(record, Mapping):
        return None
    kept = cast("Mapping[str, Any]", record)  # an `MCPAppToolResult`
    result: Any = kept.get("result")
    if kept.get("resource_uri") != _RAW_RESULT_URI or not isinstance(result, Mapping):
        return None
    return dict(cast("Mapping[str, Any]", result))


@dataclass
class _DirectAnswerToolset(WrapperToolset[Any]):  # pyright: ignore[reportUntypedBaseClass]
    """One `MCPToolset`, whose verbatim tools' results the capability may answer with."""

    owner: DirectAnswers = field(default_factory=lambda: DirectAnswers())

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
        this = cast("Any", self)  # the framework's base class, untyped where the framework is absent
        owner = cast("DirectAnswers", this.owner)
        toolset = this.wrapped
        tool_wire = _tool_wire(tool.tool_def)
        server = cast("str | None", toolset.id)
        allowed = cast("AllowByServer", cast("Any", owner).allowed).allows(server, name)
        if not (allowed and is_verbatim_tool(tool_wire) and _keeps_the_toolsets_call_path(toolset, tool.tool_def)):
            return await toolset.call_tool(name, tool_args, ctx, tool)
        # The toolset's own call: its connection, its `process_tool_call` hook, its error handling and mapping.
        returned = await toolset.call_tool(name, tool_args, ctx, _asking_for_the_raw_result(tool))
        result = _raw_result(returned)
        if result is None:
            return returned  # the hook's own value, or no call: the model reads it
        value = returned.return_value  # what the model reads without the adapter
        settings = cast("Any", owner)
        options = cast("AnswerOptions", settings.options)
        answer = options.answer(tool_wire, result, arguments=tool_args, default_server=server)
        if answer.is_error or not answer.verbatim:
            return value
        view = options.text(answer)
        cast("dict[str, str]", settings.answers)[cast("str", ctx.tool_call_id)] = view
        return view


@dataclass
class DirectAnswers(AbstractCapability[Any]):  # pyright: ignore[reportUntypedBaseClass]
    """The capability ending a run on verbatim MCP results with the host's view as its output; see the module
    docstring."""

    max_rows: int | None = None
    """The host's bound on the records shown."""
    max_bytes: int | None = DEFAULT_MAX_BYTES
    """The host's bound on the size of the records shown (None: no bound)."""
    markdown: bool = False
    """Answer with the Markdown form (every server string escaped or fenced) for a front end that renders the
    output as Markdown; the plain text form otherwise, whose server text is raw."""
    allow: Mapping[str, Iterable[str]] | None = None
    """By toolset `id`, the names (the server's own) of the tools whose verbatim result may end the run; a toolset
    missing from it, or without an `id`, has none. None: every tool each server marks."""
    answers: dict[str, str] = field(default_factory=dict[str, str], repr=False)
    """The host's view of each verbatim result of the run, by tool call id."""
    options: AnswerOptions = field(init=False, repr=False, compare=False)
    """The options above, checked when the capability is made."""
    allowed: AllowByServer = field(init=False, repr=False, compare=False)
    """`allow`, checked when the capability is made."""

    def __post_init__(self) -> None:
        """
        Raises:
            TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`); `allow` is not a
                mapping of toolset ids to tool names.
        """
        this = cast("Any", self)
        this.options = AnswerOptions(max_rows=this.max_rows, max_bytes=this.max_bytes, markdown=this.markdown)
        this.allowed = AllowByServer(this.allow)
        this.allow = this.allowed.allow

    def for_agent(self, agent: Any) -> DirectAnswers:
        """
        Raises:
            UserError: the agent's `output_type` allows no text (a structured output only), so a run could never
                end on the host's view.
        """
        if not _ends_on_text(agent.output_type):
            raise UserError(
                "DirectAnswers ends a run on the host's view, a text response, but the agent's output_type"
                f" {agent.output_type!r} allows no text: keep output_type=str (the default), or list str among"
                " its types (output_type=[str, YourModel])"
            )
        return self

    async def for_run(self, ctx: Any) -> DirectAnswers:
        # Tool call ids are unique within a run only: each run records its own answers.
        this = cast("Any", self)
        return DirectAnswers(
            max_rows=this.max_rows,
            max_bytes=this.max_bytes,
            markdown=this.markdown,
            allow=this.allow,
        )

    def get_wrapper_toolset(self, toolset: Any) -> Any:
        def wrap(inner: Any) -> Any:
            return _DirectAnswerToolset(inner, owner=self) if isinstance(inner, _MCP_TOOLSET) else inner

        return toolset.visit_and_replace(wrap)

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        this = cast("Any", self)
        answers = cast("dict[str, str]", this.answers)
        messages = cast("list[Any]", request_context.messages)
        last: Any = messages[-1] if messages else None
        if not isinstance(last, ModelRequest):
            return request_context
        parts = [part for part in cast("list[Any]", last.parts) if hasattr(part, "tool_call_id")]
        # Each return must still hold the host's view the wrapper returned: a tool hook of any capability that
        # replaced it after the call (a redaction, a policy) decides what the model reads.
        if parts and all(
            isinstance(part, ToolReturnPart) and answers.get(part.tool_call_id, _NO_VIEW) == part.content
            for part in parts
        ):
            options = cast("AnswerOptions", this.options)
            text = options.join(
                [answers[cast("str", part.tool_call_id)] for part in parts],
                [str(getattr(part, "tool_name", None) or "unknown") for part in parts],
            )
            raise SkipModelRequest(ModelResponse(parts=[TextPart(text)]))
        return request_context
