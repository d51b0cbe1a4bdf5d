"""How the fidelity audit scales: cost per row at 10k and 100k rows, next to rendering the same document.

Run: `python benchmarks/bench_audit.py [--rows 10000 100000] [--repeat 3]`. Prints, for each size, the best of
`repeat` runs of `render_text` and of `audit_document` on the rendered text (and on the Markdown rendering),
the cost per row, and the audit/render ratio. Linear growth shows as a flat per-row cost across sizes.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from mcp_rendering.audit import audit_document
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.render import render_markdown, render_text


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()

    header = (
        f"{'rows':>8}  {'render µs/row':>13}  {'audit text µs/row':>17}  {'audit md µs/row':>15}  {'audit/render':>12}"
    )
    print(header)
    for rows in options.rows:
        document = statement(rows)
        text = render_text(document)
        markdown = render_markdown(document)
        report = audit_document(text, document)
        assert report.clean, report.format()  # the figures are only meaningful for a full, faithful audit
        render_time = best_of(options.repeat, lambda document=document: render_text(document))
        text_time = best_of(options.repeat, lambda text=text, document=document: audit_document(text, document))
        md_time = best_of(options.repeat, lambda md=markdown, document=document: audit_document(md, document))
        print(
            f"{rows:>8}  {render_time / rows * 1e6:>13.2f}  {text_time / rows * 1e6:>17.2f}  "
            f"{md_time / rows * 1e6:>15.2f}  {text_time / render_time:>12.1f}"
        )


if __name__ == "__main__":
    main()
