"""FastMCP 4: the rendering integration, and the financial example served from FastMCP.

The example runs as a real subprocess over stdio (``--framework fastmcp``), read once by the SDK's `mcp.Client` on a
handshake-era connection and once by `fastmcp.Client` on a 2026-07-28 one, so both eras are covered. The carriers'
details (a core-only directive, entries the author set, `--plain`) are checked in process.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import anyio
import jsonschema
import mcp_types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

import mcp_rendering
from mcp_rendering import EXTENSION_ID, Budget, Rendering, paged_tool, resolve_rendering, verbatim_tool
from mcp_rendering.examples import screening
from mcp_rendering.examples._server import SECRET_ENV, serve
from mcp_rendering.examples.financial import GUIDANCE, RECORD_URIS, TOOL, build_fastmcp_server, build_server
from mcp_rendering.examples.financial_data import financial_statements
from mcp_rendering.types import CONTINUATION_ID, RESULT_STRUCTURED_KEY

pytest.importorskip("fastmcp", reason="FastMCP is not installed; the FastMCP path is tested only where it is")

# Modules that need FastMCP, imported once it is known to be there.
import fastmcp
from fastmcp.client.transports import StdioTransport

from mcp_rendering.integrations.fastmcp import (
    FastMCPRenderingExtension,
    enable_rendering,
    tool_annotations,
)

SERVER_ARGS = ["-m", "mcp_rendering.examples.financial", "--framework", "fastmcp"]
DIRECTIVE = {"mode": "verbatim", "guidance": GUIDANCE, "nullDisplay": "n/a", "complete": True}
LEGACY = {"2025-06-18", "2025-11-25"}


@pytest.fixture(scope="module", autouse=True)
def _patched() -> Iterator[None]:
    # Module-wide, so that the stdio sessions shared by several tests read the core form too; undone afterwards
    # unless the patch was already installed.
    with mcp_rendering.installed():
        yield


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@dataclass
class Seen:
    """What one client saw of the FastMCP example."""

    protocol: str | None
    extensions: dict[str, Any] | None
    tools: dict[str, mcp_types.Tool]
    templates: list[dict[str, Any]]
    result: mcp_types.CallToolResult
    record: str
    missing: int | None
    """The error code of a read of a record URI with no record."""


MISSING_RECORD = RECORD_URIS.record_uri("no-such-line")


async def missing_code(read: Callable[[str], Awaitable[object]]) -> int | None:
    try:
        await read(MISSING_RECORD)
    except MCPError as error:
        return error.error.code
    return None


def first_record_uri(result: mcp_types.CallToolResult) -> str:
    assert isinstance(result.structured_content, dict)
    return result.structured_content["document"]["sections"][0]["rows"][0]["uri"]


async def _through_sdk_client() -> Seen:
    params = StdioServerParameters(command=sys.executable, args=SERVER_ARGS)
    # mode "legacy": the handshake era, whose `initialize` result has no `extensions` member.
    async with Client(params, mode="legacy", extensions=[mcp_rendering.client_extension()]) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        templates = [wire(t) for t in (await client.list_resource_templates()).resource_templates]
        result = await client.call_tool(TOOL, {})
        contents = (await client.read_resource(first_record_uri(result))).contents
        capabilities = client.session.server_capabilities
        assert capabilities is not None and isinstance(contents[0], mcp_types.TextResourceContents)
        missing = await missing_code(client.read_resource)
        protocol = client.session.protocol_version
        return Seen(protocol, capabilities.extensions, tools, templates, result, contents[0].text, missing)


async def _through_fastmcp_client() -> Seen:
    transport = StdioTransport(command=sys.executable, args=SERVER_ARGS)
    async with fastmcp.Client(transport, extensions=[mcp_rendering.client_extension()]) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        templates = [wire(t) for t in await client.list_resource_templates()]
        result = await client.call_tool_mcp(TOOL, {})
        contents = await client.read_resource(first_record_uri(result))
        capabilities = client.server_capabilities
        assert capabilities is not None and isinstance(contents[0], mcp_types.TextResourceContents)
        missing = await missing_code(client.read_resource)
        protocol = client.protocol_version
        return Seen(protocol, capabilities.extensions, tools, templates, result, contents[0].text, missing)


@pytest.fixture(scope="module")
def seen() -> dict[str, Seen]:
    return {"mcp": anyio.run(_through_sdk_client), "fastmcp": anyio.run(_through_fastmcp_client)}


@pytest.fixture(params=["mcp", "fastmcp"])
def client_seen(request: pytest.FixtureRequest, seen: dict[str, Seen]) -> Seen:
    return seen[request.param]


def test_the_extension_is_advertised_where_the_protocol_can_show_it(seen: dict[str, Seen]) -> None:
    modern = seen["fastmcp"]
    assert modern.protocol not in LEGACY
    assert modern.extensions is not None and modern.extensions[EXTENSION_ID] == {}
    legacy = seen["mcp"]
    assert legacy.protocol in LEGACY
    assert not legacy.extensions  # no `extensions` capability before 2026-07-28


def test_tools_carry_the_hints_under_meta_only(client_seen: Seen) -> None:
    statements, figures = client_seen.tools[TOOL], client_seen.tools["key_figures"]
    assert statements.meta is not None and statements.meta[EXTENSION_ID] == {"verbatimHint": True}
    assert figures.meta is not None and figures.meta[EXTENSION_ID] == {"summarizeOkHint": True}
    # The hints the tools declared in their annotations were moved: one carrier on the wire.
    assert wire(statements)["annotations"] == {
        "title": "Annual accounts (PCG order)",
        "readOnlyHint": True,
        "openWorldHint": False,
    }
    assert "summarizeOkHint" not in wire(figures)["annotations"]
    assert resolve_rendering(statements, None).source == "tool._meta"
    assert resolve_rendering(figures, None).mode == "summarizable"


def test_the_result_carries_the_directive_and_matches_its_output_schema(client_seen: Seen) -> None:
    result, tool = client_seen.result, client_seen.tools[TOOL]
    assert result.meta is not None and result.meta[EXTENSION_ID] == DIRECTIVE
    structured = result.structured_content
    assert isinstance(structured, dict) and structured[RESULT_STRUCTURED_KEY] == DIRECTIVE
    schema = tool.output_schema
    assert schema is not None and RESULT_STRUCTURED_KEY in schema["properties"]
    assert RESULT_STRUCTURED_KEY not in schema.get("required", [])
    jsonschema.validate(structured, schema)
    with pytest.raises(jsonschema.ValidationError):  # the schema checks something: a result without its page fails
        jsonschema.validate({k: v for k, v in structured.items() if k != "page"}, schema)
    effective = resolve_rendering(tool, result)
    assert (effective.mode, effective.source) == ("verbatim", "result._meta")


def test_the_host_shows_every_record_and_the_audit_is_clean(client_seen: Seen) -> None:
    result, tool = client_seen.result, client_seen.tools[TOOL]
    presentation = mcp_rendering.present(tool, result, server="example-financial")
    rows = [row for section in RECORD_URIS.assign(financial_statements()).sections for row in section.rows]
    assert presentation.mode == "verbatim" and presentation.complete
    assert presentation.document is not None
    assert [row.id for section in presentation.document.sections for row in section.rows] == [row.id for row in rows]
    assert all(row.label in presentation.text for row in rows)
    report = mcp_rendering.audit(presentation.text, result)
    assert report.clean, report.issues
    assert report.rows_intact == report.rows_expected == len(rows)
    # No per-record links by default: the URIs are in the structured records.
    assert not [block for block in result.content if isinstance(block, mcp_types.ResourceLink)]
    assert [row.uri for section in presentation.document.sections for row in section.rows] == [row.uri for row in rows]


def test_the_fastmcp_build_serves_what_the_mcpserver_build_serves(seen: dict[str, Seen]) -> None:
    async def through_mcpserver() -> Seen:
        async with Client(build_server(), mode="legacy") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            templates = [wire(t) for t in (await client.list_resource_templates()).resource_templates]
            result = await client.call_tool(TOOL, {})
            contents = (await client.read_resource(first_record_uri(result))).contents
            assert isinstance(contents[0], mcp_types.TextResourceContents)
            missing = await missing_code(client.read_resource)
            return Seen(None, None, tools, templates, result, contents[0].text, missing)

    reference, served = anyio.run(through_mcpserver), seen["mcp"]
    assert served.tools.keys() == reference.tools.keys()
    for name, tool in reference.tools.items():
        ours = served.tools[name]
        assert (ours.description, wire(ours)["annotations"]) == (tool.description, wire(tool)["annotations"])
        assert ours.meta is not None and tool.meta is not None
        assert ours.meta[EXTENSION_ID] == tool.meta[EXTENSION_ID]
    assert served.tools[TOOL].output_schema == reference.tools[TOOL].output_schema
    keys = ("name", "uriTemplate", "description", "mimeType")
    assert [{k: t.get(k) for k in keys} for t in served.templates] == [
        {k: t.get(k) for k in keys} for t in reference.templates
    ]
    assert reference.templates[0]["uriTemplate"] == RECORD_URIS.template
    ours, theirs = wire(served.result), wire(reference.result)
    for key in ("content", "structuredContent", "isError"):
        assert ours[key] == theirs[key], key
    assert ours["_meta"][EXTENSION_ID] == theirs["_meta"][EXTENSION_ID]
    assert served.record == reference.record
    assert served.missing == reference.missing == mcp_types.INVALID_PARAMS
    assert seen["fastmcp"].missing == mcp_types.INVALID_PARAMS


def _probe_server() -> fastmcp.FastMCP[Any]:
    app: fastmcp.FastMCP[Any] = fastmcp.FastMCP("probe")
    enable_rendering(app)
    directive = Rendering(mode="verbatim", guidance="Every row.", complete=True)

    @app.tool(annotations=tool_annotations(verbatim_hint=True, summarize_ok_hint=False))
    def core_only() -> mcp_types.CallToolResult:
        copy = {"rows": [1, 2], RESULT_STRUCTURED_KEY: wire(directive)}
        return mcp_types.CallToolResult(content=[], structured_content=copy, rendering=directive)  # pyright: ignore[reportCallIssue]

    @app.tool(
        annotations=mcp_types.ToolAnnotations(verbatim_hint=True),  # pyright: ignore[reportCallIssue]
        meta={EXTENSION_ID: {"summarizeOkHint": True}},
    )
    def preset() -> mcp_types.CallToolResult:
        return mcp_types.CallToolResult(
            content=[],
            structured_content={"rows": []},
            rendering=directive,  # pyright: ignore[reportCallIssue]
            _meta={EXTENSION_ID: {"mode": "summarizable"}},  # pyright: ignore[reportCallIssue]
        )

    @app.tool()
    def unhinted() -> str:
        return "no hints, no directive"

    del core_only, preset, unhinted
    return app


def test_the_middleware_fills_the_meta_carriers_and_leaves_the_authors_entries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def run() -> tuple[dict[str, mcp_types.Tool], dict[str, dict[str, Any]], dict[str, Any] | None]:
        async with fastmcp.Client(_probe_server()) as client:
            tools = {tool.name: tool for tool in await client.list_tools()}
            results = {name: wire(await client.call_tool_mcp(name, {})) for name in tools}
            capabilities = client.server_capabilities
            return tools, results, capabilities.extensions if capabilities is not None else None

    with caplog.at_level(logging.WARNING, logger="mcp_rendering"):
        tools, results, extensions = anyio.run(run)
    assert extensions is not None and EXTENSION_ID in extensions
    assert tools["core_only"].meta is not None
    assert tools["core_only"].meta[EXTENSION_ID] == {"verbatimHint": True, "summarizeOkHint": False}
    # Hint by hint: the author's own summarizeOkHint stays, the annotations' verbatimHint joins it.
    assert tools["preset"].meta is not None
    assert tools["preset"].meta[EXTENSION_ID] == {"summarizeOkHint": True, "verbatimHint": True}
    assert EXTENSION_ID not in (tools["unhinted"].meta or {})
    assert results["core_only"]["_meta"][EXTENSION_ID] == {
        "mode": "verbatim",
        "guidance": "Every row.",
        "complete": True,
    }
    # Moved, not copied: the wire holds one carrier.
    assert "_rendering" not in results["core_only"] and "_rendering" not in results["preset"]
    assert "verbatimHint" not in wire(tools["core_only"]).get("annotations", {})
    assert results["preset"]["_meta"][EXTENSION_ID] == {"mode": "summarizable"}
    assert EXTENSION_ID not in results["unhinted"].get("_meta", {})
    # `preset` has an object structuredContent without the model-facing copy: the same warning as MCPServer's.
    assert caplog.text.count("no '_rendering' copy") == 1


def test_the_core_form_stays_on_the_wire_on_opt_in() -> None:
    async def run() -> tuple[dict[str, mcp_types.Tool], dict[str, Any]]:
        app: fastmcp.FastMCP[Any] = fastmcp.FastMCP("kept")
        enable_rendering(app, core_form=True)
        directive = Rendering(mode="verbatim", complete=True)

        @app.tool(annotations=tool_annotations(verbatim_hint=True))
        def kept() -> mcp_types.CallToolResult:
            return mcp_types.CallToolResult(content=[], rendering=directive)  # pyright: ignore[reportCallIssue]

        del kept
        async with fastmcp.Client(app) as client:
            tools = {tool.name: tool for tool in await client.list_tools()}
            return tools, wire(await client.call_tool_mcp("kept", {}))

    tools, result = anyio.run(run)
    assert wire(tools["kept"])["annotations"]["verbatimHint"] is True
    assert tools["kept"].meta is not None and tools["kept"].meta[EXTENSION_ID] == {"verbatimHint": True}
    assert result["_rendering"] == result["_meta"][EXTENSION_ID] == {"mode": "verbatim", "complete": True}


def test_one_extension_object_is_both_registrations() -> None:
    app: fastmcp.FastMCP[Any] = fastmcp.FastMCP("twice")
    extension = enable_rendering(app)
    assert isinstance(extension, FastMCPRenderingExtension)
    assert extension in app.middleware and extension.server is app
    with pytest.raises(ValueError, match="already registered"):
        enable_rendering(app)


def test_plain_and_record_links_builds() -> None:
    async def run(app: fastmcp.FastMCP[Any]) -> tuple[dict[str, Any] | None, mcp_types.Tool, mcp_types.CallToolResult]:
        async with fastmcp.Client(app) as client:
            tools = {tool.name: tool for tool in await client.list_tools()}
            result = await client.call_tool_mcp(TOOL, {})
            capabilities = client.server_capabilities
            return capabilities.extensions if capabilities is not None else None, tools[TOOL], result

    extensions, tool, result = anyio.run(run, build_fastmcp_server(plain=True))
    assert EXTENSION_ID not in (extensions or {})
    assert EXTENSION_ID not in (tool.meta or {}) and "verbatimHint" not in wire(tool)["annotations"]
    assert result.meta is not None and result.meta[EXTENSION_ID] == DIRECTIVE  # the builder's carrier stays
    _, _, linked = anyio.run(run, build_fastmcp_server(record_links=True))
    rows = [row for section in RECORD_URIS.assign(financial_statements()).sections for row in section.rows]
    links = [block for block in linked.content if isinstance(block, mcp_types.ResourceLink)]
    assert [str(link.uri) for link in links] == [row.uri for row in rows]


class _Recorder:
    def __init__(self, label: str, calls: list[tuple[Any, ...]]) -> None:
        self.label, self.calls = label, calls

    def __call__(self, **options: Any) -> _Recorder:
        self.calls.append((self.label, "build", options))
        return self

    def run(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append((self.label, "run", args, kwargs))


def test_serve_builds_the_chosen_framework_with_the_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_ENV, "shared by every replica")
    calls: list[tuple[Any, ...]] = []
    build, fastmcp_build = _Recorder("mcpserver", calls), _Recorder("fastmcp", calls)
    argv = ["--framework", "fastmcp", "--plain", "--record-links", "--http", "127.0.0.1:8765"]
    assert serve(build, argv, description="d", fastmcp_build=fastmcp_build) == 0
    assert calls == [
        ("fastmcp", "build", {"plain": True, "record_links": True}),
        (
            "fastmcp",
            "run",
            ("http",),
            {"show_banner": False, "log_level": "WARNING", "host": "127.0.0.1", "port": 8765, "path": "/mcp"},
        ),
    ]
    calls.clear()
    assert serve(build, [], description="d", fastmcp_build=fastmcp_build) == 0
    assert calls == [
        ("mcpserver", "build", {"plain": False, "record_links": False}),
        ("mcpserver", "run", ("stdio",), {}),
    ]


def test_serving_http_without_the_shared_token_secret_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    calls: list[tuple[Any, ...]] = []
    with pytest.raises(SystemExit) as exit_info:
        serve(_Recorder("mcpserver", calls), ["--http", "127.0.0.1:8765"], description="d")
    assert exit_info.value.code == 2 and calls == []  # refused before anything is built
    assert f"--http needs the token secret in {SECRET_ENV}" in capsys.readouterr().err


def test_an_example_without_a_fastmcp_build_refuses_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        screening.main(["--framework", "fastmcp"])
    assert exit_info.value.code == 2
    # Its usage does not offer the choice either.
    err = capsys.readouterr().err
    assert "invalid choice: 'fastmcp'" in err and "[--framework {mcpserver}]" in err


def test_an_unknown_framework_exits_with_an_error() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "mcp_rendering.examples.financial", "--framework", "flask"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2
    assert "invalid choice: 'flask'" in completed.stderr


def test_a_server_from_rows_runs_on_fastmcp_with_both_extensions_declared() -> None:
    """The same `verbatim_tool` and `paged_tool` as on `MCPServer`: FastMCP's `tool` takes the same arguments."""
    app: fastmcp.FastMCP[Any] = fastmcp.FastMCP("rows")
    enable_rendering(app, continuation=True)

    @verbatim_tool(app, title="Balance sheet")
    def balance_sheet() -> list[dict[str, Any]]:
        return [{"label": "Cash", "EUR": Decimal("12345678901234567.89")}]

    @paged_tool(app, budget=Budget(max_items=2), secret="a-test-secret-of-32-bytes-000000")
    async def hits(case: str) -> list[dict[str, Any]]:
        return [{"label": f"{case} {i}", "score": i} for i in range(5)]

    async def run() -> tuple[Any, dict[str, mcp_types.Tool], dict[str, Any], list[dict[str, Any]]]:
        async with fastmcp.Client(app) as client:
            tools = {tool.name: tool for tool in await client.list_tools()}
            sheet = wire(await client.call_tool_mcp("balance_sheet", {}))
            parts = [wire(await client.call_tool_mcp("hits", {"case": "C"}))]
            while CONTINUATION_ID in parts[-1]["_meta"]:
                token = parts[-1]["_meta"][CONTINUATION_ID]["token"]
                parts.append(wire(await client.call_tool_mcp("hits", {"case": "C", "cursor": token})))
            return client.server_capabilities, tools, sheet, parts

    capabilities, tools, sheet, parts = anyio.run(run)
    assert capabilities is not None and capabilities.extensions is not None
    assert {EXTENSION_ID, CONTINUATION_ID} <= set(capabilities.extensions)
    assert tools["balance_sheet"].meta is not None
    assert tools["balance_sheet"].meta[EXTENSION_ID] == {"verbatimHint": True}
    assert tools["hits"].meta is not None and tools["hits"].meta[CONTINUATION_ID] == {"argument": "cursor"}
    assert sheet["structuredContent"]["document"]["sections"][0]["rows"][0]["values"] == ["12345678901234567.89"]
    assert sheet["_meta"][EXTENSION_ID] == {"mode": "verbatim", "complete": True}
    labels = [row["label"] for part in parts for row in part["structuredContent"]["document"]["sections"][0]["rows"]]
    assert labels == [f"C {i}" for i in range(5)]
    assert [part["_meta"][EXTENSION_ID]["complete"] for part in parts] == [False, False, True]
