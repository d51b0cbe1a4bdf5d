"""Over streamable HTTP on loopback: the fields survive a third real transport, and continuation tokens are bound
to the caller's session, so one client cannot resume another's result."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

import mcp_rendering
from mcp_rendering import EXTENSION_ID, Rendering, resolve_rendering
from tests.support.hinted_server import GUIDANCE

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[bytes]] = []

    def start(module: str) -> str:
        port = _free_port()
        log = (tmp_path / f"{module}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.http_server", module, str(port)],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        started.append(process)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the HTTP server exited: {(tmp_path / f'{module}.log').read_text()[-2000:]}")
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
            assert sheet.annotations is not None
            assert sheet.annotations.verbatim_hint is True  # pyright: ignore[reportAttributeAccessIssue]
            assert sheet.meta is not None and sheet.meta[EXTENSION_ID]["verbatimHint"] is True
            result = await client.call_tool("balance_sheet", {})
            expected = Rendering(mode="verbatim", guidance=GUIDANCE, null_display="-")
            assert result.rendering == expected  # pyright: ignore[reportAttributeAccessIssue]
            effective = resolve_rendering(sheet, result)
            assert (effective.source, effective.directive) == ("result._meta", expected)

    anyio.run(run)


def test_a_token_from_one_session_is_refused_in_another(serve: Any) -> None:
    url = serve("mcp_rendering.examples.screening")

    async def run() -> tuple[Any, Any, Any]:
        async with Client(url, mode="legacy") as first, Client(url, mode="legacy") as second:
            page = await first.call_tool("screening_report", {})
            token = page.structured_content["page"]["nextToken"]  # pyright: ignore[reportOptionalSubscript]
            stolen = await second.call_tool("screening_report", {"cursor": token})
            resumed = await first.call_tool("screening_report", {"cursor": token})
            return page, stolen, resumed

    page, stolen, resumed = anyio.run(run)
    assert not page.is_error and page.structured_content["page"]["complete"] is False
    assert stolen.is_error, "a second session resumed the first one's result"
    assert "caller" in stolen.content[0].text.lower()
    assert not resumed.is_error
