"""Fidelity audit: did a host show the user a verbatim result whole, in order, unaltered and nothing more?

`audit(shown_text, result)` compares what a host showed (a transcript) with the records of the result, as
`mcp_rendering.records.result_records` reads them for any result: a document's rows, any other structured content
as rows, or the lines of a text result. It is clean only when every record is shown exactly once, in order,
unaltered, nothing record-shaped was added, nothing is hidden from the reader, and completeness is stated truly.

The rules (the contract of this module):

1. **The rendering.** A transcript is read either as plain text shown as is, or as Markdown rendered by a
   CommonMark + GFM renderer that renders raw HTML: `mcp_rendering.transcript` renders it with cmark-gfm and parses
   the HTML with an HTML5 parser, and what that shows is what a reader sees, block by block. `markup` says which
   reading; "auto" reads Markdown whenever a renderer would show the transcript otherwise than as plain text (in
   doubt, the reading that can hide more). Pass `markup` when you know how the transcript is displayed.
2. **Certain or not.** A character a reader cannot see as written (C0 and C1 controls other than tab and line
   feed, bidi and other format characters, line and paragraph separators) is `hidden_content`, in either reading,
   and in the Markdown reading also when a character reference decodes to it. In the Markdown reading, a construct
   whose visible text depends on the renderer, its options or its style sheets (raw HTML, an image, a link title,
   struck-through text, text that no block shows such as a link reference definition) is `unverifiable`: "cannot
   verify what the reader sees", on each line it may change (`mcp_rendering.transcript` says which); so are, in
   either reading, digits that right-to-left text may move (`mcp_rendering.drawn.reordered_digits`). A line holding
   any of these shows nothing: its records count as not shown. The text of raw HTML (a comment, an element the renderer
   never writes such as `<details>` or a `<textarea>` that swallows what follows) is not shown.
3. **Reading a line.** Whitespace runs count as one space. In the Markdown reading a line reads as its block's
   visible text: escapes and entities decoded by the parsers, emphasis dropped, a link as its text, a list item
   with the marker the renderer shows (an ordered list numbered as the renderer numbers it), a table row as the
   cells the renderer splits it into, a code block as plain text. A line that runs on from the one before in the
   same paragraph is not an item of its own and carries no notice; a line after a hard line break starts anew. A
   task list's check box reads `[x]` or `[ ]`. Headings, setext underlines, a table's own header row (a first cell
   naming the label column, empty or not, then the section's columns) and rows of dashes, text separators (`+---+`,
   `+===+`) and fences never stand for a record; any other header row is a table line like the rest. In plain text,
   the `|` line above a border is a header only when the border says so: a `+===+` border, or a border between the
   box's first line and more of its lines (a bottom border closes the last record). Text is compared as drawn
   (`mcp_rendering.drawn`): NFC and NFD alike, U+1680 as a dash, numbers without the digit grouping of a common
   locale ("the same value" in the host guide). Footnotes, which a renderer with footnotes on moves or hides, are
   unverifiable; block quotes nested deeper than `MAX_NESTING` are refused.
4. **A record of a document or structured result** is shown on a *table line* (a Markdown table row, its cells as the
   renderer splits them; or a line read as plain text that starts with `|`, its cells split at every `|`, one leading
   and one trailing `|` being borders) when its cells are exactly the record's label, then each of its values, in
   order; or on a *free-form line* when, after a list marker, the line starts with the label (a `:` may follow) and
   holds the values in order, separated by nothing but punctuation, spaces and the section's column names, each name
   beside its own value (parentheses bind a name to the value before it, a `,`, `;` or `|` on one side of it only to
   the value on its other side), no value alone in parentheses (`(100)` reads as -100 in accounts). A list's number
   is read as part of a label that begins with a number. The label cell may carry indentation and a kind marker
   (`Subtotal`, `Total`, with an optional `:`) and nothing else. A line marked as a subtotal or total stands only for
   a record of that kind; an unmarked line may stand for a subtotal or total that no line marks (a line that reads as
   an item's own label, `Total: Assets`, marks nothing). Values are compared as the reference renderer shows them
   (`mcp_rendering.render`): nulls as the directive's null text, hidden characters as escapes. A record the server
   sent as a link (`page.linkedRecords`) is shown by a line that shows no other record and whose visible text holds
   its URI as a word (a link's target is not what a reader sees); it is counted as a record, and left out it is
   *missing*. A row the server embedded is shown only by its cells: a link to it in its place shows none of its
   values.
5. **A line of a text result** is shown by a line whose text is equal to it.
6. **Reader order.** Lines are read top to bottom; each stands for at most one record, and a record is taken by
   the first line that shows it. A later line that shows a record already taken is *duplicated*. Records shown
   exactly but out of order are *reordered* (the largest in-order set is kept). A record not shown exactly takes
   a line that shows its label with other values (*altered*) or, on a table line, its values under another label
   (*relabelled*); for a text result, a missing line takes the unmatched line in its place (*altered*). Records
   left over are *missing* (subtotals and totals: *dropped*).
7. **Added records** (`fabricated_row`): a table line, or an item of a list whose items show records, that stands
   for no record, and a line of prose of its own (after a hard break) below a record of its paragraph; a line
   that shows a record already shown, wherever it is (in a list after the table, say), is *duplicated*. For a text
   result, any line between the first and the last line shown that is not a line of the result.
8. **Sections.** A record is *misplaced* when shown under the title of another section or under another section's
   columns. A section is known by what a reader takes as its title: a heading, a line wholly emphasized, a line
   ending with `:`, a table row holding only a label, or a line that is the title; the title may be numbered,
   followed by more words, or shortened to a beginning no other title shares; such a line naming no section ends
   the one before. A section with records is *dropped* when none of them is shown (exactly or altered); a section
   without records is dropped when no line shows its title.
9. **Completeness** (`completeness_misstated`). A *notice* is a line a reader reads as one: not standing for a
   record, not a table line, not running on in a paragraph, not the document's or a section's title, visible (a link
   title is not). What it says is read from its opening (`_notices`, the one place; the host guide's "The partial
   notice" lists the words): *partial* (`PARTIAL_MARKER`, "this is only part of the results", "Showing 100 of 300
   hits"), *not-stated* (`UNSTATED_COMPLETENESS`, "this list may be incomplete"), and whether a clause of it that
   denies nothing says how to get the rest ("ask for more"). The result's state (`mcp_rendering.host.ResultState`)
   says which notice it needs: a `partial` one a partial notice; a `continued` one a partial notice saying how to
   get the rest; a `not-stated` one either; a `complete` one none when every record is shown (a notice saying that a
   view left short is partial is true). The parts of a continued result, audited together, are partial only when
   the last one is.

What this cannot see: an invented record written as prose (outside a table, a list of records or a paragraph of
them); two records
identical in label, values and kind (interchangeable, only their count matters); a change of indentation; a value
changed only in whitespace; an empty value in free-form text; a notice that opens as one and then contradicts
itself.

The stages, each a unit with one input and one output, so that each class of finding is closed in one place:

1. **Render and read** (`_read`: a transcript to `_Reader.lines`, one `_Line` a source line, and the hidden and
   unverifiable issues): `mcp_rendering.transcript` renders and parses, `_Reader` classifies what a reader sees
   (rules 1 to 3: renderer options, hidden characters, tables, lists, headers, borders, hard breaks, nesting).
2. **Normalise as drawn** (`mcp_rendering.drawn`, applied to the lines by the reader and to the records by
   `_Records`: a document to its rows as a reader should see them, grouped and indexed): NFC and NFD, dashes,
   digit grouping, escapes, null text.
3. **Match** (`_Matcher.run`: lines and records to a `_Matching`): which line shows which record exactly (rules 4
   and 5, table and free-form lines, kind markers), the longest chain in order (rule 6, `_Matcher._assign` and its
   chains), then the lines that show a record altered or relabelled.
4. **Report** (`_document_issues`: the matching to issues, then `_report` to the score): each record's verdict
   (`_record_issues`), sections and titles (`_section_titles`, `_misplaced`, `_dropped_sections`, rule 8), lines
   added (`_added_lines`, rule 7) and completeness (`_completeness`, rule 9).

A text result (rule 5) is read by stage 1, matched and reported by `_audit_lines`.

The score is the share of records shown intact, counting added and duplicated lines in the denominator, halved
when completeness is misstated. Cost: one pass of each parser (C code), one walk of the blocks, hash lookups (a
free-form line is checked only against the rows of its label whose values it holds, found through an index of
their values, however many rows share the label) and one longest chain of records shown in order, in which
identical records are one group (a line names the groups it may show, not each of their records): O(n log n) for
n records and lines of bounded length when few records are alike, O((n + m) d) otherwise, d being the records and
lines out of order or left over; either way a line of a record's own kind is preferred to a lenient reading.
Transcripts over `MAX_TRANSCRIPT_CHARS`, and those holding a lone surrogate, are refused. The audit leaves the
process's garbage collector as it finds it: it never switches it off, and a caller that wants it paused pauses it
around the call.
"""

from __future__ import annotations

import bisect
import dataclasses
import html
import json
import operator
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import Any, Literal, TypeAlias, cast

from pydantic import ValidationError

from mcp_rendering.document import Cell, Document, Row, RowKind, Section
from mcp_rendering.drawn import (
    as_drawn,
    cell_as_drawn,
    decimal_mark,
    lines_as_drawn,
    may_change,
    numbers_in,
    reordered_digits,
    right_to_left,
    right_to_left_count,
    spaced_number,
    starts_right_to_left,
)
from mcp_rendering.envelope import LinkedRecord
from mcp_rendering.host import Presentation, ResultState, linked_of_wire, state_of_wire, tool_result_wire
from mcp_rendering.reading import DEFAULT_NULL_DISPLAY, MessageTooLargeError, resolve_rendering
from mcp_rendering.records import RecordsKind, ResultRecords, result_records, shows_text
from mcp_rendering.render import (
    column_cells,
    first_hidden,
    hides_nothing,
    markdown_escape,
    shows_as_written,
    text_escape,
    visible,
)
from mcp_rendering.transcript import ShownLine, TranscriptView, read_markdown, split_at_line_breaks
from mcp_rendering.types import CONTINUATION_ID, PARTIAL_MARKER

__all__ = [
    "MAX_NESTING",
    "MAX_RESULT_BYTES",
    "MAX_TRANSCRIPT_CHARS",
    "AuditInputError",
    "AuditReport",
    "Issue",
    "IssueKind",
    "Markup",
    "audit",
    "audit_document",
    "audit_lines",
    "fold",
]

MAX_TRANSCRIPT_CHARS = 128 * 1024 * 1024
"""The longest transcript audited (128 Mi characters, about two million table rows); a longer one is refused
before any work is done."""

MAX_NESTING = 64
"""The deepest block quote nesting audited; a deeper one is refused before it is parsed (an HTML5 parser's cost
grows with the square of the nesting, and no reader follows 64 levels)."""

MAX_RESULT_BYTES = 256 * 1024 * 1024
"""The largest result file `mcp-rendering audit` reads (256 MiB, about a million records); a larger one is refused
before it is read. An audit at both limits holds a few GB: about seven times the result's JSON."""

IssueKind: TypeAlias = Literal[
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
    "unverifiable",
    "misplaced_row",
]
"""What went wrong. `missing_row` is an item; subtotal and total records are reported as dropped; a
`misplaced_row` is shown under another section's heading or under other columns than its own."""

Markup: TypeAlias = Literal["auto", "text", "markdown"]
"""How the transcript is displayed: detect, plain text, or Markdown."""


class AuditInputError(ValueError):
    """The input cannot be audited (too large, or not a result); the message is one line."""


_MISSING_KIND: dict[RowKind, IssueKind] = {
    "item": "missing_row",
    "subtotal": "dropped_subtotal",
    "total": "dropped_total",
}

_RULE_LINE = re.compile(r"^(?:\+(?:-+\+)+|\+(?:=+\+)+|=+|-+)$", re.MULTILINE)
"""A folded line that is a text separator (`+---+---+`, `+===+===+`) or an underline (`===`, `---`)."""
_TOO_DEEP = re.compile(rf"^(?:[ \t]*>){{{MAX_NESTING + 1}}}", re.MULTILINE)
_SPACE_GROUPED = re.compile(r"\d \d{3}(?!\d)")
_SPACED_DIGITS = re.compile(r"[0-9] +[0-9]{3}(?![0-9])")
"""Digits of ASCII text a table cell may group by spaces (`cell_as_drawn`), one or more."""
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,9}[.)])[ \t]+")
# A line of a text result may read otherwise once rendered as Markdown only when it holds one of these.
_MARKDOWN_SIGNIFICANT = re.compile(r"[\\`*_\[\]<>!&|~#=]|^\s*(?:[-+>]|\d{1,9}[.)])|^ {4}|^\t")
# What the plain reading may share with the Markdown one: paragraphs, setext headings, breaks.
_UNDERLINE_CHARS = frozenset("=- ")
_PLAIN_TAGS = frozenset({"p", "h1", "h2", "hr"})
_PAIR_BUDGET = 2_000_000
"""Past this many (row, line) pairs the order check pairs lines with groups of identical rows instead."""
_DIFF_BUDGET = 4_000_000
"""Past this many steps of the edit script (a transcript far from faithful, with many identical rows), a group's
lines take its rows in order."""
_FEW_OF_A_LABEL = 8
"""Up to this many rows of one label, a free-form line is checked against each; past it, through `_LabelIndex`."""
_ROWS_HERE: Any = object()
"""The key under which a node of `_LabelIndex` holds the rows whose values end there."""
_MARKER_START = frozenset("*_sStT\u017f")
"""The first characters `_KIND_MARKER` can match at (U+017F, the long s, matches `s` ignoring case)."""
_KIND_MARKER = re.compile(r"(?:\*\*|__)?(sub)?total\b:?(?:\*\*|__)?:?\s*", re.IGNORECASE)
_SEPARATOR_CHARS = frozenset(" .:,;()[]{}=/|\u00b7\u2022-\u2013\u2014")
_TOKEN_BEFORE = frozenset(" ([:=/")
_TOKEN_AFTER = frozenset(" )]/")
_TOKEN_AFTER_IF_SPACED = frozenset(",.;:")
_NAME_BREAKS = frozenset(",;|")
"""Punctuation that parts one value and its column name from the next."""


def fold(text: str) -> str:
    """Whitespace folding: runs of whitespace become one space; leading and trailing space is dropped."""
    if text.isprintable() and "  " not in text and not text.startswith(" ") and not text.endswith(" "):
        return text  # already folded (`isprintable` is False for every whitespace but the plain space)
    return " ".join(text.split())


def _fold_all(texts: Sequence[str]) -> list[str]:
    """`fold` of each text; when it leaves every one as it is, as it does for most transcripts, found by one check of
    them all in C, not a call a text."""
    joined = "\n".join(texts)
    if (
        "  " not in joined
        and " \n" not in joined
        and "\n " not in joined
        and joined[:1] != " "
        and joined[-1:] != " "
        and joined.replace("\n", "").isprintable()
    ):
        return list(texts)
    return [" ".join(text.split()) for text in texts]  # `fold` without its own check: some text needs folding


def _pieces(text: str) -> tuple[str, ...]:
    if "|" not in text:
        return (fold(text),)
    return tuple(fold(piece) for piece in text.split("|"))


# ------------------------------------------------------------------------------------------------------ the report


@dataclass(frozen=True)
class Issue:
    """One infidelity found by the audit."""

    kind: IssueKind
    detail: str
    """A human-readable account of the issue; server text in it is quoted and escaped."""
    section_id: str | None = None
    row_id: str | None = None
    line: int | None = None
    """1-based transcript line where the issue was found, if any."""


@dataclass(frozen=True)
class AuditReport:
    """The outcome of one audit."""

    rows_expected: int
    """Records in the result (rows, or the non-empty lines of a text result)."""
    rows_intact: int
    """Records shown exactly and in order."""
    result_complete: bool
    """Whether the result itself was complete (not a bounded page)."""
    markup: Literal["text", "markdown"]
    """How the transcript was read."""
    records: RecordsKind = "document"
    """How the result's records were read."""
    issues: tuple[Issue, ...] = ()
    score: float = 1.0
    """Share of the records shown intact, in [0, 1]; see the module docstring."""

    @property
    def clean(self) -> bool:
        """True when no issue was found."""
        return not self.issues

    def of_kind(self, *kinds: IssueKind) -> tuple[Issue, ...]:
        """The issues of the given kinds, in report order."""
        return tuple(issue for issue in self.issues if issue.kind in kinds)

    @property
    def missing(self) -> tuple[Issue, ...]:
        """Records not shown, of every kind (items, subtotals, totals)."""
        return self.of_kind("missing_row", "dropped_subtotal", "dropped_total")

    @property
    def altered(self) -> tuple[Issue, ...]:
        """Records shown with a value that differs."""
        return self.of_kind("altered_row")

    @property
    def relabelled(self) -> tuple[Issue, ...]:
        """Records shown with their values under another label."""
        return self.of_kind("relabelled_row")

    @property
    def reordered(self) -> tuple[Issue, ...]:
        """Records shown out of order."""
        return self.of_kind("reordered_row")

    @property
    def duplicated(self) -> tuple[Issue, ...]:
        """Lines that show a record a second time."""
        return self.of_kind("duplicated_row")

    @property
    def fabricated(self) -> tuple[Issue, ...]:
        """Record-shaped lines that stand for no record."""
        return self.of_kind("fabricated_row")

    @property
    def hidden(self) -> tuple[Issue, ...]:
        """Content a reader does not see as written."""
        return self.of_kind("hidden_content")

    @property
    def dropped_sections(self) -> tuple[Issue, ...]:
        """Sections of which nothing was shown."""
        return self.of_kind("dropped_section")

    @property
    def completeness_misstated(self) -> bool:
        """A partial result shown as complete, or a complete one shown as partial."""
        return bool(self.of_kind("completeness_misstated"))

    def format(self) -> str:
        """The report as text, one issue per line."""
        verdict = "clean" if self.clean else f"{len(self.issues)} issue(s)"
        head = (
            f"fidelity: {verdict}; score {self.score:.3f}; {self.rows_intact}/{self.rows_expected} records intact; "
            f"result {'complete' if self.result_complete else 'partial'}; transcript read as {self.markup}"
        )
        lines = [head]
        for issue in self.issues:
            where = ", ".join(
                part
                for part in (
                    f"section {_quote(issue.section_id)}" if issue.section_id is not None else "",
                    f"row {_quote(issue.row_id)}" if issue.row_id is not None else "",
                    f"line {issue.line}" if issue.line is not None else "",
                )
                if part
            )
            lines.append(f"- {issue.kind}" + (f" ({where})" if where else "") + f": {issue.detail}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "clean": self.clean,
            "score": self.score,
            "rowsExpected": self.rows_expected,
            "rowsIntact": self.rows_intact,
            "resultComplete": self.result_complete,
            "markup": self.markup,
            "records": self.records,
            "issues": [
                {
                    "kind": issue.kind,
                    "detail": issue.detail,
                    "sectionId": issue.section_id,
                    "rowId": issue.row_id,
                    "line": issue.line,
                }
                for issue in self.issues
            ],
        }


def _quote(text: str) -> str:
    return json.dumps(visible(text), ensure_ascii=False)


# ------------------------------------------------------------------------------------------ reading the transcript

_Kind: TypeAlias = Literal["blank", "structure", "hidden", "table", "item", "prose"]


@dataclass(slots=True)
class _Line:  # built a line at a time: hot paths pass its fields by position (keywords cost several times more)
    number: int
    view: str
    """What the reader sees of the line, decoded and folded."""
    kind: _Kind
    list_block: int = -1
    """For an item: which list it belongs to."""
    cells: tuple[str, ...] | None = None
    """For a Markdown table row: its cells as the renderer splits them, folded."""
    marker: str = ""
    """For an item's first line, or a line drawn beginning with a list's marker as text: the marker the reader
    sees."""
    continues: bool = False
    """The line continues a paragraph (the reader sees it run on from the line before)."""
    header: tuple[str, ...] | None = None
    """For a table line: the header it is read under (its table's header row, or the plain-text header line
    above it), None when there is none."""
    heading: bool = False
    """A heading (or an underlined title) that may name a section."""
    emphasized: bool = False
    """The whole line is emphasized: a reader takes it for a title."""


def _drawn(text: str, decimal: str) -> str:
    """A line of the transcript as a reader compares it: as drawn (`mcp_rendering.drawn`), then folded."""
    if not decimal:  # nothing in the transcript is drawn otherwise than written
        return fold(text)
    return fold(as_drawn(text, decimal)) if may_change(text, decimal) else fold(text)


def _drawn_cells(cells: Iterable[str], decimal: str) -> tuple[str, ...]:
    return tuple(
        [
            fold(cell_as_drawn(cell, decimal)) if decimal and (may_change(cell, decimal) or " " in cell) else fold(cell)
            for cell in cells
        ]
    )


def _as_header(cells: tuple[str, ...], headers: frozenset[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The section header a table's header row reads as: its first cell names the label column (`Line item`,
    `Account`, or nothing), the others are a section's columns. None when it is no section's header."""
    if len(cells) > 1 or cells == ("",):  # an empty cell alone is a header only when a renderer says so
        return ("", *cells[1:]) if cells[1:] in headers else None
    return None


_BIDI_OPENERS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u200e\u200f\u061c")
"""Bidi embeddings, overrides and isolates (and the end of an embedding), and the invisible marks of a direction:
each may reorder what follows it to the end of its block, over soft and hard line breaks."""


def _hidden_issue(character: str, number: int) -> Issue:
    what = f"U+{ord(character):04X} ({unicodedata.name(character, 'unnamed')})"
    return Issue("hidden_content", f"the character {what} hides or moves text from the reader", line=number + 1)


class _Reader:
    """Splits a transcript into lines as a reader sees them, one per source line, collecting hidden-content and
    unverifiable-construct issues on the way."""

    def __init__(
        self,
        text: str,
        markup: Markup,
        headers: frozenset[tuple[str, ...]] = frozenset(),
        result_numbers: Callable[[], frozenset[str]] = frozenset,
    ) -> None:
        self.issues: list[Issue] = []
        raw = text.removeprefix("\ufeff").replace("\r\n", "\n")
        self.origin: list[int] | None = None
        """The transcript line each line read comes from, when a line break tag inside a line ended it."""
        if markup != "text" and "<" in raw and (split := split_at_line_breaks(raw)) is not None:
            raw, self.origin = split
        self.raw_lines = raw.split("\n")
        # The decimal mark the transcript's numbers imply; empty when nothing in it reads otherwise than written
        # (decided in C, for the whole transcript), so that no line is drawn. A number's form says `,` only where
        # `may_change(raw, ".")` finds it: with no such number and no spaced digits, `.` is the mark and nothing
        # may change, and the marks are not counted.
        spaced = raw.isascii() and _SPACED_DIGITS.search(raw) is not None  # else `may_change` says yes
        changes = may_change(raw, ".")
        decimal = decimal_mark(raw) if spaced or changes else "."
        if decimal == ",":  # decided by the transcript's own numbers, not those written exactly as the result's
            decimal = decimal_mark(raw, result_numbers())
        drawn = spaced or (changes if decimal == "." else may_change(raw, decimal))
        self.decimal = decimal if drawn else ""
        self.headers = headers
        hiding: set[int] = set()
        # One check in C over the whole transcript (line feeds left out) decides the common case: nothing hidden.
        lines_with_hidden = [] if hides_nothing("".join(self.raw_lines)) else self.raw_lines
        for number, line in enumerate(lines_with_hidden):
            hidden = first_hidden(line)
            if hidden is not None:
                hiding.add(number)
                self.issues.append(_hidden_issue(hidden, number))
        view = read_markdown(raw) if markup != "text" else None
        # The plain reading is built only when it may be the one shown: a view with more than plain blocks is not.
        may_be_plain = markup == "text" or (markup == "auto" and view is not None and _plain_tags_only(view))
        plain = _classify_plain(self.raw_lines, 0, self.decimal, headers) if may_be_plain else []
        self.markdown = view is not None and (
            markup == "markdown" or not plain or _reads_otherwise(view, plain, self.decimal)
        )
        if self.markdown:
            assert view is not None
            # What the renderer decodes (a character reference) may hide or move text as the source's characters do.
            if not hides_nothing("".join([shown.text for shown in view.lines])):
                for shown in view.lines:
                    hidden = first_hidden(shown.text)
                    if hidden is not None and shown.number not in hiding:
                        hiding.add(shown.number)
                        self.issues.append(_hidden_issue(hidden, shown.number))
            if hiding:
                self._reordered_after(view, hiding)
            if right_to_left(raw) or ("&" in raw and right_to_left("".join([shown.text for shown in view.lines]))):
                paragraphs = _bidi_paragraphs(view, self.raw_lines)
                self._hide_reordered_digits(paragraphs, hiding, {item.line for item in view.uncertain})
            lines = self._from_view(view, headers)
        else:
            lines = plain
            _number_lists(lines)
            if hiding:
                self._reordered_after_plain(hiding)
            if right_to_left(raw):
                self._hide_reordered_digits(_plain_paragraphs(self.raw_lines), hiding)
        if hiding:  # a line holding such a character shows nothing
            lines = [_Line(line.number, "", "hidden") if line.number in hiding else line for line in lines]
        self.lines = lines

    def in_source(self, number: int) -> int:
        """The transcript line (0-based) that line `number` of the reading comes from."""
        return number if self.origin is None else self.origin[number]

    def with_source_lines(self, issues: list[Issue]) -> list[Issue]:
        """`issues` placed on the transcript's own lines, not the reading's: of the lines a tag ended, what one shows
        or hides is the transcript line's, reported once (as a line of the reading is)."""
        if self.origin is None:
            return issues
        placed: list[Issue] = []
        seen: set[tuple[IssueKind, int | None]] = set()
        for issue in issues:
            if issue.line is not None:
                issue = dataclasses.replace(issue, line=self.in_source(issue.line - 1) + 1)
                if issue.kind in ("hidden_content", "unverifiable"):
                    if (issue.kind, issue.line) in seen:
                        continue
                    seen.add((issue.kind, issue.line))
            placed.append(issue)
        return placed

    def _hide_reordered_digits(
        self, paragraphs: Iterable[_BidiParagraph], hiding: set[int], reported: Collection[int] = ()
    ) -> None:
        """Hide the lines whose digits a right-to-left letter may draw in another order (`reordered_digits`);
        `reported`: lines already reported, which show nothing."""
        for paragraph, letters_unseen in paragraphs:
            for index in reordered_digits([text for _, text in paragraph], letters_unseen):
                number = paragraph[index][0]
                if number not in hiding and number not in reported:
                    hiding.add(number)
                    detail = "digits right-to-left text in their block may draw in another order or place"
                    detail = f"cannot verify what the reader sees: {detail}"
                    self.issues.append(Issue("unverifiable", detail, line=number + 1))

    def _reordered_after(self, view: TranscriptView, hiding: set[int]) -> None:
        """Hide the later lines of a block (run on, or after a hard break) after a line holding a bidi embedding,
        override or isolate: it reorders the text after it to the end of its block, not of its line."""
        opener = -1
        for shown in view.lines:
            if not (shown.continues or shown.after_break):
                opener = -1
            elif opener >= 0 and shown.number not in hiding:
                hiding.add(shown.number)
                detail = f"a bidi control on line {self.in_source(opener) + 1} reorders the text of this line"
                detail += ", in its block"
                self.issues.append(Issue("hidden_content", detail, line=shown.number + 1))
            if shown.number in hiding and not _BIDI_OPENERS.isdisjoint(self.raw_lines[shown.number] + shown.text):
                opener = shown.number

    def _reordered_after_plain(self, hiding: set[int]) -> None:
        """`_reordered_after` for plain text, whose paragraphs are its runs of lines that are not blank."""
        opener = -1
        for number, line in enumerate(self.raw_lines):
            if not line.strip(" \t"):
                opener = -1
            elif opener >= 0 and number not in hiding:
                hiding.add(number)
                detail = f"a bidi control on line {opener + 1} reorders the text of this line, in its paragraph"
                self.issues.append(Issue("hidden_content", detail, line=number + 1))
            if number in hiding and not _BIDI_OPENERS.isdisjoint(line):
                opener = number

    def _from_view(self, view: TranscriptView, headers: frozenset[tuple[str, ...]]) -> list[_Line]:
        lines = [_Line(number, "", "blank") for number in range(len(self.raw_lines))]
        table_headers: dict[int, tuple[str, ...]] = {}
        code: list[ShownLine] = []
        for shown in [*view.lines, None]:
            if shown is not None and shown.block == "code" and (not code or code[-1].number + 1 == shown.number):
                code.append(shown)
                continue
            if code:  # a code block is shown as plain text: read it so
                texts = [item.text for item in code]
                for line in _classify_plain(texts, code[0].number, self.decimal, headers):
                    lines[line.number] = line
                code = []
            if shown is None:
                break
            if shown.block == "code":
                code.append(shown)
                continue
            if not 0 <= shown.number < len(lines):
                continue
            kind: _Kind
            decimal = self.decimal
            if shown.block == "heading":
                view_text = _drawn(shown.text, decimal)
                lines[shown.number] = _Line(shown.number, view_text, "structure", heading=True)
                continue
            elif shown.block in ("row", "header"):
                cells = _drawn_cells(shown.cells or (), decimal)
                # A header row is the table's own when it is a section's header; any other row is record-shaped.
                own = _as_header(cells, headers) if shown.block == "header" else None
                if shown.block == "header":
                    table_headers[shown.table] = own if own is not None else cells
                kind = "structure" if own is not None else "table"
                header = table_headers.get(shown.table)
                row_view = "| " + " | ".join(cells) + " |"
                lines[shown.number] = _Line(shown.number, row_view, kind, -1, cells, "", False, header)
                continue
            elif shown.block == "item":
                # A run-on line, or one after a hard break, is not an item of its own.
                kind = "prose" if shown.continues or shown.after_break else "item"
            else:  # a line of text a reader sees with its pipes: read as a plain-text table line is
                kind = "table" if shown.text.lstrip().startswith("|") else "prose"
            view_text, marker = _drawn(shown.text, decimal), shown.marker
            drawn_marker = _LIST_MARKER.match(view_text) if kind == "prose" and not shown.continues else None
            if drawn_marker:
                # A list's marker drawn as text at the start of a line (after a line break, escaped, or a `•`) is
                # read as a marker, as in plain text, but for a bullet before a number: its sign (`- 250`).
                drawn, after = drawn_marker.group(0).strip(), drawn_marker.end()
                if drawn[0].isdigit() or not view_text[after : after + 1].isdigit():
                    view_text, marker = view_text[after:], drawn
            line = _Line(shown.number, view_text, kind, shown.list_id, None, marker)
            line.continues, line.emphasized = shown.continues, shown.emphasized
            lines[shown.number] = line
        for item in view.uncertain:
            if item.line < len(lines):
                lines[item.line] = _Line(item.line, "", "hidden")
            self.issues.append(
                Issue("unverifiable", f"cannot verify what the reader sees: {item.what}", line=item.line + 1)
            )
        return lines


_BidiParagraph: TypeAlias = tuple[list[tuple[int, str]], bool]
"""A bidi paragraph: its (line number, visible text) pairs, and whether its source holds right-to-left letters its
text does not show."""


def _bidi_paragraphs(view: TranscriptView, raw_lines: Sequence[str]) -> list[_BidiParagraph]:
    """The view's text as a renderer's bidi paragraphs: the lines of a block (run on, after a hard break, a setext
    heading's), each table cell, each other line. Whether a paragraph's source holds right-to-left letters it does not
    show (struck through, raw HTML) is read from its source lines, and from those before it in its block that it does
    not show."""
    texts: list[list[tuple[int, str]]] = []
    unseen_in: list[bool] = []
    previous = -2
    for shown in view.lines:
        number = shown.number
        source = raw_lines[number] if number < len(raw_lines) else ""
        if shown.cells is not None:
            unseen = _unseen_letters(source, "".join(shown.cells))
            for cell in shown.cells:
                texts.append([(number, cell)])
                unseen_in.append(unseen)
            previous = -2
            continue
        unseen = _unseen_letters(source, shown.text)
        continuing = shown.continues or shown.after_break
        if continuing and previous == number - 1:
            texts[-1].append((number, shown.text))
            unseen_in[-1] = unseen_in[-1] or unseen
        else:
            # The lines of its block it does not show, back to the last line shown (whose paragraph tells the rest).
            before = number - 1
            while continuing and before > max(previous, -1) and raw_lines[before].strip() and not unseen:
                unseen = right_to_left(raw_lines[before])
                before -= 1
            if continuing and before == previous and unseen_in:
                unseen = unseen or unseen_in[-1]
            texts.append([(number, shown.text)])
            unseen_in.append(unseen)
        previous = number
    return list(zip(texts, unseen_in, strict=True))


def _unseen_letters(source: str, shown: str) -> bool:
    """Whether a line's source holds right-to-left letters its shown text does not: counted in the source with its
    character references decoded (as an HTML parser decodes them, a superset of what the renderer decodes), so that
    a letter written as a reference does not stand for one struck through."""
    if "&" in source:
        source = html.unescape(source)
    return right_to_left_count(source) > right_to_left_count(shown)


def _plain_paragraphs(raw_lines: Sequence[str]) -> list[_BidiParagraph]:
    """Plain text as bidi paragraphs: its runs of lines that are not blank. A host that shows it in one element whose
    direction follows its text draws it all right to left when its first letter is a right-to-left one."""
    whole = starts_right_to_left("".join(raw_lines))
    paragraphs: list[_BidiParagraph] = []
    run: list[tuple[int, str]] = []
    for number, line in enumerate([*raw_lines, ""]):
        if line.strip(" \t"):  # a line of other spaces (a no-break space) is not blank to a Markdown renderer either
            run.append((number, line))
        elif run:
            paragraphs.append((run, whole))
            run = []
    return paragraphs


def _spaced_cells(line: str) -> str:
    """A plain-text table line with each cell that holds only a number grouped by plain spaces (`spaced_number`)
    grouped by no-break spaces, which `as_drawn` reads as grouping; any other line as it is."""
    border = line.find("|")
    before = line[:border]
    if border == -1 or (before and not before.isspace()) or "\u1680" in before:
        return line  # a table line begins with `|` once folded; U+1680 is drawn as `-`
    return "|".join(f" {grouped} " if (grouped := spaced_number(cell)) != cell else cell for cell in line.split("|"))


def _plain_tags_only(view: TranscriptView) -> bool:
    """Whether the renderer produced only what plain text may also show, nothing uncertain."""
    return not view.uncertain and not view.tags - _PLAIN_TAGS


def _reads_otherwise(view: TranscriptView, plain: Sequence[_Line], decimal: str) -> bool:
    """Whether a Markdown renderer would show the transcript otherwise than as plain text: in doubt, the
    reading that can hide more is assumed."""
    if not _plain_tags_only(view):
        return True
    texts = [shown.text for shown in view.lines]
    drawn = _fold_all(lines_as_drawn(texts, decimal) if decimal else texts)
    return any(
        shown.block not in ("heading", "paragraph") or text != plain[shown.number].view
        for shown, text in zip(view.lines, drawn, strict=True)
    )


def _classify_plain(
    raw: Sequence[str],
    first: int,
    decimal: str = ".",
    headers: frozenset[tuple[str, ...]] = frozenset(),
) -> list[_Line]:
    """Lines shown as plain text (the text reading, or the inside of a code block), numbered from `first`."""
    folded = _fold_all(lines_as_drawn(raw, decimal) if decimal else raw)
    # A table line's cells, where one holds a number grouped by plain spaces, read from the line drawn once with
    # that cell grouped as such (the line's view stays as written).
    spaced: dict[int, str] = {}
    if decimal and _SPACE_GROUPED.search("\n".join(raw)):
        for number, line in enumerate(raw):
            if _SPACE_GROUPED.search(line) and (grouped := _spaced_cells(line)) != line:
                spaced[number] = fold(as_drawn(grouped, decimal))
    # Separators and underlines are found by one scan of the folded lines in C, not a test a line.
    separator: set[int] = set()
    heavy: set[int] = set()  # `+===+`: the border under a header line
    underline: set[int] = set()
    joined = "\n".join(folded)
    line, offset = 0, 0
    for found in _RULE_LINE.finditer(joined):
        line += joined.count("\n", offset, found.start())
        offset = found.start()
        if joined[offset] == "+":
            separator.add(line)
            if "=" in found.group(0):
                heavy.add(line)
        else:
            underline.add(line)
    lines: list[_Line] = []
    header: tuple[str, ...] | None = None  # the header line the table lines below are read under
    box_rows = 0  # `|` lines since the table's box began
    for number, view in enumerate(folded):
        if not view:
            header = None
            box_rows = 0
            lines.append(_Line(first + number, "", "blank"))
            continue
        kind: _Kind
        if number in separator or number in underline:
            kind = "structure"
        elif number + 1 in underline:
            box_rows = 0
            lines.append(_Line(first + number, view, "structure", heading=True))  # an underlined title
            continue
        elif view[0] == "|":
            cells = _table_cells(spaced.get(number, view))
            own = _as_header(cells, headers) if box_rows == 0 and cells != ("",) else None
            # The line above the first border is a header only when the border says so: a `+===+` border, or a
            # border between the box's first line and more lines of it (a bottom border closes the last record).
            border_says = box_rows == 0 and (
                number + 1 in heavy
                or (number + 1 in separator and number + 2 < len(folded) and folded[number + 2][:1] == "|")
            )
            box_rows += 1
            if own is not None or border_says:
                header = own if own is not None else cells
                lines.append(_Line(first + number, view, "structure"))
                continue
            lines.append(_Line(first + number, view, "table", -1, cells, "", False, header))
            continue
        elif (marker := _LIST_MARKER.match(view)) is not None:
            kind = "item"
            box_rows = 0
            lines.append(_Line(first + number, view[marker.end() :], kind, marker=marker.group(0).strip()))
            continue
        else:
            header = None
            box_rows = 0
            kind = "prose"
        lines.append(_Line(first + number, view, kind))
    return lines


def _number_lists(lines: list[_Line]) -> None:
    """Give each run of items (at most one blank line between two items) its own list number."""
    block = -1
    last_item = -10
    blanks = 0
    for index, line in enumerate(lines):
        if line.kind == "item":
            if not (index - last_item - 1 == blanks and blanks <= 1 and last_item >= 0):
                block += 1
            line.list_block = block
            last_item = index
            blanks = 0
        elif line.kind == "blank":
            blanks += 1
        else:
            last_item = -10
            blanks = 0


def _read(
    shown_text: str,
    markup: Markup,
    headers: frozenset[tuple[str, ...]] = frozenset(),
    result_numbers: Callable[[], frozenset[str]] = frozenset,
) -> tuple[_Reader, Literal["text", "markdown"]]:
    if len(shown_text) > MAX_TRANSCRIPT_CHARS:
        raise AuditInputError(
            f"the transcript has {len(shown_text)} characters, over the audit's limit of {MAX_TRANSCRIPT_CHARS}"
        )
    if markup != "text" and ">" * (MAX_NESTING + 1) in shown_text.replace(" ", "") and _TOO_DEEP.search(shown_text):
        raise AuditInputError(f"the transcript nests block quotes over {MAX_NESTING} deep, past what the audit reads")
    if not shown_text.isascii():
        try:
            shown_text.encode()
        except UnicodeEncodeError as error:  # no character: no renderer reads it
            at = error.start
            raise AuditInputError(
                f"the transcript holds a lone surrogate (U+{ord(shown_text[at]):04X}) at {at}"
            ) from None
    reader = _Reader(shown_text, markup, headers, result_numbers)
    return reader, "markdown" if reader.markdown else "text"


# A notice is read from its opening, so that a line that first says the opposite ("This is the complete list, not a
# partial one") is none. The words are the ones the host guide lists ("The partial notice"), matched without case.
_SUBJECT = r"(?:(?:this|these|that)(?:\ [\w'-]+){0,3}?|the(?:\ [\w'-]+){1,3}?|it|what\ is\ shown)"
_BE = r"(?:is|are|was|were)"
_SHOWING = (
    r"(?:(?:i\ am|i'm|we\ are|we're|you\ are|you're)\ )?"
    r"(?:showing|shown|listing|listed|displaying|displayed|returning|returned|including|seeing|here\ are|below\ are"
    r"|these\ are|this\ is|this\ shows|it\ shows|the\ [\w'-]+\ shows)"
)
_NUMBER = r"\d+(?:[,.'\u00a0\u202f\u2009 ]\d{3})*"
_NOTICE_LABEL = re.compile(
    r"""(?:(?:notes?|notice|nb|warning|caution|important|heads[- ]up|fyi|please\ note)\b|n\.b\.)
    \s*[:!.\u2013\u2014-]?[\W_]*""",
    re.IGNORECASE | re.VERBOSE,
)
_RECORDS = r"(?:result|record|row|line|hit|item|entr(?:y|ie)|match|account|page)s?"
"""What a notice says is partly shown: records, not "information" or "the picture" a closing remark speaks of."""
_PARTIAL_OPENING = re.compile(
    rf"""(?:partial|incomplete|truncated)\ (?:result|list|listing|answer|output|data|view|table|response)s?\b
    |{_SUBJECT}\ {_BE}\ (?:only|just)\ (?:a\ |one\ )?part\ of\b
    |{_SUBJECT}\ {_BE}\ part\ of\ the\ (?:[\w'-]+\ )?{_RECORDS}\b
    |{_SUBJECT}\ {_BE}\ (?:only\ |just\ )?(?:a\ |one\ )?(?:portion|subset|excerpt|sample|page|selection)\ of\b
    |{_SUBJECT}\ {_BE}\ (?:only\ |just\ )?(?:partial|incomplete|truncated)\b
    |{_SUBJECT}\ {_BE}\ not\ (?:the\ )?(?:whole|complete|full|entire)
      \ (?:list|listing|set|table|data|answer|output|{_RECORDS})\b
    |{_SUBJECT}\ {_BE}\ not\ all\b
    |not\ all\ (?:of\ )?(?:the\ )?(?:[\w'-]+\ ){{1,3}}?(?:are|were)\ (?:shown|listed|included|displayed|here)\b
    |(?:there\ (?:are|is)\ )?more\ (?:[\w'-]+\ )?{_RECORDS}\ (?:exist|are\ available|available|remain|follow)\b""",
    re.IGNORECASE | re.VERBOSE,
)
_EXTENT_OPENING = re.compile(
    rf"""(?:{_SHOWING}\ (?:only\ |just\ )?(?:the\ )?(?:first\ |top\ )?(?:[\w'-]+\ )?
      |only\ (?:the\ )?(?:first\ |top\ )?)?
    (?P<shown>{_NUMBER})\ (?:[\w'-]+\ )?(?:of|out\ of)\ (?:the\ )?(?P<total>{_NUMBER})(?!\d)
    |(?:{_SHOWING}\ )?(?:[\w'-]+\ )?(?P<low>{_NUMBER})\ ?(?:-|\u2013|to)\ ?(?P<high>{_NUMBER})
      \ (?:of|out\ of)\ (?:the\ )?(?P<all>{_NUMBER})(?!\d)""",
    re.IGNORECASE | re.VERBOSE,
)
_UNSTATED_OPENING = re.compile(
    rf"""(?:the\ )?(?:server|tool|source|service)\ (?:did\ not|didn't|does\ not|doesn't|has\ not|hasn't)
    \ (?:say|state|tell\ us|indicate|specify|confirm)\ (?:whether|if)\b
    |it\ is\ (?:not\ known|unknown|unclear)\ (?:whether|if)\b
    |{_SUBJECT}\ (?:may|might|could)
      \ (?:be\ (?:incomplete|partial|truncated)|not\ be\ (?:the\ )?(?:whole|complete|full|entire|all))\b""",
    re.IGNORECASE | re.VERBOSE,
)
_WAY_TO_THE_REST = re.compile(
    r"""(?:can|could|may|will)\ be\ (?:fetched|retrieved|requested|loaded|shown|listed|obtained|paged)
    |\bask\ (?:me\ |us\ |for\ |to\ )
    |\b(?:to|can|could|will|i'll|we'll)\ (?:get|fetch|see|show|load|retrieve|list|request|view)
      \ (?:the\ rest|more|the\ next|the\ remaining|the\ others|further|them|all)
    |\b(?:say|reply|type|request)\ ["\u201c'\u2018]?(?:more|next|continue)\b
    |\bcall\ .{1,120}?\ again\b
    |\bthe\ rest\ (?:is|are)\ in\ the\ full\ result
    |\bmore\ follows\b
    |\bnext\ page\b|\b(?:load|show|see|fetch|get)\ more\b
    |\blet\ me\ know\b|\bif\ you\ (?:want|would\ like|'d\ like|need)\b|\bwould\ you\ like\b|\bshall\ i\b""",
    re.IGNORECASE | re.VERBOSE,
)
_LEADING_SYMBOLS = re.compile(r"^[\W_]+")
"""What a notice may open with before its first word: a warning sign, an arrow, a dash, a bracket."""
_NEGATION = re.compile(r"\b(?:no|not|never|nor|cannot|without|unable|none)\b|n't\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;:,!?](?:\s|$)")


def _digits(number: str) -> int:
    return int(re.sub(r"\D", "", number))


def _notice_says(text: str) -> Literal["partial", "not-stated"] | None:
    """What a line says of completeness, read from its opening (see the host guide, "The partial notice"): "partial"
    (the marker, a statement that part is shown, or an extent `N of M` with N below M), "not-stated" (that whether
    it is whole is not known), or None."""
    opening = text.replace("*", "").replace("_", " ")
    opening = _LEADING_SYMBOLS.sub("", opening, count=1)
    if opening.startswith(PARTIAL_MARKER):
        return "partial"
    label = _NOTICE_LABEL.match(opening)
    if label is not None and label.end() > 0:
        opening = opening[label.end() :]
    if _PARTIAL_OPENING.match(opening):
        return "partial"
    extent = _EXTENT_OPENING.match(opening)
    if extent is not None:
        if extent["shown"] is not None and _digits(extent["shown"]) < _digits(extent["total"]):
            return "partial"
        if extent["high"] is not None and (
            _digits(extent["high"]) < _digits(extent["all"]) or _digits(extent["low"]) > 1
        ):
            return "partial"
    return "not-stated" if _UNSTATED_OPENING.match(opening) else None


def _offers_the_rest(text: str) -> bool:
    """Whether a notice says how to get the rest: in a clause of it that denies nothing ("The server gave no way to
    fetch the rest" offers none)."""
    start = 0
    for end in [*(found.start() for found in _CLAUSE_END.finditer(text)), len(text)]:
        clause = text[start:end]
        start = end + 1
        if _WAY_TO_THE_REST.search(clause) and not _NEGATION.search(clause):
            return True
    return False


@dataclass(frozen=True)
class _Notice:
    line: int
    says: Literal["partial", "not-stated"]
    offers_the_rest: bool


def _notices(lines: Sequence[_Line], used: Sequence[bool], titles: frozenset[str] = frozenset()) -> list[_Notice]:
    """The one place the audit reads notices: the lines a reader reads as saying the result is partial or that its
    completeness is not known. Not a record's line, a table line, a line that runs on in a paragraph, a title (
    `present()` shows a title that begins like a notice as it is) or hidden text; the lines that run on from it are
    read with it, for how to get the rest."""
    found: list[_Notice] = []
    for index, line in enumerate(lines):
        if line.kind in ("hidden", "blank", "table") or used[line.number] or line.continues or line.view in titles:
            continue  # a notice runs on in a paragraph is not read as one
        says = _notice_says(line.view)
        if says is None:
            continue
        paragraph = [line.view]
        after = index + 1  # walked by index: a slice of the lines below would copy them for every notice
        while after < len(lines) and lines[after].continues:
            paragraph.append(lines[after].view)
            after += 1
        found.append(_Notice(line.number, says, _offers_the_rest(" ".join(paragraph))))
    return found


def _completeness(
    lines: Sequence[_Line],
    used: Sequence[bool],
    state: ResultState,
    titles: frozenset[str] = frozenset(),
    *,
    left_out: bool = False,
) -> list[Issue]:
    """Rule 9: a partial result needs a notice saying so; a continued one, saying how to get the rest too; for one
    whose completeness the server did not state, a line saying that is enough. A complete result shown whole has no
    partial notice (`left_out`: records are not shown, so a notice saying the view is partial is true)."""
    notices = _notices(lines, used, titles)
    partial = [notice for notice in notices if notice.says == "partial"]
    if state == "complete":
        if partial and not left_out:
            return [
                Issue(
                    "completeness_misstated",
                    "the result is complete, but a line says it is partial",
                    line=partial[0].line + 1,
                )
            ]
        return []
    if state == "not-stated" and notices:
        return []
    if state == "continued" and partial and not any(notice.offers_the_rest for notice in partial):
        return [
            Issue(
                "completeness_misstated",
                "the result is partial and the server offers the rest, but no notice says how to get it",
                line=partial[0].line + 1,
            )
        ]
    if partial:
        return []
    not_stated = [notice for notice in notices if notice.says == "not-stated"]
    if not_stated:
        return [
            Issue(
                "completeness_misstated",
                "the result is partial, but the notice only says its completeness is not known",
                line=not_stated[0].line + 1,
            )
        ]
    return [
        Issue(
            "completeness_misstated",
            f"the result is partial, but no line says so (as a line starting with {PARTIAL_MARKER!r} does)",
        )
    ]


# ------------------------------------------------------------------------------------------------ ordering helpers


def _longest_increasing(values: Sequence[int]) -> set[int]:
    """Indexes into `values` of one longest strictly increasing subsequence (patience sorting, O(n log n))."""
    if all(map(operator.lt, values, values[1:])):  # in order already, as a faithful transcript's are (checked in C)
        return set(range(len(values)))
    tails: list[int] = []
    tail_index: list[int] = []
    parent = [-1] * len(values)
    for index, value in enumerate(values):
        position = bisect.bisect_left(tails, value)
        if position == len(tails):
            tails.append(value)
            tail_index.append(index)
        else:
            tails[position] = value
            tail_index[position] = index
        parent[index] = tail_index[position - 1] if position > 0 else -1
    chosen: set[int] = set()
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        chosen.add(index)
        index = parent[index]
    return chosen


# ---------------------------------------------------------------------------------------- document and structured


@dataclass(slots=True)
class _Expected:
    number: int
    section: int
    row: Row
    label: str
    """The folded label."""
    key: tuple[str, ...]
    """Label pieces then value pieces, each folded, split at every `|`."""
    value_pieces: tuple[str, ...]
    values: tuple[str, ...]
    """Each value as shown, folded."""


def _shown(text: str) -> str:
    """Server text as the reference renderer shows it, as drawn (`mcp_rendering.drawn`), folded (the fast path
    decided in C)."""
    if (
        "\\" not in text
        and shows_as_written(text)
        and "  " not in text
        and text[:1] != " "
        and text[-1:] != " "
        and not may_change(text)
    ):
        return text
    return fold(as_drawn(text_escape(text)))


def _drawn_title(text: str) -> str:
    """A section title or column name as a reader compares it."""
    return fold(as_drawn(text_escape(text)))


def _as_written(texts: list[str]) -> frozenset[str]:
    """The numbers of the result's `texts` (`numbers_in`), as written and as the views show them (`visible`, a hidden
    character as its escape; `markdown_escape`, Markdown's escapes): an escape can join digits to a number or part them
    from a word."""
    return numbers_in([*texts, *map(visible, texts), *map(markdown_escape, texts)])


def _written(document: Document, null_display: str, linked: Sequence[LinkedRecord]) -> Iterable[str]:
    """Every text of `document` the reference renderer writes (titles, column names, labels, values) and the URIs
    of the records sent as links."""
    yield document.title
    for section in document.sections:
        yield section.title
        yield from section.columns
        yield from map(attrgetter("label"), section.rows)
        for column in zip(*map(attrgetter("values"), section.rows), strict=True):
            yield from column_cells(column, null_display)[0]
    yield from map(attrgetter("uri"), linked)


def _shown_column(column: Sequence[Cell], null_display: str, seen: dict[str, str]) -> list[str]:
    """One column's values as the reference renderer shows them, as drawn (a table cell: `cell_as_drawn`), folded:
    written by the renderer's own `column_cells`, with a fast path decided for the whole column at once (texts joined
    by one space hold a double, leading or trailing space exactly when one of them does; joined by a tab, digits
    grouped by a space only where one of them holds some), else once per distinct text (values repeat: a currency,
    a status)."""
    written, _ = column_cells(column, null_display)
    joined = " ".join(written)
    if (
        "\\" not in joined
        and shows_as_written(joined)
        and "  " not in joined
        and joined[:1] != " "
        and joined[-1:] != " "
        and not may_change(joined)
        and not _SPACE_GROUPED.search("\t".join(written))
    ):
        return written
    return [  # drawn once, then folded, as a transcript's cell is: folding first would change what is a number
        shown
        if (shown := seen.get(text)) is not None
        else seen.setdefault(text, fold(cell_as_drawn(text_escape(text))))
        for text in written
    ]


def _expected_rows(document: Document, null_display: str, exact_cells: bool) -> list[_Expected]:
    """The records as a reader should see them. With `exact_cells` (a Markdown table's cells, as its renderer
    splits them) a value is one cell; otherwise (a plain-text table) a `|` in a value reads as a cell border."""
    expected: list[_Expected] = []
    append = expected.append
    seen: dict[str, str] = {}
    for section_index, section in enumerate(document.sections):
        rows = section.rows
        # Column by column (one list of texts a column), then each row's values as one tuple, joined in C.
        values = map(attrgetter("values"), rows)
        columns = [_shown_column(column, null_display, seen) for column in zip(*values, strict=True)]
        row_values: Iterable[tuple[str, ...]] = zip(*columns, strict=True) if columns else repeat((), len(rows))
        labels_drawn = may_change("\n".join([row.label for row in rows]))  # one search (in C) for the section
        for row, values in zip(rows, row_values, strict=True):
            label = row.label
            if (
                not (label.isascii() and label.isprintable())
                or "\\" in label
                or "  " in label
                or label[:1] == " "
                or label[-1:] == " "
                or (labels_drawn and may_change(label))
            ):
                label = _shown(label)  # the test above is `_shown`'s fast path for ASCII, without its call
            value_pieces = values
            if exact_cells:
                key = (label, *values)
            else:
                if "|" in "".join(values):
                    value_pieces = tuple(piece for value in values for piece in _pieces(value))
                key = ((label,) if "|" not in label else _pieces(label)) + value_pieces
            append(_Expected(len(expected), section_index, row, label, key, value_pieces, values))
    return expected


def _table_cells(view: str) -> tuple[str, ...]:
    """The cells of a folded table line; one leading and one trailing `|` are borders."""
    parts = view.split("|")
    first = 1 if view.startswith("|") else 0
    last = len(parts) - 1 if view.endswith("|") and len(parts) > first else len(parts)
    return tuple(map(str.strip, parts[first:last]))  # map: no Python frame a cell, on every table line


def _marker_kind(text: str) -> tuple[RowKind, str] | None:
    """(kind, label) when `text` starts with a subtotal or total marker (the label may be empty)."""
    match = _KIND_MARKER.match(text)
    if match is None:
        return None
    return ("subtotal" if match.group(1) else "total"), text[match.end() :]


def _find_token(haystack: str, needle: str, start: int) -> tuple[int, int]:
    """(start, end) of the first delimited occurrence of `needle` at or after `start`, or (-1, -1)."""
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
            return position, end
        position = haystack.find(needle, position + 1)
    return -1, -1


def _gap_ok(gap: str, columns: Sequence[str]) -> bool:
    for column in columns:
        if column and column in gap:
            gap = gap.replace(column, " ")
    return all(char in _SEPARATOR_CHARS or char.isspace() for char in gap)


def _free_values(rest: str, values: Sequence[str], columns: Sequence[str]) -> bool:
    """`rest` holds the values in order, separated by nothing but punctuation, spaces and column names, each column
    name beside its own value (`FY2025: 10, FY2024: 9` or `10 (FY2025), 9 (FY2024)`)."""
    position = 0
    gaps: list[tuple[str, int, int]] = []  # a gap's text, and the values before and after it
    previous = -1
    for index, value in enumerate(values):
        if not value:
            continue
        start, end = _find_token(rest, value, position)
        if start < 0 or not _gap_ok(rest[position:start], columns):
            return False
        if rest[position:start].rstrip().endswith("(") and rest[end:].lstrip().startswith(")"):
            return False  # "(100)" is not 100: in accounts it is -100
        gaps.append((rest[position:start], previous, index))
        position = end
        previous = index
    if not _gap_ok(rest[position:], columns):
        return False
    gaps.append((rest[position:], previous, len(values)))
    return _names_beside_values(gaps, columns)


def _names_beside_values(gaps: Sequence[tuple[str, int, int]], columns: Sequence[str]) -> bool:
    """Every column name in the gaps names a value beside it, as punctuation binds it: in parentheses, or with a
    break (`,`, `;`, `|`) after it and none before, the value before it; with a break before it and none after,
    the value after it (or an empty one left out before that); otherwise either."""
    named = [[column for column, name in enumerate(columns) if name and name in gap] for gap, _, _ in gaps]
    if not any(named):
        return True
    for (gap, previous, after), found in zip(gaps, named, strict=True):
        for column in found:
            to_previous = previous <= column < after
            to_next = previous < column <= after
            binding = _name_binding(gap, columns[column])
            if not (to_previous if binding < 0 else to_next if binding > 0 else to_previous or to_next):
                return False
    return True


def _name_binding(gap: str, name: str) -> int:
    """Which value a column name in a gap between two values names, as its punctuation says: -1 the one before, 1
    the one after, 0 either."""
    start = gap.find(name)
    before, after = gap[:start].rstrip(), gap[start + len(name) :].lstrip()
    if before.endswith("(") and after.startswith(")"):
        return -1  # `10 (FY2025)`
    broken_before = any(char in _NAME_BREAKS for char in before)
    broken_after = any(char in _NAME_BREAKS for char in after)
    return 1 if broken_before and not broken_after else -1 if broken_after and not broken_before else 0


def _delimited_pieces(text: str, lengths: Sequence[int]) -> set[str]:
    """Every piece of `text` of one of `lengths` that `_find_token` could find: delimited at both ends."""
    size = len(text)
    starts = [0, *(index + 1 for index, char in enumerate(text) if char in _TOKEN_BEFORE)]
    pieces: set[str] = set()
    for start in starts:
        for length in lengths:
            end = start + length
            if end > size:
                break  # lengths ascend
            if (
                end == size
                or text[end] in _TOKEN_AFTER
                or (text[end] in _TOKEN_AFTER_IF_SPACED and (end + 1 == size or text[end + 1] == " "))
            ):
                pieces.add(text[start:end])
    return pieces


def _edit_chain(xs: Sequence[int], ys: Sequence[frozenset[int]], budget: list[int]) -> list[tuple[int, int]] | None:
    """The pairs (x, y), both increasing, of a longest chain in which `xs[x]` is one of `ys[y]`, by Myers' greedy
    shortest edit script; the steps it takes are taken from `budget[0]`, and None when they would exceed it."""
    n, m = len(xs), len(ys)
    offset = n + m + 1
    furthest = [0] * (2 * offset + 1)  # furthest[offset + k]: the furthest x reached on diagonal k
    trace: list[list[int]] = []  # before each step d, diagonals -d..d
    for distance in range(n + m + 1):
        trace.append(furthest[offset - distance : offset + distance + 1])
        for diagonal in range(-distance, distance + 1, 2):
            at = offset + diagonal
            if diagonal == -distance or (diagonal != distance and furthest[at - 1] < furthest[at + 1]):
                x = furthest[at + 1]  # a y left out
            else:
                x = furthest[at - 1] + 1  # an x left out
            y = x - diagonal
            start = x
            while x < n and y < m and xs[x] in ys[y]:
                x += 1
                y += 1
            budget[0] -= 1 + x - start
            furthest[at] = x
            if x >= n and y >= m:
                return _trace_back(trace, n, m)
        if budget[0] < 0:
            return None
    raise AssertionError("an edit script of n + m steps always exists")  # pragma: no cover


def _trace_back(trace: list[list[int]], n: int, m: int) -> list[tuple[int, int]]:
    """The pairs of the snakes on the path the forward pass found, walked back from its end."""
    x, y = n, m
    chain: list[tuple[int, int]] = []
    for distance in range(len(trace) - 1, -1, -1):
        before = trace[distance]  # diagonal k at index k + distance
        diagonal = x - y
        if distance == 0:
            previous_x, previous_y = 0, 0
        else:
            down = diagonal == -distance or (
                diagonal != distance and before[diagonal - 1 + distance] < before[diagonal + 1 + distance]
            )
            previous_diagonal = diagonal + 1 if down else diagonal - 1
            previous_x = before[previous_diagonal + distance]
            previous_y = previous_x - previous_diagonal
        while x > previous_x and y > previous_y:
            x -= 1
            y -= 1
            chain.append((x, y))
        x, y = previous_x, previous_y
    chain.reverse()
    return chain


class _LabelIndex:
    """The rows of one label, in a tree of their values (value by value, in order): a free-form line can show only
    a row each of whose non-empty values is a delimited piece of the line, so a line is checked against those
    rows only, found by walking the tree through the pieces it holds, never against every row of the label."""

    def __init__(self, rows: Sequence[_Expected]) -> None:
        self.root: dict[str, Any] = {}
        lengths: set[int] = set()
        for row in rows:
            node = self.root
            for value in row.values:
                if value:
                    lengths.add(len(value))
                node = node.setdefault(value, {})
            node.setdefault(_ROWS_HERE, []).append(row.number)
        self.lengths = sorted(lengths)

    def candidates(self, rest: str) -> list[int]:
        """The rows, in document order, whose non-empty values are all delimited pieces of `rest`."""
        pieces = _delimited_pieces(rest, self.lengths)
        found: list[int] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            if len(node) <= len(pieces) + 2:
                for value, child in node.items():
                    if value is _ROWS_HERE:
                        found.extend(child)
                    elif value == "" or value in pieces:  # an empty value needs nothing in free-form text
                        stack.append(child)
                continue
            # More values here than pieces in the line: look the pieces up (the cost stays the line's, not the rows').
            for value in ("", *pieces):
                child = node.get(value)
                if child is not None:
                    stack.append(child)
            if _ROWS_HERE in node:
                found.extend(node[_ROWS_HERE])
        found.sort()
        return found


def _append(lists: list[tuple[int] | list[int]], index: int, number: int) -> None:
    """Append `number` to `lists[index]`, a tuple of one turning into a list."""
    held = lists[index]
    if isinstance(held, tuple):
        lists[index] = [held[0], number]
    else:
        held.append(number)


# ------------------------------------------------------------------- stage 2: the records as a reader should see them


class _Records:
    """The records of a document as a reader should see them (`_expected_rows`: as the reference renderer shows
    them, as drawn, folded), with what matching looks them up by. Identical rows (same key, same kind) are one
    group: a line names the groups it may show, not each of their rows."""

    def __init__(
        self, document: Document, null_display: str, exact_cells: bool, linked: Sequence[LinkedRecord] = ()
    ) -> None:
        self.document = document
        self.linked = tuple(linked)
        """The records the server sent as links: a line shows one when it shows its URI."""
        self.linked_uris: dict[str, list[int]] = {}
        for number, link in enumerate(self.linked):
            self.linked_uris.setdefault(_shown(link.uri), []).append(number)
        self.exact_cells = exact_cells
        self.rows = _expected_rows(document, null_display, exact_cells)
        self.columns = [tuple(_drawn_title(c) for c in section.columns) for section in document.sections]
        self.titles = [_drawn_title(section.title) for section in document.sections]
        self.document_title = _drawn_title(document.title)
        self.own_headers = [
            ("", *columns) if exact_cells else tuple(piece for cell in ("", *columns) for piece in _pieces(cell))
            for columns in self.columns
        ]
        # One of a kind is held in a tuple, more in a list: a tuple of numbers is one the collector stops
        # tracking, and a row of its own is the common case (each object tracked a row is a full collection more).
        by_label: dict[str, tuple[int] | list[int]] = {}
        group_of: list[int] = []
        group_rows: list[tuple[int] | list[int]] = []
        group_kind: list[RowKind] = []
        groups_of_key: dict[tuple[str, ...], tuple[int, ...]] = {}
        for row in self.rows:
            kind = row.row.kind
            number = row.number
            groups = groups_of_key.get(row.key)
            if groups is None:  # a key seen first: a group of its own (the common case, one lookup)
                group = len(group_rows)
                groups_of_key[row.key] = (group,)
                group_rows.append((number,))
                group_kind.append(kind)
            else:  # a key seen before: the group of its kind (a key has at most one group a kind)
                group = next((known for known in groups if group_kind[known] == kind), -1)
                if group < 0:
                    group = len(group_rows)
                    groups_of_key[row.key] = (*groups, group)  # at most one group a kind: three at most
                    group_rows.append((number,))
                    group_kind.append(kind)
                else:
                    _append(group_rows, group, number)
            group_of.append(group)
            numbers = by_label.get(row.label)
            if numbers is None:
                by_label[row.label] = (number,)
            elif isinstance(numbers, tuple):
                by_label[row.label] = [numbers[0], number]
            else:
                numbers.append(number)
        self.by_label = by_label
        self.group_of = group_of
        self.group_rows = group_rows
        self.group_kind = group_kind
        self.groups_of_key = groups_of_key
        self.label_words = sorted({label.count(" ") + 1 for label in by_label if label})
        self.value_counts = sorted({len(row.value_pieces) for row in self.rows})
        self.label_counts = sorted({len(row.key) - len(row.value_pieces) for row in self.rows})
        self._label_index: dict[str, _LabelIndex] = {}
        self._sections_of_key: dict[tuple[str, ...], set[int]] = {}

    def of_label(self, label: str, rest: str) -> Sequence[int]:
        """The rows of `label` a free-form line whose text after the label is `rest` may show: all of them when
        they are few, else those whose values the line holds (`_LabelIndex`, built when first needed)."""
        numbers = self.by_label.get(label, ())
        if len(numbers) <= _FEW_OF_A_LABEL:
            return numbers
        index = self._label_index.get(label)
        if index is None:
            index = self._label_index[label] = _LabelIndex([self.rows[n] for n in numbers])
        return index.candidates(rest)

    def sections_of(self, key: tuple[str, ...]) -> set[int]:
        """The sections of the rows of `key` (computed when first needed)."""
        known = self._sections_of_key.get(key)
        if known is None:
            rows = self.rows
            groups = self.groups_of_key[key]
            known = self._sections_of_key[key] = {
                rows[number].section for group in groups for number in self.group_rows[group]
            }
        return known

    def has_twin(self, key: tuple[str, ...]) -> bool:
        """Whether another row is identical in key (of any kind) to a row of `key`."""
        groups = self.groups_of_key[key]
        return len(groups) != 1 or len(self.group_rows[groups[0]]) != 1


# ----------------------------------------------------------------------- stage 3: matching lines with the records


_AROUND_URI = "<>()[]{}\"'.,;:"
"""What may enclose or follow a URI written in text."""
_Candidates: TypeAlias = "list[tuple[tuple[str, ...], RowKind | None]]"
"""The keys of the rows a line may show, each with the kind its marker says (None: unmarked)."""
_Showing: TypeAlias = "tuple[int, Sequence[tuple[int, int]]]"
"""A line and the groups it may show, each with how it reads as one (`_Matcher._group`)."""


@dataclass(slots=True)
class _Matching:
    """What matching found, line numbers 0-based."""

    assigned: list[int]
    """For each row, the line that shows it exactly, or -1."""
    in_order: set[int]
    """The rows shown exactly and in order."""
    altered: dict[int, tuple[IssueKind, int]]
    """Rows not shown exactly, and the line that shows them altered or relabelled."""
    linked: list[int]
    """For each record sent as a link, the line that shows its URI, or -1."""
    duplicates: set[int]
    """Lines that show a record already shown."""
    unmatched: list[int]
    """Record-shaped lines that show no record (duplicates among them)."""
    used: list[bool]
    """For each line number, whether it shows a record (exactly or not)."""
    work: int
    """Steps spent pairing lines with rows: what the order check costs, counted (tests bound it)."""


class _Matcher:
    """Pairs the lines a reader sees with the records: which lines show which records exactly (rules 4, 6 and 7),
    the largest set of them in order, and the lines left over that show a record altered or relabelled."""

    def __init__(self, lines: Sequence[_Line], records: _Records) -> None:
        self.lines = lines
        self.records = records
        self.lenient = False
        """Some line may show a subtotal or total without marking it (`_group`)."""
        self.work = 0
        self.assigned: list[int] = [-1] * len(records.rows)  # row -> line
        self.used = [False] * (lines[-1].number + 1 if lines else 0)
        # Unmatched lines, for rows that are not shown exactly: by label, and (table lines) by trailing values.
        self.label_lines: dict[tuple[str, ...], list[int]] = {}
        self.value_lines: dict[tuple[str, ...], list[int]] = {}
        # For each list of `label_lines` and `value_lines`, how many of its lines, used, `_first_unused` passed.
        self.label_passed: dict[tuple[str, ...], int] = {}
        self.value_passed: dict[tuple[str, ...], int] = {}

    def run(self) -> _Matching:
        duplicates, unmatched, in_order = self.match()
        linked = self._linked()
        altered = self._alterations()
        return _Matching(self.assigned, in_order, altered, linked, duplicates, unmatched, self.used, self.work)

    # -- exact matching, in reader order

    def _table_candidates(self, cells: tuple[str, ...]) -> _Candidates:
        candidates: _Candidates = [(cells, None)]
        if cells and cells[0][:1] in _MARKER_START:
            marked = _marker_kind(cells[0])
            if marked is not None:
                label = (fold(marked[1]),) if self.records.exact_cells else _pieces(marked[1])
                candidates.append(((*label, *cells[1:]), marked[0]))
        return candidates

    def _free_labels(self, text: str) -> Iterable[tuple[str, str]]:
        """(label, rest) for each known label `text` starts with, at a word boundary (a `:` may follow)."""
        words = text.split(" ")
        for count in self.records.label_words:
            if count > len(words):
                break
            head = " ".join(words[:count])
            rest = " ".join(words[count:])
            yield head, rest
            if head.endswith(":"):
                yield head[:-1], rest

    def _free_candidates(self, line: _Line) -> _Candidates:
        """The keys of the rows a free-form line shows. A line that starts with a known label at all is indexed
        for alterations, under its longest label."""
        records = self.records
        candidates: _Candidates = []
        views: list[tuple[str, RowKind | None]] = [(line.view, None)]
        if line.marker[:1].isdigit() or (line.kind == "prose" and line.marker):
            # A label that begins with a number may be read as a list's number, and one that begins with a dash or
            # a plus sign as a marker drawn as text.
            views.append((f"{line.marker} {line.view}", None))
        marked = _marker_kind(line.view) if line.view[:1] in _MARKER_START else None
        if marked is not None:
            views.append((marked[1], marked[0]))
        longest_label: tuple[str, ...] | None = None
        longest_words = 0
        for text, kind in views:
            for label, rest in self._free_labels(text):
                numbers = records.by_label.get(label)
                if not numbers:
                    continue
                if label.count(" ") + 1 > longest_words:
                    longest_words = label.count(" ") + 1
                    longest_label = records.rows[numbers[0]].key[: 1 if records.exact_cells else len(_pieces(label))]
                keys: set[tuple[str, ...]] = set()  # identical rows are one candidate
                for number in records.of_label(label, rest):
                    row = records.rows[number]
                    if row.key not in keys and _free_values(rest, row.values, records.columns[row.section]):
                        keys.add(row.key)
                        candidates.append((row.key, kind))
        if longest_label is not None:
            # Under the longest label only: "Net income: 20" is an altered "Net income", not an altered "Net".
            self.label_lines.setdefault(longest_label, []).append(line.number)
        return candidates

    def _group(self, candidates: _Candidates) -> Sequence[tuple[int, int]]:
        """The groups of identical rows a line may stand for, each with how the line reads as one of them: 2 and 1
        are of the group's own kind (an unmarked line for an item, a marked line for its kind), 0 is lenient. A line
        such as `Subtotal: X` may show a subtotal labelled `X` or an item labelled `Subtotal: X`: a reader cannot
        tell them apart, so both are candidates."""
        group_kind = self.records.group_kind
        groups_of_key = self.records.groups_of_key
        if len(candidates) == 1 and candidates[0][1] is None:  # an unmarked line: the common case, decided first
            groups = groups_of_key.get(candidates[0][0], ())
            if len(groups) == 1 and group_kind[groups[0]] == "item":
                return ((groups[0], 2),)
        found: list[tuple[int, int]] = []
        for key, kind in candidates:
            for group in groups_of_key.get(key, ()):
                if kind is None or group_kind[group] == kind:
                    # 2: the cells as they are show an item; 1: a marked line shows its kind; 0: an unmarked line
                    # may show a subtotal or total. Of two readings of one line, the literal one is preferred.
                    own = 1 if kind is not None else 2 if group_kind[group] == "item" else 0
                    self.lenient = self.lenient or not own
                    found.append((group, own))
        return found

    def match(self) -> tuple[set[int], list[int], set[int]]:
        """Read the lines; returns the duplicate lines, the unmatched record-shaped lines and the rows shown in
        order."""
        unmatched: list[int] = []
        showings: list[_Showing] = []
        groups_of_key = self.records.groups_of_key
        group_kind = self.records.group_kind
        used = self.used
        for line in self.lines:
            if line.kind == "table":
                cells = line.cells if line.cells is not None else _table_cells(line.view)
                if not cells:
                    continue
                if cells[0][:1] not in _MARKER_START:  # `_table_candidates` then `_group`, inlined: one key
                    groups = groups_of_key.get(cells)
                    if groups is not None and len(groups) == 1 and group_kind[groups[0]] == "item":
                        showings.append((line.number, ((groups[0], 2),)))  # tuples: untracked
                        used[line.number] = True
                        continue
                candidates = self._table_candidates(cells)
            elif line.kind in ("item", "prose"):
                candidates = self._free_candidates(line)
            else:
                continue
            groups = self._group(candidates)
            if groups:
                showings.append((line.number, groups))
                used[line.number] = True
            elif line.kind == "table":
                unmatched.append(line.number)
                self._index_for_alterations(line.number, candidates)
            elif line.kind == "item" or (line.kind == "prose" and not line.continues and line.list_block >= 0):
                unmatched.append(line.number)  # fabricated if its list shows records, unless it was altered
        duplicates: set[int] = set()
        in_order = self._assign(showings, duplicates)
        unmatched.extend(sorted(duplicates))
        return duplicates, unmatched, in_order

    def _index_for_alterations(self, number: int, candidates: _Candidates) -> None:
        for key, _ in candidates:
            for count in self.records.label_counts:  # only the label lengths some row has: a line's width costs it once
                if 0 < count < len(key):
                    self.label_lines.setdefault(key[:count], []).append(number)
            for count in self.records.value_counts:
                if 0 < count < len(key):
                    self.value_lines.setdefault(key[-count:], []).append(number)

    def _linked(self) -> list[int]:
        """For each record sent as a link, the first visible line that shows no record and whose text holds its URI
        as a word (a link's target is not what a reader sees), or -1. A line may show several."""
        uris = self.records.linked_uris
        found = [-1] * len(self.records.linked)
        if not uris:
            return found
        for line in self.lines:
            if line.kind in ("blank", "hidden") or self.used[line.number]:
                continue
            for word in line.view.split(" "):
                for number in uris.get(word, ()) or uris.get(word.strip(_AROUND_URI), ()):
                    if found[number] < 0:
                        found[number] = line.number
                        self.used[line.number] = True
        return found

    def _alterations(self) -> dict[int, tuple[IssueKind, int]]:
        """Each row not shown exactly takes the first unused line that shows its label with other values
        (altered) or, on a table line, its values under another label (relabelled)."""
        altered: dict[int, tuple[IssueKind, int]] = {}
        for row in self.records.rows:
            if self.assigned[row.number] >= 0:
                continue
            line = self._first_unused(
                self.label_lines, self.label_passed, row.key[: len(row.key) - len(row.value_pieces)]
            )
            kind: IssueKind = "altered_row"
            if line is None and row.value_pieces:
                line = self._first_unused(self.value_lines, self.value_passed, row.value_pieces)
                kind = "relabelled_row"
            if line is not None:
                self.used[line] = True
                altered[row.number] = (kind, line)
        return altered

    def _first_unused(
        self, lines_of: dict[tuple[str, ...], list[int]], passed: dict[tuple[str, ...], int], key: tuple[str, ...]
    ) -> int | None:
        """The first unused line of `lines_of[key]`. A line once used stays used, so a cursor a list passes each
        line once, however many rows share the key."""
        numbers = lines_of.get(key)
        if not numbers:
            return None
        cursor = passed.get(key, 0)
        while cursor < len(numbers) and self.used[numbers[cursor]]:
            cursor += 1
        passed[key] = cursor
        return numbers[cursor] if cursor < len(numbers) else None

    # -- the order check

    def _assign(self, showings: list[_Showing], duplicates: set[int]) -> set[int]:
        """Give rows the lines that show them so that as many rows as possible are in order, lines of a row's own
        kind first. A row left over takes an unused line that shows it (out of order); a line left over shows a
        record again. Returns the rows in order.

        Identical rows (same key and kind) form one group, and a line names the groups it may show, never each of
        their rows: the cost is linear in the lines and the rows, however many rows are alike. The longest chain
        is a weighted longest increasing subsequence over (row, line) pairs when there are few (`_PAIR_BUDGET`),
        and otherwise a shortest edit script between the rows and the lines (`_diff_chain`, O((n + m) d) for d
        rows and lines outside the chain), which the faithful and the nearly faithful transcripts keep linear.
        """
        group_rows = self.records.group_rows
        # An unmarked line stands for a subtotal or total only when no line marks it (a host that marks none). A
        # line that reads as an item's own label (`Total: Assets`, an item) marks nothing: it is that item's line.
        kept = showings
        if self.lenient:
            marked = {
                group for _, groups in showings if all(own != 2 for _, own in groups) for group, own in groups if own
            }
            kept: list[_Showing] = [
                (line, [(g, own) for g, own in groups if own or g not in marked]) for line, groups in showings
            ]
        chain = self._faithful_chain(kept)
        if chain is not None:  # every line is in the chain, on its earliest line: nothing to move or leave over
            for row, line in chain:
                self.assigned[row] = line
            in_order, taken_lines = {row for row, _ in chain}, {line for _, line in chain}
        else:
            lines_of: dict[int, list[tuple[int, int]]] = {}  # group -> its lines, in reader order
            for line, groups in kept:
                for group, own in groups:
                    lines_of.setdefault(group, []).append((line, own))
            pairs = sum(len(group_rows[group]) for _, groups in kept for group, _ in groups)
            self.work += len(kept) + sum(len(group_rows[group]) for group in lines_of)
            if pairs <= _PAIR_BUDGET:
                self.work += pairs
                chain = self._weighted_chain(kept)
            else:
                chain = self._diff_chain(kept, sorted(row for group in lines_of for row in group_rows[group]))
            in_order, taken_lines = self._settle(chain, lines_of)
        for line, _ in showings:
            if line not in taken_lines:
                duplicates.add(line)
        for line in duplicates:
            self.used[line] = False
        return in_order

    def _faithful_chain(self, kept: list[_Showing]) -> list[tuple[int, int]] | None:
        """The chain of a faithful transcript: each line shows one group, the n-th line of a group takes its n-th
        row, and the rows so taken increase down the lines. Every line is then in the chain, which no other chain
        can beat. None when the transcript is not so."""
        given: dict[int, int] = {}
        chain: list[tuple[int, int]] = []
        previous = -1
        for line, groups in kept:
            if len(groups) != 1:
                return None
            group = groups[0][0]
            index = given.get(group, 0)
            rows = self.records.group_rows[group]
            if index >= len(rows) or rows[index] <= previous:
                return None
            given[group] = index + 1
            previous = rows[index]
            chain.append((previous, line))
        self.work += len(kept)
        return chain

    def _weighted_chain(self, kept: list[_Showing]) -> list[tuple[int, int]]:
        """The longest chain of (row, line) pairs, rows and lines both increasing, one own-kind pair outweighing
        every lenient one together: a Fenwick tree of prefix maxima, each row's lines taken in decreasing order so
        that a row takes at most one line. O(p log m) for p pairs."""
        choices: dict[int, list[tuple[int, int]]] = {}
        for line, groups in kept:
            for group, own in groups:
                for row in self.records.group_rows[group]:
                    choices.setdefault(row, []).append((line, own))
        # One own-kind pair outweighs every lenient one together; of chains with as many, the one with more literal
        # readings wins.
        heavy = 2 * (len(self.records.rows) + 1)
        weight = (1, heavy - 1, heavy)
        size = (self.lines[-1].number + 2) if self.lines else 1
        tree_value = [0] * (size + 1)
        tree_pair = [-1] * (size + 1)
        pair_row: list[int] = []
        pair_line: list[int] = []
        parent: list[int] = []
        best_value, best_pair = 0, -1
        for row in sorted(choices):
            for line, own in reversed(choices[row]):  # lines were collected in increasing order
                value, previous, index = 0, -1, line  # the best chain ending on a line before this one
                while index > 0:
                    if tree_value[index] > value:
                        value, previous = tree_value[index], tree_pair[index]
                    index -= index & -index
                value += weight[own]
                pair = len(pair_row)
                pair_row.append(row)
                pair_line.append(line)
                parent.append(previous)
                if value > best_value:
                    best_value, best_pair = value, pair
                index = line + 1
                while index <= size:
                    if value > tree_value[index]:
                        tree_value[index], tree_pair[index] = value, pair
                    index += index & -index
        chain: list[tuple[int, int]] = []
        pair = best_pair
        while pair >= 0:
            chain.append((pair_row[pair], pair_line[pair]))
            pair = parent[pair]
        chain.reverse()
        return chain

    def _diff_chain(self, kept: list[_Showing], rows: list[int]) -> list[tuple[int, int]]:
        """The longest chain of (row, line) pairs by Myers' greedy shortest edit script, with the kind preference of
        `_weighted_chain`: first the longest chain of own-kind pairs (a line and a row of its own kind), then, in
        each gap between two of its pairs, the longest chain of lenient ones (an unmarked line and a subtotal or
        total). The work is O((n + m) d + d^2), d being the rows and lines left out of a chain; past `_DIFF_BUDGET`
        steps of it (a transcript far from faithful, with many identical rows), each group's lines take its rows in
        order instead."""
        group_of = self.records.group_of
        xs = [group_of[row] for row in rows]
        own = [frozenset(group for group, kind in groups if kind) for _, groups in kept]
        budget = [_DIFF_BUDGET]
        chain = _edit_chain(xs, own, budget)
        if chain is None:
            self.work += _DIFF_BUDGET - budget[0]
            return self._in_group_order(kept)
        lenient = [frozenset(group for group, kind in groups if not kind) for _, groups in kept]
        if any(lenient):
            filled: list[tuple[int, int]] = []
            previous_x = previous_y = 0
            for x, y in [*chain, (len(xs), len(own))]:
                if x > previous_x and y > previous_y and any(lenient[previous_y:y]):
                    gap = _edit_chain(xs[previous_x:x], lenient[previous_y:y], budget)
                    if gap is None:
                        self.work += _DIFF_BUDGET - budget[0]
                        return self._in_group_order(kept)
                    filled.extend((previous_x + gx, previous_y + gy) for gx, gy in gap)
                if x < len(xs):
                    filled.append((x, y))
                previous_x, previous_y = x + 1, y + 1
            chain = filled
        self.work += _DIFF_BUDGET - budget[0]
        return [(rows[x], kept[y][0]) for x, y in chain]

    def _in_group_order(self, kept: list[_Showing]) -> list[tuple[int, int]]:
        """Each group's lines given to its rows in order (a line takes its first group of the most literal reading),
        then the longest increasing run of the rows so taken."""
        given: dict[int, int] = {}
        taken: list[tuple[int, int]] = []
        for line, groups in kept:
            if not groups:
                continue
            group = max(groups, key=lambda choice: choice[1])[0]  # of the line's readings, the most literal
            index = given.get(group, 0)
            rows = self.records.group_rows[group]
            if index < len(rows):
                given[group] = index + 1
                taken.append((rows[index], line))
        return [taken[i] for i in sorted(_longest_increasing([row for row, _ in taken]))]

    def _settle(
        self, chain: list[tuple[int, int]], lines_of: dict[int, list[tuple[int, int]]]
    ) -> tuple[set[int], set[int]]:
        """Assign the chain's rows their lines, then the rows left over an unused line each; the rows in order
        and the lines taken."""
        group_of = self.records.group_of
        own_lines: dict[int, list[int]] = {}
        lenient_lines: dict[int, list[int]] = {}
        for group, lines in lines_of.items():
            own_lines[group] = [line for line, own in lines if own]
            lenient_lines[group] = [line for line, own in lines if not own]
        own_of = {(group, line): own for group, lines in lines_of.items() for line, own in lines}
        in_order: set[int] = set()
        taken_lines: set[int] = set()
        # Of identical lines the earlier one shows the record and a later one is the repeat: move each row of the
        # chain to its earliest line (of the same kind of match) after the line of the row before it.
        previous_line = -1
        for row, chosen in chain:
            group = group_of[row]
            pool = own_lines[group] if own_of[group, chosen] else lenient_lines[group]
            line = pool[bisect.bisect_right(pool, previous_line)]
            self.assigned[row] = previous_line = line
            in_order.add(row)
            taken_lines.add(line)
        # A row left over takes its group's first untaken line, own kind first; taken lines stay taken, so one
        # cursor a group suffices.
        pools = {group: own_lines[group] + lenient_lines[group] for group in lines_of}
        cursor: dict[int, int] = {}
        for row in range(len(self.records.rows)):
            group = group_of[row]
            pool = pools.get(group)
            if pool is None or self.assigned[row] >= 0:
                continue
            position = cursor.get(group, 0)
            while position < len(pool) and pool[position] in taken_lines:
                position += 1
            cursor[group] = position
            if position < len(pool):
                self.assigned[row] = pool[position]
                taken_lines.add(pool[position])
        return in_order, taken_lines


# ----------------------------------------------------------------------------------------------- stage 4: the report


def _document_issues(
    lines: Sequence[_Line], records: _Records, matching: _Matching, state: ResultState
) -> tuple[list[Issue], int]:
    """What the matching means for the reader (rules 6 to 9): each record's verdict, the lines added, the sections
    dropped and the completeness stated; and the number of records intact."""
    lines_by_number = {line.number: line for line in lines}
    heading_before, title_lines = _section_titles(lines, records, matching.used)
    issues, shown_in_section = _record_issues(records, matching, lines_by_number, heading_before)
    issues.extend(_linked_issues(records, matching))
    issues.extend(_added_lines(matching, lines_by_number, title_lines))
    shown_links = {link.section_id for link, line in zip(records.linked, matching.linked, strict=True) if line >= 0}
    issues.extend(_dropped_sections(lines, records, shown_in_section, shown_links))
    titles = frozenset((*records.titles, records.document_title))
    left_out = any(issue.kind in _LEFT_OUT for issue in issues)
    issues.extend(_completeness(lines, matching.used, state, titles, left_out=left_out))
    return issues, len(matching.in_order) + sum(1 for line in matching.linked if line >= 0)


_LEFT_OUT: frozenset[IssueKind] = frozenset({"missing_row", "dropped_subtotal", "dropped_total", "dropped_section"})
"""Findings of records the transcript does not show."""


def _record_issues(
    records: _Records,
    matching: _Matching,
    lines_by_number: Mapping[int, _Line],
    heading_before: Sequence[str | None],
) -> tuple[list[Issue], list[int]]:
    """Each record's verdict: intact, misplaced (no longer counted in order), reordered, altered, relabelled or
    missing; and how many records of each section are shown."""
    issues: list[Issue] = []
    sections = records.document.sections
    shown_in_section = [0] * len(sections)
    for row in records.rows:
        section_id = sections[row.section].id
        line = matching.assigned[row.number]
        if line >= 0:
            shown_in_section[row.section] += 1
            heading = heading_before[line] if line < len(heading_before) else None
            misplaced = _misplaced(records, row, lines_by_number[line], heading)
            if misplaced is not None:
                matching.in_order.discard(row.number)  # shown, but not intact
                issues.append(
                    Issue("misplaced_row", f"{_describe(row)} is shown {misplaced}", section_id, row.row.id, line + 1)
                )
            elif row.number not in matching.in_order:
                issues.append(
                    Issue("reordered_row", f"{_describe(row)} is shown out of order", section_id, row.row.id, line + 1)
                )
        elif row.number in matching.altered:
            kind, line = matching.altered[row.number]
            shown_in_section[row.section] += 1
            what = "with other values" if kind == "altered_row" else "under another label"
            shown = _quote(lines_by_number[line].view)
            issues.append(Issue(kind, f"{_describe(row)} is shown {what}: {shown}", section_id, row.row.id, line + 1))
        else:
            issues.append(Issue(_MISSING_KIND[row.row.kind], f"{_describe(row)} is not shown", section_id, row.row.id))
    return issues, shown_in_section


def _linked_issues(records: _Records, matching: _Matching) -> list[Issue]:
    """A record the server sent as a link is shown by its URI (`docs/host-guide.md`); left out, it is missing."""
    return [
        Issue(
            "missing_row",
            f"record {_quote(link.row_id)}, sent as a link to {_quote(link.uri)}, is not shown",
            link.section_id,
            link.row_id,
        )
        for link, line in zip(records.linked, matching.linked, strict=True)
        if line < 0
    ]


def _added_lines(matching: _Matching, lines_by_number: Mapping[int, _Line], title_lines: set[int]) -> list[Issue]:
    """The record-shaped lines that show no record (fabricated) or one already shown (duplicated): a table line, an
    item of a list whose items show records, a line of prose of its own below a record of its paragraph; and any
    line that repeats a record, wherever it is (a recap of records repeats them; the lines around it are the host's
    words)."""
    duplicates = matching.duplicates
    shown_lines = [*(n for n in matching.assigned if n >= 0), *(line for _, line in matching.altered.values())]
    lists_with_rows = {lines_by_number[line].list_block for line in shown_lines if lines_by_number[line].kind == "item"}
    # A block (a list, a paragraph) whose lines with a list's marker (an item's, or drawn as text) show records: a
    # line drawn in it with a marker reads as one more of them, as an item of a list of records does in plain text.
    marked_with_rows = {lines_by_number[line].list_block for line in shown_lines if lines_by_number[line].marker}
    paragraph_span: dict[int, tuple[int, int]] = {}  # a paragraph of records: its first and last record lines
    for line in shown_lines:
        shown = lines_by_number[line]
        if shown.kind == "prose" and shown.list_block >= 0:
            first, last = paragraph_span.get(shown.list_block, (line, line))
            paragraph_span[shown.list_block] = (min(first, line), max(last, line))
    issues: list[Issue] = []
    for number in matching.unmatched:
        if matching.used[number]:
            continue
        line = lines_by_number[number]
        if number in duplicates:
            issues.append(Issue("duplicated_row", f"{_quote(line.view)} shows a record again", line=number + 1))
            continue
        if number in title_lines:
            continue
        if line.kind == "item" and line.list_block not in lists_with_rows:
            continue  # an item that shows no record, in a list of none: the host's own prose
        # A line that starts a visible line with a list's marker, or a bullet read as a sign (`- 250`).
        drawn_marked = bool(line.marker) or (not line.continues and _LIST_MARKER.match(line.view) is not None)
        marked = drawn_marked and line.list_block in marked_with_rows
        if line.kind == "prose" and not marked and not _inside_records(line, paragraph_span):
            continue
        issues.append(Issue("fabricated_row", f"{_quote(line.view)} stands for no record", line=number + 1))
    return issues


def _inside_records(line: _Line, paragraph_span: Mapping[int, tuple[int, int]]) -> bool:
    """A line of prose of its own (not run on: after a hard break) below a record of its paragraph: a
    record-shaped line. A paragraph's first lines, above its records, may be the host's introduction, and a line
    run on the host's sentence."""
    span = paragraph_span.get(line.list_block) if line.list_block >= 0 and not line.continues else None
    return span is not None and span[0] < line.number


def _section_titles(
    lines: Sequence[_Line], records: _Records, used: Sequence[bool]
) -> tuple[list[str | None], set[int]]:
    """For each line, the last title above it that names a section of the document, if any; and the lines that
    name a section (no record, not added).

    A section is known by what a reader takes as its title: a heading, a line wholly emphasized, a line ending
    with `:`, a table row holding only a label, or a line that is a section's title. Such a line that names no
    section ends the one before (records below it are placed by their columns only)."""
    titles = set(records.titles)
    ordered = [title for title in dict.fromkeys(records.titles) if title]
    before: list[str | None] = []
    title_lines: set[int] = set()
    current: str | None = None
    for line in lines:
        before.append(current)
        if line.kind in ("blank", "hidden") or used[line.number]:
            continue
        if line.kind == "structure" and not line.heading:
            if line.view and set(line.view) <= _UNDERLINE_CHARS:
                current = None  # an underline under an empty title: it names no section it can be told by
            continue
        cells = line.cells if line.kind == "table" else None
        if cells is not None and not (len(cells) > 1 and cells[0] and not any(cells[1:])):
            continue  # a table line with values: record-shaped, no title
        text = cells[0] if cells is not None else line.view
        titled = line.heading or line.emphasized or cells is not None or text.endswith(":")
        named = _title_named(text, titles, ordered, titled)
        if named is not None:
            title_lines.add(line.number)
        if titled or named is not None:
            current = named
    return before, title_lines


def _misplaced(records: _Records, row: _Expected, line: _Line, heading: str | None) -> str | None:
    """Why a record shown on `line`, below the section title `heading`, is not in its place (under its section's
    title and its own columns), or None when it is. Identical records are interchangeable: it is in place when one
    of them would be."""
    header = line.header if line.kind == "table" else None  # without one, values are read in order
    titles = records.titles
    if not records.has_twin(row.key):  # a row with no twin: decided directly
        if heading is not None and titles[row.section] != heading:
            return f"under the heading of another section ({_quote(heading)})"
        if header is not None and header != records.own_headers[row.section]:
            return f"under other columns ({_quote(' | '.join(header))})"
        return None
    twins = records.sections_of(row.key)
    if heading is not None and all(titles[section] != heading for section in twins):
        return f"under the heading of another section ({_quote(heading)})"
    if header is not None and all(header != records.own_headers[section] for section in twins):
        return f"under other columns ({_quote(' | '.join(header))})"
    return None


def _dropped_sections(
    lines: Sequence[_Line], records: _Records, shown_in_section: Sequence[int], shown_links: set[str]
) -> list[Issue]:
    """A section with records none of which is shown, and a section without records whose title no line shows; a
    section one of whose records sent as links is shown is shown."""
    issues: list[Issue] = []
    sections = records.document.sections
    empty = [index for index, section in enumerate(sections) if not section.rows]
    titles = _shown_titles(lines, [records.titles[i] for i in empty])
    for index, section in enumerate(sections):
        if section.id in shown_links:
            continue  # one of its records sent as links is shown
        if section.rows and shown_in_section[index] == 0:
            issues.append(Issue("dropped_section", f"nothing of section {_quote(section.title)} is shown", section.id))
        elif not section.rows and records.titles[index] not in titles:
            issues.append(Issue("dropped_section", f"section {_quote(section.title)} is not shown", section.id))
    return issues


_TITLE_END = frozenset(" :(,.;-\u2013\u2014")
_MAX_TITLES_BY_PREFIX = 64
"""Past this many sections, a title is known only when written whole (the cost stays linear in the lines)."""
_TITLE_NUMBER = re.compile(r"(?:\d{1,3}[.)]|[IVX]{1,5}\.)\s+")


def _title_named(text: str, titles: set[str], ordered: Sequence[str], titled: bool) -> str | None:
    """The section title a line names: the title itself (emphasis, a number or a `:` around it aside) or, for a
    line a reader takes as a title, the title followed by more words (`Assets (in EUR)`) or its beginning when no
    other title begins so (`Bilan — actif` for `Bilan — actif (balance sheet, assets), in euros`)."""
    if text in titles:
        return text
    view = text.strip("*_ ").removesuffix(":").rstrip("*_ ")
    number = _TITLE_NUMBER.match(view)
    if number is not None and view not in titles:
        view = view[number.end() :]
    if view and view in titles:
        return view
    if not titled or not view or len(ordered) > _MAX_TITLES_BY_PREFIX:
        return None
    longest = max(
        (title for title in ordered if view.startswith(title) and view[len(title)] in _TITLE_END),
        key=len,
        default=None,
    )
    if longest is not None:
        return longest
    beginning = [title for title in ordered if title.startswith(view) and title[len(view)] in _TITLE_END]
    return beginning[0] if len(beginning) == 1 else None


def _describe(row: _Expected) -> str:
    values = ", ".join(_quote(value) for value in row.values)
    kind = "" if row.row.kind == "item" else f"{row.row.kind} "
    return f"{kind}{_quote(row.label)}" + (f" [{values}]" if values else "")


def _shown_titles(lines: Sequence[_Line], titles: Sequence[str]) -> set[str]:
    """Which of `titles` some visible line shows: the line is the title, or starts with it then a space or `:`."""
    wanted = set(titles)
    if not wanted:
        return set()
    counts = sorted({len(title.split()) for title in wanted})
    found: set[str] = set()
    for line in lines:
        if line.kind in ("hidden", "blank"):
            continue
        marker = _LIST_MARKER.match(line.view)
        body = line.view[marker.end() :] if marker is not None else line.view
        for view in {line.view, body, body.strip("*_ ")}:
            if view in wanted:
                found.add(view)
            alone = view.removesuffix(":").rstrip()  # the title, then a `:` and nothing else
            if alone in wanted:
                found.add(alone)
            words = view.split(" ")
            for count in counts:
                if count < len(words):
                    head = " ".join(words[:count]).removesuffix(":")
                    if head in wanted:
                        found.add(head)
    return found


def audit_document(
    shown_text: str,
    document: Document,
    *,
    complete: bool | ResultState = True,
    null_display: str = DEFAULT_NULL_DISPLAY,
    markup: Markup = "auto",
    records: RecordsKind = "document",
    linked: Sequence[LinkedRecord] = (),
) -> AuditReport:
    """Audit a transcript against a document directly (see the module docstring for the rules).

    Args:
        shown_text: what the host showed the user.
        document: the records, as a document.
        complete: what the server says of the result's completeness (`ResultState`; True is "complete", False
            "partial"): the notice the transcript needs (rule 9).
        null_display: how null values should have been shown.
        markup: how the transcript is displayed: "text", "markdown", or detect ("auto").
        records: how the records were read from the result (reported as is).
        linked: the records the server sent as links (`page.linkedRecords`): each is shown by a line that shows
            its URI.

    Raises:
        AuditInputError: the transcript is longer than `MAX_TRANSCRIPT_CHARS`.
    """
    headers = frozenset(tuple(_drawn_title(column) for column in section.columns) for section in document.sections)
    reader, read_as = _read(
        shown_text, markup, headers, lambda: _as_written(list(_written(document, null_display, linked)))
    )
    expected = _Records(document, null_display, exact_cells=reader.markdown, linked=linked)
    matching = _Matcher(reader.lines, expected).run()
    state = _state(complete)
    issues, intact = _document_issues(reader.lines, expected, matching, state)
    count = len(expected.rows) + len(expected.linked)
    return _report(count, intact, state, read_as, records, reader.with_source_lines(reader.issues + issues))


def _state(complete: bool | ResultState) -> ResultState:
    if complete is True:
        return "complete"
    return "partial" if complete is False else complete


def _report(
    expected: int,
    intact: int,
    state: ResultState,
    read_as: Literal["text", "markdown"],
    records: RecordsKind,
    issues: list[Issue],
) -> AuditReport:
    extra = sum(1 for issue in issues if issue.kind in ("duplicated_row", "fabricated_row"))
    units = expected + extra
    score = intact / units if units else 1.0
    if any(issue.kind == "completeness_misstated" for issue in issues):
        score /= 2
    return AuditReport(
        rows_expected=expected,
        rows_intact=intact,
        result_complete=state == "complete",
        markup=read_as,
        records=records,
        issues=tuple(issues),
        score=score,
    )


# ------------------------------------------------------------------------------------------------------ text results


def _line_forms(lines: Sequence[str], markdown: bool) -> list[tuple[str, ...]]:
    """The ways each line of a text result may read once shown, each once: as written and, in Markdown, as the
    renderer shows the line alone (a list item with the marker the reader sees). Tuples of text, which the
    collector stops tracking, not a set a line."""
    joined = "\n".join(lines)
    shown = lines if shows_as_written(joined.replace("\n", "")) else [visible(text) for text in lines]
    drawn = _fold_all([as_drawn(text) for text in shown] if may_change(joined) else shown)
    forms: list[tuple[str, ...]] = [(text,) for text in drawn]
    if markdown:
        rendered: dict[str, list[str]] = {}
        for number, text in enumerate(lines):
            if not _MARKDOWN_SIGNIFICANT.search(text):
                continue
            if text not in rendered:
                rendered[text] = _rendered_line(text)
            forms[number] = tuple(dict.fromkeys((*forms[number], *rendered[text])))
    return forms


def _rendered_line(text: str) -> list[str]:
    """What a reader sees of one line rendered alone as Markdown (nothing when that is not certain): a list item
    with the marker the renderer shows and, for a bullet, which any bullet shows alike, without it."""
    view = read_markdown(text)
    if view.uncertain or not view.lines:
        return []
    first = view.lines[0]
    shown = " ".join(line.text for line in view.lines)
    forms = [fold(as_drawn(visible(f"{first.marker} {shown}" if first.marker else shown)))]
    # A bullet is the host's to draw, unless a number follows it: `- 250` then reads as a sign.
    if first.marker and not first.marker[0].isdigit() and not shown.lstrip()[:1].isdigit():
        forms.append(fold(as_drawn(visible(shown))))
    return forms


def audit_lines(
    shown_text: str,
    lines: Sequence[str],
    *,
    complete: bool | ResultState = True,
    markup: Markup = "auto",
    block_names: Sequence[str] = (),
) -> AuditReport:
    """Audit a transcript against the lines of a text result (rules 5 to 7 and 9 of the module docstring).

    `block_names` are the lines that name the result's other blocks (`records.block_line`): a host may show them
    among the text lines, and need not.

    Raises:
        AuditInputError: the transcript is longer than `MAX_TRANSCRIPT_CHARS`.
    """
    return _audit_lines(shown_text, lines, _state(complete), markup, block_names)


def _leading_word(text: str) -> str:
    word = fold(text).split(" ", 1)[0].strip(":,;.").lower()
    return word if len(word) > 1 else ""


def _audit_lines(
    shown_text: str, lines: Sequence[str], state: ResultState, markup: Markup, block_names: Sequence[str]
) -> AuditReport:
    reader, read_as = _read(shown_text, markup, result_numbers=lambda: _as_written([*lines, *block_names]))
    markdown = read_as == "markdown"
    if shows_as_written("".join(lines)):  # nothing hidden: a line shows text when it is not blank (decided in C)
        expected = [line for line in lines if not line.isspace() and line]
    else:
        expected = [line for line in lines if shows_text(line)]
    index: dict[str, tuple[int] | list[int]] = {}  # a line's own number in a tuple until a second shares it
    for number, forms in enumerate(_line_forms(expected, markdown)):
        for form in forms:
            numbers = index.get(form)
            if numbers is None:
                index[form] = (number,)
            elif isinstance(numbers, tuple):
                index[form] = [numbers[0], number]
            else:
                numbers.append(number)
    named = {form for forms in _line_forms(block_names, markdown) for form in forms} - index.keys()
    assigned = [-1] * len(expected)
    used = [False] * len(reader.raw_lines)
    duplicates: list[int] = []
    candidates: list[_Line] = []
    passed: dict[str, int] = {}  # for a form many lines of the result share, how many of them are shown
    for line in reader.lines:
        if line.kind in ("blank", "hidden") or (line.kind == "structure" and not line.view):
            continue
        if line.marker:  # a list item reads with the marker its renderer shows: the result's line may be one
            form = f"{line.marker} {line.view}"
            numbers = index.get(form)
            if numbers is None and not line.marker[0].isdigit():
                form = line.view
                numbers = index.get(form)  # a bullet is the host's, a number may be the result's
        else:
            form = line.view
            numbers = index.get(form)
            if numbers is None and line.kind == "item" and not markdown:
                form = fold(reader.raw_lines[line.number])
                numbers = index.get(form)
        if not numbers:
            if line.view in named:  # the name of one of the result's other blocks, as the host shows it
                used[line.number] = True
            else:
                candidates.append(line)
            continue
        if len(numbers) == 1:
            free = numbers[0] if assigned[numbers[0]] < 0 else None
        else:  # the first line of the form not yet shown: a line once assigned stays so, and is passed once
            position = passed.get(form, 0)
            while position < len(numbers) and assigned[numbers[position]] >= 0:
                position += 1
            passed[form] = position
            free = numbers[position] if position < len(numbers) else None
        if free is None:
            duplicates.append(line.number)
            continue
        assigned[free] = line.number
        used[line.number] = True
    order = [number for number in range(len(expected)) if assigned[number] >= 0]
    in_order = {order[i] for i in _longest_increasing([assigned[n] for n in order])}
    anchors = sorted(assigned[n] for n in in_order)
    first, last = (anchors[0], anchors[-1]) if anchors else (-1, -1)
    notices = {notice.line for notice in _notices(reader.lines, used)}
    issues: list[Issue] = []
    # A missing line takes the unmatched line in its place: between the same two in-order neighbours.
    gaps: dict[int, list[_Line]] = {}
    for line in candidates:
        if line.number in notices:
            continue
        gaps.setdefault(bisect.bisect_left(anchors, line.number), []).append(line)
    gap_taken: dict[int, int] = {}  # how many of each gap's lines missing lines took, first to last
    position = 0
    for number, text in enumerate(expected):
        if number in in_order:
            position = bisect.bisect_left(anchors, assigned[number]) + 1  # anchors are sorted: no linear search
            continue
        if assigned[number] >= 0:
            issues.append(
                Issue("reordered_row", f"line {_quote(text)} is shown out of order", line=assigned[number] + 1)
            )
            continue
        gap = gaps.get(position)
        taken = gap_taken.get(position, 0)
        if gap and taken < len(gap):
            line = gap[taken]
            gap_taken[position] = taken + 1
            used[line.number] = True
            issues.append(
                Issue("altered_row", f"line {_quote(text)} is shown as {_quote(line.view)}", line=line.number + 1)
            )
        else:
            issues.append(Issue("missing_row", f"line {_quote(text)} is not shown"))
    for number in duplicates:
        issues.append(
            Issue("duplicated_row", f"{_quote(reader.lines[number].view)} shows a line again", line=number + 1)
        )
    # Between the result's first and last shown lines, an unmatched line is fabricated. Around them a host may
    # write its own prose, so a line there is fabricated only when it looks like a line of the result: it begins
    # with a word some line of the result begins with.
    leading: set[str] | None = None  # built when a line outside needs it
    for gap in gaps.values():
        for line in gap:
            if used[line.number]:
                continue
            if not first < line.number < last:
                if leading is None:
                    leading = {_leading_word(text) for text in expected} - {""}
                if _leading_word(line.view) not in leading:
                    continue
            issues.append(
                Issue("fabricated_row", f"{_quote(line.view)} is not a line of the result", line=line.number + 1)
            )
    left_out = any(issue.kind == "missing_row" for issue in issues)
    issues.extend(_completeness(reader.lines, used, state, left_out=left_out))
    issues = reader.with_source_lines(reader.issues + issues)
    return _report(len(expected), len(in_order), state, read_as, "text", issues)


# ------------------------------------------------------------------------------------------------------------ audit


def audit(
    shown_text: str | Presentation,
    result: Any,
    *,
    markup: Markup = "auto",
    tool: Any = None,
    arguments: Mapping[str, Any] | None = None,
) -> AuditReport:
    """Audit what a host showed the user against any tool result, or against the parts of a continued result.

    Args:
        shown_text: the transcript of what was shown (see the module docstring for how it is read), or the
            `Presentation` that `present()` made of `result`: its `text` view is audited as plain text (with
            `markup="markdown"`, its `markdown` view as Markdown), the markup it was made in.
        result: a `CallToolResult`: an SDK model of any version, a framework's own (FastMCP's), or its wire dict; or
            a list of the parts of one continued result, in the order they were fetched. Parts are audited as one
            result: their records in order (a section met again continues), partial only when the last part is.
        markup: how the transcript is displayed: "text", "markdown", or detect ("auto").
        tool: the tool that returned the result, and `arguments` those of its call: with both, a later part of a
            continued result must be shown as partial, as `present()` shows it (read alone, it is not the whole), and
            the notice of a result whose continuation can be followed must say how to get the rest (rule 9).
        arguments: the arguments of the call that returned the result.

    Raises:
        AuditInputError: the transcript is too long, `result` is not a result object (or a list of them), its
            parts are not parts of one result or come with a tool or arguments, or the tool is not in wire form.
    """
    if isinstance(shown_text, Presentation):
        # The view's own markup: a plain-text view whose labels hold Markdown must not be read as Markdown.
        shown_text, markup = (shown_text.markdown, "markdown") if markup == "markdown" else (shown_text.text, "text")
    if isinstance(result, list | tuple):
        if tool is not None or arguments is not None:
            raise AuditInputError("the parts of a continued result are audited without a tool or arguments")
        return _audit_parts(shown_text, cast("Sequence[Any]", result), markup)
    wire = _wire(result)
    reading = _without_continuation(wire) if tool is None else wire
    records = _records_of(wire)
    try:
        state = _sent_state(wire, state_of_wire(reading, tool=tool, arguments=arguments))
        null_display = resolve_rendering(tool, reading, call_arguments=arguments).null_display
    except ValueError as error:  # a tool dumped with the SDK's Python field names, not the wire's
        raise AuditInputError(f"the tool cannot be read: {error}") from None
    return _audit_records(shown_text, records, state, null_display, markup, linked_of_wire(wire))


def _records_of(wire: Mapping[str, Any]) -> ResultRecords:
    try:
        return result_records(wire)
    except MessageTooLargeError as error:  # built in memory: no JSON text gives it
        raise AuditInputError(str(error)) from None


def _wire(result: Any) -> dict[str, Any]:
    try:
        return tool_result_wire(result)
    except (TypeError, ValueError) as error:
        raise AuditInputError(str(error)) from None


def _sent_state(wire: Mapping[str, Any], state: ResultState) -> ResultState:
    """`state`, read without the continuation carrier when no tool is given, as partial when the result sent one: a
    continuation says the result is partial, as `present()` reads it, even where it cannot be followed."""
    meta = wire.get("_meta")
    sent = isinstance(meta, Mapping) and cast("Mapping[str, Any]", meta).get(CONTINUATION_ID) is not None
    return "partial" if sent and state in ("complete", "not-stated") else state


def _without_continuation(wire: dict[str, Any]) -> dict[str, Any]:
    """The result without its continuation carrier: read without its tool, the carrier cannot be checked (it names
    the tool's argument), and neither the mode nor completeness depends on it."""
    meta = wire.get("_meta")
    if not isinstance(meta, Mapping) or CONTINUATION_ID not in meta:
        return wire
    kept = {name: value for name, value in cast("Mapping[str, Any]", meta).items() if name != CONTINUATION_ID}
    return {**wire, "_meta": kept}


def _audit_records(
    shown_text: str,
    records: ResultRecords,
    state: ResultState,
    null_display: str,
    markup: Markup,
    linked: Sequence[LinkedRecord],
) -> AuditReport:
    if records.document is None:
        lines = [line.text for line in records.lines if line.from_text]
        names = [line.text for line in records.lines if line.names_block]
        return audit_lines(shown_text, lines, complete=state, markup=markup, block_names=names)
    return audit_document(
        shown_text,
        records.document,
        complete=state,
        null_display=null_display,
        markup=markup,
        records=records.kind,
        linked=linked,
    )


def _audit_parts(shown_text: str, parts: Sequence[Any], markup: Markup) -> AuditReport:
    if not parts:
        raise AuditInputError("no result to audit: the list of parts is empty")
    sent = [_wire(part) for part in parts]
    wires = [_without_continuation(wire) for wire in sent]
    read = [_records_of(wire) for wire in wires]
    kinds = {records.kind for records in read}
    if len(kinds) > 1:
        raise AuditInputError(f"the parts are not parts of one result: their records are {' and '.join(sorted(kinds))}")
    # The last part says whether the whole is complete; read as the last of the parts, not as a later part alone.
    state = _sent_state(sent[-1], state_of_wire(wires[-1], last_part=True))
    null_display = resolve_rendering(None, wires[0]).null_display
    combined = _combined(read)
    linked = [link for wire in wires for link in linked_of_wire(wire)]
    return _audit_records(shown_text, combined, state, null_display, markup, linked)


def _combined(parts: Sequence[ResultRecords]) -> ResultRecords:
    """The records of several parts as one result: lines one after another; sections in the order first met, a
    section met again (by id) continuing with its rows."""
    first = parts[0]
    if first.document is None:
        return dataclasses.replace(first, lines=tuple(line for part in parts for line in part.lines))
    sections: dict[str, Section] = {}
    for part in parts:
        assert part.document is not None
        for section in part.document.sections:
            known = sections.get(section.id)
            if known is None:
                sections[section.id] = section
            elif known.columns != section.columns:
                raise AuditInputError(
                    f"the parts are not parts of one result: section {_quote(section.id)} changes columns"
                )
            else:
                sections[section.id] = known.model_copy(update={"rows": (*known.rows, *section.rows)})
    try:
        document = Document(title=first.document.title, sections=tuple(sections.values()))
    except ValidationError as error:
        raise AuditInputError(f"the parts are not parts of one result: {error.errors()[0]['msg']}") from None
    return dataclasses.replace(first, document=document)
