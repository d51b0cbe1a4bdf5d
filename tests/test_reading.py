"""Every wire value of the reading tables (rendering.mdx and result-continuation.mdx, section 4) and its reading."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import json
import logging
import math
import re
import shutil
import subprocess
import sys
import unicodedata
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

import mcp_types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

import mcp_rendering
from mcp_rendering._null_text import blank, forbidden, usable_by_property
from mcp_rendering.builder import verbatim_result
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present, result_is_complete
from mcp_rendering.reading import (
    AS_SENT,
    DEFAULT_NULL_DISPLAY,
    MAX_MESSAGE_DEPTH,
    MAX_MESSAGE_VALUES,
    ContinuationReading,
    EffectiveRendering,
    FollowableContinuation,
    MessageTooLargeError,
    Problem,
    check_finite_numbers,
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
from tests.support.carriers import cursor_schema, cursor_tool
from tests.support.null_text import null_text_pattern


def tool(hints: Any = None, *, argument: Any = "cursor", annotations: Any = None) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if hints is not None:
        meta[EXTENSION_ID] = hints
    if argument is not None:
        meta[CONTINUATION_ID] = {"argument": argument}
    schema: dict[str, Any] = {"type": "object", "properties": {"year": {"type": "integer"}}}
    if isinstance(argument, str):  # declared in the input schema too, as an optional string
        schema["properties"][argument] = {"type": "string"}
    wire: dict[str, Any] = {"name": "ledger", "inputSchema": schema, "_meta": meta}
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


# --- tool hints ---------------------------------------------------------------------------------------------------

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
        # A malformed member makes the carrier unclean, and an unclean carrier reads verbatim.
        *[({"summarizeOkHint": value}, True, False) for value in _MALFORMED],
        ({"verbatimHint": True, "summarizeOkHint": True}, True, True),
        ({"summarizeOkHint": True, "verbatimHint": "no"}, True, False),
        # An unknown member (a later revision's, or a misspelling) is ignored: the defined members decide.
        ({"summarizeOkHint": True, "verbatimhint": True}, False, True),
        ({"summarizeOkHint": True, "VerbatimHint": False}, False, True),
        ({"verbatimhint": True}, False, False),
        ({"verbatimHint": False, "VerbatimHint": True}, False, False),
        ({"summarizeOkHint": True, "verbatim": True}, False, True),
        ({"verbatimHint": True, "futureHint": {"x": [1]}}, True, False),
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
    for wire in (tool(None, argument=None), {"name": "t"}, None, 42):
        effective = resolve_rendering(wire, result())
        assert effective.mode == "unspecified" and effective.completeness is None and effective.complete


@pytest.mark.parametrize(
    "hints",
    [
        {"verbatimHint": "true"},
        {"verbatimHint": False, "summarizeOkHint": 1},
        {"summarizeOkHint": True, "x": 1, "verbatimHint": 0},
    ],
)
def test_an_unclean_tool_carrier_reads_verbatim_not_the_host_default(hints: dict[str, Any]) -> None:
    effective = resolve_rendering(tool(hints), result())
    assert (effective.mode, effective.source) == ("verbatim", "tool._meta")


@pytest.mark.parametrize("hints", [{"summarizeOkHint": True}, {"verbatimHint": False, "summarizeOkHint": True}])
def test_a_present_directive_without_a_usable_mode_reads_verbatim_whatever_the_hints(hints: dict[str, Any]) -> None:
    for directive in ({"complete": True}, {"Mode": "summarizable", "complete": True}, {"mode": 1, "complete": True}):
        effective = resolve_rendering(tool(hints), result(directive))
        assert (effective.mode, effective.source) == ("verbatim", "result._meta")
    assert resolve_rendering(tool(hints), result()).mode == "summarizable"  # no directive: the hints decide


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
        (None, "verbatim"),
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


@pytest.mark.parametrize("hints", [{"verbatimHint": True}, {"summarizeOkHint": True}, {}, 7])
def test_no_directive_from_a_tool_with_a_hints_carrier_reads_not_stated(hints: Any) -> None:
    effective = resolve_rendering(tool(hints), result())
    assert effective.completeness == "not-stated" and not effective.complete
    assert combine_parts([resolve_rendering(tool(hints), result(), call_arguments={})])[1] is False


def test_a_directive_carrier_given_twice_with_null_last_is_unclean_not_absent() -> None:
    text = f'{{"content": [], "_meta": {{"{EXTENSION_ID}": {{"complete": false}}, "{EXTENSION_ID}": null}}}}'
    effective = resolve_rendering(tool({"summarizeOkHint": True}), parse_json(text))
    assert effective.directive is not None and not effective.directive.clean
    assert (effective.mode, effective.completeness) == ("verbatim", "not-stated")


@pytest.mark.parametrize(
    ("guidance", "reads_as"),
    [("Keep the order.", "Keep the order."), ("g" * 1000, "g" * 1000), ("g" * 1001, None), (42, None), (None, None)],
)
def test_each_guidance_value_has_one_reading(guidance: Any, reads_as: str | None) -> None:
    assert resolve_rendering(None, result({"guidance": guidance, "complete": True})).guidance == reads_as


_USABLE_NULL_TEXTS = [
    *("n/a", "N/A", "null", "none", "nil", "not reported", "missing", "— néant —", "(vide)", "n" * 16, "a b"),
    *("-", "—", "\u2013", "--", "-.-", "(-)", "…", "*", "·"),  # a dash, the seed's own convention
    *("無", "なし", "없음", "нет данных", "לא ידוע", "غير متوفر", "कोई नहीं", "ไม่มี", "Ø", "µ", "ß", "O.OO", "a  b"),
]
"""Any text neither blank nor numeric, in any script."""

_UNUSABLE_NULL_TEXTS = [
    *("", " ", "   ", "\t", "\u00a0", "\u2028", "\u205f", "\u3000", " \u00a0 "),  # blank: would hide a null
    *("\u200b", "\u2060", "\u00ad", "\u034f", "\ufe0f", "\U000e0041"),  # invisible
    *("\u2800", "\u2800\u2800", "\u115f", "\u1160", "\u3164", "\uffa0", "\u3164 \u2800"),  # blank-looking letters
    *("0", "0.00", "n/a 0", "-0-", "\u0663", "\u06f3", "\u0967", "\uff10", "\U0001d7ce"),  # digits of any script
    *("\u00b2", "\u00b9", "\u00bd", "\u216b", "\u2460", "\u3007", "\u4e00\u3021"),  # other numeric characters
    *("\u202e-", "n/a\u200b", "\u2066n/a", "\ufeffn/a", "n\u00ada"),  # format characters, bidi controls included
    *("-\n", "-\n-", "n/a\u0007", "\x1b[31m-", "\x7f", "\x85-"),  # control characters
    "n" * 17,
]
"""Blank, invisible, numeric, control or format text."""


@pytest.mark.parametrize("text", _USABLE_NULL_TEXTS)
def test_a_usable_null_text_is_shown(text: str) -> None:
    assert usable_null_text(text)
    assert resolve_rendering(None, result({"nullDisplay": text, "complete": True})).null_display == text


@pytest.mark.parametrize("text", [*_UNUSABLE_NULL_TEXTS, 42, None, b"-", ["-"]])
def test_an_unusable_null_text_reads_as_the_default(text: Any) -> None:
    assert not usable_null_text(text)
    effective = resolve_rendering(None, result({"nullDisplay": text, "complete": True}))
    assert effective.null_display == DEFAULT_NULL_DISPLAY
    if text is not None:  # malformed: the carrier is unclean, so its `complete: true` no longer counts
        assert effective.directive is not None and not effective.directive.clean and not effective.complete
        assert [problem.member for problem in effective.problems] == ["nullDisplay"]


@pytest.mark.parametrize("text", ["\u2800", "\u115f", "\u3164", "\uffa0", "\u00ad", "\u034f", "\ufe0f"])
def test_an_invisible_character_beside_a_visible_one_is_no_blank(text: str) -> None:
    """Blank means nothing to see: an invisible letter beside a visible one is allowed, a format character never."""
    visible = usable_null_text(text + "-")
    assert visible is (unicodedata.category(text) != "Cf")


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


# --- unknown members: ignored for the reading, and reported -------------------------------------------------------


@pytest.mark.parametrize(
    "unknown",
    ["completed", "Complete", "is_complete", "COMPLETE", "Mode", "null_display", "nulldisplay", "continuation", "x"],
)
def test_an_unknown_member_is_ignored_and_reported(unknown: str) -> None:
    for value in (True, False, None, "verbatim", 0, [], {"complete": False}):
        wire = {"mode": "summarizable", "complete": True, unknown: value}
        effective = resolve_rendering(None, result(wire))
        assert (effective.mode, effective.completeness, effective.complete) == ("summarizable", "complete", True)
        assert [(p.member, p.reads_as) for p in effective.problems] == [(unknown, "ignored")]
        assert all(p.ignored for p in effective.problems) and effective.directive is not None
        assert effective.directive.clean


def test_an_unregistered_mode_reads_verbatim_and_is_reported() -> None:
    effective = resolve_rendering(tool({"summarizeOkHint": True}), result({"mode": "tabular", "complete": True}))
    assert (effective.mode, effective.completeness, effective.registered_mode) == ("verbatim", "complete", False)
    assert [(p.member, p.reads_as) for p in effective.problems] == [("mode", "verbatim")]


def test_an_unclean_carrier_still_states_incompleteness_and_keeps_its_texts() -> None:
    effective = resolve_rendering(None, result({"complete": False, "guidance": "g", "nullDisplay": "n/a", "x": 1}))
    assert (effective.completeness, effective.guidance, effective.null_display) == ("incomplete", "g", "n/a")


def test_a_misspelled_complete_is_not_stated() -> None:
    # Only a literal `complete: true` under its own name reads complete.
    for wire in ({"completed": True}, {"Complete": True}, {"complete": "true", "completed": True}):
        effective = resolve_rendering(None, result(wire))
        assert effective.completeness == "not-stated" and not effective.complete


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


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ('{"a": NaN}', "NaN is not a JSON value"),
        ('{"a": [Infinity]}', "Infinity is not a JSON value"),
        ('{"a": -Infinity}', "-Infinity is not a JSON value"),
        ('{"a": 1e999}', "the number 1e999 is too large to read"),
        ('{"a": -1.5e400}', "the number -1.5e400 is too large to read"),
    ],
)
def test_parse_json_refuses_numbers_json_cannot_hold(text: str, refusal: str) -> None:
    with pytest.raises(ValueError, match=re.escape(refusal)):
        parse_json(text)


def test_parse_json_keeps_every_decimal_exact() -> None:
    parsed = parse_json(
        '{"a": [12345678901234567890.12, 0.1000000000000000055511151231257827021181583404541015625, 2.50, 10]}'
    )
    assert [str(number) for number in parsed["a"]] == [
        "12345678901234567890.12",
        "0.1000000000000000055511151231257827021181583404541015625",
        "2.50",
        "10",
    ]
    assert json.loads("12345678901234567890.12") != Decimal("12345678901234567890.12")  # what a float would lose


OK = {"mode": "verbatim", "complete": True}


def test_an_amount_read_by_parse_json_reaches_both_views_and_the_model_unchanged() -> None:
    amount = "12345678901234567890.12"
    text = (
        json.dumps(
            {"content": [], "structuredContent": {"rows": [{"amount": 0, "count": 0}]}, "_meta": {EXTENSION_ID: OK}}
        )
        .replace('"amount": 0', f'"amount": {amount}')
        .replace('"count": 0', '"count": 100000000000000000000001')
    )
    for forwards in ("both", "text", "structured"):
        shown = present(tool({"verbatimHint": True}), parse_json(text), arguments={}, forwards=forwards)
        assert amount in shown.text and amount in shown.markdown
        assert "100000000000000000000001" in shown.text
        model_copy = json.dumps(shown.model_result)
        assert amount in model_copy and "1.2345678901234567e+19" not in model_copy


@pytest.mark.parametrize("literal", ["1e999", "-1e999"])
def test_an_infinite_number_is_refused_alike_from_a_dict_and_from_the_sdk_model(literal: str) -> None:
    """The same bytes, read by a plain parser (a float infinity) or by the SDK's model (whose JSON dump would write
    null), are one refusal, as `parse_json` refuses them: never `inf` for one user and `n/a` for another."""
    text = '{"content": [], "structuredContent": {"rows": [{"amount": LITERAL}]}}'.replace("LITERAL", literal)
    readings = (json.loads(text), mcp_types.CallToolResult.model_validate_json(text))
    for message in readings:
        with pytest.raises(ValueError, match="which JSON cannot hold"):
            present(tool({"verbatimHint": True}), message, arguments={})
    with pytest.raises(ValueError, match="too large to read"):
        parse_json(text)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, Decimal("NaN"), Decimal("-Infinity")])
def test_a_number_json_cannot_hold_is_found_at_any_depth_in_any_container(bad: Any) -> None:
    class Rows(BaseModel):
        rows: list[Any]

    @dataclasses.dataclass
    class FrameworkResult:  # a framework's own result object, as FastMCP's `Client.call_tool()` returns
        content: list[Any]
        structured_content: Any
        is_error: bool = False
        data: Any = None  # the framework's own parse of the result, which `as_wire` does not read
        unset: Any = dataclasses.field(init=False)

    class ForeignModel:  # a model of another pydantic installation: dumped, not iterated
        def model_dump(self, **options: Any) -> Any:
            return Rows(rows=[bad]).model_dump(**options)

    class LooksLikeAModel:  # a dump that takes no options: `as_wire` refuses it, so nothing of it is read here
        def model_dump(self) -> Any:
            return {"rows": [bad]}

    @dataclasses.dataclass
    class Cell:  # a plain dataclass inside a model: pydantic's dump writes every field
        value: Any

    @dataclasses.dataclass
    class DumpedResult:  # a dataclass that is also a model: `as_wire` reads its dump, not its fields
        payload: Any

        def model_dump(self, **options: Any) -> Any:
            return {"content": [], "structuredContent": {"x": self.payload}}

    holding_itself = FrameworkResult([], {"a": 1.0})
    holding_itself.content.append(holding_itself)

    holders: list[Any] = [
        {"content": [], "structuredContent": {"rows": [{"a": 1}, {"b": [True, None, "x", bad]}]}},
        [{"a": ("x", bad)}],
        MappingProxyType({"a": bad}),
        Rows(rows=[{"a": bad}]),
        FrameworkResult([Rows(rows=[bad])], None),
        FrameworkResult([], {"a": bad}),
        ForeignModel(),
        Rows(rows=[{"a": Cell(bad)}]),
        DumpedResult(bad),
        Rows(rows=[{bad}]),
        bad,
    ]
    for holder in holders:
        with pytest.raises(ValueError, match="which JSON cannot hold"):
            check_finite_numbers(holder)
    finite: list[Any] = [
        {"a": [1, 2.5, Decimal("1.10"), True, None, "nan", {"b": ("inf",)}]},
        Rows(rows=[1.0]),
        FrameworkResult([Rows(rows=[1.0])], {"a": 2.5}),
        FrameworkResult([], None, data={"a": bad}),
        holding_itself,
        LooksLikeAModel(),
    ]
    for holder in finite:
        check_finite_numbers(holder)


def _ledger_wire() -> dict[str, Any]:
    rows = [Row(id=f"r{n}", label=f"Account {n}", values=(n, n * 1.5, None)) for n in range(3)]
    document = Document(
        title="Ledger", sections=(Section(id="s", title="Cash", columns=("a", "b", "c"), rows=tuple(rows)),)
    )
    return verbatim_result(document).model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize(
    "place",
    ["a cell", "a row's level", "the page", "another structured member", "_meta", "a content block", "the top"],
)
def test_a_number_json_cannot_hold_beside_or_inside_a_document_is_refused(place: str, bad: float) -> None:
    """`present()` checks a dict's numbers after reading its records, and does not walk a document they validated
    a second time: a number JSON cannot hold is refused wherever it is, inside the document (which then does not
    validate) or anywhere beside it."""
    wire = _ledger_wire()
    structured = wire["structuredContent"]
    if place == "a cell":
        structured["document"]["sections"][0]["rows"][1]["values"][2] = bad
    elif place == "a row's level":
        structured["document"]["sections"][0]["rows"][0]["level"] = bad
    elif place == "the page":
        structured["page"] = {**structured.get("page", {}), "returned": bad}
    elif place == "another structured member":
        structured["totals"] = [{"sum": bad}]
    elif place == "_meta":
        wire["_meta"] = {"vendor/x": {"weight": bad}}
    elif place == "a content block":
        wire["content"].append({"type": "chart", "points": [1.0, bad]})
    else:
        wire["extra"] = bad
    present(tool({"verbatimHint": True}), _ledger_wire(), arguments={})  # the same result without it is read
    with pytest.raises(ValueError, match="which JSON cannot hold"):
        present(tool({"verbatimHint": True}), wire, arguments={})


def test_a_part_already_checked_is_not_walked_again() -> None:
    checked = {"cells": [math.nan]}
    check_finite_numbers({"document": checked, "n": 1.5}, checked=checked)
    with pytest.raises(ValueError, match="which JSON cannot hold"):
        check_finite_numbers({"document": checked, "n": 1.5})
    with pytest.raises(ValueError, match="which JSON cannot hold"):
        check_finite_numbers({"document": checked, "n": math.inf}, checked=checked)


def _nested(depth: int, innermost: Any) -> Any:
    """`innermost` inside `depth` lists: at depth `depth`, the message itself at depth 0."""
    value = innermost
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("innermost", [1, [], {}])
def test_a_message_nested_past_the_bound_is_refused_and_one_at_it_is_read(innermost: Any) -> None:
    check_finite_numbers(_nested(MAX_MESSAGE_DEPTH, innermost))
    with pytest.raises(ValueError, match=f"nested more than {MAX_MESSAGE_DEPTH} levels deep, or holds itself"):
        check_finite_numbers(_nested(MAX_MESSAGE_DEPTH + 1, innermost))


def test_a_message_that_holds_itself_is_refused_in_any_container() -> None:
    """No JSON text gives it, and a reader walking it would never end."""

    class Rows(BaseModel):
        rows: list[Any]

    looped: dict[str, Any] = {"a": 1}
    looped["self"] = looped
    listed: list[Any] = [1]
    listed.append(listed)
    modelled = Rows(rows=[])
    modelled.rows.append(modelled)
    tupled: list[Any] = []
    tupled.append((tupled,))
    for message in (looped, listed, modelled, tupled, {"content": [], "structuredContent": {"rows": [looped]}}):
        with pytest.raises(ValueError, match="or holds itself"):
            check_finite_numbers(message)


@pytest.mark.timeout(30)
def test_a_message_past_the_bound_written_out_is_refused_within_it() -> None:
    """Shared at every level, or holding itself in more than one place, a value built in memory would be endless
    written out: it is refused once the reading passes `MAX_MESSAGE_VALUES`, before it holds much more."""
    doubled: Any = {"a": 1}
    for _ in range(40):
        doubled = [doubled, doubled]
    twice: dict[str, Any] = {}
    twice["a"] = twice
    twice["b"] = twice
    wide: list[Any] = list(range(1_000))
    wide.append(wide)
    shared_wide = {"rows": [[0] * 10_000] * 100_000}  # under the bound one level up, a billion values the next
    for message in ({"rows": doubled}, shared_wide):
        with pytest.raises(MessageTooLargeError, match=f"more than {MAX_MESSAGE_VALUES} values"):
            check_finite_numbers(message)
    for message in ({"structuredContent": twice}, wide):  # the same walk, under a bound a reader has partly used
        with pytest.raises(MessageTooLargeError, match="or holds itself"):
            check_finite_numbers(message, max_values=100_000)
    assert check_finite_numbers([[1, 2], {"a": "b"}]) == 6
    with pytest.raises(MessageTooLargeError):
        check_finite_numbers([[1, 2], {"a": "b"}], max_values=5)


def test_a_number_json_cannot_hold_in_a_value_held_in_several_places_is_found() -> None:
    shared = {"amount": 1.5}
    check_finite_numbers({"rows": [shared, shared, [shared]]})
    bad = {"amount": math.nan}
    with pytest.raises(ValueError, match="which JSON cannot hold"):
        check_finite_numbers({"rows": [shared, {"inner": bad}, bad]})


class _TaggedText(str):
    """A string subclass that also looks like a model: JSON, and a model's dump, write it as its text."""

    def model_dump(self, **options: Any) -> dict[str, Any]:
        return {"score": math.nan}


class _Code(enum.IntEnum):
    OK = 0


class _TaggedBytes(bytes):
    def model_dump(self, **options: Any) -> dict[str, Any]:
        return {"score": math.nan}


@pytest.mark.parametrize("value", [_TaggedText("Cash"), _TaggedBytes(b"Cash"), _Code.OK])
def test_a_string_bytes_or_integer_of_a_subclass_is_read_as_its_value(value: Any) -> None:
    """Inside a result it is written as its value, so that is what is checked, on every path alike."""
    check_finite_numbers({"structuredContent": {"rows": [{"label": value}]}})
    check_finite_numbers(
        mcp_types.CallToolResult.model_validate({"content": [], "structuredContent": {"label": value}})
    )


_PLAIN_PARTS = (  # a CallToolResult's own data, with repeated names at every depth: never a carrier
    '"content": [{"type": "text", "text": "t", "_meta": {"a": 1}, "_meta": {"b": 2},'
    ' "annotations": {"priority": 1, "priority": 0.5}}],'
    ' "structuredContent": {"annotations": {"x": 1, "x": 2}, "_rendering": 5, "_rendering": 6,'
    ' "_meta": {"k": 1}, "_meta": {"k": 2}, "rows": [{"_meta": 1, "_meta": {"io.modelcontextprotocol/rendering": 1}}],'
    ' "tools": [{"_meta": {"x": 1}, "_meta": {"x": 2}}]}'
)


def _unwrapped(value: Any) -> Any:
    """The value with every object as a plain dict, to compare exactly with `json.loads`."""
    if isinstance(value, dict):
        assert type(value) is dict, value
        return {key: _unwrapped(member) for key, member in cast("dict[str, Any]", value).items()}
    if isinstance(value, list):
        return [_unwrapped(item) for item in cast("list[Any]", value)]
    return value


@pytest.mark.parametrize("wrap", ["alone", "response"])
def test_parse_json_leaves_content_and_structured_content_as_any_parser_gives_them(wrap: str) -> None:
    """Repeated names in content blocks and `structuredContent` (a `_meta`, an `annotations`, a `_rendering` among
    them) are the tool's data: they come out exactly as a plain JSON parser gives them, with no mark."""
    text = "{" + _PLAIN_PARTS + "}"
    if wrap == "response":
        text = '{"jsonrpc": "2.0", "id": 1, "result": ' + text + "}"
    parsed, plain = parse_json(text), json.loads(text)
    found = parsed["result"] if wrap == "response" else parsed
    expected = plain["result"] if wrap == "response" else plain
    assert _unwrapped(found["content"]) == expected["content"]
    assert _unwrapped(found["structuredContent"]) == expected["structuredContent"]
    assert found == expected
    effective = resolve_rendering(tool({"summarizeOkHint": True}), found)
    assert effective.directive is None and effective.problems == ()


_RESULT_REPEATS = {  # each carrier position of a CallToolResult, repeated
    "_meta": f'"_meta": {{"{EXTENSION_ID}": {{"complete": true}}}}, '
    f'"_meta": {{"{EXTENSION_ID}": {{"complete": true}}}}',
    "carrier key": f'"_meta": {{"{EXTENSION_ID}": {{"complete": true}}, "{EXTENSION_ID}": {{"complete": true}}}}',
    "carrier member": f'"_meta": {{"{EXTENSION_ID}": {{"complete": true, "complete": true}}}}',
    "_rendering": '"_rendering": {"complete": true}, "_rendering": {"complete": true}',
    "_rendering member": '"_rendering": {"complete": true, "complete": true}',
}


@pytest.mark.parametrize("wrap", ["alone", "response"])
@pytest.mark.parametrize("case", sorted(_RESULT_REPEATS))
def test_parse_json_marks_each_carrier_position_of_a_result(case: str, wrap: str) -> None:
    text = '{"content": [], ' + _RESULT_REPEATS[case] + "}"
    if wrap == "response":
        text = '{"jsonrpc": "2.0", "id": 1, "result": ' + text + "}"
    parsed = parse_json(text)
    found = parsed["result"] if wrap == "response" else parsed
    the_tool = tool({"summarizeOkHint": True})
    effective = resolve_rendering(the_tool, found, core_form=True)
    assert effective.mode == "verbatim" and not effective.complete
    dumped = mcp_types.CallToolResult.model_validate(found, by_name=False).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    if not case.startswith("_rendering"):  # the unpatched SDK drops `_rendering`
        assert not resolve_rendering(the_tool, dumped, core_form=True).complete


_TOOL_REPEATS = {  # each carrier position of a Tool, repeated
    "_meta": f'"_meta": {{"{EXTENSION_ID}": {{"summarizeOkHint": true}}}}, "_meta": {{"{EXTENSION_ID}": '
    '{"summarizeOkHint": true}}',
    "carrier key": f'"_meta": {{"{EXTENSION_ID}": {{"summarizeOkHint": true}}, "{EXTENSION_ID}": '
    '{"summarizeOkHint": true}}',
    "carrier member": f'"_meta": {{"{EXTENSION_ID}": {{"summarizeOkHint": true, "summarizeOkHint": true}}}}',
    "annotations": '"annotations": {"summarizeOkHint": true}, "annotations": {"summarizeOkHint": true}',
    "annotations member": '"annotations": {"summarizeOkHint": true, "summarizeOkHint": true}',
}


@pytest.mark.parametrize("wrap", ["alone", "list", "response"])
@pytest.mark.parametrize("case", sorted(_TOOL_REPEATS))
def test_parse_json_marks_each_carrier_position_of_a_tool(case: str, wrap: str) -> None:
    text = '{"name": "t", "inputSchema": {"type": "object"}, ' + _TOOL_REPEATS[case] + "}"
    if wrap != "alone":
        text = '{"tools": [' + text + "]}"
    if wrap == "response":
        text = '{"jsonrpc": "2.0", "id": 1, "result": ' + text + "}"
    parsed = parse_json(text)
    found = parsed["result"]["tools"][0] if wrap == "response" else parsed["tools"][0] if wrap == "list" else parsed
    hints = resolve_rendering(found, None, core_form=True).hints
    assert (hints.verbatim_hint, hints.summarize_ok_hint) == (True, False)


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
    if is_error and mode == "summarizable" and (hints or {}).get("verbatimHint"):
        expected = "verbatim"  # the one row for errors: a verbatim tool's error stays verbatim
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
    assert (effective.mode, effective.source, effective.completeness) == ("verbatim", "result._rendering", "incomplete")
    assert effective.problems == ()  # the annotations object is open: readOnlyHint is no problem there
    effective = resolve_rendering(core_tool, {"content": []}, core_form=True)
    assert (effective.mode, effective.source, effective.completeness) == ("verbatim", "tool.annotations", "not-stated")
    both = result({"mode": "verbatim", "complete": True}, core={"mode": "summarizable", "complete": True})
    assert resolve_rendering(None, both, core_form=True).mode == "verbatim"  # the carrier, never a merge


# --- continuation -------------------------------------------------------------------------------------------------

_GOOD = {"argument": "cursor", "token": "v1.k1.abc"}
_NOW = datetime(2026, 12, 1, 10, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("the_tool", "continuation", "original", "usable"),
    [
        (tool(), _GOOD, {"year": 2025}, True),
        (tool(), {**_GOOD, "expiresAt": "2026-12-02T10:15:00Z"}, {}, True),
        (tool(), {**_GOOD, "expiresAt": "2026-12-02T10:15:00.123456789Z"}, {}, True),
        (tool(), {**_GOOD, "expiresAt": "2026-12-31T23:59:60Z"}, {}, False),  # the type admits no leap second
        (tool(), {**_GOOD, "expiresAt": "tomorrow"}, {}, False),
        (tool(), {**_GOOD, "expiresAt": "2026-13-45T99:99:99Z"}, {}, False),
        (tool(), {**_GOOD, "expiresAt": "2026-02-30T10:00:00Z"}, {}, False),
        (tool(), {**_GOOD, "expiresAt": "2026-12-02T10:15:61Z"}, {}, False),
        (tool(), {**_GOOD, "expiresAt": "2026-12-02T24:00:00Z"}, {}, False),
        (tool(), {**_GOOD, "expiresAt": "2026-12-02T10:15:00+00:00"}, {}, False),  # the type says Z
        (tool(), {**_GOOD, "expiresAt": "2026-12-01T09:59:59Z"}, {}, False),  # already past
        (tool(), {**_GOOD, "expiresAt": "2026-12-01T10:00:00Z"}, {}, False),  # expires now
        (tool(), {**_GOOD, "expiresAt": 1796000900}, {}, False),
        (tool(), 42, {}, False),
        (tool(), "v1.k1.abc", {}, False),
        (tool(), {"argument": "cursor"}, {}, False),
        (tool(), {"token": "v1.k1.abc"}, {}, False),
        (tool(), {**_GOOD, "token": "a b"}, {}, False),
        (tool(), {**_GOOD, "part": 2}, {}, True),  # an unknown member is ignored
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
        the_tool,
        result({"mode": "verbatim", "complete": True}, continuation=continuation),
        original_arguments=original,
        now=_NOW,
    )
    assert (effective.continuation is not None) is usable
    # Present, so partial either way; rendering's own reading is the directive's, whatever the continuation says.
    assert effective.continuation_partial and not effective.complete and effective.completeness == "complete"
    if not usable:
        assert effective.problems


def test_no_continuation_carrier_leaves_the_directive_to_decide() -> None:
    assert read_continuation(tool(), result()).present is False
    assert resolve_rendering(tool(), result({"complete": True}), call_arguments={"year": 2025}).complete


def test_a_continuation_is_kept_exactly() -> None:
    reading = read_continuation(tool(), result(continuation=_GOOD), original_arguments={})
    assert reading.usable is not None and reading.usable.model_dump(by_alias=True, exclude_none=True) == _GOOD


def test_a_continuation_read_without_the_original_arguments_is_unusable() -> None:
    # Whether it names an argument of the original call cannot be checked, so the check does not pass.
    reading = read_continuation(tool(), result(continuation=_GOOD))
    assert reading.present and reading.usable is None
    assert [problem.detail for problem in reading.problems] == ["the original call's arguments are not known"]
    effective = resolve_rendering(tool(), result(continuation=_GOOD))
    assert effective.continuation is None and effective.continuation_partial and not effective.complete


def test_a_continuation_without_a_directive_still_makes_the_result_partial() -> None:
    assert not resolve_rendering(tool(), result(continuation=_GOOD)).complete


_CURSOR = {"type": "string"}


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ({"type": "object"}, "not a property"),
        ({"type": "object", "properties": {"page": _CURSOR}}, "not a property"),
        ({"type": "object", "properties": {"cursor": {"type": "integer"}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": {"type": ["string", "integer"]}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": {"type": []}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": {"anyOf": [_CURSOR, {"type": "integer"}]}}}, "not of type"),
        ({"type": "object", "properties": {"cursor": {"anyOf": [_CURSOR, {}]}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": {"anyOf": [{"type": "null"}]}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": {"anyOf": []}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": {"anyOf": [{"anyOf": [_CURSOR]}]}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": {}}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": True}}, "not of type string"),
        ({"type": "object", "properties": {"cursor": _CURSOR}, "required": ["cursor"]}, "is required"),
        ({"type": "object", "properties": {"cursor": _CURSOR}, "required": "cursor"}, "is required"),
        (None, "not a property"),
    ],
)
def test_a_continuation_argument_the_input_schema_does_not_declare_optional_string_is_malformed(
    schema: Any, why: str
) -> None:
    the_tool = tool()
    if schema is None:
        del the_tool["inputSchema"]
    else:
        the_tool["inputSchema"] = schema
    for form in (the_tool, mcp_types.Tool.model_validate(the_tool) if schema is not None else the_tool):
        effective = resolve_rendering(form, result(continuation=_GOOD), original_arguments={"year": 2025})
        # Read as no continuation argument: the result is partial, with no way to fetch the rest.
        assert effective.continuation_reading.present and effective.continuation is None
        assert effective.continuation_partial and not effective.complete
        assert any(p.carrier.startswith("Tool._meta") and why in p.detail for p in effective.problems)


@pytest.mark.parametrize(
    "cursor",
    [
        _CURSOR,
        {"type": "string", "maxLength": 4096},
        {"type": ["string", "null"]},
        {"anyOf": [_CURSOR, {"type": "null"}], "default": None},  # how pydantic writes `cursor: str | None = None`
    ],
)
def test_a_continuation_argument_declared_optional_string_is_followed_from_a_model_too(cursor: Any) -> None:
    wire = tool()
    wire["inputSchema"] = {"type": "object", "properties": {"cursor": cursor}, "required": ["year"]}
    for form in (wire, mcp_types.Tool.model_validate(wire)):
        assert resolve_rendering(form, result(continuation=_GOOD), original_arguments={}).continuation is not None


# --- continuation problems (result-continuation.mdx, section 4): each exact, logged once --------------------------

_RESULT = f"CallToolResult._meta[{CONTINUATION_ID!r}]"
_TOOL = f"Tool._meta[{CONTINUATION_ID!r}]"


def _continued(continuation: Any) -> dict[str, Any]:
    """A result that carries `continuation` and nothing else."""
    return {"content": [], "_meta": {CONTINUATION_ID: continuation}}


def unusable(member: str | None, detail: str) -> Problem:
    return Problem(_RESULT, member, detail, "unusable")


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger="mcp_rendering")
    return caplog


def _messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def _each_logged_once(reading: ContinuationReading) -> list[str]:
    return [f"malformed {problem}" for problem in reading.problems]


# --- why a continuation is unusable: one problem each, logged once ------------------------------------------------


@pytest.mark.parametrize(
    ("continuation", "arguments", "problem"),
    [
        ({**_GOOD, "expiresAt": None}, {}, unusable("expiresAt", "null names no time")),
        # Of the type's pattern, but no time: February has no 30th.
        (
            {**_GOOD, "expiresAt": "2026-02-30T00:00:00Z"},
            {},
            unusable("expiresAt", "'2026-02-30T00:00:00Z' names no real time"),
        ),
        ({**_GOOD, "expiresAt": "2026-12-01T10:00:00Z"}, {}, unusable("expiresAt", "expired at 2026-12-01T10:00:00Z")),
        ({"argument": "page", "token": "t"}, {}, unusable("argument", "'page' is not the tool's declared 'cursor'")),
        (_GOOD, None, unusable("argument", "the original call's arguments are not known")),
        (_GOOD, {"cursor": "first"}, unusable("argument", "'cursor' is an argument of the original call")),
    ],
    ids=["null-expiry", "no-real-time", "expired", "other-argument", "arguments-unknown", "argument-of-the-call"],
)
def test_an_unusable_continuation_reports_exactly_why(
    continuation: dict[str, Any], arguments: dict[str, Any] | None, problem: Problem, logged: pytest.LogCaptureFixture
) -> None:
    reading = read_continuation(cursor_tool(), _continued(continuation), original_arguments=arguments, now=_NOW)
    assert reading == ContinuationReading(True, None, (problem,))
    assert _messages(logged) == [f"malformed {problem}"]


def test_a_continuation_checked_against_no_tool_definition_says_the_definition_is_missing() -> None:
    # Without the definition the declared argument is unknown, not absent: the problem says so, not "None".
    problem = unusable("argument", "the tool's definition, which declares the argument, was not given")
    for undefined in (None, {"name": "ledger"}):
        reading = read_continuation(undefined, _continued(_GOOD), original_arguments={}, now=_NOW)
        assert reading == ContinuationReading(True, None, (problem,))


def test_a_malformed_continuation_member_is_reported_on_the_result_carrier(logged: pytest.LogCaptureFixture) -> None:
    reading = read_continuation(cursor_tool(), _continued({**_GOOD, "token": 5}), original_arguments={}, now=_NOW)
    assert reading.present and reading.usable is None
    assert [(p.carrier, p.member, p.reads_as) for p in reading.problems] == [(_RESULT, "token", "unusable")]
    assert _messages(logged) == _each_logged_once(reading)


# --- the expiry, by the current time unless told ------------------------------------------------------------------


@pytest.mark.parametrize(("expires_at", "followed"), [("9999-12-31T23:59:59Z", True), ("2000-01-01T00:00:00Z", False)])
def test_without_now_the_expiry_is_judged_by_the_current_utc_time(expires_at: str, followed: bool) -> None:
    reading = read_continuation(cursor_tool(), _continued({**_GOOD, "expiresAt": expires_at}), original_arguments={})
    if followed:
        assert reading == ContinuationReading(
            True, FollowableContinuation.model_validate({**_GOOD, "expiresAt": expires_at})
        )
    else:
        assert reading == ContinuationReading(True, None, (unusable("expiresAt", f"expired at {expires_at}"),))


def test_a_time_without_a_zone_is_refused_with_the_way_to_give_one() -> None:
    with pytest.raises(
        ValueError, match=r"^now must be a timezone-aware datetime, such as datetime\.now\(timezone\.utc\)$"
    ):
        read_continuation(cursor_tool(), _continued(_GOOD), original_arguments={}, now=datetime(2026, 12, 1, 10, 0, 0))


def test_a_result_dumped_with_python_field_names_is_refused() -> None:
    # Read as wire JSON its `meta` would be no carrier, and a partial result would read as having no continuation.
    with pytest.raises(ValueError, match="Python field names meta"):
        read_continuation(cursor_tool(), {"content": [], "meta": {CONTINUATION_ID: _GOOD}}, original_arguments={})


# --- the tool's declaration ---------------------------------------------------------------------------------------


def test_a_declaration_without_an_argument_is_reported_missing_once(logged: pytest.LogCaptureFixture) -> None:
    reading = read_continuation(cursor_tool(declaration={}), _continued(_GOOD), original_arguments={}, now=_NOW)
    assert reading == ContinuationReading(
        True,
        None,
        (
            Problem(_TOOL, "argument", "missing", "no continuation argument"),
            unusable("argument", "the tool declares no continuation argument, so 'cursor' cannot be followed"),
        ),
    )
    assert _messages(logged) == _each_logged_once(reading)


@pytest.mark.parametrize(
    ("declaration", "member", "reads_as"),
    [("cursor", None, "argument absent"), ({"argument": 5}, "argument", "absent")],
)
def test_a_malformed_declaration_reads_as_declaring_no_argument(
    declaration: Any, member: str | None, reads_as: str
) -> None:
    reading = read_continuation(
        cursor_tool(declaration=declaration), _continued(_GOOD), original_arguments={}, now=_NOW
    )
    assert reading.present and reading.usable is None
    assert [(p.carrier, p.member, p.reads_as) for p in reading.problems] == [
        (_TOOL, member, reads_as),
        (_RESULT, "argument", "unusable"),
    ]
    assert reading.problems[1].detail == "the tool declares no continuation argument, so 'cursor' cannot be followed"


# --- a carrier the message gave twice -----------------------------------------------------------------------------


def test_a_result_whose_meta_came_twice_has_a_continuation_in_doubt(logged: pytest.LogCaptureFixture) -> None:
    # The `_meta` kept is not an object, so no carrier is left to mark: the parser's record alone tells.
    text = f'{{"content": [], "_meta": {{{json.dumps(CONTINUATION_ID)}: {json.dumps(_GOOD)}}}, "_meta": "x"}}'
    reading = read_continuation(cursor_tool(), parse_json(text), original_arguments={}, now=_NOW)
    problem = Problem(_RESULT, None, "_meta given more than once in the message", "unclean")
    assert reading == ContinuationReading(True, None, (problem,))
    assert _messages(logged) == _each_logged_once(reading)


def test_a_tool_whose_meta_came_twice_declares_no_followable_argument() -> None:
    wire = json.dumps(cursor_tool())
    text = wire[:-1] + ', "_meta": "x"}'
    reading = read_continuation(parse_json(text), _continued(_GOOD), original_arguments={}, now=_NOW)
    assert reading == ContinuationReading(
        True,
        None,
        (
            Problem(_TOOL, None, "_meta given more than once in the message", "unclean"),
            unusable("argument", "the tool declares no continuation argument, so 'cursor' cannot be followed"),
        ),
    )


def _key_twice(message: dict[str, Any], carrier: dict[str, Any]) -> Any:
    """`message` parsed with a `_meta` that gives the continuation key twice, and the carrier then put back as a
    plain copy (as a host that rebuilds it would), its own mark lost: the record of `_meta` still tells."""
    key = json.dumps(CONTINUATION_ID)
    meta = f'"_meta": {{{key}: {json.dumps(carrier)}, {key}: {json.dumps(carrier)}}}'
    parsed = parse_json(f"{json.dumps(message)[:-1]}, {meta}}}")
    parsed["_meta"][CONTINUATION_ID] = dict(carrier)
    return parsed


def test_a_continuation_key_given_twice_in_meta_reads_unclean() -> None:
    reading = read_continuation(cursor_tool(), _key_twice({"content": []}, _GOOD), original_arguments={}, now=_NOW)
    problem = Problem(_RESULT, None, "carrier key given more than once in _meta", "unclean")
    assert reading == ContinuationReading(True, None, (problem,))


def test_a_declaration_key_given_twice_in_meta_declares_no_followable_argument() -> None:
    twice = _key_twice({"name": "ledger", "inputSchema": cursor_schema()}, {"argument": "cursor"})
    reading = read_continuation(twice, _continued(_GOOD), original_arguments={}, now=_NOW)
    assert reading == ContinuationReading(
        True,
        None,
        (
            Problem(_TOOL, None, "carrier key given more than once in _meta", "unclean"),
            unusable("argument", "the tool declares no continuation argument, so 'cursor' cannot be followed"),
        ),
    )


# --- a continuation that does not say what to call ----------------------------------------------------------------


_MISSING = unusable(None, "argument or token missing")


@pytest.mark.parametrize(
    "continuation",
    [{"token": "t"}, {"argument": "cursor"}, {"argument": None, "token": "t"}, {}],
    ids=["no-argument", "no-token", "null-argument", "empty"],
)
def test_a_clean_continuation_without_argument_or_token_is_unusable_and_says_so(
    continuation: dict[str, Any], logged: pytest.LogCaptureFixture
) -> None:
    # Nothing in it is malformed, so no other problem explains why it cannot be followed: this one must.
    reading = read_continuation(cursor_tool(), _continued(continuation), original_arguments={}, now=_NOW)
    assert reading == ContinuationReading(True, None, (_MISSING,))
    assert _messages(logged) == [f"malformed {_MISSING}"]


@pytest.mark.parametrize(
    ("declaration", "continuation", "other"),
    [
        # An unknown member changes nothing, the report of what is missing included.
        (None, {"token": "t", "later": 1}, Problem(_RESULT, "later", "not a member of this carrier", "ignored")),
        # The tool's problem is its own: the result's missing token is still a reason of the result's.
        (
            {"argument": 5},
            {"argument": "cursor"},
            Problem(_TOOL, "argument", "Input should be a valid string (got 5)", "absent"),
        ),
        (None, {"token": "t", "expiresAt": None}, unusable("expiresAt", "null names no time")),
    ],
    ids=["beside-an-unknown-member", "beside-a-malformed-declaration", "beside-a-null-expiry"],
)
def test_a_missing_argument_or_token_is_said_beside_other_problems(
    declaration: Any, continuation: dict[str, Any], other: Problem
) -> None:
    reading = read_continuation(
        cursor_tool(declaration=declaration), _continued(continuation), original_arguments={}, now=_NOW
    )
    assert reading == ContinuationReading(True, None, (other, _MISSING))


# --- several parts ------------------------------------------------------------------------------------------------


def _part(
    directive: Any,
    continuation: Any = None,
    hints: Any = None,
    token: str | None = None,
    *,
    year: Any = 2025,
    name: str = "ledger",
) -> EffectiveRendering:
    call = {"year": year} if token is None else {"year": year, "cursor": token}
    return resolve_rendering(
        {**tool(hints), "name": name},
        result(directive, continuation=continuation),
        original_arguments={"year": year},
        call_arguments=call,
    )


def _chain(*directives: Any) -> list[EffectiveRendering]:
    """Parts that chain: each but the last carries a continuation, and each later one was called with it."""
    parts: list[EffectiveRendering] = []
    for index, directive in enumerate(directives):
        last = index == len(directives) - 1
        continuation = None if last else {"argument": "cursor", "token": f"t{index}"}
        parts.append(_part(directive, continuation, token=None if index == 0 else f"t{index - 1}"))
    return parts


def test_parts_combine_to_the_mode_that_shows_more_and_complete_only_at_the_end() -> None:
    first, last = _chain({"mode": "verbatim", "complete": False}, {"complete": True})
    assert combine_parts([first, last]) == ("verbatim", True)
    assert combine_parts([first]) == ("verbatim", False)
    assert combine_parts([first, last], all_fetched=False) == ("verbatim", False)
    assert combine_parts([first, last], all_fetched=True) == ("verbatim", True)
    assert combine_parts(_chain({"mode": "summarizable", "complete": True})) == ("summarizable", True)
    assert combine_parts(
        _chain({"mode": "summarizable", "complete": False}, {"mode": "summarizable", "complete": True})
    ) == ("summarizable", True)
    # A part whose directive states no mode reads verbatim, and so does the whole.
    assert combine_parts(_chain({"mode": "summarizable", "complete": False}, {"complete": True})) == ("verbatim", True)
    assert combine_parts(
        _chain({"mode": "summarizable", "complete": False}, {"mode": "tabular", "complete": True})
    ) == (
        "verbatim",
        True,
    )
    assert combine_parts([]) == ("unspecified", False)


def test_a_later_part_read_alone_does_not_state_completeness() -> None:
    last = _part({"mode": "verbatim", "complete": True}, token="t0")
    assert last.later_part and last.continuation_partial and not last.complete
    assert last.completeness == "complete"  # rendering's own reading: the directive's
    assert combine_parts([last]) == ("verbatim", False)
    assert combine_parts([last], all_fetched=True) == ("verbatim", False)
    # Told nothing of the call, the reader cannot tell a later part from the first: never complete.
    untold = resolve_rendering(tool(), result({"complete": True}))
    assert untold.continuation_partial and untold.completeness == "complete" and not untold.complete
    assert combine_parts([untold]) == ("verbatim", False)
    # Without a declared continuation argument no result is a later part, and the directive decides.
    plain = resolve_rendering(tool(argument=None), result({"complete": True}))
    assert plain.completeness == "complete" and not plain.continuation_partial and plain.complete
    # Told the call, the first part reads as its directive says.
    first = resolve_rendering(tool(), result({"complete": True}), call_arguments={"year": 2025})
    assert first.completeness == "complete" and first.complete


def test_parts_that_do_not_chain_never_combine_as_complete() -> None:
    first, second, third = _chain({"complete": False}, {"complete": False}, {"complete": True})
    assert combine_parts([first, second, third]) == ("verbatim", True)
    assert combine_parts([first, third])[1] is False  # the middle part skipped
    assert combine_parts([second, third])[1] is False  # not from the original call
    assert combine_parts([first, second, _part({"complete": True}, token="another")])[1] is False
    unusable = _part({"complete": False}, {"argument": "cursor", "token": "t0", "expiresAt": 1})
    assert combine_parts([unusable, second, third])[1] is False
    assert combine_parts([first, second, _part({"complete": False}, token="t1")])[1] is False
    assert combine_parts([first, second, _part(None, token="t1")])[1] is False  # no directive on the last


@pytest.mark.parametrize(
    "changed",
    [
        {"name": "journal"},  # another tool, with the same continuation argument
        {"year": 2024},  # the same tool, another query
        {"year": True},  # the JSON value differs, although Python's 1 == True
    ],
)
def test_parts_of_another_tool_or_other_arguments_never_combine_as_complete(changed: dict[str, Any]) -> None:
    first, second = _chain({"complete": False}, {"complete": True})
    assert combine_parts([first, second]) == ("verbatim", True)
    other = _part({"complete": True}, token="t0", year=changed.get("year", 2025), name=changed.get("name", "ledger"))
    assert other.later_part and other.call_token == second.call_token
    assert combine_parts([first, other]) == ("verbatim", False)


def _two_parts(first_arguments: dict[str, Any], second_arguments: dict[str, Any]) -> list[EffectiveRendering]:
    first = resolve_rendering(
        tool(),
        result({"complete": False}, continuation={"argument": "cursor", "token": "t0"}),
        call_arguments=first_arguments,
    )
    second = resolve_rendering(tool(), result({"complete": True}), call_arguments={"cursor": "t0", **second_arguments})
    return [first, second]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"year": 2025, "company": "acme"}, {"company": "acme", "year": 2025}),
        ({"company": "acme", "year": 2025}, {"year": 2025, "company": "acme"}),
    ],
)
def test_parts_with_the_same_arguments_in_another_order_combine(first: dict[str, Any], second: dict[str, Any]) -> None:
    assert combine_parts(_two_parts(first, second)) == ("verbatim", True)


def test_parts_with_the_same_value_json_cannot_write_combine_and_a_value_it_cannot_compare_never() -> None:
    # A caller's Python value that is no JSON (a Decimal) is compared by its repr: the same value chains.
    assert combine_parts(_two_parts({"year": Decimal("2025")}, {"year": Decimal("2025")})) == ("verbatim", True)
    assert combine_parts(_two_parts({"year": Decimal("2025")}, {"year": Decimal("2024")})) == ("verbatim", False)
    circular: dict[str, Any] = {}
    circular["self"] = circular
    assert combine_parts(_two_parts({"year": circular}, {"year": circular})) == ("verbatim", False)


# --- SDK models are read as their wire JSON -----------------------------------------------------------------------


def test_a_model_is_read_by_its_wire_names_only() -> None:
    typed = mcp_types.CallToolResult.model_validate(
        {"content": [], "_meta": {EXTENSION_ID: {"null_display": "n/a", "complete": True}}}
    )
    effective = resolve_rendering(None, typed)
    # The Python name is no member: unknown, so ignored (the default null text) and reported.
    assert effective.null_display == DEFAULT_NULL_DISPLAY and effective.complete
    assert [(p.member, p.reads_as) for p in effective.problems] == [("null_display", "ignored")]


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

    def reading(message: Any) -> tuple[Any, ...]:
        e = resolve_rendering(tool(), message)
        return (e.mode, e.completeness, e.continuation_partial, e.complete, e.continuation is None, e.problems)

    assert {reading(copy) for copy in copies} == {reading(wire)}
    assert reading(wire)[2:4] == (True, False)  # the continuation carrier: partial, whatever the directive says


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
    assert any(".Mode: not a member of this carrier; read as ignored" in text for text in described)
    assert any(".extra: not a member of this carrier; read as ignored" in text for text in described)
    assert any("argument of the original call" in text for text in described)
    assert len(caplog.records) == 5


def test_an_explicit_null_is_absent_and_no_problem() -> None:
    effective = resolve_rendering(
        tool({"verbatimHint": None, "summarizeOkHint": None}),
        result({"mode": None, "guidance": None, "nullDisplay": None, "complete": True}),
        call_arguments={},
    )
    # A present directive that states no mode reads verbatim, whatever the hints.
    assert effective.problems == () and effective.complete and effective.mode == "verbatim"


_DIRECTIVE_READS = "mode verbatim, complete not stated, guidance absent, nullDisplay absent"


@pytest.mark.parametrize(
    ("value", "kind"),
    [(True, "a boolean"), (0, "a number"), (2.5, "a number"), ({"mode"}, "set")],  # a set: built in memory
)
def test_a_carrier_that_is_no_object_says_what_it_is(value: Any, kind: str) -> None:
    directive, problems = read_rendering_object(value, "C")
    assert directive is not None and directive.mode == "verbatim" and not directive.clean
    assert problems == (Problem("C", None, f"{kind}, not an object", _DIRECTIVE_READS),)


def test_a_long_text_in_a_problem_keeps_its_two_ends() -> None:
    _, problems = read_rendering_object({"mode": "a" * 50 + "b" * 50}, "C")
    assert [problem.detail for problem in problems] == [
        "'" + "a" * 27 + "..." + "b" * 28 + "' is not a registered value"
    ]


_TWICE_IN_META = f'"_meta": {{"{EXTENSION_ID}": {{}}, "{EXTENSION_ID}": {{}}}}'


@pytest.mark.parametrize(
    ("text", "position", "carrier", "detail", "source"),
    [
        (
            '{"name": "t", "inputSchema": {}, ' + _TWICE_IN_META + "}",
            ("_meta", EXTENSION_ID),
            f"Tool._meta[{EXTENSION_ID!r}]",
            "carrier key given more than once in _meta",
            "tool._meta",
        ),
        (
            '{"name": "t", "inputSchema": {}, "annotations": {}, "annotations": {}}',
            ("annotations",),
            "Tool.annotations",
            "annotations given more than once in the message",
            "tool.annotations",
        ),
    ],
    ids=["hints", "core hints"],
)
def test_hints_set_where_the_message_repeated_them_are_reported_on_their_own_carrier(
    text: str, position: tuple[str, ...], carrier: str, detail: str, source: str
) -> None:
    """The value the parser marked is replaced after the parse: the message still remembers the repetition (as it
    does for a result's carriers), and the problem names the tool's carrier that was read in its place."""
    message = parse_json(text)
    holder = message if len(position) == 1 else message[position[0]]
    holder[position[-1]] = {"summarizeOkHint": True}
    effective = resolve_rendering(message, None, core_form=True)
    assert effective.problems == (Problem(carrier, None, detail, "unclean"),)
    assert (effective.mode, effective.source) == ("verbatim", source)


def test_the_value_bound_admits_a_message_that_fits_exactly() -> None:
    # a list and two numbers; a dict, its list and a number; a tuple and two texts: 3 values each, written out
    for message in ([1, 2.5], {"a": [1]}, ("x", "y")):
        assert check_finite_numbers(message, max_values=3) == 3
        with pytest.raises(MessageTooLargeError, match="values as JSON writes it out"):
            check_finite_numbers(message, max_values=2)


def test_a_value_that_stands_for_its_text_or_number_does_not_end_the_search() -> None:
    for first in (_TaggedText("a"), _Code.OK, _TaggedBytes(b"a")):
        with pytest.raises(ValueError, match="which JSON cannot hold"):
            check_finite_numbers([first, math.nan])


def test_what_as_wire_would_read_of_an_object_is_what_is_counted() -> None:
    class Noted(BaseModel):
        rows: list[Any]
        note: str | None = None

    class ForeignModel:  # dumped as `as_wire` dumps it: members that are None left out
        def model_dump(self, **options: Any) -> Any:
            return Noted(rows=[1.0]).model_dump(**options)

    class DumpsAList:  # not a mapping: `as_wire` refuses it, so nothing of it is read here
        def model_dump(self, **options: Any) -> Any:
            return [math.nan]

    @dataclasses.dataclass
    class Defaults:
        value: float = math.nan

    assert check_finite_numbers(ForeignModel()) == 4  # the object, its dump, the dump's list and its number
    assert check_finite_numbers(DumpsAList()) == 1
    assert check_finite_numbers({"a": object()}) == 2  # neither JSON nor a model: nothing more of it is read
    assert check_finite_numbers(Defaults) == 1  # a dataclass itself is a class, not a result: its defaults unread


@pytest.mark.parametrize(
    ("the_tool", "core_form", "has_carrier", "source"),
    [
        (tool({}), False, True, "none"),  # an empty carrier is a carrier: this extension reads the tool's results
        (tool(None), False, False, "none"),
        (tool(None, annotations={"summarizeOkHint": False}), True, True, "none"),
        (tool(None, annotations={"readOnlyHint": True}), True, False, "none"),  # annotations without a hint
        (tool({"summarizeOkHint": True}), False, True, "tool._meta"),
        (tool(None, annotations={"summarizeOkHint": True}), True, True, "tool.annotations"),
    ],
)
def test_a_tool_has_a_hints_carrier_when_its_carrier_or_an_annotation_hint_is_there(
    the_tool: dict[str, Any], core_form: bool, has_carrier: bool, source: str
) -> None:
    effective = resolve_rendering(the_tool, {"content": []}, core_form=core_form)
    assert (effective.tool_carrier, effective.source) == (has_carrier, source)


@pytest.mark.parametrize("continuation", [None, {"argument": "cursor", "token": "t"}])
@pytest.mark.parametrize("argument", [5, "page"])  # mistyped; well-formed, but not in the input schema
def test_a_broken_declaration_is_logged_once(
    argument: Any, continuation: Any, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tool(argument=argument)
    broken["inputSchema"]["properties"].pop("page", None)
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        effective = resolve_rendering(broken, result(continuation=continuation), call_arguments={"year": 2025})
    declared = [p for p in effective.problems if p.carrier == f"Tool._meta[{CONTINUATION_ID!r}]"]
    assert len(declared) == 1 and effective.continuation_declaration_broken
    assert [message for message in caplog.messages if CONTINUATION_ID in message] == [
        f"malformed {declared[0]}",
        *(f"malformed {p}" for p in effective.problems if continuation and p.carrier.startswith("CallToolResult")),
    ]


# --- carriers given twice, as a parser sees them ------------------------------------------------------------------


def _wire(pairs: list[tuple[str, str]]) -> str:
    """A JSON object written member by member, so that a name can repeat."""
    return "{" + ", ".join(f"{json.dumps(name)}: {value}" for name, value in pairs) + "}"


_META_REPEATS = [
    # the directive key twice in `_meta`
    _wire(
        [
            ("content", "[]"),
            ("_meta", _wire([(EXTENSION_ID, '{"complete": false}'), (EXTENSION_ID, '{"complete": true}')])),
        ]
    ),
    # `_meta` twice in the result
    _wire(
        [
            ("content", "[]"),
            ("_meta", _wire([(EXTENSION_ID, '{"complete": false}')])),
            ("_meta", _wire([(EXTENSION_ID, '{"complete": true}')])),
        ]
    ),
    _wire([("_meta", _wire([(EXTENSION_ID, '{"complete": false}')])), ("content", "[]"), ("_meta", "{}")]),
]


@pytest.mark.parametrize("text", _META_REPEATS)
def test_a_repeated_directive_carrier_or_meta_is_unclean(text: str) -> None:
    effective = resolve_rendering(tool({"summarizeOkHint": True}), parse_json(text))
    # A repeated `_meta` also puts the continuation carrier in doubt: present, so the result reads incomplete.
    assert effective.mode == "verbatim" and effective.completeness in ("not-stated", "incomplete")
    assert any(p.reads_as == "unclean" and p.member is None for p in effective.problems)


@pytest.mark.parametrize("last", ["null", '{"argument": "cursor", "token": "t"}'])
def test_a_repeated_continuation_carrier_is_unusable_and_partial(last: str) -> None:
    first = '{"argument": "cursor", "token": "t"}'
    text = _wire([("content", "[]"), ("_meta", _wire([(CONTINUATION_ID, first), (CONTINUATION_ID, last)]))])
    effective = resolve_rendering(tool(), parse_json(text), original_arguments={})
    assert effective.continuation_reading.present and effective.continuation is None
    assert effective.continuation_partial and not effective.complete


def test_a_repeated_tool_carrier_reads_verbatim_and_declares_no_argument() -> None:
    hints = _wire([(EXTENSION_ID, '{"summarizeOkHint": true}'), (EXTENSION_ID, '{"summarizeOkHint": true}')])
    the_tool = parse_json(_wire([("name", '"t"'), ("_meta", hints)]))
    assert resolve_rendering(the_tool, result()).mode == "verbatim"
    declared = _wire([(CONTINUATION_ID, '{"argument": "cursor"}'), (CONTINUATION_ID, '{"argument": "cursor"}')])
    the_tool = parse_json(_wire([("name", '"t"'), ("_meta", declared)]))
    assert resolve_rendering(the_tool, result(continuation=_GOOD), original_arguments={}).continuation is None


def test_a_repeated_core_form_member_is_unclean_on_opt_in() -> None:
    core = parse_json(
        _wire([("content", "[]"), ("_rendering", '{"complete": false}'), ("_rendering", '{"complete": true}')])
    )
    assert resolve_rendering(None, core, core_form=True).completeness == "not-stated"
    annotated = parse_json(
        _wire([("name", '"t"'), ("annotations", "{}"), ("annotations", '{"summarizeOkHint": true}')])
    )
    assert resolve_rendering(annotated, result(), core_form=True).mode == "verbatim"


# --- properties: malformed carriers never read as more permissive than a clean one --------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=6,
)
_NAMES = st.sampled_from(["mode", "complete", "guidance", "nullDisplay", "verbatimHint", "Complete", "completed", "x"])
_MEMBERS = st.lists(st.tuples(_NAMES, _JSON.map(json.dumps)), max_size=5)


def _has_problem(members: list[tuple[str, str]]) -> bool:
    names = [name for name, _ in members]
    return len(set(names)) < len(names) or any(
        name not in ("mode", "complete", "guidance", "nullDisplay") for name in names
    )


@given(members=_MEMBERS, summarize=st.booleans())
def test_a_directive_with_a_repeated_or_unknown_member_never_grants_summarizable_or_complete(
    members: list[tuple[str, str]], summarize: bool
) -> None:
    directive = parse_json(_wire(members))
    effective = resolve_rendering(tool({"summarizeOkHint": summarize}), result(directive))
    if _has_problem(members):
        assert effective.mode == "verbatim" and not effective.complete and effective.problems


@given(
    before=_MEMBERS,
    after=_MEMBERS,
    twice=st.sampled_from(["key", "meta"]),
    kept=st.sampled_from(['{"mode": "summarizable", "complete": true}', "null", "{}"]),
)
def test_a_directive_carrier_given_twice_never_grants_anything(
    before: list[tuple[str, str]], after: list[tuple[str, str]], twice: str, kept: str
) -> None:
    first = _wire(before)
    if twice == "key":
        text = _wire([("content", "[]"), ("_meta", _wire([(EXTENSION_ID, first), (EXTENSION_ID, kept)]))])
    else:
        text = _wire(
            [("_meta", _wire([(EXTENSION_ID, first)])), ("content", "[]"), ("_meta", _wire([(EXTENSION_ID, kept)]))]
        )
    effective = resolve_rendering(tool({"summarizeOkHint": True}), parse_json(text))
    assert effective.mode == "verbatim" and not effective.complete


@given(
    first=st.dictionaries(st.sampled_from(["argument", "token", "expiresAt", "x"]), _JSON, max_size=4),
    kept=st.sampled_from(['{"argument": "cursor", "token": "t"}', "null"]),
    twice=st.sampled_from(["key", "meta"]),
)
def test_a_continuation_carrier_given_twice_is_partial_and_unusable(
    first: dict[str, Any], kept: str, twice: str
) -> None:
    if twice == "key":
        text = _wire(
            [("content", "[]"), ("_meta", _wire([(CONTINUATION_ID, json.dumps(first)), (CONTINUATION_ID, kept)]))]
        )
    else:
        text = _wire(
            [("_meta", _wire([(CONTINUATION_ID, json.dumps(first))])), ("_meta", _wire([(CONTINUATION_ID, kept)]))]
        )
    effective = resolve_rendering(tool(), parse_json(text), original_arguments={}, now=_NOW)
    assert effective.continuation is None and effective.continuation_partial and not effective.complete


@given(hints=st.dictionaries(st.text(max_size=14), _JSON, max_size=3))
def test_a_hints_carrier_reads_summarizable_only_when_clean_and_stated(hints: dict[str, Any]) -> None:
    mode = resolve_rendering(tool(hints), result()).mode
    defined = {name: value for name, value in hints.items() if name in ("verbatimHint", "summarizeOkHint")}
    clean = all(value is None or isinstance(value, bool) for value in defined.values())
    if not clean:
        assert mode == "verbatim"
    elif mode == "summarizable":
        assert hints.get("summarizeOkHint") is True and hints.get("verbatimHint") is not True
    # Unknown members are ignored: the reading is the defined members' alone.
    assert mode == resolve_rendering(tool(defined), result()).mode


@given(continuation=st.dictionaries(st.sampled_from(["argument", "token", "expiresAt", "x"]), _JSON, max_size=4))
def test_a_malformed_continuation_is_never_followed(continuation: dict[str, Any]) -> None:
    reading = read_continuation(tool(), result(continuation=continuation), original_arguments={}, now=_NOW)
    well_formed = (
        set(continuation) <= {"argument", "token", "expiresAt"}
        and continuation.get("argument") == "cursor"
        and isinstance(continuation.get("token"), str)
    )
    if not well_formed:
        assert reading.present and reading.usable is None


# --- nullDisplay: the schema's pattern is the one definition ------------------------------------------------------

_SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "schema/delta/rendering.schema.json").read_text())


def _null_display_schema() -> dict[str, Any]:
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            members = cast("dict[str, Any]", node)
            if isinstance(members.get("nullDisplay"), dict) and "pattern" in members["nullDisplay"]:
                found.append(members["nullDisplay"])
            for child in members.values():
                walk(child)
        elif isinstance(node, list):
            for child in cast("list[Any]", node):
                walk(child)

    walk(_SCHEMA)
    assert found, "the schema types nullDisplay with a pattern"
    return found[0]


def _schema_accepts(text: str) -> bool:
    typed = _null_display_schema()
    # ECMA-262 `$` ends the string; Python's would also match before a final newline, so the anchors become fullmatch.
    body = typed["pattern"].removeprefix("^").removesuffix("$")
    return bool(re.fullmatch(body, text)) and typed.get("minLength", 0) <= len(text) <= typed["maxLength"]


def test_the_schema_pattern_spells_out_the_readers_rule() -> None:
    """The pattern is the reader's frozen rule, code point by code point."""
    assert _null_display_schema()["pattern"] == null_text_pattern()


def test_the_readers_frozen_tables_are_unicode_14() -> None:
    """The forbidden characters are Unicode 14.0's Cc, Cf and every character with a numeric value (Numeric_Type
    not None, which Python's `numeric` reads, Unihan's ideographs included)."""
    if unicodedata.unidata_version != "14.0.0":
        pytest.skip(f"the tables are Unicode 14.0's; this Python has {unicodedata.unidata_version}")
    differing = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if forbidden(code)
        is not (unicodedata.category(chr(code)) in {"Cc", "Cf"} or unicodedata.numeric(chr(code), None) is not None)
    ]
    assert differing == []


def test_the_rule_does_not_depend_on_the_running_pythons_unicode_database() -> None:
    """Every interpreter found (Python 3.10 to 3.13 have Unicode 13.0 to 15.1) reads every code point as this one."""
    module = Path(__file__).resolve().parent.parent / "python_ext/mcp_rendering/_null_text.py"
    script = (
        "import hashlib, importlib.util, sys, unicodedata; "
        f"spec = importlib.util.spec_from_file_location('null_text', {str(module)!r}); "
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
        "bits = bytes(m.forbidden(c) * 2 + m.blank(c) for c in range(0x110000)); "
        "print(unicodedata.unidata_version, hashlib.sha256(bits).hexdigest())"
    )
    expected = hashlib.sha256(bytes(forbidden(c) * 2 + blank(c) for c in range(0x110000))).hexdigest()
    seen: dict[str, str] = {}
    for name in ("python3.10", "python3.11", "python3.12", "python3.13"):
        interpreter = shutil.which(name)
        if interpreter is None:
            continue
        done = subprocess.run([interpreter, "-c", script], capture_output=True, text=True, timeout=120, check=False)
        if done.returncode == 0:
            version, digest = done.stdout.split()
            seen[f"{name} (Unicode {version})"] = digest
    if not seen:
        pytest.skip("no other Python interpreter runs here")
    assert seen == dict.fromkeys(seen, expected)


@given(
    text=st.text(max_size=18)
    | st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x3200), max_size=18)
    | st.lists(
        st.sampled_from(["-", "n/a", "é", " ", "  ", "½", "0", "\u2800", "x", "\n", "\u3164", "٣"]), max_size=6
    ).map("".join)
)
def test_the_reader_accepts_exactly_the_null_texts_of_the_schema_pattern(text: str) -> None:
    shown = resolve_rendering(None, result({"nullDisplay": text, "complete": True})).null_display
    assert (shown == text) is _schema_accepts(text) or (text == DEFAULT_NULL_DISPLAY)
    assert usable_null_text(text) is _schema_accepts(text) is (1 <= len(text) <= 16 and usable_by_property(text))


def test_the_specification_states_the_null_text_rule() -> None:
    """Spec-mandated (rendering.mdx section 4): the usable null text is stated by Unicode category, within the
    schema's length cap."""
    spec = (Path(__file__).resolve().parent.parent / "sep/rendering.mdx").read_text()
    sentence = re.search(r"A \*\*usable null text\*\*(.+?)\n\n", spec, re.S)
    assert sentence is not None
    words = " ".join(sentence.group(1).split())
    cap = _null_display_schema()["maxLength"]
    assert f"1 to {cap} code points" in words
    assert "not only white space or invisible characters" in words
    assert "Cc and Cf" in words and "Numeric_Type not None, as of Unicode 14.0: categories Nd, Nl and No" in words
    assert "the ideographs with a numeric value" in words


# --- an SDK model is read as its wire JSON; fail-safe marks survive every conversion ------------------------------

_FAIL_SAFE_CASES = {  # carriers as JSON text, as a peer sends them
    "unclean summarizable": '{"mode": "summarizable", "complete": true, "guidance": 1}',
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


_CARRIER_REPEATS = {  # a carrier given twice, in each way the reading table names, as a peer sends it
    "directive key": _META_REPEATS[0],
    "result _meta": _META_REPEATS[1],
    "result _meta, then empty": _META_REPEATS[2],
    "continuation key": _wire(
        [
            ("content", "[]"),
            (
                "_meta",
                _wire([(CONTINUATION_ID, json.dumps(_GOOD)), (CONTINUATION_ID, "null")]),
            ),
        ]
    ),
    "core form": _wire([("content", "[]"), ("_rendering", '{"complete": false}'), ("_rendering", "null")]),
}


@pytest.mark.parametrize("patched", [False, True])
@pytest.mark.parametrize("case", sorted(_CARRIER_REPEATS))
def test_a_carrier_given_twice_reads_so_after_every_conversion(case: str, patched: bool) -> None:
    wire: dict[str, Any] = parse_json(_CARRIER_REPEATS[case])
    the_tool = tool({"summarizeOkHint": True})
    with mcp_rendering.patch.installed() if patched else contextlib.nullcontext():
        read = resolve_rendering(the_tool, wire, core_form=True, original_arguments={})
        # A continuation given twice only makes the result partial; a directive given twice also reads verbatim.
        assert read.mode == ("summarizable" if case == "continuation key" else "verbatim")
        assert not read.complete and read.continuation is None
        assert sum(p.member is None and p.reads_as == "unclean" for p in read.problems) >= 1
        for name, form in _conversions(wire).items():
            if case == "core form" and not patched and name != "wire":
                continue  # the unpatched SDK drops `_rendering` on validation (see above)
            effective = resolve_rendering(the_tool, form, core_form=True, original_arguments={})
            assert (effective.mode, effective.completeness, effective.continuation) == (
                read.mode,
                read.completeness,
                None,
            ), name


@pytest.mark.parametrize("twice", ["key", "meta"])
def test_a_tool_carrier_given_twice_reads_so_as_a_model(twice: str) -> None:
    hints = '{"summarizeOkHint": true}'
    if twice == "key":
        meta = _wire([(EXTENSION_ID, hints), (EXTENSION_ID, hints), (CONTINUATION_ID, '{"argument": "cursor"}')])
        text = _wire([("name", '"t"'), ("inputSchema", json.dumps(tool()["inputSchema"])), ("_meta", meta)])
    else:
        meta = _wire([(EXTENSION_ID, hints), (CONTINUATION_ID, '{"argument": "cursor"}')])
        text = _wire(
            [("name", '"t"'), ("inputSchema", json.dumps(tool()["inputSchema"])), ("_meta", meta), ("_meta", meta)]
        )
    wire = parse_json(text)
    model = mcp_types.Tool.model_validate(wire)
    for form in (wire, model, model.model_dump(mode="json", by_alias=True, exclude_none=True)):
        assert resolve_rendering(form, result()).mode == "verbatim"
        if twice == "meta":  # the declaration is in doubt too: nothing of the tool can be followed
            assert resolve_rendering(form, result(continuation=_GOOD), original_arguments={}).continuation is None


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


def test_repetition_is_seen_only_through_parse_json() -> None:
    """The host guide's claim: the SDK's parser keeps the last of repeated members silently, so only the raw message
    parsed with `parse_json` shows the repetition; the server's obligation covers the rest."""
    carrier = '{"complete": false, "complete": true}'
    text = '{"content": [], "_meta": {"' + EXTENSION_ID + '": ' + carrier + "}}"
    through_sdk = mcp_types.CallToolResult.model_validate_json(text)
    assert resolve_rendering(None, through_sdk).completeness == "complete"  # the repetition is lost
    through_raw = mcp_types.CallToolResult.model_validate(parse_json(text), by_name=False)
    effective = resolve_rendering(None, through_raw)
    assert effective.completeness == "not-stated" and effective.mode == "verbatim"


def test_an_error_of_a_verbatim_tool_stays_verbatim_whatever_its_mode() -> None:
    error = result({"mode": "summarizable", "complete": True}, is_error=True)
    effective = resolve_rendering(tool({"verbatimHint": True}), error, call_arguments={})
    assert effective.mode == "verbatim" and effective.source == "tool._meta"
    typed = mcp_types.CallToolResult.model_validate(error, by_name=False)
    assert resolve_rendering(tool({"verbatimHint": True}), typed, call_arguments={}).mode == "verbatim"
    # Not an error, or not a verbatim tool: the result's mode decides.
    ok = result({"mode": "summarizable", "complete": True})
    assert resolve_rendering(tool({"verbatimHint": True}), ok, call_arguments={}).mode == "summarizable"
    # A tool carrier with an unknown member beside verbatimHint still reads verbatim: the error stays verbatim.
    hinted = tool({"verbatimHint": True, "laterHint": "x"})
    assert resolve_rendering(hinted, error, call_arguments={}).mode == "verbatim"
    assert resolve_rendering(tool({"summarizeOkHint": True}), error, call_arguments={}).mode == "summarizable"
    assert resolve_rendering(tool(None), error, call_arguments={}).mode == "summarizable"


# --- a continuation carrier of the tool that is not clean and usable ----------------------------------------------


def _declared(carrier: Any) -> dict[str, Any]:
    """A tool whose continuation carrier is `carrier`, its input schema declaring `cursor` as an optional string."""
    wire = tool(argument=None)
    wire["inputSchema"]["properties"]["cursor"] = {"type": "string"}
    wire["_meta"][CONTINUATION_ID] = carrier
    return wire


_BROKEN_DECLARATIONS = {
    "misspelled": _declared({"argumnt": "cursor"}),
    "mistyped": _declared({"argument": 5}),
    "empty": _declared({}),
    "argument null": _declared({"argument": None}),
    "not an object": _declared("cursor"),
    "not a name": _declared({"argument": "a cursor"}),
    "member repeated": parse_json(
        '{"name": "ledger", "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}},'
        f' "_meta": {{"{CONTINUATION_ID}": {{"argument": "cursor", "argument": "cursor"}}}}}}'
    ),
    "carrier key repeated": parse_json(
        '{"name": "ledger", "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}},'
        f' "_meta": {{"{CONTINUATION_ID}": {{"argument": "cursor"}}, "{CONTINUATION_ID}": {{"argument": "cursor"}}}}}}'
    ),
    "contradicted by the input schema": {**tool(), "inputSchema": {"type": "object", "properties": {}}},
}


@pytest.mark.parametrize("the_tool", _BROKEN_DECLARATIONS.values(), ids=list(_BROKEN_DECLARATIONS))
@pytest.mark.parametrize("call", [{"year": 2025, "cursor": "t0"}, {"year": 2025, "cursor": None}, {"year": 2025}, None])
def test_a_tool_with_a_broken_continuation_carrier_never_reads_complete(the_tool: Any, call: Any) -> None:
    # A later part (or any result) whose own directive says complete, of a tool whose declaration is in doubt.
    effective = resolve_rendering(the_tool, result({"mode": "verbatim", "complete": True}), call_arguments=call)
    assert effective.continuation_declaration_broken
    assert effective.continuation_partial and not effective.complete
    assert effective.completeness == "complete"  # rendering's own reading does not depend on continuation
    assert any(problem.carrier.startswith("Tool._meta") for problem in effective.problems)
    assert combine_parts([effective], all_fetched=True)[1] is False
    assert not result_is_complete(result({"complete": True}), tool=the_tool, arguments=call)
    shown = present(the_tool, result({"mode": "verbatim", "complete": True}), arguments=call)
    assert not shown.complete


def test_an_absent_or_null_continuation_carrier_of_the_tool_is_no_declaration() -> None:
    for the_tool in (tool(argument=None), _declared(None)):
        effective = resolve_rendering(the_tool, result({"complete": True}), call_arguments={"year": 2025})
        assert not effective.continuation_declaration_broken and effective.complete and not effective.problems


def test_a_clean_declaration_reports_no_problem_and_lets_the_first_part_end() -> None:
    effective = resolve_rendering(tool(), result({"complete": True}), call_arguments={"year": 2025})
    assert not effective.continuation_declaration_broken and effective.complete and not effective.problems


def test_a_continuation_argument_set_to_null_makes_a_later_part() -> None:
    # One reading: present in the call's arguments, whatever its value, the argument is set.
    later = resolve_rendering(tool(), result({"complete": True}), call_arguments={"year": 2025, "cursor": None})
    assert later.later_part and later.continuation_partial and not later.complete
    assert not result_is_complete(result({"complete": True}), tool=tool(), arguments={"year": 2025, "cursor": None})
    # And, set to null on the original call, a continuation naming it is unusable, as for any other value.
    first = resolve_rendering(
        tool(), result(continuation=_GOOD), original_arguments={"year": 2025, "cursor": None}, now=_NOW
    )
    assert first.continuation is None


@pytest.mark.parametrize("expires_at", [None, 1796000900, True, [], {}])
def test_an_expiry_that_is_null_or_not_a_string_is_malformed(expires_at: Any) -> None:
    effective = resolve_rendering(
        tool(), result(continuation={**_GOOD, "expiresAt": expires_at}), original_arguments={}, now=_NOW
    )
    assert effective.continuation_reading.present and effective.continuation is None
    assert any(problem.member == "expiresAt" for problem in effective.problems)
    reading = read_continuation(tool(), result(continuation={**_GOOD, "expiresAt": None}), original_arguments={})
    assert reading.usable is None


def test_a_continuation_without_its_expiry_is_followed_until_the_server_refuses_it() -> None:
    """A server always states `expiresAt` (the schema requires it); a reader is lenient: without it the token's life
    is unknown, and the host follows it, the server being the one that refuses an expired token."""
    reading = read_continuation(tool(), result(continuation=_GOOD), original_arguments={"year": 2025}, now=_NOW)
    assert reading.usable is not None and reading.usable.expires_at is None and not reading.problems
    assert reading.usable.model_dump(by_alias=True, exclude_none=True) == _GOOD
    stated = {**_GOOD, "expiresAt": "2026-12-01T10:00:01Z"}
    followed = read_continuation(tool(), result(continuation=stated), original_arguments={"year": 2025}, now=_NOW)
    assert followed.usable is not None and followed.usable.model_dump(by_alias=True, exclude_none=True) == stated


def test_a_time_without_a_zone_is_refused_clearly() -> None:
    naive = datetime(2026, 12, 1, 10, 0, 0)
    stated = {**_GOOD, "expiresAt": "2026-12-01T10:00:01Z"}
    with pytest.raises(ValueError, match="timezone-aware"):
        read_continuation(tool(), result(continuation=stated), original_arguments={}, now=naive)
    with pytest.raises(ValueError, match="timezone-aware"):
        resolve_rendering(tool(), result(continuation=_GOOD), original_arguments={}, now=naive)


def test_a_followable_continuation_is_built_and_read_back_by_either_name() -> None:
    built = FollowableContinuation(argument="cursor", token="t", expiresAt="2026-12-01T10:00:01Z")
    assert built.expires_at == "2026-12-01T10:00:01Z"
    by_name = {"argument": "cursor", "token": "t", "expires_at": "2026-12-01T10:00:01Z"}
    assert FollowableContinuation.model_validate(by_name) == built
    assert FollowableContinuation.model_validate(built.model_dump()) == built
    assert FollowableContinuation.model_validate(built.model_dump(by_alias=True)) == built


def _read_result_directive(carrier: Any) -> EffectiveRendering:
    return resolve_rendering(None, {"content": [], "_meta": {EXTENSION_ID: carrier}})


@pytest.mark.parametrize(
    ("carrier", "wire"),
    [
        (
            {"mode": "summarizable", "guidance": "g", "nullDisplay": "-", "complete": True},
            {"mode": "summarizable", "guidance": "g", "nullDisplay": "-", "complete": True},
        ),
        # An unregistered mode string is given back as sent (it reads verbatim); a stated false stays stated.
        ({"mode": "tabular", "complete": False}, {"mode": "tabular", "complete": False}),
        # No mode reads verbatim; completeness not stated is left out, as are members without a value.
        ({"guidance": "g"}, {"mode": "verbatim", "guidance": "g"}),
        ({"mode": "verbatim", "complete": "yes", "nullDisplay": 5}, {"mode": "verbatim"}),
    ],
)
def test_a_directive_reads_back_in_its_wire_form(carrier: dict[str, Any], wire: dict[str, Any]) -> None:
    directive = _read_result_directive(carrier).directive
    assert directive is not None and directive.as_wire() == wire


@pytest.mark.parametrize(
    "mark",
    [
        {"mode": "summarizable"},  # a well-formed value: a mark never holds one
        {"guidance": None},
        {"x": 1},
        {},
        "mode",
    ],
)
def test_an_as_sent_mark_holds_only_malformed_values_else_the_carrier_reads_unclean(mark: Any) -> None:
    altered = _read_result_directive({"mode": "summarizable", AS_SENT: mark})
    assert altered.mode == "verbatim" and altered.directive is not None and not altered.directive.clean
    assert [problem.detail for problem in altered.problems] == [f"{AS_SENT} mark altered (got {mark!r})"]


def test_an_as_sent_mark_gives_the_malformed_value_as_it_came() -> None:
    marked = _read_result_directive({"mode": "verbatim", AS_SENT: {"mode": 5}})
    assert marked.directive is not None and not marked.directive.clean
    assert [problem.member for problem in marked.problems] == ["mode"]
    assert "(got 5)" in marked.problems[0].detail
