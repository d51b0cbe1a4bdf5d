"""Public types of the rendering and result continuation extensions.

The models come from `_generated.py`, which `scripts/gen_types.py` generates from the schema delta; this module only
names them and adds the constants that the rest of the package shares.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from annotated_types import MaxLen
from pydantic import BaseModel

from mcp_rendering._generated import (
    CallToolResultDelta,
    Rendering,
    RenderingHints,
    ResultContinuation,
    ResultContinuationTool,
    ToolAnnotationsDelta,
)

__all__ = [
    "CONTINUATION_ID",
    "EXTENSION_ID",
    "GUIDANCE_MAX_LENGTH",
    "PARTIAL_MARKER",
    "RESULT_STRUCTURED_KEY",
    "CallToolResultDelta",
    "EffectiveMode",
    "Rendering",
    "RenderingHints",
    "RenderingMode",
    "ResultContinuation",
    "ResultContinuationTool",
    "ToolAnnotationsDelta",
]

EXTENSION_ID = "io.modelcontextprotocol/rendering"
"""The rendering extension's identifier: declared in capabilities, and the `_meta` key of its carriers."""

CONTINUATION_ID = "mcp-rendering/result-continuation"
"""The result continuation extension's identifier: declared in capabilities, and the `_meta` key of its carriers."""

PARTIAL_MARKER = "Partial result:"
"""How a notice of incompleteness begins: in the reference builder's text, in the reference host's notices, and in
what the host's framing asks its model to write; `mcp_rendering.audit` looks for a line that starts with it."""

RESULT_STRUCTURED_KEY = "_rendering"
"""Key under which a server repeats the directive inside an object `structuredContent`, for hosts that forward
only `structuredContent` to the model."""

RenderingMode: TypeAlias = Literal["verbatim", "summarizable"]
"""The registered values of `Rendering.mode`, an open string: a host presents any other string as "verbatim"."""

EffectiveMode: TypeAlias = Literal["verbatim", "summarizable", "unspecified"]
"""What a host should do once every carrier has been read: a `RenderingMode`, or `unspecified` when the server
said nothing and the host keeps its own default."""


def _max_length(model: type[BaseModel], field: str) -> int:
    for constraint in model.model_fields[field].metadata:
        if isinstance(constraint, MaxLen):
            return constraint.max_length
    raise LookupError(f"{model.__name__}.{field} declares no maximum length")


GUIDANCE_MAX_LENGTH = _max_length(Rendering, "guidance")
"""The most code points `Rendering.guidance` may hold, read from the generated model (so from the schema delta)."""
