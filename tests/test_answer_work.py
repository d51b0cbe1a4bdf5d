"""The work of a bounded answer follows the records it shows, not the size of the result: a huge result is read
once, rendered whole at most once (the model's copy of a page holding every record), and the page shown is
searched among pages of at most about twice its records; a text result's pages are measured from its lines, so only
the page shown is rendered. The work is counted (records rendered, lines made visible, pages rendered), never
timed."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mcp_rendering import host, records, render
from mcp_rendering.host import FRAMING_HEADER
from mcp_rendering.integrations.answer import final_answer
from mcp_rendering.records import shows_text
from mcp_rendering.render import code_fence, visible
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
    joined = _counting(monkeypatch, "_text_views", lambda _text, _start, keep: keep)  # pyright: ignore[reportUnknownLambdaType]
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

                    def fits(k: int, size: int = record_bytes, bound: int = max_bytes, most: int = model_limit) -> bool:
                        return k * size <= bound and k <= most

                    found = host._largest_fitting(upper, max_bytes, fits)  # pyright: ignore[reportPrivateUsage]
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


def _counting_calls(monkeypatch: pytest.MonkeyPatch, modules: Sequence[Any], name: str) -> list[int]:
    """Counts the calls of `name` made from any of `modules` (each holds its own reference to the function)."""
    calls = [0]
    original = getattr(modules[0], name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    for module in modules:
        monkeypatch.setattr(module, name, counted)
    return calls


def _tiny_blocks(count: int) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"b{n}"} for n in range(count)], "_meta": VERBATIM}


def test_an_answer_of_many_tiny_blocks_makes_each_line_visible_a_constant_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each line of the result is made visible once when read, once more to tell whether a line of text shows
    anything (a record), and once for the Markdown view of the page shown: never once per page tried."""
    blocks = 3000
    visible_calls = _counting_calls(monkeypatch, (host, render, records), "visible")
    answer = final_answer({"name": "t"}, _tiny_blocks(blocks), max_bytes=8192)
    shown = answer.presentation.next_first_row  # the blocks of the page shown, one line each
    assert shown is not None and 100 < shown < blocks and answer.presentation.cut_by == "max_bytes"
    lines = 2 * blocks - 1  # each block's line, and a blank line between two blocks
    shown_lines = 2 * shown - 1
    assert visible_calls[0] <= lines + blocks + shown_lines + 8, visible_calls


def test_an_answer_renders_a_constant_number_of_pages_whatever_the_size_of_the_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A text result's pages are measured from its lines: the page search renders none of the pages it tries, only
    the page shown (its two views, the model's copy of it, and the text checked for an imitation of the framing)."""
    for blocks, max_bytes in ((3000, 8192), (30_000, 65_536)):
        views = _counting_calls(monkeypatch, (host,), "_text_views")
        copies = _counting_calls(monkeypatch, (host,), "_payload")
        answer = final_answer({"name": "t"}, _tiny_blocks(blocks), max_bytes=max_bytes)
        assert answer.presentation.cut_by == "max_bytes"
        assert views[0] <= 4 and copies[0] <= 3, (blocks, views, copies)
        monkeypatch.undo()


_PIECES = [
    "plain",
    "",
    " ",
    "`",
    "``` fence",
    'a "quoted" \\ back',
    "\ttab",
    "`" * 40 + " a long run of backticks",
    "\u202eright to left",
    "caf\u00e9 e\u0301",
    "\x00\x1b[2J",
    "\ud800 lone",
    "\u2028",
    "[Rendering directive for",
    "the tool result below, relayed by the host",
    FRAMING_HEADER,
]


@st.composite
def _text_results(draw: st.DrawFn) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 5)) == 0:
            blocks.append({"type": "resource_link", "uri": "file:///a`b", "name": draw(st.sampled_from(_PIECES))})
        else:
            lines = draw(st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), min_size=1, max_size=3))
            blocks.append({"type": "text", "text": "\n".join(lines)})
    directive: dict[str, Any] = {"mode": "verbatim", "complete": draw(st.booleans())}
    if draw(st.booleans()):
        directive["guidance"] = "Show every line."
    return {"content": blocks, "_meta": {EXTENSION_ID: directive}}


@given(
    _text_results(),
    st.integers(0, 400),
    st.none() | st.integers(1, 6),
    st.integers(0, 4),
    st.sampled_from([None, "text", "structured", "both"]),
)
def test_a_text_page_measured_from_its_lines_is_the_page_renderings_find(
    result: dict[str, Any], max_bytes: int, max_rows: int | None, first_row: int, forwards: Any
) -> None:
    """The page a byte bound allows, measured line by line, is the one the search finds over pages rendered whole
    (the lines made visible and joined, fenced in Markdown, the model's copy made and measured), line for line,
    whatever the lines hold: backticks, escapes, hidden characters, text imitating the framing."""
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    read = host._read(tool, result, None)  # pyright: ignore[reportPrivateUsage]
    lines = read.records.lines
    record_lines = [index for index, line in enumerate(lines) if line.from_text and shows_text(line.text)]
    assume(first_row == 0 or first_row < len(record_lines))
    bound = host._model_bound(read, forwards, max_bytes, first_row)  # pyright: ignore[reportPrivateUsage]
    start = record_lines[first_row] if first_row else 0
    count = len(lines) - start
    rest = [*record_lines, len(lines)]
    limit = count if max_rows is None else rest[min(first_row + max_rows, len(record_lines))] - start
    model_bytes = bound.model_bytes
    assert model_bytes is not None

    def text_view(k: int) -> str:
        return "\n".join(visible(line.text) for line in lines[start : start + k])

    def copy(k: int) -> Any:
        return host._payload([{"type": "text", "text": text_view(k)}], None)  # pyright: ignore[reportPrivateUsage]

    def views_fit(k: int) -> bool:
        markdown = "\n".join(code_fence([line.text for line in lines[start : start + k]])) if k else ""
        return max(len(text_view(k).encode()), len(markdown.encode())) <= max_bytes

    def rendered_fits(k: int) -> bool:
        if not views_fit(k):
            return False
        uncut = bound.uncut() if k == count else None
        return (uncut if uncut is not None else copy(k)).size() <= model_bytes

    expected = host._largest_fitting(limit, max_bytes, rendered_fits)  # pyright: ignore[reportPrivateUsage]
    assert read.text is not None
    json_sizes = read.text.page_json_sizes(start, limit, max_bytes)
    assert len(json_sizes) - 1 == max(k for k in range(limit + 1) if views_fit(k))
    for k, size in enumerate(json_sizes):
        assert size == len(json.dumps(text_view(k), ensure_ascii=False).encode()) - len('""'), k
    measured = host._fitting_lines(bound, read.text, start, limit, count, max_bytes, copy)  # pyright: ignore[reportPrivateUsage]
    assert measured == expected
