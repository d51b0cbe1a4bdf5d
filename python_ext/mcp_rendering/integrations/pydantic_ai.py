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
directive nor, for a result with structured content, its text, and Pydantic AI has no public layer that gives the
raw result of the toolset's own call (`direct_call_tool` returns the mapped value; only its private steps see the
raw one). So the wrapper stands in for the innermost step of that call only: it calls the toolset's own
`process_tool_call` hook, when set, as the toolset does, with a call function that takes the steps of
`direct_call_tool`, kept as few as they are: the toolset's per-run check (through its public `for_run`: a toolset
whose `auth` or `headers` come from the run context calls only as the run's copy), the toolset entered around the
call on its MCP client with the arguments and request metadata the hook passes, an error raised as the toolset's
`tool_error_behavior` says (grouped errors of the client too), and the result mapped by the toolset's own mapping,
which the call function returns: the hook receives what it receives without the adapter. The wrapper keeps the
raw result aside; when the hook hands that value on unchanged, the host's view of a verbatim result takes its
place (below). A hook that does not make the call, or returns anything else (a value of its own, the mapped value
edited), decides what the model reads (the route is not taken). A toolset whose class overrides `call_tool` or
`direct_call_tool`, a tool run as a task, and an MCP App tool: the toolset makes the call as usual, and the route
is not taken. From the raw result of the call made:

- a result the host presents verbatim (`mcp_rendering.integrations.answer.final_answer`): the tool returns the
  host's view, and when every tool return of the model's turn still holds it (no capability's tool hook replaced
  it after the call), the capability's `before_model_request`
  raises Pydantic AI's `SkipModelRequest` with a response whose one text part is the host's view (the caption, a
  partial result's notice with how to get the rest, every record, bounded by `max_rows` and `max_bytes`): no model
  call follows, and `result.output` is that text. This needs the agent's output to be text (the default
  `output_type=str`);
- an error result: never the answer; the call function raises `ModelRetry` with the host's error line and the
  server's message, as the toolset does by default (`tool_error_behavior="retry"`), so the model may correct its
  call (`ToolFailed` with `"failed"`; with `"error"`, the MCP client raises, as for the toolset);
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

import copy
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, cast

if sys.version_info >= (3, 11):
    from builtins import BaseExceptionGroup
else:  # anyio's backport, which the MCP client's task groups raise
    from exceptiongroup import BaseExceptionGroup  # pyright: ignore[reportMissingImports]

# Resolved where `pydantic-ai-slim[mcp]` is installed (with FastMCP); the project's own environment goes without it.
from fastmcp.exceptions import (  # pyright: ignore[reportMissingImports]
    McpError,  # pyright: ignore[reportUnknownVariableType, reportPrivateImportUsage]
    ToolError,  # pyright: ignore[reportUnknownVariableType]
)
from pydantic_ai.capabilities import (  # pyright: ignore[reportMissingImports]
    AbstractCapability,  # pyright: ignore[reportUnknownVariableType]
)
from pydantic_ai.exceptions import (  # pyright: ignore[reportMissingImports]
    ModelRetry,  # pyright: ignore[reportUnknownVariableType]
    SkipModelRequest,  # pyright: ignore[reportUnknownVariableType]
    ToolFailed,  # pyright: ignore[reportUnknownVariableType]
    UserError,  # pyright: ignore[reportUnknownVariableType]
)
from pydantic_ai.mcp import (  # pyright: ignore[reportMissingImports]
    MCPToolset,  # pyright: ignore[reportUnknownVariableType]
    # The toolset's own mapping of a result to what the model reads (private: Pydantic AI maps in
    # `direct_call_tool` only, which keeps no raw result), so that the toolset's `process_tool_call` hook receives
    # what it receives without the adapter.
    _map_mcp_call_tool_result,  # pyright: ignore[reportPrivateUsage, reportUnknownVariableType]
)
from pydantic_ai.messages import (  # pyright: ignore[reportMissingImports]
    ModelRequest,  # pyright: ignore[reportUnknownVariableType]
    ModelResponse,  # pyright: ignore[reportUnknownVariableType]
    TextPart,  # pyright: ignore[reportUnknownVariableType]
    ToolReturnPart,  # pyright: ignore[reportUnknownVariableType]
)
from pydantic_ai.toolsets import WrapperToolset  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, is_verbatim_tool

__all__ = ["DirectAnswers"]

_NO_VIEW = object()
"""Stands for the view of a call that has none, equal to no tool return's content."""

_MCP_TOOLSET = cast("type[Any]", MCPToolset)
"""The toolsets whose tools may answer directly (typed loosely, the framework being optional)."""


def _tool_wire(tool_def: Any) -> dict[str, Any]:
    """The MCP tool as wire JSON, from what `MCPToolset` keeps of it on the tool definition."""
    metadata = cast("Mapping[str, Any]", tool_def.metadata or {})
    wire: dict[str, Any] = {"name": tool_def.name, "inputSchema": tool_def.parameters_json_schema}
    if isinstance(metadata.get("meta"), Mapping):
        wire["_meta"] = metadata["meta"]
    if isinstance(metadata.get("annotations"), Mapping):
        wire["annotations"] = metadata["annotations"]
    return wire


def _block_wire(block: Any) -> Any:
    return block.model_dump(mode="json", by_alias=True, exclude_none=True)


def _result_wire(result: Any) -> dict[str, Any]:
    """FastMCP's parsed `CallToolResult` as wire JSON."""
    wire: dict[str, Any] = {"content": [_block_wire(block) for block in cast("list[Any]", result.content)]}
    if result.structured_content is not None:
        wire["structuredContent"] = result.structured_content
    if result.meta is not None:
        wire["_meta"] = result.meta
    if result.is_error:
        wire["isError"] = True
    return wire


def _keeps_the_toolsets_call_path(toolset: Any, tool_def: Any) -> bool:
    """Whether the wrapper may stand in for the innermost step of `toolset`'s own call (its call on the MCP client):
    the toolset's class keeps `MCPToolset`'s `call_tool` and `direct_call_tool` (an override is the application's
    and must run), and the tool is neither run as a task nor an MCP App tool, which take paths of their own."""
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


def _raise_as_the_toolset(error: BaseException, behavior: str) -> NoReturn:
    """Raise what `MCPToolset` raises for `error`, an error of its MCP client's call: with `tool_error_behavior`
    ``"error"``, the error itself; otherwise a tool error as the behaviour says (`ModelRetry` or `ToolFailed`), and
    a protocol error as `ModelRetry` (the model may retry it). The client runs its session in a task group, so
    either can come grouped: a group holding only such errors is read as its first (a protocol error first), any
    other group (a cancellation among them) is raised unchanged."""
    if behavior == "error":
        raise error
    representative: BaseException = error
    if isinstance(error, BaseExceptionGroup):
        group = cast("BaseExceptionGroup[BaseException]", error)
        matched, rest = group.split((ToolError, McpError))
        if matched is None or rest is not None:
            raise error
        protocol, _ = matched.split(McpError)
        representative = protocol if protocol is not None else matched
        while isinstance(representative, BaseExceptionGroup):
            representative = cast("BaseExceptionGroup[BaseException]", representative).exceptions[0]
    failed = behavior == "failed" and not isinstance(representative, McpError)
    raise (ToolFailed if failed else ModelRetry)(str(representative)) from error


async def _connected(toolset: Any, ctx: Any) -> Any:
    """`toolset` entered for one call of the run `ctx`, as the toolset enters itself around its own call: a toolset
    whose `auth` or `headers` come from the run context connects only through the copy its `for_run` returns for
    the run (the one the run's toolsets hold), never as the shared toolset."""
    if await toolset.for_run(ctx) is not toolset:
        raise UserError(
            f"{toolset.label} takes its auth or headers from the run context: only the copy its for_run returns"
            " for a run can call its tools"
        )
    return toolset


@dataclass
class _Call:
    """What the call function handed to the toolset's hook keeps of the marked tool's call."""

    view: str | None = None
    """The host's view of a verbatim result; None until one is made."""
    mapped: Any = None
    """A copy of what the call function returned (the toolset's mapping of the result), to tell whether the hook
    handed it on unchanged."""


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
        settings = cast("Any", owner)
        options = cast("AnswerOptions", settings.options)
        behavior = cast("str", toolset.tool_error_behavior)
        call = _Call()

        async def call_tool_func(called: str, args: dict[str, Any], *, metadata: dict[str, Any] | None = None) -> Any:
            """The toolset's own call (its `direct_call_tool`), as its `process_tool_call` hook receives it: made
            on its MCP client, errors raised as its `tool_error_behavior` says, the result mapped as the toolset
            maps it; the host's view of a verbatim result kept aside."""
            try:
                async with await _connected(toolset, ctx):
                    result = await toolset.client.call_tool(
                        name=called, arguments=args, meta=metadata, raise_on_error=behavior == "error"
                    )
            except (ToolError, McpError, BaseExceptionGroup) as error:
                _raise_as_the_toolset(error, behavior)
            called_wire = tool_wire if called == name else {"name": called, "inputSchema": {"type": "object"}}
            answer = options.answer(called_wire, _result_wire(result), arguments=args, default_server=server)
            if answer.is_error:
                raise (ToolFailed if behavior == "failed" else ModelRetry)(answer.text)
            mapped = cast("Any", _map_mcp_call_tool_result)(result)
            if called == name and answer.verbatim:
                call.view, call.mapped = options.text(answer), copy.deepcopy(mapped)
            return mapped

        hook = toolset.process_tool_call
        value = await (
            hook(ctx, call_tool_func, name, tool_args) if hook is not None else call_tool_func(name, tool_args)
        )
        if call.view is None or value != call.mapped:
            return value  # not verbatim, not made, or the hook's own value: the model reads it
        cast("dict[str, str]", settings.answers)[cast("str", ctx.tool_call_id)] = call.view
        return call.view


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
