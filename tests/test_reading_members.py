"""How the reader reads one directive carrier member by member: a carrier given more than once keeps what it states
but reads unclean, a repeated member and an altered repetition mark are reported on their member, every malformed
member is reported (not only the first), a model given as a member is judged in its wire form, and the log names an
unknown member as unknown."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel

from mcp_rendering.reading import (
    REPEATED_CARRIER,
    REPEATED_MEMBERS,
    Directive,
    Problem,
    parse_json,
    read_directive,
    read_rendering_object,
    resolve_rendering,
)
from mcp_rendering.types import EXTENSION_ID

RESULT_META = f"CallToolResult._meta[{EXTENSION_ID!r}]"
META_TWICE = Problem(RESULT_META, None, "_meta given more than once in the message", "unclean")


def _result(carrier: Any) -> dict[str, Any]:
    return {"content": [], "_meta": {EXTENSION_ID: carrier}}


def _problems(carrier: Any) -> tuple[Problem, ...]:
    return resolve_rendering(None, _result(carrier)).problems


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger="mcp_rendering")
    return caplog


# --- a carrier given more than once: what the kept value states is read, member by member, but in doubt -------------


def test_a_carrier_given_twice_keeps_its_well_formed_members_and_reports_its_malformed_ones_on_it() -> None:
    directive, problems = read_rendering_object(
        {"mode": "summarizable", "guidance": "sorted by date", "complete": "yes"}, repeated=(META_TWICE,)
    )
    assert directive == Directive(
        mode="verbatim", guidance="sorted by date", wire_mode="summarizable", completeness="not-stated", clean=False
    )
    assert problems == (
        META_TWICE,
        Problem(RESULT_META, "complete", "Input should be a valid boolean (got 'yes')", "not stated"),
    )


@pytest.mark.parametrize(
    ("carrier", "repeated"),
    [({"mode": "summarizable"}, (META_TWICE,)), ("summarizable", ())],
    ids=["given twice", "no object"],
)
def test_a_directive_in_doubt_reads_unclean_as_a_boolean(carrier: Any, repeated: tuple[Problem, ...]) -> None:
    directive, _ = read_rendering_object(carrier, repeated=repeated)
    assert directive is not None
    assert directive.clean is False  # `clean` is a bool a host may compare or serialise, never merely falsy


# --- repetition inside the carrier, and its marks ----------------------------------------------------------------


def test_a_member_given_twice_is_reported_on_that_member_and_makes_the_carrier_unclean() -> None:
    carrier = '{"mode": "verbatim", "mode": "summarizable"}'
    text = f'{{"content": [], "_meta": {{"{EXTENSION_ID}": {carrier}}}}}'
    rendering = resolve_rendering(None, parse_json(text))
    assert rendering.problems == (Problem(RESULT_META, "mode", "member given more than once", "unclean"),)
    assert rendering.mode == "verbatim"


def test_a_repetition_mark_naming_members_reports_each_once_and_nothing_else() -> None:
    assert _problems({"mode": "summarizable", REPEATED_MEMBERS: ["mode"]}) == (
        Problem(RESULT_META, "mode", "member given more than once", "unclean"),
    )


@pytest.mark.parametrize("mark", [[], "mode", {"mode": 2}], ids=["emptied", "a string", "an object"])
def test_an_emptied_or_altered_repetition_mark_is_reported_as_itself_and_reads_unclean(mark: Any) -> None:
    carrier = {"mode": "summarizable", REPEATED_MEMBERS: mark}
    assert _problems(carrier) == (Problem(RESULT_META, REPEATED_MEMBERS, "not a member of this carrier", "unclean"),)
    directive = read_directive(_result(carrier))
    assert directive is not None
    assert (directive.mode, directive.clean) == ("verbatim", False)


@pytest.mark.parametrize("mark", [True, None, "altered"])
def test_a_carrier_marked_as_given_twice_is_reported_as_such_whatever_the_mark_holds(mark: Any) -> None:
    assert _problems({"mode": "summarizable", REPEATED_CARRIER: mark}) == (
        Problem(RESULT_META, None, "carrier given more than once in the message", "unclean"),
    )


# --- malformed members ------------------------------------------------------------------------------------------


def test_every_malformed_member_is_reported_with_its_own_safe_reading() -> None:
    assert _problems({"mode": 1, "guidance": 2, "nullDisplay": "-"}) == (
        Problem(RESULT_META, "mode", "Input should be a valid string (got 1)", "verbatim"),
        Problem(RESULT_META, "guidance", "Input should be a valid string (got 2)", "absent"),
    )


class _Guidance(BaseModel):
    text: str


def test_a_model_given_as_a_member_is_judged_in_its_wire_form_not_read_as_absent() -> None:
    # An object where a string belongs is malformed, whether it came as a dict or as a model built in-process.
    carrier = {"mode": "summarizable", "guidance": _Guidance.model_construct(text="newest first")}
    assert _problems(carrier) == (
        Problem(RESULT_META, "guidance", "Input should be a valid string (got {'text': 'newest first'})", "absent"),
    )
    directive = read_directive(_result(carrier))
    assert directive is not None
    assert (directive.mode, directive.clean) == ("verbatim", False)


# --- the log ------------------------------------------------------------------------------------------------------


def test_an_unknown_member_is_logged_as_unknown_and_a_malformed_one_as_malformed(
    logged: pytest.LogCaptureFixture,
) -> None:
    read_directive(_result({"mode": "verbatim", "colour": "red", "guidance": 3}))
    assert [record.getMessage() for record in logged.records] == [
        f"unknown {RESULT_META}.colour: not a member of this carrier; read as ignored",
        f"malformed {RESULT_META}.guidance: Input should be a valid string (got 3); read as absent",
    ]
