"""What every driver shares: the job list it reads on stdin and the report it prints on stdout.

A driver runs inside one framework's own virtual environment, where neither `interop` nor the main environment's
packages are importable; it reads one JSON object on stdin::

    {"tool": "financial_statements", "jobs": [{"id": ..., "command": ..., "args": [...], "helped": false,
     "options": {...}}]}

and prints one JSON line, ``{"versions": {...}, "observations": {job id: observation}}``, where an observation
holds ``payload``, exactly what the framework hands the model for the tool call, and ``parts``, the same payload
as a list of typed parts (text, json, file, uri) for the analysis.
"""

from __future__ import annotations

import json
import sys
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
