"""The `mcp-rendering` command line: `demo`, `inspect` and `audit`, against real subprocesses over stdio."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_rendering.cli import main
from mcp_rendering.patch import installed

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
    assert "fidelity: clean; score 1.000; 54/54 rows intact" in out
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
    assert "Partial result: it shows 100 of" in out
    walked = next(line for line in out.splitlines() if "walked" in line)
    pages, records = walked.split("walked ")[1].split(" pages: ")
    shown, total = records.split(" records")[0].split(" of ")
    assert int(pages) >= 3 and shown == total
    assert walked.endswith("0 repeated")
    assert out.count("score 1.00, clean") == int(pages)

    # What the demo saved audits clean through `mcp-rendering audit`, and a dropped row is caught.
    result, transcript = tmp_path / "result.json", tmp_path / "transcript.txt"
    assert main(["audit", str(result), str(transcript)]) == 0
    lines = transcript.read_text(encoding="utf-8").splitlines()
    row = next(index for index, line in enumerate(lines) if line.startswith("| ") and "CUST-" in line)
    damaged = tmp_path / "damaged.txt"
    damaged.write_text("\n".join(lines[:row] + lines[row + 1 :]) + "\n", encoding="utf-8")
    assert main(["audit", str(result), str(damaged)]) == 1


# --------------------------------------------------------------------------------------------------------- inspect


def test_inspect_reports_the_hints_of_an_example_server_in_both_carriers(capsys: pytest.CaptureFixture[str]) -> None:
    report = inspect_json(capsys, "--", *EXAMPLE)
    assert report["server_name"] == "example-financial"
    # The example server answers `server/discover`, so inspect speaks 2026-07-28 and sees its capabilities.
    assert report["protocol_version"] == "2026-07-28"
    assert report["negotiated_by"] == "server/discover"
    assert report["discovery"] is None
    assert report["extension_advertised"] is True
    tools = {tool["name"]: tool for tool in report["tools"]}
    statements = {hint["hint"]: hint for hint in tools["financial_statements"]["hints"]}
    for carrier in ("annotation", "meta"):
        assert statements["verbatimHint"][carrier]["state"] == "valid"
        assert statements["verbatimHint"][carrier]["value"] is True
        assert statements["summarizeOkHint"][carrier]["state"] == "absent"
    assert tools["financial_statements"]["effective_mode"] == "verbatim"
    figures = {hint["hint"]: hint for hint in tools["key_figures"]["hints"]}
    assert figures["summarizeOkHint"]["annotation"]["value"] is True
    assert tools["key_figures"]["effective_mode"] == "summarizable"
    assert report["malformed"] == 0


def test_inspect_judges_a_sample_call_of_a_paged_tool(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--call", "screening_report", "--args", "{}", "--", *SCREENING]) == 0
    out = capsys.readouterr().out
    assert "result._rendering: valid" in out
    assert "structuredContent._rendering (model-facing copy): valid" in out
    assert "directive: valid; effective mode verbatim (from result._rendering)" in out
    assert "incomplete (a bounded page); continue with argument 'cursor'" in out
    assert "0 malformed value(s)." in out


def test_inspect_of_a_2026_server_says_so_in_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--", *EXAMPLE]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Server: example-financial 0.1.0, protocol 2026-07-28 (via server/discover)"
    assert not any(line.startswith("Discovery:") for line in lines)
    assert (
        "Extension io.modelcontextprotocol/rendering: yes, advertised in the server's capabilities"
        " (server/discover result)"
    ) in lines


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
    hints = {hint["hint"]: hint for hint in tool["hints"]}
    assert hints["verbatimHint"]["annotation"] == {
        "carrier": "annotations",
        "state": "malformed",
        "value": "yes",
        "problem": "string, not a boolean",
    }
    assert hints["summarizeOkHint"]["annotation"]["state"] == "valid"
    assert hints["verbatimHint"]["meta"]["state"] == "malformed"
    assert "not an object" in hints["verbatimHint"]["meta"]["problem"]
    # "yes" is not true, and the `_meta` entry is unusable: nothing makes the tool verbatim.
    assert tool["effective_mode"] == "unspecified"
    call = report["call"]
    assert call["directive"]["state"] == "malformed"
    assert call["meta"]["state"] == "valid"
    assert call["structured_copy"]["state"] == "malformed"
    assert call["effective_mode"] == "verbatim" and call["effective_source"] == "result._meta"
    assert tool["meta_entry_problem"] == "a string, not an object"
    assert report["malformed"] == 4  # the unusable `_meta` entry is one value, whatever it voids

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
    assert 'MALFORMED "yes"' in text
    assert "! verbatimHint in annotations: string, not a boolean; read as absent" in text
    assert "_meta['io.modelcontextprotocol/rendering'] is a string, not an object; both hints read as absent" in text
    assert "4 malformed value(s)." in text


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
    assert report["tools"][0]["effective_mode"] == "verbatim"
    assert report["call"]["directive"]["state"] == "valid"

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
    assert main(["inspect", "--", sys.executable, str(server), "2099-01-01"]) == 1
    error = capsys.readouterr().err.strip()
    assert error == (
        "mcp-rendering inspect: error: the server speaks only protocol 2099-01-01; "
        "inspect speaks 2026-07-28 and 2025-11-25"
    )


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ([sys.executable, "-c", "print('hello')"], "it wrote non-JSON to stdout: 'hello'"),
        (["mcp-rendering-no-such-command"], "command not found: mcp-rendering-no-such-command"),
        ([sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"], "exited with code 3"),
        ([sys.executable, "-c", "import time; time.sleep(60)"], "did not answer initialize within 1 s"),
    ],
    ids=["not-json", "no-such-command", "exits-early", "timeout"],
)
def test_inspect_fails_with_one_clear_line(
    command: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--timeout", "1", "--", *command]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    error = captured.err.strip()
    assert "\n" not in error
    assert error.startswith("mcp-rendering inspect: error: ")
    assert message in error


def test_inspect_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--args", "{}", "--", *EXAMPLE]) == 1
    assert "--args needs --call" in capsys.readouterr().err
    assert main(["inspect", "--call", "nope", "--", *EXAMPLE]) == 1
    assert "no tool named 'nope'" in capsys.readouterr().err
    assert main(["inspect"]) == 1
    assert "no server command given" in capsys.readouterr().err
