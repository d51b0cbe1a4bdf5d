"""A server from the rows it already has: `registration()`, `verbatim_tool`, `paged_tool` and `Document.from_rows`,
over a real client, with amounts kept exact from the rows to the model's text, `structuredContent`, the host's view
and the audit; and every kind of bad input refused with an error that names it."""

from __future__ import annotations

import dataclasses
import json
import math
import uuid
from collections import namedtuple
from collections.abc import Iterator
from datetime import date, datetime, time, timezone
from decimal import Decimal
from typing import Any

import anyio
import mcp_types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, ValidationError

from mcp_rendering import (
    Budget,
    Document,
    Keyring,
    Row,
    Rows,
    audit,
    output_schema,
    paged_tool,
    present,
    registration,
    request_caller,
    verbatim_result,
    verbatim_tool,
)
from mcp_rendering.builder import ANONYMOUS_CALLER, SECRET_VARIABLE, error_result
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, RESULT_STRUCTURED_KEY

SECRET = "a-test-secret-of-32-bytes-000000"

# Every cell type a database hands back, with the text each must reach every reader as.
EXACT = {
    "cash": (Decimal("1234.50"), "1234.50"),
    "large": (Decimal("12345678901234567.89"), "12345678901234567.89"),
    "scientific": (Decimal("1.20E+3"), "1200"),
    "tiny": (Decimal("1E-7"), "0.0000001"),
    "closing": (date(2025, 12, 31), "2025-12-31"),
    "posted": (datetime(2025, 12, 31, 23, 59, 1, tzinfo=timezone.utc), "2025-12-31T23:59:01+00:00"),
    "count": (2**70, str(2**70)),
    "safe": (2**53, str(2**53)),
    "ratio": (0.1, "0.1"),
    "flag": (True, "true"),
    "text": ("EUR", "EUR"),
}


def _ledger_rows() -> list[dict[str, Any]]:
    return [{"label": name, "value": value} for name, (value, _) in EXACT.items()] + [
        {"label": "missing", "value": None}
    ]


def _ledger() -> MCPServer:
    mcp = MCPServer("ledger", **registration())

    @verbatim_tool(mcp, title="Ledger", guidance="Show every line, in order.", read_only_hint=True)
    def ledger() -> list[dict[str, Any]]:
        """Every line of the ledger."""
        return _ledger_rows()

    return mcp


def _text(result: mcp_types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return block.text


async def _call(server: MCPServer, name: str, arguments: dict[str, Any]) -> tuple[mcp_types.Tool, Any]:
    async with Client(server, mode="auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        return tools[name], await client.call_tool(name, arguments)


def test_the_three_name_server_lists_the_hint_and_returns_the_directive_in_both_channels() -> None:
    async def run() -> None:
        server = _ledger()
        async with Client(server, mode="auto") as client:
            capabilities = client.session.server_capabilities
            assert capabilities is not None and capabilities.extensions is not None
            assert EXTENSION_ID in capabilities.extensions
            assert CONTINUATION_ID not in capabilities.extensions
            tool = (await client.list_tools()).tools[0]
            result = await client.call_tool("ledger", {})
        assert tool.meta == {EXTENSION_ID: {"verbatimHint": True}}
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.output_schema is not None and set(tool.output_schema["required"]) == {"document", "page"}
        assert tool.title == "Ledger"
        directive = {"mode": "verbatim", "guidance": "Show every line, in order.", "complete": True}
        assert result.meta is not None and result.meta[EXTENSION_ID] == directive
        assert result.structured_content is not None
        assert result.structured_content[RESULT_STRUCTURED_KEY] == directive
        text = result.content[0]
        assert isinstance(text, mcp_types.TextContent)
        assert text.text.startswith(f"Rendering directive for this result ({EXTENSION_ID}):")
        assert 'Guidance: "Show every line, in order."' in text.text

    anyio.run(run)


def test_amounts_stay_exact_in_the_text_the_structured_content_the_host_view_and_the_audit() -> None:
    tool, result = anyio.run(_call, _ledger(), "ledger", {})
    rows = result.structured_content["document"]["sections"][0]["rows"]
    assert [row["values"][0] for row in rows] == [
        # An int beyond 2**53 travels as the string of its digits, as an amount does.
        *(value if isinstance(value, (bool, float)) or value == 2**53 else text for value, text in EXACT.values()),
        None,
    ]
    text = result.content[0].text
    shown = present(tool, result, server="ledger", arguments={})
    assert shown.complete
    for name, (_, written) in EXACT.items():
        line = next(line for line in text.splitlines() if f" {name} " in line)
        assert f" {written} " in line, line
        assert f" {written} " in next(line for line in shown.text.splitlines() if f" {name} " in line)
    assert "1234.5 " not in text and "e+16" not in text
    assert audit(shown.text, result, tool=tool, arguments={}, markup="text").clean
    assert audit(shown.markdown, result, tool=tool, arguments={}, markup="markdown").clean
    # The audit reads the exact figure back: one digit dropped from an amount is an altered record.
    altered = audit(shown.text.replace("1234.50", "1234.5 "), result, tool=tool, arguments={}, markup="text")
    assert not altered.clean
    assert "cash" in altered.format()


def test_a_decimal_is_never_read_as_a_float_in_a_row_built_by_hand() -> None:
    # Held as its exact text, which is the type a static checker sees (`Cell`).
    given: Any = (Decimal("1234.50"), Decimal("-0.00"))
    row = Row(id="r", label="Cash", values=given)
    assert row.values == ("1234.50", "-0.00")
    assert row.model_dump(mode="json")["values"] == ["1234.50", "-0.00"]


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, Decimal("NaN"), Decimal("Infinity"), Decimal("sNaN"), time(9, 30), b"x", 1j],
    ids=repr,
)
def test_a_cell_that_cannot_be_kept_exact_is_refused_when_built(value: Any) -> None:
    with pytest.raises(ValidationError, match="A cell should be a str, an int, a finite float"):
        Row(id="r", label="x", values=(value,))
    with pytest.raises((ValueError, TypeError), match=r"row 1, column 'amount'"):
        Document.from_rows([{"label": "x", "amount": value}], title="t")


class _Code(str):
    pass


class _Weight(float):
    pass


@pytest.mark.parametrize(
    ("value", "held"),
    [
        ("x", "x"),
        (True, True),
        (False, False),
        (None, None),
        (1.5, 1.5),
        (2**53, 2**53),
        (-(2**53), -(2**53)),
        (2**53 + 1, str(2**53 + 1)),
        (-(2**53) - 1, str(-(2**53) - 1)),
        (_Code("GBP"), "GBP"),
        (_Weight(2.5), 2.5),
        (Decimal("1.10"), "1.10"),
        (date(2025, 1, 31), "2025-01-31"),
    ],
    ids=repr,
)
def test_a_cell_of_any_accepted_type_is_held_as_its_exact_value(value: Any, held: Any) -> None:
    """A cell of an exact JSON type is validated by its type at once, any other (a subclass, a Decimal, a date) by
    each accepted type in turn: either way the value held is the same, of the same type (a bool stays a bool)."""
    (cell,) = Row(id="r", label="x", values=(value,)).values
    assert cell == held and type(cell) is type(held)


@pytest.mark.parametrize("value", [_Weight(math.inf), _Weight(math.nan)], ids=repr)
def test_a_subclass_of_float_that_json_cannot_hold_is_refused(value: float) -> None:
    with pytest.raises(ValidationError, match="A cell should be a str, an int, a finite float"):
        Row(id="r", label="x", values=(value,))


def test_an_unsupported_type_is_named_with_what_to_do() -> None:
    with pytest.raises(TypeError, match=r"a value of type UUID cannot be kept exact.*str\(value\)"):
        Document.from_rows([{"id": "a", "label": "x", "key": uuid.uuid4()}], title="t")


@pytest.mark.parametrize(
    ("rows", "error", "message"),
    [
        ([{"amount": 1}], ValueError, "row 1 has no label"),
        ([{"label": 7, "amount": 1}], ValueError, "row 1 has a label of type int"),
        ([{"label": "a", "x": 1}, {"label": "b", "y": 1}], ValueError, r"row 2 has the columns \['y'\]"),
        ([{"label": "a", "x": 1}, {"label": "b"}], ValueError, "row 2 has the columns"),
        ([{"id": "a", "label": "a"}, {"id": "a", "label": "b"}], ValueError, "row 2 has the id 'a' of row 1"),
        ([{"label": "a", "kind": "grand"}], ValueError, "row 1: kind: Input should be 'item', 'subtotal'"),
        ([{"label": "a", "level": -1}], ValueError, "row 1: level: Input should be greater than or equal to 0"),
        ([{"id": True, "label": "a"}], ValueError, "row 1: id: Input should be a valid string"),
        (["a row"], TypeError, "row 1 is a str"),
        ([{1: "a", "label": "b"}], TypeError, "field name that is not a string"),
    ],
)
def test_rows_that_cannot_make_a_document_are_refused_with_a_clear_error(
    rows: list[Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        Document.from_rows(rows, title="t", id="id", kind="kind", level="level")


@dataclasses.dataclass
class Hit:
    id: int
    label: str
    score: Decimal
    listed: date | None


class Account(BaseModel):
    label: str
    balance: Decimal
    kind: str = "item"
    level: int = 0


Person = namedtuple("Person", ["label", "title"])  # a driver's row type, as it comes


def test_records_of_every_supported_shape_become_rows_in_order() -> None:
    hits = Document.from_rows([Hit(17, "Ivan Petrov", Decimal("0.97"), None)], title="Hits", id="id")
    assert hits.sections[0].columns == ("score", "listed")
    assert hits.sections[0].rows[0] == Row(id="17", label="Ivan Petrov", values=("0.97", None))
    accounts = Document.from_rows(
        {
            "Assets": [Account(label="Cash", balance=Decimal("10.00"), level=1)],
            "Totals": [Account(label="Total", balance=Decimal("10.00"), kind="total")],
        },
        title="Balance sheet",
        kind="kind",
        level="level",
    )
    assert [section.title for section in accounts.sections] == ["Assets", "Totals"]
    assert [row.id for section in accounts.sections for row in section.rows] == ["1", "2"]
    assert accounts.sections[0].rows[0].level == 1
    assert accounts.sections[1].rows[0].kind == "total"
    people = Document.from_rows([Person("Ada", "CEO")], title="People")
    assert people.sections[0].rows[0].values == ("CEO",)


def test_markup_and_control_characters_are_sent_as_they_are_shown_escaped_and_audited_clean() -> None:
    hostile = "**Ignore** the rows | <b>x</b> \u202e\x07 [link](http://e.test)"
    mcp = MCPServer("hostile", **registration())

    @verbatim_tool(mcp)
    def notes() -> list[dict[str, Any]]:
        return [{"label": hostile, "note": hostile}]

    tool, result = anyio.run(_call, mcp, "notes", {})
    row = result.structured_content["document"]["sections"][0]["rows"][0]
    assert row["label"] == hostile and row["values"] == [hostile]
    shown = present(tool, result, server="hostile", arguments={})
    assert "\u202e" not in shown.text and "\\u202e" in shown.text
    assert "\x07" not in shown.markdown
    assert audit(shown.text, result, tool=tool, arguments={}, markup="text").clean
    assert audit(shown.markdown, result, tool=tool, arguments={}, markup="markdown").clean


def test_a_verbatim_tool_passes_an_error_result_through_and_refuses_a_return_that_is_not_rows(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A server's own mistake fails the call (the SDK keeps its text from the client) with the reason in its log."""
    mcp = MCPServer("errors", **registration())

    @verbatim_tool(mcp)
    def failing(account: str) -> Any:
        if account == "none":
            return error_result("no such account")
        if account == "text":
            return "Cash: 1200"
        return [{"label": "Cash", "value": math.nan}]

    _, refused = anyio.run(_call, mcp, "failing", {"account": "none"})
    assert refused.is_error and refused.content[0].text == "no such account"
    _, text = anyio.run(_call, mcp, "failing", {"account": "text"})
    assert text.is_error and "Cash" not in text.content[0].text
    assert "tool 'failing' returned a str" in caplog.text
    _, nan = anyio.run(_call, mcp, "failing", {"account": "nan"})
    assert nan.is_error and nan.structured_content is None
    assert "row 1, column 'value': the float nan has no exact figure" in caplog.text


def test_a_verbatim_tool_keeps_its_parameters_and_its_context() -> None:
    mcp = MCPServer("ctx", **registration())
    seen: list[object] = []

    @verbatim_tool(mcp)
    async def accounts(company: str, ctx: Context, year: int = 2025) -> list[dict[str, Any]]:
        seen.append(ctx)
        return [{"label": company, "year": year}]

    tool, result = anyio.run(_call, mcp, "accounts", {"company": "acme"})
    assert set(tool.input_schema["properties"]) == {"company", "year"}
    assert tool.input_schema["required"] == ["company"]
    assert result.structured_content["document"]["sections"][0]["rows"][0]["values"] == [2025]
    assert len(seen) == 1 and isinstance(seen[0], Context)


# ---------------------------------------------------------------------------------------------------- paged tools


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv(SECRET_VARIABLE, SECRET)
    yield SECRET


def _screening(hits: int = 120, **options: Any) -> MCPServer:
    mcp = MCPServer("screening", **registration(continuation=True))

    @paged_tool(mcp, title="Screening hits", budget=Budget(max_items=50), **options)
    def screening_hits(case: str) -> Rows:
        return Rows(
            [{"id": f"h{i}", "label": f"Name {i}", "score": Decimal(f"0.{999 - i}")} for i in range(hits)], id="id"
        )

    return mcp


@pytest.mark.usefixtures("secret")
def test_a_paged_tool_returns_every_record_once_across_parts_and_declares_continuation() -> None:
    async def run() -> None:
        server = _screening()
        async with Client(server, mode="auto") as client:
            capabilities = client.session.server_capabilities
            assert capabilities is not None and capabilities.extensions is not None
            assert {EXTENSION_ID, CONTINUATION_ID} <= set(capabilities.extensions)
            tool = (await client.list_tools()).tools[0]
            assert tool.meta is not None and tool.meta[CONTINUATION_ID] == {"argument": "cursor"}
            assert set(tool.input_schema["properties"]) == {"case", "cursor"}
            arguments: dict[str, Any] = {"case": "C-17"}
            ids: list[str] = []
            parts = 0
            while True:
                result = await client.call_tool("screening_hits", arguments)
                parts += 1
                assert not result.is_error
                ids.extend(row["id"] for row in result.structured_content["document"]["sections"][0]["rows"])
                shown = present(tool, result, server="screening", arguments=arguments)
                assert audit(shown.text, result, tool=tool, arguments=arguments, markup="text").clean
                meta: dict[str, Any] = result.meta or {}
                continuation = meta.get(CONTINUATION_ID)
                assert meta[EXTENSION_ID]["complete"] is (continuation is None)
                if continuation is None:
                    break
                assert "Partial result:" in _text(result)
                arguments = {"case": "C-17", continuation["argument"]: continuation["token"]}
        assert parts == 3
        assert ids == [f"h{i}" for i in range(120)]

    anyio.run(run)


def test_a_token_is_bound_to_its_caller_and_the_default_caller_comes_from_the_access_token() -> None:
    assert request_caller() == ANONYMOUS_CALLER
    who = ["alice"]
    server = _screening(secret=SECRET, caller=lambda: who[0])

    async def run() -> mcp_types.CallToolResult:
        async with Client(server, mode="auto") as client:
            first = await client.call_tool("screening_hits", {"case": "C-17"})
            token = (first.meta or {})[CONTINUATION_ID]["token"]
            who[0] = "mallory"
            return await client.call_tool("screening_hits", {"case": "C-17", "cursor": token})

    stolen = anyio.run(run)
    assert stolen.is_error and "continuation token was issued to another caller" in _text(stolen)
    token = AccessToken(token="t", client_id="desk", scopes=[], subject="alice", claims={"iss": "https://idp.test"})
    reset = auth_context_var.set(AuthenticatedUser(token))
    try:
        assert request_caller() not in (ANONYMOUS_CALLER, request_caller.__name__)
        assert "alice" in request_caller() and "desk" in request_caller()
    finally:
        auth_context_var.reset(reset)


def test_a_paged_tool_without_a_secret_says_where_to_put_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    with pytest.raises(RuntimeError, match=SECRET_VARIABLE):
        _screening()
    with pytest.raises(ValueError, match="from secret=: secret of key 'k1' is shorter than 16 bytes"):
        _screening(secret="short")
    monkeypatch.setenv(SECRET_VARIABLE, "short")
    with pytest.raises(ValueError, match=f"from the environment variable {SECRET_VARIABLE}: .* shorter than 16"):
        _screening()
    with pytest.raises(ValueError, match="from secret=: secret of key 'k1' repeats one byte: not a secret"):
        _screening(secret=bytes(32))
    monkeypatch.setenv(SECRET_VARIABLE, " " * 32)
    with pytest.raises(ValueError, match=f"from the environment variable {SECRET_VARIABLE}: .* repeats one byte"):
        _screening()


def test_a_paged_tool_rotates_keys_with_a_keyring() -> None:
    """Tokens signed before a rotation still resume on a server whose keyring has a new current key."""
    old, new = "an-old-secret-of-32-bytes-000000", "a-new-secret-of-32-bytes-0000000"
    before = _screening(secret=Keyring({"k1": old}, current="k1"))
    after = _screening(secret=Keyring({"k1": old, "k2": new}, current="k2"))
    dropped = _screening(secret=Keyring({"k2": new}, current="k2"))

    async def resume(server: MCPServer, token: str) -> mcp_types.CallToolResult:
        async with Client(server, mode="auto") as client:
            return await client.call_tool("screening_hits", {"case": "C-17", "cursor": token})

    _, first = anyio.run(_call, before, "screening_hits", {"case": "C-17"})
    token = first.meta[CONTINUATION_ID]["token"]
    resumed = anyio.run(resume, after, token)
    assert not resumed.is_error
    assert resumed.structured_content["document"]["sections"][0]["rows"][0]["id"] == "h50"
    assert anyio.run(resume, dropped, token).is_error


@pytest.mark.usefixtures("secret")
def test_a_paged_tool_refuses_a_parameter_named_like_its_continuation_argument() -> None:
    mcp = MCPServer("clash", **registration(continuation=True))
    with pytest.raises(ValueError, match="already has a parameter 'cursor'"):

        @paged_tool(mcp)
        def listing(cursor: str) -> list[dict[str, Any]]:
            return []


def test_registration_gives_both_halves_the_same_objects() -> None:
    registered = registration(continuation=True)
    assert registered["extensions"] == registered["middleware"]
    assert [extension.identifier for extension in registered["extensions"]] == [EXTENSION_ID, CONTINUATION_ID]
    assert [extension.identifier for extension in registration()["extensions"]] == [EXTENSION_ID]


def test_the_output_schema_says_how_an_exact_amount_travels_as_it_does() -> None:
    described = output_schema()["properties"]["document"]["properties"]["sections"]["description"]
    assert 'an exact decimal amount is a string of its digits in positional notation, such as "1234.50"' in described
    assert "an integer beyond 2^53 a string of its digits" in described
    assert Row(id="r", label="x", values=_exact("1234.50")).model_dump(mode="json")["values"] == ["1234.50"]
    assert Row(id="r", label="x", values=(2**53 + 1,)).model_dump(mode="json")["values"] == [str(2**53 + 1)]


def _exact(digits: str) -> Any:
    return (Decimal(digits),)


def test_by_default_a_token_is_bound_to_the_principal_of_the_requests_access_token() -> None:
    """`request_caller`, read in the tool's own request: a token issued to one principal resumes for that principal
    only (the in-memory transport carries the context the authentication middleware would have set)."""
    server = _screening(secret=SECRET)

    def as_principal(subject: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        token = AccessToken(token="t", client_id="desk", scopes=[], subject=subject)
        reset = auth_context_var.set(AuthenticatedUser(token))
        try:

            async def call() -> mcp_types.CallToolResult:
                async with Client(server, mode="auto") as client:
                    return await client.call_tool("screening_hits", arguments)

            return anyio.run(call)
        finally:
            auth_context_var.reset(reset)

    first = as_principal("alice", {"case": "C-17"})
    cursor = (first.meta or {})[CONTINUATION_ID]["token"]
    assert not as_principal("alice", {"case": "C-17", "cursor": cursor}).is_error
    refused = as_principal("bob", {"case": "C-17", "cursor": cursor})
    assert refused.is_error and "continuation token was issued to another caller" in _text(refused)


def test_a_paged_tool_with_typed_arguments_and_a_context_resumes_to_the_end() -> None:
    """Tokens are bound to the arguments in their JSON form, whatever type the framework validated them to."""
    mcp = MCPServer("typed", **registration(continuation=True))

    @paged_tool(mcp, budget=Budget(max_items=2), secret=SECRET)
    async def postings(account: str, since: date, ctx: Context, limit: int = 5) -> list[dict[str, Any]]:
        assert isinstance(since, date) and isinstance(ctx, Context)
        return [{"label": f"{account} {i}", "posted": since} for i in range(limit)]

    async def run() -> list[str]:
        labels: list[str] = []
        async with Client(mcp, mode="auto") as client:
            arguments: dict[str, Any] = {"account": "706", "since": "2025-01-02"}
            while True:
                result = await client.call_tool("postings", arguments)
                assert not result.is_error, _text(result)
                labels += [row["label"] for row in result.structured_content["document"]["sections"][0]["rows"]]
                continuation = (result.meta or {}).get(CONTINUATION_ID)
                if continuation is None:
                    return labels
                arguments = {"since": "2025-01-02", "account": "706", "cursor": continuation["token"]}

    assert anyio.run(run) == [f"706 {i}" for i in range(5)]


@given(
    # Amounts as a ledger holds them (up to 10^30, far beyond a binary float's exact range, with their trailing
    # zeros), and any finite Decimal of a bounded exponent (`1E+3`, `-0`, `0.00000012`).
    amounts=st.lists(
        st.one_of(
            st.decimals(min_value=-(10**30), max_value=10**30, places=2),
            st.decimals(allow_nan=False, allow_infinity=False).filter(lambda amount: abs(amount.adjusted()) < 40),
        ),
        min_size=1,
        max_size=6,
    ),
    day=st.dates(),
)
def test_any_finite_decimal_and_date_reach_the_wire_the_host_and_the_audit_exactly(
    amounts: list[Decimal], day: date
) -> None:
    rows = [{"label": f"line {i}", "amount": amount, "day": day} for i, amount in enumerate(amounts)]
    result = verbatim_result(Document.from_rows(rows, title="Amounts")).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    sent = json.loads(json.dumps(result))  # what a client parses off the wire
    values = [row["values"] for row in sent["structuredContent"]["document"]["sections"][0]["rows"]]
    assert [Decimal(amount) for amount, _ in values] == amounts  # the same number, read back
    assert all(written == format(amount, "f") for (written, _), amount in zip(values, amounts, strict=True))
    assert {written_day for _, written_day in values} == {day.isoformat()}
    tool = {"name": "amounts", "inputSchema": {"type": "object"}, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
    shown = present(tool, sent, server="s", arguments={})
    for amount in amounts:
        assert f" {format(amount, 'f')} " in shown.text
    assert audit(shown.text, sent, tool=tool, arguments={}, markup="text").clean


def test_a_verbatim_tool_shows_nulls_as_its_null_text_and_refuses_one_that_reads_as_a_number() -> None:
    mcp = MCPServer("nulls", **registration())

    @verbatim_tool(mcp, null_display="none")
    def balances() -> list[dict[str, Any]]:
        return [{"label": "Cash", "EUR": None}]

    _, result = anyio.run(_call, mcp, "balances", {})
    assert (result.meta or {})[EXTENSION_ID]["nullDisplay"] == "none"
    cash = next(line for line in _text(result).splitlines() if " Cash " in line)
    assert cash.rstrip(" |").endswith(" none")
    with pytest.raises(ValidationError, match="null_display"):
        verbatim_tool(mcp, null_display="0")


HOSTILE_LABELS = [
    "**Ignore** the rows",
    "<b>bold</b> & <i>more</i>",
    "# not a heading",
    "- not a list item",
    "[link](http://e.test)",
    "`code` | pipe",
    "1. not numbered",
    "> not a quote",
    "a\tb",
    "x\\u202e",
]


def test_hostile_labels_audit_clean_through_the_readmes_exact_calls(tmp_path: Any) -> None:
    """The README's host: `present(...)` then `audit(shown, result, tool=..., arguments={})` with the default markup;
    and the command line on the text view saved as `.txt`. Labels holding Markdown and HTML must not make the
    plain-text view be read as Markdown."""
    from mcp_rendering.cli import main as cli_main

    mcp = MCPServer("hostile", **registration())

    @verbatim_tool(mcp)
    def notes() -> list[dict[str, Any]]:
        return [{"label": label, "amount": Decimal(f"{n}.50")} for n, label in enumerate(HOSTILE_LABELS)]

    tool, result = anyio.run(_call, mcp, "notes", {})
    shown = present(tool, result, server="hostile", arguments={})
    report = audit(shown, result, tool=tool, arguments={})
    assert report.clean, report.format()
    assert report.markup == "text" and report.rows_intact == len(HOSTILE_LABELS)
    markdown_report = audit(shown, result, tool=tool, arguments={}, markup="markdown")
    assert markdown_report.clean and markdown_report.markup == "markdown"
    # The view is audited, not trusted: a row dropped from it is found.
    dropped = shown.text.replace("not a heading", "a heading")
    assert not audit(dropped, result, tool=tool, arguments={}, markup="text").clean
    (tmp_path / "labels.json").write_text(result.model_dump_json(by_alias=True, exclude_none=True))
    (tmp_path / "labels.txt").write_text(shown.text)
    (tmp_path / "labels.md").write_text(shown.markdown)
    assert cli_main(["audit", str(tmp_path / "labels.json"), str(tmp_path / "labels.txt")]) == 0
    assert cli_main(["audit", str(tmp_path / "labels.json"), str(tmp_path / "labels.md")]) == 0


def test_row_metadata_is_read_only_from_the_fields_named() -> None:
    """A column called `level`, `id` or `kind` is a column unless named as metadata: it never disappears into the
    row's indentation, identity or kind."""
    rows = [{"label": "Pump", "level": 3, "id": "P-1", "kind": "spare"}]
    plain = Document.from_rows(rows, title="Parts")
    assert plain.sections[0].columns == ("level", "id", "kind")
    assert plain.sections[0].rows[0] == Row(id="1", label="Pump", values=(3, "P-1", "spare"))
    named = Document.from_rows([{"label": "Cash", "depth": 2, "key": 7}], title="t", level="depth", id="key")
    assert named.sections[0].columns == ()
    assert named.sections[0].rows[0] == Row(id="7", label="Cash", level=2)


def test_a_sqlite_row_is_a_row_mapping() -> None:
    import sqlite3

    connection = sqlite3.connect(":memory:")
    connection.row_factory = sqlite3.Row
    fetched = connection.execute("select 'Cash' as label, '10.00' as balance").fetchall()
    document = Document.from_rows(fetched, title="Accounts")
    assert document.sections[0].columns == ("balance",)
    assert document.sections[0].rows[0].values == ("10.00",)


def test_large_ints_travel_as_exact_strings_and_absurd_decimals_are_refused() -> None:
    document = Document.from_rows([{"label": "x", "n": 2**53 + 1, "m": -(2**53), "d": Decimal("1E+3")}], title="t")
    assert document.sections[0].rows[0].values == (str(2**53 + 1), -(2**53), "1000")
    assert document.model_dump(mode="json")["sections"][0]["rows"][0]["values"][0] == "9007199254740993"
    with pytest.raises(ValueError, match=r"row 1, column 'd': the Decimal 1E\+5000 would be written with 5001 digits"):
        Document.from_rows([{"label": "x", "d": Decimal("1E+5000")}], title="t")
    with pytest.raises(ValueError, match="1001 digits"):
        Document.from_rows([{"label": "x", "d": Decimal("1E-1000")}], title="t")


def test_a_verbatim_tool_says_when_its_rows_are_not_the_whole_result() -> None:
    mcp = MCPServer("search", **registration())

    @verbatim_tool(mcp)
    def search() -> Rows:
        return Rows([{"label": "first hit", "score": 1}], complete=False)

    tool, result = anyio.run(_call, mcp, "search", {})
    assert result.meta[EXTENSION_ID]["complete"] is False
    shown = present(tool, result, server="search", arguments={})
    assert not shown.complete
    assert audit(shown, result, tool=tool, arguments={}).clean


def test_a_tool_refuses_a_server_without_the_declaration_it_needs_and_carries_its_own_hint() -> None:
    with pytest.raises(
        RuntimeError, match=r"verbatim_tool needs a server that declares io.modelcontextprotocol/rendering"
    ):
        verbatim_tool(MCPServer("bare"))
    with pytest.raises(
        RuntimeError, match=r"paged_tool needs a server that declares mcp-rendering/result-continuation"
    ):
        paged_tool(MCPServer("rows", **registration()), secret=SECRET)
    # Declared as an extension without the middleware half: the tool still lists its hint under `_meta`.
    half = MCPServer("half", extensions=registration()["extensions"])

    @verbatim_tool(half)
    def ledger() -> list[dict[str, Any]]:
        return [{"label": "Cash", "EUR": Decimal("1.00")}]

    tool, result = anyio.run(_call, half, "ledger", {})
    assert tool.meta == {EXTENSION_ID: {"verbatimHint": True}}
    assert result.meta[EXTENSION_ID]["mode"] == "verbatim"


def test_a_list_of_rows_shows_the_tool_title_once() -> None:
    from mcp_rendering import render_markdown, render_text

    document = Document.from_rows([{"label": "Cash", "EUR": Decimal("1.00")}], title="Balance sheet")
    assert render_text(document).count("Balance sheet") == 1
    assert render_markdown(document).count("Balance sheet") == 1
    tool, result = anyio.run(_call, _ledger(), "ledger", {})
    shown = present(tool, result, server="ledger", arguments={})
    assert shown.text.count("Ledger") == 1
    assert audit(shown, result, tool=tool, arguments={}).clean
