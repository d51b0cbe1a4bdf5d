"""A stdio MCP server written at the JSON-RPC level, so malformed values really go on the wire.

Usage: ``python -m interop.fixture_server --scenario ID [--log FILE]``. It lists the scenario's one tool and answers
every call with the scenario's result, byte for byte as written in `interop.scenarios`. It speaks the handshake era
(`initialize`, any version a client asks for among the known ones) and the 2026-07-28 era (`server/discover`, then
requests that carry their protocol version in `_meta`). With ``--log`` it appends one JSON line per message received,
so the runner can report which protocol each client negotiated.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from interop.scenarios import BY_ID, Scenario

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO = {"name": "mcp-rendering-interop-fixture", "version": "0.1.0"}
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}


def _is_modern(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    return isinstance(meta, dict) and meta.get(VERSION_KEY) == MODERN_VERSION  # pyright: ignore[reportUnknownMemberType]


def answer(scenario: Scenario, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """The result for one request, or None when the method is unknown."""
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        return {"protocolVersion": version, "capabilities": CAPABILITIES, "serverInfo": SERVER_INFO}
    if method == "server/discover":
        return {
            "resultType": "complete",
            "supportedVersions": [MODERN_VERSION],
            "capabilities": CAPABILITIES,
            "ttlMs": 0,
            "cacheScope": "public",
            "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
        }
    if method == "ping":
        result: dict[str, Any] = {}
    elif method == "tools/list":
        result = {"tools": [scenario.tool()]}
        if _is_modern(params):  # a cacheable result in 2026-07-28: the cache hints are required
            result.update(ttlMs=0, cacheScope="private")
    elif method == "tools/call":
        result = scenario.result()
    else:
        return None
    if _is_modern(params):
        result = {"resultType": "complete", **result}
    return result


def serve(scenario: Scenario, stdin: TextIO, stdout: TextIO, log: TextIO | None) -> None:
    """Answer newline-delimited JSON-RPC requests until stdin closes."""
    for line in stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if log is not None:
            log.write(json.dumps({"method": message.get("method"), "params": message.get("params")}) + "\n")
            log.flush()
        if "method" not in message or "id" not in message:
            continue  # a notification or a response to us: nothing to answer
        params = message.get("params") or {}
        result = answer(scenario, message["method"], params)
        if result is None:
            reply: dict[str, Any] = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": f"Method not found: {message['method']}"},
            }
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenario", required=True, choices=sorted(BY_ID))
    parser.add_argument("--log", help="append every received message to this file, one JSON line each")
    args = parser.parse_args(argv)
    log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115 - lives as long as the server
    try:
        serve(BY_ID[args.scenario], sys.stdin, sys.stdout, log)
    finally:
        if log is not None:
            log.close()


if __name__ == "__main__":
    main()
