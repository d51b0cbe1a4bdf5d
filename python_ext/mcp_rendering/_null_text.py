"""The usable null text rule (section 4 of the rendering specification), by Unicode category and property.

A usable null text holds no control, format or numeric character (Unicode general categories Cc, Cf, Nd, Nl, No,
in any script), and at least one character that shows something: not only white space or invisible characters
(Default_Ignorable code points, and U+2800 BRAILLE PATTERN BLANK, an empty cell in most fonts). The schema's
`nullDisplay` pattern spells the same rule out code point by code point; the reader applies both.
"""

from __future__ import annotations

import unicodedata

FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Nd", "Nl", "No"})
"""Control, format and numeric characters: none may appear anywhere in a usable null text."""

WHITE_SPACE = (
    (0x0009, 0x000D),
    (0x0020, 0x0020),
    (0x0085, 0x0085),
    (0x00A0, 0x00A0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)
"""Unicode's White_Space property (PropList.txt)."""

INVISIBLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt), and U+2800 BRAILLE PATTERN BLANK,
which most fonts draw as an empty cell."""


def _in(ranges: tuple[tuple[int, int], ...], code: int) -> bool:
    return any(low <= code <= high for low, high in ranges)


def forbidden(code: int) -> bool:
    """A character no usable null text holds."""
    return unicodedata.category(chr(code)) in FORBIDDEN_CATEGORIES


def blank(code: int) -> bool:
    """A character that shows nothing (or is forbidden): a usable null text needs one that is not."""
    return forbidden(code) or _in(WHITE_SPACE, code) or _in(INVISIBLE, code)


def usable_by_category(text: str) -> bool:
    """Whether every character of `text` is allowed and one of them shows something (lengths are the schema's)."""
    codes = [ord(character) for character in text]
    return not any(forbidden(code) for code in codes) and not all(blank(code) for code in codes)
