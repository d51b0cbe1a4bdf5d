"""Reading a result's continuation (result-continuation.mdx, section 4): each reason a continuation is unusable is
reported as one exact problem, logged once, and a carrier the message gave twice reads present and unclean."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from typing import Any

import pytest

from mcp_rendering.reading import ContinuationReading, FollowableContinuation, Problem, parse_json, read_continuation
from mcp_rendering.types import CONTINUATION_ID
from tests.support.carriers import cursor_schema, cursor_tool

_RESULT = f"CallToolResult._meta[{CONTINUATION_ID!r}]"
_TOOL = f"Tool._meta[{CONTINUATION_ID!r}]"
_GOOD = {"argument": "cursor", "token": "v1.k1.abc"}
_NOW = datetime(2026, 12, 1, 10, 0, 0, tzinfo=timezone.utc)


def result(continuation: Any) -> dict[str, Any]:
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


# --- why a continuation is unusable: one problem each, logged once -------------------------------------------------


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
    reading = read_continuation(cursor_tool(), result(continuation), original_arguments=arguments, now=_NOW)
    assert reading == ContinuationReading(True, None, (problem,))
    assert _messages(logged) == [f"malformed {problem}"]


def test_a_continuation_checked_against_no_tool_definition_says_the_definition_is_missing() -> None:
    # Without the definition the declared argument is unknown, not absent: the problem says so, not "None".
    problem = unusable("argument", "the tool's definition, which declares the argument, was not given")
    for undefined in (None, {"name": "ledger"}):
        reading = read_continuation(undefined, result(_GOOD), original_arguments={}, now=_NOW)
        assert reading == ContinuationReading(True, None, (problem,))


def test_a_malformed_continuation_member_is_reported_on_the_result_carrier(logged: pytest.LogCaptureFixture) -> None:
    reading = read_continuation(cursor_tool(), result({**_GOOD, "token": 5}), original_arguments={}, now=_NOW)
    assert reading.present and reading.usable is None
    assert [(p.carrier, p.member, p.reads_as) for p in reading.problems] == [(_RESULT, "token", "unusable")]
    assert _messages(logged) == _each_logged_once(reading)


# --- the expiry, by the current time unless told ---------------------------------------------------------------------


@pytest.mark.parametrize(("expires_at", "followed"), [("9999-12-31T23:59:59Z", True), ("2000-01-01T00:00:00Z", False)])
def test_without_now_the_expiry_is_judged_by_the_current_utc_time(expires_at: str, followed: bool) -> None:
    reading = read_continuation(cursor_tool(), result({**_GOOD, "expiresAt": expires_at}), original_arguments={})
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
        read_continuation(cursor_tool(), result(_GOOD), original_arguments={}, now=datetime(2026, 12, 1, 10, 0, 0))


def test_a_result_dumped_with_python_field_names_is_refused() -> None:
    # Read as wire JSON its `meta` would be no carrier, and a partial result would read as having no continuation.
    with pytest.raises(ValueError, match="Python field names meta"):
        read_continuation(cursor_tool(), {"content": [], "meta": {CONTINUATION_ID: _GOOD}}, original_arguments={})


# --- the tool's declaration ------------------------------------------------------------------------------------------


def test_a_declaration_without_an_argument_is_reported_missing_once(logged: pytest.LogCaptureFixture) -> None:
    reading = read_continuation(cursor_tool(declaration={}), result(_GOOD), original_arguments={}, now=_NOW)
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
    reading = read_continuation(cursor_tool(declaration=declaration), result(_GOOD), original_arguments={}, now=_NOW)
    assert reading.present and reading.usable is None
    assert [(p.carrier, p.member, p.reads_as) for p in reading.problems] == [
        (_TOOL, member, reads_as),
        (_RESULT, "argument", "unusable"),
    ]
    assert reading.problems[1].detail == "the tool declares no continuation argument, so 'cursor' cannot be followed"


# --- a carrier the message gave twice ---------------------------------------------------------------------------------


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
    reading = read_continuation(parse_json(text), result(_GOOD), original_arguments={}, now=_NOW)
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
    reading = read_continuation(twice, result(_GOOD), original_arguments={}, now=_NOW)
    assert reading == ContinuationReading(
        True,
        None,
        (
            Problem(_TOOL, None, "carrier key given more than once in _meta", "unclean"),
            unusable("argument", "the tool declares no continuation argument, so 'cursor' cannot be followed"),
        ),
    )


# --- a continuation that does not say what to call --------------------------------------------------------------------


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
    reading = read_continuation(cursor_tool(), result(continuation), original_arguments={}, now=_NOW)
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
        cursor_tool(declaration=declaration), result(continuation), original_arguments={}, now=_NOW
    )
    assert reading == ContinuationReading(True, None, (other, _MISSING))
