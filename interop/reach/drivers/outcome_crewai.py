"""Measures the user's final answer from CrewAI's own crew (one agent, one task).

A scripted model (a `BaseLLM` that calls no service) calls the financial tool through native function calling, then
writes the three-line summary the job gives (a stand-in for a model that summarizes). The final answer is the
crew's output (`CrewOutput.raw`), where CrewAI applications read it. Without ``helped``, the tools come from
crewai-tools' `MCPServerAdapter`; with it, from mcpadapt's `MCPAdapt` with
`mcp_rendering.integrations.crewai.DirectAnswerToolAdapter`.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")  # no network at run time
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from _common import run
from crewai import Agent, Crew, Task  # pyright: ignore[reportMissingImports]
from crewai.llms.base_llm import BaseLLM  # pyright: ignore[reportMissingImports]
from crewai_tools import MCPServerAdapter  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters
from mcpadapt.core import MCPAdapt  # pyright: ignore[reportMissingImports]


class ScriptedModel(BaseLLM):  # pyright: ignore[reportUntypedBaseClass]
    """Calls `tool` once; once it has read a tool result, writes `summary`."""

    tool: str
    summary: str

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        del tools, args, kwargs
        listed = messages if isinstance(messages, list) else [{"role": "user", "content": messages}]
        if any(message.get("role") == "tool" for message in listed):
            return self.summary
        return [{"id": "call-1", "type": "function", "function": {"name": self.tool, "arguments": "{}"}}]

    def supports_function_calling(self) -> bool:
        return True


async def _crew(tools: list[Any], model: ScriptedModel) -> str:
    agent = Agent(role="analyst", goal="Answer the question.", backstory="An analyst.", tools=tools, llm=model)
    task = Task(description="Show the annual accounts.", expected_output="The accounts.", agent=agent)
    return str((await Crew(agents=[agent], tasks=[task]).kickoff_async()).raw)


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    model = ScriptedModel(model="scripted", tool=tool_name, summary=job["options"]["summary"])
    if job["helped"]:
        from mcp_rendering.integrations.crewai import DirectAnswerToolAdapter

        with MCPAdapt(params, DirectAnswerToolAdapter(server="example-financial")) as tools:
            return {"final": await _crew(list(tools), model)}
    with MCPServerAdapter(params) as tools:
        return {"final": await _crew(list(tools), model)}


if __name__ == "__main__":
    run(_observe, "crewai", "crewai-tools", "mcpadapt", "mcp")
