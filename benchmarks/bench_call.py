"""What a verbatim result costs on the whole call path, next to a plain server returning the same bytes.

Two servers, each in its own process, build the same result with `verbatim_result` from the same ledger, so that
both return byte-identical `content`, `structuredContent` and `_meta`; they differ only in what the extension adds:

- quickstart: the server quickstart as documented (`RenderingExtension` as extension and middleware, the verbatim
  hint, `-> Annotated[CallToolResult, VerbatimContent]`: an `outputSchema` the SDK checks the result against on
  the server and again on the client), called by an `mcp.Client` that declares the extension;
- plain: an `MCPServer` with no extension, no hint and no output schema, called by a plain `mcp.Client`.

Per call, over stdio and over streamable HTTP, at 54, 1,000 and 10,000 rows: each round alternates calls between
the two servers (25 calls to each at 54 rows, where a call is short and noisy, 5 at 1,000, 3 at 10,000) and yields
the ratio of their median times (target: at most 1.2x). Then 50 concurrent calls over streamable HTTP, from one
client and from ten, as throughput with the extension ÷ without it (target: at least 0.95x; 1,000 rows each, 54
with `--quick`; each round alternates three batches to each server and compares their totals), with each
server process's CPU time per call (read from `/proc`), which other work on the
machine does not inflate as it does wall time. The client collects garbage before every timed call or batch, so
both sides start from the same heap (the heap left after its imports settled by `harness.settle`, which makes each
collection take milliseconds).
Last, where the quickstart's time goes at the largest size, each part timed in this process on the same result,
beside what the client's check would cost with a schema that checked every row.

Run: `python benchmarks/bench_call.py [--rows 54 1000 10000] [--rounds 5] [--json FILE]` (a few minutes).
`--quick` runs each comparison in one round, at the smallest size.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import mcp_types
from harness import Result, collector, from_ratios, header, parser, rounds_of, settle, write
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import MCPServer
from workload import TOOL, directive, ledger

import mcp_rendering
from mcp_rendering import RenderingExtension, VerbatimContent, tool_annotations, verbatim_result
from mcp_rendering.builder import output_schema

BENCHMARK = "call"
Kind = Literal["quickstart", "plain"]
Transport = Literal["stdio", "http"]
CONCURRENT_CALLS = 50
CONCURRENT_ROWS = 1_000
BATCHES_PER_ROUND = 3
"""Batches of concurrent calls to each server per round, alternating: a batch takes about a second, and its time
varies by a tenth or more from one batch of the same server to the next."""
KEEP_ALIVE_SECONDS = 3600
"""How long the HTTP servers keep an idle connection. uvicorn's default, 5 s, is about what one side's batches leave
the other side's connections idle on a loaded machine; a call sent as the server closes its connection then fails
(`ReadError`). Both servers keep theirs open for the whole run."""
BREAKDOWN_REPEAT = 3
"""Runs of each part of the breakdown, the fastest kept: a floor, not a ratio, which more runs barely lower."""


def calls_per_round(rows: int, at_1000: int) -> int:
    """Calls to each server per round: `at_1000` at 1,000 rows, more for smaller results (quick and noisy, up to
    25) and fewer for larger ones (at least 3, for a median), so that a round takes about as long at every size."""
    return max(3, min(25, at_1000 * 1_000 // max(rows, 1)))


def build_server(kind: Kind, rows: int) -> MCPServer:
    """The quickstart or the plain server, answering `ledger` with the same result of `rows` rows."""
    if kind == "quickstart":
        rendering = RenderingExtension()
        server = MCPServer("quickstart", extensions=[rendering], middleware=[rendering])

        @server.tool(name=TOOL, annotations=tool_annotations(read_only_hint=True, verbatim_hint=True))
        def quickstart_tool() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
            return verbatim_result(ledger(rows), directive())

    else:
        server = MCPServer("plain")

        @server.tool(name=TOOL)
        def plain_tool() -> mcp_types.CallToolResult:
            return verbatim_result(ledger(rows), directive())

    return server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _command(kind: Kind, rows: int, transport: Transport, port: int = 0) -> list[str]:
    script = str(Path(__file__).resolve())
    return [sys.executable, script, "--serve", kind, "--transport", transport, "--port", str(port), "--rows", str(rows)]


def server_cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process `pid` has used (Linux `/proc`): unlike wall time, it does not grow
    when other work shares the machine."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def connected(
    kind: Kind, rows: int, transport: Transport, clients: int = 1
) -> AsyncIterator[tuple[list[Client], int | None]]:
    """`clients` clients of a fresh server process of `kind`, the quickstart's declaring the extension, and the
    server's process id over streamable HTTP (None over stdio, where the SDK starts the process)."""
    extensions = [mcp_rendering.client_extension()] if kind == "quickstart" else []
    pid: int | None = None
    async with contextlib.AsyncExitStack() as stack:
        if transport == "stdio":
            command = _command(kind, rows, transport)
            target: Any = StdioServerParameters(command=command[0], args=command[1:])
        else:
            port = _free_port()
            process = subprocess.Popen(
                _command(kind, rows, transport, port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            stack.callback(process.wait)
            stack.callback(process.terminate)
            pid = process.pid
            await _listening(port, process)
            target = f"http://127.0.0.1:{port}/mcp"
        connections = [await stack.enter_async_context(Client(target, extensions=extensions)) for _ in range(clients)]
        for client in connections:
            await client.list_tools()
            await client.call_tool(TOOL, {})  # warm the server and the client
        yield connections, pid


async def _listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server on port {port} exited with status {process.returncode}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise RuntimeError(f"no server listening on port {port} after 60 s")


async def _timed_call(client: Client) -> float:
    with collector("on"):
        begin = time.perf_counter()
        result = await client.call_tool(TOOL, {})
        elapsed = time.perf_counter() - begin
    assert not result.is_error, result
    return elapsed


async def per_call(rows: int, transport: Transport, rounds: int, calls: int) -> Result:
    """Rounds of `calls` calls to each server, alternating; a round's ratio is of its two medians."""
    async with (
        connected("quickstart", rows, transport) as ((quickstart,), _),
        connected("plain", rows, transport) as ((plain,), _),
    ):
        pairs: list[tuple[float, float]] = []
        for _ in range(rounds):
            subject: list[float] = []
            baseline: list[float] = []
            for number in range(calls):
                order = [(quickstart, subject), (plain, baseline)]
                for client, timings in order if number % 2 == 0 else reversed(order):
                    timings.append(await _timed_call(client))
            pairs.append((statistics.median(subject), statistics.median(baseline)))
    return from_ratios(
        BENCHMARK,
        f"call over {transport}",
        rows,
        "quickstart",
        "plain",
        pairs,
        extra={"transport": transport, "calls_per_round": calls},
    )


async def _batch(clients: list[Client]) -> float:
    """Seconds for `CONCURRENT_CALLS` concurrent calls spread evenly over `clients`."""

    async def call(client: Client) -> None:
        result = await client.call_tool(TOOL, {})
        assert not result.is_error, result

    with collector("on"):
        begin = time.perf_counter()
        await asyncio.gather(*(call(clients[n % len(clients)]) for n in range(CONCURRENT_CALLS)))
        return time.perf_counter() - begin


async def concurrent(clients: int, rows: int, rounds: int) -> Result:
    """Throughput of concurrent calls over streamable HTTP from `clients` clients, alternating batches; with the
    servers' CPU time per call, which tells where a difference comes from when the machine is shared."""
    async with (
        connected("quickstart", rows, "http", clients) as (quickstart, quickstart_pid),
        connected("plain", rows, "http", clients) as (plain, plain_pid),
    ):
        assert quickstart_pid is not None and plain_pid is not None
        sides = {"quickstart": (quickstart, quickstart_pid), "plain": (plain, plain_pid)}
        pairs: list[tuple[float, float]] = []
        cpu: dict[str, list[float]] = {"quickstart": [], "plain": []}
        for number in range(rounds):
            seconds = {"quickstart": 0.0, "plain": 0.0}
            order = ("quickstart", "plain") if number % 2 == 0 else ("plain", "quickstart")
            for kind in order * BATCHES_PER_ROUND:
                connections, pid = sides[kind]
                before = server_cpu_seconds(pid)
                seconds[kind] += await _batch(connections)
                cpu[kind].append((server_cpu_seconds(pid) - before) / CONCURRENT_CALLS)
            pairs.append((seconds["quickstart"], seconds["plain"]))
    return from_ratios(
        BENCHMARK,
        f"{CONCURRENT_CALLS} concurrent, {clients} client{'s' if clients > 1 else ''}",
        rows,
        "quickstart",
        "plain",
        pairs,
        throughput=True,
        extra={
            "transport": "http",
            "clients": clients,
            "calls": CONCURRENT_CALLS,
            "batches_per_round": BATCHES_PER_ROUND,
            "server_cpu_per_call": {kind: statistics.median(times) for kind, times in cpu.items()},
        },
    )


def _best(work: Callable[[], object], repeat: int) -> float:
    work()
    timings: list[float] = []
    for _ in range(repeat):
        with collector("on"):
            begin = time.perf_counter()
            work()
            timings.append(time.perf_counter() - begin)
    return min(timings)


def _client_check(schema: dict[str, Any], instance: Any) -> Callable[[], object]:
    from jsonschema.validators import validator_for
    from referencing import Registry

    validator = validator_for(schema)(schema, registry=Registry())

    def run() -> object:
        errors = list(validator.iter_errors(instance))
        assert not errors, errors[0]
        return errors

    return run


def checked_rows_schema() -> dict[str, Any]:
    """`output_schema()` with every member of every section and row checked (a type array per cell): what the
    shallow schema spares the client."""
    schema = copy.deepcopy(output_schema())
    row = {
        "type": "object",
        "required": ["id", "label", "values"],
        "properties": {
            "id": {"type": "string"},
            "label": {"type": "string"},
            "values": {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}},
            "kind": {"enum": ["item", "subtotal", "total"]},
            "level": {"type": "integer", "minimum": 0},
            "uri": {"type": ["string", "null"]},
        },
    }
    schema["properties"]["document"]["properties"]["sections"]["items"] = {
        "type": "object",
        "required": ["id", "title"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "columns": {"type": "array", "items": {"type": "string"}},
            "rows": {"type": "array", "items": row},
        },
    }
    return schema


def breakdown(rows: int, repeat: int) -> list[tuple[str, float]]:
    """Seconds per call of each part of the quickstart's path, on one result of `rows` rows."""
    document = ledger(rows)
    result = verbatim_result(document, directive())
    wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    structured = result.structured_content
    reached = verbatim_result(document, directive()).structured_content
    assert structured is not None and reached is not None
    _ = reached["page"]  # a value read: the check then compares the content's JSON text with the text as built
    payload = json.dumps(wire)
    extension = RenderingExtension()

    async def answer(_: Any) -> Any:
        return copy.copy(wire)

    class Request:  # the one member of the request context the middleware reads
        method = "tools/call"

    async def hundred_calls() -> None:
        for _ in range(100):
            await extension(Request(), answer)  # pyright: ignore[reportArgumentType]

    def middleware() -> float:
        # Called on its own, outside a server: its warning that the extension half is not registered is expected.
        log = logging.getLogger("mcp_rendering")
        level = log.level
        log.setLevel(logging.ERROR)
        try:
            return _best(lambda: asyncio.run(hundred_calls()), repeat) / 100
        finally:
            log.setLevel(level)

    parts = [
        ("build the result (verbatim_result)", _best(lambda: verbatim_result(ledger(rows), directive()), repeat)),
        ("serialize it (model_dump_json)", _best(lambda: result.model_dump_json(by_alias=True), repeat)),
        ("parse it on the client (json.loads)", _best(lambda: json.loads(payload), repeat)),
        ("server check: VerbatimContent", _best(lambda: VerbatimContent.model_validate(structured), repeat)),
        ("the same, content read after building", _best(lambda: VerbatimContent.model_validate(reached), repeat)),
        ("the same check, in full (a copy)", _best(lambda: VerbatimContent.model_validate(dict(structured)), repeat)),
        ("client check: outputSchema", _best(_client_check(output_schema(), wire["structuredContent"]), repeat)),
        (
            "the same, every section's and row's members checked",
            _best(_client_check(checked_rows_schema(), wire["structuredContent"]), 1),
        ),
        ("middleware (tools/call mirror)", middleware()),
    ]
    mcp_rendering.uninstall()
    return parts


def main() -> None:
    options = parser((__doc__ or "").splitlines()[0])
    options.add_argument("--rows", type=int, nargs="+", default=[54, 1_000, 10_000])
    options.add_argument("--calls", type=int, default=5, help="calls to each server per round at 1,000 rows")
    options.add_argument("--serve", choices=["quickstart", "plain"], help="run one server (used by the benchmark)")
    options.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    options.add_argument("--port", type=int, default=0)
    args = options.parse_args()
    if args.serve:
        server = build_server(args.serve, args.rows[0])
        if args.transport == "stdio":
            server.run()
        else:
            import uvicorn  # the SDK's own server for streamable HTTP, run with a longer keep-alive

            app = server.streamable_http_app(host="127.0.0.1")
            level = server.settings.log_level.lower()
            uvicorn.run(app, host="127.0.0.1", port=args.port, log_level=level, timeout_keep_alive=KEEP_ALIVE_SECONDS)
        return
    rounds = rounds_of(args)
    sizes = [min(args.rows)] if args.quick else args.rows
    settle()  # a full collection before each of hundreds of calls: cheap once the imported SDK is settled
    print(f"quickstart ÷ plain server, the same bytes; {rounds} interleaved rounds per ratio")
    print(header())
    results: list[Result] = []
    for transport in ("stdio", "http"):
        for rows in sizes:
            per_round = 1 if args.quick else calls_per_round(rows, args.calls)
            results.append(asyncio.run(per_call(rows, transport, rounds, per_round)))
            print(results[-1].line(), flush=True)
            write(args.json, BENCHMARK, results, quick=args.quick)  # after every comparison: a failure keeps the rest
    for clients in (1, 10):
        results.append(asyncio.run(concurrent(clients, min(sizes) if args.quick else CONCURRENT_ROWS, rounds)))
        print(results[-1].line(), flush=True)
        write(args.json, BENCHMARK, results, quick=args.quick)

    largest = max(sizes)
    print(f"\nWhere the quickstart's time goes at {largest:,} rows (best of {BREAKDOWN_REPEAT}, in this process)")
    parts = breakdown(largest, BREAKDOWN_REPEAT)
    baseline = dict(parts)["parse it on the client (json.loads)"]
    for name, seconds in parts:
        print(f"  {name:<40} {seconds * 1e3:>8.2f} ms  {seconds / baseline:>6.2f}x json.loads")
    breakdown_result = {"rows": largest, "parts": [{"part": name, "seconds": seconds} for name, seconds in parts]}
    write(args.json, BENCHMARK, results, quick=args.quick, breakdown=breakdown_result)


if __name__ == "__main__":
    main()
