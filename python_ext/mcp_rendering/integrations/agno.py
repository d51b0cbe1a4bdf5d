"""The whole result to the user in Agno (`agno`): its own stop route for the MCP tools' verbatim results, and the
host's view of the result as the run's content.

Use the toolkit in place of Agno's `MCPTools` (same arguments) and give the agent its post-hook (one line per
agent)::

    from mcp_rendering.integrations.agno import DirectAnswerMCPTools

    async with DirectAnswerMCPTools(server_params=params) as toolkit:
        agent = Agent(model=model, tools=[toolkit], post_hooks=[toolkit.final_answer_hook])
        answer = (await agent.arun("Show the accounts")).content

Each function of the toolkit is the one `MCPTools` builds, calling the server through Agno's own entrypoint (its
session choice, its ping, its conversion, its errors). The toolkit records the raw result the server sent (the
session Agno's entrypoint takes from the toolkit is an object of the adapter's own, which passes each result on) and
what Agno's entrypoint made of it. After the application's tool hooks (`Agent(tool_hooks=[...])`) have run, the
function's post-hook compares the value that came out of them with what the entrypoint returned (still that value,
unchanged, or not). Agno ends a turn when any of its calls raises `StopAgentRun`, so the toolkit's call that comes
out of the hooks last in its turn (the turn is the model's message holding the call, in the run's messages that
Agno's run context holds) decides for the turn: when every call of the turn is a call of the toolkit that came out as
the function's own value, which the host presents verbatim (the tool's hint or the result's own directive), it raises
`StopAgentRun`, whose message is its tool message, so that no model call follows; the agent's post-hook then makes
`RunOutput.content` the host's view (`mcp_rendering.integrations.answer.final_answer`: the caption, a partial
result's notice with how to get the rest, every record), in place of whatever text the model wrote. A hook that
refused any call of the turn or replaced its result takes the route away from the whole turn: the model reads what
the hooks made, and the refusal's reason. The toolkit's post-hook runs first among the agent's post-hooks (on the
first verbatim result the toolkit moves it there, or adds it there when the agent was not given it), so that the
application's own post-hooks (an output guardrail, say) check the answer the user receives. Agno's
`stop_after_tool_call_tools` is not used: it is fixed per tool when the toolkit is built, so it would end the run on
an error result too, and it appends the tool's text to the model's own.

Every other result is handed to the model exactly as `MCPTools` hands it. An error result never ends the run: the
model reads it, as without the route, and may correct its call. A turn that also called another tool (or a tool of
the toolkit whose result is not verbatim) takes no route: the model reads every result, a refusal of the
application's tool hooks among them (they wrap every function of the agent, and the toolkit sees only its own). A
turn in which the application rejected a call (`requires_confirmation_tools`) takes no route: the model reads the
rejection.
Agno runs the calls a user confirmed one at a time, and calls the model after them whatever they raise: the agent's
post-hook then decides from the whole turn's outcomes, as above.

A member agent of a `Team` whose leader reads the member's reply and writes the answer (Agno's default) would end its
run on the host's view only for the leader to rewrite it: Agno hands a member's functions its team, and the toolkit
refuses every call there (before it reaches the server) when the team does not respond directly
(`respond_directly=True`); the member's run ends in error (Agno's `OutputCheckError`), its content the error naming
the fixes. A toolkit given to the team itself, or to a member of a team that responds directly, answers.

Agno's result for the model (`ToolResult`) keeps the result's `_meta` and `structuredContent` but not its blocks, so
the toolkit reads the raw result beneath Agno's entrypoint: the entrypoint asks the toolkit for its session
(`get_session_for_run`, `get_temporary_session_for_run`, which the toolkit overrides), and receives an object of the
adapter's own that answers as the session `MCPTools` gave (the application's `session=`, or the connection the
toolkit built) and passes each result the server sent on to the call of the adapter's function under way; no
attribute of a session is ever set. Over fastmcp's `Client` (the connection the toolkit builds) that object calls
`call_tool_mcp`, the call fastmcp's `call_tool` makes, which returns the SDK's result as received and never raises
on an error result (what Agno's entrypoint asks of that client). Tests of the adapter pin that Agno's entrypoint
takes its session there, and makes of each result over that object what it makes over the session itself.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import AsyncGenerator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

# Resolved where `agno` is installed; the project's own environment goes without it.
from agno.exceptions import (  # pyright: ignore[reportMissingImports]
    CheckTrigger,  # pyright: ignore[reportUnknownVariableType]
    OutputCheckError,  # pyright: ignore[reportUnknownVariableType]
    StopAgentRun,  # pyright: ignore[reportUnknownVariableType]
)
from agno.tools.function import ToolResult  # pyright: ignore[reportMissingImports, reportUnknownVariableType]
from agno.tools.mcp import MCPTools  # pyright: ignore[reportMissingImports, reportUnknownVariableType]

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AnswerOptions

__all__ = ["DirectAnswerMCPTools"]

_LIST_PAGES_LIMIT = 1000
"""The most `tools/list` pages read when the toolkit is built, as Agno bounds its own listing."""
_RUNS_KEPT = 256
"""The most runs whose answers the toolkit keeps for their post-hook at once (runs of its agents still going)."""


@dataclass
class _Returned:
    """What Agno's entrypoint returned for one call of a toolkit function, and the host's view of its result."""

    value: Any
    """The entrypoint's value, the one handed to the application's tool hooks."""
    unchanged: Any
    """A copy of it as returned, to tell a hook that changed the value in place."""
    view: str | None
    """The host's view of the raw result, the run's answer when the route is taken (None: not verbatim)."""
    tool: str
    """The tool's name, as the server names it."""


@dataclass
class _Call:
    """One call of a toolkit function, from its pre-hook to its post-hook: each value the hook chain received from
    the entrypoint (a hook may call on more than once)."""

    returned: list[_Returned] = field(default_factory=lambda: [])


@dataclass
class _Run:
    """A run of an agent, from its first call of a toolkit function to its post-hook."""

    outcomes: dict[str, _Returned | None] = field(default_factory=lambda: {})
    """Each call of a toolkit function, by call id: the entrypoint's value that came out of the application's tool
    hooks as it was returned, or None when they refused the call or replaced its result."""
    refused: str | None = None
    """Why the toolkit refused the run's calls (a set-up where its answer cannot reach the user), for its post-hook
    to end the run with that error."""


_CALL: ContextVar[_Call | None] = ContextVar("mcp_rendering_agno_call", default=None)
"""The call of a toolkit function under way in this task (Agno runs each call of a turn in a task of its own)."""
_RECEIVED: ContextVar[list[Any] | None] = ContextVar("mcp_rendering_agno_received", default=None)
"""The raw results the session received during Agno's entrypoint call under way."""


class _RecordingSession:
    """The session Agno's entrypoint calls, owned by the adapter: everything it is asked answers as the session
    `MCPTools` gave (`session`), and each result the server sent is passed on to the adapter's call under way."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def __getattr__(self, name: str) -> Any:
        # What else Agno's entrypoint reads (the protocol version and the ping of its `ping_session`) is the session's.
        return getattr(self._session, name)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """The session's call, as Agno's entrypoint makes it: the SDK's `CallToolResult` as received."""
        session = self._session
        # fastmcp's Client (the connection the toolkit builds): `call_tool_mcp` is the call its `call_tool` makes, and
        # returns the result as received, an error result included (Agno asks that client not to raise on one).
        raw_call = getattr(session, "call_tool_mcp", None)
        result = await (session.call_tool if raw_call is None else raw_call)(name, arguments)
        received = _RECEIVED.get()
        if received is not None:
            received.append(result)
        return result


class _Toolkit(Protocol):
    """The members of Agno's `MCPTools` this module uses."""

    session: Any
    functions: dict[str, Any]
    tool_name_prefix: str | None

    async def build_tools(self) -> None: ...

    def get_temporary_session_for_run(
        self, run_context: Any = None, agent: Any = None, team: Any = None
    ) -> AbstractAsyncContextManager[Any]: ...

    async def get_session_for_run(self, run_context: Any = None, agent: Any = None, team: Any = None) -> Any: ...


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
        self._answers: dict[str, _Run] = {}
        """What each run still going holds of the toolkit's calls, by run id, until the agent's post-hook takes it."""
        self._recording: set[str] = set()
        """The names of the toolkit's functions that record their results, as the model calls them."""

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
        """Agno's own functions for the server's tools; each one `allow` names records its results, and its
        post-hook ends the run when the result is verbatim and the application's hooks left it as it was."""
        await cast("_Toolkit", super()).build_tools()
        toolkit = cast("_Toolkit", self)
        prefix = "" if toolkit.tool_name_prefix is None else f"{toolkit.tool_name_prefix}_"
        functions = toolkit.functions
        self._recording = set()
        for tool in await self._listed_tools():
            name = cast("str", tool.name)
            function = functions.get(prefix + name)
            if function is None or not self._options.allows(name):
                continue
            # Any tool's result may carry a verbatim directive, so every tool `allow` names is recorded.
            function.entrypoint = self._recording_entrypoint(tool, function.entrypoint)
            function.pre_hook = self._start_call
            function.post_hook = self._end_on_verbatim
            self._recording.add(prefix + name)

    def _recording_entrypoint(self, tool: Any, agno_entrypoint: Callable[..., Any]) -> Callable[..., Any]:
        async def call_tool(
            _agno_run_context: Any = None, _agno_agent: Any = None, _agno_team: Any = None, **arguments: Any
        ) -> Any:
            received: list[Any] = []
            token = _RECEIVED.set(received)
            try:
                returned = await agno_entrypoint(
                    _agno_run_context=_agno_run_context, _agno_agent=_agno_agent, _agno_team=_agno_team, **arguments
                )
            finally:
                _RECEIVED.reset(token)
            call = _CALL.get()
            if call is not None:
                # Every value is kept, to tell whether the hooks let the function's own value through.
                view = None
                if len(received) == 1 and isinstance(returned, ToolResult):
                    view = self._options.direct_answer(tool, received[0], arguments=arguments)
                call.returned.append(_Returned(returned, copy.deepcopy(returned), view, cast("str", tool.name)))
            return returned

        return call_tool

    async def get_session_for_run(self, run_context: Any = None, agent: Any = None, team: Any = None) -> Any:
        """`MCPTools`' session for the run, in an object of the adapter's own that passes its results on to the
        adapter's calls."""
        toolkit = cast("_Toolkit", super())
        return _RecordingSession(await toolkit.get_session_for_run(run_context=run_context, agent=agent, team=team))

    @asynccontextmanager
    async def get_temporary_session_for_run(
        self, run_context: Any = None, agent: Any = None, team: Any = None
    ) -> AsyncGenerator[Any]:
        """`MCPTools`' session for one call, in an object of the adapter's own that passes its results on to the
        adapter's calls."""
        toolkit = cast("_Toolkit", super())
        async with toolkit.get_temporary_session_for_run(run_context=run_context, agent=agent, team=team) as session:
            yield _RecordingSession(session)

    def _start_call(self, agent: Any = None, team: Any = None, run_context: Any = None) -> None:
        """The function's pre-hook, run by Agno before the application's tool hooks: the call starts, with no
        verbatim result yet. An agent that is a member of a team whose leader answers the user (Agno hands a member's
        functions its team) would end its own run on the host's view, which the leader reads and rewrites: the call
        is refused before it reaches the server, with Agno's stop, and the run ends in error (see `final_answer_hook`).
        """
        _open_call()
        if agent is None or team is None or getattr(team, "respond_directly", False):
            return  # an agent of its own, a member whose reply is the team's, or the team's own toolkit
        refused = (
            f"DirectAnswerMCPTools is given to agent {_named(agent)}, a member of team {_named(team)}, whose leader"
            " reads the member's reply and writes the answer itself: the host's view would not reach the user. Give"
            " the team respond_directly=True, or give the toolkit (and its final_answer_hook) to the team itself."
            " Agno keeps an agent once made a member of a team a member of it, in the agent's runs alone too: run"
            " a separate Agent object alone."
        )
        run_id = cast("str | None", getattr(run_context, "run_id", None))
        if run_id is not None:
            self._run(run_id).refused = refused
            self._hooked(agent)
        raise StopAgentRun(refused)

    def _end_on_verbatim(self, fc: Any, agent: Any = None, team: Any = None, run_context: Any = None) -> None:
        """The function's post-hook, run by Agno once the application's tool hooks have returned: keeps what came
        out of them. Agno ends a turn when any of its calls raises `StopAgentRun`, so the call of the toolkit that
        comes out of the hooks last in its turn decides for the whole turn: when every call of the turn is a call of
        the toolkit that came out as the function's own value, unchanged, and verbatim, it raises Agno's stop, and
        the agent's post-hook answers with the host's views. Any other turn (a call of another tool, a call refused
        or replaced by a hook) is left to the model, which reads every result."""
        call = _CALL.get()
        _CALL.set(None)
        run_id = cast("str | None", getattr(run_context, "run_id", None))
        call_id = cast("str | None", getattr(fc, "call_id", None))
        if call is None or run_id is None or call_id is None:
            return
        final: Any = fc.result
        own = next(
            (returned for returned in call.returned if final is returned.value and final == returned.unchanged), None
        )
        outcomes = self._run(run_id).outcomes
        outcomes[call_id] = own
        if own is not None and own.view is not None:
            self._hooked(team if agent is None else agent)  # a team's own tools run with its team alone
        # Agno's run context holds the run's messages during a turn the model made (not when `continue_run` runs
        # the calls a user confirmed, one at a time, and then calls the model whatever they raise).
        # A call of the turn still under way has no outcome yet: the last one to come out decides.
        turn = self._turn_of(run_context, call_id)
        if turn is not None and own is not None and self._answered_verbatim(turn, outcomes):
            # Agno's own stop: no model call follows this turn. The message is this call's tool message.
            raise StopAgentRun(own.view)

    def _turn_of(self, run_context: Any, call_id: str) -> list[str | None] | None:
        """The model's turn that made `call_id` (Agno's run context holds the run's messages, the turn's among
        them): each of its calls in the order called, by id when it calls one of the toolkit's recording functions,
        None when it calls any other tool."""
        for message in reversed(cast("list[Any]", getattr(run_context, "messages", None) or [])):
            calls = cast("list[dict[str, Any]]", getattr(message, "tool_calls", None) or [])
            if any(made.get("id") == call_id for made in calls):
                return self._recorded(calls)
        return None

    def _recorded(self, calls: list[dict[str, Any]]) -> list[str | None]:
        """Each of a turn's `calls`, by id when it calls one of the toolkit's recording functions, else None."""
        return [
            cast("str | None", made.get("id"))
            if cast("dict[str, Any]", made.get("function") or {}).get("name") in self._recording
            else None
            for made in calls
        ]

    @staticmethod
    def _answered_verbatim(turn: list[str | None], outcomes: dict[str, _Returned | None]) -> bool:
        """Whether every call of the turn is a call of the toolkit that came out of the application's hooks as its
        function's own value, verbatim: the only turns that end with the host's views. A call of any other tool
        (whatever the application's hooks made of it: Agno's tool hooks wrap every function, the toolkit sees only
        its own), an error, a result the host may summarize, or a call a hook refused or replaced leaves the turn
        to the model, which reads every result."""
        return all(
            call_id is not None and (returned := outcomes.get(call_id)) is not None and returned.view is not None
            for call_id in turn
        )

    def _hooked(self, agent: Any) -> None:
        """Puts `final_answer_hook` first in the post-hooks of `agent` (an agent or a team), read by Agno when the
        run ends, when it is not there, so that the run's content is the answer before any other post-hook reads it.

        Agno catches any other error a function's hooks or entrypoint raise (it logs it and hands the model its
        text), so a missing post-hook cannot be refused with an error the application would see."""
        if agent is None:
            return
        hooks = cast("list[Any]", getattr(agent, "post_hooks", None) or [])
        if not hooks or hooks[0] != self.final_answer_hook:
            agent.post_hooks = [self.final_answer_hook, *(hook for hook in hooks if hook != self.final_answer_hook)]

    def _run(self, run_id: str) -> _Run:
        """What the toolkit holds of the run `run_id`, for the runs of at most `_RUNS_KEPT` at once: a run that
        never reaches its post-hooks (an error, a cancellation, an agent without the post-hook) leaves its own
        behind until then."""
        runs = self._answers
        run = runs.setdefault(run_id, _Run())
        while len(runs) > _RUNS_KEPT:
            del runs[next(iter(runs))]  # the oldest run's, first recorded
        return run

    def final_answer_hook(self, run_output: Any) -> None:
        """An Agno post-hook (`Agent(post_hooks=[...])`): when every call of the run's last turn of calls is a call
        of the toolkit that came out of the application's hooks as the function's own value, verbatim, the run's
        content becomes the host's view of each, in the order called. A run whose calls the toolkit refused (a
        member of a team that does not respond directly) ends in error: Agno's `OutputCheckError`, whose message,
        naming what to do, becomes the run's content."""
        run = self._answers.pop(cast("str", run_output.run_id), None)
        if run is None:
            return
        if run.refused is not None:
            # Agno's way for a post-hook to end a run in error: the run's status, Agno's error log, and the content.
            run_output.content = run.refused
            raise OutputCheckError(run.refused, check_trigger=cast("Any", CheckTrigger).VALIDATION_FAILED)
        messages = cast("list[Any]", run_output.messages or [])
        turns = [index for index, message in enumerate(messages) if getattr(message, "tool_calls", None)]
        if not turns:
            return
        turn = self._recorded(cast("list[dict[str, Any]]", messages[turns[-1]].tool_calls))
        if not self._answered_verbatim(turn, run.outcomes):
            return  # the model has read the turn (a rejected call never ran, so has no outcome): its answer stands
        answers = [cast("_Returned", run.outcomes[cast("str", call_id)]) for call_id in turn]
        run_output.content = self._options.join(
            [cast("str", returned.view) for returned in answers], [returned.tool for returned in answers]
        )


def _named(agent: Any) -> str:
    """An agent or a team, as the application named it (or by its id)."""
    return repr(str(getattr(agent, "name", None) or getattr(agent, "id", None) or "unnamed"))


def _open_call() -> None:
    """A toolkit function's pre-hook: the call starts, with no verbatim result yet."""
    _CALL.set(_Call())
