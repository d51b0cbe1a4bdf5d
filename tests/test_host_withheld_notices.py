"""The notice when the model's copy lacks blocks the user sees, said after what the server said of completeness (not
stated, or partial) in the user's notice and in the framing alike; and the note of a record over the byte bound by
itself when nothing else needs saying."""

from __future__ import annotations

from typing import Any

from mcp_rendering.host import OVER_BOUND, UNSTATED_COMPLETENESS, present
from mcp_rendering.types import EXTENSION_ID

WITHHELD = "1 content block was not forwarded to the model: over the host's size bound."
IMAGE = {"type": "image", "mimeType": "image/png", "data": "A" * 400}


def _with_large_image(directive: dict[str, Any]) -> dict[str, Any]:
    """A line of text that fits a bound of 200 bytes, and an image that does not."""
    return {"content": [{"type": "text", "text": "hello"}, IMAGE], "_meta": {EXTENSION_ID: directive}}


def test_a_block_withheld_from_a_result_of_unstated_completeness_is_said_after_that() -> None:
    presentation = present(None, _with_large_image({"mode": "summarizable"}), max_bytes=200)
    assert presentation.notice == f"{UNSTATED_COMPLETENESS} {WITHHELD}"
    assert presentation.framing is not None and f"{UNSTATED_COMPLETENESS} {WITHHELD}" in presentation.framing
    assert presentation.withheld_blocks == 1 and presentation.host_bounded


def test_a_block_withheld_from_a_partial_result_is_said_after_the_partial_notice() -> None:
    presentation = present(None, _with_large_image({"mode": "summarizable", "complete": False}), max_bytes=200)
    partial = present(None, _with_large_image({"mode": "summarizable", "complete": False}))
    assert partial.notice is not None and presentation.notice == f"{partial.notice} {WITHHELD}"
    assert presentation.framing is not None and f"{partial.notice} {WITHHELD}" in presentation.framing
    assert presentation.withheld_blocks == 1 and presentation.host_bounded


def test_a_whole_result_whose_one_record_is_over_the_bound_says_only_that() -> None:
    """The markdown view escapes each `*`, so the views are over the bound where the model's copy is not: the record
    is shown alone, nothing is withheld, and the note is the whole notice."""
    rows = {"rows": [{"note": "*" * 300}]}
    result = {"content": [], "structuredContent": rows, "_meta": {EXTENSION_ID: {"mode": "verbatim", "complete": True}}}
    presentation = present(None, result, max_bytes=500, forwards="structured")
    assert presentation.withheld_blocks == 0
    assert presentation.notice == f"Note: Record 1 {OVER_BOUND}."
