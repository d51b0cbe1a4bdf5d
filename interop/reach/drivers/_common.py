"""What every driver shares: the job list it reads on stdin and the report it prints on stdout.

A driver runs inside one framework's own virtual environment, where neither `interop` nor the main environment's
packages are importable; it reads one JSON object on stdin::

    {"tool": "financial_statements", "jobs": [{"id": ..., "command": ..., "args": [...], "helped": false,
     "options": {...}}]}

(an outcome driver's options also hold ``summary``, and may hold ``script`` and ``server_name``: see `script`),
and prints one JSON line, ``{"versions": {...}, "observations": {job id: observation}}``, where an observation
holds ``payload``, exactly what the framework hands the model for the tool call, and ``parts``, the same payload
as a list of typed parts (text, json, file, uri) for the analysis.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from importlib import metadata
from typing import Any


def read_request() -> dict[str, Any]:
    return json.loads(sys.stdin.read())


def versions(*distributions: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in distributions:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


def emit(report: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(report, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def text_parts(payload: Any) -> list[dict[str, Any]]:
    """A payload that is one string (what most frameworks hand the model for a tool call) as its single part."""
    return [{"kind": "text", "text": payload if isinstance(payload, str) else str(payload)}]


def script(job: dict[str, Any], tool: str) -> list[list[dict[str, Any]]]:
    """The tool calls of each turn of an outcome job's scripted model (``{"name", "args"}`` each), before it writes
    ``options["summary"]``: the job's ``options["script"]``, by default one turn calling `tool` without arguments."""
    return job["options"].get("script") or [[{"name": tool, "args": {}}]]


def server_name(job: dict[str, Any]) -> str:
    """The server name an outcome job's adapter shows in its caption."""
    return job["options"].get("server_name") or "example-financial"


def failure(error: BaseException) -> dict[str, Any]:
    """The observation of a call the framework failed: its agent loop hands the model this message instead."""
    message = f"{type(error).__name__}: {error}"
    return {"payload": message, "parts": [{"kind": "error", "text": message}]}


def run(observe: Callable[[dict[str, Any], str], Awaitable[dict[str, Any]]], *distributions: str) -> None:
    """Observe every job of the request in turn and print the report."""
    request = read_request()

    async def every_job() -> dict[str, Any]:
        return {job["id"]: await observe(job, request["tool"]) for job in request["jobs"]}

    emit({"versions": versions(*distributions), "observations": asyncio.run(every_job())})
