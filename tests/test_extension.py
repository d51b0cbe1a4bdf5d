"""The server half's carriers on the wire (`extension.mirror_tool_hints`, `mirror_result_directive`)."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace
from typing import Any

import pytest

from mcp_rendering.extension import (
    RenderingExtension,
    client_supports_continuation,
    client_supports_rendering,
    mirror_result_directive,
    mirror_tool_hints,
)
from mcp_rendering.reading import AS_SENT, resolve_rendering
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID


def test_the_hints_are_mirrored_hint_by_hint_and_the_authors_stay() -> None:
    tool: dict[str, Any] = {
        "name": "t",
        "annotations": {"verbatimHint": True, "summarizeOkHint": True, "readOnlyHint": True},
        "_meta": {EXTENSION_ID: {"summarizeOkHint": False}, "other": 1},
    }
    mirror_tool_hints(tool)
    assert tool["_meta"] == {EXTENSION_ID: {"summarizeOkHint": False, "verbatimHint": True}, "other": 1}
    # Moved, not copied: the wire holds one carrier; the other annotations stay.
    assert tool["annotations"] == {"readOnlyHint": True}


def test_the_core_hints_stay_on_opt_in_and_empty_annotations_go() -> None:
    kept: dict[str, Any] = {"annotations": {"verbatimHint": True}}
    mirror_tool_hints(kept, keep_core_form=True)
    assert kept == {"annotations": {"verbatimHint": True}, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
    moved: dict[str, Any] = {"annotations": {"verbatimHint": True}}
    mirror_tool_hints(moved)
    assert moved == {"_meta": {EXTENSION_ID: {"verbatimHint": True}}}


def test_a_hint_the_patched_sdk_marked_goes_on_the_wire_as_the_author_set_it() -> None:
    """Annotations a server relays after parsing them with the patched SDK: the malformed hint is put back as it
    came and mirrored as it came, so the `_meta` entry reads unclean like the annotations; the mark stays off the
    wire. A mark that is not an object stays where it is (an unknown member of open annotations)."""
    relayed: dict[str, Any] = {"annotations": {"summarizeOkHint": False, AS_SENT: {"summarizeOkHint": "yes"}}}
    mirror_tool_hints(relayed)
    assert relayed == {"_meta": {EXTENSION_ID: {"summarizeOkHint": "yes"}}}
    read = resolve_rendering({"name": "t", "inputSchema": {"type": "object"}, **relayed}, None)
    assert read.mode == "verbatim" and read.problems


@pytest.mark.parametrize(
    "mark",
    [{}, {"summarizeOkHint": True}, {"summarizeOkHint": None}, {"x": "yes"}, "yes", {"summarizeOkHint": math.nan}],
)
def test_an_altered_mark_leaves_the_wire_unclean_as_the_annotations_read(mark: Any) -> None:
    """A mark that cannot be put back as it came goes into the `_meta` entry as an unknown member: a client reads
    the hints as unclean (verbatim), as the patched model holding them does, whatever the hints say."""
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    tool["annotations"] = {"summarizeOkHint": True, AS_SENT: mark}
    mirror_tool_hints(tool)
    assert "annotations" not in tool and AS_SENT in tool["_meta"][EXTENSION_ID]
    sent = json.loads(json.dumps(tool, allow_nan=False))
    read = resolve_rendering(sent, None)
    assert read.mode == "verbatim" and read.problems


def test_nothing_is_mirrored_into_a_malformed_entry_or_from_nothing() -> None:
    malformed: dict[str, Any] = {"annotations": {"verbatimHint": True}, "_meta": {EXTENSION_ID: "verbatim"}}
    mirror_tool_hints(malformed)
    # Nothing could be carried, so nothing is taken away: the hints stay where the author wrote them.
    assert malformed == {"annotations": {"verbatimHint": True}, "_meta": {EXTENSION_ID: "verbatim"}}
    unhinted: dict[str, Any] = {"annotations": {"readOnlyHint": True}}
    mirror_tool_hints(unhinted)
    assert "_meta" not in unhinted
    foreign_meta: dict[str, Any] = {"annotations": {"verbatimHint": True}, "_meta": ["not", "an", "object"]}
    mirror_tool_hints(foreign_meta)
    assert foreign_meta == {"annotations": {"verbatimHint": True}, "_meta": ["not", "an", "object"]}


def test_a_result_directive_is_mirrored_member_by_member() -> None:
    result: dict[str, Any] = {"content": [], "_rendering": {"mode": "verbatim", "complete": False}}
    mirror_result_directive(result)
    assert result == {"content": [], "_meta": {EXTENSION_ID: {"mode": "verbatim", "complete": False}}}
    kept: dict[str, Any] = {"_rendering": {"mode": "verbatim", "complete": False}}
    mirror_result_directive(kept, keep_core_form=True)
    assert kept["_rendering"] == kept["_meta"][EXTENSION_ID] == {"mode": "verbatim", "complete": False}
    authored: dict[str, Any] = {
        "_rendering": {"mode": "verbatim", "complete": False},
        "_meta": {EXTENSION_ID: {"mode": "summarizable"}},
    }
    mirror_result_directive(authored)
    # The author's mode stays; the `complete: false` only the core form held reaches the normative carrier.
    assert authored["_meta"][EXTENSION_ID] == {"mode": "summarizable", "complete": False}
    malformed: dict[str, Any] = {"_rendering": {"mode": "verbatim"}, "_meta": {EXTENSION_ID: 42}}
    mirror_result_directive(malformed)
    assert malformed == {"_rendering": {"mode": "verbatim"}, "_meta": {EXTENSION_ID: 42}}


def _context(extensions: Any) -> Any:
    """A server request context whose client declared `extensions` (what `capabilities.extensions` holds)."""
    return SimpleNamespace(session=SimpleNamespace(client_capabilities=SimpleNamespace(extensions=extensions)))


@pytest.mark.parametrize(
    ("value", "declared"),
    [
        ({}, True),
        ({"futureSetting": 1}, True),
        (None, False),
        (False, False),
        (True, False),
        ("yes", False),
        ([], False),
    ],
)
def test_only_an_object_declares_support(value: Any, declared: bool) -> None:
    # A non-empty object with unknown settings declares support, its settings ignored; nothing else declares it.
    for identifier, supports in (
        (EXTENSION_ID, client_supports_rendering),
        (CONTINUATION_ID, client_supports_continuation),
    ):
        assert supports(_context({identifier: value})) is declared
        assert supports(_context({"other/extension": {}})) is False
    assert client_supports_rendering(_context(None)) is False
    assert client_supports_continuation(_context({EXTENSION_ID: {}})) is False


@pytest.mark.parametrize("core_form", ["no", 0, 1, None, [], "false"])
def test_the_extension_takes_core_form_as_a_bool(core_form: Any) -> None:
    with pytest.raises(TypeError, match=r"^core_form must be True or False, not "):
        RenderingExtension(core_form=core_form)
