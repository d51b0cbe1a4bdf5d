"""The fidelity audit on concrete transcripts, including formats other than the reference renderings, and its CLI."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from mcp_rendering.audit import (
    MAX_RESULT_BYTES,
    MAX_TRANSCRIPT_CHARS,
    AuditInputError,
    audit,
    audit_document,
    audit_main,
)
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.types import EXTENSION_ID, PARTIAL_MARKER

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
        "_meta": {EXTENSION_ID: directive},
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
        ("42", "holds a int, not a CallToolResult object"),
        ("[1, 2]", "holds an array, not a CallToolResult object"),
        ('"x"', "holds a str, not a CallToolResult object"),
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


def test_cli_refuses_oversized_and_unreadable_files_before_reading_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    result_file = tmp_path / "result.json"
    result_file.write_text(json.dumps(_result()), encoding="utf-8")
    transcript = tmp_path / "t.txt"
    transcript.write_text("x", encoding="utf-8")
    assert audit_main([str(tmp_path / "missing.json"), str(transcript)]) == 2
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    assert audit_main([str(result_file), str(binary)]) == 2
    monkeypatch.setattr(importlib.import_module("mcp_rendering.audit"), "MAX_RESULT_BYTES", 100)
    assert audit_main([str(result_file), str(transcript)]) == 2
    err = capsys.readouterr().err
    assert "over the limit of 100" in err and "Traceback" not in err
    assert MAX_RESULT_BYTES > 100
