"""What `present()` forwards beside records the host cut, how its byte bound holds both views, how it reads a page
state beside a directive that states no completeness, and what its note on withheld blocks says."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_rendering.host import UNSTATED_COMPLETENESS, Presentation, present
from mcp_rendering.render import markdown_escape
from mcp_rendering.types import EXTENSION_ID, PARTIAL_MARKER
from tests.test_host import IMAGE, big_result, present_original
from tests.test_host import TOOL as LINKED_TOOL
from tests.test_host_paging import TOOL, WHOLE


def _bodies(presentation: Presentation) -> tuple[str, str]:
    """Both views without the notice that leads them: what the byte bound holds."""
    notice = presentation.notice
    if notice is None:
        return presentation.text, presentation.markdown
    return (
        presentation.text.removeprefix(f"{notice}\n\n"),
        presentation.markdown.removeprefix(f"> {markdown_escape(notice)}\n\n"),
    )


def _size(text: str) -> int:
    return len(text.encode())


# ------------------------------------------------------------------------------- blocks beside records the host cut


def _envelope(records: int) -> dict[str, Any]:
    """A reference envelope of `records` records whose URIs are `s://rows/r0`, `s://rows/r1`..., sent whole."""
    wire = big_result(records)
    del wire["structuredContent"]["extra"]
    return wire


def _cut_records_with(*blocks: dict[str, Any]) -> Presentation:
    """Ten records cut to the first five, the server's `blocks` after its own."""
    wire = _envelope(10)
    wire["content"] = [*wire["content"], *blocks]
    return present_original(LINKED_TOOL, wire, max_rows=5)


@pytest.mark.parametrize(
    "members",
    [{"uri": "s://rows/r9"}, {"resource": {"uri": "s://rows/r9"}}, {"alt": "unseen"}, {"annotations": {"a": "unseen"}}],
    ids=["a URI", "a resource", "a text", "annotations"],
)
def test_an_image_reaches_the_model_as_its_data_and_media_type_alone(members: dict[str, Any]) -> None:
    """The user is shown an image's media type (and the image): members named like a link's tie it to no record the
    host cut, and no other member, which the user is not shown, is forwarded."""
    presentation = _cut_records_with({**IMAGE, **members})
    assert presentation.model_result["content"][-1] == IMAGE
    assert presentation.withheld_blocks == 0


@pytest.mark.parametrize(
    "block",
    [
        {"type": "resource_link", "uri": "s://rows/r0", "name": "r0"},
        {"type": "resource", "resource": {"uri": "s://rows/r0", "text": "row 0"}},
        {"type": "resource", "resource": "s://rows/r0"},
        {"type": "resource"},
    ],
    ids=["link", "embedded", "resource-a-string", "resource-missing"],
)
def test_a_block_the_records_view_does_not_show_is_not_forwarded_even_malformed(block: dict[str, Any]) -> None:
    """The view of structured records shows no link or embedded resource, even of a record shown: the model gets
    none either, and a malformed one is skipped like the rest, the image after it still forwarded."""
    presentation = _cut_records_with(block, IMAGE)
    forwarded = presentation.model_result["content"]
    assert [item["type"] for item in forwarded] == ["text", "text", "image"]  # framing, records, the image
    assert presentation.notice is not None and "5 of 10 records" in presentation.notice


# ---------------------------------------------------------------------------------------------- the byte bound


# The plain-text view pads a column to its widest cell; the Markdown view escapes the row paths instead.
PADDED = {"content": [], "structuredContent": {"rows": [{"a": "x" * 40, "b": 1}] + [{"a": "y", "b": 2}] * 5}}
ESCAPED = {"content": [], "structuredContent": {"rows": [{"a": "y", "b": 2}] * 6}}


def _whole(structured: dict[str, Any]) -> dict[str, Any]:
    return {**structured, "_meta": WHOLE}


def test_the_padded_text_view_is_held_to_the_byte_bound_though_the_markdown_fits() -> None:
    unbounded = present(TOOL, _whole(PADDED), arguments={}, forwards="text")
    assert _size(unbounded.markdown) < 400 < _size(unbounded.text)  # only the text view is over the bound
    presentation = present(TOOL, _whole(PADDED), arguments={}, forwards="text", max_bytes=400)
    assert presentation.notice == (
        f"{PARTIAL_MARKER} this host shows 3 of 6 records of a result the server sent whole (as many as fit the "
        "host's bound of 400 bytes); the rest of this result is not shown here."
    )
    assert [_size(body) <= 400 for body in _bodies(presentation)] == [True, True]


@pytest.mark.parametrize("structured", [PADDED, ESCAPED], ids=["text-larger", "markdown-larger"])
def test_a_bound_of_exactly_the_larger_views_size_shows_the_whole(structured: dict[str, Any]) -> None:
    """The bound is inclusive: views of exactly `max_bytes` bytes fit it, one byte less cuts the page."""
    unbounded = present(TOOL, _whole(structured), arguments={}, forwards="text")
    larger = max(_size(unbounded.text), _size(unbounded.markdown))
    exact = present(TOOL, _whole(structured), arguments={}, forwards="text", max_bytes=larger)
    assert exact.notice is None and exact.text == unbounded.text and exact.markdown == unbounded.markdown
    below = present(TOOL, _whole(structured), arguments={}, forwards="text", max_bytes=larger - 1)
    assert below.notice is not None and below.notice.startswith(f"{PARTIAL_MARKER} this host shows ")
    assert [_size(body) < larger for body in _bodies(below)] == [True, True]


# ------------------------------------------------------------------- completeness the directive does not state


def _paged(page: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    """Four records whose page state is `page`, with the directive carrier `meta`."""
    wire = _envelope(4)
    wire["structuredContent"]["page"] = page
    wire["content"] = []
    wire["_meta"] = {} if meta is None else {EXTENSION_ID: meta}
    return wire


@pytest.mark.parametrize("meta", [{"mode": "verbatim"}, None], ids=["directive-without-complete", "hint-only"])
@pytest.mark.parametrize(
    ("page", "notice"),
    [
        # Only the directive can call a result whole: a page saying so leaves completeness unstated.
        ({"complete": True, "returned": 4}, UNSTATED_COMPLETENESS),
        ({"returned": 4}, UNSTATED_COMPLETENESS),
        # A page saying it is partial is believed: the records are part of more.
        (
            {"complete": False, "returned": 4},
            f"{PARTIAL_MARKER} it shows the first 4 records only. The server gave no way to fetch the rest.",
        ),
    ],
    ids=["page-complete", "page-silent", "page-partial"],
)
def test_a_page_state_is_read_beside_a_directive_that_states_no_completeness(
    page: dict[str, Any], notice: str, meta: dict[str, Any] | None
) -> None:
    hinted = {"name": "t", "inputSchema": {"type": "object"}, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
    presentation = present(hinted, _paged(page, meta), arguments={})
    assert presentation.notice == notice and not presentation.complete


# ---------------------------------------------------------------------------------------- blocks withheld


@pytest.mark.parametrize(("images", "said"), [(1, "1 content block was"), (2, "2 content blocks were")])
def test_the_note_on_withheld_blocks_counts_them(images: int, said: str) -> None:
    large = {**IMAGE, "data": "x" * 20_000}
    wire = {"content": [{"type": "text", "text": "short"}, *[large] * images], "_meta": WHOLE}
    presentation = present(TOOL, wire, arguments={}, max_bytes=1000)
    assert presentation.withheld_blocks == images
    assert presentation.notice == f"Note: {said} not forwarded to the model: over the host's size bound."
