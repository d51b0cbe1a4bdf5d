"""What a host pays to present a verbatim result, next to the least it pays to read it at all: `json.loads`.

For each size, the ledger's verbatim result arrives as JSON text. The baseline parses it (`json.loads`); each subject
parses it too and then presents it with `present(tool, result, server=...)`, reading what a host reads:

- "present: text + model copy": the plain-text view shown to the user and the copy forwarded to the model
  (`.text`, `.model_result`), what every host needs;
- "present: every view": the Markdown view (`.markdown`) as well (up to 100,000 rows).

Beside them, up to 100,000 rows, what the design of `present()` cannot go below, in three cumulative stages, each
run from the JSON text like `present()`, with the package's own functions, and timed against the same `json.loads`:
`stages: parse + records` (the result's records read, the document validated), `... + text view` (the plain-text
view rendered from them) and `... + model copy` (the one compact dump of the model's copy, which the defusal scans
and `max_bytes` is read from, and that scan).

Target, with the collector in the same state on both sides, on and off: the first at most 6x `json.loads` at 100,000
rows, and linear growth from 1,000 to 1,000,000 rows: over the sizes measured, its cost per row spreads (largest ÷
smallest) no more than that of `json.loads` does. (No cost per row is constant over three decades on a real machine:
`json.loads`'s own spreads by a half or more. From 100,000 rows on, each run maps fresh memory, and the kernel's time
for each page first touched grows with what a side allocates: `present()`'s spread follows the memory it allocates
beyond the parse.) Each size is measured in a fresh process; both sides of each ratio run with the collector in the
same state (`--gc`, both states by default); below 10,000 rows each side's time in a round is the median of several runs
(`harness.runs_for`). Between runs only the JSON text stays alive: an earlier presentation kept alive had made the
pages each run maps cost more (collector off, 1,000,000 rows: 10.9 µs a row with it alive, 6.9 without) and, with
the collector on, had spared the parse full collections (CPython runs one only when the objects that survived the
last reach a quarter of those alive).

Run: `python benchmarks/bench_present.py [--rows 1000 10000 100000 1000000] [--rounds 5] [--gc on off]
[--json FILE]` (about 5 minutes of one core, most of it the 1,000,000-row step, which holds a few GB).
`--quick` runs each comparison in one round.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

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
    runs_for,
    write,
)
from workload import SERVER, result_json, tool_wire

from mcp_rendering.document import Document
from mcp_rendering.host import _uncut_payload, present  # pyright: ignore[reportPrivateUsage]
from mcp_rendering.reading import resolve_rendering
from mcp_rendering.records import ResultRecords, result_records
from mcp_rendering.render import render_text

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


def measure(rows: int, rounds: int, state: GcState, *, quick: bool) -> list[Result]:
    """Every comparison at one size, in this process (the Markdown view up to `EVERY_VIEW_ROWS` rows)."""
    encoded = result_json(rows)
    _check_whole(encoded)
    runs = runs_for(rows, quick=quick)
    extra = {"bytes": len(encoded.encode("utf-8")), "runs_per_round": runs}
    small = result_json(1_000)

    def compare(name: str, work: Callable[[], object]) -> Result:
        return ratio_of(
            BENCHMARK,
            name,
            rows,
            (name, work),
            ("json.loads", lambda: json.loads(encoded)),
            rounds=rounds,
            state=state,
            extra=extra,
            warmup=lambda: (_host(small, markdown=True)(), json.loads(small)),
            runs=runs,
        )

    # Nothing from an earlier run is kept alive while `present()` is timed (see the module docstring).
    results = [compare("present: text + model copy", _host(encoded, markdown=False))]
    if rows <= EVERY_VIEW_ROWS:
        results.append(compare("present: every view", _host(encoded, markdown=True)))
        results.extend(compare(name, work) for name, work in _stages(encoded))
    return results


def _check_whole(encoded: str) -> None:
    """The figures only mean something for a whole verbatim presentation, every record shown."""
    presentation = present(tool_wire(), json.loads(encoded), server=SERVER)
    assert presentation.mode == "verbatim" and presentation.complete, presentation.notice


STAGES = ("stages: parse + records", "stages: ... + text view", "stages: ... + model copy")


def _stages(encoded: str) -> list[tuple[str, Callable[[], object]]]:
    """The stages every presentation of the result goes through, cumulative, each run from the JSON text (nothing
    of one run kept alive for the next, as for `present()` itself), each the package's own step rather than a copy
    of it, so that a stage cannot drift from what `present()` does."""

    def records() -> tuple[dict[str, Any], ResultRecords, Document]:
        wire = json.loads(encoded)
        read = result_records(wire)
        assert read.document is not None
        return wire, read, read.document

    def text_view() -> tuple[dict[str, Any], ResultRecords, str]:
        wire, read, document = records()
        return wire, read, render_text(document, null_display=resolve_rendering(None, wire).null_display)

    def model_copy() -> object:
        wire, read, text = text_view()
        # The model's copy: the structured copy dumped and scanned once, the records' text the view already rendered.
        return _uncut_payload(wire, None, read, lambda: text)

    return list(zip(STAGES, (records, text_view, model_copy), strict=True))


def main() -> None:
    options = parser((__doc__ or "").splitlines()[0])
    options.add_argument("--rows", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    options.add_argument("--gc", choices=["on", "off"], nargs="+", default=["on", "off"])
    options.add_argument("--child", type=int, help="measure one size in this process")
    args = options.parse_args()
    rounds = rounds_of(args)
    if args.child is not None:
        results = [r for state in args.gc for r in measure(args.child, rounds, state, quick=args.quick)]
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
