"""What the patch costs: validate+dump, patched vs unpatched, measured side by side in one run.

Prints ratios (patched / unpatched; the target is <= 1.10) and the time `install()` takes. Run:
    .venv/bin/python benchmarks/bench_patch.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import mcp_types

import mcp_rendering

ROUNDS = 200


def _tools_payload(count: int, *, hints: bool = True) -> dict[str, Any]:
    tools: list[dict[str, Any]] = []
    for i in range(count):
        tool: dict[str, Any] = {
            "name": f"tool_{i}",
            "description": f"Tool number {i} returns a ledger extract.",
            "inputSchema": {"type": "object", "properties": {"year": {"type": "integer"}}},
            "annotations": {"readOnlyHint": True},
        }
        if hints:
            tool["annotations"]["verbatimHint"] = i % 2 == 0
            tool["_meta"] = {mcp_rendering.EXTENSION_ID: {"verbatimHint": i % 2 == 0}}
        tools.append(tool)
    return {"tools": tools, "resultType": "complete"}


def _result_payload(rows: int) -> dict[str, Any]:
    structured = {
        "rows": [{"account": f"{600000 + i}", "label": f"Account {i}", "amount": i * 1.5} for i in range(rows)]
    }
    return {
        "content": [{"type": "text", "text": "see structured content"}],
        "structuredContent": structured,
        "_rendering": {"mode": "verbatim", "guidance": "Show every row."},
        "resultType": "complete",
    }


def _round_trip(model: type[Any], payload: dict[str, Any]) -> Callable[[], object]:
    def run() -> object:
        return model.model_validate(payload, by_name=False).model_dump(by_alias=True, mode="json", exclude_none=True)

    return run


def _best_seconds(work: Callable[[], object]) -> float:
    """The fastest of ROUNDS runs: the run least disturbed by the rest of the machine (as `timeit` advises)."""
    work()  # warm the validator
    samples: list[float] = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        work()
        samples.append(time.perf_counter() - start)
    return min(samples)


def _compare(label: str, model: type[Any], payload: dict[str, Any]) -> None:
    mcp_rendering.uninstall()
    # Interleave the two states so that drift in machine load hits both alike.
    unpatched: list[float] = []
    patched: list[float] = []
    for _ in range(3):
        mcp_rendering.uninstall()
        unpatched.append(_best_seconds(_round_trip(model, payload)))
        mcp_rendering.install()
        patched.append(_best_seconds(_round_trip(model, payload)))
    mcp_rendering.uninstall()
    base, with_patch = min(unpatched), min(patched)
    ratio = with_patch / base
    print(f"{label:<50} unpatched {base * 1e3:8.2f} ms  patched {with_patch * 1e3:8.2f} ms  ratio {ratio:5.2f}")


def main() -> None:
    print(f"validate+dump, fastest of {ROUNDS} rounds, states interleaved 3 times (target ratio <= 1.10)")
    _compare("ListToolsResult, 500 tools with hints", mcp_types.ListToolsResult, _tools_payload(500))
    _compare("ListToolsResult, 500 tools without them", mcp_types.ListToolsResult, _tools_payload(500, hints=False))
    _compare("CallToolResult, structuredContent 10,000 rows", mcp_types.CallToolResult, _result_payload(10_000))
    timings: list[float] = []
    for _ in range(10):
        mcp_rendering.uninstall()
        start = time.perf_counter()
        mcp_rendering.install()
        timings.append(time.perf_counter() - start)
    mcp_rendering.uninstall()
    print(f"install(): median {statistics.median(timings) * 1e3:.1f} ms over 10 installs")


if __name__ == "__main__":
    main()
