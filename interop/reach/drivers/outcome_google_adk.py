"""Measures the user's final answer from the Agent Development Kit's own agent loop (`InMemoryRunner`).

A scripted model (a `BaseLlm` that calls no service) calls the job's tools of an `McpToolset` (`_common.script`: by
default the financial tool), then writes the three-line summary the job gives (a stand-in for a model that
summarizes). The final answer is the text of the last final-response event of the run, where ADK applications
read it; the outputs, each function response (with the adapter, a verbatim one is the host's view, ``answer``).
With ``helped``, the agent takes the callbacks of `mcp_rendering.integrations.google_adk.direct_answers`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from _common import run, script, server_name
from google.adk.agents import LlmAgent  # pyright: ignore[reportMissingImports]
from google.adk.models import BaseLlm, LlmRequest, LlmResponse  # pyright: ignore[reportMissingImports]
from google.adk.runners import InMemoryRunner  # pyright: ignore[reportMissingImports]
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams  # pyright: ignore[reportMissingImports]
from google.genai import types  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]


class ScriptedModel(BaseLlm):  # pyright: ignore[reportUntypedBaseClass]
    """Makes the calls of each turn of `turns` in order (one turn per function response it has read), then writes
    `summary`."""

    turns: list[list[dict[str, Any]]]
    summary: str

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        del stream
        answered = sum(
            any(part.function_response is not None for part in content.parts or []) for content in llm_request.contents
        )
        if answered >= len(self.turns):
            parts = [types.Part(text=self.summary)]
        else:
            calls = [
                types.FunctionCall(id=f"call-{answered}-{n}", name=call["name"], args=call["args"])
                for n, call in enumerate(self.turns[answered])
            ]
            parts = [types.Part(function_call=call) for call in calls]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    model = ScriptedModel(model="scripted", turns=script(job, tool_name), summary=job["options"]["summary"])
    callbacks: dict[str, Any] = {}
    if job["helped"]:
        from mcp_rendering.integrations.google_adk import direct_answers

        callbacks = direct_answers({server_name(job): toolset})
    agent = LlmAgent(name="reach", model=model, tools=[toolset], **callbacks)
    runner = InMemoryRunner(agent=agent, app_name="reach")
    final = ""
    outputs: list[str] = []
    try:
        session = await runner.session_service.create_session(app_name="reach", user_id="user")
        message = types.Content(role="user", parts=[types.Part(text="Show the annual accounts.")])
        async for event in runner.run_async(user_id="user", session_id=session.id, new_message=message):
            for response in event.get_function_responses():
                answer = (response.response or {}).get("answer")
                outputs.append(answer if isinstance(answer, str) else json.dumps(response.response, default=str))
            if event.is_final_response() and event.content is not None:
                final = "".join(part.text or "" for part in event.content.parts or [])
    finally:
        await toolset.close()
    return {"final": final, "outputs": outputs}


if __name__ == "__main__":
    run(_observe, "google-adk", "mcp")
