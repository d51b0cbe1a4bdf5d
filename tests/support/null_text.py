"""The schema's `nullDisplay` pattern, rebuilt from the reader's rule (its frozen Unicode 14.0 tables).

The pattern spells the rule out code point by code point, so that every regular expression engine a validator may
use (ECMA-262, Python's `re`, Rust's `regex`) reads it the same way; the test that checks the schema's copy
rebuilds it here.
"""

from __future__ import annotations

from collections.abc import Callable

from mcp_rendering._null_text import blank, forbidden


def _ranges(test: Callable[[int], bool]) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    start: int | None = None
    for code in range(0x110000):
        if test(code):
            start = code if start is None else start
        elif start is not None:
            found.append((start, code - 1))
            start = None
    if start is not None:
        found.append((start, 0x10FFFF))
    return found


def _character(code: int) -> str:
    # Escapes that ECMA-262, Python and Rust all read; a code point beyond the BMP has none in common, so it is
    # written as itself (one code point in each engine's Unicode mode).
    return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)


def _class(ranges: list[tuple[int, int]]) -> str:
    return "".join(_character(low) if low == high else f"{_character(low)}-{_character(high)}" for low, high in ranges)


def null_text_pattern() -> str:
    """Any run of allowed characters, one of which shows something."""
    allowed = _class(_ranges(forbidden))
    visible = _class(_ranges(blank))
    return f"^[^{allowed}]*[^{visible}][^{allowed}]*$"
