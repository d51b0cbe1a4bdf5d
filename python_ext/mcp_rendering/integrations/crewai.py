"""The whole result to the user in CrewAI (`crewai-tools[mcp]`): its own `BaseTool.result_as_answer` route for the
tools the server marks verbatim, and the host's view of their result as the task's answer.

Load the tools through `DirectAnswerToolAdapter`: `MCPAdapt`, which crewai-tools' `MCPServerAdapter` runs, with
this adapter in place of crewai-tools' own, and give the agent's tasks its `guardrail`::

    from mcpadapt.core import MCPAdapt
    from mcp_rendering.integrations.crewai import DirectAnswerToolAdapter

    adapter = DirectAnswerToolAdapter()
    with MCPAdapt(server_params, adapter) as tools:
        agent = Agent(role="analyst", goal="...", backstory="...", tools=tools, llm=llm)
        task = Task(description="...", expected_output="...", agent=agent, guardrail=adapter.guardrail)
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
when the tools are loaded; a result's own directive on a tool that is not marked does not take it.

Several calls in one step: when one of them answers directly, CrewAI runs them one after the other in the order
called and ends the task on the first direct result, so the calls after it never run, and those before it ran, or
were refused by an application's ``before_tool_call`` hook, but no model reads their results or refusals. CrewAI
cannot give them to the model: its guardrail retry runs the task again from its start, without the step's results,
and a model that calls the verbatim tool again makes it run twice. So the answer names them: give the task the
adapter's `guardrail` (CrewAI's own ``Task(guardrail=...)``, which may rewrite the task's output) and, when the task
ended on a direct result of a step that made other calls, the answer opens with a host line per other call, in the
order called: a call CrewAI reached "did not run or whose result is not shown here" (it ran, or an application's
``before_tool_call`` hook refused it: CrewAI records a refusal only as a tool message of fixed text, which any tool
can return, so the two are never told apart), and a call after the direct result "was not run". Without the
guardrail, the answer is the first direct result alone, and nothing says the step called others.

crewai-tools' own tool adapter has no public name: it is read from its module
(``crewai_tools.adapters.mcp_adapter``), and a release that moves it makes the adapter fail when made, saying so (a
test of the adapter pins it too).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

# Resolved where crewai-tools' MCP extra is installed; the project's own environment goes without it.
from mcpadapt.core import ToolAdapter  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.host import NAME_LIMIT, quote
from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, OTHER_CALLS_OPENING, AnswerOptions, other_calls_line
from mcp_rendering.render import markdown_escape

__all__ = ["DirectAnswerToolAdapter"]


_CREWAI_TOOL_ADAPTER = "crewai_tools.adapters.mcp_adapter.CrewAIToolAdapter"
"""Where crewai-tools keeps the tool adapter `MCPServerAdapter` builds its tools with: a name no package of
crewai-tools exports (it is defined only when the MCP extra is installed), which this adapter reads all the same so
that the tools the server does not mark stay exactly `MCPServerAdapter`'s."""


def _crewai_tool_adapter() -> Any:
    """crewai-tools' own tool adapter class, from the environment the agent runs in (this package does not depend
    on it).

    Raises:
        ImportError: it is not where `_CREWAI_TOOL_ADAPTER` says (crewai-tools without its MCP extra, or a release
            that moved it).
    """
    module_name, _, name = _CREWAI_TOOL_ADAPTER.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as error:
        raise ImportError(
            f"crewai-tools' MCP tool adapter is not at {_CREWAI_TOOL_ADAPTER}, where this adapter reads it (no public"
            " name exports it): install crewai-tools with its MCP extra, in a release the mcp-rendering[crewai]"
            " extra allows"
        ) from error


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
        self._crewai: Any = _crewai_tool_adapter()()

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

    # No return annotation: CrewAI checks one as a tuple type, and this module's annotations are strings.
    def guardrail(self, output: Any):
        """A task guardrail (``Task(guardrail=adapter.guardrail)``): when the task ended on a direct result (of this
        adapter's tools or any other ``result_as_answer`` tool) of a step that made other calls, its output opened
        by a host line per other call saying what became of it; any other output as it is."""
        messages = cast("list[Mapping[str, Any]]", list(output.messages or []))
        raw = cast("str", output.raw)
        # Only a tool's result as the answer ends a task on a tool message holding the answer itself.
        if not messages or messages[-1].get("role") != "tool" or messages[-1].get("content") != raw:
            return (True, output)
        line = _other_calls(messages, markdown=self._options.markdown)
        return (True, f"{line}\n\n{raw}" if line else output)

    def async_adapt(self, afunc: Any, mcp_tool: Any) -> Any:
        """CrewAI's tools are synchronous, as for crewai-tools' own adapter."""
        return self._crewai.async_adapt(afunc, mcp_tool)


def _other_calls(messages: Sequence[Mapping[str, Any]], *, markdown: bool) -> str:
    """The host lines, one per other call in the order called, for the step whose direct result, the last message,
    ended the task."""
    answered = messages[-1].get("tool_call_id")
    step = next((index for index in range(len(messages) - 1, -1, -1) if messages[index].get("tool_calls")), None)
    if step is None:
        return ""
    # Which calls CrewAI reached, never what their messages say: a refusal's fixed text is any tool's to return.
    reached = {message.get("tool_call_id") for message in messages[step + 1 :] if message.get("role") == "tool"}
    lines: list[str] = []
    for call in cast("list[Mapping[str, Any]]", messages[step]["tool_calls"]):
        call_id = call.get("id")
        if call_id == answered:
            continue
        name = str(cast("Mapping[str, Any]", call.get("function") or {}).get("name", ""))
        if call_id not in reached:
            lines.append(other_calls_line((), (name,), markdown=markdown))
        else:
            lines.append(_reached_line(name, markdown=markdown))
    # Markdown joins lines of one paragraph: each line is then a paragraph of its own.
    return ("\n\n" if markdown else "\n").join(lines)


def _reached_line(name: str, *, markdown: bool) -> str:
    line = f"{OTHER_CALLS_OPENING}tool {quote(name[:NAME_LIMIT])}, which did not run or whose result is not shown here."
    return markdown_escape(line) if markdown else line
