"""The server's check of a verbatim result against `VerbatimContent`: by construction when the content is as
`verbatim_result` built it, in full as soon as anything in it changed."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import anyio
import mcp_types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import StrictBool, StrictFloat, StrictInt, StrictStr, TypeAdapter, ValidationError

import mcp_rendering
from mcp_rendering import builder
from mcp_rendering.builder import VerbatimContent, paged_result, verbatim_result
from mcp_rendering.document import MAX_EXACT_JSON_INT, Document, Row, Section
from mcp_rendering.envelope import Budget, Envelope, Page
from mcp_rendering.tokens import ContinuationTokens, Keyring
from mcp_rendering.types import Rendering
from tests.support.spy import calls_of

CHECK = TypeAdapter(VerbatimContent)  # what the SDK builds for `-> Annotated[CallToolResult, VerbatimContent]`


@pytest.fixture(autouse=True)
def _clean_sdk() -> Iterator[None]:
    mcp_rendering.uninstall()
    yield
    mcp_rendering.uninstall()


def ledger(rows: int = 30) -> Document:
    body = tuple(Row(id=f"r{n}", label=f"Account {n}", values=(n, None if n % 3 else "EUR")) for n in range(rows))
    return Document(title="Ledger", sections=(Section(id="s", title="Part 1", columns=("amount", "ccy"), rows=body),))


def paged() -> mcp_types.CallToolResult:
    envelope = Envelope(
        tool="ledger",
        tokens=ContinuationTokens(Keyring.single(b"verbatim-check-key-0123456789")),
        budget=Budget(max_bytes=1_500),
    )
    return paged_result(
        envelope, ledger(), arguments={}, caller="alice", directive=Rendering(mode="verbatim", complete=True)
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda: verbatim_result(ledger(), Rendering(mode="verbatim", guidance="Keep every row.", complete=True)),
        lambda: verbatim_result(ledger(), Rendering(mode="verbatim", complete=False)),
        paged,
    ],
    ids=["whole", "stated incomplete", "page"],
)
def test_unchanged_content_reads_as_the_model_a_full_validation_gives(build: Callable[[], Any]) -> None:
    structured = build().structured_content
    assert structured is not None
    assert CHECK.validate_python(structured) == VerbatimContent.model_validate(dict(structured))


# The cells as the plain union writes them, member by member: what `Cell`'s by-type writer must match.
_UNION_CELLS = TypeAdapter(tuple[StrictStr | StrictInt | StrictFloat | StrictBool | None, ...])
_cells = st.lists(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    max_size=8,
)


@given(_cells)
def test_cells_are_written_as_the_union_of_their_types_writes_them(values: list[Any]) -> None:
    row = Row(id="r", label="x", values=tuple(values))
    written = json.loads(row.model_dump_json())["values"]
    # An int beyond +-2**53 travels as the string of its digits: many JSON readers would round it.
    as_sent = tuple(
        str(v) if type(v) is int and abs(v) > MAX_EXACT_JSON_INT and v.bit_length() <= 12_000 else v for v in values
    )
    expected = json.loads(_UNION_CELLS.dump_json(as_sent))
    assert repr(written) == repr(expected)  # repr tells 1, 1.0 and True apart
    assert repr(row.model_dump(mode="json")["values"]) == repr(expected)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
def test_a_cell_json_cannot_carry_is_refused_when_the_row_is_built(value: float) -> None:
    with pytest.raises(ValidationError):
        Row(id="r", label="x", values=(value,))


def _set_cell(structured: dict[str, Any], value: Any) -> None:
    structured["document"]["sections"][0]["rows"][0]["values"][0] = value


def test_content_changed_after_building_is_validated_in_full() -> None:
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    _set_cell(structured, {"not": "a cell"})
    with pytest.raises(ValidationError, match="values"):
        CHECK.validate_python(structured)
    _set_cell(structured, 41)  # changed, yet valid: the full validation passes it, with the new value
    assert CHECK.validate_python(structured).document.sections[0].rows[0].values[0] == 41
    structured["page"]["returned"] = -1
    with pytest.raises(ValidationError, match="returned"):
        CHECK.validate_python(structured)


def test_a_copy_is_validated_in_full() -> None:
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    copied = dict(structured)
    copied["document"] = {"title": 7}
    with pytest.raises(ValidationError, match="title"):
        CHECK.validate_python(copied)


def test_the_server_still_refuses_a_result_broken_after_building() -> None:
    server = MCPServer("ledger")

    @server.tool()
    def whole() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        return verbatim_result(ledger())

    @server.tool()
    def broken() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        result = verbatim_result(ledger())
        assert result.structured_content is not None
        _set_cell(result.structured_content, ["nested"])
        return result

    async def call(name: str) -> mcp_types.CallToolResult:
        async with Client(server) as client:
            return await client.call_tool(name, {})

    good = anyio.run(call, "whole")
    assert not good.is_error and good.structured_content is not None
    assert good.structured_content["page"] == {"complete": True, "returned": 30, "total": 30}
    bad = anyio.run(call, "broken")
    assert bad.is_error and bad.structured_content is None


def _set_second_cell(structured: dict[str, Any], value: Any) -> None:
    structured["document"]["sections"][0]["rows"][1]["values"][0] = value  # the integer 1 as built


@pytest.mark.parametrize("value", [True, 1.0], ids=["bool", "float"])
def test_a_value_equal_to_the_built_one_but_of_another_type_is_validated_in_full(value: Any) -> None:
    # `True == 1 == 1.0`: the seal must not take either for the 1 it built.
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    _set_second_cell(structured, value)
    checked = CHECK.validate_python(structured).document.sections[0].rows[1].values[0]
    assert type(checked) is type(value) and repr(checked) == repr(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf")], ids=["nan", "inf"])
def test_a_value_json_cannot_carry_put_in_place_of_the_built_one_is_refused(value: float) -> None:
    # pydantic's JSON would write either as null, which the seal's byte comparison could take for a built null.
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    _set_second_cell(structured, value)
    with pytest.raises(ValidationError):
        CHECK.validate_python(structured)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda s: _set_second_cell(s, {1}),  # no JSON form at all
        lambda s: s["document"]["sections"][0]["rows"][1].__setitem__(1, "extra"),  # a key that is not a string
        lambda s: s["document"]["sections"][0]["rows"][1].__setitem__("id", "\ud800"),  # a lone surrogate
    ],
    ids=["set", "integer key", "lone surrogate"],
)
def test_content_the_seal_cannot_compare_is_validated_in_full(spoil: Callable[[dict[str, Any]], None]) -> None:
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    spoil(structured)
    try:
        checked = CHECK.validate_python(structured)
    except ValidationError:
        return
    # Only a value the full validation accepts may pass, and then as the full validation read it.
    assert checked == VerbatimContent.model_validate(dict(structured))


def test_content_json_cannot_hold_when_built_is_built_and_validated_in_full() -> None:
    # A lone surrogate is a str the models accept and JSON text cannot hold: the seal has nothing to compare, so
    # the result is built all the same and checked in full, as any content the seal cannot vouch for.
    row = Row(id="r", label="bad \ud800", values=(1,))
    document = Document(title="T", sections=(Section(id="s", title="S", columns=("a",), rows=(row,)),))
    structured = verbatim_result(document).structured_content
    assert structured is not None
    assert CHECK.validate_python(structured) == VerbatimContent.model_validate(dict(structured))


def test_a_page_state_the_models_refuse_is_validated_in_full_and_located() -> None:
    # `Page` is a plain dataclass: one built by hand may state what `PageState` refuses. The seal matches (nothing
    # changed since building), and the check still reports the member where a full validation finds it.
    document = ledger(3)
    page = Page(document=document, complete=True, returned=-1, total=3, next_token=None, argument="cursor")
    structured = verbatim_result(page).structured_content
    assert structured is not None
    with pytest.raises(ValidationError) as refused:
        CHECK.validate_python(structured)
    assert [error["loc"] for error in refused.value.errors()] == [("page", "returned")]


class _Grabber:
    """The other side of `==`: dict comparison hands it each value the content holds."""

    def __init__(self) -> None:
        self.held: list[Any] = []

    def __eq__(self, other: object) -> bool:
        self.held.append(other)
        return False

    __hash__ = None  # pyright: ignore[reportAssignmentType]


def _through_equality(structured: dict[str, Any]) -> dict[str, Any]:
    grabber = _Grabber()
    _ = structured == {"document": grabber, "page": grabber, "directive": grabber}
    return next(value for value in grabber.held if isinstance(value, dict) and "sections" in value)


def _through_popitem(structured: dict[str, Any]) -> dict[str, Any]:
    taken: dict[str, Any] = {}
    while "document" in structured:
        key, value = structured.popitem()
        taken[key] = value
    structured.update((key, value) for key, value in taken.items() if key != "document")
    return taken["document"]


# Every way plain code can reach the document the content holds, each handing out a reference to the same object.
_REACH: dict[str, Callable[[dict[str, Any]], Any]] = {
    "item": lambda s: s["document"],
    "get": lambda s: s.get("document"),
    "setdefault": lambda s: s.setdefault("document", {}),
    "values": lambda s: next(v for v in s.values() if "sections" in v),
    "items": lambda s: dict(s.items())["document"],
    "dict()": lambda s: dict(s)["document"],
    "unpacking": lambda s: {**s}["document"],
    "copy()": lambda s: s.copy()["document"],
    "copy.copy": lambda s: copy.copy(s)["document"],
    "union": lambda s: (s | {})["document"],
    "reflected union": lambda s: ({} | s)["document"],
    "equality": _through_equality,
    "pop": lambda s: s.pop("document"),
    "popitem": _through_popitem,
}


@pytest.mark.parametrize("reach", list(_REACH.values()), ids=list(_REACH))
def test_any_reference_that_leaves_the_content_makes_the_check_compare(
    reach: Callable[[dict[str, Any]], Any],
) -> None:
    """A reference to what the content holds leaves only through a method that first records the content as built;
    whatever is then changed through it is seen by the check, and validated in full."""
    for spoil in (False, True):
        structured = verbatim_result(ledger()).structured_content
        assert structured is not None
        document = reach(structured)
        if spoil:
            document["sections"][0]["rows"][0]["values"][0] = {"not": "a cell"}
        if "document" not in structured:  # taken out: put back
            structured["document"] = document
        if spoil:
            with pytest.raises(ValidationError, match="values"):
                CHECK.validate_python(structured)
        else:
            assert CHECK.validate_python(structured).page.returned == 30


def test_content_no_reference_left_is_checked_without_writing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's own handling (its check, its dump to the wire) reaches nothing through the content's methods: a
    result as built is checked without a single serialization, in a real server call too."""
    written = calls_of(monkeypatch, builder, "to_json")
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    assert CHECK.validate_python(structured).page.returned == 30
    assert json.loads(mcp_types.CallToolResult(content=[], structured_content=structured).model_dump_json())
    server = MCPServer("ledger")

    @server.tool()
    def whole() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        return verbatim_result(ledger())

    async def call() -> mcp_types.CallToolResult:
        async with Client(server) as client:
            return await client.call_tool("whole", {})

    called = anyio.run(call)
    assert not called.is_error and called.structured_content is not None
    assert written == []
    # Reading a value is reaching it: the content is then compared once at the check, and passes unchanged.
    assert structured["page"]["returned"] == 30
    assert CHECK.validate_python(structured).page.returned == 30
    assert len(written) == 2


def test_content_rebuilt_from_its_type_is_checked_in_full() -> None:
    """Code that rebuilds a mapping from its type (`dataclasses.asdict` does) gets content the seal vouches nothing
    for, checked in full."""
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    rebuilt = type(structured)(structured.items())
    assert CHECK.validate_python(rebuilt) == CHECK.validate_python(dict(structured))
    rebuilt["page"] = {"complete": True, "returned": -1}
    with pytest.raises(ValidationError, match="returned"):
        CHECK.validate_python(rebuilt)


def test_a_record_made_while_another_thread_reads_first_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads reaching the content at once, the second scheduled between the first one's check and its record:
    the second records, reaches and changes the content; the first one's record, written after the change, is
    dropped, so the check still sees the change."""
    structured = verbatim_result(ledger()).structured_content
    assert structured is not None
    write = builder._BuiltContent._json  # pyright: ignore[reportPrivateUsage]

    def interleaved(content: Any) -> bytes | None:
        monkeypatch.setattr(builder._BuiltContent, "_json", write)  # pyright: ignore[reportPrivateUsage]
        _set_cell(content, {"not": "a cell"})  # the other thread, run here
        return write(content)

    monkeypatch.setattr(builder._BuiltContent, "_json", interleaved)  # pyright: ignore[reportPrivateUsage]
    assert structured.get("page") is not None
    with pytest.raises(ValidationError, match="values"):
        CHECK.validate_python(structured)


def test_a_directive_changed_by_assignment_is_checked_when_the_result_is_built() -> None:
    directive = Rendering(mode="verbatim", complete=True)
    directive.null_display = "0"
    with pytest.raises(ValidationError, match="null"):
        verbatim_result(ledger(), directive)
