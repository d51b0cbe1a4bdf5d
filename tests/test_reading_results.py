"""Where the reader finds a result's directive and a tool's hints, and what it reports of them: the carrier that
decides and names each problem, the repetitions a parsed message remembers, the models of either SDK generation,
the dictionaries it refuses, and what the outcome says of the tool and of the call."""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types
import pytest
from pydantic import BaseModel, ConfigDict, Field

import mcp_rendering.patch
from mcp_rendering.reading import (
    Directive,
    FollowableContinuation,
    Problem,
    parse_json,
    read_directive,
    resolve_rendering,
)
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID
from tests.support.carriers import cursor_tool

_RESULT_META = f"CallToolResult._meta[{EXTENSION_ID!r}]"
_SUMMARIZABLE = {"mode": "summarizable", "complete": True}


def _result(directive: Any = None, **members: Any) -> dict[str, Any]:
    meta = {} if directive is None else {EXTENSION_ID: directive}
    return {"content": [], "_meta": meta, **members}


# --- the dictionaries the reader refuses --------------------------------------------------------------------------

_DUMPED_RESULT = _result({"mode": 5}, is_error=True)  # a malformed carrier too, which a refused message never reports


@pytest.mark.parametrize(
    "read",
    [
        lambda: read_directive(_DUMPED_RESULT),
        lambda: resolve_rendering({**cursor_tool({"verbatimHint": 5}), "input_schema": {}}, None),
        lambda: resolve_rendering(None, _DUMPED_RESULT),
    ],
    ids=["read_directive", "resolve_rendering tool", "resolve_rendering result"],
)
def test_a_model_dumped_by_python_field_names_is_refused_before_anything_is_read(
    read: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(ValueError, match=r"holds the Python field names \w+, not the wire names .*by_alias=True"):
        read()
    assert caplog.records == []


# --- which carrier decides, and names each problem ----------------------------------------------------------------


def test_read_directive_reads_the_core_form_on_opt_in() -> None:
    core = {"content": [], "_rendering": _SUMMARIZABLE}
    assert read_directive(core, core_form=True) == Directive("summarizable", "complete", wire_mode="summarizable")


@pytest.mark.parametrize(
    ("hints", "mode", "source"),
    [
        ({"summarizeOkHint": True}, "summarizable", "tool._meta"),
        ({"verbatimHint": True}, "verbatim", "tool._meta"),
        ({}, "unspecified", "none"),
        (None, "unspecified", "none"),
    ],
)
def test_without_a_directive_the_source_is_the_hint_that_decided_or_none(hints: Any, mode: str, source: str) -> None:
    effective = resolve_rendering(cursor_tool(hints), _result())
    assert (effective.mode, effective.source) == (mode, source)


@pytest.mark.parametrize(
    ("message", "carrier"),
    [
        (_result({"mode": "summarizable", "complete": "yes"}), _RESULT_META),
        ({"content": [], "_rendering": {"mode": "summarizable", "complete": "yes"}}, "CallToolResult._rendering"),
    ],
)
def test_a_problem_names_the_carrier_it_was_found_in(message: dict[str, Any], carrier: str) -> None:
    effective = resolve_rendering(None, message, core_form=True)
    assert [(problem.carrier, problem.member) for problem in effective.problems] == [(carrier, "complete")]
    assert str(effective.problems[0]).startswith(f"{carrier}.complete: ")


# --- repetitions a parsed message remembers -----------------------------------------------------------------------


def test_a_result_meta_given_twice_leaves_the_directive_in_doubt_even_when_the_last_is_no_object() -> None:
    """The parser kept `5`: the directive of the first `_meta` may still be meant, so it reads present and unclean,
    and it keeps the core form from being read in its place."""
    text = json.dumps({"content": [], "_meta": {EXTENSION_ID: _SUMMARIZABLE}, "_rendering": _SUMMARIZABLE})
    message = parse_json(text.replace('"_rendering"', '"_meta": 5, "_rendering"'))
    effective = resolve_rendering(None, message, core_form=True)
    assert (effective.mode, effective.source, effective.completeness) == ("verbatim", "result._meta", "not-stated")
    assert effective.directive is not None and not effective.directive.clean
    assert effective.problems[0] == Problem(_RESULT_META, None, "_meta given more than once in the message", "unclean")


def test_a_tool_meta_given_twice_reads_as_a_hints_carrier_even_when_the_last_is_no_object() -> None:
    message = parse_json(json.dumps(cursor_tool({"summarizeOkHint": True}))[:-1] + ', "_meta": 5}')
    effective = resolve_rendering(message, _result())
    assert (effective.mode, effective.hints.verbatim_hint, effective.completeness) == ("verbatim", True, "not-stated")


_REPEATED_KEY = f'"_meta": {{"{EXTENSION_ID}": {{}}, "{EXTENSION_ID}": {{}}}}'


@pytest.mark.parametrize(
    ("text", "position", "problem"),
    [
        (
            '{"content": [], ' + _REPEATED_KEY + "}",
            ("_meta", EXTENSION_ID),
            "carrier key given more than once in _meta",
        ),
        (
            '{"content": [], "_rendering": {}, "_rendering": {}}',
            ("_rendering",),
            "_rendering given more than once in the message",
        ),
    ],
    ids=["carrier key", "core form"],
)
def test_a_carrier_put_in_place_of_a_repeated_one_is_still_read_as_given_twice(
    text: str, position: tuple[str, ...], problem: str
) -> None:
    """The parsed message remembers the names it repeated, so a carrier set there afterwards is in doubt too."""
    message = parse_json(text)
    holder = message if len(position) == 1 else message[position[0]]
    holder[position[-1]] = dict(_SUMMARIZABLE)
    effective = resolve_rendering(None, message, core_form=True)
    carrier = _RESULT_META if position[0] == "_meta" else "CallToolResult._rendering"
    assert (effective.mode, effective.completeness) == ("verbatim", "not-stated")
    assert effective.directive is not None and not effective.directive.clean
    assert effective.problems == (Problem(carrier, None, problem, "unclean"),)


def test_a_tool_whose_repeated_carrier_was_set_to_null_still_has_a_hints_carrier() -> None:
    message = parse_json('{"name": "ledger", "inputSchema": {"type": "object"}, ' + _REPEATED_KEY + "}")
    message["_meta"][EXTENSION_ID] = None
    effective = resolve_rendering(message, _result())
    assert (effective.mode, effective.hints.verbatim_hint, effective.completeness) == ("verbatim", True, "not-stated")


# --- a model of the first SDK generation --------------------------------------------------------------------------


class _FirstGenerationResult(BaseModel):
    """A `CallToolResult` as the 1.x SDK defines it: `isError` by its wire name, unknown members kept as extras."""

    model_config = ConfigDict(extra="allow")
    meta: dict[str, Any] | None = Field(alias="_meta", default=None)
    content: list[Any]
    isError: bool = False


def test_a_first_generation_model_keeps_the_core_form_as_an_extra_member_and_it_is_read() -> None:
    model = _FirstGenerationResult.model_validate({"content": [], "_rendering": _SUMMARIZABLE})
    assert read_directive(model, core_form=True) == Directive("summarizable", "complete", wire_mode="summarizable")


def test_a_first_generation_error_of_a_verbatim_tool_stays_verbatim() -> None:
    error = _FirstGenerationResult.model_validate(
        {"content": [], "isError": True, "_meta": {EXTENSION_ID: _SUMMARIZABLE}}
    )
    effective = resolve_rendering(cursor_tool({"verbatimHint": True}), error)
    assert (effective.mode, effective.source) == ("verbatim", "tool._meta")


# --- an as-sent mark holds what a lax validator would have converted ----------------------------------------------


@pytest.mark.parametrize(("sent", "detail"), [("yes", "'yes'"), ("true", "'true'"), (1, "1"), (0, "0")])
def test_a_hint_the_patched_sdk_parsed_as_malformed_is_reported_as_sent(sent: Any, detail: str) -> None:
    """Strings and numbers are no booleans on the wire, though a lax validator would take them for one."""
    with mcp_rendering.patch.installed():
        model = mcp_types.Tool.model_validate(
            {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"summarizeOkHint": sent}}
        )
        effective = resolve_rendering(model, None, core_form=True)
    assert (effective.hints.verbatim_hint, effective.hints.summarize_ok_hint) == (True, False)
    assert effective.problems == (
        Problem("Tool.annotations", "summarizeOkHint", f"Input should be a valid boolean (got {detail})", "false"),
    )


# --- a number too large for a double ------------------------------------------------------------------------------


def test_a_number_too_large_for_a_double_is_refused_naming_its_first_forty_characters() -> None:
    number = "1." + "0" * 50 + "e999"
    with pytest.raises(ValueError, match=f"^the number {re.escape(number[:40])} is too large to read"):
        parse_json(f"[{number}]")


# --- the continuation, as the call's arguments and the tool's declaration give it -------------------------------


def test_a_later_parts_call_arguments_less_the_continuation_argument_stand_for_the_original_ones() -> None:
    """The call set `cursor` to follow the part before; the original call did not, so the next token is usable."""
    later = _result(_SUMMARIZABLE)
    later["_meta"][CONTINUATION_ID] = {"argument": "cursor", "token": "t1"}
    effective = resolve_rendering(cursor_tool(), later, call_arguments={"year": 2025, "cursor": "t0"})
    assert effective.continuation == FollowableContinuation(argument="cursor", token="t1")
    assert (effective.later_part, effective.call_token, effective.query_arguments) == (True, "t0", {"year": 2025})


@pytest.mark.parametrize("continuation", [None, {"argument": "cursor", "token": "t1"}])
def test_a_declaration_the_input_schema_contradicts_is_reported_once(continuation: Any) -> None:
    contradicted = cursor_tool()
    del contradicted["inputSchema"]["properties"]["cursor"]
    message = _result()
    if continuation is not None:
        message["_meta"][CONTINUATION_ID] = continuation
    problems = resolve_rendering(contradicted, message, original_arguments={}).problems
    declared = Problem(
        f"Tool._meta[{CONTINUATION_ID!r}]",
        "argument",
        "'cursor' is not a property of the tool's inputSchema",
        "no continuation argument",
    )
    assert problems.count(declared) == 1


# --- what the outcome says of the tool ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "completeness"),
    [
        (cursor_tool({}), "not-stated"),  # a hints carrier stating no hint is still one, beside the core form too
        ({"name": "t", "inputSchema": {}, "annotations": {"verbatimHint": False}}, "not-stated"),
        ({"name": "t", "inputSchema": {}, "annotations": {"readOnlyHint": True}}, None),  # no rendering member
        (None, None),
    ],
)
def test_in_the_core_form_a_result_without_a_directive_is_not_stated_only_from_a_tool_with_a_carrier(
    tool: Any, completeness: str | None
) -> None:
    effective = resolve_rendering(tool, {"content": []}, core_form=True)
    assert effective.completeness == completeness
    assert effective.complete is (completeness is None)


@pytest.mark.parametrize(
    ("tool", "defined"),
    [
        (cursor_tool(), True),
        (mcp_types.Tool.model_validate(cursor_tool()), True),
        ({"name": "ledger", "description": "a framework's own tool object"}, False),
        (None, False),
    ],
    ids=["wire", "model", "framework object", "none"],
)
def test_the_outcome_tells_whether_the_tool_was_given_as_its_definition(tool: Any, defined: bool) -> None:
    assert resolve_rendering(tool, _result(_SUMMARIZABLE)).tool_defined is defined
