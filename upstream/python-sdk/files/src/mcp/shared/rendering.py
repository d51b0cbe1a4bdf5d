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

DEFAULT_NULL_DISPLAY: Final = "-"
"""What a null value shows as when the directive gives no well-formed `nullDisplay`."""

# Digits of any script, with the separators and signs numbers are written with: "0", "-1.5", "1,000", "1e3", "٣".
_NUMBER_LIKE = re.compile(
    r"[+\-\u2212]?[.,]?(?:\d[\d,.\s'_]*)?\d(?:[eE][+\-]?\d+)?%?|[+\-]?(?:inf|infinity|nan)", re.IGNORECASE
)
# Whitespace, controls, format characters (zero-width and bidi marks) and separators show as nothing.
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})


def guidance_problem(value: str) -> str | None:
    """Why `value` is not a well-formed `guidance` string, or `None` when it is."""
    if len(value) > GUIDANCE_MAX_LENGTH:
        return f"longer than {GUIDANCE_MAX_LENGTH} code points"
    return None


def null_display_problem(value: str) -> str | None:
    """Why `value` is not a well-formed `nullDisplay` string, or `None` when it is.

    A null must stay visibly a null: an empty or blank placeholder hides it, and
    one that reads as a number makes it look like an amount.
    """
    if len(value) > NULL_DISPLAY_MAX_LENGTH:
        return f"longer than {NULL_DISPLAY_MAX_LENGTH} code points"
    if all(unicodedata.category(char) in _INVISIBLE_CATEGORIES for char in value):
        return "empty or blank"
    if _NUMBER_LIKE.fullmatch(value.strip()):
        return "reads as a number"
    return None
