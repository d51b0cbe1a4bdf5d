"""The server's other blocks beside the host's copy of a cut text result: each shown block once, in order, while
the model bound allows, to the byte; a text block never (the copy stands for it)."""

from __future__ import annotations

import json
from typing import Any

from mcp_rendering.host import present


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
