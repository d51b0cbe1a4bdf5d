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
    """Per watched model: field names with their aliases and its JSON schema (validation and serialization); and, for
    every model and adapter the patch touches, the identity of the compiled objects pydantic keeps on it."""
    state: dict[str, Any] = {"compiled": _compiled_identities()}
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


def _compiled_identities() -> dict[str, dict[str, int]]:
    """Identity of everything pydantic keeps on each model class and adapter of the SDK's modules: after
    `uninstall()` each must be the very object it was before `install()`. Independent of the patch's own list of
    what it replaces, so that an attribute the patch forgets to restore shows up here."""
    from mcp_rendering import patch

    # The patch's discovery of models and adapters, so that the check covers whatever the patch would touch.
    modules = patch._scanned_modules()  # pyright: ignore[reportPrivateUsage]
    identities: dict[str, dict[str, int]] = {}
    for model in patch._model_classes(modules):  # pyright: ignore[reportPrivateUsage]
        identities[f"{model.__module__}.{model.__qualname__}"] = {
            name: id(value)
            for name, value in vars(model).items()
            if name.startswith("__pydantic") or name in ("__annotations__", "__signature__")
        }
    for name, adapter in patch._module_adapters(modules):  # pyright: ignore[reportPrivateUsage]
        identities[name] = {attribute: id(value) for attribute, value in vars(adapter).items()}
    return identities
