"""What a host pays to present a verbatim result, next to the least it pays to read it at all: `json.loads`.

For each size, the ledger's verbatim result arrives as JSON text. The baseline parses it (`json.loads`); each subject
parses it too and then presents it with `present(tool, result, server=...)`, reading what a host reads:

- "present: text + model copy": the plain-text view shown to the user and the copy forwarded to the model
  (`.text`, `.model_result`), what every host needs;
- "present: every view": the Markdown view (`.markdown`) as well (up to 100,000 rows).

Target: the first at most 5x `json.loads` at 100,000 rows, and a flat cost per row from 1,000 to 1,000,000 rows
(linear growth). Each size is measured in a fresh process; both sides of each ratio run with the collector in the
same state (`--gc`).

Run: `python benchmarks/bench_present.py [--rows 1000 10000 100000 1000000] [--rounds 5] [--gc on off]
[--json FILE]` (about 4 minutes of one core, most of it the 1,000,000-row step, which holds a few GB).
`--quick` runs each comparison once.
"""

from __future__ import annotations

import json
from collections.abc import Callable

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

from mcp_rendering.host import present

BENCHMARK = "present"
EVERY_VIEW_ROWS = 100_000


def _host(encoded: str, *, markdown: bool) -> Callable[[], object]:
    tool = tool_wire()

    def run() -> object:
        presentation = present(tool, json.loads(encoded), server=SERVER)
        views: list[object] = [presentation.text, presentation.model_result]
        if markdown:
            views.append(presentation.markdown)
        return views

    return run


def measure(rows: int, rounds: int, state: GcState) -> list[Result]:
    """Every comparison at one size, in this process (the Markdown view up to `EVERY_VIEW_ROWS` rows)."""
    encoded = result_json(rows)
    presentation = present(tool_wire(), json.loads(encoded), server=SERVER)
    # The figures only mean something for a whole verbatim presentation, every record shown.
    assert presentation.mode == "verbatim" and presentation.complete, presentation.notice
    extra = {"bytes": len(encoded.encode("utf-8"))}
    baseline = ("json.loads", lambda: json.loads(encoded))
    small = result_json(1_000)
    variants = [("present: text + model copy", False)]
    if rows <= EVERY_VIEW_ROWS:
        variants.append(("present: every view", True))
    return [
        ratio_of(
            BENCHMARK,
            name,
            rows,
            (name, _host(encoded, markdown=markdown)),
            baseline,
            rounds=rounds,
            state=state,
            extra=extra,
            warmup=lambda: (_host(small, markdown=True)(), json.loads(small)),
        )
        for name, markdown in variants
    ]


def main() -> None:
    options = parser((__doc__ or "").splitlines()[0])
    options.add_argument("--rows", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    options.add_argument("--gc", choices=["on", "off"], nargs="+", default=["on"])
    options.add_argument("--child", type=int, help="measure one size in this process")
    args = options.parse_args()
    rounds = rounds_of(args)
    if args.child is not None:
        results = [r for state in args.gc for r in measure(args.child, rounds, state)]
        print_for_parent(results)
        return
    sizes = [1_000] if args.quick else args.rows
    print(f"present() against json.loads of the same result; {rounds} interleaved rounds per ratio")
    print(header())
    results: list[Result] = []
    for rows in sizes:
        child = in_child(
            __file__,
            ["--child", str(rows), "--rounds", str(rounds), "--gc", *args.gc] + (["--quick"] if args.quick else []),
        )
        for data in child:
            result = result_from(data)
            results.append(result)
            print(result.line(), flush=True)
        write(args.json, BENCHMARK, results, quick=args.quick)  # after every size: a long run keeps what it has


if __name__ == "__main__":
    main()
