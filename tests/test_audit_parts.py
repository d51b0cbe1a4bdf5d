"""One answer over the parts of a continued result, audited as one; a paged result audited without a false warning;
bad input answered with a verdict or one line."""

from __future__ import annotations

import importlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from mcp_rendering.audit import AuditInputError, audit
from mcp_rendering.builder import continuation_tool_meta, paged_result
from mcp_rendering.cli import main as cli_main
from mcp_rendering.envelope import Budget, Envelope
from mcp_rendering.examples import orgchart
from mcp_rendering.examples._server import continuation_tokens
from mcp_rendering.host import present
from mcp_rendering.render import render_markdown
from mcp_rendering.types import Rendering

pytestmark = pytest.mark.timeout(30)

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
    assert cli_main(["audit", *files, str(transcript)]) == 0
    assert capsys.readouterr().out.startswith("fidelity: clean; score 1.000; 435/435 records intact; result complete")
    assert cli_main(["audit", files[0], str(transcript)]) == 1
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
        status = cli_main(["audit", files[0], str(transcript)])
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
