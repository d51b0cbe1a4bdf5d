"""Run a stdio server and copy every byte it writes to stdout into a log file: `python -m tests.support.wire_tee
LOG -- command...`. The client talks to this process exactly as it would to the server, so the log holds the real
wire bytes of the server's side of the connection."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import IO


def _pump(source: IO[bytes], sink: IO[bytes], log: IO[bytes] | None) -> None:
    # os.read returns what is available now, so every message is forwarded as soon as it is written.
    while chunk := os.read(source.fileno(), 65536):
        sink.write(chunk)
        sink.flush()
        if log is not None:
            log.write(chunk)
            log.flush()
    sink.close()


def main(argv: list[str]) -> int:
    log_path, separator, *command = argv
    if separator != "--" or not command:
        raise SystemExit("usage: wire_tee LOG -- command...")
    with open(log_path, "ab") as log:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert child.stdin is not None and child.stdout is not None
        upstream = threading.Thread(target=_pump, args=(sys.stdin.buffer, child.stdin, None), daemon=True)
        upstream.start()
        _pump(child.stdout, sys.stdout.buffer, log)
        return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
