"""Reading the carriers of the rendering and result continuation extensions: closed, and failing safe.

The carriers are `_meta["io.modelcontextprotocol/rendering"]` of a `Tool` (the hints) and of a `CallToolResult`
(the directive), and `_meta["mcp-rendering/result-continuation"]` of both (the continuation argument,
and where the rest of a result is). The core form of the promotion draft (`Tool.annotations.verbatimHint`,
`.summarizeOkHint`, `CallToolResult._rendering`) is read only when the caller asks for it (`core_form=True`).

The rules, implemented here and nowhere else (section 4 of each specification):

1. **Open to later revisions, failing safe.** Each member is absent (missing or `null`), well-formed (its type
   exactly: nothing is converted, only the camelCase wire names are members, lengths count code points) or
   malformed. A member name the specification does not define is unknown: a later revision's member or a
   misspelling, which no reader can tell apart. It is ignored for the reading and reported as a problem that reads
   as "ignored", so a member a later revision adds changes nothing for an older reader. A carrier with a malformed
   or repeated member (`duplicate_members`), or that is itself given twice (its key repeated in `_meta`, or `_meta`
   repeated in the message; `parse_json` marks both kinds in the carrier, so the marks survive conversion to the
   SDK's models), is *unclean*: it can still ask to show more, never to show less.
2. **Every wire value has one reading.** An unclean carrier reads verbatim (`verbatimHint` true, `mode` verbatim)
   whatever it states. `summarizeOkHint`: true reads true only from a clean carrier. `mode`: "summarizable" reads
   summarizable only from a clean carrier; every other value, absent included, reads verbatim, and an
   unregistered string is reported. `complete`: true reads complete only from a clean carrier, false reads
   incomplete, anything else reads "not stated". `guidance` and `nullDisplay` that are not well-formed read as
   absent. A result without a directive, of a tool with a hints carrier, reads "not stated".
3. **Effective mode**: a present directive decides, except that an error result of a tool whose `verbatimHint`
   reads true stays verbatim; without one, `verbatimHint` true gives verbatim, else `summarizeOkHint` true gives
   summarizable, else "unspecified".
4. **Continuation**, read apart: rendering's mode and completeness never depend on it. Usable only when
   well-formed and clean, its `expiresAt` absent or a real time not yet past (`null` is malformed), its `argument`
   equal to the tool's declared one (an optional string property of its `inputSchema`) and not an argument of the
   original call (unusable when those arguments are not known); otherwise unusable. A result with a continuation
   carrier, usable or not, is partial, and so are a later part read alone (its call set the continuation argument,
   to any value, null included), every result of a tool whose continuation carrier is present but not clean and
   usable, and a result of a tool that declares a continuation argument read without its call's arguments. Parts
   combine as complete only when they chain: one tool, one set of arguments, each token followed.

Every function accepts the SDK's models (patched or not) or plain wire dictionaries; a model is read as its wire
JSON, so its Python field names are never members.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import math
import re
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Annotated, Any, Literal, TypeAlias, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from mcp_rendering._null_text import usable_by_property
from mcp_rendering.types import (
    CONTINUATION_ID,
    EXTENSION_ID,
    EffectiveMode,
    Rendering,
    RenderingHints,
    ResultContinuation,
    ResultContinuationTool,
)

__all__ = [
    "AS_SENT",
    "DEFAULT_NULL_DISPLAY",
    "IGNORED",
    "MAX_MESSAGE_DEPTH",
    "MAX_MESSAGE_VALUES",
    "PYTHON_FIELD_NAMES",
    "REPEATED_CARRIER",
    "REPEATED_MEMBERS",
    "SAFE_VALUES",
    "Carrier",
    "Completeness",
    "ContinuationReading",
    "Directive",
    "EffectiveRendering",
    "FollowableContinuation",
    "MessageTooLargeError",
    "Problem",
    "check_finite_numbers",
    "check_wire_names",
    "combine_parts",
    "duplicate_members",
    "exact_json_number",
    "parse_json",
    "read_continuation",
    "read_continuation_argument",
    "read_directive",
    "read_hints_object",
    "read_rendering_object",
    "read_tool_hints",
    "refuse_json_constant",
    "resolve_rendering",
    "usable_null_text",
]

logger = logging.getLogger("mcp_rendering")

DEFAULT_NULL_DISPLAY = "n/a"
"""What a null value shows as when the directive gives no usable null text."""

Carrier: TypeAlias = Literal["result._meta", "result._rendering", "tool._meta", "tool.annotations", "none"]
"""Where a value was read from; "none" when nothing was."""

Completeness: TypeAlias = Literal["complete", "incomplete", "not-stated"]
"""What a directive says of its result's completeness; "not-stated" is shown as partial."""

IGNORED = "ignored"
"""What an unknown member reads as (`Problem.reads_as`): it leaves the carrier clean and changes no reading."""

SAFE_VALUES: dict[str, Any] = {"mode": "verbatim", "verbatimHint": True, "summarizeOkHint": False}
"""By wire name, what a present but malformed member reads as: the value that shows more."""

_RESULT_META = f"CallToolResult._meta[{EXTENSION_ID!r}]"
_TOOL_META = f"Tool._meta[{EXTENSION_ID!r}]"
_RESULT_CONTINUATION = f"CallToolResult._meta[{CONTINUATION_ID!r}]"
_TOOL_CONTINUATION = f"Tool._meta[{CONTINUATION_ID!r}]"
_ABSENT: Any = object()


@dataclass(frozen=True)
class Problem:
    """One malformed, unknown or repeated value, and what it was read as."""

    carrier: str
    """Where it was, for example ``CallToolResult._meta['io.modelcontextprotocol/rendering']``."""
    member: str | None
    """The member's wire name; None when the whole carrier value is malformed (not an object)."""
    detail: str
    """Why it is a problem, in a few words."""
    reads_as: str = "absent"
    """What the reading made of it: "ignored" (an unknown member), "absent", "unclean", or the safe value
    ("verbatim", "true", "not stated")."""

    @property
    def ignored(self) -> bool:
        """An unknown member: reported, and without effect on the reading."""
        return self.reads_as == IGNORED

    def __str__(self) -> str:
        where = self.carrier if self.member is None else f"{self.carrier}.{self.member}"
        return f"{where}: {self.detail}; read as {self.reads_as}"


def _member_adapters(model: type[BaseModel], **checks: Any) -> dict[str, TypeAdapter[Any]]:
    """wire name -> strict validator of that one member (its `None` admitted, as absent), from the generated model,
    with the reader's own `checks` (by wire name) after the schema's."""
    adapters: dict[str, TypeAdapter[Any]] = {}
    for name, info in model.model_fields.items():
        wire_name = info.alias or name
        metadata = (*info.metadata, *((checks[wire_name],) if wire_name in checks else ()))
        annotation: Any = Annotated[(info.annotation, *metadata)] if metadata else info.annotation
        adapters[wire_name] = TypeAdapter(annotation)
    return adapters


def _check_null_text(text: str | None) -> str | None:
    # The rule by frozen Unicode property tables, beside the schema's pattern that spells it out: neither admits alone.
    if text is not None and not usable_by_property(text):
        raise ValueError("blank or invisible, or holds a control, format or numeric character")
    return text


_DIRECTIVE_MEMBERS = _member_adapters(Rendering, nullDisplay=AfterValidator(_check_null_text))
_HINT_MEMBERS = _member_adapters(RenderingHints)
_CONTINUATION_MEMBERS = _member_adapters(ResultContinuation)
_CONTINUATION_TOOL_MEMBERS = _member_adapters(ResultContinuationTool)


def usable_null_text(text: object) -> bool:
    """Whether `text` is a usable null text (section 4): a string of 1 to 16 code points, not only white space or
    invisible characters, with no control, format or numeric character of any script. The reader judges
    `nullDisplay` with this very validator: the schema's type (its lengths and pattern, from the generated model)
    and the rule by Unicode property (Unicode 14.0, frozen), so that no text either of them refuses reads as usable."""
    if not isinstance(text, str):
        return False
    try:
        _DIRECTIVE_MEMBERS["nullDisplay"].validate_python(text, strict=True)
    except ValidationError:
        return False
    return True


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


class _ObjectWithDuplicates(dict[str, Any]):
    """A JSON object in which the parser met a member name more than once (the last value kept, as JSON parsers do)."""

    duplicates: tuple[str, ...] = ()


REPEATED_MEMBERS = "(repeated members)"
"""The member `parse_json` adds to a carrier in which it met a member name more than once, listing those names.
The mark is data, so it survives every copy and conversion (an SDK model, its dumps): no carrier defines the
member, so the carrier reads as unclean wherever it goes."""

REPEATED_CARRIER = "(given more than once)"
"""The member `parse_json` adds (as true) to a carrier that a message gave more than once: its key repeated in
`_meta`, `_meta` repeated in the message (then in both carriers of `_meta`), or a core-form member repeated. A
carrier kept as anything but an object becomes an object holding the mark alone. Like `REPEATED_MEMBERS`, the mark
is data, so the carrier reads as given twice wherever a copy or a conversion takes it."""

AS_SENT = "(as sent)"
"""The member that the patched SDK (`mcp_rendering.patch`) adds to a `ToolAnnotations` in which it parsed a
malformed hint: an object holding each such hint as it came, while the model's field holds the hint's safe value.
The reader reads each hint named there from the value there, so the model reads exactly as the wire JSON it was
parsed from (unclean, hence verbatim). The mark is data, so it survives every dump, copy and conversion; it can
only make a carrier less clean: one that is not an object, or names a well-formed value or a member the carrier does
not define, makes the carrier unclean."""

_META_CARRIER_IDS = (EXTENSION_ID, CONTINUATION_ID)


def _marked_repeated(carrier: Any) -> dict[str, Any]:
    kept = dict(cast("Mapping[str, Any]", carrier)) if isinstance(carrier, Mapping) else {}
    return {**kept, REPEATED_CARRIER: True}


class _Repeats:
    """The objects of one parse that repeated a member name, with those names. Each object is held, so that no id
    is reused while the parse runs (an object whose member was overwritten is otherwise dropped at once)."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[dict[str, Any], tuple[str, ...]]] = {}

    def hook(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(pairs)
        if len(value) < len(pairs):
            names = [name for name, _ in pairs]
            self.seen[id(value)] = (value, tuple(sorted({name for name in names if names.count(name) > 1})))
        return value

    def names(self, value: Any) -> tuple[str, ...]:
        entry = self.seen.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else ()


def _with_repeats(value: dict[str, Any], repeated: tuple[str, ...]) -> dict[str, Any]:
    if not repeated:
        return value
    kept = _ObjectWithDuplicates(value)
    kept.duplicates = repeated
    return kept


def _carrier_marked(carrier: Any, repeats: _Repeats) -> Any:
    """A carrier object with its repeated members listed under `REPEATED_MEMBERS`; any other value as it is."""
    repeated = repeats.names(carrier)
    if not repeated:
        return carrier
    return {**cast("dict[str, Any]", carrier), REPEATED_MEMBERS: list(repeated)}


def _mark_carriers(message: Any, repeats: _Repeats) -> Any:
    """A Tool's or a CallToolResult's carriers marked where the parse met a name more than once: the object's own
    `_meta`, `annotations` and `_rendering`, the carrier keys in `_meta`, and the members of each carrier. Any
    other member of the object is left as parsed."""
    if not isinstance(message, dict):
        return message
    repeated = repeats.names(message)
    value = _with_repeats(cast("dict[str, Any]", message), repeated)
    for name in ("annotations", "_rendering"):
        if name in value:
            value[name] = _carrier_marked(value[name], repeats)
            if name in repeated:
                value[name] = _marked_repeated(value[name])
    meta: Any = value.get("_meta")
    if isinstance(meta, dict):
        meta_repeated = repeats.names(meta)
        meta = _with_repeats(cast("dict[str, Any]", meta), meta_repeated)
        for name in _META_CARRIER_IDS:
            if name in meta:
                meta[name] = _carrier_marked(meta[name], repeats)
                if name in meta_repeated:
                    meta[name] = _marked_repeated(meta[name])
        value["_meta"] = meta
    if "_meta" in repeated and (meta is None or isinstance(meta, dict)):
        # Either carrier may have been in the `_meta` not kept: both are in doubt, as the reader reads a repeated
        # `_meta` of the message itself (verbatim, never complete), and the marks keep that reading through a model.
        marked: dict[str, Any] = cast("dict[str, Any] | None", meta) or {}
        value["_meta"] = marked
        for name in _META_CARRIER_IDS:
            marked[name] = _marked_repeated(marked.get(name))
    return value


def _mark_message(message: Any, repeats: _Repeats) -> Any:
    """The carrier positions of a message: a Tool or a CallToolResult alone, the tools of a tools/list result, and
    the same inside a JSON-RPC response (or each message of a batch)."""
    if isinstance(message, list):
        return [_mark_message(item, repeats) for item in cast("list[Any]", message)]
    if not isinstance(message, dict):
        return message
    wire = cast("dict[str, Any]", message)
    if "jsonrpc" in wire and isinstance(wire.get("result"), dict):
        wire["result"] = _mark_message(wire["result"], repeats)
        return wire
    tools: Any = wire.get("tools")
    if isinstance(tools, list) and "content" not in wire:  # a tools/list result: its tools are the Tools
        wire["tools"] = [_mark_carriers(tool, repeats) for tool in cast("list[Any]", tools)]
        return wire
    return _mark_carriers(wire, repeats)


def refuse_json_constant(name: str) -> Any:
    """The `parse_constant` of every strict JSON reading here: `NaN`, `Infinity` and `-Infinity` are not JSON.

    Raises:
        ValueError: always, naming the constant.
    """
    raise ValueError(f"{name} is not a JSON value")


def exact_json_number(text: str) -> Decimal:
    """The `parse_float` of every strict JSON reading here: a JSON number with a fraction or an exponent, exactly as
    written (a float would change `12345678901234567890.12`), refused when no double can hold it.

    Raises:
        ValueError: the number overflows a double (`1e999` would read as infinity in any reader that uses one).
    """
    value = Decimal(text)
    if abs(float(value)) == float("inf"):
        raise ValueError(f"the number {text[:40]} is too large to read (it would read as infinity)")
    return value


def parse_json(text: str | bytes) -> Any:
    """Parse a JSON message as every JSON parser does (the last of repeated names wins), and mark repetition where
    the extensions read it, so that the reader reads a carrier given with a repeated member, or given twice, as
    unclean.

    Only the carrier positions of a Tool (alone, or in a `tools/list` result) and of a CallToolResult (alone, or in
    a JSON-RPC response) are marked: a carrier (`_meta[key]`, `annotations`, `_rendering`) in which a member name
    was repeated gains `REPEATED_MEMBERS`; one given twice (its key repeated in `_meta`, `_meta` repeated, or
    `annotations` or `_rendering` repeated; on a repeated `_meta`, both carriers of `_meta`) gains
    `REPEATED_CARRIER`; and the object and its `_meta` remember the
    names they repeated (`duplicate_members`). Every other value, content blocks and `structuredContent`
    included, is what a plain JSON parser gives, at any depth, except numbers: a number with a fraction or an
    exponent is a `Decimal`, exactly as written, which the views print and the model copy carries unchanged.

    Raises:
        ValueError: `text` is not JSON; this includes `NaN`, `Infinity`, `-Infinity` and a number too large for a
            double (`1e999`), which readers would read as infinity or not at all, and an integer over the
            interpreter's digit limit."""
    repeats = _Repeats()
    value = json.loads(
        text, parse_constant=refuse_json_constant, parse_float=exact_json_number, object_pairs_hook=repeats.hook
    )
    return _mark_message(value, repeats)


def duplicate_members(value: Any) -> tuple[str, ...]:
    """The member names that `parse_json` saw more than once in this object, or marked in this carrier as repeated
    (`REPEATED_MEMBERS`); empty for any other value."""
    if isinstance(value, _ObjectWithDuplicates):
        return value.duplicates
    marked: Any = cast("Mapping[str, Any]", value).get(REPEATED_MEMBERS) if isinstance(value, Mapping) else None
    if isinstance(marked, list):
        return tuple(sorted({str(name) for name in cast("list[Any]", marked)}))
    return ()


@dataclass(frozen=True)
class _Read:
    """One carrier, read member by member."""

    present: bool
    """Whether the carrier holds a value (not missing, not null)."""
    well_formed: dict[str, Any]
    """By wire name: the well-formed members, `None` (absent) left out."""
    malformed: frozenset[str]
    """The wire names of the malformed members; every member when the carrier is not an object."""
    clean: bool
    problems: tuple[Problem, ...]


_NOTHING = _Read(False, {}, frozenset(), True, ())


def _read(
    value: Any,
    carrier: str,
    members: Mapping[str, TypeAdapter[Any]],
    safe: Mapping[str, str],
    repeated: tuple[Problem, ...] = (),
) -> _Read:
    if repeated and isinstance(value, Mapping) and REPEATED_CARRIER in value:
        repeated = ()  # `parse_json` marked the carrier too: the mark reports it, once
    if repeated:
        # The parser kept one of several values, so what the carrier says is in doubt: present and unclean, even
        # when the value kept is null.
        for problem in repeated:
            logger.warning("malformed %s", problem)
        inner = _read(value, carrier, members, safe)
        return _Read(True, inner.well_formed, inner.malformed, False, repeated + inner.problems)
    if value is None:
        return _NOTHING
    if not isinstance(value, Mapping):
        # Not an object: whatever it was meant to say is unreadable, so every member takes its safe reading.
        reads = ", ".join(f"{name} {word}" for name, word in safe.items())
        problem = Problem(carrier, None, f"{_json_type(value)}, not an object", reads)
        logger.warning("malformed %s", problem)
        return _Read(True, {}, frozenset(members), False, (problem,))
    wire = cast("Mapping[Any, Any]", value)
    well_formed: dict[str, Any] = {}
    malformed: set[str] = set()
    problems: list[Problem] = []
    for name in duplicate_members(value):
        problems.append(Problem(carrier, name, "member given more than once", "unclean"))
    for key in wire:
        if key not in members and key not in (REPEATED_MEMBERS, REPEATED_CARRIER, AS_SENT):
            # A later revision's member or a misspelling: ignored, so that an older reader reads a newer carrier
            # as it was meant, and reported, so that a misspelling is seen.
            problems.append(Problem(carrier, str(key), "not a member of this carrier", IGNORED))
    if REPEATED_MEMBERS in wire and not duplicate_members(value):  # the mark, emptied or altered: still unclean
        problems.append(Problem(carrier, REPEATED_MEMBERS, "not a member of this carrier", "unclean"))
    if REPEATED_CARRIER in wire:  # whatever its value: a mark altered in transit still puts the carrier in doubt
        problems.append(Problem(carrier, None, "carrier given more than once in the message", "unclean"))
    sent = _as_sent(wire, carrier, members, problems)
    for name, adapter in members.items():
        raw = sent[name] if name in sent else wire.get(name)
        if isinstance(raw, BaseModel):  # judged in its wire form: a model can be built without validation
            raw = _jsonable(raw)
        if raw is None:
            continue
        try:
            value = adapter.validate_python(raw, strict=True)
        except (ValidationError, RecursionError) as error:
            malformed.add(name)
            problems.append(Problem(carrier, name, f"{_validation_detail(error)} (got {_short(raw)})", safe[name]))
            continue
        well_formed[name] = value
    for problem in problems:
        logger.warning("%s %s", "unknown" if problem.ignored else "malformed", problem)
    clean = all(problem.ignored for problem in problems)
    return _Read(True, well_formed, frozenset(malformed), clean, tuple(problems))


def _as_sent(
    wire: Mapping[Any, Any], carrier: str, members: Mapping[str, TypeAdapter[Any]], problems: list[Problem]
) -> dict[str, Any]:
    """The members as they came, from the `AS_SENT` mark: only malformed values; anything else in the mark is a
    problem that makes the carrier unclean (a mark cannot make a carrier cleaner than the wire it came from)."""
    if AS_SENT not in wire:
        return {}
    mark: Any = wire[AS_SENT]
    kept: dict[str, Any] = {}
    altered = not isinstance(mark, Mapping) or not mark
    for name, value in cast("Mapping[Any, Any]", mark).items() if isinstance(mark, Mapping) else ():
        if name not in members or value is None or _well_formed(members[name], value):
            altered = True
        else:
            kept[name] = value
    if altered:
        problems.append(Problem(carrier, None, f"{AS_SENT} mark altered (got {_short(mark)})", "unclean"))
    return kept


def _well_formed(adapter: TypeAdapter[Any], value: Any) -> bool:
    try:
        adapter.validate_python(value, strict=True)
    except (ValidationError, RecursionError):
        return False
    return True


def _validation_detail(error: ValidationError | RecursionError) -> str:
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return "; ".join(
        f"{'.'.join(str(part) for part in e['loc'])}: {e['msg']}" if e["loc"] else e["msg"]
        for e in error.errors(include_url=False)
    )


def _repetitions(message: Any, key: str, carrier: str, *, in_meta: bool = True) -> tuple[Problem, ...]:
    """Problems for a carrier that `parse_json` saw more than once: its key repeated in `_meta`, or `_meta` itself
    (or, with `in_meta` false, the carrier's own member of the message) repeated."""
    wire = cast("dict[str, Any]", message) if isinstance(message, dict) else None
    if wire is None:
        return ()
    problems: list[Problem] = []
    outer = "_meta" if in_meta else key
    if outer in duplicate_members(wire):
        problems.append(Problem(carrier, None, f"{outer} given more than once in the message", "unclean"))
    if in_meta and key in duplicate_members(wire.get("_meta")):
        problems.append(Problem(carrier, None, "carrier key given more than once in _meta", "unclean"))
    return tuple(problems)


_HINT_SAFE = {"verbatimHint": "true", "summarizeOkHint": "false"}
_DIRECTIVE_SAFE = {"mode": "verbatim", "complete": "not stated", "guidance": "absent", "nullDisplay": "absent"}
_CONTINUATION_SAFE = {"argument": "unusable", "token": "unusable", "expiresAt": "unknown expiry"}


@dataclass(frozen=True)
class Directive:
    """A result directive as read: every member has exactly one reading."""

    mode: Literal["verbatim", "summarizable"] = "verbatim"
    """The mode it reads as: summarizable only when a clean carrier states "summarizable", else verbatim (a present
    directive that states no mode, or a malformed or unregistered one, reads verbatim whatever the tool hints say)."""
    completeness: Completeness = "not-stated"
    guidance: str | None = None
    """The server's guidance, when well-formed."""
    null_display: str | None = None
    """The server's null text, when well-formed; `EffectiveRendering.null_display` applies the default."""
    wire_mode: str | None = None
    """The `mode` string as sent, when it was a string: an unregistered one reads as verbatim. None when the
    directive states no mode (which reads verbatim too)."""
    clean: bool = True
    """False when the carrier had a malformed or repeated member (an unknown one is ignored)."""

    @property
    def complete(self) -> bool | None:
        """`completeness` as the wire's boolean: None when not stated."""
        return {"complete": True, "incomplete": False}.get(self.completeness)

    @property
    def registered_mode(self) -> bool:
        """False when `mode` is a string this version does not register (read as verbatim)."""
        return self.wire_mode is None or self.wire_mode in _REGISTERED_MODES

    def as_wire(self) -> dict[str, Any]:
        """The reading in the carrier's wire form: the members it gives a value, by their wire names."""
        mode = self.wire_mode if self.wire_mode is not None else self.mode  # an unregistered string, as sent
        members = {"mode": mode, "guidance": self.guidance, "nullDisplay": self.null_display}
        wire: dict[str, Any] = {name: value for name, value in members.items() if value is not None}
        if self.complete is not None:
            wire["complete"] = self.complete
        return wire


_REGISTERED_MODES = ("verbatim", "summarizable")


def _directive(reading: _Read) -> Directive | None:
    if not reading.present:
        return None
    values = reading.well_formed
    wire_mode = values.get("mode")
    # Only a clean carrier's literal "summarizable" reads summarizable. A present directive without a mode reads
    # verbatim too, not "ask the tool hints": a misspelled `mode` (an unknown member, ignored) may have meant
    # verbatim. An unclean carrier may have meant verbatim whatever it states: the reading that shows more.
    mode: Literal["verbatim", "summarizable"] = (
        "summarizable" if reading.clean and wire_mode == "summarizable" else "verbatim"
    )
    complete = values.get("complete")
    completeness: Completeness
    if complete is False:
        completeness = "incomplete"
    elif complete is True and reading.clean:
        completeness = "complete"
    else:
        completeness = "not-stated"
    return Directive(
        mode=mode,
        completeness=completeness,
        guidance=values.get("guidance"),
        null_display=values.get("nullDisplay"),
        wire_mode=wire_mode,
        clean=reading.clean,
    )


def _hints(reading: _Read) -> RenderingHints:
    """The hints as read; a hint the carrier does not state stays None, which reads as false. An unclean carrier
    reads verbatim, whatever it states: a misspelled hint may have meant verbatim."""
    values = reading.well_formed
    verbatim: bool | None = values.get("verbatimHint")
    summarize: bool | None = values.get("summarizeOkHint")
    if not reading.clean:
        verbatim, summarize = True, False
    return RenderingHints.model_validate({"verbatimHint": verbatim, "summarizeOkHint": summarize})


def read_rendering_object(
    value: Any, carrier: str = _RESULT_META, *, repeated: tuple[Problem, ...] = ()
) -> tuple[Directive | None, tuple[Problem, ...]]:
    """One directive carrier as read, or None when it holds nothing; and its problems. `repeated`: the problems of
    a carrier given more than once (see `_repetitions`), which make it present and unclean."""
    reading = _read(value, carrier, _DIRECTIVE_MEMBERS, _DIRECTIVE_SAFE, repeated)
    directive = _directive(reading)
    if directive is None or directive.registered_mode:
        return directive, reading.problems
    # A later revision's value, or a misspelling: well-formed (an open string), read verbatim, and reported.
    problem = Problem(carrier, "mode", f"{_short(directive.wire_mode)} is not a registered value", "verbatim")
    logger.warning("unregistered %s", problem)
    return directive, (*reading.problems, problem)


def read_hints_object(
    value: Any, carrier: str = _TOOL_META, *, repeated: tuple[Problem, ...] = ()
) -> tuple[RenderingHints, tuple[Problem, ...]]:
    """One hints carrier as read, and its problems. An annotations object (the core form) is open: only its two
    rendering members are read, and its other members are not problems."""
    reading = _read(value, carrier, _HINT_MEMBERS, _HINT_SAFE, repeated)
    if carrier.endswith("annotations") and isinstance(value, Mapping):
        keep = tuple(p for p in reading.problems if p.member is None or p.member in _HINT_MEMBERS)
        clean = all(problem.ignored for problem in keep)
        reading = _Read(reading.present, reading.well_formed, reading.malformed, clean, keep)
    return _hints(reading), reading.problems


class FollowableContinuation(BaseModel):
    """A continuation the reader found usable: call the tool again with the original arguments plus `argument` set
    to `token`. Its `expires_at` is None when the server left the expiry out (a server always states it): the host
    follows the token until the server refuses it. Dumped by alias, it is the continuation as it came."""

    model_config = ConfigDict(frozen=True, validate_by_name=True, validate_by_alias=True)

    argument: str
    token: str
    expires_at: str | None = Field(default=None, alias="expiresAt")


@dataclass(frozen=True)
class ContinuationReading:
    """A result's continuation carrier as read."""

    present: bool = False
    """Whether the result has the carrier: if so, it is partial."""
    usable: FollowableContinuation | None = None
    """The continuation to follow; None when there is none or it is unusable."""
    problems: tuple[Problem, ...] = ()


_EXPIRY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z")


def _expiry(text: str) -> datetime | None:
    """The time an `expiresAt` of the type's pattern names, or None when it names none (month 13, hour 25)."""
    match = _EXPIRY.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    # The type's pattern admits no leap second (:60), though RFC 3339 does: a producer never sends one.
    try:
        return datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:
        return None


def read_continuation_argument(tool: Any) -> str | None:
    """The tool's declared continuation argument, when its carrier states one well-formed (clean or not): the
    argument a later part's call sets, and so not one of the caller's own."""
    argument: str | None = _declared_reading(tool).well_formed.get("argument")
    return argument


@dataclass(frozen=True)
class _Declaration:
    """A tool's continuation carrier as read."""

    present: bool
    argument: str | None
    """The declared argument when the carrier is clean, well-formed and the `inputSchema` agrees; else None."""
    problems: tuple[Problem, ...]
    named: str | None
    """The argument the carrier names well-formed, clean or not: `read_continuation_argument`."""

    @property
    def broken(self) -> bool:
        """Present but not clean and usable: any result of the tool may be a later part, or say nothing true."""
        return self.present and self.argument is None


def _declaration(tool: Any) -> _Declaration:
    reading = _declared_reading(tool)
    declared: str | None = reading.well_formed.get("argument") if reading.clean else None
    problems = reading.problems
    if declared is not None and (why := _undeclared_in_schema(tool, declared)) is not None:
        # A declaration the input schema contradicts is malformed: no continuation of the tool can be followed.
        declared = None
        problem = Problem(_TOOL_CONTINUATION, "argument", why, "no continuation argument")
        logger.warning("malformed %s", problem)
        problems += (problem,)
    elif reading.present and declared is None and not problems:
        problem = Problem(_TOOL_CONTINUATION, "argument", "missing", "no continuation argument")
        logger.warning("malformed %s", problem)
        problems += (problem,)
    return _Declaration(reading.present, declared, problems, reading.well_formed.get("argument"))


def _declared_reading(tool: Any) -> _Read:
    return _read(
        _meta_entry(tool, CONTINUATION_ID),
        _TOOL_CONTINUATION,
        _CONTINUATION_TOOL_MEMBERS,
        {"argument": "absent"},
        _repetitions(tool, CONTINUATION_ID, _TOOL_CONTINUATION),
    )


def _input_schema(tool: Any) -> Any:
    if isinstance(tool, BaseModel):
        return _jsonable(_model_member(tool, "input_schema", "inputSchema"))
    wire = _mapping(tool)
    return None if wire is None else wire.get("inputSchema")


def _schema_types(schema: Any, *, branch: bool = False) -> set[str]:
    """The JSON types a property's schema names: its `type` (a string or an array), or else the `type` of every
    branch of its `anyOf` (as generators write an optional argument); empty when a branch names none. One level of
    `anyOf` only: a branch without a `type` admits what this rule cannot tell."""
    wire = _mapping(schema)
    if wire is None:
        return set()
    named: Any = wire.get("type")
    if isinstance(named, str):
        return {named}
    if isinstance(named, list):
        return {str(name) for name in cast("list[Any]", named)}
    branches: Any = wire.get("anyOf")
    if branch or named is not None or not isinstance(branches, list) or not branches:
        return set()
    found: set[str] = set()
    for each in cast("list[Any]", branches):
        types = _schema_types(each, branch=True)
        if not types:
            return set()
        found |= types
    return found


def _undeclared_in_schema(tool: Any, argument: str) -> str | None:
    """Why the tool's `inputSchema` does not declare `argument` as an optional string property; None when it
    does. A continuation argument that the schema requires, types otherwise or lacks could not be left out of the
    original call, or set to a token, by a client that follows the schema."""
    schema = _mapping(_input_schema(tool))
    properties = None if schema is None else _mapping(schema.get("properties"))
    if schema is None or properties is None or argument not in properties:
        return f"{argument!r} is not a property of the tool's inputSchema"
    types = _schema_types(properties[argument])
    if "string" not in types or not types <= {"string", "null"}:
        return f"{argument!r} is not of type string in the tool's inputSchema"
    required: Any = schema.get("required", [])
    if not isinstance(required, list) or argument in cast("list[Any]", required):
        return f"{argument!r} is required (or required is not an array) in the tool's inputSchema"
    return None


def read_continuation(
    tool: Any, result: Any, *, original_arguments: Mapping[str, Any] | None = None, now: datetime | None = None
) -> ContinuationReading:
    """A result's continuation, checked against the tool's declared argument and the arguments of the original
    call (a continuation that names one of them would change the query, and is unusable; without
    `original_arguments` the check cannot pass, and the continuation is unusable). A continuation
    whose `expiresAt` is not after `now` (by default the current time) has expired, and is unusable. The host's
    `next_call_arguments` always checks against the caller's arguments before it follows one.

    Raises:
        ValueError: `now` without a time zone (`expiresAt` is a UTC time).
    """
    return _read_continuation(tool, result, original_arguments, now, None)


def _read_continuation(
    tool: Any,
    result: Any,
    original_arguments: Mapping[str, Any] | None,
    now: datetime | None,
    declaration: _Declaration | None,
) -> ContinuationReading:
    """`read_continuation`, with the tool's declaration when the caller has read it already: read (and logged) once."""
    if now is not None and now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime, such as datetime.now(timezone.utc)")
    check_wire_names(result)
    value = _meta_entry(result, CONTINUATION_ID)
    repeated = _repetitions(result, CONTINUATION_ID, _RESULT_CONTINUATION)
    reading = _read(value, _RESULT_CONTINUATION, _CONTINUATION_MEMBERS, _CONTINUATION_SAFE, repeated)
    if not reading.present:
        return ContinuationReading()
    problems = list(reading.problems)
    declaration = declaration or _declaration(tool)
    problems.extend(declaration.problems)
    declared = declaration.argument
    reported = len(problems)
    values = reading.well_formed
    usable = reading.clean and "argument" in values and "token" in values
    expires_at = values.get("expiresAt")
    wire = _mapping(value)
    if wire is not None and "expiresAt" in wire and wire["expiresAt"] is None:
        # Every wire value has one reading: a null expiry names no time, so the token's life is unknown.
        usable = False
        problems.append(Problem(_RESULT_CONTINUATION, "expiresAt", "null names no time", "unusable"))
    if expires_at is not None:
        expiry = _expiry(expires_at)
        if expiry is None:
            usable = False
            problems.append(
                Problem(_RESULT_CONTINUATION, "expiresAt", f"{expires_at!r} names no real time", "unusable")
            )
        elif usable and expiry <= (now or datetime.now(timezone.utc)):
            usable = False
            problems.append(Problem(_RESULT_CONTINUATION, "expiresAt", f"expired at {expires_at}", "unusable"))
    argument = values.get("argument")
    if usable and argument != declared:
        usable = False
        why = f"{argument!r} is not the tool's declared {declared!r}"
        if declared is None:
            why = f"the tool declares no continuation argument, so {argument!r} cannot be followed"
        if not _tool_defined(tool):
            why = "the tool's definition, which declares the argument, was not given"
        problems.append(Problem(_RESULT_CONTINUATION, "argument", why, "unusable"))
    if usable and original_arguments is None:
        # Unknown original arguments: whether the continuation names one of them cannot be checked, so it fails.
        usable = False
        problems.append(
            Problem(_RESULT_CONTINUATION, "argument", "the original call's arguments are not known", "unusable")
        )
    if usable and original_arguments is not None and argument in original_arguments:
        usable = False
        problems.append(
            Problem(_RESULT_CONTINUATION, "argument", f"{argument!r} is an argument of the original call", "unusable")
        )
    if reading.clean and not ("argument" in values and "token" in values):
        # Said even beside an ignored member or the tool's own problems, which do not tell why it is unusable.
        problems.append(Problem(_RESULT_CONTINUATION, None, "argument or token missing", "unusable"))
    for problem in problems[reported:]:
        logger.warning("malformed %s", problem)
    continuation = FollowableContinuation.model_validate(values) if usable else None
    return ContinuationReading(True, continuation, tuple(problems))


@dataclass(frozen=True)
class EffectiveRendering:
    """The outcome of reading every carrier of one tool and one result."""

    mode: EffectiveMode
    directive: Directive | None
    """The result's directive as read; None when the result has none."""
    hints: RenderingHints
    """The tool's hints as read."""
    source: Carrier
    """The carrier that decided the mode."""
    problems: tuple[Problem, ...] = field(default=())
    """Every malformed, unknown or repeated value, with what it was read as."""
    continuation_reading: ContinuationReading = field(default=ContinuationReading())
    call_known: bool = False
    """Whether the reader was given the arguments of the call that returned the result (`call_arguments`)."""
    later_part: bool = False
    """The call set the tool's declared continuation argument: the result is a later part of a larger whole."""
    call_token: Any = None
    """The value the call set the continuation argument to, when `later_part`: how `combine_parts` checks the chain."""
    tool_carrier: bool = False
    """Whether the tool has a hints carrier (read, clean or not): its results are read by this extension."""
    tool_name: str | None = None
    """The tool's `name`, when it is a string: `combine_parts` checks that every part comes from one tool."""
    query_arguments: Mapping[str, Any] | None = None
    """The call's arguments less the declared continuation argument, when `call_arguments` were given: the same
    for every part of one result, which `combine_parts` checks."""
    continuation_declared: bool = False
    """Whether the tool declares a continuation argument: then, without `call_arguments`, a later part cannot be
    told from the first, and the result's completeness reads "not-stated"."""
    continuation_declaration_broken: bool = False
    """Whether the tool's continuation carrier is present but not clean and usable (misspelled, mistyped, given
    twice, contradicted by the `inputSchema`): then no result of the tool can be told complete, and every one reads
    "not-stated"."""
    tool_defined: bool = True
    """Whether the tool was given as its MCP definition (an SDK `Tool`, or a wire object with its `inputSchema`):
    when not (None, a framework's own tool object, a name alone), what the tool declares (its hints, its
    continuation argument) is unknown, not absent, and a result's continuation cannot be checked against it."""

    @property
    def registered_mode(self) -> bool:
        """False when the directive's `mode` is a string this version does not register (read as verbatim)."""
        return self.directive is None or self.directive.registered_mode

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
    def completeness(self) -> Completeness | None:
        """Rendering's reading, whatever the continuation carriers say: what the directive states, "not-stated" for
        a result without a directive of a tool with a hints carrier, None when neither the result nor its tool
        carries a rendering carrier (the extension says nothing about it)."""
        if self.directive is None:
            return "not-stated" if self.tool_carrier else None
        return self.directive.completeness

    @property
    def continuation_partial(self) -> bool:
        """Result continuation's own reading: the result is, or may be, part of a larger whole. True when it has a
        continuation carrier (usable or not), when it is a later part read alone (only `combine_parts` can tell it
        ends a whole), for every result of a tool whose continuation carrier is present but not clean and usable,
        and for a result of a tool that declares a continuation argument read without `call_arguments` (it may be a
        later part)."""
        return (
            self.continuation_reading.present
            or self.later_part
            or self.continuation_declaration_broken
            or (self.continuation_declared and not self.call_known)
        )

    @property
    def complete(self) -> bool:
        """False when either extension reads the result as partial (rendering's completeness incomplete or not
        stated, or `continuation_partial`): shown as partial."""
        return self.completeness in ("complete", None) and not self.continuation_partial

    @property
    def continuation(self) -> FollowableContinuation | None:
        """How to ask for the rest of a partial result; None when there is none to follow."""
        return self.continuation_reading.usable


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


PYTHON_FIELD_NAMES = ("meta", "structured_content", "is_error", "input_schema", "output_schema")
"""The SDK's Python names of `Tool` and `CallToolResult` members whose wire names differ (`_meta`,
`structuredContent`, ...): a dict holding one is a model dumped without `by_alias=True`, not a wire message."""


def check_wire_names(message: Any) -> None:
    """Refuse a dict that holds the SDK's Python field names instead of the wire names: read as wire JSON, its
    carriers would be missing, and a partial or unclean result would read as complete.

    Raises:
        ValueError: `message` is a dict holding one of `PYTHON_FIELD_NAMES`.
    """
    wire = _mapping(message)
    if wire is None or isinstance(message, BaseModel):
        return
    names = [name for name in PYTHON_FIELD_NAMES if name in wire]
    if names:
        raise ValueError(
            f"the message holds the Python field names {', '.join(names)}, not the wire names (_meta, "
            "structuredContent, isError, inputSchema, outputSchema): dump the model with by_alias=True"
        )


MAX_MESSAGE_DEPTH = 100_000
"""The deepest nesting of a message `check_finite_numbers` reads. JSON parsers stop far short of it (Python's `json`
near 1,000 levels, at its recursion limit); a value built in memory deeper, or one that holds itself, is refused."""
MAX_MESSAGE_VALUES = 2**24
"""The most values (containers, strings, numbers...) a message `check_finite_numbers` reads may hold as JSON writes
it out, a value held in several places counted in each: 16,777,216, some 2.5 million records of five values. A
value built in memory that holds itself, or shares values so often that written out it would pass the bound, is
refused before the reading holds more than a few times the bound in memory."""


class MessageTooLargeError(ValueError):
    """A message past `MAX_MESSAGE_DEPTH` or `MAX_MESSAGE_VALUES`, or one that holds itself: no JSON text gives it."""

    @classmethod
    def too_many_values(cls) -> MessageTooLargeError:
        """The refusal of a message past `MAX_MESSAGE_VALUES`, in the words of every reader that bounds it."""
        return cls(
            f"the message holds more than {MAX_MESSAGE_VALUES} values as JSON writes it out (a value held in several "
            "places counted in each), or holds itself: refused"
        )


def check_finite_numbers(message: Any, *, checked: object = None, max_values: int = MAX_MESSAGE_VALUES) -> int:
    """Refuse a message holding a number JSON cannot hold: a NaN or infinite float or Decimal, as a plain
    `json.loads` gives for `NaN` or `1e999`, or as an SDK model holds after reading them. Read on, the user would see
    `inf` from a dict, `n/a` from the model (its JSON dump writes null) and the model `Infinity`, which is not JSON:
    one reading for the same bytes is a refusal on both paths, as `parse_json` refuses them. Refuse too a message
    nested more than `MAX_MESSAGE_DEPTH` levels deep or holding more than `MAX_MESSAGE_VALUES` values written out,
    as one that holds itself does. A value the message holds in several places is read in each, as JSON writes it.

    `checked` is a value inside `message` (the very object) already shown to hold finite numbers only, such as a
    document that validated as a `Document` (its cells refuse NaN and infinity): it is not walked again.
    `max_values` is the bound on values written out, `MAX_MESSAGE_VALUES` unless a reader has read some already.

    Returns:
        How many values it read, written out.

    Raises:
        ValueError: `message` (a dict, a list, a model, a framework's result object or a model of another pydantic
            installation, at any depth) holds such a number. The framework's result and the foreign model are
            checked before `as_wire` dumps them as JSON, which would write such a number as null.
        MessageTooLargeError: `message` is nested too deep, holds too many values, or holds itself.
    """
    level: list[Any] = [message]  # the values one level deep, read level by level: the depth is known
    read_objects: set[int] = set()  # each foreign object read by its members once
    values = 0
    for _ in range(MAX_MESSAGE_DEPTH + 1):
        values += len(level)
        if values > max_values:  # counted a level at a time: no cost a value
            raise MessageTooLargeError.too_many_values()
        room = max_values - values  # for the level below, checked as it grows: a level of shared lists can be huge
        below: list[Any] = []
        extend = below.extend
        for value in level:
            if value is checked:  # (None, the default, is finite too)
                continue
            kind = value.__class__  # `value` is Any: no cast, a call a value, on this path
            # What `json.loads` builds, by exact type first: a result of many records is walked at the cost of a
            # type lookup a value, not of several abstract instance checks.
            if kind is dict:
                extend(value.values())
                if len(below) > room:
                    raise MessageTooLargeError.too_many_values()
            elif kind is list:
                extend(value)
                if len(below) > room:
                    raise MessageTooLargeError.too_many_values()
            elif kind is str or kind is int or kind is bool or value is None:
                continue
            elif isinstance(value, (float, Decimal)):
                if not (value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)):
                    raise ValueError(f"the message holds the number {value}, which JSON cannot hold: refused")
            elif isinstance(value, (str, bytes, int)):  # a subclass (an enum's member, a tagged string) is its value
                continue
            else:
                if isinstance(value, Mapping):
                    extend(cast("Mapping[Any, Any]", value).values())
                elif isinstance(value, (list, tuple, set, frozenset)):
                    extend(cast("Iterable[Any]", value))
                elif isinstance(value, BaseModel):
                    extend(member for _, member in value)
                elif id(value) not in read_objects:  # a framework's result or a foreign model: what `as_wire` reads
                    read_objects.add(id(value))
                    extend(_read_by_as_wire(value))
                if len(below) > room:
                    raise MessageTooLargeError.too_many_values()
        if not below:
            return values
        level = below
    raise MessageTooLargeError(
        f"the message is nested more than {MAX_MESSAGE_DEPTH} levels deep, or holds itself: no JSON text gives it"
    )


def _read_by_as_wire(value: Any) -> list[Any]:
    """What `host.as_wire` and pydantic's dump read of an object that is neither JSON nor a model of this pydantic,
    in `as_wire`'s order: a foreign model's dump as Python values (a mapping; nothing when it cannot be dumped, which
    `as_wire` then refuses); a framework's result object's members (`content`, `structured_content`, `meta`,
    `is_error`, not its own parse of them); any other dataclass's fields, as a dump writes them."""
    dump: Any = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            dumped: Any = dump(mode="python", by_alias=True, exclude_none=True)
        except Exception:  # whatever it raises, `as_wire` raises again, where it is refused
            return []
        return [dumped] if isinstance(dumped, Mapping) else []
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return []
    names = [member.name for member in dataclasses.fields(value)]
    if {"content", "structured_content", "is_error"} <= set(names):
        names = ["content", "structured_content", "meta", "is_error"]
    return [getattr(value, name, None) for name in names]


def _jsonable(value: Any) -> Any:
    try:
        return to_jsonable_python(value, by_alias=True, exclude_none=True)
    except (PydanticSerializationError, RecursionError, ValueError):
        return value  # not serializable as the SDK would send it: judged as it is, and so malformed


def _model_member(model: BaseModel, *names: str) -> Any:
    """A member of an SDK model of any version, by the first of `names` it has: a field (2.x and 1.x names differ)
    or an extra member (pydantic exposes those as attributes too)."""
    for name in names:
        value = getattr(model, name, _ABSENT)
        if value is not _ABSENT:
            return value
    return None


def _meta_entry(message: Any, key: str) -> Any:
    """`message._meta[key]` in its wire form, without dumping the rest of the message."""
    if isinstance(message, BaseModel):
        meta: Any = _model_member(message, "meta", "_meta")
        if meta is None:
            meta = (message.model_extra or {}).get("_meta")
        entry = _mapping(meta)
        return None if entry is None else _jsonable(entry.get(key))
    wire = _mapping(message)
    entry = None if wire is None else _mapping(wire.get("_meta"))
    return None if entry is None else entry.get(key)


def _core_directive(result: Any) -> Any:
    if isinstance(result, BaseModel):
        core: Any = getattr(result, "rendering", _ABSENT)
        if core is _ABSENT:  # an unpatched model keeps it, if at all, as an extra member
            core = (result.model_extra or {}).get("_rendering")
        return _jsonable(core)
    wire = _mapping(result)
    return None if wire is None else wire.get("_rendering")


def _annotations(tool: Any) -> Any:
    if isinstance(tool, BaseModel):
        return _jsonable(_model_member(tool, "annotations"))
    wire = _mapping(tool)
    return None if wire is None else wire.get("annotations")


def _read_tool(tool: Any, core_form: bool) -> tuple[RenderingHints, Carrier, tuple[Problem, ...]]:
    value = _meta_entry(tool, EXTENSION_ID)
    repeated = _repetitions(tool, EXTENSION_ID, _TOOL_META)
    hints, problems = read_hints_object(value, _TOOL_META, repeated=repeated)
    if value is not None or repeated or not core_form:
        return hints, "tool._meta", problems
    core = "Tool.annotations"
    core_hints, core_problems = read_hints_object(
        _annotations(tool), core, repeated=_repetitions(tool, "annotations", core, in_meta=False)
    )
    return core_hints, "tool.annotations", core_problems


def _read_result(result: Any, core_form: bool) -> tuple[Directive | None, Carrier, tuple[Problem, ...]]:
    value = _meta_entry(result, EXTENSION_ID)
    repeated = _repetitions(result, EXTENSION_ID, _RESULT_META)
    if value is None and not repeated and core_form:
        core = "CallToolResult._rendering"
        directive, problems = read_rendering_object(
            _core_directive(result), core, repeated=_repetitions(result, "_rendering", core, in_meta=False)
        )
        return directive, "result._rendering", problems
    directive, problems = read_rendering_object(value, _RESULT_META, repeated=repeated)
    return directive, "result._meta", problems


def _is_error(result: Any) -> bool:
    """Whether the result is an error result (`isError: true`, exactly)."""
    if isinstance(result, BaseModel):
        flag: Any = _model_member(result, "is_error", "isError")
    else:
        flag = (_mapping(result) or {}).get("isError")
    return flag is True


def _tool_defined(tool: Any) -> bool:
    """Whether `tool` is an MCP tool definition: an SDK model with an input schema field, or a wire object holding
    `inputSchema` (a member every `Tool` has). A framework's tool object keeps its own members, not the server's."""
    if isinstance(tool, BaseModel):
        fields = type(tool).model_fields
        return "inputSchema" in fields or "input_schema" in fields
    wire = _mapping(tool)
    return wire is not None and "inputSchema" in wire


def _tool_name(tool: Any) -> str | None:
    name = _model_member(tool, "name") if isinstance(tool, BaseModel) else (_mapping(tool) or {}).get("name")
    return name if isinstance(name, str) else None


def _same_arguments(one: Mapping[str, Any] | None, other: Mapping[str, Any] | None) -> bool:
    """Equal as JSON values: `1` and `true` differ, as they do on the wire."""
    if one is None or other is None:
        return False
    try:
        return json.dumps(one, sort_keys=True, default=repr) == json.dumps(other, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return False


def read_tool_hints(tool: Any, *, core_form: bool = False) -> RenderingHints:
    """The tool's hints as read from its carrier (or, with `core_form`, from its annotations when it has none)."""
    check_wire_names(tool)
    return _read_tool(tool, core_form)[0]


def read_directive(result: Any, *, core_form: bool = False) -> Directive | None:
    """The result's directive as read from its carrier (or, with `core_form`, from `_rendering` when it has none)."""
    check_wire_names(result)
    return _read_result(result, core_form)[0]


def resolve_rendering(
    tool: Any,
    result: Any,
    *,
    core_form: bool = False,
    original_arguments: Mapping[str, Any] | None = None,
    call_arguments: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> EffectiveRendering:
    """What a host should do with `result` of `tool`. Either may be None.

    Args:
        core_form: also read the promotion draft's core form, where the carrier is absent. Off unless the host's
            user or developer enables it.
        original_arguments: the arguments of the original call, which a usable continuation may not name.
        call_arguments: the arguments of the call that returned `result`. When they set the tool's declared
            continuation argument, the result is a later part: read alone, it is `continuation_partial`, whatever
            its directive says. When they are not given and the tool declares a continuation argument, the result
            may be a later part, and it is `continuation_partial` too. `combine_parts` needs them to check that
            parts chain. When `original_arguments` is not given, they are taken to be these, less the continuation
            argument; when neither is given, no continuation is usable.
        now: the time against which `expiresAt` is checked, timezone-aware; the current time by default.

    Raises:
        ValueError: `now` without a time zone.
    """
    check_wire_names(tool)
    check_wire_names(result)
    directive, directive_source, result_problems = _read_result(result, core_form)
    hints, hint_source, tool_problems = _read_tool(tool, core_form)
    declaration = _declaration(tool)  # read once: each reading logs its problems
    # Any well-formed declared argument, clean carrier or not: being read as a later part only shows more.
    declared = declaration.named
    if original_arguments is None and call_arguments is not None:
        original_arguments = {name: value for name, value in call_arguments.items() if name != declared}
    continuation = _read_continuation(tool, result, original_arguments, now, declaration)
    # The tool carrier's problems are always reported; with a result carrier they are among its problems.
    declaration_problems = () if continuation.present else declaration.problems
    problems = result_problems + tool_problems + declaration_problems + continuation.problems
    # Present in the call's arguments with any value, null included, the continuation argument is set.
    later = call_arguments is not None and declared is not None and declared in call_arguments
    token = call_arguments.get(declared) if later and call_arguments is not None and declared is not None else None
    query = None if call_arguments is None else {k: v for k, v in call_arguments.items() if k != declared}
    tool_carrier = _meta_entry(tool, EXTENSION_ID) is not None or bool(_repetitions(tool, EXTENSION_ID, _TOOL_META))
    if core_form and hint_source == "tool.annotations":
        tool_carrier = hints.verbatim_hint is not None or hints.summarize_ok_hint is not None

    def effective(mode: EffectiveMode, source: Carrier) -> EffectiveRendering:
        return EffectiveRendering(
            mode,
            directive,
            hints,
            source,
            problems,
            continuation,
            call_arguments is not None,
            later,
            token,
            tool_carrier,
            _tool_name(tool),
            query,
            declared is not None,
            declaration.broken,
            _tool_defined(tool),
        )

    # A verbatim tool's error stays verbatim: a result's `summarizable` does not override the tool's hint there.
    error_of_verbatim_tool = bool(hints.verbatim_hint) and _is_error(result)
    overridden = error_of_verbatim_tool and directive is not None and directive.mode == "summarizable"
    if overridden:
        return effective("verbatim", hint_source)
    if directive is not None:
        # A present directive decides: its `mode` reads verbatim unless a clean carrier says "summarizable".
        return effective(directive.mode, directive_source)
    if hints.verbatim_hint:
        return effective("verbatim", hint_source)
    if hints.summarize_ok_hint:
        return effective("summarizable", hint_source)
    return effective("unspecified", "none")


def combine_parts(
    parts: Sequence[EffectiveRendering], *, all_fetched: bool | None = None
) -> tuple[EffectiveMode, bool]:
    """The effective mode and the completeness of the parts of one result, in the order fetched, each read with
    its `call_arguments`: verbatim if any part is, else summarizable if any is. Complete only when the parts chain
    (the first is the original call's result; each later one was called, on the same tool and with the original
    call's arguments, with the continuation token of the part before, which was usable), the last has no
    continuation carrier and its directive reads complete. The caller cannot make an unchained list complete;
    `all_fetched=False` makes any list incomplete."""
    modes = {part.mode for part in parts}
    mode: EffectiveMode = (
        "verbatim" if "verbatim" in modes else "summarizable" if "summarizable" in modes else "unspecified"
    )
    if not parts or all_fetched is False:
        return mode, False
    first, last = parts[0], parts[-1]
    chained = first.call_known and not first.later_part
    for earlier, later in itertools.pairwise(parts):
        followed = earlier.continuation
        chained = (
            chained
            and followed is not None
            and later.later_part
            and later.call_token == followed.token
            and later.tool_name is not None
            and later.tool_name == first.tool_name
            and _same_arguments(later.query_arguments, first.query_arguments)
        )
    ends = (
        not any(part.continuation_declaration_broken for part in parts)
        and not last.continuation_reading.present
        and last.directive is not None
        and last.directive.completeness == "complete"
    )
    return mode, chained and ends
