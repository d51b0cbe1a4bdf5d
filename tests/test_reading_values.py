"""The reader's handling of values: how a problem quotes a malformed value, SDK models of either line read as the
wire JSON the SDK sends, an expiry read to the second, and which numbers a message may hold."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import mcp_types
import pytest
from pydantic import BaseModel, ConfigDict, Field

from mcp_rendering.reading import (
    Directive,
    FollowableContinuation,
    Problem,
    check_finite_numbers,
    read_continuation,
    read_directive,
    read_rendering_object,
    read_tool_hints,
    resolve_rendering,
)
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, Rendering, RenderingHints
from tests.support.carriers import cursor_schema, cursor_tool

_RESULT_META = f"CallToolResult._meta[{EXTENSION_ID!r}]"
_RESULT_CONTINUATION = f"CallToolResult._meta[{CONTINUATION_ID!r}]"
_NOW = datetime(2026, 12, 1, 10, 20, 0, tzinfo=timezone.utc)


# --- a malformed value, as its problem quotes it -------------------------------------------------------------------


def _deep(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        (["a" * 36, "b" * 36], repr(["a" * 36, "b" * 36])),  # 80 characters: quoted whole
        (["a" * 36, "b" * 37], repr(["a" * 36, "b" * 37])[:77] + "..."),  # 81: cut to 80, the cut marked
        (_deep(10_000), "[[[[...]]]]"),  # however deep: bounded, never a recursion past the stack
    ],
    ids=["80 characters", "81 characters", "nested 10000 deep"],
)
def test_a_malformed_value_is_quoted_in_its_problem_in_at_most_80_characters(value: Any, quoted: str) -> None:
    directive, problems = read_rendering_object({"mode": "summarizable", "guidance": value})
    assert directive is not None and directive.mode == "verbatim" and directive.guidance is None
    assert problems == (Problem(_RESULT_META, "guidance", f"Input should be a valid string (got {quoted})"),)


# --- SDK models, read as the wire JSON the SDK sends ---------------------------------------------------------------


def test_a_model_held_in_meta_reads_by_its_wire_names() -> None:
    """A server may put the extension's own models in `_meta`: the SDK sends them by alias (`nullDisplay`,
    `verbatimHint`), so their Python names (`null_display`) are never what the reader reads."""
    hints = RenderingHints(verbatim_hint=True)
    tool = mcp_types.Tool.model_validate(
        {"name": "ledger", "inputSchema": cursor_schema(), "_meta": {EXTENSION_ID: hints}}
    )
    assert read_tool_hints(tool) == hints
    directive = Rendering(mode="summarizable", null_display="—", complete=True)
    result = mcp_types.CallToolResult.model_validate({"content": [], "_meta": {EXTENSION_ID: directive}})
    expected = Directive("summarizable", "complete", null_display="—", wire_mode="summarizable")
    assert read_directive(result) == expected
    assert read_directive(result.model_dump(mode="json", by_alias=True, exclude_none=True)) == expected


@pytest.mark.parametrize("expires_at", [None, "2026-12-02T10:15:00Z"])
def test_a_followed_continuation_held_in_meta_reads_as_it_came(expires_at: str | None) -> None:
    """Dumped as the SDK sends it, a continuation without an expiry leaves `expiresAt` out, which is usable; a
    `null` there would name no time, and be unusable."""
    continuation = FollowableContinuation(argument="cursor", token="v1.k1", expiresAt=expires_at)
    result = mcp_types.CallToolResult.model_validate({"content": [], "_meta": {CONTINUATION_ID: continuation}})
    reading = read_continuation(cursor_tool(), result, original_arguments={"year": 2025}, now=_NOW)
    assert (reading.present, reading.usable, reading.problems) == (True, continuation, ())


class _Tool1x(BaseModel):
    """A `Tool` of the SDK's 1.x line: its fields carry the wire names (`inputSchema`), `_meta` by alias."""

    model_config = ConfigDict(extra="allow")
    name: str
    inputSchema: dict[str, Any]
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class _Result1x(BaseModel):
    """A `CallToolResult` of the SDK's 1.x line: `isError`, `_meta` by alias."""

    model_config = ConfigDict(extra="allow")
    content: list[Any] = Field(default_factory=list[Any])
    isError: bool = False
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


@pytest.mark.parametrize(("is_error", "mode"), [(True, "verbatim"), (False, "summarizable")])
def test_an_error_of_a_verbatim_tool_stays_verbatim_from_the_1x_models_too(is_error: bool, mode: str) -> None:
    tool = _Tool1x.model_validate(cursor_tool({"verbatimHint": True}))
    result = _Result1x.model_validate({"isError": is_error, "_meta": {EXTENSION_ID: {"mode": "summarizable"}}})
    assert resolve_rendering(tool, result).mode == mode


def test_a_continuation_is_followed_from_the_1x_models_too() -> None:
    """The declared argument is checked against the 1.x `inputSchema`, as against the 2.x `input_schema`."""
    tool = _Tool1x.model_validate(cursor_tool())
    result = _Result1x.model_validate({"_meta": {CONTINUATION_ID: {"argument": "cursor", "token": "v1.k1"}}})
    effective = resolve_rendering(tool, result, call_arguments={"year": 2025}, now=_NOW)
    assert effective.continuation == FollowableContinuation(argument="cursor", token="v1.k1")
    assert effective.problems == ()


# --- expiry ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expires_at", "usable"),
    [
        ("2026-12-01T10:30:15Z", True),  # ten minutes after now
        ("2026-12-01T10:20:01Z", True),  # one second after now
        ("2026-12-01T10:15:30Z", False),  # four and a half minutes before
        ("2026-12-01T10:20:00Z", False),  # now: expired
    ],
)
def test_an_expiry_is_read_to_the_second(expires_at: str, usable: bool) -> None:
    continuation = {"argument": "cursor", "token": "v1.k1", "expiresAt": expires_at}
    result = {"content": [], "_meta": {CONTINUATION_ID: continuation}}
    reading = read_continuation(cursor_tool(), result, original_arguments={"year": 2025}, now=_NOW)
    assert (reading.usable is not None) is usable
    expired = () if usable else (Problem(_RESULT_CONTINUATION, "expiresAt", f"expired at {expires_at}", "unusable"),)
    assert reading.problems == expired


# --- numbers JSON can hold -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "refused"),
    [
        (Decimal("1E+400"), False),  # beyond a double, yet finite: JSON holds it as written
        (Decimal("-1E+400"), False),
        (Decimal("Infinity"), True),
        (Decimal("sNaN"), True),  # a signalling NaN, which no float conversion takes
        (Decimal("-sNaN"), True),
    ],
)
def test_a_decimal_is_judged_as_the_exact_number_it_is_never_through_a_float(amount: Decimal, refused: bool) -> None:
    message = {"content": [], "structuredContent": {"rows": [{"amount": amount}]}}
    if refused:
        with pytest.raises(ValueError, match=rf"holds the number {re.escape(str(amount))}, which JSON cannot hold"):
            check_finite_numbers(message)
    else:
        check_finite_numbers(message)  # returns: nothing refused
