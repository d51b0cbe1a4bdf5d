"""Tests for the host half of the rendering extension: `read_rendering`'s closed, fail-safe reading.

Every wire value has one reading, and none fails open: nothing malformed, unknown
or missing makes a partial result read as complete or a verbatim one as
summarizable. The malformed values below are the ones the specification's
reading tables name; each is also sent over a real client/server pair to show
that no response carrying it is rejected.
"""

from typing import Any

import mcp_types as types
import pytest
from inline_snapshot import snapshot
from mcp_types import CallToolResult, TextContent, Tool

from mcp.client.client import Client
from mcp.client.rendering import EXTENSION_ID, RENDERING_SUPPORT, RenderingReading, read_rendering
from mcp.server import Server, ServerRequestContext

pytestmark = pytest.mark.anyio

_NOT_BOOLEANS: list[Any] = ["true", "false", "yes", 1, 0, 1.5, [], {}]
_NOT_MODES: list[Any] = [
    *("VERBATIM", "Summarizable", "summarizable ", "summarise", "tabular", ""),
    *(1, True, False, ["summarizable"], {"summarizable": True}),
]
_BLANK_LOOKING = ["\u2800", "\u2800\u2800", "\u115f", "\u1160", "\u3164", "\uffa0", "\u3164\u2800"]
"""Characters that are neither white space nor a format control yet show as nothing: no usable null text."""
_NOT_NULL_DISPLAYS: list[Any] = [
    *("", " ", "\t", "\u00a0", "\u200b", "\u2060", "\u2065", "\ufff0", "\U000e0002"),  # blank or invisible
    *_BLANK_LOOKING,
    *("0", "0.00", "-1", "1,000", "1.5e3", "n/a 0", "\u0663"),  # a decimal digit: would look like an amount
    *("\u00b2", "\u202e-", " -", "- ", "-\n-", "\u7a7a"),  # outside the member's type
    *("-", "\u2014", "\u2013", "--", ".", " - ", "- -", "\u2026", "***"),  # no letter: a dash reads as zero
    *("O", "O.OO", "l,OOO", "(O)", "S", "\u00ba", "lO", "s.o.", "\u00d8"),  # only letters that resemble digits
    *("x" * 17, "n" * 17),
]
_NOT_STRINGS: list[Any] = [0, False, [], {}]


def _tool(carrier: Any = None, *, present: bool = True) -> Tool:
    return Tool(name="t", input_schema={"type": "object"}, _meta={EXTENSION_ID: carrier} if present else None)


def _result(carrier: Any = None, *, present: bool = True, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[], is_error=is_error, _meta={EXTENSION_ID: carrier} if present else None)


def test_a_result_without_carriers_makes_no_claim() -> None:
    reading = read_rendering(None, _result(present=False))
    assert reading == RenderingReading(
        mode="unspecified",
        guidance=None,
        null_display="n/a",
        completeness="unstated",
        has_directive=False,
        has_hints=False,
    )
    assert not reading.partial


@pytest.mark.parametrize(
    ("tool", "partial"),
    [
        pytest.param(_tool({"verbatimHint": True}), True, id="hints"),
        pytest.param(_tool({}), True, id="empty-hints-carrier"),
        pytest.param(_tool({"verbatimHint": 1}), True, id="unclean-hints"),
        pytest.param(_tool("verbatim"), True, id="hints-carrier-not-an-object"),
        pytest.param(_tool(None), False, id="null-hints-carrier-is-absent"),
        pytest.param(_tool(present=False), False, id="no-hints-carrier"),
        pytest.param(None, False, id="unknown-tool"),
    ],
)
def test_a_result_without_a_directive_of_a_tool_with_hints_is_partial(tool: Tool | None, partial: bool) -> None:
    """The tool's hints carrier brings its results under the extension: without a directive their
    completeness is not stated. A result whose tool has no hints carrier is not read at all."""
    reading = read_rendering(tool, _result(present=False))
    assert (reading.completeness, reading.has_directive, reading.has_hints, reading.partial) == (
        "unstated",
        False,
        partial,
        partial,
    )


@pytest.mark.parametrize(
    ("tool_carrier", "is_error", "mode"),
    [
        pytest.param({"verbatimHint": True}, False, "verbatim", id="verbatim-hint"),
        pytest.param({"verbatimHint": True}, True, "verbatim", id="error-of-a-verbatim-tool-stays-verbatim"),
        pytest.param({"verbatimHint": True, "summarizeOkHint": True}, False, "verbatim", id="verbatim-wins"),
        pytest.param({"summarizeOkHint": True}, False, "summarizable", id="summarize-ok"),
        pytest.param({"summarizeOkHint": True}, True, "summarizable", id="summarize-ok-for-errors-too"),
        pytest.param({"summarizeOkHint": True, "verbatim": True}, False, "verbatim", id="unclean-reads-verbatim"),
        pytest.param({"verbatimHint": False, "verbatim": False}, False, "verbatim", id="unclean-over-false"),
        pytest.param({"verbatimHint": False, "summarizeOkHint": 1}, True, "verbatim", id="unclean-error-result"),
        pytest.param({"summarizeOkHint": True, "verbatimHint": 0}, False, "verbatim", id="malformed-beside-summarize"),
        pytest.param({"verbatimHint": False, "summarizeOkHint": False}, False, "unspecified", id="both-false"),
        pytest.param({"verbatimHint": None}, False, "unspecified", id="null-is-absent"),
        pytest.param(None, False, "unspecified", id="null-carrier-is-absent"),
        *(
            pytest.param({"verbatimHint": value}, False, "verbatim", id=f"malformed-verbatim-hint-{value!r}")
            for value in _NOT_BOOLEANS
        ),
        *(
            pytest.param({"summarizeOkHint": value}, False, "verbatim", id=f"malformed-summarize-ok-{value!r}")
            for value in _NOT_BOOLEANS
        ),
        *(
            pytest.param(value, False, "verbatim", id=f"carrier-not-an-object-{value!r}")
            for value in ["verbatim", 1, 1.5, True, ["verbatimHint"]]
        ),
    ],
)
def test_without_a_result_mode_the_tool_hints_decide(tool_carrier: Any, is_error: bool, mode: str) -> None:
    """Malformed `verbatimHint` reads true, malformed `summarizeOkHint` false; and either, like an
    unknown member or a carrier that is not an object, makes the carrier unclean, which reads
    `verbatimHint` true and `summarizeOkHint` false whatever it states."""
    assert read_rendering(_tool(tool_carrier), _result(present=False, is_error=is_error)).mode == mode


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        pytest.param("verbatim", "verbatim", id="verbatim"),
        pytest.param("summarizable", "summarizable", id="summarizable"),
        *(pytest.param(value, "verbatim", id=f"reads-as-verbatim-{value!r}") for value in _NOT_MODES),
    ],
)
def test_the_result_mode_decides_and_only_summarizable_is_summarizable(mode: Any, expected: str) -> None:
    """An open string: every string but "summarizable", and every non-string, reads as verbatim,
    even against a tool that says its results may be summarized."""
    reading = read_rendering(_tool({"summarizeOkHint": True}), _result({"mode": mode}))
    assert reading.mode == expected


@pytest.mark.parametrize(
    "directive",
    [
        {"mode": "summarizable", "complete": True, "completed": True},
        {"mode": "summarizable", "complete": True, "guidance": 7},
        {"mode": "summarizable", "complete": True, "nullDisplay": "0"},
    ],
)
def test_an_unclean_directive_can_ask_to_show_more_never_less(directive: dict[str, Any]) -> None:
    """An unknown or malformed member makes the carrier unclean: `mode: "summarizable"` reads
    verbatim and `complete: true` reads not stated."""
    reading = read_rendering(None, _result(directive))
    assert (reading.mode, reading.completeness, reading.partial) == ("verbatim", "unstated", True)


@pytest.mark.parametrize(
    "directive",
    [
        pytest.param({"completed": True}, id="unknown-member"),
        pytest.param({"complete": "true"}, id="malformed-complete"),
        pytest.param({"mode": None, "guidance": 7}, id="null-mode-malformed-guidance"),
        pytest.param({"nullDisplay": ""}, id="malformed-null-display"),
    ],
)
def test_an_unclean_directive_without_a_mode_reads_verbatim_over_the_hints(directive: dict[str, Any]) -> None:
    """A misspelled member may have meant verbatim: the unclean directive reads mode verbatim even
    where it states none, so a tool's `summarizeOkHint` no longer decides."""
    assert read_rendering(_tool({"summarizeOkHint": True}), _result(directive)).mode == "verbatim"
    assert read_rendering(_tool({"summarizeOkHint": True}), _result({})).mode == "summarizable"


def test_a_clean_result_mode_decides_over_unclean_hints() -> None:
    """The effective-mode table: a stated mode wins whatever the hints read as."""
    reading = read_rendering(_tool({"summarizeOkHint": True, "verbatim": True}), _result({"mode": "summarizable"}))
    assert reading.mode == "summarizable"


@pytest.mark.parametrize(
    ("tool_carrier", "directive", "is_error", "mode"),
    [
        pytest.param({"verbatimHint": True}, {"mode": "summarizable"}, True, "verbatim", id="verbatim-tool-error"),
        pytest.param({"verbatimHint": True}, {"mode": "summarizable"}, False, "summarizable", id="not-an-error"),
        pytest.param({"verbatimHint": "yes"}, {"mode": "summarizable"}, True, "verbatim", id="malformed-hint-error"),
        pytest.param({"summarizeOkHint": True, "x": 1}, {"mode": "summarizable"}, True, "verbatim", id="unclean-hints"),
        pytest.param({"verbatimHint": False}, {"mode": "summarizable"}, True, "summarizable", id="not-verbatim"),
        pytest.param({"summarizeOkHint": True}, {"mode": "summarizable"}, True, "summarizable", id="summarize-ok"),
        pytest.param(None, {"mode": "summarizable"}, True, "summarizable", id="no-hints"),
        pytest.param({"verbatimHint": True}, {"mode": "verbatim"}, True, "verbatim", id="verbatim-error"),
        pytest.param({"verbatimHint": True}, {"mode": "tabular"}, True, "verbatim", id="unregistered-mode-error"),
    ],
)
def test_an_error_result_of_a_verbatim_tool_stays_verbatim_whatever_its_mode(
    tool_carrier: Any, directive: dict[str, Any], is_error: bool, mode: str
) -> None:
    """The effective-mode table's row for errors: where `verbatimHint` reads true (a
    well-formed true, a malformed value, or an unclean carrier), an error result
    (`isError: true`) reads verbatim even when its directive says summarizable."""
    tool = _tool(tool_carrier, present=tool_carrier is not None)
    assert read_rendering(tool, _result(directive, is_error=is_error)).mode == mode


@pytest.mark.parametrize(
    ("directive", "completeness"),
    [
        pytest.param({"complete": True}, "complete", id="true"),
        pytest.param({"complete": False}, "incomplete", id="false"),
        pytest.param({}, "unstated", id="absent"),
        pytest.param({"complete": None}, "unstated", id="null"),
        *(pytest.param({"complete": value}, "unstated", id=f"malformed-{value!r}") for value in _NOT_BOOLEANS),
        *(
            pytest.param({name: True}, "unstated", id=f"misspelled-{name}")
            for name in ["completed", "Complete", "is_complete", "COMPLETE", "complete "]
        ),
        *(
            pytest.param({"complete": True, name: True}, "unstated", id=f"unknown-beside-true-{name}")
            for name in ["Mode", "null_display", "nulldisplay", "continuation", "x"]
        ),
        pytest.param("complete", "unstated", id="carrier-not-an-object"),
    ],
)
def test_only_a_well_formed_complete_true_reads_complete(directive: Any, completeness: str) -> None:
    reading = read_rendering(None, _result(directive))
    assert reading.completeness == completeness
    assert reading.has_directive
    assert reading.partial is (completeness != "complete")


_CONTINUATION_ID = "io.modelcontextprotocol/result-continuation"


_CURSOR_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"cursor": {"type": "string"}}}


def _paged_tool(declaration: Any = None, hints: Any = None, schema: dict[str, Any] | None = None) -> Tool:
    """A tool that declares a continuation argument (the result continuation extension's carrier)."""
    meta: dict[str, Any] = {_CONTINUATION_ID: {"argument": "cursor"} if declaration is None else declaration}
    if hints is not None:
        meta[EXTENSION_ID] = hints
    return Tool(name="ledger", input_schema=_CURSOR_SCHEMA if schema is None else schema, _meta=meta)


@pytest.mark.parametrize(
    ("arguments", "completeness", "maybe_later_part"),
    [
        pytest.param(None, "unstated", True, id="arguments-not-known"),
        pytest.param({"company": "acme"}, "complete", False, id="first-part"),
        pytest.param({"company": "acme", "cursor": None}, "unstated", True, id="argument-null-is-set"),
        pytest.param({"company": "acme", "cursor": "p2"}, "unstated", True, id="later-part"),
    ],
)
def test_a_result_of_a_tool_that_declares_a_continuation_argument_is_read_with_its_call(
    arguments: dict[str, Any] | None, completeness: str, maybe_later_part: bool
) -> None:
    """Read alone, a later part is never the whole, whatever its `complete` says; and without the
    arguments of its call, a later part cannot be told from the first."""
    reading = read_rendering(_paged_tool(), _result({"mode": "verbatim", "complete": True}), arguments=arguments)
    assert (reading.completeness, reading.maybe_later_part, reading.partial) == (
        completeness,
        maybe_later_part,
        completeness != "complete",
    )
    assert reading.mode == "verbatim"
    assert reading.problems == ()


def test_a_later_part_is_partial_without_any_rendering_carrier() -> None:
    """The continuation rows read "unstated" whatever the carriers: a result with no directive
    of a tool with no hints is partial too when it is, or may be, a later part."""
    assert read_rendering(_paged_tool(), _result(present=False)).partial
    assert read_rendering(_paged_tool(), _result(present=False), arguments={"cursor": "p2"}).partial
    assert not read_rendering(_paged_tool(), _result(present=False), arguments={}).partial


@pytest.mark.parametrize(
    "declaration",
    [
        pytest.param({"argument": "_page2"}, id="underscore-and-digit"),
        pytest.param({"argument": "a" * 64}, id="longest"),
    ],
)
def test_a_clean_declaration_lets_the_first_part_end(declaration: dict[str, Any]) -> None:
    name = declaration["argument"]
    schema = {"type": "object", "properties": {name: {"type": "string"}}}
    reading = read_rendering(_paged_tool(declaration, schema=schema), _result({"complete": True}), arguments={})
    assert (reading.maybe_later_part, reading.completeness, reading.problems) == (False, "complete", ())


_STRING = {"type": "string"}


@pytest.mark.parametrize(
    ("declaration", "schema", "why"),
    [
        pytest.param({"argumnt": "cursor"}, None, "unknown member 'argumnt'", id="misspelled"),
        pytest.param({"argument": "cursor", "x": 1}, None, "unknown member 'x'", id="unknown-member"),
        pytest.param({"argument": 5}, None, "not a well-formed name", id="not-a-string"),
        pytest.param({"argument": "a" * 65}, None, "not a well-formed name", id="too-long"),
        pytest.param({"argument": "2page"}, None, "not a well-formed name", id="leading-digit"),
        pytest.param({"argument": "next cursor"}, None, "not a well-formed name", id="space"),
        pytest.param({"argument": ""}, None, "not a well-formed name", id="empty"),
        pytest.param({}, None, "not a well-formed name", id="no-argument"),
        pytest.param("cursor", None, "a string, not an object", id="not-an-object"),
        pytest.param(None, {"type": "object"}, "not a property", id="no-properties"),
        pytest.param(None, {"properties": {"page": _STRING}}, "not a property", id="another-property"),
        pytest.param(None, {"properties": {"cursor": {"type": "integer"}}}, "not of type string", id="integer"),
        pytest.param(None, {"properties": {"cursor": {"type": ["string", "integer"]}}}, "not of type", id="union"),
        pytest.param(None, {"properties": {"cursor": {"anyOf": [_STRING, {}]}}}, "not of type", id="untyped-branch"),
        pytest.param(None, {"properties": {"cursor": {"anyOf": []}}}, "not of type", id="no-branch"),
        pytest.param(None, {"properties": {"cursor": {"anyOf": [{"anyOf": [_STRING]}]}}}, "not of type", id="deep"),
        pytest.param(None, {"properties": {"cursor": True}}, "not of type string", id="schema-not-an-object"),
        pytest.param(None, {"properties": {"cursor": _STRING}, "required": ["cursor"]}, "required", id="required"),
        pytest.param(None, {"properties": {"cursor": _STRING}, "required": "cursor"}, "required", id="required-odd"),
    ],
)
def test_a_continuation_carrier_not_clean_and_usable_leaves_every_result_unstated(
    declaration: Any, schema: dict[str, Any] | None, why: str
) -> None:
    """A misspelled, mistyped, unknown-member or contradicted declaration: the reader cannot tell
    a later part from the first, so no result of the tool reads complete, and the problem is reported."""
    tool = _paged_tool(declaration, schema=schema)
    for arguments in ({"cursor": "p2"}, {"cursor": None}, {}, None):
        reading = read_rendering(tool, _result({"mode": "verbatim", "complete": True}), arguments=arguments)
        assert (reading.maybe_later_part, reading.completeness, reading.partial) == (True, "unstated", True)
        assert len(reading.problems) == 1 and why in reading.problems[0]


@pytest.mark.parametrize(
    "cursor",
    [
        pytest.param({"type": ["string", "null"]}, id="nullable"),
        pytest.param({"anyOf": [_STRING, {"type": "null"}], "default": None}, id="optional-as-pydantic-writes-it"),
    ],
)
def test_an_optional_string_argument_is_declared_in_each_form(cursor: dict[str, Any]) -> None:
    tool = _paged_tool(schema={"type": "object", "properties": {"cursor": cursor}, "required": ["year"]})
    reading = read_rendering(tool, _result({"complete": True}), arguments={"year": 2025})
    assert (reading.maybe_later_part, reading.completeness, reading.problems) == (False, "complete", ())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("n/a", "n/a", id="text"),
        pytest.param("— néant —", "— néant —", id="dashes-beside-a-word"),
        pytest.param("null", "null", id="word-null"),
        pytest.param("NaN", "NaN", id="no-digit"),
        *(
            pytest.param(value, value, id=f"usable-{value!r}")
            for value in ["N/A", "none", "nil", "missing", "not reported", "(vide)", "-n/a-", "\u2014n/a\u2014", "n/a…"]
        ),
        pytest.param("n" * 16, "n" * 16, id="longest"),
        *(pytest.param(value, "n/a", id=f"malformed-{value!r}") for value in _NOT_NULL_DISPLAYS),
        *(pytest.param(value, "n/a", id=f"not-a-string-{value!r}") for value in _NOT_STRINGS),
    ],
)
def test_null_display_holds_a_letter_and_no_digit(value: Any, expected: str) -> None:
    """A null text holds no decimal digit and at least one letter that resembles no digit: neither
    `"0"`, a dash alone (which a financial statement reads as zero) nor look-alikes such as `"O.OO"`
    can make a null pass for an amount. A malformed
    `nullDisplay` reads as absent (the default "n/a"), the other members still apply, and the
    carrier is unclean, so its `complete: true` no longer counts."""
    reading = read_rendering(None, _result({"nullDisplay": value, "mode": "verbatim", "complete": True}))
    completeness = "complete" if expected == value else "unstated"
    assert (reading.null_display, reading.mode, reading.completeness) == (expected, "verbatim", completeness)


@pytest.mark.parametrize("carrier", [42, "verbatim", True, ["complete"], 0.5])
def test_a_directive_carrier_that_is_not_an_object_reads_as_every_safe_value(carrier: Any) -> None:
    reading = read_rendering(_tool({"summarizeOkHint": True}), _result(carrier))
    assert (reading.mode, reading.completeness, reading.guidance, reading.null_display) == (
        "verbatim",
        "unstated",
        None,
        "n/a",
    )
    assert len(reading.problems) == 1


@pytest.mark.parametrize("value", _BLANK_LOOKING)
def test_braille_blank_and_hangul_fillers_are_not_visible(value: str) -> None:
    """They are neither white space nor invisible by category, yet show as nothing: a
    null text made only of them is blank (the reason given is that, not its type)."""
    reading = read_rendering(None, _result({"nullDisplay": value, "complete": True}))
    assert reading.null_display == "n/a"
    assert reading.problems == ("nullDisplay is malformed (empty, blank or invisible): ignored",)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("Show every line.", "Show every line.", id="text"),
        pytest.param("x" * 1000, "x" * 1000, id="longest"),
        pytest.param("x" * 1001, None, id="too-long"),
        pytest.param(5, None, id="number"),
        pytest.param(["a"], None, id="array"),
    ],
)
def test_guidance_is_taken_only_when_well_formed(value: Any, expected: str | None) -> None:
    assert read_rendering(None, _result({"guidance": value})).guidance == expected


def test_every_odd_value_is_reported_as_a_problem() -> None:
    reading = read_rendering(
        _tool({"verbatimHint": "yes", "summarize_ok_hint": True}),
        _result({"mode": 3, "complete": "true", "nullDisplay": "0", "guidance": {}, "continuation": {}}),
    )
    assert reading.problems == snapshot(
        (
            "tool carrier: unknown member 'summarize_ok_hint' ignored",
            "result carrier: unknown member 'continuation' ignored",
            "mode is malformed (a number, not a string): read as 'verbatim'",
            "verbatimHint is malformed (a string, not a boolean): read as true",
            "guidance is malformed (an object, not a string): ignored",
            "nullDisplay is malformed (holds a decimal digit): ignored",
            "complete is malformed (a string, not a boolean): completeness unstated",
        )
    )
    not_objects = read_rendering(_tool(["x"]), _result(7))
    assert not_objects.problems == snapshot(
        (
            "tool carrier is an array, not an object: every member reads as malformed",
            "result carrier is a number, not an object: every member reads as malformed",
        )
    )
    assert read_rendering(_tool({"verbatimHint": 1}), _result(present=False)).problems == snapshot(
        ("verbatimHint is malformed (a number, not a boolean): read as true",)
    )
    assert read_rendering(_tool({"summarizeOkHint": "true"}), _result(present=False)).problems == snapshot(
        ("summarizeOkHint is malformed (a string, not a boolean): read as false",)
    )
    assert read_rendering(None, _result({"nullDisplay": "-", "complete": True})).problems == snapshot(
        ("nullDisplay is malformed (holds no letter that resembles no digit, so it could pass for an amount): ignored",)
    )
    assert read_rendering(None, _result({"nullDisplay": "n-\u03b1", "complete": True})).problems == snapshot(
        ("nullDisplay is malformed (outside the printable Latin letters, punctuation and dashes of its type): ignored",)
    )


MALFORMED_TOOL_CARRIERS: list[Any] = ["verbatim", 1, [], {"verbatimHint": "false"}, {"summarizeOkHint": "true"}]
MALFORMED_DIRECTIVES: list[Any] = [
    "complete",
    {"complete": "true"},
    {"complete": 1, "mode": 1},
    {"completed": True},
    {"nullDisplay": ""},
    {"nullDisplay": "0"},
    {"guidance": "x" * 1001},
]


async def test_malformed_carriers_cross_the_wire_and_read_safely() -> None:
    """A real client keeps every response that carries a malformed value, and each reads
    as verbatim and partial: the safe side."""
    tools = [
        Tool(name=f"tool{i}", input_schema={"type": "object"}, _meta={EXTENSION_ID: carrier})
        for i, carrier in enumerate(MALFORMED_TOOL_CARRIERS)
    ]

    async def list_tools(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> CallToolResult:
        directive = MALFORMED_DIRECTIVES[int((params.arguments or {})["i"])]
        return CallToolResult(content=[TextContent(text="row 1")], _meta={EXTENSION_ID: directive})

    server = Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)
    readings: list[RenderingReading] = []
    async with Client(server, extensions=[RENDERING_SUPPORT]) as client:
        listed = (await client.list_tools()).tools
        for tool in listed:
            for i in range(len(MALFORMED_DIRECTIVES)):
                result = await client.call_tool(tool.name, {"i": i})
                assert result.content == [TextContent(text="row 1")]
                readings.append(read_rendering(tool, result))
    assert [tool.meta for tool in listed] == [{EXTENSION_ID: carrier} for carrier in MALFORMED_TOOL_CARRIERS]
    assert len(readings) == len(MALFORMED_TOOL_CARRIERS) * len(MALFORMED_DIRECTIVES)
    assert all(reading.partial and reading.problems for reading in readings)
    modes = {(reading.mode, "mode" in str(reading.problems)) for reading in readings}
    # Every carrier is unclean, tool and result alike, and an unclean carrier reads verbatim.
    assert modes == {("verbatim", True), ("verbatim", False)}
