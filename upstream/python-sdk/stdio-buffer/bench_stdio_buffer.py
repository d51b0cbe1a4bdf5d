"""What the SDK's stdio client pays to receive one long message, with and without the buffer patch.

A stand-in server answers each request line on its stdin with one JSON-RPC response of the given size on its
stdout; a client process built on the SDK's `stdio_client` sends a request and times until the response arrives
parsed. Each round runs one client on the unpatched SDK source and one on the patched source (same interpreter,
same dependencies, the order alternating) and yields the ratio of their median times; the benchmark prints the
median and range of the ratios of every round (the patched time ÷ the unpatched one: below 1 is a gain).

Run (check.sh does): `python bench_stdio_buffer.py --unpatched DIR/src --patched DIR/src [--mb 1 4 16]
[--rounds 5] [--json FILE]`; `--quick` runs one round at 1 MB.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))  # the benchmarks' shared harness

from harness import Result, from_ratios, header, parser, rounds_of, write

BENCHMARK = "stdio-buffer"
MESSAGES_PER_CLIENT = 3


def emit() -> None:
    """The stand-in server: one response of `size` bytes per request line, until stdin closes."""
    for line in sys.stdin:
        request = json.loads(line)
        size = int(request["params"]["bytes"])
        head = '{"jsonrpc":"2.0","id":' + json.dumps(request["id"]) + ',"result":{"text":"'
        body = "x" * max(0, size - len(head) - 3)
        sys.stdout.write(head + body + '"}}\n')
        sys.stdout.flush()


async def _client(size: int) -> list[float]:
    from mcp_types import JSONRPCRequest, JSONRPCResponse

    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.shared.message import SessionMessage

    parameters = StdioServerParameters(command=sys.executable, args=[__file__, "--emit"])
    timings: list[float] = []
    async with stdio_client(parameters) as (read_stream, write_stream):
        for number in range(MESSAGES_PER_CLIENT + 1):  # the first one warms up
            request = JSONRPCRequest(jsonrpc="2.0", id=number, method="echo", params={"bytes": size})
            begin = time.perf_counter()
            await write_stream.send(SessionMessage(request))
            received = await read_stream.receive()
            elapsed = time.perf_counter() - begin
            assert isinstance(received, SessionMessage) and isinstance(received.message, JSONRPCResponse), received
            assert len(received.message.result["text"]) > size // 2
            if number:
                timings.append(elapsed)
    return timings


def client(size: int) -> None:
    import anyio

    print(json.dumps(statistics.median(anyio.run(_client, size))))


def _median_seconds(source: str, size: int) -> float:
    environment = {**os.environ, "PYTHONPATH": source}
    child = subprocess.run(
        [sys.executable, __file__, "--client", str(size)], env=environment, capture_output=True, text=True, check=False
    )
    if child.returncode != 0:
        sys.stderr.write(child.stderr)
        raise SystemExit(f"the client on {source} failed with status {child.returncode}")
    return float(json.loads(child.stdout.strip().splitlines()[-1]))


def main() -> None:
    options = parser((__doc__ or "").splitlines()[0])
    options.add_argument("--unpatched", help="the unpatched SDK's src folder")
    options.add_argument("--patched", help="the patched SDK's src folder")
    options.add_argument("--mb", type=float, nargs="+", default=[1, 4, 16], help="message sizes, in MB")
    options.add_argument("--emit", action="store_true", help="run the stand-in server")
    options.add_argument("--client", type=int, help="run one client, receiving messages of this many bytes")
    args = options.parse_args()
    if args.emit:
        emit()
        return
    if args.client is not None:
        client(args.client)
        return
    if not (args.unpatched and args.patched):
        raise SystemExit("--unpatched and --patched name the two SDK source folders")
    rounds = rounds_of(args)
    sizes = [1.0] if args.quick else args.mb
    print(f"stdio_client, one message received: patched ÷ unpatched SDK; {rounds} interleaved rounds per ratio")
    print(header("bytes"))
    results: list[Result] = []
    for megabytes in sizes:
        size = int(megabytes * 1_000_000)
        pairs: list[tuple[float, float]] = []
        for number in range(rounds):
            if number % 2 == 0:
                unpatched = _median_seconds(args.unpatched, size)
                patched = _median_seconds(args.patched, size)
            else:
                patched = _median_seconds(args.patched, size)
                unpatched = _median_seconds(args.unpatched, size)
            pairs.append((patched, unpatched))
        result = from_ratios(
            BENCHMARK,
            "stdio_client: one long message",
            size,
            "patched",
            "unpatched",
            pairs,
            extra={"unit": "byte", "bytes": size, "messages_per_client": MESSAGES_PER_CLIENT},
        )
        results.append(result)
        print(result.line(), flush=True)
    write(args.json, BENCHMARK, results, quick=args.quick)


if __name__ == "__main__":
    main()
