"""The work of a bounded answer follows the records it shows, not the size of the result: a huge result is read
once, rendered whole at most once (the model's copy of a result `max_rows` does not cut), and the page shown is
searched among pages of at most about twice its records. The work is counted (records rendered), never timed."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from mcp_rendering import host
from mcp_rendering.integrations.answer import final_answer
from mcp_rendering.types import EXTENSION_ID

VERBATIM = {EXTENSION_ID: {"mode": "verbatim", "complete": True}}


def _search_bound(shown: int) -> int:
    """Records rendered by a search for a page of `shown` records: pages 1, 2, 4... up to twice it, then a
    bisection between the last two, each page at most twice it."""
    return 4 * (shown + 1) * (math.ceil(math.log2(shown + 1)) + 2)


def _counting(monkeypatch: pytest.MonkeyPatch, name: str, count: Callable[..., int]) -> list[int]:
    """Counts, for each call of `host.<name>`, the records it is given."""
    calls: list[int] = []
    original = getattr(host, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(count(*args))
        return original(*args, **kwargs)

    monkeypatch.setattr(host, name, counted)
    return calls


def _rows(document: Any, *_: Any) -> int:
    return sum(len(section.rows) for section in document.sections)


def test_a_huge_structured_result_renders_only_pages_near_the_one_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    records = 20_000
    result = {
        "content": [{"type": "text", "text": "See the records."}],
        "structuredContent": {"items": [{"id": n, "amount": n * 3} for n in range(records)]},
        "_meta": VERBATIM,
    }
    markdown = _counting(monkeypatch, "render_markdown", _rows)
    text = _counting(monkeypatch, "render_text", _rows)
    answer = final_answer({"name": "ledger"}, result, max_bytes=2000)
    shown = answer.presentation.next_first_row  # the records of the first page
    assert shown is not None and 0 < shown < 100 and answer.presentation.cut_by == "max_bytes"
    assert sum(markdown) <= _search_bound(shown), markdown
    # The plain text of every record at most once more: the model's copy, measured against the bound.
    assert sum(text) <= records + _search_bound(shown), text
    assert max(text) <= records and sorted(text)[-2] <= 2 * shown, text


def test_a_huge_text_result_joins_only_lines_near_the_page_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = 200_000
    text = "\n".join(f"{n:07d} journal entry, amount {n * 3}" for n in range(lines))
    result = {"content": [{"type": "text", "text": text}], "_meta": VERBATIM}
    joined = _counting(monkeypatch, "_text_views", lambda _lines, keep: keep)  # pyright: ignore[reportUnknownLambdaType]
    answer = final_answer({"name": "journal"}, result, max_bytes=4096)
    shown = answer.presentation.next_first_row  # the lines of the first page
    assert shown is not None and 0 < shown < 200 and answer.presentation.cut_by == "max_bytes"
    assert sum(joined) <= _search_bound(shown), joined


def test_the_search_finds_the_largest_page_that_fits() -> None:
    """Whatever the bound and the size of each record, the search finds what a scan finds: the largest page whose
    views and model's copy fit (each only grows with the page)."""
    for upper in (0, 1, 2, 3, 7, 64, 100, 1000):
        for record_bytes in (1, 3, 10):
            for max_bytes in (0, 1, 5, 20, 64, 200, 999, 10_000):
                for model_limit in (0, 2, 50, upper):

                    def render(k: int, size: int = record_bytes) -> tuple[str, str]:
                        return "x" * (k * size), ""

                    def model_fits(k: int, limit: int = model_limit) -> bool:
                        return k <= limit

                    found = host._largest_fitting(upper, render, max_bytes, model_fits)  # pyright: ignore[reportPrivateUsage]
                    scanned = max(
                        (k for k in range(upper + 1) if k * record_bytes <= max_bytes and k <= model_limit), default=0
                    )
                    assert found == scanned, (upper, record_bytes, max_bytes, model_limit)


def _cut_by_visiting_every_section(records: Any, limit: int) -> tuple[Any, list[Any]]:
    """The first `limit` records as a cut visiting every section (the reference the cut keeps to)."""
    kept: list[Any] = []
    links: list[Any] = []
    remaining = limit
    placed_done: set[str] = set()
    for section in records.document.sections:
        rows = section.rows[: max(remaining, 0)]
        remaining -= len(rows)
        own = [] if section.id in placed_done else records.placed.get(section.id, [])
        placed_done.add(section.id)
        section_links = own[: max(remaining, 0)]
        remaining -= len(section_links)
        links.extend(section_links)
        if rows or section_links or (not section.rows and not own):
            kept.append(section.model_copy(update={"rows": rows}))
    links.extend(records.orphans[: max(remaining, 0)])
    return records.document.model_copy(update={"sections": tuple(kept)}), links


def test_a_cut_past_its_last_record_keeps_the_empty_sections_as_visiting_every_one_would() -> None:
    from mcp_rendering.document import Document, Row, Section
    from mcp_rendering.envelope import LinkedRecord

    def row(n: int) -> Row:
        return Row(id=f"r{n}", label=f"row {n}")

    # Sections with rows, empty ones, a repeated id (its links placed after its first occurrence), links of an
    # empty section, links naming no section.
    sections = (
        Section(id="a", title="A", rows=(row(1), row(2))),
        Section(id="empty", title="Empty"),
        Section(id="b", title="B"),
        Section(id="a", title="A again", rows=(row(3),)),
        Section(id="a", title="A, empty"),
        Section(id="c", title="C", rows=(row(4),)),
        Section(id="b", title="B again"),
        Section(id="last", title="Last"),
    )
    links = [
        LinkedRecord("l1", "a", "https://example.com/l1", 10),
        LinkedRecord("l2", "b", "https://example.com/l2", 10),
        LinkedRecord("l3", "nowhere", "https://example.com/l3", 10),
    ]
    records = host._Records(Document(title="T", sections=sections), links, ())  # pyright: ignore[reportPrivateUsage]
    for start in range(records.count):
        view = records.after(start)
        for limit in range(view.count + 1):
            document, kept_links, _ = view.cut(limit)
            assert (document, kept_links) == _cut_by_visiting_every_section(view, limit), (start, limit)
