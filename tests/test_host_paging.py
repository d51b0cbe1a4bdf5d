"""Paging a result the host's bounds cut: following `next_first_row` shows every record once, in order, and ends;
each page holds at least one record, and its notice names the records it shows."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering import host
from mcp_rendering.host import OVER_BOUND, UNSTATED_COMPLETENESS, Presentation, present
from mcp_rendering.types import EXTENSION_ID

TOOL = {"name": "t", "inputSchema": {"type": "object"}, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
WHOLE = {EXTENSION_ID: {"mode": "verbatim", "complete": True}}
_RECORD = re.compile(r"\br(\d+)-")


def _structured(sizes: list[int]) -> dict[str, Any]:
    rows = [{"a": f"r{index}-" + "x" * size} for index, size in enumerate(sizes)]
    return {"content": [], "structuredContent": {"rows": rows}, "_meta": WHOLE}


def _text(sizes: list[int]) -> dict[str, Any]:
    lines = "\n".join(f"r{index}-" + "x" * size for index, size in enumerate(sizes))
    return {"content": [{"type": "text", "text": lines}], "_meta": WHOLE}


def _records_shown(presentation: Presentation) -> list[int]:
    body = presentation.text
    if presentation.notice is not None:
        body = body.removeprefix(presentation.notice + "\n\n")
    return [int(number) for number in _RECORD.findall(body)]


def _pages(result: dict[str, Any], **bounds: Any) -> list[Presentation]:
    pages = [present(TOOL, result, arguments={}, **bounds)]
    while pages[-1].next_first_row is not None:
        assert len(pages) <= 1000, "paging does not end"
        pages.append(present(TOOL, result, arguments={}, first_row=pages[-1].next_first_row, **bounds))
    return pages


@given(
    st.lists(st.integers(0, 3000), max_size=12),
    st.sampled_from([_structured, _text]),
    st.none() | st.integers(1, 5),
    st.none() | st.integers(0, 2500),
)
def test_following_next_first_row_shows_every_record_once_in_order(
    sizes: list[int], shape: Any, max_rows: int | None, max_bytes: int | None
) -> None:
    pages = _pages(shape(sizes), max_rows=max_rows, max_bytes=max_bytes)
    shown = [record for page in pages for record in _records_shown(page)]
    assert shown == list(range(len(sizes)))
    for page in pages:
        if sizes:
            assert _records_shown(page), page.notice  # every page holds at least one record
        assert not re.search(r"records (\d+) to (\d+)", page.notice or "") or all(
            int(first) <= int(last) for first, last in re.findall(r"records (\d+) to (\d+)", page.notice or "")
        )


@pytest.mark.parametrize("shape", [_structured, _text])
def test_a_record_alone_over_the_byte_bound_is_shown_alone_and_the_notice_says_so(shape: Any) -> None:
    result = shape([5, 5000, 5])
    pages = _pages(result, max_rows=50, max_bytes=2000)
    assert [_records_shown(page) for page in pages] == [[0], [1], [2]]
    over = pages[1]
    assert over.notice is not None and OVER_BOUND in over.notice
    assert len(over.text.encode()) > 2000  # over the bound, as the notice says
    assert all(OVER_BOUND not in (page.notice or "") for page in (pages[0], pages[2]))
    unit = "Record" if shape is _structured else "Line"
    assert f"{unit} 2 {OVER_BOUND}." in over.notice
    assert "records 2 to 1" not in over.notice and "lines 2 to 1" not in over.notice


def test_the_model_copy_of_a_record_over_the_bound_keeps_to_the_bound() -> None:
    over = present(TOOL, _structured([5000]), arguments={}, max_bytes=2000)
    assert _records_shown(over) == [0] and over.next_first_row is None
    assert over.withheld_blocks == 1 and "x" * 3000 not in str(over.model_result)
    assert over.notice is not None and OVER_BOUND in over.notice and "not forwarded to the model" in over.notice


def test_max_rows_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^max_rows must be one or more$"):
        present(TOOL, _structured([1, 1]), max_rows=0)


@pytest.mark.parametrize("shape", [_structured, _text])
def test_first_row_past_the_end_is_refused(shape: Any) -> None:
    result = shape([1] * 5)
    assert _records_shown(present(TOOL, result, arguments={}, first_row=4)) == [4]
    with pytest.raises(ValueError, match=r"^first_row 5 is past the last record: the result holds 5 records"):
        present(TOOL, result, arguments={}, first_row=5)


def test_the_last_page_names_its_range() -> None:
    pages = _pages(_structured([1] * 5), max_rows=2)
    assert [page.next_first_row for page in pages] == [2, 4, None]
    assert pages[-1].notice is not None and "record 5 of 5" in pages[-1].notice


def test_the_last_slice_of_a_whole_result_claims_no_rest() -> None:
    pages = _pages(_structured([1] * 3), max_rows=2)
    assert pages[0].notice is not None and "the rest of this result is not shown here" in pages[0].notice
    assert pages[-1].notice is not None and "the rest" not in pages[-1].notice
    assert "the records before these are not shown here" in pages[-1].notice


def test_completeness_not_stated_is_said_and_no_record_is_called_missing() -> None:
    result = {"content": [], "structuredContent": {"rows": [{"a": 1}, {"a": 2}]}}
    presentation = present(TOOL, result, arguments={})
    assert presentation.notice == UNSTATED_COMPLETENESS and not presentation.complete
    assert presentation.framing is not None and UNSTATED_COMPLETENESS in presentation.framing
    assert "Partial result" not in presentation.text + presentation.framing


@pytest.mark.parametrize("max_rows", [None, 1])
def test_a_crlf_ends_a_line_in_the_view_and_the_model_copy_alike(max_rows: int | None) -> None:
    result = {"content": [{"type": "text", "text": "101 Capital: 50000\r\n106 Reserve: 5000\r\n"}], "_meta": WHOLE}
    presentation = present(TOOL, result, arguments={}, max_rows=max_rows, forwards="text")
    assert "\\u000d" not in presentation.text and "\r" not in presentation.text
    shown = ["101 Capital: 50000", "106 Reserve: 5000"][: max_rows or 2]
    assert [line for line in presentation.text.splitlines() if line.startswith("10")] == shown
    model_lines = presentation.model_result["content"][1]["text"].splitlines()
    assert [line for line in model_lines if line.startswith("10")] == shown


@pytest.mark.parametrize("forwards", ["text", None, "both", "structured"])
def test_a_page_max_rows_cuts_renders_only_the_records_shown(forwards: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[int] = []
    render = host._Records._render  # pyright: ignore[reportPrivateUsage]

    def counting(self: Any, limit: int, null_display: str) -> Any:
        rendered.append(limit)
        return render(self, limit, null_display)

    monkeypatch.setattr(host._Records, "_render", counting)  # pyright: ignore[reportPrivateUsage]
    presentation = present(TOOL, _structured([3] * 2000), arguments={}, max_rows=10, forwards=forwards)
    assert _records_shown(presentation) == list(range(10))
    assert rendered and max(rendered) == 10


def _mixed(blocks: list[int | None]) -> dict[str, Any]:
    """Text blocks of that many lines (records numbered across blocks) between links (None), each link named once."""
    content: list[dict[str, Any]] = []
    record = 0
    for index, lines in enumerate(blocks):
        if lines is None:
            content.append({"type": "resource_link", "name": f"L{index}", "uri": f"x://L{index}"})
        else:
            content.append({"type": "text", "text": "\n".join(f"r{record + k}-x" for k in range(lines))})
            record += lines
    return {"content": content, "_meta": WHOLE}


@given(
    st.lists(st.none() | st.integers(1, 3), min_size=1, max_size=8),
    st.none() | st.integers(1, 4),
    st.none() | st.integers(0, 120),
    st.sampled_from(["text", "both"]),
)
def test_a_page_of_text_and_other_blocks_forwards_only_the_blocks_it_names(
    blocks: list[int | None], max_rows: int | None, max_bytes: int | None, forwards: Any
) -> None:
    result = _mixed(blocks)
    records = sum(lines or 0 for lines in blocks)
    pages = _pages(result, max_rows=max_rows, max_bytes=max_bytes, forwards=forwards)
    shown = [record for page in pages for record in _records_shown(page)]
    assert shown == list(range(records))
    for page in pages:
        named = set(re.findall(r"\[link\] (L\d+)", page.text))
        forwarded = {block["name"] for block in page.model_result["content"] if block["type"] == "resource_link"}
        assert forwarded <= named, "the model receives a block the user's page leaves out"
        if page.notice is not None and page.next_first_row is not None:
            assert not page.text.endswith("\n"), "a cut page ends on the empty line before a block it leaves out"


def test_a_page_cut_before_a_link_neither_names_nor_forwards_it() -> None:
    result = _mixed([2, None, 1])
    page = present(TOOL, result, arguments={}, max_bytes=37, forwards="text")  # two records fit, not the link
    assert page.text.endswith("r1-x") and "L1" not in page.text and page.next_first_row == 2
    assert all(block["type"] == "text" for block in page.model_result["content"])
