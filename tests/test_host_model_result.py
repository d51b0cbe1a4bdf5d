"""What the model's copy carries besides the records: `isError` as the schema writes it, the directive when no
record fits, each part only for a host that reads it, a text result's records moved into the structured copy while
they fit there, a later page's copy never called complete, and the refusals of what is no result."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mcp_rendering.host as host
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import _most_kept, present  # pyright: ignore[reportPrivateUsage]
from mcp_rendering.types import EXTENSION_ID

IMAGE = {"type": "image", "mimeType": "image/png", "data": "AAAA"}
ROWS = {"rows": [{"label": f"r{i}", "value": i} for i in range(3)]}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


@pytest.mark.parametrize("forwards", [None, "text", "structured", "both"])
def test_an_error_result_says_so_to_the_model_in_every_channel(forwards: Any) -> None:
    error = {"content": [_text("payment refused")], "isError": True}
    assert present(None, error, forwards=forwards).model_result["isError"] is True


@pytest.mark.parametrize("is_error", [False, "true", 1, None])
def test_only_json_true_marks_an_error_for_the_model(is_error: Any) -> None:
    """False is the default, so it is not written; anything else is not the schema's boolean."""
    result = {"content": [_text("done")], "isError": is_error}
    assert "isError" not in present(None, result).model_result


@pytest.mark.parametrize("forwards", [None, "structured"])
def test_when_no_record_fits_the_directive_still_reaches_a_host_reading_structured_content(forwards: Any) -> None:
    result = {"content": [], "structuredContent": ROWS, "_meta": {EXTENSION_ID: {"mode": "verbatim"}}}
    presentation = present(None, result, max_bytes=0, forwards=forwards)
    copy = presentation.model_result["structuredContent"]
    assert list(copy) == ["_rendering"]
    assert copy["_rendering"]["mode"] == "verbatim" and copy["_rendering"]["framing"] == presentation.framing


def test_when_no_record_fits_a_host_reading_text_gets_no_structured_copy() -> None:
    result = {"content": [], "structuredContent": ROWS, "_meta": {EXTENSION_ID: {"mode": "verbatim"}}}
    assert "structuredContent" not in present(None, result, max_bytes=0, forwards="text").model_result


def test_a_host_forwarding_structured_content_alone_gets_no_block_beside_cut_records() -> None:
    """The image is the user's to see; the host does not hand its model the content blocks, so none is sent there,
    and none is counted as withheld by the bound."""
    result = {"content": [IMAGE], "structuredContent": ROWS}
    presentation = present(None, result, max_rows=1, forwards="structured")
    assert presentation.model_result["content"] == [_text(presentation.framing or "")]
    assert presentation.withheld_blocks == 0 and "not forwarded" not in (presentation.notice or "")
    both = present(None, result, max_rows=1, forwards="both")
    assert both.model_result["content"][1:] == [IMAGE]


_TEXT_WITH_COPY = {"content": [_text("l1\nl2\nl3"), IMAGE], "structuredContent": {}}
"""A text result whose server sent (empty) structured content: a host reading only that part gets the records there."""


def _moved_bytes(model_result: dict[str, Any]) -> int:
    """The moved copy's bytes as `max_bytes` counts them: the copy without the framing block or the directive."""
    copy = {k: v for k, v in model_result["structuredContent"].items() if k != "_rendering"}
    return len(
        json.dumps({"content": [], "structuredContent": copy}, ensure_ascii=False, separators=(",", ":")).encode()
    ) - len('{"content":[]}')


def test_a_cut_text_results_records_move_into_the_structured_copy_measured_there() -> None:
    """A host reading only `structuredContent` gets the page there, measured as it is written there: under a bound a
    byte short of that, the page's record is shown to the user alone and withheld from the model, never left in the
    content blocks that host does not forward."""
    moved = present(None, _TEXT_WITH_COPY, max_rows=1, forwards="structured")
    assert moved.model_result["structuredContent"]["content"] == [_text("l1")]
    size = _moved_bytes(moved.model_result)
    exactly = present(None, _TEXT_WITH_COPY, max_rows=1, max_bytes=size, forwards="structured")
    assert exactly.model_result == moved.model_result
    short = present(None, _TEXT_WITH_COPY, max_rows=1, max_bytes=size - 1, forwards="structured")
    assert "content" not in short.model_result["structuredContent"]
    assert short.model_result["content"] == [_text(short.framing or "")]
    assert short.withheld_blocks == 1 and short.text.endswith("l1")


def test_a_structured_only_host_gets_every_line_of_a_text_result_as_the_bound_grows() -> None:
    """The lines reach the copy it reads in order, never fewer for a larger bound, and none is left in the content
    blocks it does not forward."""
    lines = [f"Q{i}Z" + "x" * 60 for i in range(6)]
    result = {"content": [_text("\n".join(lines))], "structuredContent": {}}
    counts: list[int] = []
    for bound in range(0, 700, 3):
        model_result = present(None, result, max_bytes=bound, forwards="structured").model_result
        assert not any(f"Q{i}Z" in block.get("text", "") for block in model_result["content"] for i in range(6))
        copied = json.dumps(model_result.get("structuredContent", {}))
        counts.append(sum(1 for i in range(6) if f"Q{i}Z" in copied))
    assert counts == sorted(counts) and counts[-1] == 6


def _link(name: str) -> dict[str, Any]:
    return {"type": "resource_link", "uri": f"r://{name}", "name": name}


@pytest.mark.parametrize(
    "content",
    [
        [_link("a" * 30), _link("b"), _text("r1")],
        [_link("a"), _link("b"), _link("c"), _text("r1")],
    ],
)
def test_a_structured_only_host_is_told_of_every_block_it_does_not_get_as_the_bound_grows(
    content: list[dict[str, Any]],
) -> None:
    """Each line names a link, so the user sees every block at every bound. What the host's model does not get in
    the copy it reads (the records, or a link) is counted in the notice, once: moved into the copy, the blocks are
    larger than measured one by one, and those withheld for that are counted too. Nothing is left in the content
    blocks that host does not forward."""
    result = {"content": content, "structuredContent": {}}
    for bound in range(0, 260):
        presentation = present(None, result, max_bytes=bound, forwards="structured")
        framing = presentation.framing
        assert presentation.model_result["content"] == ([] if framing is None else [_text(framing)])
        copy = presentation.model_result["structuredContent"].get("content", [])
        links = [block for block in copy if block["type"] == "resource_link"]
        records = [block for block in copy if block["type"] == "text"]
        assert all(f"[link] {block['name']} <" in presentation.text for block in content if "name" in block)
        assert presentation.withheld_blocks == len(content) - len(links) - (1 if records else 0), bound


def _link_pairs(pairs: int) -> dict[str, Any]:
    """Links whose URIs, read two by two, spell the framing's header: each pair is replaced by two notes, larger
    than the links measured one by one."""
    content: list[dict[str, Any]] = []
    for index in range(pairs):
        content.append({"type": "resource_link", "name": f"a{index}", "uri": "renderingdirectiveforthetool"})
        content.append({"type": "resource_link", "name": f"b{index}", "uri": "resultbelow"})
    return {"content": [*content, _text("r1\nr2")]}


def test_blocks_withheld_for_growing_when_defused_are_counted_and_found_in_few_tries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The blocks the model gets fit the bound, those it does not are counted, and finding how many fit defuses
    the blocks a logarithmic number of times, not once per block withheld."""
    defused: list[int] = []
    across_blocks = host._defused_across_blocks  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(
        host, "_defused_across_blocks", lambda blocks: defused.append(len(blocks)) or across_blocks(blocks)
    )
    work: dict[int, int] = {}
    for pairs in (200, 400):
        result = _link_pairs(pairs)
        bound = len(present(None, result, max_rows=1).text.encode()) + 200
        defused.clear()
        presentation = present(None, result, max_rows=1, max_bytes=bound)
        work[pairs] = sum(defused)
        framing, *forwarded = presentation.model_result["content"]
        assert framing == _text(presentation.framing or "") and forwarded
        # The server sent the links and one text block, which the records' text stands for when it is forwarded.
        assert presentation.withheld_blocks == 2 * pairs + 1 - len(forwarded)
        assert len(json.dumps(forwarded, separators=(",", ":")).encode()) <= bound
    assert work[400] < 2.5 * work[200]  # twice the blocks: about 2.2 times the work, not 4


@given(st.lists(st.booleans(), min_size=1, max_size=300))
def test_the_blocks_kept_fit_and_one_more_would_not_in_few_tries(fits_between: list[bool]) -> None:
    """Whether k blocks fit need not grow monotonically down (defused together, blocks can shrink as more join):
    the number kept fits (or is 0) and one more does not; where it is monotone, it is the largest; the tries are
    logarithmic in the blocks."""
    fitting = [True, *fits_between, False]  # none fits, always; all of them do not: why the search runs
    count = len(fitting) - 1
    tried: list[int] = []
    kept = _most_kept(count, lambda k: tried.append(k) or fitting[k])
    assert fitting[kept] and not fitting[kept + 1]
    assert len(tried) <= 2 * count.bit_length() + 1
    monotone = sorted(fitting, reverse=True)
    assert _most_kept(count, monotone.__getitem__) == monotone.index(False) - 1


@pytest.mark.parametrize(
    ("fitting", "kept"),
    [
        ([True, False, False, True, False], 3),  # all but the last fit: the last alone is withheld
        ([True, True, True, False, True, False, False], 4),  # all but two fit, not all but one: two are withheld
        ([False, False, False], 0),  # not even none fits: none is kept, and the bound's notice says why
    ],
)
def test_blocks_are_withheld_from_the_last_up(fitting: list[bool], kept: int) -> None:
    """The fewest blocks are withheld, tried from the last block up, wherever fewer kept blocks would fit too."""
    assert _most_kept(len(fitting) - 1, fitting.__getitem__) == kept


def test_a_cut_text_result_whose_server_sent_no_structured_content_gets_none() -> None:
    result = {"content": [_text("l1\nl2\nl3")]}
    assert "structuredContent" not in present(None, result, max_rows=1, forwards="structured").model_result


@pytest.mark.parametrize("max_rows", [None, 1])
def test_a_host_forwarding_text_gets_no_structured_copy_of_a_text_result(max_rows: int | None) -> None:
    assert "structuredContent" not in present(None, _TEXT_WITH_COPY, max_rows=max_rows, forwards="text").model_result


def test_the_copy_of_a_cut_or_later_page_is_never_called_complete() -> None:
    """Its records reach the model alone, whatever the server said of the whole: the copy's page state says they are
    not all of it."""
    later = present(None, {"content": [], "structuredContent": ROWS}, first_row=1, forwards="structured")
    assert later.model_result["structuredContent"]["page"]["complete"] is False
    first = present(None, {"content": [], "structuredContent": ROWS}, max_rows=1, forwards="structured")
    assert first.model_result["structuredContent"]["page"]["complete"] is False


def _first_record_of(size: int, kind: str) -> dict[str, Any]:
    if kind == "lines":
        return {"content": [_text("x" * size + "\nr1\nr2")]}
    return {"content": [], "structuredContent": {"rows": [{"label": "r0", "note": "x" * size}, *ROWS["rows"][1:]]}}


@pytest.mark.parametrize("kind", ["records", "lines"])
def test_a_later_page_is_the_same_whatever_the_records_before_it(kind: str) -> None:
    """From the second record on, the page holds the last record but not the first: it is measured alone, so at
    every bound what the user and the model get of it is the same whatever the first record holds."""
    for bound in range(0, 1600, 5):
        small, large = (present(None, _first_record_of(size, kind), first_row=1, max_bytes=bound) for size in (1, 900))
        assert (small.text, small.model_result) == (large.text, large.model_result), bound


def test_a_text_result_of_several_blocks_within_the_bound_reaches_the_model_as_sent() -> None:
    result = {"content": [_text("l1"), _text("l2")]}
    assert present(None, result, max_bytes=10_000).model_result["content"] == result["content"]


@pytest.mark.parametrize("max_bytes", [None, 1])
def test_no_line_shown_is_no_code_block_in_the_markdown_view(max_bytes: int | None) -> None:
    """No block sent, or none that fits: the Markdown view is empty, or the notice alone, with no empty fenced
    block."""
    content = [] if max_bytes is None else [IMAGE]
    presentation = present(None, {"content": content}, max_bytes=max_bytes)
    assert "```" not in presentation.markdown
    if max_bytes is None:
        assert presentation.text == presentation.markdown == ""
    else:  # the notice alone, in both views
        assert presentation.extent == "the first 0 of 1 content blocks"
        assert presentation.markdown.startswith("> Partial result: this host shows the first 0 of 1 content blocks")


def test_a_page_of_blocks_alone_names_how_many_blocks_it_shows() -> None:
    """No line of text to count: the byte bound cuts the lines naming blocks, and the notice counts blocks."""
    presentation = present(None, {"content": [IMAGE, IMAGE, IMAGE]}, max_bytes=45)
    assert presentation.extent == "the first 1 of 3 content blocks"
    assert presentation.text.endswith("\n\n[image: image/png]")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_number_json_cannot_hold_is_refused_inside_a_document_the_host_does_not_accept(value: float) -> None:
    """A `document` member that is no valid document is the tool's own data: its numbers are checked like any."""
    result = {"content": [], "structuredContent": {"document": {"title": "t", "cells": [value]}}}
    with pytest.raises(ValueError, match=re.escape(f"the number {value}, which JSON cannot hold")):
        present(None, result)


@pytest.mark.parametrize("structured", [ROWS, {"rate": math.nan}], ids=["finite", "a number JSON cannot hold"])
def test_a_wire_without_content_is_refused_naming_what_it_lacks(structured: dict[str, Any]) -> None:
    """What makes it no result at all is named first, before any value it holds."""
    with pytest.raises(ValueError, match=r"^the result has no content member: not a CallToolResult object"):
        present(None, {"structuredContent": structured})


def test_a_page_beside_a_document_the_host_does_not_accept_is_the_tools_own_data() -> None:
    """Its linked records are shown as the data they are, never as records the host notes were sent as links."""
    link = {"rowId": "h1", "sectionId": "s", "uri": "s://hits/h1", "bytes": 10}
    result = {
        "content": [],
        "structuredContent": {"document": {"title": 5}, "page": {"linkedRecords": [link]}},
    }
    presentation = present(None, result)
    assert "shown as a link" not in presentation.text and "s://hits/h1" in presentation.text


def test_the_model_reads_the_page_state_as_the_host_read_it() -> None:
    """Members the host does not read as page state (a completeness that is not a boolean, a count that is not a
    non-negative integer JSON holds exactly) are left out of the model's copy, as of the user's view; a count of zero
    is a count."""
    document = Document(
        title="t", sections=(Section(id="s", title="S", columns=("a",), rows=(Row(id="r", label="L", values=(1,)),)),)
    )
    page = {"complete": "no", "returned": 0, "total": -1}
    result = {"content": [], "structuredContent": {"document": document.model_dump(mode="json"), "page": page}}
    assert present(None, result, forwards="structured").model_result["structuredContent"]["page"] == {"returned": 0}
    page["total"] = 7
    assert present(None, result, forwards="structured").model_result["structuredContent"]["page"] == {
        "returned": 0,
        "total": 7,
    }
    # A count up to 2**53 (MAX_EXACT_JSON_INT) is read; past it (and past the digits Python writes) it is not.
    page["total"] = 2**53
    assert present(None, result, forwards="structured").model_result["structuredContent"]["page"]["total"] == 2**53
    for total in (2**53 + 1, 10**4400):
        page["total"] = total
        assert "total" not in present(None, result, forwards="structured").model_result["structuredContent"]["page"]


@pytest.mark.parametrize("member", ["DOCUMENT", "notes", "page"])
def test_a_number_json_cannot_hold_beside_a_valid_document_is_refused(member: str) -> None:
    """Only the document the records validated is spared a second walk: every other member is checked."""
    document = Document(
        title="t", sections=(Section(id="s", title="S", columns=("a",), rows=(Row(id="r", label="L", values=(1,)),)),)
    )
    structured = {"document": document.model_dump(mode="json"), member: {"n": math.nan}}
    with pytest.raises(ValueError, match=re.escape("the number nan, which JSON cannot hold")):
        present(None, {"content": [], "structuredContent": structured})
