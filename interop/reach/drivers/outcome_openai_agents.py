"""Measures the user's final answer from the OpenAI Agents SDK's own agent loop (`Runner.run`).

The SDK's scripted model (`agents.testing.ScriptedModel`) calls the financial tool, then writes the three-line
summary the job gives (a stand-in for a model that summarizes). The final answer is the run's `final_output`.
Tracing is off. With ``helped``, the server is `RenderingMCPServerStdio` and the agent's `tool_use_behavior` is
`verbatim_final_output`, both from `mcp_rendering.integrations.openai_agents`.
"""

from __future__ import annotations

from typing import Any

from _common import run
from agents import Agent, RunConfig, Runner, set_tracing_disabled  # pyright: ignore[reportMissingImports]
from agents.mcp import MCPServerStdio  # pyright: ignore[reportMissingImports]
from agents.testing import ScriptedModel, assistant_message, function_call  # pyright: ignore[reportMissingImports]


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params: dict[str, Any] = {"command": job["command"], "args": job["args"], "cwd": job.get("cwd")}
    model = ScriptedModel(
        [[function_call(tool_name, {}, call_id="call-1")], [assistant_message(job["options"]["summary"])]]
    )
    structured = bool(job["options"].get("use_structured_content"))
    options: dict[str, Any] = {}
    if job["helped"]:
        from mcp_rendering.integrations.openai_agents import RenderingMCPServerStdio, verbatim_final_output

        server: Any = RenderingMCPServerStdio(
            params=params, name="example-financial", use_structured_content=structured
        )
        options["tool_use_behavior"] = verbatim_final_output
    else:
        server = MCPServerStdio(params=params, name="example-financial", use_structured_content=structured)
    async with server:
        agent = Agent(name="reach", model=model, mcp_servers=[server], **options)
        result = await Runner.run(agent, "Show the annual accounts.", run_config=RunConfig(tracing_disabled=True))
    return {"final": str(result.final_output)}


if __name__ == "__main__":
    set_tracing_disabled(True)
    run(_observe, "openai-agents", "mcp")
