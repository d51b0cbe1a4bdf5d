"""What a verbatim result costs on the whole call path, side by side with a plain server, in one run.

Two servers over stdio, each in its own process, return byte-identical `content` and `structuredContent` built by
`verbatim_result` from the same document:

- quickstart: the server quickstart as documented (`RenderingExtension` as extension and middleware, the verbatim
  hint, `-> Annotated[CallToolResult, VerbatimContent]`, so an `outputSchema` that the SDK validates on both
  sides), called by an `mcp.Client` that declares the extension;
- plain: an `MCPServer` with no extension, no hint and no output schema, called by a plain `mcp.Client`.

Prints the median per-call time of each at 54, 1,000 and 10,000 rows and their ratio (target: at most 1.5), the
same for a `tools/list` of 500 tools with and without the extension, then where the quickstart's time goes, each
part timed in this process on the same result: building and serializing the result, the server's
`VerbatimContent` check, the client's `outputSchema` check, and the middleware. A last table compares candidate
output schemas on the client's check, against a JSON round trip of the same structured content.

Run: `python benchmarks/bench_call.py [--rows 54 1000 10000] [--calls 15] [--seconds 3]` (under a minute). Not
part of the test suite: the figures are ratios measured in one run, since absolute times depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import MCPServer

import mcp_rendering
from mcp_rendering import Rendering, RenderingExtension, VerbatimContent, tool_annotations, verbatim_result
from mcp_rendering.builder import PageState, output_schema
from mcp_rendering.document import Document, Row, Section

TOOL = "ledger"
GUIDANCE = "Keep the order of accounts and every subtotal."


def ledger(rows: int) -> Document:
    """A general ledger of `rows` rows: sections of 500, a subtotal every 25 rows, nulls, indent levels."""
    sections: list[Section] = []
    for start in range(0, rows, 500):
        body = tuple(
            Row(
                id=f"r{n}",
                label=f"{600000 + n} Account {n % 97}",
                values=(n * 3, round(n * 1.25, 2), None if n % 7 == 0 else "EUR", n % 2 == 0),
                kind="subtotal" if n % 25 == 24 else "item",
                level=n % 3,
            )
            for n in range(start, min(rows, start + 500))
        )
        sections.append(
            Section(
                id=f"s{start}", title=f"Part {start // 500 + 1}", columns=("debit", "credit", "ccy", "ok"), rows=body
            )
        )
    return Document(title="General ledger FY2025", sections=tuple(sections))


def serve(kind: str, rows: int) -> None:
    """Run one of the servers over stdio (the benchmark starts itself with `--serve`); `rows` is the number of
    rows of the result, or of tools for the tool-listing servers."""
    if kind.startswith("tools-"):
        serve_tools(kind == "tools-quickstart", rows)
        return
    if kind == "quickstart":
        rendering = RenderingExtension()
        server = MCPServer("quickstart", extensions=[rendering], middleware=[rendering])

        @server.tool(name=TOOL, annotations=tool_annotations(read_only_hint=True, verbatim_hint=True))
        def quickstart_tool() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
            return verbatim_result(ledger(rows), Rendering(mode="verbatim", guidance=GUIDANCE))

    else:
        server = MCPServer("plain")

        @server.tool(name=TOOL)
        def plain_tool() -> mcp_types.CallToolResult:
            return verbatim_result(ledger(rows), Rendering(mode="verbatim", guidance=GUIDANCE))

    server.run()


def _parameters(kind: str, rows: int) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=[str(Path(__file__).resolve()), "--serve", kind, "--rows", str(rows)]
    )


def serve_tools(extension: bool, count: int) -> None:
    """A server of `count` tools, every other one verbatim; with the extension, hints in annotations and `_meta`."""
    rendering = RenderingExtension() if extension else None
    server = MCPServer(
        "tools", extensions=[rendering] if rendering else [], middleware=[rendering] if rendering else []
    )
    for number in range(count):

        def report(period: str, account: str | None = None) -> str:
            return period

        annotations = (
            tool_annotations(read_only_hint=True, verbatim_hint=number % 2 == 0)
            if rendering
            else mcp_types.ToolAnnotations(read_only_hint=True)
        )
        server.add_tool(report, name=f"report_{number}", description=f"Report {number}.", annotations=annotations)
    server.run()


async def median_listing(tools: int, calls: int, seconds: float) -> tuple[float, float]:
    """Median seconds per `tools/list` of `tools` tools, with the extension (client and server) and without."""
    async with (
        Client(_parameters("tools-quickstart", tools), extensions=[mcp_rendering.client_extension()]) as hinted,
        Client(_parameters("tools-plain", tools)) as plain,
    ):
        samples: list[tuple[Client, list[float]]] = [(hinted, []), (plain, [])]
        for client, _ in samples:
            assert len((await client.list_tools()).tools) == tools
        deadline = time.perf_counter() + seconds
        while len(samples[0][1]) < calls or time.perf_counter() < deadline:
            for client, timings in samples:
                begin = time.perf_counter()
                await client.list_tools()
                timings.append(time.perf_counter() - begin)
    return statistics.median(samples[0][1]), statistics.median(samples[1][1])


async def median_calls(rows: int, calls: int, seconds: float) -> tuple[float, float]:
    """Median seconds per call of the quickstart and the plain server, calls alternating between the two so that
    both see the same machine; at least `calls` each, and more until `seconds` have passed."""
    async with (
        Client(_parameters("quickstart", rows), extensions=[mcp_rendering.client_extension()]) as quickstart,
        Client(_parameters("plain", rows)) as plain,
    ):
        samples: list[tuple[Client, list[float]]] = [(quickstart, []), (plain, [])]
        for client, _ in samples:
            await client.list_tools()
            await client.call_tool(TOOL, {})  # warm both processes
        deadline = time.perf_counter() + seconds
        while len(samples[0][1]) < calls or time.perf_counter() < deadline:
            for client, timings in samples:
                begin = time.perf_counter()
                result = await client.call_tool(TOOL, {})
                timings.append(time.perf_counter() - begin)
                assert not result.is_error
    return statistics.median(samples[0][1]), statistics.median(samples[1][1])


def _best(work: Callable[[], object], repeat: int = 5) -> float:
    work()
    timings: list[float] = []
    for _ in range(repeat):
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


def per_cell_schema() -> dict[str, Any]:
    """The schema pydantic derives from the envelope's models: an `anyOf` for every cell and nullable member."""
    from pydantic import BaseModel, Field

    class Derived(BaseModel):
        document: Document
        page: PageState
        rendering: Rendering | None = Field(default=None, alias="_rendering")

    schema = Derived.model_json_schema(by_alias=True)
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            reference = node.get("$ref")
            if isinstance(reference, str):
                return inline(definitions[reference.rsplit("/", 1)[1]])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(item) for item in node]
        return node

    return inline(schema)


def candidate_schemas() -> dict[str, dict[str, Any]]:
    """The declared schema next to the options measured against it."""
    declared = output_schema()
    rows = declared["properties"]["document"]["properties"]["sections"]["items"]["properties"]["rows"]
    cell = {"type": ["string", "number", "boolean", "null"]}
    row_properties = {
        "id": {"type": "string", "minLength": 1},
        "label": {"type": "string"},
        "values": {"type": "array", "items": cell},
        "kind": {"enum": ["item", "subtotal", "total"]},
        "level": {"type": "integer", "minimum": 0},
        "uri": {"type": ["string", "null"]},
    }
    type_arrays = copy.deepcopy(declared)
    type_arrays["properties"]["document"]["properties"]["sections"]["items"]["properties"]["rows"] = {
        **rows,
        "items": {"type": "object", "required": ["id", "label"], "properties": row_properties},
    }
    no_cells = copy.deepcopy(type_arrays)
    no_cells_rows = no_cells["properties"]["document"]["properties"]["sections"]["items"]["properties"]["rows"]
    no_cells_rows["items"]["properties"]["values"] = {"type": "array"}
    checked_rows = copy.deepcopy(declared)
    checked_rows["properties"]["document"]["properties"]["sections"]["items"]["properties"]["rows"] = {
        **rows,
        "items": {"type": "object", "required": ["id", "label"]},
    }
    return {
        "per-cell anyOf (derived from the models)": per_cell_schema(),
        "type arrays, every row member": type_arrays,
        "type arrays, cells unchecked": no_cells,
        "rows: objects with an id and a label": checked_rows,
        "declared (row members described, not checked)": declared,
    }


def breakdown(rows: int) -> list[tuple[str, float]]:
    """Seconds per call of each part of the quickstart's path, on one result of `rows` rows."""
    document = ledger(rows)
    directive = Rendering(mode="verbatim", guidance=GUIDANCE)
    result = verbatim_result(document, directive)
    wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    structured = wire["structuredContent"]
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
            return _best(lambda: asyncio.run(hundred_calls())) / 100
        finally:
            log.setLevel(level)

    parts = [
        ("build the result (verbatim_result)", _best(lambda: verbatim_result(ledger(rows), directive))),
        ("serialize it (model_dump_json)", _best(lambda: result.model_dump_json(by_alias=True, exclude_none=True))),
        ("parse it on the client (json.loads)", _best(lambda: json.loads(payload))),
        ("server check: VerbatimContent", _best(lambda: VerbatimContent.model_validate(structured))),
        ("client check: outputSchema", _best(_client_check(output_schema(), structured))),
        ("middleware (tools/call mirror)", middleware()),
    ]
    mcp_rendering.uninstall()
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[54, 1000, 10000])
    parser.add_argument("--calls", type=int, default=15, help="at least this many calls per server and size")
    parser.add_argument("--seconds", type=float, default=3.0, help="and keep calling for this long")
    parser.add_argument("--tools", type=int, default=500, help="tools in the tools/list comparison")
    parser.add_argument(
        "--serve", choices=["quickstart", "plain", "tools-quickstart", "tools-plain"], help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.rows[0])
        return 0

    print("Per call over stdio (median; calls alternate between the servers; same content and structuredContent)")
    print(f"{'rows':>8}  {'quickstart':>12}  {'plain':>12}  {'ratio':>6}")
    for rows in args.rows:
        quickstart, plain = asyncio.run(median_calls(rows, args.calls, args.seconds))
        print(f"{rows:>8}  {quickstart * 1e3:>9.2f} ms  {plain * 1e3:>9.2f} ms  {quickstart / plain:>5.2f}x")

    hinted, plain = asyncio.run(median_listing(args.tools, args.calls, args.seconds))
    print(f"\ntools/list of {args.tools} tools over stdio (median): with the extension {hinted * 1e3:.2f} ms,")
    print(f"  without {plain * 1e3:.2f} ms, ratio {hinted / plain:.2f}x")

    largest = max(args.rows)
    print(f"\nWhere the time goes, at {largest} rows (best of 5, in this process)")
    parts = breakdown(largest)
    baseline = dict(parts)["parse it on the client (json.loads)"]
    for name, seconds in parts:
        print(f"  {name:<40} {seconds * 1e3:>8.2f} ms  {seconds / baseline:>6.2f}x json.loads")

    structured = verbatim_result(ledger(largest), Rendering(mode="verbatim")).structured_content
    round_trip = _best(lambda: json.loads(json.dumps(structured)))
    print(f"\nClient outputSchema check at {largest} rows, against a JSON round trip of structuredContent")
    for name, schema in candidate_schemas().items():
        seconds = _best(_client_check(schema, structured), repeat=3)
        print(f"  {name:<48} {seconds * 1e3:>8.1f} ms  {seconds / round_trip:>6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
