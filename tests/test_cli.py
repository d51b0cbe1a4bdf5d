"""The `mcp-rendering` command line: `demo`, `inspect` and `audit`, against real subprocesses over stdio."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_rendering.audit import MAX_RESULT_BYTES, MAX_TRANSCRIPT_CHARS
from mcp_rendering.cli import main
from mcp_rendering.patch import installed
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

EXAMPLE = [sys.executable, "-m", "mcp_rendering.examples.financial"]
SCREENING = [sys.executable, "-m", "mcp_rendering.examples.screening"]


@pytest.fixture(autouse=True)
def _leave_the_sdk_as_found() -> Iterator[None]:
    # The demo installs the patch in-process; undo it afterwards unless it was already installed.
    with installed():
        yield


def run_cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_rendering", *argv], capture_output=True, text=True, timeout=timeout, check=False
    )


def inspect_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["inspect", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------------------------------------ demo


def test_demo_shows_the_whole_result_and_its_audit_is_clean() -> None:
    completed = run_cli("demo")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "fidelity: clean; score 1.000; 54/54 records intact" in out
    assert "financial_statements  verbatimHint=true" in out
    assert "RÉSULTAT NET DE L'EXERCICE" in out
    assert "Outcome: the user saw the whole result" in out
    # The contrast: a totals-only summary is audited too, and caught.
    contrast = next(line for line in out.splitlines() if "its audit:" in line)
    assert "NOT clean" in contrast and "rows missing: 51" in contrast


def test_demo_of_a_paged_result_shows_the_notice_and_walks_to_the_end(tmp_path: Path) -> None:
    completed = run_cli("demo", "--example", "screening", "--save", str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "INCOMPLETE: a bounded page" in out
    assert "What the user sees (mode verbatim: a part of the result, marked partial, in order)" in out
    assert "the whole result, in order)" not in out
    assert "Outcome: each part was shown in order and marked partial until the last" in out
    assert "Partial result: it shows 100 of" in out
    walked = next(line for line in out.splitlines() if "walked" in line)
    pages, records = walked.split("walked ")[1].split(" pages: ")
    shown, total = records.split(" records")[0].split(" of ")
    assert int(pages) >= 3 and shown == total
    assert walked.endswith("0 repeated")
    assert out.count("score 1.00, clean") == int(pages)

    # What the demo saved audits clean through `mcp-rendering audit`, with the tool and the call's arguments as
    # the demo says to re-run it and without, and a dropped row is caught.
    result, transcript = tmp_path / "result.json", tmp_path / "transcript.txt"
    call = ["--tool", str(tmp_path / "tool.json"), "--arguments", str(tmp_path / "arguments.json")]
    assert f"re-run the audit with: mcp-rendering audit {call[0]} {call[1]}" in " ".join(out.split())
    assert main(["audit", *call, str(result), str(transcript)]) == 0
    assert main(["audit", str(result), str(transcript)]) == 0
    lines = transcript.read_text(encoding="utf-8").splitlines()
    row = next(index for index, line in enumerate(lines) if line.startswith("| ") and "CUST-" in line)
    damaged = tmp_path / "damaged.txt"
    damaged.write_text("\n".join(lines[:row] + lines[row + 1 :]) + "\n", encoding="utf-8")
    assert main(["audit", str(result), str(damaged)]) == 1


# --------------------------------------------------------------------------------------------------------- inspect


def test_inspect_reports_the_hints_of_an_example_server_in_its_carrier(capsys: pytest.CaptureFixture[str]) -> None:
    report = inspect_json(capsys, "--", *EXAMPLE)
    assert report["server_name"] == "example-financial"
    assert report["protocol_version"] == "2026-07-28"
    assert report["negotiated_by"] == "server/discover"
    assert report["discovery"] is None
    assert report["extension_advertised"] is True
    tools = {tool["name"]: tool for tool in report["tools"]}
    statements = tools["financial_statements"]
    assert statements["meta"] == {
        "carrier": "_meta",
        "present": True,
        "values": {"verbatimHint": True},
        "problems": [],
        "unknown": [],
    }
    # The server's middleware moved the hints its tools declared in their annotations: one carrier on the wire.
    assert statements["annotations"] == {
        "carrier": "annotations",
        "present": False,
        "values": {},
        "problems": [],
        "unknown": [],
    }
    assert (statements["effective_mode"], statements["effective_source"]) == ("verbatim", "tool._meta")
    assert tools["key_figures"]["meta"]["values"] == {"summarizeOkHint": True}
    assert tools["key_figures"]["effective_mode"] == "summarizable"
    assert report["malformed"] == report["unknown"] == 0 and report["strict_failures"] == []
    assert report["resource_templates"] == ["accounts://atelier-fictif/fy2025/lines/{row_id}"]
    assert report["prompts"] == [] and report["resources"] == []


def test_inspect_judges_a_sample_call_of_a_paged_tool(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--strict", "--call", "screening_report", "--args", "{}", "--", *SCREENING]) == 0
    out = capsys.readouterr().out
    assert "result._meta['io.modelcontextprotocol/rendering']: mode=\"verbatim\"" in out
    assert "result._rendering: absent" in out
    assert "structuredContent._rendering (model-facing copy, never a directive): mode=" in out
    assert "effective mode verbatim (from result._meta)" in out
    assert "incomplete (a bounded page); continue with argument 'cursor'" in out
    assert "0 malformed value(s), 0 unknown member(s) (ignored)." in out and "Strict check: passes." in out


def test_inspect_strict_fails_a_server_without_the_meta_carrier(capsys: pytest.CaptureFixture[str]) -> None:
    """The same example served --plain carries no tool hints at all: nothing to fail. A server that puts hints
    in the annotations alone (no `_meta` carrier) fails, and so does a directive without its carrier."""
    report = inspect_json(capsys, "--call", "report", "--", sys.executable, "-c", CORE_ONLY_SERVER)
    assert [tool["missing_meta_carrier"] for tool in report["tools"]] == [True]
    assert report["call"]["missing_meta_carrier"] is True
    assert report["strict_failures"] == [
        'tool "report" has hints without the _meta carrier',
        'the result of "report" has a directive without the _meta carrier',
    ]
    assert main(["inspect", "--strict", "--call", "report", "--", sys.executable, "-c", CORE_ONLY_SERVER]) == 1
    assert "Strict check: fails" in capsys.readouterr().out
    assert main(["inspect", "--call", "report", "--", sys.executable, "-c", CORE_ONLY_SERVER]) == 0


RESOURCES_AND_PROMPTS_SERVER = textwrap.dedent(
    """
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("library")

    @server.resource("docs://guide")
    def guide() -> str:
        return "read me"

    @server.resource("docs://chapters/{number}")
    def chapter(number: str) -> str:
        return number

    @server.prompt()
    def summarize_chapter(number: str) -> str:
        return number

    server.run()
    """
)


def test_inspect_lists_the_resources_and_prompts_a_server_declares(capsys: pytest.CaptureFixture[str]) -> None:
    report = inspect_json(capsys, "--", sys.executable, "-c", RESOURCES_AND_PROMPTS_SERVER)
    assert {"prompts", "resources"} <= set(report["capabilities"])
    assert report["resources"] == ["docs://guide"]
    assert report["resource_templates"] == ["docs://chapters/{number}"]
    assert report["prompts"] == ["summarize_chapter"]
    assert report["tools"] == []

    assert main(["inspect", "--", sys.executable, "-c", RESOURCES_AND_PROMPTS_SERVER]) == 0
    out = capsys.readouterr().out
    assert "docs://guide" in out and "docs://chapters/{number}" in out and "summarize_chapter" in out


def test_inspect_of_a_2026_server_says_so_in_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--", *EXAMPLE]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Server: example-financial 0.1.0, protocol 2026-07-28 (via server/discover)"
    assert not any(line.startswith("Discovery:") for line in lines)
    assert (
        "Extension io.modelcontextprotocol/rendering: yes, advertised in the server's capabilities"
        " (server/discover result)"
    ) in lines


def test_inspect_never_prints_raw_control_characters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--", sys.executable, "-c", HOSTILE_NAMES_SERVER]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\u2028" not in out
    assert "\\u001b[2J\\u001b[H" in out  # shown, escaped
    report = inspect_json(capsys, "--", sys.executable, "-c", HOSTILE_NAMES_SERVER)
    assert report["tools"][0]["name"] == "clear\x1b[2J\x1b[H\u202eeman"  # JSON keeps the value, escaped in ASCII


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import mcp_rendering

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"mcp-rendering {mcp_rendering.__version__}"


CORE_ONLY_SERVER = textwrap.dedent(
    """
    import json, sys

    TOOL = {"name": "report", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}
    RESULT = {"content": [{"type": "text", "text": "x"}], "_rendering": {"mode": "verbatim"}}
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message["method"]
        if method == "initialize":
            info = {"name": "c", "version": "0"}
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            result = {"tools": [TOOL]}
        elif method == "tools/call":
            result = RESULT
        else:
            error = {"code": -32601, "message": "no"}
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    """
)

HOSTILE_NAMES_SERVER = CORE_ONLY_SERVER.replace(
    '"name": "report"', '"name": "clear\\u001b[2J\\u001b[H\\u202eeman"'
).replace('"name": "c"', '"name": "srv\\u2028Server: forged"')


MALFORMED_SERVER = textwrap.dedent(
    """
    import json, sys

    TOOL = {
        "name": "sloppy",
        "inputSchema": {"type": "object"},
        "annotations": {"verbatimHint": "yes", "summarizeOkHint": False},
        "_meta": {"io.modelcontextprotocol/rendering": "verbatim"},
    }
    RESULT = {
        "content": [{"type": "text", "text": "x"}],
        "_rendering": 42,
        "_meta": {"io.modelcontextprotocol/rendering": {"mode": "verbatim", "nullDisplay": "n/a"}},
        "structuredContent": {"_rendering": {"mode": "loud"}},
    }
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message["method"]
        if method == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "sloppy-server", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": [TOOL]}
        elif method == "tools/call":
            result = RESULT
        elif method == "ping":
            result = {}
        else:  # a handshake-era server: `server/discover` is a method it does not know
            error = {"code": -32601, "message": "Method not found"}
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    """
)


def test_inspect_flags_malformed_values_from_the_raw_wire(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = tmp_path / "sloppy_server.py"
    server.write_text(MALFORMED_SERVER, encoding="utf-8")
    command = [sys.executable, str(server)]

    report = inspect_json(capsys, "--call", "sloppy", "--", *command)
    (tool,) = report["tools"]
    assert tool["annotations"]["values"] == {"verbatimHint": True, "summarizeOkHint": False}
    assert tool["annotations"]["problems"] == [
        "verbatimHint: Input should be a valid boolean (got 'yes'); read as true"
    ]
    assert tool["meta"]["problems"] == [
        "the value: a string, not an object; read as verbatimHint true, summarizeOkHint false"
    ]
    # "yes" is not true, but unreadable hints fail safe: the tool reads as verbatim, from the `_meta` carrier.
    assert (tool["effective_mode"], tool["effective_source"]) == ("verbatim", "tool._meta")
    call = report["call"]
    assert call["core"]["problems"] == [
        "the value: a number, not an object; read as mode verbatim, complete not stated, guidance absent, "
        "nullDisplay absent"
    ]
    assert call["meta"]["values"] == {"mode": "verbatim", "nullDisplay": "n/a"}
    assert call["structured_copy"]["values"] == {"mode": "loud"}  # unregistered but well-formed; never a directive
    assert call["structured_copy"]["problems"] == ["mode: 'loud' is not a registered value; read as verbatim"]
    assert call["effective_mode"] == "verbatim" and call["effective_source"] == "result._meta"
    assert report["malformed"] == 4

    # The server refused `server/discover`, so this all went through the 2025-11-25 handshake.
    assert report["protocol_version"] == "2025-11-25"
    assert report["negotiated_by"] == "initialize"
    assert report["discovery"] == "server/discover was refused (-32601: Method not found)"
    assert report["extension_advertised"] is None

    assert main(["inspect", "--call", "sloppy", "--", *command]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Server: sloppy-server 0, protocol 2025-11-25 (via initialize)\n")
    assert (
        "Discovery: server/discover was refused (-32601: Method not found); "
        "fell back to the 2025-11-25 initialize handshake"
    ) in text
    assert "Extension io.modelcontextprotocol/rendering: not visible (a 2025-11-25 initialize result" in text
    assert "! annotations verbatimHint: Input should be a valid boolean (got 'yes'); read as true" in text
    assert "! _meta the value: a string, not an object; read as verbatimHint true, summarizeOkHint false" in text
    assert "4 malformed value(s), 0 unknown member(s) (ignored)." in text
    assert main(["inspect", "--strict", "--call", "sloppy", "--", *command]) == 1


LEGACY_SERVER = textwrap.dedent(
    """
    import json, sys

    discover, log = sys.argv[1], open(sys.argv[2], "w")
    initialized = False
    for line in sys.stdin:
        message = json.loads(line)
        log.write(line)
        log.flush()
        method = message.get("method")
        if method == "notifications/initialized":
            initialized = True
        if "id" not in message:
            continue
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "server/discover":
            if discover == "silent":
                continue  # some servers drop requests they do not know
            if discover == "junk":
                reply["result"] = {"hello": "world"}
            else:
                reply["error"] = {"code": -32600, "message": "the session is not initialized"}
        elif method == "initialize":
            reply["result"] = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "legacy-server", "version": "1.0"},
            }
        elif method == "tools/list" and initialized and "_meta" not in message.get("params", {}):
            reply["result"] = {"tools": [{"name": "plain", "inputSchema": {"type": "object"}}]}
        else:
            reply["error"] = {"code": -32600, "message": "unexpected " + str(method)}
        print(json.dumps(reply), flush=True)
    """
)


@pytest.mark.parametrize(
    ("discover", "discovery"),
    [
        ("error", "server/discover was refused (-32600: the session is not initialized)"),
        ("junk", "the server/discover result is not a discover result"),
        ("silent", "did not answer server/discover within 1 s"),
    ],
)
def test_inspect_falls_back_to_initialize_when_discovery_fails(
    discover: str, discovery: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, log = tmp_path / "legacy_server.py", tmp_path / "received.jsonl"
    server.write_text(LEGACY_SERVER, encoding="utf-8")

    report = inspect_json(capsys, "--timeout", "1", "--", sys.executable, str(server), discover, str(log))
    assert report["server_name"] == "legacy-server"
    assert report["protocol_version"] == "2025-11-25"
    assert report["negotiated_by"] == "initialize"
    assert report["discovery"] == discovery
    assert report["extension_advertised"] is None
    assert [tool["name"] for tool in report["tools"]] == ["plain"]

    received = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [message["method"] for message in received] == [
        "server/discover",
        "initialize",
        "notifications/initialized",
        "tools/list",
    ]
    probe, initialize = received[0]["params"]["_meta"], received[1]["params"]
    assert probe["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert probe["io.modelcontextprotocol/clientInfo"]["name"] == "mcp-rendering-inspect"
    assert probe["io.modelcontextprotocol/clientCapabilities"] == {
        "extensions": {"io.modelcontextprotocol/rendering": {}}
    }
    assert initialize["protocolVersion"] == "2025-11-25"
    assert "_meta" not in initialize


MODERN_SERVER = textwrap.dedent(
    """
    import json, sys

    ENVELOPE = ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities")
    TOOL = {"name": "report", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}}
    supported = sys.argv[1].split(",")
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method, meta = message["method"], message.get("params", {}).get("_meta", {})
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        if meta.get(ENVELOPE[0]) not in supported:
            data = {"supported": supported, "requested": meta.get(ENVELOPE[0])}
            reply["error"] = {"code": -32022, "message": "unsupported protocol version", "data": data}
        elif not all(key in meta for key in ENVELOPE):
            reply["error"] = {"code": -32602, "message": "the request lacks the _meta envelope"}
        elif method == "server/discover":
            reply["result"] = {
                "supportedVersions": supported,
                "capabilities": {"tools": {}, "extensions": {"io.example/other": {}}},
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-server", "version": "2.0"}},
            }
        elif method == "tools/list":
            reply["result"] = {"tools": [TOOL], "resultType": "complete"}
        elif method == "tools/call":
            reply["result"] = {
                "content": [{"type": "text", "text": "x"}],
                "_rendering": {"mode": "verbatim"},
                "resultType": "complete",
            }
        else:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        print(json.dumps(reply), flush=True)
    """
)


def test_inspect_speaks_2026_to_a_server_that_requires_the_envelope_on_every_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = tmp_path / "modern_server.py"
    server.write_text(MODERN_SERVER, encoding="utf-8")
    command = [sys.executable, str(server), "2026-07-28"]

    report = inspect_json(capsys, "--call", "report", "--", *command)
    assert (report["server_name"], report["server_version"]) == ("modern-server", "2.0")
    assert report["protocol_version"] == "2026-07-28"
    assert report["negotiated_by"] == "server/discover"
    # The discover result lists extensions, and not this one: under 2026-07-28 that is a plain "no".
    assert report["extension_advertised"] is False
    # Only the core form carries the hint here, and a host reads it only on explicit opt-in.
    assert report["tools"][0]["effective_mode"] == "unspecified"
    assert report["call"]["core"] == {
        "carrier": "_rendering",
        "present": True,
        "values": {"mode": "verbatim"},
        "problems": [],
        "unknown": [],
    }
    assert report["call"]["missing_meta_carrier"] is True

    assert main(["inspect", "--", *command]) == 0
    text = capsys.readouterr().out
    assert (
        "Extension io.modelcontextprotocol/rendering: no, not advertised in the server's capabilities"
        " (server/discover result)"
    ) in text


def test_inspect_names_the_versions_of_a_server_it_cannot_speak_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = tmp_path / "modern_server.py"
    server.write_text(MODERN_SERVER, encoding="utf-8")
    assert main(["inspect", "--", sys.executable, str(server), "2099-01-01"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        "mcp-rendering inspect: error: the server speaks only protocol 2099-01-01; "
        "inspect speaks 2026-07-28 and 2025-11-25"
    )


@pytest.mark.parametrize(
    ("command", "message"),
    [
        # Alive after its line, so that the line is read: a server that also exits at once races the SDK's stdio
        # transport, which may close the stream on the broken pipe before the line is delivered (a case below).
        (
            [sys.executable, "-c", "import sys; print('hello', flush=True); sys.stdin.read()"],
            "it wrote non-JSON to stdout: 'hello'",
        ),
        (["mcp-rendering-no-such-command"], "command not found: mcp-rendering-no-such-command"),
        ([sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"], "stopped before answering"),
        ([sys.executable, "-c", "import time; time.sleep(60)"], "did not answer initialize within 1 s"),
    ],
    ids=["not-json", "no-such-command", "exits-early", "timeout"],
)
def test_inspect_fails_with_one_clear_line(
    command: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # 2, not 1: nothing was judged, so a CI step can tell this from a strict check that fails.
    assert main(["inspect", "--timeout", "1", "--", *command]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    error = captured.err.strip()
    assert "\n" not in error
    assert error.startswith("mcp-rendering inspect: error: ")
    assert message in error


def test_a_server_that_writes_non_json_and_exits_gets_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    # Whether its line arrives before the pipe breaks is the SDK transport's race: either line is true and clear.
    assert main(["inspect", "--timeout", "1", "--", sys.executable, "-c", "print('hello')"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error
    assert error in (
        "mcp-rendering inspect: error: the server does not speak MCP over stdio: it wrote non-JSON to stdout: 'hello'",
        "mcp-rendering inspect: error: the server stopped before answering server/discover",
    )


def test_inspect_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--args", "{}", "--", *EXAMPLE]) == 2
    assert "--args needs --call" in capsys.readouterr().err
    assert main(["inspect", "--call", "nope", "--", *EXAMPLE]) == 2
    assert 'no tool named "nope"' in capsys.readouterr().err
    assert main(["inspect"]) == 2
    assert "no server command given" in capsys.readouterr().err
    for timeout in ("0", "-1"):
        assert main(["inspect", "--timeout", timeout, "--", *EXAMPLE]) == 2
        assert "--timeout must be a positive number of seconds" in capsys.readouterr().err


def test_the_demo_refuses_a_save_path_it_cannot_use_before_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    occupied = tmp_path / "a-file"
    occupied.write_text("x", encoding="utf-8")
    assert main(["demo", "--save", str(occupied)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("mcp-rendering demo: error: cannot save into ")


CONTINUATION_ONLY_SERVER = CORE_ONLY_SERVER.replace(
    '"_rendering": {"mode": "verbatim"}',
    '"_meta": {"io.modelcontextprotocol/rendering": {"mode": "verbatim"}, '
    '"mcp-rendering/result-continuation": {"argument": "cursor", "token": "p2"}}',
).replace(
    '"inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}',
    '"inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}}, '
    '"_meta": {"io.modelcontextprotocol/rendering": {"verbatimHint": True}, '
    '"mcp-rendering/result-continuation": {"argument": "cursor"}}',
)


def test_inspect_strict_fails_a_continuation_that_does_not_say_incomplete(capsys: pytest.CaptureFixture[str]) -> None:
    report = inspect_json(capsys, "--call", "report", "--", sys.executable, "-c", CONTINUATION_ONLY_SERVER)
    assert report["call"]["complete"] is False  # read safely: a continuation means more to come
    assert report["strict_failures"] == [
        "the result's _meta has a continuation without complete: false",
        "the result's continuation: expiresAt: not stated (a server always states the token's expiry)",
    ]
    assert main(["inspect", "--strict", "--call", "report", "--", sys.executable, "-c", CONTINUATION_ONLY_SERVER]) == 1


PAGED_ROWS_SERVER = textwrap.dedent(
    """
    import sys

    from mcp.server.mcpserver import MCPServer

    from mcp_rendering import Budget, paged_tool, registration

    declared = sys.argv[1] == "declared"
    mcp = MCPServer("rows", **registration(continuation=declared))
    if not declared:
        # paged_tool refuses a server without result continuation; a server built by hand may leave it out, for
        # inspect to find: the check is passed here with a stand-in that declares nothing.
        mcp._extensions.append(type("StandIn", (), {"identifier": "mcp-rendering/result-continuation"})())


    @paged_tool(mcp, budget=Budget(max_items=2), secret="a-test-secret-of-32-bytes-000000")
    def hits(case: str) -> list[dict[str, object]]:
        return [{"label": f"{case} {i}", "score": i} for i in range(5)]


    if not declared:
        mcp._extensions.pop()

    mcp.run()
    """
)


def test_inspect_reports_each_extension_and_strict_fails_a_paged_tool_without_result_continuation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    undeclared = [sys.executable, "-c", PAGED_ROWS_SERVER, "undeclared"]
    report = inspect_json(capsys, "--", *undeclared)
    assert (report["extension_advertised"], report["continuation_advertised"]) == (True, False)
    assert report["extensions"] == [EXTENSION_ID]
    assert report["tools"][0]["continuation_argument"] == "cursor"
    assert report["strict_failures"] == [
        f'tool "hits" pages its results but the server does not declare {CONTINUATION_ID}'
    ]
    assert main(["inspect", "--strict", "--", *undeclared]) == 1
    out = capsys.readouterr().out
    assert f"Extension {CONTINUATION_ID}: no, not advertised in the server's capabilities" in out
    assert 'result continuation: pages its results, continued through argument "cursor"' in out
    assert 'Strict check: fails (tool "hits" pages its results' in out
    # Without --strict: the findings are named, no verdict is given, and the exit status stays 0.
    assert main(["inspect", "--", *undeclared]) == 0
    out = capsys.readouterr().out
    assert "Strict check" not in out
    assert 'Findings that --strict fails on: tool "hits" pages its results' in out

    declared = [sys.executable, "-c", PAGED_ROWS_SERVER, "declared"]
    assert main(["inspect", "--strict", "--call", "hits", "--args", '{"case": "C"}', "--", *declared]) == 0
    out = capsys.readouterr().out
    assert f"Extension {CONTINUATION_ID}: yes, advertised in the server's capabilities" in out
    assert "Strict check: passes." in out
    assert (
        "Checked: the server's declaration of each extension; the hints of 1 tool in both carriers, and each "
        'one\'s continuation argument; the result of "hits": its directive in each of three carriers, and its '
        "continuation."
    ) in out


def test_inspect_without_strict_gives_no_verdict_and_says_what_it_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--", *EXAMPLE]) == 0
    out = capsys.readouterr().out
    assert "Strict check" not in out and "Findings that --strict" not in out
    assert "Checked: the server's declaration of each extension; the hints of 2 tools in both carriers" in out


def test_inspect_help_describes_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["inspect", "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal's width
    assert "Start a stdio MCP server, connect to it as a client would, and report what it declares" in out
    assert "a paged tool on a server that does not declare result continuation" in out


# ---------------------------------------------------------------------------------------------- the command itself


def test_the_command_alone_prints_its_help() -> None:
    alone = run_cli()
    assert alone.returncode == 2
    assert alone.stdout.startswith("usage: mcp-rendering")
    assert all(command in alone.stdout for command in ("demo", "inspect", "audit"))
    assert alone.stderr == ""


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        (None, "it needs the MCP Python SDK 2.x: pip install 'mcp-rendering[sdk]'"),
        ("1.30.0", "it needs the MCP Python SDK 2.x, and this environment has mcp 1.30.0: install"),
    ],
    ids=["no-sdk", "sdk-1.x"],
)
@pytest.mark.parametrize("command", [["demo"], ["inspect", "--", sys.executable, "-c", "pass"]])
def test_a_command_that_needs_the_sdk_names_what_to_install(
    version: str | None,
    expected: str,
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The environment as the base install or an SDK 1.x host leaves it (scripts/test-package.sh runs the real ones).
    real = importlib.metadata.version

    def version_of(name: str) -> str:
        if name != "mcp":
            return real(name)
        if version is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return version

    monkeypatch.setattr(importlib.metadata, "version", version_of)
    assert main(command) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"mcp-rendering {command[0]}: error: {expected}" + captured.err.split(expected, 1)[1]
    assert captured.err.count("\n") == 1


def test_a_reader_that_goes_away_ends_the_output_quietly() -> None:
    # `mcp-rendering demo | head -1`: the reader closes the pipe after its first line.
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_rendering", "demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"mcp-rendering demo")
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait(timeout=60) == 141
    assert error == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    result, transcript = _saved(tmp_path, {"content": [{"type": "text", "text": "one"}]}, "")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "mcp_rendering", "audit", str(result), str(transcript)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == "mcp-rendering audit: error: cannot write the output: No space left on device\n"


# ------------------------------------------------------------------------------------------------------------ audit

RESULT = {"content": [{"type": "text", "text": "one\ntwo"}]}


def _saved(tmp_path: Path, result: object, shown: str) -> tuple[Path, Path]:
    result_file = tmp_path / "result.json"
    result_file.write_text(json.dumps(result), encoding="utf-8")
    transcript = tmp_path / "shown.txt"
    transcript.write_text(shown, encoding="utf-8")
    return result_file, transcript


def test_audit_reads_a_result_saved_as_its_json_rpc_response(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    response = {"jsonrpc": "2.0", "id": 7, "result": RESULT}
    result, transcript = _saved(tmp_path, response, "one\ntwo\n")
    assert main(["audit", str(result), str(transcript)]) == 0
    assert capsys.readouterr().out.startswith("fidelity: clean")
    transcript.write_text("one\n", encoding="utf-8")
    assert main(["audit", str(result), str(transcript)]) == 1
    assert "missing_row" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("saved", "message"),
    [
        ({}, "holds no CallToolResult: a result has a content array"),
        ({"content": "one"}, "holds no CallToolResult: a result has a content array"),
        ([RESULT], "holds an array, not a CallToolResult object"),
        ("one", "holds a string, not a CallToolResult object"),
        (None, "holds null, not a CallToolResult object"),
        (True, "holds a boolean, not a CallToolResult object"),
        (
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x"}},
            "a JSON-RPC error response (code -32602)",
        ),
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}, "a JSON-RPC request or notification"),
        ({"jsonrpc": "2.0", "id": 1}, "a JSON-RPC message with neither result nor error"),
        ({"jsonrpc": "2.0", "id": 1, "result": {}}, "holds no CallToolResult: a result has a content array"),
        ({"jsonrpc": "2.0", "id": 1, "result": 3}, "the result file's result is a number, not a CallToolResult"),
    ],
)
def test_audit_refuses_what_is_not_a_result(
    saved: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result, transcript = _saved(tmp_path, saved, "")
    assert main(["audit", str(result), str(transcript)]) == 2
    _one_line_error(capsys, message)


PAGED_TOOL = {
    "name": "hits",
    "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}},
    "_meta": {EXTENSION_ID: {"verbatimHint": True}, CONTINUATION_ID: {"argument": "cursor"}},
}
PAGED_RESULT = {
    "content": [{"type": "text", "text": "\n".join(f"hit {n}" for n in range(3))}],
    "_meta": {
        EXTENSION_ID: {"mode": "verbatim", "complete": False},
        CONTINUATION_ID: {"argument": "cursor", "token": "t"},
    },
}


def _saved_call(tmp_path: Path, tool: object, arguments: object) -> list[str]:
    """`--tool` and `--arguments` options naming files that hold `tool` and `arguments` as JSON."""
    tool_file, arguments_file = tmp_path / "tool.json", tmp_path / "arguments.json"
    tool_file.write_text(json.dumps(tool), encoding="utf-8")
    arguments_file.write_text(json.dumps(arguments), encoding="utf-8")
    return ["--tool", str(tool_file), "--arguments", str(arguments_file)]


def test_audit_reads_a_paged_result_with_its_tool_and_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Read with its tool and the call's arguments, a continuation the host can follow must be offered by the
    notice, as the host offered it; read alone, the same result only needs to be marked partial. Neither reading
    logs a warning: nothing is malformed."""
    from mcp_rendering.host import present

    shown = present(PAGED_TOOL, PAGED_RESULT, arguments={}).text
    assert 'The rest can be fetched from the tool "hits".' in shown
    result, transcript = _saved(tmp_path, PAGED_RESULT, shown)
    call = _saved_call(tmp_path, PAGED_TOOL, {})
    with caplog.at_level("WARNING"):
        assert main(["audit", *call, str(result), str(transcript)]) == 0
        assert capsys.readouterr().out.startswith("fidelity: clean")
        transcript.write_text(shown.replace(' The rest can be fetched from the tool "hits".', ""), encoding="utf-8")
        assert main(["audit", *call, str(result), str(transcript)]) == 1
        assert "completeness_misstated" in capsys.readouterr().out
        assert main(["audit", str(result), str(transcript)]) == 0  # alone, it cannot be followed
    assert [record.getMessage() for record in caplog.records] == []
    # A later part (its call set the cursor) read alone is not the whole: a transcript with no notice fails.
    later = {**PAGED_RESULT, "_meta": {EXTENSION_ID: {"mode": "verbatim", "complete": True}}}
    result, transcript = _saved(tmp_path, later, "hit 0\nhit 1\nhit 2\n")
    assert main(["audit", str(result), str(transcript)]) == 0
    assert main(["audit", *_saved_call(tmp_path, PAGED_TOOL, {"cursor": "t"}), str(result), str(transcript)]) == 1
    assert "completeness_misstated" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ([PAGED_TOOL], {}, "the tool file holds an array, not a Tool object"),
        ({"tools": [PAGED_TOOL]}, {}, "holds a tools/list result or response, not one Tool"),
        (
            {"jsonrpc": "2.0", "id": 1, "result": {"tools": [PAGED_TOOL]}},
            {},
            "holds a tools/list result or response, not one Tool",
        ),
        ({"name": "hits"}, {}, "the tool file holds no Tool: a tool has a name string and an inputSchema object"),
        ({**PAGED_TOOL, "name": 3}, {}, "the tool file holds no Tool"),
        (PAGED_TOOL, ["cursor"], "the arguments file holds an array, not a JSON object of the call's arguments"),
        (PAGED_TOOL, None, "the arguments file holds null, not a JSON object"),
    ],
)
def test_audit_refuses_a_tool_or_arguments_file_that_is_not_one_with_one_line(
    tool: object, arguments: object, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result, transcript = _saved(tmp_path, PAGED_RESULT, "hit 0\n")
    assert main(["audit", *_saved_call(tmp_path, tool, arguments), str(result), str(transcript)]) == 2
    _one_line_error(capsys, message)


def test_audit_refuses_tool_and_arguments_it_cannot_use_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result, transcript = _saved(tmp_path, PAGED_RESULT, "hit 0\n")
    tool, arguments = _saved_call(tmp_path, PAGED_TOOL, {})[1::2]
    assert main(["audit", "--arguments", arguments, str(result), str(transcript)]) == 2
    _one_line_error(capsys, "--arguments needs --tool")
    assert main(["audit", "--tool", tool, str(result), str(result), str(transcript)]) == 2
    _one_line_error(capsys, "--tool and --arguments read one result; the parts of a continued result are read")
    assert main(["audit", "--tool", str(tmp_path / "missing.json"), str(result), str(transcript)]) == 2
    _one_line_error(capsys, "cannot read the tool file")
    Path(arguments).write_text("{", encoding="utf-8")
    assert main(["audit", "--tool", tool, "--arguments", arguments, str(result), str(transcript)]) == 2
    _one_line_error(capsys, "the arguments file is not JSON")
    Path(tool).write_text('{"name": "hits", "name": "hits"}', encoding="utf-8")
    assert main(["audit", "--tool", tool, str(result), str(transcript)]) == 2
    _one_line_error(capsys, "the tool file is not JSON: the member name 'name' occurs twice")


def _one_line_error(capsys: pytest.CaptureFixture[str], message: str, command: str = "audit") -> None:
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"mcp-rendering {command}: error: ")
    assert captured.err.count("\n") == 1 and captured.err.endswith("\n")
    assert message in captured.err, captured.err


HOSTILE_JSON = [
    ("[" * 100_000 + "]" * 100_000, "is nested too deeply to read"),
    ('{"content": [{"type": "text", "text": "\\ud800"}]}', "holds a lone surrogate ('\\ud800'), which is not text"),
    ('{"content": [], "content": [{"type": "text", "text": "x"}]}', "the member name 'content' occurs twice"),
    ('{"content": [NaN]}', "NaN is not a JSON value"),
    ('{"content": [Infinity]}', "Infinity is not a JSON value"),
    ('{"content": [1e999]}', "the number 1e999 is too large to read (it would read as infinity)"),
    ('{"content": [-1.5E+400]}', "the number -1.5E+400 is too large to read"),
    ('{"content": [', "is not JSON: Expecting value"),
    ('{"content": [1' + "0" * 10_000 + "]}", "is not JSON"),
]


@pytest.mark.parametrize(
    ("text", "message"),
    HOSTILE_JSON,
    ids=["deep", "surrogate", "twice", "nan", "inf", "1e999", "-1.5e400", "cut", "huge-int"],
)
def test_audit_refuses_hostile_json_with_one_line(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result, transcript = _saved(tmp_path, None, "")
    result.write_text(text, encoding="utf-8")
    assert main(["audit", str(result), str(transcript)]) == 2
    _one_line_error(capsys, message)


@pytest.mark.parametrize(("text", "message"), HOSTILE_JSON[:2], ids=["deep", "surrogate"])
def test_inspect_refuses_hostile_arguments_with_one_line(
    text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--call", "t", "--args", text, "--", *EXAMPLE]) == 2
    _one_line_error(capsys, message.replace("the result file", "the --args value"), command="inspect")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("which", ["result", "transcript"])
def test_audit_refuses_special_files_unread(which: str, tmp_path: Path) -> None:
    # Run as a subprocess with a timeout: opening a FIFO for reading would wait for a writer forever.
    result, transcript = _saved(tmp_path, RESULT, "one\ntwo\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for special, kind in [(fifo, "a FIFO"), (tmp_path, "a directory"), (Path(os.devnull), "a character device")]:
        argv = [str(special), str(transcript)] if which == "result" else [str(result), str(special)]
        done = run_cli("audit", *argv, timeout=30)
        what = "result file" if which == "result" else "transcript"
        assert done.returncode == 2, done
        assert done.stdout == ""
        assert done.stderr == (
            f"mcp-rendering audit: error: the {what} {str(special)!a} is {kind}, not a regular file; refused unread\n"
        )


def test_audit_refuses_files_over_its_limits_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import mcp_rendering.cli.audit as audit_command

    result, transcript = _saved(tmp_path, RESULT, "one\ntwo\n")
    monkeypatch.setattr(audit_command, "MAX_RESULT_BYTES", result.stat().st_size - 1)
    assert main(["audit", str(result), str(transcript)]) == 2
    _one_line_error(capsys, f"bytes, over the limit of {result.stat().st_size - 1}")
    monkeypatch.setattr(audit_command, "MAX_RESULT_BYTES", result.stat().st_size)
    assert main(["audit", str(result), str(transcript)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(audit_command, "MAX_TRANSCRIPT_CHARS", 1)
    assert main(["audit", str(result), str(transcript)]) == 2
    _one_line_error(capsys, "the transcript")


def test_audit_refuses_a_transcript_that_is_not_utf8_and_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result, transcript = _saved(tmp_path, RESULT, "")
    transcript.write_bytes(b"one\n\xed\xa0\x80\n")  # a surrogate encoded as UTF-8 bytes: not UTF-8
    assert main(["audit", str(result), str(transcript)]) == 2
    _one_line_error(capsys, "is not UTF-8 text (byte 4: invalid continuation byte)")
    assert main(["audit", str(tmp_path / "missing.json"), str(transcript)]) == 2
    _one_line_error(capsys, "cannot read the result file")


def test_the_demo_refuses_a_save_file_it_cannot_write_before_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "result.json").mkdir()
    assert main(["demo", "--save", str(tmp_path)]) == 2
    _one_line_error(
        capsys, f"cannot save into {str(tmp_path)!a}: {str(tmp_path / 'result.json')!a}: Is a directory", "demo"
    )


def test_the_demo_refuses_to_save_through_a_symbolic_link_and_keeps_what_was_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("not the demo's", encoding="utf-8")
    saved = tmp_path / "out"
    saved.mkdir()
    (saved / "result.json").write_text('{"kept": true}', encoding="utf-8")
    (saved / "transcript.txt").symlink_to(target)
    assert main(["demo", "--save", str(saved)]) == 2
    _one_line_error(
        capsys,
        f"cannot save into {str(saved)!a}: {str(saved / 'transcript.txt')!a}: is a symbolic link, "
        "which --save does not follow",
        "demo",
    )
    # Refused before anything ran, and nothing truncated: the earlier result and the link's target are intact.
    assert (saved / "result.json").read_text(encoding="utf-8") == '{"kept": true}'
    assert target.read_text(encoding="utf-8") == "not the demo's"
    assert sorted(path.name for path in saved.iterdir()) == ["result.json", "transcript.txt"]


def test_the_demo_replaces_what_an_earlier_run_saved_whole(tmp_path: Path) -> None:
    (tmp_path / "result.json").write_text("earlier", encoding="utf-8")
    (tmp_path / "transcript.txt").write_text("earlier", encoding="utf-8")
    completed = run_cli("demo", "--example", "screening", "--save", str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    assert json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))["content"]
    assert (tmp_path / "transcript.txt").read_text(encoding="utf-8") != "earlier"
    assert json.loads((tmp_path / "tool.json").read_text(encoding="utf-8"))["name"] == "screening_report"
    assert json.loads((tmp_path / "arguments.json").read_text(encoding="utf-8")) == {}
    saved = ["arguments.json", "result.json", "tool.json", "transcript.txt"]
    assert sorted(path.name for path in tmp_path.iterdir()) == saved


def test_the_audit_help_states_the_exit_statuses_and_limits(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["audit", "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith(
        "usage: mcp-rendering audit [-h] [--markup {auto,text,markdown}] [--tool TOOL.json] "
        "[--arguments ARGUMENTS.json] [--json] result [result ...] transcript"
    )
    assert " Check that a transcript shows a tool result whole, in order, unaltered and nothing more. Exit" in out
    assert "Exit status: 0 clean, 1 not faithful, 2 input that cannot be audited" in out
    assert f"over {MAX_RESULT_BYTES} bytes or a transcript over {MAX_TRANSCRIPT_CHARS} characters" in out
    for words in (
        "the CallToolResult as wire JSON",
        "the text the host showed the user",
        "the Tool that returned the result, as wire JSON",
        "the arguments of the call that returned the result, a JSON object (with --tool)",
        "print the report as JSON",
    ):
        assert words in out, words


LATER_REVISION_SERVER = CORE_ONLY_SERVER.replace(
    '"_rendering": {"mode": "verbatim"}',
    '"_meta": {"io.modelcontextprotocol/rendering": {"mode": "summarizable", "complete": True, "priority": 2}}',
).replace(
    '"inputSchema": {"type": "object"}, "annotations": {"verbatimHint": True}',
    '"inputSchema": {"type": "object"}, '
    '"_meta": {"io.modelcontextprotocol/rendering": {"summarizeOkHint": True, "laterHint": "x"}}',
)


def test_inspect_lists_unknown_members_as_ignored_and_strict_fails_them(capsys: pytest.CaptureFixture[str]) -> None:
    command = [sys.executable, "-c", LATER_REVISION_SERVER]
    report = inspect_json(capsys, "--call", "report", "--", *command)
    (tool,) = report["tools"]
    # A later revision's members change nothing for this reader: summarizable, complete, no malformed value.
    assert tool["effective_mode"] == "summarizable"
    assert tool["meta"]["unknown"] == ["laterHint: not a member of this carrier; read as ignored"]
    call = report["call"]
    assert (call["effective_mode"], call["complete"]) == ("summarizable", True)
    assert call["meta"]["unknown"] == ["priority: not a member of this carrier; read as ignored"]
    assert report["malformed"] == 0 and report["unknown"] == 2
    assert report["strict_failures"] == ["2 unknown member(s)"]
    assert main(["inspect", "--call", "report", "--", *command]) == 0
    text = capsys.readouterr().out
    assert "? _meta laterHint: not a member of this carrier; read as ignored" in text
    assert "0 malformed value(s), 2 unknown member(s) (ignored)." in text
    assert main(["inspect", "--strict", "--call", "report", "--", *command]) == 1
