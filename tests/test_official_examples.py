"""The specification's own example instances parse and dump identically with and without the patch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types
import pytest

import mcp_rendering

OFFICIAL = Path(__file__).parent / "fixtures/official/2026-07-28"
MODELS: dict[str, type[Any]] = {
    "Tool": mcp_types.Tool,
    "CallToolResult": mcp_types.CallToolResult,
    "ListToolsResult": mcp_types.ListToolsResult,
    "TextContent": mcp_types.TextContent,
    "ResourceLink": mcp_types.ResourceLink,
    "EmbeddedResource": mcp_types.EmbeddedResource,
}
CASES = sorted(path for name in MODELS for path in (OFFICIAL / name).glob("*.json"))


def _round_trip(model: type[Any], instance: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    parsed = model.model_validate(instance, by_name=False)
    return parsed.model_dump(by_alias=True, mode="json", exclude_none=True), parsed.model_dump()


def test_every_tool_type_has_official_examples() -> None:
    assert {path.parent.name for path in CASES} >= {"Tool", "CallToolResult", "ListToolsResult"}


@pytest.mark.parametrize("path", CASES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_official_example_parses_identically_patched_and_unpatched(path: Path) -> None:
    model = MODELS[path.parent.name]
    instance = json.loads(path.read_text())
    mcp_rendering.uninstall()
    unpatched = _round_trip(model, instance)
    with mcp_rendering.installed():
        patched = _round_trip(model, instance)
    assert patched == unpatched
