"""Over streamable HTTP on loopback: the carriers survive a third real transport; both extensions are declared on
the wire under every protocol version; and a paged verbatim result is continued over stateless 2026-07-28 without
authorization, each call on its own connection, with tokens bound to the tool, the arguments and the anonymous
authorization context, never to a session."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

import mcp_rendering
from mcp_rendering import CONTINUATION_ID, EXTENSION_ID, Rendering, resolve_rendering
from mcp_rendering.examples._server import BEARER_ENV, SECRET_ENV
from mcp_rendering.reading import read_rendering_object
from tests.support.hinted_server import GUIDANCE

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[bytes]] = []

    def start(module: str, env: dict[str, str] | None = None) -> str:
        port = _free_port()
        log = (tmp_path / f"{module}-{port}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.http_server", module, str(port)],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        started.append(process)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the HTTP server exited: {(tmp_path / f'{module}-{port}.log').read_text()[-2000:]}")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    return f"http://127.0.0.1:{port}/mcp"
            time.sleep(0.1)
        raise RuntimeError("the HTTP server did not start listening within 30 s")

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(autouse=True)
def _patched() -> Iterator[None]:
    with mcp_rendering.installed():
        yield


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
def test_the_fields_survive_streamable_http(serve: Any, mode: str) -> None:
    url = serve("tests.support.hinted_server")

    async def run() -> None:
        async with Client(url, mode=mode, extensions=[mcp_rendering.client_extension()]) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            sheet = tools["balance_sheet"]
            # The server wrote the core form; its middleware moved it into the carrier: one carrier on the wire.
            assert sheet.annotations is None
            assert sheet.meta is not None and sheet.meta[EXTENSION_ID]["verbatimHint"] is True
            result = await client.call_tool("balance_sheet", {})
            expected = Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True)
            wire = expected.model_dump(by_alias=True, exclude_none=True)
            assert result.rendering is None  # pyright: ignore[reportAttributeAccessIssue]
            assert result.meta is not None and result.meta[EXTENSION_ID] == wire
            effective = resolve_rendering(sheet, result)
            assert (effective.source, effective.directive) == ("result._meta", read_rendering_object(wire)[0])

    anyio.run(run)


def _paged_calls(url: str, calls: list[dict[str, Any]]) -> list[Any]:
    """Each call on a fresh 2026-07-28 client: a new connection, no session, no authorization."""

    async def run() -> list[Any]:
        results: list[Any] = []
        for arguments in calls:
            async with Client(url, mode="2026-07-28") as client:
                results.append(await client.call_tool("screening_report", arguments))
        return results

    return anyio.run(run)


def _tampered(token: str) -> str:
    head, signature = token.rsplit(".", 1)
    return f"{head}.{('A' if signature[0] != 'A' else 'B')}{signature[1:]}"


def test_a_paged_verbatim_result_continues_over_stateless_2026_without_authorization(serve: Any) -> None:
    url = serve("mcp_rendering.examples.screening")

    async def tool() -> Any:
        async with Client(url, mode="2026-07-28") as client:
            assert client.protocol_version == "2026-07-28"
            return next(t for t in (await client.list_tools()).tools if t.name == "screening_report")

    screening = anyio.run(tool)
    (first,) = _paged_calls(url, [{}])
    assert not first.is_error, "the first part was refused"
    effective = resolve_rendering(screening, first, original_arguments={})
    assert effective.mode == "verbatim" and effective.continuation is not None and not effective.complete
    token = effective.continuation.token
    following, tampered, other_query = _paged_calls(
        url, [{"cursor": token}, {"cursor": _tampered(token)}, {"cursor": token, "batch": "onboarding-2025-q3"}]
    )
    assert not following.is_error, "a continuation on a new connection, without a session, was refused"
    assert resolve_rendering(screening, following).mode == "verbatim"
    first_ids = [row["id"] for s in first.structured_content["document"]["sections"] for row in s["rows"]]
    next_ids = [row["id"] for s in following.structured_content["document"]["sections"] for row in s["rows"]]
    assert next_ids and not set(first_ids) & set(next_ids)
    assert tampered.is_error and other_query.is_error
    assert "argument" in other_query.content[0].text.lower()


def test_a_continuation_is_accepted_by_another_replica_sharing_the_secret(serve: Any) -> None:
    shared = {SECRET_ENV: "one secret for every replica"}
    first_replica = serve("mcp_rendering.examples.screening", shared)
    second_replica = serve("mcp_rendering.examples.screening", shared)
    stranger = serve("mcp_rendering.examples.screening", {SECRET_ENV: "another deployment"})
    (first,) = _paged_calls(first_replica, [{}])
    token = (first.meta or {})[CONTINUATION_ID]["token"]
    (following,) = _paged_calls(second_replica, [{"cursor": token}])
    (refused,) = _paged_calls(stranger, [{"cursor": token}])
    assert not first.is_error and not following.is_error, "another replica refused the continuation"
    ids = [
        [row["id"] for s in result.structured_content["document"]["sections"] for row in s["rows"]]
        for result in (first, following)
    ]
    assert ids[1] and not set(ids[0]) & set(ids[1])
    assert refused.is_error, "a server with another secret accepted the token"


def _post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    """One JSON-RPC request as raw HTTP, its JSON response (plain or the first SSE `data:` line)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **(headers or {}),
        },
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
        if response.headers.get("Content-Type", "").startswith("text/event-stream"):
            data = next(line for line in text.splitlines() if line.startswith("data:"))
            return json.loads(data.removeprefix("data:"))
        return json.loads(text)


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_initialize_declares_both_extensions_on_the_wire(serve: Any, version: str) -> None:
    url = serve("mcp_rendering.examples.screening")
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    message = _post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    assert message["result"]["protocolVersion"] == version
    assert message["result"]["capabilities"]["extensions"] == {EXTENSION_ID: {}, CONTINUATION_ID: {}}


def test_discover_declares_both_extensions_on_the_wire(serve: Any) -> None:
    url = serve("mcp_rendering.examples.screening")
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION_ID: {}}},
    }
    message = _post(
        url,
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}},
        {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
    )
    assert message["result"]["capabilities"]["extensions"] == {EXTENSION_ID: {}, CONTINUATION_ID: {}}


CREDENTIAL = "5ca1ab1e" * 5  # 40 visible characters


def _call_2026(url: str, arguments: dict[str, Any], bearer: str | None = None) -> dict[str, Any]:
    """One stateless 2026-07-28 `tools/call` of screening_report as raw HTTP, with `Authorization: Bearer` if given."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "screening_report", "arguments": arguments, "_meta": meta}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "screening_report"}
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    return _post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, headers)["result"]


def test_an_example_with_a_bearer_serves_a_principal_and_anonymous_callers_apart(tmp_path: Path) -> None:
    """`MCP_RENDERING_EXAMPLE_BEARER`, end to end through the example's own command line: a call with the credential
    is served as the principal and one without it anonymously, and a token crosses neither way; a wrong credential
    is refused with 401."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), SECRET_ENV: "one secret for the test", BEARER_ENV: CREDENTIAL}
    with (tmp_path / "screening.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_rendering.examples.screening", "--http", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, (tmp_path / "screening.log").read_text()[-2000:]
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the example did not start listening within 30 s"
            time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        anonymous = _call_2026(url, {})["_meta"][CONTINUATION_ID]["token"]
        principal = _call_2026(url, {}, CREDENTIAL)["_meta"][CONTINUATION_ID]["token"]
        assert not _call_2026(url, {"cursor": anonymous}).get("isError")
        assert not _call_2026(url, {"cursor": principal}, CREDENTIAL).get("isError")
        for crossed in (_call_2026(url, {"cursor": anonymous}, CREDENTIAL), _call_2026(url, {"cursor": principal})):
            assert crossed["isError"] is True and "another caller" in crossed["content"][0]["text"]
        with pytest.raises(urllib.error.HTTPError) as refused:
            _call_2026(url, {}, CREDENTIAL[:-1] + "0")
        assert refused.value.code == 401
    finally:
        process.terminate()
        process.wait(timeout=10)
