"""What `present()` gives the model of a text result's other blocks (each as the user's view shows it), and the
structured copy it makes of a page its bound cut (the shown records and the page state that lists them)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_rendering.host import present
from tests.test_host import TOOL, present_original, result, text_result

# ------------------------------------------------------------------------ a text result's blocks as the user sees them

# A link, an embedded resource and a block of a type the host does not know, each with members the view leaves out.
BLOCKS = [
    {"type": "resource_link", "uri": "file:///a.csv", "name": "a.csv", "description": "unseen", "mimeType": "text/csv"},
    {"type": "resource", "resource": {"uri": "file:///b.txt", "text": "unseen body"}},
    {"type": "widget", "payload": "unseen"},
]
# What the user's view names of them, and so all the model receives: a link as a link, the rest as their line.
AS_SHOWN = [
    {"type": "resource_link", "uri": "file:///a.csv", "name": "a.csv"},
    {"type": "text", "text": "[resource] file:///b.txt"},
    {"type": "text", "text": "[widget block]"},
]


LINES = "line a\nline b"
NAMED = "[link] a.csv <file:///a.csv>\n\n[resource] file:///b.txt\n\n[widget block]"


@pytest.mark.parametrize(
    ("max_rows", "forwarded"),
    [
        (None, [*AS_SHOWN, {"type": "text", "text": LINES}]),  # forwarded whole, in the order sent
        (1, [{"type": "text", "text": f"{NAMED}\n\nline a"}, *AS_SHOWN]),  # the lines shown, then their blocks
    ],
    ids=["whole", "cut-after-the-first-line"],
)
def test_a_text_results_other_blocks_reach_the_model_as_the_view_names_them(
    max_rows: int | None, forwarded: list[dict[str, Any]]
) -> None:
    """Whether the result is forwarded whole or its lines are cut after the blocks, a link keeps its URI and name
    only, and an embedded resource or an unknown block becomes the text block of its line in the view."""
    wire = text_result(LINES)
    wire["content"][:0] = BLOCKS
    presentation = present_original(TOOL, wire, max_rows=max_rows)
    assert presentation.text.endswith(f"{NAMED}\n\n" + (LINES if max_rows is None else "line a"))
    assert presentation.model_result["content"][1:] == forwarded  # after the host's framing
    assert "unseen" not in str(presentation.model_result)


# ---------------------------------------------------------------------------- the copy of a page the host's bound cut


def _link(number: int) -> dict[str, Any]:
    return {"rowId": f"x{number}", "sectionId": "hits", "uri": f"s://x/{number}", "bytes": 9000}


FIELD = {"rowId": "h1", "column": 1, "name": "list", "uri": "s://hits/h1/fields/1", "bytes": 5000}


def test_the_copy_of_a_cut_page_lists_the_links_and_fields_it_shows_and_counts_its_records() -> None:
    """Three rows and two records sent as links, cut to four records: the copy holds the rows as the server sent
    them, and a page state counting the rows and the one link shown, listing that link and the linked field of a
    row shown, in their wire names."""
    wire = result({"mode": "verbatim"}, page={"linkedRecords": [_link(1), _link(2)], "linkedFields": [FIELD]})
    presentation = present(TOOL, wire, arguments={}, max_rows=4)
    assert presentation.notice is not None and "4 of 5 records" in presentation.notice
    copy = presentation.model_result["structuredContent"]
    assert copy["document"] == wire["structuredContent"]["document"]  # JSON lists, as sent, not Python tuples
    assert copy["page"] == {"complete": False, "returned": 4, "linkedRecords": [_link(1)], "linkedFields": [FIELD]}


def test_a_text_block_reaches_the_model_as_its_text_alone_and_one_without_text_as_the_line_naming_it() -> None:
    """Members of a text block the view does not show (here `secret`), and a text block whose `text` is not a string,
    which the view names on a line of its own, reach the model as the user sees them."""
    wire = text_result(LINES)
    wire["content"][0]["secret"] = "unseen"
    wire["content"].append({"type": "text", "text": {"nested": "unseen"}})
    presentation = present_original(TOOL, wire)
    assert presentation.text == f"{LINES}\n\n[text block without text]"
    assert presentation.model_result["content"][1:] == [
        {"type": "text", "text": LINES},
        {"type": "text", "text": "[text block without text]"},
    ]
    assert "unseen" not in str(presentation.model_result)


@pytest.mark.parametrize(
    ("block", "line"),
    [
        ({"type": "resource_link", "uri": "file:///a.csv", "name": {"text": "unseen"}}, "[link] ? <file:///a.csv>"),
        ({"type": "resource_link", "name": "a.csv"}, "[link] a.csv <?>"),
        ({"type": "image", "mimeType": "image/png", "data": ["unseen"]}, "[image: image/png]"),
        ({"type": "audio", "data": "AAAA"}, "[audio: ?]"),
        ({"type": "image", "mimeType": "image/png; unseen", "data": "AAAA"}, "[image: image/png; unseen]"),
        ({"type": "image", "mimeType": "image/png", "data": "unseen: ok"}, "[image: image/png]"),
        ({"type": "image", "mimeType": "text/plain", "data": "dW5zZWVu"}, "[image: text/plain]"),
        ({"type": "audio", "mimeType": "audio/wav", "data": "unseen+"}, "[audio: audio/wav]"),
    ],
    ids=[
        "a link's name not a string",
        "a link without URI",
        "an image's data not a string",
        "audio without type",
        "a media type with text",
        "data not base64",
        "an image of another type",
        "data that does not decode",
    ],
)
def test_a_block_lacking_a_member_its_type_requires_reaches_the_model_as_its_line(
    block: dict[str, Any], line: str
) -> None:
    """What the model receives is valid content: such a block is forwarded as the line the user reads in a text
    result, and not at all beside structured records, whose view shows no line for it."""
    wire = text_result(LINES)
    wire["content"].append(block)
    presentation = present_original(TOOL, wire)
    assert presentation.text == f"{LINES}\n\n{line}"
    assert presentation.model_result["content"][1:] == [{"type": "text", "text": LINES}, {"type": "text", "text": line}]
    beside_records = result({"mode": "verbatim"})
    beside_records["content"].append(block)
    assert present_original(TOOL, beside_records, forwards="both").model_result["content"][1:] == []
    assert "unseen" not in str(presentation.model_result).replace(line, "")  # only in the line the user reads
    assert "dW5zZWVu" not in str(presentation.model_result)


@pytest.mark.parametrize(
    "media",
    [
        # MIME's base64: line breaks kept, after the padding too
        {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zz4=\n"},
        {"type": "audio", "mimeType": "audio/vnd.wave", "data": "UklGRgAA\r\nAAA=\r\n"},
    ],
    ids=["svg, MIME base64", "wave, CRLF"],
)
def test_media_as_servers_write_it_reaches_the_model_as_media(media: dict[str, Any]) -> None:
    wire = text_result(LINES)
    wire["content"].append(media)
    assert present_original(TOOL, wire).model_result["content"][-1] == media
