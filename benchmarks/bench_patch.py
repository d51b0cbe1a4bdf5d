"""What the SDK patch costs: validating and dumping the SDK's models, patched against unpatched, in one run.

Each round times the same round trip (`model_validate` then `model_dump`) with the patch uninstalled and installed,
in alternating order, as the fastest of a batch of runs (each after a full collection, the heap left at set-up
settled by `harness.settle`); the ratio patched ÷ unpatched of every round gives the median and range printed
(target: at most 1.10). Then the time `install()` takes.

Run: `python benchmarks/bench_patch.py [--rounds 5] [--json FILE]` (a minute); `--quick` runs each once.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import mcp_types
from harness import Result, from_ratios, header, parser, rounds_of, settle, timed, write

import mcp_rendering

BENCHMARK = "patch"
BATCH = 50


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


def _fastest(work: Callable[[], object], batch: int) -> float:
    """The fastest of `batch` runs: the run least disturbed by the rest of the machine (as `timeit` advises)."""
    work()  # warm the validator of this state
    return min(timed(work, "on") for _ in range(batch))


def compare(name: str, model: type[Any], payload: dict[str, Any], count: int, rounds: int, batch: int) -> Result:
    work = _round_trip(model, payload)
    pairs: list[tuple[float, float]] = []
    for number in range(rounds):
        times: dict[bool, float] = {}
        for patched in (False, True) if number % 2 == 0 else (True, False):
            if patched:
                mcp_rendering.install()
            else:
                mcp_rendering.uninstall()
            times[patched] = _fastest(work, batch)
        pairs.append((times[True], times[False]))
    mcp_rendering.uninstall()
    return from_ratios(BENCHMARK, name, count, "patched", "unpatched", pairs, extra={"batch": batch})


def main() -> None:
    args = parser((__doc__ or "").splitlines()[0]).parse_args()
    rounds = rounds_of(args)
    batch = 1 if args.quick else BATCH
    # Thousands of samples of a few milliseconds, each after a full collection: cheap only once the heap is settled.
    settle()
    print(f"validate + dump, patched ÷ unpatched; {rounds} interleaved rounds, fastest of {batch} runs each")
    print(header())
    results = [
        compare("ListToolsResult, hints", mcp_types.ListToolsResult, _tools_payload(500), 500, rounds, batch),
        compare(
            "ListToolsResult, no hints",
            mcp_types.ListToolsResult,
            _tools_payload(500, hints=False),
            500,
            rounds,
            batch,
        ),
        compare("CallToolResult, structured", mcp_types.CallToolResult, _result_payload(10_000), 10_000, rounds, batch),
    ]
    for result in results:
        print(result.line())
    installs: list[float] = []
    for _ in range(1 if args.quick else 10):
        mcp_rendering.uninstall()
        begin = time.perf_counter()
        mcp_rendering.install()
        installs.append(time.perf_counter() - begin)
    mcp_rendering.uninstall()
    print(f"install(): median {statistics.median(installs) * 1e3:.1f} ms over {len(installs)} installs")
    write(args.json, BENCHMARK, results, quick=args.quick, install_seconds=statistics.median(installs))


if __name__ == "__main__":
    main()
