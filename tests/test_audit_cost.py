"""What the audit's cost grows with, and the devices that keep it linear: counted steps and brute-force oracles,
never timings (the label index's, for rows that share a label, are in `tests/test_audit.py`).

The order check keeps the largest set of records shown in order (rule 6) by one of four routes: the faithful chain,
the weighted chain of (row, line) pairs, Myers' edit script over groups of identical rows, and, past its budget,
each group's lines in turn. Each route is checked against a quadratic dynamic programme over small layouts, on the
chains it returns inside an audit, and the edit script's step count against hand-counted cases.
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import pairwise, product
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from mcp_rendering.audit import audit_document
from mcp_rendering.document import Document, Row, RowKind, Section

_AUDIT: Any = importlib.import_module("mcp_rendering.audit")


def _section(rows: list[Row], columns: tuple[str, ...]) -> Document:
    return Document(title="Ledger", sections=(Section(id="s", title="Fees", columns=columns, rows=tuple(rows)),))


_LINE = st.sampled_from(
    ["| A | 1 |", "| Subtotal: A | 1 |", "| B | 2 |", "| Total: B | 2 |", "| Total | 3 |", "| X | 9 |"]
)
_RECORD = st.sampled_from(
    [
        ("A", 1, "item"),
        ("A", 1, "subtotal"),
        ("B", 2, "item"),
        ("B", 2, "total"),
        ("A", 1, "total"),
        ("Total", 3, "item"),
        ("", 3, "total"),
    ]
)


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


# ------------------------------------------------------------------------------------ the order check's chains


def _ledger_of(records: Sequence[tuple[str, int, RowKind]]) -> Document:
    """One section of one-value rows, each (label, value, kind)."""
    return _section(
        [Row(id=f"r{n}", label=label, values=(value,), kind=kind) for n, (label, value, kind) in enumerate(records)],
        ("v",),
    )


def _heaviest_chain(n: int, m: int, weight: Callable[[int, int], int]) -> int:
    """The largest total weight of pairs (x, y) with x < n and y < m, both strictly increasing (a dynamic
    programme)."""
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for x in range(1, n + 1):
        for y in range(1, m + 1):
            best[x][y] = max(best[x - 1][y], best[x][y - 1], best[x - 1][y - 1] + weight(x - 1, y - 1))
    return best[n][m]


def _longest_chain(xs: Sequence[int], ys: Sequence[frozenset[int]]) -> int:
    """The most pairs (x, y), both strictly increasing, with `xs[x]` in `ys[y]`."""
    return _heaviest_chain(len(xs), len(ys), lambda x, y: 1 if xs[x] in ys[y] else 0)


def _longest_increasing_length(values: Sequence[int]) -> int:
    """The length of a longest strictly increasing subsequence (a dynamic programme)."""
    longest = [1] * len(values)
    for i in range(len(values)):
        for j in range(i):
            if values[j] < values[i]:
                longest[i] = max(longest[i], longest[j] + 1)
    return max(longest, default=0)


class _Call:
    """One call of a `_Matcher` method: the instance, its arguments, what it returned, and the audit's
    counted work before and after."""

    def __init__(self, audit: Any, arguments: tuple[Any, ...]) -> None:
        self.audit, self.arguments = audit, arguments
        self.work_before = audit.work
        self.returned: Any = None
        self.work_after = 0


@contextmanager
def _captured(name: str, budgets: dict[str, int]) -> Iterator[list[_Call]]:
    """Every call of `_Matcher.<name>` during an audit, with the budgets given."""
    calls: list[_Call] = []
    original = getattr(_AUDIT._Matcher, name)

    def spy(self: Any, *arguments: Any) -> Any:
        call = _Call(self, arguments)
        call.returned = original(self, *arguments)
        call.work_after = self.work
        calls.append(call)
        return call.returned

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_AUDIT._Matcher, name, spy)
        for constant, value in budgets.items():
            patch.setattr(_AUDIT, constant, value)
        yield calls


class _Search:
    """One run of the edit script: the rows' groups, the lines' groups, the steps it took and what it found."""

    def __init__(self, xs: Sequence[int], ys: Sequence[frozenset[int]]) -> None:
        self.xs, self.ys = list(xs), list(ys)
        self.steps = 0
        self.chain: list[tuple[int, int]] | None = None


@contextmanager
def _searches(patch: pytest.MonkeyPatch) -> Iterator[list[_Search]]:
    """Every run of the edit script while the context is open."""
    searches: list[_Search] = []
    edit_chain = _AUDIT._edit_chain

    def recorded(xs: Sequence[int], ys: Sequence[frozenset[int]], budget: list[int]) -> Any:
        search = _Search(xs, ys)
        before = budget[0]
        search.chain = edit_chain(xs, ys, budget)
        search.steps = before - budget[0]
        searches.append(search)
        return search.chain

    patch.setattr(_AUDIT, "_edit_chain", recorded)
    yield searches


def _own_of(kept: Sequence[tuple[int, Sequence[tuple[int, int]]]]) -> dict[tuple[int, int], int]:
    """(group, line) -> how the line reads as one of the group (2 literal, 1 marked, 0 lenient)."""
    return {(group, line): own for line, groups in kept for group, own in groups}


def _assert_is_chain(audit: Any, kept: Any, chain: Sequence[tuple[int, int]]) -> None:
    """Rows and lines both strictly increase, and each line may show its row's group."""
    own_of = _own_of(kept)
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in pairwise(chain))
    assert all((audit.records.group_of[row], line) in own_of for row, line in chain)


# ---------------------------------------------------------------------------------------- Myers' edit script


def _assert_longest(xs: Sequence[int], ys: Sequence[frozenset[int]]) -> None:
    chain = _AUDIT._edit_chain(list(xs), list(ys), [10**9])
    assert chain is not None
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in pairwise(chain))
    assert all(xs[x] in ys[y] for x, y in chain)
    assert len(chain) == _longest_chain(xs, ys), (xs, ys)


def test_the_edit_script_finds_a_longest_chain_in_every_small_layout() -> None:
    """Every layout of up to five rows of two groups against up to four lines (each showing no group, one, or
    both): 21,483 of them."""
    line_kinds = [frozenset(), frozenset({0}), frozenset({1}), frozenset({0, 1})]
    for rows in range(6):
        for xs in product((0, 1), repeat=rows):
            for lines in range(5):
                for ys in product(line_kinds, repeat=lines):
                    _assert_longest(xs, ys)


@given(
    st.lists(st.integers(0, 2), max_size=10),
    st.lists(st.frozensets(st.integers(0, 2), max_size=2), max_size=10),
)
def test_the_edit_script_finds_a_longest_chain(xs: list[int], ys: list[frozenset[int]]) -> None:
    _assert_longest(xs, ys)


@pytest.mark.parametrize(
    ("xs", "ys", "steps"),
    [
        ([], [], 1),  # one diagonal, nothing on it
        ([0, 0, 0], [frozenset({0})] * 3, 4),  # one diagonal and its snake of three
        # Round 0: the diagonal, no snake (1). Round 1: the lower diagonal (1), the upper one with a snake of one
        # starting at x = 1 (1 + 1).
        ([1, 0], [frozenset({0})], 4),
    ],
)
def test_the_edit_script_takes_one_step_a_diagonal_and_one_a_matched_pair(
    xs: list[int], ys: list[frozenset[int]], steps: int
) -> None:
    budget = [100]
    assert _AUDIT._edit_chain(xs, ys, budget) is not None
    assert 100 - budget[0] == steps


def test_the_edit_script_checks_its_budget_between_rounds() -> None:
    """The budget is read after each round: spent exactly, the search goes on (and may finish in the next round);
    overspent, it stops."""
    xs, ys = [1, 0], [frozenset({0})]
    assert _AUDIT._edit_chain(xs, ys, [1]) == [(1, 0)]  # round 0 spends the 1; round 1 finishes
    assert _AUDIT._edit_chain(xs, ys, [0]) is None  # round 0 overspends


@given(st.lists(st.integers(0, 6), max_size=10))
def test_the_longest_increasing_run_is_a_longest_one(values: list[int]) -> None:
    chosen = sorted(_AUDIT._longest_increasing(values))
    assert all(values[a] < values[b] for a, b in pairwise(chosen))
    assert len(chosen) == _longest_increasing_length(values)


# ------------------------------------------------------------------------------------ the chains in an audit

_ORDER_CASES = given(st.lists(_RECORD, min_size=1, max_size=7), st.lists(_LINE, min_size=1, max_size=8))


@_ORDER_CASES
# One marked pair against two lenient pairs that cross it: the marked one must win.
@example(
    [("A", 1, "subtotal"), ("B", 2, "total"), ("B", 2, "total")], ["| B | 2 |", "| B | 2 |", "| Subtotal: A | 1 |"]
)
def test_the_weighted_chain_has_the_largest_weight(records: list[tuple[str, int, RowKind]], lines: list[str]) -> None:
    """Own-kind pairs first, literal readings next, then any pair: the weight a dynamic programme maximizes."""
    with _captured("_weighted_chain", {}) as calls:
        audit_document("\n".join(lines), _ledger_of(records), markup="text")
    assume(calls)  # a faithful transcript takes the faithful chain
    for call in calls:
        [kept] = call.arguments
        _assert_heaviest(call.audit, kept, call.returned)


def _assert_heaviest(audit: Any, kept: Any, chain: Sequence[tuple[int, int]]) -> None:
    _assert_is_chain(audit, kept, chain)
    own_of = _own_of(kept)
    heavy = 2 * (len(audit.records.rows) + 1)
    weights = (1, heavy - 1, heavy)
    kept_lines = [line for line, _ in kept]

    def weight(row: int, y: int) -> int:
        own = own_of.get((audit.records.group_of[row], kept_lines[y]))
        return 0 if own is None else weights[own]

    found = sum(weights[own_of[audit.records.group_of[row], line]] for row, line in chain)
    assert found == _heaviest_chain(len(audit.records.rows), len(kept_lines), weight)


def _order_check(records: list[tuple[str, int, RowKind]], lines: list[str], diff_budget: int) -> Any:
    """The edit script's runs and the one order check of an audit past the pair budget, with `diff_budget`."""
    budgets = {"_PAIR_BUDGET": 0, "_DIFF_BUDGET": diff_budget}
    with (
        pytest.MonkeyPatch.context() as patch,
        _searches(patch) as searches,
        _captured("_diff_chain", budgets) as calls,
    ):
        audit_document("\n".join(lines), _ledger_of(records), markup="text")
    assert len(calls) <= 1  # one order check an audit
    return searches, calls


@_ORDER_CASES
def test_the_edit_script_chain_fills_each_gap_with_a_longest_lenient_chain(
    records: list[tuple[str, int, RowKind]], lines: list[str]
) -> None:
    """Past the pair budget: a longest chain of own-kind pairs, then in each gap between two of them a longest chain
    of lenient ones, searched only where the gap holds rows and a lenient line."""
    searches, calls = _order_check(records, lines, _AUDIT._DIFF_BUDGET)
    assume(calls)
    assert all(search.xs and any(search.ys) for search in searches[1:])
    for call in calls:
        audit, (kept, rows), chain = call.audit, call.arguments, call.returned
        _assert_is_chain(audit, kept, chain)
        own_of = _own_of(kept)
        kept_lines = [line for line, _ in kept]
        xs = [audit.records.group_of[row] for row in rows]
        own = [frozenset(group for group, kind in groups if kind) for _, groups in kept]
        lenient = [frozenset(group for group, kind in groups if not kind) for _, groups in kept]
        indexed = [(rows.index(row), kept_lines.index(line)) for row, line in chain]
        own_pairs = [
            (x, y)
            for (x, y), (row, line) in zip(indexed, chain, strict=True)
            if own_of[audit.records.group_of[row], line]
        ]
        assert len(own_pairs) == _longest_chain(xs, own)
        previous = (-1, -1)
        for end in [*own_pairs, (len(xs), len(own))]:
            gap = [(x, y) for x, y in indexed if previous[0] < x < end[0] and previous[1] < y < end[1]]
            gap_xs, gap_ys = xs[previous[0] + 1 : end[0]], lenient[previous[1] + 1 : end[1]]
            assert len(gap) == _longest_chain(gap_xs, gap_ys)
            previous = end


@_ORDER_CASES
def test_every_step_of_the_edit_script_is_counted_in_the_work(
    records: list[tuple[str, int, RowKind]], lines: list[str]
) -> None:
    """Whether the edit script finds the chain, runs out looking for the own-kind chain (no budget), or runs out
    filling a gap (a budget of the own-kind chain's steps exactly), each group's lines in turn then deciding, every
    step it takes is counted in the audit's work once, and what the order check returns is a chain."""
    searches, calls = _order_check(records, lines, _AUDIT._DIFF_BUDGET)
    assume(calls)
    for budget in (_AUDIT._DIFF_BUDGET, 0, searches[0].steps):
        searches, [call] = _order_check(records, lines, budget)
        assert call.work_after - call.work_before == sum(search.steps for search in searches)
        _assert_is_chain(call.audit, call.arguments[0], call.returned)


@_ORDER_CASES
def test_past_every_budget_each_group_takes_its_lines_in_turn(
    records: list[tuple[str, int, RowKind]], lines: list[str]
) -> None:
    """With no budget left, a line shows its group's next row (of its most literal reading), and the chain is a
    longest increasing run of the rows so taken."""
    with _captured("_in_group_order", {"_PAIR_BUDGET": 0, "_DIFF_BUDGET": 0}) as calls:
        audit_document("\n".join(lines), _ledger_of(records), markup="text")
    assume(calls)
    for call in calls:
        audit, (kept,), chain = call.audit, call.arguments, call.returned
        _assert_is_chain(audit, kept, chain)
        taken: list[tuple[int, int]] = []
        given_so_far: dict[int, int] = {}
        for line, groups in kept:
            if not groups:
                continue
            best = max(own for _, own in groups)
            group = next(group for group, own in groups if own == best)
            turn = given_so_far.get(group, 0)
            if turn < len(audit.records.group_rows[group]):
                given_so_far[group] = turn + 1
                taken.append((audit.records.group_rows[group][turn], line))
        assert set(chain) <= set(taken)
        assert len(chain) == _longest_increasing_length([row for row, _ in taken])


# ------------------------------------------------------------------------------ steps that stay linear, counted


class _ReadsCounted(list[Any]):
    """A list that counts the entries read from it by index or slice."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        got = super().__getitem__(index)
        _ReadsCounted.reads += len(got) if isinstance(index, slice) else 1
        return got


def test_rows_altered_under_shared_labels_pass_each_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row of three labels altered: each row takes the first unused line of its label, and the lines used
    before are passed once in all, not once for each row (that is a third of the rows squared)."""
    rows = 3_000
    document = _section(
        [Row(id=f"r{n}", label=f"Fee {n % 3}", values=(n * 3, "EUR")) for n in range(rows)], ("amount", "ccy")
    )
    transcript = "\n".join(f"- Fee {n % 3}: {n * 3}, USD" for n in range(rows))
    original = _AUDIT._Matcher._alterations
    reads: list[int] = []

    def counted(matcher: Any) -> Any:
        matcher.used = _ReadsCounted(matcher.used)
        _ReadsCounted.reads = 0
        altered = original(matcher)
        reads.append(_ReadsCounted.reads)
        return altered

    monkeypatch.setattr(_AUDIT._Matcher, "_alterations", counted)
    report = audit_document(transcript, document, markup="text")
    assert len(report.altered) == rows
    assert reads and reads[0] <= 3 * rows


def test_notices_are_read_in_one_pass_of_the_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of notices, each its own paragraph: the lines after each are read only as far as its paragraph
    runs on, not copied to the end of the transcript for every notice."""
    notices = 2_000
    document = _section([Row(id="r", label="Fee", values=(1, "EUR"))], ("amount", "ccy"))
    transcript = "- Fee: 1, EUR\n\n" + "\n\n".join(["Partial result: ask for more."] * notices)
    original = _AUDIT._notices
    reads: list[int] = []

    def counted(lines: Any, *rest: Any) -> Any:
        _ReadsCounted.reads = 0
        found = original(_ReadsCounted(lines), *rest)
        reads.append(_ReadsCounted.reads)
        return found

    monkeypatch.setattr(_AUDIT, "_notices", counted)
    report = audit_document(transcript, document, complete=False, markup="markdown")
    assert report.clean, report.format()
    assert reads and max(reads) <= 2 * notices


def _lines_run_in_the_audit(work: Callable[[], object]) -> int:
    """How many lines of the audit module's code `work` runs (traced: a count of steps, not a timing)."""
    steps = 0
    module = _AUDIT.__file__

    def trace(frame: Any, event: str, _: Any) -> Any:
        nonlocal steps
        if frame.f_code.co_filename != module:
            return None
        if event == "line":
            steps += 1
        return trace

    sys.settrace(trace)
    try:
        work()
    finally:
        sys.settrace(None)
    return steps


def test_identical_lines_of_a_text_result_cost_steps_linear_in_the_lines() -> None:
    """A text result of one line repeated: each shown line takes the next of them not yet shown, without passing
    again those shown before it (twice the lines, twice the steps, not four times)."""

    def steps(lines: int) -> int:
        text = "\n".join(["same line"] * lines)
        return _lines_run_in_the_audit(lambda: _AUDIT.audit_lines(text, text.split("\n"), markup="text"))

    assert steps(2_000) <= 2.5 * steps(1_000)


def test_a_table_line_splits_into_the_cells_between_its_borders() -> None:
    """Every line of up to six characters of `|`, space and two letters: one leading and one trailing `|` are
    borders, every other `|` parts two cells, and each cell is stripped."""
    for size in range(7):
        for characters in product("| ab", repeat=size):
            view = "".join(characters)
            cells = [cell.strip() for cell in view.split("|")]
            if view.startswith("|"):
                cells = cells[1:]
            if view.endswith("|") and cells:
                cells = cells[:-1]
            assert _AUDIT._table_cells(view) == tuple(cells), view
