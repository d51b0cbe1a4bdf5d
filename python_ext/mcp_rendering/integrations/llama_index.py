"""The whole result to the user in LlamaIndex (`llama-index-tools-mcp`): its own `ToolMetadata.return_direct` route
for the tools the server marks verbatim, and the host's view of their result as the agent's final answer.

Load the tools through `load_direct_answer_tools` (one line per agent)::

    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec
    from mcp_rendering.integrations.llama_index import load_direct_answer_tools

    tools = await load_direct_answer_tools(McpToolSpec(client=BasicMCPClient("my-server")))
    agent = FunctionAgent(tools=tools, llm=llm)
    print(await agent.run(user_msg="Show the annual accounts"))  # the caption, then every record

Each tool whose hint reads verbatim is rebuilt as a `FunctionTool` with ``return_direct=True`` that returns the
host's view of its result (`mcp_rendering.integrations.answer.final_answer`: the caption, a partial result's notice
with how to get the rest, every record, bounded by `max_rows` and `max_bytes`) as its `ToolOutput`'s one text
block. LlamaIndex's agents end the run on it: the `AgentOutput`'s response (``str(output)``) is that text. The route
is chosen from the tool's hint when the tools are loaded (LlamaIndex reads `return_direct` from the tool's
metadata); a result's own directive on a tool that is not marked does not take it. Other tools are returned as
`McpToolSpec` made them.

An error result (`isError`) of a marked tool is returned as an error `ToolOutput` (``is_error=True``), holding the
host's error answer (a line of the host's, then the server's message): LlamaIndex's route never ends the run on an
error, so the model reads it and may correct its call. LlamaIndex ends the run on the first non-error return-direct
result of a step, whatever else the model called in that step: a tool called beside it is run, but neither read by
the model nor shown. Build the agent with ``allow_parallel_tool_calls=False`` (a `FunctionAgent` option passed on
to the model's API) so that the model is asked for one tool call per step.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable, Mapping
from typing import Any, cast

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions

__all__ = ["direct_answer_tool", "load_direct_answer_tools"]


def direct_answer_tool(
    tool: Any,
    mcp_tool: Any,
    *,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
) -> Any:
    """A copy of `tool` (a `FunctionTool` that `McpToolSpec` made from `mcp_tool`) with ``return_direct=True``,
    whose output is the host's view of the result; see the module docstring.

    Args:
        tool: the `FunctionTool`; its function must return the tool's `CallToolResult`.
        mcp_tool: the MCP `Tool` it was made from (`McpToolSpec.fetch_tools()`), for its hints and its name.
        server: the server name shown in the caption (default: none, the tool alone is named).
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
    """
    options = AnswerOptions(server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown)
    # LlamaIndex's own tool classes, from the environment the agent runs in (this package does not depend on it).
    llama_tools: Any = importlib.import_module("llama_index.core.tools")
    source: Any = tool
    call_mcp = source.async_fn
    name = source.metadata.get_name()

    async def call(**kwargs: Any) -> Any:
        result = await call_mcp(**kwargs)
        answer = options.answer(mcp_tool, result, arguments=kwargs)
        return llama_tools.ToolOutput(
            tool_name=name,
            content=options.text(answer),
            raw_input={"args": (), "kwargs": kwargs},
            raw_output=result,
            is_error=answer.is_error,
        )

    async def keep(output: Any) -> Any:
        # FunctionTool's own slot for an output of the function's making: the ToolOutput above, as it is.
        return output if isinstance(output, llama_tools.ToolOutput) else None

    metadata = dataclasses.replace(source.metadata, return_direct=True)
    return llama_tools.FunctionTool.from_defaults(
        async_fn=call, tool_metadata=metadata, async_callback=keep, partial_params=dict(source.partial_params)
    )


async def load_direct_answer_tools(
    spec: Any,
    *,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Iterable[str] | None = None,
) -> list[Any]:
    """The tools of an `McpToolSpec` (`to_tool_list_async()`), each one the server marks verbatim made a
    `direct_answer_tool`; the others as they are.

    Args:
        spec: the `McpToolSpec` (its `allowed_tools` and partial parameters apply as usual).
        server: as for `direct_answer_tool`.
        max_rows: as for `direct_answer_tool`.
        max_bytes: as for `direct_answer_tool`.
        markdown: as for `direct_answer_tool`.
        allow: the names of the tools that may answer directly; None: every tool the server marks. A server could
            mark every tool: name the ones you mean, the others stay with the model.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
    """
    options = AnswerOptions(server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow)
    listed = cast("list[Any]", await spec.fetch_tools())
    by_name: Mapping[str, Any] = {getattr(tool, "name", ""): tool for tool in listed}
    tools: list[Any] = []
    for tool in cast("list[Any]", await spec.to_tool_list_async()):
        name = cast("str", tool.metadata.get_name())
        mcp_tool = by_name.get(name)
        if mcp_tool is not None and options.selects(mcp_tool, name=name):
            tool = direct_answer_tool(
                tool, mcp_tool, server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown
            )
        tools.append(tool)
    return tools
