"""Reading the rendering hints and the directive, member by member, failing safe.

Carriers: the normative `_meta["io.modelcontextprotocol/rendering"]` of a `Tool` (the hints) and of a
`CallToolResult` (the directive); and their core form, for promotion: `Tool.annotations.verbatimHint` and
`.summarizeOkHint`, and `CallToolResult._rendering`. The rules, implemented here and nowhere else:

1. **Member by member.** Each member (`verbatimHint`, `summarizeOkHint`; `mode`, `guidance`, `nullDisplay`,
   `complete`, `continuation`) is taken from the `_meta` carrier when it holds a well-formed value, else from the
   core form when that holds one, else it is absent. Where both are well-formed and differ, `_meta` decides.
2. **Well-formed** means what the schema delta says, checked strictly: nothing is coerced (the string "true" is not
   true), an explicit `null` means absent, lengths count code points, only the camelCase names are members, and
   unknown members are ignored. A malformed member reads as absent, with a warning on the `mcp_rendering` logger;
   the other members still apply.
3. **Mode.** A `mode` on the result decides: "summarizable" gives summarizable, "verbatim" and every unregistered
   string give verbatim. Without one, the tool's hints decide: `verbatimHint` true gives verbatim (even when
   `summarizeOkHint` is also true), else `summarizeOkHint` true gives summarizable, else the mode is "unspecified"
   and the host keeps its default.
4. **Completeness.** A result is incomplete when its `complete` is false or it carries a continuation.

Every function accepts the SDK's models (patched or not, `mcp` 1.x or 2.x) or plain wire dictionaries.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypeAlias, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from mcp_rendering.types import EXTENSION_ID, EffectiveMode, Rendering, RenderingContinuation, RenderingHints

__all__ = [
    "DEFAULT_NULL_DISPLAY",
    "Carrier",
    "EffectiveRendering",
    "Problem",
    "read_directive",
    "read_hints_object",
    "read_rendering_object",
    "read_tool_hints",
    "resolve_rendering",
]

logger = logging.getLogger("mcp_rendering")

DEFAULT_NULL_DISPLAY = "-"
"""What a null value shows as when the directive does not say (`Rendering.nullDisplay`'s default)."""

Carrier: TypeAlias = Literal["result._meta", "result._rendering", "tool._meta", "tool.annotations", "none"]
"""Where a value was read from; "none" when nothing was."""

_RESULT_META = f"CallToolResult._meta[{EXTENSION_ID!r}]"
_TOOL_META = f"Tool._meta[{EXTENSION_ID!r}]"
_ABSENT: Any = object()


@dataclass(frozen=True)
class Problem:
    """One malformed value that was read as absent."""

    carrier: str
    """Where it was, for example ``CallToolResult._meta['io.modelcontextprotocol/rendering']``."""
    member: str | None
    """The member's wire name; None when the whole carrier value is malformed (not an object)."""
    detail: str
    """Why it is malformed, in a few words."""

    def __str__(self) -> str:
        where = self.carrier if self.member is None else f"{self.carrier}.{self.member}"
        return f"{where}: {self.detail}"


def _member_adapters(model: type[BaseModel]) -> dict[str, tuple[str, TypeAdapter[Any]]]:
    """wire name -> (field name, strict validator of that one member), from the generated model."""
    adapters: dict[str, tuple[str, TypeAdapter[Any]]] = {}
    for name, info in model.model_fields.items():
        annotation: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        adapters[info.alias or name] = (name, TypeAdapter(annotation))
    return adapters


_RENDERING_MEMBERS = _member_adapters(Rendering)
_HINT_MEMBERS = _member_adapters(RenderingHints)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, Mapping) else type(value).__name__


def _read_members(
    value: Any, carrier: str, members: Mapping[str, tuple[str, TypeAdapter[Any]]]
) -> tuple[dict[str, Any], tuple[Problem, ...]]:
    """The well-formed members of one carrier value (by field name), and the problems of the others."""
    if value is None:
        return {}, ()
    if not isinstance(value, Mapping):
        problem = Problem(carrier, None, f"{_json_type(value)}, not an object")
        logger.warning("ignoring malformed %s", problem)
        return {}, (problem,)
    wire = cast("Mapping[str, Any]", value)
    good: dict[str, Any] = {}
    problems: list[Problem] = []
    for wire_name, (field_name, adapter) in members.items():
        raw = wire.get(wire_name)
        if raw is None:
            continue
        try:
            good[field_name] = adapter.validate_python(raw, strict=True)
        except ValidationError as error:
            detail = "; ".join(
                f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" if e["loc"] else e["msg"]
                for e in error.errors(include_url=False)
            )
            problem = Problem(carrier, wire_name, f"{detail} (got {_short(raw)})")
            logger.warning("ignoring malformed %s", problem)
            problems.append(problem)
    return good, tuple(problems)


def read_rendering_object(value: Any, carrier: str = "_rendering") -> tuple[Rendering | None, tuple[Problem, ...]]:
    """One carrier's directive: its well-formed members (None when it has none), and the malformed ones."""
    good, problems = _read_members(value, carrier, _RENDERING_MEMBERS)
    return (Rendering.model_validate(good) if good else None), problems


def read_hints_object(value: Any, carrier: str = "_meta") -> tuple[RenderingHints, tuple[Problem, ...]]:
    """One carrier's hints (a `RenderingHints` or an annotations object): the well-formed ones, and the others."""
    good, problems = _read_members(value, carrier, _HINT_MEMBERS)
    return RenderingHints.model_validate(good), problems


@dataclass(frozen=True)
class EffectiveRendering:
    """The outcome of reading every carrier of one tool and one result."""

    mode: EffectiveMode
    directive: Rendering | None
    """The result's directive, member by member (`_meta` first, then the core form); None when neither carrier
    held a well-formed member."""
    hints: RenderingHints
    """The tool's hints, hint by hint (`_meta` first, then the annotations)."""
    source: Carrier
    """The carrier that decided the mode."""
    problems: tuple[Problem, ...] = field(default=())
    """Every malformed value that was read as absent."""

    @property
    def registered_mode(self) -> bool:
        """False when the directive's `mode` is a string this version does not register (read as verbatim)."""
        mode = None if self.directive is None else self.directive.mode
        return mode is None or mode in ("verbatim", "summarizable")

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
        """False when the result is part of a larger whole: `complete` is false, or a continuation is present."""
        directive = self.directive
        return directive is None or (directive.complete is not False and directive.continuation is None)

    @property
    def continuation(self) -> RenderingContinuation | None:
        """How to ask for the rest of an incomplete result."""
        return None if self.directive is None else self.directive.continuation


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _wire(obj: Any) -> Mapping[str, Any] | None:
    """The wire form of a model or a dict (patched models dump their new fields under their wire names)."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(by_alias=True, mode="json", exclude_none=True)
    return _mapping(obj)


def _extension_entry(meta: Any) -> Any:
    meta_map = _mapping(meta)
    return None if meta_map is None else meta_map.get(EXTENSION_ID)


def _tool_carriers(tool: Any) -> tuple[Any, Any]:
    """The raw `_meta` entry and the raw annotations of a tool."""
    wire = _wire(tool)
    if wire is None:
        return None, None
    return _extension_entry(wire.get("_meta")), wire.get("annotations")


def _result_carriers(result: Any) -> tuple[Any, Any]:
    """The raw `_meta` entry and the raw `_rendering` of a result, without dumping its content."""
    if isinstance(result, BaseModel):
        extra: Mapping[str, Any] = result.model_extra or {}
        core: Any = getattr(result, "rendering", _ABSENT)
        if core is _ABSENT:  # an unpatched or 1.x model: kept, if at all, as an extra member
            core = extra.get("_rendering")
        elif isinstance(core, BaseModel):
            # Judged again like wire data: a model can be built without validation or assigned to afterwards.
            core = core.model_dump(by_alias=True, exclude_none=True)
        meta: Any = getattr(result, "meta", _ABSENT)
        if meta is _ABSENT:
            meta = extra.get("_meta")
        return _extension_entry(meta), core
    wire = _mapping(result)
    if wire is None:
        return None, None
    return _extension_entry(wire.get("_meta")), wire.get("_rendering")


def _read_tool(tool: Any) -> tuple[RenderingHints, dict[str, Carrier], tuple[Problem, ...]]:
    meta, annotations = _tool_carriers(tool)
    from_meta, meta_problems = read_hints_object(meta, _TOOL_META)
    from_core, core_problems = read_hints_object(annotations, "Tool.annotations")
    values: dict[str, Any] = {}
    sources: dict[str, Carrier] = {}
    for name in RenderingHints.model_fields:
        for hints, carrier in ((from_meta, "tool._meta"), (from_core, "tool.annotations")):
            value = getattr(hints, name)
            if value is not None:
                values[name], sources[name] = value, cast("Carrier", carrier)
                break
    return RenderingHints.model_validate(values), sources, meta_problems + core_problems


def _read_result(result: Any) -> tuple[Rendering | None, dict[str, Carrier], tuple[Problem, ...]]:
    meta, core = _result_carriers(result)
    from_meta, meta_problems = read_rendering_object(meta, _RESULT_META)
    from_core, core_problems = read_rendering_object(core, "CallToolResult._rendering")
    values: dict[str, Any] = {}
    sources: dict[str, Carrier] = {}
    for name in Rendering.model_fields:
        for directive, carrier in ((from_meta, "result._meta"), (from_core, "result._rendering")):
            value = None if directive is None else getattr(directive, name)
            if value is not None:
                values[name], sources[name] = value, cast("Carrier", carrier)
                break
    directive = Rendering.model_validate(values) if values else None
    return directive, sources, meta_problems + core_problems


def read_tool_hints(tool: Any) -> RenderingHints:
    """The tool's hints, each from the first carrier holding a well-formed value (`_meta`, then annotations)."""
    return _read_tool(tool)[0]


def read_directive(result: Any) -> Rendering | None:
    """The result's directive, member by member (`_meta`, then `_rendering`); None when there is none."""
    return _read_result(result)[0]


def resolve_rendering(tool: Any, result: Any) -> EffectiveRendering:
    """What a host should do with `result` of `tool`, after reading every carrier. Either may be None."""
    directive, directive_sources, result_problems = _read_result(result)
    hints, hint_sources, tool_problems = _read_tool(tool)
    problems = result_problems + tool_problems
    if directive is not None and directive.mode is not None:
        mode: EffectiveMode = "summarizable" if directive.mode == "summarizable" else "verbatim"
        return EffectiveRendering(mode, directive, hints, directive_sources["mode"], problems)
    if hints.verbatim_hint:
        return EffectiveRendering("verbatim", directive, hints, hint_sources["verbatim_hint"], problems)
    if hints.summarize_ok_hint:
        return EffectiveRendering("summarizable", directive, hints, hint_sources["summarize_ok_hint"], problems)
    return EffectiveRendering("unspecified", directive, hints, "none", problems)
