"""Text as it is drawn: the audit's stage that makes two texts a reader cannot tell apart compare equal, and keeps
apart two a reader can.

- **Unicode form**: a text and its canonically equivalent form (NFC and NFD) are drawn alike: both read as NFC.
- **Characters drawn as a dash**: U+1680 OGHAM SPACE MARK is white space to string rules but fonts draw it as a dash;
  it reads as `-`, never as a space.
- **Numbers**: a number written with the digit grouping of a common locale is the same value as the number without
  grouping: `1,377,600`, `1.377.600`, `1 377 600` (no-break, narrow no-break or thin space; a plain space only in a
  table cell holding nothing else) and `1'377'600` all read `1377600`. The decimal mark is the one the number's own
  grouping implies (`1.377.600,5`), else the one the transcript's numbers agree on (`decimal_mark`), `.` when they
  do not say, counting only the transcript's own numbers: one written exactly as the result writes it
  (`numbers_in`) is the result's, in the result's convention, and tells nothing of the transcript's. The result's
  numbers read with `.`. A number reads as its sign (`-` for U+2212 MINUS SIGN), its digits and, when it has one,
  `.` and its fraction digits: nothing is rounded, no digit is added or dropped (`1.50` is not `1.5`), and a sign
  apart from its digits (`- 250`) or in parentheses stays as written.
- **Direction**: the Unicode bidirectional algorithm draws digits that act as right-to-left text (after a Hebrew or
  Arabic letter; Arabic-Indic digits anywhere), and every digit of a block whose first letter is a right-to-left one
  when the host lets the text set the block's direction, in an order that depends on that direction and on the
  characters around them: `1 377 600` after an Arabic word is drawn `600 377 1`, two values side by side trade
  places, a sign moves to the other side, a number is drawn next to another. Such digits are not certain
  (`reordered_digits`).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence

__all__ = [
    "as_drawn",
    "cell_as_drawn",
    "decimal_mark",
    "lines_as_drawn",
    "may_change",
    "numbers_in",
    "reordered_digits",
    "right_to_left",
    "right_to_left_count",
    "spaced_number",
    "starts_right_to_left",
]

_GROUPING = ",.'\u2019\u00a0\u202f\u2009"
_NUMBER = re.compile(
    r"(?<![\w.,'\u2019])([+\-\u2212]?)"
    r"(\d{1,3}(?:([,.'\u2019\u00a0\u202f\u2009])\d{3})(?:\3\d{3})*|\d+)"
    r"(?:([.,])(\d+))?"
    r"(?![\w]|[.,'\u2019\u00a0\u202f\u2009]\d)"
)
_SPACE_GROUPED_CELL = re.compile(r"[+\-\u2212]?\d{1,3}(?: \d{3})+(?:[.,]\d+)?")
# What `as_drawn` may change, found in C: where `.` is the decimal mark, a fraction (`1234.56`) reads as written.
_MAY_CHANGE = {
    ".": re.compile(r"[\u2212\u1680]|\d[,'\u2019\u00a0\u202f\u2009]\d|\d\.\d{3}[.,]\d"),
    ",": re.compile(r"[\u2212\u1680]|\d[,.'\u2019\u00a0\u202f\u2009]\d"),
}
# Evidence of the decimal mark, counted in C: a grouping that can only be one (`1.377.600`, `1,377.5`), or a
# fraction that cannot be a group (`12,5`, `6.75`); never a number inside a word (`a2,5b`), which is text.
_COMMA_DECIMAL = re.compile(r"(?<![^\W\d])\d\.\d{3}[.,]\d(?![^\W\d])|(?<![\w.,])\d+,(?:\d{1,2}|\d{4,})(?!\w|[.,]\d)")
_POINT_DECIMAL = re.compile(r"(?<![^\W\d])\d,\d{3}[.,]\d(?![^\W\d])|(?<![\w.,])\d+\.(?:\d{1,2}|\d{4,})(?!\w|[.,]\d)")
# The same for ASCII text, which holds none of their other characters (and no digit but 0-9): a pattern that starts
# with a digit class is searched several times faster than one that starts with an alternation.
_MAY_CHANGE_ASCII = {
    ".": re.compile(r"[0-9](?:[,'][0-9]|\.[0-9]{3}[.,][0-9])"),
    ",": re.compile(r"[0-9][,.'][0-9]"),
}
_DASH_DRAWN = str.maketrans({"\u1680": "-"})


def _marks_in(text: str) -> bool:
    """Whether ASCII `text` holds a mark `_MAY_CHANGE_ASCII` needs: without one (three scans in C, each faster than
    the pattern's), nothing in it may change."""
    return "." in text or "," in text or "'" in text


def may_change(text: str, decimal: str = ".") -> bool:
    """Whether `as_drawn` may read `text` otherwise than as written (decided in C)."""
    if not text.isascii():
        return True
    return _marks_in(text) and _MAY_CHANGE_ASCII[decimal].search(text) is not None


def lines_as_drawn(lines: Sequence[str], decimal: str = ".") -> list[str]:
    """`as_drawn` of each line, the lines it would leave as written found by one search of them all (in C)."""
    joined = "\n".join(lines)
    if joined.isascii() and not (_marks_in(joined) and _MAY_CHANGE_ASCII[decimal].search(joined)):
        return list(lines)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    marked = {bisect.bisect_right(starts, found.start()) - 1 for found in _MAY_CHANGE[decimal].finditer(joined)}
    return [
        as_drawn(line, decimal) if number in marked or not line.isascii() else line for number, line in enumerate(lines)
    ]


def decimal_mark(text: str, copied: Collection[str] = ()) -> str:
    """The decimal mark most numbers of `text` imply by their own form (`,` or `.`); `.` when they do not say.
    Numbers written exactly as one of `copied` (`numbers_in` another text) are left out of the count."""
    commas: list[str] = _COMMA_DECIMAL.findall(text)
    if not commas:
        return "."
    points: list[str] = _POINT_DECIMAL.findall(text)
    if copied:
        commas = [number for number in commas if number not in copied]
        points = [number for number in points if number not in copied]
    return "," if len(commas) > len(points) else "."


def _number(match: re.Match[str], decimal: str) -> str:
    sign, integer, group, fraction_mark, fraction = match.groups()
    sign = "-" if sign == "\u2212" else sign
    if group is not None:
        if group == decimal and fraction_mark is None and integer.count(group) == 1:
            return sign + integer.replace(group, ".")  # `1,377` where `,` is the decimal mark: 1.377
        # Grouped by `,` or `.`, the other one is the decimal mark; grouped by a space or an apostrophe, either is.
        own_decimal = {",": ".", ".": ","}.get(group, fraction_mark)
        integer = integer.replace(group, "")
    else:
        own_decimal = decimal
    if fraction_mark is None:
        return sign + integer
    if fraction_mark != own_decimal:
        return match.group(0)  # neither a grouping nor the decimal mark: left as written
    return f"{sign}{integer}.{fraction}"


def _as_seen(text: str) -> str:
    """NFC, a dash-drawn space as `-`: what `as_drawn` reads numbers in."""
    if not text.isascii():
        if not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)
        text = text.translate(_DASH_DRAWN)
    return text


def as_drawn(text: str, decimal: str = ".") -> str:
    """`text` as a reader compares it: NFC, a dash-drawn space as `-`, numbers without their grouping. Draw a text
    once: where `,` is the decimal mark, `1,377` reads `1.377`, which drawn again reads `1377`."""
    text = _as_seen(text)
    if not _MAY_CHANGE[decimal].search(text):
        return text
    return _NUMBER.sub(lambda match: _number(match, decimal), text)


def numbers_in(texts: Iterable[str]) -> frozenset[str]:
    """The numbers of `texts` that imply a decimal mark (`decimal_mark`), as written (`12,5`, `6.75`): the result's,
    which a transcript may write exactly so, and which are then not evidence of its own decimal mark."""
    joined = "\n".join(texts)
    if not _MAY_CHANGE[","].search(joined):
        return frozenset()
    return frozenset(_COMMA_DECIMAL.findall(joined)) | frozenset(_POINT_DECIMAL.findall(joined))


def spaced_number(text: str) -> str:
    """A table cell holding only a number grouped by plain spaces (`1 377 600`, plain spaces around it trimmed) with
    no-break spaces in their place, so that `as_drawn` reads it as that number; any other text as it is."""
    stripped = text.strip(" ")
    if " " in stripped:
        spaced = " ".join(part for part in stripped.split(" ") if part)
        if _SPACE_GROUPED_CELL.fullmatch(spaced):
            return spaced.replace(" ", "\u00a0")
    return text


def cell_as_drawn(text: str, decimal: str = ".") -> str:
    """A table cell as a reader compares it: as `as_drawn`, and a cell holding only a number grouped by plain spaces
    reads as that number (`spaced_number`)."""
    return as_drawn(spaced_number(text), decimal)


_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\u200f\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
"""The blocks that hold every character of a right-to-left bidi class (R or AL), with others: a text without one of
them draws its digits in the order written."""


def right_to_left(text: str) -> bool:
    """Whether `text` may hold a right-to-left letter or an Arabic-Indic digit (decided in C): without one, no digits
    are reordered."""
    return not text.isascii() and _RIGHT_TO_LEFT.search(text) is not None


def right_to_left_count(text: str) -> int:
    """How many right-to-left letters and Arabic-type digits `text` holds (a character of the blocks `right_to_left`
    looks in that this Python's Unicode tables do not know counts as a letter): a text shown with fewer than its source
    holds does not show all of its right-to-left letters."""
    if text.isascii():
        return 0
    return sum(1 for char in _RIGHT_TO_LEFT.findall(text) if _bidi_class(char) in ("R", "AL", "AN"))


def _bidi_class(char: str) -> str:
    """The bidi class of `char`; R for a character of the right-to-left blocks this Python's Unicode tables do not
    know (newer than them, or unassigned), as the Unicode default for those blocks is right-to-left."""
    kind = unicodedata.bidirectional(char)
    return kind or ("R" if _RIGHT_TO_LEFT.match(char) else "")


def starts_right_to_left(text: str) -> bool:
    """Whether the first strong letter of `text` is a right-to-left one: a block or page whose direction follows its
    text is then drawn right to left."""
    if not right_to_left(text):
        return False
    isolated = 0  # the isolates open: the text inside one does not set the direction
    for kind in map(_bidi_class, text):
        if kind in ("LRI", "RLI", "FSI"):
            isolated += 1
        elif kind == "PDI":
            isolated = max(0, isolated - 1)
        elif kind in ("L", "R", "AL") and not isolated:
            return kind != "L"
    return False


def reordered_digits(paragraph: Sequence[str], letters_unseen: bool = False) -> list[int]:
    """The lines of `paragraph` (the lines of one block, which a renderer draws as one bidi paragraph) holding digits
    the bidirectional algorithm may draw in another order than written, next to other digits, or apart from their
    sign: every line holding a digit (of any script, or a character this Python's tables do not know), in a block
    whose first letter is a right-to-left one (a block whose direction follows its text is drawn right to left) or
    that holds digits acting as right-to-left text (Arabic-Indic digits, or other digits whose nearest letter before
    them is a right-to-left one). Digits in a
    left-to-right block that holds neither stay in place, each beside its sign. `letters_unseen`: a right-to-left
    letter the text does not show (struck through, raw HTML) may sit anywhere in it, before any of its digits."""
    if not letters_unseen and not any(map(right_to_left, paragraph)):
        return []
    first = ""  # the class of the block's first strong letter: L, R or AL
    governing = "L"  # the class of the nearest strong letter before
    reordered = letters_unseen
    holding: list[int] = []  # the lines holding a digit
    for number, line in enumerate(paragraph):
        held = False
        for char in line:
            kind = _bidi_class(char)
            if kind == "AN" or (kind == "EN" and governing != "L"):
                reordered = held = True
            elif kind in ("L", "R", "AL"):
                first, governing = first or kind, kind
                held = held or char.isdigit()  # the digits of other scripts are left-to-right letters
            elif kind == "EN":
                held = True
            elif char.isdigit() or (not kind and unicodedata.category(char) == "Cn"):
                # A digit the algorithm treats as any other neutral character (a circled digit), or a character this
                # Python's tables do not know, which may be a digit: moved with the right-to-left text around it.
                held = True
                reordered = reordered or governing != "L"
        if held:
            holding.append(number)
    return holding if reordered or first in ("R", "AL") else []
