"""The model bound: the least `max_bytes` under which the model receives a structured result whole, or a later
page's records, is the size of that payload as forwarded; the server's words the host's framing quotes take none of
it, however long; a larger bound never gives the model fewer records; a bound on rows that cuts nothing leaves the
result as sent."""

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


@pytest.mark.parametrize(
    "members",
    [
        {"guidance": "g" * 50},
        {"nullDisplay": "n" * 10},
        {"guidance": "\u20ac" * 1000},  # the longest the schema allows, 3,013 bytes: more than the records
        {"complete": False, "guidance": "g" * 500},
    ],
)
@pytest.mark.parametrize("forwards", CHANNELS)
def test_the_servers_members_of_the_directive_take_none_of_the_bound(forwards: Any, members: dict[str, Any]) -> None:
    """The framing and the directive's copy, which quote the server's guidance and null text, come on top of the
    bound: the least bound under which the records reach the model whole is their payload alone, in every part the
    host forwards, however long the server's words."""
    directed = _directed(**members)
    assert _least_bound(directed, forwards) == _payload_bytes(present(None, directed, forwards=forwards))


def _records_to_model(presentation: Presentation) -> int:
    """How many of the records the model's copy holds, in whichever part: the labels found outside the host's
    framing block and directive copy."""
    forwarded = dict(presentation.model_result)
    if presentation.framing is not None:
        forwarded["content"] = forwarded["content"][1:]
    structured = forwarded.get("structuredContent")
    if structured is not None:
        forwarded["structuredContent"] = {k: v for k, v in structured.items() if k != "_rendering"}
    dumped = json.dumps(forwarded)
    return sum(1 for row in ROWS["rows"] if f"{row['label']}" in dumped)


@pytest.mark.parametrize("forwards", CHANNELS)
def test_a_larger_bound_never_gives_the_model_fewer_records(forwards: Any) -> None:
    directed = _directed(guidance="\u20ac" * 1000)
    counts = [
        _records_to_model(present(None, directed, max_bytes=bound, forwards=forwards)) for bound in range(0, 6000, 40)
    ]
    assert counts == sorted(counts)
    assert counts[0] == 0 and counts[-1] == len(ROWS["rows"])


@pytest.mark.parametrize("forwards", CHANNELS)
def test_guidance_longer_than_the_bound_leaves_the_records_and_the_users_page_whole(forwards: Any) -> None:
    """A server's own words never crowd its records out, from the model's copy or from the user's page."""
    guidance = "\u20ac" * 1000
    bound = _payload_bytes(present(None, RESULT, forwards=forwards))
    assert bound < len(guidance.encode())
    presentation = present(None, _directed(guidance=guidance, complete=True), max_bytes=bound, forwards=forwards)
    assert _records_to_model(presentation) == len(ROWS["rows"])
    assert presentation.notice is None and presentation.next_first_row is None
    assert presentation.framing is not None and guidance in presentation.framing


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
