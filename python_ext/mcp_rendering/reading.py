"""Reading the rendering hints and the directive, member by member, failing safe.

Carriers: the normative `_meta["io.modelcontextprotocol/rendering"]` of a `Tool` (the hints) and of a
`CallToolResult` (the directive); and their core form, for promotion: `Tool.annotations.verbatimHint` and
`.summarizeOkHint`, and `CallToolResult._rendering`. The rules, implemented here and nowhere else:

1. **Member by member.** Each member (`verbatimHint`, `summarizeOkHint`; `mode`, `guidance`, `nullDisplay`,
   `complete`, `continuation`) is read on its own, from the `_meta` carrier when it is present there, else from the
   core form. A member is absent (missing or `null`), well-formed, or malformed.
2. **Well-formed** means what the schema delta says, checked strictly: nothing is coerced (the string "true" is not
   true), lengths count code points, only the camelCase names are members, and unknown members are ignored. A
   carrier that is not an object (nor `null`) has every member malformed.
3. **Failing safe.** A malformed member is never fatal and never lost: it reads as the value that shows more,
   with a warning on the `mcp_rendering` logger. A malformed `mode` reads as "verbatim", `complete` as false,
   `verbatimHint` as true, `summarizeOkHint` as false; a malformed `continuation` makes the result incomplete with
   nothing to follow. These decide like well-formed values: the core form is not consulted behind them. A
   malformed `guidance` or `nullDisplay` reads as absent, and the core form's value, if well-formed, applies.
4. **Mode.** A `mode` on the result decides: "summarizable" gives summarizable, "verbatim" and every other value
   give verbatim. Without one, the tool's hints decide, except for a tool error (`isError: true`), which they do not
   describe: `verbatimHint` true gives verbatim (even when `summarizeOkHint` is also true), else `summarizeOkHint`
   true gives summarizable, else the mode is "unspecified" and the host keeps its default.
5. **Completeness.** A result is incomplete when its `complete` is false or it carries a continuation.

Every function accepts the SDK's models (patched or not, `mcp` 1.x or 2.x) or plain wire dictionaries.
"""

from __future__ import annotations

import dataclasses
import logging
import reprlib
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypeAlias, cast

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from mcp_rendering.types import EXTENSION_ID, EffectiveMode, Rendering, RenderingContinuation, RenderingHints

__all__ = [
    "DEFAULT_NULL_DISPLAY",
    "SAFE_VALUES",
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
    """One malformed value, and what it was read as."""

    carrier: str
    """Where it was, for example ``CallToolResult._meta['io.modelcontextprotocol/rendering']``."""
    member: str | None
    """The member's wire name; None when the whole carrier value is malformed (not an object)."""
    detail: str
    """Why it is malformed, in a few words."""
    reads_as: str = "absent"
    """What the reading made of it: "absent", or the safe value ("verbatim", "true", "false", "incomplete")."""

    def __str__(self) -> str:
        where = self.carrier if self.member is None else f"{self.carrier}.{self.member}"
        return f"{where}: {self.detail}; read as {self.reads_as}"


def _member_adapters(model: type[BaseModel]) -> dict[str, tuple[str, TypeAdapter[Any]]]:
    """wire name -> (field name, strict validator of that one member), from the generated model."""
    adapters: dict[str, tuple[str, TypeAdapter[Any]]] = {}
    for name, info in model.model_fields.items():
        annotation: Any = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
        adapters[info.alias or name] = (name, TypeAdapter(annotation))
    return adapters


_RENDERING_MEMBERS = _member_adapters(Rendering)
_HINT_MEMBERS = _member_adapters(RenderingHints)

SAFE_VALUES: dict[str, Any] = {"mode": "verbatim", "complete": False, "verbatimHint": True, "summarizeOkHint": False}
"""By wire name, what a present but malformed member reads as: the value that shows more (rule 3)."""
_SAFE_WORDS = {"mode": "verbatim", "complete": "false", "verbatimHint": "true", "summarizeOkHint": "false"}
_CONTINUATION = "continuation"
"""A malformed continuation makes the result incomplete, with nothing to follow."""
_FALL_THROUGH = frozenset({"guidance", "nullDisplay"})
"""Members whose malformed value reads as absent, so that the next carrier's value applies."""

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60


def _short(value: Any) -> str:
    # Bounded however deep or long the peer's value: a plain repr() could recurse past the stack.
    text = _SHORT.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _json_type(value: Any) -> str:
    """What a carrier value that is neither an object nor null is, in words."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__  # not JSON at all: named by its Python type


@dataclass(frozen=True)
class _CarrierReading:
    """One carrier, read member by member."""

    values: dict[str, Any]
    """By field name: the well-formed members, and the safe value of each malformed one that has one."""
    present: frozenset[str]
    """The wire names of the members present (not missing, not null), well-formed or not."""
    unusable_continuation: bool
    problems: tuple[Problem, ...]

    def decides(self, wire_name: str, field_name: str) -> bool:
        """Whether this carrier settles the member (the next carrier is then not consulted)."""
        return field_name in self.values or (wire_name in self.present and wire_name not in _FALL_THROUGH)


def _reads_as(wire_name: str) -> str:
    if wire_name == _CONTINUATION:
        return "incomplete"
    return _SAFE_WORDS.get(wire_name, "absent")


def _read_carrier(value: Any, carrier: str, members: Mapping[str, tuple[str, TypeAdapter[Any]]]) -> _CarrierReading:
    if value is None:
        return _CarrierReading({}, frozenset(), False, ())
    if not isinstance(value, Mapping):
        # Not an object: whatever it was meant to say is unreadable, so every member takes its safe reading.
        reads = ", ".join(f"{name} {word}" for name, word in _SAFE_WORDS.items() if name in members)
        problem = Problem(carrier, None, f"{_json_type(value)}, not an object", reads)
        logger.warning("malformed %s", problem)
        safe = {field_name: SAFE_VALUES[name] for name, (field_name, _) in members.items() if name in SAFE_VALUES}
        return _CarrierReading(safe, frozenset(members), _CONTINUATION in members, (problem,))
    wire = cast("Mapping[str, Any]", value)
    values: dict[str, Any] = {}
    present: set[str] = set()
    unusable = False
    problems: list[Problem] = []
    for wire_name, (field_name, adapter) in members.items():
        raw = wire.get(wire_name)
        if isinstance(raw, BaseModel):  # judged in its wire form: a model can be built without validation
            raw = _jsonable(raw)
        if raw is None:
            continue
        present.add(wire_name)
        try:
            values[field_name] = adapter.validate_python(raw, strict=True)
        except (ValidationError, RecursionError) as error:
            detail = _validation_detail(error)
            problem = Problem(carrier, wire_name, f"{detail} (got {_short(raw)})", _reads_as(wire_name))
            logger.warning("malformed %s", problem)
            problems.append(problem)
            if wire_name in SAFE_VALUES:
                values[field_name] = SAFE_VALUES[wire_name]
            unusable = unusable or wire_name == _CONTINUATION
    return _CarrierReading(values, frozenset(present), unusable, tuple(problems))


def _validation_detail(error: ValidationError | RecursionError) -> str:
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return "; ".join(
        f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" if e["loc"] else e["msg"]
        for e in error.errors(include_url=False)
    )


def _directive(values: dict[str, Any], unusable_continuation: bool) -> Rendering | None:
    if unusable_continuation:
        values = {**values, "complete": False}
    return Rendering.model_validate(values) if values else None


def read_rendering_object(value: Any, carrier: str = "_rendering") -> tuple[Rendering | None, tuple[Problem, ...]]:
    """One carrier's directive as read (its well-formed members, and the safe reading of the malformed ones),
    or None when it holds nothing; and its problems."""
    reading = _read_carrier(value, carrier, _RENDERING_MEMBERS)
    return _directive(reading.values, reading.unusable_continuation), reading.problems


def read_hints_object(value: Any, carrier: str = "_meta") -> tuple[RenderingHints, tuple[Problem, ...]]:
    """One carrier's hints (a `RenderingHints` or an annotations object) as read, and its problems."""
    reading = _read_carrier(value, carrier, _HINT_MEMBERS)
    return RenderingHints.model_validate(reading.values), reading.problems


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
    """Every malformed value, with what it was read as."""

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


def _jsonable(value: Any) -> Any:
    try:
        return to_jsonable_python(value, by_alias=True, exclude_none=True)
    except (PydanticSerializationError, RecursionError, ValueError):
        return value  # not serializable as the SDK would send it: judged as it is, and so malformed


def _extension_entry(meta: Any) -> Any:
    meta_map = _mapping(meta)
    return None if meta_map is None else meta_map.get(EXTENSION_ID)


def _model_member(model: BaseModel, *names: str) -> Any:
    """A member of an SDK model of any version, by the first of `names` it has: a field (2.x and 1.x names differ)
    or an extra member (pydantic exposes those as attributes too)."""
    for name in names:
        value = getattr(model, name, _ABSENT)
        if value is not _ABSENT:
            return value
    return None


def _tool_carriers(tool: Any) -> tuple[Any, Any]:
    """The raw `_meta` entry and the raw annotations of a tool, without dumping the rest of it."""
    if isinstance(tool, BaseModel):
        meta = _jsonable(_extension_entry(_model_member(tool, "meta", "_meta")))
        return meta, _jsonable(_model_member(tool, "annotations"))
    wire = _mapping(tool)
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
        # In its wire form, as the SDK would send it: a server may have put a model (a `Rendering`) in `_meta`.
        return _jsonable(_extension_entry(meta)), core
    wire = _mapping(result)
    if wire is None:
        return None, None
    return _extension_entry(wire.get("_meta")), wire.get("_rendering")


def _merge(
    readings: tuple[tuple[_CarrierReading, Carrier], ...], members: Mapping[str, tuple[str, TypeAdapter[Any]]]
) -> tuple[dict[str, Any], dict[str, Carrier], bool]:
    """Each member from the first carrier that settles it; and whether the settled continuation is unusable."""
    values: dict[str, Any] = {}
    sources: dict[str, Carrier] = {}
    unusable = False
    for wire_name, (field_name, _) in members.items():
        for reading, carrier in readings:
            if reading.decides(wire_name, field_name):
                if field_name in reading.values:
                    values[field_name] = reading.values[field_name]
                else:  # a malformed continuation
                    unusable = True
                sources[field_name] = carrier
                break
    return values, sources, unusable


def _is_error(result: Any) -> bool:
    if isinstance(result, BaseModel):
        return _model_member(result, "is_error", "isError") is True
    wire = _mapping(result)
    return wire is not None and wire.get("isError") is True


def _read_tool(tool: Any) -> tuple[RenderingHints, dict[str, Carrier], tuple[Problem, ...]]:
    meta, annotations = _tool_carriers(tool)
    from_meta = _read_carrier(meta, _TOOL_META, _HINT_MEMBERS)
    from_core = _read_carrier(annotations, "Tool.annotations", _HINT_MEMBERS)
    values, sources, _ = _merge(((from_meta, "tool._meta"), (from_core, "tool.annotations")), _HINT_MEMBERS)
    return RenderingHints.model_validate(values), sources, from_meta.problems + from_core.problems


_READ_WITH_UNUSABLE_CONTINUATION: set[int] = set()
"""The ids of the live directives that `note_unusable_continuation` marked."""


def note_unusable_continuation(directive: Rendering) -> None:
    """Mark a directive built by a first reader (the SDK patch, as it parses `_rendering`) from a carrier whose
    continuation was malformed.

    Such a directive already reads `complete` as false, but that value yields to a `complete` in `_meta`; the
    malformed continuation does not (it decides the result's completeness wherever `complete` comes from), and
    marking the model keeps that so when the model is read again.
    """
    key = id(directive)
    _READ_WITH_UNUSABLE_CONTINUATION.add(key)
    weakref.finalize(directive, _READ_WITH_UNUSABLE_CONTINUATION.discard, key)


def _core_model_continuation_unusable(result: Any) -> bool:
    core = getattr(result, "rendering", None) if isinstance(result, BaseModel) else None
    return isinstance(core, Rendering) and core.continuation is None and id(core) in _READ_WITH_UNUSABLE_CONTINUATION


def _read_result(result: Any) -> tuple[Rendering | None, dict[str, Carrier], tuple[Problem, ...]]:
    meta, core = _result_carriers(result)
    from_meta = _read_carrier(meta, _RESULT_META, _RENDERING_MEMBERS)
    from_core = _read_carrier(core, "CallToolResult._rendering", _RENDERING_MEMBERS)
    if _core_model_continuation_unusable(result):  # read, and logged, when the model was parsed
        from_core = dataclasses.replace(
            from_core, present=from_core.present | {_CONTINUATION}, unusable_continuation=True
        )
    readings = ((from_meta, "result._meta"), (from_core, "result._rendering"))
    values, sources, unusable = _merge(
        cast("tuple[tuple[_CarrierReading, Carrier], ...]", readings), _RENDERING_MEMBERS
    )
    return _directive(values, unusable), sources, from_meta.problems + from_core.problems


def read_tool_hints(tool: Any) -> RenderingHints:
    """The tool's hints as read, each from the first carrier where it is present (`_meta`, then annotations)."""
    return _read_tool(tool)[0]


def read_directive(result: Any) -> Rendering | None:
    """The result's directive as read, member by member (`_meta`, then `_rendering`); None when there is none."""
    return _read_result(result)[0]


def resolve_rendering(tool: Any, result: Any) -> EffectiveRendering:
    """What a host should do with `result` of `tool`, after reading every carrier. Either may be None."""
    directive, directive_sources, result_problems = _read_result(result)
    hints, hint_sources, tool_problems = _read_tool(tool)
    problems = result_problems + tool_problems
    if directive is not None and directive.mode is not None:
        mode: EffectiveMode = "summarizable" if directive.mode == "summarizable" else "verbatim"
        return EffectiveRendering(mode, directive, hints, directive_sources["mode"], problems)
    if _is_error(result):  # the tool's hints describe its results, not its error messages
        return EffectiveRendering("unspecified", directive, hints, "none", problems)
    if hints.verbatim_hint:
        return EffectiveRendering("verbatim", directive, hints, hint_sources["verbatim_hint"], problems)
    if hints.summarize_ok_hint:
        return EffectiveRendering("summarizable", directive, hints, hint_sources["summarize_ok_hint"], problems)
    return EffectiveRendering("unspecified", directive, hints, "none", problems)
