"""mcp-rendering: verbatim rendering hints and directives for MCP tool results (experimental).

`install()` teaches the official MCP Python SDK the new fields; `RenderingExtension` negotiates the extension and
mirrors the fields under `_meta`; `resolve_rendering()` reads them on the host with one precedence rule.
"""

from mcp_rendering.extension import (
    RenderingClientExtension,
    RenderingExtension,
    client_extension,
    client_supports_rendering,
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
from mcp_rendering.reading import EffectiveRendering, read_directive, read_tool_hints, resolve_rendering
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
    "EffectiveMode",
    "EffectiveRendering",
    "PatchRecord",
    "Rendering",
    "RenderingClientExtension",
    "RenderingContinuation",
    "RenderingExtension",
    "RenderingHints",
    "RenderingMode",
    "UnsupportedSDKError",
    "client_extension",
    "client_supports_rendering",
    "install",
    "installed",
    "is_installed",
    "patch_record",
    "read_directive",
    "read_tool_hints",
    "resolve_rendering",
    "uninstall",
]
