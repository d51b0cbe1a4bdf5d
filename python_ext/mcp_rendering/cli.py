"""The `mcp-rendering` command: `demo`, `inspect` and `audit`.

- `mcp-rendering demo [--example NAME]` starts one of the example servers over stdio, connects the reference host
  to it and shows, step by step, what the user sees and whether it is faithful to the result.
- `mcp-rendering inspect [--timeout S] [--call TOOL --args JSON] -- COMMAND...` connects to any stdio MCP server and
  reports the rendering hints each tool declares and the carrier each one travels in, flagging malformed values. It
  speaks 2026-07-28 when the server answers `server/discover`, and the 2025-11-25 `initialize` handshake otherwise.
- `mcp-rendering audit RESULT.json TRANSCRIPT.txt` checks a transcript against a tool result.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import shlex
import sys
import textwrap
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TextIO, cast

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    CallToolResult,
    TextResourceContents,
    Tool,
    UnsupportedProtocolVersionErrorData,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from mcp_rendering.audit import AuditReport, audit, audit_main
from mcp_rendering.document import Document
from mcp_rendering.examples import EXAMPLES, module_of
from mcp_rendering.extension import client_extension
from mcp_rendering.host import present
from mcp_rendering.reading import read_tool_hints, resolve_rendering
from mcp_rendering.render import cell_text
from mcp_rendering.types import EXTENSION_ID, RESULT_STRUCTURED_KEY, Rendering

__all__ = ["InspectError", "InspectReport", "format_report", "inspect_server", "main", "run_demo"]

_HANDSHAKE_VERSION = "2025-11-25"
"""The protocol version `inspect` offers through `initialize`, when the server does not answer `server/discover`."""

_DISCOVER_VERSION = "2026-07-28"
"""The protocol version `inspect` proposes first, through `server/discover` and the per-request `_meta` envelope."""

_CLIENT_INFO = {"name": "mcp-rendering-inspect", "version": "1"}

_HINTS = ("verbatimHint", "summarizeOkHint")
_STREAM_LIMIT = 64 * 1024 * 1024  # one JSON-RPC message per line; large tool results are legitimate


# --------------------------------------------------------------------------------------------------------------
# inspect: a raw JSON-RPC exchange, so that every value is judged as it was on the wire
# --------------------------------------------------------------------------------------------------------------


class InspectError(Exception):
    """The server could not be inspected; the message is one line, fit to print as is."""


class _RpcError(InspectError):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, method: str, detail: Any, code: Any, data: Any) -> None:
        super().__init__(f"the server answered {method} with an error: {detail}")
        self.detail = detail
        self.code = code
        self.data = data


class _NoAnswer(InspectError):
    """The server did not answer a request within the timeout."""


CarrierState = Literal["absent", "valid", "malformed"]


@dataclass(frozen=True)
class CarrierReading:
    """One field as found in one carrier, judged on its raw JSON value."""

    carrier: str
    state: CarrierState
    value: Any = None
    problem: str | None = None


@dataclass(frozen=True)
class HintReport:
    """One hint of one tool, in both carriers."""

    hint: str
    annotation: CarrierReading
    meta: CarrierReading


@dataclass(frozen=True)
class ToolReport:
    """The rendering hints of one tool, and what a host would make of them."""

    name: str
    hints: tuple[HintReport, ...]
    effective_mode: str
    effective_source: str
    meta_entry_problem: str | None = None
    """Set when `_meta[EXTENSION_ID]` itself is not an object: one malformed value that voids both hints."""

    def malformed_values(self) -> list[tuple[str, CarrierReading]]:
        """(hint, reading) of each malformed value; a malformed `_meta` entry counts once, under its first hint."""
        found: list[tuple[str, CarrierReading]] = []
        for index, hint in enumerate(self.hints):
            if hint.annotation.state == "malformed":
                found.append((hint.hint, hint.annotation))
            if hint.meta.state == "malformed" and (self.meta_entry_problem is None or index == 0):
                found.append((hint.hint, hint.meta))
        return found


@dataclass(frozen=True)
class CallReport:
    """The rendering directive of one sample result."""

    tool: str
    arguments: dict[str, Any]
    is_error: bool
    directive: CarrierReading
    meta: CarrierReading
    structured_copy: CarrierReading
    effective_mode: str
    effective_source: str
    complete: bool
    continuation_argument: str | None


@dataclass
class InspectReport:
    """Everything `inspect` found, in a form that prints as text or as JSON."""

    command: list[str]
    server_name: str | None
    server_version: str | None
    protocol_version: str | None
    extension_advertised: bool | None
    """Whether the server's capabilities list the rendering extension; None when that version cannot show it."""
    negotiated_by: Literal["server/discover", "initialize"] = "initialize"
    discovery: str | None = None
    """Why `server/discover` did not settle the protocol, when `initialize` had to (None when it did)."""
    tools: list[ToolReport] = field(default_factory=list[ToolReport])
    call: CallReport | None = None

    @property
    def malformed(self) -> int:
        """How many carrier values are malformed, over every tool and the sample call."""
        readings = [reading for tool in self.tools for _, reading in tool.malformed_values()]
        if self.call is not None:
            readings += [self.call.directive, self.call.meta, self.call.structured_copy]
        return sum(1 for reading in readings if reading.state == "malformed")


def _mapping(value: Any) -> Mapping[str, Any] | None:
    """`value` as a JSON object, or None when it is anything else."""
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _read_bool(carrier: str, container: Mapping[str, Any] | None, key: str) -> CarrierReading:
    """A boolean hint exactly as sent: anything but `true`/`false` is malformed, `"yes"` included."""
    if container is None or key not in container:
        return CarrierReading(carrier, "absent")
    value = container[key]
    if isinstance(value, bool):
        return CarrierReading(carrier, "valid", value)
    return CarrierReading(carrier, "malformed", value, f"{_json_type(value)}, not a boolean")


def _object_or_problem(value: Any) -> tuple[Mapping[str, Any] | None, str | None]:
    if isinstance(value, Mapping):
        return cast("Mapping[str, Any]", value), None
    kind = _json_type(value)
    return None, f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}, not an object"


def _read_directive(carrier: str, container: Mapping[str, Any] | None, key: str) -> CarrierReading:
    """A `Rendering` object exactly as sent, validated strictly against the schema's model."""
    if container is None or key not in container:
        return CarrierReading(carrier, "absent")
    value = container[key]
    try:
        Rendering.model_validate(value, strict=True)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or 'value'}: {e['msg']}"
            for e in error.errors(include_url=False)
        )
        return CarrierReading(carrier, "malformed", value, problems)
    return CarrierReading(carrier, "valid", value)


def _meta_entry(wire: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, bool]:
    """`_meta` of a wire object, and whether it holds the extension's key at all."""
    meta = wire.get("_meta")
    if not isinstance(meta, Mapping):
        return None, False
    meta_map = cast("Mapping[str, Any]", meta)
    return meta_map, EXTENSION_ID in meta_map


def tool_report(tool: Mapping[str, Any]) -> ToolReport:
    """Judge one wire tool's hints, carrier by carrier, and resolve them as a host would."""
    annotations_raw = tool.get("annotations")
    annotations = cast("Mapping[str, Any]", annotations_raw) if isinstance(annotations_raw, Mapping) else None
    meta, has_entry = _meta_entry(tool)
    entry, entry_problem = _object_or_problem(meta[EXTENSION_ID]) if meta is not None and has_entry else (None, None)
    hints: list[HintReport] = []
    for hint in _HINTS:
        if entry_problem is not None:
            assert meta is not None
            meta_reading = CarrierReading("_meta", "malformed", meta[EXTENSION_ID], f"the entry is {entry_problem}")
        else:
            meta_reading = _read_bool("_meta", entry, hint)
        hints.append(HintReport(hint, _read_bool("annotations", annotations, hint), meta_reading))
    effective = resolve_rendering(tool, None)
    return ToolReport(str(tool.get("name", "?")), tuple(hints), effective.mode, effective.source, entry_problem)


def call_report(tool: Mapping[str, Any] | None, name: str, arguments: dict[str, Any], result: Any) -> CallReport:
    """Judge one wire result's directive, carrier by carrier, and resolve it with the tool's hints."""
    if not isinstance(result, Mapping):
        raise InspectError(f"tools/call for {name!r} returned {_json_type(result)}, not a result object")
    wire = cast("Mapping[str, Any]", result)
    meta, _ = _meta_entry(wire)
    structured = wire.get("structuredContent")
    structured_map = cast("Mapping[str, Any]", structured) if isinstance(structured, Mapping) else None
    effective = resolve_rendering(tool, wire)
    continuation = effective.continuation
    return CallReport(
        tool=name,
        arguments=arguments,
        is_error=wire.get("isError") is True,
        directive=_read_directive("_rendering", wire, "_rendering"),
        meta=_read_directive("_meta", meta, EXTENSION_ID),
        structured_copy=_read_directive("structuredContent", structured_map, RESULT_STRUCTURED_KEY),
        effective_mode=effective.mode,
        effective_source=effective.source,
        complete=effective.complete,
        continuation_argument=None if continuation is None else continuation.argument,
    )


class _RawStdioSession:
    """A minimal JSON-RPC client over a child process's stdin/stdout, one message per line."""

    def __init__(self, process: asyncio.subprocess.Process, timeout: float, program: str) -> None:
        self._process = process
        self._timeout = timeout
        self._program = program
        self._next_id = 0
        self.envelope: dict[str, Any] | None = None
        """The 2026-07-28 `_meta` keys every request carries once `server/discover` settled that version."""
        self._stderr: deque[str] = deque(maxlen=20)
        self._stderr_task = asyncio.ensure_future(self._drain_stderr())

    @classmethod
    async def start(cls, command: Sequence[str], timeout: float) -> _RawStdioSession:
        program = command[0]
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=_STREAM_LIMIT,
            )
        except FileNotFoundError:
            raise InspectError(f"cannot start the server: command not found: {program}") from None
        except PermissionError:
            raise InspectError(f"cannot start the server: permission denied: {program}") from None
        except OSError as error:
            raise InspectError(f"cannot start the server {program}: {error.strerror or error}") from None
        return cls(process, timeout, program)

    async def _drain_stderr(self) -> None:
        # A server that fills its stderr pipe would block; keep the tail for error messages.
        stream = self._process.stderr
        assert stream is not None
        while line := await stream.readline():
            text = line.decode("utf-8", "replace").strip()
            if text:
                self._stderr.append(text)

    def _stderr_hint(self) -> str:
        return f" (stderr: {self._stderr[-1][:200]})" if self._stderr else ""

    async def _send(self, message: dict[str, Any]) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            await self._raise_exited(message.get("method", "a message"))

    async def _raise_exited(self, what: Any) -> None:
        try:
            code = await asyncio.wait_for(self._process.wait(), 2.0)
        except asyncio.TimeoutError:
            code = None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        status = "closed its stdout" if code is None else f"exited with code {code}"
        raise InspectError(f"the server {status} before answering {what}{self._stderr_hint()}")

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and return the raw `result` of its response (JSON as parsed, nothing validated)."""
        self._next_id += 1
        request_id = self._next_id
        if self.envelope is not None:
            # A 2026-07-28 server holds no session state: each request names its version, client and capabilities.
            params = dict(params or {})
            params["_meta"] = {**(_mapping(params.get("_meta")) or {}), **self.envelope}
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout
        stdout = self._process.stdout
        assert stdout is not None
        while True:
            remaining = deadline - loop.time()
            try:
                if remaining <= 0:
                    raise asyncio.TimeoutError
                line = await asyncio.wait_for(stdout.readline(), remaining)
            except asyncio.TimeoutError:
                raise _NoAnswer(
                    f"the server did not answer {method} within {self._timeout:g} s{self._stderr_hint()}"
                ) from None
            if not line:
                await self._raise_exited(method)
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            incoming = self._parse(text)
            if "method" in incoming:
                await self._answer_server_message(incoming)
                continue
            if incoming.get("id") != request_id:
                continue  # a late answer to something else; nothing here is waiting for it
            if "error" in incoming:
                error = _mapping(incoming["error"])
                detail = error.get("message", incoming["error"]) if error is not None else incoming["error"]
                code = error.get("code") if error is not None else None
                data = error.get("data") if error is not None else None
                raise _RpcError(method, detail, code, data)
            if "result" not in incoming:
                raise InspectError(f"the server's answer to {method} has neither result nor error")
            return incoming["result"]

    def _parse(self, text: str) -> Mapping[str, Any]:
        try:
            message = json.loads(text)
        except ValueError:
            raise InspectError(
                f"the server does not speak MCP over stdio: it wrote non-JSON to stdout: {text[:80]!r}"
            ) from None
        if not isinstance(message, Mapping) or cast("Mapping[str, Any]", message).get("jsonrpc") != "2.0":
            raise InspectError(f"the server does not speak MCP over stdio: not a JSON-RPC 2.0 message: {text[:80]!r}")
        return cast("Mapping[str, Any]", message)

    async def _answer_server_message(self, message: Mapping[str, Any]) -> None:
        # Notifications (logs, progress, list changes) need no answer; a server request gets a ping reply or a
        # "not supported" error, so that the server is never left waiting on us.
        if "id" not in message:
            return
        if message.get("method") == "ping":
            await self._send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
        else:
            await self._send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32601, "message": "inspect does not handle server requests"},
                }
            )

    async def close(self) -> None:
        """Close stdin (the stdio way to ask a server to stop), then terminate it if it lingers."""
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        try:
            await asyncio.wait_for(self._process.wait(), 2.0)
        except asyncio.TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self._process.terminate()
            try:
                await asyncio.wait_for(self._process.wait(), 2.0)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self._process.kill()
                await self._process.wait()
        self._stderr_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._stderr_task


async def inspect_server(
    command: Sequence[str],
    *,
    timeout: float = 10.0,
    call: str | None = None,
    arguments: dict[str, Any] | None = None,
    declare_extension: bool = True,
) -> InspectReport:
    """Connect to the stdio server `command`, list its tools and optionally call one, judging every carrier.

    Raises:
        InspectError: the server could not be started, stopped early, timed out, or did not speak JSON-RPC.
    """
    if not command:
        raise InspectError("no server command given (put it after `--`)")
    session = await _RawStdioSession.start(command, timeout)
    try:
        capabilities: dict[str, Any] = {}
        if declare_extension:
            capabilities["extensions"] = {EXTENSION_ID: {}}
        report = await _negotiate(session, list(command), capabilities)
        wire_tools = await _list_tools(session)
        report.tools = [tool_report(tool) for tool in wire_tools]
        if call is not None:
            tool = next((t for t in wire_tools if t.get("name") == call), None)
            if tool is None:
                raise InspectError(f"the server has no tool named {call!r}")
            args = dict(arguments or {})
            result = await session.request("tools/call", {"name": call, "arguments": args})
            report.call = call_report(tool, call, args, result)
        return report
    finally:
        await session.close()


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def _negotiate(session: _RawStdioSession, command: list[str], capabilities: dict[str, Any]) -> InspectReport:
    """Settle the protocol as the SDK's client does by default: `server/discover` first, else `initialize`.

    Anything short of a usable discover result (an error answer, no answer in time, a result of the wrong shape)
    falls back to the 2025-11-25 handshake. The one exception is a -32022 naming only versions inspect does not
    speak, which no handshake could overcome.
    """
    for attempt in range(2):
        report, reason = await _discover(session, command, capabilities)
        if report is not None:
            return report
        try:
            return await _initialize(session, command, capabilities, reason)
        except _RpcError as error:
            # A probe answered too late (after the timeout) may still have set a dual-era server on 2026-07-28; it
            # then refuses the handshake with -32022 naming that version. Probe once more rather than give up.
            supported = _supported_versions(error.data) if error.code == UNSUPPORTED_PROTOCOL_VERSION else None
            if attempt == 0 and supported is not None and _DISCOVER_VERSION in supported:
                continue
            raise
    raise AssertionError("unreachable")  # pragma: no cover: the loop returns or raises


def _supported_versions(data: Any) -> list[str] | None:
    """The `supported` list of a -32022 error's data, or None when it has none."""
    try:
        return UnsupportedProtocolVersionErrorData.model_validate(data).supported
    except ValidationError:
        return None


async def _discover(
    session: _RawStdioSession, command: list[str], capabilities: dict[str, Any]
) -> tuple[InspectReport | None, str]:
    """Probe `server/discover` at 2026-07-28: the report so far, or None and why the handshake must decide."""
    envelope: dict[str, Any] = {
        PROTOCOL_VERSION_META_KEY: _DISCOVER_VERSION,
        CLIENT_INFO_META_KEY: _CLIENT_INFO,
        CLIENT_CAPABILITIES_META_KEY: capabilities,
    }
    try:
        raw = await session.request("server/discover", {"_meta": envelope})
    except _NoAnswer as error:
        return None, str(error).removeprefix("the server ")
    except _RpcError as error:
        supported = _supported_versions(error.data) if error.code == UNSUPPORTED_PROTOCOL_VERSION else None
        known = (_DISCOVER_VERSION, *HANDSHAKE_PROTOCOL_VERSIONS)
        if supported and not any(version in known for version in supported):
            raise InspectError(
                f"the server speaks only protocol {', '.join(supported)}; "
                f"inspect speaks {_DISCOVER_VERSION} and {_HANDSHAKE_VERSION}"
            ) from None
        return None, f"server/discover was refused ({error.code}: {error.detail})"
    result = _mapping(raw)
    versions = result.get("supportedVersions") if result is not None else None
    caps_map = _mapping(result.get("capabilities")) if result is not None else None
    if (
        result is None
        or caps_map is None
        or not isinstance(versions, list)
        or not all(isinstance(version, str) for version in cast("list[Any]", versions))
    ):
        return None, "the server/discover result is not a discover result"
    if _DISCOVER_VERSION not in versions:
        listed = ", ".join(cast("list[str]", versions)) or "no version"
        return None, f"server/discover lists {listed}, not {_DISCOVER_VERSION}"
    # From here on, every request carries the envelope: a 2026-07-28 server keeps no per-connection handshake state.
    session.envelope = envelope
    meta = _mapping(result.get("_meta")) or {}
    info_map = _mapping(meta.get(SERVER_INFO_META_KEY)) or {}
    extensions = _mapping(caps_map.get("extensions"))
    return (
        InspectReport(
            command=command,
            server_name=_str_or_none(info_map.get("name")),
            server_version=_str_or_none(info_map.get("version")),
            protocol_version=_DISCOVER_VERSION,
            extension_advertised=extensions is not None and EXTENSION_ID in extensions,
            negotiated_by="server/discover",
        ),
        "",
    )


async def _initialize(
    session: _RawStdioSession, command: list[str], capabilities: dict[str, Any], discovery: str
) -> InspectReport:
    """The 2025-11-25 handshake: `initialize`, then `notifications/initialized`."""
    init = await session.request(
        "initialize",
        {"protocolVersion": _HANDSHAKE_VERSION, "capabilities": capabilities, "clientInfo": _CLIENT_INFO},
    )
    init_map = _mapping(init)
    if init_map is None:
        raise InspectError("the server's initialize result is not an object")
    await session.notify("notifications/initialized")
    info_map = _mapping(init_map.get("serverInfo")) or {}
    caps_map = _mapping(init_map.get("capabilities")) or {}
    extensions = _mapping(caps_map.get("extensions"))
    protocol_version = _str_or_none(init_map.get("protocolVersion"))
    advertised: bool | None = extensions is not None and EXTENSION_ID in extensions
    if not advertised and protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        # An initialize result has no `extensions` member, so its absence there says nothing either way.
        advertised = None
    return InspectReport(
        command=command,
        server_name=_str_or_none(info_map.get("name")),
        server_version=_str_or_none(info_map.get("version")),
        protocol_version=protocol_version,
        extension_advertised=advertised,
        negotiated_by="initialize",
        discovery=discovery,
    )


async def _list_tools(session: _RawStdioSession) -> list[Mapping[str, Any]]:
    tools: list[Mapping[str, Any]] = []
    cursor: str | None = None
    for _ in range(1000):  # a server whose cursor never ends must not hang inspect
        result = await session.request("tools/list", {"cursor": cursor} if cursor else {})
        if not isinstance(result, Mapping):
            raise InspectError("the server's tools/list result is not an object")
        page = cast("Mapping[str, Any]", result)
        for tool in page.get("tools") or ():
            if isinstance(tool, Mapping):
                tools.append(cast("Mapping[str, Any]", tool))
        next_cursor = page.get("nextCursor")
        if not isinstance(next_cursor, str) or not next_cursor:
            return tools
        cursor = next_cursor
    raise InspectError("the server's tools/list pagination did not end after 1000 pages")


def _show(reading: CarrierReading) -> str:
    if reading.state == "absent":
        return "-"
    text = json.dumps(reading.value, ensure_ascii=False)
    if len(text) > 40:
        text = text[:37] + "..."
    return text if reading.state == "valid" else f"MALFORMED {text}"


def _effective(mode: str, source: str) -> str:
    return f"{mode} (no hint: the host keeps its default)" if source == "none" else f"{mode} (from {source})"


def format_report(report: InspectReport) -> str:
    """The report as text for a terminal."""
    lines: list[str] = []
    name = report.server_name or "(unnamed server)"
    version = f" {report.server_version}" if report.server_version else ""
    lines.append(f"Server: {name}{version}, protocol {report.protocol_version or '?'} (via {report.negotiated_by})")
    if report.discovery:
        lines.append(f"Discovery: {report.discovery}; fell back to the {_HANDSHAKE_VERSION} initialize handshake")
    lines.append(f"Command: {shlex.join(report.command)}")
    where = f"{report.negotiated_by} result"
    if report.extension_advertised:
        advertised = f"yes, advertised in the server's capabilities ({where})"
    elif report.extension_advertised is None:
        advertised = f"not visible (a {report.protocol_version} initialize result cannot list extensions)"
    else:
        advertised = f"no, not advertised in the server's capabilities ({where})"
    lines.append(f"Extension {EXTENSION_ID}: {advertised}")
    lines.append("Values are judged as they were on the wire, before any SDK model read them.")
    lines.append("")
    if not report.tools:
        lines.append("No tools.")
    width = max([len("tool"), *(len(tool.name) for tool in report.tools)])
    if report.tools:
        lines.append(f"{'tool':<{width}}  {'hint':<16} {'annotations':<22} {'_meta':<22} effective")
    for tool in report.tools:
        for index, hint in enumerate(tool.hints):
            label = tool.name if index == 0 else ""
            effective = _effective(tool.effective_mode, tool.effective_source) if index == 0 else ""
            cells = f"{label:<{width}}  {hint.hint:<16} {_show(hint.annotation):<22} {_show(hint.meta):<22}"
            lines.append(f"{cells} {effective}".rstrip())
        for hint, reading in tool.malformed_values():
            if reading.carrier == "_meta" and tool.meta_entry_problem is not None:
                problem = f"_meta[{EXTENSION_ID!r}] is {tool.meta_entry_problem}; both hints read as absent"
            else:
                problem = f"{hint} in {reading.carrier}: {reading.problem}; read as absent"
            lines.append(f"{'':<{width}}  ! {problem}")
    if report.call is not None:
        call = report.call
        lines.append("")
        lines.append(f"Sample call: {call.tool} {json.dumps(call.arguments, ensure_ascii=False)}")
        if call.is_error:
            lines.append("  the tool reported an error (isError: true)")
        for title, reading in (
            ("result._rendering", call.directive),
            (f"result._meta[{EXTENSION_ID!r}]", call.meta),
            ("structuredContent._rendering (model-facing copy)", call.structured_copy),
        ):
            state = {"absent": "absent", "valid": "valid", "malformed": f"MALFORMED: {reading.problem}"}[reading.state]
            lines.append(f"  {title}: {state}")
        directive_ok = call.directive.state == "valid" or call.meta.state == "valid"
        verdict = "valid" if directive_ok else "no valid directive"
        lines.append(f"  directive: {verdict}; effective mode {_effective(call.effective_mode, call.effective_source)}")
        if not call.complete:
            argument = call.continuation_argument
            how = f"continue with argument {argument!r}" if argument else "no continuation offered"
            lines.append(f"  the result is incomplete (a bounded page); {how}")
    lines.append("")
    lines.append(f"{report.malformed} malformed value(s).")
    return "\n".join(lines)


def _inspect_command(args: argparse.Namespace, out: TextIO) -> int:
    command: list[str] = list(args.server_command)
    if command and command[0] == "--":
        command = command[1:]
    arguments: dict[str, Any] = {}
    if args.args is not None:
        if args.call is None:
            raise InspectError("--args needs --call TOOL")
        try:
            parsed = json.loads(args.args)
        except ValueError as error:
            raise InspectError(f"--args is not JSON: {error}") from None
        if not isinstance(parsed, dict):
            raise InspectError("--args must be a JSON object")
        arguments = cast("dict[str, Any]", parsed)
    report = asyncio.run(
        inspect_server(
            command,
            timeout=args.timeout,
            call=args.call,
            arguments=arguments,
            declare_extension=not args.no_extension,
        )
    )
    if args.json:
        payload = asdict(report)
        payload["malformed"] = report.malformed
        out.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(format_report(report) + "\n")
    return 0


# --------------------------------------------------------------------------------------------------------------
# demo: an example server, the reference host, the audit
# --------------------------------------------------------------------------------------------------------------

_WRAP = 100


class _Narrator:
    """Numbered steps, indented details and framed blocks, so that a first-time reader can follow along."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.step = 0

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def title(self, text: str) -> None:
        self.line(text)
        self.line("=" * len(text))

    def heading(self, text: str) -> None:
        self.step += 1
        self.line()
        self.line(f"[{self.step}] {text}")

    def detail(self, text: str, *, prefix: str = "") -> None:
        """Indented text, wrapped for a terminal; `prefix` starts every line (for quoting)."""
        for paragraph in text.splitlines() or [""]:
            wrapped = textwrap.wrap(paragraph, _WRAP - len(prefix), break_on_hyphens=False) or [""]
            for part in wrapped:
                self.line(f"    {prefix}{part}")

    def framed(self, label: str, body: str) -> None:
        """`body` verbatim (never wrapped: it is the rendering under audit) between two rules."""
        self.line(f"    ---- {label} " + "-" * max(3, _WRAP - 6 - len(label)))
        for part in body.rstrip("\n").splitlines():
            self.line(f"    {part}")
        self.line("    " + "-" * _WRAP)


def _wire_of(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _hint_summary(tool: Tool) -> str:
    hints = read_tool_hints(tool)
    parts: list[str] = []
    if hints.verbatim_hint is not None:
        parts.append(f"verbatimHint={str(hints.verbatim_hint).lower()}")
    if hints.summarize_ok_hint is not None:
        parts.append(f"summarizeOkHint={str(hints.summarize_ok_hint).lower()}")
    return ", ".join(parts) or "no rendering hints"


def _carriers(tool: Tool) -> str:
    wire = _wire_of(tool)
    annotations = wire.get("annotations")
    meta = wire.get("_meta")
    found: list[str] = []
    if isinstance(annotations, Mapping) and any(hint in annotations for hint in _HINTS):
        found.append("annotations")
    if isinstance(meta, Mapping) and EXTENSION_ID in meta:
        found.append("_meta")
    return " + ".join(found) or "no carrier"


def _row_ids(document: Document | None) -> list[str]:
    return [] if document is None else [row.id for section in document.sections for row in section.rows]


def _first_uri(document: Document | None) -> str | None:
    if document is None:
        return None
    return next((row.uri for section in document.sections for row in section.rows if row.uri), None)


def _typical_summary(document: Document) -> str:
    """What a summarizing host tends to show: the title and each section's last total, nothing else."""
    lines = [document.title]
    for section in document.sections:
        totals = [row for row in section.rows if row.kind == "total"]
        if totals:
            row = totals[-1]
            figures = (cell_text(value) for value in row.values)
            lines.append(f"{row.label}: {', '.join(figure for figure in figures if figure)}")
    return "\n".join(lines)


def _verdict(report: AuditReport) -> str:
    if report.clean:
        return f"score {report.score:.2f}, clean"
    return f"score {report.score:.2f}, NOT clean ({len(report.issues)} issue(s))"


def _save(directory: str, result: CallToolResult, shown: str) -> tuple[str, str]:
    os.makedirs(directory, exist_ok=True)
    result_path = os.path.join(directory, "result.json")
    shown_path = os.path.join(directory, "transcript.txt")
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(_wire_of(result), handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    with open(shown_path, "w", encoding="utf-8") as handle:
        handle.write(shown)
    return result_path, shown_path


async def run_demo(example: str, out: TextIO, *, all_pages: bool = False, save: str | None = None) -> int:
    """Run one example end to end and narrate it.

    Returns 0 when every page audits clean and a paged result is walked to its end with no record repeated.
    """
    say = _Narrator(out)
    module = module_of(example)
    say.title(f"mcp-rendering demo: {example}")
    say.detail(f"{EXAMPLES[example]}.")
    say.detail(
        "A tool server marks its result 'verbatim'. The reference host shows it whole, and an audit checks that "
        "what the user sees holds every section, row, subtotal and value of the result, in order."
    )

    say.heading("Start the example server as a subprocess, spoken to over stdio")
    say.detail(f"$ python -m {module}")
    parameters = StdioServerParameters(command=sys.executable, args=["-m", module])

    say.heading("Connect the reference host")
    say.detail(f"mcp.Client, with the SDK patch installed and the extension {EXTENSION_ID} declared")
    clean = True
    async with Client(parameters, extensions=[client_extension()]) as client:
        info = client.server_info
        server_label = info.name if info is not None else None
        server_name = f"{info.name} {info.version}" if info is not None else "(unnamed server)"
        say.detail(f"connected to {server_name}, protocol {client.protocol_version}")

        say.heading("List the tools and the rendering hints they declare")
        tools = (await client.list_tools()).tools
        name_width = max(len(tool.name) for tool in tools)
        hint_width = max(len(_hint_summary(tool)) for tool in tools)
        for tool in tools:
            mode = resolve_rendering(tool, None).mode
            say.detail(
                f"{tool.name:<{name_width}}  {_hint_summary(tool):<{hint_width}}  in {_carriers(tool):<19} -> {mode}"
            )
        tool = next((t for t in tools if resolve_rendering(t, None).mode == "verbatim"), None)
        if tool is None:
            raise InspectError(f"the {example} example declares no verbatim tool")

        arguments: dict[str, Any] = {}
        say.heading(f"Call {tool.name} {json.dumps(arguments)}")
        result = await client.call_tool(tool.name, arguments)
        shown = present(tool, result, server=server_label)
        directive = shown.rendering.directive
        if directive is not None:
            state = "complete" if shown.complete else "INCOMPLETE: a bounded page"
            say.detail(
                f"directive (read from {shown.rendering.source}): mode {directive.mode}, {state}, "
                f"nulls shown as {shown.rendering.null_display!r}"
            )
            if directive.guidance:
                say.detail(f"guidance: {directive.guidance}")

        say.heading(f"What the user sees (mode {shown.mode}: the whole result, in order)")
        say.framed(shown.caption or "shown to the user", shown.text)
        if shown.framing is not None:
            say.detail("The model receives the same result, with this framing block placed first:")
            say.detail(shown.framing, prefix="| ")

        say.heading("Audit the shown text against the result")
        report = audit(shown.text, result)
        clean = clean and report.clean
        say.detail(report.format())
        if shown.document is not None:
            summary = _typical_summary(shown.document)
            contrast = audit(summary, result)
            say.detail("For contrast, the kind of summary a host writes when nothing asks it not to:")
            say.detail(summary, prefix="| ")
            say.detail(
                f"its audit: {_verdict(contrast)}; rows missing: {len(contrast.missing)}, "
                f"sections dropped: {len(contrast.dropped_sections)}"
            )
        if save is not None:
            result_path, shown_path = _save(save, result, shown.text)
            say.detail(f"saved: {result_path} and {shown_path}")
            say.detail(
                f"re-run the audit with: mcp-rendering audit {shlex.quote(result_path)} {shlex.quote(shown_path)}"
            )

        first_uri = _first_uri(shown.document)
        seen = _row_ids(shown.document)
        if not shown.complete:
            say.heading("The result is a bounded page: follow the continuation to the end")
            say.detail(
                f"page 1: {len(seen)} records, audit {_verdict(report)}; the notice tells the user it is partial"
            )
            pages = 1
            following = shown.next_arguments(arguments)
            while following is not None:
                pages += 1
                result = await client.call_tool(tool.name, following)
                if result.is_error:
                    clean = False
                    say.detail(f"page {pages}: the server refused the continuation")
                    break
                shown = present(tool, result, server=server_label)
                report = audit(shown.text, result)
                clean = clean and report.clean
                ids = _row_ids(shown.document)
                seen.extend(ids)
                status = "the last page" if shown.complete else "more follow"
                say.detail(f"page {pages}: {len(ids)} records, audit {_verdict(report)}; {status}")
                if all_pages:
                    say.framed(f"page {pages}, shown to the user", shown.text)
                following = shown.next_arguments(arguments)
            repeated = len(seen) - len(set(seen))
            expected = _page_total(result)
            missing = "" if expected is None else f" of {expected}"
            say.detail(f"walked {pages} pages: {len(seen)}{missing} records, {repeated} repeated")
            clean = clean and shown.complete and repeated == 0 and (expected is None or expected == len(seen))

        if first_uri is not None:
            say.heading("Resolve one record by its canonical URI (resources/read, same caller)")
            say.detail(first_uri)
            read = await client.read_resource(first_uri)
            for content in read.contents:
                if isinstance(content, TextResourceContents):
                    say.framed(content.mime_type or "text/plain", _pretty(content.text))

    say.line()
    if clean:
        say.line("Outcome: the user saw the whole result, in order, and the audit found nothing missing or altered.")
    else:
        say.line("Outcome: the audit found a problem (see above).")
    return 0 if clean else 1


def _pretty(text: str) -> str:
    """A JSON object one member per line (compact values), anything else as it is."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    members = _mapping(value)
    if members is None:
        return text
    return "\n".join(f"{key}: {json.dumps(member, ensure_ascii=False)}" for key, member in members.items())


def _page_total(result: CallToolResult) -> int | None:
    page = _mapping((_mapping(result.structured_content) or {}).get("page"))
    total = None if page is None else page.get("total")
    return total if isinstance(total, int) else None


def _demo_command(args: argparse.Namespace, out: TextIO) -> int:
    return asyncio.run(run_demo(args.example, out, all_pages=args.all_pages, save=args.save))


# --------------------------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-rendering",
        description="Rendering hints for MCP tool results: a demo, an inspector for any stdio server, and an audit.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="run an example server and show its result as the reference host does")
    demo.add_argument("--example", choices=tuple(EXAMPLES), default="financial", help="default: %(default)s")
    demo.add_argument("--all-pages", action="store_true", help="print every page of a paged result in full")
    demo.add_argument("--save", metavar="DIR", help="save the first result and what was shown, for `audit`")

    inspect = commands.add_parser(
        "inspect",
        help="report the rendering hints and directives of any stdio MCP server",
        usage="%(prog)s [--timeout S] [--call TOOL [--args JSON]] [--json] [--no-extension] -- COMMAND [ARG...]",
    )
    inspect.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each answer (default 10)")
    inspect.add_argument("--call", metavar="TOOL", help="also call TOOL and judge its result's directive")
    inspect.add_argument("--args", metavar="JSON", help="arguments for --call, as a JSON object")
    inspect.add_argument("--json", action="store_true", help="print the report as JSON")
    inspect.add_argument("--no-extension", action="store_true", help="do not declare the rendering extension")
    inspect.add_argument("server_command", nargs=argparse.REMAINDER, help="the server command, after --")

    # Parsed by `audit_main` itself; listed here for `--help`.
    commands.add_parser("audit", help="audit a transcript against a tool result: RESULT.json TRANSCRIPT.txt")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 success, 1 failure, 2 usage error)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] == "audit":
        return audit_main(arguments[1:])
    args = _parser().parse_args(arguments)
    # The readers log malformed values as warnings, and inspect reports them itself: without a handler of ours,
    # Python's last-resort handler would print them on stderr, which is kept for errors. An application that
    # configures logging still receives them.
    logging.getLogger("mcp_rendering").addHandler(logging.NullHandler())
    try:
        if args.command == "inspect":
            return _inspect_command(args, sys.stdout)
        return _demo_command(args, sys.stdout)
    except InspectError as error:
        print(f"mcp-rendering {args.command}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
