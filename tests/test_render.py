"""The reference renderings: whole, ordered, marked, escaped, exact and deterministic."""

from __future__ import annotations

import importlib
import re
import unicodedata
from typing import Any

import cmarkgfm  # pyright: ignore[reportMissingTypeStubs]
import pytest
from cmarkgfm.cmark import Options  # pyright: ignore[reportMissingTypeStubs]
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

from mcp_rendering.audit import fold
from mcp_rendering.document import Cell, Document, Row, RowKind, Section
from mcp_rendering.render import (
    MAX_INDENT,
    cell_text,
    column_cells,
    first_hidden,
    hides_nothing,
    indentation,
    is_hidden,
    kind_marker,
    markdown_escape,
    render_markdown,
    render_text,
    text_escape,
    visible,
)
from mcp_rendering.transcript import read_markdown

_RENDER: Any = importlib.import_module("mcp_rendering.render")


def _statement() -> Document:
    return Document(
        title="Income statement",
        sections=(
            Section(
                id="rev",
                title="Revenue",
                columns=("2023", "2024"),
                rows=(
                    Row(id="sales", label="Sales", values=(1000, 1234567.125)),
                    Row(id="dom", label="Domestic", values=(600, None), level=1),
                    Row(id="rev-sub", label="Revenue", values=(1600, 0.1), kind="subtotal"),
                ),
            ),
            Section(id="empty", title="Dividends", columns=("2024",)),
            Section(
                id="net",
                title="Result",
                columns=("2024",),
                rows=(Row(id="net", label="Net income", values=(-12.5,), kind="total"),),
            ),
        ),
    )


def test_cell_text_keeps_values_exact() -> None:
    assert cell_text(None) == "n/a"
    assert cell_text(None, "none") == "none"
    assert cell_text(True) == "true"
    assert cell_text(False) == "false"
    assert cell_text(1234567) == "1234567"
    assert cell_text(10**20) == "100000000000000000000"
    assert cell_text(0.1) == "0.1"
    assert cell_text(1e-7) == "1e-07"
    assert cell_text("1,000") == "1,000"


_EXPECTED_TEXT = """\
Income statement
================

Revenue
-------

|                   | 2023 |        2024 |
+-------------------+------+-------------+
| Sales             | 1000 | 1234567.125 |
|   Domestic        |  600 |         n/a |
| Subtotal: Revenue | 1600 |         0.1 |

Dividends
---------

(no rows)

Result
------

|                   |  2024 |
+-------------------+-------+
| Total: Net income | -12.5 |
"""


def test_text_rendering_shows_everything_in_order() -> None:
    # Sections and rows in order, headers, markers, indentation by level, nulls as asked, numbers right-aligned.
    assert render_text(_statement(), null_display="n/a") == _EXPECTED_TEXT


def test_markdown_rendering_is_a_table_per_section() -> None:
    markdown = render_markdown(_statement())
    lines = markdown.splitlines()
    assert lines[0] == "# Income statement"
    assert "## Revenue" in lines
    assert "|  | 2023 | 2024 |" in lines
    assert "| --- | ---: | ---: |" in lines
    assert "| Sales | 1000 | 1234567.125 |" in lines
    assert "| &emsp;Domestic | 600 | n/a |" in lines
    # A null text is the caller's to choose: a dash-only cell is escaped so as not to read as a delimiter row.
    assert "| &emsp;Domestic | 600 | \\- |" in render_markdown(_statement(), null_display="-").splitlines()
    assert "| **Subtotal:** Revenue | 1600 | 0.1 |" in lines
    assert "| **Total:** Net income | -12.5 |" in lines
    assert "*(no rows)*" in lines


def test_markdown_escapes_what_could_break_a_table() -> None:
    assert markdown_escape("a|b") == "a\\|b"
    # A line break is an escape, shown as the plain-text view shows it (no raw HTML: its display depends on the
    # renderer): the backslash of `\n` is itself escaped for Markdown.
    assert markdown_escape("x\ny") == "x\\\\ny"
    # A backslash shows as `\\` in both views: Markdown needs four.
    assert markdown_escape("<b>*_`[]~&#\\") == "\\<b\\>\\*\\_\\`\\[\\]\\~\\&\\#\\\\\\\\"
    assert markdown_escape("-") == "\\-"  # a dash-only cell would read as a delimiter row
    assert markdown_escape(":--") == "\\:--"
    assert markdown_escape("-12.5") == "-12.5"  # numbers stay readable


_HOSTILE = st.text(alphabet=st.sampled_from(list("ab|\\*_`#<>&-:\n\r\u2028 ")), max_size=12)


@given(_HOSTILE, st.lists(_HOSTILE, min_size=1, max_size=3))
def test_no_value_can_break_a_markdown_row(label: str, values: list[str]) -> None:
    document = Document(
        title="t",
        sections=(
            Section(
                id="s",
                title="s",
                columns=tuple(f"c{i}" for i in range(len(values))),
                rows=(Row(id="r", label=label, values=tuple(values)),),
            ),
        ),
    )
    lines = render_markdown(document).splitlines()
    row_line = lines[-1]
    # One line, and exactly one unescaped pipe per cell boundary.
    unescaped = 0
    index = 0
    while index < len(row_line):
        if row_line[index] == "\\":
            index += 2
            continue
        unescaped += row_line[index] == "|"
        index += 1
    assert unescaped == len(values) + 2
    assert len(render_text(document).splitlines()) == len(lines) + 2  # text: title + underline more


def test_rendering_is_deterministic() -> None:
    assert render_text(_statement()) == render_text(_statement())
    assert render_markdown(_statement()) == render_markdown(_statement())


@pytest.mark.parametrize(
    "text", ["https://evil.example/x", "see http://x now", "WWW.evil.example", "ftp://f", "mailto:a", "a@b.example"]
)
def test_no_server_string_becomes_an_autolink(text: str) -> None:
    """GFM links bare URLs, `www.` names and e-mail addresses; escaped, they stay text that reads the same."""
    for html in (
        MarkdownIt("gfm-like").render(markdown_escape(text)),
        cmarkgfm.github_flavored_markdown_to_html(markdown_escape(text)),  # pyright: ignore[reportUnknownMemberType]
    ):
        body = LexborHTMLParser(html).body
        assert "<a" not in html and body is not None and body.text().strip() == text, html


@pytest.mark.parametrize("char", ["\ufe0f", "\U000e0100", "\u3164", "\u115f", "\u034f", "\u180b", "\uffa0"])
def test_default_ignorable_characters_are_made_visible(char: str) -> None:
    """Characters that display as nothing though Python calls them printable are shown as escapes, in every view."""
    text = f"1{char}00"
    assert text.isprintable()
    code = ord(char)
    assert visible(text) == (f"1\\u{code:04x}00" if code <= 0xFFFF else f"1\\U{code:08x}00")
    assert text_escape(text) == visible(text)
    assert char not in markdown_escape(text)


@given(st.text(max_size=40))
def test_server_text_in_the_markdown_view_shows_as_written_and_is_never_a_link(text: str) -> None:
    transcript = f"## {markdown_escape(text)}\n\n| x |\n| --- |\n| {markdown_escape(text)} |\n"
    html = cmarkgfm.markdown_to_html_with_extensions(  # pyright: ignore[reportUnknownMemberType]
        transcript,
        options=Options.CMARK_OPT_UNSAFE,  # pyright: ignore[reportUnknownMemberType]
        extensions=["table", "strikethrough", "autolink", "tasklist"],
    )
    assert "<a " not in html and "<img" not in html, html
    view = read_markdown(transcript)
    assert view.uncertain == []
    heading, row = (line for line in view.lines if line.block in ("heading", "row"))
    shown = fold(text_escape(text))
    assert (fold(heading.text), fold((row.cells or ("",))[0])) == (shown, shown)


# The renderers escape a column at once when one check shows nothing in it to escape: each fast path must give what
# escaping every cell gives. Cells drawn from the characters the checks accept, and from those that end them.
_column_cells = st.lists(
    st.text(alphabet="aWw.,: -0@\n\u202e|*<>#&_x/", max_size=8)
    | st.sampled_from(["www.x", "WWW.", "-", ":-", "a@b.c", "http:", "1.25", "Account 7", "n/a", "//www.x", "a/b"]),
    max_size=6,
)


@given(_column_cells)
def test_a_column_escaped_at_once_is_each_cell_escaped(cells: list[str]) -> None:
    from mcp_rendering import render

    assert render._markdown_cells(cells) == [markdown_escape(cell) for cell in cells]  # pyright: ignore[reportPrivateUsage]
    assert render._text_cells(cells) == [text_escape(cell) for cell in cells]  # pyright: ignore[reportPrivateUsage]


# A column is written by its types, in one call where they allow: whatever the mix, it must read as each cell
# written alone, and a column is numeric when its non-null values are all numbers, booleans aside.
_ANY_CELL = st.one_of(
    st.none(),
    st.text(max_size=4),
    st.integers(),
    st.sampled_from([2**12_001, -(2**14_400), 2**12_000]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)


@given(
    st.one_of(
        st.lists(_ANY_CELL, min_size=1, max_size=6),
        _ANY_CELL.flatmap(lambda cell: st.lists(st.sampled_from([cell, None]), min_size=1, max_size=6)),
    ),
    st.sampled_from(["n/a", "null"]),
)
def test_a_column_written_at_once_is_each_cell_written(column: list[Cell], null_display: str) -> None:
    written, numeric = column_cells(column, null_display)
    assert written == [cell_text(value, null_display) for value in column]
    values = [value for value in column if value is not None]
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    # Exact amounts travel as strings of their digits (`"-1234.50"`): a column of them aligns as numbers do.
    amounts = all(isinstance(v, str) and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", v) for v in values)
    assert numeric == (bool(values) and (numbers or amounts))


def test_a_subclass_of_a_cell_type_is_written_as_its_value() -> None:
    class Shouting(str):
        def __str__(self) -> str:
            return "SHOUT"

    class Counted(int):
        def __repr__(self) -> str:
            return "many"

        __str__ = __repr__

    class Rounded(float):
        def __repr__(self) -> str:
            return "about 1"

    assert [cell_text(value) for value in (Shouting("x"), Counted(7), Rounded(1.25))] == ["x", "7", "1.25"]
    written, numeric = column_cells([Counted(7), 8, None], "n/a")
    assert (written, numeric) == (["7", "8", "n/a"], True)


def test_each_row_is_prefixed_by_its_indentation_and_marker_in_both_views() -> None:
    shapes: list[tuple[int, RowKind]] = [
        (0, "item"),
        (3, "subtotal"),
        (MAX_INDENT + 5, "total"),
        (3, "subtotal"),
        (1, "item"),
    ]
    rows = tuple(
        Row(id=f"r{n}", label=f"L{n}", values=(n,), level=level, kind=kind) for n, (level, kind) in enumerate(shapes)
    )
    document = Document(title="T", sections=(Section(id="s", title="S", columns=("v",), rows=rows),))
    text_lines = render_text(document).splitlines()[-len(rows) :]
    markdown_lines = render_markdown(document).splitlines()[-len(rows) :]
    for row, text_line, markdown_line in zip(rows, text_lines, markdown_lines, strict=True):
        marker = kind_marker(row)
        assert text_line.startswith(f"| {indentation(row, '  ')}{marker}{row.label}")
        bold = f"**{marker.strip()}** " if marker else ""
        assert markdown_line.startswith(f"| {indentation(row, '&emsp;')}{bold}{row.label} |")


@given(st.lists(st.tuples(st.integers(0, 40), st.sampled_from(["item", "subtotal", "total"])), max_size=30))
def test_the_prefixes_are_each_rows_written_once_for_each_level_and_kind(shapes: list[tuple[int, RowKind]]) -> None:
    from mcp_rendering import render

    rows = [Row(id=f"r{n}", label="L", level=level, kind=kind) for n, (level, kind) in enumerate(shapes)]
    asked: list[tuple[int, str]] = []

    def marker(row: Row) -> str:
        asked.append((row.level, row.kind))
        return kind_marker(row)

    prefixes = render._prefixes(rows, "  ", marker)  # pyright: ignore[reportPrivateUsage]
    assert prefixes == [indentation(row, "  ") + kind_marker(row) for row in rows]
    # One marker written for each distinct pair, never one for each row: the cost is linear however many levels.
    assert sorted(asked) == sorted(set(shapes))


def test_a_str_subclass_in_a_document_built_without_validation_is_shown_as_its_value_in_both_views() -> None:
    class Shouting(str):
        def __str__(self) -> str:
            return "SHOUT"

    row = Row.model_construct(id="r", label=Shouting("x"), values=(None,), kind="item", level=0, uri=None)
    section = Section.model_construct(id="s", title="S", columns=(Shouting("c"),), rows=(row,))
    document = Document.model_construct(title="T", sections=(section,))
    shown = render_text(document, null_display=Shouting("-"))
    assert shown.splitlines()[-3:] == ["|   | c |", "+---+---+", "| x | - |"]
    assert render_markdown(document, null_display=Shouting("-")).splitlines()[-3:] == [
        "|  | c |",
        "| --- | --- |",
        "| x | \\- |",
    ]


def test_a_section_built_without_validation_whose_rows_do_not_fit_its_columns_is_refused_by_both_views() -> None:
    wide = Row.model_construct(id="r", label="R", values=(1, 2, 3), kind="item", level=0, uri=None)
    for columns in (("a", "b"), ("a", "b", "c", "d")):
        section = Section.model_construct(id="s", title="S", columns=columns, rows=(wide,))
        document = Document.model_construct(title="T", sections=(section,))
        for render in (render_text, render_markdown):
            with pytest.raises(ValueError, match="do not match its"):
                render(document)


def test_escapes_are_unambiguous_in_both_views_and_read_back_by_the_audit() -> None:
    """A tab, a line break, a literal backslash escape and the character it names: each shows differently from
    its look-alike in both views, and the audit reads each view back clean with its default markup reading."""
    from mcp_rendering.audit import audit_document

    labels = ["a\tb", "a b", "a\nb", "a\\nb", "x\\u202e", "x\u202e", "back\\slash"]
    document = Document(
        title="Ledger",
        sections=(
            Section(
                id="s",
                title="Accounts",
                columns=("v",),
                rows=tuple(Row(id=str(n), label=label, values=(label,)) for n, label in enumerate(labels)),
            ),
        ),
    )
    for render in (render_text, render_markdown):
        lines = render(document).splitlines()[-len(labels) :]
        assert len(set(lines)) == len(labels), lines  # no two texts show alike
    assert "| a\\tb " in render_text(document)
    assert "| x\\\\u202e " in render_text(document)
    assert audit_document(render_markdown(document), document).clean
    assert audit_document(render_text(document), document, markup="text").clean


def test_exact_amounts_written_as_digits_are_aligned_right_in_both_views() -> None:
    """A Decimal column travels as strings of digits: both views align it as a number, its text unchanged, and the
    audit reads it back; a column of other text stays aligned left."""
    from decimal import Decimal

    from mcp_rendering.audit import audit_document

    document = Document.from_rows(
        [
            {"label": "Cash", "EUR": Decimal("1200.00"), "code": "A-1"},
            {"label": "Receivables", "EUR": Decimal("-12345678901234567.89"), "code": "B"},
            {"label": "Other", "EUR": None, "code": "C"},
        ],
        title="Balance sheet",
    )
    text = render_text(document)
    assert "|               1200.00 | A-1  |" in text
    assert "| -12345678901234567.89 | B    |" in text
    assert "| --- | ---: | --- |" in render_markdown(document)
    assert audit_document(text, document, markup="text").clean
    assert audit_document(render_markdown(document), document).clean


def test_notes_follow_the_section_at_their_position_whatever_its_id() -> None:
    """A section id may repeat: notes are placed by a section's position, so each goes where its caller put it."""
    sections = tuple(
        Section(id=section_id, title=title, columns=("v",), rows=(Row(id=row_id, label=row_id, values=(1,)),))
        for section_id, title, row_id in (("s", "First", "a"), ("t", "Other", "b"), ("s", "Again", "c"))
    )
    document = Document(title="T", sections=sections)
    notes = {0: ["[link] after the first"], 2: ["[link] after the third"]}
    for view in (render_text(document, notes=notes), render_markdown(document, notes=notes)):
        assert view.count("after the first") == 1 and view.count("after the third") == 1
        assert view.index("First") < view.index("after the first") < view.index("Other") < view.index("Again")
        assert view.index("Again") < view.index("after the third")


def test_the_characters_seen_that_isprintable_counts_out_are_the_tab_and_every_space() -> None:
    spaces = {chr(code) for code in range(0x110000) if unicodedata.category(chr(code)) == "Zs"}
    assert set(_RENDER._SEEN_UNPRINTABLE) == (spaces - {" "}) | {"\t"}


@given(st.text(st.sampled_from("a\t\u00a0\u2003\u202f\u3000\u200b\u202e\u034f\x1b\u2028\ue000\U000e0001é")))
def test_hides_nothing_is_first_hidden_finding_none_by_each_character(text: str) -> None:
    """The fast check in C never passes a hidden character (it may leave a private-use one to the reading of each
    character), and `first_hidden` agrees with reading each character (`is_hidden`)."""
    by_character = next((char for char in text if is_hidden(char)), None)
    assert by_character is None or not hides_nothing(text)
    assert first_hidden(text) == by_character
    assert hides_nothing(text) or by_character is not None or "\ue000" in text  # spaces and tabs keep the fast path
