"""mcp-rendering: verbatim rendering hints and directives for MCP tool results (experimental).

`install()` teaches the official MCP Python SDK the new fields; `RenderingExtension` negotiates the extension and
mirrors the fields under `_meta`; `resolve_rendering()` reads them on the host with one precedence rule.
"""

from mcp_rendering.audit import AuditReport, Issue, audit
from mcp_rendering.builder import VerbatimContent, error_result, output_schema, paged_result, verbatim_result
from mcp_rendering.document import Document, Row, Section
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
from mcp_rendering.extension import (
    RenderingClientExtension,
    RenderingExtension,
    client_extension,
    client_supports_rendering,
    tool_annotations,
)
from mcp_rendering.host import Presentation, next_call_arguments, present
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
from mcp_rendering.reading import EffectiveRendering, read_directive, read_tool_hints, resolve_rendering
from mcp_rendering.render import render_markdown, render_text
from mcp_rendering.tokens import ContinuationTokens, Keyring, TokenError
from mcp_rendering.types import (
    EXTENSION_ID,
    EffectiveMode,
    Rendering,
    RenderingContinuation,
    RenderingHints,
    RenderingMode,
)

__all__ = [
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
    "RenderingContinuation",
    "RenderingExtension",
    "RenderingHints",
    "RenderingMode",
    "ResultChangedError",
    "Row",
    "Section",
    "TokenError",
    "UnsupportedSDKError",
    "VerbatimContent",
    "audit",
    "client_extension",
    "client_supports_rendering",
    "error_result",
    "install",
    "installed",
    "is_installed",
    "next_call_arguments",
    "output_schema",
    "paged_result",
    "patch_record",
    "present",
    "read_directive",
    "read_record",
    "read_tool_hints",
    "render_markdown",
    "render_text",
    "resolve_rendering",
    "tool_annotations",
    "uninstall",
    "verbatim_result",
]
