"""The generated models are strict where the contract says so and lenient only about unknown members."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from mcp_rendering._generated import (
    CallToolResultDelta,
    Rendering,
    RenderingContinuation,
    RenderingHints,
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
    # Real booleans pass, under the wire name and under the field name.
    assert model.model_validate({**base, field: True}).model_dump(by_alias=True)[field] is True


@pytest.mark.parametrize(
    "rendering",
    [
        {"mode": 1},
        {"mode": ["verbatim"]},
        {"mode": "verbatim", "guidance": "g" * 1001},
        {"mode": "verbatim", "guidance": "\U0001f4ca" * 1001},
        {"mode": "verbatim", "guidance": 42},
        {"mode": "verbatim", "nullDisplay": "n" * 17},
        {"mode": "verbatim", "complete": "false"},
        {"mode": "verbatim", "continuation": {"argument": "cursor"}},
        {"mode": "verbatim", "continuation": {"argument": "1cursor", "token": "t"}},
        {"mode": "verbatim", "continuation": {"argument": "a" * 65, "token": "t"}},
        {"mode": "verbatim", "continuation": {"argument": "cursor", "token": ""}},
        {"mode": "verbatim", "continuation": {"argument": "cursor", "token": "t" * 4097}},
        {"mode": "verbatim", "continuation": {"argument": "cursor", "token": "a b"}},
        {"mode": "verbatim", "continuation": {"argument": "cursor", "token": "ok\n"}},
        {"mode": "verbatim", "continuation": {"argument": "cursor", "token": 12345}},
    ],
)
def test_invalid_directives_are_rejected(rendering: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Rendering.model_validate(rendering)
    with pytest.raises(ValidationError):
        CallToolResultDelta.model_validate({"_rendering": rendering})


def test_result_directive_must_be_an_object() -> None:
    for value in (42, "verbatim", [], True):
        with pytest.raises(ValidationError):
            CallToolResultDelta.model_validate({"_rendering": value})
    # null means absent, for the models as for the schema.
    assert CallToolResultDelta.model_validate({"_rendering": None}).rendering is None


@pytest.mark.parametrize("rendering", [{}, {"mode": "tabular"}, {"mode": "Verbatim"}, {"mode": None, "guidance": None}])
def test_mode_is_an_open_string_and_every_member_optional(rendering: dict[str, Any]) -> None:
    assert Rendering.model_validate(rendering).mode == rendering.get("mode")


def test_limits_are_inclusive() -> None:
    rendering = Rendering.model_validate(
        {
            "mode": "summarizable",
            "guidance": "g" * 1000,
            "nullDisplay": "n" * 16,
            "continuation": {"argument": "_" + "a" * 63, "token": "t" * 4096},
        }
    )
    assert rendering.continuation == RenderingContinuation(argument="_" + "a" * 63, token="t" * 4096)
    assert Rendering.model_validate({"guidance": "\U0001f4ca" * 1000}).guidance is not None  # code points


def test_unknown_members_are_ignored() -> None:
    """Forward compatibility: a member added by a later revision neither fails nor survives re-serialization."""
    rendering = Rendering.model_validate({"mode": "verbatim", "layout": {"columns": 3}, "nullDisplay": "n/a"})
    assert rendering.model_dump(by_alias=True, exclude_none=True) == {"mode": "verbatim", "nullDisplay": "n/a"}


def test_wire_names_and_field_names_both_populate() -> None:
    by_alias = CallToolResultDelta.model_validate({"_rendering": {"mode": "verbatim", "nullDisplay": "-"}})
    by_name = CallToolResultDelta(rendering=Rendering(mode="verbatim", null_display="-"))
    assert by_alias == by_name
    assert by_name.model_dump(by_alias=True, exclude_none=True) == {
        "_rendering": {"mode": "verbatim", "nullDisplay": "-"}
    }
    assert ToolAnnotationsDelta(verbatim_hint=True).model_dump(by_alias=True, exclude_none=True) == {
        "verbatimHint": True
    }
