"""What the fidelity audit costs, next to the least any reader of the result pays: `json.loads`.

Four shapes of result, each at 1,000, 10,000 and 100,000 records, each audited against a faithful transcript:
`ledger`, the general ledger of every benchmark (sections of 500 rows, subtotals, nulls) shown by `present()`;
`one-section`, the same rows in one section of them all, shown by `present()`; `text`, a text result of that many
lines, shown by `present()`; `shared-label`, rows under three labels shown one free-form list item each (the shape
in which a line must be told among many rows of its label). `audit(text, result)` is timed against `json.loads` of
the result's JSON text, in interleaved rounds with the collector in the same state on both sides (`--gc on` is what
a caller of the library sees; `--gc off` shows what the collector adds); below 10,000 records, each side's time in
a round is the median of several runs (`harness.runs_for`). Each shape and size runs in a fresh process, which also
reports the audit's peak memory beyond its inputs (measured on its first call), as a multiple of the result's JSON
size. The audit's inputs (the parsed result and the transcript) stay alive while both sides are timed: with the
collector on, the parse of a large result then pays full collections over them too.

Beside each audit, three floors, timed the same way against `json.loads`, after the audit: `floor: parsers`,
cmark-gfm rendering the transcript with raw HTML kept and Lexbor parsing the HTML, the audit's own first rendering
(it renders a second time, without raw HTML, when the transcript holds a `<`); `floor: records`, the result's
records read as the audit reads them (`records.result_records`: for a document, its validation); `floor: line
lookups`, not a part of the audit but a lower bound for any reading of the transcript line by line in Python: the
transcript split into lines, each looked up once in a dict.

Run: `python benchmarks/bench_audit.py [--rows 1000 10000 100000] [--shape ...] [--rounds 5] [--gc on off]
[--json FILE]` (about 4 minutes on a quiet two-core machine). `--quick` runs each comparison in one round, at 1,000
records.
"""

from __future__ import annotations

import contextlib
import gc
import json
import resource
from collections.abc import Callable, Iterator
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
from workload import SERVER, directive, ledger, result_json, tool_wire

from mcp_rendering import EXTENSION_ID
from mcp_rendering.audit import audit
from mcp_rendering.builder import verbatim_result
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present, tool_result_wire
from mcp_rendering.records import result_records
from mcp_rendering.transcript import _RENDER_OPTIONS, _render  # pyright: ignore[reportPrivateUsage]

BENCHMARK = "audit"
SHAPES = ("ledger", "one-section", "text", "shared-label")


def _document_json(document: Document) -> str:
    result = verbatim_result(document, directive())
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True))


def _one_section(rows: int) -> str:
    every = [row for section in ledger(rows).sections for row in section.rows]
    columns = ("debit", "credit", "ccy", "ok")
    return _document_json(
        Document(title="General ledger", sections=(Section(id="s", title="All", columns=columns, rows=tuple(every)),))
    )


def _text(rows: int) -> str:
    text = "\n".join(f"{n:06d} posted to account {n % 97}: {n * 3} EUR" for n in range(rows))
    meta = {EXTENSION_ID: {"mode": "verbatim", "complete": True}}
    return json.dumps({"content": [{"type": "text", "text": text}], "_meta": meta})


def _shared_label_rows(rows: int) -> list[tuple[str, int]]:
    return [(f"Fee {n % 3}", n * 3) for n in range(rows)]


def _shared_label(rows: int) -> str:
    body = tuple(
        Row(id=f"r{n}", label=label, values=(value, "EUR")) for n, (label, value) in enumerate(_shared_label_rows(rows))
    )
    return _document_json(
        Document(title="Fees", sections=(Section(id="f", title="Fees", columns=("amount", "ccy"), rows=body),))
    )


def workload(shape: str, rows: int) -> tuple[str, Any, str]:
    """The result's JSON text, the result as a host holds it, and the faithful transcript of it."""
    encoded = {"ledger": result_json, "one-section": _one_section, "text": _text, "shared-label": _shared_label}[shape](
        rows
    )
    result = json.loads(encoded)
    if shape == "shared-label":
        lines = (f"- {label}: {value}, EUR" for label, value in _shared_label_rows(rows))
        return encoded, result, "## Fees\n\n" + "\n".join(lines)
    return encoded, result, present(tool_wire(), result, server=SERVER).text


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


def measure(shape: str, rows: int, rounds: int, states: list[GcState], *, quick: bool) -> list[Result]:
    """The audit of one shape at one size, in this process: its peak memory first (a fresh heap), then the
    timings."""
    encoded, result, shown = workload(shape, rows)
    before = _peak_bytes()
    with _recording_collector_switches() as switched_off:
        report = audit(shown, result)
    peak_growth = max(0, _peak_bytes() - before)
    assert report.clean, report.format()  # the figures only mean something for a full, faithful audit
    size = len(encoded.encode("utf-8"))
    peak = {
        "peak_growth_bytes": peak_growth,
        "peak_growth_per_json_byte": peak_growth / size,
        # When the audit switches the collector off itself, "on" is not like with like: only "off" is.
        "audit_switches_collector_off": bool(switched_off),
    }
    _, small, small_shown = workload(shape, 1_000)
    runs = runs_for(rows, quick=quick)

    def compare(name: str, subject: str, work: Callable[[], object], state: GcState, **more: Any) -> Result:
        return ratio_of(
            BENCHMARK,
            name if shape == "ledger" else f"{name}, {shape}",
            rows,
            (subject, work),
            ("json.loads", lambda: json.loads(encoded)),
            rounds=rounds,
            state=state,
            extra={"bytes": size, "shape": shape, "part": subject, "runs_per_round": runs, **more},
            warmup=lambda: audit(small_shown, small),
            runs=runs,
        )

    results = [compare("audit", "audit", lambda: audit(shown, result), state, **peak) for state in states]
    # Built after the audit is timed, so that nothing but the audit's inputs is alive while it is.
    line_index = dict.fromkeys(shown.split("\n"), 0)
    floors: dict[str, Callable[[], object]] = {
        # The package's own rendering step, not a copy of it: the floor cannot drift from what the audit does.
        "floor: parsers": lambda: _render(shown, _RENDER_OPTIONS),
        "floor: records": lambda: result_records(tool_result_wire(result)),
        "floor: line lookups": lambda: list(map(line_index.get, shown.split("\n"))),
    }
    results += [compare(name, name, work, state) for state in states for name, work in floors.items()]
    return results


def main() -> None:
    options = parser((__doc__ or "").splitlines()[0])
    options.add_argument("--rows", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    options.add_argument("--shape", choices=SHAPES, nargs="+", default=list(SHAPES))
    options.add_argument("--gc", choices=["on", "off"], nargs="+", default=["on", "off"])
    options.add_argument("--child", type=int, help="measure one size (of the first shape) in this process")
    args = options.parse_args()
    rounds = rounds_of(args)
    if args.child is not None:
        print_for_parent(measure(args.shape[0], args.child, rounds, args.gc, quick=args.quick))
        return
    sizes = [1_000] if args.quick else args.rows
    print(f"audit() against json.loads of the same result; {rounds} interleaved rounds per ratio")
    print(header())
    results: list[Result] = []
    for shape in args.shape:
        for rows in sizes:
            arguments = ["--child", str(rows), "--shape", shape, "--rounds", str(rounds), "--gc", *args.gc]
            for data in in_child(__file__, [*arguments, *(["--quick"] if args.quick else [])]):
                result = result_from(data)
                results.append(result)
                growth = result.extra.get("peak_growth_per_json_byte")  # the audit's alone, not its floors'
                print(result.line() + ("" if growth is None else f"  peak +{growth:.2f}x JSON"), flush=True)
            write(args.json, BENCHMARK, results, quick=args.quick)  # after every size: a long run keeps what it has


if __name__ == "__main__":
    main()
