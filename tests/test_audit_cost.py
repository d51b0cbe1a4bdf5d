"""What the audit's cost grows with: counted steps, never timings.

Rows that share a label are found for a free-form line through an index of their values (`_LabelIndex`): the
line is checked exactly only against the rows whose values it holds. These tests pin that the index finds what
checking every row finds, and that the exact checks a faithful transcript costs grow with the rows, not with their
square.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.audit import AuditReport, audit_document
from mcp_rendering.document import Document, Row, Section

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
