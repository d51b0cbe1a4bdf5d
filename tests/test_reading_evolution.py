"""Property tests: the reading can evolve and stays fail-safe.

Members a later revision might add (any name the extensions do not define, holding any JSON value) never change the
reading of a well-formed carrier, on either extension's carriers, read from the wire or from the SDK's model, and
are always reported as ignored. Malformed carriers made from well-formed ones (a member misspelled, mistyped or
left out) never make a partial result read complete, nor a verbatim one summarizable.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import mcp_types
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.reading import (
    AS_SENT,
    REPEATED_CARRIER,
    REPEATED_MEMBERS,
    EffectiveRendering,
    read_hints_object,
    read_rendering_object,
    resolve_rendering,
)
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

_NOW = datetime(2026, 12, 1, 10, 0, 0, tzinfo=timezone.utc)
_DEFINED = {
    "hints": ("verbatimHint", "summarizeOkHint"),
    "directive": ("mode", "guidance", "nullDisplay", "complete"),
    "continuation": ("argument", "token", "expiresAt"),
    "declaration": ("argument",),
}
_MARKS = (AS_SENT, REPEATED_MEMBERS, REPEATED_CARRIER)

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_later_names = st.one_of(
    st.sampled_from(["priority", "audience", "layout", "rows", "expires", "version", "x-vendor", "complete2"]),
    st.sampled_from(["Complete", "completed", "Mode", "verbatim", "summarizable", "null_display", "cursor"]),
    st.text(min_size=1, max_size=12),
)


def _extra(defined: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """Members a later revision might add: names the carrier does not define, any JSON value (null included)."""
    names = _later_names.filter(lambda name: name not in defined and name not in _MARKS)
    return st.dictionaries(names, _json, min_size=1, max_size=4)


_hints = st.fixed_dictionaries(
    {}, optional={"verbatimHint": st.booleans() | st.none(), "summarizeOkHint": st.booleans() | st.none()}
)
_directives = st.fixed_dictionaries(
    {"complete": st.booleans()},
    optional={
        "mode": st.sampled_from(["verbatim", "summarizable"]) | st.none(),
        "guidance": st.text(max_size=30) | st.none(),
        "nullDisplay": st.sampled_from(["-", "n/a", "—", "néant", "無", "none"]) | st.none(),
    },
)
_continuations = st.fixed_dictionaries(
    {"argument": st.just("cursor"), "token": st.sampled_from(["t0", "v1.k1.abc", "a-b_c~d"])},
    optional={"expiresAt": st.sampled_from(["2026-12-02T10:15:00Z", "2027-01-01T00:00:00.5Z"])},
)


def _tool(hints: dict[str, Any] | None, declaration: dict[str, Any] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if hints is not None:
        meta[EXTENSION_ID] = hints
    if declaration is not None:
        meta[CONTINUATION_ID] = declaration
    properties = {"year": {"type": "integer"}, "cursor": {"type": "string"}}
    return {"name": "ledger", "inputSchema": {"type": "object", "properties": properties}, "_meta": meta}


def _result(directive: Any, continuation: Any = None) -> dict[str, Any]:
    meta: dict[str, Any] = {EXTENSION_ID: directive}
    if continuation is not None:
        meta[CONTINUATION_ID] = continuation
    return {"content": [], "_meta": meta}


def _reading(effective: EffectiveRendering) -> tuple[Any, ...]:
    """Everything a host acts on: mode, both completeness readings, texts, the continuation to follow."""
    followed = effective.continuation
    return (
        effective.mode,
        effective.source,
        effective.completeness,
        effective.continuation_partial,
        effective.complete,
        effective.guidance,
        effective.null_display,
        None if followed is None else followed.model_dump(by_alias=True),
    )


def _read(tool: dict[str, Any], result: dict[str, Any]) -> EffectiveRendering:
    return resolve_rendering(tool, result, call_arguments={"year": 2025}, now=_NOW)


# --- members a later revision might add ---------------------------------------------------------------------------


@given(
    hints=_hints,
    directive=_directives,
    continuation=_continuations | st.none(),
    extras=st.tuples(
        _extra(_DEFINED["hints"]),
        _extra(_DEFINED["directive"]),
        _extra(_DEFINED["continuation"]),
        _extra(_DEFINED["declaration"]),
    ),
    where=st.sets(st.sampled_from(["hints", "directive", "continuation", "declaration"]), min_size=1),
)
def test_a_later_revisions_members_change_no_reading_and_are_reported_as_ignored(
    hints: dict[str, Any],
    directive: dict[str, Any],
    continuation: dict[str, Any] | None,
    extras: tuple[dict[str, Any], ...],
    where: set[str],
) -> None:
    added: dict[str, dict[str, Any]] = dict(
        zip(("hints", "directive", "continuation", "declaration"), extras, strict=True)
    )
    if continuation is None:
        where.discard("continuation")
    before = _read(_tool(hints, {"argument": "cursor"}), _result(directive, continuation))

    def grown(kind: str, carrier: dict[str, Any]) -> dict[str, Any]:
        return {**carrier, **added[kind]} if kind in where else carrier

    tool = _tool(grown("hints", hints), grown("declaration", {"argument": "cursor"}))
    result = _result(
        grown("directive", directive), None if continuation is None else grown("continuation", continuation)
    )
    for message in (result, mcp_types.CallToolResult.model_validate(result)):
        for the_tool in (tool, mcp_types.Tool.model_validate(tool)):
            after = resolve_rendering(the_tool, message, call_arguments={"year": 2025}, now=_NOW)
            assert _reading(after) == _reading(before)
    after = _read(tool, result)
    ignored = {(problem.member, problem.reads_as) for problem in after.problems if problem.ignored}
    assert ignored == {(name, "ignored") for kind in where for name in added[kind]}
    assert {problem for problem in after.problems if not problem.ignored} == set(before.problems)
    assert after.directive is not None and after.directive.clean


@given(directive=_directives, extra=_extra(_DEFINED["directive"]))
def test_a_complete_summarizable_directive_with_a_later_member_stays_complete_and_summarizable(
    directive: dict[str, Any], extra: dict[str, Any]
) -> None:
    wire = {**directive, "mode": "summarizable", "complete": True, **extra}
    read, problems = read_rendering_object(wire)
    assert read is not None and (read.mode, read.completeness, read.clean) == ("summarizable", "complete", True)
    assert all(problem.ignored for problem in problems) and len(problems) == len(extra)
    effective = _read(_tool({"verbatimHint": False}), _result(wire))
    assert (effective.mode, effective.complete) == ("summarizable", True)


@given(hints=_hints, extra=_extra(_DEFINED["hints"]))
def test_hints_with_a_later_member_read_as_without_it(hints: dict[str, Any], extra: dict[str, Any]) -> None:
    assert read_hints_object({**hints, **extra})[0] == read_hints_object(hints)[0]


# --- malformed carriers made from well-formed ones -----------------------------------------------------------------

_misspell = st.sampled_from(
    [str.lower, str.upper, str.capitalize, lambda name: name + "s", lambda name: name[:-1], lambda name: f" {name}"]
)
_wrong_type: dict[str, st.SearchStrategy[Any]] = {
    "verbatimHint": st.sampled_from(["true", 1, 0, [], {}, "yes"]),
    "summarizeOkHint": st.sampled_from(["true", 1, 0, [], {}, "yes"]),
    "mode": st.sampled_from([1, True, [], {}, ["summarizable"], {"summarizable": True}]),
    "complete": st.sampled_from(["true", 1, 0, [], {}, "yes"]),
    "guidance": st.sampled_from([1, True, [], {}, "g" * 1001]),
    "nullDisplay": st.sampled_from([0, "", " ", "0", "\u3164", "\u0663", "\u202e-", [], True]),
    "argument": st.sampled_from([1, "", "a cursor", "1st", [], True]),
    "token": st.sampled_from([1, "", "a b", [], {}]),
    "expiresAt": st.sampled_from([None, 1796000900, "tomorrow", "2026-12-02", "2026-13-45T99:99:99Z"]),
}


@st.composite
def _malformed(draw: st.DrawFn, carrier: dict[str, Any]) -> dict[str, Any]:
    """`carrier` with one to three of its members misspelled, mistyped or left out."""
    broken = dict(carrier)
    for name in draw(st.lists(st.sampled_from(sorted(carrier)), min_size=1, max_size=3, unique=True)):
        how = draw(st.sampled_from(["misspell", "mistype", "omit"]))
        value = broken.pop(name)
        if how == "misspell":
            spelled = draw(_misspell)(name)
            if spelled != name:
                broken[spelled] = value
        elif how == "mistype":
            broken[name] = draw(_wrong_type[name])
    return broken


@given(data=st.data(), directive=_directives, hints=_hints)
def test_a_malformed_partial_directive_never_reads_complete(
    data: st.DataObject, directive: dict[str, Any], hints: dict[str, Any]
) -> None:
    partial = {**directive, "complete": False}
    broken = data.draw(_malformed(partial))
    effective = _read(_tool(hints), _result(broken))
    assert effective.completeness != "complete" and not effective.complete


@given(data=st.data(), directive=_directives, hints=_hints)
def test_a_malformed_verbatim_directive_never_reads_summarizable(
    data: st.DataObject, directive: dict[str, Any], hints: dict[str, Any]
) -> None:
    # Whatever the tool hints say, summarizeOkHint true included: a present directive decides.
    verbatim = {**directive, "mode": "verbatim"}
    broken = data.draw(_malformed(verbatim))
    for the_hints in (hints, {**hints, "summarizeOkHint": True}):
        assert _read(_tool(the_hints), _result(broken)).mode == "verbatim"


@given(data=st.data(), directive=_directives)
def test_a_malformed_directive_without_summarizable_never_reads_summarizable(
    data: st.DataObject, directive: dict[str, Any]
) -> None:
    broken = data.draw(_malformed({**directive, "mode": "summarizable"}))
    effective = _read(_tool({"summarizeOkHint": True}), _result(broken))
    if effective.mode == "summarizable":  # only from the literal value, under its own name, in a clean carrier
        assert broken.get("mode") == "summarizable"
        assert effective.directive is not None and effective.directive.clean


@given(data=st.data(), summarize=st.sampled_from([False, None]))
def test_malformed_verbatim_hints_never_read_summarizable(data: st.DataObject, summarize: bool | None) -> None:
    verbatim = {"verbatimHint": True, "summarizeOkHint": summarize}
    broken = data.draw(_malformed(verbatim))
    hints, _ = read_hints_object(broken)
    assert not hints.summarize_ok_hint
    assert _read(_tool(broken), {"content": []}).mode != "summarizable"


@given(data=st.data(), continuation=_continuations, directive=_directives)
def test_a_malformed_continuation_never_makes_a_partial_result_read_complete(
    data: st.DataObject, continuation: dict[str, Any], directive: dict[str, Any]
) -> None:
    broken = data.draw(_malformed(continuation) | _json)
    effective = _read(_tool(None, {"argument": "cursor"}), _result(directive, broken))
    if broken is not None:
        assert effective.continuation_partial and not effective.complete
