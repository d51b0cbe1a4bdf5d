"""What the reader reports of a carrier as a whole: the problem it names and logs for an unregistered mode, a
carrier that is no object and an altered as-sent mark; the refusal of a dict dumped by Python field names; and the
`_meta` a model keeps as an extra member beside a `meta` field of its own."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from mcp_rendering.reading import (
    AS_SENT,
    Directive,
    Problem,
    read_directive,
    read_tool_hints,
    resolve_rendering,
)
from mcp_rendering.types import EXTENSION_ID, RenderingHints

RESULT_META = f"CallToolResult._meta[{EXTENSION_ID!r}]"
TOOL_META = f"Tool._meta[{EXTENSION_ID!r}]"
SCHEMA = {"type": "object"}


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger="mcp_rendering")
    return caplog


# --- an unregistered mode: read verbatim, reported on its carrier, logged once ----------------------------------------


@pytest.mark.parametrize(
    ("result", "core_form", "carrier"),
    [
        ({"content": [], "_meta": {EXTENSION_ID: {"mode": "sideways"}}}, False, RESULT_META),
        ({"content": [], "_rendering": {"mode": "sideways"}}, True, "CallToolResult._rendering"),
    ],
    ids=["_meta", "core form"],
)
def test_an_unregistered_mode_is_reported_on_the_carrier_it_came_in(
    result: dict[str, Any], core_form: bool, carrier: str, logged: pytest.LogCaptureFixture
) -> None:
    effective = resolve_rendering(None, result, core_form=core_form)
    assert effective.mode == "verbatim" and not effective.registered_mode
    assert effective.problems == (Problem(carrier, "mode", "'sideways' is not a registered value", "verbatim"),)
    assert logged.messages == [f"unregistered {carrier}.mode: 'sideways' is not a registered value; read as verbatim"]


# --- a carrier that is no object: the problem names the carrier alone ------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "result", "message"),
    [
        (
            None,
            {"content": [], "_meta": {EXTENSION_ID: "summarizable"}},
            f"malformed {RESULT_META}: a string, not an object; "
            "read as mode verbatim, complete not stated, guidance absent, nullDisplay absent",
        ),
        (
            {"name": "t", "inputSchema": SCHEMA, "_meta": {EXTENSION_ID: [True]}},
            None,
            f"malformed {TOOL_META}: an array, not an object; read as verbatimHint true, summarizeOkHint false",
        ),
    ],
    ids=["directive", "hints"],
)
def test_a_carrier_that_is_no_object_is_logged_without_a_member_name(
    tool: Any, result: Any, message: str, logged: pytest.LogCaptureFixture
) -> None:
    effective = resolve_rendering(tool, result)
    assert effective.mode == "verbatim"
    assert [problem.member for problem in effective.problems] == [None]
    assert logged.messages == [message]


# --- an altered as-sent mark: one problem of the whole carrier, which reads unclean ----------------------------------

_MARK = {"summarizeOkHint": True}  # a well-formed value, which a mark never holds


@pytest.mark.parametrize(
    ("tool", "carrier"),
    [
        (
            {"name": "t", "inputSchema": SCHEMA, "_meta": {EXTENSION_ID: {"summarizeOkHint": True, AS_SENT: _MARK}}},
            TOOL_META,
        ),
        (
            {"name": "t", "inputSchema": SCHEMA, "annotations": {"summarizeOkHint": True, AS_SENT: _MARK}},
            "Tool.annotations",
        ),
    ],
    ids=["_meta", "annotations"],
)
def test_an_altered_as_sent_mark_makes_the_hints_unclean_and_is_reported_on_their_carrier(
    tool: dict[str, Any], carrier: str, logged: pytest.LogCaptureFixture
) -> None:
    effective = resolve_rendering(tool, None, core_form=True)
    assert effective.hints == RenderingHints(verbatim_hint=True, summarize_ok_hint=False)
    detail = f"{AS_SENT} mark altered (got {_MARK!r})"
    assert effective.problems == (Problem(carrier, None, detail, "unclean"),)
    assert logged.messages == [f"malformed {carrier}: {detail}; read as unclean"]


def test_an_altered_as_sent_mark_on_a_directive_reads_unclean_on_its_carrier() -> None:
    result = {"content": [], "_meta": {EXTENSION_ID: {"mode": "summarizable", AS_SENT: "mode"}}}
    effective = resolve_rendering(None, result)
    assert effective.mode == "verbatim"
    assert effective.problems == (Problem(RESULT_META, None, f"{AS_SENT} mark altered (got 'mode')", "unclean"),)


# --- a dict dumped by Python field names: refused, saying how to dump it ---------------------------------------------


def test_a_dict_dumped_by_python_field_names_is_refused_naming_each_and_the_remedy() -> None:
    with pytest.raises(ValueError) as refused:
        read_directive({"content": [], "meta": {EXTENSION_ID: {"mode": "summarizable"}}, "is_error": True})
    assert str(refused.value) == (
        "the message holds the Python field names meta, is_error, not the wire names (_meta, structuredContent, "
        "isError, inputSchema, outputSchema): dump the model with by_alias=True"
    )


# --- a model whose own `meta` field is not the wire `_meta` -----------------------------------------------------------


class _OwnMetaResult(BaseModel):
    """A model with a `meta` field of its own (no `_meta` alias): the wire `_meta` is kept as an extra member."""

    model_config = ConfigDict(extra="allow")
    content: list[Any] = []
    meta: dict[str, Any] | None = None


class _OwnMetaTool(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    inputSchema: dict[str, Any]
    meta: dict[str, Any] | None = None


def test_a_model_reads_the_meta_it_keeps_as_an_extra_member_beside_an_unset_meta_field() -> None:
    """Read as its wire JSON, where the extra member is the `_meta` it sends."""
    wire = {"content": [], "_meta": {EXTENSION_ID: {"mode": "summarizable", "complete": True}}}
    result = _OwnMetaResult.model_validate(wire)
    assert result.meta is None and result.model_dump(by_alias=True, exclude_none=True) == wire
    assert read_directive(result) == Directive("summarizable", "complete", wire_mode="summarizable")
    tool = _OwnMetaTool.model_validate(
        {"name": "t", "inputSchema": SCHEMA, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
    )
    assert read_tool_hints(tool) == RenderingHints(verbatim_hint=True)
