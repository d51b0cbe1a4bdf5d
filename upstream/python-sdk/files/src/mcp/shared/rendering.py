"""Wire names of the rendering extension, shared by its server and client halves.

The server half (`mcp.server.rendering`) declares tool hints and stamps result
directives; the client half (`mcp.client.rendering`) reads them. Both use one
carrier per message: `_meta["io.modelcontextprotocol/rendering"]` on a `Tool`
and on a `CallToolResult`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = [
    "DEFAULT_NULL_DISPLAY",
    "EXTENSION_ID",
    "GUIDANCE_MAX_LENGTH",
    "NULL_DISPLAY_MAX_LENGTH",
    "RESULT_MEMBERS",
    "TOOL_MEMBERS",
    "guidance_problem",
    "null_display_problem",
]

EXTENSION_ID: Final = "io.modelcontextprotocol/rendering"
"""The rendering extension identifier, also the `_meta` key of both carriers."""

TOOL_MEMBERS: Final = frozenset({"verbatimHint", "summarizeOkHint"})
"""The members of the tool carrier."""

RESULT_MEMBERS: Final = frozenset({"mode", "guidance", "nullDisplay", "complete"})
"""The members of the result carrier (the directive)."""

GUIDANCE_MAX_LENGTH: Final = 1000
"""The longest `guidance`, in code points."""

NULL_DISPLAY_MAX_LENGTH: Final = 16
"""The longest `nullDisplay`, in code points."""

DEFAULT_NULL_DISPLAY: Final = "n/a"
"""What a null value shows as when the directive gives no well-formed `nullDisplay`."""

# White space and invisible characters: general categories Cc, Cf, Zs, Zl, Zp, and the Default_Ignorable_Code_Point
# characters outside Cf (unicodedata does not expose that property; the unassigned ones are listed too, as a later
# Unicode version may assign them). Besides: U+2800 BRAILLE PATTERN BLANK and the Hangul fillers, which render as
# nothing in most fonts.
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})
_HANGUL_FILLERS = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0})
_BLANK_LOOKING = frozenset({0x2800, *_HANGUL_FILLERS})
_IGNORABLE_OUTSIDE_CF = frozenset(
    [0x034F, 0x17B4, 0x17B5, 0x2065, 0xE0000, *_HANGUL_FILLERS]
    + list(range(0x180B, 0x1810))
    + list(range(0xFE00, 0xFE10))
    + list(range(0xFFF0, 0xFFF9))
    + list(range(0xE0002, 0xE0020))
    + list(range(0xE0080, 0xE1000))
)

# The type of `nullDisplay` (the extension's JSON Schema): printable Latin letters, punctuation and dashes, no digit,
# at least one letter that resembles no digit, single spaces between runs. A value outside it is malformed even when
# it could not hide a null.
_NULL_DISPLAY_CHARS = (
    "!-/:-~"  # ASCII printable, less space and the digits
    "\u00a1-\u00ac\u00ae-\u00b1\u00b4-\u00b8\u00ba\u00bb\u00bf-\u00ff"  # Latin-1, less soft hyphen and the digit-likes
    "\u0100-\u017f"  # Latin Extended-A
    "\u2010-\u2027\u2030-\u205e"  # general punctuation: dashes, quotes, ellipsis
)
# The letters that resemble no digit: a text of dashes, punctuation and digit look-alikes alone (`-`, `O.OO`,
# `l,OOO`) reads as an amount. O o D Q I l i J j L T Z z S s B b G g q and the accented letters do not count.
_NULL_DISPLAY_LETTERS = "ACEFHKMNPRUVWXYacdefhkmnprtuvwxy"
_NULL_DISPLAY_PATTERN = re.compile(
    f"([{_NULL_DISPLAY_CHARS}]+ )*[{_NULL_DISPLAY_CHARS}]*[{_NULL_DISPLAY_LETTERS}][{_NULL_DISPLAY_CHARS}]*"
    f"( [{_NULL_DISPLAY_CHARS}]+)*"
)


def _visible(char: str) -> bool:
    code = ord(char)
    return (
        unicodedata.category(char) not in _INVISIBLE_CATEGORIES
        and code not in _IGNORABLE_OUTSIDE_CF
        and code not in _BLANK_LOOKING
    )


def guidance_problem(value: str) -> str | None:
    """Why `value` is not a well-formed `guidance` string, or `None` when it is."""
    if len(value) > GUIDANCE_MAX_LENGTH:
        return f"longer than {GUIDANCE_MAX_LENGTH} code points"
    return None


def null_display_problem(value: str) -> str | None:
    """Why `value` is not a well-formed, usable null text, or `None` when it is.

    A null must stay visibly a null: 1 to 16 code points, at least one of them
    visible (not white space, not invisible, not U+2800 BRAILLE PATTERN BLANK or a
    Hangul filler), no decimal digit, and at least one letter that resembles no
    digit, one of `ACEFHKMNPRUVWXY` or `acdefhkmnprtuvwxy` (so `""` and `" "`
    cannot hide it, and neither `"0"`, a dash alone, `"-"`, which a financial
    statement reads as zero, nor look-alikes such as `"O.OO"` or `"l,OOO"` can make
    it look like an amount); and the value must match the member's type (printable
    Latin letters, punctuation and dashes, single spaces between them).
    """
    if len(value) > NULL_DISPLAY_MAX_LENGTH:
        return f"longer than {NULL_DISPLAY_MAX_LENGTH} code points"
    if not any(_visible(char) for char in value):
        return "empty, blank or invisible"
    if any(unicodedata.category(char) == "Nd" for char in value):
        return "holds a decimal digit"
    if not any(char in _NULL_DISPLAY_LETTERS for char in value):
        return "holds no letter that resembles no digit, so it could pass for an amount"
    if _NULL_DISPLAY_PATTERN.fullmatch(value) is None:
        return "outside the printable Latin letters, punctuation and dashes of its type"
    return None
