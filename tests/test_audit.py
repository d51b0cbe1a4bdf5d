"""The fidelity audit on concrete transcripts, including formats other than the reference renderings, and its CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_rendering.audit import audit, audit_document, audit_main
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present

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


def _result(complete: bool = True, null_display: str | None = None) -> dict[str, Any]:
    directive: dict[str, Any] = {"mode": "verbatim"}
    if null_display is not None:
        directive["nullDisplay"] = null_display
    if not complete:
        directive.update(complete=False, continuation={"argument": "cursor", "token": "t"})
    return {
        "content": [{"type": "text", "text": "see structured content"}],
        "structuredContent": {"document": STATEMENT.model_dump(mode="json"), "_rendering": directive},
        "_rendering": directive,
    }


def test_a_bullet_transcript_that_keeps_everything_is_clean() -> None:
    shown = """Here is the statement.

**Revenue**
- Sales: 1000, 1200
  - Services: 300, -
- Subtotal: Revenue 1300 / 1500

CAGR breakdown
- Growth (3%)

Dividend history: nothing recorded.

- **Total:** Net income = 90.
"""
    report = audit(shown, _result())
    assert report.clean, report.format()
    assert report.markup == "text"


def test_the_summaries_the_proposal_complains_about_are_caught() -> None:
    # A five-line synthesis: subtotals collapsed, a "low-value" section skipped, rows reordered.
    shown = """Revenue grew to 1500.
- Services: 300, -
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
    report = audit(text.replace("| 1000 |", "| 1,000 |"), _result())
    assert [(issue.kind, issue.row_id) for issue in report.issues] == [("altered_row", "sales")]
    assert report.issues[0].line is not None
    assert "1,000" in report.issues[0].detail


def test_rounding_in_free_form_is_caught() -> None:
    document = Document(
        title="t",
        sections=(Section(id="s", title="s", columns=("v",), rows=(Row(id="r", label="Rate", values=(0.125,)),)),),
    )
    assert audit_document("- Rate: 0.125", document).clean
    assert audit_document("- Rate: 0.13", document).altered
    assert audit_document("- Rate: 0.1250", document).altered  # not glued digits
    assert audit_document("- Rate: 10.125", document).altered


def test_markdown_transcripts_are_decoded() -> None:
    markdown = present(None, _result(null_display="n/a")).markdown
    report = audit(markdown, _result(null_display="n/a"))
    assert report.clean and report.markup == "markdown"
    # Read as text, the escapes and markers no longer match the values exactly.
    assert not audit(markdown, _result(null_display="n/a"), markup="text").clean


def test_a_partial_result_must_say_so() -> None:
    incomplete = _result(complete=False)
    presentation = present({"name": "statement"}, incomplete)
    assert audit(presentation.text, incomplete).clean
    assert audit(presentation.markdown, incomplete).clean
    body = presentation.text.split("\n\n", 1)[1]  # the same rows without the notice
    report = audit(body, incomplete)
    assert report.partial_as_complete
    assert [issue.kind for issue in report.issues] == ["partial_as_complete"]
    assert report.score == 0.5
    # A word in a row does not count as the notice: only lines that stand for no row do.
    payments = Document(
        title="t",
        sections=(
            Section(id="s", title="s", columns=("v",), rows=(Row(id="p", label="Partial payments", values=(5,)),)),
        ),
    )
    assert audit_document("| Partial payments | 5 |", payments, complete=False).partial_as_complete
    assert audit_document("Incomplete list.\n| Partial payments | 5 |", payments, complete=False).clean


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


def test_a_result_without_a_document_cannot_be_audited() -> None:
    with pytest.raises(ValueError, match="no valid document"):
        audit("anything", {"content": [{"type": "text", "text": "x"}]})


def test_cli_exit_codes_and_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result_file = tmp_path / "result.json"
    result_file.write_text(json.dumps(_result()), encoding="utf-8")
    faithful = tmp_path / "faithful.txt"
    faithful.write_text(present(None, _result()).text, encoding="utf-8")
    summary = tmp_path / "summary.txt"
    summary.write_text("In short: sales 1000 and 1200; net income 90.\n", encoding="utf-8")

    assert audit_main([str(result_file), str(faithful)]) == 0
    assert capsys.readouterr().out.startswith("fidelity: clean; score 1.000; 5/5 rows intact")

    assert audit_main([str(result_file), str(summary)]) == 1
    out = capsys.readouterr().out
    assert "dropped_subtotal (section rev, row rev)" in out
    assert "dropped_section (section notes)" in out

    assert audit_main([str(result_file), str(summary), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["clean"] is False and report["rowsExpected"] == 5
    assert {"kind": "dropped_section", "sectionId": "cagr", "rowId": None} in [
        {key: issue[key] for key in ("kind", "sectionId", "rowId")} for issue in report["issues"]
    ]


def test_cli_rejects_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    transcript = tmp_path / "t.txt"
    transcript.write_text("x", encoding="utf-8")
    not_json = tmp_path / "bad.json"
    not_json.write_text("{", encoding="utf-8")
    no_document = tmp_path / "plain.json"
    no_document.write_text(json.dumps({"content": []}), encoding="utf-8")
    assert audit_main([str(not_json), str(transcript)]) == 2
    assert audit_main([str(no_document), str(transcript)]) == 2
    assert audit_main([str(tmp_path / "missing.json"), str(transcript)]) == 2
    assert "mcp-rendering audit:" in capsys.readouterr().err
