"""Serve one of the test or example servers over streamable HTTP on loopback: `python -m tests.support.http_server
MODULE PORT`, where MODULE has a `build_server()` (for example `tests.support.hinted_server`)."""

from __future__ import annotations

import importlib
import sys


def main(argv: list[str]) -> None:
    module_name, port = argv
    server = importlib.import_module(module_name).build_server()
    server.run("streamable-http", host="127.0.0.1", port=int(port))


if __name__ == "__main__":
    main(sys.argv[1:])
