"""Measures what the OpenAI Agents SDK hands the model for one call of the financial tool.

The agent runs with the SDK's own scripted model (`agents.testing.ScriptedModel`): its first turn calls the tool,
its second answers; the input of the second turn holds the `function_call_output` item the SDK built from the
tool's result, which is reported as is. Tracing is off, so nothing leaves the machine. With ``helped``, the server
is `mcp_rendering.integrations.openai_agents.RenderingMCPServerStdio`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from _common import emit, read_request, versions
from agents import Agent, RunConfig, Runner, set_tracing_disabled  # pyright: ignore[reportMissingImports]
from agents.mcp import MCPServerStdio  # pyright: ignore[reportMissingImports]
from agents.testing import ScriptedModel, assistant_message, function_call  # pyright: ignore[reportMissingImports]


def _parts(output: Any) -> list[dict[str, Any]]:
    items = [output] if isinstance(output, (str, dict)) else list(output)
    parts: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            parts.append({"kind": "text", "text": item})
        elif item.get("type") == "input_text":
            parts.append({"kind": "text", "text": item["text"]})
        else:
            parts.append({"kind": "json", "value": item})
    return parts


def _output_of(model_input: Any) -> Any:
    for item in model_input if isinstance(model_input, list) else []:
        entry = item if isinstance(item, dict) else item.model_dump()
        if entry.get("type") == "function_call_output":
            return entry["output"]
    raise RuntimeError("the second model turn received no function_call_output")


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = {"command": job["command"], "args": job["args"]}
    if job.get("cwd"):
        params["cwd"] = job["cwd"]
    options: dict[str, Any] = {
        "use_structured_content": bool(job.get("options", {}).get("use_structured_content")),
        "client_session_timeout_seconds": 60,
    }
    if job["helped"]:
        from mcp_rendering.integrations.openai_agents import RenderingMCPServerStdio

        server: Any = RenderingMCPServerStdio(params=params, name="example-financial", **options)
    else:
        server = MCPServerStdio(params=params, name="example-financial", **options)
    model = ScriptedModel(
        [[function_call(tool_name, {}, call_id="call-1")], [assistant_message("done")]],
    )
    async with server:
        agent = Agent(name="reach", model=model, mcp_servers=[server])
        await Runner.run(agent, "Show the annual accounts.", run_config=RunConfig(tracing_disabled=True))
    output = _output_of(model.calls[1].input)
    return {"payload": output, "parts": _parts(output)}


async def main() -> None:
    set_tracing_disabled(True)
    request = read_request()
    observations = {job["id"]: await _observe(job, request["tool"]) for job in request["jobs"]}
    emit({"versions": versions("openai-agents", "openai", "mcp"), "observations": observations})


if __name__ == "__main__":
    asyncio.run(main())
