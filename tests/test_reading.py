"""Every wire value of the reading tables (rendering.mdx and result-continuation.mdx, section 4) and its reading."""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

import mcp_types
import pytest

import mcp_rendering
from mcp_rendering.reading import (
    DEFAULT_NULL_DISPLAY,
    EffectiveRendering,
    combine_parts,
    duplicate_members,
    parse_json,
    read_continuation,
    read_directive,
    read_hints_object,
    read_rendering_object,
    read_tool_hints,
    resolve_rendering,
    usable_null_text,
)
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID


def tool(hints: Any = None, *, argument: Any = "cursor", annotations: Any = None) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if hints is not None:
        meta[EXTENSION_ID] = hints
    if argument is not None:
        meta[CONTINUATION_ID] = {"argument": argument}
    wire: dict[str, Any] = {"name": "ledger", "inputSchema": {"type": "object"}, "_meta": meta}
    if annotations is not None:
        wire["annotations"] = annotations
    return wire


def result(
    directive: Any = None, *, continuation: Any = None, is_error: bool = False, core: Any = None
) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if directive is not None:
        meta[EXTENSION_ID] = directive
    if continuation is not None:
        meta[CONTINUATION_ID] = continuation
    wire: dict[str, Any] = {"content": [], "isError": is_error, "_meta": meta}
    if core is not None:
        wire["_rendering"] = core
    return wire


# --- tool hints --------------------------------------------------------------------------------------------------

_MALFORMED = ["true", "false", 1, 0, [], {}, "yes"]


@pytest.mark.parametrize(
    ("wire", "verbatim", "summarize"),
    [
        ({"verbatimHint": True}, True, False),
        ({"verbatimHint": False}, False, False),
        ({"verbatimHint": None}, False, False),
        ({}, False, False),
        *[({"verbatimHint": value}, True, False) for value in _MALFORMED],
        ({"summarizeOkHint": True}, False, True),
        ({"summarizeOkHint": False}, False, False),
        ({"summarizeOkHint": None}, False, False),
        *[({"summarizeOkHint": value}, False, False) for value in _MALFORMED],
        ({"verbatimHint": True, "summarizeOkHint": True}, True, True),
        # Unclean carriers: summarizeOkHint true no longer counts.
        ({"summarizeOkHint": True, "verbatimhint": True}, False, False),
        ({"summarizeOkHint": True, "VerbatimHint": False}, False, False),
        ({"summarizeOkHint": True, "verbatimHint": "no"}, True, False),
    ],
)
def test_each_hint_value_has_one_reading(wire: dict[str, Any], verbatim: bool, summarize: bool) -> None:
    hints, _ = read_hints_object(wire)
    assert (bool(hints.verbatim_hint), bool(hints.summarize_ok_hint)) == (verbatim, summarize)


@pytest.mark.parametrize("carrier", [42, "verbatim", True, ["verbatimHint"], 1.5])
def test_a_hints_carrier_that_is_not_an_object_reads_verbatim(carrier: Any) -> None:
    hints, problems = read_hints_object(carrier)
    assert (hints.verbatim_hint, hints.summarize_ok_hint) == (True, False)
    assert len(problems) == 1 and problems[0].member is None


def test_an_absent_hints_carrier_says_nothing() -> None:
    for wire in (tool(None), {"name": "t"}, None, 42):
        assert resolve_rendering(wire, result()).mode == "unspecified"


# --- result directive ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "reads_as"),
    [
        ("verbatim", "verbatim"),
        ("summarizable", "summarizable"),
        ("tabular", "verbatim"),
        ("Summarizable", "verbatim"),
        ("summarizable ", "verbatim"),
        ("", "verbatim"),
        (1, "verbatim"),
        (True, "verbatim"),
        (["summarizable"], "verbatim"),
        ({"summarizable": True}, "verbatim"),
        (None, None),
    ],
)
def test_each_mode_value_has_one_reading(mode: Any, reads_as: str | None) -> None:
    directive, _ = read_rendering_object({"mode": mode, "complete": True})
    assert directive is not None and directive.mode == reads_as


@pytest.mark.parametrize(
    ("complete", "reads_as"),
    [
        (True, "complete"),
        (False, "incomplete"),
        (None, "not-stated"),
        ("true", "not-stated"),
        ("false", "not-stated"),
        (1, "not-stated"),
        (0, "not-stated"),
        ([], "not-stated"),
        ({}, "not-stated"),
    ],
)
def test_each_complete_value_has_one_reading(complete: Any, reads_as: str) -> None:
    directive, _ = read_rendering_object({"mode": "verbatim", "complete": complete})
    assert directive is not None and directive.completeness == reads_as
    assert resolve_rendering(None, result({"mode": "verbatim", "complete": complete})).complete is (
        reads_as == "complete"
    )


def test_a_directive_without_complete_is_shown_as_partial() -> None:
    effective = resolve_rendering(None, result({"mode": "verbatim"}))
    assert effective.completeness == "not-stated" and effective.complete is False


@pytest.mark.parametrize(
    ("guidance", "reads_as"),
    [("Keep the order.", "Keep the order."), ("g" * 1000, "g" * 1000), ("g" * 1001, None), (42, None), (None, None)],
)
def test_each_guidance_value_has_one_reading(guidance: Any, reads_as: str | None) -> None:
    assert resolve_rendering(None, result({"guidance": guidance, "complete": True})).guidance == reads_as


@pytest.mark.parametrize("text", ["-", "n/a", "N/A", "— néant —", "(vide)", "s.o.", "Ø", "…", "n" * 16])
def test_a_usable_null_text_is_shown(text: str) -> None:
    assert resolve_rendering(None, result({"nullDisplay": text, "complete": True})).null_display == text


@pytest.mark.parametrize(
    "text",
    [
        "",  # would hide a null
        " ",
        "\t",
        "\u00a0",
        "\u200b",  # invisible
        "\u2060",
        "\u202e-",  # a bidi control
        "0",  # would look like an amount
        "0.00",
        "n/a 0",
        "\u0663",  # ARABIC-INDIC DIGIT THREE
        "\u00b2",  # SUPERSCRIPT TWO
        "n" * 17,
        " -",
        "- ",
        "-\n-",
        "\u2800",  # BRAILLE PATTERN BLANK: a blank cell in most fonts
        "\u2800\u2800\u2800",
        "\u115f",  # the Hangul fillers
        "\u1160",
        "\u3164",
        "\uffa0",
        "\u3164 \u2800",
        42,
        None,
    ],
)
def test_an_unusable_null_text_reads_as_the_default(text: Any) -> None:
    effective = resolve_rendering(None, result({"nullDisplay": text, "complete": True}))
    assert effective.null_display == DEFAULT_NULL_DISPLAY
    if text is not None:  # a present, unusable null text is malformed: the carrier is unclean
        assert effective.directive is not None and not effective.directive.clean
        assert [problem.member for problem in effective.problems] == ["nullDisplay"]


@pytest.mark.parametrize(
    "text",
    ["\u2800", "\u115f", "\u1160", "\u3164", "\uffa0", "\u2800 \u3164", "\u00ad", "\u034f", "\ufe0f", "\U000e0041"],
)
def test_the_null_text_rule_refuses_blanks_whatever_the_schema_pattern_admits(text: str) -> None:
    """The rule of section 4 itself, not only the schema's pattern: a blank-looking text is never usable."""
    assert not usable_null_text(text)
    assert usable_null_text(text + "-")  # one visible character makes it usable


@pytest.mark.parametrize("text", ["-", "n/a", "— néant —", "Ø", "\u2800x", "n" * 16])
def test_the_null_text_rule_accepts_a_visible_text(text: str) -> None:
    assert usable_null_text(text)


@pytest.mark.parametrize("text", ["", "n" * 17, "0", "n/a 3", "\u0663", 7, None, b"-"])
def test_the_null_text_rule_refuses_digits_lengths_and_non_strings(text: Any) -> None:
    assert not usable_null_text(text)


@pytest.mark.parametrize("carrier", [42, "verbatim", True, ["complete"], 0.5])
def test_a_directive_carrier_that_is_not_an_object_reads_as_every_safe_value(carrier: Any) -> None:
    effective = resolve_rendering(tool({"summarizeOkHint": True}), result(carrier))
    assert (effective.mode, effective.completeness, effective.guidance, effective.null_display) == (
        "verbatim",
        "not-stated",
        None,
        DEFAULT_NULL_DISPLAY,
    )
    assert len(effective.problems) == 1


# --- unknown members: unclean carriers can ask to show more, never less ------------------------------------------


@pytest.mark.parametrize(
    "unknown",
    ["completed", "Complete", "is_complete", "COMPLETE", "Mode", "null_display", "nulldisplay", "continuation", "x"],
)
def test_an_unknown_member_makes_the_carrier_unclean(unknown: str) -> None:
    wire = {"mode": "summarizable", "complete": True, unknown: True}
    effective = resolve_rendering(None, result(wire))
    assert effective.mode == "verbatim"
    assert effective.completeness == "not-stated" and not effective.complete
    assert [(p.member, p.reads_as) for p in effective.problems] == [(unknown, "unclean")]


def test_an_unclean_carrier_still_states_incompleteness_and_keeps_its_texts() -> None:
    effective = resolve_rendering(None, result({"complete": False, "guidance": "g", "nullDisplay": "n/a", "x": 1}))
    assert (effective.completeness, effective.guidance, effective.null_display) == ("incomplete", "g", "n/a")


def test_a_misspelled_complete_false_does_not_hide_a_stated_true() -> None:
    # The producer meant one thing and sent two: the reading shows more.
    effective = resolve_rendering(None, result({"complete": True, "completed": False}))
    assert not effective.complete


@pytest.mark.parametrize(
    "text",
    [
        '{"mode": "summarizable", "complete": true, "complete": false}',
        '{"mode": "summarizable", "complete": false, "complete": true}',
        '{"mode": "verbatim", "mode": "summarizable", "complete": true}',
    ],
)
def test_a_repeated_member_makes_the_carrier_unclean(text: str) -> None:
    parsed = parse_json(text)
    assert duplicate_members(parsed)
    effective = resolve_rendering(None, result(parsed))
    assert effective.mode == "verbatim" and not effective.complete
    assert any(p.detail == "member given more than once" for p in effective.problems)


def test_parse_json_reads_like_any_parser_otherwise() -> None:
    assert parse_json('{"a": {"b": [1, {"c": null}]}}') == {"a": {"b": [1, {"c": None}]}}
    assert duplicate_members(parse_json('{"a": 1}')) == ()
    assert duplicate_members(parse_json('{"a": 1, "a": 2}')) == ("a",)
    assert parse_json('{"a": 1, "a": 2}') == {"a": 2}


# --- effective mode -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("is_error", [False, True])
@pytest.mark.parametrize(
    ("mode", "hints", "expected"),
    [
        ("verbatim", {"summarizeOkHint": True}, "verbatim"),
        ("summarizable", {"verbatimHint": True}, "summarizable"),
        ("tabular", {"summarizeOkHint": True}, "verbatim"),
        (None, {"verbatimHint": True}, "verbatim"),
        (None, {"verbatimHint": True, "summarizeOkHint": True}, "verbatim"),
        (None, {"summarizeOkHint": True}, "summarizable"),
        (None, {}, "unspecified"),
        (None, None, "unspecified"),
    ],
)
def test_the_effective_mode_table_applies_to_errors_too(
    mode: str | None, hints: Any, expected: str, is_error: bool
) -> None:
    directive = None if mode is None else {"mode": mode, "complete": True}
    assert resolve_rendering(tool(hints), result(directive, is_error=is_error)).mode == expected


def test_an_error_of_a_verbatim_tool_without_a_directive_stays_verbatim() -> None:
    error = {"content": [{"type": "text", "text": "payment refused"}], "isError": True}
    assert resolve_rendering(tool({"verbatimHint": True}), error).mode == "verbatim"


# --- the core form: read only on explicit opt-in ------------------------------------------------------------------


def test_the_core_form_is_not_read_by_default() -> None:
    core_tool = {"name": "t", "annotations": {"verbatimHint": True}}
    core_result = {"content": [], "_rendering": {"mode": "summarizable", "complete": False}}
    effective = resolve_rendering(core_tool, core_result)
    assert (effective.mode, effective.directive, effective.complete) == ("unspecified", None, True)
    assert not read_tool_hints(core_tool).verbatim_hint
    assert read_directive(core_result) is None


def test_the_core_form_is_read_on_opt_in_where_the_carrier_is_absent() -> None:
    core_tool = {"name": "t", "annotations": {"verbatimHint": True, "readOnlyHint": True}}
    effective = resolve_rendering(core_tool, {"content": [], "_rendering": {"complete": False}}, core_form=True)
    assert (effective.mode, effective.source, effective.completeness) == ("verbatim", "tool.annotations", "incomplete")
    assert effective.problems == ()  # the annotations object is open: readOnlyHint is no problem there
    both = result({"mode": "verbatim", "complete": True}, core={"mode": "summarizable", "complete": True})
    assert resolve_rendering(None, both, core_form=True).mode == "verbatim"  # the carrier, never a merge


# --- continuation -------------------------------------------------------------------------------------------------

_GOOD = {"argument": "cursor", "token": "v1.k1.abc"}


@pytest.mark.parametrize(
    ("the_tool", "continuation", "original", "usable"),
    [
        (tool(), _GOOD, {"year": 2025}, True),
        (tool(), {**_GOOD, "expiresAt": "2026-12-02T10:15:00Z"}, {}, True),
        (tool(), {**_GOOD, "expiresAt": "tomorrow"}, {}, False),
        (tool(), 42, {}, False),
        (tool(), "v1.k1.abc", {}, False),
        (tool(), {"argument": "cursor"}, {}, False),
        (tool(), {"token": "v1.k1.abc"}, {}, False),
        (tool(), {**_GOOD, "token": "a b"}, {}, False),
        (tool(), {**_GOOD, "part": 2}, {}, False),
        (tool(argument="page"), _GOOD, {}, False),
        (tool(argument=None), _GOOD, {}, False),
        (tool(argument=7), _GOOD, {}, False),
        (tool(argument="year"), {**_GOOD, "argument": "year"}, {"year": 2025}, False),
        (tool(), _GOOD, {"cursor": "an earlier token"}, False),
        (None, _GOOD, {}, False),
    ],
)
def test_each_continuation_case_has_one_reading(
    the_tool: Any, continuation: Any, original: dict[str, Any], usable: bool
) -> None:
    effective = resolve_rendering(
        the_tool, result({"mode": "verbatim", "complete": True}, continuation=continuation), original_arguments=original
    )
    assert (effective.continuation is not None) is usable
    assert effective.completeness == "incomplete" and not effective.complete  # present, so partial either way
    if not usable:
        assert effective.problems


def test_no_continuation_carrier_leaves_the_directive_to_decide() -> None:
    assert read_continuation(tool(), result()).present is False
    assert resolve_rendering(tool(), result({"complete": True})).complete


def test_a_continuation_is_kept_exactly() -> None:
    reading = read_continuation(tool(), result(continuation=_GOOD))
    assert reading.usable is not None and reading.usable.model_dump(by_alias=True, exclude_none=True) == _GOOD


def test_a_continuation_without_a_directive_still_makes_the_result_partial() -> None:
    assert not resolve_rendering(tool(), result(continuation=_GOOD)).complete


# --- several parts ------------------------------------------------------------------------------------------------


def _part(directive: Any, continuation: Any = None, hints: Any = None) -> EffectiveRendering:
    return resolve_rendering(tool(hints), result(directive, continuation=continuation))


def test_parts_combine_to_the_mode_that_shows_more_and_complete_only_at_the_end() -> None:
    first = _part({"mode": "verbatim", "complete": False}, _GOOD)
    last = _part({"complete": True})
    assert combine_parts([first, last]) == ("verbatim", True)
    assert combine_parts([first]) == ("verbatim", False)
    assert combine_parts([first, last], all_fetched=False) == ("verbatim", False)
    summary = _part({"mode": "summarizable", "complete": True})
    assert combine_parts([summary, _part({"complete": True})]) == ("summarizable", True)
    assert combine_parts([summary, _part({"mode": "tabular", "complete": True})]) == ("verbatim", True)
    assert combine_parts([]) == ("unspecified", False)


# --- SDK models are read as their wire JSON -----------------------------------------------------------------------


def test_a_model_is_read_by_its_wire_names_only() -> None:
    typed = mcp_types.CallToolResult.model_validate(
        {"content": [], "_meta": {EXTENSION_ID: {"null_display": "n/a", "complete": True}}}
    )
    effective = resolve_rendering(None, typed)
    assert effective.null_display == DEFAULT_NULL_DISPLAY and not effective.complete
    assert [p.member for p in effective.problems] == ["null_display"]


@pytest.mark.parametrize("patched", [False, True])
@pytest.mark.parametrize(
    "directive",
    [{"mode": "summarizable", "complete": True, "Complete": True}, {"complete": "true"}, 7, {"mode": "verbatim"}],
)
def test_the_reading_survives_every_conversion(patched: bool, directive: Any) -> None:
    wire = {
        "content": [],
        "_meta": {EXTENSION_ID: directive, CONTINUATION_ID: {"argument": "cursor", "token": "t", "x": 1}},
    }
    if patched:
        mcp_rendering.install()
    typed = mcp_types.CallToolResult.model_validate(wire)
    dumped = typed.model_dump(mode="json", by_alias=True, exclude_none=True)
    copies = [
        typed,
        typed.model_copy(),
        typed.model_copy(deep=True),
        dumped,
        mcp_types.CallToolResult.model_validate(dumped),
    ]
    readings = {
        (e.mode, e.completeness, e.continuation is None, len(e.problems))
        for e in (resolve_rendering(tool(), copy) for copy in copies)
    }
    assert readings == {
        (resolve_rendering(tool(), wire).mode, "incomplete", True, len(resolve_rendering(tool(), wire).problems))
    }


def test_the_patched_core_form_keeps_the_wire_value_for_the_reader() -> None:
    mcp_rendering.install()
    typed = mcp_types.CallToolResult.model_validate({"content": [], "_rendering": {"complete": "yes", "x": 1}})
    assert typed.model_dump(mode="json", by_alias=True, exclude_none=True)["_rendering"] == {"complete": "yes", "x": 1}
    effective = resolve_rendering(None, typed, core_form=True)
    assert effective.completeness == "not-stated" and len(effective.problems) == 2


def test_a_python_object_that_is_not_json_is_a_problem_not_a_crash() -> None:
    effective = resolve_rendering(tool({"verbatimHint": object()}), result({"complete": object(), "mode": {1, 2}}))
    assert effective.mode == "verbatim" and not effective.complete


def test_deep_nesting_is_a_problem_not_a_crash() -> None:
    nested: Any = "x"
    for _ in range(5000):
        nested = [nested]
    effective = resolve_rendering(None, result({"mode": nested, "complete": True}))
    assert effective.mode == "verbatim"


# --- problems are reported ----------------------------------------------------------------------------------------


def test_every_problem_names_its_carrier_and_member_and_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        effective = resolve_rendering(
            tool({"verbatimHint": "yes", "extra": 1}, argument="year"),
            result({"complete": 1, "Mode": "x"}, continuation={"argument": "year", "token": "t"}),
            original_arguments={"year": 2025},
        )
    described = {str(problem) for problem in effective.problems}
    assert len(described) == len(effective.problems) == 5
    assert any("verbatimHint" in text and "read as true" in text for text in described)
    assert any(".Mode: not a member of this carrier; read as unclean" in text for text in described)
    assert any("argument of the original call" in text for text in described)
    assert len(caplog.records) == 5


def test_an_explicit_null_is_absent_and_no_problem() -> None:
    effective = resolve_rendering(
        tool({"verbatimHint": None, "summarizeOkHint": None}),
        result({"mode": None, "guidance": None, "nullDisplay": None, "complete": True}),
    )
    assert effective.problems == () and effective.complete and effective.mode == "unspecified"


# --- an SDK model is read as its wire JSON; fail-safe marks survive every conversion -----------------------------

_FAIL_SAFE_CASES = {  # carriers as JSON text, as a peer sends them
    "unclean summarizable": '{"mode": "summarizable", "complete": true, "x": 1}',
    "malformed complete": '{"mode": "summarizable", "complete": "yes"}',
    "not stated": '{"mode": "summarizable"}',
    "repeated": '{"mode": "summarizable", "complete": true, "complete": true}',
}


def _conversions(wire: dict[str, Any]) -> dict[str, Any]:
    """The forms one result takes on its way through a host: the SDK's model, its dumps, and the model again."""
    model = mcp_types.CallToolResult.model_validate(wire, by_name=False)
    json_model = mcp_types.CallToolResult.model_validate_json(json.dumps(wire))
    dumped = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        "wire": wire,
        "model": model,
        "model from JSON": json_model,
        "dump by alias": dumped,
        "dump by alias, python mode": model.model_dump(by_alias=True),
        "model again": mcp_types.CallToolResult.model_validate(dumped, by_name=False),
        "copy": model.model_copy(deep=True),
    }


@pytest.mark.parametrize("patched", [False, True])
@pytest.mark.parametrize("carrier", ["_meta", "_rendering"])
@pytest.mark.parametrize("case", sorted(_FAIL_SAFE_CASES))
def test_fail_safe_marks_survive_every_conversion(case: str, carrier: str, patched: bool) -> None:
    directive = _FAIL_SAFE_CASES[case]
    if carrier == "_meta":
        text = f'{{"content": [], "_meta": {{"{EXTENSION_ID}": {directive}}}}}'
    else:
        text = f'{{"content": [], "_rendering": {directive}}}'
    wire: dict[str, Any] = parse_json(text)
    with mcp_rendering.patch.installed() if patched else contextlib.nullcontext():
        forms = _conversions(wire)
        read = resolve_rendering(None, wire, core_form=True)
        assert not read.complete and (read.mode == "verbatim" or case == "not stated")
        for name, form in forms.items():
            effective = resolve_rendering(None, form, core_form=True)
            if carrier == "_rendering" and not patched and name != "wire" and "dump" not in name:
                # The unpatched SDK drops `_rendering` on validation: the core form needs the patch (section 2).
                assert effective.directive is None, name
                continue
            if carrier == "_rendering" and not patched and name != "wire":
                continue  # dumps of a model that never held it
            assert (effective.mode, effective.complete) == (read.mode, False), name
        with pytest.raises(ValueError, match="by_alias=True"):
            resolve_rendering(None, forms["model"].model_dump())  # by Python name: not a wire message


def test_a_python_field_name_is_never_a_member() -> None:
    """Only camelCase wire names are members: a Python name in a wire dict is an unknown member, never a carrier."""
    by_python_name = {"content": [], "rendering": {"mode": "summarizable", "complete": True}}
    assert resolve_rendering(None, by_python_name, core_form=True).directive is None
    model = mcp_types.CallToolResult.model_validate(by_python_name, by_name=False)
    assert resolve_rendering(None, model, core_form=True).directive is None
    hints = {"name": "t", "inputSchema": {}, "annotations": {"summarize_ok_hint": True}}
    assert resolve_rendering(hints, {"content": []}, core_form=True).mode == "unspecified"
    with mcp_rendering.patch.installed():
        model = mcp_types.CallToolResult.model_validate(by_python_name, by_name=False)
        assert resolve_rendering(None, model, core_form=True).directive is None
        tool_model = mcp_types.Tool.model_validate(hints, by_name=False)
        assert resolve_rendering(tool_model, {"content": []}, core_form=True).mode == "unspecified"
