"""Measures what the Agent Development Kit (`google-adk`) hands the model for one call of the financial tool.

The agent runs in ADK's `InMemoryRunner` with a scripted model in place of Gemini (a `BaseLlm` that calls no
service): its first turn calls the tool of an `McpToolset`, its second records the function response it was sent,
which is reported as is (ADK sends it to the model as a JSON object).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from _common import run
from google.adk.agents import LlmAgent  # pyright: ignore[reportMissingImports]
from google.adk.models import BaseLlm, LlmRequest, LlmResponse  # pyright: ignore[reportMissingImports]
from google.adk.runners import InMemoryRunner  # pyright: ignore[reportMissingImports]
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams  # pyright: ignore[reportMissingImports]
from google.genai import types  # pyright: ignore[reportMissingImports]
from mcp import StdioServerParameters  # pyright: ignore[reportAttributeAccessIssue]


class ScriptedModel(BaseLlm):
    """Calls `tool` once, then answers; keeps the function responses it receives."""

    tool: str
    received: list[Any]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        del stream
        responses = [
            part.function_response.response
            for content in llm_request.contents
            for part in content.parts or []
            if part.function_response is not None
        ]
        if not responses:
            call = types.FunctionCall(id="call-1", name=self.tool, args={})
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
            return
        self.received.extend(responses)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="done")]))


async def _observe(job: dict[str, Any], tool_name: str) -> dict[str, Any]:
    params = StdioServerParameters(command=job["command"], args=job["args"], cwd=job.get("cwd"))
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=params, timeout=60))
    model = ScriptedModel(model="scripted", tool=tool_name, received=[])
    runner = InMemoryRunner(agent=LlmAgent(name="reach", model=model, tools=[toolset]), app_name="reach")
    try:
        session = await runner.session_service.create_session(app_name="reach", user_id="user")
        message = types.Content(role="user", parts=[types.Part(text="Show the annual accounts.")])
        async for _ in runner.run_async(user_id="user", session_id=session.id, new_message=message):
            pass
    finally:
        await toolset.close()
    response = model.received[0]
    return {"payload": response, "parts": [{"kind": "json", "value": response}]}


if __name__ == "__main__":
    run(_observe, "google-adk", "mcp")
