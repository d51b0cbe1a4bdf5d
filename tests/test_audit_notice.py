"""Rule 9, the partial notice: which wording counts for which state of a result (the host guide, "The partial
notice"), as the host writes it (`present()`, `final_answer`) and as a model paraphrases it, in plain text, a quote
and bold; `present()`'s own views audit clean in every state, and the command line gives the same verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_rendering.audit import Markup, audit, audit_document
from mcp_rendering.cli import main as cli_main
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import UNSTATED_COMPLETENESS, ResultState, present, result_state
from mcp_rendering.integrations.answer import final_answer
from tests.support.carriers import CONTINUATION_TOOL_META, meta_carriers

pytestmark = pytest.mark.timeout(60)

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


def _result(meta: dict[str, Any]) -> dict[str, Any]:
    return {"content": [], "structuredContent": {"document": HITS.model_dump(mode="json")}, "_meta": meta}


# Each state: the tool it is read with, and the result.
STATES: dict[ResultState, tuple[dict[str, Any], dict[str, Any]]] = {
    "complete": (TOOL, _result(meta_carriers({"mode": "verbatim", "complete": True}))),
    "not-stated": (TOOL, _result({})),  # a verbatim tool's result without a directive
    "partial": (TOOL, _result(meta_carriers({"mode": "verbatim", "complete": False}))),
    "continued": (
        PAGED_TOOL,
        _result(
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
    assert cli_main(["audit", str(result_file), str(transcript)]) == (0 if report.clean else 1)
