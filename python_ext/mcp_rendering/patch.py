"""A reversible patch that teaches the official MCP Python SDK the rendering fields.

Unpatched, `mcp` 2.x drops `verbatimHint`, `summarizeOkHint` and `_rendering` at two type layers (the version-free
models in `mcp_types` and the per-version surface models), on the server's way out and on the client's way in.
`install()` adds the fields to every model that needs them, recompiles every model and adapter that holds a compiled
copy of a patched model, and clears the SDK's caches of compiled validators. `uninstall()` puts back exactly what
`install()` replaced, attribute by attribute.

Call `install()` before building tools or clients: an object built before it has already dropped the new fields.

Validation reads the added fields, and `isError`, by their wire names only, whatever the model's `populate_by_name`
or the caller's `by_name`: a member `rendering`, `verbatim_hint` or `is_error` in a message is never read as the
field, as the wire reader never reads it so. The patched constructors still take the Python names
(`ToolAnnotations(verbatim_hint=True)`, `CallToolResult(is_error=True)`), naming them by wire name before
validating; a dict dumped without `by_alias=True` is no wire message and loses them.

A malformed hint does not fail the model: the field holds the hint's safe value and `reading.AS_SENT` keeps the hint
as it came. Annotations invalid in another way (a `readOnlyHint` that is no boolean) fail as they did, each error
reported twice, under the two readings the patched model tries: "hints as typed" and "hints read safely". A
subclass that sets `validate_assignment=True` cannot assign while the patch is installed: pydantic-core validates no
assignment through the union of those two readings.
"""

from __future__ import annotations

import copy
import functools
import importlib
import importlib.metadata
import inspect
import logging
import operator
import re
import reprlib
import sys
import threading
import types
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, cast, get_args, get_origin

from pydantic import BaseModel, Field, GetCoreSchemaHandler, GetJsonSchemaHandler, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticSerializationError, core_schema, to_jsonable_python

from mcp_rendering.reading import AS_SENT, SAFE_VALUES
from mcp_rendering.types import CallToolResultDelta, Rendering, ToolAnnotationsDelta

__all__ = [
    "SUPPORTED_SDK",
    "PatchRecord",
    "UnsupportedSDKError",
    "install",
    "installed",
    "is_installed",
    "patch_record",
    "uninstall",
]

logger = logging.getLogger("mcp_rendering")

SUPPORTED_SDK = ">=2.3,<3"
"""The `mcp` (and `mcp-types`) releases this patch is written and tested against."""

_SUPPORTED_MIN = (2, 3)
_SUPPORTED_MAJOR = 2

# Modules whose models and adapters the patch inspects. Importing them up front means a later import cannot
# build a model against the patched schemas that `uninstall()` would not know to restore.
_SDK_MODULES = (
    "mcp_types",
    "mcp_types._types",
    "mcp_types._v2025_11_25",
    "mcp_types._v2026_07_28",
    "mcp_types.methods",
    "mcp.client.session",
    "mcp.client.client",
    "mcp.server.mcpserver",
    "mcp.server.mcpserver.tools.base",
)
_SCANNED_PACKAGES = ("mcp_types", "mcp", "fastmcp")

# The classes that receive fields, by module: both type layers, both surface versions.
_TARGETS: dict[str, tuple[type[BaseModel], ...]] = {
    "ToolAnnotations": (ToolAnnotationsDelta,),
    "CallToolResult": (CallToolResultDelta,),
}
_TARGET_MODULES = ("mcp_types._types", "mcp_types._v2025_11_25", "mcp_types._v2026_07_28")

# Everything pydantic keeps per class that a field change or a rebuild replaces.
_CLASS_STATE = (
    "__annotations__",
    "__pydantic_fields__",
    "__pydantic_core_schema__",
    "__pydantic_validator__",
    "__pydantic_serializer__",
    "__pydantic_complete__",
    "__pydantic_fields_complete__",
    "__pydantic_decorators__",
    "__pydantic_computed_fields__",
    "__signature__",
    "__get_pydantic_core_schema__",
    "__init__",
)
_ADAPTER_STATE = ("core_schema", "validator", "serializer", "pydantic_complete")


class UnsupportedSDKError(RuntimeError):
    """The installed MCP Python SDK is outside `SUPPORTED_SDK`; the patch refuses rather than guess."""


@dataclass(frozen=True)
class PatchRecord:
    """Exactly what `install()` changed, for inspection and for `uninstall()`."""

    sdk_version: str
    fields: tuple[str, ...]
    """`module.Class.field` for every field added."""
    rebuilt_models: tuple[str, ...]
    """`module.Class` for every model recompiled, children first."""
    rebuilt_adapters: tuple[str, ...]
    """`module.name` for every module-level `TypeAdapter` recompiled in place."""
    cleared_caches: tuple[str, ...]
    """`module.function` for every `functools.cache` emptied."""


@dataclass
class _State:
    record: PatchRecord
    class_snapshots: dict[type[BaseModel], dict[str, Any]]
    adapter_snapshots: list[tuple[TypeAdapter[Any], dict[str, Any]]]
    caches: list[Any]


_lock = threading.RLock()
_state: _State | None = None


class _ReadMalformedSafely:
    """Read a malformed peer hint as the specification says, failing safe: log it and return the value that shows
    more (`verbatimHint` true, `summarizeOkHint` false) instead of failing the whole message.

    Built as a left-to-right union of the field's own schema and a fallback, so a valid value never leaves
    pydantic-core: only a malformed one reaches Python, to be logged.
    """

    def __init__(self, wire_name: str) -> None:
        self.wire_name = wire_name
        self.safe_value: bool | None = SAFE_VALUES.get(wire_name)

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        typed = handler(source)
        fallback = core_schema.no_info_plain_validator_function(self._safe, json_schema_input_schema=typed)
        return core_schema.union_schema([typed, fallback], mode="left_to_right")

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # The schema documents what the field means; the fallback only changes how a bad value fails.
        return handler(cast("core_schema.UnionSchema", schema)["choices"][0])  # pyright: ignore[reportArgumentType]

    def _safe(self, value: Any) -> bool | None:
        logger.warning(
            "malformed %s (%s): not a valid value for this field; read as %s",
            self.wire_name,
            _short_repr(value),
            "absent" if self.safe_value is None else str(self.safe_value).lower(),
        )
        return self.safe_value


class _OnlyTrueIsTrue:
    """Read `isError` as the wire reader does: only a JSON boolean is one. The SDK's lax boolean would turn the string
    "true" into True, so that the model and the wire dict of the same bytes read differently; a value that is no
    boolean is logged and read as false (what the wire reader makes of it: not `true`)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        handler(source)  # the SDK's own schema stays the documented one
        fallback = core_schema.no_info_plain_validator_function(_not_a_boolean)
        return core_schema.union_schema([core_schema.bool_schema(strict=True), fallback], mode="left_to_right")

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(core_schema.bool_schema())


def _not_a_boolean(value: Any) -> bool:
    logger.warning("malformed isError (%s): not a boolean; read as false", _short_repr(value))
    return False


def _strict_error_flag(source: FieldInfo) -> tuple[Any, FieldInfo]:
    annotation: Any = Annotated[bool, _OnlyTrueIsTrue()]
    info = FieldInfo.from_annotated_attribute(
        annotation, Field(default=False, alias=source.alias or "isError", description=source.description)
    )
    return annotation, info


class _KeepWireValue:
    """Keep the peer's `_rendering` exactly as it arrived (any JSON value), for `mcp_rendering.reading` to read.

    The core form is the promotion draft's prototype, read only on explicit opt-in; one reader decides what its
    members mean, so the SDK model neither drops a malformed member nor turns one into a typed value whose origin a
    later copy would forget. A `Rendering` built in Python is kept in its wire form too.
    """

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            _wire_value, serialization=core_schema.plain_serializer_function_ser_schema(_wire_value)
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(core_schema.nullable_schema(Rendering.__pydantic_core_schema__))


class _KeepMark:
    """Keep an `AS_SENT` mark as it came. One sent as null is kept as an empty mark, which reads as altered, as the
    wire's null does: a null must not read as no mark at all."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(_kept_mark)

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "object", "additionalProperties": True}


def _kept_mark(value: Any) -> Any:
    return {} if value is None else value


_AS_SENT_FIELD = "rendering_as_sent"
"""The field the patch adds to `ToolAnnotations` beside the hints: `AS_SENT`, the malformed hints as they came."""


def _as_sent_field() -> tuple[Any, FieldInfo]:
    annotation: Any = Annotated[Any, _KeepMark()]
    info = FieldInfo.from_annotated_attribute(
        annotation,
        Field(
            default=None,
            alias=AS_SENT,
            exclude_if=_is_none,
            description="The hints that were malformed when parsed, as they came (read by mcp_rendering.reading).",
        ),
    )
    return annotation, info


def _sent_form(value: Any) -> Any:
    """A malformed value as JSON would carry it; one JSON cannot carry is kept as its (bounded) repr, a string,
    still malformed for a boolean."""
    try:
        return to_jsonable_python(value, by_alias=True)
    except (PydanticSerializationError, RecursionError, ValueError):
        return _BOUNDED.repr(value)


def _raw_hint(value: Any, wire_name: str, field_name: str) -> Any:
    """A hint as the input held it: a mapping's member by its wire name only (a mapping is wire JSON, where the
    Python name is an unknown member that no reader takes for the hint), an object's attribute by its field name."""
    if isinstance(value, Mapping):
        return cast("Mapping[Any, Any]", value).get(wire_name)
    return getattr(value, field_name, None)


def _mark_malformed_hints(value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> Any:
    """Validate the annotations' fields, then record each hint the fallback replaced with its safe value under
    `AS_SENT`, as it came: the model reads as the wire JSON it was parsed from, through every dump, copy and
    re-validation. Reached only when a hint is malformed (the strict choice failed)."""
    validated = handler(value)
    model_dict, _extra, fields_set = validated
    sent: dict[str, Any] = {}
    for name, field in _HINT_FIELDS.items():
        raw = _raw_hint(value, field, name)
        if raw is not None and not isinstance(raw, bool):
            sent[field] = _sent_form(raw)
    if not sent:
        return validated
    kept: Any = model_dict.get(_AS_SENT_FIELD)
    model_dict[_AS_SENT_FIELD] = sent if kept is None else _merged_mark(kept, sent)
    fields_set.add(_AS_SENT_FIELD)
    return validated


_HINT_FIELDS = {"verbatim_hint": "verbatimHint", "summarize_ok_hint": "summarizeOkHint"}


def _merged_mark(kept: Any, sent: dict[str, Any]) -> Any:
    """A mark the message already held (a peer's, or an empty one kept for null), with the malformed hints just
    parsed, reading as the message does: a hint the mark holds malformed is read from the mark (the wire reader
    does so), any other from the message; a mark that reads altered (not an object, empty, or holding anything but
    malformed hints) stays altered, kept whole under its own name, a member no carrier defines."""
    entries: dict[Any, Any] = cast("dict[Any, Any]", kept) if isinstance(kept, dict) else {}
    malformed = {name: value for name, value in entries.items() if _malformed_hint(name, value)}
    mark: dict[str, Any] = {**sent, **malformed}
    if not entries or len(malformed) < len(entries):  # it read altered: so it stays
        mark[AS_SENT] = kept
    return mark


def _malformed_hint(name: Any, value: Any) -> bool:
    return name in _HINT_FIELDS.values() and value is not None and not isinstance(value, bool)


def _patched_schema(cls: type[BaseModel], source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    return _marked(handler(source), cls)


_VALIDATOR_WRAPPERS = ("function-before", "function-after", "function-wrap")
"""What a subclass's own `@model_validator` puts around the model's schema."""


def _marked(schema: core_schema.CoreSchema, cls: type[BaseModel]) -> core_schema.CoreSchema:
    """The schema with the patch's validation put on the model's fields (the marking of malformed hints, where the
    model has the hints; reading the added fields by wire name only): the model's own, or the model's inside the
    validators a subclass adds. A copy all the way down to the change: pydantic may hand the same dicts back."""
    node: Any = schema
    if node["type"] in _VALIDATOR_WRAPPERS and "schema" in node:
        inner = _marked(node["schema"], cls)
        return schema if inner is node["schema"] else cast("core_schema.CoreSchema", {**node, "schema": inner})
    if node["type"] != "model" or node.get("cls") is not cls or node["schema"]["type"] != "model-fields":
        return schema  # the schema this hook already made, which pydantic hands back to a model holding this one
    fields = node["schema"]
    chosen = _with_marking(fields) if _HINT_FIELDS.keys() <= fields["fields"].keys() else fields
    field_names = _wire_only_fields(cls)
    if field_names:
        chosen = core_schema.no_info_wrap_validator_function(
            functools.partial(_by_wire_names, frozenset(field_names)), chosen
        )
    return cast("core_schema.CoreSchema", {**node, "schema": chosen})


def _wire_only_fields(model: type[BaseModel]) -> dict[str, str]:
    """The fields the patch added to `model`, or reads as the wire reader does (`isError`), whose Python name differs
    from the wire name, each to its wire name: the wire reader reads those by wire name alone."""
    return {
        name: info.alias
        for name, info in model.__pydantic_fields__.items()
        if info.alias is not None and info.alias != name and _is_patch_field(info)
    }


def _by_wire_names(field_names: frozenset[str], value: Any, handler: core_schema.ValidatorFunctionWrapHandler) -> Any:
    """Validate a mapping without the members named by the Python name of a field the patch reads (an added field,
    or `is_error`): the SDK's models populate by name, and a wire member `rendering`, `verbatim_hint` or `is_error`
    would otherwise be read as the field its wire name (`_rendering`, `verbatimHint`, `isError`) names, so that the
    model of the same bytes read otherwise than the wire reader, which never reads it as that field. Kept as an
    extra member where the model keeps those. Building the model in Python (`CallToolResult(rendering=...)`) goes
    through the constructor, which names them by wire name first."""
    if not isinstance(value, Mapping):
        return handler(value)
    mapping = cast("Mapping[Any, Any]", value)
    if field_names.isdisjoint(mapping):
        return handler(value)
    unknown = {key: member for key, member in mapping.items() if key in field_names}
    validated = handler({key: member for key, member in mapping.items() if key not in field_names})
    extra: Any = validated[1]
    if isinstance(extra, dict):
        cast("dict[Any, Any]", extra).update(unknown)
    return validated


def _with_marking(fields: Any) -> core_schema.CoreSchema:
    """The annotations' fields with malformed hints marked (see `_mark_malformed_hints`)."""
    strict = _without_fallbacks(fields)
    marking = core_schema.no_info_wrap_validator_function(_mark_malformed_hints, fields)
    # Well-formed hints validate in pydantic-core alone; only annotations with a malformed hint reach the marking.
    # Annotations invalid in another way fail both choices, and pydantic-core reports both, each under its label.
    return (
        marking
        if strict is None
        else core_schema.union_schema(
            [(strict, "hints as typed"), (marking, "hints read safely")], mode="left_to_right"
        )
    )


def _without_fallbacks(schema: core_schema.CoreSchema) -> core_schema.CoreSchema | None:
    """A copy of the annotations' fields schema whose hints accept only well-formed values (no fallback), or None
    when the schema is not shaped as expected (then every validation goes through the marking)."""
    copied: Any = copy.deepcopy(schema)
    fields = _member(copied, "fields")
    for name in _HINT_FIELDS:
        default = _member(_member(fields, name), "schema")
        union = _member(default, "schema")
        choices = _member(union, "choices")
        if _member(default, "type") != "default" or _member(union, "type") != "union" or not isinstance(choices, list):
            return None
        default["schema"] = cast("list[Any]", choices)[0]
    return copied


def _member(schema: Any, key: str) -> Any:
    return cast("dict[str, Any]", schema).get(key) if isinstance(schema, dict) else None


def _wire_value(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


_BOUNDED = reprlib.Repr()
_BOUNDED.maxstring = _BOUNDED.maxother = 200  # past the 80 shown; bounded in depth and size, unlike repr()


def _short_repr(value: Any) -> str:
    text = _BOUNDED.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


_is_none: Callable[[Any], bool] = functools.partial(operator.is_, None)
"""`value is None`, called in C: it runs for every added field of every dump."""


def _patched_field(name: str, source: FieldInfo) -> tuple[Any, FieldInfo]:
    """The annotation and field info to add: the generated type, made lenient, with an explicit alias.

    An explicit alias is needed because a field added after class creation gets no `alias_generator` alias, and
    `exclude_if` keeps an unset field out of every dump, so payloads without the extension dump exactly as before.
    """
    alias = source.alias or name
    if _mentions(source.annotation, Rendering):
        annotation: Any = Annotated[Any, _KeepWireValue()]
    else:
        annotation = Annotated[source.annotation, _ReadMalformedSafely(alias)]  # type: ignore[name-defined]
    info = FieldInfo.from_annotated_attribute(
        annotation,
        Field(default=None, alias=alias, exclude_if=_is_none, description=source.description),
    )
    return annotation, info


def _mentions(annotation: Any, model: type[BaseModel]) -> bool:
    found: set[type[BaseModel]] = set()
    _referenced_models(annotation, found)
    return model in found


def _sdk_version() -> str:
    try:
        version = importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError as error:
        raise UnsupportedSDKError(
            "the MCP Python SDK (`mcp`) is not installed: pip install 'mcp-rendering[sdk]'"
        ) from error
    match = re.match(r"(\d+)\.(\d+)", version)
    if match is None:
        raise UnsupportedSDKError(f"cannot read the MCP Python SDK version {version!r}")
    major, minor = int(match.group(1)), int(match.group(2))
    if major != _SUPPORTED_MAJOR or (major, minor) < _SUPPORTED_MIN:
        raise UnsupportedSDKError(
            f"mcp_rendering supports mcp{SUPPORTED_SDK}; found mcp {version}. "
            "Install a supported SDK or a release of mcp-rendering made for this one."
        )
    return version


def _scanned_modules() -> list[types.ModuleType]:
    return [module for name, module in list(sys.modules.items()) if name.split(".", 1)[0] in _SCANNED_PACKAGES]


def _model_classes(modules: list[types.ModuleType]) -> list[type[BaseModel]]:
    seen: dict[type[BaseModel], None] = {}
    for module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel:
                seen.setdefault(value)
    # Subclasses defined in other modules of the same packages still need the field or a rebuild.
    queue = list(seen)
    while queue:
        for subclass in queue.pop().__subclasses__():
            if subclass not in seen and subclass.__module__.split(".", 1)[0] in _SCANNED_PACKAGES:
                seen.setdefault(subclass)
                queue.append(subclass)
    return list(seen)


def _complete_pending(models: list[type[BaseModel]]) -> None:
    """Finish the models pydantic left incomplete (forward references), as their first use would.

    Otherwise one could complete while the patch is installed, compile in a patched schema, and keep it after
    `uninstall()`; completed now, its fields resolve and the dependency walk sees what it embeds.
    """
    for model in models:
        if not model.__pydantic_complete__:
            model.model_rebuild(raise_errors=False)


def _referenced_models(annotation: Any, found: set[type[BaseModel]]) -> None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found.add(annotation)
        return
    if get_origin(annotation) is not None:
        for argument in get_args(annotation):
            _referenced_models(argument, found)


def _children(model: type[BaseModel]) -> set[type[BaseModel]]:
    found: set[type[BaseModel]] = set()
    for info in model.__pydantic_fields__.values():
        _referenced_models(info.annotation, found)
    for base in model.__mro__[1:]:
        if issubclass(base, BaseModel) and base is not BaseModel:
            found.add(base)
    found.discard(model)
    return found


def _dependents_in_order(models: list[type[BaseModel]], patched: set[type[BaseModel]]) -> list[type[BaseModel]]:
    """Every model that holds a compiled copy of a patched one (through a field or a base), children first."""
    children = {model: _children(model) for model in models}
    affected: set[type[BaseModel]] = set(patched)
    changed = True
    while changed:
        changed = False
        for model, kids in children.items():
            if model not in affected and kids & affected:
                affected.add(model)
                changed = True
    ordered: list[type[BaseModel]] = []
    visiting: set[type[BaseModel]] = set()

    def visit(model: type[BaseModel]) -> None:
        if model in ordered or model in visiting:
            return
        visiting.add(model)
        for kid in children.get(model, ()):
            if kid in affected:
                visit(kid)
        visiting.discard(model)
        ordered.append(model)

    for model in sorted(affected, key=_qualified):
        visit(model)
    return ordered


def _rebuild_afresh(models: list[type[BaseModel]]) -> None:
    """Recompile `models`, children first, each from its fields and its children's new compiled copies.

    A model compiling another reuses the core schema cached on that model's class. Children first makes every
    cached copy of a child current, except in a cycle: models that embed each other cannot all come first, and the
    first one rebuilt would embed the stale copy of the others (and, through them, a stale copy of a patched
    model) at every depth below its own. So the cached schemas of all of `models` are dropped before any rebuild:
    pydantic compiles a model whose class holds no core schema from its fields, as it does a model not yet
    complete, and each rebuild caches its model's new one.
    """
    for model in models:
        if "__pydantic_core_schema__" in model.__dict__:
            delattr(model, "__pydantic_core_schema__")
    for model in models:
        model.model_rebuild(force=True)


def _qualified(model: type[Any]) -> str:
    return f"{model.__module__}.{model.__qualname__}"


def _snapshot_class(model: type[BaseModel]) -> dict[str, Any]:
    return {name: model.__dict__[name] for name in _CLASS_STATE if name in model.__dict__}


def _restore_class(model: type[BaseModel], snapshot: dict[str, Any]) -> None:
    for name in _CLASS_STATE:
        if name in snapshot:
            setattr(model, name, snapshot[name])
        elif name in model.__dict__:
            delattr(model, name)
    _forget_assignments(model)


def _forget_assignments(model: type[BaseModel]) -> None:
    """Empty pydantic's memo of how to assign each attribute: one it learnt for an added field must not outlive it."""
    handlers: Any = model.__dict__.get("__pydantic_setattr_handlers__")
    if isinstance(handlers, dict):
        cast("dict[str, Any]", handlers).clear()


def _module_adapters(modules: list[types.ModuleType]) -> list[tuple[str, TypeAdapter[Any]]]:
    adapters: list[tuple[str, TypeAdapter[Any]]] = []
    seen: set[int] = set()
    for module in modules:
        for name, value in list(vars(module).items()):
            if isinstance(value, TypeAdapter) and id(value) not in seen:  # pyright: ignore[reportUnknownArgumentType]
                adapter = cast("TypeAdapter[Any]", value)
                seen.add(id(adapter))
                adapters.append((f"{module.__name__}.{name}", adapter))
    return adapters


def _is_functools_cache(value: Any, module: types.ModuleType) -> bool:
    return (
        callable(value)
        and hasattr(value, "cache_clear")
        and hasattr(value, "cache_info")
        and getattr(value, "__module__", None) == module.__name__
    )


def _module_caches(modules: list[types.ModuleType]) -> list[tuple[str, Any]]:
    return [
        (f"{module.__name__}.{name}", value)
        for module in modules
        for name, value in list(vars(module).items())
        if _is_functools_cache(value, module)
    ]


def _is_patch_field(info: FieldInfo) -> bool:
    """Whether a field is one this patch adds or replaces (a subclass defined while it was installed inherited it):
    the SDK's `is_error` it only reads more strictly."""
    patched = (_ReadMalformedSafely, _KeepWireValue, _KeepMark, _OnlyTrueIsTrue)
    return any(isinstance(item, patched) for item in info.metadata)


def _constructor_by_field_names(model: type[BaseModel]) -> Callable[..., None]:
    """`model.__init__`, naming the added fields by their wire names before validation, which reads only those: so
    `ToolAnnotations(verbatim_hint=True)` builds what `ToolAnnotations(verbatimHint=True)` does. A field named both
    ways is refused: which one was meant cannot be told."""
    original: Callable[..., None] = model.__init__
    wire_names = _wire_only_fields(model)

    @functools.wraps(original)
    def __init__(self: BaseModel, /, **data: Any) -> None:
        for name, wire_name in wire_names.items():
            if name in data:
                if wire_name in data:
                    raise TypeError(f"{type(self).__name__}() got {name!r} and {wire_name!r}, one field: give one")
                data[wire_name] = data.pop(name)
        original(self, **data)

    # Read by pydantic when a subclass is defined while installed: a constructor of its own would make pydantic
    # validate the subclass's wire input through it, by Python name.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]
    return __init__


def _add_fields(model: type[BaseModel], delta: type[BaseModel], added: list[str]) -> None:
    annotations = dict(inspect.get_annotations(model))
    fields = dict(model.__pydantic_fields__)
    for name, source in delta.model_fields.items():
        if name in fields and not _is_patch_field(fields[name]):
            raise RuntimeError(f"{_qualified(model)} already defines {name!r}; refusing to overwrite an SDK field")
        annotation, info = _patched_field(name, source)
        annotations[name] = annotation
        fields[name] = info
        added.append(f"{_qualified(model)}.{name}")
    if delta is CallToolResultDelta and "is_error" in fields and not _is_patch_field(fields["is_error"]):
        annotations["is_error"], fields["is_error"] = _strict_error_flag(fields["is_error"])
        added.append(f"{_qualified(model)}.is_error")
    if delta is ToolAnnotationsDelta:
        # A malformed hint is parsed as its safe value; the mark keeps it as it came, so the model reads as the wire.
        annotations[_AS_SENT_FIELD], fields[_AS_SENT_FIELD] = _as_sent_field()
        added.append(f"{_qualified(model)}.{_AS_SENT_FIELD}")
    model.__get_pydantic_core_schema__ = classmethod(_patched_schema)  # type: ignore[method-assign]
    # New dicts, never in-place edits: the originals stay intact in the snapshot.
    model.__annotations__ = annotations
    model.__pydantic_fields__ = fields


def install() -> PatchRecord:
    """Add the rendering fields to the SDK's models. Idempotent: a second call returns the same record.

    Raises:
        UnsupportedSDKError: the installed `mcp` is outside `SUPPORTED_SDK`.
    """
    global _state
    with _lock:
        if _state is not None:
            return _state.record
        version = _sdk_version()
        for name in _SDK_MODULES:
            importlib.import_module(name)
        modules = _scanned_modules()
        models = _model_classes(modules)
        _complete_pending(models)

        targets: list[tuple[type[BaseModel], type[BaseModel]]] = []
        for module_name in _TARGET_MODULES:
            module = sys.modules[module_name]
            for class_name, deltas in _TARGETS.items():
                for delta in deltas:
                    targets.append((getattr(module, class_name), delta))
        target_classes = {model for model, _ in targets}
        # A subclass existing at install time does not inherit a field added to its base afterwards.
        inheriting = [
            (model, delta)
            for base, delta in targets
            for model in models
            if model is not base and issubclass(model, base) and model not in target_classes
        ]
        patched = target_classes | {model for model, _ in inheriting}
        ordered = _dependents_in_order(models, patched)

        snapshots = {model: _snapshot_class(model) for model in ordered}
        adapters = _module_adapters(modules)
        adapter_snapshots = [(adapter, {n: getattr(adapter, n) for n in _ADAPTER_STATE}) for _, adapter in adapters]
        caches = _module_caches(modules)
        added: list[str] = []
        try:
            for model, delta in [*targets, *inheriting]:
                _add_fields(model, delta, added)
            for model in target_classes:  # a subclass's constructor calls its base's
                model.__init__ = _constructor_by_field_names(model)  # type: ignore[method-assign]
            _rebuild_afresh(ordered)
            for model in ordered:
                _forget_assignments(model)
            for _, adapter in adapters:
                adapter.rebuild(force=True)
            for _, cache in caches:
                cache.cache_clear()
        except Exception:
            for model, snapshot in snapshots.items():
                _restore_class(model, snapshot)
            for adapter, state in adapter_snapshots:
                for attribute, value in state.items():
                    setattr(adapter, attribute, value)
            raise

        record = PatchRecord(
            sdk_version=version,
            fields=tuple(added),
            rebuilt_models=tuple(_qualified(model) for model in ordered),
            rebuilt_adapters=tuple(name for name, _ in adapters),
            cleared_caches=tuple(name for name, _ in caches),
        )
        _state = _State(record, snapshots, adapter_snapshots, [cache for _, cache in caches])
        logger.debug("mcp_rendering installed: %d fields, %d models", len(added), len(ordered))
        return record


def uninstall() -> None:
    """Put the SDK back exactly as it was before `install()`. Idempotent."""
    global _state
    with _lock:
        if _state is None:
            return
        for model, snapshot in _state.class_snapshots.items():
            _restore_class(model, snapshot)
        for adapter, state in _state.adapter_snapshots:
            for attribute, value in state.items():
                setattr(adapter, attribute, value)
        # Validators compiled while installed must not outlive the patch.
        for cache in _state.caches:
            cache.cache_clear()
        _recompile_late_dependents(_state)
        _state = None


def _recompile_late_dependents(state: _State) -> None:
    """Recompile the models built while the patch was installed that embed a patched one.

    A module imported after `install()` (FastMCP's, say) compiled the patched schemas into its models; there is no
    snapshot to restore, so those models are rebuilt, children first, against the restored classes. A subclass
    defined meanwhile loses the fields it inherited from the patch, as its base does.
    """
    # Every class the patch changed or rebuilt counts as a source: a late model may embed any of them.
    restored = set(state.class_snapshots)
    late = [model for model in _model_classes(_scanned_modules()) if model not in restored]
    inherited = [model for model in late if any(map(_is_patch_field, model.__pydantic_fields__.values()))]
    for model in inherited:
        # Fields it inherited from the patched base, not its own: they go with the patch.
        model.__pydantic_fields__ = {
            name: info for name, info in model.__pydantic_fields__.items() if not _is_patch_field(info)
        }
    dependents = [model for model in _dependents_in_order(late, restored) if model not in restored]
    _rebuild_afresh([*inherited, *(model for model in dependents if model not in inherited)])


def is_installed() -> bool:
    """Whether the patch is currently installed."""
    return _state is not None


def patch_record() -> PatchRecord | None:
    """What the current installation changed, or None when not installed."""
    state = _state
    return None if state is None else state.record


@contextmanager
def installed() -> Generator[PatchRecord]:
    """Install for the duration of a `with` block; uninstall on exit only if this block installed it.

    The patch is process-wide: blocks in concurrent threads share it, and the first to exit that installed it
    uninstalls it for all. Use it where one thread at a time needs the patch (tests, scripts).
    """
    was_installed = is_installed()
    record = install()
    try:
        yield record
    finally:
        if not was_installed:
            uninstall()
