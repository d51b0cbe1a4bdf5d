"""The fidelity audit on concrete transcripts, including formats other than the reference renderings, and its CLI:
rule by rule, then the parsers, the ways chat models write, the partial notice, answers over several parts and the
label index, each a section."""

from __future__ import annotations

import gc
import importlib
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mcp_rendering.audit import (
    MAX_TRANSCRIPT_CHARS,
    AuditInputError,
    AuditReport,
    Issue,
    Markup,
    audit,
    audit_document,
    audit_lines,
    fold,
)
from mcp_rendering.builder import continuation_tool_meta, paged_result
from mcp_rendering.cli import main as _cli_main
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.envelope import Budget, Envelope
from mcp_rendering.examples import orgchart
from mcp_rendering.examples._server import continuation_tokens
from mcp_rendering.host import UNSTATED_COMPLETENESS, ResultState, present, result_state
from mcp_rendering.integrations.answer import final_answer
from mcp_rendering.render import render_markdown, render_text
from mcp_rendering.transcript import read_markdown
from mcp_rendering.types import PARTIAL_MARKER, Rendering
from tests.support.carriers import CONTINUATION_TOOL_META, meta_carriers

# Every audit here takes milliseconds: one that does not come back is a failure, not a hang of the suite.
pytestmark = pytest.mark.timeout(10)

STATEMENT = Document(
    title="Income statement",
    sections=(
        Section(
            id="rev",
            title="Revenue",
            columns=("2023", "2024"),
            rows=(
                Row(id="sales", label="Sales", values=(1000, 1200)),
                Row(id="services", label="Services", values=(300, None), level=1),
                Row(id="rev", label="Revenue", values=(1300, 1500), kind="subtotal"),
            ),
        ),
        Section(
            id="cagr", title="CAGR breakdown", columns=("rate",), rows=(Row(id="g", label="Growth", values=("3%",)),)
        ),
        Section(id="notes", title="Dividend history"),
        Section(
            id="net",
            title="Result",
            columns=("2024",),
            rows=(Row(id="ni", label="Net income", values=(90,), kind="total"),),
        ),
    ),
)


def audit_main(argv: list[str]) -> int:
    """The audit's one command line, `mcp-rendering audit`."""
    return _cli_main(["audit", *argv])


def _result(complete: bool = True, null_display: str | None = None) -> dict[str, Any]:
    directive: dict[str, Any] = {"mode": "verbatim"}
    if null_display is not None:
        directive["nullDisplay"] = null_display
    if not complete:
        directive.update(complete=False, continuation={"argument": "cursor", "token": "t"})
    return {
        "content": [{"type": "text", "text": "see structured content"}],
        "structuredContent": {"document": STATEMENT.model_dump(mode="json"), "_rendering": directive},
        "_meta": meta_carriers(directive),
    }


def test_the_summaries_the_proposal_complains_about_are_caught() -> None:
    # A five-line synthesis: subtotals collapsed, a "low-value" section skipped, rows reordered.
    shown = """Revenue grew to 1500.
- Services: 300, n/a
- Sales: 1000, 1200
- Net income: 90
"""
    report = audit(shown, _result())
    kinds = sorted(issue.kind for issue in report.issues)
    assert kinds == ["altered_row", "dropped_section", "dropped_section", "missing_row", "reordered_row"]
    assert {issue.section_id for issue in report.dropped_sections} == {"cagr", "notes"}
    assert [issue.row_id for issue in report.missing] == ["g"]
    assert [issue.row_id for issue in report.reordered] == ["services"]
    # The prose line that starts with the subtotal's label stands for it, with a value that is not its own.
    assert [(issue.row_id, issue.line) for issue in report.altered] == [("rev", 1)]
    # The unmarked total is accepted: a host need not mark totals to show them.
    assert not report.of_kind("dropped_total")
    assert 0 < report.score < 1
    assert not report.clean


def test_altered_and_reformatted_values_are_caught() -> None:
    text = present(None, _result()).text
    # Grouped digits are the same value (the host guide's "the same value"); another precision is not.
    for grouped in ("1,000", "1 000", "1\u202f000", "1\u00a0000", "1'000"):
        assert audit(text.replace("| 1000 |", f"| {grouped} |"), _result()).clean, grouped
    report = audit(text.replace("| 1000 |", "| 1,000.0 |"), _result())
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [("altered_row", "sales")]
    assert report.issues[0].line is not None
    assert "1000.0" in report.issues[0].detail


def test_rounding_in_free_form_is_caught() -> None:
    document = Document(
        title="t",
        sections=(Section(id="s", title="s", columns=("v",), rows=(Row(id="r", label="Rate", values=(0.125,)),)),),
    )
    assert audit_document("- Rate: 0.125", document).clean
    assert audit_document("- Rate: 0.13", document).altered
    assert audit_document("- Rate: 0.1250", document).altered  # not glued digits
    assert audit_document("- Rate: 10.125", document).altered


@pytest.mark.parametrize("bits", [12_001, 14_400])
def test_an_integer_too_long_to_write_audits_as_the_note_present_shows(bits: int) -> None:
    # Past 12,000 bits the views show a note in place of the digits; past about 14,300 Python writes none.
    # Built in Python, such an int is refused (it travels as digits, which cannot be written): a server of another
    # language may still send it as a JSON number.
    row = Row(id="big", label="Big", values=(0,))
    document = Document(title="t", sections=(Section(id="s", title="s", columns=("v",), rows=(row,)),))
    wire = document.model_dump(mode="json")
    wire["sections"][0]["rows"][0]["values"][0] = 2**bits
    result = {"content": [], "structuredContent": {"document": wire}}
    presentation = present(None, result)
    for shown in (presentation.text, presentation.markdown):
        assert f"(an integer of {bits + 1} bits" in shown
        assert audit(shown, result).clean
    assert [issue.kind for issue in audit(presentation.text.replace(f"{bits + 1} bits", "9 bits"), result).issues] == [
        "altered_row"
    ]


def test_markdown_transcripts_are_decoded() -> None:
    markdown = present(None, _result(null_display="n/a")).markdown
    report = audit(markdown, _result(null_display="n/a"))
    assert report.clean and report.markup == "markdown"
    # Read as text, the escapes and markers no longer match the values exactly.
    assert not audit(markdown, _result(null_display="n/a"), markup="text").clean


def test_a_partial_result_must_say_so() -> None:
    incomplete = _result(complete=False)
    presentation = present({"name": "statement"}, incomplete)
    assert audit(presentation.text, incomplete, markup="text").clean
    assert audit(presentation.markdown, incomplete, markup="markdown").clean
    body = presentation.text.split("\n\n", 1)[1]  # the same rows without the notice
    for denial in ("", "This is the complete list, not a partial one.", "Incomplete? No: nothing is truncated."):
        report = audit(f"{denial}\n{body}", incomplete, markup="text")
        assert report.completeness_misstated and [issue.kind for issue in report.issues] == ["completeness_misstated"]
        assert report.score == 0.5
    # Only a line that starts with the marker counts, and a line that shows a record is not a notice.
    payments = Document(
        title="t",
        sections=(
            Section(
                id="s", title="s", columns=("v",), rows=(Row(id="p", label=f"{PARTIAL_MARKER} payments", values=(5,)),)
            ),
        ),
    )
    assert audit_document(f"| {PARTIAL_MARKER} payments | 5 |", payments, complete=False).completeness_misstated
    assert audit_document(
        f"{PARTIAL_MARKER} 1 of 9.\n| {PARTIAL_MARKER} payments | 5 |", payments, complete=False
    ).clean
    assert audit_document(
        f"**{PARTIAL_MARKER}** 1 of 9.\n| {PARTIAL_MARKER} payments | 5 |", payments, complete=False
    ).clean


def test_a_complete_result_must_not_be_called_partial() -> None:
    report = audit(f"{PARTIAL_MARKER} only some.\n" + present(None, _result()).text, _result(), markup="text")
    assert [issue.kind for issue in report.issues] == ["completeness_misstated"]


def test_duplicates_are_counted() -> None:
    document = Document(
        title="t",
        sections=(
            Section(
                id="s",
                title="s",
                columns=("v",),
                rows=(
                    Row(id="a", label="Other", values=(1,)),
                    Row(id="b", label="Other", values=(1,)),
                    Row(id="c", label="Other", values=(2,)),
                ),
            ),
        ),
    )
    assert audit_document("| Other | 1 |\n| Other | 1 |\n| Other | 2 |", document).clean
    once = audit_document("| Other | 1 |\n| Other | 2 |", document)
    assert [issue.kind for issue in once.issues] == ["missing_row"]
    swapped = audit_document("| Other | 2 |\n| Other | 1 |\n| Other | 1 |", document)
    assert [issue.kind for issue in swapped.issues] == ["reordered_row"]


def test_an_item_never_takes_a_subtotal_line() -> None:
    document = Document(
        title="t",
        sections=(
            Section(
                id="s",
                title="s",
                columns=("v",),
                rows=(
                    Row(id="i", label="Gross", values=(5,)),
                    Row(id="t", label="Gross", values=(5,), kind="subtotal"),
                ),
            ),
        ),
    )
    report = audit_document("| Subtotal: Gross | 5 |", document)
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [("missing_row", "i")]
    report = audit_document("| Gross | 5 |", document)
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [("dropped_subtotal", "t")]


def test_any_result_can_be_audited() -> None:
    text_only = {
        "content": [{"type": "text", "text": "Sanctions hits for ACME\n1. ACME Ltd (EU)\n2. Acme Holding (UN)"}]
    }
    shown = present(None, text_only).text
    assert audit(shown, text_only).clean and audit(shown, text_only).records == "text"
    report = audit("Sanctions hits for ACME\n1. ACME Ltd (EU)", text_only)
    assert [issue.kind for issue in report.issues] == ["missing_row"]
    structured = {
        "content": [],
        "structuredContent": {"hits": [{"name": "ACME Ltd", "list": "EU"}, {"name": "Acme Holding"}]},
    }
    shown = present(None, structured).text
    assert audit(shown, structured).clean and audit(shown, structured).records == "structured"
    assert not audit(shown.replace("ACME Ltd", "ACME Inc"), structured).clean


def test_refuses_what_it_cannot_audit() -> None:
    with pytest.raises(AuditInputError, match="not a CallToolResult"):
        audit("x", 42)
    with pytest.raises(AuditInputError, match="over the audit's limit"):
        audit("x" * (MAX_TRANSCRIPT_CHARS + 1), _result())


def test_cli_exit_codes_and_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result_file = tmp_path / "result.json"
    result_file.write_text(json.dumps(_result()), encoding="utf-8")
    faithful = tmp_path / "faithful.txt"
    faithful.write_text(present(None, _result()).text, encoding="utf-8")
    summary = tmp_path / "summary.txt"
    summary.write_text("In short: sales 1000 and 1200; net income 90.\n", encoding="utf-8")

    assert audit_main([str(result_file), str(faithful)]) == 0
    assert capsys.readouterr().out.startswith("fidelity: clean; score 1.000; 5/5 records intact")

    assert audit_main([str(result_file), str(summary)]) == 1
    out = capsys.readouterr().out
    assert 'dropped_subtotal (section "rev", row "rev")' in out
    assert 'dropped_section (section "notes")' in out

    assert audit_main([str(result_file), str(summary), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["clean"] is False and report["rowsExpected"] == 5
    assert {"kind": "dropped_section", "sectionId": "cagr", "rowId": None} in [
        {key: issue[key] for key in ("kind", "sectionId", "rowId")} for issue in report["issues"]
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "is not JSON"),
        ("null", "holds null, not a CallToolResult object"),
        ("42", "holds a number, not a CallToolResult object"),
        ("true", "holds a boolean, not a CallToolResult object"),
        ("[1, 2]", "holds an array, not a CallToolResult object"),
        ('"x"', "holds a string, not a CallToolResult object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_cli_exits_2_with_one_line_for_input_it_cannot_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    transcript = tmp_path / "t.txt"
    transcript.write_text("x", encoding="utf-8")
    result_file = tmp_path / "bad.json"
    result_file.write_text(content, encoding="utf-8")
    assert audit_main([str(result_file), str(transcript)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mcp-rendering audit: ") and message in err
    assert "Traceback" not in err


# ---------------------------------------------------------------------------------------------- helpers for rules

SALES = Document(
    title="Ledger",
    sections=(
        Section(
            id="s",
            title="Accounts",
            columns=("2023", "2024"),
            rows=(
                Row(id="a", label="Sales", values=(1000, 1200)),
                Row(id="b", label="Costs", values=(5, None)),
                Row(id="t", label="Net", values=(995, 1195), kind="total"),
            ),
        ),
    ),
)
SALES_TEXT = "| Sales | 1000 | 1200 |\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |"


def _one_section(*rows: Row, columns: tuple[str, ...] = ("v",), title: str = "Accounts") -> Document:
    return Document(title="Ledger", sections=(Section(id="s", title=title, columns=columns, rows=rows),))


def _found(report: AuditReport) -> list[tuple[str, str | None, int | None]]:
    """(kind, row, line) of every issue, in report order."""
    return [(issue.kind, issue.row_id, issue.line) for issue in report.issues]


# -------------------------------------------------------------------------------------- rule 1: the assumed reading


@pytest.mark.parametrize(
    "shown",
    [
        "| a | b |\n|---|---|",
        "a | b\n--- | ---",
        "| a |\n| :-: |",
        "```\nx\n```",
        "   ~~~",
        "<b>x</b>",
        "<DETAILS>",
        "<!-- note -->",
        "![chart](chart.png)",
        "see [the ledger](https://example.com)",
        "line<br/>break",
    ],
)
def test_auto_reads_markdown_when_the_transcript_holds_markdown_syntax(shown: str) -> None:
    assert audit_document(shown, SALES).markup == "markdown"


def test_an_explicit_reading_overrides_detection() -> None:
    markdown = present(None, _result()).markdown
    assert audit(markdown, _result(), markup="text").markup == "text"
    assert audit(SALES_TEXT, _result(), markup="markdown").markup == "markdown"
    assert audit_document(SALES_TEXT, SALES, markup="markdown").clean


# ------------------------------------------------------------------------------------------ rule 2: hidden content


@pytest.mark.parametrize(
    ("character", "named"),
    [
        ("\u202e", "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ("\u200b", "U+200B (ZERO WIDTH SPACE)"),
        ("\x1b", "U+001B (unnamed)"),
        ("\r", "U+000D (unnamed)"),
        ("\u2028", "U+2028 (LINE SEPARATOR)"),
        ("\u2029", "U+2029 (PARAGRAPH SEPARATOR)"),
        ("\x85", "U+0085 (unnamed)"),
        ("\ufeff", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)"),
    ],
)
@pytest.mark.parametrize("markup", ["text", "markdown"])
def test_a_character_a_reader_cannot_see_is_hidden_content(character: str, named: str, markup: Markup) -> None:
    shown = f"| Sales | 1000 | 1200 |\n| Costs | 5 |{character} n/a |\n| Total: Net | 995 | 1195 |"
    report = audit_document(shown, SALES, markup=markup)
    hidden = report.hidden
    # The lines are one paragraph, in either reading: a bidi override reorders the rest of it.
    reordered = [(3, None, None)] if character == "\u202e" else []
    assert [(issue.line, issue.row_id, issue.section_id) for issue in hidden] == [(2, None, None), *reordered]
    assert hidden[0].detail == f"the character {named} hides or moves text from the reader"
    assert not report.clean


def test_tabs_line_ends_and_a_leading_byte_order_mark_are_not_hidden() -> None:
    shown = "\ufeff| Sales |\t1000 | 1200 |\r\n| Costs | 5 | n/a |\r\n| Total: Net | 995 | 1195 |\r\n"
    for markup in ("text", "markdown"):
        report = audit_document(shown, SALES, markup=markup)
        assert report.clean, report.format()


def test_only_the_first_hidden_character_of_a_line_is_reported() -> None:
    report = audit_document("| Sales | 1000 | 1200 |\u200b\u202e\n\x1b", SALES, markup="text")
    assert [(issue.line, issue.detail.split(" hides")[0]) for issue in report.hidden] == [
        (1, "the character U+200B (ZERO WIDTH SPACE)"),
        (2, "the character U+001B (unnamed)"),
    ]


@pytest.mark.parametrize("character", ["\x0b", "\x1c", "\u2028", "\x1b[2K"])
def test_a_record_on_a_line_with_a_hidden_character_counts_as_not_shown(character: str) -> None:
    shown = f"| Sales | 1000 | 1200 |{character}\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |"
    report = audit_document(shown, SALES, markup="text")
    assert [issue.row_id for issue in report.missing] == ["a"]
    assert report.rows_intact == 2


# ---------------------------------------------------------------------------------------- rule 3: reading a line


def test_fold_turns_whitespace_runs_into_one_space() -> None:
    assert fold("  Net \t income \n") == "Net income"
    assert fold("Net\u00a0income") == "Net income"
    assert fold("Net income") == "Net income"
    assert fold("Net  income") == "Net income"
    assert fold(" Net") == "Net"
    assert fold("Net ") == "Net"
    assert fold("") == ""


def test_whitespace_runs_count_as_one_space_in_either_reading() -> None:
    shown = "|  Sales |\t1000   |  1200 |\n| Costs | 5 | n/a |\n|   Total:   Net   | 995 | 1195 |"
    for markup in ("text", "markdown"):
        assert audit_document(shown, SALES, markup=markup).clean


@pytest.mark.parametrize(
    "cell",
    [
        "&#49;000",  # a decimal entity
        "&#x31;000",  # a hexadecimal entity
        "**1000**",
        "__1000__",
        "`1000`",
        "``1000``",
        "[1000](https://example.com)",
        "[**1000**](https://example.com)",
    ],
)
def test_markdown_inline_syntax_is_read_as_it_renders(cell: str) -> None:
    shown = f"| Sales | {cell} | 1200 |\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |"
    assert audit_document(shown, SALES, markup="markdown").clean
    assert [issue.row_id for issue in audit_document(shown, SALES, markup="text").altered] == ["a"]


def test_block_quotes_and_list_markers_are_not_part_of_the_line() -> None:
    shown = "> | Sales | 1000 | 1200 |\n> - Costs: 5, n/a\n> 1. Total: Net 995 1195"
    assert audit_document(shown, SALES, markup="markdown").clean
    for marker in ("-", "*", "+", "\u2022", "1.", "12)"):
        shown = f"{marker} Sales: 1000, 1200\n{marker} Costs: 5, n/a\n{marker} Total: Net 995 1195"
        assert audit_document(shown, SALES, markup="text").clean, marker


def test_code_blocks_are_literal() -> None:
    shown = "```\nSales **1000** 1200\nCosts 5 n/a\n```\n- Total: Net 995 1195"
    report = audit_document(shown, SALES, markup="markdown")
    assert [issue.row_id for issue in report.altered] == ["a"]  # `**` is shown as is inside a fence
    shown = "~~~~\n~~~\nSales 1000 1200\n~~~~\nCosts 5 n/a\n- Total: Net 995 1195"
    assert audit_document(shown, SALES, markup="markdown").clean  # a shorter fence does not close a longer one
    shown = "```\nSales 1000 1200\n```   \nCosts 5 n/a\n- Total: Net 995 1195"
    assert audit_document(shown, SALES, markup="markdown").clean  # spaces may follow a closing fence
    shown = "```\nSales 1000 1200\n``` x\n**Costs** 5 -\n```\n- Total: Net 995 1195"
    report = audit_document(shown, SALES, markup="markdown")
    assert _found(report) == [("missing_row", "b", None)]  # a fence followed by text does not close


def test_a_plain_text_table_in_a_code_block_shows_its_records() -> None:
    shown = "```\n" + present(None, _result()).text + "\n```"
    report = audit(shown, _result(), markup="markdown")
    assert report.clean, report.format()
    # Read as plain text, a code block's rows count like any others: one added is added, one left open still reads.
    forged = shown.replace("\n```", "\n| Refund to attacker | 999999 |\n```")
    assert [issue.kind for issue in audit(forged, _result(), markup="markdown").issues] == ["fabricated_row"]
    assert audit(shown.removesuffix("\n```"), _result(), markup="markdown").clean


# ------------------------------------------------------------------------------- rules 5 to 7: text results, lines

LINES = ["Alpha one", "Beta two", "Gamma three", "Delta four"]
LINES_SHOWN = "Alpha one\nBeta two\nGamma three\nDelta four"


def _text_issues(report: AuditReport) -> list[tuple[str, int | None, str]]:
    return [(issue.kind, issue.line, issue.detail) for issue in report.issues]


def test_a_text_result_shown_line_for_line_is_clean_whatever_surrounds_it() -> None:
    report = audit_lines("Here you are:\nAlpha one\nBeta  two\n\nGamma three\n\tDelta four\nAnything else?", LINES)
    assert report.clean, report.format()
    assert (report.rows_expected, report.rows_intact, report.score) == (4, 4, 1.0)
    assert report.records == "text" and report.markup == "text" and report.result_complete


def test_the_blank_lines_of_a_text_result_are_not_records() -> None:
    report = audit_lines(LINES_SHOWN, ["", "Alpha one", "  ", "Beta two", "Gamma three", "\t", "Delta four"])
    assert report.clean and report.rows_expected == 4


def test_a_line_of_a_text_result_left_out_is_missing() -> None:
    for shown in ("Alpha one\nGamma three\nDelta four", "Alpha one\n\nGamma three\nDelta four"):
        report = audit_lines(shown, LINES)
        assert _text_issues(report) == [("missing_row", None, 'line "Beta two" is not shown')]
        assert report.rows_intact == 3 and report.score == 0.75


@pytest.mark.parametrize(
    ("shown", "line", "detail"),
    [
        ("Alpha 1\nBeta two\nGamma three\nDelta four", 1, 'line "Alpha one" is shown as "Alpha 1"'),
        ("Alpha one\nBeta 2\nGamma three\nDelta four", 2, 'line "Beta two" is shown as "Beta 2"'),
        ("Alpha one\nBeta two\nGamma three\nDelta 4", 4, 'line "Delta four" is shown as "Delta 4"'),
        ("Intro\n\nAlpha one\nBeta two\nGamma 3\nDelta four", 5, 'line "Gamma three" is shown as "Gamma 3"'),
    ],
)
def test_a_line_of_a_text_result_changed_in_place_is_altered(shown: str, line: int, detail: str) -> None:
    report = audit_lines(shown, LINES)
    assert _text_issues(report) == [("altered_row", line, detail)]
    assert report.rows_intact == 3


def test_a_changed_line_is_taken_in_the_place_of_the_missing_one_not_elsewhere() -> None:
    # Two lines missing, two unmatched lines: each takes the one between the same neighbours.
    report = audit_lines("Alpha one\nBeta 2\nGamma three\nDelta 4\nAfterword", LINES)
    assert _text_issues(report) == [
        ("altered_row", 2, 'line "Beta two" is shown as "Beta 2"'),
        ("altered_row", 4, 'line "Delta four" is shown as "Delta 4"'),
    ]
    # Two missing lines in one gap take the unmatched lines of that gap in order; a third is missing.
    report = audit_lines("Alpha one\nB2\nC3\nDelta four", LINES)
    assert _text_issues(report) == [
        ("altered_row", 2, 'line "Beta two" is shown as "B2"'),
        ("altered_row", 3, 'line "Gamma three" is shown as "C3"'),
    ]
    report = audit_lines("Alpha one\nB2\nDelta four", LINES)
    assert _text_issues(report) == [
        ("altered_row", 2, 'line "Beta two" is shown as "B2"'),
        ("missing_row", None, 'line "Gamma three" is not shown'),
    ]


def test_lines_of_a_text_result_out_of_order_are_reordered() -> None:
    report = audit_lines("Beta two\nAlpha one\nGamma three\nDelta four", LINES)
    assert _text_issues(report) == [("reordered_row", 2, 'line "Alpha one" is shown out of order')]
    report = audit_lines("Alpha one\nDelta four\nBeta two\nGamma three", LINES)
    assert _text_issues(report) == [("reordered_row", 2, 'line "Delta four" is shown out of order')]
    assert report.rows_intact == 3


def test_a_line_of_a_text_result_shown_twice_is_duplicated() -> None:
    for shown, line in (
        ("Alpha one\nBeta two\nAlpha one\nGamma three\nDelta four", 3),
        ("Alpha one\nAlpha one\nBeta two\nGamma three\nDelta four", 2),
        ("Alpha one\nBeta two\nGamma three\nDelta four\nDelta four", 5),
    ):
        report = audit_lines(shown, LINES)
        text = shown.split("\n")[line - 1]
        assert _text_issues(report) == [("duplicated_row", line, f'"{text}" shows a line again')]
        assert report.score == 4 / 5
    # A line the result holds twice is shown twice.
    assert audit_lines("Alpha one\nAlpha one", ["Alpha one", "Alpha one"]).clean


def test_a_line_added_among_the_lines_of_a_text_result_is_fabricated() -> None:
    for shown, line in (
        ("Alpha one\nExtra\nBeta two\nGamma three\nDelta four", 2),
        ("Alpha one\nBeta two\nGamma three\nExtra\nDelta four", 4),
    ):
        report = audit_lines(shown, LINES)
        assert _text_issues(report) == [("fabricated_row", line, '"Extra" is not a line of the result')]
        assert report.score == 4 / 5
    # Before the first line shown and after the last, it is commentary; so is everything when no line is shown.
    assert audit_lines("Extra\nAlpha one\nBeta two\nGamma three\nDelta four\nExtra", LINES).clean
    assert audit_lines("Extra\nMore", []).clean
    assert audit_lines("", []).score == 1.0


def test_a_text_result_in_markdown_is_read_as_it_renders() -> None:
    lines = ["# Sanctions hits", "> quoted note", "- ACME Ltd (EU)", "> - Acme Holding", "**Total**: `2` hits"]
    rendered = "# Sanctions hits\n> quoted note\n- ACME Ltd (EU)\n> - Acme Holding\n**Total**: `2` hits"
    report = audit_lines(rendered, lines, markup="markdown")
    assert report.clean, report.format()
    # Or as written, in a code block.
    assert audit_lines("```\n" + "\n".join(lines) + "\n```", lines, markup="markdown").clean
    # A line shown as a list item shows the line without the marker, in Markdown.
    assert audit_lines("- Alpha one\n- Beta two\n- Gamma three\n- Delta four", LINES, markup="markdown").clean
    # In plain text, a list item may show a line of the result that is itself a list item.
    assert audit_lines("- ACME Ltd (EU)", ["- ACME Ltd (EU)"], markup="text").clean
    # And a heading shown as a heading is that line.
    assert audit_lines("# Sanctions hits", ["# Sanctions hits"], markup="markdown").clean


def test_a_hidden_character_in_a_line_of_a_text_result_must_be_shown_as_its_escape() -> None:
    lines = ["Pay \u202e0001 EUR"]
    assert audit_lines("Pay \\u202e0001 EUR", lines).clean
    # Shown raw, the character hides the line (rule 2): the line counts as not shown.
    report = audit_lines("Pay \u202e0001 EUR", lines, markup="text")
    assert [issue.kind for issue in report.issues] == ["hidden_content", "missing_row"]


def test_a_partial_text_result_must_say_so_and_a_complete_one_must_not() -> None:
    notice = f"{PARTIAL_MARKER} 4 of 9 lines."
    assert audit_lines(f"{notice}\n{LINES_SHOWN}", LINES, complete=False).clean
    report = audit_lines(LINES_SHOWN, LINES, complete=False)
    assert _text_issues(report) == [
        (
            "completeness_misstated",
            None,
            "the result is partial, but no line says so (as a line starting with 'Partial result:' does)",
        )
    ]
    assert report.score == 0.5 and not report.result_complete
    report = audit_lines(f"{notice}\n{LINES_SHOWN}", LINES)
    assert _text_issues(report) == [
        (
            "completeness_misstated",
            1,
            "the result is complete, but a line says it is partial",
        )
    ]
    # A notice is not a changed line, and a line of the result that starts with the marker is not a notice.
    report = audit_lines(f"Alpha one\nBeta two\n{notice}\nDelta four", LINES, complete=False)
    assert _text_issues(report) == [("missing_row", None, 'line "Gamma three" is not shown')]
    assert audit_lines(f"{PARTIAL_MARKER} none", [f"{PARTIAL_MARKER} none"]).clean


# --------------------------------------------------------------------- rule 4: a record of a document, exactly shown


def test_the_plain_text_and_markdown_renderings_of_a_document_audit_clean() -> None:
    for shown, markup in ((render_text(SALES), "text"), (render_markdown(SALES), "markdown")):
        report = audit_document(shown, SALES)
        assert report.clean, report.format()
        assert (report.markup, report.rows_expected, report.rows_intact, report.score) == (markup, 3, 3, 1.0)
        assert report.records == "document"


def test_a_table_line_shows_a_record_when_its_cells_are_the_label_then_the_values() -> None:
    document = _one_section(Row(id="a", label="Sales", values=(1,), level=2))
    for shown in ("| Sales | 1 |", "|     Sales | 1 |", "| \u2003\u2003Sales | 1 |", "| Sales | 1", "Sales | 1 |"):
        assert audit_document(shown, document, markup="text").clean, shown
    assert audit_document("|  | v |\n| --- | --- |\nSales | 1", document, markup="markdown").clean
    # A header row that is not its section's own is a line like any other: here it shows the record, and the row
    # below repeats it.
    assert not audit_document("| Sales | 1 |\n| --- | --- |\nSales | 1", document, markup="markdown").clean
    # Nothing else may be in the label cell, and no cell may be added or left out.
    for shown, kind in (
        ("| Total: Sales | 1 |", "altered_row"),
        ("| Sales | 1 | |", "altered_row"),
        ("| | Sales | 1 |", "relabelled_row"),
        ("| Sales (est.) | 1 |", "relabelled_row"),
    ):
        assert _found(audit_document(shown, document, markup="text")) == [(kind, "a", 1)], shown
    # A line of borders only shows nothing.
    assert _found(audit_document("|\n| Sales | 1 |", document, markup="text")) == []


@pytest.mark.parametrize(
    "marker", ["Total: ", "Total ", "TOTAL: ", "total:", "**Total:** ", "**Total**: ", "__Total:__ "]
)
def test_a_total_may_be_marked_in_its_label_cell(marker: str) -> None:
    document = _one_section(Row(id="a", label="A", values=(1,)), Row(id="t", label="Net", values=(9,), kind="total"))
    assert audit_document(f"| A | 1 |\n| {marker}Net | 9 |", document, markup="text").clean


def test_a_marked_line_stands_only_for_a_record_of_its_kind() -> None:
    document = _one_section(Row(id="a", label="A", values=(1,)), Row(id="t", label="Net", values=(9,), kind="total"))
    report = audit_document("| A | 1 |\n| Subtotal: Net | 9 |", document, markup="text")
    assert _found(report) == [("altered_row", "t", 2)]
    assert report.altered[0].detail == 'total "Net" ["9"] is shown with other values: "| Subtotal: Net | 9 |"'
    report = audit_document("| Total: A | 1 |\n| Total: Net | 9 |", document, markup="text")
    assert _found(report) == [("altered_row", "a", 1)]
    # "Totals" is a word of its own, not a marker.
    assert _found(audit_document("| A | 1 |\n| Totals Net | 9 |", document, markup="text")) == [
        ("relabelled_row", "t", 2)
    ]


def test_an_unmarked_line_stands_for_a_subtotal_only_when_no_line_marks_it_and_no_item_takes_it() -> None:
    gross = _one_section(
        Row(id="t", label="Gross", values=(5,), kind="subtotal"), Row(id="i", label="Gross", values=(5,))
    )
    assert _found(audit_document("| Gross | 5 |", gross)) == [("dropped_subtotal", "t", None)]
    assert _found(audit_document("| Subtotal: Gross | 5 |", gross)) == [("missing_row", "i", None)]
    assert audit_document("| Subtotal: Gross | 5 |\n| Gross | 5 |", gross).clean
    assert audit_document("| Gross | 5 |\n| Gross | 5 |", gross).clean  # a host that marks nothing
    # A subtotal shown marked takes its marked line, though an unmarked one comes first.
    subtotal = _one_section(
        Row(id="a", label="A", values=(1,)), Row(id="t", label="Gross", values=(5,), kind="subtotal")
    )
    report = audit_document("| Gross | 5 |\n| A | 1 |\n| Subtotal: Gross | 5 |", subtotal)
    assert _found(report) == [("duplicated_row", None, 1)]


def test_values_are_compared_as_the_reference_renderer_shows_them() -> None:
    document = _one_section(
        Row(id="a", label="Flags", values=(True, False, None, 0.1, 10**20, "a|b", "x\u202ey", "")),
        columns=tuple("cdefghij"),
    )
    shown = "| Flags | true | false | {} | 0.1 | 100000000000000000000 | a|b | x\\u202ey | |"
    assert audit_document(shown.format("n/a"), document).clean
    assert audit_document(shown.format("none"), document, null_display="none").clean
    report = audit_document(shown.format("-"), document)  # a dash is not the null text: it reads as zero
    assert [issue.row_id for issue in report.altered] == ["a"]
    assert report.altered[0].detail.startswith('"Flags" ["true", "false", "n/a", "0.1",')
    report = audit_document(shown.format("n/a").replace("true", "True"), document)
    assert [issue.row_id for issue in report.altered] == ["a"]
    assert audit_document("- Flags: true, false, n/a, 0.1, 100000000000000000000, a|b, x\\u202ey", document).clean


def test_server_text_is_compared_folded_and_with_its_hidden_characters_escaped() -> None:
    document = _one_section(
        Row(id="a", label="  Net\nincome ", values=("1  000", " x ")),
        Row(id="b", label="Bidi\u202e", values=("a\u2028b", None)),
        columns=("v", "w"),
    )
    shown = "| Net\\nincome | 1 000 | x |\n| Bidi\\u202e | a\\u2028b | n/a |"
    assert audit_document(shown, document, markup="text").clean
    # A line break shown as a space is another text: the audit says so.
    assert not audit_document(shown.replace("Net\\nincome", "Net income"), document, markup="text").clean


# -------------------------------------------------------------------------- rule 4: free-form lines and list items


@pytest.mark.parametrize(
    "line",
    [
        "- Net income: 90 (margin 0.5)",
        "- Net income: 2024 = 90; margin = 0.5",
        "- Net income 90/0.5",
        "- Net income: 90, 0.5.",
        "- Net income: 90, 0.5;",
        "- Net income: 90 [0.5]",
        "- Net income: 90 \u2014 0.5",
        "- Net income: 90 \u00b7 0.5",
        "Net income: 90 0.5",
        "1. Net income 90, 0.5",
    ],
)
def test_a_free_form_line_shows_a_record_with_its_values_in_order(line: str) -> None:
    document = _one_section(Row(id="a", label="Net income", values=(90, 0.5)), columns=("2024", "margin"))
    assert audit_document(line, document, markup="text").clean


@pytest.mark.parametrize(
    "line",
    [
        "- Net income: 90 or 0.5",  # a word between the values
        "- Net income: 0.5 90",  # out of order
        "- Net income: 90.0.5",  # glued
        "- Net income: 90,0.5",
        "- Net income: 190 0.5",
        "- Net income: 90 0.51",
        "- Net income: 90x 0.5",
        "- Net income: 90 0.5 total",  # a word after them
        "- Net income: 90",  # one left out
        "- Net income: 90.",
        "- Net income: 90 (0.5)",  # a value alone in parentheses reads as negative in accounts
    ],
)
def test_a_free_form_line_with_other_values_is_altered(line: str) -> None:
    document = _one_section(Row(id="a", label="Net income", values=(90, 0.5)), columns=("2024", "margin"))
    report = audit_document(line, document, markup="text")
    assert _found(report) == [("altered_row", "a", 1)]
    assert report.altered[0].detail == f'"Net income" ["90", "0.5"] is shown with other values: "{line[2:]}"'


def test_a_free_form_line_must_start_with_the_label_at_a_word_boundary() -> None:
    document = _one_section(Row(id="a", label="Net income", values=(90,)))
    for line in ("- Net income:90", "- Net: 90", "- The net income: 90", "- Net incomes 90"):
        assert _found(audit_document(line, document, markup="text"))[0] == ("missing_row", "a", None), line


def test_a_free_form_line_may_mark_a_subtotal_or_total() -> None:
    document = _one_section(
        Row(id="a", label="A", values=(1,)),
        Row(id="s", label="Gross", values=(5,), kind="subtotal"),
        Row(id="t", label="Net", values=(9,), kind="total"),
    )
    for shown in (
        "- A: 1\n- Subtotal: Gross 5\n- Total: Net 9",
        "- A: 1\n- **Subtotal:** Gross: 5\n- **Total:** Net = 9.",
        "A 1\nGross 5\nNet 9",
    ):
        assert audit_document(shown, document, markup="text").clean, shown
    report = audit_document("- A: 1\n- Total: Gross 5\n- Total: Net 9", document, markup="text")
    assert _found(report) == [("altered_row", "s", 2)]


def test_an_empty_value_needs_nothing_in_free_form_text() -> None:
    document = _one_section(Row(id="a", label="A", values=("", 1, "")), columns=("x", "y", "z"))
    assert audit_document("- A: 1", document, markup="text").clean


def test_labels_of_several_words_and_labels_that_prefix_others() -> None:
    document = _one_section(
        Row(id="a", label="Net", values=(1,)),
        Row(id="b", label="Net income", values=(2,)),
        Row(id="c", label="Net income tax", values=(3,)),
    )
    assert audit_document("- Net: 1\n- Net income: 2\n- Net income tax: 3", document, markup="text").clean
    report = audit_document("- Net: 10\n- Net income: 2\n- Net income tax: 3", document, markup="text")
    assert _found(report) == [("altered_row", "a", 1)]


def test_a_changed_line_is_taken_by_the_record_whose_longer_label_it_starts_with() -> None:
    document = _one_section(Row(id="a", label="Net", values=(1,)), Row(id="b", label="Net income", values=(2,)))
    report = audit_document("- Net: 1\n- Net income: 20", document, markup="text")
    assert _found(report) == [("altered_row", "b", 2)]


# -------------------------------------------------------------- rule 6: order, duplicates, alterations, leftovers


def test_records_shown_twice_or_out_of_order() -> None:
    report = audit_document(
        "| Costs | 5 | n/a |\n| Sales | 1000 | 1200 |\n| Total: Net | 995 | 1195 |\n| Sales | 1000 | 1200 |", SALES
    )
    assert _found(report) == [("reordered_row", "b", 1), ("duplicated_row", None, 4)]
    assert report.reordered[0].detail == '"Costs" ["5", "n/a"] is shown out of order'
    assert report.duplicated[0].detail == '"| Sales | 1000 | 1200 |" shows a record again'
    assert (report.rows_intact, report.score) == (2, 2 / 4)


def test_the_largest_set_of_records_in_order_is_kept() -> None:
    document = _one_section(*(Row(id=f"r{n}", label=f"R{n}", values=(n,)) for n in range(6)))
    lines = ["| R0 | 0 |", "| R4 | 4 |", "| R1 | 1 |", "| R2 | 2 |", "| R5 | 5 |", "| R3 | 3 |"]
    report = audit_document("\n".join(lines), document)
    assert _found(report) == [("reordered_row", "r4", 2), ("reordered_row", "r5", 5)]
    assert report.rows_intact == 4
    lines = ["| R5 | 5 |", "| R4 | 4 |", "| R3 | 3 |", "| R2 | 2 |", "| R1 | 1 |", "| R0 | 0 |"]
    report = audit_document("\n".join(lines), document)
    assert report.rows_intact == 1 and len(report.reordered) == 5


def test_identical_records_are_interchangeable_only_their_count_matters() -> None:
    document = _one_section(
        Row(id="a", label="Other", values=(1,)),
        Row(id="m", label="Mid", values=(2,)),
        Row(id="b", label="Other", values=(1,)),
    )
    assert audit_document("| Other | 1 |\n| Mid | 2 |\n| Other | 1 |", document).clean
    report = audit_document("| Mid | 2 |\n| Other | 1 |\n| Other | 1 |", document)
    assert [(issue.kind, issue.line) for issue in report.issues] == [("reordered_row", 1)]
    assert report.rows_intact == 2
    report = audit_document("| Other | 1 |\n| Other | 1 |\n| Other | 1 |\n| Mid | 2 |", document)
    assert sorted(issue.kind for issue in report.issues) == ["duplicated_row", "reordered_row"]
    assert report.rows_intact == 2


def test_of_identical_lines_the_later_one_shows_a_record_again() -> None:
    document = _one_section(
        Row(id="a", label="Other", values=(1,)),
        Row(id="m", label="Mid", values=(2,)),
        Row(id="b", label="Other", values=(1,)),
    )
    report = audit_document("| Other | 1 |\n| Mid | 2 |\n| Other | 1 |\n| Other | 1 |", document)
    assert _found(report) == [("duplicated_row", None, 4)]
    report = audit_document("| Other | 1 |\n| Other | 1 |\n| Other | 1 |\n| Mid | 2 |", document)
    assert _found(report) == [("reordered_row", "b", 2), ("duplicated_row", None, 3)]
    gross = _one_section(Row(id="g", label="Gross", values=(5,), kind="subtotal"))
    assert _found(audit_document("| Gross | 5 |\n| Gross | 5 |", gross)) == [("duplicated_row", None, 2)]


def test_a_record_shown_with_other_values_is_altered_and_under_another_label_relabelled() -> None:
    report = audit_document("| Sales | 1000 | 1250 |\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |", SALES)
    assert _found(report) == [("altered_row", "a", 1)]
    assert report.altered[0].detail == '"Sales" ["1000", "1200"] is shown with other values: "| Sales | 1000 | 1250 |"'
    assert report.altered[0].section_id == "s"
    report = audit_document("| Revenue | 1000 | 1200 |\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |", SALES)
    assert _found(report) == [("relabelled_row", "a", 1)]
    assert report.relabelled[0].detail == (
        '"Sales" ["1000", "1200"] is shown under another label: "| Revenue | 1000 | 1200 |"'
    )
    assert report.rows_intact == 2 and report.score == 2 / 3
    # Only a table line relabels: free-form text cannot say which words are the label.
    report = audit_document("- Revenue: 1000, 1200\n- Costs: 5, n/a\n- Total: Net 995 1195", SALES, markup="text")
    assert _found(report) == [("missing_row", "a", None), ("fabricated_row", None, 1)]


def test_a_changed_line_is_taken_by_one_record_only() -> None:
    document = _one_section(Row(id="a", label="A", values=(1,)), Row(id="b", label="A", values=(2,)))
    report = audit_document("| A | 3 |", document)
    assert _found(report) == [("altered_row", "a", 1), ("missing_row", "b", None)]
    report = audit_document("| A | 3 |\n| A | 4 |", document)
    assert _found(report) == [("altered_row", "a", 1), ("altered_row", "b", 2)]
    relabelled = _one_section(Row(id="a", label="A", values=(1,)), Row(id="b", label="B", values=(1,)))
    report = audit_document("| C | 1 |", relabelled)
    assert _found(report) == [("relabelled_row", "a", 1), ("missing_row", "b", None)]


def test_records_not_shown_are_missing_and_subtotals_and_totals_dropped() -> None:
    report = audit_document("nothing to see", SALES)
    assert _found(report) == [
        ("missing_row", "a", None),
        ("missing_row", "b", None),
        ("dropped_total", "t", None),
        ("dropped_section", None, None),
    ]
    assert [issue.detail for issue in report.missing] == [
        '"Sales" ["1000", "1200"] is not shown',
        '"Costs" ["5", "n/a"] is not shown',
        'total "Net" ["995", "1195"] is not shown',
    ]
    assert report.dropped_sections[0].section_id == "s"
    assert (report.rows_intact, report.score) == (0, 0.0)
    subtotal = _one_section(Row(id="g", label="Gross", values=(), kind="subtotal"), columns=())
    report = audit_document("", subtotal)
    assert [(issue.kind, issue.detail) for issue in report.missing] == [
        ("dropped_subtotal", 'subtotal "Gross" is not shown')
    ]


# --------------------------------------------------------------------------------------- rule 7: added records


def test_a_table_line_that_stands_for_no_record_is_fabricated() -> None:
    shown = "| Sales | 1000 | 1200 |\n| Costs | 5 | n/a |\n| Bonus | 1 | 2 |\n| Total: Net | 995 | 1195 |"
    report = audit_document(shown, SALES)
    assert _found(report) == [("fabricated_row", None, 3)]
    assert report.fabricated[0].detail == '"| Bonus | 1 | 2 |" stands for no record'
    assert (report.rows_intact, report.score) == (3, 3 / 4)


def test_an_item_is_fabricated_only_in_a_list_whose_items_show_records() -> None:
    records = "- Sales: 1000, 1200\n- Costs: 5, n/a\n- Total: Net 995 1195"
    report = audit_document(records + "\n- Bonus: 1", SALES, markup="text")
    assert _found(report) == [("fabricated_row", None, 4)]
    assert report.fabricated[0].detail == '"Bonus: 1" stands for no record'
    # One blank line between items keeps them in one list; a paragraph or two blank lines start another.
    assert _found(audit_document(records + "\n\n- Bonus: 1", SALES, markup="text")) == [("fabricated_row", None, 5)]
    assert audit_document(records + "\n\n\n- Bonus: 1", SALES, markup="text").clean
    assert audit_document(records + "\nIn short:\n- Bonus: 1", SALES, markup="text").clean
    assert audit_document("- Bonus: 1\n\n" + records.replace("\n", "\n\n"), SALES, markup="text").clean is False
    # A list that holds only an altered record also shows records.
    shown = "- Sales: 1000, 1250\n- Bonus: 1\n\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |"
    report = audit_document(shown, SALES)
    assert _found(report) == [("altered_row", "a", 1), ("fabricated_row", None, 2)]


# ------------------------------------------------------------------------------------------------ rule 8: sections

SECTIONS = Document(
    title="Ledger",
    sections=(
        Section(id="x", title="Cash flow", columns=("v",), rows=(Row(id="a", label="A", values=(1,)),)),
        Section(id="n", title="Dividend history"),
        Section(id="m", title="Notes: more"),
    ),
)


@pytest.mark.parametrize(
    ("shown", "markup"),
    [
        ("| A | 1 |\nDividend history\nNotes: more", "text"),
        ("| A | 1 |\nDividend history: none recorded\n- Notes: more", "text"),
        ("| A | 1 |\n**Dividend history**\nNotes: more\n------", "text"),
        ("| A | 1 |\n- __Dividend history__\n\nNotes: more\n===", "text"),
        ("| A | 1 |\n**Dividend history**\n## Notes: more", "markdown"),
    ],
)
def test_a_section_without_records_is_shown_by_its_title(shown: str, markup: Markup) -> None:
    assert audit_document(shown, SECTIONS, markup=markup).clean


def test_a_section_without_records_is_dropped_when_no_line_shows_its_title() -> None:
    report = audit_document("| A | 1 |\nDividend histories\nNotes", SECTIONS, markup="text")
    assert [(issue.kind, issue.section_id, issue.detail) for issue in report.issues] == [
        ("dropped_section", "n", 'section "Dividend history" is not shown'),
        ("dropped_section", "m", 'section "Notes: more" is not shown'),
    ]
    assert report.score == 1.0  # the score counts records
    report = audit_document("| A | 1 |\nDividend history.\nNotes: more here", SECTIONS, markup="text")
    assert [issue.section_id for issue in report.dropped_sections] == ["n"]
    report = audit_document("| A | 1 |\n<!-- Dividend history -->\nNotes: more", SECTIONS, markup="markdown")
    assert [issue.section_id for issue in report.dropped_sections] == ["n"]


def test_a_section_with_records_is_dropped_only_when_none_of_them_is_shown() -> None:
    assert _found(audit_document("| A | 2 |", SECTIONS.model_copy(update={"sections": SECTIONS.sections[:1]}))) == [
        ("altered_row", "a", 1)
    ]
    report = audit_document("Dividend history\nNotes: more", SECTIONS)
    assert [(issue.kind, issue.section_id) for issue in report.issues] == [
        ("missing_row", "x"),
        ("dropped_section", "x"),
    ]
    assert report.dropped_sections[0].detail == 'nothing of section "Cash flow" is shown'


# ---------------------------------------------------------------------------------------------- rule 9 and score


def test_a_notice_is_a_line_that_starts_with_the_marker_and_shows_no_record() -> None:
    notices = (
        f"{PARTIAL_MARKER} 3 of 9.",
        f"**{PARTIAL_MARKER}** 3 of 9.",
        f"_{PARTIAL_MARKER}_ 3 of 9.",
        "partial result: 3 of 9.",
    )
    for notice in notices:
        assert audit_document(f"{notice}\n{SALES_TEXT}", SALES, complete=False).clean, notice
        assert audit_document(f"{SALES_TEXT}\n\n{notice}", SALES, complete=False).clean, notice
    for denial in (f"Not a {PARTIAL_MARKER}", f"<!-- {PARTIAL_MARKER} -->", "Partially reviewed: 3 of 3."):
        report = audit_document(f"{denial}\n{SALES_TEXT}", SALES, markup="markdown", complete=False)
        assert report.completeness_misstated, denial
    report = audit_document(f"{SALES_TEXT}\n{PARTIAL_MARKER} more", SALES)
    assert [(issue.kind, issue.line) for issue in report.issues] == [("completeness_misstated", 4)]
    assert report.score == 0.5


def test_the_score_counts_added_lines_and_halves_when_completeness_is_misstated() -> None:
    shown = "| Sales | 1000 | 1200 |\n| Sales | 1000 | 1200 |\n| Bonus | 1 | 2 |\n| Total: Net | 995 | 1195 |"
    report = audit_document(shown, SALES, complete=False)
    assert sorted(issue.kind for issue in report.issues) == [
        "completeness_misstated",
        "duplicated_row",
        "fabricated_row",
        "missing_row",
    ]
    assert report.rows_intact == 2
    assert report.score == 2 / 5 / 2
    empty = Document(title="Nothing", sections=())
    assert audit_document("anything", empty).score == 1.0
    assert audit_document("anything", empty, complete=False).score == 0.5


# ------------------------------------------------------------------------------------------------------ the report

_UNFAITHFUL = "| Sales | 1000 | 1250 |\n| Bonus | 1 | 2 |\n| Total: Net | 995 | 1195 |\nPartial result: x"


def test_the_report_as_text_gives_one_line_per_issue_with_where_it_is() -> None:
    report = audit_document(_UNFAITHFUL, SALES)
    assert report.format().split("\n") == [
        "fidelity: 3 issue(s); score 0.250; 1/3 records intact; result complete; transcript read as text",
        '- altered_row (section "s", row "a", line 1): "Sales" ["1000", "1200"] is shown with other values: '
        '"| Sales | 1000 | 1250 |"',
        '- missing_row (section "s", row "b"): "Costs" ["5", "n/a"] is not shown',
        '- fabricated_row (line 2): "| Bonus | 1 | 2 |" stands for no record',
    ]
    # A record is left out: the notice is true of what is shown (the missing record is the finding).
    whole = audit_document(f"{SALES_TEXT}\n{PARTIAL_MARKER} x", SALES)
    assert whole.format().split("\n")[1] == (
        "- completeness_misstated (line 4): the result is complete, but a line says it is partial"
    )
    assert audit_document(SALES_TEXT, SALES, complete=False, markup="markdown").format().split("\n")[0] == (
        "fidelity: 1 issue(s); score 0.500; 3/3 records intact; result partial; transcript read as markdown"
    )
    clean = audit_document(SALES_TEXT, SALES)
    assert clean.format() == (
        "fidelity: clean; score 1.000; 3/3 records intact; result complete; transcript read as text"
    )
    unplaced = AuditReport(1, 0, True, "text", issues=(Issue("dropped_section", "d", section_id="a\u202eb"),))
    # Server text is quoted as JSON, after its hidden characters are made visible.
    assert unplaced.format().split("\n")[1] == '- dropped_section (section "a\\\\u202eb"): d'
    assert AuditReport(1, 0, True, "text", issues=(Issue("missing_row", "m"),)).format().endswith("- missing_row: m")


def test_the_report_as_json() -> None:
    report = audit_document(_UNFAITHFUL, SALES)
    data = report.to_json()
    assert {key: value for key, value in data.items() if key != "issues"} == {
        "clean": False,
        "score": 0.25,
        "rowsExpected": 3,
        "rowsIntact": 1,
        "resultComplete": True,
        "markup": "text",
        "records": "document",
    }
    assert data["issues"][0] == {
        "kind": "altered_row",
        "detail": '"Sales" ["1000", "1200"] is shown with other values: "| Sales | 1000 | 1250 |"',
        "sectionId": "s",
        "rowId": "a",
        "line": 1,
    }
    assert data["issues"][2] == {
        "kind": "fabricated_row",
        "detail": '"| Bonus | 1 | 2 |" stands for no record',
        "sectionId": None,
        "rowId": None,
        "line": 2,
    }
    assert [issue["kind"] for issue in data["issues"]] == [issue.kind for issue in report.issues]
    assert json.loads(json.dumps(data)) == data
    assert audit_document(SALES_TEXT, SALES).to_json()["clean"] is True


def test_the_report_groups_its_issues_by_kind() -> None:
    kinds = (
        "missing_row",
        "dropped_subtotal",
        "dropped_total",
        "dropped_section",
        "reordered_row",
        "altered_row",
        "relabelled_row",
        "duplicated_row",
        "fabricated_row",
        "hidden_content",
        "completeness_misstated",
    )
    issues = tuple(Issue(kind, kind) for kind in (*kinds, *kinds))
    report = AuditReport(1, 0, True, "text", issues=issues)
    assert [issue.kind for issue in report.missing] == ["missing_row", "dropped_subtotal", "dropped_total"] * 2
    assert {issue.kind for issue in report.altered} == {"altered_row"}
    assert {issue.kind for issue in report.relabelled} == {"relabelled_row"}
    assert {issue.kind for issue in report.reordered} == {"reordered_row"}
    assert {issue.kind for issue in report.duplicated} == {"duplicated_row"}
    assert {issue.kind for issue in report.fabricated} == {"fabricated_row"}
    assert {issue.kind for issue in report.hidden} == {"hidden_content"}
    assert {issue.kind for issue in report.dropped_sections} == {"dropped_section"}
    for group in (report.altered, report.relabelled, report.reordered, report.duplicated, report.hidden):
        assert len(group) == 2
    assert report.of_kind("fabricated_row", "altered_row") == (issues[5], issues[8], issues[16], issues[19])
    assert report.completeness_misstated and not report.clean
    empty = AuditReport(0, 0, True, "text")
    assert empty.clean and not empty.completeness_misstated and empty.score == 1.0 and empty.records == "document"


# --------------------------------------------------------------------------------------------- audit() on results


def test_audit_reads_the_directive_of_the_result() -> None:
    text = present(None, _result(null_display="n/a")).text
    assert audit(text, _result(null_display="n/a")).clean
    report = audit(text, _result(null_display="none"))  # the directive says "none": "n/a" is another value
    assert [issue.row_id for issue in report.altered] == ["services"]
    partial = audit(text, _result(complete=False, null_display="n/a"))
    assert not partial.result_complete and partial.completeness_misstated


def test_audit_takes_an_sdk_model_or_anything_with_model_dump() -> None:
    class Wire:
        def __init__(self, data: dict[str, Any]) -> None:
            self.data = data
            self.calls: list[dict[str, Any]] = []

        def model_dump(self, **options: Any) -> dict[str, Any]:
            self.calls.append(options)
            return self.data

    wire = Wire(_result())
    report = audit(present(None, _result()).text, wire)
    assert report.clean and report.records == "document"
    # Dumped as Python values for the check of its numbers (JSON's dump would write NaN as null), then as JSON.
    assert wire.calls == [
        {"mode": "python", "by_alias": True, "exclude_none": True},
        {"mode": "json", "by_alias": True, "exclude_none": True},
    ]
    with pytest.raises(AuditInputError) as raised:
        audit("x", {1, 2})
    assert str(raised.value) == "the result is set, not a CallToolResult object"
    with pytest.raises(AuditInputError) as raised:
        audit("x", [1, 2])  # a list is the parts of a continued result: each must be a result
    assert str(raised.value) == "the result is int, not a CallToolResult object"


def test_audit_of_a_text_result_counts_only_the_lines_of_its_text_blocks() -> None:
    result = {"content": [{"type": "text", "text": "Alpha\nBeta"}, {"type": "text", "text": "Gamma"}]}
    report = audit(present(None, result).text, result)
    assert report.clean and report.records == "text" and report.rows_expected == 3
    assert audit("Alpha\nGamma", result).missing[0].detail == 'line "Beta" is not shown'
    assert audit(present(None, result).markdown, result).clean


def test_what_present_shows_of_a_text_result_with_other_blocks_audits_clean() -> None:
    result = {
        "content": [
            {"type": "text", "text": "Alpha\nBeta"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "Gamma"},
        ]
    }
    presentation = present(None, result)
    for shown in (presentation.text, presentation.markdown):
        report = audit(shown, result)
        assert report.clean, report.format()
    # Naming a block is optional; naming one the result does not hold is not.
    assert audit("Alpha\nBeta\nGamma", result).clean
    forged = audit("Alpha\nBeta\n[image: image/svg+xml]\nGamma", result)
    assert [(issue.kind, issue.line) for issue in forged.issues] == [("fabricated_row", 3)]


# --------------------------------------------------------------------------------------------------- the command


def _files(tmp_path: Path, result: Any, shown: str) -> list[str]:
    result_file = tmp_path / "result.json"
    result_file.write_text(json.dumps(result), encoding="utf-8")
    transcript = tmp_path / "shown.transcript"
    transcript.write_text(shown, encoding="utf-8")
    return [str(result_file), str(transcript)]


def test_cli_reads_the_transcript_as_told(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path, _result(), present(None, _result()).markdown)
    assert audit_main(files) == 0
    assert "transcript read as markdown" in capsys.readouterr().out
    assert audit_main([*files, "--markup", "text"]) == 1
    assert "transcript read as text" in capsys.readouterr().out
    assert audit_main([*files, "--markup=markdown", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["markup"] == "markdown"
    assert out.startswith('{\n  "clean": true,')  # indented, for a person to read


def test_cli_escapes_hidden_characters_in_its_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "evil\u202e.json"
    assert audit_main([str(missing), str(missing)]) == 2
    err = capsys.readouterr().err
    assert "\u202e" not in err and "\\u202e" in err and err.count("\n") == 1


def test_each_value_of_a_free_form_line_is_its_own_token() -> None:
    twice = _one_section(Row(id="a", label="A", values=(5, 5)), columns=("x", "y"))
    assert audit_document("- A: 5 5", twice, markup="text").clean
    assert [issue.row_id for issue in audit_document("- A: 5", twice, markup="text").altered] == ["a"]
    # A value is found where it stands delimited, after an undelimited occurrence of it.
    assert audit_document("- A: 1 12", _one_section(Row(id="a", label="A", values=(1, 12)), columns=("x", "y"))).clean
    assert audit_document("- A: 12 1", _one_section(Row(id="a", label="A", values=(12, 1)), columns=("x", "y"))).clean
    slashes = _one_section(Row(id="a", label="A", values=("//",)), columns=("a",))
    assert audit_document("- A: a///", slashes, markup="text").clean
    # A value that is not there is not found, whatever surrounds the line.
    assert [
        issue.row_id for issue in audit_document("- A (5)", _one_section(Row(id="a", label="A", values=(6,)))).altered
    ] == ["a"]


def test_unnamed_columns_take_nothing_from_the_names_of_the_others() -> None:
    document = _one_section(Row(id="a", label="A", values=(1, 2)), columns=("", "2024"))
    assert audit_document("- A: 1, 2024 = 2", document, markup="text").clean


def test_a_line_relabels_a_record_only_when_its_value_cells_are_the_records_values() -> None:
    document = Document(
        title="Ledger",
        sections=(
            Section(id="e", title="Empty", columns=(), rows=(Row(id="e", label="Empty", values=()),)),
            Section(id="s", title="Pairs", columns=("a", "b"), rows=(Row(id="x", label="X", values=("Sales", 1)),)),
        ),
    )
    report = audit_document("Empty\n| Sales | 1 |", document, markup="text")
    assert _found(report) == [("missing_row", "x", None), ("fabricated_row", None, 2), ("dropped_section", None, None)]
    assert _found(audit_document("Empty\n| Y | Sales | 1 |", document, markup="text")) == [("relabelled_row", "x", 2)]


def test_an_unmarked_subtotal_keeps_its_place_beside_repeated_lines() -> None:
    gross = _one_section(Row(id="g", label="Gross", values=(5,), kind="subtotal"))
    report = audit_document("| Gross | 5 |\n| Gross | 5 |", gross, markup="text")
    assert [issue.kind for issue in report.issues] == ["duplicated_row"] and report.rows_intact == 1
    both = _one_section(Row(id="g", label="Gross", values=(5,), kind="subtotal"), Row(id="a", label="A", values=(1,)))
    report = audit_document("| Gross | 5 |\n| A | 1 |\n| A | 1 |", both, markup="text")
    assert [issue.kind for issue in report.issues] == ["duplicated_row"] and report.rows_intact == 2


def test_a_record_shown_as_its_own_kind_outweighs_subtotals_shown_unmarked() -> None:
    """Lines of a row's own kind first: an item in its place is kept in order before any number of subtotals that
    only unmarked lines show."""
    document = _one_section(
        Row(id="s1", label="S1", values=(2,), kind="subtotal"),
        Row(id="s2", label="S2", values=(3,), kind="subtotal"),
        Row(id="i", label="I", values=(1,)),
    )
    report = audit_document("| I | 1 |\n| S1 | 2 |\n| S2 | 3 |", document, markup="text")
    assert _found(report) == [("reordered_row", "s1", 2), ("reordered_row", "s2", 3)]
    assert report.rows_intact == 1


# ------------------------------------------------------------------- rule 6: order, exhaustively on small layouts


def _longest_increasing_length(values: list[int]) -> int:
    best: list[int] = []  # best[i]: length of the longest strictly increasing run ending at values[i]
    for i, value in enumerate(values):
        best.append(1 + max((best[j] for j in range(i) if values[j] < value), default=0))
    return max(best, default=0)


def _layouts(length: int, rows: int) -> list[list[int]]:
    layouts: list[list[int]] = [[]]
    for _ in range(length):
        layouts = [[*layout, row] for layout in layouts for row in range(rows)]
    return layouts


@pytest.mark.parametrize("spacing", ["\n", "\n\n", "\nNote\n"])
def test_rule_6_the_largest_in_order_set_is_kept_for_every_small_layout(spacing: str) -> None:
    """Rule 6 on every sequence of up to five lines over three records: the records in order are a longest
    increasing run of the lines, each further line of a record shown already is a duplicate, and the score counts
    them."""
    document = _one_section(*(Row(id=f"r{n}", label=f"R{n}", values=(n,)) for n in range(3)))
    for length in range(6):
        for layout in _layouts(length, 3):
            shown = spacing.join(f"| R{n} | {n} |" for n in layout)
            report = audit_document(shown, document, markup="text")
            intact = _longest_increasing_length(layout)
            kinds = [issue.kind for issue in report.issues]
            expected = {
                "reordered_row": len(set(layout)) - intact,
                "duplicated_row": len(layout) - len(set(layout)),
                "missing_row": 3 - len(set(layout)),
            }
            assert (report.rows_intact, {kind: kinds.count(kind) for kind in expected}) == (intact, expected), shown
            assert len(kinds) == sum(expected.values()) + (not layout), shown  # and the section, when nothing is shown
            assert report.score == intact / (3 + expected["duplicated_row"]), shown


@pytest.mark.parametrize(
    "marked_line", ["# Structured content", "### $.a", "[1]: https://pay.example/now", "   [ref]: /x"]
)
def test_auto_reads_headings_and_link_definitions_as_markdown(marked_line: str) -> None:
    """Rule 1: in doubt, "auto" takes the reading that can hide more; a heading or a link reference definition
    is Markdown."""
    report = audit(f"total due\n\n{marked_line}\n\nend", {"content": [{"type": "text", "text": "total due"}]})
    assert report.markup == "markdown"
    assert audit("total due\n\n#hashtag\n", {"content": [{"type": "text", "text": "total due"}]}).markup == "text"


def test_a_free_form_value_in_parentheses_is_another_value() -> None:
    """Rule 4: in accounts `(100)` is -100, so a value alone in parentheses does not show the value."""
    document = _one_section(Row(id="a", label="Sales", values=(100, 5)), columns=("2024", "2025"))
    assert audit_document("- Sales: 100, 5", document, markup="text").clean
    assert audit_document("- Sales (2024: 100, 2025: 5)", document, markup="text").clean
    report = audit_document("- Sales: (100) (5)", document, markup="text")
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [("altered_row", "a")]


# ---------------------------------------------------------------------- rules 5 and 7: text results, more closely


def test_rule_7_a_line_after_a_text_result_that_begins_as_its_lines_do_is_fabricated() -> None:
    """Around the lines shown a host may write prose; a line there is added when it begins with the first word
    (case and a trailing `:` aside) of a line of the result, a word of two letters or more."""
    lines = ["Alpha one two", "Beta: three four"]
    for extra in ("Alpha five six", "alpha: seven", "BETA eight"):
        report = audit_lines(f"Alpha one two\nBeta: three four\n{extra}", lines, markup="text")
        assert _text_issues(report) == [("fabricated_row", 3, f'"{extra}" is not a line of the result')], extra
    report = audit_lines("XL shirts 3\nM shirts 2\nXL socks 9", ["XL shirts 3", "M shirts 2"], markup="text")
    assert _found(report) == [("fabricated_row", None, 3)]
    # A first word of one letter says nothing: "A" or "M" may begin any sentence.
    assert audit_lines("A 1\nM 2\nA 3\nM 4\nC 5", ["A 1", "M 2"], markup="text").clean
    # Nor does a word that is not the first one of a line of the result.
    assert audit_lines("Alpha one two\nBeta: three four\nOne more\nThree", lines, markup="text").clean


def test_rule_3_a_list_item_shows_a_line_that_is_a_list_item_whatever_its_marker_in_markdown() -> None:
    lines = ["- ACME Ltd (EU)", "2. Acme Holding (UN)"]
    for shown in ("* ACME Ltd (EU)\n\n2. Acme Holding (UN)", "+ ACME Ltd (EU)\n\n2. Acme Holding (UN)"):
        report = audit_lines(shown, lines, markup="markdown")
        assert report.clean, report.format()
    # The renderer numbers a list itself: "1." in place of "2." is what the reader sees, and is altered.
    report = audit_lines("- ACME Ltd (EU)\n\n1. Acme Holding (UN)", lines, markup="markdown")
    assert [issue.kind for issue in report.issues] == ["altered_row"], report.format()


def test_rule_6_every_line_of_a_text_result_out_of_order_or_left_out_is_reported() -> None:
    report = audit_lines("Delta four\nAlpha one\nBeta two\nGamma three", LINES)
    assert _text_issues(report) == [("reordered_row", 1, 'line "Delta four" is shown out of order')]
    report = audit_lines("Beta two\nAlpha one\nGamma three", LINES)
    assert _text_issues(report) == [
        ("reordered_row", 2, 'line "Alpha one" is shown out of order'),
        ("missing_row", None, 'line "Delta four" is not shown'),
    ]


def test_rule_9_a_notice_before_the_lines_of_a_text_result_leaves_later_changes_in_place() -> None:
    report = audit_lines(f"{PARTIAL_MARKER} 4 of 9.\nAlpha one\nBeta 2\nGamma three\nDelta four", LINES, complete=False)
    assert _text_issues(report) == [("altered_row", 3, 'line "Beta two" is shown as "Beta 2"')]


def test_rule_7_a_line_naming_another_block_is_neither_added_nor_a_notice() -> None:
    result = {
        "content": [
            {"type": "text", "text": "Alpha"},
            {"type": "resource_link", "name": "Docs", "uri": "https://example.com/d"},
            {"type": "text", "text": "Beta"},
        ]
    }
    # In Markdown the block's line reads as it renders: its autolink shows the address alone.
    shown = "Alpha\n[link] Docs <https://example.com/d>\nBeta"
    for markup in ("text", "markdown"):
        report = audit(shown, result, markup=markup)
        assert report.clean, report.format()
    named = f"{PARTIAL_MARKER} see the attachment"
    assert audit_lines(f"Alpha\n{named}\nBeta", ["Alpha", "Beta"], block_names=[named]).clean


def test_rule_4_a_value_of_a_str_subclass_in_an_unvalidated_document_is_compared_as_its_text() -> None:
    class Text(str):
        pass

    row = Row.model_construct(id="a", label="Memo", values=(Text("paid  in full"), Text("ok")), level=0, kind="item")
    section = Section.model_construct(id="s", title="S", columns=("v", "w"), rows=(row,))
    document = Document.model_construct(title="Ledger", sections=(section,))
    assert audit_document("| Memo | paid in full | ok |", document, markup="text").clean
    assert _found(audit_document("| Memo | paid in part | ok |", document, markup="text")) == [("altered_row", "a", 1)]


@pytest.mark.parametrize("row", ["|Sales|1000|", "Sales|1000", "| Sales | 1000"])
def test_rule_2_a_row_as_wide_as_its_table_hides_nothing(row: str) -> None:
    document = _one_section(Row(id="a", label="Sales", values=(1000,)), columns=("2024",))
    assert _found(audit_document(f"| | 2024 |\n|---|---|\n{row}", document, markup="markdown")) == [], row


@pytest.mark.parametrize("line", ["- Net income: 90- 0.5", "- Net income: 90 0.5-", "- Net income: 90= 0.5"])
def test_rule_4_a_free_form_value_with_a_sign_or_mark_glued_after_it_is_another_value(line: str) -> None:
    """A trailing minus is a negative amount in accounts: "90-" is not 90, whatever follows it."""
    document = _one_section(Row(id="a", label="Net income", values=(90, 0.5)), columns=("2024", "margin"))
    assert _found(audit_document(line, document, markup="text")) == [("altered_row", "a", 1)]


def test_rule_4_a_value_alone_in_parentheses_is_not_the_value_even_spaced() -> None:
    document = _one_section(Row(id="a", label="Net income", values=(90, 0.5)), columns=("2024", "margin"))
    for line in ("- Net income: ( 90 ) 0.5", "- Net income: (90 ) 0.5", "- Net income: ( 90) 0.5"):
        assert _found(audit_document(line, document, markup="text")) == [("altered_row", "a", 1)], line


def test_rule_4_a_free_form_value_is_found_between_column_names_that_hold_its_digits() -> None:
    document = _one_section(Row(id="a", label="Sales", values=(1,)), columns=("Q1",))
    assert audit_document("- Sales: Q1 = 1 (Q1)", document, markup="text").clean
    assert _found(audit_document("- Sales: Q1 = 2 (Q1)", document, markup="text")) == [("altered_row", "a", 1)]


def test_audit_passes_a_text_results_completeness_and_the_reading_asked_for() -> None:
    directive = {"mode": "verbatim", "complete": False, "continuation": {"argument": "cursor", "token": "t"}}
    partial = {"content": [{"type": "text", "text": "Alpha\nBeta"}], "_meta": meta_carriers(directive)}
    report = audit(f"{PARTIAL_MARKER} 2 of 9 lines.\nAlpha\nBeta", partial)
    assert report.clean and not report.result_complete, report.format()
    assert audit("Alpha\nBeta", partial).completeness_misstated
    text_only = {"content": [{"type": "text", "text": "Alpha\nBeta"}]}
    assert audit("Alpha\n<!-- x -->\nBeta", text_only).markup == "markdown"
    report = audit("Alpha\n<!-- x -->\nBeta", text_only, markup="text")
    assert report.markup == "text" and [issue.kind for issue in report.issues] == ["fabricated_row"]


def test_a_blank_line_in_markdown_is_nothing_but_a_separator() -> None:
    """Rules 6 and 7 in the Markdown reading: a blank line takes no missing line's place, and one blank line
    between items keeps them in one list."""
    report = audit_lines("Alpha one\n\nGamma three\nDelta four", LINES, markup="markdown")
    assert _text_issues(report) == [("missing_row", None, 'line "Beta two" is not shown')]
    records = "- Sales: 1000, 1200\n- Costs: 5, n/a\n- Total: Net 995 1195"
    report = audit_document(records + "\n\n- Bonus: 1", SALES, markup="markdown")
    assert _found(report) == [("fabricated_row", None, 5)]


@pytest.mark.parametrize("tag", ["<details data-open>", '<details title="open">', "<details open\\!>"])
def test_rule_2_details_without_an_open_attribute_are_collapsed(tag: str) -> None:
    shown = f"{tag}\n\n| Sales | 1000 | 1200 |\n\n</details>\n\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |"
    assert [issue.row_id for issue in audit_document(shown, SALES, markup="markdown").missing] == ["a"]


def test_rule_3_a_table_in_a_block_quote_has_a_header_line_that_is_no_record() -> None:
    shown = "> | | 2023 | 2024 |\n> |---|---|---|\n" + "\n".join(f"> {line}" for line in SALES_TEXT.split("\n"))
    report = audit_document(shown, SALES, markup="markdown")
    assert report.clean, report.format()


def test_rule_3_a_line_underlined_outside_a_table_is_a_heading_in_markdown_too() -> None:
    document = _one_section(Row(id="a", label="Sales", values=(1000,)))
    for markup in ("text", "markdown"):
        report = audit_document("| Sales | 1000 |\n---", document, markup=markup)
        assert [issue.row_id for issue in report.missing] == ["a"], markup


def test_rule_7_prose_after_a_list_of_records_is_not_an_item_of_it_in_markdown() -> None:
    records = "- Sales: 1000, 1200\n- Costs: 5, n/a\n- Total: Net 995 1195"
    assert audit_document(f"{records}\nSee the notes.", SALES, markup="markdown").clean


def test_rule_3_a_code_block_left_open_reads_to_the_end_after_the_lines_before_it() -> None:
    shown = "| Sales | 1000 | 1200 |\n```\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |"
    report = audit_document(shown, SALES, markup="markdown")
    assert report.clean, report.format()


def test_rule_4_a_total_with_an_empty_label_and_no_values_is_shown_by_its_marker_alone() -> None:
    document = _one_section(Row(id="a", label="A", values=()), Row(id="t", label="", kind="total"), columns=())
    for shown in ("- A\n- Total:", "A\nTotal"):
        assert audit_document(shown, document, markup="text").clean, shown
    assert _found(audit_document("- A", document, markup="text")) == [("dropped_total", "t", None)]


def test_rule_4_labels_and_values_are_compared_folded_wherever_their_spaces_are() -> None:
    document = _one_section(
        Row(id="a", label="Net  income", values=(" x", "yes ")),
        Row(id="b", label=" Gross", values=("p  q", None)),
        Row(id="c", label="Tax ", values=("1", "2")),
        columns=("v", "w"),
    )
    shown = "| Net income | x | yes |\n| Gross | p q | n/a |\n| Tax | 1 | 2 |"
    assert audit_document(shown, document, markup="text", null_display=" n/a ").clean


def test_rule_4_a_pipe_in_a_label_or_a_lone_value_splits_it_into_cells() -> None:
    document = _one_section(Row(id="a", label="R|D", values=("a|b",)), Row(id="b", label="Q", values=("c|d",)))
    assert audit_document("| R|D | a|b |\n| Q | c | d |", document, markup="text").clean


def test_rule_3_an_underline_never_stands_for_a_record_even_one_labelled_like_it() -> None:
    document = _one_section(Row(id="a", label="-----", values=()), Row(id="b", label="+---+", values=()), columns=())
    report = audit_document("Heading\n-----\n+---+", document, markup="text")
    assert [issue.row_id for issue in report.missing] == ["a", "b"]


_OTHER_MID_OTHER = _one_section(
    Row(id="a", label="Other", values=(1,)),
    Row(id="m", label="Mid", values=(2,)),
    Row(id="b", label="Other", values=(1,)),
)
_THREE_OTHERS = _one_section(*(Row(id=f"o{n}", label="Other", values=(1,)) for n in range(3)))


@pytest.mark.parametrize(
    ("document", "shown"),
    [
        (_OTHER_MID_OTHER, "| Other | 1 |\n| Mid | 2 |\n| Other | 1 |"),
        (_OTHER_MID_OTHER, "| Other | 1 |\n| Other | 1 |\n| Other | 1 |\n| Mid | 2 |"),
        (_OTHER_MID_OTHER, "| Mid | 2 |\n| Other | 1 |\n| Other | 1 |"),
        (_OTHER_MID_OTHER, "| Other | 1 |\n| Mid | 2 |\n| Other | 1 |\n| Other | 1 |"),
        (_OTHER_MID_OTHER, "- Other: 1\n- Mid: 2\n- Other: 1"),
        (_THREE_OTHERS, "| Other | 1 |\n| Other | 1 |\n| Other | 1 |"),
        (_THREE_OTHERS, "| Other | 1 |\n| Other | 1 |\n| Other | 1 |\n| Other | 1 |"),
    ],
)
def test_rule_6_past_the_pair_budget_identical_records_are_checked_as_groups(
    document: Document, shown: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript so large that pairing every line with every identical record would cost too much is read over
    groups of identical records: on these small transcripts, with no budget at all, as many records are in order and
    each kind of issue is found as often as with the full pairing (of two longest chains, either may be reported)."""
    full = audit_document(shown, document, markup="text")
    monkeypatch.setattr(importlib.import_module("mcp_rendering.audit"), "_PAIR_BUDGET", 0)
    grouped = audit_document(shown, document, markup="text")
    assert (grouped.rows_intact, grouped.score) == (full.rows_intact, full.score)
    assert sorted(issue.kind for issue in grouped.issues) == sorted(issue.kind for issue in full.issues)


def test_rule_4_a_subtotal_shown_marked_takes_its_marked_line_even_out_of_order() -> None:
    """An unmarked line stands for a subtotal only when no line marks it: the marked line, shown before the item
    above it, is the subtotal out of order, and the unmarked one in its place shows it again."""
    document = _one_section(
        Row(id="a", label="A", values=(1,)), Row(id="t", label="Gross", values=(5,), kind="subtotal")
    )
    report = audit_document("| Subtotal: Gross | 5 |\n| A | 1 |\n| Gross | 5 |", document, markup="text")
    assert _found(report) == [("reordered_row", "t", 1), ("duplicated_row", None, 3)]


def test_rule_4_free_form_lines_show_records_that_share_a_label() -> None:
    document = _one_section(Row(id="a", label="A", values=(1,)), Row(id="b", label="A", values=(2,)))
    assert audit_document("- A: 1\n- A: 2", document, markup="text").clean
    report = audit_document("- A: 2\n- A: 1", document, markup="text")
    assert [issue.kind for issue in report.issues] == ["reordered_row"] and report.rows_intact == 1


def test_rule_6_a_line_showing_one_record_is_not_also_an_altered_showing_of_another() -> None:
    document = _one_section(Row(id="a", label="Net", values=(1,)), Row(id="b", label="Net", values=(2,)))
    for shown in ("- Net: 1", "| Net | 1 |"):
        assert _found(audit_document(shown, document, markup="text")) == [("missing_row", "b", None)], shown


def test_rule_6_a_record_shown_exactly_on_the_first_line_leaves_the_changed_line_to_its_twin() -> None:
    document = _one_section(Row(id="a", label="A", values=(1,)), Row(id="b", label="A", values=(2,)))
    assert _found(audit_document("| A | 1 |\n| A | 3 |", document, markup="text")) == [("altered_row", "b", 2)]


def test_rule_6_a_reordered_record_is_reported_with_its_section() -> None:
    report = audit_document("| Costs | 5 | n/a |\n| Sales | 1000 | 1200 |\n| Total: Net | 995 | 1195 |", SALES)
    assert [(issue.kind, issue.section_id, issue.row_id) for issue in report.issues] == [("reordered_row", "s", "b")]


def test_rule_7_an_item_added_to_a_list_whose_first_line_shows_a_record_is_fabricated() -> None:
    shown = "- Sales: 1000, 1200\n- Bonus: 1\n\n| Costs | 5 | n/a |\n| Total: Net | 995 | 1195 |"
    assert _found(audit_document(shown, SALES, markup="text")) == [("fabricated_row", None, 2)]


def test_rule_7_a_list_of_commentary_before_the_records_does_not_hide_a_later_added_record() -> None:
    shown = f"- Note: figures in EUR\n\n\n{SALES_TEXT}\n| Bonus | 1 | 2 |"
    assert _found(audit_document(shown, SALES, markup="text")) == [("fabricated_row", None, 7)]


@pytest.mark.parametrize("prose", range(1, 13))
def test_rule_7_a_list_after_a_paragraph_is_a_list_of_its_own_however_long_the_text_before(prose: int) -> None:
    records = "- Sales: 1000, 1200\n- Costs: 5, n/a\n- Total: Net 995 1195"
    paragraph = "\n".join(["Some commentary."] * prose)
    assert audit_document(f"{records}\n{paragraph}\n- Bonus: 1", SALES, markup="text").clean


def test_rule_9_a_line_with_a_mark_before_the_marker_is_no_notice() -> None:
    for denial in (f"X {PARTIAL_MARKER} no", f"[X] {PARTIAL_MARKER} no"):
        assert audit_document(f"{denial}\n{SALES_TEXT}", SALES, complete=False).completeness_misstated, denial


def test_rule_8_a_section_without_records_and_title_is_dropped_when_nothing_is_visible() -> None:
    document = Document(title="Ledger", sections=(Section(id="e", title=""),))
    cases: list[tuple[str, Markup]] = [("", "text"), ("<!-- x -->", "markdown"), ("\n\n", "markdown")]
    for shown, markup in cases:
        report = audit_document(shown, document, markup=markup)
        assert [issue.section_id for issue in report.dropped_sections] == ["e"], shown


@pytest.mark.parametrize(
    ("shown", "markup"),
    [
        ("## 1. Dividend history", "markdown"),
        ("### 2) Dividend history", "markdown"),
        ("**Outlook for FX**", "text"),
        ("- __Outlook for FX__", "text"),
    ],
)
def test_rule_8_a_numbered_or_emphasised_heading_shows_a_sections_title(shown: str, markup: Markup) -> None:
    document = Document(
        title="Ledger",
        sections=(Section(id="n", title="Dividend history"), Section(id="f", title="Outlook for FX")),
    )
    report = audit_document(shown, document, markup=markup)
    assert len(report.dropped_sections) == 1, report.format()


@pytest.mark.parametrize("shown", ["Dividend history:", "**Dividend history:**", "- Dividend history:"])
def test_rule_8_a_title_followed_by_a_colon_alone_shows_the_section(shown: str) -> None:
    assert audit_document(f"| A | 1 |\n{shown}\nNotes: more", SECTIONS, markup="markdown").clean


# ------------------------------------------------------- rule 6 with identical records: exact, at a linear cost


def _lettered(letters: str) -> Document:
    """One row per letter, rows of the same letter identical (label and value), rows of two letters unlike in both."""
    return _one_section(*(Row(id=f"r{n}", label=letter, values=(f"v{letter}",)) for n, letter in enumerate(letters)))


def _lcs_length(first: str, second: str) -> int:
    """The longest common subsequence of two strings, by the textbook quadratic table (the reference)."""
    previous = [0] * (len(second) + 1)
    for a in first:
        current = [0]
        for index, b in enumerate(second):
            current.append(previous[index] + 1 if a == b else max(previous[index + 1], current[index]))
        previous = current
    return previous[-1]


def _check(letters: str, shown: str) -> tuple[AuditReport, int]:
    """The audit of `shown` (one table line a letter) against `letters`, and the work its order check did."""
    document = _lettered(letters)
    transcript = "\n".join(f"| {letter} | v{letter} |" for letter in shown)
    audit_module = importlib.import_module("mcp_rendering.audit")
    reader, _ = audit_module._read(transcript, "text")
    records = audit_module._Records(document, "-", exact_cells=False)
    matching = audit_module._Matcher(reader.lines, records).run()
    issues, intact = audit_module._document_issues(reader.lines, records, matching, "complete")
    report = audit_module._report(len(records.rows), intact, "complete", "text", "document", reader.issues + issues)
    return report, matching.work


@given(st.text("ABC", max_size=9), st.text("ABC", max_size=9), st.booleans())
def test_rule_6_identical_records_keep_the_largest_in_order_set_whichever_way_it_is_found(
    letters: str, shown: str, by_groups: bool
) -> None:
    """The records in order are a longest common subsequence of the records and the lines, whether the chain is
    found over every (record, line) pair or, past the pair budget, over groups of identical records."""
    audit_module = importlib.import_module("mcp_rendering.audit")
    budget = audit_module._PAIR_BUDGET
    setattr(audit_module, "_PAIR_BUDGET", 0 if by_groups else budget)  # noqa: B010 (a module's private constant)
    try:
        report, _ = _check(letters, shown)
    finally:
        setattr(audit_module, "_PAIR_BUDGET", budget)  # noqa: B010
    intact = _lcs_length(letters, shown)
    shown_records = sum(min(letters.count(c), shown.count(c)) for c in "ABC")
    kinds = [issue.kind for issue in report.issues]
    assert report.rows_intact == intact
    assert kinds.count("reordered_row") == shown_records - intact
    repeats = sum(max(0, shown.count(c) - letters.count(c)) for c in set(letters))
    assert kinds.count("duplicated_row") == repeats
    assert kinds.count("fabricated_row") == sum(shown.count(c) for c in "ABC" if c not in letters)
    assert kinds.count("missing_row") == len(letters) - shown_records


@pytest.mark.parametrize("pattern", ["AB", "AAB", "ABBC"])
def test_rule_6_the_order_check_is_linear_when_identical_records_alternate(pattern: str) -> None:
    """Thousands of identical records of a few kinds, interleaved: the faithful transcript, one with two records
    swapped and one with a record left out are checked in work proportional to the records, and exactly."""
    letters = pattern * (6000 // len(pattern))
    n = len(letters)
    faithful, work = _check(letters, letters)
    assert faithful.clean and work <= 2 * n
    middle = next(i for i in range(n // 2, n) if letters[i] != letters[i + 1])
    swapped = letters[:middle] + letters[middle + 1] + letters[middle] + letters[middle + 2 :]
    assert swapped != letters
    report, work = _check(letters, swapped)
    assert [issue.kind for issue in report.issues] == ["reordered_row"] and report.rows_intact == n - 1
    assert work <= 20 * n
    report, work = _check(letters, letters[:middle] + letters[middle + 1 :])
    assert [issue.kind for issue in report.issues] == ["missing_row"] and report.rows_intact == n - 1
    assert work <= 20 * n


def test_rule_6_records_sharing_values_swapped_across_a_twin_are_one_reordering() -> None:
    """Two records swapped with identical records around them: records are out of order, none is missing or
    duplicated."""
    document = _one_section(
        Row(id="a", label="Other", values=(1,)),
        Row(id="b", label="Mid", values=(2,)),
        Row(id="c", label="Other", values=(1,)),
        Row(id="d", label="Last", values=(1,)),
        Row(id="e", label="Other", values=(1,)),
    )
    shown = "| Other | 1 |\n| Other | 1 |\n| Mid | 2 |\n| Last | 1 |\n| Other | 1 |"
    report = audit_document(shown, document, markup="text")
    assert [issue.kind for issue in report.issues] == ["reordered_row"] and report.rows_intact == 4
    # Swapped two apart, with a twin between: at most two records are out of order.
    shown = "| Other | 1 |\n| Last | 1 |\n| Other | 1 |\n| Mid | 2 |\n| Other | 1 |"
    report = audit_document(shown, document, markup="text")
    assert [issue.kind for issue in report.issues] == ["reordered_row"] * 2 and report.rows_intact == 3


def test_rule_6_of_two_readings_of_a_line_the_literal_one_is_kept() -> None:
    """`| Total |` shows an item labelled "Total" as written, or, read with its marker, a total with no label. With
    the total not shown, the line is the item's, and the total is the record reported dropped."""
    document = _one_section(
        Row(id="a", label="", values=()),
        Row(id="t", label="", values=(), kind="total"),
        Row(id="i", label="Total", values=()),
        Row(id="b", label="", values=()),
        columns=(),
    )
    report = audit_document("|  |\n| Total |\n|  |", document, markup="text")
    assert _found(report) == [("dropped_total", "t", None)]


_ABAB = _one_section(*(Row(id=f"r{n}", label=letter, values=(1,)) for n, letter in enumerate("ABAB")))
_ITEM_AND_SUBTOTAL = _one_section(
    Row(id="a", label="A", values=(1,)), Row(id="t", label="Gross", values=(5,), kind="subtotal")
)


@pytest.mark.parametrize(
    ("document", "shown", "found", "intact"),
    [
        (_ABAB, "| B | 1 |\n| A | 1 |\n| A | 1 |\n| B | 1 |", [("reordered_row", "r1", 1)], 3),
        (_ABAB, "| A | 1 |\n| B | 1 |\n| B | 1 |", [("missing_row", "r2", None)], 3),
        (_ABAB, "| A | 1 |\n| B | 1 |\n| A | 1 |\n| B | 1 |\n| B | 1 |", [("duplicated_row", None, 5)], 4),
        # The unmarked line stands for nothing once a line marks the subtotal; the lines after it are still read.
        (
            _ITEM_AND_SUBTOTAL,
            "| Subtotal: Gross | 5 |\n| Gross | 5 |\n| A | 1 |",
            [("reordered_row", "t", 1), ("duplicated_row", None, 2)],
            1,
        ),
    ],
)
def test_rule_6_past_both_budgets_each_groups_lines_take_its_rows_in_order(
    document: Document,
    shown: str,
    found: list[tuple[str, str | None, int | None]],
    intact: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A transcript too far from faithful to pair or diff within budget is still read record by record: each
    group's lines take its rows in order, and what is out of order, missing or shown again is reported."""
    audit_module = importlib.import_module("mcp_rendering.audit")
    monkeypatch.setattr(audit_module, "_PAIR_BUDGET", 0)
    monkeypatch.setattr(audit_module, "_DIFF_BUDGET", 0)
    report = audit_document(shown, document, markup="text")
    assert _found(report) == found and report.rows_intact == intact


@pytest.mark.parametrize(
    ("shown", "lines"),
    [
        ("Hits\n\n- ACME", ["Hits", "* ACME"]),  # any bullet shows a bulleted line, after a line with no Markdown
        ("03. x", ["03. x"]),  # the renderer's own number, as the reader sees it
    ],
)
def test_rule_5_a_line_of_a_text_result_shows_as_the_renderer_shows_it(shown: str, lines: list[str]) -> None:
    assert audit_lines(shown, lines, markup="markdown").clean


def test_rule_5_a_line_whose_rendering_is_uncertain_is_not_shown_by_what_is_left_of_it() -> None:
    report = audit_lines("a", ["a ~~b~~"], markup="markdown")
    assert _found(report) == [("altered_row", None, 1)]


@pytest.mark.parametrize(
    ("text", "lines", "issues"),
    [
        # Raw HTML in an item: every line of the item unverifiable, so its text shows no record.
        (
            "- <details><summary>S</summary>\n  secret\n  </details>\n  after",
            ["after"],
            [("missing_row", 0), *[("unverifiable", line) for line in range(1, 5)]],
        ),
        # Text after a code block of its item: on its own line (6), not on the code block's.
        ("a\n\n- ```\n  c\n  ```\n  after", ["after"], []),
        # An inner list that starts on its outer item's line shows `1)` and `2)` alike.
        ("- 1) a\n  2) b", ["1) a", "2) b"], []),
        ("- 1) a\n  2) b", ["1. a", "2. b"], [("altered_row", 1), ("altered_row", 2)]),
        # A table that interrupts a paragraph: its header row on its own line, the paragraph unverifiable.
        ("X\n| a |\n| - |", ["a"], [("unverifiable", 1), ("altered_row", 2)]),
    ],
)
def test_markdown_records_are_placed_on_the_line_a_reader_sees_them_on(
    text: str, lines: list[str], issues: list[tuple[str, int]]
) -> None:
    report = audit_lines(text, lines, markup="markdown")
    assert sorted((issue.kind, issue.line or 0) for issue in report.issues) == sorted(issues)


def test_raw_html_that_opens_a_markdown_transcript_is_reported_as_raw_html() -> None:
    report = audit_lines("<!-- c -->\nok", ["ok"], markup="markdown")
    assert [(issue.line, issue.detail) for issue in report.issues] == [
        (1, "cannot verify what the reader sees: raw HTML")
    ]
    assert report.rows_intact == 1


# ---------------------------------------------------------------------------------- records sent as links

_BIG_URI = "ledger://statements/2026-q1/rows/big%2F1"


def _with_link(*, complete: bool = True, rows: tuple[Row, ...] | None = None) -> dict[str, Any]:
    """A reference-envelope result: one embedded row and one record the server sent as a link, in section `s`."""
    section = Section(
        id="s",
        title="Balances",
        columns=("v",),
        rows=rows if rows is not None else (Row(id="a", label="Cash", values=(10,), uri="ledger://rows/a"),),
    )
    link = {"rowId": "big/1", "sectionId": "s", "uri": _BIG_URI, "bytes": 5000}
    return {
        "content": [{"type": "text", "text": "Balances"}],
        "structuredContent": {
            "document": Document(title="T", sections=(section,)).model_dump(mode="json"),
            "page": {"complete": complete, "returned": 2, "total": 2, "linkedRecords": [link]},
        },
        "_meta": {"io.modelcontextprotocol/rendering": {"mode": "verbatim", "complete": complete}},
    }


@pytest.mark.parametrize("markup", ["text", "markdown"])
def test_a_record_sent_as_a_link_counts_and_present_shows_it(markup: Markup) -> None:
    """A record the server sent as a link is a record: `present()` shows its URI in its section, and the audit
    counts it shown there."""
    result = _with_link()
    report = audit(present(None, result), result, markup=markup)
    assert report.clean and (report.rows_expected, report.rows_intact) == (2, 2)


@pytest.mark.parametrize(
    "shown",
    [
        "| Cash | 10 |",  # the link left out
        "| Cash | 10 |\n\nThe last record is too large to show here.",  # left out with a word about it
        f"| Cash | 10 |\n\n[Record big/1]({_BIG_URI})",  # its URI only as a link's target: the reader does not see it
    ],
)
def test_a_record_sent_as_a_link_and_left_out_is_missing(shown: str) -> None:
    report = audit(shown, _with_link(), markup="markdown")
    missing = [(issue.kind, issue.section_id, issue.row_id) for issue in report.missing]
    assert missing == [("missing_row", "s", "big/1")]
    assert report.rows_intact == 1 and report.score < 1


@pytest.mark.parametrize(
    "shown",
    [
        f"| Cash | 10 |\n\nRecord big/1 is too large to show: read it at {_BIG_URI}.",
        f"- Cash: 10\n- Record big/1: <{_BIG_URI}>",  # an item of the list of records: not an added line
        f"| Line item | v |\n| --- | --- |\n| Cash | 10 |\n| big/1 | {_BIG_URI} |",  # a row of the table
    ],
)
def test_a_record_sent_as_a_link_is_shown_by_its_uri_anywhere_a_reader_sees_it(shown: str) -> None:
    report = audit(shown, _with_link(), markup="markdown")
    assert report.clean, report.format()
    assert report.rows_intact == 2


def test_a_section_holding_only_a_record_sent_as_a_link_is_shown_by_it() -> None:
    result = _with_link(rows=())
    assert audit(f"Read the record at {_BIG_URI}", result).clean
    assert [issue.kind for issue in audit("Nothing to show.", result).issues] == ["missing_row", "dropped_section"]


@pytest.mark.parametrize(
    ("shown", "kind"),
    [
        ("[Cash](ledger://rows/a)\n\nRead big/1 at " + _BIG_URI, "altered_row"),  # the row's label, its values gone
        ("See [the balances](ledger://rows/a).\n\nRead big/1 at " + _BIG_URI, "missing_row"),
        ("- Cash: see ledger://rows/a\n- big/1: " + _BIG_URI, "altered_row"),
    ],
)
def test_a_row_the_answer_replaces_by_a_link_to_it_is_not_shown(shown: str, kind: str) -> None:
    """The host guide shows a record as a link only when the server sent it so: a row it embedded, replaced by a
    link to its URI, shows the reader none of its values."""
    report = audit(shown, _with_link(), markup="markdown")
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [(kind, "a")]


def test_the_records_sent_as_links_of_every_part_are_audited() -> None:
    first, last = _with_link(complete=False), _with_link(rows=(Row(id="b", label="Bank", values=(4,)),))
    last["structuredContent"]["page"]["linkedRecords"][0].update(rowId="big/2", uri=_BIG_URI + "2")
    shown = f"| Cash | 10 |\n| Bank | 4 |\n\nRead big/1 at {_BIG_URI}"
    report = audit(shown, [first, last], markup="markdown")
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [("missing_row", "big/2")]
    assert (report.rows_expected, report.rows_intact) == (4, 3)


# ------------------------------------------------------------------ an item whose label reads like a total's

_TOTAL_LIKE = Document(
    title="T",
    sections=(
        Section(
            id="s",
            title="S",
            columns=("FY2025",),
            rows=(
                Row(id="a", label="Cash", values=(10,)),
                Row(id="t", label="Total: Assets", values=(10,)),  # an item
                Row(id="u", label="Assets", values=(10,), kind="total"),
            ),
        ),
    ),
)
_TABLE_HEAD = "| Line item | FY2025 |\n| --- | --- |\n| Cash | 10 |\n"


@pytest.mark.parametrize(
    ("shown", "markup"),
    [
        (_TABLE_HEAD + "| Total: Assets | 10 |\n| Assets | 10 |", "markdown"),  # a host that marks no total
        (_TABLE_HEAD + "| Total: Assets | 10 |\n| **Total: Assets** | **10** |", "markdown"),
        ("- Cash: 10\n- Total: Assets: 10\n- Assets: 10", "markdown"),
        (render_text(_TOTAL_LIKE), "text"),  # both read `Total: Assets` in plain text
        (render_markdown(_TOTAL_LIKE), "markdown"),
    ],
)
def test_an_item_labelled_like_a_total_marks_no_total(shown: str, markup: Markup) -> None:
    """An item labelled `Total: Assets` is shown by a line that reads as that label: the line is the item's, not a
    host marking totals, so an unmarked line may still show the total `Assets` (a false alarm before)."""
    report = audit_document(shown, _TOTAL_LIKE, markup=markup)
    assert report.clean, report.format()


@pytest.mark.parametrize(
    ("shown", "kinds"),
    [
        (_TABLE_HEAD + "| Assets | 10 |", ["missing_row"]),  # the item left out
        (_TABLE_HEAD + "| Total: Assets | 10 |", ["dropped_total"]),  # one line for two records
        (_TABLE_HEAD + "| Total: Assets | 10 |\n| Assets | 11 |", ["altered_row"]),
        (_TABLE_HEAD + "| Total: Assets | 11 |\n| Assets | 10 |", ["altered_row"]),
        ("- Cash: 10\n- Assets: 10\n- Total: Assets: 10", ["reordered_row"]),
    ],
)
def test_an_item_labelled_like_a_total_is_still_told_from_the_total(shown: str, kinds: list[str]) -> None:
    report = audit_document(shown, _TOTAL_LIKE, markup="markdown")
    assert sorted(issue.kind for issue in report.issues) == kinds, report.format()


# ------------------------------------------------------------ values under the wrong columns in free-form lines

_TWO_YEARS = Document(
    title="T",
    sections=(
        Section(
            id="s",
            title="S",
            columns=("FY2025", "FY2024"),
            rows=(Row(id="a", label="Cash", values=(10, 9)), Row(id="b", label="Bank", values=(7, 6))),
        ),
    ),
)


@pytest.mark.parametrize(
    ("line", "faithful"),
    [
        ("- Cash: FY2025: 10, FY2024: 9", True),
        ("- Cash: 10 (FY2025), 9 (FY2024)", True),
        ("- Cash: 10 (FY2025) 9 (FY2024)", True),
        ("- Cash — FY2025 10; FY2024 9", True),
        ("- Cash: 10 FY2025, 9 FY2024", True),
        ("- Cash: 10, FY2024 9", True),
        # The same values in order, each column name bound by its punctuation to the other value.
        ("- Cash: 10 (FY2024) 9", False),
        ("- Cash: 10, FY2025 9", False),
        ("- Cash: 10 FY2024, 9", False),
        ("- Cash: FY2024: 10, FY2025: 9", False),
        ("- Cash: 10 (FY2024), 9 (FY2025)", False),
    ],
)
def test_rule_4_a_column_name_in_a_free_form_line_names_the_value_its_punctuation_binds_it_to(
    line: str, faithful: bool
) -> None:
    report = audit_document(f"{line}\n- Bank: 7, 6", _TWO_YEARS, markup="markdown")
    assert [(issue.kind, issue.row_id) for issue in report.issues] == ([] if faithful else [("altered_row", "a")])


@pytest.mark.parametrize("code_point", [0x2028, 0x2029, 0x85, 0x200B, 0x202E])
def test_a_hidden_character_written_as_a_reference_hides_its_line_as_the_character_does(code_point: int) -> None:
    """The renderer decodes a character reference: what it decodes to hides or moves text as the character itself
    does, and is reported alike."""
    written = audit_lines(f"- alpha&#{code_point};1", ["alpha 1"], markup="markdown")
    decoded = audit_lines(f"- alpha{chr(code_point)}1", ["alpha 1"], markup="markdown")
    assert [(issue.kind, issue.line) for issue in written.issues] == [("hidden_content", 1), ("missing_row", None)]
    assert [issue.detail for issue in written.issues] == [issue.detail for issue in decoded.issues]


@pytest.mark.parametrize(
    "text",
    [
        "note &#x202E;x\n12 34",
        "note \u202ex\n12 34",
        "note \u2067x  \n12 34",
        "- a \u202ax\n  12 34",
        "note \u200f\n12 34",  # a right-to-left mark: the numbers after it in the block read `34 12`
        "note \u061c\n12 34",
    ],
)
def test_a_bidi_control_reorders_the_rest_of_its_block_not_only_its_line(text: str) -> None:
    report = audit_lines(text, ["12 34"], markup="markdown")
    assert [(issue.kind, issue.line) for issue in report.issues] == [
        ("hidden_content", 1),
        ("hidden_content", 2),
        ("missing_row", None),
    ]


@pytest.mark.parametrize("markup", ["markdown", "text"])
def test_digits_right_to_left_text_may_move_are_unverifiable(markup: Markup) -> None:
    """After a Hebrew or Arabic word, `12 34` may be drawn `34 12`, a sign on the other side, a number before the word
    it follows: not certified, whichever reading; digits after a left-to-right word in a left-to-right block are."""
    for text in (
        "שקל 12 34",
        "الأصول 12'345",
        "12 34 שקל",
        "שקל 12,345",
        "שקל -250",
        "Cash: \u0661\u066c\u0663\u0667\u0667 \u00b7 \u0661\u066c\u0663\u0662\u0667",
    ):
        report = audit_lines(text, [text], markup=markup)
        assert [(issue.kind, issue.line) for issue in report.issues] == [("unverifiable", 1), ("missing_row", None)]
        assert "right-to-left" in report.issues[0].detail
    for text in ("Total 12 34 שקל", "Cash 1,377,600 (מזומנים)", "שקל"):
        assert audit_lines(text, [text], markup=markup).clean, text


@pytest.mark.parametrize(
    "text",
    [
        "שקל\n12 34",  # a paragraph
        "שקל\n12 34\n===",  # a setext heading's lines
        "&#1513;&#1511;&#1500;\n12 34",  # letters the renderer decodes
        "~~שקל~~\n12 34",  # letters struck through, which the view does not show
        "<span>שקל</span>\n12 34",
        "~~שקל~~ &#1611;&#1611;&#1611;\n12 34",  # marks the renderer decodes do not stand for the letters struck
        "![שקל](x.png)\nCash\n12 34",
        "12 34\n~~ש~~ Cash &#1513;",  # a letter written as a reference does not stand for the first one, struck
    ],
)
def test_right_to_left_text_moves_the_digits_of_its_block(text: str) -> None:
    report = audit_lines(text, ["12 34"], markup="markdown")
    digits = text.split("\n").index("12 34") + 1
    assert ("unverifiable", digits) in [(issue.kind, issue.line) for issue in report.issues], report.format()
    assert report.rows_intact == 0


def test_plain_text_is_read_in_paragraphs_and_all_right_to_left_after_a_right_to_left_first_letter() -> None:
    assert audit_lines("Cash\n\nשקל\n12 34", ["Cash", "שקל", "12 34"], markup="text").rows_intact == 2
    assert audit_lines("Cash\n\nשקל\n\n12 34", ["Cash", "שקל", "12 34"], markup="text").clean
    assert audit_lines("שקל\n\nCash 12 34", ["שקל", "Cash 12 34"], markup="text").rows_intact == 1
    # A line of no-break spaces is no blank line, to a Markdown renderer either; an isolate does not set the direction.
    assert audit_lines("Cash\n\nשקל\n\u00a0\n12 34", ["Cash", "שקל", "12 34"]).rows_intact == 2
    assert audit_lines("\u2066Cash\u2069 שקל\n\n12 34", ["Cash שקל", "12 34"], markup="text").rows_intact == 0


def test_a_bidi_control_reorders_the_rest_of_its_plain_text_paragraph() -> None:
    report = audit_lines("Cash\u202e\n12 34\n\n56", ["Cash", "12 34", "56"], markup="text")
    assert [(issue.kind, issue.line) for issue in report.issues][:2] == [("hidden_content", 1), ("hidden_content", 2)]
    assert report.rows_intact == 1


def test_right_to_left_text_leaves_the_digits_of_other_blocks_and_cells_in_place() -> None:
    for text in ("שקל\n\n12 34", "- שקל\n- 12 34", "Cash\n~~x~~\n12 34"):
        assert audit_lines(text, ["12 34"], markup="markdown").rows_intact == 1, text
    hebrew = Document(
        title="T",
        sections=(
            Section(id="s", title="S", columns=("FY2025", "FY2024"), rows=(Row(id="a", label="שקל", values=(10, 9)),)),
        ),
    )
    table = audit_document("## S\n\n| | FY2025 | FY2024 |\n|---|---|---|\n| שקל | 10 | 9 |", hebrew)
    assert table.clean, table.format()
    line = audit_document("## S\n\n- שקל: 10 9", hebrew)
    assert [issue.kind for issue in line.issues] == ["unverifiable", "missing_row", "dropped_section"], line.format()


def test_a_bidi_control_in_one_block_leaves_the_next_block_as_it_is() -> None:
    for text in ("note \u202ex\n\n12 34", "| a \u202e |\n| - |\n\n12 34", "- a \u202ex\n- 12 34"):
        report = audit_lines(text, ["12 34"], markup="markdown")
        assert [(issue.kind, issue.line) for issue in report.issues] == [("hidden_content", 1)], text


# ---------------------------------------------------------------- the transcript through cmark-gfm and an HTML5 parser
# The audit reads a Markdown transcript through cmark-gfm and an HTML5 parser: what they show is what counts.


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


def _parsed_kinds(shown: str) -> list[str]:
    return [issue.kind for issue in audit_document(shown, DOCUMENT, markup="markdown").issues]


def test_a_faithful_table_is_clean() -> None:
    assert _parsed_kinds(TABLE) == []


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
    kinds = _parsed_kinds(hiding.format(table=TABLE))
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
    assert "fabricated_row" in _parsed_kinds(shown)


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


# -------------------------------------------------------------------------------- the ways chat models write an answer
# The audit on the ways chat models write an answer, and on what a renderer draws: each class of false alarm or
# miss closed at its cause, one test each.


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


def _style_kinds(report: AuditReport) -> list[str]:
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
        assert _style_kinds(audit_document(moved, BALANCE)) == ["misplaced_row"], title
    # A bold line that names the other section, then a record of the first: misplaced.
    shown = "**Liabilities**\n\n- Cash: 512, 1377600, 1327000"
    assert "misplaced_row" in _style_kinds(audit_document(shown, BALANCE))


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
    assert _style_kinds(audit_lines(altered, lines, markup="text")) == ["altered_row"]

    document = _one_row("12,5", "1.377", label="0,0")
    as_text = render_text(document)
    assert audit_document(as_text, document, markup="text").clean, as_text
    assert _style_kinds(audit_document(as_text.replace("1.377", "1.378"), document, markup="text")) == ["altered_row"]


def test_a_table_cell_is_drawn_once() -> None:
    """Under `,` (`2,5` says so), `1,377` reads 1.377; drawn a second time it would read 1377. A plain-text table
    line holding a space-grouped cell is drawn once, its grouped cells made so before."""
    document = _one_row(1377, 1.377, 2.5)
    assert audit_document("| R | 1 377 | 1,377 | 2,5 |", document, markup="text").clean
    assert _style_kinds(audit_document("| R | 1 377 | 1,378 | 2,5 |", document, markup="text")) == ["altered_row"]


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
    assert _style_kinds(audit_document(shown, document, markup="text")) == ["altered_row"]
    assert _style_kinds(audit_lines("Total: 1377\nRate 2,5", ["Total: 1.377", "Rate 2,5"], markup="text")) == [
        "altered_row"
    ]


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
    assert _style_kinds(audit_document(shown, _one_row(value), markup="text")) == ["altered_row"]


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
    assert _style_kinds(audit_document(shown, _one_row(1377, 5), markup="text")) == ["altered_row"]
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
    assert _style_kinds(audit_document("| R | 1 378 | 5 |", document, markup="text")) == ["altered_row"]


def test_a_number_a_views_escape_parts_from_a_word_is_the_results_own() -> None:
    """`12,5_` is a word as written; the Markdown view writes `12,5\\_`, where `12,5` reads as a number. It is still
    the result's, no evidence of the transcript's mark, so the label `0,0` keeps its reading."""
    document = Document(
        title="12,5_", sections=(Section(id="s", title="", columns=(), rows=(Row(id="r", label="0,0"),)),)
    )
    result = {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}
    assert audit(present({"name": "t"}, result).markdown, result, markup="markdown").clean


def test_a_flipped_sign_is_caught_in_a_table_in_free_form_and_in_a_text_result() -> None:
    assert "altered_row" in _style_kinds(
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
    assert "fabricated_row" in _style_kinds(audit_document(invented, document, markup="text"))
    # Above a `+===+` border too: only the box's first line is its header.
    above_heavy = boxed.replace("+======+", "| Bonus | 999 | 1 | 2 |\n+======+")
    assert "fabricated_row" in _style_kinds(audit_document(above_heavy, document, markup="text"))


def test_a_footnote_is_unverifiable_not_counted() -> None:
    document = BALANCE.model_copy(update={"sections": BALANCE.sections[1:]})
    table = "| | PCG | FY2025 | FY2024 |\n|---|---|---|---|\n| Debt | 164 | 612000 | 734000 |"
    hidden = f"## Liabilities\n\nSee below.\n\n[^n]: Note\n\n    {table.splitlines()[2]}\n"
    assert "unverifiable" in _style_kinds(audit_document(hidden, document))
    referenced = f"## Liabilities\n\n{table}[^1]\n\n[^1]: Partial result: more rows exist.\n"
    assert "unverifiable" in _style_kinds(audit_document(referenced, document))


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
    assert _style_kinds(audit_document(shown, document)) == ["duplicated_row"]


def test_deep_nesting_is_refused_in_one_line_and_many_comments_cost_little() -> None:
    from mcp_rendering.audit import AuditInputError

    with pytest.raises(AuditInputError, match="nest"):
        audit_document(">" * 36000 + " x", BALANCE)
    report = audit_document("- a " + "<!---->" * 5000, BALANCE)  # one walk of the block, not one a comment
    assert "unverifiable" in _style_kinds(report)


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
        assert _style_kinds(audit_document(swapped, document)) == ["altered_row"], swapped


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


FEES = Document(
    title="Fees",
    sections=(
        Section(
            id="f",
            title="Fees",
            columns=("amount", "ccy"),
            rows=(Row(id="a", label="Cash", values=(100, "EUR")), Row(id="b", label="Bank", values=(200, "EUR"))),
        ),
    ),
)


@pytest.mark.parametrize("tag", ["<br>", "<BR/>", "<br />"])
@pytest.mark.parametrize("block", ["", "- ", "> "])
def test_records_parted_by_a_line_break_tag_inside_a_line_are_lines_of_their_own(tag: str, block: str) -> None:
    """A reader sees `Cash: 100 EUR<br>Bank: 200 EUR` drawn as two lines, as if the line ended after the tag."""
    assert audit_document(f"## Fees\n\n{block}Cash: 100 EUR{tag} Bank: 200 EUR", FEES).clean
    shown = f"## Fees\n\nIntro.\n\n{block}Cash: 100 EUR{tag}Bank: 999 EUR{tag}Loan: 5 EUR\n\nEnd."
    altered = audit_document(shown, FEES)
    # Found on the transcript's own line, every one of them.
    assert _style_kinds(altered) == ["altered_row", "fabricated_row"]
    assert [issue.line for issue in altered.issues] == [5, 5]
    later = audit_document(f"## Fees\n\n{block}Cash: 100 EUR{tag}Cash: 100 EUR\n{block}Bank: 999 EUR", FEES)
    assert sorted((issue.kind, issue.line) for issue in later.issues) == [("altered_row", 4), ("duplicated_row", 3)]
    reordering = audit_document(f"## Fees\n\n{block}Cash: 100 EUR{tag}Bank: 200 EUR\n\nx \u202e y  \nz", FEES)
    assert [(issue.line, issue.detail[:24]) for issue in reordering.issues] == [
        (5, "the character U+202E (RI"),
        (6, "a bidi control on line 5"),
    ]
    swapped = audit_document(f"## Fees\n\n{block}Bank: 200 EUR{tag}Cash: 100 EUR", FEES)
    assert _style_kinds(swapped) == ["reordered_row"]
    repeated = audit_document(f"## Fees\n\n{block}Cash: 100 EUR{tag}Bank: 200 EUR{tag}Bank: 200 EUR", FEES)
    assert _style_kinds(repeated) == ["duplicated_row"]


def test_a_line_run_on_among_records_is_reported_when_it_repeats_one() -> None:
    """Records on lines a renderer runs together are shown, one run of text; a line among them that repeats one is
    a repeat, while other words run on there are the host's sentence."""
    for sentence in ("The fees are\nCash: 100 EUR\nand\nBank: 200 EUR", "Cash: 100 EUR\n(paid in May)\nBank: 200 EUR"):
        assert audit_document(f"## Fees\n\n{sentence}", FEES).clean, sentence
    for repeated in ("Cash: 100 EUR\nCash: 100 EUR\nBank: 200 EUR", "Cash: 100 EUR\nBank: 200 EUR\nBank: 200 EUR"):
        assert _style_kinds(audit_document(f"## Fees\n\n{repeated}", FEES)) == ["duplicated_row"], repeated
    # A repeat is a repeat wherever it is, in another paragraph or list too; the words around a recap are the host's.
    for again in (
        "Cash: 100 EUR<br>Bank: 200 EUR",
        "Cash: 100 EUR  \nBank: 200 EUR",
        "- Cash: 100 EUR\n- Bank: 200 EUR",
    ):
        recap = again.replace("Cash: 100 EUR", "Total of both: 300 EUR")
        twice = audit_document(f"## Fees\n\n{again}\n\nIn short:\n\n{recap}", FEES)
        assert [(issue.kind, issue.line) for issue in twice.issues] == [("duplicated_row", 7 + 2 * again.count("\n"))]
    # In a list, a line after a hard break comments on its item's record, or repeats one.
    assert audit_document("## Fees\n\n- Cash: 100 EUR  \n  (paid)\n- Bank: 200 EUR", FEES).clean
    again = audit_document("## Fees\n\n- Cash: 100 EUR  \n  Cash: 100 EUR\n- Bank: 200 EUR", FEES)
    assert [(issue.kind, issue.line) for issue in again.issues] == [("duplicated_row", 4)]


@pytest.mark.parametrize(
    "elsewhere",
    ["Use `<br>` here.", "Use ``a<br> x`` here.", "```\nx<br>y\n```", "x<br>- y", "Write \\<br>x to break a line."],
)
def test_a_line_break_tag_elsewhere_shown_as_written_or_left_in_its_line_changes_no_other_line(elsewhere: str) -> None:
    assert audit_document(f"## Fees\n\nCash: 100 EUR<br>Bank: 200 EUR\n\n{elsewhere}", FEES).clean


def test_a_construct_reaching_past_the_last_line_is_reported_on_the_last_line() -> None:
    """A line break the renderer decodes at the end of raw HTML would place it past the transcript's end."""
    for shown in ("a<span>&#10;", "a<br>b<span>&#10;"):
        report = audit_document(shown, FEES)
        assert {issue.line for issue in report.issues if issue.kind == "unverifiable"} == {1}, shown


def test_what_a_line_ended_by_a_tag_hides_is_reported_once_on_its_transcript_line() -> None:
    for shown, kind in (("~~Cash: 100 EUR<br>Bank: 200 EUR~~", "unverifiable"), ("a\u202e<br>b", "hidden_content")):
        report = audit_document(f"## Fees\n\n{shown}", FEES)
        assert [(issue.kind, issue.line) for issue in report.issues if issue.line is not None] == [(kind, 3)]


@pytest.mark.parametrize(
    "shown",
    [
        "## Fees\n\n`Cash: 100 EUR<br>Bank: 200 EUR`",  # shown as written, on one line
        "## Fees\n\n```\nCash: 100 EUR<br>Bank: 200 EUR\n```",
        "## Fees\n\nCash: 100 EUR<br><b>Bank</b>: 200 EUR",  # escaped, the tag would show as written
        "## Fees\n\nCash: 100 EUR<br># Bank: 200 EUR",  # drawn as the text it is: no list's marker
        "## Fees\n\nCash: 100 EUR<br>> Bank: 200 EUR",
    ],
)
def test_a_line_break_tag_is_not_read_as_ending_its_line_where_the_renderer_would_draw_otherwise(shown: str) -> None:
    assert not audit_document(shown, FEES).clean


@pytest.mark.parametrize("markers", [("1.", "2."), ("-", "-"), ("", "2."), ("", "-"), ("1)", "2)"), ("", "\u2022")])
def test_records_drawn_after_a_line_break_tag_with_a_lists_marker_are_read_without_it(markers: tuple[str, str]) -> None:
    """`1. Cash: 100 EUR<br>2. Bank: 200 EUR` is drawn as a numbered list: the second line shows its marker as text
    (ended there, it would start a list of its own), read as a marker, as in plain text."""
    first, second = (f"{marker} " if marker else "" for marker in markers)
    assert audit_document(f"## Fees\n\n{first}Cash: 100 EUR<br>{second}Bank: 200 EUR", FEES).clean
    altered = audit_document(f"## Fees\n\n{first}Cash: 100 EUR<br>{second}Bank: 999 EUR", FEES)
    assert [(issue.kind, issue.line) for issue in altered.issues] == [("altered_row", 3)]
    swapped = audit_document(f"## Fees\n\n{first}Bank: 200 EUR<br>{second}Cash: 100 EUR", FEES)
    assert [issue.kind for issue in swapped.issues] == ["reordered_row"]
    # The same drawn after a hard break, or escaped at a paragraph's start.
    escaped = second.replace(".", "\\.").replace(")", "\\)").replace("-", "\\-")
    assert audit_document(f"## Fees\n\n{first}Cash: 100 EUR  \n{escaped}Bank: 200 EUR", FEES).clean
    assert audit_document(f"## Fees\n\n{escaped}Cash: 100 EUR\n\n{escaped}Bank: 200 EUR", FEES).clean
    # A line below a record of its block is record-shaped, whether its marker is drawn as text or not, and whether
    # the records above show theirs or not.
    for before in (f"{first}Cash: 100 EUR<br>{second}Bank: 200 EUR", "Cash: 100 EUR<br>Bank: 200 EUR"):
        for after in ("<br>", "  \n"):
            for invented in (f"{escaped}Loan: 5 EUR", f"{escaped}Bank: 999 EUR"):
                shown = f"## Fees\n\n{before}{after}{invented}"
                assert [issue.kind for issue in audit_document(shown, FEES).issues] == ["fabricated_row"], shown


@pytest.mark.parametrize(
    ("shown", "line"),
    [
        ("- Cash: 100 EUR<br>- Loan: 5 EUR\n- Bank: 200 EUR", 3),
        ("- Cash: 100 EUR\n- Bank: 200 EUR<br>- Loan: 5 EUR", 4),
        ("1. Cash: 100 EUR<br>2. Loan: 5 EUR<br>3. Bank: 200 EUR", 3),
        ("1. Cash: 100 EUR<br>2) Loan: 5 EUR<br>3. Bank: 200 EUR", 3),
        ("* Cash: 100 EUR<br>- Loan: 5 EUR\n* Bank: 200 EUR", 3),
        ("- Cash: 100 EUR<br>\u2022 Loan: 5 EUR\n- Bank: 200 EUR", 3),
        ("1. Cash: 100 EUR  \n2\\. Loan: 5 EUR  \n3\\. Bank: 200 EUR", 4),
        ("Fees:<br>- Loan: 5 EUR<br>- Cash: 100 EUR<br>- Bank: 200 EUR", 3),
        ("Fees are:  \n\\- Loan: 5 EUR  \n\\- Cash: 100 EUR  \n\\- Bank: 200 EUR", 4),
        ("- Cash: 100 EUR<br>- Bank: 999 EUR\n- Bank: 200 EUR", 3),
        ("- Cash: 100 EUR\n- Bank: 200 EUR<br>- 250 EUR", 4),
        ("- Cash: 100 EUR  \n  \u2022 waived in 2024\n- Bank: 200 EUR", 4),
        ("\\- Loan: 5 EUR\n\n- Cash: 100 EUR\n- Bank: 200 EUR", None),
    ],
)
def test_a_line_drawn_with_a_lists_marker_among_records_is_one_more_of_them(shown: str, line: int | None) -> None:
    """Drawn with a list's marker in a list or paragraph of records, a line reads as one more record, whatever the
    marker and wherever it is among them, as in plain text; a marker drawn in another block says nothing of them."""
    issues = audit_document(f"## Fees\n\n{shown}", FEES).issues
    assert [(issue.kind, issue.line) for issue in issues] == ([("fabricated_row", line)] if line else [])


@pytest.mark.parametrize(
    "shown",
    [
        "Notes:<br>- all fine<br>2024. A good year<br>\u2022 ok\n\n- Cash: 100 EUR\n- Bank: 200 EUR",
        "- Cash: 100 EUR  \n  (paid in May)\n- Bank: 200 EUR",
        "- Cash: 100 EUR\n  - paid in May\n- Bank: 200 EUR",  # a list of its own, of no record
        "\u2022 Figures in EUR  \nCash: 100 EUR  \nBank: 200 EUR",  # above records no marked line shows
    ],
)
def test_the_hosts_words_beside_records_are_the_hosts(shown: str) -> None:
    """A line after a hard break in an item of records, with no list's marker, comments on it; so do the items of
    a list, or the lines of a paragraph, that show no record."""
    assert audit_document("## Fees\n\n" + shown, FEES).clean


@pytest.mark.parametrize("shown", ["Balance  \n\\- 250", "Balance<br>- 250", "Balance  \n\\+ 250"])
def test_a_bullet_drawn_as_text_before_a_number_is_its_sign(shown: str) -> None:
    """`- 250` reads as a negative number, drawn as text as in a list's item: not the result's `250`."""
    assert [issue.kind for issue in audit_lines(shown, ["Balance", "250"]).issues] == ["altered_row"]
    assert audit_lines(shown, ["Balance", shown.rpartition("\\")[2].rpartition(">")[2]]).clean


def test_a_label_that_begins_as_a_lists_marker_is_read_with_it() -> None:
    """`+ Other` drawn at the start of a line may be the label or a marker before `Other`."""
    document = FEES.model_copy(
        update={
            "sections": (
                FEES.sections[0].model_copy(
                    update={"rows": (*FEES.sections[0].rows[:1], Row(id="o", label="+ Other", values=(200, "EUR")))}
                ),
            )
        }
    )
    assert audit_document("## Fees\n\nCash: 100 EUR  \n\\+ Other: 200 EUR", document).clean
    assert audit_document("## Fees\n\nCash: 100 EUR<br>+ Other: 200 EUR", document).clean
    assert not audit_document("## Fees\n\nCash: 100 EUR<br>+ Other: 999 EUR", document).clean


# ----------------------------------------------------------- rule 9: the partial notice, as written and as paraphrased
# Rule 9, the partial notice: which wording counts for which state of a result (the host guide, "The partial
# notice"), as the host writes it (`present()`, `final_answer`) and as a model paraphrases it, in plain text, a quote
# and bold; `present()`'s own views audit clean in every state, and the command line gives the same verdict.


HITS = Document(
    title="Hits",
    sections=(
        Section(
            id="hits",
            title="Hits",
            columns=("score",),
            rows=tuple(Row(id=f"h{n}", label=f"Hit {n}", values=(n * 10,)) for n in range(6)),
        ),
    ),
)
HINTS = {"io.modelcontextprotocol/rendering": {"verbatimHint": True}}
TOOL = {"name": "hits", "inputSchema": {"type": "object"}, "_meta": HINTS}
PAGED_TOOL = {
    "name": "hits",
    "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}},
    "_meta": {**HINTS, **CONTINUATION_TOOL_META},
}


def _notice_result(meta: dict[str, Any]) -> dict[str, Any]:
    return {"content": [], "structuredContent": {"document": HITS.model_dump(mode="json")}, "_meta": meta}


# Each state: the tool it is read with, and the result.
STATES: dict[ResultState, tuple[dict[str, Any], dict[str, Any]]] = {
    "complete": (TOOL, _notice_result(meta_carriers({"mode": "verbatim", "complete": True}))),
    "not-stated": (TOOL, _notice_result({})),  # a verbatim tool's result without a directive
    "partial": (TOOL, _notice_result(meta_carriers({"mode": "verbatim", "complete": False}))),
    "continued": (
        PAGED_TOOL,
        _notice_result(
            meta_carriers({"mode": "verbatim", "complete": False, "continuation": {"argument": "cursor", "token": "t"}})
        ),
    ),
}


def _notice(state: ResultState, max_rows: int | None = None) -> str:
    tool, result = STATES[state]
    notice = present(tool, result, arguments={}, max_rows=max_rows).notice
    assert notice is not None
    return notice


def _model_notice() -> str:
    """The notice the framing asks a model to write for a continued result: the call to make, token included."""
    tool, result = STATES["continued"]
    framing = present(tool, result, arguments={}).framing
    assert framing is not None
    return framing.split("says that more records exist. ", 1)[1].split("\n", 1)[0]


def _answer_notice(state: ResultState) -> str:
    """The line `final_answer` writes for an answer its bound cut."""
    tool, result = STATES[state]
    answer = final_answer(tool, result, arguments={}, max_rows=2)
    return next(line for line in answer.text.split("\n\n") if line.startswith("Partial result:"))


# What each wording says: "partial" with or without a way to get the rest, or "not-stated".
WORDINGS: dict[str, tuple[str, str]] = {
    "host, partial": (_notice("partial"), "partial"),
    "host, continued": (_notice("continued"), "partial, with the way"),
    "host, continued, the model's": (_model_notice(), "partial, with the way"),
    "host, not-stated": (_notice("not-stated"), "not-stated"),
    "host, cut": (_notice("complete", max_rows=2), "partial"),  # the rest of this result is not shown: no way
    "host, answer cut": (_answer_notice("complete"), "partial, with the way"),
    "host, answer cut, a page": (_answer_notice("continued"), "partial, with the way"),
    "only part": ("Note: this is only part of the results", "partial"),
    "showing N of M": ("Showing 6 of 300 hits; ask for more", "partial, with the way"),
    "only part, ask": ("Note: this is only part of the results. Ask me for the rest.", "partial, with the way"),
    "first N only": ("Only the first 6 of 300 hits are listed here.", "partial"),
    "not all": ("Not all hits are shown: I can fetch more.", "partial, with the way"),
    "not all of the": ("Not all of the matching hits are listed.", "partial"),
    "more exist": ("There are more matching hits available; say 'more'.", "partial, with the way"),
    "not-stated, paraphrased": ("The server didn't say whether these are all the hits.", "not-stated"),
    "may be incomplete": ("This list may be incomplete.", "not-stated"),
}


def _accepted(state: ResultState, says: str) -> bool:
    """The host guide's table: which notice each state needs."""
    if state == "complete":
        return says == "not-stated"  # a line saying completeness is unknown does not say records are missing
    if state == "not-stated":
        return True
    if state == "partial":
        return says != "not-stated"
    return says == "partial, with the way"


def _bold_head(notice: str) -> str:
    head, colon, tail = notice.partition(":")
    if not colon:
        head, _, tail = notice.partition(" ")
        return f"**{head}** {tail}"
    return f"**{head}:**{tail}"


FORMS = {
    "plain": (lambda notice: notice, "text"),
    "quote": (lambda notice: f"> {notice}", "markdown"),
    "bold": (lambda notice: f"**{notice}**", "markdown"),
    "bold head": (_bold_head, "markdown"),
}


def _body(markup: str) -> str:
    """The records as `present()` shows a complete result, without any notice."""
    tool, result = STATES["complete"]
    shown = present(tool, result)
    return shown.markdown if markup == "markdown" else shown.text


def _audit(state: ResultState, shown: str, markup: str) -> list[str]:
    tool, result = STATES[state]
    report = audit(shown, result, markup="markdown" if markup == "markdown" else "text", tool=tool, arguments={})
    return [issue.kind for issue in report.issues]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("wording", WORDINGS)
@pytest.mark.parametrize("state", STATES)
def test_each_state_accepts_the_notices_that_say_what_it_is(state: ResultState, wording: str, form: str) -> None:
    notice, says = WORDINGS[wording]
    write, markup = FORMS[form]
    kinds = _audit(state, f"{write(notice)}\n\n{_body(markup)}", markup)
    assert kinds == ([] if _accepted(state, says) else ["completeness_misstated"]), (state, wording, form)


@pytest.mark.parametrize("state", STATES)
def test_no_notice_is_enough_only_for_a_complete_result(state: ResultState) -> None:
    for markup in ("text", "markdown"):
        kinds = _audit(state, _body(markup), markup)
        assert kinds == ([] if state == "complete" else ["completeness_misstated"]), (state, markup)


def test_the_states_are_read_as_present_reads_them() -> None:
    for state, (tool, result) in STATES.items():
        assert result_state(result, tool=tool, arguments={}) == state
    # Read without the tool, a continuation cannot be followed, but it still says the result is partial.
    assert result_state(STATES["continued"][1]) == "partial"
    assert "The rest can be fetched" in WORDINGS["host, continued"][0]
    assert "no way to fetch the rest" in WORDINGS["host, partial"][0]
    assert WORDINGS["host, not-stated"][0] == UNSTATED_COMPLETENESS


@pytest.mark.parametrize(
    "notice",
    [
        "Note: this is only part of the results; there is no way to get the rest.",
        "Showing 6 of 300 hits. The server gave no way to fetch the rest.",
        "Note: this is only part of the results, and I cannot fetch more.",
    ],
)
def test_a_way_the_notice_denies_is_no_way(notice: str) -> None:
    assert _audit("continued", f"{notice}\n\n{_body('text')}", "text") == ["completeness_misstated"]
    assert _audit("partial", f"{notice}\n\n{_body('text')}", "text") == []


@pytest.mark.parametrize(
    "line",
    [
        "Showing 6 of 6 hits.",  # the whole
        "Hits 1 to 6 of 6.",
        "This is the complete list, not a partial one.",
        "Incomplete? No: nothing is truncated.",
        "Not partial: every hit is here.",
        "I checked whether the server did say everything.",
        "More information is available in the annual report.",  # closing remarks, of no records
        "This is not the full picture: margins fell.",
        "The table is part of the FY2025 filing.",
    ],
)
def test_a_line_that_does_not_open_as_a_notice_is_none(line: str) -> None:
    for state in ("partial", "not-stated"):
        assert _audit(state, f"{line}\n\n{_body('text')}", "text") == ["completeness_misstated"], (state, line)
    assert _audit("complete", f"{line}\n\n{_body('text')}", "text") == []


def test_a_range_short_of_the_whole_is_partial() -> None:
    for line in ("Showing records 51 to 100 of 300.", "Rows 1-6 of 300 below."):
        assert _audit("partial", f"{line}\n\n{_body('text')}", "text") == [], line
        assert _audit("complete", f"{line}\n\n{_body('text')}", "text") == ["completeness_misstated"], line


def test_a_notice_over_two_lines_of_its_paragraph_says_the_way_on_the_second() -> None:
    shown = f"Note: this is only part of the results.\nAsk me for the rest.\n\n{_body('markdown')}"
    assert _audit("continued", shown, "markdown") == []
    apart = f"Note: this is only part of the results.\n\nAsk me for the rest.\n\n{_body('markdown')}"
    assert _audit("continued", apart, "markdown") == ["completeness_misstated"]


@pytest.mark.parametrize("state", STATES)
def test_presents_own_views_and_final_answers_audit_clean_in_every_state(state: ResultState) -> None:
    tool, result = STATES[state]
    for arguments in ({}, None):
        shown = present(tool, result, arguments=arguments)
        answer = final_answer(tool, result, arguments=arguments)
        views: list[tuple[str, Markup]] = [(shown.text, "text"), (shown.markdown, "markdown")]
        for text, markup in views:
            assert audit(text, result, markup=markup, tool=tool, arguments=arguments).clean, (state, markup)
        answers: list[tuple[str, Markup]] = [(answer.text, "text"), (answer.markdown, "markdown")]
        for text, markup in answers:
            assert audit(text, result, markup=markup, tool=tool, arguments=arguments).clean, (state, markup)
    # Without the tool, as the command line reads it, and with `present()` reading it so too.
    shown = present(None, result)
    assert audit(shown.text, result, markup="text").clean
    assert audit(present(tool, result, arguments={}).text, result, markup="text").clean


@pytest.mark.parametrize("state", STATES)
def test_a_view_the_host_cut_audits_as_partial(state: ResultState) -> None:
    """Cut by the host's bound: against what the host forwarded (which it marks partial) the view is clean, and a
    model's answer needs a notice; against the whole result, what is not shown is missing, and the notice is true."""
    tool, result = STATES[state]
    for cut in (
        present(tool, result, arguments={}, max_rows=2),
        final_answer(tool, result, max_rows=2, arguments={}).presentation,
    ):
        forwarded = cut.model_result
        assert result_state(forwarded) == "partial"
        views: list[tuple[str, Markup]] = [(cut.text, "text"), (cut.markdown, "markdown")]
        for text, markup in views:
            assert audit(text, forwarded, markup=markup).clean, (state, markup)
            kinds = {issue.kind for issue in audit(text, result, markup=markup, tool=tool, arguments={}).issues}
            assert kinds == {"missing_row"}, (state, markup)
        rows = cut.text.split("\n\n", 1)[1]
        assert audit(rows, forwarded, markup="text").completeness_misstated
        assert audit(f"Note: this is only part of the results\n\n{rows}", forwarded, markup="text").clean
    answer = final_answer(tool, result, max_rows=2, arguments={})
    assert audit(answer.text, answer.presentation.model_result, markup="text").clean


def test_a_complete_result_shown_whole_has_no_partial_notice_but_one_left_short_may() -> None:
    rows = "\n".join(f"| Hit {n} | {n * 10} |" for n in range(6))
    assert audit_document(f"Showing 6 of 300 hits.\n{rows}", HITS).completeness_misstated
    # A record left out is the finding; the notice saying the view is partial is true.
    short = audit_document("Showing 5 of 6 hits.\n" + "\n".join(rows.split("\n")[:5]), HITS)
    assert [issue.kind for issue in short.issues] == ["missing_row"]


def test_an_answer_built_by_final_answer_for_a_partial_result_passes() -> None:
    for state in ("partial", "continued", "not-stated"):
        tool, result = STATES[state]
        answer = final_answer(tool, result, arguments={})
        assert not answer.complete
        assert audit(answer.text, result, markup="text", tool=tool, arguments={}).clean, state
        assert audit(answer.markdown, result, markup="markdown", tool=tool, arguments={}).clean, state


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("wording", ["host, partial", "host, not-stated", "only part", "showing N of M"])
def test_the_command_line_gives_the_same_verdict(state: ResultState, wording: str, tmp_path: Path) -> None:
    """The command line reads the result without its tool: a continuation then says "partial" only."""
    _, result = STATES[state]
    result_file = tmp_path / "result.json"
    result_file.write_text(json.dumps(result), encoding="utf-8")
    transcript = tmp_path / "shown.txt"
    transcript.write_text(f"{WORDINGS[wording][0]}\n\n{_body('text')}", encoding="utf-8")
    report = audit(transcript.read_text(encoding="utf-8"), result, markup="text")
    said = "not-stated" if WORDINGS[wording][1] == "not-stated" else "partial"
    assert report.clean == _accepted(result_state(result), said)
    assert _cli_main(["audit", str(result_file), str(transcript)]) == (0 if report.clean else 1)


# --------------------------------------------------------------------- one answer over the parts of a continued result
# One answer over the parts of a continued result, audited as one; a paged result audited without a false warning;
# bad input answered with a verdict or one line.


_DOCUMENT = orgchart._document("legal")  # pyright: ignore[reportPrivateUsage]
_TOOL: dict[str, Any] = {
    "name": orgchart.TOOL,
    "inputSchema": {"type": "object", "properties": {"division": {"type": "string"}, "cursor": {"type": "string"}}},
    "_meta": continuation_tool_meta("cursor"),
    "annotations": {"verbatimHint": True},
}


def _parts() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(arguments, wire result) of each part of the legal division's chart, fetched as a host follows them."""
    envelope = Envelope(
        tool=orgchart.TOOL, tokens=continuation_tokens(), budget=Budget(max_items=100), argument="cursor"
    )
    arguments: dict[str, Any] | None = {"division": "legal"}
    parts: list[tuple[dict[str, Any], dict[str, Any]]] = []
    while arguments is not None:
        result = paged_result(
            envelope,
            _DOCUMENT,
            arguments=arguments,
            caller="anonymous",
            directive=Rendering(mode="verbatim", null_display="n/a", complete=True),
        )
        wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        parts.append((arguments, wire))
        arguments = present(_TOOL, wire, arguments=arguments).next_arguments(arguments)
    return parts


_PARTS = _parts()
_WHOLE = render_markdown(_DOCUMENT, null_display="n/a")


def test_an_answer_over_every_part_audits_as_one_against_the_parts_combined() -> None:
    assert len(_PARTS) == 5
    wires = [wire for _, wire in _PARTS]
    report = audit(_WHOLE, wires)
    assert report.clean, report.format()
    assert (report.rows_expected, report.result_complete) == (435, True)
    # Each part alone: the records of the others stand for none of its own.
    assert audit(_WHOLE, wires[0]).fabricated


def test_the_partial_notice_is_required_only_where_the_combined_result_is_still_partial() -> None:
    wires = [wire for _, wire in _PARTS]
    notice = "Partial result: the rest of the chart is still to come.\n\n"
    assert audit(notice + _WHOLE, wires).completeness_misstated
    shown_so_far = render_markdown(_DOCUMENT.model_copy(update={"sections": _cut(400)}), null_display="n/a")
    partial = audit(notice + shown_so_far, wires[:4])
    assert partial.clean and not partial.result_complete, partial.format()
    assert audit(shown_so_far, wires[:4]).completeness_misstated


def _cut(rows: int) -> tuple[Any, ...]:
    section = _DOCUMENT.sections[0]
    return (section.model_copy(update={"rows": section.rows[:rows]}),)


def test_a_paged_result_is_audited_without_a_false_warning(caplog: pytest.LogCaptureFixture) -> None:
    arguments, wire = _PARTS[1]
    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        audit(present(_TOOL, wire, arguments=arguments).markdown, wire)
        audit(present(_TOOL, wire, arguments=arguments).markdown, wire, tool=_TOOL, arguments=arguments)
        audit(_WHOLE, [wire for _, wire in _PARTS])
    assert not caplog.records


def test_parts_that_are_not_of_one_result_are_refused_in_one_line() -> None:
    text = {"content": [{"type": "text", "text": "a line"}]}
    with pytest.raises(AuditInputError, match="not parts of one result"):
        audit("x", [_PARTS[0][1], text])
    with pytest.raises(AuditInputError, match="empty"):
        audit("x", [])
    with pytest.raises(AuditInputError, match="not parts of one result"):
        audit("x", [_PARTS[0][1], _PARTS[0][1]])  # the same records twice: ids repeat


def test_parts_given_a_tool_or_arguments_and_a_tool_not_in_wire_form_are_refused_in_one_line() -> None:
    """Each part's call had arguments of its own: one tool and one set of arguments for all would be read wrongly,
    so they are refused rather than ignored. A tool dumped with the SDK's Python field names is refused too."""
    wires = [wire for _, wire in _PARTS]
    with pytest.raises(AuditInputError, match="the parts of a continued result are audited without a tool"):
        audit(_WHOLE, wires, tool=_TOOL)
    with pytest.raises(AuditInputError, match="the parts of a continued result are audited without a tool"):
        audit(_WHOLE, wires, arguments={})
    python_names = {**_TOOL, "input_schema": _TOOL["inputSchema"]}
    del python_names["inputSchema"]
    with pytest.raises(AuditInputError, match=r"the tool cannot be read: .*by_alias=True"):
        audit(_WHOLE, wires[0], tool=python_names, arguments=_PARTS[0][0])


@pytest.mark.parametrize(
    ("transcript", "verdict"),
    [
        ("", "records intact"),  # empty: every record missing
        (
            "| Poste | Code | Intitulé | Site | Rattachement |\n|---|---|---|---|---|\n| A | B | C | D | E |",
            "fabricated",
        ),
        ("Screening report\n\n| Fenna Paskwick | CUST-00014 | x | 0.87 | 1978-09-01 | Estoval |", "fabricated"),
    ],
)
def test_bad_transcripts_get_a_clear_verdict(transcript: str, verdict: str) -> None:
    report = audit(transcript, _PARTS[-1][1])
    assert not report.clean and verdict in report.format()


def test_a_result_with_no_records_gets_a_verdict() -> None:
    empty = {"content": []}
    assert audit("", empty).clean
    assert audit("Here is nothing.", empty).rows_expected == 0


@pytest.mark.timeout(10)  # a hang is a failure, not a wait
def test_the_command_line_audits_parts_as_one_and_never_hangs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files: list[str] = []
    for number, (_, wire) in enumerate(_PARTS):
        path = tmp_path / f"part{number}.json"
        path.write_text(json.dumps(wire), encoding="utf-8")
        files.append(str(path))
    transcript = tmp_path / "answer.md"
    transcript.write_text(_WHOLE, encoding="utf-8")
    assert _cli_main(["audit", *files, str(transcript)]) == 0
    assert capsys.readouterr().out.startswith("fidelity: clean; score 1.000; 435/435 records intact; result complete")
    assert _cli_main(["audit", files[0], str(transcript)]) == 1
    capsys.readouterr()
    # Hostile transcripts of 36 KB: each comes back, with a verdict or one line.
    hostile_shapes = (
        ">" * 36_000 + " x",
        "- a " + "<!---->" * 5_000,
        "a " + "<b>" * 9_000,
        "| x |\n|-|\n| " + "<!---->" * 5_000,
        "| " * 18_000,  # one line of 18,000 cells: indexed once a label length, not once a cell
    )
    for hostile in hostile_shapes:
        transcript.write_text(hostile, encoding="utf-8")
        status = _cli_main(["audit", files[0], str(transcript)])
        _, err = capsys.readouterr()
        assert status in (1, 2) and "Traceback" not in err
        if status == 2:
            assert err.count("\n") == 1 and "nests block quotes" in err


def test_a_wide_line_is_indexed_once_a_label_length_not_once_a_cell() -> None:
    """The index of lines that may show an altered record holds a line under the label lengths rows have: a line of
    n cells costs n, not n squared."""
    audit_module = importlib.import_module("mcp_rendering.audit")
    reader, _ = audit_module._read("| " * 2_000 + "|", "text")
    matcher = audit_module._Matcher(reader.lines, audit_module._Records(_DOCUMENT, "n/a", exact_cells=False))
    matcher.run()
    assert len(matcher.label_lines) == 1


# ---------------------------------------------------------------------------- rows that share a label: the label index
# Rows that share a label are found for a free-form line through an index of their values (`_LabelIndex`): the
# line is checked exactly only against the rows whose values it holds. The index finds what checking every row
# finds, and the exact checks a faithful transcript costs grow with the rows, not with their square.

_AUDIT: Any = importlib.import_module("mcp_rendering.audit")
_VALUE = st.one_of(st.sampled_from(["", "1", "2", "10", "EUR", "a b", "(1)", "-", "1.5", "x:"]), st.integers(-20, 20))


def _section(rows: list[Row], columns: tuple[str, ...]) -> Document:
    return Document(title="Ledger", sections=(Section(id="s", title="Fees", columns=columns, rows=tuple(rows)),))


@contextmanager
def _rows_of_a_label_checked_one_by_one(limit: int) -> Iterator[None]:
    saved = _AUDIT._FEW_OF_A_LABEL
    _AUDIT._FEW_OF_A_LABEL = limit
    try:
        yield
    finally:
        _AUDIT._FEW_OF_A_LABEL = saved


def _summary(report: AuditReport) -> list[tuple[str, str | None, int | None]]:
    return [(issue.kind, issue.row_id, issue.line) for issue in report.issues]


@given(
    st.lists(st.tuples(st.sampled_from(["Fee", "Fee 2", "Tax"]), _VALUE, _VALUE), min_size=1, max_size=14),
    st.lists(st.text(st.sampled_from(list("Fee Tax12:,()-.EUR0ab")), max_size=16), max_size=6),
    st.permutations(range(14)),
)
def test_the_label_index_finds_what_checking_every_row_finds(
    rows: list[tuple[str, Any, Any]], added: list[str], order: list[int]
) -> None:
    """Free-form lines (the rows shown in some order, with lines of noise) audit alike whether the rows of a label
    are checked one by one or found through the index."""
    document = _section(
        [Row(id=f"r{n}", label=label, values=(a, b)) for n, (label, a, b) in enumerate(rows)], ("amount", "ccy")
    )
    shown = [f"- {label}: {a}, {b}" for label, a, b in rows]
    shown = [shown[i] for i in order if i < len(shown)] + [f"- {text}" for text in added]
    transcript = "\n".join(shown)
    with _rows_of_a_label_checked_one_by_one(10**9):
        each = audit_document(transcript, document, markup="text")
    with _rows_of_a_label_checked_one_by_one(0):
        indexed = audit_document(transcript, document, markup="text")
    assert _summary(indexed) == _summary(each)
    assert (indexed.rows_intact, indexed.score) == (each.rows_intact, each.score)


@pytest.mark.parametrize("rows", [1_000, 4_000])
def test_free_form_lines_sharing_a_label_cost_exact_checks_linear_in_the_rows(
    rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of rows under three labels, shown one free-form line each: the exact value checks stay within a
    few per line (checking every row of the label would be a third of the rows per line)."""
    document = _section(
        [Row(id=f"r{n}", label=f"Fee {n % 3}", values=(n * 3, "EUR")) for n in range(rows)], ("amount", "ccy")
    )
    transcript = "\n".join(f"- Fee {n % 3}: {n * 3}, EUR" for n in range(rows))
    checks = 0
    exact = _AUDIT._free_values

    def counted(*arguments: Any) -> bool:
        nonlocal checks
        checks += 1
        return exact(*arguments)

    monkeypatch.setattr(_AUDIT, "_free_values", counted)
    report = audit_document(transcript, document, markup="text")
    assert report.clean, report.format()
    assert checks <= 2 * rows


_PIECE = st.sampled_from(["1", "10", "EUR", "a b", "x", ""])
_GLUE = st.sampled_from([" ", ", ", ": ", "(", ")", "/", ".", ";", "", "=", ",", " - "])


@given(st.lists(st.one_of(_PIECE, _GLUE), max_size=12), st.lists(st.integers(1, 4), max_size=3, unique=True))
def test_the_delimited_pieces_are_those_the_token_search_finds(parts: list[str], lengths: list[int]) -> None:
    """`_delimited_pieces` lists exactly the pieces of the given lengths that `_find_token` finds in the text, and
    `_find_token` says "nowhere" as (-1, -1)."""
    text = "".join(parts)
    lengths = sorted(lengths)
    substrings = {text[start : start + n] for n in lengths for start in range(len(text) - n + 1)}
    found = {piece for piece in substrings if _AUDIT._find_token(text, piece, 0) != (-1, -1)}
    assert _AUDIT._delimited_pieces(text, lengths) == found
    assert _AUDIT._find_token(text, "\x00", 0) == (-1, -1)


@given(
    st.lists(st.tuples(st.integers(1, 3), st.lists(_PIECE, min_size=3, max_size=3)), min_size=1, max_size=12),
    st.lists(st.one_of(_PIECE, _GLUE), max_size=10),
)
# A row that ends where three longer ones go on, read from a line with no piece: the walk looks the pieces up there.
@example([(1, ["", "", ""]), (2, ["", "1", ""]), (2, ["", "x", ""]), (2, ["", "10", ""])], [])
def test_the_label_index_holds_rows_of_every_width(rows: list[tuple[int, list[str]]], parts: list[str]) -> None:
    """Rows of one label in sections of different widths (a row's values may prefix another's): the index finds
    every row each of whose non-empty values the line holds as a delimited piece, and no other."""
    widths = sorted({width for width, _ in rows})
    sections = tuple(
        Section(
            id=f"s{width}",
            title=f"Width {width}",
            columns=tuple(f"c{n}" for n in range(width)),
            rows=tuple(
                Row(id=f"r{n}", label="Fee", values=tuple(values[:width]))
                for n, (row_width, values) in enumerate(rows)
                if row_width == width
            ),
        )
        for width in widths
    )
    expected = _AUDIT._expected_rows(Document(title="Fees", sections=sections), "n/a", False)
    rest = "".join(parts)
    oracle = [
        row.number
        for row in expected
        if all(_AUDIT._find_token(rest, value, 0) != (-1, -1) for value in row.values if value)
    ]
    assert _AUDIT._LabelIndex(expected).candidates(rest) == oracle
