"""The marks `parse_json` leaves where a message repeated a member or gave a carrier twice: what the parsed message
holds, at each carrier position and in each wrapping (alone, a tools/list result, a response, a batch), and what
the reader then reads from it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_rendering.reading import (
    REPEATED_CARRIER,
    REPEATED_MEMBERS,
    duplicate_members,
    parse_json,
    resolve_rendering,
)
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

_REPEATED_DIRECTIVE = f'"_meta": {{"{EXTENSION_ID}": {{"complete": false, "complete": true}}}}'


def _read(result: Any) -> tuple[str, bool]:
    effective = resolve_rendering(None, result, core_form=True)
    return effective.mode, effective.complete


# --- the names an object repeated -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('{"a": 1, "b": 2}', ()),
        ('{"a": 1, "b": 2, "a": 3}', ("a",)),
        ('{"b": 1, "a": 2, "c": 3, "b": 4, "a": 5}', ("a", "b")),
    ],
)
def test_only_the_names_given_more_than_once_are_listed(text: str, names: tuple[str, ...]) -> None:
    assert duplicate_members(parse_json(text)) == names


def test_a_carrier_lists_only_its_repeated_members() -> None:
    text = '{"content": [], "_rendering": {"mode": "verbatim", "complete": false, "complete": true}}'
    carrier = parse_json(text)["_rendering"]
    assert carrier == {"mode": "verbatim", "complete": True, REPEATED_MEMBERS: ["complete"]}
    assert duplicate_members(carrier) == ("complete",)


def test_the_meta_of_a_message_remembers_the_carrier_key_it_repeated() -> None:
    text = f'{{"content": [], "_meta": {{"{EXTENSION_ID}": {{}}, "other": 1, "{EXTENSION_ID}": {{}}}}}}'
    parsed = parse_json(text)
    assert duplicate_members(parsed["_meta"]) == (EXTENSION_ID,)
    assert duplicate_members(parsed) == ()


# --- a carrier given twice: the one kept, marked ----------------------------------------------------------------


def test_a_core_form_carrier_given_twice_keeps_the_last_with_the_mark() -> None:
    text = '{"content": [], "_rendering": {"mode": "verbatim"}, "_rendering": {"mode": "loud", "complete": true}}'
    parsed = parse_json(text)
    assert parsed["_rendering"] == {"mode": "loud", "complete": True, REPEATED_CARRIER: True}
    effective = resolve_rendering(None, parsed, core_form=True)
    # The members kept are still read, and their own problems reported beside the repetition.
    assert [(p.member, p.reads_as) for p in effective.problems] == [(None, "unclean"), ("mode", "verbatim")]
    assert (effective.mode, effective.complete) == ("verbatim", False)


def test_a_tool_annotations_given_twice_keeps_the_last_with_the_mark() -> None:
    text = '{"name": "t", "annotations": {"verbatimHint": 1}, "annotations": {"summarizeOkHint": "yes"}}'
    parsed = parse_json(text)
    assert parsed["annotations"] == {"summarizeOkHint": "yes", REPEATED_CARRIER: True}
    problems = resolve_rendering(parsed, None, core_form=True).problems
    assert [(p.carrier, p.member) for p in problems] == [
        ("Tool.annotations", None),
        ("Tool.annotations", "summarizeOkHint"),
    ]


def test_a_carrier_key_given_twice_in_meta_keeps_the_last_with_the_mark() -> None:
    text = (
        f'{{"content": [], "_meta": {{"{EXTENSION_ID}": {{"mode": "verbatim"}}, '
        f'"{EXTENSION_ID}": {{"mode": "loud", "complete": true}}}}}}'
    )
    parsed = parse_json(text)
    assert parsed["_meta"] == {EXTENSION_ID: {"mode": "loud", "complete": True, REPEATED_CARRIER: True}}
    problems = resolve_rendering(None, parsed).problems
    assert ("mode", "verbatim") in [(p.member, p.reads_as) for p in problems]


@pytest.mark.parametrize(
    ("second", "meta"),
    [
        # The `_meta` kept keeps its members; both carriers in it are marked, as either may have been in the other.
        (
            f'{{"{EXTENSION_ID}": {{"mode": "loud"}}, "progress": 1}}',
            {
                EXTENSION_ID: {"mode": "loud", REPEATED_CARRIER: True},
                "progress": 1,
                CONTINUATION_ID: {REPEATED_CARRIER: True},
            },
        ),
        # A null `_meta` kept: an object holding the two marks alone.
        ("null", {EXTENSION_ID: {REPEATED_CARRIER: True}, CONTINUATION_ID: {REPEATED_CARRIER: True}}),
    ],
)
def test_a_meta_given_twice_marks_both_carriers_of_the_meta_kept(second: str, meta: dict[str, Any]) -> None:
    text = f'{{"content": [], "_meta": {{"{EXTENSION_ID}": {{"complete": true}}}}, "_meta": {second}}}'
    parsed = parse_json(text)
    assert parsed["_meta"] == meta
    assert duplicate_members(parsed) == ("_meta",)
    assert _read(parsed) == ("verbatim", False)


def test_a_meta_given_twice_and_kept_as_no_object_is_left_to_the_reader() -> None:
    text = f'{{"content": [], "_meta": {{"{EXTENSION_ID}": {{"complete": true}}}}, "_meta": 5}}'
    parsed = parse_json(text)
    assert parsed["_meta"] == 5
    assert _read(parsed) == ("verbatim", False)


# --- where the marks are put: each wrapping of a message ------------------------------------------------------


def _result_text(directive: str) -> str:
    return '{"content": [], ' + directive + "}"


def test_each_message_of_a_batch_is_marked() -> None:
    clean = json.dumps({"content": [], "_meta": {EXTENSION_ID: {"mode": "summarizable", "complete": True}}})
    responses = [
        f'{{"jsonrpc": "2.0", "id": {n}, "result": {body}}}'
        for n, body in enumerate((_result_text(_REPEATED_DIRECTIVE), clean))
    ]
    batch = parse_json("[" + ", ".join(responses) + "]")
    assert [_read(message["result"]) for message in batch] == [("verbatim", False), ("summarizable", True)]


def test_a_response_keeps_its_members_and_its_result_remembers_its_repetitions() -> None:
    text = '{"jsonrpc": "2.0", "id": 1, "result": {"content": [], "_rendering": {}, "_rendering": {"complete": true}}}'
    response = parse_json(text)
    assert set(response) == {"jsonrpc", "id", "result"}
    assert duplicate_members(response["result"]) == ("_rendering",)
    assert _read(response["result"]) == ("verbatim", False)


def test_an_error_response_reads_as_any_parser_gives_it() -> None:
    text = '{"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad", "data": {"a": 1, "a": 2}}}'
    assert parse_json(text) == json.loads(text)


@pytest.mark.parametrize("member", ['"result": {"a": 1}', '"tools": []'])
def test_a_result_with_a_member_named_like_a_wrapper_is_still_marked_as_a_result(member: str) -> None:
    # Without `jsonrpc` a `result` is no response, and beside `content` a `tools` list is no tools/list result.
    parsed = parse_json(_result_text(member + ", " + _REPEATED_DIRECTIVE))
    assert duplicate_members(parsed["_meta"][EXTENSION_ID]) == ("complete",)
    assert _read(parsed) == ("verbatim", False)
