"""The adversarial corpus of the fidelity audit, drawn by Hypothesis.

For any result (a document, structured content of any JSON shape, or text alone) and what `present` shows of it,
the honest transcript audits clean in both readings, and each of these is caught as its own kind of issue:
deleting a record, duplicating one, inserting a fabricated one, relabelling one, altering one value, reordering,
hiding a section in an HTML comment or a collapsed `<details>` block, and a partial result shown with its notice
replaced by a denial. The generators draw the hard cases on purpose: duplicate labels and rows, values equal to
labels or column names, empty strings, nulls beside a null text that is also a value, pipes, backslashes, Markdown
and HTML syntax, line breaks, control and bidi characters, and labels that read as subtotal markers.
"""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import assume, given
from hypothesis import strategies as st

from mcp_rendering.audit import AuditReport, IssueKind, audit, fold
from mcp_rendering.document import Cell, Document, Row, Section
from mcp_rendering.drawn import right_to_left
from mcp_rendering.host import IMITATION_WARNING, present
from mcp_rendering.render import cell_text, kind_marker, text_escape
from tests.support.carriers import meta_carriers

Markup = Literal["text", "markdown"]

_FRAGMENTS = st.sampled_from(
    [
        "a",
        "b",
        "Sales",
        "Total",
        "Subtotal:",
        "1",
        "10",
        # Numbers whose reading depends on the decimal mark, grouped, or signed as a reader draws them.
        "0,0",
        "12,5",
        "1.377",
        "1,377",
        "1\u202f377",
        "\u22125",
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
        "<b>",
        "&amp;",
        "&emsp;",
        "<!--",
        "\n",
        " ",
        "  ",
        ":--",
        "é",
        "[x](y)",
        "\x1b[2K",
        "\u202e",
        "\u2028",
    ]
)
# Without right-to-left letters, which make the digits after them uncertain as drawn: their own property below.
_TEXT = st.one_of(
    st.lists(_FRAGMENTS, max_size=4).map("".join), st.text(max_size=8).filter(lambda text: not right_to_left(text))
)
_RIGHT_TO_LEFT_TEXT = st.lists(
    st.one_of(_FRAGMENTS, st.sampled_from(["שקל", "الأصول", "؛", "\u05d0"])), max_size=4
).map("".join)


def _cells(text: st.SearchStrategy[str]) -> st.SearchStrategy[Cell]:
    return st.one_of(
        st.none(),
        text,
        st.integers(min_value=-(10**20), max_value=10**20),
        # Past the decimal digits shown (12,000 bits) and past those Python writes at all (about 14,300 bits).
        st.sampled_from([2**12_001, -(2**14_400)]),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
    )


_CELL = _cells(_TEXT)
_NULL_DISPLAY = st.sampled_from(
    ["n/a", "none", "\u2014n/a\u2014", "null"]
)  # usable null texts (an unusable one, such as a dash alone, makes the carrier unclean)
_READINGS: tuple[Markup, ...] = ("text", "markdown")
_FRESH = "Zzq fabricated 999999"


@st.composite
def documents(draw: st.DrawFn, text: st.SearchStrategy[str] = _TEXT) -> Document:
    counter = 0
    sections: list[Section] = []
    for section_number in range(draw(st.integers(min_value=1, max_value=3))):
        columns = tuple(draw(st.lists(text, max_size=3)))
        rows: list[Row] = []
        for _ in range(draw(st.integers(min_value=0, max_value=6))):
            counter += 1
            rows.append(
                Row(
                    id=f"r{counter}",
                    label=draw(text),
                    values=tuple(draw(_cells(text)) for _ in columns),
                    kind=draw(st.sampled_from(["item", "item", "subtotal", "total"])),
                    level=draw(st.integers(min_value=0, max_value=3)),
                )
            )
        sections.append(Section(id=f"s{section_number}", title=draw(text), columns=columns, rows=tuple(rows)))
    return Document(title=draw(text), sections=tuple(sections))


def _directive(null_display: str, complete: bool) -> dict[str, Any]:
    directive: dict[str, Any] = {"mode": "verbatim", "nullDisplay": null_display}
    if not complete:
        directive.update(complete=False, continuation={"argument": "cursor", "token": "tok-1"})
    return directive


def _result(document: Document, null_display: str, complete: bool) -> dict[str, Any]:
    directive = _directive(null_display, complete)
    return {
        "content": [{"type": "text", "text": "server text"}],
        "structuredContent": {"document": document.model_dump(mode="json"), "_rendering": directive},
        "_meta": meta_carriers(directive),
    }


def _shown(result: dict[str, Any], markup: Markup) -> str:
    presentation = present({"name": "statement"}, result)
    return presentation.text if markup == "text" else presentation.markdown


def _audit(shown: str, result: dict[str, Any], markup: Markup) -> AuditReport:
    return audit(shown, result, markup=markup)


def _appearance(row: Row, null_display: str) -> tuple[str, ...]:
    """What a reader can see of a row: its marked label and its values as shown (indentation aside)."""
    return (
        fold(text_escape(kind_marker(row) + row.label)),
        *(fold(text_escape(cell_text(value, null_display))) for value in row.values),
    )


def _replace_section(document: Document, index: int, rows: tuple[Row, ...]) -> Document:
    sections = list(document.sections)
    sections[index] = sections[index].model_copy(update={"rows": rows})
    return document.model_copy(update={"sections": tuple(sections)})


def _row_lines(shown: str, markup: Markup) -> list[int]:
    """Indexes of the lines that show a row in `present`'s rendering (every table line but headers)."""
    lines = shown.split("\n")
    separator = (lambda line: line.startswith("| ---")) if markup == "markdown" else (lambda line: line.startswith("+"))
    return [
        index
        for index, line in enumerate(lines)
        if line.startswith("|")
        and not separator(line)
        and not (index + 1 < len(lines) and separator(lines[index + 1]))
        and not (
            markup == "text" and index + 1 < len(lines) and lines[index + 1] and set(lines[index + 1]) <= {"=", "-"}
        )
    ]


def _kinds(report: AuditReport) -> set[IssueKind]:
    return {issue.kind for issue in report.issues}


def _rows(document: Document) -> list[tuple[int, int]]:
    return [(s, r) for s, section in enumerate(document.sections) for r in range(len(section.rows))]


# ----------------------------------------------------------------------------------------------------- documents


@given(documents(), _NULL_DISPLAY, st.booleans())
def test_what_present_shows_audits_clean(document: Document, null_display: str, complete: bool) -> None:
    result = _result(document, null_display, complete)
    for markup in _READINGS:
        shown = _shown(result, markup)
        report = _audit(shown, result, markup)
        assert report.clean, report.format() + "\n---\n" + shown
        assert report.score == 1.0


@given(documents(_RIGHT_TO_LEFT_TEXT), _NULL_DISPLAY, st.booleans())
def test_what_present_shows_of_right_to_left_text_is_clean_or_unverifiable_never_wrong(
    document: Document, null_display: str, complete: bool
) -> None:
    """Digits right-to-left text may move (in the plain-text view's rows, a heading) are unverifiable, and their
    records not shown, or shown under no section a reader can verify (`misplaced_row`); nothing else is reported, and
    without such digits nothing at all. A record left out is never counted shown."""
    result = _result(document, null_display, complete)
    rows = _rows(document)
    for markup in _READINGS:
        shown = _shown(result, markup)
        report = _audit(shown, result, markup)
        uncertain = [issue for issue in report.issues if issue.kind == "unverifiable"]
        assert all("right-to-left" in issue.detail for issue in uncertain), report.format()
        if not uncertain:
            assert report.clean, report.format() + "\n---\n" + shown
        consequences = {"missing_row", "dropped_subtotal", "dropped_total", "dropped_section", "misplaced_row"}
        assert _kinds(report) <= {"unverifiable", *consequences}, report.format()
        if rows:
            s, r = rows[0]
            section_rows = document.sections[s].rows
            deleted = _result(
                _replace_section(document, s, section_rows[:r] + section_rows[r + 1 :]), null_display, complete
            )
            short = _audit(_shown(deleted, markup), result, markup)
            assert not short.clean and short.rows_intact < short.rows_expected, short.format()


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_a_deleted_record_is_missing(document: Document, null_display: str, complete: bool, data: Any) -> None:
    assume(_rows(document))
    s, r = data.draw(st.sampled_from(_rows(document)))
    deleted = document.sections[s].rows[r]
    rows = document.sections[s].rows
    result = _result(document, null_display, complete)
    shown_result = _result(_replace_section(document, s, rows[:r] + rows[r + 1 :]), null_display, complete)
    for markup in _READINGS:
        report = _audit(_shown(shown_result, markup), result, markup)
        expected = {"item": "missing_row", "subtotal": "dropped_subtotal", "total": "dropped_total"}
        (issue,) = [issue for issue in report.issues if issue.row_id is not None]
        reported = next(row for section in document.sections for row in section.rows if row.id == issue.row_id)
        # An identical-looking row may be the one reported: a reader cannot tell them apart either.
        assert _appearance(reported, null_display) == _appearance(deleted, null_display)
        assert issue.kind == expected[reported.kind]
        assert _kinds(report) <= {issue.kind, "dropped_section"}, report.format()


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_a_duplicated_record_is_caught(document: Document, null_display: str, complete: bool, data: Any) -> None:
    result = _result(document, null_display, complete)
    for markup in _READINGS:
        lines = _shown(result, markup).split("\n")
        candidates = _row_lines("\n".join(lines), markup)
        assume(candidates)
        index = data.draw(st.sampled_from(candidates))
        shown = "\n".join([*lines[: index + 1], lines[index], *lines[index + 1 :]])
        report = _audit(shown, result, markup)
        assert _kinds(report) == {"duplicated_row"}, report.format() + "\n---\n" + shown


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_a_fabricated_record_is_caught(document: Document, null_display: str, complete: bool, data: Any) -> None:
    result = _result(document, null_display, complete)
    for markup in _READINGS:
        lines = _shown(result, markup).split("\n")
        candidates = _row_lines("\n".join(lines), markup)
        assume(candidates)
        index = data.draw(st.sampled_from(candidates))
        cells = lines[index].count("|") - 1
        fabricated = "| " + " | ".join([_FRESH] * max(cells, 1)) + " |"
        shown = "\n".join([*lines[: index + 1], fabricated, *lines[index + 1 :]])
        report = _audit(shown, result, markup)
        assert _kinds(report) == {"fabricated_row"}, report.format() + "\n---\n" + shown


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_a_relabelled_record_is_caught(document: Document, null_display: str, complete: bool, data: Any) -> None:
    candidates = [(s, r) for s, r in _rows(document) if document.sections[s].columns]
    assume(candidates)
    s, r = data.draw(st.sampled_from(candidates))
    original = document.sections[s].rows[r]
    relabelled = original.model_copy(update={"label": "Not " + _FRESH})
    rows = list(document.sections[s].rows)
    rows[r] = relabelled
    result = _result(document, null_display, complete)
    shown_result = _result(_replace_section(document, s, tuple(rows)), null_display, complete)
    for markup in _READINGS:
        report = _audit(_shown(shown_result, markup), result, markup)
        (issue,) = report.issues
        assert issue.kind in ("relabelled_row", "missing_row", "dropped_subtotal", "dropped_total"), report.format()
        # Relabelled when the row's values are unique to it; otherwise indistinguishable from a new row.
        if issue.kind != "relabelled_row":
            same = [
                row
                for _, row in _all(document)
                if _appearance(row, null_display)[1:] == _appearance(original, null_display)[1:]
            ]
            assert len(same) > 1 or not any(_appearance(original, null_display)[1:])


def _all(document: Document) -> list[tuple[Section, Row]]:
    return [(section, row) for section in document.sections for row in section.rows]


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_an_altered_value_is_caught(document: Document, null_display: str, complete: bool, data: Any) -> None:
    candidates = [(s, r, c) for s, r in _rows(document) for c in range(len(document.sections[s].columns))]
    assume(candidates)
    s, r, c = data.draw(st.sampled_from(candidates))
    original = document.sections[s].rows[r]
    new_value = data.draw(_CELL)
    before = fold(text_escape(cell_text(original.values[c], null_display)))
    assume(fold(text_escape(cell_text(new_value, null_display))) != before)
    values = list(original.values)
    values[c] = new_value
    rows = list(document.sections[s].rows)
    rows[r] = original.model_copy(update={"values": tuple(values)})
    result = _result(document, null_display, complete)
    shown_result = _result(_replace_section(document, s, tuple(rows)), null_display, complete)
    for markup in _READINGS:
        report = _audit(_shown(shown_result, markup), result, markup)
        assert not report.clean, report.format()
        # Usually one altered row; when the new values equal another row's, the reader may take it for that row.
        assert report.altered or report.missing or report.reordered or report.duplicated, report.format()


@given(documents(), _NULL_DISPLAY, st.booleans(), st.data())
def test_two_swapped_records_are_reordered(document: Document, null_display: str, complete: bool, data: Any) -> None:
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
    result = _result(document, null_display, complete)
    shown_result = _result(_replace_section(document, s, tuple(rows)), null_display, complete)
    for markup in _READINGS:
        report = _audit(_shown(shown_result, markup), result, markup)
        assert report.issues and _kinds(report) == {"reordered_row"}, report.format()
        assert 1 <= len(report.issues) <= j - i


_HIDING = {
    "comment": ("<!--", "-->"),
    "details": ("<details><summary>Details</summary>", "</details>"),
    # HTML blocks that a blank line does not end, whose content a browser does not show as text. (A declaration,
    # `<!X`, ends at the first `>`, which the view's own `<br>` supplies: it cannot hide a table that has one.)
    "processing instruction": ("<?note", "?>"),
    "cdata": ("<![CDATA[", "]]>"),
    "script": ("<script>", "</script>"),
    "style": ("<style>", "</style>"),
}


@given(documents(), _NULL_DISPLAY, st.booleans(), st.sampled_from(sorted(_HIDING)), st.data())
def test_a_hidden_section_is_caught(document: Document, null_display: str, complete: bool, how: str, data: Any) -> None:
    assume(any(section.rows for section in document.sections))
    result = _result(document, null_display, complete)
    markdown = _shown(result, "markdown")
    lines = markdown.split("\n")
    table = [index for index in _row_lines(markdown, "markdown")]
    start, end = table[0] - 2, table[-1] + 1  # from the header line to the last row line
    opening, closing = _HIDING[how]
    shown = "\n".join([*lines[:start], opening, "", *lines[start:end], "", closing, *lines[end:]])
    report = _audit(shown, result, "markdown")
    assert _kinds(report) & {"hidden_content", "unverifiable"}, report.format()
    assert report.missing or report.dropped_sections, report.format()


@given(documents(), _NULL_DISPLAY)
def test_a_denied_notice_is_caught(document: Document, null_display: str) -> None:
    partial = _result(document, null_display, complete=False)
    for markup in _READINGS:
        shown = _shown(_result(document, null_display, complete=True), markup)
        for denial in ("", "This is the complete list, not a partial one.", "Nothing is incomplete or truncated."):
            report = _audit(f"{denial}\n\n{shown}", partial, markup)
            assert _kinds(report) == {"completeness_misstated"}, report.format()
            assert report.score <= 0.5


@given(documents(), _NULL_DISPLAY, st.booleans())
def test_a_wrong_order_shown_before_the_right_one_is_caught(
    document: Document, null_display: str, complete: bool
) -> None:
    movable = [
        section for section in document.sections if len({_appearance(r, null_display) for r in section.rows}) > 1
    ]
    assume(movable)
    index = document.sections.index(movable[0])
    shown_first = _replace_section(document, index, tuple(reversed(movable[0].rows)))
    result = _result(document, null_display, complete)
    for markup in _READINGS:
        shown = _shown(_result(shown_first, null_display, complete), markup) + "\n\n" + _shown(result, markup)
        report = _audit(shown, result, markup)
        assert "duplicated_row" in _kinds(report), report.format()


# ----------------------------------------------------------------------------------------- any structured content

# Finite floats only: JSON has no infinity, and the reader refuses a number that overflows to one.
_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_json = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "name", "x.y", "n"]), inner, max_size=3)
    ),
    max_leaves=16,
)


def _structured_result(structured: Any) -> dict[str, Any]:
    return {"content": [], "structuredContent": structured, "_meta": meta_carriers({"mode": "verbatim"})}


@given(_json.filter(lambda value: value not in ({}, None)))
def test_any_structured_content_audits_clean_as_presented(structured: Any) -> None:
    result = _structured_result(structured)
    for markup in _READINGS:
        shown = _shown(result, markup)
        report = _audit(shown, result, markup)
        assert report.clean, report.format() + "\n---\n" + shown


@given(
    st.lists(st.dictionaries(st.sampled_from(["name", "score"]), _json_scalars, min_size=1), min_size=2, max_size=6),
    st.data(),
)
def test_dropping_adding_or_moving_a_structured_record_is_caught(records: list[dict[str, Any]], data: Any) -> None:
    result = _structured_result({"hits": records})
    for markup in _READINGS:
        lines = _shown(result, markup).split("\n")
        row_lines = _row_lines("\n".join(lines), markup)
        index = data.draw(st.sampled_from(row_lines))
        dropped = "\n".join(lines[:index] + lines[index + 1 :])
        assert _kinds(_audit(dropped, result, markup)) & {"missing_row", "dropped_section"}
        added = "\n".join([*lines[: index + 1], f"| [99] | {_FRESH} |", *lines[index + 1 :]])
        assert "fabricated_row" in _kinds(_audit(added, result, markup))
        other = data.draw(st.sampled_from(row_lines))
        assume(lines[other] != lines[index])
        swapped = list(lines)
        swapped[index], swapped[other] = swapped[other], swapped[index]
        assert not _audit("\n".join(swapped), result, markup).clean


# -------------------------------------------------------------------------------------------------- text results

# Without right-to-left text, which makes the digits beside it uncertain as drawn (their own property, above).
_line = st.text(
    st.characters(blacklist_categories=("Cs",)) | st.sampled_from(list("|#*_`<>[]!-\u202e\x1b")),
    min_size=1,
    max_size=20,
).filter(lambda s: "\n" not in s and "\r" not in s and not right_to_left(s))


@given(st.lists(_line, min_size=1, max_size=8), st.booleans())
def test_a_text_result_audits_clean_as_presented(lines: list[str], complete: bool) -> None:
    directive = _directive("n/a", complete)
    result = {"content": [{"type": "text", "text": "\n".join(lines)}], "_meta": meta_carriers(directive)}
    for markup in _READINGS:
        shown = _shown(result, markup)
        report = _audit(shown, result, markup)
        assert report.clean, report.format() + "\n---\n" + shown


@given(
    st.lists(_line, min_size=3, max_size=8, unique_by=fold).filter(lambda ls: all(fold(line) for line in ls)), st.data()
)
def test_changing_one_line_of_a_text_result_is_caught(lines: list[str], data: Any) -> None:
    result = {"content": [{"type": "text", "text": "\n".join(lines)}], "_meta": meta_carriers({"mode": "verbatim"})}
    shown_lines = _shown(result, "text").split("\n")
    # The host's warning before server lines worded like its own, and the blank line after it, are the host's, not
    # the result's: not lines to change.
    hosts = {index + offset for index, line in enumerate(shown_lines) if line == IMITATION_WARNING for offset in (0, 1)}
    changeable = [index for index in range(len(shown_lines)) if index not in hosts]
    index = data.draw(st.sampled_from(changeable))
    for changed in (
        shown_lines[:index] + shown_lines[index + 1 :],  # dropped
        [*shown_lines[: index + 1], _FRESH, *shown_lines[index + 1 :]] if index < len(shown_lines) - 1 else None,
        [*shown_lines[:index], shown_lines[index] + " (edited)", *shown_lines[index + 1 :]],  # altered
        [*shown_lines[:index], *shown_lines[index + 1 :], shown_lines[index]] if index < len(shown_lines) - 1 else None,
    ):
        if changed is None:
            continue
        report = _audit("\n".join(changed), result, "text")
        assert not report.clean, "\n".join(changed)


def test_a_line_made_up_after_a_text_result_is_caught_but_the_hosts_prose_is_not() -> None:
    """Around a text result a host may write prose of its own; a line there that reads like one of the result's
    (it begins as they do) is reported as fabricated."""
    result = {"content": [{"type": "text", "text": "balance 100\nbalance 200"}]}
    appended = audit("balance 100\nbalance 200\nbalance 300 (total 600)", result, markup="text")
    assert _kinds(appended) == {"fabricated_row"}
    assert audit("Here is the ledger:\nbalance 100\nbalance 200\nThat is all.", result, markup="text").clean
