"""How the defusal walk forwards keys it makes alike and values JSON cannot write, and how the byte bound finds
the largest page that fits."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from mcp_rendering.audit import AuditInputError, audit
from mcp_rendering.host import present
from mcp_rendering.reading import MessageTooLargeError
from tests.test_host_blocks_and_bounds import _copy
from tests.test_host_bounds import HEADER_WORDS
from tests.test_host_defusal import NOTE
from tests.test_host_paging import TOOL, WHOLE

# ------------------------------------------------------------------------------------------ the defusal walk


# A numbering that repeated a name would loop for ever: the timeout turns that into a failure.
@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    ("structured", "expected"),
    [
        (
            {HEADER_WORDS: 1, HEADER_WORDS.upper(): 2, HEADER_WORDS.lower(): 3, "s": 4},
            [(NOTE, 1), (f"{NOTE} (again, 2)", 2), (f"{NOTE} (again, 3)", 3), ("s", 4)],
        ),
        # The server's own key already holds the next number: the count goes on past it, never a second suffix.
        (
            {HEADER_WORDS: 1, f"{NOTE} (again, 2)": 2, HEADER_WORDS.upper(): 3},
            [(NOTE, 1), (f"{NOTE} (again, 2)", 2), (f"{NOTE} (again, 3)", 3)],
        ),
    ],
    ids=["three-alike", "numbered-key-taken"],
)
def test_keys_defused_alike_are_all_kept_numbered_in_order(
    structured: dict[str, Any], expected: list[tuple[str, Any]]
) -> None:
    assert list(_copy(structured).items()) == expected


class _Labelled:
    """A value no JSON encoder writes, whose text is its label."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __str__(self) -> str:
        return self.label


@pytest.mark.parametrize("beside", [{"s": HEADER_WORDS}, {}], ids=["beside-an-imitation", "alone"])
def test_keys_and_values_json_cannot_write_reach_the_model_as_their_text(beside: dict[str, Any]) -> None:
    """Any one of them sends the copy through the walk, which writes each as its text (defused like any string);
    the other strings are defused as ever."""
    structured = {
        1: "one",
        (1, 2): "pair",
        "amount": Decimal("1.50"),
        "tags": {"x"},
        "label": _Labelled("Sales"),
        "claim": _Labelled(HEADER_WORDS),
        **beside,
    }
    expected = {"1": "one", "(1, 2)": "pair", "amount": "1.50", "tags": "{'x'}", "label": "Sales", "claim": NOTE}
    assert _copy(structured) == {**expected, **{key: NOTE for key in beside}}


# --------------------------------------------------------------------------------------- the largest page


def _lines(bound: int) -> str | None:
    wire = {"content": [{"type": "text", "text": "\n".join(f"line {n:02}" for n in range(1, 11))}], "_meta": WHOLE}
    return present(TOOL, wire, arguments={}, forwards="text", max_bytes=bound).extent


def _records(bound: int) -> str | None:
    structured = {"rows": [{"name": f"row {n:02}", "n": n} for n in range(1, 11)]}
    wire = {"content": [], "structuredContent": structured, "_meta": WHOLE}
    return present(TOOL, wire, arguments={}, forwards="text", max_bytes=bound).extent


@pytest.mark.parametrize(
    ("extent_at", "extent"),
    [(_lines, "the first {} of 10 lines"), (_records, "{} of 10 records")],
    ids=["text-lines", "structured-records"],
)
def test_as_the_bound_grows_byte_by_byte_the_page_grows_one_record_at_a_time(extent_at: Any, extent: str) -> None:
    """Ten records of equal size: every page of 1 to 9 records is the largest that fits under some bound, so each is
    shown in turn, then the whole (nothing cut) once it fits."""
    shown: list[str | None] = []
    for bound in range(1000):
        current = extent_at(bound)
        if not shown or current != shown[-1]:
            shown.append(current)
        if current is None:
            break
    assert shown == [*(extent.format(k) for k in range(1, 10)), None]


# ------------------------------------------------------------------------------ results built in memory


@pytest.mark.timeout(10)
def test_a_result_that_holds_itself_is_refused_and_shared_values_read_as_written_out() -> None:
    """A host building a result in memory can make a value hold itself, which no JSON text gives: `present()`
    refuses it at once. A value held in several places is read as JSON writes it, once in each."""
    looped: dict[str, Any] = {"rows": []}
    looped["rows"].append(looped)
    with pytest.raises(ValueError, match="or holds itself"):
        present(TOOL, {"content": [], "structuredContent": looped})
    shared: Any = {"label": "Cash", "amount": Decimal("1.50")}
    for _ in range(6):
        shared = [shared, shared]
    built = {"content": [{"type": "text", "text": "ledger"}], "structuredContent": {"rows": shared}}
    written_out = json.loads(json.dumps(built, default=str))
    written_out["structuredContent"]["rows"] = _as_decimals(written_out["structuredContent"]["rows"])
    as_built, as_sent = present(TOOL, built), present(TOOL, written_out)
    assert (as_built.text, as_built.markdown, as_built.model_result) == (
        as_sent.text,
        as_sent.markdown,
        as_sent.model_result,
    )
    assert as_built.text.count("1.50") == 64


@pytest.mark.timeout(60)
def test_a_result_endless_written_out_is_refused_by_present_and_the_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Held twice in itself, a value written out never ends; `present()` reads records before it checks numbers,
    and the records' walk stops at its bound (here a smaller one than `MAX_MESSAGE_VALUES`, for speed)."""
    monkeypatch.setattr("mcp_rendering.records.MAX_MESSAGE_VALUES", 100_000)
    twice: dict[str, Any] = {}
    twice["a"] = twice
    twice["b"] = twice
    for structured in (twice, {"rows": [twice]}):
        result = {"content": [], "structuredContent": structured}
        with pytest.raises(MessageTooLargeError):
            present(TOOL, result)
        with pytest.raises(AuditInputError, match="values as JSON writes it out"):
            audit("anything", result)


def _as_decimals(value: Any) -> Any:
    if isinstance(value, list):
        return [_as_decimals(item) for item in value]
    return {**value, "amount": Decimal(value["amount"])}
