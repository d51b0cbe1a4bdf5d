"""What the fidelity audit costs, next to parsing the result it audits, measured side by side in one run.

For each size, a verbatim result of a general ledger (`verbatim_result`, sections of 1,000 rows with subtotals,
nulls and indent levels) is presented by `present()`, and `audit(presentation.text, result)` is timed against
`json.loads` of the result's JSON, the least any consumer of the result pays (target: at most 5x at 100,000 rows;
goal 3x). A flat cost per row across sizes shows linear growth. Each size runs in a child process, which also
reports the audit's peak memory beyond its inputs, as a multiple of the result's JSON size.

Run: `python benchmarks/bench_audit.py [--rows 10000 100000 1000000] [--repeat 3]` (about a minute; the
1,000,000-row step holds a few GB). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable

from mcp_rendering.audit import audit
from mcp_rendering.builder import verbatim_result
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.types import Rendering


def statement(rows: int) -> Document:
    """A ledger of `rows` rows in sections of 1000, with subtotals, nulls, nesting and repeated labels."""
    sections: list[Section] = []
    per_section = 1000
    for start in range(0, rows, per_section):
        body: list[Row] = []
        for number in range(start, min(start + per_section, rows)):
            kind = "subtotal" if number % 50 == 49 else "item"
            body.append(
                Row(
                    id=f"r{number}",
                    label=f"Account {number % 700} {'Other' if number % 3 else 'Receivables'}",
                    values=(number * 3, round(number * 1.25, 2), None if number % 7 == 0 else f"EUR {number % 11}"),
                    kind=kind,
                    level=number % 3,
                )
            )
        sections.append(
            Section(id=f"s{start}", title=f"Ledger part {start}", columns=("debit", "credit", "note"), rows=tuple(body))
        )
    return Document(title="General ledger", sections=tuple(sections))


def best_of(repeat: int, run: Callable[[], object]) -> float:
    timings: list[float] = []
    for _ in range(repeat):
        begin = time.perf_counter()
        run()
        timings.append(time.perf_counter() - begin)
    return min(timings)


def _peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def measure(rows: int, repeat: int) -> dict[str, float]:
    """One size, in this process: the audit's peak memory (measured first, on a fresh process), then the timings."""
    result = verbatim_result(statement(rows), Rendering(mode="verbatim")).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    encoded = json.dumps(result)
    shown = present(None, result).text
    before = _peak_kib()
    report = audit(shown, result)
    peak_growth = max(0, _peak_kib() - before) * 1024
    assert report.clean, report.format()  # the figures only mean something for a full, faithful audit
    return {
        "parse": best_of(repeat, lambda: json.loads(encoded)),
        "audit": best_of(repeat, lambda: audit(shown, result)),
        "bytes": len(encoded.encode("utf-8")),
        "peak_growth": peak_growth,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child is not None:
        print(json.dumps(measure(options.child, options.repeat)))
        return

    print(f"{'rows':>9}  {'json.loads':>11}  {'audit':>10}  {'audit µs/row':>12}  {'ratio':>6}  {'peak memory':>12}")
    for rows in options.rows:
        child = subprocess.run(
            [sys.executable, __file__, "--child", str(rows), "--repeat", str(options.repeat)],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(child.stdout)
        ratio = figures["audit"] / figures["parse"]
        memory = figures["peak_growth"] / figures["bytes"]
        print(
            f"{rows:>9}  {figures['parse'] * 1e3:>8.1f} ms  {figures['audit'] * 1e3:>7.1f} ms  "
            f"{figures['audit'] / rows * 1e6:>12.2f}  {ratio:>5.2f}x  {memory:>6.2f}x JSON"
        )


if __name__ == "__main__":
    main()
