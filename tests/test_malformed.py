"""Property (f): malformed hints and directives from a peer never fail `list_tools()` or `call_tool()`.

The server is a real MCPServer whose outermost middleware rewrites the wire form of its responses, so the malformed
values really travel to the client (a patched server would itself refuse to emit them)."""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Iterator, MutableMapping
from typing import Any, cast

import anyio
import mcp_types
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer

import mcp_rendering
from mcp_rendering import EXTENSION_ID, resolve_rendering
from tests.support.strategies import malformed_booleans, malformed_renderings, renderings

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

STRUCTURED = {"rows": [["Cash", 10], ["Debt", None]]}


def _server(tool_patch: dict[str, Any], result_patch: dict[str, Any]) -> MCPServer:
    async def inject(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if isinstance(result, MutableMapping):
            wire = cast("MutableMapping[str, Any]", result)
            if ctx.method == "tools/list":
                for tool in wire["tools"]:
                    if tool["name"] == "sheet":
                        tool.setdefault("annotations", {}).update(tool_patch.get("annotations", {}))
                        if "_meta" in tool_patch:
                            tool["_meta"] = tool_patch["_meta"]
            elif ctx.method == "tools/call":
                wire.update(result_patch)
        return result

    server = MCPServer("malformed", middleware=[inject])

    @server.tool(annotations=mcp_types.ToolAnnotations(read_only_hint=True, title="Sheet"))
    def sheet() -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text="Cash 10; Debt -")], structured_content=STRUCTURED
        )

    @server.tool()
    def other() -> str:
        return "other"

    return server


@pytest.fixture(autouse=True)
def _patched() -> Iterator[None]:
    with mcp_rendering.installed():
        yield


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    verbatim=malformed_booleans | st.booleans(),
    summarize=malformed_booleans | st.booleans(),
    meta_entry=st.one_of(st.none(), malformed_booleans, st.fixed_dictionaries({"verbatimHint": malformed_booleans})),
    rendering=malformed_renderings | renderings(),
    meta_rendering=malformed_renderings | renderings(),
    mode=st.sampled_from(["legacy", "2026-07-28"]),
)
@example(verbatim=None, summarize=math.inf, meta_entry=None, rendering=0, meta_rendering=0, mode="legacy")
def test_malformed_values_never_fail_a_list_or_a_call(
    verbatim: Any, summarize: Any, meta_entry: Any, rendering: Any, meta_rendering: Any, mode: str
) -> None:
    tool_patch: dict[str, Any] = {"annotations": {"verbatimHint": verbatim, "summarizeOkHint": summarize}}
    if meta_entry is not None:
        tool_patch["_meta"] = {EXTENSION_ID: meta_entry}
    result_patch = {"_rendering": rendering, "_meta": {EXTENSION_ID: meta_rendering}}

    async def run() -> tuple[mcp_types.ListToolsResult, mcp_types.CallToolResult]:
        async with Client(_server(tool_patch, result_patch), mode=mode) as client:
            return await client.list_tools(), await client.call_tool("sheet", {})

    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        tools, result = anyio.run(run)
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)

    # The rest of the list is intact.
    assert sorted(tool.name for tool in tools.tools) == ["other", "sheet"]
    sheet = next(tool for tool in tools.tools if tool.name == "sheet")
    assert sheet.annotations is not None
    assert sheet.annotations.read_only_hint is True
    assert sheet.annotations.title == "Sheet"
    # No coercion: a hint is the boolean that was sent, absent, or (malformed) the value that shows more.
    assert sheet.annotations.verbatim_hint is _hint_as_read(verbatim, True)  # pyright: ignore[reportAttributeAccessIssue]
    assert sheet.annotations.summarize_ok_hint is _hint_as_read(summarize, False)  # pyright: ignore[reportAttributeAccessIssue]

    # The rest of the result is intact.
    assert result.structured_content == STRUCTURED
    assert [block.model_dump()["text"] for block in result.content] == ["Cash 10; Debt -"]
    assert result.is_error is False
    # The patched SDK keeps the core form as it came, for the one reader to read.
    assert result.rendering == rendering  # pyright: ignore[reportAttributeAccessIssue]

    # Transit through the patched SDK changes nothing a host decides: it reads the received models exactly as it
    # reads the values the server sent.
    sent_tool = {"name": "sheet", "inputSchema": {"type": "object"}, **tool_patch}
    for core_form in (False, True):
        received = resolve_rendering(sheet, result, core_form=core_form)
        sent = resolve_rendering(sent_tool, {"content": [], **result_patch}, core_form=core_form)
        # A malformed core hint is parsed as its safe value and marked as it came (`AS_SENT`): the annotations the
        # patched SDK hands on read unclean, as the wire does, and so verbatim whatever they state.
        assert (received.mode, received.complete, received.directive, received.hints) == (
            sent.mode,
            sent.complete,
            sent.directive,
            sent.hints,
        )
        if _json_can_carry(tool_patch, result_patch):
            assert received.problems == sent.problems
        else:
            # A value JSON cannot hold (inf, nan) crosses the transport as another malformed value: the problems
            # are told differently, on the same carriers.
            assert {problem.carrier for problem in received.problems} == {problem.carrier for problem in sent.problems}


def _json_can_carry(*values: Any) -> bool:
    try:
        json.dumps(values, allow_nan=False)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("core", [0, "verbatim", {"complete": "true"}, {"complete": True, "mode": 7}, {"mode": 7}])
def test_a_malformed_core_form_parsed_by_the_sdk_reads_as_its_wire_form(core: Any) -> None:
    """Read on opt-in, a core form the patched SDK parsed reads exactly as the wire it came from: never complete."""
    wire = {"content": [], "_rendering": core}
    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        parsed = mcp_types.CallToolResult.model_validate(wire)
        from_wire = resolve_rendering(None, wire, core_form=True)
        from_model = resolve_rendering(None, parsed, core_form=True)
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)
    assert from_wire.directive == from_model.directive and not from_model.complete


_MALFORMED_CORE_DIRECTIVES: list[Any] = [
    *(0, "verbatim", True, [], ["complete"]),
    *({"complete": "true"}, {"complete": 1}, {"complete": True, "x": 1, "guidance": []}, {"mode": 7, "complete": True}),
    *({"mode": "summarizable", "complete": True, "guidance": "x" * 1001}, {"complete": True, "guidance": 5}),
    *({"complete": True, "nullDisplay": "0.00"}, {"complete": True, "nullDisplay": 0}, {"complete": None}),
    *({"mode": "summarizable", "complete": True, "nullDisplay": "\u3164"},),
    *({"mode": "summarizable", "complete": True, "(as sent)": {"complete": "yes"}},),
]


@pytest.mark.parametrize("core", _MALFORMED_CORE_DIRECTIVES)
def test_a_malformed_core_directive_reads_as_its_wire_form_through_every_conversion(core: Any) -> None:
    """`_rendering` is kept as it came: every form the patched SDK gives it reads as the wire, never complete."""
    wire = {"content": [], "_rendering": core}
    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        from_wire = resolve_rendering(None, wire, core_form=True)
        for form in _sdk_forms(mcp_types.CallToolResult, wire):
            from_model = resolve_rendering(None, form, core_form=True)
            assert (from_model.mode, from_model.complete, from_model.directive, from_model.problems) == (
                from_wire.mode,
                from_wire.complete,
                from_wire.directive,
                from_wire.problems,
            )
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)
    assert not from_wire.complete


_LATER_MEMBERS: list[Any] = [{"x": 1}, {"priority": "high", "rows": [1, 2]}, {"Complete": False, "mode2": None}]


@pytest.mark.parametrize("carrier", ["_meta", "_rendering"])
@pytest.mark.parametrize("extra", _LATER_MEMBERS)
def test_an_unknown_member_is_ignored_through_every_conversion(carrier: str, extra: dict[str, Any]) -> None:
    """A member a later revision might add changes nothing, in the carrier and the core form, through the patched
    SDK's models and their dumps: a complete summarizable directive stays complete and summarizable."""
    directive = {"mode": "summarizable", "complete": True, **extra}
    wire: dict[str, Any] = {"content": []}
    if carrier == "_meta":
        wire["_meta"] = {EXTENSION_ID: directive}
    else:
        wire["_rendering"] = directive
    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        from_wire = resolve_rendering(None, wire, core_form=True)
        assert (from_wire.mode, from_wire.complete) == ("summarizable", True)
        assert {(p.member, p.reads_as) for p in from_wire.problems} == {(name, "ignored") for name in extra}
        for form in _sdk_forms(mcp_types.CallToolResult, wire):
            from_model = resolve_rendering(None, form, core_form=True)
            assert (from_model.mode, from_model.complete, from_model.directive) == (
                from_wire.mode,
                from_wire.complete,
                from_wire.directive,
            )
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)


_MALFORMED_HINTS: list[Any] = ["yes", "true", "false", 0, 1, 0.5, [], [True], {}, {"no": 1}]


@pytest.mark.parametrize("value", _MALFORMED_HINTS)
@pytest.mark.parametrize("hint", ["verbatimHint", "summarizeOkHint"])
@pytest.mark.parametrize("other", [None, True, False])
def test_a_malformed_core_hint_parsed_by_the_sdk_reads_as_its_wire_form(hint: str, value: Any, other: Any) -> None:
    """Read on opt-in, annotations the patched SDK parsed read exactly as the wire they came from: a malformed hint
    makes them unclean (verbatim), though the model's field holds the hint's safe value; through every conversion."""
    annotations: dict[str, Any] = {hint: value, "readOnlyHint": True}
    if other is not None:
        annotations["summarizeOkHint" if hint == "verbatimHint" else "verbatimHint"] = other
    wire = {"name": "sheet", "inputSchema": {"type": "object"}, "annotations": annotations}
    logging.getLogger("mcp_rendering").setLevel(logging.ERROR)
    try:
        from_wire = resolve_rendering(wire, None, core_form=True)
        for form in _sdk_forms(mcp_types.Tool, wire):
            from_model = resolve_rendering(form, None, core_form=True)
            assert (from_model.mode, from_model.hints, from_model.problems) == (
                from_wire.mode,
                from_wire.hints,
                from_wire.problems,
            )
    finally:
        logging.getLogger("mcp_rendering").setLevel(logging.NOTSET)
    assert from_wire.mode == "verbatim" and from_wire.hints.verbatim_hint is True


def _sdk_forms(model: Any, wire: dict[str, Any]) -> list[Any]:
    """A message as a host may hold it after the patched SDK: its model (from Python, from JSON), a copy, the
    model's dumps, and a model of a dump."""
    parsed = model.model_validate(wire)
    dumped = parsed.model_dump(mode="json", by_alias=True, exclude_none=True)
    return [
        parsed,
        model.model_validate_json(json.dumps(wire)),
        parsed.model_copy(),
        parsed.model_copy(deep=True),
        dumped,
        json.loads(parsed.model_dump_json(by_alias=True, exclude_none=True)),
        model.model_validate(dumped),
        model.model_validate(dumped).model_copy(),
    ]


def _hint_as_read(value: Any, safe: bool) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    return safe


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_sdk_control_a_malformed_read_only_hint_still_breaks_today(mode: str) -> None:
    """The contrast the specification's rule answers: the SDK's own typed hint is fatal when malformed."""

    async def run() -> None:
        async with Client(_server({"annotations": {"readOnlyHint": {"no": 1}}}, {}), mode=mode) as client:
            await client.list_tools()

    with pytest.raises(BaseException) as caught:
        anyio.run(run)
    assert "readOnlyHint" in _leaf_messages(caught.value)


def _leaf_messages(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        return " ".join(_leaf_messages(inner) for inner in error.exceptions)
    return str(error)
