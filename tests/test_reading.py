# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""Reading the carriers, as section 4 of the extension specification states it: member by member, `_meta` first,
malformed members read as the value that shows more, unregistered modes verbatim, and a continuation meaning more to
come."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

import mcp_rendering
from mcp_rendering import (
    EXTENSION_ID,
    Rendering,
    RenderingContinuation,
    RenderingHints,
    read_directive,
    read_tool_hints,
    resolve_rendering,
)
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
        # A malformed hint reads as the value that shows more, and decides: the core form is not consulted.
        (tool({"verbatimHint": False}, {"verbatimHint": "yes"}), result(), "verbatim", "tool._meta"),
        (tool(meta={"verbatimHint": "no"}), result(), "verbatim", "tool._meta"),
        (tool({"summarizeOkHint": True}, {"summarizeOkHint": "yes"}), result(), "unspecified", "none"),
        (tool({"summarizeOkHint": True}, "verbatim"), result(), "verbatim", "tool._meta"),
        # The result's mode before the tool's hints, both ways.
        (tool({"verbatimHint": True}), result(meta=SUMMARIZABLE), "summarizable", "result._meta"),
        (tool({"summarizeOkHint": True}), result(meta=VERBATIM), "verbatim", "result._meta"),
        (tool(), result(VERBATIM), "verbatim", "result._rendering"),
        (tool(), result(SUMMARIZABLE, VERBATIM), "verbatim", "result._meta"),
        (tool(), result(SUMMARIZABLE, 42), "verbatim", "result._meta"),
        # A mode no one registered reads as verbatim, and so does a malformed one.
        (tool({"summarizeOkHint": True}), result(meta={"mode": "tabular"}), "verbatim", "result._meta"),
        (tool({"summarizeOkHint": True}), result(meta={"mode": 7}), "verbatim", "result._meta"),
        (tool(), result(SUMMARIZABLE, {"mode": 1}), "verbatim", "result._meta"),
        (tool(), result({"mode": ["summarizable"]}), "verbatim", "result._rendering"),
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
        # Malformed, each reads as incomplete: no malformed value makes a part read as the whole.
        ({"complete": "false", "continuation": {"argument": "cursor", "token": 12345}}, False),
        ({"complete": "true"}, False),
        ({"complete": 0}, False),
        ({"continuation": {"argument": "cursor", "token": "abc+/="}}, False),
        ({"complete": True, "continuation": {"argument": "cursor", "token": "t" * 4097}}, False),
        ({"continuation": "cursor"}, False),
        ({}, True),
    ],
)
def test_a_continuation_means_more_to_come(directive: dict[str, Any], complete: bool) -> None:
    assert resolve_rendering(None, result(meta=directive)).complete is complete


SAFE_READING = {"mode": "verbatim", "complete": False}
"""What a malformed member of a directive reads as, where it reads as more than absent."""
READS_AS = {
    "mode": "verbatim",
    "guidance": "absent",
    "nullDisplay": "absent",
    "complete": "false",
    "continuation": "incomplete",
}
"""How a problem states what its malformed member was read as (rule 3 of the reading)."""


@given(directive=renderings().filter(bool), member=st.sampled_from(RENDERING_MEMBERS), data=st.data())
def test_one_malformed_member_takes_nothing_else_with_it(directive: dict[str, Any], member: str, data: Any) -> None:
    """For any well-formed directive and any one member replaced by a malformed value, every other member still
    applies, and the malformed one reads as the value that shows more: a malformed mode as verbatim, a malformed
    `complete` or continuation as incomplete, a malformed guidance or null text as absent."""
    spoiled = {**directive, member: data.draw(malformed_members[member])}
    effective = resolve_rendering(None, result(meta=spoiled))
    expected = {key: value for key, value in directive.items() if key != member}
    if member in SAFE_READING:
        expected[member] = SAFE_READING[member]
    if member == "continuation":
        expected["complete"] = False
    assert wire_members(effective.directive) == expected
    if directive.get("complete") is False or member in ("complete", "continuation"):
        assert effective.complete is False
    if member == "mode":
        assert effective.mode == "verbatim"
    assert [(problem.member, problem.reads_as) for problem in effective.problems] == [(member, READS_AS[member])]
    # The carrier read alone says the same: nothing depends on a second carrier being there.
    alone, problems = read_rendering_object(spoiled)
    assert wire_members(alone) == expected
    assert [(problem.member, problem.reads_as) for problem in problems] == [(member, READS_AS[member])]


@given(
    tool_hints=hint_values(),
    meta=renderings(),
    core=renderings(),
    spoil=st.sampled_from(["mode", "complete", "continuation"]),
    carrier=st.sampled_from(["_meta", "core"]),
    data=st.data(),
)
def test_nothing_malformed_makes_a_part_complete_or_a_verbatim_result_summarizable(
    tool_hints: dict[str, Any],
    meta: dict[str, Any],
    core: dict[str, Any],
    spoil: str,
    carrier: str,
    data: Any,
) -> None:
    """The guarantee the reading exists for, over any tool hints and any two directives: spoiling a member in the
    carrier that would decide it never yields a complete result (for `complete`, a continuation) nor a
    summarizable one (for `mode`)."""
    bad = data.draw(malformed_members[spoil])
    if carrier == "_meta":
        meta = {**meta, spoil: bad}
    else:
        meta = {key: value for key, value in meta.items() if key != spoil}
        core = {**core, spoil: bad}
    effective = resolve_rendering(tool(tool_hints), result(core, meta))
    if spoil == "mode":
        assert effective.mode == "verbatim"
    else:
        assert effective.complete is False


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
    """For any two well-formed directives, each member comes from `_meta` when it holds one, else from the core
    form."""
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


@given(value=malformed_booleans.filter(lambda value: value is not None))
def test_no_hint_is_coerced_and_a_malformed_one_fails_safe(value: Any) -> None:
    """A malformed hint is never coerced: whatever it holds (even the string "false"), `verbatimHint` reads as true
    and `summarizeOkHint` as false."""
    hints, problems = read_hints_object({"verbatimHint": value, "summarizeOkHint": value})
    assert (hints.verbatim_hint, hints.summarize_ok_hint) == (True, False)
    assert [(problem.member, problem.reads_as) for problem in problems] == [
        ("verbatimHint", "true"),
        ("summarizeOkHint", "false"),
    ]


def test_no_coercion_and_every_problem_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        hints = read_tool_hints(tool({"verbatimHint": "true", "summarizeOkHint": 1}, {"summarizeOkHint": "yes"}))
        # `_meta` settles summarizeOkHint (false); the annotations' malformed verbatimHint reads as true.
        assert (hints.verbatim_hint, hints.summarize_ok_hint) == (True, False)
        assert read_directive(result(meta={"complete": "false", "nullDisplay": 0})) == Rendering(complete=False)
        assert read_directive(result(meta="verbatim")) == Rendering(mode="verbatim", complete=False)
    assert caplog.text.count("malformed") == 6
    assert "read as false" in caplog.text and "read as true" in caplog.text and "read as absent" in caplog.text


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


def test_a_non_object_carrier_is_one_problem_and_fails_safe() -> None:
    """A carrier that is not an object cannot say what it meant: the tool reads as verbatim, the result as
    verbatim and incomplete."""
    effective = resolve_rendering(tool({"summarizeOkHint": True}, ["verbatimHint"]), result(meta="verbatim"))
    assert (effective.mode, effective.source, effective.complete) == ("verbatim", "result._meta", False)
    assert effective.hints.verbatim_hint is True and effective.hints.summarize_ok_hint is False
    assert [(problem.member, problem.detail) for problem in effective.problems] == [
        (None, "a string, not an object"),
        (None, "an array, not an object"),
    ]
    assert str(effective.problems[0]).startswith("CallToolResult._meta['io.modelcontextprotocol/rendering']:")
    assert str(effective.problems[0]).endswith("read as mode verbatim, complete false")


def test_a_malformed_guidance_falls_back_to_the_core_form() -> None:
    """Guidance and the null text have no safer value: a malformed one reads as absent, and the core form's applies."""
    directive = read_directive(result({"guidance": "core", "nullDisplay": "n/a"}, {"guidance": 5, "nullDisplay": []}))
    assert directive == Rendering(guidance="core", null_display="n/a")


def test_a_deeply_nested_member_is_a_problem_not_a_crash() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    effective = resolve_rendering(None, result(meta={"mode": deep, "guidance": "ok"}))
    assert (effective.mode, effective.guidance) == ("verbatim", "ok")
    assert len(str(effective.problems[0])) < 400


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


RESULT_META = "CallToolResult._meta['io.modelcontextprotocol/rendering']"
TOOL_META = "Tool._meta['io.modelcontextprotocol/rendering']"


def test_a_problem_names_its_carrier_and_member() -> None:
    the_tool = tool({"verbatimHint": "yes", "summarizeOkHint": True}, {"summarizeOkHint": 1})
    the_result = result({"mode": 7, "guidance": "core"}, {"complete": "no"})
    effective = resolve_rendering(the_tool, the_result)
    assert [(problem.carrier, problem.member) for problem in effective.problems] == [
        (RESULT_META, "complete"),
        ("CallToolResult._rendering", "mode"),
        (TOOL_META, "summarizeOkHint"),
        ("Tool.annotations", "verbatimHint"),
    ]
    assert [problem.reads_as for problem in effective.problems] == ["false", "verbatim", "false", "true"]
    for problem in effective.problems:
        assert str(problem) == f"{problem.carrier}.{problem.member}: {problem.detail}; read as {problem.reads_as}"
    # The malformed core mode decides as verbatim; the well-formed members of the same carriers still apply.
    assert (effective.mode, effective.source, effective.guidance) == ("verbatim", "result._rendering", "core")
    assert effective.complete is False


def test_every_problem_is_logged_as_it_is_read(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        effective = resolve_rendering(tool(meta=True), result({"nullDisplay": 16 * "ab"}, ["mode"]))
    assert len(effective.problems) == 3
    assert [record.getMessage() for record in caplog.records] == [
        f"malformed {problem}" for problem in effective.problems
    ]
    assert {record.name for record in caplog.records} == {"mcp_rendering"}


@pytest.mark.parametrize(
    ("value", "json_type"),
    [
        (True, "a boolean"),
        (0, "a number"),
        (2.5, "a number"),
        ("verbatim", "a string"),
        (["mode", "verbatim"], "an array"),
        ({"mode"}, "set"),  # not JSON at all: named by its Python type
    ],
)
def test_a_non_object_carrier_is_named_by_its_type(value: Any, json_type: str) -> None:
    directive, problems = read_rendering_object(value)
    assert directive == Rendering(mode="verbatim", complete=False)
    assert [(problem.member, problem.detail) for problem in problems] == [(None, f"{json_type}, not an object")]
    assert str(problems[0]) == f"_rendering: {json_type}, not an object; read as mode verbatim, complete false"


def test_a_diagnostic_says_why_and_quotes_the_value() -> None:
    (mode,) = read_rendering_object({"mode": 7})[1]
    assert mode.detail.endswith(" (got 7)") and "valid string" in mode.detail
    assert ":" not in mode.detail  # the member itself is wrong: no part of it to name
    continuation = {"argument": "1x", "token": ""}
    (problem,) = read_rendering_object({"continuation": continuation})[1]
    # Each wrong part of the member is named, one after the other, and the value is quoted.
    parts, _, quoted = problem.detail.partition(" (got ")
    assert [part.split(": ")[0] for part in parts.split("; ")] == ["argument", "token"]
    assert quoted == f"{continuation!r})"


def test_a_long_value_is_quoted_in_eighty_characters() -> None:
    (problem,) = read_hints_object({"verbatimHint": 12345})[1]
    assert problem.detail.endswith(" (got 12345)")
    eighty = ["a" * 36, "b" * 36]  # its repr is 80 characters: quoted whole
    (problem,) = read_hints_object({"verbatimHint": eighty})[1]
    assert problem.detail.endswith(f" (got {eighty!r})") and len(repr(eighty)) == 80
    for long_value in (
        ["a" * 36, "b" * 37],  # 81 characters: one too many
        10**400,
        "x" * 10_000,
        ["y" * 50] * 1000,
        {str(n): n for n in range(1000)},
    ):
        (problem,) = read_hints_object({"verbatimHint": long_value})[1]
        quoted = problem.detail.partition(" (got ")[2].removesuffix(")")
        assert 0 < len(quoted) <= 80 and "..." in quoted


def test_one_carrier_read_alone() -> None:
    assert read_rendering_object(None) == (None, ())
    assert read_rendering_object({}) == (None, ())
    assert read_rendering_object({"layout": "grid"}) == (None, ())
    directive, problems = read_rendering_object({"mode": 7})
    assert directive == Rendering(mode="verbatim")
    assert [(p.carrier, p.member) for p in problems] == [("_rendering", "mode")]
    assert read_rendering_object({"guidance": 7})[0] is None  # no safer guidance than none
    hints, problems = read_hints_object({"verbatimHint": 1, "summarizeOkHint": True})
    assert (hints.verbatim_hint, hints.summarize_ok_hint) == (True, True)
    assert [(p.carrier, p.member) for p in problems] == [("_meta", "verbatimHint")]


@pytest.mark.parametrize(
    ("the_tool", "the_result", "mode"),
    [
        (
            tool({"verbatimHint": True}, {"summarizeOkHint": "no"}),
            result(meta={"mode": "summarizable"}),
            "summarizable",
        ),
        (tool({"verbatimHint": True}, {"summarizeOkHint": "no"}), result(meta={"guidance": "g"}), "verbatim"),
        (tool({"summarizeOkHint": True}, {"verbatimHint": "no"}), result(meta={"guidance": "g"}), "verbatim"),
        (tool({"verbatimHint": False}, {"summarizeOkHint": "no"}), result(meta={"guidance": "g"}), "unspecified"),
        # `_meta` settles verbatimHint as false; the malformed one behind it is still reported.
        (
            tool({"summarizeOkHint": True, "verbatimHint": "no"}, {"verbatimHint": False}),
            result(meta={"guidance": "g"}),
            "summarizable",
        ),
    ],
)
def test_the_outcome_keeps_the_directive_the_hints_and_the_problems(
    the_tool: dict[str, Any], the_result: dict[str, Any], mode: str
) -> None:
    """Whichever carrier decides the mode, the outcome also holds what was read from all of them."""
    effective = resolve_rendering(the_tool, the_result)
    assert effective.mode == mode
    assert effective.directive == read_directive(the_result)
    assert effective.hints == read_tool_hints(the_tool)
    assert [problem.member for problem in effective.problems] == [
        "summarizeOkHint" if "summarizeOkHint" in the_tool["_meta"][EXTENSION_ID] else "verbatimHint"
    ]


def test_a_tool_or_result_that_is_not_an_object_has_no_carriers() -> None:
    effective = resolve_rendering("t", ["content"])
    assert (effective.mode, effective.directive, effective.problems) == ("unspecified", None, ())
    not_an_object = {"content": [], "_meta": [EXTENSION_ID]}
    assert resolve_rendering({"name": "t", "_meta": "x"}, not_an_object).problems == ()


class LegacyResult(BaseModel):
    """Shaped like the 1.x SDK's `CallToolResult`: `_meta` is the field `meta`, other members are kept as extras."""

    model_config = ConfigDict(extra="allow")
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")
    content: list[Any] = []


class OpenResult(BaseModel):
    """A model that keeps every member it does not declare, `_meta` included, as an extra."""

    model_config = ConfigDict(extra="allow")


@pytest.mark.parametrize("model", [LegacyResult, OpenResult])
def test_a_model_that_keeps_unknown_members_is_read_through_them(model: type[BaseModel]) -> None:
    typed = model.model_validate(result({"mode": "summarizable", "guidance": "core"}, {"guidance": "meta"}))
    assert read_directive(typed) == Rendering(mode="summarizable", guidance="meta")


def test_a_typed_directive_is_read_by_its_wire_names() -> None:
    import mcp_types

    import mcp_rendering

    with mcp_rendering.installed():
        typed = mcp_types.CallToolResult(content=[], rendering=Rendering(null_display="n/a", complete=False))
        effective = resolve_rendering(None, typed)
    assert (effective.null_display, effective.complete, effective.problems) == ("n/a", False, ())


def test_a_typed_tool_is_judged_in_its_wire_form() -> None:
    import mcp_types

    typed = mcp_types.Tool(name="t", input_schema={"type": "object"}, meta={EXTENSION_ID: ("verbatimHint",)})
    (problem,) = resolve_rendering(typed, None).problems
    assert (problem.carrier, problem.detail) == (TOOL_META, "an array, not an object")


def test_a_typed_result_is_judged_in_its_wire_form() -> None:
    """A server may put the generated model itself in `_meta`; the SDK sends it as the object it stands for, and a
    tool's `_meta` entry is already read that way."""
    import mcp_types

    typed = mcp_types.CallToolResult(content=[], meta={EXTENSION_ID: Rendering(mode="verbatim", null_display="n/a")})
    wire = typed.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert read_directive(wire) == Rendering(mode="verbatim", null_display="n/a")
    assert read_directive(typed) == read_directive(wire)


@pytest.mark.parametrize(
    "directive",
    [
        {"continuation": "cursor"},
        {"complete": True, "continuation": {"argument": "cursor", "token": ""}},
        {"mode": "summarizable", "continuation": {"argument": "1x", "token": "t"}},
    ],
)
def test_a_malformed_continuation_read_alone_is_incomplete_with_nothing_to_follow(directive: dict[str, Any]) -> None:
    """Rule 3, for one carrier read on its own: the continuation is dropped, the part reads as incomplete (even over
    a well-formed `complete: true`), and the problem says so."""
    read, problems = read_rendering_object(directive)
    assert read == Rendering(mode=directive.get("mode"), complete=False)
    assert [(problem.member, problem.reads_as) for problem in problems] == [("continuation", "incomplete")]


def error_results() -> list[Any]:
    import mcp_types

    wire = {**result(meta={"guidance": "Narrow the call.", "nullDisplay": 0}), "isError": True}
    return [wire, mcp_types.CallToolResult.model_validate(wire)]


@pytest.mark.parametrize("hints", [{"verbatimHint": True}, {"summarizeOkHint": True}, {}])
@pytest.mark.parametrize("typed", [False, True])
def test_the_tool_hints_do_not_apply_to_a_tool_error(hints: dict[str, Any], typed: bool) -> None:
    """Section 4, effective mode: the hints describe the tool's results, not its error messages, so an error without
    a mode of its own is "unspecified", decided by no carrier; the outcome still holds what every carrier said."""
    error = error_results()[typed]
    the_tool = tool(hints, {"summarizeOkHint": None})
    effective = resolve_rendering(the_tool, error)
    assert (effective.mode, effective.source) == ("unspecified", "none")
    assert effective.directive == Rendering(guidance="Narrow the call.")
    assert effective.hints == read_tool_hints(the_tool)
    assert [(problem.member, problem.reads_as) for problem in effective.problems] == [("nullDisplay", "absent")]


def test_a_tool_error_with_a_mode_of_its_own_follows_it() -> None:
    error = {**result(meta={"mode": "summarizable"}), "isError": True}
    effective = resolve_rendering(tool({"verbatimHint": True}), error)
    assert (effective.mode, effective.source) == ("summarizable", "result._meta")


@pytest.mark.parametrize("is_error", [False, "true", 1, None])
def test_only_is_error_true_makes_a_tool_error(is_error: Any) -> None:
    """`isError: false`, an absent flag, and values that are not `true` (nothing is coerced) leave the hints
    deciding."""
    import mcp_types

    the_tool = tool({"verbatimHint": True})
    wire = {**result(), "isError": is_error}
    assert resolve_rendering(the_tool, wire).mode == "verbatim"
    if is_error is False:
        typed = mcp_types.CallToolResult(content=[], is_error=False)
        assert resolve_rendering(the_tool, typed).mode == "verbatim"


def test_a_model_without_an_error_flag_is_not_a_tool_error() -> None:
    """A result model that declares no `is_error` (here shaped like a bare 1.x result) is read like a result whose
    flag is absent: the hints decide."""
    effective = resolve_rendering(tool({"summarizeOkHint": True}), LegacyResult.model_validate(result()))
    assert (effective.mode, effective.source) == ("summarizable", "tool.annotations")


def test_typed_models_have_the_problems_of_their_wire_form() -> None:
    """A model is judged as the SDK sends it, with `exclude_none`: a field left unset on a model built without
    validation is missing on the wire, not null, and the problem says so and quotes the value the peer would see."""
    import mcp_types

    import mcp_rendering
    from mcp_rendering.types import RenderingContinuation

    half = RenderingContinuation.model_construct(argument="cursor", token=None)
    typed_tool = mcp_types.Tool(name="t", input_schema={"type": "object"}, meta={EXTENSION_ID: {"verbatimHint": half}})
    with mcp_rendering.installed():
        typed_result = mcp_types.CallToolResult(content=[], meta={EXTENSION_ID: {"continuation": half}})
        typed_result.rendering = Rendering.model_construct(mode="verbatim", continuation=half)
        wire_tool, wire_result = (
            model.model_dump(by_alias=True, mode="json", exclude_none=True) for model in (typed_tool, typed_result)
        )
        effective = resolve_rendering(typed_tool, typed_result)
    assert effective.problems == resolve_rendering(wire_tool, wire_result).problems
    assert [problem.detail for problem in effective.problems] == [
        "token: Field required (got {'argument': 'cursor'})",
        "token: Field required (got {'argument': 'cursor'})",
        "Input should be a valid boolean (got {'argument': 'cursor'})",
    ]


def test_a_typed_tool_is_read_without_serializing_the_rest_of_it() -> None:
    """Only the carriers of a tool are read: a value elsewhere in the model that JSON cannot hold (an object in the
    input schema, a cycle in another `_meta` entry) does not stop the reading."""
    import mcp_types

    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    hints = {EXTENSION_ID: {"summarizeOkHint": True}}
    for typed in (
        mcp_types.Tool(name="t", input_schema={"type": "object", "default": object()}, meta=hints),
        mcp_types.Tool(name="t", input_schema={"type": "object"}, meta={**hints, "other": cycle}),
    ):
        assert resolve_rendering(typed, None).mode == "summarizable"


class OneXResult(BaseModel):
    """Shaped like the 1.x SDK's `CallToolResult`, whose error flag is the field `isError`."""

    model_config = ConfigDict(extra="allow")
    isError: bool = False


def test_tool_hints_do_not_apply_to_an_error_result_of_any_sdk_version() -> None:
    summarizable_tool = tool({"summarizeOkHint": True})
    assert resolve_rendering(summarizable_tool, OneXResult(isError=False)).mode == "summarizable"
    assert resolve_rendering(summarizable_tool, OneXResult(isError=True)).mode == "unspecified"
    assert resolve_rendering(summarizable_tool, OpenResult.model_validate({"isError": True})).mode == "unspecified"


def test_a_tool_model_that_keeps_unknown_members_is_read_through_them() -> None:
    """A tool model of another SDK, keeping `_meta` and `annotations` as extra members, is read like its wire form."""
    wire = tool({"verbatimHint": False, "summarizeOkHint": True}, {"verbatimHint": True})
    typed = OpenResult.model_validate(wire)
    assert read_tool_hints(typed) == read_tool_hints(wire) == RenderingHints(verbatim_hint=True, summarize_ok_hint=True)


def test_a_directive_marked_as_read_with_an_unusable_continuation_stays_incomplete() -> None:
    """A first reader that met a malformed continuation marks the directive it built: read again, the result is
    incomplete even where `_meta` says `complete: true`; an unmarked directive of the same members is not."""
    import mcp_types

    from mcp_rendering.reading import note_unusable_continuation

    with mcp_rendering.installed():
        marked = mcp_types.CallToolResult(content=[], rendering=Rendering(complete=False), meta=META_COMPLETE)
        note_unusable_continuation(marked.rendering)
        unmarked = mcp_types.CallToolResult(content=[], rendering=Rendering(complete=False), meta=META_COMPLETE)
        assert resolve_rendering(None, marked).complete is False
        assert resolve_rendering(None, unmarked).complete is True
        # A continuation the model does hold decides as any continuation does.
        continued = Rendering(continuation=RenderingContinuation(argument="cursor", token="t"))
        note_unusable_continuation(continued)
        resumed = mcp_types.CallToolResult(content=[], rendering=continued, meta=META_COMPLETE)
        assert resolve_rendering(None, resumed).complete is False


META_COMPLETE = {EXTENSION_ID: {"complete": True}}


def test_a_model_inside_a_wire_directive_is_judged_in_its_wire_form() -> None:
    """A member given as a model built without validation is checked like the JSON it stands for."""
    bad = RenderingContinuation.model_construct(argument="1x", token="")
    effective = resolve_rendering(None, result(meta={"mode": "verbatim", "continuation": bad}))
    assert effective.complete is False and effective.directive is not None
    assert effective.directive.continuation is None
    assert [problem.member for problem in effective.problems] == ["continuation"]
    good = RenderingContinuation(argument="cursor", token="t")
    assert read_directive(result(meta={"continuation": good})) == Rendering(continuation=good)


def test_a_typed_tool_is_read_through_its_annotations_field() -> None:
    import mcp_types

    with mcp_rendering.installed():
        annotations = mcp_types.ToolAnnotations.model_validate({"verbatimHint": True, "readOnlyHint": True})
        typed = mcp_types.Tool(name="t", input_schema={"type": "object"}, annotations=annotations)
        effective = resolve_rendering(typed, None)
    assert (effective.mode, effective.source) == ("verbatim", "tool.annotations")


def test_a_mark_on_a_directive_goes_with_it() -> None:
    """Marking a directive holds nothing once the directive is gone: the record of marks does not grow."""
    import gc

    from mcp_rendering import reading
    from mcp_rendering.reading import note_unusable_continuation

    marks = reading._READ_WITH_UNUSABLE_CONTINUATION  # pyright: ignore[reportPrivateUsage]
    before = len(marks)
    directives = [Rendering(complete=False) for _ in range(50)]
    for index in range(50):
        note_unusable_continuation(directives[index])
    assert len(marks) == before + 50
    del directives
    gc.collect()
    assert len(marks) == before
