"""Property tests: the generated models and the JSON Schema delta describe the same set of instances.

(a) Any model built from valid field values survives model -> JSON -> model unchanged, and its JSON validates
    against the merged schema of every protocol version.
(b) Any instance that hypothesis-jsonschema draws from the delta's definitions parses into the model and
    serializes back to exactly the same JSON.
(c) The schema never contradicts the reading: every carrier the schema accepts is read exactly as written, clean
    and with no problem, so a producer that validates what it sends is never misread.
"""

from __future__ import annotations

import importlib
import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import BaseModel

from mcp_rendering._generated import (
    CallToolResultDelta,
    Rendering,
    RenderingHints,
    ResultContinuation,
    ResultContinuationTool,
    ToolAnnotationsDelta,
)
from mcp_rendering.reading import read_continuation, read_hints_object, read_rendering_object

REPO_ROOT = Path(__file__).resolve().parent.parent


def _script(name: str) -> ModuleType:
    """Import one of the repository's generator scripts (they import each other by plain module name)."""
    scripts = str(REPO_ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)


gen_upstream = _script("gen_upstream")
gen_schema = _script("gen_schema")
VERSIONS: tuple[str, ...] = gen_upstream.VERSIONS
DELTA: dict[str, Any] = gen_upstream.load_json(gen_schema.DELTA_PATH)
VALIDATORS = {
    (version, name): gen_schema.definition_validator(gen_schema.load_merged(version), name)
    for version in VERSIONS
    for name in ("Rendering", "RenderingHints", "ResultContinuation", "ToolAnnotations", "Tool", "CallToolResult")
}
# CallToolResult requires content (and, from 2026-07-28, resultType): the delta's member rides on a minimal result.
_MINIMAL_RESULT: dict[str, Any] = {"resultType": "complete", "content": []}

# --- (a) strategies from the field types --------------------------------------------------------------------------

_booleans = st.none() | st.booleans()
_NULL_PATTERN: str = DELTA["$defs"]["Rendering"]["properties"]["nullDisplay"]["pattern"]
continuations = st.builds(
    ResultContinuation,
    argument=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,63}", fullmatch=True),
    token=st.from_regex(r"[A-Za-z0-9._~-]{1,4096}", fullmatch=True),
    # By its wire name, the name of the required parameter in the model's signature.
    **{
        "expiresAt": st.datetimes(timezones=st.just(timezone.utc)).map(
            lambda instant: instant.isoformat(timespec="microseconds").replace("+00:00", "Z")
        )
        | st.from_regex(DELTA["$defs"]["ResultContinuation"]["properties"]["expiresAt"]["pattern"], fullmatch=True)
    },
)
renderings = st.builds(
    Rendering,
    mode=st.none() | st.sampled_from(["verbatim", "summarizable"]) | st.text(max_size=20),
    guidance=st.none() | st.text(max_size=1000),
    null_display=st.none() | st.from_regex(_NULL_PATTERN, fullmatch=True).filter(lambda text: len(text) <= 16),
    complete=st.booleans(),
)
hints = st.builds(RenderingHints, verbatim_hint=_booleans, summarize_ok_hint=_booleans)
annotations = st.builds(ToolAnnotationsDelta, verbatim_hint=_booleans, summarize_ok_hint=_booleans)
results = st.builds(CallToolResultDelta, rendering=st.none() | renderings)


def _wire(model: BaseModel) -> Any:
    return json.loads(model.model_dump_json(by_alias=True, exclude_none=True))


def _schema_errors(name: str, instance: Any) -> list[str]:
    return [
        f"{version}: {error.message}"
        for version in VERSIONS
        for error in VALIDATORS[(version, name)].iter_errors(instance)
    ]


@given(renderings)
def test_rendering_round_trips_and_matches_the_schema(model: Rendering) -> None:
    wire = _wire(model)
    assert Rendering.model_validate_json(json.dumps(wire)) == model
    assert _schema_errors("Rendering", wire) == []


@given(continuations)
def test_continuation_round_trips_and_matches_the_schema(model: ResultContinuation) -> None:
    wire = _wire(model)
    assert ResultContinuation.model_validate_json(json.dumps(wire)) == model
    assert _schema_errors("ResultContinuation", wire) == []


@given(hints)
def test_hints_round_trip_and_match_the_schema(model: RenderingHints) -> None:
    wire = _wire(model)
    assert RenderingHints.model_validate_json(json.dumps(wire)) == model
    assert _schema_errors("RenderingHints", wire) == []


@given(annotations)
def test_annotations_delta_round_trips_and_matches_the_schema(model: ToolAnnotationsDelta) -> None:
    wire = _wire(model)
    assert ToolAnnotationsDelta.model_validate_json(json.dumps(wire)) == model
    assert _schema_errors("ToolAnnotations", wire) == []


@given(results)
def test_result_delta_round_trips_and_matches_the_schema(model: CallToolResultDelta) -> None:
    wire = _wire(model)
    assert CallToolResultDelta.model_validate_json(json.dumps(wire)) == model
    assert _schema_errors("CallToolResult", {**_MINIMAL_RESULT, **wire}) == []


# --- (b) instances drawn from the schema --------------------------------------------------------------------------


def _from_delta(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Instances of one delta subschema, drawn from the schema itself.

    Leaves (strings with their limits and pattern, booleans, the mode enum) are drawn by hypothesis-jsonschema.
    Objects are put together here from their declared members: hypothesis-jsonschema's own object generator relies
    on a Hypothesis internal that the pinned Hypothesis no longer has. Only declared members are drawn, never
    unknown ones: the models ignore unknown members on purpose (forward compatibility), so an instance carrying one
    would not serialize back to itself. The strictness tests cover unknown members.
    """
    ref = schema.get("$ref")
    if ref is not None:
        return _from_delta(DELTA["$defs"][ref.removeprefix("#/$defs/")])
    if "anyOf" in schema:
        return st.one_of(*(_from_delta(branch) for branch in schema["anyOf"]))
    properties: dict[str, Any] = schema.get("properties", {})
    if properties:
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {name: _from_delta(sub) for name, sub in properties.items() if name in required},
            optional={name: _from_delta(sub) for name, sub in properties.items() if name not in required},
        )
    return from_schema(schema)


def _drawn(name: str) -> st.SearchStrategy[Any]:
    return _from_delta(DELTA["$defs"][name])


def _ecma_end_anchor(instance: Any) -> bool:
    """False for a continuation argument ending in a newline.

    JSON Schema patterns are ECMA-262 regular expressions, where `$` matches only at the very end of the string.
    The Python `re` module used to draw (and by the Python validator) also lets `$` match before a final newline,
    so it can produce "a\\n" for `^[A-Za-z_][A-Za-z0-9_]*$`, which the schema, read as specified, rejects, and so do
    the models (their pattern engine follows the ECMA reading).
    """
    text = json.dumps(instance)
    return '\\n"' not in text


_MODELS: dict[str, type[BaseModel]] = {
    "Rendering": Rendering,
    "RenderingHints": RenderingHints,
    "ResultContinuation": ResultContinuation,
    "ResultContinuationTool": ResultContinuationTool,
    "ToolAnnotations": ToolAnnotationsDelta,
    "CallToolResult": CallToolResultDelta,
}


@pytest.mark.parametrize("name", sorted(_MODELS))
@given(data=st.data())
def test_schema_instances_parse_and_reserialize_identically(name: str, data: st.DataObject) -> None:
    instance = data.draw(_drawn(name), label=name)
    assume(_ecma_end_anchor(instance))
    model = _MODELS[name].model_validate(instance)
    # An explicit null is an absent member: it does not come back. The `_meta` carriers have no model of their own
    # here (each carrier value has its model, tested above): the fragment's model ignores them.
    expected = {key: value for key, value in _without_nulls(instance).items() if key != "_meta"}
    assert model.model_dump(mode="json", by_alias=True, exclude_none=True) == expected


def _without_nulls(instance: Any) -> Any:
    if isinstance(instance, dict):
        members: dict[str, Any] = instance
        return {key: _without_nulls(value) for key, value in members.items() if value is not None}
    return instance


# --- (c) what the schema accepts, the reader reads as written -----------------------------------------------------


@given(data=st.data())
def test_a_directive_the_schema_accepts_is_read_as_written(data: st.DataObject) -> None:
    wire = data.draw(_drawn("Rendering"))
    assume(_ecma_end_anchor(wire))
    directive, problems = read_rendering_object(wire)
    assert directive is not None and directive.clean
    mode = wire.get("mode")
    # An open string: a value this version does not register reads verbatim, and is reported.
    unregistered = mode is not None and mode not in ("verbatim", "summarizable")
    assert [(p.member, p.reads_as) for p in problems] == ([("mode", "verbatim")] if unregistered else [])
    # A present directive without a mode reads verbatim too: only "summarizable" reads summarizable.
    assert directive.mode == ("summarizable" if mode == "summarizable" else "verbatim")
    assert directive.complete is wire["complete"]
    assert (directive.guidance, directive.null_display) == (wire.get("guidance"), wire.get("nullDisplay"))


@given(data=st.data())
def test_hints_the_schema_accepts_are_read_as_written(data: st.DataObject) -> None:
    wire = data.draw(_drawn("RenderingHints"))
    hints, problems = read_hints_object(wire)
    assert problems == ()
    assert bool(hints.verbatim_hint) is (wire.get("verbatimHint") is True)
    assert bool(hints.summarize_ok_hint) is (wire.get("summarizeOkHint") is True)


@given(data=st.data())
def test_a_continuation_the_schema_accepts_is_usable(data: st.DataObject) -> None:
    wire = data.draw(_drawn("ResultContinuation"))
    assume(_ecma_end_anchor(wire))
    tool = {
        "inputSchema": {"type": "object", "properties": {wire["argument"]: {"type": "string"}}},
        "_meta": {"mcp-rendering/result-continuation": {"argument": wire["argument"]}},
    }
    carrier = {"_meta": {"mcp-rendering/result-continuation": wire}}
    reading = read_continuation(tool, carrier, original_arguments={})
    expires_at = wire.get("expiresAt")
    if expires_at is not None and not _real_future_time(expires_at):
        # The pattern admits a time that names no date (month 13) or one already past: read as unusable.
        assert reading.usable is None and [p.member for p in reading.problems] == ["expiresAt"]
        return
    assert reading.problems == () and reading.usable is not None
    assert reading.usable.token == wire["token"]


@pytest.mark.parametrize("name", ["Tool", "CallToolResult"])
@given(data=st.data())
def test_carriers_the_delta_types_validate_in_every_merged_schema(name: str, data: st.DataObject) -> None:
    """What the delta allows in `_meta` is what the merged schemas allow there, under every protocol version."""
    delta_members = data.draw(_drawn(name), label=name)
    assume(_ecma_end_anchor(delta_members))
    base = {"name": "t", "inputSchema": {"type": "object"}} if name == "Tool" else _MINIMAL_RESULT
    instance = {**base, **delta_members}
    assert _schema_errors(name, instance) == []


def _real_future_time(text: str) -> bool:
    """Whether an `expiresAt` of the schema's pattern names a real UTC time after now (the type has no leap second)."""
    day, time = text.rstrip("Z").split("T")
    seconds = time.split(".")[0]
    try:
        moment = datetime.strptime(f"{day}T{seconds}", "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    except ValueError:
        return False
    return moment > datetime.now(timezone.utc)
