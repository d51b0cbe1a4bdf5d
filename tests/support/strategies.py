"""Hypothesis strategies for wire-form tools and tool results, with and without the extension's fields."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from mcp_rendering.types import EXTENSION_ID

text = st.text(max_size=20)
names = st.from_regex(r"[A-Za-z][A-Za-z0-9_\-]{0,15}", fullmatch=True)
json_scalars = st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=10)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
meta_keys = st.text(max_size=10).filter(lambda key: key != EXTENSION_ID)


def _optional(draw: st.DrawFn, key: str, strategy: st.SearchStrategy[Any], into: dict[str, Any]) -> None:
    if draw(st.booleans()):
        into[key] = draw(strategy)


@st.composite
def core_annotations(draw: st.DrawFn) -> dict[str, Any]:
    annotations: dict[str, Any] = {}
    _optional(draw, "title", text, annotations)
    for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
        _optional(draw, hint, st.booleans(), annotations)
    return annotations


@st.composite
def core_tools(draw: st.DrawFn) -> dict[str, Any]:
    """A 2026-07-28 Tool as it appears on the wire, using only fields the specification defines."""
    tool: dict[str, Any] = {"name": draw(names), "inputSchema": {"type": "object"}}
    _optional(draw, "title", text, tool)
    _optional(draw, "description", text, tool)
    _optional(draw, "annotations", core_annotations(), tool)
    _optional(draw, "_meta", st.dictionaries(meta_keys, json_values, max_size=2), tool)
    return tool


@st.composite
def core_results(draw: st.DrawFn) -> dict[str, Any]:
    """A 2026-07-28 CallToolResult as it appears on the wire, using only fields the specification defines."""
    blocks = st.lists(st.builds(lambda t: {"type": "text", "text": t}, text), max_size=3)
    result: dict[str, Any] = {"content": draw(blocks), "resultType": "complete"}
    _optional(draw, "structuredContent", st.dictionaries(st.text(max_size=6), json_values, max_size=3), result)
    _optional(draw, "isError", st.booleans(), result)
    _optional(draw, "_meta", st.dictionaries(meta_keys, json_values, max_size=2), result)
    return result


REGISTERED_MODES = ("verbatim", "summarizable")
RENDERING_MEMBERS = ("mode", "guidance", "nullDisplay", "complete")

# Text with characters outside the Basic Multilingual Plane: lengths are counted in code points.
wide_text = st.text(st.characters(min_codepoint=0x1F300, max_codepoint=0x1F5FF) | st.characters(), max_size=40)
tokens = st.from_regex(r"[A-Za-z0-9._~-]{1,60}", fullmatch=True)
argument_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
continuations = st.fixed_dictionaries({"argument": argument_names, "token": tokens})
unregistered_modes = st.text(max_size=20).filter(lambda mode: mode not in REGISTERED_MODES)
usable_null_texts = st.sampled_from(
    [
        "n/a",
        "N/A",
        "null",
        "none",
        "nil",
        "not reported",
        "missing",
        "—n/a—",
        "— néant —",
        "(vide)",
        "Øn",
        "-",
        "—",
        "無",
    ]
)


@st.composite
def renderings(draw: st.DrawFn, *, modes: st.SearchStrategy[str] | None = None) -> dict[str, Any]:
    """A well-formed `Rendering` in wire form: any subset of its members, each well-formed."""
    rendering: dict[str, Any] = {}
    _optional(draw, "mode", modes if modes is not None else st.sampled_from(REGISTERED_MODES), rendering)
    _optional(draw, "guidance", st.text(max_size=200) | st.text(min_size=990, max_size=1000), rendering)
    _optional(draw, "nullDisplay", usable_null_texts, rendering)
    rendering["complete"] = draw(st.booleans())
    return rendering


_not_a_string = st.integers() | st.booleans() | st.floats(allow_nan=False) | st.lists(st.text(max_size=3), max_size=2)
_not_a_boolean = (
    st.sampled_from(["true", "false", "yes", ""]) | st.integers() | st.floats(allow_nan=False) | st.lists(st.booleans())
)

malformed_members: dict[str, st.SearchStrategy[Any]] = {
    "mode": _not_a_string | st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
    "guidance": _not_a_string | st.text(min_size=1001, max_size=1040),
    "nullDisplay": _not_a_string
    | st.text(min_size=17, max_size=30)
    | st.sampled_from(["", " ", "0", "\u200b", "1.0", "\u0663", "\u216b", "\u00bd", "n/a 3"])  # blank or numeric
    | st.sampled_from(
        ["\u3164", "\u2800", "\u115f \u3164", "\u202e-", "n/a\u0007", "-\n"]
    ),  # invisible, format, control
    "complete": _not_a_boolean,
}
"""For each member of `Rendering`, values that are not well-formed for it (an explicit null is absent, not
malformed, and so is not among them)."""


@st.composite
def hint_values(draw: st.DrawFn) -> dict[str, Any]:
    hints: dict[str, Any] = {}
    _optional(draw, "verbatimHint", st.booleans(), hints)
    _optional(draw, "summarizeOkHint", st.booleans(), hints)
    return hints


@st.composite
def extended_tools(draw: st.DrawFn) -> dict[str, Any]:
    """A wire Tool carrying the extension's hints in the annotations and, sometimes, the `_meta` mirror."""
    tool = draw(core_tools())
    hints = draw(hint_values().filter(bool))
    tool["annotations"] = {**tool.get("annotations", {}), **hints}
    if draw(st.booleans()):
        # Usually the mirror repeats the core values; sometimes it disagrees, as a buggy server's would.
        mirror = draw(st.one_of(st.just(hints), hint_values()))
        tool["_meta"] = {**tool.get("_meta", {}), EXTENSION_ID: mirror}
    return tool


@st.composite
def extended_results(draw: st.DrawFn) -> dict[str, Any]:
    """A wire CallToolResult carrying `_rendering` and, sometimes, the `_meta` mirror."""
    result = draw(core_results())
    rendering = draw(renderings())
    result["_rendering"] = rendering
    if draw(st.booleans()):
        mirror = draw(st.one_of(st.just(rendering), renderings()))
        result["_meta"] = {**result.get("_meta", {}), EXTENSION_ID: mirror}
    return result


malformed_booleans = (
    st.text(max_size=5)
    | st.integers()
    | st.floats(allow_nan=False)
    | st.none()
    | st.lists(st.booleans(), max_size=2)
    | st.dictionaries(st.text(max_size=3), st.booleans(), max_size=2)
)

malformed_renderings: st.SearchStrategy[Any] = st.one_of(
    st.integers(),
    st.text(max_size=10),
    st.lists(json_scalars, max_size=2),
    *(st.fixed_dictionaries({member: values}) for member, values in malformed_members.items()),
)
"""Directives with nothing well-formed in them: not an object, or one malformed member alone."""
