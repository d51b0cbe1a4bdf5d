"""Measures the user's final answer from the OpenAI Agents SDK's own agent loop (`Runner.run`).

The SDK's scripted model (`agents.testing.ScriptedModel`) calls the job's tools (`_common.script`: by default the
financial tool), then writes the three-line summary the job gives (a stand-in for a model that summarizes). The
final answer is the run's `final_output`; the outputs, what the application reads of each tool call (with the
adapter, the host's view in the item's custom data). Tracing is off. With ``helped``, the server is
`RenderingMCPServerStdio` and the agent's `tool_use_behavior` is `verbatim_final_output`, both from
`mcp_rendering.integrations.openai_agents`.
"""

from __future__ import annotations

from typing import Any

from _common import run, script, server_name
from agents import Agent, RunConfig, Runner, set_tracing_disabled  # pyright: ignore[reportMissingImports]
from agents.mcp import MCPServerStdio  # pyright: ignore[reportMissingImports]
from agents.testing import ScriptedModel, assistant_message, function_call  # pyright: ignore[reportMissingImports]

from mcp_rendering.integrations.openai_agents import rendered_output


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params: dict[str, Any] = {"command": job["command"], "args": job["args"], "cwd": job.get("cwd")}
    turns: list[list[Any]] = [
        [function_call(call["name"], call["args"], call_id=f"call-{turn}-{index}") for index, call in enumerate(calls)]
        for turn, calls in enumerate(script(job, tool_name))
    ]
    model = ScriptedModel([*turns, [assistant_message(job["options"]["summary"])]])
    structured = bool(job["options"].get("use_structured_content"))
    options: dict[str, Any] = {}
    if job["helped"]:
        from mcp_rendering.integrations.openai_agents import RenderingMCPServerStdio, verbatim_final_output

        server: Any = RenderingMCPServerStdio(
            params=params, name=server_name(job), use_structured_content=structured, client_session_timeout_seconds=60
        )
        options["tool_use_behavior"] = verbatim_final_output
    else:
        server = MCPServerStdio(
            params=params, name=server_name(job), use_structured_content=structured, client_session_timeout_seconds=60
        )
    async with server:
        agent = Agent(name="reach", model=model, mcp_servers=[server], **options)
        result = await Runner.run(agent, "Show the annual accounts.", run_config=RunConfig(tracing_disabled=True))
    outputs: list[str] = []
    for item in result.new_items:
        if getattr(item, "type", None) == "tool_call_output_item":
            answer = (rendered_output(item) or {}).get("answer") if job["helped"] else None
            outputs.append(answer["text"] if isinstance(answer, dict) else str(item.output))
    return {"final": str(result.final_output), "outputs": outputs}


if __name__ == "__main__":
    set_tracing_disabled(True)
    run(_observe, "openai-agents", "mcp")
