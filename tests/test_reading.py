# pyright: reportCallIssue=false, reportAttributeAccessIssue=false
# (the rendering fields are added to the SDK's models at run time by install(); static analysis cannot see them)
"""The precedence rule, carrier by carrier, as the SEP's table states it."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from mcp_rendering import EXTENSION_ID, Rendering, read_directive, read_tool_hints, resolve_rendering

VERBATIM = {"mode": "verbatim", "guidance": "All rows."}
SUMMARIZABLE = {"mode": "summarizable"}


def tool(annotations: dict[str, Any] | None = None, meta: Any = None) -> dict[str, Any]:
    wire: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if annotations is not None:
        wire["annotations"] = annotations
    if meta is not None:
        wire["_meta"] = {EXTENSION_ID: meta}
    return wire


def result(rendering: Any = None, meta: Any = None) -> dict[str, Any]:
    wire: dict[str, Any] = {"content": []}
    if rendering is not None:
        wire["_rendering"] = rendering
    if meta is not None:
        wire["_meta"] = {EXTENSION_ID: meta}
    return wire


@pytest.mark.parametrize(
    ("the_tool", "the_result", "mode", "source"),
    [
        (tool(), result(), "unspecified", "none"),
        (tool({"verbatimHint": True}), result(), "verbatim", "tool.annotations"),
        (tool({"summarizeOkHint": True}), result(), "summarizable", "tool.annotations"),
        (tool({"verbatimHint": True, "summarizeOkHint": True}), result(), "verbatim", "tool.annotations"),
        (tool({"verbatimHint": False, "summarizeOkHint": False}), result(), "unspecified", "none"),
        (tool(meta={"verbatimHint": True}), result(), "verbatim", "tool._meta"),
        # Core before `_meta`, field by field.
        (tool({"verbatimHint": False}, {"verbatimHint": True}), result(), "unspecified", "none"),
        (tool({"summarizeOkHint": True}, {"verbatimHint": True}), result(), "verbatim", "tool._meta"),
        # A malformed core value reads as absent, so the mirror applies.
        (tool({"verbatimHint": "yes"}, {"verbatimHint": True}), result(), "verbatim", "tool._meta"),
        (tool({"verbatimHint": "yes"}), result(), "unspecified", "none"),
        # The result level before the tool level, both ways.
        (tool({"verbatimHint": True}), result(SUMMARIZABLE), "summarizable", "result._rendering"),
        (tool({"summarizeOkHint": True}), result(VERBATIM), "verbatim", "result._rendering"),
        (tool(), result(meta=VERBATIM), "verbatim", "result._meta"),
        (tool(), result(SUMMARIZABLE, VERBATIM), "summarizable", "result._rendering"),
        (tool(), result(42, VERBATIM), "verbatim", "result._meta"),
        (tool({"verbatimHint": True}), result({"mode": "loud"}, None), "verbatim", "tool.annotations"),
        (tool(), result({"mode": "verbatim", "guidance": "x" * 1001}), "unspecified", "none"),
    ],
)
def test_precedence(the_tool: dict[str, Any], the_result: dict[str, Any], mode: str, source: str) -> None:
    effective = resolve_rendering(the_tool, the_result)
    assert (effective.mode, effective.source) == (mode, source)


def test_directive_properties_and_defaults() -> None:
    page = result({"mode": "verbatim", "complete": False, "continuation": {"argument": "cursor", "token": "abc"}})
    effective = resolve_rendering(None, page)
    assert effective.complete is False
    assert effective.continuation is not None
    assert (effective.continuation.argument, effective.continuation.token) == ("cursor", "abc")
    assert effective.null_display == "-"
    assert effective.guidance is None
    whole = resolve_rendering(None, result({"mode": "verbatim", "nullDisplay": "n/a", "guidance": "g"}))
    assert (whole.complete, whole.null_display, whole.guidance) == (True, "n/a", "g")


def test_no_coercion_anywhere(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        hints = read_tool_hints(tool({"verbatimHint": "true", "summarizeOkHint": 1}, {"summarizeOkHint": "yes"}))
        assert (hints.verbatim_hint, hints.summarize_ok_hint) == (None, None)
        assert read_directive(result({"mode": "verbatim", "complete": "false"})) is None
        assert read_directive(result(meta="verbatim")) is None
    assert caplog.text.count("ignoring malformed") == 5


def test_a_non_object_meta_mirror_is_ignored() -> None:
    assert read_tool_hints(tool({"verbatimHint": None}, meta=["verbatimHint"])).verbatim_hint is None


def test_typed_models_are_read_like_wire_dicts() -> None:
    import mcp_types

    import mcp_rendering

    with mcp_rendering.installed():
        typed_tool = mcp_types.Tool.model_validate(tool({"verbatimHint": True}))
        typed_result = mcp_types.CallToolResult(content=[], rendering=Rendering(mode="summarizable"))
        assert resolve_rendering(typed_tool, typed_result).source == "result._rendering"
        assert resolve_rendering(typed_tool, mcp_types.CallToolResult(content=[])).mode == "verbatim"
    # Unpatched models carry only the `_meta` carrier, and that is enough.
    unpatched_tool = mcp_types.Tool.model_validate(tool({"verbatimHint": True}, {"verbatimHint": True}))
    assert resolve_rendering(unpatched_tool, None).source == "tool._meta"


def test_a_directive_built_without_validation_is_still_checked() -> None:
    import mcp_types

    import mcp_rendering

    with mcp_rendering.installed():
        result = mcp_types.CallToolResult(content=[])
        result.rendering = Rendering.model_construct(mode="verbatim", guidance="x" * 1001)  # pyright: ignore[reportAttributeAccessIssue]
        assert read_directive(result) is None
        result.rendering = Rendering(mode="verbatim", guidance="ok")  # pyright: ignore[reportAttributeAccessIssue]
        assert read_directive(result) == Rendering(mode="verbatim", guidance="ok")


def test_an_explicit_null_hint_is_malformed_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        hints = read_tool_hints(tool({"verbatimHint": None}, {"verbatimHint": True}))
    assert hints.verbatim_hint is True  # the null reads as absent, so the mirror applies
    assert "ignoring malformed annotations.verbatimHint (None)" in caplog.text
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        caplog.clear()
        read_tool_hints(tool({"readOnlyHint": True}))
    assert caplog.text == ""  # an absent hint is not a diagnostic
