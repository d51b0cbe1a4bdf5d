"""What `present()` forwards beside records the host cut, how its byte bound holds both views, how it reads a page
state beside a directive that states no completeness, what its note on withheld blocks says, and how the defusal
walk keeps every value the model receives as the server sent it."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest
from mcp.types import CallToolResult

from mcp_rendering.host import _MAX_FORWARD_DEPTH, UNSTATED_COMPLETENESS, Presentation, present
from mcp_rendering.records import MAX_DEPTH
from mcp_rendering.render import markdown_escape
from mcp_rendering.types import EXTENSION_ID, PARTIAL_MARKER, RESULT_STRUCTURED_KEY
from tests.test_host import TOOL as LINKED_TOOL
from tests.test_host import big_result, present_original
from tests.test_host_bounds import HEADER_WORDS
from tests.test_host_defusal import NOTE
from tests.test_host_paging import TOOL, WHOLE

IMAGE = {"type": "image", "mimeType": "image/png", "data": "AAAA"}


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


# --------------------------------------------------------------------------------------------- the defusal walk


def _copy(structured: dict[str, Any]) -> dict[str, Any]:
    """The model's structured copy of `structured`, less the host's copy of the directive."""
    forwarded = present(TOOL, {"content": [], "structuredContent": structured, "_meta": WHOLE}, arguments={})
    copy = dict(forwarded.model_result["structuredContent"])
    del copy[RESULT_STRUCTURED_KEY]
    return copy


def test_every_scalar_beside_an_imitation_reaches_the_model_as_sent() -> None:
    """An imitation of the framing sends the copy through the walk, string by string: numbers, booleans and nulls
    pass it unchanged, up to the largest integer the host forwards (12,000 bits)."""
    scalars = {"n": 7, "f": 1.5, "yes": True, "no": False, "none": None, "large": 2**11_999, "negative": -(2**11_999)}
    assert _copy({"s": HEADER_WORDS, **scalars}) == {"s": NOTE, **scalars}


def _nested(levels: int) -> Any:
    """Lists nested `levels` deep, the innermost empty."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


TOO_DEEP = "[a value nested more than 100 levels deep, not forwarded]"


def _lists(value: Any) -> tuple[int, Any]:
    """How many lists `value` nests, and what the innermost holds (None when it is empty)."""
    count = 0
    while isinstance(value, list):
        count += 1
        value = value[0] if value else None
    return count, value


# Levels are counted from the structured content itself, the first level, as the note counts them; with or without
# a string that imitates the framing (which sends every string through the walk).
@pytest.mark.parametrize("strings", [{}, {"s": HEADER_WORDS}], ids=["plain", "imitating"])
@pytest.mark.parametrize(("lists", "kept"), [(99, (99, None)), (100, (99, TOO_DEEP))], ids=["100", "101"])
def test_a_value_is_forwarded_100_levels_deep_and_its_101st_level_is_noted(
    strings: dict[str, Any], lists: int, kept: Any
) -> None:
    assert _lists(_copy({**strings, "a": _nested(lists)})["a"]) == kept


def test_a_deep_member_beside_a_document_is_noted_and_the_document_forwarded_whole() -> None:
    """Beside a document, which validation bounds, a deep member of the server's is noted."""
    wire = big_result(3)
    wire["structuredContent"]["extra"] = {"a": _nested(100)}
    copy = present_original(LINKED_TOOL, wire).model_result["structuredContent"]
    assert copy["document"] == wire["structuredContent"]["document"]
    assert _lists(copy["extra"]["a"]) == (98, TOO_DEEP)


@pytest.mark.parametrize("forwards", [None, "text", "structured", "both"])
def test_the_page_state_reaches_the_model_as_the_host_read_it(forwards: str | None) -> None:
    """Members of the page state the host does not read (`nextToken` among them: the continuation carries the token
    the model may follow), a malformed linked record and a linked record's own extra member, none of which the user
    is shown, are left out; what the host read stays, in its wire names."""
    wire = big_result(3)
    link = {"rowId": "x1", "sectionId": "hits", "uri": "s://x/1", "bytes": 9000}
    field = {"rowId": "a", "column": 0, "name": "Balance", "uri": "s://f/1", "bytes": 5000}
    wire["structuredContent"]["page"] = {
        "complete": True,
        "returned": 3,
        "total": 4,
        "note": "unseen",
        "nextToken": "unseen",
        "deep": _nested(200),
        "linkedRecords": [{**link, "note": "unseen"}, {"rowId": "unseen"}],
        "linkedFields": [field, {**field, "column": "unseen"}],
    }
    model_result = present_original(LINKED_TOOL, wire, forwards=forwards).model_result
    assert "unseen" not in str(model_result)
    if forwards != "text":
        page = {"complete": True, "returned": 3, "total": 4, "linkedRecords": [link], "linkedFields": [field]}
        assert model_result["structuredContent"]["page"] == page


def test_what_the_records_reading_walks_is_within_the_forwarding_bound() -> None:
    """The reading flags a value `MAX_DEPTH` levels deep (its members the first level), and the copy is walked only
    then: below that, a value sent as an array and wrapped in the copy (two levels more) is within the bound."""
    assert MAX_DEPTH + 1 <= _MAX_FORWARD_DEPTH


def _tuples(levels: int) -> Any:
    value: Any = ()
    for _ in range(levels - 1):
        value = (value,)
    return value


def test_tuples_a_python_host_passes_are_bounded_as_lists_are() -> None:
    assert _lists(_copy({"a": _tuples(150)})["a"]) == (99, TOO_DEEP)


def test_an_sdk_result_pydantic_cannot_write_is_refused_with_a_clear_error() -> None:
    result = CallToolResult(content=[], structured_content={"a": _nested(300)})
    with pytest.raises(ValueError, match=r"^the result cannot be written as its wire JSON: .*depth"):
        present(TOOL, result)


def test_structured_content_passed_as_any_mapping_is_read_as_an_object() -> None:
    """A Python caller's read-only mapping is the object the records are read from: not wrapped whole for the model
    with members the user is not shown."""
    wire = big_result(3)
    wire["structuredContent"]["page"]["note"] = "unseen"
    wire["structuredContent"] = MappingProxyType(wire["structuredContent"])
    copy = present_original(LINKED_TOOL, wire).model_result["structuredContent"]
    assert "value" not in copy and "unseen" not in str(copy)
