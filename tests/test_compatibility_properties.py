"""Backward compatibility both ways, as properties over wire payloads (issue properties c and d)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import mcp_rendering
from tests.support.strategies import core_results, core_tools, extended_results, extended_tools

REPO = Path(__file__).resolve().parents[1]
EXTENSION_KEYS = {"verbatimHint", "summarizeOkHint"}


def _upstream_validator(type_name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((REPO / "schema/upstream/2026-07-28/schema.json").read_text())
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{type_name}", "$defs": schema["$defs"]})


UPSTREAM_TOOL = _upstream_validator("Tool")
UPSTREAM_RESULT = _upstream_validator("CallToolResult")


@pytest.fixture(autouse=True)
def _unpatched() -> Iterator[None]:
    mcp_rendering.uninstall()
    yield
    mcp_rendering.uninstall()


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def _without_extension_tool(tool: dict[str, Any]) -> dict[str, Any]:
    stripped = dict(tool)
    annotations = {k: v for k, v in tool["annotations"].items() if k not in EXTENSION_KEYS}
    stripped["annotations"] = annotations
    return stripped


@given(extended_tools())
def test_an_extended_tool_parses_unpatched_with_every_other_field_equal(tool: dict[str, Any]) -> None:
    """Property (c), tools: today's SDK ignores the hints and keeps everything else; the upstream schema agrees."""
    UPSTREAM_TOOL.validate(tool)
    parsed = mcp_types.Tool.model_validate(tool, by_name=False)
    assert _dump(parsed) == _dump(mcp_types.Tool.model_validate(_without_extension_tool(tool), by_name=False))
    # The `_meta` mirror is ordinary `_meta` data to an unpatched SDK, so it survives untouched.
    assert parsed.meta == tool.get("_meta")


@given(extended_results())
def test_an_extended_result_parses_unpatched_with_every_other_field_equal(result: dict[str, Any]) -> None:
    """Property (c), results."""
    UPSTREAM_RESULT.validate(result)
    parsed = mcp_types.CallToolResult.model_validate(result, by_name=False)
    without = {k: v for k, v in result.items() if k != "_rendering"}
    assert _dump(parsed) == _dump(mcp_types.CallToolResult.model_validate(without, by_name=False))
    assert parsed.meta == result.get("_meta")


def _dumps(model_type: type[BaseModel], messages: list[dict[str, Any]]) -> list[tuple[dict[str, Any], ...]]:
    """Each message parsed and dumped in every mode the SDK and users rely on."""
    models = [model_type.model_validate(message, by_name=False) for message in messages]
    return [(_dump(model), model.model_dump(), model.model_dump(by_alias=True)) for model in models]


_PER_INSTALL = 5
"""Installing and uninstalling the patch costs more than the parses: the properties below check this many different
messages per install, with a fifth of the profile's examples, so about as many different messages as one per example
(different within a list: Hypothesis makes later examples by copying parts of earlier ones)."""


def _per_install(messages: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(messages, min_size=_PER_INSTALL, max_size=_PER_INSTALL, unique_by=_canonical)


def _canonical(message: Any) -> str:
    return json.dumps(message, sort_keys=True)


@settings(max_examples=settings().max_examples // _PER_INSTALL)
@given(_per_install(core_tools()))
def test_a_tool_without_the_extension_is_the_same_patched_and_unpatched(tools: list[dict[str, Any]]) -> None:
    """Property (d), tools: parse and dump identically, in every dump mode the SDK and users rely on."""
    unpatched = _dumps(mcp_types.Tool, tools)
    with mcp_rendering.installed():
        patched = _dumps(mcp_types.Tool, tools)
    assert patched == unpatched


@settings(max_examples=settings().max_examples // _PER_INSTALL)
@given(_per_install(core_results()))
def test_a_result_without_the_extension_is_the_same_patched_and_unpatched(results: list[dict[str, Any]]) -> None:
    """Property (d), results."""
    unpatched = _dumps(mcp_types.CallToolResult, results)
    with mcp_rendering.installed():
        patched = _dumps(mcp_types.CallToolResult, results)
    assert patched == unpatched


@settings(max_examples=settings().max_examples // _PER_INSTALL)
@given(_per_install(st.tuples(extended_tools(), extended_results())))
def test_patched_the_extension_round_trips_exactly(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """With the patch, the wire form of an extended tool and result survives parse and dump unchanged."""
    with mcp_rendering.installed():
        for tool, result in pairs:
            assert _dump(mcp_types.Tool.model_validate(tool, by_name=False)) == tool
            assert _dump(mcp_types.CallToolResult.model_validate(result, by_name=False)) == {"isError": False, **result}
