"""Wire names of the rendering extension, shared by its server and client halves.

The server half (`mcp.server.rendering`) declares tool hints and stamps result
directives; the client half (`mcp.client.rendering`) reads them. Both use one
carrier per message: `_meta["io.modelcontextprotocol/rendering"]` on a `Tool`
and on a `CallToolResult`.
"""

from __future__ import annotations

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

DEFAULT_NULL_DISPLAY: Final = "-"
"""What a null value shows as when the directive gives no well-formed `nullDisplay`."""

# White space and invisible characters: general categories Cc, Cf, Zs, Zl, Zp, and the Default_Ignorable_Code_Point
# characters outside Cf (unicodedata does not expose that property).
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})
_IGNORABLE_OUTSIDE_CF = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0]
    + list(range(0x180B, 0x1810))
    + list(range(0xFE00, 0xFE10))
    + list(range(0xE0100, 0xE01F0))
)


def _visible(char: str) -> bool:
    return unicodedata.category(char) not in _INVISIBLE_CATEGORIES and ord(char) not in _IGNORABLE_OUTSIDE_CF


def guidance_problem(value: str) -> str | None:
    """Why `value` is not a well-formed `guidance` string, or `None` when it is."""
    if len(value) > GUIDANCE_MAX_LENGTH:
        return f"longer than {GUIDANCE_MAX_LENGTH} code points"
    return None


def null_display_problem(value: str) -> str | None:
    """Why `value` is not a usable null text, or `None` when it is.

    A null must stay visibly a null: 1 to 16 code points, at least one of them
    visible, and no decimal digit (so `""` and `" "` cannot hide it, and `"0"`
    cannot make it look like an amount).
    """
    if len(value) > NULL_DISPLAY_MAX_LENGTH:
        return f"longer than {NULL_DISPLAY_MAX_LENGTH} code points"
    if not any(_visible(char) for char in value):
        return "empty or blank"
    if any(unicodedata.category(char) == "Nd" for char in value):
        return "holds a decimal digit"
    return None
