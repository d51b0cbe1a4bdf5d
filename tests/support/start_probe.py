"""A server whose one tool, `start`, reports how its process was started: argv, environment, working directory,
sys.path, its module's name and file, and whether the MCP SDK was imported before this module began (true only in a
process forked from the adapter suites' fork server). ``python -m tests.support.start_probe`` or
``python tests/support/start_probe.py``; for the fork server's tests.
"""

import sys

_SDK_IMPORTED_BEFORE = "mcp" in sys.modules  # before this module imports anything of its own

import json  # noqa: E402 - after the check above
import os  # noqa: E402
import random  # noqa: E402

from mcp.server.mcpserver import MCPServer  # noqa: E402

START = {
    "sdk_imported_before": _SDK_IMPORTED_BEFORE,
    "argv": sys.argv,
    "environment": dict(os.environ),
    "cwd": os.getcwd(),
    "path": list(sys.path),
    "name": __name__,
    "file": __file__,
    "pid": os.getpid(),
    "random": random.random(),
}

server = MCPServer("start-probe", log_level="WARNING")


@server.tool(description="How this server's process was started.")
def start() -> str:
    return json.dumps(START)


if __name__ == "__main__":
    server.run("stdio")
