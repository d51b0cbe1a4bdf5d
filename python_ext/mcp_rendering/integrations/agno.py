"""The whole result to the user in Agno (`agno`): its own stop route for the MCP tools' verbatim results, and the
host's view of the result as the run's content.

Use the toolkit in place of Agno's `MCPTools` (same arguments) and give the agent its post-hook (one line per
agent)::

    from mcp_rendering.integrations.agno import DirectAnswerMCPTools

    async with DirectAnswerMCPTools(server_params=params) as toolkit:
        agent = Agent(model=model, tools=[toolkit], post_hooks=[toolkit.final_answer_hook])
        answer = (await agent.arun("Show the accounts")).content

For a result the host presents verbatim (the tool's hint or the result's own directive), the toolkit's function
raises Agno's `StopAgentRun`, whose message is the tool message, so that no model call follows; the post-hook then
makes `RunOutput.content` the host's view (`mcp_rendering.integrations.answer.final_answer`: the caption, a partial
result's notice with how to get the rest, every record), in place of whatever text the model wrote before its
call. An agent not given the post-hook gets it from the toolkit, added to its `post_hooks` on the first verbatim
result. Agno's `stop_after_tool_call_tools` is not used: it is fixed per tool when the toolkit is built, so it would
end the run on an error result too, and it appends the tool's text to the model's own.

Every other result is handed to the model exactly as `MCPTools` hands it (Agno's own conversion of the same
result). An error result never ends the run: the model reads it, as without the route, and may correct its call.
Agno stops a turn when any of its calls asks to: in a turn that also called another tool, the run ends with the
verbatim answers, opened by a host line naming the other calls' tools (`other_calls_line`), whose results stay in
`RunOutput.tools`, unread by the model.

Agno has no public name for its conversion of an MCP result: the toolkit hands a result it does not answer with to
``agno.utils.mcp.get_entrypoint_for_tool``, the function `MCPTools` builds its own functions with, over a session
that gives back the result already received (`_Replay`), so that the model reads exactly what `MCPTools` gives it
without a second call. A release that moves that function makes this module fail on import, saying so, and a test
of the adapter pins both the function and what it asks of a session.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, cast

# Resolved where `agno` is installed; the project's own environment goes without it.
from agno.exceptions import StopAgentRun  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from agno.tools.mcp import MCPTools  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

try:
    # Agno's conversion of an MCP result for the model, the one `MCPTools` builds its functions with: a module
    # function no package of Agno exports (see the module docstring).
    from agno.utils.mcp import get_entrypoint_for_tool  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
except ImportError as error:
    raise ImportError(
        "Agno's MCP result conversion is not at agno.utils.mcp.get_entrypoint_for_tool, where this adapter reads it"
        " (no public name exports it): install an Agno release the mcp-rendering[agno] extra allows"
    ) from error

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions, other_calls_line

__all__ = ["DirectAnswerMCPTools"]

_LIST_PAGES_LIMIT = 1000
"""The most `tools/list` pages read when the toolkit is built, as Agno bounds its own listing."""
_RUNS_KEPT = 256
"""The most runs whose answers the toolkit keeps for their post-hook at once (runs of its agents still going)."""


def _wire(result: Any) -> dict[str, Any]:
    """A result of either session Agno drives (the SDK's `CallToolResult`, or fastmcp's parsed one) as wire JSON."""
    blocks = cast("list[Any]", getattr(result, "content", None) or [])
    wire: dict[str, Any] = {
        "content": [
            block.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(block, "model_dump") else block
            for block in blocks
        ],
        "isError": getattr(result, "is_error", False) is True,
    }
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        wire["structuredContent"] = structured
    meta = getattr(result, "meta", None)
    if meta is not None:
        wire["_meta"] = meta
    return wire


class _Toolkit(Protocol):
    """The members of Agno's `MCPTools` this module uses."""

    session: Any
    functions: dict[str, Any]
    tool_name_prefix: str | None

    async def build_tools(self) -> None: ...

    def should_use_temporary_run_session(self, run_context: Any = None) -> bool: ...

    def get_temporary_session_for_run(
        self, run_context: Any = None, agent: Any = None, team: Any = None
    ) -> AbstractAsyncContextManager[Any]: ...

    async def get_session_for_run(self, run_context: Any = None, agent: Any = None, team: Any = None) -> Any: ...


class _Replay:
    """A session whose one call gives back an outcome already received, so that Agno's own entrypoint converts
    it exactly as it would have: it has what ``agno.utils.mcp.MCPSession`` asks of a session, and the ping Agno's
    entrypoint sends first."""

    def __init__(self, outcome: Any, error: BaseException | None) -> None:
        self._outcome = outcome
        self._error = error

    async def send_ping(self) -> None:
        return None

    async def call_tool(self, name: str, arguments: Any = None, *args: Any, **kwargs: Any) -> Any:
        if self._error is not None:
            raise self._error
        return self._outcome

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def initialize(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class DirectAnswerMCPTools(MCPTools):  # pyright: ignore[reportUntypedBaseClass]
    """Agno's `MCPTools` whose verbatim results end the run with the host's view; see the module docstring."""

    def __init__(
        self,
        *args: Any,
        server: str | None = None,
        max_rows: int | None = None,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        markdown: bool = False,
        allow: Iterable[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Takes `MCPTools`' own arguments, and:

        Args:
            server: the server name shown in the caption (default: none, the tool alone is named).
            max_rows: the host's bound on the records shown.
            max_bytes: the host's bound on the size of the records shown (None: no bound).
            markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
                renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
            allow: the names of the tools (as the server names them) whose verbatim result may end the run; None:
                every tool the server marks. A server could mark every tool: name the ones you mean.

        Raises:
            TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions`).
        """
        self._options = AnswerOptions(
            server=server, max_rows=max_rows, max_bytes=max_bytes, markdown=markdown, allow=allow
        )
        cast("Any", super()).__init__(*args, **kwargs)
        self._answers: dict[str, list[tuple[str, str]]] = {}
        """The verbatim answers of each run still going (each with its tool's name), by run id, until the post-hook
        takes them."""

    async def _listed_tools(self) -> list[Any]:
        session: Any = cast("_Toolkit", self).session
        listed: Any = await session.list_tools()
        if isinstance(listed, list):  # fastmcp's client lists every page itself
            return cast("list[Any]", listed)
        tools = list(cast("list[Any]", listed.tools))
        for _ in range(_LIST_PAGES_LIMIT):
            cursor = getattr(listed, "next_cursor", None)
            if not cursor:
                break
            # The SDK is there, as the session is; its 2.x session takes the cursor inside the request parameters.
            params: Any = importlib.import_module("mcp.types").PaginatedRequestParams(cursor=cursor)
            listed = await session.list_tools(params=params)
            tools.extend(cast("list[Any]", listed.tools))
        return tools

    async def build_tools(self) -> None:
        """Agno's own functions for the server's tools, each answering directly when its result is verbatim."""
        await cast("_Toolkit", super()).build_tools()
        toolkit = cast("_Toolkit", self)
        prefix = "" if toolkit.tool_name_prefix is None else f"{toolkit.tool_name_prefix}_"
        functions = toolkit.functions
        for tool in await self._listed_tools():
            name = cast("str", tool.name)
            function = functions.get(prefix + name)
            if function is None or not self._options.allows(name):
                continue
            function.entrypoint = self._answering_entrypoint(tool)

    def _answering_entrypoint(self, tool: Any) -> Callable[..., Any]:
        async def call_tool(
            _agno_run_context: Any = None, _agno_agent: Any = None, _agno_team: Any = None, **arguments: Any
        ) -> Any:
            outcome: Any = None
            error: BaseException | None = None
            try:
                outcome = await self._call(tool.name, arguments, _agno_run_context, _agno_agent, _agno_team)
            except Exception as raised:  # Agno's entrypoint below turns it into the message the model reads
                error = raised
            text = self._verbatim_text(tool, outcome, arguments) if error is None and outcome is not None else None
            if text is not None:
                run_id = cast("str | None", getattr(_agno_run_context, "run_id", None))
                if run_id is not None and self._hooked(_agno_agent):
                    self._record(run_id, text, cast("str", tool.name))
                raise StopAgentRun(text)  # Agno's own stop: no model call follows this turn
            convert = cast("Callable[..., Any]", get_entrypoint_for_tool)(tool=tool, session=_Replay(outcome, error))
            return await cast("Callable[..., Any]", convert)(**arguments)

        return call_tool

    def _hooked(self, agent: Any) -> bool:
        """Whether `agent`'s post-hooks, read by Agno when the run ends, hold `final_answer_hook`: given it here
        when they do not, so that the run's content is the answer without it (None when no agent runs the call:
        then no hook can take the answer, and none is kept)."""
        if agent is None:
            return False
        hooks = cast("list[Any]", getattr(agent, "post_hooks", None) or [])
        if not any(hook == self.final_answer_hook for hook in hooks):
            agent.post_hooks = [*hooks, self.final_answer_hook]
        return True

    def _record(self, run_id: str, text: str, name: str) -> None:
        """Keeps `text` for the post-hook of the run `run_id`, and the answers of at most `_RUNS_KEPT` runs: a run
        that never reaches its post-hooks (an error, a cancellation) leaves its answers behind until then."""
        answers = self._answers
        answers.setdefault(run_id, []).append((text, name))
        while len(answers) > _RUNS_KEPT:
            del answers[next(iter(answers))]  # the oldest run's, first recorded

    def _verbatim_text(self, tool: Any, outcome: Any, arguments: Mapping[str, Any]) -> str | None:
        """The host's view of a result it presents verbatim and that is not an error; None for any other (and for
        a result the host cannot read: Agno's own conversion then goes to the model)."""
        return self._options.direct_answer(tool, _wire(outcome), arguments=arguments)

    async def _call(self, name: str, arguments: dict[str, Any], run_context: Any, agent: Any, team: Any) -> Any:
        """The tool's result, over the session Agno would have used for this run."""
        toolkit = cast("_Toolkit", self)
        if toolkit.should_use_temporary_run_session(run_context):
            async with toolkit.get_temporary_session_for_run(run_context, agent, team) as session:
                return await _call_on(session, name, arguments)
        session = await toolkit.get_session_for_run(run_context=run_context, agent=agent, team=team)
        return await _call_on(session, name, arguments)

    def final_answer_hook(self, run_output: Any) -> None:
        """An Agno post-hook (`Agent(post_hooks=[...])`): when the run ended on verbatim results of this toolkit,
        its content becomes the host's view of them, in the order called."""
        recorded = self._answers.pop(cast("str", run_output.run_id), None)
        if not recorded:
            return
        # Agno runs a turn's calls concurrently: the tool messages (each holding its answer, the message of the
        # stop) give the order they were called in.
        messages = cast("list[Any]", run_output.messages or [])
        step_starts = [index for index, message in enumerate(messages) if getattr(message, "role", None) != "tool"]
        step = messages[step_starts[-1] + 1 :] if step_starts else messages
        pending = list(recorded)
        answers: list[tuple[str, str]] = []
        others: list[str] = []
        for message in step:
            if getattr(message, "role", None) != "tool":
                continue
            content = getattr(message, "content", None)
            found = next((entry for entry in pending if entry[0] == content), None)
            if found is not None:
                pending.remove(found)
                answers.append(found)
            else:  # another call of the turn: its result ends with the run, unread by the model
                others.append(str(getattr(message, "tool_name", None) or "unknown"))
        ordered = answers + pending
        shown = self._options.join([text for text, _ in ordered], [name for _, name in ordered])
        line = other_calls_line(others, markdown=self._options.markdown)
        run_output.content = f"{line}\n\n{shown}" if line else shown


async def _call_on(session: Any, name: str, arguments: Mapping[str, Any]) -> Any:
    try:
        client: Any = importlib.import_module("fastmcp").Client
    except ModuleNotFoundError:  # only a session of the caller's own can be in use then
        client = None
    if client is not None and isinstance(session, client):
        # fastmcp's client raises on an error result unless asked not to, as Agno's own call asks.
        return await session.call_tool(name, dict(arguments), raise_on_error=False)
    return await session.call_tool(name, dict(arguments))
