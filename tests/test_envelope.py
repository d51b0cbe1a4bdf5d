"""The bounded envelope: pages fit the budget, cut only at record boundaries, and walk the whole result exactly."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import to_json

from mcp_rendering.document import Cell, Document, Row, Section
from mcp_rendering.envelope import (
    Budget,
    BudgetError,
    Envelope,
    Page,
    RecordNotFoundError,
    RecordUris,
    ResultChangedError,
    _Packer,  # pyright: ignore[reportPrivateUsage]
    _Units,  # pyright: ignore[reportPrivateUsage]
    content_fingerprint,
    read_record,
)
from mcp_rendering.tokens import (
    ContinuationTokens,
    ExpiredTokenError,
    Keyring,
    MalformedTokenError,
    TamperedTokenError,
    TokenError,
    UnknownKeyError,
    WrongArgumentsError,
    WrongCallerError,
    WrongToolError,
)
from tests.support.spy import calls_of

URIS = RecordUris("ledger://statements/{statement}/rows/{row_id}")
ARGS: dict[str, Any] = {"statement": "2026-q1"}
NOW = 1_800_000_000.0

short_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=10)
cells: st.SearchStrategy[Cell] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=120),
    # Now and then a body larger than most budgets: it must become a field link or a linked record.
    st.text(alphabet="xyz", min_size=1500, max_size=4000),
)


@st.composite
def documents(draw: st.DrawFn) -> Document:
    sections: list[Section] = []
    for s in range(draw(st.integers(min_value=0, max_value=4))):
        columns = tuple(draw(st.lists(short_text, max_size=3)))
        rows = tuple(
            Row(
                # Ids carry characters that need percent-encoding in a URI, and stay unique by their prefix.
                id=f"{s}.{r}/{draw(short_text)}",
                label=draw(short_text),
                values=tuple(draw(cells) for _ in columns),
                kind=draw(st.sampled_from(["item", "item", "subtotal", "total"])),
                level=draw(st.integers(min_value=0, max_value=3)),
            )
            for r in range(draw(st.integers(min_value=0, max_value=12)))
        )
        sections.append(Section(id=f"s{s}", title=draw(short_text), columns=columns, rows=rows))
    return URIS.assign(Document(title=draw(short_text), sections=tuple(sections)), statement="2026-q1")


budgets = st.builds(
    Budget,
    max_bytes=st.integers(min_value=1200, max_value=6000),
    max_items=st.none() | st.integers(min_value=1, max_value=8),
    max_field_bytes=st.none() | st.integers(min_value=40, max_value=200),
)


def make_envelope(
    budget: Budget, *, now: float = NOW, keyring: Keyring | None = None, tool: str = "statement"
) -> Envelope:
    tokens = ContinuationTokens(keyring or Keyring.single(b"envelope-test-key-0123456789"), clock=lambda: now)
    return Envelope(tool=tool, tokens=tokens, budget=budget, argument="cursor")


def walk(envelope: Envelope, document: Document, *, caller: str = "alice") -> list[Page]:
    pages: list[Page] = []
    arguments: dict[str, Any] = dict(ARGS)
    units = sum(len(section.rows) or 1 for section in document.sections)
    for _ in range(units + 1):
        page = envelope.page(document, arguments=arguments, caller=caller)
        pages.append(page)
        if page.complete:
            return pages
        assert page.next_token is not None
        arguments = {**ARGS, "cursor": page.next_token}
    raise AssertionError("the walk did not end: a page made no progress")


def loader(document: Document, owner: str = "alice") -> Any:
    def load(params: Mapping[str, str], caller: str) -> Document | None:
        return document if caller == owner and params == {"statement": "2026-q1"} else None

    return load


def rows_of(document: Document) -> list[tuple[str, Row]]:
    return [(section.id, row) for section in document.sections for row in section.rows]


def restored_rows(page: Page, original: Document) -> list[tuple[str, Row]]:
    """The page's records in order, with linked records and linked fields read back through the resolver."""
    load = loader(original)
    result: list[tuple[str, Row]] = []
    for section_id, row in rows_of(page.document):
        values = list(row.values)
        for link in page.linked_fields:
            if link.row_id == row.id:
                assert values[link.column] == link.uri
                body = read_record(link.uri, uris=URIS, load=load, caller="alice")
                values[link.column] = body.text if body.mime_type == "text/plain" else json.loads(body.text)
        result.append((section_id, row.model_copy(update={"values": tuple(values)})))
    for link in page.linked_records:
        body = json.loads(read_record(link.uri, uris=URIS, load=load, caller="alice").text)
        result.append((link.section_id, Row.model_validate(body["row"])))
    return result


@given(documents(), budgets)
def test_pages_fit_and_walk_the_whole_result_exactly(document: Document, budget: Budget) -> None:
    envelope = make_envelope(budget)
    pages = walk(envelope, document)
    walked: list[tuple[str, Row]] = []
    section_trail: list[str] = []
    for page in pages:
        wire = page.to_wire()
        encoded = to_json(wire)
        # The size the envelope accounted for is the exact size of what is sent, and it fits.
        assert len(encoded) == page.size_bytes <= budget.max_bytes
        parsed = json.loads(encoded)
        assert Document.model_validate(parsed["document"]) == page.document
        assert parsed["page"]["complete"] is page.complete
        assert ("nextToken" in parsed["page"]) is (not page.complete)
        assert parsed["page"]["returned"] == page.returned
        assert page.returned <= (budget.max_items or page.returned)
        assert page.linked_records == () or (page.returned == 1 and not rows_of(page.document))
        for section in page.document.sections:
            original = next(s for s in document.sections if s.id == section.id)
            assert (section.title, section.columns) == (original.title, original.columns)
            if not section_trail or section_trail[-1] != section.id:
                section_trail.append(section.id)
        walked.extend(restored_rows(page, document))
    # No gap, no duplicate, same order, every record whole and equal to the original.
    assert walked == rows_of(document)
    assert section_trail == [section.id for section in document.sections]
    assert sum(page.returned for page in pages) == pages[0].total == len(walked)
    assert pages[-1].complete and not any(page.complete for page in pages[:-1])


@given(documents(), budgets)
def test_same_call_and_token_give_the_same_page(document: Document, budget: Budget) -> None:
    first = walk(make_envelope(budget), document)
    again = walk(make_envelope(budget), document)
    assert [page.to_wire() for page in first] == [page.to_wire() for page in again]
    # Replaying one token from the middle gives that same page again.
    if len(first) > 1:
        token = first[0].next_token
        envelope = make_envelope(budget)
        replay = envelope.page(document, arguments={**ARGS, "cursor": token}, caller="alice")
        assert replay.to_wire() == first[1].to_wire()


@given(documents(), budgets)
def test_any_replica_resumes_a_token_across_a_key_rotation(document: Document, budget: Budget) -> None:
    """Tokens hold all their state: a walk whose every page is served by a different server instance, half of them
    already signing with a newer key, returns exactly the pages of a walk on one instance."""
    reference = walk(make_envelope(budget), document)
    secrets = {"k1": b"envelope-test-key-0123456789", "k2": b"envelope-next-key-0123456789"}
    replicas = [make_envelope(budget, keyring=Keyring(secrets, current=key)) for key in ("k1", "k2")]
    arguments: dict[str, Any] = dict(ARGS)
    served: list[Page] = []
    for index in range(len(reference)):
        page = replicas[index % 2].page(document, arguments=arguments, caller="alice")
        served.append(page)
        if page.next_token is not None:
            assert page.next_token.startswith("v1.k1." if index % 2 == 0 else "v1.k2.")
            arguments = {**ARGS, "cursor": page.next_token}
    assert [rows_of(page.document) for page in served] == [rows_of(page.document) for page in reference]
    assert served[-1].complete


@given(documents(), budgets)
def test_records_ids_and_uris_are_never_cut(document: Document, budget: Budget) -> None:
    originals = {row.id: row for _, row in rows_of(document)}
    for page in walk(make_envelope(budget), document):
        linked = {link.row_id for link in page.linked_fields}
        for _, row in rows_of(page.document):
            source = originals[row.id]
            assert row.uri == source.uri == URIS.record_uri(row.id, statement="2026-q1")
            assert row.uri is not None and URIS.parse(row.uri) is not None
            if row.id not in linked:
                assert row == source


def _small_document(rows: int = 30) -> Document:
    section = Section(
        id="income",
        title="Income",
        columns=("amount", "note"),
        rows=tuple(Row(id=f"r{i}", label=f"Line {i}", values=(i * 10, f"note {i}")) for i in range(rows)),
    )
    return URIS.assign(Document(title="Statement", sections=(section,)), statement="2026-q1")


def _first_token(envelope: Envelope, document: Document) -> str:
    page = envelope.page(document, arguments=ARGS, caller="alice")
    assert not page.complete and page.next_token is not None
    return page.next_token


@pytest.mark.parametrize(
    ("context", "error"),
    [
        ({"tool": "journal"}, WrongToolError),
        ({"caller": "mallory"}, WrongCallerError),
        ({"arguments": {"statement": "2025-q4"}}, WrongArgumentsError),
        ({"now": NOW + 100_000}, ExpiredTokenError),
        ({"keyring": Keyring.single(b"another-test-key-0123456789", key_id="k2")}, UnknownKeyError),
        ({"keyring": Keyring.single(b"another-test-key-0123456789")}, TamperedTokenError),
    ],
)
def test_foreign_tokens_are_refused_by_the_envelope(context: dict[str, Any], error: type[Exception]) -> None:
    document = _small_document()
    budget = Budget(max_bytes=1500)
    token = _first_token(make_envelope(budget), document)
    envelope = make_envelope(
        budget,
        now=context.get("now", NOW),
        keyring=context.get("keyring"),
        tool=context.get("tool", "statement"),
    )
    arguments = {**context.get("arguments", ARGS), "cursor": token}
    with pytest.raises(error):
        envelope.page(document, arguments=arguments, caller=context.get("caller", "alice"))


@given(st.integers(min_value=0, max_value=200), st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"))
def test_tampered_tokens_are_refused_by_the_envelope(index: int, char: str) -> None:
    document = _small_document()
    envelope = make_envelope(Budget(max_bytes=1500))
    token = _first_token(envelope, document)
    index %= len(token)
    tampered = token[:index] + char + token[index + 1 :]
    if tampered == token:
        return
    try:
        page = envelope.page(document, arguments={**ARGS, "cursor": tampered}, caller="alice")
    except TokenError:
        return
    # Only a change the base64 padding absorbs (the same bytes) may pass, and then it is the same page.
    assert page == envelope.page(document, arguments={**ARGS, "cursor": token}, caller="alice")


@given(documents(), budgets, st.data())
def test_a_changed_result_set_gives_the_narrowing_error(
    document: Document, budget: Budget, data: st.DataObject
) -> None:
    envelope = make_envelope(budget)
    pages = walk(envelope, document)
    if len(pages) < 2:
        return
    cut = data.draw(st.integers(min_value=0, max_value=len(pages) - 2))
    token = pages[cut].next_token
    assert token is not None
    change = data.draw(st.sampled_from(["append", "drop", "edit", "retitle"]))
    sections = list(document.sections)
    first = sections[0]
    if change == "append" or not any(section.rows for section in sections):
        extra = Section(id="added", title="Added", rows=(Row(id="new", label="new"),))
        sections.append(extra)
    elif change == "retitle":
        sections[0] = first.model_copy(update={"title": first.title + "!"})
    else:
        index = next(i for i, section in enumerate(sections) if section.rows)
        rows = list(sections[index].rows)
        if change == "drop":
            rows.pop(0)
        else:
            rows[0] = rows[0].model_copy(update={"label": rows[0].label + "?"})
        sections[index] = sections[index].model_copy(update={"rows": tuple(rows)})
    changed = document.model_copy(update={"sections": tuple(sections)})
    assert content_fingerprint(changed) != content_fingerprint(document)
    with pytest.raises(ResultChangedError, match="narrow") as caught:
        envelope.page(changed, arguments={**ARGS, "cursor": token}, caller="alice")
    assert "without 'cursor'" in caught.value.message


def test_a_tool_supplied_fingerprint_replaces_the_content_digest() -> None:
    document = _small_document()
    envelope = make_envelope(Budget(max_bytes=1500))
    page = envelope.page(document, arguments=ARGS, caller="alice", fingerprint="version-1")
    resumed = {**ARGS, "cursor": page.next_token}
    assert envelope.page(document, arguments=resumed, caller="alice", fingerprint="version-1").returned > 0
    with pytest.raises(ResultChangedError):
        envelope.page(document, arguments=resumed, caller="alice", fingerprint="version-2")


def test_a_record_larger_than_the_budget_is_linked_alone_on_its_page() -> None:
    rows = (
        Row(id="a", label="small", values=("x",)),
        Row(id="big", label="large", values=("y" * 5000,)),
        Row(id="c", label="small", values=("z",)),
    )
    document = URIS.assign(
        Document(title="T", sections=(Section(id="s", title="S", columns=("v",), rows=rows),)), statement="2026-q1"
    )
    pages = walk(make_envelope(Budget(max_bytes=1500)), document)
    assert [[row.id for _, row in rows_of(page.document)] for page in pages] == [["a"], [], ["c"]]
    link = pages[1].linked_records[0]
    assert (link.row_id, link.section_id, link.uri) == ("big", "s", URIS.record_uri("big", statement="2026-q1"))
    assert [section.id for section in pages[1].document.sections] == ["s"]
    assert pages[1].size_bytes <= 1500


def test_a_budget_too_small_for_any_link_is_a_bounded_error() -> None:
    with pytest.raises(BudgetError, match="cannot hold"):
        make_envelope(Budget(max_bytes=300)).page(_small_document(), arguments=ARGS, caller="alice")


def test_an_oversized_record_without_uri_is_a_bounded_error() -> None:
    section = Section(id="s", title="S", columns=("v",), rows=(Row(id="big", label="L", values=("y" * 5000,)),))
    with pytest.raises(BudgetError, match="needs max_bytes of at least"):
        make_envelope(Budget(max_bytes=1500)).page(Document(title="T", sections=(section,)), arguments={}, caller="a")


def test_large_fields_become_links_resolvable_to_their_body() -> None:
    body = "long text " * 100
    section = Section(id="s", title="S", columns=("n", "memo"), rows=(Row(id="r1", label="L", values=(1, body)),))
    document = URIS.assign(Document(title="T", sections=(section,)), statement="2026-q1")
    page = make_envelope(Budget(max_bytes=4000, max_field_bytes=100)).page(document, arguments=ARGS, caller="alice")
    (row,) = page.document.sections[0].rows
    (link,) = page.linked_fields
    assert row.values == (1, link.uri) and link.name == "memo" and link.column == 1
    assert link.uri == "ledger://statements/2026-q1/rows/r1/fields/1"
    resolved = read_record(link.uri, uris=URIS, load=loader(document), caller="alice")
    assert (resolved.mime_type, resolved.text) == ("text/plain", body)
    assert page.meta_wire()["linkedFields"][0]["uri"] == link.uri


def test_records_resolve_only_for_an_authorized_caller() -> None:
    document = _small_document()
    uri = URIS.record_uri("r3", statement="2026-q1")
    resolved = read_record(uri, uris=URIS, load=loader(document), caller="alice")
    assert json.loads(resolved.text)["row"] == document.sections[0].rows[3].model_dump(mode="json")
    for bad_uri, caller in [
        (uri, "mallory"),
        (URIS.record_uri("missing", statement="2026-q1"), "alice"),
        (URIS.record_uri("r3", statement="2025-q4"), "alice"),
        ("other://r3", "alice"),
        (uri + "/fields/9", "alice"),
    ]:
        with pytest.raises(RecordNotFoundError):
            read_record(bad_uri, uris=URIS, load=loader(document), caller=caller)


@given(st.text(min_size=1, max_size=30), st.text(min_size=1, max_size=30), st.none() | st.integers(0, 99))
def test_record_uris_round_trip(row_id: str, statement: str, column: int | None) -> None:
    uri = URIS.record_uri(row_id, statement=statement)
    if column is not None:
        uri = URIS.field_uri(uri, column)
    ref = URIS.parse(uri)
    assert ref is not None
    assert (ref.row_id, dict(ref.params), ref.column) == (row_id, {"statement": statement}, column)


def test_record_uri_templates_are_checked() -> None:
    with pytest.raises(ValueError, match="row_id"):
        RecordUris("ledger://rows/{id}")
    with pytest.raises(ValueError, match="needs"):
        URIS.record_uri("r1")


def test_an_empty_document_is_one_complete_page() -> None:
    page = make_envelope(Budget()).page(Document(title="Nothing"), arguments={}, caller="a")
    assert page.complete and page.returned == page.total == 0 and page.next_token is None
    assert len(to_json(page.to_wire())) == page.size_bytes


@given(
    documents(),
    st.integers(min_value=1, max_value=4000),
    st.none() | st.integers(min_value=1, max_value=8),
    st.none() | st.integers(min_value=1, max_value=300),
)
def test_every_budget_gives_fitting_pages_or_a_budget_error(
    document: Document, max_bytes: int, max_items: int | None, max_field_bytes: int | None
) -> None:
    """No budget, however small, makes the envelope fail any other way or return a page over it; and a page
    is cut short only when what remains would not fit as the last page (no room is kept for a token it will not
    carry)."""
    budget = Budget(max_bytes=max_bytes, max_items=max_items, max_field_bytes=max_field_bytes)
    envelope = make_envelope(budget)
    unbounded = make_envelope(Budget(max_bytes=10**9, max_field_bytes=max_field_bytes))
    arguments: dict[str, Any] = dict(ARGS)
    walked: list[tuple[str, Row]] = []
    for _ in range(sum(len(section.rows) or 1 for section in document.sections) + 1):
        try:
            page = envelope.page(document, arguments=arguments, caller="alice")
        except BudgetError as error:
            assert "cannot hold" in error.message or "has no URI" in error.message
            return
        assert len(to_json(page.to_wire())) == page.size_bytes <= max_bytes
        walked.extend(restored_rows(page, document))
        if page.complete:
            assert walked == rows_of(document)
            return
        rest = unbounded.page(document, arguments=arguments, caller="alice")
        assert rest.complete
        if max_items is None or rest.returned <= max_items:
            assert rest.size_bytes > max_bytes
        assert page.next_token is not None
        arguments = {**ARGS, "cursor": page.next_token}
    raise AssertionError("the walk did not end")


def test_a_result_that_fits_without_a_token_is_one_complete_page() -> None:
    document = _small_document()
    whole = make_envelope(Budget()).page(document, arguments=ARGS, caller="alice")
    exact = make_envelope(Budget(max_bytes=whole.size_bytes)).page(document, arguments=ARGS, caller="alice")
    assert exact.complete and exact.next_token is None and exact.size_bytes == whole.size_bytes
    cut = make_envelope(Budget(max_bytes=whole.size_bytes - 1)).page(document, arguments=ARGS, caller="alice")
    assert not cut.complete and cut.next_token is not None


def test_a_last_page_that_fits_exactly_is_not_cut_for_its_count_written_wider() -> None:
    """The rest of a result fits its budget to the byte as the last page: it is that page, not cut one record
    short because room was kept for `returned` written at its widest (the result's count: 10, where the rest
    holds 9 records)."""
    document = _small_document(10)
    first = make_envelope(Budget(max_items=1)).page(document, arguments=ARGS, caller="alice")
    assert first.next_token is not None and first.returned == 1
    arguments = {**ARGS, "cursor": first.next_token}
    rest = make_envelope(Budget()).page(document, arguments=arguments, caller="alice")
    assert rest.complete and rest.returned == 9
    exact = make_envelope(Budget(max_bytes=rest.size_bytes)).page(document, arguments=arguments, caller="alice")
    assert exact.complete and exact.returned == 9 and exact.size_bytes == rest.size_bytes
    assert (
        not make_envelope(Budget(max_bytes=rest.size_bytes - 1))
        .page(document, arguments=arguments, caller="alice")
        .complete
    )


@pytest.mark.parametrize("max_bytes", [1, 10, 40])
def test_a_budget_too_small_for_an_empty_page_is_a_budget_error(max_bytes: int) -> None:
    with pytest.raises(BudgetError, match="cannot hold even an empty page"):
        make_envelope(Budget(max_bytes=max_bytes)).page(Document(title="Nothing"), arguments={}, caller="a")


# -- budgets


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"max_bytes": 0}, "max_bytes must be positive"),
        ({"max_bytes": -1}, "max_bytes must be positive"),
        ({"max_items": 0}, "max_items must be positive"),
        ({"max_field_bytes": 0}, "max_field_bytes must be positive"),
    ],
)
def test_a_budget_refuses_a_limit_below_one(limits: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        Budget(**limits)
    assert str(raised.value) == message


def test_a_budget_accepts_limits_of_one_and_no_item_or_field_limit() -> None:
    assert Budget(max_bytes=1, max_items=1, max_field_bytes=1) == Budget(1, 1, 1)
    assert (Budget().max_bytes, Budget().max_items, Budget().max_field_bytes) == (1_000_000, None, None)


def _document(*sections: Section, title: str = "T") -> Document:
    return URIS.assign(Document(title=title, sections=sections), statement="2026-q1")


def _rows(prefix: str, count: int) -> tuple[Row, ...]:
    return tuple(Row(id=f"{prefix}{i}", label=f"Line {i}", values=(i,)) for i in range(count))


def test_an_empty_section_too_large_for_an_empty_page_is_a_budget_error() -> None:
    document = _document(Section(id="empty", title="E" * 200))
    fits = make_envelope(Budget()).page(document, arguments=ARGS, caller="alice").size_bytes
    exact = make_envelope(Budget(max_bytes=fits)).page(document, arguments=ARGS, caller="alice")
    assert exact.complete and exact.size_bytes == fits and [s.id for s in exact.document.sections] == ["empty"]
    with pytest.raises(BudgetError) as raised:
        make_envelope(Budget(max_bytes=fits - 1)).page(document, arguments=ARGS, caller="alice")
    assert raised.value.message == str(raised.value) == f"the budget of {fits - 1} bytes cannot hold section 'empty'"


def test_an_empty_section_that_does_not_fit_after_rows_starts_the_next_page() -> None:
    document = _document(
        Section(id="rows", title="R", columns=("n",), rows=_rows("r", 3)), Section(id="empty", title="E" * 300)
    )
    budget = make_envelope(Budget()).page(document, arguments=ARGS, caller="alice").size_bytes - 1
    pages = walk(make_envelope(Budget(max_bytes=budget)), document)
    assert [[section.id for section in page.document.sections] for page in pages] == [["rows"], ["empty"]]
    assert [page.returned for page in pages] == [3, 0]
    assert all(page.size_bytes == len(to_json(page.to_wire())) <= budget for page in pages)


def test_packing_continues_across_section_boundaries() -> None:
    """A page takes rows from as many sections as fit, empty ones included, each header once and in order; the
    next page repeats the header of the section it resumes in."""
    document = _document(
        Section(id="a", title="A", columns=("n",), rows=_rows("a", 2)),
        Section(id="gap", title="Gap"),
        Section(id="b", title="B", columns=("n",), rows=_rows("b", 4)),
    )
    whole = make_envelope(Budget()).page(document, arguments=ARGS, caller="alice")
    assert whole.complete and whole.document == document and whole.returned == whole.total == 6
    shown = walk(make_envelope(Budget(max_bytes=whole.size_bytes + 60, max_items=4)), document)
    assert [[(s.id, [row.id for row in s.rows]) for s in page.document.sections] for page in shown] == [
        [("a", ["a0", "a1"]), ("gap", []), ("b", ["b0", "b1"])],
        [("b", ["b2", "b3"])],
    ]
    assert [page.returned for page in shown] == [4, 2]
    assert shown[1].document.sections[0].model_copy(update={"rows": ()}) == document.sections[2].model_copy(
        update={"rows": ()}
    )


def test_a_page_cut_short_is_filled_to_the_exact_byte() -> None:
    """A page is cut only where the next record would pass the budget: a budget of exactly a page's size gives
    that same page, one byte less gives one record fewer."""
    document = _small_document()
    page = make_envelope(Budget(max_bytes=2000)).page(document, arguments=ARGS, caller="alice")
    assert not page.complete and page.returned >= 10  # as many digits as the total: no slack in the reserve
    exact = make_envelope(Budget(max_bytes=page.size_bytes)).page(document, arguments=ARGS, caller="alice")
    assert (exact.returned, exact.size_bytes, exact.document) == (page.returned, page.size_bytes, page.document)
    short = make_envelope(Budget(max_bytes=page.size_bytes - 1)).page(document, arguments=ARGS, caller="alice")
    assert short.returned == page.returned - 1


def test_a_linked_record_is_listed_on_the_wire_with_its_size() -> None:
    big = Row(id="big/1", label="large", values=("y" * 5000,))
    document = _document(Section(id="s", title="S", columns=("v",), rows=(big,)))
    page = make_envelope(Budget(max_bytes=1500)).page(document, arguments=ARGS, caller="alice")
    uri = "ledger://statements/2026-q1/rows/big%2F1"
    size = len(to_json(document.sections[0].rows[0].model_dump(mode="json")))
    assert page.meta_wire() == {
        "complete": True,
        "returned": 1,
        "total": 1,
        "linkedRecords": [{"rowId": "big/1", "sectionId": "s", "uri": uri, "bytes": size}],
    }
    assert page.to_wire() == {
        "document": {"title": "T", "sections": [{"id": "s", "title": "S", "columns": ["v"], "rows": []}]},
        "page": page.meta_wire(),
    }
    assert page.record_links() == [(uri, "big/1")]
    assert page.size_bytes == len(to_json(page.to_wire()))


# -- reading a record back


def test_a_record_resolves_only_under_its_canonical_uri() -> None:
    """`read_record` answers for the URI a page gave, not for another spelling of it: a row id percent-encoded
    another way names no record, whether as a record or as one of its fields."""
    document = _small_document()
    load = loader(document)
    canonical = URIS.record_uri("r3", statement="2026-q1")
    assert canonical == "ledger://statements/2026-q1/rows/r3"
    assert json.loads(read_record(canonical, uris=URIS, load=load, caller="alice").text)["row"]["id"] == "r3"
    field = read_record(canonical + "/fields/1", uris=URIS, load=load, caller="alice")
    assert (field.uri, field.mime_type, field.text) == (canonical + "/fields/1", "text/plain", "note 3")
    for alias in ("ledger://statements/2026-q1/rows/r%33", "ledger://statements/2026-q1/rows/%72%33"):
        assert URIS.parse(alias) == URIS.parse(canonical)
        for uri in (alias, alias + "/fields/1"):
            with pytest.raises(RecordNotFoundError, match="no record at"):
                read_record(uri, uris=URIS, load=load, caller="alice")


def test_a_field_uri_past_the_last_column_names_no_record() -> None:
    document = _small_document()
    uri = URIS.record_uri("r3", statement="2026-q1")
    last = read_record(uri + "/fields/1", uris=URIS, load=loader(document), caller="alice")
    assert last.text == "note 3"
    with pytest.raises(RecordNotFoundError) as raised:
        read_record(uri + "/fields/2", uris=URIS, load=loader(document), caller="alice")
    assert str(raised.value) == f"no record at {uri}/fields/2"


def test_a_record_reads_back_as_its_section_and_row_and_a_field_as_json_or_text() -> None:
    document = _small_document()
    load = loader(document)
    uri = URIS.record_uri("r3", statement="2026-q1")
    record = read_record(uri, uris=URIS, load=load, caller="alice")
    assert (record.uri, record.mime_type) == (uri, "application/json")
    assert json.loads(record.text) == {
        "sectionId": "income",
        "sectionTitle": "Income",
        "columns": ["amount", "note"],
        "row": {"id": "r3", "label": "Line 3", "values": [30, "note 3"], "kind": "item", "level": 0, "uri": uri},
    }
    number = read_record(uri + "/fields/0", uris=URIS, load=load, caller="alice")
    assert (number.uri, number.mime_type, number.text) == (uri + "/fields/0", "application/json", "30")
    text = read_record(uri + "/fields/1", uris=URIS, load=load, caller="alice")
    assert (text.uri, text.mime_type, text.text) == (uri + "/fields/1", "text/plain", "note 3")


def test_a_uri_outside_the_template_is_refused_by_name() -> None:
    with pytest.raises(RecordNotFoundError) as raised:
        read_record("other://r3", uris=URIS, load=loader(_small_document()), caller="alice")
    assert str(raised.value) == "not a record URI of this tool: other://r3"


def test_rows_loaded_without_uris_resolve_by_the_id_in_the_uri() -> None:
    """A loader may return the document before `assign()`: its rows have no URI to compare with, so the record (or
    field) is found by the row id the URI names, however that id is encoded."""
    section = Section(id="s", title="S", columns=("n", "memo"), rows=(Row(id="r/1", label="L", values=(7, "m")),))
    bare = Document(title="T", sections=(section,))

    def load(params: Mapping[str, str], caller: str) -> Document | None:
        return bare

    for uri in (URIS.record_uri("r/1", statement="2026-q1"), "ledger://statements/2026-q1/rows/r%2f1"):
        assert json.loads(read_record(uri, uris=URIS, load=load, caller="a").text)["row"]["id"] == "r/1"
        assert read_record(uri + "/fields/1", uris=URIS, load=load, caller="a").text == "m"
        assert read_record(uri + "/fields/0", uris=URIS, load=load, caller="a").text == "7"


# -- URI templates


def test_record_uri_templates_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError) as raised:
        RecordUris("ledger://rows/{id}")
    assert str(raised.value) == "a record URI template needs a {row_id} placeholder"
    with pytest.raises(ValueError) as raised:
        RecordUris("ledger://{statement}/{statement}/rows/{row_id}")
    assert str(raised.value) == "a placeholder appears twice in the record URI template"
    with pytest.raises(ValueError) as raised:
        URIS.record_uri("r1")
    assert str(raised.value) == "record URI template needs ['statement']"


def test_record_uris_keep_their_templates_and_encode_every_reserved_character() -> None:
    assert URIS.template == "ledger://statements/{statement}/rows/{row_id}"
    assert URIS.field_template == "ledger://statements/{statement}/rows/{row_id}/fields/{column}"
    assert URIS.record_uri("a/b?c#d e", statement="q/1") == "ledger://statements/q%2F1/rows/a%2Fb%3Fc%23d%20e"
    assert URIS.field_uri("ledger://x", 3) == "ledger://x/fields/3"


# -- the envelope's own arguments and tokens


def test_an_envelope_takes_its_token_from_cursor_and_pages_within_the_default_budget() -> None:
    tokens = ContinuationTokens(Keyring.single(b"envelope-test-key-0123456789"), clock=lambda: NOW)
    assert Envelope(tool="statement", tokens=tokens).budget == Budget()
    envelope = Envelope(tool="statement", tokens=tokens, budget=Budget(max_bytes=1500))
    first = envelope.page(_small_document(), arguments=ARGS, caller="alice")
    assert first.argument == "cursor" and not first.complete and first.size_bytes <= 1500
    second = envelope.page(_small_document(), arguments={**ARGS, "cursor": first.next_token}, caller="alice")
    assert second.document.sections[0].rows[0].id == f"r{first.returned}"


def test_a_token_that_is_not_a_string_is_malformed() -> None:
    envelope = make_envelope(Budget(max_bytes=1500))
    with pytest.raises(MalformedTokenError) as raised:
        envelope.page(_small_document(), arguments={**ARGS, "cursor": 7}, caller="alice")
    assert raised.value.cause == "continuation token is malformed: not a string"


def test_a_token_at_the_end_gives_an_empty_last_page_and_one_past_it_a_changed_result() -> None:
    document = _small_document()
    envelope = make_envelope(Budget(max_bytes=1500))

    def token(position: int) -> str:
        return envelope.tokens.issue(
            tool="statement",
            arguments=ARGS,
            caller="alice",
            position=position,
            fingerprint=content_fingerprint(document),
            exclude_argument="cursor",
        )

    last = envelope.page(document, arguments={**ARGS, "cursor": token(30)}, caller="alice")
    assert (last.complete, last.returned, last.total, last.next_token, last.document.sections) == (
        True,
        0,
        30,
        None,
        (),
    )
    with pytest.raises(ResultChangedError) as raised:
        envelope.page(document, arguments={**ARGS, "cursor": token(31)}, caller="alice")
    assert (
        raised.value.message
        == str(raised.value)
        == (
            "the result of 'statement' changed since this continuation token was issued (it now holds 30 records), "
            "so continuing could skip or repeat records. Call 'statement' again without 'cursor', and narrow the "
            "request (a tighter filter or a smaller range) so that the result fits in fewer pages."
        )
    )


# -- linked records and fields


def _one_big_record(*, uri: bool = True) -> Document:
    section = Section(id="s", title="S", columns=("v",), rows=(Row(id="big", label="L", values=("y" * 5000,)),))
    document = Document(title="T", sections=(section,))
    return URIS.assign(document, statement="2026-q1") if uri else document


def test_a_budget_one_byte_short_of_a_records_link_names_the_record() -> None:
    """A record linked on a page that a token follows: a budget of exactly that page's size gives it, one byte less
    is a budget error naming the record."""
    big = Row(id="big", label="L", values=("y" * 5000,))
    document = _document(Section(id="s", title="S", columns=("v",), rows=(big, Row(id="c", label="L", values=("z",)))))
    linked = make_envelope(Budget(max_bytes=1500)).page(document, arguments=ARGS, caller="alice")
    assert [link.row_id for link in linked.linked_records] == ["big"] and not linked.complete
    exact = make_envelope(Budget(max_bytes=linked.size_bytes)).page(document, arguments=ARGS, caller="alice")
    assert exact.to_wire() == linked.to_wire() and exact.size_bytes == linked.size_bytes
    with pytest.raises(BudgetError) as raised:
        make_envelope(Budget(max_bytes=linked.size_bytes - 1)).page(document, arguments=ARGS, caller="alice")
    assert (
        raised.value.message == f"the budget of {linked.size_bytes - 1} bytes cannot hold even a link to record 'big'"
    )


def test_an_oversized_record_without_uri_is_refused_with_its_size() -> None:
    document = _one_big_record(uri=False)
    size = len(to_json(document.sections[0].rows[0].model_dump(mode="json")))
    with pytest.raises(BudgetError) as raised:
        make_envelope(Budget(max_bytes=1500)).page(document, arguments={}, caller="a")
    message = raised.value.message
    assert message.startswith(f"record 'big' ({size} bytes) does not fit a page of max_bytes=1500: the page's framing")
    # The smallest usable max_bytes it states does hold the record.
    needed = int(message.rsplit(" ", 1)[1])
    page = make_envelope(Budget(max_bytes=needed)).page(document, arguments={}, caller="a")
    assert [row.id for section in page.document.sections for row in section.rows] == ["big"]


def test_a_field_is_linked_only_when_its_json_is_longer_than_the_limit() -> None:
    """`max_field_bytes` is the longest cell embedded: a cell of exactly that size stays, a longer one is linked and
    listed on the wire with its size and its column's name."""
    section = Section(
        id="s",
        title="S",
        columns=("n", "memo", "more"),
        rows=(Row(id="r1", label="L", values=(1, "x" * 98, "y" * 99)),),
    )
    document = _document(section)
    page = make_envelope(Budget(max_field_bytes=100)).page(document, arguments=ARGS, caller="alice")
    uri = "ledger://statements/2026-q1/rows/r1"
    assert page.document.sections[0].rows[0].values == (1, "x" * 98, uri + "/fields/2")
    assert page.meta_wire() == {
        "complete": True,
        "returned": 1,
        "total": 1,
        "linkedFields": [{"rowId": "r1", "column": 2, "name": "more", "uri": uri + "/fields/2", "bytes": 101}],
    }
    assert page.size_bytes == len(to_json(page.to_wire()))


def test_a_page_lists_the_uri_and_id_of_every_record_it_holds() -> None:
    """Rows with a URI in order, then linked records; a row without a URI has nothing to list."""
    uri = URIS.record_uri("a", statement="q")
    section = Section(id="s", title="S", rows=(Row(id="a", label="A", uri=uri), Row(id="b", label="B")))
    page = make_envelope(Budget()).page(Document(title="T", sections=(section,)), arguments={}, caller="a")
    assert page.record_links() == [(uri, "a")]


def test_a_record_without_uri_is_returned_as_the_last_page_in_the_room_a_token_would_take() -> None:
    """A record that cannot be linked still fits when it ends the result, even though no page with a token could
    hold it: to the exact byte, and a byte less is a budget error."""
    section = Section(id="s", title="S", columns=("v",), rows=(Row(id="big", label="L", values=("y" * 500,)),))
    document = Document(title="T", sections=(section,))
    whole = make_envelope(Budget()).page(document, arguments={}, caller="a")
    exact = make_envelope(Budget(max_bytes=whole.size_bytes)).page(document, arguments={}, caller="a")
    assert exact.complete and exact.to_wire() == whole.to_wire() and exact.size_bytes == whole.size_bytes
    with pytest.raises(BudgetError, match="does not fit a page of max_bytes="):
        make_envelope(Budget(max_bytes=whole.size_bytes - 1)).page(document, arguments={}, caller="a")


def _rest_may_fit(document: Document, budget: Budget, start: int, room: int) -> bool:
    packer = _Packer(make_envelope(budget), document, _Units(document), start, ARGS, "alice", "fingerprint")
    return packer._rest_may_fit(start, room)  # pyright: ignore[reportPrivateUsage]


def test_a_second_pass_is_tried_only_when_the_rows_left_may_fit() -> None:
    """The cheap bound that decides whether a page cut short is packed again without a token's room: it says no only
    when the rows from `start` on take more than `room` bytes of their own JSON (153 bytes each here), or are more
    than `max_items`. A row whose cells would be linked counts for nothing, and framing is left out."""
    rows = tuple(Row(id=f"r{i}", label="x" * 50, values=(i,)) for i in range(3))
    document = _document(
        Section(id="a", title="A", columns=("n",), rows=rows[:2]),
        Section(id="gap", title="Gap"),
        Section(id="b", title="B", columns=("n",), rows=rows[2:]),
    )
    assert [len(row.model_dump_json()) for _, row in rows_of(document)] == [153, 153, 153]
    # Units: r0 and r1 (0, 1), the empty section (2), r2 (3).
    for start, needed in [(0, 459), (1, 306), (2, 153), (3, 153), (4, 0)]:
        assert _rest_may_fit(document, Budget(), start, needed), start
        if needed:
            assert not _rest_may_fit(document, Budget(), start, needed - 1), start
    assert not _rest_may_fit(document, Budget(max_items=2), 0, 10_000)
    assert _rest_may_fit(document, Budget(max_items=2), 1, 10_000)
    assert _rest_may_fit(document, Budget(max_field_bytes=152), 0, 0)
    assert not _rest_may_fit(document, Budget(max_field_bytes=153), 0, 458)
    bare = Document(title="T", sections=(Section(id="a", title="A", columns=("n",), rows=rows),))
    assert [len(row.model_dump_json()) for row in rows] == [120, 120, 120]  # no URI: its cells stay in the row
    assert not _rest_may_fit(bare, Budget(max_field_bytes=100), 0, 359)
    assert _rest_may_fit(bare, Budget(max_field_bytes=100), 0, 360)


def test_a_page_cut_short_inside_a_section_takes_nothing_from_the_sections_after_it() -> None:
    """Records stay in order: once a row does not fit, the page ends there, even if a later, smaller row would."""
    document = _document(
        Section(
            id="a",
            title="A",
            columns=("n",),
            rows=(Row(id="a0", label="x", values=(0,)), Row(id="a1", label="y" * 300, values=(1,))),
        ),
        Section(id="b", title="B", columns=("n",), rows=(Row(id="b0", label="z", values=(2,)),)),
    )
    pages = walk(make_envelope(Budget(max_bytes=700)), document)
    assert [[(s.id, [row.id for row in s.rows]) for s in page.document.sections] for page in pages] == [
        [("a", ["a0"])],
        [("a", ["a1"]), ("b", ["b0"])],
    ]


def _count_passes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Every packing pass made from now on, in order (the arguments of each)."""
    return calls_of(monkeypatch, _Packer, "_fill")


def test_a_page_is_packed_a_second_time_only_when_the_rest_may_fit_without_a_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cutting a page short costs one packing pass when the rows left surely cannot fit in the room a token would
    free (their own JSON alone is larger), and a second pass only when they might."""
    small = tuple(Row(id=f"s{i}", label="x", values=(i,)) for i in range(6))
    document = _document(
        Section(id="a", title="A", columns=("n",), rows=(*small, Row(id="big", label="y" * 400, values=(0,))))
    )
    whole = make_envelope(Budget()).page(document, arguments=ARGS, caller="alice").size_bytes
    limits = _count_passes(monkeypatch)
    passes: list[int] = []
    for short_by in (1, 2):
        limits.clear()
        page = make_envelope(Budget(max_bytes=whole - short_by)).page(document, arguments=ARGS, caller="alice")
        assert [row.id for _, row in rows_of(page.document)] == [row.id for row in small]
        passes.append(len(limits))
    # One byte short, the last row's JSON would still fit where the token goes: worth trying; two bytes short, not.
    assert passes == [2, 1]


def test_a_first_record_that_fits_no_page_with_a_token_is_tried_without_one_only_if_it_may_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When not even the first record fits beside a token, the page is packed again without one only when that
    record's own JSON fits in the room the token would free; either way a record that cannot fit is refused."""
    section = Section(id="s", title="S", columns=("v",), rows=(Row(id="big", label="L", values=("y" * 500,)),))
    document = Document(title="T", sections=(section,))
    whole = make_envelope(Budget()).page(document, arguments={}, caller="a").size_bytes
    header = len(to_json(section.model_copy(update={"rows": ()}).model_dump(mode="json")))
    limits = _count_passes(monkeypatch)
    passes: list[int] = []
    # Without its section's header the page is `whole - header` bytes: the record's JSON fills the room exactly.
    for short_by in (header, header + 1):
        limits.clear()
        with pytest.raises(BudgetError, match="does not fit a page of max_bytes="):
            make_envelope(Budget(max_bytes=whole - short_by)).page(document, arguments={}, caller="a")
        passes.append(len(limits))
    assert passes == [2, 1]


def test_a_packing_pass_says_whether_the_item_limit_stopped_it() -> None:
    """What one pass over the units reports: the rows it took, the bytes they take as sent, where the next page
    starts, and whether it ended for the item limit (rather than for bytes, or at the end of the result)."""
    document = _small_document(5)
    section = document.sections[0]

    def fill(budget: Budget, limit: int) -> Any:
        packer = _Packer(make_envelope(budget), document, _Units(document), 1, ARGS, "alice", "fingerprint")
        return packer._fill(limit)  # pyright: ignore[reportPrivateUsage]

    def sent(*rows: Row) -> int:
        return len(to_json(section.model_copy(update={"rows": rows}).model_dump(mode="json")))

    by_items = fill(Budget(max_items=2), 10_000)
    assert (by_items.position, by_items.items, by_items.complete, by_items.stopped_by_items) == (3, 2, False, True)
    assert [row.id for row in by_items.parts[0].rows] == ["r1", "r2"]
    assert by_items.used == sent(*section.rows[1:3])
    by_bytes = fill(Budget(max_items=2), sent(section.rows[1]))
    assert (by_bytes.position, by_bytes.items, by_bytes.complete, by_bytes.stopped_by_items) == (2, 1, False, False)
    whole = fill(Budget(max_items=4), 10_000)
    assert (whole.position, whole.items, whole.complete, whole.stopped_by_items) == (5, 4, True, False)
    assert whole.used == sent(*section.rows[1:])


def test_a_record_linked_on_the_last_page_fits_a_budget_of_that_pages_size() -> None:
    """A page is cut short only when the rest would not fit as the last page: a lone record too large for any page,
    sent as a link, fits a budget of exactly the linked page's size, though a page with a token would not."""
    document = _one_big_record()
    linked = make_envelope(Budget(max_bytes=1000)).page(document, arguments=ARGS, caller="alice")
    assert linked.complete and [link.row_id for link in linked.linked_records] == ["big"]
    exact = make_envelope(Budget(max_bytes=linked.size_bytes)).page(document, arguments=ARGS, caller="alice")
    assert exact.to_wire() == linked.to_wire()
    with pytest.raises(BudgetError):
        make_envelope(Budget(max_bytes=linked.size_bytes - 1)).page(document, arguments=ARGS, caller="alice")


# ------------------------------------------------------------------------------------------- checked when made

ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.binary(max_size=20),
)
"""A value of any plain type: what a caller may pass by mistake."""


@given(st.sampled_from(["max_bytes", "max_items", "max_field_bytes"]), ANY_VALUE)
def test_a_budget_limit_is_a_positive_integer(name: str, value: Any) -> None:
    limit: dict[str, Any] = {name: value}
    if value is None and name != "max_bytes":
        assert getattr(Budget(**limit), name) is None
    elif type(value) is int and value >= 1:
        assert getattr(Budget(**limit), name) == value
    elif type(value) is int:
        with pytest.raises(ValueError, match=rf"^{name} must be positive$"):
            Budget(**limit)
    else:
        with pytest.raises(TypeError, match=rf"^{name} must be an integer, not "):
            Budget(**limit)


def test_a_fractional_item_limit_is_refused_not_rounded_up() -> None:
    # 1.5 items would let a page hold two records.
    with pytest.raises(TypeError, match="max_items must be an integer, not float"):
        Budget(max_items=1.5)  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError, match="max_bytes must be an integer, not bool"):
        Budget(max_bytes=True)
    with pytest.raises(TypeError, match="max_bytes must be an integer, not NoneType"):
        Budget(max_bytes=None)  # pyright: ignore[reportArgumentType]


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize(
    ("fields", "refusal"),
    [
        ({"argument": "has space"}, "argument 'has space' is not a valid argument name"),
        ({"argument": "\n"}, "argument '\\n' is not a valid argument name"),
        ({"argument": "9lives"}, "argument '9lives' is not a valid argument name"),
        ({"argument": "a" * 65}, "is not a valid argument name"),
        ({"tool": "\ud800"}, "tool '\\ud800' holds a lone surrogate, which is not text"),
    ],
)
def test_an_envelope_refuses_when_made_what_every_page_would_refuse(fields: dict[str, str], refusal: str) -> None:
    """Accepted, each would fail every call later (the continuation carrier refuses the argument name; a token
    cannot bind a tool name that is not text): refused at once, with the reason."""
    tokens = ContinuationTokens(Keyring.single(b"envelope-test-key-0123456789"))
    with pytest.raises(ValueError, match=re.escape(refusal)):
        Envelope(**{"tool": "statement", "tokens": tokens, **fields})


@given(st.sampled_from(["tool", "argument"]), ANY_VALUE | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,63}", fullmatch=True))
def test_an_envelope_names_its_tool_and_argument_with_text(name: str, value: Any) -> None:
    tokens = ContinuationTokens(Keyring.single(b"envelope-test-key-0123456789"))
    fields: dict[str, Any] = {"tool": "statement", "tokens": tokens, name: value}
    if isinstance(value, str) and not value:
        with pytest.raises(ValueError, match=rf"^{name} must not be empty$"):
            Envelope(**fields)
    elif isinstance(value, str) and not _is_text(value):
        with pytest.raises(ValueError, match=rf"^{name} .* holds a lone surrogate, which is not text$"):
            Envelope(**fields)
    elif isinstance(value, str) and name == "argument" and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", value):
        with pytest.raises(ValueError, match=r"^argument .* is not a valid argument name"):
            Envelope(**fields)
    elif isinstance(value, str):
        assert getattr(Envelope(**fields), name) == value
    else:
        with pytest.raises(TypeError, match=rf"^{name} must be a string, not "):
            Envelope(**fields)


@given(ANY_VALUE)
def test_an_envelope_takes_an_issuer_and_a_budget_of_their_types(value: Any) -> None:
    tokens = ContinuationTokens(Keyring.single(b"envelope-test-key-0123456789"))
    with pytest.raises(TypeError, match=r"^tokens must be a ContinuationTokens, not "):
        Envelope(tool="t", tokens=value)
    if value is not None:
        with pytest.raises(TypeError, match=r"^budget must be a Budget, not "):
            Envelope(tool="t", tokens=tokens, budget=value)


@given(ANY_VALUE)
def test_a_record_uri_template_is_text(value: Any) -> None:
    if not isinstance(value, str):
        with pytest.raises(TypeError, match=r"^template must be a string, not "):
            RecordUris(value)
    else:
        with pytest.raises(ValueError):  # no {row_id} placeholder in any drawn text of this alphabet
            RecordUris(value.replace("{", "("))


def test_a_lone_surrogate_argument_is_a_tool_error_naming_it() -> None:
    from mcp_rendering.builder import paged_result

    envelope = make_envelope(Budget(max_bytes=1500))
    result = paged_result(envelope, _small_document(), arguments={"statement": "\ud800"}, caller="alice")
    assert result.is_error
    text = result.content[0]
    assert getattr(text, "text", "").startswith("arguments are not JSON: a string holds a lone surrogate ('\\ud800')")
