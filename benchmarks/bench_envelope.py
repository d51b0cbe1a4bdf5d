"""What the bounded envelope costs, next to serializing the same pages with `json.dumps`, in one run.

At 10,000, 100,000 and 1,000,000 records of about 200 bytes, the whole walk over 1 MB pages (`Envelope.page` for
every page, with a tool-supplied data version) is timed against `json.dumps` of each of those pages' wire forms
(built beforehand), in interleaved rounds with the collector in the same state on both sides (target: at most 2x
at 100,000; a flat cost per record shows linear growth). Then, at 100,000 records, the walk with the default
content fingerprint against the walk with a data version: what a tool saves by passing its own.

Run: `python benchmarks/bench_envelope.py [--records 10000 100000 1000000] [--rounds 5] [--json FILE]` (a few
minutes; the 1,000,000-record step holds about 2 GB). `--quick` runs each comparison once, at 10,000 records.
"""

from __future__ import annotations

import json
from typing import Any

from harness import Result, header, parser, ratio_of, rounds_of, write

from mcp_rendering.document import Document, Row, Section
from mcp_rendering.envelope import Budget, Envelope, Page, RecordUris
from mcp_rendering.tokens import ContinuationTokens, Keyring

BENCHMARK = "envelope"
PAGE_BYTES = 1_000_000
URIS = RecordUris("ledger://statements/{statement}/rows/{row_id}")
COLUMNS = ("amount", "rate", "currency", "memo", "approved")


def make_document(records: int) -> Document:
    """`records` rows of about 200 bytes of JSON each, split over a few sections, with canonical URIs."""
    per_section = max(1, records // 4)
    sections: list[Section] = []
    for s in range(0, records, per_section):
        rows = tuple(
            Row.model_construct(
                id=f"r{n}",
                label=f"Supplier invoice {n}",
                values=(n * 7, n / 3, "EUR", f"memo {n:08d}", n % 2 == 0),
                kind="item",
                level=0,
                uri=URIS.record_uri(f"r{n}", statement="2026-q1"),
            )
            for n in range(s, min(records, s + per_section))
        )
        sections.append(Section.model_construct(id=f"s{s}", title=f"Batch {s}", columns=COLUMNS, rows=rows))
    return Document.model_construct(title="Statement 2026-q1", sections=tuple(sections))


def make_envelope() -> Envelope:
    tokens = ContinuationTokens(Keyring.single(b"benchmark-secret-key-0123456789"))
    return Envelope(tool="statement", tokens=tokens, budget=Budget(max_bytes=PAGE_BYTES))


def walk(envelope: Envelope, document: Document, fingerprint: str | None) -> list[Page]:
    pages: list[Page] = []
    arguments: dict[str, Any] = {"statement": "2026-q1"}
    while True:
        page = envelope.page(document, arguments=arguments, caller="alice", fingerprint=fingerprint)
        pages.append(page)
        if page.complete:
            return pages
        arguments = {"statement": "2026-q1", "cursor": page.next_token}


def walk_against_dumps(envelope: Envelope, records: int, rounds: int) -> Result:
    document = make_document(records)
    wires = [page.to_wire() for page in walk(envelope, document, "data-version-1")]
    return ratio_of(
        BENCHMARK,
        "walk, 1 MB pages",
        records,
        ("walk", lambda: walk(envelope, document, "data-version-1")),
        ("json.dumps of the pages", lambda: [json.dumps(wire) for wire in wires]),
        rounds=rounds,
        extra={"pages": len(wires)},
    )


def main() -> None:
    options = parser((__doc__ or "").splitlines()[0])
    options.add_argument("--records", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = options.parse_args()
    rounds = rounds_of(args)
    sizes = [10_000] if args.quick else args.records
    envelope = make_envelope()
    print(f"the envelope's walk ÷ json.dumps of the same pages; {rounds} interleaved rounds per ratio")
    print(header("records"))
    results: list[Result] = []
    for records in sizes:
        results.append(walk_against_dumps(envelope, records, rounds))
        print(results[-1].line(), flush=True)
    fingerprint_records = min(100_000, max(sizes))
    document = make_document(fingerprint_records)
    results.append(
        ratio_of(
            BENCHMARK,
            "walk, default fingerprint",
            fingerprint_records,
            ("default fingerprint", lambda: walk(envelope, document, None)),
            ("data version", lambda: walk(envelope, document, "data-version-1")),
            rounds=rounds,
        )
    )
    print(results[-1].line(), flush=True)
    write(args.json, BENCHMARK, results, quick=args.quick)


if __name__ == "__main__":
    main()
