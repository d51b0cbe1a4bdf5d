"""The example servers, end to end: each one runs as a real subprocess over stdio, and the patched `mcp.Client`
(declaring the extension) talks to it.

What is checked: every tool declares its hints in both carriers (core annotation and `_meta`); verbatim results
carry `_rendering` (typed by the patch), its `_meta` mirror and the model-facing copy in `structuredContent`; a paged
result walks to completion with exactly the records of the data set, in order, none missing or repeated; tokens
are bound to their arguments; record URIs resolve through `resources/read`.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar, cast

import mcp_types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from starlette.requests import Request

from mcp_rendering import EXTENSION_ID, Rendering, client_extension
from mcp_rendering.examples import EXAMPLES, module_of
from mcp_rendering.examples._server import (
    ANONYMOUS_CALLER,
    BEARER_ENV,
    BEARER_SUBJECT,
    DEFAULT_TOKEN_TTL,
    MIN_BEARER_LENGTH,
    MIN_TOKEN_TTL,
    TOKEN_TTL_ENV,
    OptionalBearer,
    bearer_credential,
    caller_of,
    continuation_tokens,
    serve,
    token_ttl,
)
from mcp_rendering.examples.financial_data import cagr, financial_statements
from mcp_rendering.examples.orgchart_data import org_chart_document, people
from mcp_rendering.examples.screening_data import BATCH_SIZE, screening_document, screening_hits
from mcp_rendering.host import present
from mcp_rendering.patch import installed
from mcp_rendering.reading import combine_parts, resolve_rendering
from mcp_rendering.types import CONTINUATION_ID, RESULT_STRUCTURED_KEY
from tests.support.reference_calls import REFERENCE_CALLS

T = TypeVar("T")

VERBATIM_TOOL = {"financial": "financial_statements", "screening": "screening_report", "orgchart": "org_chart"}
SUMMARY_TOOL = {"financial": "key_figures", "screening": "screening_summary", "orgchart": "headcount"}


@pytest.fixture(autouse=True)
def _leave_the_sdk_as_found() -> Iterator[None]:
    # The client extension installs the patch in this process; undo it afterwards unless it was already installed.
    with installed():
        yield


def run_with_client(example: str, body: Callable[[Client], Awaitable[T]], env: dict[str, str] | None = None) -> T:
    """Start `example` as a stdio subprocess (with `env` added to its environment), connect the patched client, and
    run `body` against it."""

    async def go() -> T:
        parameters = StdioServerParameters(command=sys.executable, args=["-m", module_of(example)], env=env)
        async with Client(parameters, extensions=[client_extension()], read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def tools_by_name(client: Client) -> dict[str, mcp_types.Tool]:
    return {tool.name: tool for tool in (await client.list_tools()).tools}


async def walk(client: Client, tool: mcp_types.Tool, arguments: dict[str, Any]) -> list[mcp_types.CallToolResult]:
    """Every page of a result, following the continuation the directive names."""
    pages = [await client.call_tool(tool.name, arguments)]
    called = arguments
    while True:
        following = present(tool, pages[-1], arguments=called).next_arguments(called)
        if following is None:
            return pages
        assert len(pages) < 100, "the continuation never ends"
        pages.append(await client.call_tool(tool.name, following))
        called = following


def row_ids(result: mcp_types.CallToolResult) -> list[str]:
    assert isinstance(result.structured_content, dict)
    document = result.structured_content["document"]
    return [row["id"] for section in document["sections"] for row in section["rows"]]


# ------------------------------------------------------------------------------------------------ over stdio


@pytest.mark.parametrize(("module", "tool"), REFERENCE_CALLS)
def test_a_reference_call_of_the_adapters_tests_is_answered_alike_by_every_start(module: str, tool: str) -> None:
    """The adapters' tests (`reference_result` in tests/integrations/conftest.py) make each reference call once per
    session and compare the records of every later answer with it: that holds only if two starts of the server,
    under different hash seeds, send the same bytes but for a continuation's token and expiry, issued per call."""

    async def answer(hash_seed: str) -> str:
        root = Path(__file__).parents[1]
        environment = {"PYTHONHASHSEED": hash_seed}
        parameters = StdioServerParameters(command=sys.executable, args=["-m", module], env=environment, cwd=root)
        async with Client(parameters, read_timeout_seconds=30) as client:
            result = await client.call_tool(tool, {})
        sent = result.model_dump_json(by_alias=True, exclude_none=True)
        continuation = (result.meta or {}).get(CONTINUATION_ID)
        if continuation is None:
            return sent
        return sent.replace(continuation["token"], "<token>").replace(continuation["expiresAt"], "<expiry>")

    first, second = (asyncio.run(answer(hash_seed)) for hash_seed in ("1", "2"))
    assert first == second


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_tools_declare_hints_in_their_carrier_and_results_carry_the_directive(example: str) -> None:
    async def body(client: Client) -> None:
        tools = await tools_by_name(client)
        verbatim, summary = tools[VERBATIM_TOOL[example]], tools[SUMMARY_TOOL[example]]

        # The `_meta` carrier only: the hints declared in the annotations were moved there, even for a patched
        # client, which would keep the core form.
        assert not {"verbatimHint", "summarizeOkHint"} & set(wire(verbatim)["annotations"])
        assert verbatim.meta is not None and verbatim.meta[EXTENSION_ID] == {"verbatimHint": True}
        assert not {"verbatimHint", "summarizeOkHint"} & set(wire(summary)["annotations"])
        assert summary.meta is not None and summary.meta[EXTENSION_ID] == {"summarizeOkHint": True}

        # The output schema declares the model-facing copy of the directive.
        assert verbatim.output_schema is not None
        assert RESULT_STRUCTURED_KEY in verbatim.output_schema["properties"]

        result = await client.call_tool(verbatim.name, {})
        assert not result.is_error
        assert getattr(result, "rendering", None) is None  # the builder sends the normative carrier only
        result_wire = wire(result)
        directive = Rendering.model_validate(result_wire["_meta"][EXTENSION_ID])
        assert directive.mode == "verbatim" and directive.guidance and directive.null_display == "n/a"
        assert isinstance(result.structured_content, dict)
        assert result.structured_content[RESULT_STRUCTURED_KEY] == result_wire["_meta"][EXTENSION_ID]
        # The text channel carries the directive too, written out before the records.
        text = result_wire["content"][0]["text"]
        assert text.startswith(f"Rendering directive for this result ({EXTENSION_ID}):")
        assert json.dumps(directive.guidance) in text
        assert present(verbatim, result).mode == "verbatim"

    run_with_client(example, body)


def test_financial_statements_arrive_whole_and_in_pcg_order() -> None:
    async def body(client: Client) -> None:
        tools = await tools_by_name(client)
        result = await client.call_tool(VERBATIM_TOOL["financial"], {})
        shown = present(tools[VERBATIM_TOOL["financial"]], result)
        assert shown.complete and shown.notice is None
        assert shown.document is not None
        expected = financial_statements()
        received = [row.model_copy(update={"uri": None}) for section in shown.document.sections for row in section.rows]
        assert received == [row for section in expected.sections for row in section.rows]
        assert [section.title for section in shown.document.sections] == [s.title for s in expected.sections]
        # The null of the earlier year and the undefined growth rate arrive as nulls and show as "n/a".
        null_line = next(line for line in shown.text.splitlines() if "Subventions d'exploitation" in line)
        assert null_line.rstrip(" |").endswith("n/a")

    run_with_client("financial", body)


@pytest.mark.parametrize(
    ("example", "arguments", "expected"),
    [
        ("screening", {}, lambda: screening_document()),
        ("orgchart", {}, lambda: org_chart_document()),
        ("orgchart", {"division": "eng"}, lambda: org_chart_document("eng")),
    ],
)
def test_paging_walks_to_completion_without_gap_or_duplicate(
    example: str, arguments: dict[str, Any], expected: Callable[[], Any]
) -> None:
    async def body(client: Client) -> list[mcp_types.CallToolResult]:
        tools = await tools_by_name(client)
        return await walk(client, tools[VERBATIM_TOOL[example]], arguments)

    async def paged_tool(client: Client) -> mcp_types.Tool:
        return (await tools_by_name(client))[VERBATIM_TOOL[example]]

    pages = run_with_client(example, body)
    tool = run_with_client(example, paged_tool)
    assert len(pages) > 1, "the example is meant to need several pages"
    for page in pages[:-1]:
        effective = resolve_rendering(tool, page, original_arguments=arguments)
        assert effective.continuation_partial and effective.continuation is not None
        assert effective.completeness == "incomplete" and not effective.complete
        assert effective.continuation.argument == "cursor"
    # Read without the arguments of its own call, the last part cannot be told from a first one: partial.
    last = resolve_rendering(tool, pages[-1], original_arguments=arguments)
    assert last.continuation_partial and not last.complete and last.continuation is None
    # Each part read with the arguments of the call that returned it: the walk set the cursor to the token before.
    parts = [resolve_rendering(tool, pages[0], original_arguments=arguments, call_arguments=arguments)]
    for page in pages[1:]:
        token = parts[-1].continuation
        assert token is not None
        call = {**arguments, "cursor": token.token}
        parts.append(resolve_rendering(tool, page, original_arguments=arguments, call_arguments=call))
    assert parts[-1].continuation_partial and not parts[-1].complete  # a later part read alone is never the whole
    assert combine_parts(parts) == ("verbatim", True)
    assert combine_parts(parts[-1:]) == ("verbatim", False)
    seen = [row_id for page in pages for row_id in row_ids(page)]
    document = expected()
    assert seen == [row.id for section in document.sections for row in section.rows]


def test_a_continuation_token_is_refused_for_other_arguments() -> None:
    async def body(client: Client) -> tuple[mcp_types.CallToolResult, mcp_types.CallToolResult]:
        first = await client.call_tool("screening_report", {})
        tool = (await tools_by_name(client))["screening_report"]
        continuation = resolve_rendering(tool, first, original_arguments={}).continuation
        assert continuation is not None
        token = continuation.token
        elsewhere = await client.call_tool("screening_report", {"batch": "onboarding-2025-q3", "cursor": token})
        tampered = await client.call_tool("screening_report", {"cursor": token[:-4] + "AAAA"})
        return elsewhere, tampered

    elsewhere, tampered = run_with_client("screening", body)
    assert elsewhere.is_error and "different arguments" in json.dumps(wire(elsewhere))
    assert tampered.is_error and "signature" in json.dumps(wire(tampered))


def test_the_token_lifetime_comes_from_the_environment_within_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_TTL_ENV, raising=False)
    assert token_ttl() == DEFAULT_TOKEN_TTL == continuation_tokens().ttl_seconds == 900
    for raw, seconds in (("", 900), (" 15 ", 15), (str(MIN_TOKEN_TTL), MIN_TOKEN_TTL), ("86400", 86_400)):
        monkeypatch.setenv(TOKEN_TTL_ENV, raw)
        assert token_ttl() == seconds == continuation_tokens().ttl_seconds
    for raw in (str(MIN_TOKEN_TTL - 1), "0", "86401", "-30", "1.5", "1e3", "ten", "\u0661\u0665"):
        monkeypatch.setenv(TOKEN_TTL_ENV, raw)
        with pytest.raises(ValueError, match=rf"^{TOKEN_TTL_ENV} must be a whole number of seconds from 5 to 86400"):
            token_ttl()


def test_serve_refuses_a_token_lifetime_out_of_range(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(TOKEN_TTL_ENV, "2")
    built: list[dict[str, Any]] = []
    with pytest.raises(SystemExit) as exit_info:
        serve(lambda **options: built.append(options), [], description="d")
    assert exit_info.value.code == 2 and built == []  # refused before anything is built
    assert f"{TOKEN_TTL_ENV} must be a whole number of seconds from 5 to 86400 (24 hours), got '2'" in (
        capsys.readouterr().err
    )


def test_a_short_token_lifetime_is_stated_and_enforced() -> None:
    """With the lifetime set in the environment, a part states an expiry that many seconds away, and its token is
    refused once that expiry has passed."""

    async def body(client: Client) -> tuple[float, float, mcp_types.CallToolResult]:
        issued = time.time()
        first = await client.call_tool("screening_report", {})
        tool = (await tools_by_name(client))["screening_report"]
        continuation = resolve_rendering(tool, first, original_arguments={}).continuation
        assert continuation is not None and continuation.expires_at is not None
        expiry = datetime.fromisoformat(continuation.expires_at.replace("Z", "+00:00")).timestamp()
        await asyncio.sleep(max(0.0, expiry - time.time()) + 1.5)
        return issued, expiry, await client.call_tool("screening_report", {"cursor": continuation.token})

    issued, expiry, late = run_with_client("screening", body, env={TOKEN_TTL_ENV: str(MIN_TOKEN_TTL)})
    assert MIN_TOKEN_TTL - 2 <= expiry - issued <= MIN_TOKEN_TTL + 2
    assert late.is_error and "expired" in json.dumps(wire(late))


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_record_uris_resolve_through_resources_read(example: str) -> None:
    async def body(client: Client) -> None:
        templates = (await client.list_resource_templates()).resource_templates
        assert len(templates) == 1
        result = await client.call_tool(VERBATIM_TOOL[example], {})
        assert isinstance(result.structured_content, dict)
        sections = result.structured_content["document"]["sections"]
        rows = [row for section in sections for row in section["rows"]]
        for row in (rows[0], rows[-1]):
            read = await client.read_resource(row["uri"])
            (content,) = read.contents
            assert isinstance(content, mcp_types.TextResourceContents)
            record = json.loads(content.text)
            assert record["row"] == row
        missing = rows[0]["uri"].rsplit("/", 1)[0] + "/no-such-record"
        with pytest.raises(MCPError):
            await client.read_resource(missing)

    run_with_client(example, body)


# ---------------------------------------------------------------------------------------------- the data itself


def _amount(value: object) -> int:
    assert isinstance(value, int)
    return value


def test_financial_subtotals_totals_and_balance_are_consistent() -> None:
    document = financial_statements()
    rows = {row.id: row for section in document.sections for row in section.rows}
    for year in (1, 2):
        assert _amount(rows["bs-total-actif"].values[year]) == _amount(rows["bs-total-passif"].values[year])
        assert rows["bs-12"].values[year] == rows["is-resultat-net"].values[year]
        fixed = sum(_amount(rows[key].values[year]) for key in ("bs-20", "bs-21", "bs-26-27"))
        assert rows["bs-total-actif-immobilise"].values[year] == fixed
    assert [section.id for section in document.sections] == [
        "bilan-actif",
        "bilan-passif",
        "compte-de-resultat",
        "cagr-5-ans",
    ]
    assert rows["is-74"].values[2] is None
    assert rows["hist-rn"].values[-1] is None  # growth from a loss is undefined, not invented
    kinds = {row.kind for row in rows.values()}
    assert kinds == {"item", "subtotal", "total"}


def test_cagr() -> None:
    assert cagr(100.0, 121.0, 2) == pytest.approx(0.1)
    assert cagr(-5.0, 10.0, 4) is None
    assert cagr(10.0, 10.0, 0) is None


def test_screening_batch_is_deterministic_and_every_hit_is_reported() -> None:
    hits = screening_hits()
    assert hits == screening_hits.__wrapped__()  # regenerated from the seed, not only cached
    assert 0 < len(hits) < BATCH_SIZE
    document = screening_document()
    assert sum(len(section.rows) for section in document.sections) == len(hits)
    assert len({hit.hit_id for hit in hits}) == len(hits)
    assert any(hit.date_of_birth is None for hit in hits)


def test_org_chart_levels_follow_the_hierarchy() -> None:
    everyone = people()
    assert len(everyone) > 2000
    position = {person.employee_id: index for index, person in enumerate(everyone)}
    by_id = {person.employee_id: person for person in everyone}
    assert {person.level for person in everyone} == {0, 1, 2, 3, 4}
    for index, person in enumerate(everyone):
        if person.manager_id is None:
            assert person.level == 0
            continue
        manager = by_id[person.manager_id]
        assert manager.level == person.level - 1
        assert position[manager.employee_id] < index
    rows = [row for section in org_chart_document().sections for row in section.rows]
    assert [row.level for row in rows] == [person.level for person in everyone]


def _tool_context(request: Any) -> Context[Any, Any]:
    """A tool's context for a request that arrived with `request` attached (None on stdio and in memory)."""
    request_context = ServerRequestContext[Any, Any](
        session=cast(Any, None), lifespan_context=None, protocol_version="", method="tools/call", request=request
    )
    return Context(request_context=request_context)


def _http_request(headers: dict[str, str]) -> Request:
    # ASGI carries header names lowercased.
    return Request({"type": "http", "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]})


def test_the_caller_is_the_authorization_context_never_a_session() -> None:
    """Without authorization every caller is in the anonymous context, whatever session or connection it uses; with
    it, the principal, the same over any session."""
    assert caller_of(Context()) == ANONYMOUS_CALLER  # no request in flight: a direct in-process call
    assert caller_of(_tool_context(None)) == ANONYMOUS_CALLER
    for headers in ({}, {"Mcp-Session-Id": "s1"}, {"Mcp-Session-Id": "s2"}):
        assert caller_of(_tool_context(_http_request(headers))) == ANONYMOUS_CALLER
    user = AuthenticatedUser(AccessToken(token="t", client_id="client", scopes=[], subject="alice"))
    reset = auth_context_var.set(user)
    try:
        principal = caller_of(_tool_context(_http_request({})))
        assert "alice" in principal and principal != ANONYMOUS_CALLER
        assert principal == caller_of(_tool_context(_http_request({"Mcp-Session-Id": "s1"})))
    finally:
        auth_context_var.reset(reset)


CREDENTIAL = "c0ffee" * 6  # 36 visible characters


def _through_optional_bearer(
    headers: list[tuple[bytes, bytes]], answered: list[dict[bytes, bytes]] | None = None
) -> tuple[int, list[str]]:
    """One HTTP request through `OptionalBearer` to an app that answers 200: the status, and the caller the app saw
    (none when the request did not reach it); the response's headers go to `answered`."""
    callers: list[str] = []
    statuses: list[int] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        callers.append(caller_of(_tool_context(_http_request({}))))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])
            if answered is not None:
                answered.append({name.lower(): value for name, value in message.get("headers", [])})

    scope = {"type": "http", "method": "POST", "path": "/mcp", "query_string": b"", "headers": headers}
    asyncio.run(OptionalBearer(app, CREDENTIAL)(scope, receive, send))
    (status,) = statuses
    return status, callers


def test_the_example_bearer_makes_a_principal_and_leaves_other_callers_anonymous() -> None:
    """With `MCP_RENDERING_EXAMPLE_BEARER`, the credential is a principal (a fixed identity, not the credential), a
    request without `Authorization` stays in the anonymous context, and any other credential is refused with 401
    rather than served anonymously."""
    status, (principal,) = _through_optional_bearer([(b"authorization", f"Bearer {CREDENTIAL}".encode())])
    assert status == 200 and principal != ANONYMOUS_CALLER
    assert BEARER_SUBJECT in principal and CREDENTIAL not in principal
    assert _through_optional_bearer([(b"content-type", b"application/json")]) == (200, [ANONYMOUS_CALLER])
    for wrong in (f"Bearer {CREDENTIAL[:-1]}X", f"Bearer {CREDENTIAL}X", "Bearer ", f"Basic {CREDENTIAL}"):
        assert _through_optional_bearer([(b"authorization", wrong.encode())]) == (401, [])
    # The refusal's challenge names no resource metadata: an OAuth client finds no authorization server to ask.
    answered: list[dict[bytes, bytes]] = []
    _through_optional_bearer([(b"authorization", b"Bearer nope")], answered)
    (challenge,) = [headers[b"www-authenticate"] for headers in answered]
    assert challenge.startswith(b"Bearer") and b"resource_metadata" not in challenge
    # Two credentials, the right one first or last: neither is chosen.
    good, bad = f"Bearer {CREDENTIAL}".encode(), f"Bearer {CREDENTIAL}X".encode()
    for pair in ((good, bad), (bad, good), (good, good)):
        assert _through_optional_bearer([(b"authorization", pair[0]), (b"Authorization", pair[1])]) == (400, [])


def test_the_example_bearer_is_long_enough_and_over_http_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(BEARER_ENV, raising=False)
    assert bearer_credential() is None
    monkeypatch.setenv(BEARER_ENV, "")
    assert bearer_credential() is None
    monkeypatch.setenv(BEARER_ENV, CREDENTIAL)
    assert bearer_credential() == CREDENTIAL
    for raw in ("x" * (MIN_BEARER_LENGTH - 1), "with a space" * 4, "caf\u00e9" * 8):
        monkeypatch.setenv(BEARER_ENV, raw)
        with pytest.raises(ValueError, match=rf"^{BEARER_ENV} must be at least 32 visible ASCII characters"):
            bearer_credential()
    built: list[dict[str, Any]] = []
    monkeypatch.setenv(BEARER_ENV, "short")
    with pytest.raises(SystemExit) as exit_info:
        serve(lambda **options: built.append(options), ["--http", "127.0.0.1:8000"], description="d")
    assert exit_info.value.code == 2 and built == []
    assert f"{BEARER_ENV} must be at least 32" in capsys.readouterr().err
    monkeypatch.setenv(BEARER_ENV, CREDENTIAL)
    with pytest.raises(SystemExit) as exit_info:
        serve(lambda **options: built.append(options), [], description="d")  # stdio: always anonymous
    assert exit_info.value.code == 2 and built == []
    assert f"{BEARER_ENV} applies to --http" in capsys.readouterr().err


def test_fastmcp_without_fastmcp_is_one_line_and_exit_2() -> None:
    """`--framework fastmcp` where FastMCP cannot be imported names the install instead of a traceback."""
    blocker = (
        "import sys, runpy\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'fastmcp' or name.startswith('fastmcp.'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "sys.argv = ['financial', '--framework', 'fastmcp']\n"
        "runpy.run_module('mcp_rendering.examples.financial', run_name='__main__')\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", blocker], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [
        "--framework fastmcp needs FastMCP 4: pip install -e '.[fastmcp]' from a clone"
    ]
