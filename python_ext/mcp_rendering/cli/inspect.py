"""`mcp-rendering inspect`: what any stdio MCP server declares, in which carrier, judged as it was on the wire.

The SDK's own stdio transport (`mcp.client.stdio`) runs the server and frames the messages; this module reads each
response's `result` as the raw JSON the transport hands over, before any SDK model parses it, so that a carrier the
SDK would drop or a malformed value it would coerce is seen as sent. It speaks 2026-07-28 when the server answers
`server/discover`, and the 2025-11-25 `initialize` handshake otherwise. Every server-chosen string it prints is
passed through `mcp_rendering.render.visible`, so a name cannot move the cursor or reverse text.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Literal, Protocol, cast

import anyio
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.message import SessionMessage
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    UnsupportedProtocolVersionErrorData,
)
from mcp_types.jsonrpc import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError

from mcp_rendering.cli._input import CommandError
from mcp_rendering.reading import Problem, read_hints_object, read_rendering_object, resolve_rendering
from mcp_rendering.render import visible
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, RESULT_STRUCTURED_KEY

if sys.version_info < (3, 11):  # pragma: no cover: the builtin arrived in 3.11; anyio brings the backport
    from exceptiongroup import BaseExceptionGroup

__all__ = [
    "CallReport",
    "CarrierReport",
    "InspectError",
    "InspectReport",
    "ToolReport",
    "format_report",
    "inspect_server",
]

HANDSHAKE_VERSION = "2025-11-25"
"""The protocol version offered through `initialize`, when the server does not answer `server/discover`."""

DISCOVER_VERSION = "2026-07-28"
"""The protocol version proposed first, through `server/discover` and the per-request `_meta` envelope."""

_CLIENT_INFO = {"name": "mcp-rendering-inspect", "version": "1"}
_MAX_PAGES = 1000  # a server whose cursor never ends must not hang inspect


class InspectError(CommandError):
    """The server could not be inspected; the message is one line, fit to print as is."""


class _RpcError(InspectError):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, method: str, detail: Any, code: Any, data: Any) -> None:
        super().__init__(f"the server answered {method} with an error: {visible(str(detail))}")
        self.detail = detail
        self.code = code
        self.data = data


class _NoAnswer(InspectError):
    """The server did not answer a request within the timeout."""


# ------------------------------------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class CarrierReport:
    """What one carrier held, member by member, as the specification reads it."""

    carrier: str
    present: bool
    values: dict[str, Any] = field(default_factory=lambda: {})
    """The well-formed members, by wire name."""
    problems: list[str] = field(default_factory=lambda: [])
    """One line per malformed or repeated value (a member, or the whole value when it is not an object), and per
    unregistered `mode`."""
    unknown: list[str] = field(default_factory=lambda: [])
    """One line per unknown member: ignored for the reading (a later revision's member, or a misspelling)."""


@dataclass(frozen=True)
class ToolReport:
    """The rendering hints of one tool, and what a host would make of them."""

    name: str
    annotations: CarrierReport
    meta: CarrierReport
    effective_mode: str
    effective_source: str
    missing_meta_carrier: bool
    """True when the tool gives a hint (or is verbatim) without the normative `_meta` carrier holding it."""
    continuation_argument: str | None = None
    """The argument its result continuation carrier names: the tool pages its results."""


@dataclass(frozen=True)
class CallReport:
    """The directive of one sample result."""

    tool: str
    arguments: dict[str, Any]
    is_error: bool
    meta: CarrierReport
    core: CarrierReport
    structured_copy: CarrierReport
    effective_mode: str
    effective_source: str
    complete: bool
    continuation_argument: str | None
    missing_meta_carrier: bool
    """True when the result has a directive (in the core form or the copy) but no `_meta` carrier holding it."""
    continuation_without_incomplete: list[str] = field(default_factory=lambda: [])
    """The carriers whose directive says `complete` absent or true beside a result continuation carrier, which a
    server must not send."""
    continuation_problems: list[str] = field(default_factory=lambda: [])
    """What is wrong with the result continuation carrier as sent: its problems as read, and an unstated expiry."""


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
    continuation_advertised: bool | None = None
    """Whether the server's capabilities list result continuation; None when that version cannot show it."""
    extensions: list[str] = field(default_factory=lambda: [])
    """Every extension identifier the server's capabilities list, these two and any other."""
    capabilities: list[str] = field(default_factory=lambda: [])
    """The server's capability names; resources and prompts are listed only when it declares them."""
    discovery: str | None = None
    """Why `server/discover` did not settle the protocol, when `initialize` had to (None when it did)."""
    tools: list[ToolReport] = field(default_factory=lambda: [])
    resources: list[str] = field(default_factory=lambda: [])
    resource_templates: list[str] = field(default_factory=lambda: [])
    prompts: list[str] = field(default_factory=lambda: [])
    call: CallReport | None = None

    @property
    def malformed(self) -> int:
        """How many malformed values, over every tool and the sample call."""
        return sum(len(carrier.problems) for carrier in self._carriers)

    @property
    def unknown(self) -> int:
        """How many unknown members (ignored for the reading), over every tool and the sample call."""
        return sum(len(carrier.unknown) for carrier in self._carriers)

    @property
    def _carriers(self) -> list[CarrierReport]:
        carriers = [carrier for tool in self.tools for carrier in (tool.annotations, tool.meta)]
        if self.call is not None:
            carriers += [self.call.meta, self.call.core, self.call.structured_copy]
        return carriers

    @property
    def strict_failures(self) -> list[str]:
        """What makes `inspect --strict` exit 1: malformed values, unknown members (which this version ignores, and
        a server that targets it does not send), hints or directives without the `_meta` carrier (the normative
        one), a continuation in a directive that does not say `complete: false`, and a continuation carrier with a
        problem or without `expiresAt`."""
        failures: list[str] = []
        if self.malformed:
            failures.append(f"{self.malformed} malformed value(s)")
        if self.unknown:
            failures.append(f"{self.unknown} unknown member(s)")
        for tool in self.tools:
            if tool.missing_meta_carrier:
                failures.append(f"tool {json.dumps(visible(tool.name))} has hints without the _meta carrier")
        if self.call is not None and self.call.missing_meta_carrier:
            failures.append(
                f"the result of {json.dumps(visible(self.call.tool))} has a directive without the _meta carrier"
            )
        for carrier in self.call.continuation_without_incomplete if self.call is not None else ():
            failures.append(f"the result's {carrier} has a continuation without complete: false")
        for problem in self.call.continuation_problems if self.call is not None else ():
            failures.append(f"the result's continuation: {problem}")
        if self.extension_advertised is False and self.uses_rendering:
            failures.append(f"the server gives rendering hints or directives but does not declare {EXTENSION_ID}")
        if self.continuation_advertised is False:
            for name in self.paged_tools:
                failures.append(
                    f"tool {json.dumps(visible(name))} pages its results but the server does not declare "
                    f"{CONTINUATION_ID}"
                )
        return failures

    @property
    def uses_rendering(self) -> bool:
        """Whether a tool or the sample result carries a rendering hint or directive, in any carrier."""
        return any(carrier.present for carrier in self._carriers)

    @property
    def paged_tools(self) -> list[str]:
        """The tools that declare a continuation argument, and the sample call's tool if its result continues."""
        names = [tool.name for tool in self.tools if tool.continuation_argument is not None]
        if self.call is not None and self.call.continuation_argument is not None and self.call.tool not in names:
            names.append(self.call.tool)
        return names

    @property
    def checked(self) -> str:
        """What this report judged, in one sentence."""
        count = f"{len(self.tools)} tool" + ("" if len(self.tools) == 1 else "s")
        things = [
            "the server's declaration of each extension",
            f"the hints of {count} in both carriers, and each one's continuation argument",
        ]
        if self.call is not None:
            things.append(
                f"the result of {json.dumps(visible(self.call.tool))}: its directive in each of three carriers, and "
                "its continuation"
            )
        return "Checked: " + "; ".join(things) + "."

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        payload = asdict(self)
        payload["malformed"] = self.malformed
        payload["unknown"] = self.unknown
        payload["strict_failures"] = self.strict_failures
        payload["checked"] = self.checked
        return payload


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _carrier(name: str, value: Any, *, hints: bool) -> CarrierReport:
    if value is None:
        return CarrierReport(name, False)
    if hints:
        read, problems = read_hints_object(value, name)
        values = read.model_dump(mode="json", by_alias=True, exclude_none=True)
    else:
        directive, problems = read_rendering_object(value, name)
        values = {} if directive is None else directive.as_wire()
    lines = [_problem_line(problem, "the value") for problem in problems if not problem.ignored]
    unknown = [_problem_line(problem, "the value") for problem in problems if problem.ignored]
    return CarrierReport(name, True, values, lines, unknown)


def _problem_line(problem: Problem, whole: str) -> str:
    return f"{problem.member or whole}: {problem.detail}; read as {problem.reads_as}"


def _extension_entry(wire: Mapping[str, Any]) -> Any:
    meta = _mapping(wire.get("_meta"))
    return None if meta is None else meta.get(EXTENSION_ID)


def tool_report(tool: Mapping[str, Any]) -> ToolReport:
    """Judge one wire tool's hints, carrier by carrier, and resolve them as a host would."""
    annotations = _mapping(tool.get("annotations"))
    core_hints = None
    if annotations is not None:
        core_hints = {key: annotations[key] for key in ("verbatimHint", "summarizeOkHint") if key in annotations}
    core = _carrier("annotations", core_hints or None, hints=True)
    meta = _carrier("_meta", _extension_entry(tool), hints=True)
    effective = resolve_rendering(tool, None)
    missing = any(key not in meta.values for key in core.values) or (
        effective.mode == "verbatim" and "verbatimHint" not in meta.values
    )
    name = tool.get("name")
    continued = _mapping((_mapping(tool.get("_meta")) or {}).get(CONTINUATION_ID)) or {}
    argument = continued.get("argument")
    return ToolReport(
        str(name) if name is not None else "?",
        core,
        meta,
        effective.mode,
        effective.source,
        missing,
        continuation_argument=argument if isinstance(argument, str) else None,
    )


def call_report(tool: Mapping[str, Any] | None, name: str, arguments: dict[str, Any], result: Any) -> CallReport:
    """Judge one wire result's directive, carrier by carrier, and resolve it with the tool's hints."""
    wire = _mapping(result)
    if wire is None:
        raise InspectError(f"tools/call for {json.dumps(visible(name))} did not return a result object")
    structured = _mapping(wire.get("structuredContent"))
    effective = resolve_rendering(tool, wire, call_arguments=arguments)
    meta = _carrier("_meta", _extension_entry(wire), hints=False)
    core = _carrier("_rendering", wire.get("_rendering"), hints=False)
    copy = _carrier(
        "structuredContent._rendering",
        None if structured is None else structured.get(RESULT_STRUCTURED_KEY),
        hints=False,
    )
    continuation = effective.continuation
    continuation_problems = [
        _problem_line(problem, "the carrier") for problem in effective.continuation_reading.problems
    ]
    if continuation is not None and continuation.expires_at is None:
        continuation_problems.append("expiresAt: not stated (a server always states the token's expiry)")
    return CallReport(
        tool=name,
        arguments=arguments,
        is_error=wire.get("isError") is True,
        meta=meta,
        core=core,
        structured_copy=copy,
        effective_mode=effective.mode,
        effective_source=effective.source,
        complete=effective.complete,
        continuation_argument=None if continuation is None else continuation.argument,
        missing_meta_carrier=bool(core.values or copy.values) and not meta.values,
        continuation_without_incomplete=[
            "_meta"
            for carrier in (meta,)
            if effective.continuation_reading.present and carrier.values.get("complete") is not False
        ],
        continuation_problems=continuation_problems,
    )


# -------------------------------------------------------------------------------------------------- the session


class _Receiving(Protocol):
    async def receive(self) -> SessionMessage | Exception: ...


class _Sending(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...


class _Session:
    """JSON-RPC requests over the SDK's stdio transport, answered with the raw `result` of each response."""

    def __init__(
        self,
        read: _Receiving,
        write: _Sending,
        timeout: float,
        errlog: IO[str],
    ) -> None:
        self._read = read
        self._write = write
        self._timeout = timeout
        self._errlog = errlog
        self._next_id = 0
        self.envelope: dict[str, Any] | None = None
        """The 2026-07-28 `_meta` keys every request carries once `server/discover` settled that version."""

    def stderr_hint(self) -> str:
        """The last line the server wrote on stderr, for an error message."""
        self._errlog.flush()
        self._errlog.seek(0)
        lines = [line.strip() for line in self._errlog.read().splitlines() if line.strip()]
        return f" (stderr: {visible(lines[-1][:200])})" if lines else ""

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification."""
        await self._send(JSONRPCNotification(jsonrpc="2.0", method=method, params=params), method)

    async def _send(
        self, message: JSONRPCRequest | JSONRPCNotification | JSONRPCResponse | JSONRPCError, what: str
    ) -> None:
        try:
            await self._write.send(SessionMessage(message))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            # A server that wrote something else and exited: what it wrote says more than the closed pipe, and may
            # still be on its way through the reader.
            with anyio.move_on_after(1):
                await self._receive(what)
            raise InspectError(f"the server stopped before answering {what}{self.stderr_hint()}") from None

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and return the raw `result` of its response (nothing validated)."""
        self._next_id += 1
        request_id = self._next_id
        if self.envelope is not None:
            # A 2026-07-28 server holds no session state: each request names its version, client and capabilities.
            params = dict(params or {})
            params["_meta"] = {**(_mapping(params.get("_meta")) or {}), **self.envelope}
        await self._send(JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params=params), method)
        try:
            with anyio.fail_after(self._timeout):
                while True:
                    message = await self._receive(method)
                    if isinstance(message, JSONRPCRequest):
                        await self._answer(message)
                        continue
                    if isinstance(message, JSONRPCNotification) or message.id != request_id:
                        continue  # logs, progress, or a late answer to something else
                    if isinstance(message, JSONRPCError):
                        error = message.error
                        raise _RpcError(method, error.message, error.code, error.data)
                    return message.result
        except TimeoutError:
            raise _NoAnswer(
                f"the server did not answer {method} within {self._timeout:g} s{self.stderr_hint()}"
            ) from None

    async def _receive(self, method: str) -> JSONRPCRequest | JSONRPCNotification | JSONRPCResponse | JSONRPCError:
        try:
            item = await self._read.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            raise InspectError(f"the server stopped before answering {method}{self.stderr_hint()}") from None
        if isinstance(item, ValidationError):
            (first, *_) = item.errors(include_url=False)
            written = visible(str(first.get("input", ""))[:80])
            if first["type"] == "json_invalid":
                raise InspectError(
                    f"the server does not speak MCP over stdio: it wrote non-JSON to stdout: {written!r}"
                )
            raise InspectError(f"the server does not speak MCP over stdio: not a JSON-RPC 2.0 message: {written!r}")
        if isinstance(item, Exception):
            raise InspectError(f"the server's stdout could not be read: {visible(str(item).splitlines()[0][:120])}")
        return item.message

    async def _answer(self, request: JSONRPCRequest) -> None:
        # A server request gets a ping reply or a "not supported" error, so that the server never waits on us.
        if request.method == "ping":
            await self._send(JSONRPCResponse(jsonrpc="2.0", id=request.id, result={}), "ping")
        else:
            error = {"code": -32601, "message": "inspect does not handle server requests"}
            await self._send(
                JSONRPCError.model_validate({"jsonrpc": "2.0", "id": request.id, "error": error}), "a request"
            )


async def inspect_server(
    command: Sequence[str],
    *,
    timeout: float = 10.0,
    call: str | None = None,
    arguments: dict[str, Any] | None = None,
    declare_extension: bool = True,
) -> InspectReport:
    """Start the stdio server `command`, list what it offers and optionally call one tool, judging every carrier.

    Raises:
        InspectError: the server could not be started, stopped early, timed out, or did not speak JSON-RPC.
    """
    if not command:
        raise InspectError("no server command given (put it after `--`)")
    try:
        return await _inspect_over_stdio(command, timeout, call, arguments, declare_extension)
    except BaseExceptionGroup as group:
        # The transport's task group wraps whatever ended the session; the first error of ours is the story.
        raise _first_inspect_error(group) from None


def _first_inspect_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            error = _first_inspect_error(cast("BaseExceptionGroup[BaseException]", error))
        if isinstance(error, InspectError):
            return error
    return group


async def _inspect_over_stdio(
    command: Sequence[str],
    timeout: float,
    call: str | None,
    arguments: dict[str, Any] | None,
    declare_extension: bool,
) -> InspectReport:
    program, *rest = command
    # The server runs as the user's own command would, with their environment: the SDK would otherwise pass only
    # a few variables (PATH, HOME...), and a server's configuration (a signing secret, a database URL) would be lost.
    parameters = StdioServerParameters(command=program, args=rest, env=dict(os.environ))
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        async with AsyncExitStack() as stack:
            try:
                read, write = await stack.enter_async_context(stdio_client(parameters, errlog=errlog))
            except FileNotFoundError:
                raise InspectError(f"cannot start the server: command not found: {visible(program)}") from None
            except PermissionError:
                raise InspectError(f"cannot start the server: permission denied: {visible(program)}") from None
            except OSError as error:
                raise InspectError(f"cannot start the server {visible(program)}: {error.strerror or error}") from None
            session = _Session(read, write, timeout, errlog)
            capabilities: dict[str, Any] = {"extensions": {EXTENSION_ID: {}}} if declare_extension else {}
            report = await _negotiate(session, list(command), capabilities)
            wire_tools = await _list(session, "tools/list", "tools")
            report.tools = [tool_report(tool) for tool in wire_tools]
            if "resources" in report.capabilities:
                report.resources = _names(await _list(session, "resources/list", "resources", optional=True), "uri")
                report.resource_templates = _names(
                    await _list(session, "resources/templates/list", "resourceTemplates", optional=True),
                    "uriTemplate",
                )
            if "prompts" in report.capabilities:
                report.prompts = _names(await _list(session, "prompts/list", "prompts", optional=True), "name")
            if call is not None:
                tool = next((t for t in wire_tools if t.get("name") == call), None)
                if tool is None:
                    raise InspectError(f"the server has no tool named {json.dumps(visible(call))}")
                args = dict(arguments or {})
                result = await session.request("tools/call", {"name": call, "arguments": args})
                report.call = call_report(tool, call, args, result)
            return report
    raise AssertionError("unreachable")  # pragma: no cover: the block returns or raises


def _names(entries: list[Mapping[str, Any]], key: str) -> list[str]:
    return [str(entry.get(key, "?")) for entry in entries]


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


async def _negotiate(session: _Session, command: list[str], capabilities: dict[str, Any]) -> InspectReport:
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
            # A probe answered too late may still have set a dual-era server on 2026-07-28; it then refuses the
            # handshake with -32022 naming that version. Probe once more rather than give up.
            supported = _supported_versions(error.data) if error.code == UNSUPPORTED_PROTOCOL_VERSION else None
            if attempt == 0 and supported is not None and DISCOVER_VERSION in supported:
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
    session: _Session, command: list[str], capabilities: dict[str, Any]
) -> tuple[InspectReport | None, str]:
    """Probe `server/discover` at 2026-07-28: the report so far, or None and why the handshake must decide."""
    envelope: dict[str, Any] = {
        PROTOCOL_VERSION_META_KEY: DISCOVER_VERSION,
        CLIENT_INFO_META_KEY: _CLIENT_INFO,
        CLIENT_CAPABILITIES_META_KEY: capabilities,
    }
    try:
        raw = await session.request("server/discover", {"_meta": envelope})
    except _NoAnswer as error:
        return None, str(error).removeprefix("the server ")
    except _RpcError as error:
        supported = _supported_versions(error.data) if error.code == UNSUPPORTED_PROTOCOL_VERSION else None
        known = (DISCOVER_VERSION, *HANDSHAKE_PROTOCOL_VERSIONS)
        if supported and not any(version in known for version in supported):
            listed = ", ".join(visible(version) for version in supported)
            raise InspectError(
                f"the server speaks only protocol {listed}; inspect speaks {DISCOVER_VERSION} and {HANDSHAKE_VERSION}"
            ) from None
        return None, f"server/discover was refused ({error.code}: {visible(str(error.detail))})"
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
    if DISCOVER_VERSION not in versions:
        listed = ", ".join(visible(version) for version in cast("list[str]", versions)) or "no version"
        return None, f"server/discover lists {listed}, not {DISCOVER_VERSION}"
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
            protocol_version=DISCOVER_VERSION,
            extension_advertised=extensions is not None and EXTENSION_ID in extensions,
            continuation_advertised=extensions is not None and CONTINUATION_ID in extensions,
            extensions=sorted(str(name) for name in extensions or ()),
            negotiated_by="server/discover",
            capabilities=sorted(str(name) for name in caps_map),
        ),
        "",
    )


async def _initialize(
    session: _Session, command: list[str], capabilities: dict[str, Any], discovery: str
) -> InspectReport:
    """The 2025-11-25 handshake: `initialize`, then `notifications/initialized`."""
    init = await session.request(
        "initialize",
        {"protocolVersion": HANDSHAKE_VERSION, "capabilities": capabilities, "clientInfo": _CLIENT_INFO},
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
    continued: bool | None = extensions is not None and CONTINUATION_ID in extensions
    if protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        # An initialize result has no `extensions` member, so its absence there says nothing either way.
        advertised = advertised or None
        continued = continued or None
    return InspectReport(
        command=command,
        server_name=_str_or_none(info_map.get("name")),
        server_version=_str_or_none(info_map.get("version")),
        protocol_version=protocol_version,
        extension_advertised=advertised,
        continuation_advertised=continued,
        extensions=sorted(str(name) for name in extensions or ()),
        negotiated_by="initialize",
        discovery=discovery,
        capabilities=sorted(str(name) for name in caps_map),
    )


async def _list(session: _Session, method: str, key: str, *, optional: bool = False) -> list[Mapping[str, Any]]:
    """Every entry of a paginated list method; with `optional`, a server that does not offer it lists nothing."""
    entries: list[Mapping[str, Any]] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        try:
            result = await session.request(method, {"cursor": cursor} if cursor else {})
        except _RpcError:
            if optional:
                return entries
            raise
        page = _mapping(result)
        if page is None:
            raise InspectError(f"the server's {method} result is not an object")
        for entry in page.get(key) or ():
            if isinstance(entry, Mapping):
                entries.append(cast("Mapping[str, Any]", entry))
        next_cursor = page.get("nextCursor")
        if not isinstance(next_cursor, str) or not next_cursor:
            return entries
        cursor = next_cursor
    raise InspectError(f"the server's {method} pagination did not end after {_MAX_PAGES} pages")


# ------------------------------------------------------------------------------------------------------ the text


def _shown(value: Any) -> str:
    text = visible(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= 40 else text[:37] + "..."


def _carrier_line(carrier: CarrierReport) -> str:
    if not carrier.present:
        return "absent"
    values = ", ".join(f"{name}={_shown(value)}" for name, value in carrier.values.items()) or "nothing well-formed"
    return values


def _effective(mode: str, source: str) -> str:
    return f"{mode} (no hint: the host keeps its default)" if source == "none" else f"{mode} (from {source})"


def _declared(advertised: bool | None, where: str, protocol: str) -> str:
    if advertised:
        return f"yes, advertised in the server's capabilities ({where})"
    if advertised is None:
        return f"not visible (a {protocol} initialize result cannot list extensions)"
    return f"no, not advertised in the server's capabilities ({where})"


def format_report(report: InspectReport, *, strict: bool = False) -> str:
    """The report as text for a terminal (every server string made visible); `strict` states the strict check's
    verdict, which only `--strict` makes the exit status."""
    lines: list[str] = []
    name = visible(report.server_name) if report.server_name else "(unnamed server)"
    version = f" {visible(report.server_version)}" if report.server_version else ""
    protocol = visible(report.protocol_version) if report.protocol_version else "?"
    lines.append(f"Server: {name}{version}, protocol {protocol} (via {report.negotiated_by})")
    if report.discovery:
        lines.append(f"Discovery: {report.discovery}; fell back to the {HANDSHAKE_VERSION} initialize handshake")
    lines.append(f"Command: {visible(shlex.join(report.command))}")
    where = f"{report.negotiated_by} result"
    lines.append(f"Extension {EXTENSION_ID}: {_declared(report.extension_advertised, where, protocol)}")
    lines.append(f"Extension {CONTINUATION_ID}: {_declared(report.continuation_advertised, where, protocol)}")
    others = [name for name in report.extensions if name not in (EXTENSION_ID, CONTINUATION_ID)]
    if others:
        lines.append(f"Other extensions declared: {', '.join(json.dumps(visible(name)) for name in others)}")
    lines.append("Values are judged as they were on the wire, before any SDK model read them.")
    lines.append("")
    lines.append("No tools." if not report.tools else f"Tools ({len(report.tools)}):")
    for tool in report.tools:
        effective = _effective(tool.effective_mode, tool.effective_source)
        lines.append(f"  {json.dumps(visible(tool.name), ensure_ascii=False)}: {effective}")
        lines.append(f"    _meta carrier: {_carrier_line(tool.meta)}")
        lines.append(f"    annotations:   {_carrier_line(tool.annotations)}")
        for carrier in (tool.meta, tool.annotations):
            lines.extend(f"    ! {carrier.carrier} {problem}" for problem in carrier.problems)
            lines.extend(f"    ? {carrier.carrier} {member}" for member in carrier.unknown)
        if tool.continuation_argument is not None:
            shown_argument = json.dumps(visible(tool.continuation_argument), ensure_ascii=False)
            lines.append(f"    result continuation: pages its results, continued through argument {shown_argument}")
        if tool.missing_meta_carrier:
            lines.append("    ! hints without the _meta carrier, the normative one")
    for title, entries in (
        ("Resources", report.resources),
        ("Resource templates", report.resource_templates),
        ("Prompts", report.prompts),
    ):
        shown = ", ".join(json.dumps(visible(entry), ensure_ascii=False) for entry in entries[:10])
        more = f", and {len(entries) - 10} more" if len(entries) > 10 else ""
        lines.append(f"{title} ({len(entries)}): {shown}{more}" if entries else f"{title}: none")
    if report.call is not None:
        call = report.call
        lines.append("")
        lines.append(
            f"Sample call: {json.dumps(visible(call.tool))} {visible(json.dumps(call.arguments, ensure_ascii=False))}"
        )
        if call.is_error:
            lines.append("  the tool reported an error (isError: true)")
        for carrier in (call.meta, call.core, call.structured_copy):
            label = {"_meta": f"result._meta[{EXTENSION_ID!r}]", "_rendering": "result._rendering"}.get(
                carrier.carrier, "structuredContent._rendering (model-facing copy, never a directive)"
            )
            lines.append(f"  {label}: {_carrier_line(carrier)}")
            lines.extend(f"    ! {problem}" for problem in carrier.problems)
            lines.extend(f"    ? {member}" for member in carrier.unknown)
        lines.append(f"  effective mode {_effective(call.effective_mode, call.effective_source)}")
        if not call.complete:
            argument = call.continuation_argument
            how = f"continue with argument {argument!r}" if argument else "no continuation offered"
            lines.append(f"  the result is incomplete (a bounded page); {how}")
        if call.missing_meta_carrier:
            lines.append("  ! a directive without the _meta carrier, the normative one")
        for carrier in call.continuation_without_incomplete:
            lines.append(f"  ! {carrier}: a continuation without complete: false (the result reads as incomplete)")
        lines.extend(f"  ! continuation {problem}" for problem in call.continuation_problems)
    lines.append("")
    lines.append(report.checked)
    lines.append(f"{report.malformed} malformed value(s), {report.unknown} unknown member(s) (ignored).")
    failures = report.strict_failures
    if strict:
        lines.append("Strict check: passes." if not failures else f"Strict check: fails ({'; '.join(failures)}).")
    elif failures:
        lines.append(f"Findings that --strict fails on: {'; '.join(failures)}.")
    return "\n".join(lines)
