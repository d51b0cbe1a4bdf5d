"""Measures what CrewAI (crewai-tools' `MCPServerAdapter`) hands the model for one call of the financial tool.

No model is involved: the tool that `MCPServerAdapter` made is run as an agent runs it, and its result is reported:
the string CrewAI puts in the tool message (a single block's text, or a Python list repr of the text blocks).
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")  # no network at run time
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from _common import failure, run, text_parts
from crewai_tools import MCPServerAdapter  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    with MCPServerAdapter(params) as tools:
        tool = next(tool for tool in tools if tool.name == tool_name)
        try:
            output = tool.run()
        except Exception as error:  # the agent hands the model the error's text instead
            return failure(error)
    return {"payload": output, "parts": text_parts(output)}


if __name__ == "__main__":
    run(_observe, "crewai", "crewai-tools", "mcpadapt", "mcp")
