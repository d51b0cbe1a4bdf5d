"""Paging across modules: the envelope cuts a result into parts, and the parts, read back through record and field
URIs where the envelope linked them, give back every record exactly once, in order."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.document import Document, Row, Section
from mcp_rendering.envelope import Budget, Envelope, Page, RecordUris, read_record
from mcp_rendering.tokens import ContinuationTokens, Keyring

URIS = RecordUris("ledger://statements/{company}/rows/{row_id}")


def _tokens() -> ContinuationTokens:
    return ContinuationTokens(Keyring.single(b"paging-properties-secret"), ttl_seconds=60, clock=lambda: 1_000_000.0)


@st.composite
def _documents(draw: st.DrawFn, large_cells: bool = False) -> Document:
    sections: list[Section] = []
    counter = itertools.count()
    for section_index in range(draw(st.integers(1, 4))):
        width = draw(st.integers(0, 3))
        cell = st.one_of(st.none(), st.integers(-(10**9), 10**9), st.text(max_size=40))
        if large_cells:  # now and then a cell larger than small budgets: a field link or a linked record
            cell = cell | st.text(alphabet="xyz", min_size=200, max_size=1500)
        rows = tuple(
            Row(
                id=f"r{next(counter)}",
                label=draw(st.text(min_size=1, max_size=30)),
                values=tuple(draw(cell) for _ in range(width)),
                kind=draw(st.sampled_from(["item", "item", "subtotal", "total"])),
            )
            for _ in range(draw(st.integers(0, 8)))
        )
        columns = tuple(f"c{index}" for index in range(width))
        sections.append(Section(id=f"s{section_index}", title=f"Section {section_index}", columns=columns, rows=rows))
    return URIS.assign(Document(title="Generated", sections=tuple(sections)), company="gen")


def _all_pages(document: Document, budget: Budget) -> list[Page]:
    envelope = Envelope(tool="statement", tokens=_tokens(), budget=budget, argument="cursor")
    arguments: dict[str, Any] = {"company": "gen"}
    pages = [envelope.page(document, arguments=arguments, caller="c")]
    while not pages[-1].complete:
        token = pages[-1].next_token
        assert token is not None
        pages.append(envelope.page(document, arguments={**arguments, "cursor": token}, caller="c"))
    return pages


@given(_documents(), st.integers(2_000, 6_000), st.integers(1, 5))
def test_budget_at_record_boundary(document: Document, max_bytes: int, max_items: int) -> None:
    """Every part fits its budget and holds whole, unaltered records, URIs included."""
    originals = {row.id: row for section in document.sections for row in section.rows}
    for page in _all_pages(document, Budget(max_bytes=max_bytes, max_items=max_items)):
        assert page.size_bytes <= max_bytes
        for section in page.document.sections:
            for row in section.rows:
                assert row == originals[row.id]  # whole, unaltered record, URI included
        linked = {link.row_id for link in page.linked_records}
        assert linked <= set(originals)


def _records_read_back(page: Page, document: Document) -> list[tuple[str, Row]]:
    """The page's records in order, with linked fields and linked records read back through `read_record`."""

    def load(params: Mapping[str, str], caller: str) -> Document | None:
        return document if params == {"company": "gen"} and caller == "c" else None

    records: list[tuple[str, Row]] = []
    for section in page.document.sections:
        for row in section.rows:
            values = list(row.values)
            for link in (link for link in page.linked_fields if link.row_id == row.id):
                body = read_record(link.uri, uris=URIS, load=load, caller="c")
                values[link.column] = body.text if body.mime_type == "text/plain" else json.loads(body.text)
            records.append((section.id, row.model_copy(update={"values": tuple(values)})))
    for link in page.linked_records:
        body = json.loads(read_record(link.uri, uris=URIS, load=load, caller="c").text)
        records.append((link.section_id, Row.model_validate(body["row"])))
    return records


@given(
    _documents(large_cells=True),
    st.builds(
        Budget,
        # Small budgets make large records linked records; max_field_bytes makes large cells field links.
        max_bytes=st.sampled_from([1_000_000]) | st.integers(900, 3_000),
        max_items=st.none() | st.integers(1, 5),
        max_field_bytes=st.none() | st.integers(40, 300),
    ),
)
def test_pages_partition_records(document: Document, budget: Budget) -> None:
    """The parts, records and fields sent as links read back through `read_record`, hold every record exactly once,
    in order."""
    seen: list[tuple[str, Row]] = []
    for page in _all_pages(document, budget):
        seen.extend(_records_read_back(page, document))
    assert seen == [(section.id, row) for section in document.sections for row in section.rows]
