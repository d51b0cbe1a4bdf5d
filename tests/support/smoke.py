"""A dependency-light check of the package under the interpreter that runs it: the patch, both transports' worth
of protocol modes over stdio, and exact reversal. Used to prove the runtime supports the oldest Python it declares.
Exits non-zero on any failure; prints one line per check."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

import mcp_rendering
from mcp_rendering import EXTENSION_ID, Rendering, resolve_rendering
from tests.support.sdk_state import sdk_fingerprint

REPO = Path(__file__).resolve().parents[2]


async def _check_mode(mode: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.support.hinted_server", "core-kept"],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO)},
    )
    async with Client(params, mode=mode, extensions=[mcp_rendering.client_extension()]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        sheet = tools["balance_sheet"]
        result = await client.call_tool("balance_sheet", {})
        assert sheet.meta is not None and sheet.meta[EXTENSION_ID]["verbatimHint"] is True
        # The server wrote the core form and its extension copied it under `_meta` (core_form=True), read first.
        assert resolve_rendering(sheet, result).source == "result._meta"
        # The patched SDK keeps the core form as it came, for the reader.
        expected = Rendering(mode="verbatim", complete=True).model_dump(by_alias=True, exclude_none=True)
        assert isinstance(result.rendering, dict) and result.rendering["mode"] == expected["mode"]  # pyright: ignore[reportAttributeAccessIssue]


def main() -> int:
    before = sdk_fingerprint()
    mcp_rendering.install()  # the core form, typed
    for mode in ("legacy", "2026-07-28", "auto"):
        anyio.run(_check_mode, mode)
        print(f"ok: stdio, mode {mode}")
    mcp_rendering.uninstall()
    assert sdk_fingerprint() == before, "uninstall() did not restore the SDK"
    print(f"ok: install/uninstall on Python {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
