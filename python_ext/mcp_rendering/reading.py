"""Reading the rendering hints and directive from whatever carrier a peer used, with one precedence rule.

Precedence, implemented here and nowhere else:

1. The result level comes before the tool level: a valid directive on the result decides the mode.
2. At each level the core field comes before the transitional `_meta` carrier
   (`_meta["io.modelcontextprotocol/rendering"]`).
3. Field by field, the first valid value wins; a malformed value reads as absent (a warning is logged) and the next
   carrier applies. Nothing is coerced: the string "yes" is not true.
4. From the tool's hints: `verbatimHint` true gives "verbatim", even when `summarizeOkHint` is also true; otherwise
   `summarizeOkHint` true gives "summarizable"; otherwise the mode is "unspecified" and the host keeps its default.

Every function accepts the SDK's models (patched or not) or plain wire dictionaries (camelCase JSON).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, cast

from pydantic import BaseModel, ValidationError

from mcp_rendering.types import EXTENSION_ID, EffectiveMode, Rendering, RenderingContinuation, RenderingHints

__all__ = [
    "DEFAULT_NULL_DISPLAY",
    "DirectiveSource",
    "EffectiveRendering",
    "read_directive",
    "read_tool_hints",
    "resolve_rendering",
]

logger = logging.getLogger("mcp_rendering")

DEFAULT_NULL_DISPLAY = "-"
"""What a null value shows as when the directive does not say (`Rendering.nullDisplay`'s default)."""

DirectiveSource: TypeAlias = Literal["result._rendering", "result._meta", "tool.annotations", "tool._meta", "none"]
"""Which carrier decided the effective mode."""

_HINT_FIELDS = (("verbatim_hint", "verbatimHint"), ("summarize_ok_hint", "summarizeOkHint"))


@dataclass(frozen=True)
class EffectiveRendering:
    """The outcome of reading every carrier of one tool and one result."""

    mode: EffectiveMode
    directive: Rendering | None
    """The result's directive, when it carried a valid one."""
    hints: RenderingHints
    """The tool's hints as read, carrier by carrier."""
    source: DirectiveSource

    @property
    def guidance(self) -> str | None:
        """The server's presentation guidance, if any."""
        return None if self.directive is None else self.directive.guidance

    @property
    def null_display(self) -> str:
        """The text to show for a null value."""
        if self.directive is None or self.directive.null_display is None:
            return DEFAULT_NULL_DISPLAY
        return self.directive.null_display

    @property
    def complete(self) -> bool:
        """False when the result is a bounded page of a larger whole."""
        return self.directive is None or self.directive.complete is not False

    @property
    def continuation(self) -> RenderingContinuation | None:
        """How to ask for the rest of an incomplete result."""
        return None if self.directive is None else self.directive.continuation


def _as_mapping(obj: Any) -> Mapping[str, Any] | None:
    """The wire form of a model or a dict. Patched SDK models dump their new fields under their wire names."""
    if obj is None:
        return None
    if isinstance(obj, BaseModel):
        return obj.model_dump(by_alias=True, mode="json", exclude_none=True)
    if isinstance(obj, Mapping):
        return cast("Mapping[str, Any]", obj)
    return None


def _meta_entry(wire: Mapping[str, Any] | None) -> Any:
    if wire is None:
        return None
    meta = wire.get("_meta")
    return cast("Mapping[str, Any]", meta).get(EXTENSION_ID) if isinstance(meta, Mapping) else None


_ABSENT: Any = object()


def _strict_bool(carrier: Mapping[str, Any], key: str, where: str) -> bool | None:
    """The boolean under `key`, or None when it is absent or malformed (an explicit null is malformed too)."""
    value = carrier.get(key, _ABSENT)
    if value is _ABSENT:
        return None
    if isinstance(value, bool):
        return value
    logger.warning("ignoring malformed %s (%r): not a boolean", where, value)
    return None


def _parse_directive(value: Any, where: str) -> Rendering | None:
    if value is None:
        return None
    try:
        return Rendering.model_validate(value, strict=True)
    except ValidationError as error:
        logger.warning("ignoring malformed %s: %s", where, "; ".join(e["msg"] for e in error.errors(include_url=False)))
        return None


def _read_hints_with_sources(tool: Any) -> tuple[RenderingHints, dict[str, DirectiveSource]]:
    wire = _as_mapping(tool)
    annotations = _as_mapping(wire.get("annotations")) if wire is not None else None
    mirror: Any = _meta_entry(wire)
    mirror_map = cast("Mapping[str, Any]", mirror) if isinstance(mirror, Mapping) else None
    if mirror is not None and mirror_map is None:
        logger.warning("ignoring malformed Tool._meta[%r]: not an object", EXTENSION_ID)
    values: dict[str, bool | None] = {}
    sources: dict[str, DirectiveSource] = {}
    for name, wire_name in _HINT_FIELDS:
        value = None
        if annotations is not None:
            value = _strict_bool(annotations, wire_name, f"annotations.{wire_name}")
            if value is not None:
                sources[name] = "tool.annotations"
        if value is None and mirror_map is not None:
            value = _strict_bool(mirror_map, wire_name, f"_meta[{EXTENSION_ID!r}].{wire_name}")
            if value is not None:
                sources[name] = "tool._meta"
        values[name] = value
    hints = RenderingHints(verbatim_hint=values["verbatim_hint"], summarize_ok_hint=values["summarize_ok_hint"])
    return hints, sources


def read_tool_hints(tool: Any) -> RenderingHints:
    """The tool's hints, each from the first carrier holding a valid value (annotations, then `_meta`)."""
    return _read_hints_with_sources(tool)[0]


def _result_carriers(result: Any) -> tuple[Any, Any]:
    """The raw `_rendering` value and the raw `_meta` entry of a result, without dumping its content."""
    if isinstance(result, BaseModel):
        typed: Any = getattr(result, "rendering", None)
        # Re-validated like wire data: a model can be built without validation or assigned to afterwards.
        rendering = typed.model_dump(by_alias=True, exclude_none=True) if isinstance(typed, BaseModel) else typed
        meta: Any = getattr(result, "meta", None)
        return rendering, cast("Mapping[str, Any]", meta).get(EXTENSION_ID) if isinstance(meta, Mapping) else None
    wire = _as_mapping(result)
    if wire is None:
        return None, None
    return wire.get("_rendering"), _meta_entry(wire)


def _read_directive_with_source(result: Any) -> tuple[Rendering | None, DirectiveSource]:
    rendering, mirror = _result_carriers(result)
    directive = _parse_directive(rendering, "_rendering")
    if directive is not None:
        return directive, "result._rendering"
    directive = _parse_directive(mirror, f"CallToolResult._meta[{EXTENSION_ID!r}]")
    if directive is not None:
        return directive, "result._meta"
    return None, "none"


def read_directive(result: Any) -> Rendering | None:
    """The result's directive: `_rendering` if valid, else the `_meta` carrier if valid, else None."""
    return _read_directive_with_source(result)[0]


def resolve_rendering(tool: Any, result: Any) -> EffectiveRendering:
    """What a host should do with `result` of `tool`, after reading every carrier. Either may be None."""
    directive, source = _read_directive_with_source(result) if result is not None else (None, "none")
    hints, hint_sources = _read_hints_with_sources(tool) if tool is not None else (RenderingHints(), {})
    if directive is not None:
        return EffectiveRendering(directive.mode, directive, hints, source)
    if hints.verbatim_hint:
        return EffectiveRendering("verbatim", None, hints, hint_sources["verbatim_hint"])
    if hints.summarize_ok_hint:
        return EffectiveRendering("summarizable", None, hints, hint_sources["summarize_ok_hint"])
    return EffectiveRendering("unspecified", None, hints, "none")
