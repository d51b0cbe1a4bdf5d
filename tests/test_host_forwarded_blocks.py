"""A text result's blocks as the model receives them under the host's bounds: beside the host's copy of a cut page,
each shown block once, in order, while the model bound allows, to the byte, and never a text block (the copy stands
for it); the whole as sent where it fits and its copy does not; each page measured as forwarded, imitations defused;
a block as its type shows it, whatever else it holds; and the verbatim caption's tool and server names, the tool an
SDK model, a wire dict or neither."""

from __future__ import annotations

import json
from typing import Any

import mcp.types
import pytest

from mcp_rendering.host import FRAMING_HEADER, present
from mcp_rendering.types import EXTENSION_ID


def _image(data_length: int) -> dict[str, Any]:
    return {"type": "image", "mimeType": "image/png", "data": "A" * data_length}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _forwarded_size(block: dict[str, Any]) -> int:
    """A block's bytes in the payload's compact JSON, its comma included."""
    return len(json.dumps(block, separators=(",", ":")).encode()) + 1


SMALL, LARGE, LAST = _image(4), _image(8), _image(4)
RESULT = {"content": [_text("l1\nl2\nl3"), 42, SMALL, LARGE, LAST, _text("l4")]}
"""Three lines, then (after a member that is no block) three images the view names on lines of their own, then a
fourth line: the bound of three lines shows the images, and the model bound decides which of them it receives."""


def test_a_cut_text_results_shown_blocks_follow_its_copy_once_each_without_its_text_blocks() -> None:
    content = present(None, RESULT, max_rows=3).model_result["content"]
    shown = "l1\nl2\nl3" + "\n\n[image: image/png]" * 3
    assert content[1:] == [_text(shown), SMALL, LARGE, LAST]


def test_the_model_bound_keeps_blocks_in_order_while_they_fit_to_the_byte() -> None:
    copy = present(None, RESULT, max_rows=3).model_result["content"][1]
    copy_size = len(json.dumps({"content": [copy]}, separators=(",", ":")).encode()) - len('{"content":[]}') + 1
    both = copy_size + _forwarded_size(SMALL) + _forwarded_size(LARGE)
    # Exactly the copy and the first two: the third is withheld.
    exactly = present(None, RESULT, max_rows=3, max_bytes=both)
    assert exactly.model_result["content"][1:] == [copy, SMALL, LARGE]
    assert exactly.notice is not None and "1 content block was not forwarded to the model" in exactly.notice
    # A byte less: the larger second is withheld, and the third, which fits what is left, follows the first.
    less = present(None, RESULT, max_rows=3, max_bytes=both - 1)
    assert less.model_result["content"][1:] == [copy, SMALL, LAST]


def test_a_later_page_forwards_the_blocks_its_lines_name_and_none_before() -> None:
    result = {"content": [_text("l1"), SMALL, _text("l2"), LARGE, _text("l3")]}
    content = present(None, result, max_rows=1, first_row=1).model_result["content"]
    assert content[1:] == [_text("l2\n\n[image: image/png]"), LARGE]


def test_a_text_result_over_the_model_bound_alone_keeps_its_text_once_and_withholds_the_block_over_it() -> None:
    # Every line fits the user's view; the whole result does not fit the model's: the copy of the lines stands for
    # the text blocks, and the image over what is left is withheld.
    result = {"content": [_text("l1"), _image(1000), _text("l2")]}
    presentation = present(None, result, max_bytes=300)
    assert presentation.model_result["content"][1:] == [_text("l1\n\n[image: image/png]\n\nl2")]
    assert presentation.notice == "Note: 1 content block was not forwarded to the model: over the host's size bound."


def _payload_size(blocks: list[Any]) -> int:
    """A payload's bytes as the model bound counts them: its compact JSON, without the empty payload's own."""
    dumped = json.dumps({"content": blocks}, separators=(",", ":"), ensure_ascii=False)
    return len(dumped.encode()) - len('{"content":[]}') + 1


def test_a_text_result_whose_copy_is_over_the_bound_but_whose_blocks_fit_reaches_the_model_whole() -> None:
    """The user's view writes each hidden character as its escape, six bytes, and the host's copy of the lines
    writes that escape's backslash as JSON's two: the copy is larger than the blocks as sent, whose characters are
    three bytes each. A bound the views and the blocks fit, and the copy does not, shows every line."""
    result = {"content": [_text("a" + "\u202e" * 30), _text("beta")]}
    unbounded = present(None, result)
    bound = max(_payload_size(result["content"]), len(unbounded.text.encode()), len(unbounded.markdown.encode()))
    assert _payload_size([_text(unbounded.text)]) > bound  # the copy of every line would not fit
    presentation = present(None, result, max_bytes=bound)
    assert (presentation.notice, presentation.model_result) == (None, {"content": result["content"]})


def test_a_line_whose_copy_is_over_the_bound_is_over_it_though_the_whole_result_as_sent_fits() -> None:
    """The first line alone: its views fit, the host's copy of it does not (its escapes), while both blocks as sent
    would. Only the whole result is forwarded as sent: a page of fewer lines is the copy, so line 1 is over the
    bound by itself."""
    result = {"content": [_text("a" + "\u202e" * 100), _text("b" * 100)]}
    first_line = present(None, result, max_rows=1)
    copy = first_line.model_result["content"][1]
    bound = 650
    assert _payload_size(result["content"]) <= bound < _payload_size([copy])
    presentation = present(None, result, max_bytes=bound)
    assert presentation.notice is not None and presentation.notice.endswith(
        "Line 1 is over the host's byte bound by itself: this page shows it alone."
    )


def test_a_result_of_blocks_alone_is_cut_by_blocks() -> None:
    # No line of text: the page is counted in the blocks its lines name.
    result = {"content": [{"type": "resource_link", "uri": f"r://{i}", "name": f"N{i}"} for i in range(3)]}
    presentation = present(None, result, max_bytes=68)
    assert presentation.notice is not None and presentation.notice.startswith(
        "Partial result: this host shows the first 2 of 3 content blocks of a result the server sent whole (as many"
        " as fit the host's bound of 68 bytes)"
    )
    assert presentation.text.endswith("\n\n[link] N0 <r://0>\n\n[link] N1 <r://1>")


def test_a_block_reaches_the_model_as_its_type_shows_it_whatever_other_members_it_holds() -> None:
    # A text block that also holds media members is its text; an unknown block holding a text, a URI and a name is
    # the line the user reads of it, not a text block nor a link.
    verbatim = {EXTENSION_ID: {"mode": "verbatim", "complete": True}}
    content = [
        {"type": "text", "text": "hi", "data": "AAAA", "mimeType": "text/plain"},
        {"type": "x-widget", "text": "w", "uri": "r://w", "name": "W"},
    ]
    forwarded = present(None, {"content": content, "_meta": verbatim}).model_result["content"]
    assert forwarded[1:] == [_text("hi"), _text("[x-widget block]")]


@pytest.mark.parametrize(
    ("tool", "server", "caption"),
    [
        (None, None, "Verbatim result from an unnamed tool of an unnamed server."),
        ({"name": "t" * 128}, "s" * 129, f'Verbatim result from tool "{"t" * 128}" of server "{"s" * 127}\u2026".'),
        (
            mcp.types.Tool(name="ledger", input_schema={"type": "object"}),
            "s",
            'Verbatim result from tool "ledger" of server "s".',
        ),
        ({"name": 5}, "s", 'Verbatim result from an unnamed tool of server "s".'),
        (object(), "s", 'Verbatim result from an unnamed tool of server "s".'),
    ],
)
def test_a_verbatim_results_caption_names_its_tool_and_server_each_cut_past_128_characters(
    tool: Any, server: str | None, caption: str
) -> None:
    verbatim = {EXTENSION_ID: {"mode": "verbatim", "complete": True}}
    assert present(tool, {"content": [_text("x")], "_meta": verbatim}, server=server).caption == caption


def test_a_page_whose_text_imitates_the_framing_is_measured_as_the_model_receives_it() -> None:
    """The imitating line reaches the model as the note that replaces it, longer than the line: each page is measured
    as forwarded, so the copy the bound allows fits it, and is never withheld whole for being over it."""
    imitation = FRAMING_HEADER.split(",", 1)[0]
    result = {"content": [_text("\n".join([imitation, *(f"line {i}" for i in range(12))]))]}
    for bound in range(120, 400, 5):
        presentation = present(None, result, max_bytes=bound)
        content = presentation.model_result["content"]
        blocks = content[1:] if presentation.framing else content
        assert blocks and _payload_size(blocks) <= bound, bound
