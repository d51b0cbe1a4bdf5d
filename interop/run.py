"""Runs every pinned client against the fixture server and the project's example server; writes the matrix.

Usage (from the repository root)::

    python -m interop.run            # measure, then rewrite interop/results/matrix.json and matrix.md
    python -m interop.run --check    # measure, and fail if any cell differs from the committed matrix.json

The Node clients come from `interop/package-lock.json` (`npm ci` in interop/); the Python clients are the `mcp`
installed next to this interpreter, once unpatched and once after `mcp_rendering.install()`, in both protocol eras.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from interop.fixture_server import HANDSHAKE_VERSIONS, VERSION_KEY
from interop.matrix import classify, render_markdown
from interop.scenarios import EXTENSION_ID, MISSING, SCENARIOS, TOOL_NAME, Expectation, Probe

ROOT = Path(__file__).resolve().parent.parent
INTEROP = ROOT / "interop"
RESULTS = INTEROP / "results"
NODE_MODULES = INTEROP / "node_modules"
INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector"
INSPECTOR_BIN = NODE_MODULES / INSPECTOR_PACKAGE / "clients" / "launcher" / "build" / "index.js"
TIMEOUT_SECONDS = 180
EXAMPLE_MODULE = "mcp_rendering.examples.financial"
EXAMPLE_TOOL = "financial_statements"
EXAMPLE_RUN = "example"
EXAMPLE_PROBES: tuple[tuple[str, Probe], ...] = (
    ("`annotations.verbatimHint`", Probe("tool", ("annotations", "verbatimHint"))),
    ("`Tool._meta` carrier", Probe("tool", ("_meta", EXTENSION_ID))),
    ("`_rendering` on the result", Probe("result", ("_rendering",))),
    ("`CallToolResult._meta` carrier", Probe("result", ("_meta", EXTENSION_ID))),
    ("`structuredContent._rendering`", Probe("result", ("structuredContent", "_rendering"))),
)
"""The carriers looked for on the example server; a row appears for each one it really sends."""

Kind = Literal["ts", "python", "inspector"]


@dataclass(frozen=True)
class ClientSpec:
    """One column of the matrix: a client, how to drive it, and for Python which era and whether patched."""

    id: str
    short: str
    """Column heading; `{v}` becomes the installed version."""
    label: str
    kind: Kind
    package: str
    mode: str = "auto"
    patched: bool = False


CLIENTS: tuple[ClientSpec, ...] = (
    ClientSpec(
        "ts-sdk-1.21", "TS SDK {v}", "TypeScript SDK, last 1.21.x (pass-through ToolAnnotations)", "ts", "sdk-1-21"
    ),
    ClientSpec(
        "ts-sdk-1.22", "TS SDK {v}", "TypeScript SDK 1.22.0 (first stripping ToolAnnotations)", "ts", "sdk-1-22"
    ),
    ClientSpec("ts-sdk-1.32", "TS SDK {v}", "TypeScript SDK, current 1.x", "ts", "sdk-1-32"),
    ClientSpec("ts-client-2", "TS client {v}", "TypeScript client 2.x", "ts", "client-2"),
    ClientSpec("python", "Python {v}", "Python SDK, handshake era", "python", "mcp", mode="legacy"),
    ClientSpec("python-2026", "Python {v} (2026)", "Python SDK, 2026-07-28 era (server/discover)", "python", "mcp"),
    ClientSpec(
        "python-patched",
        "Python {v} + patch",
        "Python SDK + `mcp_rendering.install()`, handshake era",
        "python",
        "mcp",
        mode="legacy",
        patched=True,
    ),
    ClientSpec(
        "python-patched-2026",
        "Python {v} (2026) + patch",
        "Python SDK + `mcp_rendering.install()`, 2026-07-28 era",
        "python",
        "mcp",
        patched=True,
    ),
    ClientSpec(
        "inspector", "Inspector {v}", "MCP Inspector CLI (`--cli --format json`)", "inspector", INSPECTOR_PACKAGE
    ),
)


class InteropSetupError(RuntimeError):
    """The pinned clients are not installed as `interop/package.json` and `package-lock.json` say."""


def pinned_versions() -> dict[str, str]:
    """npm dependency name -> exact version, as pinned in interop/package.json (aliases resolved)."""
    manifest = json.loads((INTEROP / "package.json").read_text(encoding="utf-8"))
    pins: dict[str, str] = {}
    for name, spec in manifest["dependencies"].items():
        pins[name] = spec.rsplit("@", 1)[1] if spec.startswith("npm:") else spec
    return pins


@functools.cache
def node() -> str:
    """The Node.js that runs the Node clients: 22.18 or newer (the Inspector 2.12 requires 22), the machine's own
    when it is recent enough, else the pinned one that `scripts/node22.sh` installs."""
    if shutil.which("bash") is None:
        raise InteropSetupError("bash is not on PATH (scripts/node22.sh finds or installs Node 22)")
    found = subprocess.run(
        ["bash", str(ROOT / "scripts" / "node22.sh")], capture_output=True, text=True, timeout=600, check=False
    )
    if found.returncode != 0:
        raise InteropSetupError(found.stderr.strip() or "scripts/node22.sh found no Node >= 22.18")
    return found.stdout.strip()


def installed_node_package(name: str) -> str:
    """The installed version of a pinned npm dependency of interop/, checked against its pin."""
    node()
    installed_manifest = NODE_MODULES / name / "package.json"
    if not installed_manifest.is_file():
        raise InteropSetupError(f"{name} is not installed: run `npm ci` in interop/ (scripts/bootstrap.sh does)")
    installed = json.loads(installed_manifest.read_text(encoding="utf-8"))["version"]
    pinned = pinned_versions()[name]
    if installed != pinned:
        raise InteropSetupError(f"{name} is {installed}, pinned {pinned}: run `npm ci` in interop/")
    return installed


def client_version(client: ClientSpec) -> str:
    """The installed version of a client, checked against its pin for the Node ones."""
    if client.kind == "python":
        return metadata.version("mcp")
    return installed_node_package(client.package)


def _package_name(client: ClientSpec) -> str:
    if client.kind == "python":
        return "mcp"
    installed = json.loads((NODE_MODULES / client.package / "package.json").read_text(encoding="utf-8"))
    return installed["name"]


def _fixture_run(scenario: str, log: Path) -> dict[str, Any]:
    args = ["-m", "interop.fixture_server", "--log", str(log), "--scenario", scenario]
    return {"id": scenario, "command": sys.executable, "args": args, "tool": TOOL_NAME, "arguments": {}}


def _example_run() -> dict[str, Any]:
    args = ["-m", EXAMPLE_MODULE]
    return {"id": EXAMPLE_RUN, "command": sys.executable, "args": args, "tool": EXAMPLE_TOOL, "arguments": {}}


def _run(command: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command), cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False, env=_env()
    )


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # The Inspector keeps a catalog and client settings under the home directory by default; keep runs hermetic.
    scratch = Path(tempfile.gettempdir()) / "mcp-rendering-interop-inspector"
    env.setdefault("MCP_CATALOG_PATH", str(scratch / "mcp.json"))
    env.setdefault("MCP_CLIENT_CONFIG_PATH", str(scratch / "client.json"))
    return env


def _driver_report(process: subprocess.CompletedProcess[str], client: ClientSpec) -> dict[str, Any]:
    lines = [line for line in process.stdout.splitlines() if line.startswith("{")]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"{client.id} driver failed ({process.returncode}): {process.stderr[-2000:]}")
    return json.loads(lines[-1])["observations"]


def _inspector_phase(process: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    for stream in (process.stdout, process.stderr):
        for line in stream.splitlines():
            if not line.startswith("{"):
                continue
            envelope = json.loads(line)
            if "result" in envelope:
                return {"ok": True, "value": envelope["result"]}
            if "error" in envelope:
                error = envelope["error"]
                return {"ok": False, "error": error.get("message", error) if isinstance(error, dict) else error}
    return {"ok": False, "error": f"exit {process.returncode}: {process.stderr.strip()[-500:]}"}


def _run_inspector(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    base = [node(), str(INSPECTOR_BIN), "--cli", "--format", "json", "-q", "--cwd", str(ROOT)]

    def observe(run: dict[str, Any]) -> dict[str, Any]:
        server = [run["command"], *run["args"]]
        listed = _run([*base, "--method", "tools/list", *server], ROOT)
        call = ["--method", "tools/call", "--tool-name", run["tool"], "--tool-args-json", json.dumps(run["arguments"])]
        called = _run([*base, *call, *server], ROOT)
        return {"list": _inspector_phase(listed), "call": _inspector_phase(called)}

    # One CLI process per request makes this the slowest column: run two at a time.
    with ThreadPoolExecutor(2) as pool:
        return dict(zip([run["id"] for run in runs], pool.map(observe, runs), strict=True))


def negotiated_protocol(log: Path) -> str:
    """The protocol version the client used, read back from the fixture server's message log."""
    version = "unknown"
    for line in log.read_text(encoding="utf-8").splitlines():
        message = json.loads(line)
        params = message.get("params") or {}
        meta = params.get("_meta") or {}
        if VERSION_KEY in meta:
            return meta[VERSION_KEY]
        if message.get("method") == "initialize":
            asked = params.get("protocolVersion")
            version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return version


def observe_client(client: ClientSpec, runs: Sequence[dict[str, Any]], folder: Path) -> dict[str, Any]:
    """Drive one client through the runs; what its application received, per run id."""
    spec_file = folder / "spec.json"
    spec_file.write_text(json.dumps({"cwd": str(ROOT), "runs": list(runs)}), encoding="utf-8")
    if client.kind == "ts":
        driver = [node(), str(INTEROP / "clients" / "ts_client.mjs"), client.package, str(spec_file)]
        return _driver_report(_run(driver, INTEROP), client)
    if client.kind == "python":
        driver = [sys.executable, "-m", "interop.clients.python_client", str(spec_file), "--mode", client.mode]
        return _driver_report(_run([*driver, *(["--patched"] if client.patched else [])], ROOT), client)
    return _run_inspector(runs)


def wire_exchange(command: Sequence[str], tool: str, arguments: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Talk JSON-RPC to a stdio server directly (handshake era): the tools and the call result exactly as sent."""
    hello = {
        "protocolVersion": HANDSHAKE_VERSIONS[-1],
        "capabilities": {},
        "clientInfo": {"name": "mcp-rendering-interop-wire", "version": "0.1.0"},
    }
    requests: list[dict[str, Any]] = [
        {"method": "initialize", "params": hello},
        {"method": "notifications/initialized"},
        {"method": "tools/list", "params": {}},
        {"method": "tools/call", "params": {"name": tool, "arguments": arguments}},
    ]
    results: list[Any] = []
    with subprocess.Popen(
        list(command), cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        for number, request in enumerate(requests):
            message = {"jsonrpc": "2.0", **request}
            if request["method"] != "notifications/initialized":
                message["id"] = number
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            if "id" in message:
                while True:  # skip notifications until the answer to this request
                    line = server.stdout.readline()
                    if not line:
                        raise RuntimeError(f"{' '.join(command)} closed stdout before answering {request['method']}")
                    reply = json.loads(line)
                    if reply.get("id") == number:
                        results.append(reply["result"])
                        break
        server.stdin.close()
        server.wait(timeout=TIMEOUT_SECONDS)
    return results[1]["tools"], results[2]


def example_expectations() -> list[tuple[str, Expectation]]:
    """One row per carrier the example server really sends on its verbatim tool, with what it sent."""
    tools, result = wire_exchange([sys.executable, "-m", EXAMPLE_MODULE], EXAMPLE_TOOL, {})
    tool = next(tool for tool in tools if tool["name"] == EXAMPLE_TOOL)
    rows: list[tuple[str, Expectation]] = []
    for label, probe in EXAMPLE_PROBES:
        expectation = Expectation(EXAMPLE_TOOL, tool, result, (probe,))
        if expectation.sent(probe) is not MISSING:
            rows.append((label, expectation))
    return rows


def run_matrix(clients: Sequence[ClientSpec] = CLIENTS, workers: int = 3) -> dict[str, Any]:
    """Measure every client on every scenario and on the example server (clients in parallel, runs in order)."""
    example = example_expectations()

    def column(client: ClientSpec, workdir: Path) -> dict[str, Any]:
        version = client_version(client)
        folder = workdir / client.id
        folder.mkdir(parents=True)
        log = folder / "messages.jsonl"
        runs = [*(_fixture_run(scenario.id, log) for scenario in SCENARIOS), _example_run()]
        observations = observe_client(client, runs, folder)
        info = {
            "id": client.id,
            "short": client.short.format(v=version),
            "label": client.label,
            "package": _package_name(client),
            "version": version,
            "protocol": negotiated_protocol(log),
        }
        cells = {scenario.id: classify(scenario.expectation(), observations[scenario.id]) for scenario in SCENARIOS}
        example_cells = {label: classify(expected, observations[EXAMPLE_RUN]) for label, expected in example}
        return {"info": info, "cells": cells, "example": example_cells}

    # The Inspector column is the slowest: start it first so the others fill the remaining workers.
    order = sorted(clients, key=lambda client: client.kind != "inspector")
    with tempfile.TemporaryDirectory(prefix="mcp-rendering-interop-") as tmp, ThreadPoolExecutor(workers) as pool:
        futures = {client.id: pool.submit(column, client, Path(tmp)) for client in order}
        columns = [futures[client.id].result() for client in clients]
    return {
        "generator": "python -m interop.run",
        "clients": [col["info"] for col in columns],
        "scenarios": [
            {"id": scenario.id, "group": scenario.group, "label": scenario.label, "valid": scenario.valid}
            for scenario in SCENARIOS
        ],
        "cells": {
            scenario.id: {col["info"]["id"]: col["cells"][scenario.id] for col in columns} for scenario in SCENARIOS
        },
        "example": {
            "module": EXAMPLE_MODULE,
            "tool": EXAMPLE_TOOL,
            "rows": [{"id": label, "label": label} for label, _ in example],
            "cells": {label: {col["info"]["id"]: col["example"][label] for col in columns} for label, _ in example},
        },
    }


def _compare_cells(name: str, expected: dict[str, Any], measured: dict[str, Any], problems: list[str]) -> None:
    for row_id, row in measured.items():
        expected_row = expected.get(row_id)
        if expected_row is None:
            problems.append(f"{name} row {row_id} is not in the expected matrix")
            continue
        for cid, cell in row.items():
            want = expected_row.get(cid)
            if want is None:
                problems.append(f"{name} {row_id} / {cid}: not in the expected matrix")
            elif (want["outcome"], want.get("seen")) != (cell["outcome"], cell.get("seen")):
                measured_text = f"{cell['outcome']} {cell.get('seen') or ''}(error: {cell.get('error')})"
                problems.append(
                    f"{row_id} / {cid}: measured {measured_text}, expected {want['outcome']} {want.get('seen') or ''}"
                )
    problems.extend(
        f"{name} row {row_id} was expected but not measured" for row_id in expected.keys() - measured.keys()
    )


def differences(expected: dict[str, Any], measured: dict[str, Any]) -> list[str]:
    """Every measured fact that contradicts the expected matrix: client versions, protocols and cell outcomes.

    Only the clients present in `measured` are compared, so a run of some clients checks those columns.
    """
    problems: list[str] = []
    expected_clients = {client["id"]: client for client in expected["clients"]}
    for client in measured["clients"]:
        known = expected_clients.get(client["id"])
        if known is None:
            problems.append(f"client {client['id']} is not in the expected matrix")
            continue
        for key in ("package", "version", "protocol"):
            if known[key] != client[key]:
                problems.append(f"client {client['id']}: {key} {client[key]!r}, expected {known[key]!r}")
    _compare_cells("scenario", expected["cells"], measured["cells"], problems)
    _compare_cells("example", expected.get("example", {}).get("cells", {}), measured["example"]["cells"], problems)
    return problems


def results_markdown(matrix: dict[str, Any]) -> str:
    """The whole text of interop/results/matrix.md."""
    title = "# What unmodified MCP clients do with the rendering fields (measured)"
    return (
        f"{title}\n\nRegenerate with `python -m interop.run` (from the repository root).\n\n{render_markdown(matrix)}\n"
    )


def write_results(matrix: dict[str, Any], folder: Path = RESULTS) -> None:
    """Write matrix.json and matrix.md."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "matrix.json").write_text(json.dumps(matrix, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "matrix.md").write_text(results_markdown(matrix), encoding="utf-8")


def load_expected(folder: Path = RESULTS) -> dict[str, Any]:
    """The committed matrix."""
    return json.loads((folder / "matrix.json").read_text(encoding="utf-8"))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed matrix.json, write nothing")
    parser.add_argument("--client", action="append", choices=[client.id for client in CLIENTS], help="repeatable")
    args = parser.parse_args(argv)
    clients = [client for client in CLIENTS if not args.client or client.id in args.client]
    if args.client and not args.check:
        parser.error("--client measures a subset: use it with --check (the committed matrix is always complete)")
    matrix = run_matrix(clients)
    if args.check:
        problems = differences(load_expected(), matrix)
        for problem in problems:
            print(problem, file=sys.stderr)
        print("matrix matches" if not problems else f"{len(problems)} cell(s) differ", file=sys.stderr)
        return 1 if problems else 0
    write_results(matrix)
    print(f"wrote {RESULTS / 'matrix.json'} and matrix.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
