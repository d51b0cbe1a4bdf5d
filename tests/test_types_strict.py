"""The generated models are strict where the types say so; what a reader makes of everything else is `reading`'s."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from mcp_rendering._generated import (
    CallToolResultDelta,
    Rendering,
    RenderingHints,
    ResultContinuation,
    ResultContinuationTool,
    ToolAnnotationsDelta,
)

_BOOLEAN_FIELDS: list[tuple[type[BaseModel], str, dict[str, Any]]] = [
    (RenderingHints, "verbatimHint", {}),
    (RenderingHints, "summarizeOkHint", {}),
    (ToolAnnotationsDelta, "verbatimHint", {}),
    (ToolAnnotationsDelta, "summarizeOkHint", {}),
    (Rendering, "complete", {}),
]


@pytest.mark.parametrize("value", ["yes", "true", "1", 1, 0, 1.0])
@pytest.mark.parametrize(
    ("model", "field", "base"), _BOOLEAN_FIELDS, ids=[f"{m.__name__}.{f}" for m, f, _ in _BOOLEAN_FIELDS]
)
def test_booleans_are_not_coerced(model: type[BaseModel], field: str, base: dict[str, Any], value: Any) -> None:
    with pytest.raises(ValidationError):
        model.model_validate({**base, field: value})
    with pytest.raises(ValidationError):
        model.model_validate_json(json.dumps({**base, field: value}))
    assert model.model_validate({**base, field: True}).model_dump(by_alias=True)[field] is True


@pytest.mark.parametrize(
    "rendering",
    [
        {"mode": "verbatim"},  # completeness not stated
        {"mode": 1, "complete": True},
        {"mode": ["verbatim"], "complete": True},
        {"guidance": "g" * 1001, "complete": True},
        {"guidance": "\U0001f4ca" * 1001, "complete": True},
        {"guidance": 42, "complete": True},
        {"nullDisplay": "n" * 17, "complete": True},
        {"nullDisplay": "", "complete": True},
        {"nullDisplay": " ", "complete": True},
        {"nullDisplay": " \u3164 ", "complete": True},
        {"nullDisplay": "0", "complete": True},
        {"nullDisplay": "n/a 0", "complete": True},
        {"nullDisplay": "\u200b", "complete": True},
        {"nullDisplay": "-\n-", "complete": True},
        {"complete": "false"},
        {"complete": None},
    ],
)
def test_invalid_directives_are_rejected(rendering: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Rendering.model_validate(rendering)


EXPIRY = {"expiresAt": "2026-12-02T10:00:00Z"}


@pytest.mark.parametrize(
    "continuation",
    [
        {"argument": "cursor", **EXPIRY},
        {"argument": "cursor", "token": "t"},
        {"argument": "1cursor", "token": "t", **EXPIRY},
        {"argument": "a" * 65, "token": "t", **EXPIRY},
        {"argument": "cursor", "token": "", **EXPIRY},
        {"argument": "cursor", "token": "t" * 4097, **EXPIRY},
        {"argument": "cursor", "token": "a b", **EXPIRY},
        {"argument": "cursor", "token": "ok\n", **EXPIRY},
        {"argument": "cursor", "token": 12345, **EXPIRY},
        {"argument": "cursor", "token": "t", "expiresAt": None},
        {"argument": "cursor", "token": "t", "expiresAt": "2026-12-02T10:00:00+01:00"},
        {"argument": "cursor", "token": "t", "expiresAt": "tomorrow"},
    ],
)
def test_invalid_continuations_are_rejected(continuation: dict[str, Any]) -> None:
    """Each case breaks one rule, the others kept: a server always states `expiresAt` (a reader is lenient)."""
    assert ResultContinuation.model_validate({"argument": "cursor", "token": "t", **EXPIRY}).token == "t"
    with pytest.raises(ValidationError):
        ResultContinuation.model_validate(continuation)


def test_result_directive_must_be_an_object() -> None:
    for value in (42, "verbatim", [], True):
        with pytest.raises(ValidationError):
            CallToolResultDelta.model_validate({"_rendering": value})
    assert CallToolResultDelta.model_validate({"_rendering": None}).rendering is None


@pytest.mark.parametrize("mode", ["verbatim", "summarizable", "tabular", "Verbatim", None])
def test_mode_is_an_open_string(mode: str | None) -> None:
    assert Rendering.model_validate({"mode": mode, "complete": True}).mode == mode


@pytest.mark.parametrize(
    "text", ["n/a", "N/A", "null", "none", "nil", "not reported", "missing", "—n/a—", "— néant —", "(vide)", "n/a…"]
)
def test_usable_null_texts_pass(text: str) -> None:
    assert Rendering.model_validate({"nullDisplay": text, "complete": True}).null_display == text


@pytest.mark.parametrize("text", ["-", "\u2014", "\u2013", "--", " - ", "…", "O.OO", "無", "néant", "нет", "なし"])
def test_a_dash_or_a_text_of_any_script_passes(text: str) -> None:
    """Any text neither blank nor numeric: a dash (the seed's own convention) and every script."""
    assert Rendering.model_validate({"nullDisplay": text, "complete": True}).null_display == text


@pytest.mark.parametrize(
    "text",
    [" ", "\u3164", "\u2800", "\u200b", "0", "\u0663", "\u216b", "\u00bd", "n/a\u0007", "\u202e-", "-\n"],
)
def test_a_blank_invisible_numeric_control_or_format_null_text_fails(text: str) -> None:
    with pytest.raises(ValidationError):
        Rendering.model_validate({"nullDisplay": text, "complete": True})


def test_limits_are_inclusive() -> None:
    rendering = Rendering.model_validate(
        {"mode": "summarizable", "guidance": "g" * 1000, "nullDisplay": "n" * 16, "complete": True}
    )
    assert rendering.guidance is not None and rendering.null_display is not None
    continuation = ResultContinuation.model_validate({"argument": "_" + "a" * 63, "token": "t" * 4096, **EXPIRY})
    assert len(continuation.token) == 4096
    assert Rendering.model_validate({"guidance": "\U0001f4ca" * 1000, "complete": True}).guidance is not None
    assert ResultContinuationTool.model_validate({"argument": "cursor"}).argument == "cursor"
