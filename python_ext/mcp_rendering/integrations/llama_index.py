"""The whole result to the user in LlamaIndex (`llama-index-tools-mcp`): its own `ToolMetadata.return_direct` route
for the tools the server marks verbatim, and the host's view of their result as the agent's final answer.

Load the tools through `load_direct_answer_tools`, and build the agent as a `DirectAnswerAgent`::

    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec
    from mcp_rendering.integrations.llama_index import DirectAnswerAgent, load_direct_answer_tools

    tools = await load_direct_answer_tools(McpToolSpec(client=BasicMCPClient("my-server")))
    agent = DirectAnswerAgent(tools=tools, llm=llm)  # a FunctionAgent
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
error, so the model reads it and may correct its call.

Several calls in one step: LlamaIndex runs them all, then ends the run on the first return-direct result to arrive,
and its answer holds that one alone. Build the agent as a `DirectAnswerAgent` (LlamaIndex's `FunctionAgent`, its
public step methods overridden) and the answer holds every return-direct result of the step, in the order called,
joined as `join_answers` joins them (each closed by the host's end line; the agent's `max_bytes` bounds them as a
whole), opened by a host line naming the tools of the step's other calls, whose results it does not show
(`other_calls_line`: a tool the server does not mark, or an error; no model reads them either). A `FunctionAgent`
as it is shows the first result alone, and nothing says the step called others.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable, Mapping
from typing import Any, cast

# Resolved where llama-index-core is installed; the project's own environment goes without it.
from llama_index.core.agent.workflow import FunctionAgent  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from llama_index.core.llms import ChatMessage  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions, join_answers, other_calls_line

__all__ = ["DirectAnswerAgent", "direct_answer_tool", "load_direct_answer_tools"]

_ORDER_KEY = "mcp_rendering_step_order"
"""The context store's key for the ids of the step's tool calls, in the order the model made them."""
_ANSWER_KEY = "mcp_rendering_step_answer"
"""The context store's key for the answer of a step that ends the run, when it is not LlamaIndex's own."""


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


class DirectAnswerAgent(FunctionAgent):  # pyright: ignore[reportUntypedBaseClass]
    """LlamaIndex's `FunctionAgent`, whose answer to a step ending the run on a return-direct result holds every
    return-direct result of the step and names the step's other calls; see the module docstring."""

    markdown: bool = False
    """Whether the host's lines are in the Markdown form (as the tools' `markdown` option)."""
    max_bytes: int | None = DEFAULT_MAX_BYTES
    """The bound on the size of a step's answers as a whole (as the tools' `max_bytes` option; None: no bound)."""

    async def take_step(self, ctx: Any, llm_input: Any, tools: Any, memory: Any) -> Any:
        output: Any = await cast("Any", super()).take_step(ctx, llm_input, tools, memory)
        await ctx.store.set(_ORDER_KEY, [call.tool_id for call in cast("list[Any]", output.tool_calls)])
        return output

    async def handle_tool_call_results(self, ctx: Any, results: Any, memory: Any) -> None:
        await cast("Any", super()).handle_tool_call_results(ctx, results, memory)
        order = cast("list[str]", await ctx.store.get(_ORDER_KEY, default=[]))
        position = {tool_id: index for index, tool_id in enumerate(order)}
        step = sorted(cast("list[Any]", results), key=lambda result: position.get(result.tool_id, len(order)))
        direct = [result for result in step if result.return_direct and not result.tool_output.is_error]
        if not direct or any(result.tool_name == "handoff" for result in direct) or len(step) == 1:
            # The run goes on, or LlamaIndex's own answer is the whole step's.
            await ctx.store.set(_ANSWER_KEY, None)
            return
        shown_ids = {result.tool_id for result in direct}
        others = [result.tool_name for result in step if result.tool_id not in shown_ids]
        shown = join_answers(
            [str(result.tool_output.content) for result in direct],
            markdown=self.markdown,
            max_bytes=self.max_bytes,
            names=[str(result.tool_name) for result in direct],
        )
        line = other_calls_line(others, markdown=self.markdown)
        await ctx.store.set(_ANSWER_KEY, f"{line}\n\n{shown}" if line else shown)

    async def finalize(self, ctx: Any, output: Any, memory: Any) -> Any:
        answer = cast("str | None", await ctx.store.get(_ANSWER_KEY, default=None))
        if answer is not None:
            await ctx.store.set(_ANSWER_KEY, None)
            # The assistant message LlamaIndex keeps in memory for the step, as the user receives it.
            key: str = cast("Any", self).scratchpad_key
            scratchpad = cast("list[Any]", await ctx.store.get(key, default=[]))
            if scratchpad and scratchpad[-1].role == "assistant":
                scratchpad[-1] = ChatMessage(
                    role="assistant", content=answer, additional_kwargs=scratchpad[-1].additional_kwargs
                )
                await ctx.store.set(key, scratchpad)
            output = output.model_copy(update={"response": ChatMessage(role="assistant", content=answer)})
        return await cast("Any", super()).finalize(ctx, output, memory)
