"""A fingerprint of everything the patch may touch, to prove that `uninstall()` leaves the SDK as it was."""

from __future__ import annotations

import json
from typing import Any

import mcp_types
from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026

WATCHED_MODELS: tuple[type[Any], ...] = (
    mcp_types.ToolAnnotations,
    mcp_types.Tool,
    mcp_types.CallToolResult,
    mcp_types.ListToolsResult,
    v2025.ToolAnnotations,
    v2025.Tool,
    v2025.CallToolResult,
    v2025.ListToolsResult,
    v2026.ToolAnnotations,
    v2026.Tool,
    v2026.CallToolResult,
    v2026.ListToolsResult,
)


def sdk_fingerprint() -> dict[str, Any]:
    """Per watched model: field names with their aliases and its JSON schema (validation and serialization)."""
    state: dict[str, Any] = {}
    for model in WATCHED_MODELS:
        name = f"{model.__module__}.{model.__qualname__}"
        state[name] = {
            "fields": sorted((field, info.alias) for field, info in model.model_fields.items()),
            "schema": json.dumps(model.model_json_schema(by_alias=True), sort_keys=True),
            "schema_serialization": json.dumps(
                model.model_json_schema(by_alias=True, mode="serialization"), sort_keys=True
            ),
            "validator": id(model.__pydantic_validator__),
        }
    return state
