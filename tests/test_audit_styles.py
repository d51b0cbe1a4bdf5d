"""The audit on the ways chat models write an answer, and on what a renderer draws: each class of false alarm or
miss closed at its cause, one test each."""

from __future__ import annotations

from typing import Literal

import pytest

from mcp_rendering.audit import AuditReport, audit, audit_document, audit_lines
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.render import render_text

pytestmark = pytest.mark.timeout(10)

BALANCE = Document(
    title="Balance sheet",
    sections=(
        Section(
            id="assets",
            title="Assets",
            columns=("PCG", "FY2025", "FY2024"),
            rows=(
                Row(id="cash", label="Cash", values=("512", 1377600, 1327000)),
                Row(id="stock", label="Stock", values=("37", -250, 12.5)),
                Row(id="ta", label="Total assets", values=("", 1377350, 1327012.5), kind="total"),
            ),
        ),
        Section(
            id="liab",
            title="Liabilities",
            columns=("PCG", "FY2025", "FY2024"),
            rows=(Row(id="debt", label="Debt", values=("164", 612000, 734000)),),
        ),
    ),
)


def _kinds(report: AuditReport) -> list[str]:
    return sorted({issue.kind for issue in report.issues})


def _table(header: str, rows: list[str], title: str = "## {}") -> str:
    return "\n".join(
        [
            title.format("Assets"),
            "",
            f"| {header} | PCG | FY2025 | FY2024 |",
            "|---|---|---:|---:|",
            *rows,
            "",
            title.format("Liabilities"),
            "",
            f"| {header} | PCG | FY2025 | FY2024 |",
            "|---|---|---:|---:|",
            "| Debt | 164 | 612,000 | 734,000 |",
        ]
    )


_ROWS = [
    "| Cash | 512 | 1,377,600 | 1,327,000 |",
    "| Stock | 37 | -250 | 12.5 |",
    "| **Total assets** | | 1,377,350 | 1,327,012.5 |",
]


@pytest.mark.parametrize("header", ["", "Line item", "Account", "**Account**"])
@pytest.mark.parametrize("title", ["## {}", "### {}", "**{}**", "**{}:**", "{}:", "### 1. {}", "**{} (in euros)**"])
def test_a_header_naming_the_label_column_and_titles_as_a_reader_takes_them_are_accepted(
    header: str, title: str
) -> None:
    shown = "Here are the accounts, line by line.\n\n" + _table(header, _ROWS, title) + "\n\nAsk me for a chart."
    report = audit_document(shown, BALANCE)
    assert report.clean, report.format()


def test_a_record_under_the_title_of_another_section_is_misplaced_however_the_title_is_written() -> None:
    for title in ("## {}", "**{}**", "{}:", "### 2. {}"):
        shown = "\n".join(
            [
                title.format("Assets"),
                "",
                "| Line item | PCG | FY2025 | FY2024 |",
                "|---|---|---|---|",
                *_ROWS,
                "",
                title.format("Liabilities"),
                "",
                "- Debt — PCG 164, FY2025 612,000, FY2024 734,000",
            ]
        )
        assert audit_document(shown, BALANCE).clean, title
        moved = shown.replace("| Cash |", "| Debt | 164 | 612,000 | 734,000 |\n| Cash |").replace(
            "\n- Debt — PCG 164, FY2025 612,000, FY2024 734,000", ""
        )
        assert _kinds(audit_document(moved, BALANCE)) == ["misplaced_row"], title
    # A bold line that names the other section, then a record of the first: misplaced.
    shown = "**Liabilities**\n\n- Cash: 512, 1377600, 1327000"
    assert "misplaced_row" in _kinds(audit_document(shown, BALANCE))


@pytest.mark.parametrize(
    ("grouped", "same"),
    [
        ("1,377,600", True),
        ("1.377.600", True),
        ("1\u202f377\u202f600", True),
        ("1\u00a0377\u00a0600", True),
        ("1 377 600", True),  # a table cell holding only the number
        ("1'377'600", True),
        ("1,377,601", False),
        ("1,377,600.0", False),
        ("1,37,76,00", False),
        ("+1,377,600", False),
        ("(1,377,600)", False),
        ("1 377 600 EUR", False),
    ],
)
def test_numbers_are_the_same_value_in_the_grouping_of_common_locales_and_only_then(grouped: str, same: bool) -> None:
    document = Document(
        title="t", sections=(BALANCE.sections[0].model_copy(update={"rows": BALANCE.sections[0].rows[:1]}),)
    )
    shown = f"| | PCG | FY2025 | FY2024 |\n|---|---|---|---|\n| Cash | 512 | {grouped} | 1327000 |"
    report = audit_document(shown, document)
    assert report.clean is same, report.format()


def test_the_decimal_mark_is_the_one_the_transcripts_numbers_imply() -> None:
    document = Document(
        title="t",
        sections=(Section(id="s", title="S", columns=("a", "b"), rows=(Row(id="r", label="R", values=(1377, 1.5)),)),),
    )
    assert audit_document("| R | 1.377 | 1,5 |", document, markup="text").clean  # `,5`: a German transcript
    assert audit_document("| R | 1,377 | 1.5 |", document, markup="text").clean
    assert not audit_document("| R | 1.377 | 1.5 |", document, markup="text").clean  # 1.377 is not 1377 here


def _one_row(*values: str | int | float, label: str = "R") -> Document:
    columns = tuple(f"c{number}" for number in range(len(values)))
    return Document(
        title="t",
        sections=(Section(id="s", title="S", columns=columns, rows=(Row(id="r", label=label, values=values),)),),
    )


@pytest.mark.parametrize("markup", ["text", "markdown"])
def test_a_number_written_as_the_result_writes_it_is_the_same_value_whatever_the_transcripts_mark(
    markup: Literal["text", "markdown"],
) -> None:
    """`12,5` makes `,` the transcript's decimal mark, under which `0,0` reads 0.0 and `1.377` reads 1377: the
    result's own texts are read with the same mark, so present()'s own views audit clean."""
    lines = ["0,0", "1.377 units", "12,5"]
    text_result = {"content": [{"type": "text", "text": "\n".join(lines)}]}
    shown = present({"name": "t"}, text_result)
    assert audit(shown.text if markup == "text" else shown.markdown, text_result, markup=markup).clean
    altered = "\n".join(["0,1", *lines[1:]])
    assert _kinds(audit_lines(altered, lines, markup="text")) == ["altered_row"]

    document = _one_row("12,5", "1.377", label="0,0")
    as_text = render_text(document)
    assert audit_document(as_text, document, markup="text").clean, as_text
    assert _kinds(audit_document(as_text.replace("1.377", "1.378"), document, markup="text")) == ["altered_row"]


def test_a_table_cell_is_drawn_once() -> None:
    """Under `,` (`2,5` says so), `1,377` reads 1.377; drawn a second time it would read 1377. A plain-text table
    line holding a space-grouped cell is drawn once, its grouped cells made so before."""
    document = _one_row(1377, 1.377, 2.5)
    assert audit_document("| R | 1 377 | 1,377 | 2,5 |", document, markup="text").clean
    assert _kinds(audit_document("| R | 1 377 | 1,378 | 2,5 |", document, markup="text")) == ["altered_row"]


@pytest.mark.parametrize(
    ("shown", "document"),
    [
        ("| R | 1377 |\n\nThat is 12,5 percent more.", _one_row(1.377)),
        ("| R | 12500 |\n\nGrowth was 3,5 %.", _one_row("12.500")),
    ],
)
def test_a_transcript_cannot_choose_the_mark_a_number_of_the_result_reads_with(shown: str, document: Document) -> None:
    """A number of prose that implies `,` makes the transcript's numbers read with it, the result's still read with
    `.`: 1.377 stays 1.377 however the transcript writes its other numbers."""
    assert _kinds(audit_document(shown, document, markup="text")) == ["altered_row"]
    assert _kinds(audit_lines("Total: 1377\nRate 2,5", ["Total: 1.377", "Rate 2,5"], markup="text")) == ["altered_row"]


@pytest.mark.parametrize("shown", ["| R | 1.377 | 2,5 |", "| R | 1377 | 2,5 |", "| R | 1\u202f377 | 2,5 |"])
def test_a_number_rewritten_in_the_transcripts_own_convention_is_the_same_value(shown: str) -> None:
    """The result's `1,377` is 1377, as the result's numbers read (`.`): a transcript using `,` may write it its
    own way; and the result's 1.377 written `1,377` there is 1.377."""
    assert audit_document(shown, _one_row("1,377", 2.5), markup="text").clean
    assert audit_document("| R | 1,377 | 2,5 |", _one_row(1.377, 2.5), markup="text").clean
    assert audit_lines("Revenue 1.377 EUR\nMargin 2,5 %", ["Revenue 1,377 EUR", "Margin 2.5 %"], markup="text").clean


@pytest.mark.parametrize(
    ("shown", "value"),
    [
        ("| R | 1,377 |\n\nRef a2,5b.", 1.377),  # a number inside a word is text, no evidence of `,`
        ("| R | 1.377 |\n\nRef a2,5b.", 1377),
        ("| R | 1,377 |\n\nGrowth 12,5 %. Ref v6.75b w7.25z.", 1377),  # nor of `.`
    ],
)
def test_numbers_inside_words_never_decide_the_transcripts_mark(shown: str, value: float) -> None:
    assert _kinds(audit_document(shown, _one_row(value), markup="text")) == ["altered_row"]


def test_the_transcripts_mark_is_the_one_its_own_numbers_imply_not_those_it_copies() -> None:
    """Numbers written exactly as the result writes them are the result's and say nothing of the transcript's
    convention; where its own numbers say `,`, every number of it reads so, copied or not, as its reader reads it:
    a value written with another record's text (`1,377` for 1377 beside a `2,5`) reads 1.377."""
    document = Document(
        title="t",
        sections=(
            Section(
                id="s",
                title="S",
                columns=("v",),
                rows=(Row(id="a", label="A", values=("1,377",)), Row(id="b", label="B", values=(1377,))),
            ),
        ),
    )
    assert audit_document("| A | 1,377 |\n| B | 1377 |", document, markup="text").clean
    shown = "| A | 1,377 |\n| B | 1,377 |\n\nGrowth 2,5 %."
    assert "b" in {issue.row_id for issue in audit_document(shown, document, markup="text").issues}


@pytest.mark.parametrize(
    "shown", ["  | R | 1 377 | 5 |", "| R | 1 377 | 5 | ", "| R | 1 377 | 5 |\t", "\u3000| R | 1 377 | 5 |"]
)
def test_a_plain_text_table_line_with_a_space_grouped_cell_reads_alike_indented_or_trailed(shown: str) -> None:
    assert audit_document(shown, _one_row(1377, 5), markup="text").clean


def test_a_dash_drawn_space_before_a_number_beside_a_space_grouped_cell_is_a_sign() -> None:
    shown = "| R | 1 377 | \u16805 |"
    assert _kinds(audit_document(shown, _one_row(1377, 5), markup="text")) == ["altered_row"]
    assert audit_document(shown, _one_row(1377, -5), markup="text").clean


@pytest.mark.parametrize("markup", ["text", "markdown"])
def test_a_value_is_drawn_then_folded_as_a_transcripts_cell_is(markup: Literal["text", "markdown"]) -> None:
    """U+2212 then `5101`, a narrow no-break space and `377` is no number as written (four digits before a group);
    folded first, the space would turn plain and the minus sign and `5101` would read as one number. Both sides
    draw first."""
    document = _one_row("\u22125101\u202f377", label="L")
    result = {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}
    shown = present({"name": "t"}, result)
    assert audit(shown.text if markup == "text" else shown.markdown, result, markup=markup).clean


@pytest.mark.parametrize("markup", ["text", "markdown"])
def test_a_value_grouped_by_plain_spaces_reads_as_its_number_on_both_sides(markup: Literal["text", "markdown"]) -> None:
    """A table cell holding only `1 377` reads 1377 in a transcript; the result's value, sent so, reads the same."""
    document = _one_row("1 377", 5)
    result = {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}
    shown = present({"name": "t"}, result)
    assert audit(shown.text if markup == "text" else shown.markdown, result, markup=markup).clean
    assert _kinds(audit_document("| R | 1 378 | 5 |", document, markup="text")) == ["altered_row"]


def test_a_number_a_views_escape_parts_from_a_word_is_the_results_own() -> None:
    """`12,5_` is a word as written; the Markdown view writes `12,5\\_`, where `12,5` reads as a number. It is still
    the result's, no evidence of the transcript's mark, so the label `0,0` keeps its reading."""
    document = Document(
        title="12,5_", sections=(Section(id="s", title="", columns=(), rows=(Row(id="r", label="0,0"),)),)
    )
    result = {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}
    assert audit(present({"name": "t"}, result).markdown, result, markup="markdown").clean


def test_a_flipped_sign_is_caught_in_a_table_in_free_form_and_in_a_text_result() -> None:
    assert "altered_row" in _kinds(
        audit_document(_table("", [_ROWS[0], _ROWS[1].replace("-250", "250"), _ROWS[2]]), BALANCE)
    )
    assert audit_lines("- 250", ["- 250"]).clean
    for flipped in ("+ 250", "* 250", "\u1680250"):
        report = audit_lines(flipped, ["- 250"], markup="markdown")
        assert not report.clean, flipped
    assert not audit_lines("\u1680250", ["250"], markup="text").clean  # drawn as a dash, not a space


def test_a_checkbox_changed_in_a_task_list_is_caught() -> None:
    assert audit_lines("- [x] paid\n- [ ] due", ["- [x] paid", "- [ ] due"], markup="markdown").clean
    report = audit_lines("- [ ] paid\n- [x] due", ["- [x] paid", "- [ ] due"], markup="markdown")
    assert [issue.kind for issue in report.issues] == ["altered_row", "altered_row"]


def test_presents_own_numbered_text_view_and_labels_beginning_with_a_number_are_not_flagged() -> None:
    result = {"content": [{"type": "text", "text": "1. Cash 100\n2. Debt 200\n- [x] done"}]}
    for view in (present(None, result).text, present(None, result).markdown):
        assert audit(view, result).clean, view
    document = Document(
        title="t",
        sections=(Section(id="s", title="S", columns=("v",), rows=(Row(id="r", label="1. Cash", values=(5,)),)),),
    )
    for shown in ("1. Cash: 5", "- 1. Cash: 5", "| 1. Cash | 5 |"):
        assert audit_document(shown, document).clean, shown


def test_a_boxed_table_has_a_header_only_where_its_border_says_so() -> None:
    document = BALANCE.model_copy(update={"sections": BALANCE.sections[1:]})
    boxed = "\n".join(
        [
            "Liabilities",
            "+------+-----+--------+--------+",
            "|      | PCG | FY2025 | FY2024 |",
            "+======+=====+========+========+",
            "| Debt | 164 | 612000 | 734000 |",
            "+------+-----+--------+--------+",
        ]
    )
    assert audit_document(boxed, document, markup="text").clean  # a bottom border drops no record
    assert audit_document(boxed.replace("+======+", "+------+").replace("=", "-"), document, markup="text").clean
    assert audit_document(render_text(document), document).clean  # present()'s own: no top border
    invented = boxed.replace("| Debt |", "| Bonus | 999 | 1 | 2 |\n+------+-----+--------+--------+\n| Debt |")
    assert "fabricated_row" in _kinds(audit_document(invented, document, markup="text"))
    # Above a `+===+` border too: only the box's first line is its header.
    above_heavy = boxed.replace("+======+", "| Bonus | 999 | 1 | 2 |\n+======+")
    assert "fabricated_row" in _kinds(audit_document(above_heavy, document, markup="text"))


def test_a_footnote_is_unverifiable_not_counted() -> None:
    document = BALANCE.model_copy(update={"sections": BALANCE.sections[1:]})
    table = "| | PCG | FY2025 | FY2024 |\n|---|---|---|---|\n| Debt | 164 | 612000 | 734000 |"
    hidden = f"## Liabilities\n\nSee below.\n\n[^n]: Note\n\n    {table.splitlines()[2]}\n"
    assert "unverifiable" in _kinds(audit_document(hidden, document))
    referenced = f"## Liabilities\n\n{table}[^1]\n\n[^1]: Partial result: more rows exist.\n"
    assert "unverifiable" in _kinds(audit_document(referenced, document))


def test_a_notice_after_a_hard_line_break_is_a_notice() -> None:
    document = BALANCE.model_copy(update={"sections": BALANCE.sections[1:]})
    rows = "## Liabilities\n\n| | PCG | FY2025 | FY2024 |\n|---|---|---|---|\n| Debt | 164 | 612000 | 734000 |"
    for brk in ("  ", "\\"):
        shown = f"Here is what I have so far.{brk}\nPartial result: more lines exist.\n\n{rows}"
        assert audit_document(shown, document, complete=False).clean
        assert audit_document(shown, document, complete=True).completeness_misstated


def test_text_in_either_unicode_form_is_the_same_text() -> None:
    document = Document(
        title="t",
        sections=(
            Section(
                id="s", title="Créances", columns=("v",), rows=(Row(id="r", label="Réserve légale", values=("é",)),)
            ),
        ),
    )
    for form in ("NFC", "NFD"):
        import unicodedata

        shown = unicodedata.normalize(form, "## Créances\n\n| Réserve légale | é |")
        assert audit_document(shown, document).clean, form


def test_a_record_repeated_in_a_list_after_the_table_is_reported() -> None:
    document = BALANCE.model_copy(update={"sections": BALANCE.sections[1:]})
    shown = (
        "## Liabilities\n\n| | PCG | FY2025 | FY2024 |\n|---|---|---|---|\n| Debt | 164 | 612000 | 734000 |\n\n"
        "The key line:\n\n- Debt — PCG 164, FY2025 612,000, FY2024 734,000"
    )
    assert _kinds(audit_document(shown, document)) == ["duplicated_row"]


def test_deep_nesting_is_refused_in_one_line_and_many_comments_cost_little() -> None:
    from mcp_rendering.audit import AuditInputError

    with pytest.raises(AuditInputError, match="nest"):
        audit_document(">" * 36000 + " x", BALANCE)
    report = audit_document("- a " + "<!---->" * 5000, BALANCE)  # one walk of the block, not one a comment
    assert "unverifiable" in _kinds(report)


def test_values_attributed_to_the_wrong_columns_in_free_form_are_caught() -> None:
    document = Document(
        title="t",
        sections=(
            Section(id="s", title="S", columns=("FY2025", "FY2024"), rows=(Row(id="r", label="Cash", values=(10, 9)),)),
        ),
    )
    for faithful in ("- Cash — FY2025: 10, FY2024: 9", "- Cash: 10 (FY2025), 9 (FY2024)", "- Cash: 10, 9"):
        assert audit_document(faithful, document).clean, faithful
    for swapped in ("- Cash — FY2024: 10, FY2025: 9", "- Cash: 10 (FY2024), 9 (FY2025)", "- Cash: FY2024 10, 9"):
        assert _kinds(audit_document(swapped, document)) == ["altered_row"], swapped


def test_a_title_that_begins_like_the_partial_notice_is_a_title() -> None:
    document = Document(
        title="Partial result: demo",
        sections=(
            Section(id="s", title="Partial result: s", columns=("v",), rows=(Row(id="r", label="A", values=(1,)),)),
        ),
    )
    result = {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}
    for view in (present(None, result).text, present(None, result).markdown):
        assert audit(view, result).clean, view
        assert audit_document(view, document, complete=False).completeness_misstated  # a title is no notice


def test_a_line_after_a_hard_break_in_an_item_is_no_item_of_its_own() -> None:
    document = BALANCE.model_copy(update={"sections": BALANCE.sections[1:]})
    shown = "## Liabilities\n\n- Debt: 164, 612000, 734000  \n  (the bank loan, renegotiated)"
    assert audit_document(shown, document).clean
