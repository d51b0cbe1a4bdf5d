"""Fidelity audit: did a host show the user a verbatim result whole, in order and unaltered?

`audit(shown_text, result)` compares what a host showed (a transcript) with the document in the result's
`structuredContent["document"]`, and reports missing rows, dropped subtotals and totals, dropped sections,
reordered rows, altered values, and a partial result presented as complete.

Matching rules (the contract of this module):

1. **Reading the transcript.** The transcript is split into lines (`str.splitlines`). It is read as Markdown when
   it holds a table that starts after a blank line or a heading (a `|` line followed by a `|---|` delimiter row),
   otherwise as plain text; `markup` forces either. Read as Markdown, blockquote marks are removed, backslash
   escapes and HTML entities are decoded, `<br>` is a space, and the marks `**`, `__` and backticks are removed.
2. **Whitespace is insignificant.** Runs of whitespace count as one space; leading and trailing space does not
   count. Values are compared after the same folding, so a value differing only in whitespace is the same value.
3. **Structure lines are skipped.** Headings (`#` lines, in either reading, or a line underlined with `===`/`---`),
   underlines, table header lines (a line that opens a table: after a blank line or a heading, and followed by a
   delimiter row `|---|` or a separator `+---+`) and delimiter lines never stand for a row.
4. **Table lines** (lines containing `|`): cells are separated by `|`; one leading and one trailing `|` are
   outer borders. A row is shown on a line when the first cell ends with the row's label (at a word boundary:
   indentation or a `Subtotal:` marker may come before it) and the other cells equal the row's values, in order,
   with none left over. A `|` inside a value or label counts as a cell separator on both sides, so an escaped pipe
   matches whether or not it was escaped.
5. **Free-form lines** (no `|`, such as bullets `- Sales: 1000, 1200`): after an optional list marker and an
   optional `Subtotal`/`Total` marker, the line starts with the row's label (a trailing `:` is allowed), and each
   non-empty value appears after it, in order, as a delimited token: preceded by the line start, a space or one
   of `([:=`, and followed by the line end, a space, `)` or `]`, or by one of `,.;:` that is followed by a space
   or the line end. An empty value cannot be located in free-form text and is not checked there.
6. **Kinds.** A marker before the label (any text containing "subtotal" or "total", case-insensitive) marks the
   line as a subtotal or total. A row is matched to a line of its own kind (an unmarked line is an item); a
   subtotal or total row that matches no line of its kind may take an unmarked line, so a host that does not
   mark totals still shows them, but an item row never takes a line marked as a subtotal or total. Indentation
   (hierarchy level) is not checked: whitespace folding erases it and hosts show depth in many ways.
7. **Assignment.** Each line stands for at most one row. Rows are matched to lines so that as many rows as
   possible are matched in document order (a longest common subsequence of rows and lines, with own-kind lines
   preferred); those rows are in order. A row matched exactly but only out of that order is *reordered*
   (swapping two rows reports one of them). Rows still unmatched take an unused line showing their label in its
   first cell (or, in free form, starting the line): those rows are *altered*. Rows left over are *missing* (a
   subtotal or total: *dropped*). Duplicates are counted: showing two identical rows once reports one missing.
8. **Identity.** Rows are told apart by what is shown of them (label, values and kind marker), never by id.
9. **Sections.** A section with rows is *dropped* when none of its rows is shown (exactly or altered); a section
   without rows is dropped when no line (without heading or list marks) is its title or starts with it.
10. **Completeness.** When the result is partial (its directive or page state says `complete: false`), some line
    not standing for a row must say so: it contains "partial", "incomplete", "truncated", "not complete" or
    "more rows/records/results/items (are) available" (case-insensitive). Otherwise the issue
    *partial_as_complete* is reported.

What this cannot see, by these rules: a row whose label, values and kind are identical to another row's (they are
interchangeable, only their count matters), a change of indentation, a value altered only in whitespace, and, in
free-form text, an empty value (and a row with an empty label, which free-form text cannot show).

The score is the share of the document shown intact (rows exactly matched and in order, plus empty sections
whose title is shown), halved when a partial result is presented as complete.

Cost: lines are matched through hash lookups (no scan of the transcript per row) and put in order by a longest
increasing subsequence, so an audit takes O(n log n) for n rows and lines of bounded length. Two things add
work: k rows identical in label and values (k*k candidate pairs), and, in free-form text only, many rows sharing
one label (each line starting with it is checked against each of them).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

from mcp_rendering.document import Document, Row, RowKind
from mcp_rendering.host import result_document, result_is_complete
from mcp_rendering.reading import resolve_rendering
from mcp_rendering.render import cell_text

__all__ = [
    "AuditReport",
    "Issue",
    "IssueKind",
    "Markup",
    "audit",
    "audit_document",
    "audit_main",
    "fold",
]

IssueKind: TypeAlias = Literal[
    "missing_row",
    "dropped_subtotal",
    "dropped_total",
    "dropped_section",
    "reordered_row",
    "altered_row",
    "partial_as_complete",
]
"""What went wrong. `missing_row` is an item row; subtotal and total rows are reported as dropped."""

Markup: TypeAlias = Literal["auto", "text", "markdown"]
"""How to read the transcript: detect, plain text, or Markdown."""

_MISSING_KIND: dict[RowKind, IssueKind] = {
    "item": "missing_row",
    "subtotal": "dropped_subtotal",
    "total": "dropped_total",
}

_MD_TOKEN = re.compile(
    r"\\([!-/:-@\[-`{-~])"  # a backslash escape of ASCII punctuation
    r"|(&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"  # an HTML entity
    r"|(<br\s*/?>)"
    r"|\*\*|__|`",
    re.IGNORECASE,
)
_MD_BLOCKQUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_MD_DELIMITER = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*|\s*\|\s*:?-+:?\s*\|\s*")
_TEXT_SEPARATOR = re.compile(r"\s*\+(?:-+\+)+\s*")
_UNDERLINE = re.compile(r"\s*(?:=+|-+)\s*")
_LIST_MARKER = re.compile(r"(?:>\s*)*(?:[-*+\u2022]|\d{1,9}[.)])\s+")
_KIND_WORD = re.compile(r"(?:\*\*|__)?(subtotal|total):?(?:\*\*|__)?:?", re.IGNORECASE)
_PARTIAL_NOTICE = re.compile(
    r"\b(?:partial|incomplete|truncated|not\s+complete|more\s+(?:rows|records|results|items)\s+(?:are\s+)?available)\b",
    re.IGNORECASE,
)
_TOKEN_BEFORE = frozenset(" ([:=")
_TOKEN_AFTER = frozenset(" )]")
_TOKEN_AFTER_IF_SPACED = frozenset(",.;:")


def fold(text: str) -> str:
    """Whitespace folding (rule 2): runs of whitespace become one space; leading and trailing space is dropped."""
    return " ".join(text.split())


def _decode_markdown(line: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        if match.group(2) is not None:
            return html.unescape(match.group(2))
        if match.group(3) is not None:
            return " "
        return ""

    return _MD_TOKEN.sub(replace, line)


def _pieces(text: str) -> list[str]:
    return [fold(piece) for piece in text.split("|")]


def _line_cells(view: str) -> list[str]:
    """Cells of a table line (rule 4): one leading and one trailing `|` are borders."""
    cells = _pieces(view)
    stripped = view.strip()
    if stripped.startswith("|") and cells:
        cells = cells[1:]
    if stripped.endswith("|") and cells:
        cells = cells[:-1]
    return cells


def _marker_kind(prefix: str) -> RowKind:
    lowered = prefix.lower()
    if "subtotal" in lowered:
        return "subtotal"
    if "total" in lowered:
        return "total"
    return "item"


def _find_token(haystack: str, needle: str, start: int) -> int:
    """End of the first delimited occurrence of `needle` at or after `start` (rule 5), or -1."""
    position = haystack.find(needle, start)
    while position != -1:
        end = position + len(needle)
        before_ok = position == 0 or haystack[position - 1] in _TOKEN_BEFORE
        after_ok = (
            end == len(haystack)
            or haystack[end] in _TOKEN_AFTER
            or (haystack[end] in _TOKEN_AFTER_IF_SPACED and (end + 1 == len(haystack) or haystack[end + 1] == " "))
        )
        if before_ok and after_ok:
            return end
        position = haystack.find(needle, position + 1)
    return -1


@dataclass(frozen=True)
class Issue:
    """One infidelity found by the audit."""

    kind: IssueKind
    detail: str
    """A human-readable account of the issue."""
    section_id: str | None = None
    row_id: str | None = None
    line: int | None = None
    """1-based transcript line where the row was found (altered or reordered rows), if any."""


@dataclass(frozen=True)
class AuditReport:
    """The outcome of one audit."""

    rows_expected: int
    """Rows in the document."""
    rows_intact: int
    """Rows shown exactly and in order."""
    result_complete: bool
    """Whether the result itself was complete (not a bounded page)."""
    markup: Literal["text", "markdown"]
    """How the transcript was read."""
    issues: tuple[Issue, ...] = ()
    score: float = 1.0
    """Share of the document shown intact, in [0, 1]; halved when a partial result is presented as complete."""

    @property
    def clean(self) -> bool:
        """True when no issue was found."""
        return not self.issues

    def of_kind(self, *kinds: IssueKind) -> tuple[Issue, ...]:
        """The issues of the given kinds, in report order."""
        return tuple(issue for issue in self.issues if issue.kind in kinds)

    @property
    def missing(self) -> tuple[Issue, ...]:
        """Rows not shown, of every kind (items, subtotals, totals)."""
        return self.of_kind("missing_row", "dropped_subtotal", "dropped_total")

    @property
    def altered(self) -> tuple[Issue, ...]:
        """Rows shown with a value that differs."""
        return self.of_kind("altered_row")

    @property
    def reordered(self) -> tuple[Issue, ...]:
        """Rows shown out of document order."""
        return self.of_kind("reordered_row")

    @property
    def dropped_sections(self) -> tuple[Issue, ...]:
        """Sections of which nothing was shown."""
        return self.of_kind("dropped_section")

    @property
    def partial_as_complete(self) -> bool:
        """A partial result was shown without saying it is partial."""
        return bool(self.of_kind("partial_as_complete"))

    def format(self) -> str:
        """The report as text, one issue per line."""
        verdict = "clean" if self.clean else f"{len(self.issues)} issue(s)"
        head = (
            f"fidelity: {verdict}; score {self.score:.3f}; {self.rows_intact}/{self.rows_expected} rows intact; "
            f"result {'complete' if self.result_complete else 'partial'}; transcript read as {self.markup}"
        )
        lines = [head]
        for issue in self.issues:
            where = ", ".join(
                part
                for part in (
                    f"section {issue.section_id}" if issue.section_id is not None else "",
                    f"row {issue.row_id}" if issue.row_id is not None else "",
                    f"line {issue.line}" if issue.line is not None else "",
                )
                if part
            )
            lines.append(f"- {issue.kind}" + (f" ({where})" if where else "") + f": {issue.detail}")
        return "\n".join(lines)


# ------------------------------------------------------------------------------------------- reading the transcript


def _detect_markup(lines: Sequence[str]) -> Literal["text", "markdown"]:
    for index in range(1, len(lines)):
        if not _MD_DELIMITER.fullmatch(lines[index]) or not lines[index - 1].lstrip().startswith("|"):
            continue
        if index < 2 or not lines[index - 2].strip() or _MD_HEADING.match(lines[index - 2]):
            return "markdown"
    return "text"


def _structure_lines(lines: Sequence[str], markdown: bool) -> set[int]:
    """Indexes of lines that never stand for a row (rule 3)."""
    delimiter = _MD_DELIMITER if markdown else _TEXT_SEPARATOR
    skipped: set[int] = set()
    for index, line in enumerate(lines):
        if _MD_HEADING.match(line):
            skipped.add(index)  # in either reading: Markdown without tables is read as text
        if _UNDERLINE.fullmatch(line):
            skipped.add(index)
            if index > 0 and lines[index - 1].strip():
                skipped.add(index - 1)  # the underlined heading
        if delimiter.fullmatch(line):
            skipped.add(index)
            previous = lines[index - 1] if index > 0 else None
            before = lines[index - 2] if index > 1 else None
            opens_table = before is None or not before.strip() or bool(_MD_HEADING.match(before))
            if previous is not None and "|" in previous and opens_table:
                skipped.add(index - 1)  # the table's header line
    return skipped


# ------------------------------------------------------------------------------------------------ the expected rows


@dataclass
class _Expected:
    section_index: int
    row: Row
    label_head: str
    """The label's first `|`-piece, folded: what the label cell must end with."""
    tail: tuple[str, ...]
    """The remaining pieces: the rest of the label, then every value, each folded and split at `|`."""
    free_label: str | None
    """The folded label when free-form matching applies (no `|` in the label or values)."""
    free_values: tuple[str, ...]


def _expected_rows(document: Document, null_display: str) -> list[_Expected]:
    expected: list[_Expected] = []
    for section_index, section in enumerate(document.sections):
        for row in section.rows:
            label_pieces = _pieces(row.label)
            values = [cell_text(value, null_display) for value in row.values]
            tail = tuple(label_pieces[1:]) + tuple(piece for value in values for piece in _pieces(value))
            free = "|" not in row.label and not any("|" in value for value in values)
            expected.append(
                _Expected(
                    section_index=section_index,
                    row=row,
                    label_head=label_pieces[0],
                    tail=tail,
                    free_label=fold(row.label) if free else None,
                    free_values=tuple(fold(value) for value in values) if free else (),
                )
            )
    return expected


@dataclass
class _Candidates:
    """Lines that may stand for rows, in line order, per line kind.

    Rows with the same label and values share one exact list, and rows with the same label share label lists, so
    duplicates cost one list rather than one copy per row. `exact_of[row]` and `labels_of[row]` point into them.
    """

    exact: list[dict[RowKind, list[int]]] = field(default_factory=lambda: [])
    exact_of: list[int] = field(default_factory=lambda: [])
    labels: list[dict[RowKind, list[int]]] = field(default_factory=lambda: [])
    labels_of: list[int] = field(default_factory=lambda: [])


def _suffixes(cell: str) -> Iterable[tuple[str, str]]:
    """(label, prefix) splits of a cell at word boundaries, the whole cell included.

    An empty label is found only in a cell that is empty or holds nothing but a kind marker: found anywhere, it
    would stand for every cell.
    """
    yield cell, ""
    for position, char in enumerate(cell):
        if char == " ":
            yield cell[position + 1 :], cell[:position]
    if cell and _KIND_WORD.fullmatch(cell):
        yield "", cell


def _add(table: dict[RowKind, list[int]], kind: RowKind, line_number: int) -> None:
    found = table.setdefault(kind, [])
    if not found or found[-1] != line_number:
        found.append(line_number)


def _collect(lines: Sequence[str], skipped: set[int], rows: Sequence[_Expected]) -> _Candidates:
    candidates = _Candidates()
    group_ids: dict[tuple[str, tuple[str, ...], str | None, tuple[str, ...]], int] = {}
    exact_index: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    free_index: dict[str, list[int]] = {}
    free_values: list[tuple[str, ...]] = []
    label_ids: dict[str, int] = {}
    for row in rows:
        key = (row.label_head, row.tail, row.free_label, row.free_values)
        group = group_ids.get(key)
        if group is None:
            group = group_ids[key] = len(candidates.exact)
            candidates.exact.append({})
            free_values.append(row.free_values)
            exact_index.setdefault((row.label_head, row.tail), []).append(group)
            if row.free_label is not None:
                free_index.setdefault(row.free_label, []).append(group)
        candidates.exact_of.append(group)
        label_id = label_ids.get(row.label_head)
        if label_id is None:
            label_id = label_ids[row.label_head] = len(candidates.labels)
            candidates.labels.append({})
        candidates.labels_of.append(label_id)
    # An empty label cannot be located in free-form text (it would match every line), hence no zero count.
    word_counts = sorted({len(row.label_head.split()) for row in rows} - {0})

    for line_number, view in enumerate(lines):
        if line_number in skipped or not view.strip():
            continue
        if "|" in view:
            cells = _line_cells(view)
            if not cells:
                continue
            tail = tuple(cells[1:])
            for label, prefix in _suffixes(cells[0]):
                kind = _marker_kind(prefix)
                for group in exact_index.get((label, tail), ()):
                    _add(candidates.exact[group], kind, line_number)
                # For altered rows: the label, whatever follows it.
                label_id = label_ids.get(label)
                if label_id is not None:
                    _add(candidates.labels[label_id], kind, line_number)
            continue
        body = fold(view)
        marker = _LIST_MARKER.match(body)
        if marker is not None:
            body = body[marker.end() :]
        starts: list[tuple[str, RowKind]] = [(body, "item")]
        kind_word = _KIND_WORD.match(body)
        if kind_word is not None and (kind_word.end() == len(body) or body[kind_word.end()] == " "):
            starts.append((body[kind_word.end() :].lstrip(), _marker_kind(kind_word.group(1))))
        for text, kind in starts:
            words = text.split(" ") if text else []
            for count in word_counts:
                if count > len(words):
                    break
                head = " ".join(words[:count])
                rest = " ".join(words[count:])
                for label in (head, head[:-1]) if head.endswith(":") else (head,):
                    label_id = label_ids.get(label)
                    if label_id is not None:
                        _add(candidates.labels[label_id], kind, line_number)
                    for group in free_index.get(label, ()):
                        if _values_in_order(rest, free_values[group]):
                            _add(candidates.exact[group], kind, line_number)
    return candidates


def _values_in_order(text: str, values: Sequence[str]) -> bool:
    position = 0
    for value in values:
        if value:
            position = _find_token(text, value, position)
            if position < 0:
                return False
    return True


# -------------------------------------------------------------------------------------------------------- assignment


def _allowed(kind: RowKind, table: dict[RowKind, list[int]], lenient: bool) -> tuple[RowKind, ...]:
    """Line kinds a row may take (rule 6): its own; unmarked lines only for a subtotal or total row that has no
    matching line of its own kind at all (an unmarking host), so that it never takes an item's line otherwise."""
    if kind == "item" or not lenient or table.get(kind):
        return (kind,)
    return (kind, "item")


def _in_order_matching(
    rows: Sequence[_Expected], tables: Sequence[dict[RowKind, list[int]]], line_count: int
) -> list[int | None]:
    """The order-preserving assignment of rows to lines that matches the most rows (rules 7 and 8).

    A weighted longest increasing subsequence over (row, line) pairs (Hunt-Szymanski, with a Fenwick tree of
    prefix maxima): a line of the row's own kind weighs more than all unmarked fallbacks together, so own-kind
    matches are maximized first. A row's pairs are visited in decreasing line order so that it takes one line.
    """
    heavy = len(rows) + 1
    tree_value = [0] * (line_count + 1)
    tree_pair = [-1] * (line_count + 1)
    pair_row: list[int] = []
    pair_line: list[int] = []
    pair_parent: list[int] = []
    best_value, best_pair = 0, -1
    for number, row in enumerate(rows):
        weights: dict[int, int] = {}
        for kind in _allowed(row.row.kind, tables[number], lenient=True):
            weight = heavy if kind == row.row.kind else 1
            for line in tables[number].get(kind, ()):
                weights[line] = max(weights.get(line, 0), weight)
        for line in sorted(weights, reverse=True):
            value, parent, index = 0, -1, line  # best chain ending on a line before this one
            while index > 0:
                if tree_value[index] > value:
                    value, parent = tree_value[index], tree_pair[index]
                index -= index & -index
            value += weights[line]
            pair = len(pair_row)
            pair_row.append(number)
            pair_line.append(line)
            pair_parent.append(parent)
            if value > best_value:
                best_value, best_pair = value, pair
            index = line + 1
            while index <= line_count:
                if value > tree_value[index]:
                    tree_value[index], tree_pair[index] = value, pair
                index += index & -index
    assigned: list[int | None] = [None] * len(rows)
    pair = best_pair
    while pair >= 0:
        assigned[pair_row[pair]] = pair_line[pair]
        pair = pair_parent[pair]
    return assigned


def _assign_anywhere(
    rows: Sequence[_Expected],
    tables: Sequence[dict[RowKind, list[int]]],
    assigned: list[int | None],
    used: list[bool],
    lenient: bool,
) -> list[int]:
    """Give each unassigned row the first unused line it matches, wherever it is; returns those rows."""
    newly: list[int] = []
    for number, row in enumerate(rows):
        if assigned[number] is not None:
            continue
        for kind in _allowed(row.row.kind, tables[number], lenient):
            line = next((line for line in tables[number].get(kind, ()) if not used[line]), None)
            if line is not None:
                assigned[number] = line
                used[line] = True
                newly.append(number)
                break
    return newly


# ------------------------------------------------------------------------------------------------------------- audit


def _shown_titles(raw_lines: Sequence[str], views: Sequence[str], titles: Sequence[str]) -> set[str]:
    """Which of `titles` some line shows (rule 9): the line, without heading or list marks, equals the title or
    starts with it followed by a space or `:`. Both readings of each line count, since a transcript without
    tables is read as text even when it is Markdown."""
    wanted = set(titles)
    word_counts = sorted({len(title.split()) for title in wanted})
    found: set[str] = set()
    for raw, view in zip(raw_lines, views, strict=True):
        bodies: set[str] = set()
        for text in {raw, view, _decode_markdown(raw)}:
            for body in (fold(text), fold(_MD_HEADING.sub("", text, count=1))):
                marker = _LIST_MARKER.match(body)
                bodies.update((body, body.strip("*_")) if marker is None else (body, body[marker.end() :]))
        for body in bodies:
            for candidate in {body, body.strip("*_")}:
                if candidate in wanted:
                    found.add(candidate)
                words = candidate.split(" ")
                for count in word_counts:
                    if 0 < count < len(words) or (count == len(words) and candidate.endswith(":")):
                        head = " ".join(words[:count]).removesuffix(":")
                        if head in wanted:
                            found.add(head)
    return found


def _describe(row: Row, null_display: str) -> str:
    values = ", ".join(json.dumps(cell_text(value, null_display), ensure_ascii=False) for value in row.values)
    return f"{json.dumps(row.label, ensure_ascii=False)}" + (f" [{values}]" if values else "")


def audit_document(
    shown_text: str,
    document: Document,
    *,
    complete: bool = True,
    null_display: str = "-",
    markup: Markup = "auto",
) -> AuditReport:
    """Audit a transcript against a document directly (see the module docstring for the matching rules).

    Args:
        shown_text: what the host showed the user.
        document: the document the result carried.
        complete: whether the result was complete; when False, the transcript must say it is partial.
        null_display: how null values should have been shown.
        markup: read the transcript as "text", "markdown", or detect ("auto").
    """
    raw_lines = shown_text.splitlines()
    read_as = _detect_markup(raw_lines) if markup == "auto" else markup
    markdown = read_as == "markdown"
    # Blockquote marks go before decoding: afterwards an escaped `\>` would look the same.
    views = [_decode_markdown(_MD_BLOCKQUOTE.sub("", line, count=1)) for line in raw_lines] if markdown else raw_lines
    skipped = _structure_lines(raw_lines, markdown)

    rows = _expected_rows(document, null_display)
    candidates = _collect(views, skipped, rows)
    exact_tables = [candidates.exact[group] for group in candidates.exact_of]
    label_tables = [candidates.labels[label] for label in candidates.labels_of]
    assigned = _in_order_matching(rows, exact_tables, len(views))
    in_order = {number for number, line in enumerate(assigned) if line is not None}
    used = [False] * len(views)
    for line in assigned:
        if line is not None:
            used[line] = True
    reordered = set(_assign_anywhere(rows, exact_tables, assigned, used, lenient=False))
    reordered |= set(_assign_anywhere(rows, exact_tables, assigned, used, lenient=True))
    _assign_anywhere(rows, label_tables, assigned, used, lenient=True)

    issues: list[Issue] = []
    shown_per_section = [0] * len(document.sections)
    for number, row in enumerate(rows):
        section = document.sections[row.section_index]
        line = assigned[number]
        if line is not None:
            shown_per_section[row.section_index] += 1
        if line is None:
            issues.append(
                Issue(
                    _MISSING_KIND[row.row.kind],
                    f"{row.row.kind} {_describe(row.row, null_display)} is not shown",
                    section.id,
                    row.row.id,
                )
            )
        elif number in reordered:
            issues.append(
                Issue(
                    "reordered_row",
                    f"{_describe(row.row, null_display)} is shown out of order",
                    section.id,
                    row.row.id,
                    line + 1,
                )
            )
        elif number not in in_order:
            shown = fold(views[line])
            issues.append(
                Issue(
                    "altered_row",
                    f"expected {_describe(row.row, null_display)}, shown {json.dumps(shown, ensure_ascii=False)}",
                    section.id,
                    row.row.id,
                    line + 1,
                )
            )

    empty = [section for section in document.sections if not section.rows]
    shown_titles = _shown_titles(raw_lines, views, [fold(section.title) for section in empty]) if empty else set[str]()
    for index, section in enumerate(document.sections):
        if section.rows and shown_per_section[index] == 0:
            issues.append(Issue("dropped_section", f"nothing of section {section.title!r} is shown", section.id))
    for section in empty:
        if fold(section.title) not in shown_titles:
            issues.append(Issue("dropped_section", f"section {section.title!r} is not shown", section.id))

    if not complete:
        prose = (view for number, view in enumerate(views) if not used[number])
        if not any(_PARTIAL_NOTICE.search(line) for line in prose):
            issues.append(
                Issue("partial_as_complete", "the result is partial but the transcript never says it is incomplete")
            )

    intact = len(in_order)
    units = len(rows) + len(empty)
    score = (intact + sum(fold(section.title) in shown_titles for section in empty)) / units if units else 1.0
    if not complete and any(issue.kind == "partial_as_complete" for issue in issues):
        score /= 2
    return AuditReport(
        rows_expected=len(rows),
        rows_intact=intact,
        result_complete=complete,
        markup=read_as,
        issues=tuple(issues),
        score=score,
    )


def audit(shown_text: str, result: Any, *, markup: Markup = "auto") -> AuditReport:
    """Audit what a host showed the user against a tool result's document.

    Args:
        shown_text: the transcript of what was shown (any formatting; see the matching rules above).
        result: an `mcp_types.CallToolResult` or its wire dict, with `structuredContent["document"]`.
        markup: read the transcript as "text", "markdown", or detect ("auto").

    Raises:
        ValueError: the result carries no valid document to audit against.
    """
    document = result_document(result)
    if document is None:
        raise ValueError('the result carries no valid document in structuredContent["document"]')
    rendering = resolve_rendering(None, result)
    return audit_document(
        shown_text,
        document,
        complete=result_is_complete(result),
        null_display=rendering.null_display,
        markup=markup,
    )


def audit_main(argv: Sequence[str] | None = None) -> int:
    """Command line: audit a transcript against a result. Exit 0 when clean, 1 on infidelity, 2 on bad input."""
    parser = argparse.ArgumentParser(
        prog="mcp-rendering audit",
        description="Check that a transcript shows a verbatim tool result whole, in order and unaltered.",
    )
    parser.add_argument("result", type=Path, help="the CallToolResult, as wire JSON")
    parser.add_argument("transcript", type=Path, help="the text the host showed the user")
    parser.add_argument("--markup", choices=("auto", "text", "markdown"), default="auto")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    options = parser.parse_args(argv)
    try:
        result = json.loads(options.result.read_text(encoding="utf-8"))
        shown = options.transcript.read_text(encoding="utf-8")
        report = audit(shown, result, markup=options.markup)
    except (OSError, ValueError) as error:
        print(f"mcp-rendering audit: {error}", file=sys.stderr)
        return 2
    if options.json:
        print(json.dumps(_report_json(report), indent=2, ensure_ascii=False))
    else:
        print(report.format())
    return 0 if report.clean else 1


def _report_json(report: AuditReport) -> dict[str, Any]:
    return {
        "clean": report.clean,
        "score": report.score,
        "rowsExpected": report.rows_expected,
        "rowsIntact": report.rows_intact,
        "resultComplete": report.result_complete,
        "markup": report.markup,
        "issues": [
            {
                "kind": issue.kind,
                "detail": issue.detail,
                "sectionId": issue.section_id,
                "rowId": issue.row_id,
                "line": issue.line,
            }
            for issue in report.issues
        ],
    }


if __name__ == "__main__":
    sys.exit(audit_main())
