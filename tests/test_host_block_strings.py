"""The server's strings on the host's lines naming content blocks: the line is the host's own, so each string it
shows (a block's type, a link's name and URI, a media type, an embedded resource's URI) is read as a line of its
own, and one worded like the host's lines draws the host's warning; strings no line shows draw none."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_rendering.host import IMITATION_WARNING, present
from mcp_rendering.render import markdown_escape
from tests.support.hostile import FAKE_PARTIAL
from tests.test_host_host_lines import TOOL, whole_text

TEXT = "Balance: 100"


@pytest.mark.parametrize(
    ("block", "line"),
    [
        ({"type": FAKE_PARTIAL}, f"[{FAKE_PARTIAL} block]"),
        ({"type": "resource_link", "name": FAKE_PARTIAL, "uri": "x://r"}, f"[link] {FAKE_PARTIAL} <x://r>"),
        ({"type": "resource_link", "name": "r", "uri": FAKE_PARTIAL}, f"[link] r <{FAKE_PARTIAL}>"),
        ({"type": "image", "data": "AAAA", "mimeType": FAKE_PARTIAL}, f"[image: {FAKE_PARTIAL}]"),
        ({"type": "resource", "resource": {"uri": FAKE_PARTIAL, "text": "hi"}}, f"[resource] {FAKE_PARTIAL}"),
    ],
    ids=["type", "link-name", "link-uri", "media-type", "resource-uri"],
)
def test_a_server_string_on_a_block_line_worded_like_the_hosts_is_warned_of(block: dict[str, Any], line: str) -> None:
    presentation = present(TOOL, whole_text(TEXT, block), server="s")
    assert presentation.notice is None
    assert presentation.text == f"{IMITATION_WARNING}\n\n{TEXT}\n\n{line}"
    assert presentation.markdown == f"{markdown_escape(IMITATION_WARNING)}\n\n```\n{TEXT}\n\n{line}\n```"


@pytest.mark.parametrize(
    "block",
    [
        {"type": "resource_link", "name": "r", "uri": "x://r"},
        # A link's description and title and a resource's name are on no line: they draw no warning.
        {"type": "resource_link", "name": "r", "uri": "x://r", "description": FAKE_PARTIAL, "title": FAKE_PARTIAL},
        {"type": "resource", "resource": {"uri": "x://r", "text": "hi", "name": FAKE_PARTIAL}},
    ],
    ids=["plain", "link-description", "resource-name"],
)
def test_a_block_line_showing_no_such_string_draws_no_warning(block: dict[str, Any]) -> None:
    presentation = present(TOOL, whole_text(TEXT, block), server="s")
    assert IMITATION_WARNING not in presentation.text
    assert markdown_escape(IMITATION_WARNING) not in presentation.markdown


@pytest.mark.parametrize(
    ("block", "line"),
    [
        ({"type": "resource_link", "name": "r", "uri": "x://r", "mimeType": FAKE_PARTIAL}, "[link] r <x://r>"),
        ({"type": "image", "data": "AAAA", "mimeType": "image/png", "name": FAKE_PARTIAL}, "[image: image/png]"),
        ({"type": "mystery", "uri": FAKE_PARTIAL}, "[mystery block]"),
    ],
    ids=["link-media-type", "image-name", "unknown-type-uri"],
)
def test_a_member_its_line_does_not_show_draws_no_warning(block: dict[str, Any], line: str) -> None:
    assert present(TOOL, whole_text(TEXT, block), server="s").text == f"{TEXT}\n\n{line}"


def test_a_block_the_host_does_not_show_draws_no_warning() -> None:
    block = {"type": "resource_link", "name": FAKE_PARTIAL, "uri": "x://r"}
    wire = whole_text(TEXT, block)
    wire["content"].insert(0, {"type": "text", "text": "Cash: 5"})
    presentation = present(TOOL, wire, max_rows=1)
    assert presentation.extent == "the first 1 of 2 lines"
    assert presentation.text == f"{presentation.notice}\n\nCash: 5"


@pytest.mark.parametrize("separator", ["\n", "\r\n", "\u2028", "\x85"], ids=["lf", "crlf", "line-separator", "nel"])
def test_a_member_split_over_lines_is_checked_as_its_line_shows_it(separator: str) -> None:
    # The line joins the member's lines with spaces: it is read so, as the same name on one line is.
    split, joined = (
        present(
            TOOL, whole_text(TEXT, {"type": "resource_link", "name": f"Q3 report{between}Note: draft", "uri": "x://q3"})
        )
        for between in (separator, " ")
    )
    assert split.text == joined.text == f"{TEXT}\n\n[link] Q3 report Note: draft <x://q3>"
