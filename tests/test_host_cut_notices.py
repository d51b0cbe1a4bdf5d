"""The notice of a presentation the host's bounds or `first_row` cut, for every combination of what the server said
of completeness, which bound cut it (or none), what the records are, and which slice of the page is shown: each
states what the host shows, why, what it leaves out and what the server said, and nothing the server did not say.
The user's text, the Markdown view, the model's framing and the final answer built from the presentation agree."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Literal

import pytest

from mcp_rendering.host import OVER_BOUND, UNSTATED_COMPLETENESS, Presentation, present
from mcp_rendering.integrations.answer import NARROWER_QUERY, final_answer
from mcp_rendering.render import markdown_escape
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, PARTIAL_MARKER

State = Literal["complete", "partial-continued", "partial-unfetchable", "unstated-hint", "unstated-directive"]
Kind = Literal["records", "lines", "over-bound", "over-bound-lines"]
Host = Literal["rows", "bytes", "none"]
Slice = Literal["first", "middle", "last"]

TOKEN = "tok.123"
TOOL = {
    "name": "t",
    "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}},
    "_meta": {EXTENSION_ID: {"verbatimHint": True}, CONTINUATION_ID: {"argument": "cursor"}},
}
META: dict[State, dict[str, Any] | None] = {
    "complete": {EXTENSION_ID: {"mode": "verbatim", "complete": True}},
    "partial-continued": {
        EXTENSION_ID: {"mode": "verbatim", "complete": False},
        CONTINUATION_ID: {"argument": "cursor", "token": TOKEN},
    },
    "partial-unfetchable": {EXTENSION_ID: {"mode": "verbatim", "complete": False}},
    "unstated-hint": None,  # the tool's verbatim hint, no result directive
    "unstated-directive": {EXTENSION_ID: {"mode": "verbatim"}},  # a directive without `complete`
}
STATES: tuple[State, ...] = tuple(META)
OVER_BOUND_BYTES = 2000
SIZES: dict[Slice, list[int]] = {"first": [5000, 5, 5, 5, 5], "middle": [5, 5000, 5, 5, 5], "last": [5, 5, 5, 5, 5000]}
"""For a record over the byte bound by itself: where it lies, so that the slice showing it alone is that slice."""


def _wire(state: State, kind: Kind, slice_: Slice) -> dict[str, Any]:
    sizes = SIZES[slice_] if kind.startswith("over-bound") else [200] * 5
    values = [f"r{index}-" + "x" * size for index, size in enumerate(sizes)]
    wire: dict[str, Any]
    if kind in ("lines", "over-bound-lines"):
        wire = {"content": [{"type": "text", "text": "\n".join(values)}]}
    else:
        wire = {"content": [], "structuredContent": {"rows": [{"a": value} for value in values]}}
    meta = META[state]
    if meta is not None:
        wire["_meta"] = meta
    return wire


def _shown(presentation: Presentation) -> int:
    return 5 if presentation.next_first_row is None else presentation.next_first_row


@functools.cache
def _byte_bound(state: State, kind: Kind) -> int:
    """The least `max_bytes` under which the first page shows two records: then the byte bound, not the row bound,
    is what cuts it."""
    low, high = 0, 20_000
    while low < high:
        middle = (low + high) // 2
        if _shown(present(TOOL, _wire(state, kind, "first"), arguments={}, max_bytes=middle)) >= 2:
            high = middle
        else:
            low = middle + 1
    return low


def _bounds(state: State, kind: Kind, host: Host) -> tuple[int | None, int | None]:
    if kind.startswith("over-bound"):
        return None, OVER_BOUND_BYTES
    return {"rows": (2, None), "bytes": (None, _byte_bound(state, kind)), "none": (None, None)}[host]


def _first_row(kind: Kind, host: Host, slice_: Slice) -> int:
    if kind.startswith("over-bound"):
        return {"first": 0, "middle": 1, "last": 4}[slice_]
    return {"first": 0, "middle": 2, "last": 3}[slice_]


def _extent(kind: Kind, slice_: Slice) -> str:
    if kind == "over-bound":
        return {"first": "1 of 5 records", "middle": "record 2 of 5", "last": "record 5 of 5"}[slice_]
    if kind == "over-bound-lines":
        return {"first": "the first 1 of 5 lines", "middle": "line 2 of 5", "last": "line 5 of 5"}[slice_]
    if kind == "lines":
        return {"first": "the first 2 of 5 lines", "middle": "lines 3 to 4 of 5", "last": "lines 4 to 5 of 5"}[slice_]
    return {"first": "2 of 5 records", "middle": "records 3 to 4 of 5", "last": "records 4 to 5 of 5"}[slice_]


def _expected_notices(
    state: State, kind: Kind, host: Host, slice_: Slice, max_bytes: int | None
) -> tuple[str | None, str | None]:
    """The user's notice and the model's, as each combination must word them."""
    unit = "lines" if kind in ("lines", "over-bound-lines") else "records"
    continued = 'The rest can be fetched from the tool "t".'
    continued_for_model = (
        f'To get the rest, call the tool "t" again with the same arguments plus {{"cursor": "{TOKEN}"}}.'
    )
    if host == "none" and slice_ == "first":  # nothing cut: the notices of an uncut result
        if state == "complete":
            return None, None
        if state.startswith("unstated"):
            return UNSTATED_COMPLETENESS, UNSTATED_COMPLETENESS
        extent = "it shows the first 5 records only" if kind == "records" else "it shows only part of the records"
        if state == "partial-continued":
            return f"{PARTIAL_MARKER} {extent}. {continued}", f"{PARTIAL_MARKER} {extent}. {continued_for_model}"
        notice = f"{PARTIAL_MARKER} {extent}. The server gave no way to fetch the rest."
        return notice, notice
    of = {"complete": " of a result the server sent whole", "partial": " of this page of a partial result"}
    cut = slice_ != "last"
    why = ""
    over_bound = kind.startswith("over-bound")
    if not over_bound and cut:
        why = (
            f" (the host's bound: 2 {unit})"
            if host == "rows"
            else f" (as many as fit the host's bound of {max_bytes} bytes)"
        )
    rest = {"complete": "the rest of this result", "partial": "the rest of this page"}
    server = "partial" if state.startswith("partial") else state if state == "complete" else "not-stated"
    left = {
        "first": f"{rest.get(server, 'the rest of what the server sent')} is not shown here",
        "middle": f"the {unit} before and after these are not shown here",
        "last": f"the {unit} before these are not shown here",
    }[slice_]
    head = f"{PARTIAL_MARKER} this host shows {_extent(kind, slice_)}{of.get(server, '')}{why}; {left}."
    withheld = " 1 content block was not forwarded to the model: over the host's size bound." * over_bound
    said = {
        "complete": ("", ""),
        "not-stated": (f" {UNSTATED_COMPLETENESS}",) * 2,
        "partial-unfetchable": (" The server gave no way to fetch the rest.",) * 2,
        "partial-continued": (
            (" More follows from the server, to be fetched once this page has been shown in full.",) * 2
            if cut
            else (f" {continued}", f" {continued_for_model}")
        ),
    }[server if server != "partial" else state]
    over = ""
    if over_bound:
        number = {"first": 1, "middle": 2, "last": 5}[slice_]
        over = f" {'Line' if unit == 'lines' else 'Record'} {number} {OVER_BOUND}."
    return head + withheld + said[0] + over, head + withheld + said[1]


def _never(state: State) -> list[str]:
    """What a notice for a result in `state` never says."""
    if state == "complete":
        return ["partial result", "More follows", UNSTATED_COMPLETENESS, "did not say", "gave no way", "fetch"]
    if state.startswith("unstated"):
        return ["partial result", "More follows", "sent whole", "gave no way", "fetch", "of this page"]
    if state == "partial-unfetchable":
        return ["sent whole", UNSTATED_COMPLETENESS, "More follows", "can be fetched"]
    return ["sent whole", UNSTATED_COMPLETENESS, "gave no way"]


COMBINATIONS = [
    (state, kind, host, slice_)
    for state in STATES
    for kind, host in [
        ("records", "rows"),
        ("lines", "rows"),
        ("records", "bytes"),
        ("lines", "bytes"),
        ("over-bound", "bytes"),
        ("over-bound-lines", "bytes"),
        ("records", "none"),
        ("lines", "none"),
    ]
    for slice_ in ("first", "middle", "last")
    if not (host == "none" and slice_ == "middle")  # without a bound, a slice from `first_row` runs to the end
]


@pytest.mark.parametrize(("state", "kind", "host", "slice_"), COMBINATIONS)
def test_the_notice_states_what_the_host_shows_and_only_what_the_server_said(
    state: State, kind: Kind, host: Host, slice_: Slice
) -> None:
    max_rows, max_bytes = _bounds(state, kind, host)
    first_row = _first_row(kind, host, slice_)
    presentation = present(
        TOOL, _wire(state, kind, slice_), arguments={}, max_rows=max_rows, max_bytes=max_bytes, first_row=first_row
    )
    expected_user, expected_model = _expected_notices(state, kind, host, slice_, max_bytes)
    assert presentation.notice == expected_user
    assert presentation.server_completeness == (
        "complete" if state == "complete" else "partial" if state.startswith("partial") else "not-stated"
    )
    cut = slice_ != "last" and host != "none"
    assert presentation.cut_by == (None if not cut else "max_rows" if host == "rows" else "max_bytes")
    assert presentation.withheld_blocks == (1 if kind.startswith("over-bound") else 0)
    # The user's two views open with the notice; the token is never in them.
    text, markdown = presentation.text, presentation.markdown
    if expected_user is None:
        assert not text.startswith(PARTIAL_MARKER) and not markdown.startswith(">")
    else:
        assert text.startswith(f"{expected_user}\n\n")
        assert markdown.startswith(f"> {markdown_escape(expected_user)}\n\n")
    assert TOKEN not in text + markdown
    # The model reads the same facts, in the framing placed first.
    framing = presentation.framing
    assert framing is not None and presentation.model_result["content"][0]["text"] == framing
    if expected_model is not None:
        assert expected_model in framing
        if expected_model.startswith(PARTIAL_MARKER):
            assert f'begin your presentation with a line that starts with "{PARTIAL_MARKER}"' in framing
        else:
            assert "Do not present it as the whole result, nor say that records are missing." in framing
    assert (TOKEN in framing) == (state == "partial-continued" and not cut)
    for words in _never(state):
        assert words not in (presentation.notice or "").removeprefix(PARTIAL_MARKER), words
        assert words not in framing, words


@pytest.mark.parametrize(
    ("state", "kind", "host", "slice_"),
    [combination for combination in COMBINATIONS if not combination[1].startswith("over-bound")],
)
def test_the_final_answer_states_the_same_facts(state: State, kind: Kind, host: Host, slice_: Slice) -> None:
    """The final answer words its own notice (an answer cannot be paged by the user) from the presentation's facts:
    the same extent, the same bound and the same word of the server's."""
    max_rows, max_bytes = _bounds(state, kind, host)
    first_row = _first_row(kind, host, slice_)
    answer = final_answer(
        TOOL, _wire(state, kind, slice_), arguments={}, max_rows=max_rows, max_bytes=max_bytes, first_row=first_row
    )
    notices = [line for line in answer.text.split("\n\n") if line.startswith((PARTIAL_MARKER, UNSTATED_COMPLETENESS))]
    unstated = state.startswith("unstated")
    if host == "none" and slice_ == "first":
        expected = _expected_notices(state, kind, host, slice_, max_bytes)[0]
        assert notices == ([] if expected is None else [expected])
        return
    of = (
        "a result the server sent whole"
        if state == "complete"
        else "a result the server did not say was whole"
        if unstated
        else "one page of a partial result"
    )
    if slice_ == "last":
        bound = "; what comes before is not in it"
    elif host == "rows":
        bound = f" (this host's bound: {max_rows} per answer); the others are not in it"
    else:
        bound = f" (as many as fit this host's bound of {max_bytes} bytes per answer); the others are not in it"
    after = ", nor what the server has after this page" if state.startswith("partial") else ""
    assert notices == [
        f"{PARTIAL_MARKER} this answer shows {_extent(kind, slice_)} of {of}{bound}{after}. {NARROWER_QUERY}"
    ]
    assert not answer.complete


def test_the_host_guides_example_notice_is_present_s() -> None:
    guide = (Path(__file__).parent.parent / "docs" / "host-guide.md").read_text(encoding="utf-8")
    presentation = present(TOOL, _wire("unstated-hint", "records", "first"), arguments={}, max_rows=2)
    assert presentation.notice is not None
    quoted = re.search(r"^> Partial result: this host shows 2 of 5 .*?(?=\n\n)", guide, re.MULTILINE | re.DOTALL)
    assert (
        quoted is not None
        and " ".join(quoted[0].replace("\n> ", " ").removeprefix("> ").split()) == presentation.notice
    )


@pytest.mark.parametrize(
    ("rows", "extent"), [(1, "it shows the first record only"), (2, "it shows the first 2 records only")]
)
def test_a_partial_results_notice_counts_its_records_in_words_that_agree(rows: int, extent: str) -> None:
    result = {
        "content": [],
        "structuredContent": {"rows": [{"label": f"r{i}"} for i in range(rows)]},
        "_meta": {EXTENSION_ID: {"mode": "verbatim", "complete": False}},
    }
    notice = present(None, result).notice
    assert notice == f"{PARTIAL_MARKER} {extent}. The server gave no way to fetch the rest."


@pytest.mark.parametrize(("kind", "unit"), [("records", "record"), ("lines", "line")])
@pytest.mark.parametrize("max_rows", [1, 2])
def test_the_host_bound_is_counted_in_words_that_agree(kind: Kind, unit: str, max_rows: int) -> None:
    notice = present(TOOL, _wire("complete", kind, "first"), arguments={}, max_rows=max_rows).notice
    counted = f"{max_rows} {unit}" if max_rows == 1 else f"{max_rows} {unit}s"
    assert notice is not None and f" (the host's bound: {counted}); " in notice
