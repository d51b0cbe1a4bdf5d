"""A document's records in the order shown (each section's rows, then its linked records, placed once after the
first section of that id; links of no section last), cut to a page and continued from a later record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from mcp_rendering.builder import verbatim_result
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.types import EXTENSION_ID


def _section(section_id: str, *row_ids: str, value: Any = 1, title: str | None = None) -> Section:
    rows = tuple(Row(id=row_id, label=row_id, values=(value,)) for row_id in row_ids)
    return Section(id=section_id, title=title or section_id.upper(), columns=("v",), rows=rows)


def _result(*sections: Section, links: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """A whole document whose linked records are (row id, section id) pairs."""
    wire = verbatim_result(Document(title="T", sections=sections)).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    records = sum(len(section.rows) for section in sections) + len(links)
    linked = [{"rowId": row, "sectionId": section, "uri": f"r://{row}", "bytes": 10} for row, section in links]
    wire["structuredContent"]["page"] = {"complete": True, "returned": records, "linkedRecords": linked}
    return wire


# Shown in the order a1 a2 L1 b1 c1 d1 d2 O1: L1 is placed after the first section "s", O1 names no section.
REPEATED = _result(
    _section("s", "a1", "a2"),
    _section("t", "b1"),
    _section("s", "c1", title="S again"),
    _section("u", "d1", "d2"),
    links=[("L1", "s"), ("O1", "nowhere")],
)


def _page(result: dict[str, Any], max_rows: int, first_row: int = 0) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The page's sections (id, row ids) and linked record ids, as the model's structured copy holds them."""
    copy = present(None, result, max_rows=max_rows, first_row=first_row, forwards="structured").model_result
    structured = copy["structuredContent"]
    sections = [
        (section["id"], [row["id"] for row in section["rows"]]) for section in structured["document"]["sections"]
    ]
    return sections, [link["rowId"] for link in structured["page"].get("linkedRecords", [])]


@pytest.mark.parametrize(
    ("max_rows", "expected"),
    [
        (2, ([("s", ["a1", "a2"])], [])),  # the limit ends on a section's last row: none of its links
        (3, ([("s", ["a1", "a2"])], ["L1"])),
        (6, ([("s", ["a1", "a2"]), ("t", ["b1"]), ("s", ["c1"]), ("u", ["d1"])], ["L1"])),  # L1 once
    ],
)
def test_a_page_holds_the_first_records_in_the_order_shown(max_rows: int, expected: Any) -> None:
    assert _page(REPEATED, max_rows) == expected


@pytest.mark.parametrize(
    ("first_row", "expected"),
    [
        (1, ([("s", ["a2"]), ("t", ["b1"])], ["L1"])),  # from a row of a section with links: its links follow
        (2, ([("s", []), ("t", ["b1"]), ("s", ["c1"])], ["L1"])),  # from the link: its section holds no row
        (4, ([("s", ["c1"]), ("u", ["d1", "d2"])], [])),  # past the first "s": its links are not placed again
        (7, ([], ["O1"])),  # the link of no section, last
    ],
)
def test_a_later_page_starts_at_its_record_in_the_order_shown(first_row: int, expected: Any) -> None:
    assert _page(REPEATED, 3, first_row) == expected


def test_a_cut_keeps_the_empty_sections_after_it_but_not_those_whose_links_it_cut() -> None:
    """After the last record shown, a section with nothing in it is kept as a heading: one with no rows and no
    links, or a repeat of a section id whose links were placed earlier; a section whose links were cut is not."""
    result = _result(
        _section("s", "a1"),
        _section("e"),  # empty: kept
        _section("s"),  # a repeat, empty, its links placed after the first "s": kept
        _section("p"),  # no rows, but its link Lp is a record past the cut: not kept
        _section("t", "b1"),  # rows past the cut: not kept
        links=[("Ls", "s"), ("Lp", "p")],
    )
    assert _page(result, 1) == ([("s", ["a1"]), ("e", []), ("s", [])], [])
    assert _page(result, 2) == ([("s", ["a1"]), ("e", []), ("s", [])], ["Ls"])


def test_a_cut_keeps_the_empty_sections_before_its_last_record() -> None:
    """A section with no rows and no links among the records shown is a heading of the page, as it is of the whole."""
    result = _result(_section("s", "a1"), _section("e"), _section("t", "b1", "b2"))
    assert _page(result, 2) == ([("s", ["a1"]), ("e", []), ("t", ["b1"])], [])


def _notes(text: str) -> list[tuple[str, str]]:
    """Each note on a linked record with the heading of the section it follows ("" before any)."""
    notes: list[tuple[str, str]] = []
    heading = ""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if index + 1 < len(lines) and lines[index + 1] == "---":
            heading = line
        if line.startswith("[link] Record"):
            notes.append((heading, line.split('"')[1]))
    return notes


@pytest.mark.parametrize("max_rows", [None, 8, 7])
def test_each_link_is_noted_once_after_its_section_and_those_of_no_section_last(max_rows: int | None) -> None:
    # The second section "s" (its row c1, under "S again") holds no note: L1 follows the first one only.
    expected = [("S", "L1"), ("U", "O1")] if max_rows != 7 else [("S", "L1")]
    assert _notes(present(None, REPEATED, max_rows=max_rows).text) == expected
    markdown = present(None, REPEATED, max_rows=max_rows).markdown
    assert markdown.count('Record "L1"') == 1


def _note(row_id: str) -> str:
    return f'[link] Record "{row_id}", shown as a link: too large to embed (10 bytes). Read it at "r://{row_id}".'


def test_a_link_is_noted_after_its_section_and_those_of_no_section_last_each_on_its_line() -> None:
    result = _result(_section("s", "a1"), _section("t", "b1"), links=[("L1", "s"), ("O1", "x"), ("O2", "y")])
    presentation = present(None, result)
    assert _notes(presentation.text) == [("S", "L1"), ("T", "O1"), ("T", "O2")]
    assert presentation.text.endswith(f"| b1 | 1 |\n\n{_note('O1')}\n{_note('O2')}\n")
    markdown_notes = [line.replace("\\[", "[").replace("\\]", "]") for line in presentation.markdown.splitlines()]
    assert markdown_notes[-2:] == [f"- {_note('O1')}", f"- {_note('O2')}"]


def test_a_cut_documents_null_values_show_the_directives_null_text() -> None:
    result = _result(_section("s", "a1", "a2", value=None), links=[("L1", "s")])
    result["_meta"] = {EXTENSION_ID: {"mode": "verbatim", "complete": True, "nullDisplay": "not reported"}}
    presentation = present(None, result, max_rows=2)
    assert presentation.text.count("not reported") == 2
    assert presentation.markdown.count("not reported") == 2


def test_every_record_shown_without_the_block_over_the_bound_is_a_complete_copy() -> None:
    # The whole result does not fit the model's bound (an image beside): the host's copy of every record does, and
    # says the records are complete, as the server sent them whole.
    result = _result(_section("s", "a1", "a2"))
    result["content"].append({"type": "image", "mimeType": "image/png", "data": "A" * 4000})
    presentation = present(None, result, max_bytes=1500)
    copy = presentation.model_result["structuredContent"]
    assert [row["id"] for row in copy["document"]["sections"][0]["rows"]] == ["a1", "a2"]
    assert copy["page"] == {"complete": True, "returned": 2}
    assert presentation.notice == "Note: 1 content block was not forwarded to the model: over the host's size bound."


def test_a_document_whose_headings_do_not_fit_shows_the_notice_alone() -> None:
    result = _result(_section("s"))  # no records: a heading alone
    presentation = present(None, result, max_bytes=5)
    notice = (
        "Partial result: this host shows none of the headings of a result the server sent whole (as many as fit the"
        " host's bound of 5 bytes); the rest of this result is not shown here. 1 content block was not forwarded to"
        " the model: over the host's size bound."
    )
    assert (presentation.notice, presentation.text, presentation.markdown) == (
        notice,
        f"{notice}\n\n",
        f"> {notice}\n\n",
    )
    assert present(None, result, max_bytes=300).text == "T\n===\n\nS\n---\n\n(no rows)\n"


def test_a_linked_fields_note_follows_the_section_holding_its_row_whatever_its_id() -> None:
    result = _result(_section("s", "a1"), _section("t", "b1"), _section("s", "c1", title="S again"))
    field = {"rowId": "c1", "column": 0, "name": "v", "uri": "r://f", "bytes": 10}
    result["structuredContent"]["page"]["linkedFields"] = [field]
    lines = present(None, result).text.splitlines()
    note = next(index for index, line in enumerate(lines) if line.startswith('[link] Field "v" of record "c1"'))
    assert lines.index("S again") < note and lines.count(lines[note]) == 1
