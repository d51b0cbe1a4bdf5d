"""Wire names and value rules of the rendering extension, shared by its server and client halves."""

import unicodedata

EXTENSION_ID = "io.modelcontextprotocol/rendering"
"""The extension identifier, also the `_meta` key of both carriers."""

GUIDANCE_MAX_LENGTH = 1000
"""The longest well-formed `guidance`, in code points."""

DEFAULT_NULL_DISPLAY = "n/a"
"""What a null shows as when a directive gives no usable `nullDisplay`."""

# Control and format characters (invisible, or reordering the text around them) and numerals of any script.
_UNUSABLE_CATEGORIES = frozenset({"Cc", "Cf", "Nd", "Nl", "No"})


def usable_null_text(text: str) -> bool:
    """Whether `text` can stand for a null without hiding it or passing for an amount.

    1 to 16 code points, not only white space, and no control, format or numeric
    character: `-`, `n/a` and `無` are usable; `""`, `" "`, `0` and `٣` are not.
    """
    return (
        0 < len(text) <= 16
        and not text.isspace()
        and not any(unicodedata.category(char) in _UNUSABLE_CATEGORIES for char in text)
    )
