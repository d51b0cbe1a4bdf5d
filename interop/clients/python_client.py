"""Drives the MCP Python SDK's `mcp.Client` over stdio against the fixture server.

Usage: ``python -m interop.clients.python_client SPEC_JSON [--mode legacy|auto|2026-07-28] [--patched]``.
SPEC_JSON is the same spec the TypeScript driver takes. With ``--patched``, `mcp_rendering.install()` runs before any
client exists. Prints one JSON object: per run, the listed tools and the call result as the application holds
them (the SDK models dumped by alias, only the fields that were set), or the error text.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio


async def _observe(spec: dict[str, Any], run: dict[str, Any], mode: str) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=run["command"], args=run["args"], cwd=spec["cwd"])
    out: dict[str, Any] = {}
    try:
        async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
            try:
                listed = await client.list_tools()
                out["list"] = {"ok": True, "value": _dump(listed)}
            except Exception as exc:
                out["list"] = {"ok": False, "error": _error_text(exc)}
            try:
                called = await client.call_tool(run["tool"], run["arguments"])
                out["call"] = {"ok": True, "value": _dump(called)}
            except Exception as exc:
                out["call"] = {"ok": False, "error": _error_text(exc)}
    except Exception as exc:
        if not out:
            out["connect"] = {"ok": False, "error": _error_text(exc)}
    return out


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _error_text(exc: BaseException) -> str:
    # anyio task groups wrap the real failure; report the innermost one.
    inner: Any = getattr(exc, "exceptions", None)
    while isinstance(inner, tuple) and len(inner) == 1:  # pyright: ignore[reportUnknownArgumentType]
        exc = inner[0]  # pyright: ignore[reportUnknownVariableType]
        inner = getattr(exc, "exceptions", None)
    return f"{type(exc).__name__}: {exc}"


async def _main(spec: dict[str, Any], mode: str) -> dict[str, Any]:
    observations: dict[str, Any] = {}
    for run in spec["runs"]:
        observations[run["id"]] = await _observe(spec, run, mode)
    return {"observations": observations}


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("spec")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--patched", action="store_true")
    args = parser.parse_args(argv)
    if args.patched:
        import mcp_rendering

        mcp_rendering.install()  # pyright: ignore[reportAttributeAccessIssue]
    spec = json.loads(Path(args.spec).read_text(encoding="utf-8"))
    report = anyio.run(_main, spec, args.mode)
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
