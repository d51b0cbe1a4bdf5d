"""A fingerprint of everything the patch may touch, to prove that `uninstall()` leaves the SDK as it was."""

from __future__ import annotations

import importlib
import json
import sys
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


_LAZY_CACHES = frozenset({"__pydantic_setattr_handlers__"})
"""Per-class memos pydantic fills on first use (attribute assignment), whenever that happens: not patch state."""


def _compiled_identities() -> dict[str, dict[str, int]]:
    """Identity of everything pydantic keeps on each model class and adapter of the SDK's modules: after
    `uninstall()` each must be the very object it was before `install()`. Independent of the patch's own list of
    what it replaces, so that an attribute the patch forgets to restore shows up here."""
    from mcp_rendering import patch

    # The patch's discovery of models and adapters, so that the check covers whatever the patch would touch; the
    # modules it imports first, so that the set does not depend on what happened to be imported already.
    for name in patch._SDK_MODULES:  # pyright: ignore[reportPrivateUsage]
        importlib.import_module(name)
    modules = patch._scanned_modules()  # pyright: ignore[reportPrivateUsage]
    models = patch._model_classes(modules)  # pyright: ignore[reportPrivateUsage]
    # Completing a forward-referenced model is pydantic's lazy first-use step, not a change the patch must undo.
    patch._complete_pending(models)  # pyright: ignore[reportPrivateUsage]
    identities: dict[str, dict[str, int]] = {}
    # Module-level classes only: classes made at run time (a tool's argument model, say) share names across
    # instances and come and go with the servers that made them.
    for model in (m for m in models if getattr(sys.modules.get(m.__module__), m.__qualname__, None) is m):
        identities[f"{model.__module__}.{model.__qualname__}"] = {
            name: id(value)
            for name, value in vars(model).items()
            if (name.startswith("__pydantic") or name in ("__annotations__", "__signature__", "__init__"))
            and name not in _LAZY_CACHES
        }
    for name, adapter in patch._module_adapters(modules):  # pyright: ignore[reportPrivateUsage]
        identities[name] = {attribute: id(value) for attribute, value in vars(adapter).items()}
    return identities


def fingerprint_diff(before: dict[str, Any], after: dict[str, Any]) -> str:
    """Which entries differ between two fingerprints, for an assertion message."""
    lines: list[str] = []
    for key in sorted(set(before) | set(after)):
        if key == "compiled":
            old, new = before.get(key, {}), after.get(key, {})
            for name in sorted(set(old) | set(new)):
                if old.get(name) != new.get(name):
                    attributes = set(old.get(name, {})) | set(new.get(name, {}))
                    changed = sorted(a for a in attributes if old.get(name, {}).get(a) != new.get(name, {}).get(a))
                    lines.append(f"{name}: {', '.join(changed) or 'added or removed'}")
        elif before.get(key) != after.get(key):
            lines.append(f"{key}: fields or schema")
    return "; ".join(lines)
