"""Whole, faithful renderings of a `Document` as plain text and as Markdown.

Both renderings are the reference presentation of a verbatim result: every section in order with its title and
column headers, every row in order, subtotal and total rows marked, hierarchy shown by indentation and nulls shown
as the directive's `nullDisplay`. Values are never reformatted: a number is written exactly as Python spells the
value it holds (no rounding, no thousands separators), so that an audit can find each value in what was shown.

Layout shared by both renderings (the audit relies on it):

- every table line begins and ends with `|` and separates cells with `|`;
- each table has a header line (an empty label cell, then the column names) and a separator line under it;
- a row's label cell is `indentation + marker + label`, the marker being `Subtotal: ` or `Total: `, and the
  indentation one unit per level up to `MAX_INDENT` levels;
- plain-text cells are padded with spaces to their column's width, up to `PAD_WIDTH` characters, so that no
  server value costs more output than its own length plus a constant;
- a line break inside a value never breaks the line: both views show it as an escape (`\n`), a tab as `\t` and a
  backslash as `\\`, so that two different texts never show alike (the Markdown view holds no raw HTML, whose
  display depends on the renderer);
- server text is untrusted: every character that is invisible or that moves text around (C0 and C1 controls,
  bidi and other format characters, line and paragraph separators) is shown as an escape such as `\u202e`
  (`visible`), and the Markdown view escapes every character that Markdown would read as markup.

The output is deterministic: the same document and options always give the same string.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import add, attrgetter
from typing import Any, cast

from mcp_rendering.document import Cell, Document, Row, Section
from mcp_rendering.reading import DEFAULT_NULL_DISPLAY

__all__ = [
    "DEFAULT_NULL_DISPLAY",
    "MAX_INDENT",
    "PAD_WIDTH",
    "backtick_run",
    "cell_text",
    "code_fence",
    "code_fence_mark",
    "column_cells",
    "indentation",
    "kind_marker",
    "markdown_escape",
    "note_markdown",
    "note_text",
    "render_markdown",
    "render_text",
    "text_escape",
    "visible",
]

# Characters that carry meaning inside a Markdown table cell or heading; escaped with a backslash.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&#])")
# GFM's autolink extension links an e-mail address (and `xmpp:`, `mailto:`) whatever escapes it holds; an `@` in a
# code span of its own splits the text it scans, and shows the same characters.
_AT_SIGNS = re.compile(r"@+")
# GFM's autolink extension links a bare `www.`, `http:`, `https:`, `ftp:` or `mailto:` (an e-mail address: see
# `_AT_SIGNS`): a backslash before their punctuation keeps them text.
_AUTOLINK_START = re.compile(r"(?i)(?<![0-9A-Za-z])(www(?=\.)|https?(?=:)|ftp(?=:)|mailto(?=:))([.:])")

# A cell made only of dashes, colons and spaces would read as a table delimiter row.
_DELIMITER_LIKE = re.compile(r"[\s:-]+")

_INDENT_TEXT = "  "
_INDENT_MARKDOWN = "&emsp;"

MAX_INDENT = 16
"""The deepest indentation shown: a row's `level` is the server's number, and indenting by it unbounded would make
a few bytes of input cost any size of output. A deeper row is indented as deep as this."""

PAD_WIDTH = 80
"""The widest a plain-text cell is padded to: padding every row to the widest cell of its column would make one
long value cost its length on every row. A cell wider than this is written as it is."""


# Unicode categories a reader cannot see as written: controls, format characters (bidi controls, zero-width
# characters, tag characters), line and paragraph separators, and lone surrogates.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
# Default-ignorable characters of other categories, which display as nothing: the combining grapheme joiner,
# Hangul fillers, Khmer inherent vowels, Mongolian variation selectors and the variation selectors.
_IGNORABLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]")


def is_hidden(char: str) -> bool:
    """Whether a reader cannot see `char` as written (a tab can be seen: it is not hidden)."""
    return char != "\t" and (unicodedata.category(char) in _HIDDEN_CATEGORIES or _IGNORABLE.match(char) is not None)


def shows_as_written(text: str) -> bool:
    """Whether `text` is one line with nothing hidden, so that every view shows it unchanged (decided in C)."""
    return text.isprintable() and (text.isascii() or _IGNORABLE.search(text) is None)


# Characters a reader sees that `str.isprintable` counts out: the tab and the spaces (category Zs), such as the
# no-break and em spaces of indented or grouped text.
_SEEN_UNPRINTABLE = "\t\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"


def hides_nothing(text: str) -> bool:
    """Whether no character of `text` is hidden from a reader, decided in C: once the characters a reader sees that
    `str.isprintable` counts out are replaced, `str.isprintable` says it. It may say no for a text of private-use or
    unassigned characters, which are not hidden: `first_hidden` then reads each character."""
    if shows_as_written(text):
        return True
    for char in _SEEN_UNPRINTABLE:
        if char in text:
            text = text.replace(char, " ")
    return text.isprintable() and _IGNORABLE.search(text) is None


def first_hidden(text: str) -> str | None:
    """The first character of `text` a reader cannot see as written, or None."""
    if hides_nothing(text):
        return None
    return next((char for char in text if is_hidden(char)), None)


def _escape_char(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with every character a reader cannot see as written shown as an escape (`\\u202e`); tabs are kept.

    A server string passes through this before it reaches a screen, so that an ESC sequence cannot erase a line, a
    bidi override cannot reverse a number and a line separator cannot start a line of its own.
    """
    if first_hidden(text) is None:
        return text
    return "".join(_escape_char(char) if is_hidden(char) else char for char in text)


# The escapes no two texts share: a backslash is doubled, so that a literal `\u202e` (six characters) shows as
# `\\u202e`, never as the escape of U+202E; a tab and the line breaks are written as escapes, so that "a\nb" and
# "a b" (or a tab and a space) never show alike. `visible` writes the other hidden characters.
_UNAMBIGUOUS = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def text_escape(text: str) -> str:
    """Server text for one line of either view, shown unambiguously: a backslash as `\\\\`, a tab as `\\t`, a
    line feed as `\\n`, a carriage return as `\\r`, every other hidden character as its escape (`visible`).
    Two different texts never show alike, and the audit writes the same text for what it expects."""
    if "\\" not in text and shows_as_written(text):  # the common case
        return text
    return visible(text.translate(_UNAMBIGUOUS))


def cell_text(value: Cell, null_display: str = DEFAULT_NULL_DISPLAY) -> str:
    """The exact text of one value: nulls as `null_display`, booleans as JSON spells them, numbers unchanged.

    Floats use Python's shortest round-trip spelling (`repr`), so the shown digits are the digits of the value.
    Line breaks inside a string are left in place; each renderer decides how to keep them on one line.
    """
    if value is None:
        return null_display
    if value is True:
        return "true"
    if value is False:
        return "false"
    # A subclass's own idea of its text (`__str__`, `__repr__`) is not the value: each type writes its value.
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, float):
        return float.__repr__(value)
    # Only a row built without validation (`model_construct`) holds anything but an int here: written as its text.
    if not isinstance(value, int):  # pyright: ignore[reportUnnecessaryIsInstance]
        return str(value)
    if value.bit_length() > _MAX_INT_BITS:
        # Past the decimal digits Python writes (its default limit), no exact text exists: say so in place.
        return f"(an integer of {value.bit_length()} bits, too long to write in decimal)"
    return int.__repr__(value)


_MAX_INT_BITS = 12_000


def kind_marker(row: Row) -> str:
    """The visible prefix that marks a subtotal or total row (empty for an ordinary item)."""
    if row.kind == "subtotal":
        return "Subtotal: "
    if row.kind == "total":
        return "Total: "
    return ""


def _markdown_marker(row: Row) -> str:
    marker = kind_marker(row)
    return f"**{marker.strip()}** " if marker else ""


def indentation(row: Row, unit: str) -> str:
    """A row's indentation: `unit` per level, at most `MAX_INDENT` of them."""
    return unit * min(row.level, MAX_INDENT)


_NULL = type(None)
_LABEL = attrgetter("label")
_LEVEL_KIND = attrgetter("level", "kind")


def _is_number_type(kind: type) -> bool:
    return issubclass(kind, (int, float)) and not issubclass(kind, bool)


_BOOL_TEXT = {True: "true", False: "false"}.__getitem__
"""A boolean cell's text: a lookup in C, no call into Python per cell."""


# An exact amount as it travels (a `Decimal` or a large int, sent as the string of its digits): aligned right as
# a number is, its text unchanged.
_EXACT_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def column_cells(column: Sequence[Cell], null_display: str) -> tuple[list[str], bool]:
    """One column's cells as `cell_text` writes them, and whether the column is numeric (its non-null values all
    numbers, or all exact amounts written as digits such as `"1234.50"`, at least one of them). The types of the
    column, read in one pass in C, usually let one C call write it whole; a column of mixed types is written cell
    by cell."""
    texts, numeric, _ = _column_texts(column, null_display)
    return texts, numeric


def _column_texts(column: Sequence[Cell], null_display: str) -> tuple[list[str], bool, bool]:
    """`column_cells`, and whether the plain-text view shows every text as written, known from the column's types
    without a look at the texts: numbers and booleans written by their type (digits, signs, points, `e`, `true`,
    `false`), and nulls, if any, as a null text that shows as written."""
    kinds = set(map(type, column))
    has_null = _NULL in kinds
    kinds.discard(_NULL)
    numeric = bool(kinds) and all(map(_is_number_type, kinds))
    write: Callable[[Any], str] | None = None
    if kinds == {str}:
        numeric = all(_EXACT_NUMBER.fullmatch(cast("str", value)) for value in column if value is not None)
        # A cell of the exact type `str` is its own text: no call per cell.
        texts = [null_display if value is None else value for value in column] if has_null else list(column)
        return cast("list[str]", texts), numeric, False
    if kinds == {float}:
        write = repr
    elif kinds == {bool}:
        write = _BOOL_TEXT
    elif kinds == {int}:
        numbers = cast("list[int]", [value for value in column if value is not None] if has_null else column)
        write = str if max(map(int.bit_length, numbers)) <= _MAX_INT_BITS else None
    if write is None:
        return [cell_text(value, null_display) for value in column], numeric, False
    if has_null:
        null_as_written = "\\" not in null_display and shows_as_written(null_display)
        return [null_display if value is None else write(value) for value in column], numeric, null_as_written
    return list(map(write, column)), numeric, True


def _section_columns(section: Section, null_display: str) -> tuple[list[list[str]], list[bool], list[bool]]:
    """Every column of `section` as text, which columns are numeric and which the plain-text view shows as written
    (`_column_texts`): the rows' values read once, column by column (no container per row)."""
    width = len(section.columns)
    values = list(map(attrgetter("values"), section.rows))
    # Rows that do not match the columns come only from a section built without validation (`model_construct`);
    # the transposition finds them (rows of unlike lengths, or of one length other than the columns'), without a
    # pass of its own over a validated section, whose rows were checked.
    try:
        columns = list(zip(*values, strict=True))
    except ValueError:
        columns = []
    if len(columns) != width or (not width and any(values)):
        raise ValueError(f"section {section.id!r} has a row whose values do not match its {width} columns")
    written = [_column_texts(column, null_display) for column in columns]
    return [texts for texts, _, _ in written], [numeric for _, numeric, _ in written], [plain for *_, plain in written]


def _prefixes(rows: Sequence[Row], unit: str, marker: Callable[[Row], str]) -> list[str]:
    """Each row's `indentation` and kind marker (`marker`: the view's form of `kind_marker`), one entry per row,
    each written once for each distinct pair of level and kind (from a row that has it), then looked up by the pair:
    no string made per row, and linear however many levels the rows have."""
    pairs = list(map(_LEVEL_KIND, rows))
    written = {pair: indentation(row, unit) + marker(row) for pair, row in dict(zip(pairs, rows, strict=True)).items()}
    return list(map(written.__getitem__, pairs))


def _formatted_rows(layout: str, columns: Sequence[list[str]], count: int) -> str:
    """`count` lines, each `layout` (a printf-style format with one field per column; every cell a str) filled with
    one row's cells: one call in C over the format repeated once per row, its arguments laid out row after row by
    one slice assignment per column. No call, tuple or string is made per row."""
    width = len(columns)
    cells: list[str] = [""] * (count * width)
    for index, column in enumerate(columns):
        cells[index::width] = column  # a column of another length than `count` is refused (ValueError)
    return "\n".join([layout] * count) % tuple(cells)


# ---------------------------------------------------------------------------------------------------- plain text


def _underline(title: str, char: str) -> str:
    return char * max(len(title), 3)


def _text_cells(cells: list[str]) -> list[str]:
    """`cells` as the plain-text view shows them: one check in C over the whole column usually shows nothing to
    escape."""
    joined = "".join(cells)
    if "\\" not in joined and shows_as_written(joined):
        return cells
    return [text_escape(cell) for cell in cells]


def _text_section(section: Section, null_display: str, notes: Sequence[str] = (), *, alone: bool = False) -> list[str]:
    title = text_escape(section.title)
    # The one untitled section of a document (a list of rows) is the document's own: no heading repeats it. Among
    # several, every section keeps its heading, so that no row reads as one of the section before.
    lines = [] if alone and not title else [title, _underline(title, "-"), ""]
    note_lines = [note_text(note) for note in notes]
    rows = section.rows
    if not rows:
        lines.extend(note_lines or ["(no rows)"])
        return lines
    # Column by column: one list of strings per column (no container per row), each escaped in one pass, or not
    # looked at when its types show it holds nothing to escape.
    columns, numeric, as_written = _section_columns(section, null_display)
    # `%s` writes a str subclass as its `__str__` says: the header is written as its value, as every cell is.
    header = ["", *(str.__str__(text_escape(column)) for column in section.columns)]
    labels = _text_cells(list(map(_LABEL, rows)))
    bodies = [list(map(add, _prefixes(rows, _INDENT_TEXT, kind_marker), labels))]
    bodies.extend(texts if plain else _text_cells(texts) for texts, plain in zip(columns, as_written, strict=True))
    widths = [min(max(len(head), max(map(len, body))), PAD_WIDTH) for head, body in zip(header, bodies, strict=True)]
    right = [False, *numeric]
    # One printf-style format per row, every cell a str: `%-12s` pads it on the right, `%12s` on the left, and a
    # cell wider than its width is written whole, as `str.ljust` would (`_formatted_rows` writes the rows).
    layout = (
        "| "
        + " | ".join(f"%{'' if align_right else '-'}{width}s" for width, align_right in zip(widths, right, strict=True))
        + " |"
    )
    lines.append(layout % tuple(header))
    lines.append("+" + "+".join("-" * (width + 2) for width in widths) + "+")
    lines.append(_formatted_rows(layout, bodies, len(rows)))
    if note_lines:
        lines.extend(["", *note_lines])
    return lines


def render_text(
    document: Document, *, null_display: str = DEFAULT_NULL_DISPLAY, notes: Mapping[int, Sequence[str]] | None = None
) -> str:
    """Render the whole document as a plain-text table per section.

    The title is underlined with `=`, each section title with `-`; each section with rows is a `|`-delimited table
    with a header line and a `+---+` separator; a section without rows says `(no rows)`. Numeric columns are aligned
    right; padding is spaces only, so no value is changed. `notes` maps a section's position in `document.sections` to
    lines shown after its table (in place of `(no rows)` when it has none), for example records the server sent as
    links (a position, as a section id may repeat). A note is the
    host's own line, in which every server string is already quoted (`host.quote`: its backslashes, quotes and
    hidden characters escaped): it is shown as written, hidden characters made visible, never escaped a second time,
    so that a server's backslash shows as the one escape its quotation wrote.
    """
    title = text_escape(document.title)
    lines = [title, _underline(title, "=")]
    null_display = str.__str__(null_display)  # its value, whatever a subclass's `__str__` says (`%s` would ask it)
    for index, section in enumerate(document.sections):
        lines.append("")
        alone = len(document.sections) == 1
        lines.extend(_text_section(section, null_display, (notes or {}).get(index, ()), alone=alone))
    lines.append("")  # the closing line break, without a second copy of the whole text
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------------ Markdown


def markdown_escape(text: str) -> str:
    """Server text for a Markdown table cell, heading or list item: shown as the plain-text view shows it
    (`text_escape`: backslashes, tabs, line breaks and hidden characters as escapes), then Markdown's special
    characters get a backslash, so that no server string can open a link, an image, HTML, emphasis or a new line,
    and a Markdown renderer displays exactly the plain-text view's text."""
    return _markup_escaped(text_escape(text))


def note_text(note: str) -> str:
    """A host's note for the plain-text view: its server strings are already quoted (`host.quote`), so it is shown
    as written, only hidden characters made visible; escaping it again would show each server backslash twice."""
    return visible(note)


def note_markdown(note: str) -> str:
    """A host's note for the Markdown view: displayed exactly as `note_text` shows it."""
    return _markup_escaped(visible(note))


def _markup_escaped(shown: str) -> str:
    """Text as the plain-text view shows it, for Markdown: every special character gets a backslash, so that a
    Markdown renderer displays exactly `shown`."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", shown)
    escaped = _AT_SIGNS.sub(r"`\g<0>`", _AUTOLINK_START.sub(r"\1\\\2", escaped))
    if "-" in escaped and _DELIMITER_LIKE.fullmatch(escaped):
        # A cell such as `-` or `:--` must not make its line look like a delimiter row: escape its first mark.
        stripped = escaped.lstrip()
        escaped = escaped[: len(escaped) - len(stripped)] + "\\" + stripped
    return escaped


def code_fence(lines: Sequence[str]) -> list[str]:
    """`lines` as a fenced code block, shown literally by any Markdown renderer (no link, HTML or emphasis).

    Hidden characters become escapes (`visible`); the fence is longer than any run of backticks in the text, so
    no line can close it.
    """
    shown = [visible(line) for line in lines]
    fence = code_fence_mark(max(map(backtick_run, shown), default=0))
    return [fence, *shown, fence]


_BACKTICKS = re.compile(r"`+")


def backtick_run(line: str) -> int:
    """The longest run of backticks in `line`, which the fence of a code block holding it must exceed."""
    return max(map(len, _BACKTICKS.findall(line))) if "`" in line else 0


def code_fence_mark(longest_run: int) -> str:
    """The fence of a code block whose longest run of backticks is `longest_run` (`code_fence`)."""
    return "`" * max(3, longest_run + 1)


def _markdown_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


# Text that no step of `markdown_escape` changes: letters, digits, spaces, dots, commas and slashes (a dot begins
# no autolink but after `www`, checked apart; a slash none without the colon of a scheme), as in the default null
# text "n/a".
_MARKDOWN_PLAIN = re.compile(r"[A-Za-z0-9 .,/]*")


def _markdown_cells(cells: list[str]) -> list[str]:
    """`cells` escaped for Markdown: one check in C over the whole column usually shows nothing to escape."""
    joined = " ".join(cells)
    if _MARKDOWN_PLAIN.fullmatch(joined) and "www." not in joined.lower():
        return cells
    return [markdown_escape(cell) for cell in cells]


def _markdown_section(
    section: Section, null_display: str, notes: Sequence[str] = (), *, alone: bool = False
) -> list[str]:
    lines = [] if alone and not section.title else ["## " + markdown_escape(section.title), ""]
    note_lines = ["- " + note_markdown(note) for note in notes]
    rows = section.rows
    if not rows:
        lines.extend(note_lines or ["*(no rows)*"])
        return lines
    lines.append(_markdown_row(["", *(markdown_escape(column) for column in section.columns)]))
    cells, numeric, _ = _section_columns(section, null_display)
    lines.append(_markdown_row(["---", *("---:" if right else "---" for right in numeric)]))
    # Column by column, as in the plain-text view.
    labels = _markdown_cells(list(map(_LABEL, rows)))
    columns = [list(map(add, _prefixes(rows, _INDENT_MARKDOWN, _markdown_marker), labels))]
    columns.extend(map(_markdown_cells, cells))
    lines.append(_formatted_rows(_markdown_row(["%s"] * len(columns)), columns, len(rows)))
    if note_lines:
        lines.extend(["", *note_lines])
    return lines


def render_markdown(
    document: Document, *, null_display: str = DEFAULT_NULL_DISPLAY, notes: Mapping[int, Sequence[str]] | None = None
) -> str:
    """Render the whole document as Markdown: a `#` title, a `##` heading and a GFM table per section.

    Every value is escaped so that no value can end its cell, its row or the table (pipes, backslashes, emphasis
    characters, HTML and line breaks). Indentation is `&emsp;` per level; subtotal and total markers are bold.
    `notes` maps a section's position to lines shown as a list after its table, as the plain-text view shows them (see
    `render_text`), Markdown's special characters escaped.
    """
    lines = ["# " + markdown_escape(document.title)]
    null_display = str.__str__(null_display)  # its value, whatever a subclass's `__str__` says (`%s` would ask it)
    for index, section in enumerate(document.sections):
        lines.append("")
        alone = len(document.sections) == 1
        lines.extend(_markdown_section(section, null_display, (notes or {}).get(index, ()), alone=alone))
    lines.append("")  # the closing line break, without a second copy of the whole text
    return "\n".join(lines)
