"""What the fidelity audit costs, next to the least any reader of the result pays: `json.loads`.

For each size, the ledger's verbatim result is presented with `present()` (untimed), and `audit(text, result)` of
the text shown is timed against `json.loads` of the result's JSON text, in interleaved rounds with the collector in
the same state on both sides (`--gc on` is what a caller of the library sees; `--gc off` shows what the collector
adds). A flat cost per row across sizes shows linear growth. Each size runs in a fresh process, which also reports
the audit's peak memory beyond its inputs (measured on its first call), as a multiple of the result's JSON size.

Run: `python benchmarks/bench_audit.py [--rows 10000 100000 1000000] [--rounds 5] [--gc on off] [--json FILE]`
(a few minutes; the 1,000,000-row step holds a few GB). `--quick` runs each comparison once.
"""

from __future__ import annotations

import contextlib
import gc
import json
import resource
from collections.abc import Iterator

from harness import (
    GcState,
    Result,
    header,
    in_child,
    parser,
    print_for_parent,
    ratio_of,
    result_from,
    rounds_of,
    write,
)
from workload import SERVER, result_json, tool_wire

from mcp_rendering.audit import audit
from mcp_rendering.host import present

BENCHMARK = "audit"


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


@contextlib.contextmanager
def _recording_collector_switches() -> Iterator[list[bool]]:
    """Record whether the code run inside switches the process-wide collector off (`gc.disable`)."""
    calls: list[bool] = []
    original = gc.disable

    def disable() -> None:
        calls.append(True)
        original()

    gc.disable = disable
    try:
        yield calls
    finally:
        gc.disable = original


def measure(rows: int, rounds: int, states: list[GcState]) -> list[Result]:
    """The audit at one size, in this process: its peak memory first (a fresh heap), then the timings."""
    encoded = result_json(rows)
    result = json.loads(encoded)
    shown = present(tool_wire(), result, server=SERVER).text
    before = _peak_bytes()
    with _recording_collector_switches() as switched_off:
        report = audit(shown, result)
    peak_growth = max(0, _peak_bytes() - before)
    assert report.clean, report.format()  # the figures only mean something for a full, faithful audit
    size = len(encoded.encode("utf-8"))
    extra = {
        "bytes": size,
        "peak_growth_bytes": peak_growth,
        "peak_growth_per_json_byte": peak_growth / size,
        # When the audit switches the collector off itself, "on" is not like with like: only "off" is.
        "audit_switches_collector_off": bool(switched_off),
    }
    small = json.loads(result_json(1_000))
    small_shown = present(tool_wire(), small, server=SERVER).text
    return [
        ratio_of(
            BENCHMARK,
            "audit",
            rows,
            ("audit", lambda: audit(shown, result)),
            ("json.loads", lambda: json.loads(encoded)),
            rounds=rounds,
            state=state,
            extra=extra,
            warmup=lambda: audit(small_shown, small),
        )
        for state in states
    ]


def main() -> None:
    options = parser((__doc__ or "").splitlines()[0])
    options.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    options.add_argument("--gc", choices=["on", "off"], nargs="+", default=["on", "off"])
    options.add_argument("--child", type=int, help="measure one size in this process")
    args = options.parse_args()
    rounds = rounds_of(args)
    if args.child is not None:
        print_for_parent(measure(args.child, rounds, args.gc))
        return
    sizes = [1_000] if args.quick else args.rows
    print(f"audit() against json.loads of the same result; {rounds} interleaved rounds per ratio")
    print(header())
    results: list[Result] = []
    for rows in sizes:
        arguments = ["--child", str(rows), "--rounds", str(rounds), "--gc", *args.gc]
        for data in in_child(__file__, [*arguments, *(["--quick"] if args.quick else [])]):
            result = result_from(data)
            results.append(result)
            print(f"{result.line()}  peak +{result.extra['peak_growth_per_json_byte']:.2f}x JSON", flush=True)
        write(args.json, BENCHMARK, results, quick=args.quick)  # after every size: a long run keeps what it has


if __name__ == "__main__":
    main()
