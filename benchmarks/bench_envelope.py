"""Cost of the bounded envelope, measured side by side with plain JSON serialization in one run.

1. Packing 100,000 records of about 200 bytes into 1 MB pages, against one ``json.dumps`` of the same pages
   (target: at most 2x).
2. The whole walk at 10k, 100k and 1M records: the cost per record should stay flat (linear growth).
3. For reference, the per-call cost of the default content fingerprint, which a tool avoids by passing its own
   data version.

Run: ``python benchmarks/bench_envelope.py`` (under a minute; the 1M-record step holds about 2 GB in memory).
Not part of the test suite.
"""

from __future__ import annotations

import functools
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from mcp_rendering.document import Document, Row, Section
from mcp_rendering.envelope import Budget, Envelope, Page, RecordUris, content_fingerprint
from mcp_rendering.tokens import ContinuationTokens, Keyring

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


def dump_time(pages: list[Page]) -> float:
    """Time of one ``json.dumps`` per page; each page's wire form is built untimed and dropped after use."""
    total = 0.0
    gc.collect()
    gc.disable()  # a collection falling inside one timed dump would be charged to it
    try:
        for page in pages:
            wire = page.to_wire()
            start = time.perf_counter()
            json.dumps(wire)
            total += time.perf_counter() - start
    finally:
        gc.enable()
    return total


def best_of(runs: int, action: Callable[[], object]) -> float:
    times: list[float] = []
    for _ in range(runs):
        gc.collect()
        gc.disable()  # same conditions as `dump_time`
        try:
            start = time.perf_counter()
            action()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def main() -> None:
    envelope = make_envelope()

    document = make_document(100_000)
    pages = walk(envelope, document, "data-version-1")
    record_bytes = sum(len(json.dumps(row.model_dump(mode="json"))) for row in document.sections[0].rows[:1000]) / 1000
    pack = best_of(3, lambda: walk(envelope, document, "data-version-1"))
    dump = min(dump_time(pages) for _ in range(3))
    print(f"1. 100,000 records (~{record_bytes:.0f} bytes each) -> {len(pages)} pages of <= {PAGE_BYTES:,} bytes")
    print(f"   pack (envelope, every page):      {pack * 1000:8.1f} ms")
    print(f"   json.dumps of the same pages:     {dump * 1000:8.1f} ms")
    print(f"   ratio pack / json.dumps:          {pack / dump:8.2f}x   (target <= 2x)")
    fingerprint = best_of(3, lambda: content_fingerprint(document))
    print(f"   default content fingerprint:      {fingerprint * 1000:8.1f} ms per call (skipped with a data version)")

    print("2. whole walk, 1 MB pages, tool-supplied fingerprint")
    print(f"   {'records':>10} {'pages':>6} {'pack ms':>9} {'dumps ms':>9} {'pack us/rec':>12} {'ratio':>6}")
    for records in (10_000, 100_000, 1_000_000):
        document = make_document(records)
        pages = walk(envelope, document, "data-version-1")
        pack = best_of(3, functools.partial(walk, envelope, document, "data-version-1"))
        dump = min(dump_time(pages) for _ in range(3))
        print(
            f"   {records:>10,} {len(pages):>6} {pack * 1000:>9.1f} {dump * 1000:>9.1f} "
            f"{pack / records * 1e6:>12.3f} {pack / dump:>6.2f}"
        )


if __name__ == "__main__":
    main()
