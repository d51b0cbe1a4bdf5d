"""What the audit's cost grows with: counted steps, never timings.

Rows that share a label are found for a free-form line through an index of their values (`_LabelIndex`): the
line is checked exactly only against the rows whose values it holds. These tests pin that the index finds what
checking every row finds, and that the exact checks a faithful transcript costs grow with the rows, not with their
square.
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.audit import AuditReport, audit_document
from mcp_rendering.document import Document, Row, RowKind, Section

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


_LINE = st.sampled_from(
    ["| A | 1 |", "| Subtotal: A | 1 |", "| B | 2 |", "| Total: B | 2 |", "| Total | 3 |", "| X | 9 |"]
)
_RECORD = st.sampled_from(
    [
        ("A", 1, "item"),
        ("A", 1, "subtotal"),
        ("B", 2, "item"),
        ("B", 2, "total"),
        ("Total", 3, "item"),
        ("", 3, "total"),
    ]
)


def _chains(document: Document, transcript: str, monkeypatch: pytest.MonkeyPatch, budget: int) -> list[Any]:
    """The chains the order check settles (none when the transcript is faithful), with the pair budget given."""
    chains: list[Any] = []
    settle = _AUDIT._DocumentAudit._settle

    def captured(self: Any, chain: list[tuple[int, int]], lines_of: Any) -> Any:
        own_of = {(group, line): own for group, lines in lines_of.items() for line, own in lines}
        chains.append([own_of[self.group_of[row], line] for row, line in chain])
        return settle(self, chain, lines_of)

    with monkeypatch.context() as patch:
        patch.setattr(_AUDIT._DocumentAudit, "_settle", captured)
        patch.setattr(_AUDIT, "_PAIR_BUDGET", budget)
        audit_document(transcript, document, markup="text")
    return chains


@given(st.lists(_RECORD, min_size=1, max_size=8), st.lists(_LINE, min_size=1, max_size=9))
def test_past_the_pair_budget_the_order_check_keeps_the_kind_preference(
    records: list[tuple[str, int, RowKind]], lines: list[str]
) -> None:
    """Over groups of identical records (the edit script), the chain keeps as many own-kind pairs (a line and a
    record of its own kind) as the full weighted pairing, and no fewer pairs in all than it has own-kind ones."""
    document = _section(
        [Row(id=f"r{n}", label=label, values=(value,), kind=kind) for n, (label, value, kind) in enumerate(records)],
        ("v",),
    )
    transcript = "\n".join(lines)
    with pytest.MonkeyPatch.context() as monkeypatch:
        full = _chains(document, transcript, monkeypatch, 10**9)
        grouped = _chains(document, transcript, monkeypatch, 0)
    if not full:
        return  # a faithful transcript: no chain to compare
    [weighted], [diffed] = full, grouped
    assert sum(1 for own in diffed if own) == sum(1 for own in weighted if own)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_audit_leaves_the_collector_as_it_finds_it(enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The collector is the caller's: the audit never switches it, on or off, even for a moment."""
    switched: list[str] = []
    monkeypatch.setattr(gc, "disable", lambda: switched.append("disable"))
    monkeypatch.setattr(gc, "enable", lambda: switched.append("enable"))
    monkeypatch.setattr(gc, "freeze", lambda: switched.append("freeze"))
    monkeypatch.setattr(gc, "isenabled", lambda: enabled)
    rows = [Row(id=f"r{n}", label=f"Fee {n % 3}", values=(n, "EUR")) for n in range(300)]
    transcript = "\n".join(f"- Fee {n % 3}: {n}, EUR" for n in range(300))
    assert audit_document(transcript, _section(rows, ("amount", "ccy")), markup="text").clean
    assert switched == []
