"""Tests of the framework adapters, each run inside its framework's own environment.

`scripts/test-integrations.sh` creates the environments (`python -m interop.reach --setup`) and runs each file
there. A file whose framework is not importable is not collected, so the project's own suite skips this folder.
Nothing here may import the MCP SDK 2.x or the project's development tools: the LangChain environment has neither.

The example servers run on the project's environment (the SDK 2.x); `MCP_RENDERING_SERVER_PYTHON` names its
interpreter, by default `.venv/bin/python` at the repository root. They start through a fork server
(`fork_server.py`): a process on that interpreter that has imported the MCP SDK once and forks each server from there,
which saves most of the CPU of a start. What still differs from a start (`fork_server.py` says exactly): the servers of
a session share one str hash seed, drawn at random per session; their parent process is the fork server; the SDK is
imported before they run. `MCP_RENDERING_FORK_SERVERS=0` starts each server on the interpreter itself, as a user would.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_rendering.audit import audit
from tests.integrations import fork_server as fork_server_module
from tests.support.reference_calls import REFERENCE_CALLS

ROOT = Path(__file__).resolve().parents[2]
_FRAMEWORKS = {
    "test_langchain.py": "langchain_mcp_adapters",
    "test_openai_agents.py": "agents",
    "test_google_adk.py": "google.adk",
    "test_agno.py": "agno",
    "test_strands.py": "strands",
    "test_llama_index.py": "llama_index.tools.mcp",
    "test_crewai.py": "crewai_tools",
    "test_semantic_kernel.py": "semantic_kernel",
    "test_haystack.py": "haystack_integrations.tools.mcp",
    "test_pydantic_ai.py": "pydantic_ai",
    "test_autogen.py": "autogen_agentchat",
}


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is absent
        return False


collect_ignore = [name for name, module in _FRAMEWORKS.items() if not _importable(module)]


def _interpreter() -> str:
    return os.environ.get("MCP_RENDERING_SERVER_PYTHON") or str(ROOT / ".venv" / "bin" / "python")


_launcher: str | None = None  # the fork server's launcher, while the session has one


def server_python() -> str:
    """What runs the example servers as their interpreter: the fork server's launcher, or the interpreter itself."""
    return _launcher or _interpreter()


@pytest.fixture(scope="session", autouse=True)
def fork_server() -> Iterator[None]:
    """The example servers start through a fork server for the session, which saves start-up cost (the launcher runs
    the interpreter itself for anything a fork could not start exactly as it would; the module docstring of
    `fork_server.py` says what still differs)."""
    global _launcher
    if not Path(_interpreter()).is_file():
        yield  # example_python says what is missing
        return
    with fork_server_module.running(_interpreter()) as launcher:
        _launcher = launcher
        try:
            yield
        finally:
            _launcher = None


@pytest.fixture(scope="session")
def example_python() -> str:
    python = server_python()
    if not Path(python).is_file():
        pytest.fail(f"no interpreter for the example servers at {python}: set MCP_RENDERING_SERVER_PYTHON")
    return python


_REFERENCE_PROBE = """\
import anyio, sys
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
async def main():
    params = StdioServerParameters(command=sys.executable, args=['-m', sys.argv[1]])
    async with Client(stdio_client(params)) as client:
        result = await client.call_tool(sys.argv[2], {})
    print(result.model_dump_json(by_alias=True, exclude_none=True))
anyio.run(main)
"""
_references: dict[tuple[str, str], str] = {}  # each call's wire JSON


def reference_result(module: str, tool: str) -> dict[str, Any]:
    """The result of calling `tool` of the server `module` without arguments, as the server sends it: read with the
    SDK's own client, on the project's interpreter, from a real start of the server (not a forked one). Each call of
    `REFERENCE_CALLS` is made once per session (the premise is checked there); each caller gets its own copy."""
    if (module, tool) not in REFERENCE_CALLS:
        raise ValueError(
            f"{module} {tool} is not in tests/support/reference_calls.py: add it there, where it is checked"
        )
    if (module, tool) not in _references:
        done = subprocess.run(
            [_interpreter(), "-c", _REFERENCE_PROBE, module, tool], capture_output=True, text=True, check=True, cwd=ROOT
        )
        _references[module, tool] = done.stdout
    return json.loads(_references[module, tool])


def page_examples(page: str) -> list[str]:
    """The Python blocks of a docs page, as written."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def run_example(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run a page's example as a reader would, in this environment, with `SERVER_PYTHON` as the page says."""
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "SERVER_PYTHON": server_python()}
    return subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def records_in_text(texts: list[str], result: dict[str, Any]) -> int:
    """How many records of `result` (the server's result, wire JSON) the text blocks after the framing hold
    intact and in order, as the audit reads them: what the model reads where its framework forwards text blocks."""
    return audit("\n\n".join(texts[1:]), result, markup="text").rows_intact
