"""The audit on a corpus of natural answers (`tests.support.answers`): every faithful answer accepted, every
unfaithful one caught, for the reason it is unfaithful."""

from __future__ import annotations

import pytest

from mcp_rendering.audit import IssueKind, audit_document
from tests.support.answers import MUTATIONS, NULL_TEXT, Answer, corpus

pytestmark = pytest.mark.timeout(120)

_ANSWERS = list(corpus())

_CAUGHT_AS: dict[str, frozenset[IssueKind]] = {
    "drop": frozenset({"missing_row", "dropped_subtotal", "dropped_total"}),
    "alter": frozenset({"altered_row"}),
    "sign": frozenset({"altered_row"}),
    "swap-columns": frozenset({"altered_row"}),
    "swap-names": frozenset({"altered_row", "misplaced_row"}),
    "reorder": frozenset({"reordered_row"}),
    "move-section": frozenset({"misplaced_row"}),
    "repeat-after": frozenset({"duplicated_row"}),
    "invent": frozenset({"fabricated_row"}),
    "notice": frozenset({"completeness_misstated"}),
}


def _audit(answer: Answer) -> set[IssueKind]:
    fixture = answer.fixture
    report = audit_document(answer.text, fixture.document, complete=fixture.complete, null_display=NULL_TEXT)
    return {issue.kind for issue in report.issues}


def test_the_corpus_is_many_styles_of_every_example_faithful_and_not() -> None:
    faithful = [answer for answer in _ANSWERS if answer.faithful]
    assert len(faithful) >= 90
    assert {answer.name.split("/")[0] for answer in faithful} == {"financial", "orgchart", "screening"}
    assert {answer.name.split("/")[1] for answer in faithful} == {"table", "combined", "bullets", "boxed", "lines"}
    for mutation in MUTATIONS:
        assert sum(answer.name.endswith("/" + mutation) for answer in _ANSWERS) >= 60, mutation


def test_every_faithful_answer_is_accepted() -> None:
    alarms = {answer.name: sorted(kinds) for answer in _ANSWERS if answer.faithful and (kinds := _audit(answer))}
    assert not alarms


def test_every_unfaithful_answer_is_caught_for_its_reason() -> None:
    missed: dict[str, list[str]] = {}
    for answer in _ANSWERS:
        if answer.faithful:
            continue
        mutation = answer.name.rsplit("/", 1)[1]
        kinds = _audit(answer)
        if not kinds & _CAUGHT_AS[mutation]:
            missed[answer.name] = sorted(kinds)
    assert not missed
