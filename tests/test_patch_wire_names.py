# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""One reading of the core fields: a wire dict and the patched SDK's model of the same bytes read the same, whatever
names the message gives its members. Only the wire names (`verbatimHint`, `summarizeOkHint`, `_rendering`) count;
the Python names (`verbatim_hint`, `rendering`, ...) are unknown members, in a model as in the wire reader."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterator
from typing import Any, Literal

import mcp_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from pydantic import BaseModel

import mcp_rendering
from mcp_rendering.reading import AS_SENT, EffectiveRendering, resolve_rendering

pytestmark = pytest.mark.timeout(120)

LAYERS = [
    pytest.param((mcp_types.Tool, mcp_types.CallToolResult), id="mcp_types"),
    pytest.param((v2025.Tool, v2025.CallToolResult), id="2025-11-25"),
    pytest.param((v2026.Tool, v2026.CallToolResult), id="2026-07-28"),
]

Spelling = Literal["wire", "python", "both", "neither"]
spellings: st.SearchStrategy[Spelling] = st.sampled_from(["wire", "python", "both", "neither"])

# Well-formed, wrong type, and values a lax reader would coerce.
hint_values = st.one_of(st.booleans(), st.none(), st.sampled_from(["true", "false", 1, 0, 1.0, [], {}]))
directive_values = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "mode": st.sampled_from(["verbatim", "summarizable", "legacy", 3, None]),
            "complete": st.sampled_from([True, False, "true", 1, None]),
            "guidance": st.sampled_from(["Show every row.", 5]),
            "nullDisplay": st.sampled_from(["-", "", 0]),
        },
    ),
    st.sampled_from([None, "verbatim", True, 1, []]),
)
EMPTY = {"content": [], "resultType": "complete"}
"""An empty result, as every protocol version reads it."""
marks = st.one_of(st.none(), st.just({}), st.just({"verbatimHint": "yes"}), st.just("altered"))


@pytest.fixture(autouse=True)
def _patched() -> Iterator[None]:
    logger = logging.getLogger("mcp_rendering")
    level = logger.level
    logger.setLevel(logging.ERROR)  # malformed hints are logged; not what these tests are about
    mcp_rendering.install()
    try:
        yield
    finally:
        mcp_rendering.uninstall()
        logger.setLevel(level)


def _spelled(members: dict[str, Any], wire: str, python: str, spelling: Spelling, value: Any, other: Any) -> None:
    """Put `value` under the wire name, the Python name, both (the Python one holding `other`), or neither."""
    if spelling in ("wire", "both"):
        members[wire] = value
    if spelling == "python":
        members[python] = value
    if spelling == "both":
        members[python] = other


def _reading(reading: EffectiveRendering) -> tuple[EffectiveRendering, tuple[tuple[str, str | None, str], ...]]:
    """The reading, with each problem as where it was and what it was read as. Left out: the reports of unknown
    members (the SDK's models drop every unknown member, `extra="ignore"`, so a model cannot report one) and the
    problems' wording (a mark sent as null is kept as an empty one: "got {}", read as the null is)."""
    problems = tuple((p.carrier, p.member, p.reads_as) for p in reading.problems if not p.ignored)
    return dataclasses.replace(reading, problems=()), problems


@pytest.mark.parametrize("layer", LAYERS)
@settings(max_examples=150)
@given(
    verbatim=st.tuples(spellings, hint_values, hint_values),
    summarize=st.tuples(spellings, hint_values, hint_values),
    mark=st.tuples(spellings, marks, marks),
    directive=st.tuples(spellings, directive_values, directive_values),
)
def test_a_model_reads_the_core_fields_as_the_wire_dict_does_whatever_their_spelling(
    layer: tuple[type[BaseModel], type[BaseModel]],
    verbatim: tuple[Spelling, Any, Any],
    summarize: tuple[Spelling, Any, Any],
    mark: tuple[Spelling, Any, Any],
    directive: tuple[Spelling, Any, Any],
) -> None:
    """Property: for any spelling of each core field (wire name, Python name, both, neither) and any value (well
    formed or of a wrong type), `model_validate` of the wire dict, or of its JSON, reads as the wire dict: a
    `rendering` never makes a partial result read complete, a `verbatim_hint` never makes a hint appear."""
    tool_model, result_model = layer
    annotations: dict[str, Any] = {"readOnlyHint": True}
    _spelled(annotations, "verbatimHint", "verbatim_hint", *verbatim)
    _spelled(annotations, "summarizeOkHint", "summarize_ok_hint", *summarize)
    _spelled(annotations, AS_SENT, "rendering_as_sent", *mark)
    tool = {"name": "ledger", "inputSchema": {"type": "object"}, "annotations": annotations}
    result: dict[str, Any] = {"content": [{"type": "text", "text": "rows"}], "resultType": "complete"}
    _spelled(result, "_rendering", "rendering", *directive)

    expected = _reading(resolve_rendering(tool, result, core_form=True))
    from_dicts = resolve_rendering(tool_model.model_validate(tool), result_model.model_validate(result), core_form=True)
    from_json = resolve_rendering(
        tool_model.model_validate_json(json.dumps(tool)),
        result_model.model_validate_json(json.dumps(result)),
        core_form=True,
    )
    assert _reading(from_dicts) == expected
    assert _reading(from_json) == expected


@pytest.mark.parametrize("layer", LAYERS)
def test_a_python_name_on_the_wire_is_an_unknown_member_not_the_field(
    layer: tuple[type[BaseModel], type[BaseModel]],
) -> None:
    """The regressions the property covers, each named: a partial result whose directive sits under `rendering`
    reads as it does without one, never as the complete directive the Python name holds; a misspelled hint adds
    no hint; the wire name wins over the Python name whatever their order."""
    tool_model, result_model = layer
    complete = {"mode": "verbatim", "complete": True}
    partial = {"mode": "verbatim", "complete": False}
    misnamed = result_model.model_validate({**EMPTY, "rendering": complete})
    assert misnamed.rendering is None
    both = result_model.model_validate({**EMPTY, "rendering": complete, "_rendering": partial})
    assert both.rendering == partial
    reversed_order = result_model.model_validate_json(
        json.dumps({"_rendering": partial, **EMPTY, "rendering": complete})
    )
    assert reversed_order.rendering == partial
    effective = resolve_rendering(None, both, core_form=True)
    assert effective.directive is not None and effective.directive.completeness == "incomplete"

    tool = tool_model.model_validate(
        {
            "name": "t",
            "inputSchema": {"type": "object"},
            "annotations": {"verbatim_hint": True, "rendering_as_sent": {}},
        }
    )
    assert tool.annotations is not None
    assert tool.annotations.verbatim_hint is None
    assert tool.annotations.model_dump(by_alias=True, exclude_none=True) == {}
    # Even when the caller asks for field names: the added fields have no name but the wire's.
    assert (
        tool_model.model_validate(
            {"name": "t", "input_schema": {"type": "object"}, "annotations": {"summarize_ok_hint": True}}, by_name=True
        ).annotations.summarize_ok_hint
        is None
    )


@pytest.mark.parametrize("layer", LAYERS)
def test_the_constructors_still_take_the_python_names(layer: tuple[type[BaseModel], type[BaseModel]]) -> None:
    """Python code builds the models as it did: by Python name or by wire name, the same object; naming one field
    both ways is refused, since which value was meant cannot be told."""
    tool_model, result_model = layer
    annotations_model: Any = tool_model.model_fields["annotations"].annotation
    annotations_model = next(a for a in getattr(annotations_model, "__args__", ()) if a is not type(None))
    by_name = annotations_model(verbatim_hint=True, summarize_ok_hint=False, read_only_hint=True)
    by_wire = annotations_model(verbatimHint=True, summarizeOkHint=False, readOnlyHint=True)
    assert by_name == by_wire
    assert by_name.model_dump(by_alias=True, exclude_none=True) == {
        "readOnlyHint": True,
        "verbatimHint": True,
        "summarizeOkHint": False,
    }
    result = result_model(content=[], result_type="complete", rendering={"mode": "verbatim"}, is_error=True)
    assert result.rendering == {"mode": "verbatim"}
    assert result.model_dump(by_alias=True, exclude_none=True)["_rendering"] == {"mode": "verbatim"}
    with pytest.raises(TypeError, match="'rendering' and '_rendering'"):
        result_model(content=[], rendering={"mode": "verbatim"}, _rendering={"mode": "summarizable"})

    class Audited(result_model):  # a subclass defined while installed: the constructor and the reading carry over
        reviewer: str | None = None

    assert Audited(content=[], result_type="complete", rendering={"mode": "verbatim"}, reviewer="x").rendering == {
        "mode": "verbatim"
    }
    assert Audited.model_validate({**EMPTY, "rendering": {"mode": "verbatim"}}).rendering is None


def _check_state(installed: bool) -> None:
    annotations: Any = mcp_types.ToolAnnotations
    if installed:
        assert annotations.model_validate({"verbatim_hint": True}).verbatim_hint is None
        assert annotations.model_validate({"verbatimHint": True}).verbatim_hint is True
        assert annotations(verbatim_hint=True).verbatim_hint is True
        assert mcp_types.CallToolResult.model_validate({"content": [], "rendering": {}}).rendering is None
    else:
        assert "verbatim_hint" not in annotations.model_fields
        assert annotations.__init__ is BaseModel.__init__
        assert mcp_types.CallToolResult.__init__ is BaseModel.__init__
        assert not hasattr(annotations.model_validate({"verbatimHint": True}), "verbatim_hint")


# Each install recompiles the SDK's affected models; a few sequences cover every transition.
@pytest.mark.timeout(300)
@settings(max_examples=15)
@given(st.lists(st.booleans(), max_size=6))
def test_install_and_uninstall_stay_reversible_and_idempotent_with_the_wire_name_reading(steps: list[bool]) -> None:
    """Property: after any sequence of `install()` and `uninstall()` (each repeated at will), the models read by
    wire name only exactly while installed, and take the Python names in their constructors; uninstalled, they are
    the SDK's own again, constructor included; a repeated `install()` returns the record it made."""
    mcp_rendering.uninstall()
    _check_state(installed=False)
    for step in steps:
        if step:
            record = mcp_rendering.install()
            assert mcp_rendering.install() is record
        else:
            mcp_rendering.uninstall()
            mcp_rendering.uninstall()
        _check_state(installed=step)


@pytest.mark.parametrize("sent_mark", [None, {}, "altered", {"verbatimHint": True}])
def test_a_mark_that_reads_altered_stays_altered_beside_a_malformed_hint(sent_mark: Any) -> None:
    """A message holding an altered `AS_SENT` mark and a malformed hint reads unclean, with the hint as sent, from
    its model as from the dict: the hint the patch marks does not make the altered mark read clean."""
    annotations = {"summarizeOkHint": "true", AS_SENT: sent_mark}
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}
    model = mcp_types.Tool.model_validate(tool)
    for reading in (resolve_rendering(tool, None, core_form=True), resolve_rendering(model, None, core_form=True)):
        wheres = {(p.member, p.reads_as) for p in reading.problems}
        assert (None, "unclean") in wheres
        assert ("summarizeOkHint", "false") in wheres
        assert reading.mode == "verbatim"
    assert _reading(resolve_rendering(model, None, core_form=True)) == _reading(
        resolve_rendering(tool, None, core_form=True)
    )


@pytest.mark.parametrize("layer", LAYERS)
def test_is_error_is_read_by_its_wire_name_alone_in_both_directions(
    layer: tuple[type[BaseModel], type[BaseModel]],
) -> None:
    """`is_error` on the wire is never `isError`: the patched model does not read it as the field (the SDK's own
    would, populating by name), as the wire reader never does (it refuses a dict holding a Python field name). So a
    verbatim tool's summarizable result reads summarizable from the model as from the dict without the member, and
    `isError` beside it is read alone, whatever `is_error` says; the constructor still takes `is_error`."""
    from mcp_rendering.host import present
    from mcp_rendering.types import EXTENSION_ID

    _, result_model = layer
    tool = {"name": "t", "inputSchema": {"type": "object"}, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
    result: dict[str, Any] = {
        **EMPTY,
        "content": [{"type": "text", "text": "rows"}],
        "_meta": {EXTENSION_ID: {"mode": "summarizable", "complete": True}},
    }
    for extra in ({"is_error": True}, {"is_error": "true"}):
        sent = {**result, **extra}
        for model in (
            result_model.model_validate(sent),
            result_model.model_validate(sent, by_name=True),
            result_model.model_validate_json(json.dumps(sent)),
        ):
            assert model.is_error is False
            assert present(tool, model).mode == present(tool, result).mode == "summarizable"
            assert "isError" not in present(tool, model).model_result
        with pytest.raises(ValueError, match="Python field names is_error"):
            present(tool, sent)
    error = {**result, "isError": True}
    for flag in (False, True, None):
        model = result_model.model_validate({**error, "is_error": flag})
        assert model.is_error is True
        reading = present(tool, model)
        assert reading.mode == present(tool, error).mode == "verbatim"
        assert reading.model_result["isError"] is True
    built = result_model(content=[], result_type="complete", is_error=True)
    assert built.is_error is True and built.model_dump(by_alias=True)["isError"] is True
    with pytest.raises(TypeError, match="'is_error' and 'isError'"):
        result_model(content=[], result_type="complete", is_error=True, isError=False)
