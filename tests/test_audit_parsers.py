"""The audit reads a Markdown transcript through cmark-gfm and an HTML5 parser: what they show is what counts."""

from __future__ import annotations

import gc

import pytest

from mcp_rendering.audit import AuditInputError, Markup, audit, audit_document, audit_lines
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.transcript import read_markdown

DOCUMENT = Document(
    title="Ledger",
    sections=(
        Section(
            id="s",
            title="Accounts",
            columns=("2024",),
            rows=(Row(id="a", label="Sales", values=(1000,)), Row(id="b", label="Costs", values=(5,))),
        ),
    ),
)
TABLE = "## Accounts\n\n|  | 2024 |\n| --- | ---: |\n| Sales | 1000 |\n| Costs | 5 |\n"


def _kinds(shown: str) -> list[str]:
    return [issue.kind for issue in audit_document(shown, DOCUMENT, markup="markdown").issues]


def test_a_faithful_table_is_clean() -> None:
    assert _kinds(TABLE) == []


@pytest.mark.parametrize(
    "hiding",
    [
        "<!-- x\n\n{table}\n-->",
        "<div hidden>\n\n{table}\n</div>",
        "<textarea>\n\n{table}\n</textarea>",
        "<details>\n\n{table}\n</details>",
    ],
)
def test_raw_html_is_never_certified_and_what_it_hides_is_not_shown(hiding: str) -> None:
    kinds = _kinds(hiding.format(table=TABLE))
    assert "unverifiable" in kinds
    assert "missing_row" in kinds or "dropped_section" in kinds


@pytest.mark.parametrize(
    ("construct", "line"),
    [
        ("![Sales 1000](x.png)", 8),
        ('[Costs](https://example.com "tip")', 8),
        ("~~Sales 1000~~", 8),
        ("[Sales]: https://example.com 'Sales 1000'", 8),
    ],
)
def test_a_construct_whose_text_depends_on_the_renderer_is_unverifiable_with_its_line(
    construct: str, line: int
) -> None:
    report = audit_document(TABLE + "\n" + construct, DOCUMENT, markup="markdown")
    assert [(issue.kind, issue.line) for issue in report.issues] == [("unverifiable", line)], report.format()


def test_an_escaped_pipe_in_a_code_span_in_a_table_is_one_cell() -> None:
    document = Document(
        title="t",
        sections=(Section(id="s", title="A", columns=("v",), rows=(Row(id="a", label="x|y", values=(1,)),)),),
    )
    shown = "## A\n\n|  | v |\n| --- | --- |\n| `x\\|y` | 1 |\n"
    assert audit_document(shown, document, markup="markdown").clean


def test_a_row_labelled_with_a_pipe_written_escaped_is_its_own_record() -> None:
    document = Document(
        title="t",
        sections=(Section(id="s", title="A", columns=(), rows=(Row(id="a", label="|", values=()),)),),
    )
    assert audit_document("## A\n\n|  |\n| --- |\n| \\| |\n", document, markup="markdown").clean
    fabricated = audit_document("## A\n\n|  |\n| --- |\n| \\| |\n| \\| |\n", document, markup="markdown")
    assert [issue.kind for issue in fabricated.issues] == ["duplicated_row"], fabricated.format()


def test_a_fabricated_record_written_as_the_header_row_is_caught() -> None:
    shown = TABLE.replace("|  | 2024 |", "| Bonus | 99 |")
    assert "fabricated_row" in _kinds(shown)


def test_an_ordered_list_is_read_as_the_renderer_numbers_it() -> None:
    lines = ["1. Alpha", "2. Beta"]
    assert audit_lines("1. Alpha\n2. Beta", lines, markup="markdown").clean
    renumbered = audit_lines("1. Alpha\n1. Beta", lines, markup="markdown")  # shown as 1., 2.
    assert renumbered.clean, renumbered.format()
    wrong = audit_lines("1. Alpha\n\n- x\n\n1. Beta", lines, markup="markdown")
    assert "altered_row" in [issue.kind for issue in wrong.issues], wrong.format()


def test_a_notice_in_a_tooltip_or_run_on_in_a_paragraph_does_not_count() -> None:
    partial = "**Partial result:** 2 of 9.\n\n" + TABLE
    assert audit_document(partial, DOCUMENT, complete=False, markup="markdown").clean
    run_on = "Shown below.\n**Partial result:** 2 of 9.\n\n" + TABLE
    report = audit_document(run_on, DOCUMENT, complete=False, markup="markdown")
    assert "completeness_misstated" in [issue.kind for issue in report.issues]
    tooltip = '[note](https://example.com "Partial result: 2 of 9")\n\n' + TABLE
    report = audit_document(tooltip, DOCUMENT, complete=False, markup="markdown")
    assert "completeness_misstated" in [issue.kind for issue in report.issues]


def test_entities_are_decoded_as_the_html_parser_decodes_them() -> None:
    document = Document(
        title="t",
        sections=(Section(id="s", title="A", columns=("v",), rows=(Row(id="a", label="R&D", values=("<b>",)),)),),
    )
    assert audit_document("## A\n\n|  | v |\n| --- | --- |\n| R&amp;D | &lt;b&gt; |\n", document).clean


def test_plain_text_reads_as_plain_text_and_single_emphasis_marks_do_not_make_it_markdown() -> None:
    report = audit_lines("2 * 3 = 6\nnote: a_b", ["2 * 3 = 6", "note: a_b"])
    assert report.clean and report.markup == "text", report.format()


def test_the_visible_lines_keep_their_source_lines() -> None:
    view = read_markdown("# T\n\n- a\n- b\n\n| x |\n| - |\n| y |\n")
    assert [(line.number, line.text, line.block) for line in view.lines] == [
        (0, "T", "heading"),
        (2, "a", "item"),
        (3, "b", "item"),
        (5, "| x |", "header"),
        (7, "| y |", "row"),
    ]
    assert view.uncertain == []


def test_an_audit_leaves_the_garbage_collector_running_as_it_found_it() -> None:
    rows = tuple(Row(id=f"r{index}", label=f"Item {index}", values=(index,)) for index in range(2000))
    document = Document(title="t", sections=(Section(id="s", title="A", columns=("v",), rows=rows),))
    result = {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}
    shown = "## A\n\n|  | v |\n| --- | --- |\n" + "".join(f"| Item {i} | {i} |\n" for i in range(2000))
    collections: list[str] = []

    def count(phase: str, info: dict[str, int]) -> None:
        collections.append(phase)

    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        assert audit(shown, result).clean
        assert gc.isenabled()
        assert collections  # the collector ran during the audit: nothing paused it
        gc.disable()
        try:
            audit(shown, result)
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(count)


TWO_SECTIONS = Document(
    title="Ledger",
    sections=(
        Section(id="a", title="Assets", columns=("2024", "2025"), rows=(Row(id="c", label="Cash", values=(1, 2)),)),
        Section(id="l", title="Debts", columns=("2025", "2024"), rows=(Row(id="d", label="Loan", values=(3, 4)),)),
    ),
)
FAITHFUL = (
    "## Assets\n\n|  | 2024 | 2025 |\n| --- | --- | --- |\n| Cash | 1 | 2 |\n\n"
    "## Debts\n\n|  | 2025 | 2024 |\n| --- | --- | --- |\n| Loan | 3 | 4 |\n"
)


def test_a_record_is_shown_under_its_own_sections_heading_and_columns() -> None:
    assert audit_document(FAITHFUL, TWO_SECTIONS, markup="markdown").clean
    moved = FAITHFUL.replace("| Cash | 1 | 2 |\n", "").replace(
        "| Loan | 3 | 4 |\n", "| Loan | 3 | 4 |\n| Cash | 1 | 2 |\n"
    )
    report = audit_document(moved, TWO_SECTIONS, markup="markdown")
    assert ("misplaced_row", "c") in [(issue.kind, issue.row_id) for issue in report.issues], report.format()
    assert report.rows_intact <= 1


def test_values_under_another_sections_columns_are_misplaced() -> None:
    swapped = FAITHFUL.replace("|  | 2024 | 2025 |", "|  | 2025 | 2024 |", 1)
    report = audit_document(swapped, TWO_SECTIONS, markup="markdown")
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [("misplaced_row", "c")], report.format()
    plain = present(None, {"content": [], "structuredContent": {"document": TWO_SECTIONS.model_dump()}}).text
    assert audit_document(plain, TWO_SECTIONS, markup="text").clean
    swapped_plain = plain.replace("2024 | 2025", "2025 | 2024", 1)
    assert "misplaced_row" in [
        issue.kind for issue in audit_document(swapped_plain, TWO_SECTIONS, markup="text").issues
    ]


def test_raw_html_inside_emphasis_makes_its_own_line_unverifiable_not_a_later_one() -> None:
    """The line holding the HTML is the one a renderer may show otherwise: its record is not certified as shown, and
    the line after the table is not hidden."""
    shown = TABLE.replace("| Sales | 1000 |", "| *Sales <!-- c -->* | 1000 |") + "\nSee above.\n"
    report = audit_document(shown, DOCUMENT, markup="markdown")
    found = [(issue.kind, issue.line, issue.row_id) for issue in report.issues]
    assert found == [("unverifiable", 5, None), ("missing_row", None, "a")], report.format()


def test_a_transcript_whose_raw_html_writes_the_renderers_source_positions_certifies_no_record() -> None:
    """The paragraph claims line 8, a blank one, with cmark-gfm's own attribute: read by its position, it would show
    the record its row left out. No line can be told from the renderer's own, so none is certified."""
    shown = TABLE.replace("| Sales | 1000 |\n", "") + '\n<p data-sourcepos="8:1-8:9">Sales 1000</p>\n\n'
    report = audit_document(shown, DOCUMENT, markup="markdown")
    missing = {issue.row_id for issue in report.issues if issue.kind == "missing_row"}
    assert missing == {"a", "b"}, report.format()


@pytest.mark.parametrize("markup", ["text", "markdown", "auto"])
def test_a_transcript_holding_a_lone_surrogate_is_refused(markup: Markup) -> None:
    with pytest.raises(AuditInputError, match=r"lone surrogate \(U\+DC80\) at 6"):
        audit_document(TABLE[:6] + "\udc80" + TABLE[6:], DOCUMENT, markup=markup)
