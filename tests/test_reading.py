# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""Reading the carriers, as section 4 of the extension specification states it: member by member, `_meta` first,
malformed members absent, unregistered modes verbatim, and a continuation meaning more to come."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering import EXTENSION_ID, Rendering, read_directive, read_tool_hints, resolve_rendering
from mcp_rendering.reading import read_hints_object, read_rendering_object
from tests.support.strategies import (
    REGISTERED_MODES,
    RENDERING_MEMBERS,
    continuations,
    hint_values,
    malformed_booleans,
    malformed_members,
    renderings,
    unregistered_modes,
)

VERBATIM = {"mode": "verbatim", "guidance": "All rows."}
SUMMARIZABLE = {"mode": "summarizable"}
FIELD_OF = {"mode": "mode", "guidance": "guidance", "nullDisplay": "null_display", "complete": "complete"}


def tool(annotations: dict[str, Any] | None = None, meta: Any = None) -> dict[str, Any]:
    wire: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if annotations is not None:
        wire["annotations"] = annotations
    if meta is not None:
        wire["_meta"] = {EXTENSION_ID: meta}
    return wire


def result(rendering: Any = None, meta: Any = None) -> dict[str, Any]:
    wire: dict[str, Any] = {"content": []}
    if rendering is not None:
        wire["_rendering"] = rendering
    if meta is not None:
        wire["_meta"] = {EXTENSION_ID: meta}
    return wire


def wire_members(directive: Rendering | None) -> dict[str, Any]:
    return {} if directive is None else directive.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.mark.parametrize(
    ("the_tool", "the_result", "mode", "source"),
    [
        (tool(), result(), "unspecified", "none"),
        (tool({"verbatimHint": True}), result(), "verbatim", "tool.annotations"),
        (tool({"summarizeOkHint": True}), result(), "summarizable", "tool.annotations"),
        (tool({"verbatimHint": True, "summarizeOkHint": True}), result(), "verbatim", "tool.annotations"),
        (tool({"verbatimHint": False, "summarizeOkHint": False}), result(), "unspecified", "none"),
        (tool(meta={"verbatimHint": True}), result(), "verbatim", "tool._meta"),
        # `_meta` before the core form, hint by hint.
        (tool({"verbatimHint": True}, {"verbatimHint": False}), result(), "unspecified", "none"),
        (tool({"verbatimHint": True}, {"summarizeOkHint": True}), result(), "verbatim", "tool.annotations"),
        # A malformed `_meta` value reads as absent, so the core form applies.
        (tool({"verbatimHint": True}, {"verbatimHint": "yes"}), result(), "verbatim", "tool.annotations"),
        (tool(meta={"verbatimHint": "yes"}), result(), "unspecified", "none"),
        # The result's mode before the tool's hints, both ways.
        (tool({"verbatimHint": True}), result(meta=SUMMARIZABLE), "summarizable", "result._meta"),
        (tool({"summarizeOkHint": True}), result(meta=VERBATIM), "verbatim", "result._meta"),
        (tool(), result(VERBATIM), "verbatim", "result._rendering"),
        (tool(), result(SUMMARIZABLE, VERBATIM), "verbatim", "result._meta"),
        (tool(), result(SUMMARIZABLE, 42), "summarizable", "result._rendering"),
        # A mode no one registered reads as verbatim; a malformed one as absent.
        (tool({"summarizeOkHint": True}), result(meta={"mode": "tabular"}), "verbatim", "result._meta"),
        (tool({"verbatimHint": True}), result(meta={"mode": 7}), "verbatim", "tool.annotations"),
        (tool(), result(meta={"mode": "verbatim", "guidance": "x" * 1001}), "verbatim", "result._meta"),
    ],
)
def test_precedence(the_tool: dict[str, Any], the_result: dict[str, Any], mode: str, source: str) -> None:
    effective = resolve_rendering(the_tool, the_result)
    assert (effective.mode, effective.source) == (mode, source)


def test_defaults_and_the_directive_members() -> None:
    page = result(meta={"mode": "verbatim", "complete": False, "continuation": {"argument": "cursor", "token": "abc"}})
    effective = resolve_rendering(None, page)
    assert effective.complete is False
    assert effective.continuation is not None
    assert (effective.continuation.argument, effective.continuation.token) == ("cursor", "abc")
    assert (effective.null_display, effective.guidance) == ("-", None)
    whole = resolve_rendering(None, result(meta={"mode": "verbatim", "nullDisplay": "n/a", "guidance": "g"}))
    assert (whole.complete, whole.null_display, whole.guidance) == (True, "n/a", "g")
    assert resolve_rendering(None, None).complete is True


@pytest.mark.parametrize(
    ("directive", "complete"),
    [
        ({"complete": False}, False),
        ({"continuation": {"argument": "cursor", "token": "t"}}, False),
        ({"complete": True, "continuation": {"argument": "cursor", "token": "t"}}, False),
        ({"complete": True}, True),
        ({"complete": "false", "continuation": {"argument": "cursor", "token": 12345}}, True),
        ({}, True),
    ],
)
def test_a_continuation_means_more_to_come(directive: dict[str, Any], complete: bool) -> None:
    assert resolve_rendering(None, result(meta=directive)).complete is complete


@given(directive=renderings().filter(bool), member=st.sampled_from(RENDERING_MEMBERS), data=st.data())
def test_one_malformed_member_takes_nothing_else_with_it(directive: dict[str, Any], member: str, data: Any) -> None:
    """For any well-formed directive and any one member replaced by a malformed value, every other member still
    applies, and a well-formed `complete: false` survives."""
    spoiled = {**directive, member: data.draw(malformed_members[member])}
    effective = resolve_rendering(None, result(meta=spoiled))
    expected = {key: value for key, value in directive.items() if key != member}
    assert wire_members(effective.directive) == expected
    if directive.get("complete") is False and member != "complete":
        assert effective.complete is False
    assert [problem.member for problem in effective.problems] == [member]


@given(
    mode=unregistered_modes,
    directive=renderings(),
    hints=hint_values(),
    hint_carrier=st.sampled_from(["annotations", "_meta"]),
)
def test_an_unregistered_mode_is_never_summarizable(
    mode: str, directive: dict[str, Any], hints: dict[str, Any], hint_carrier: str
) -> None:
    """For any string mode outside the registered values, the effective mode is verbatim whatever the tool says,
    and completeness is what it would be without the mode."""
    the_tool = tool(hints) if hint_carrier == "annotations" else tool(meta=hints)
    effective = resolve_rendering(the_tool, result(meta={**directive, "mode": mode}))
    assert effective.mode == "verbatim"
    assert not effective.registered_mode
    without_mode = {key: value for key, value in directive.items() if key != "mode"}
    assert effective.complete == resolve_rendering(None, result(meta=without_mode)).complete


@given(meta=renderings(), core=renderings())
def test_meta_decides_member_by_member(meta: dict[str, Any], core: dict[str, Any]) -> None:
    """For any two directives, each member comes from `_meta` when it holds one, else from the core form."""
    effective = resolve_rendering(None, result(core, meta))
    assert wire_members(effective.directive) == {**core, **meta}
    if meta.get("mode") is not None:
        assert effective.source == "result._meta"


@given(meta=hint_values(), core=hint_values())
def test_meta_decides_hint_by_hint(meta: dict[str, Any], core: dict[str, Any]) -> None:
    hints = read_tool_hints(tool(core, meta))
    merged = {**core, **meta}
    assert hints.verbatim_hint == merged.get("verbatimHint")
    assert hints.summarize_ok_hint == merged.get("summarizeOkHint")


@given(
    value=malformed_booleans.filter(lambda value: value is not None),
    hint=st.sampled_from(["verbatimHint", "summarizeOkHint"]),
)
def test_no_hint_is_coerced(value: Any, hint: str) -> None:
    hints, problems = read_hints_object({hint: value})
    assert (hints.verbatim_hint, hints.summarize_ok_hint) == (None, None)
    assert [problem.member for problem in problems] == [hint]


def test_no_coercion_and_every_problem_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        hints = read_tool_hints(tool({"verbatimHint": "true", "summarizeOkHint": 1}, {"summarizeOkHint": "yes"}))
        assert (hints.verbatim_hint, hints.summarize_ok_hint) == (None, None)
        assert read_directive(result(meta={"complete": "false", "nullDisplay": 0})) is None
        assert read_directive(result(meta="verbatim")) is None
    assert caplog.text.count("ignoring malformed") == 6


def test_an_explicit_null_is_absent_and_no_diagnostic(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        hints = read_tool_hints(tool({"verbatimHint": True}, {"verbatimHint": None}))
        directive = read_directive(result({"guidance": "core"}, {"mode": "verbatim", "guidance": None}))
    assert hints.verbatim_hint is True  # the null reads as absent, so the core form applies
    assert directive == Rendering(mode="verbatim", guidance="core")
    assert caplog.text == ""


def test_only_camel_case_names_are_members() -> None:
    directive = read_directive(result(meta={"mode": "verbatim", "null_display": "N/A", "summarize_ok_hint": True}))
    assert directive == Rendering(mode="verbatim")
    assert read_tool_hints(tool(meta={"verbatim_hint": True})).verbatim_hint is None


def test_unknown_members_are_ignored() -> None:
    directive = read_directive(result(meta={"mode": "verbatim", "layout": {"columns": 3}, "complete": False}))
    assert directive == Rendering(mode="verbatim", complete=False)


@pytest.mark.parametrize(
    ("guidance", "well_formed"),
    [
        ("\U0001f4ca" * 1000, True),  # 1000 code points, 2000 UTF-16 code units
        ("\U0001f4ca" * 1001, False),
        ("e\u0301" * 500, True),  # 1000 code points, 500 user-perceived characters
        ("x" * 1001, False),
    ],
)
def test_lengths_are_counted_in_code_points(guidance: str, well_formed: bool) -> None:
    directive, problems = read_rendering_object({"guidance": guidance})
    assert (directive is not None and directive.guidance == guidance) is well_formed
    assert bool(problems) is not well_formed


def test_a_non_object_carrier_is_one_problem() -> None:
    effective = resolve_rendering(tool(meta=["verbatimHint"]), result(meta="verbatim"))
    assert effective.mode == "unspecified"
    assert [(problem.member, problem.detail) for problem in effective.problems] == [
        (None, "a string, not an object"),
        (None, "an array, not an object"),
    ]
    assert str(effective.problems[0]).startswith("CallToolResult._meta['io.modelcontextprotocol/rendering']:")


@given(continuation=continuations)
def test_a_well_formed_continuation_is_kept_exactly(continuation: dict[str, str]) -> None:
    effective = resolve_rendering(None, result(meta={"continuation": continuation}))
    assert effective.continuation is not None
    assert effective.continuation.model_dump() == continuation


def test_the_core_form_alone_is_read_in_full() -> None:
    effective = resolve_rendering(tool({"verbatimHint": True}), result({"complete": False, "nullDisplay": "n/a"}))
    assert (effective.mode, effective.complete, effective.null_display) == ("verbatim", False, "n/a")


def test_typed_models_are_read_like_wire_dicts() -> None:
    import mcp_types

    import mcp_rendering

    with mcp_rendering.installed():
        typed_tool = mcp_types.Tool.model_validate(tool({"verbatimHint": True}))
        typed_result = mcp_types.CallToolResult(content=[], rendering=Rendering(mode="summarizable"))
        assert resolve_rendering(typed_tool, typed_result).source == "result._rendering"
        assert resolve_rendering(typed_tool, mcp_types.CallToolResult(content=[])).mode == "verbatim"
    # An unpatched model keeps only the `_meta` carrier, and that is enough.
    unpatched_tool = mcp_types.Tool.model_validate(tool({"verbatimHint": True}, {"verbatimHint": True}))
    assert resolve_rendering(unpatched_tool, None).source == "tool._meta"
    unpatched_result = mcp_types.CallToolResult.model_validate(result(SUMMARIZABLE, {"complete": False}))
    assert resolve_rendering(None, unpatched_result).directive == Rendering(complete=False)


def test_a_directive_assigned_without_validation_is_still_judged() -> None:
    import mcp_types

    import mcp_rendering

    with mcp_rendering.installed():
        typed = mcp_types.CallToolResult(content=[])
        typed.rendering = Rendering.model_construct(mode="verbatim", guidance="x" * 1001)
        assert read_directive(typed) == Rendering(mode="verbatim")
        typed.rendering = Rendering(mode="verbatim", guidance="ok")
        assert read_directive(typed) == Rendering(mode="verbatim", guidance="ok")


@pytest.mark.parametrize("mode", REGISTERED_MODES)
def test_a_registered_mode_reads_as_itself(mode: str) -> None:
    effective = resolve_rendering(tool({"verbatimHint": True, "summarizeOkHint": True}), result(meta={"mode": mode}))
    assert (effective.mode, effective.registered_mode) == (mode, True)
