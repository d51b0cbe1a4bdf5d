"""The whole result to the user in CrewAI (`crewai-tools[mcp]`): its own `BaseTool.result_as_answer` route for the
tools the server marks verbatim, and the host's view of their result as the task's answer.

Load the tools through `DirectAnswerToolAdapter` (one line per agent): `MCPAdapt`, which crewai-tools'
`MCPServerAdapter` runs, with this adapter in place of crewai-tools' own::

    from mcpadapt.core import MCPAdapt
    from mcp_rendering.integrations.crewai import DirectAnswerToolAdapter

    with MCPAdapt(server_params, DirectAnswerToolAdapter()) as tools:
        agent = Agent(role="analyst", goal="...", backstory="...", tools=tools, llm=llm)
        output = Crew(agents=[agent], tasks=[task]).kickoff()
        print(output.raw)  # the caption, then every record

Every tool is first built by crewai-tools' own `CrewAIToolAdapter`, the one `MCPServerAdapter` uses, so tools the
server does not mark are exactly the tools `MCPServerAdapter` gives. A tool whose hint reads verbatim is then made
a subclass of that tool with ``result_as_answer=True``, whose result is the host's view
(`mcp_rendering.integrations.answer.final_answer`: the caption, a partial result's notice with how to get the rest,
every record, bounded by `max_rows` and `max_bytes`): CrewAI ends the agent's task on it, and the task's and the
crew's output (``output.raw``) is that text. `MCPServerAdapter` itself cannot take the route: it fixes its tool
adapter, and its tools keep only the text of a result (its error flag and its directive are gone).

An error result (`isError`) of a marked tool is returned as CrewAI's own `ToolFailure` (reason ``mcp_error``), whose
message is the host's error answer (a line of the host's, then the server's message): CrewAI never makes a failed
tool's result the answer, so the agent reads it and may correct its call. The route is chosen from the tool's hint
when the tools are loaded; a result's own directive on a tool that is not marked does not take it. CrewAI runs the
calls of a step one after the other when one of them answers directly, and ends the task on the first such result:
calls after it in that step are not run, calls before it ran but their results are not shown.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

# Resolved where crewai-tools' MCP extra is installed; the project's own environment goes without it.
from mcpadapt.core import ToolAdapter  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions

__all__ = ["DirectAnswerToolAdapter"]


class DirectAnswerToolAdapter(ToolAdapter):  # pyright: ignore[reportUntypedBaseClass]
    """mcpadapt's `ToolAdapter` for CrewAI whose tools the server marks verbatim answer directly; see the module
    docstring."""

    def __init__(
        self,
        *,
        server: str | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Iterable[str] | None = None,
    ) -> None:
        """
        Args:
            server: the server name shown in the caption (default: none, the tool alone is named).
            max_rows: the host's bound on the records shown.
            max_bytes: the host's bound on the size of the records shown (None: no bound).
            markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
                renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
            allow: the names of the tools that may answer directly; None: every tool the server marks. A server
                could mark every tool: name the ones you mean, the others stay with the model.

        Raises:
            TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
        """
        self._options = AnswerOptions(
            server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow
        )
        # crewai-tools' own adapter, from the environment the agent runs in (this package does not depend on it).
        adapters: Any = importlib.import_module("crewai_tools.adapters.mcp_adapter")
        self._crewai: Any = adapters.CrewAIToolAdapter()

    def adapt(self, func: Callable[[dict[str, Any] | None], Any], mcp_tool: Any) -> Any:
        """The CrewAI tool for `mcp_tool`, as crewai-tools makes it, answering directly when the server marks it
        verbatim and the host allows it."""
        tool = self._crewai.adapt(func, mcp_tool)
        if not self._options.selects(mcp_tool):
            return tool
        answer_of = self._answer_of(mcp_tool)

        class DirectAnswerTool(type(tool)):  # pyright: ignore[reportUntypedBaseClass]
            """The crewai-tools tool, its result the host's view of the MCP result."""

            def _run(self, **kwargs: Any) -> Any:
                return answer_of(func(kwargs), kwargs)

        return DirectAnswerTool(result_as_answer=True)

    def _answer_of(self, mcp_tool: Any) -> Callable[[Any, dict[str, Any]], Any]:
        tools: Any = importlib.import_module("crewai.tools")

        def answer_of(result: Any, arguments: dict[str, Any]) -> Any:
            answer = self._options.answer(mcp_tool, result, arguments=arguments)
            text = self._options.text(answer)
            if answer.is_error:
                return tools.ToolFailure(message=text, reason=tools.ToolFailureReason.MCP_ERROR)
            return text

        return answer_of

    def async_adapt(self, afunc: Any, mcp_tool: Any) -> Any:
        """CrewAI's tools are synchronous, as for crewai-tools' own adapter."""
        return self._crewai.async_adapt(afunc, mcp_tool)
