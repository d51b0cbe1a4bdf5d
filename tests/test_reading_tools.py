"""How the reader reads a tool definition: its hints carrier, its core-form annotations, its continuation
declaration against its `inputSchema`, and whether it is a definition at all, from wire dicts and from models."""

from __future__ import annotations

import logging
from typing import Any

import mcp_types
import pytest
from pydantic import BaseModel, ConfigDict, Field

import mcp_rendering.patch
from mcp_rendering.reading import REPEATED_MEMBERS, Problem, parse_json, read_tool_hints, resolve_rendering
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

HINTS = f"Tool._meta[{EXTENSION_ID!r}]"
DECLARATION = f"Tool._meta[{CONTINUATION_ID!r}]"
CURSOR_SCHEMA = {"type": "object", "properties": {"cursor": {"type": "string"}}}
PARTIAL_RESULT = {"content": [], "_meta": {CONTINUATION_ID: {"argument": "cursor", "token": "t1"}}}


def wire_tool(hints: Any = None, *, declaration: Any = None, schema: Any = CURSOR_SCHEMA) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if hints is not None:
        meta[EXTENSION_ID] = hints
    if declaration is not None:
        meta[CONTINUATION_ID] = declaration
    return {"name": "ledger", "inputSchema": schema, "_meta": meta}


class FirstLineTool(BaseModel):
    """A `Tool` as the SDK's 1.x line defines it: camelCase field names (`inputSchema`), extra members kept."""

    model_config = ConfigDict(extra="allow")
    name: str
    inputSchema: dict[str, Any]
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


class FrameworkTool(BaseModel):
    """A framework's own tool object: a model, but no MCP definition (no input schema field)."""

    name: str
    description: str = ""


def every_form(wire: dict[str, Any]) -> list[Any]:
    return [wire, mcp_types.Tool.model_validate(wire), FirstLineTool.model_validate(wire)]


# --- the hints carrier ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", range(3), ids=["wire", "model", "1.x model"])
def test_read_tool_hints_reads_the_tools_carrier(form: int) -> None:
    the_tool = every_form(wire_tool({"summarizeOkHint": True}))[form]
    assert read_tool_hints(the_tool).summarize_ok_hint is True
    assert read_tool_hints(every_form(wire_tool({"verbatimHint": True}))[form]).verbatim_hint is True


def test_read_tool_hints_refuses_a_tool_dumped_with_python_field_names() -> None:
    dumped = {"name": "ledger", "input_schema": {}, "meta": {EXTENSION_ID: {"verbatimHint": True}}}
    with pytest.raises(ValueError, match="Python field names meta, input_schema, not the wire names"):
        read_tool_hints(dumped)


@pytest.mark.parametrize(
    ("carrier", "kind"),
    [
        (True, "a boolean"),
        (0, "a number"),
        (1.5, "a number"),
        ("verbatim", "a string"),
        ([{"verbatimHint": True}], "an array"),
        (("verbatimHint",), "tuple"),  # not JSON at all (a Python caller's value): named by its Python type
    ],
)
def test_a_hints_carrier_that_is_not_an_object_is_reported_by_what_it_is(carrier: Any, kind: str) -> None:
    effective = resolve_rendering(wire_tool(carrier), None)
    assert (effective.mode, effective.source) == ("verbatim", "tool._meta")
    assert effective.problems == (
        Problem(HINTS, None, f"{kind}, not an object", "verbatimHint true, summarizeOkHint false"),
    )


def test_a_meta_given_twice_reads_the_hints_unclean_even_when_the_kept_one_is_no_object() -> None:
    # The parser keeps the last `_meta` (here no object, so no carrier can hold a mark): the hints are in doubt.
    text = '{"name": "ledger", "inputSchema": {}, "_meta": {"%s": {"summarizeOkHint": true}}, "_meta": 5, %s}'
    the_tool = parse_json(text % (EXTENSION_ID, '"annotations": {"summarizeOkHint": true}'))
    for core_form in (False, True):  # in doubt, the carrier still decides: never the annotations
        assert read_tool_hints(the_tool, core_form=core_form).model_dump() == {
            "verbatim_hint": True,
            "summarize_ok_hint": False,
        }
    effective = resolve_rendering(the_tool, None, core_form=True)
    assert (effective.mode, effective.source) == ("verbatim", "tool._meta")
    assert Problem(HINTS, None, "_meta given more than once in the message", "unclean") in effective.problems


@pytest.mark.parametrize(
    ("tool", "core_form", "carrier", "problem"),
    [
        (
            {"_meta": {EXTENSION_ID: {"summarizeOkHint": True}}, REPEATED_MEMBERS: ["_meta"]},
            False,
            HINTS,
            "_meta given more than once in the message",
        ),
        (
            {"_meta": {EXTENSION_ID: {"summarizeOkHint": True}, REPEATED_MEMBERS: [EXTENSION_ID]}},
            False,
            HINTS,
            "carrier key given more than once in _meta",
        ),
        (
            {"annotations": {"summarizeOkHint": True}, REPEATED_MEMBERS: ["annotations"]},
            True,
            "Tool.annotations",
            "annotations given more than once in the message",
        ),
    ],
    ids=["_meta repeated", "carrier key repeated", "annotations repeated"],
)
def test_a_repetition_named_by_the_mark_in_the_message_makes_the_hints_unclean(
    tool: dict[str, Any], core_form: bool, carrier: str, problem: str
) -> None:
    # The mark is data: the message's own record of a repetition counts wherever it came from, and can only make a
    # carrier less clean, never more.
    message = {"name": "ledger", "inputSchema": {}, **tool}
    effective = resolve_rendering(message, None, core_form=core_form)
    assert effective.mode == "verbatim"
    assert Problem(carrier, None, problem, "unclean") in effective.problems


# --- the core form: the annotations -------------------------------------------------------------------------------


def test_the_core_form_is_read_from_the_annotations_of_every_form_of_tool() -> None:
    wire = {"name": "ledger", "inputSchema": {}, "annotations": {"summarizeOkHint": True}}
    with mcp_rendering.patch.installed():  # the unpatched 2.x model drops the rendering hints of its annotations
        for form in every_form(wire):
            assert read_tool_hints(form, core_form=True).summarize_ok_hint is True
            assert read_tool_hints(form).summarize_ok_hint is None  # only on opt-in


def test_a_malformed_annotation_hint_is_reported_where_it_was() -> None:
    wire = {"name": "ledger", "inputSchema": {}, "annotations": {"verbatimHint": "yes"}}
    effective = resolve_rendering(wire, None, core_form=True)
    assert (effective.mode, effective.source) == ("verbatim", "tool.annotations")
    assert [(p.carrier, p.member, p.reads_as) for p in effective.problems] == [
        ("Tool.annotations", "verbatimHint", "true")
    ]


def test_a_name_repeated_in_meta_outside_the_carriers_leaves_the_annotations_clean() -> None:
    text = '{"name": "ledger", "inputSchema": {}, "_meta": {"annotations": 1, "annotations": 2}, %s}'
    the_tool = parse_json(text % '"annotations": {"summarizeOkHint": true}')
    hints = read_tool_hints(the_tool, core_form=True)
    assert (hints.verbatim_hint, hints.summarize_ok_hint) == (None, True)


# --- the continuation declaration ---------------------------------------------------------------------------------


def test_a_declaration_the_input_schema_contradicts_is_reported_beside_the_carriers_other_problems(
    caplog: pytest.LogCaptureFixture,
) -> None:
    the_tool = wire_tool(declaration={"argument": "cursor", "since": 2}, schema={"type": "object"})
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        effective = resolve_rendering(the_tool, None, call_arguments={})
    why = "'cursor' is not a property of the tool's inputSchema"
    assert effective.problems == (
        Problem(DECLARATION, "since", "not a member of this carrier", "ignored"),
        Problem(DECLARATION, "argument", why, "no continuation argument"),
    )
    assert f"malformed {DECLARATION}.argument: {why}; read as no continuation argument" in caplog.messages
    assert effective.continuation_declaration_broken and not effective.complete


@pytest.mark.parametrize("declaration", [{}, {"argument": None}])
def test_a_declaration_without_an_argument_is_reported_missing(
    declaration: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        effective = resolve_rendering(wire_tool(declaration=declaration), None, call_arguments={})
    assert effective.problems == (Problem(DECLARATION, "argument", "missing", "no continuation argument"),)
    assert f"malformed {DECLARATION}.argument: missing; read as no continuation argument" in caplog.messages
    assert effective.continuation_declaration_broken and not effective.complete


@pytest.mark.parametrize(
    "cursor",
    [
        {"anyOf": 1},  # anyOf must be an array
        {"anyOf": True},
        {"type": 1, "anyOf": [{"type": "string"}]},  # a `type` that names no type hides the anyOf
        {"type": {"anyOf": "string"}, "anyOf": [{"type": "string"}]},
    ],
)
def test_a_cursor_schema_that_is_not_json_schema_declares_no_string(cursor: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"cursor": cursor}}
    the_tool = wire_tool(declaration={"argument": "cursor"}, schema=schema)
    effective = resolve_rendering(the_tool, PARTIAL_RESULT, call_arguments={})  # else followable
    assert effective.continuation is None
    assert (
        Problem(
            DECLARATION,
            "argument",
            "'cursor' is not of type string in the tool's inputSchema",
            "no continuation argument",
        )
        in effective.problems
    )


@pytest.mark.parametrize("form", range(3), ids=["wire", "model", "1.x model"])
def test_a_declared_continuation_is_followed_from_every_form_of_tool(form: int) -> None:
    the_tool = every_form(wire_tool(declaration={"argument": "cursor"}))[form]
    effective = resolve_rendering(the_tool, PARTIAL_RESULT, call_arguments={"year": 2025})
    assert effective.continuation is not None and effective.continuation.token == "t1"
    assert effective.problems == ()


# --- what the tool is ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("the_tool", "defined"),
    [
        (wire_tool(), True),
        (mcp_types.Tool.model_validate(wire_tool()), True),
        (FirstLineTool.model_validate(wire_tool()), True),
        ({"name": "ledger", "_meta": {}}, False),  # no inputSchema, which every Tool has
        (FrameworkTool(name="ledger"), False),
        (None, False),
    ],
    ids=["wire", "model", "1.x model", "wire without inputSchema", "framework model", "none"],
)
def test_only_an_mcp_tool_definition_counts_as_defined(the_tool: Any, defined: bool) -> None:
    assert resolve_rendering(the_tool, None).tool_defined is defined


@pytest.mark.parametrize(
    ("the_tool", "name"),
    [
        (wire_tool(), "ledger"),
        (mcp_types.Tool.model_validate(wire_tool()), "ledger"),
        (FirstLineTool.model_validate(wire_tool()), "ledger"),
        ({**wire_tool(), "name": 7}, None),  # not a string: no name to chain parts by
        (None, None),
    ],
    ids=["wire", "model", "1.x model", "not a string", "none"],
)
def test_the_tool_name_is_read_when_it_is_a_string(the_tool: Any, name: str | None) -> None:
    assert resolve_rendering(the_tool, None).tool_name == name
