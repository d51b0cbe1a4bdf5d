"""Properties of the fidelity audit against what `present` shows.

Honest presentations (text and Markdown) always audit clean; a single deleted, swapped or altered row is always
caught and classified. The generators deliberately include the hard cases: duplicate labels and whole duplicate
rows, values that also occur in labels or column names, empty strings, nulls next to a null display that is also a
possible string value, pipes, backslashes, Markdown and HTML syntax, line breaks, and labels that read as
"Subtotal"/"Total" markers.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from mcp_rendering.audit import AuditReport, audit, fold
from mcp_rendering.document import Cell, Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.render import cell_text, kind_marker

# A small vocabulary makes collisions (duplicate labels, a value equal to a label or a column) frequent.
_FRAGMENTS = st.sampled_from(
    [
        "a",
        "b",
        "Sales",
        "Total",
        "Subtotal:",
        "1",
        "10",
        "-",
        "n/a",
        "|",
        "\\",
        "*",
        "**",
        "_",
        "`",
        "#",
        "<br>",
        "&amp;",
        "&emsp;",
        "\n",
        " ",
        "  ",
        ":--",
        "é",
        "[x](y)",
    ]
)
_TEXT = st.one_of(
    st.lists(_FRAGMENTS, max_size=4).map("".join),
    st.text(max_size=8),
)
_CELL: st.SearchStrategy[Cell] = st.one_of(
    st.none(),
    _TEXT,
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False),
    st.booleans(),
)
_NULL_DISPLAY = st.sampled_from(["-", "", "n/a", "\u2014", "null"])


@st.composite
def documents(draw: st.DrawFn) -> Document:
    counter = 0
    sections: list[Section] = []
    for section_number in range(draw(st.integers(min_value=1, max_value=3))):
        columns = tuple(draw(st.lists(_TEXT, max_size=3)))
        rows: list[Row] = []
        for _ in range(draw(st.integers(min_value=0, max_value=6))):
            counter += 1
            rows.append(
                Row(
                    id=f"r{counter}",
                    label=draw(_TEXT),
                    values=tuple(draw(_CELL) for _ in columns),
                    kind=draw(st.sampled_from(["item", "item", "subtotal", "total"])),
                    level=draw(st.integers(min_value=0, max_value=3)),
                )
            )
        sections.append(Section(id=f"s{section_number}", title=draw(_TEXT), columns=columns, rows=tuple(rows)))
    return Document(title=draw(_TEXT), sections=tuple(sections))


def _result(document: Document, null_display: str, complete: bool) -> dict[str, Any]:
    directive: dict[str, Any] = {"mode": "verbatim", "nullDisplay": null_display}
    if not complete:
        directive["complete"] = False
        directive["continuation"] = {"argument": "cursor", "token": "tok-1"}
    return {
        "content": [{"type": "text", "text": "server text"}],
        "structuredContent": {"document": document.model_dump(mode="json"), "_rendering": directive},
        "_rendering": directive,
    }


def _shown_forms(document: Document, null_display: str, complete: bool) -> tuple[str, str]:
    presentation = present({"name": "statement"}, _result(document, null_display, complete))
    return presentation.text, presentation.markdown


def _appearance(row: Row, null_display: str) -> tuple[str, ...]:
    """What the audit can see of a row (its matching rules 2, 4 and 6): the folded marker+label and values.

    Indentation (level) is not part of it: the audit does not check depth.
    """
    return (
        fold(kind_marker(row) + row.label),
        *(fold(cell_text(value, null_display)) for value in row.values),
    )


def _replace_section(document: Document, index: int, rows: tuple[Row, ...]) -> Document:
    sections = list(document.sections)
    sections[index] = sections[index].model_copy(update={"rows": rows})
    return document.model_copy(update={"sections": tuple(sections)})


def _row_issues(report: AuditReport) -> list[Any]:
    return [issue for issue in report.issues if issue.row_id is not None]


def _row_by_id(document: Document, row_id: str) -> Row:
    return next(row for section in document.sections for row in section.rows if row.id == row_id)


@given(documents(), _NULL_DISPLAY, st.booleans())
def test_what_present_shows_audits_clean(document: Document, null_display: str, complete: bool) -> None:
    result = _result(document, null_display, complete)
    for shown in _shown_forms(document, null_display, complete):
        report = audit(shown, result)
        assert report.clean, report.format() + "\n---\n" + shown
        assert report.score == 1.0


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_a_deleted_row_is_reported_missing_by_kind(
    document: Document, null_display: str, complete: bool, data: st.DataObject
) -> None:
    candidates = [(s, r) for s, section in enumerate(document.sections) for r in range(len(section.rows))]
    assume(candidates)
    s, r = data.draw(st.sampled_from(candidates))
    deleted = document.sections[s].rows[r]
    rows = document.sections[s].rows
    shown_document = _replace_section(document, s, rows[:r] + rows[r + 1 :])
    result = _result(document, null_display, complete)
    for shown in _shown_forms(shown_document, null_display, complete):
        report = audit(shown, result)
        row_issues = _row_issues(report)
        assert len(row_issues) == 1, report.format()
        (issue,) = row_issues
        # A row identical in appearance to the deleted one may be the one reported: they cannot be told apart.
        reported = _row_by_id(document, issue.row_id)
        assert _appearance(reported, null_display) == _appearance(deleted, null_display)
        expected_kind = {"item": "missing_row", "subtotal": "dropped_subtotal", "total": "dropped_total"}
        assert issue.kind == expected_kind[reported.kind]
        others = [i for i in report.issues if i.row_id is None]
        # The only other possible issue: the reported row's section lost its only row, so nothing of it is shown.
        # (With identical rows in two sections, the audit cannot tell which section lost one.)
        assert all(i.kind == "dropped_section" and i.section_id == issue.section_id for i in others), report.format()
        assert report.score < 1.0


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_two_swapped_rows_are_reported_reordered(
    document: Document, null_display: str, complete: bool, data: st.DataObject
) -> None:
    # Rows are swapped within a section (rows of other sections may have other columns). Swapping two rows that
    # look the same to the audit changes nothing it can see (see `_appearance`), so such pairs are not drawn.
    pairs = [
        (s, i, j)
        for s, section in enumerate(document.sections)
        for i in range(len(section.rows))
        for j in range(i + 1, len(section.rows))
        if _appearance(section.rows[i], null_display) != _appearance(section.rows[j], null_display)
    ]
    assume(pairs)
    s, i, j = data.draw(st.sampled_from(pairs))
    rows = list(document.sections[s].rows)
    rows[i], rows[j] = rows[j], rows[i]
    shown_document = _replace_section(document, s, tuple(rows))
    result = _result(document, null_display, complete)
    for shown in _shown_forms(shown_document, null_display, complete):
        report = audit(shown, result)
        assert report.issues, report.format()
        assert all(issue.kind == "reordered_row" for issue in report.issues), report.format()
        # One swap is at least one and at most (j - i) moved rows: the rows between may be the ones moved.
        assert 1 <= len(report.issues) <= j - i
        assert report.score < 1.0


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_an_altered_value_is_reported_altered(
    document: Document, null_display: str, complete: bool, data: st.DataObject
) -> None:
    candidates = [
        (s, r, c)
        for s, section in enumerate(document.sections)
        for r in range(len(section.rows))
        for c in range(len(section.columns))
    ]
    assume(candidates)
    s, r, c = data.draw(st.sampled_from(candidates))
    original = document.sections[s].rows[r]
    new_value = data.draw(_CELL)
    # A change the audit cannot see by its rules (whitespace only, or null shown like the same string) is not
    # a change of what is shown.
    assume(fold(cell_text(new_value, null_display)) != fold(cell_text(original.values[c], null_display)))
    values = list(original.values)
    values[c] = new_value
    altered = original.model_copy(update={"values": tuple(values)})
    rows = list(document.sections[s].rows)
    rows[r] = altered
    shown_document = _replace_section(document, s, tuple(rows))
    result = _result(document, null_display, complete)
    for shown in _shown_forms(shown_document, null_display, complete):
        report = audit(shown, result)
        assert len(report.issues) == 1, report.format() + "\n---\n" + shown
        (issue,) = report.issues
        assert issue.kind == "altered_row", report.format()
        reported = _row_by_id(document, issue.row_id or "")
        assert _appearance(reported, null_display) == _appearance(original, null_display)
        assert report.score < 1.0


@given(documents(), _NULL_DISPLAY)
def test_a_partial_result_without_its_notice_is_caught(document: Document, null_display: str) -> None:
    # The host shows every row but leaves out the notice: exactly the partial-as-complete issue.
    shown_text, shown_markdown = _shown_forms(document, null_display, complete=True)
    result = _result(document, null_display, complete=False)
    for shown in (shown_text, shown_markdown):
        report = audit(shown, result)
        assert [issue.kind for issue in report.issues] == ["partial_as_complete"], report.format()
        assert report.score <= 0.5
