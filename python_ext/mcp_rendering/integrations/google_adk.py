"""The whole result to the user in Google's Agent Development Kit (`google-adk`): its own `skip_summarization`
route for the MCP tools' verbatim results, and the host's view of the result as the turn's final text.

Give the agent the callbacks (one line per agent), naming each MCP toolset whose results may answer by its server's
name::

    from mcp_rendering.integrations.google_adk import direct_answers

    agent = LlmAgent(name="analyst", model=model, tools=[toolset], **direct_answers({"accounts": toolset}))

ADK's MCP tool keeps no public trace of the toolset that made it, so the application names the servers: a tool's
result is captioned with the name of the toolset that lists it (the toolsets' own listings, read once per model turn
when its first result comes back; a tool that no named toolset lists, or that several list alike, is untouched),
never with one name for the whole agent, and ``allow`` maps a server's name to its tools' names.

For a tool of one of those toolsets whose result the host presents verbatim (the tool's hint or the result's directive),
the `after_tool_callback` sets ADK's `tool_context.actions.skip_summarization`, so that no model call follows,
and replaces the function response by ``{"answer": text}``; the `after_agent_callback` then ends the agent's turn
with one more event whose text is the host's view (`mcp_rendering.integrations.answer.final_answer`: the caption,
a partial result's notice with how to get the rest, every record). That final event is where ADK's runners and
text front ends read an answer; without it, a skipped summary leaves a final event with no text at all.

An error result never skips the model: it reads the error as without the route, and may correct its call. Tools
that are not MCP tools, and results the host does not present verbatim, are untouched. When one model turn calls a
verbatim tool and another, the summary is skipped only when every call of the turn (read from the model's
event that made them) answered verbatim; otherwise the model answers, having read every result, the verbatim
ones as `{"answer": text}`, the host's view, in place of the raw result.

The application's own tool callbacks and plugins see every call, as without the route: list its callbacks before
the adapter's. ADK stops a tool callback chain at the first callback that returns a value, so a callback listed
after the adapter's would never see a verbatim result: an agent whose `before_tool_callback` or
`after_tool_callback` (or `after_agent_callback`, which ends the turn with the host's view) does not end with the
adapter's is refused with a `ValueError` naming the order, before its first call reaches the server (an agent
without the adapter's `before_tool_callback`, which would read every call as answered by a callback, is refused
by the adapter's `after_tool_callback` at its first result). The
adapter's `before_tool_callback` only notes that the call goes on to the tool, so that a response a callback gave
in place of the call (a refusal) is never read as the server's result; a callback that rewrites the arguments
decides what the server receives and the host's view shows; an `after_tool_callback` (or a plugin's) that replaces
the result ends ADK's chain before the adapter's, and the model reads it. What the adapter keeps of a model turn
goes when the turn ends, when the agent's turn ends, or (a call raised, the run was aborted) when ADK lets go of
the model's event that made the turn's calls.

The host's view ends the turn of the agent holding the callbacks. A sub-agent reached by a transfer (or in
``task`` mode) answers the user itself. A sub-agent in ``single_turn`` mode runs as a tool of its parent, whose
model would read the view and write its own answer: such an agent is refused with a `ValueError`, before its first
call reaches the server. An agent called through `AgentTool` runs in a runner of its own with nothing public
saying so: its caller's model reads the view, unless the tool is ``AgentTool(agent, skip_summarization=True)``,
ADK's own route, whose event then ends the caller's turn with the view as its text.
"""

from __future__ import annotations

import asyncio
import importlib
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from mcp_rendering.integrations.answer import DEFAULT_MAX_BYTES, AllowByServer, AnswerOptions, servers_by_name

__all__ = ["ANSWER_KEY", "direct_answers"]

ANSWER_KEY = "temp:mcp-rendering/answer"
"""The session-state key (ADK's ``temp:`` prefix: kept for the current invocation only) holding the answers of the
turn, each with its tool's name (``{"answer": text, "tool": name}``), until the agent's turn ends."""


_OPAQUE = frozenset({"_meta", "structuredContent", "inputSchema", "outputSchema"})
"""Members holding server-authored data, which the renaming below leaves as they are."""


def _raw_tool(tool: Any) -> Any:
    return getattr(tool, "raw_mcp_tool", None)


def _wire(value: Any) -> Any:
    """ADK's dump of a result (`McpTool` renames every model's `_meta` to `meta`) as wire JSON again."""
    if isinstance(value, Mapping):
        wire: dict[str, Any] = {}
        for key, item in cast("Mapping[str, Any]", value).items():
            name = "_meta" if key == "meta" else key
            wire[name] = item if name in _OPAQUE else _wire(item)
        return wire
    if isinstance(value, list):
        return [_wire(item) for item in cast("list[Any]", value)]
    return value


def _turn_of(tool_context: Any) -> tuple[tuple[str, ...], Any]:
    """The ids of every function call the model made in the event that made this one, with that event (this call's
    id alone, and None, when that event is not found)."""
    own = cast("str | None", tool_context.function_call_id)
    for event in reversed(cast("list[Any]", tool_context.session.events)):
        content: Any = event.content
        parts = cast("list[Any]", (content.parts or []) if content is not None else [])
        ids = tuple(str(part.function_call.id) for part in parts if part.function_call is not None)
        if own in ids:
            return ids, event
    return (own or "",), None


def _callbacks(configured: Any) -> list[Any]:
    """An `LlmAgent` callback field (one callable, a list of them, or None) as the list ADK runs in order."""
    if configured is None:
        return []
    return list(cast("list[Any]", configured)) if isinstance(configured, list) else [configured]


def _require_last(tool_context: Any, field: str, own: Callable[..., Any]) -> None:
    """Refuse an agent whose `field` lacks, or does not end with, the adapter's `own` callback: without it no
    verbatim result answers; and ADK stops a callback chain at the first callback that returns a value, so a
    callback of the application's listed after the adapter's would never run on a verbatim result or its answer (its
    refusal or redaction bypassed), or would answer a call the adapter let through."""
    agent: Any = tool_context.get_invocation_context().agent
    listed = _callbacks(getattr(agent, field, None))
    name = getattr(agent, "name", "?")
    if own not in listed:
        raise ValueError(
            f"agent {name!r}: the {field} of direct_answers() is missing from the agent's {field}, so no verbatim "
            f'result would answer; give it: {field}=answers["{field}"], or {field}=[yours, answers["{field}"]]'
        )
    if listed[-1] is not own:
        raise ValueError(
            f"agent {name!r}: the {field} of direct_answers() must come last in the agent's {field} (ADK stops at "
            f"the first callback that returns a value, so a callback after it would not see a verbatim result); "
            f'list your own first: {field}=[yours, answers["{field}"]]'
        )


def _require_user_facing(tool_context: Any) -> None:
    """Refuse an agent that runs as a single-turn sub-agent (``mode="single_turn"`` under a parent agent): ADK runs it
    as a tool of its parent, whose model reads its answer (the host's view) and writes its own for the user."""
    agent: Any = tool_context.get_invocation_context().agent
    parent: Any = getattr(agent, "parent_agent", None)
    if parent is not None and getattr(agent, "mode", None) == "single_turn":
        name, above = getattr(agent, "name", "?"), getattr(parent, "name", "?")
        raise ValueError(
            f"agent {name!r} runs as a single-turn sub-agent of {above!r}: its answer goes to {above!r}'s model, "
            f"which writes its own in place of the host's view; give the toolset and direct_answers() to {above!r} "
            f"itself, leave {name!r}'s mode unset (a transfer to it answers the user), or call it through "
            f"AgentTool({name}, skip_summarization=True)"
        )


async def _listings(servers: Mapping[str, Any], tool_context: Any) -> dict[str, list[Any]]:
    """Each toolset's own listing of its tools, by server name."""
    return {name: cast("list[Any]", await toolset.get_tools(tool_context)) for name, toolset in servers.items()}


def _server_of(listings: Mapping[str, list[Any]], raw: Any) -> str | None:
    """The name of the one toolset whose listing holds the MCP tool `raw` (None when none does, or several list it
    alike: then which server answered cannot be told)."""
    found = [name for name, listed in listings.items() if any(_raw_tool(tool) == raw for tool in listed)]
    return found[0] if len(found) == 1 else None


def direct_answers(
    servers: Mapping[str, Any],
    *,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, Callable[..., Any]]:
    """The `before_tool_callback`, `after_tool_callback` and `after_agent_callback` of an `LlmAgent` (pass them with
    ``**``) that end the turn on a verbatim MCP result with the host's view as its text; see the module docstring.
    An agent with tool callbacks of its own lists them first: ``before_tool_callback=[yours,
    answers["before_tool_callback"]]``, and the same for `after_tool_callback`.

    Args:
        servers: each MCP server's name (shown in its results' captions) mapped to its `McpToolset`: the toolsets
            whose tools may answer directly.
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: by server name, the names (the server's own) of the tools whose verbatim result may end the turn;
            a server missing from it has none. None: every tool each server marks.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions` and `AllowByServer`), or
            `servers` is not a mapping of names to toolsets.
    """
    options = AnswerOptions(max_rows=max_rows, max_bytes=max_bytes, markdown=markdown)
    allowed = AllowByServer(allow)
    named = servers_by_name(servers, "McpToolsets")

    # The answers of each turn's calls so far (None: not verbatim), by invocation and the turn's call ids. ADK runs
    # a turn's calls concurrently and merges their actions; this callback's bookkeeping runs without awaiting, so
    # the last call of the turn to finish sees every other one and alone decides whether the summary is skipped. A
    # call whose after-tool callback never runs (an application's callback or plugin replaced the result first, the
    # call raised, the run was aborted) leaves its turn undecided: its entries go when the agent's turn ends, or
    # when ADK lets go of the model's event that made the turn's calls, and never meet another invocation's calls of
    # the same ids.
    turns: dict[tuple[str, tuple[str, ...]], dict[str, tuple[str | None, str]]] = {}
    # The toolsets' listings, read once per turn (the first of its results to need them) and shared by its calls:
    # a tool is captioned only when a listing of this turn holds it as the agent called it, so a listing changed
    # since the agent's own takes no route. They go with the turn, as `turns` does.
    listings: dict[tuple[str, tuple[str, ...]], asyncio.Task[dict[str, list[Any]]]] = {}

    # The finalizers tying each open turn to the model's event that made its calls.
    ends: dict[tuple[str, tuple[str, ...]], weakref.finalize[..., None]] = {}

    def forget(key: tuple[str, tuple[str, ...]]) -> None:
        end = ends.pop(key, None)
        if end is not None:
            end.detach()
        turns.pop(key, None)
        listing = listings.pop(key, None)
        if listing is not None:
            listing.cancel()

    # The calls the application's before-tool callbacks let through to the tool (ADK runs the after-tool callbacks
    # also on a response a before-tool callback gave in place of the call), as the call's own context, which ADK
    # shares between a call's callbacks: a mark goes with its call however the call ends (an error, a
    # cancellation), and never meets another call.
    let_through: weakref.WeakSet[Any] = weakref.WeakSet()

    def before_tool(tool: Any, args: dict[str, Any], tool_context: Any) -> None:
        # Every order, and where the answer goes, is checked before the call reaches the server.
        _require_user_facing(tool_context)
        _require_last(tool_context, "before_tool_callback", before_tool)
        _require_last(tool_context, "after_tool_callback", after_tool)
        _require_last(tool_context, "after_agent_callback", after_agent)
        let_through.add(tool_context)

    async def after_tool(
        tool: Any, args: dict[str, Any], tool_context: Any, tool_response: Any
    ) -> dict[str, Any] | None:
        # An agent without the adapter's `before_tool_callback` would read every call as answered by a callback
        # and silently take no route: refused here too, where ADK shows the agent's lists again.
        _require_last(tool_context, "before_tool_callback", before_tool)
        _require_last(tool_context, "after_tool_callback", after_tool)
        _require_last(tool_context, "after_agent_callback", after_agent)
        made = tool_context in let_through
        let_through.discard(tool_context)
        calls, made_by = _turn_of(tool_context)
        key = (cast("str", tool_context.invocation_id), calls)
        if key not in turns and made_by is not None:
            # An aborted run never reaches its turn's end nor `after_agent`: the turn's entries go with its event.
            ends[key] = weakref.finalize(made_by, forget, key)
        turns.setdefault(key, {})
        answer = await _verbatim_answer(tool, args, tool_context, tool_response, key) if made else None
        # From here on nothing awaits: the turn's bookkeeping below runs whole.
        answered = turns.setdefault(key, {})
        name = getattr(tool, "name", None)
        answered[cast("str", tool_context.function_call_id)] = (answer, name if isinstance(name, str) else "unknown")
        if len(answered) >= len(set(calls)):
            forget(key)
            if all(text is not None for text, _ in answered.values()):
                tool_context.actions.skip_summarization = True
                earlier = cast("list[dict[str, str]]", tool_context.state.get(ANSWER_KEY) or [])
                turn = [answered[call] for call in dict.fromkeys(calls)]
                # Each answer with its tool's name, so that a joined answer bounded by `max_bytes` names by tool
                # the results it leaves out.
                kept = [{"answer": text or "", "tool": tool} for text, tool in turn]
                tool_context.state[ANSWER_KEY] = [*earlier, *kept]
        return None if answer is None else {"answer": answer}

    async def _verbatim_answer(
        tool: Any, args: dict[str, Any], tool_context: Any, tool_response: Any, turn: tuple[str, tuple[str, ...]]
    ) -> str | None:
        raw = _raw_tool(tool)
        if raw is None or not isinstance(tool_response, Mapping):
            return None  # not an MCP tool's result
        response = cast("Mapping[str, Any]", tool_response)
        if "content" not in response:
            return None
        listing = listings.get(turn)
        if listing is None:
            listing = listings[turn] = asyncio.ensure_future(_listings(named, tool_context))
        server = _server_of(await asyncio.shield(listing), raw)
        if server is None or not allowed.allows(server, getattr(raw, "name", None)):
            return None
        return options.direct_answer(raw, _wire(response), arguments=args, default_server=server)

    def after_agent(callback_context: Any) -> Any:
        invocation = cast("str", callback_context.invocation_id)
        for key in [key for key in {*turns, *listings} if key[0] == invocation]:
            forget(key)
        answers = cast("list[dict[str, str]] | None", callback_context.state.get(ANSWER_KEY))
        if not answers:
            return None
        callback_context.state[ANSWER_KEY] = []
        text = options.join([entry["answer"] for entry in answers], [entry["tool"] for entry in answers])
        # ADK's own content type, from the environment the agent runs in (this package does not depend on it).
        genai: Any = importlib.import_module("google.genai.types")
        return genai.Content(role="model", parts=[genai.Part(text=text)])

    return {"before_tool_callback": before_tool, "after_tool_callback": after_tool, "after_agent_callback": after_agent}
