"""The model bound: the least `max_bytes` under which the model receives a structured result whole, or a later
page's records, is the size of that payload as forwarded, plus the directive's server members, which the framing
relays in every channel; a larger bound never gives the model fewer records; a bound on rows that cuts nothing
leaves the result as sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_rendering.host import Presentation, present
from mcp_rendering.types import EXTENSION_ID

ROWS = {"rows": [{"label": f"r{i}", "note": '"' * 100} for i in range(4)]}
"""Records whose copy for the model is larger than the user's views of them (JSON writes each quote as two bytes): the
payload, not the views, meets the bound first."""
RESULT = {"content": [{"type": "text", "text": json.dumps(ROWS)}], "structuredContent": ROWS}
CHANNELS = [None, "text", "structured", "both"]


def _directed(**members: Any) -> dict[str, Any]:
    return {**RESULT, "_meta": {EXTENSION_ID: {"mode": "summarizable", **members}}}


def _payload_bytes(presentation: Presentation) -> int:
    """What `max_bytes` counts of the model's copy besides the directive's server members: compact UTF-8 JSON
    without the host's framing block and without the directive's copy (each block with its comma, as if after the
    framing)."""
    forwarded = dict(presentation.model_result)
    content = forwarded["content"][1:] if presentation.framing is not None else forwarded["content"]
    forwarded["content"] = content
    structured = forwarded.get("structuredContent")
    if structured is not None:
        forwarded["structuredContent"] = {k: v for k, v in structured.items() if k != "_rendering"}
    dumped = json.dumps(forwarded, ensure_ascii=False, separators=(",", ":"))
    return len(dumped.encode()) - len('{"content":[]}') + (1 if content else 0)


def _least_bound(result: dict[str, Any], forwards: Any, *, first_row: int = 0) -> int:
    """The least `max_bytes` under which the model receives what it receives with no bound."""
    whole = present(None, result, forwards=forwards, first_row=first_row).model_result
    low, high = 0, 100_000
    while low < high:
        middle = (low + high) // 2
        if present(None, result, max_bytes=middle, forwards=forwards, first_row=first_row).model_result == whole:
            high = middle
        else:
            low = middle + 1
    return low


@pytest.mark.parametrize("forwards", CHANNELS)
def test_the_least_bound_forwarding_a_structured_result_whole_is_its_payload(forwards: Any) -> None:
    assert _least_bound(RESULT, forwards) == _payload_bytes(present(None, RESULT, forwards=forwards))


def _member_bytes(**members: str) -> int:
    """The bytes the directive's server members add as the directive writes them: `,"name":"value"` each."""
    return sum(
        len(json.dumps({name: value}, ensure_ascii=False, separators=(",", ":")).encode()) - 1
        for name, value in members.items()
    )


@pytest.mark.parametrize("members", [{"guidance": "g" * 50}, {"nullDisplay": "n" * 10}, {"guidance": "\u20ac" * 100}])
@pytest.mark.parametrize("forwards", CHANNELS)
def test_the_servers_members_of_the_directive_take_their_bytes_in_every_channel(
    forwards: Any, members: dict[str, str]
) -> None:
    """The framing relays the server's guidance and null text whichever part the host forwards: the least bound
    under which the records reach the model whole is their payload plus those members, as the directive writes
    them."""
    directed = _directed(**members)
    payload = _payload_bytes(present(None, directed, forwards=forwards))
    assert _least_bound(directed, forwards) == payload + _member_bytes(**members)


def _records_to_model(presentation: Presentation) -> int:
    copy = presentation.model_result.get("structuredContent") or {}
    if "rows" in copy:
        return len(copy["rows"])
    return sum(len(section["rows"]) for section in copy.get("document", {}).get("sections", []))


@pytest.mark.parametrize("forwards", [None, "structured"])
def test_a_larger_bound_never_gives_the_model_fewer_records(forwards: Any) -> None:
    """Around the bytes of the server's members too: below them no record fits, above them the records come in
    order as the bound grows."""
    directed = _directed(guidance="\u20ac" * 1000)  # the longest the schema allows, 3,013 bytes: more than the records
    counts = [
        _records_to_model(present(None, directed, max_bytes=bound, forwards=forwards)) for bound in range(0, 6000, 8)
    ]
    assert counts == sorted(counts)
    assert counts[0] == 0 and counts[-1] == len(ROWS["rows"])


@pytest.mark.parametrize("forwards", CHANNELS)
def test_a_bound_below_the_servers_members_relays_them_with_no_record(forwards: Any) -> None:
    guidance = "\u20ac" * 1000
    presentation = present(None, _directed(guidance=guidance), max_bytes=2500, forwards=forwards)
    assert _payload_bytes(present(None, RESULT, forwards=forwards)) <= 2500  # the records alone would fit
    assert _records_to_model(presentation) == 0
    assert presentation.framing is not None and guidance in presentation.framing
    assert presentation.notice is not None and "not forwarded to the model" in presentation.notice


@pytest.mark.parametrize("forwards", CHANNELS)
def test_the_least_bound_giving_a_later_page_all_its_records_is_that_pages_payload(forwards: Any) -> None:
    """A later page is never the result as sent, whatever the bound: its records are measured as the host's copy of
    them, which is what the model receives."""
    later = present(None, RESULT, forwards=forwards, first_row=1)
    assert later.next_first_row is None  # the rest of the records, all on this page
    assert _least_bound(RESULT, forwards, first_row=1) == _payload_bytes(later)


@pytest.mark.parametrize("max_bytes", [None, 1_000_000])
@pytest.mark.parametrize("forwards", CHANNELS)
def test_a_row_bound_of_exactly_every_record_cuts_nothing(forwards: Any, max_bytes: int | None) -> None:
    bounded = present(None, RESULT, max_rows=len(ROWS["rows"]), max_bytes=max_bytes, forwards=forwards)
    assert bounded.model_result == present(None, RESULT, forwards=forwards).model_result
    assert bounded.extent is None and not bounded.host_bounded
