"""mcp-rendering: verbatim rendering hints and directives for MCP tool results (experimental).

The host side needs no MCP SDK: `resolve_rendering()` reads the carriers of a tool and a result (SDK models of
`mcp` 1.x or 2.x, or wire dictionaries), `present()` decides what the user sees and what the model receives, and
`audit()` checks what was shown against any result. The server side and the SDK patch need the MCP Python SDK 2.x
(the `sdk` extra) and are imported on first use: `registration()` declares the extensions, `verbatim_tool` and
`paged_tool` turn a function returning rows into a tool, `verbatim_result()` and `paged_result()` build results from
a `Document`, `install()` types the core form.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcp_rendering._version import __version__
from mcp_rendering.audit import AuditReport, Issue, audit
from mcp_rendering.document import Document, Row, Rows, Section
from mcp_rendering.envelope import (
    Budget,
    BudgetError,
    Envelope,
    Page,
    RecordNotFoundError,
    RecordUris,
    ResultChangedError,
    read_record,
)
from mcp_rendering.host import Presentation, next_call_arguments, present
from mcp_rendering.reading import EffectiveRendering, read_directive, read_tool_hints, resolve_rendering
from mcp_rendering.render import render_markdown, render_text
from mcp_rendering.tokens import ContinuationTokens, Keyring, TokenError
from mcp_rendering.types import (
    CONTINUATION_ID,
    EXTENSION_ID,
    EffectiveMode,
    Rendering,
    RenderingHints,
    RenderingMode,
    ResultContinuation,
    ResultContinuationTool,
)

if TYPE_CHECKING:
    from mcp_rendering.builder import (
        VerbatimContent,
        continuation_tool_meta,
        error_result,
        output_schema,
        paged_result,
        paged_tool,
        request_caller,
        verbatim_result,
        verbatim_tool,
    )
    from mcp_rendering.extension import (
        RenderingClientExtension,
        RenderingExtension,
        ResultContinuationClientExtension,
        ResultContinuationExtension,
        client_extension,
        client_supports_continuation,
        client_supports_rendering,
        registration,
        tool_annotations,
    )
    from mcp_rendering.patch import (
        SUPPORTED_SDK,
        PatchRecord,
        UnsupportedSDKError,
        install,
        installed,
        is_installed,
        patch_record,
        uninstall,
    )

_NEEDS_THE_SDK = {
    **dict.fromkeys(
        (
            "VerbatimContent",
            "continuation_tool_meta",
            "error_result",
            "output_schema",
            "paged_result",
            "paged_tool",
            "request_caller",
            "verbatim_result",
            "verbatim_tool",
        ),
        "builder",
    ),
    **dict.fromkeys(
        (
            "RenderingClientExtension",
            "RenderingExtension",
            "ResultContinuationClientExtension",
            "ResultContinuationExtension",
            "client_extension",
            "client_supports_continuation",
            "client_supports_rendering",
            "registration",
            "tool_annotations",
        ),
        "extension",
    ),
    **dict.fromkeys(
        (
            "SUPPORTED_SDK",
            "PatchRecord",
            "UnsupportedSDKError",
            "install",
            "installed",
            "is_installed",
            "patch_record",
            "uninstall",
        ),
        "patch",
    ),
}
"""The names whose modules import the MCP Python SDK 2.x, by module: imported on first use."""


def __getattr__(name: str) -> Any:
    module = _NEEDS_THE_SDK.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_rendering' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(f"mcp_rendering.{module}"), name)
    except ModuleNotFoundError as error:
        raise ImportError(
            f"mcp_rendering.{name} needs the MCP Python SDK 2.x: pip install 'mcp-rendering[sdk]' ({error})"
        ) from error
    globals()[name] = value
    return value


__all__ = [
    "CONTINUATION_ID",
    "EXTENSION_ID",
    "SUPPORTED_SDK",
    "AuditReport",
    "Budget",
    "BudgetError",
    "ContinuationTokens",
    "Document",
    "EffectiveMode",
    "EffectiveRendering",
    "Envelope",
    "Issue",
    "Keyring",
    "Page",
    "PatchRecord",
    "Presentation",
    "RecordNotFoundError",
    "RecordUris",
    "Rendering",
    "RenderingClientExtension",
    "RenderingExtension",
    "RenderingHints",
    "RenderingMode",
    "ResultChangedError",
    "ResultContinuation",
    "ResultContinuationClientExtension",
    "ResultContinuationExtension",
    "ResultContinuationTool",
    "Row",
    "Rows",
    "Section",
    "TokenError",
    "UnsupportedSDKError",
    "VerbatimContent",
    "__version__",
    "audit",
    "client_extension",
    "client_supports_continuation",
    "client_supports_rendering",
    "continuation_tool_meta",
    "error_result",
    "install",
    "installed",
    "is_installed",
    "next_call_arguments",
    "output_schema",
    "paged_result",
    "paged_tool",
    "patch_record",
    "present",
    "read_directive",
    "read_record",
    "read_tool_hints",
    "registration",
    "render_markdown",
    "render_text",
    "request_caller",
    "resolve_rendering",
    "tool_annotations",
    "uninstall",
    "verbatim_result",
    "verbatim_tool",
]
