"""The whole result to the user in Semantic Kernel (`semantic-kernel[mcp]`): its own `terminate` route for the MCP
tools the server marks verbatim, and the host's view of the result as the final message's text.

Connect each MCP server with the adapter's plugin of its transport (`DirectAnswerMCPStdioPlugin`,
`DirectAnswerMCPStreamableHttpPlugin`, ...: SK's own plugin class, which also records each result as the server
sent it), and give the agent what `direct_answers` returns (one line per agent)::

    from mcp_rendering.integrations.semantic_kernel import DirectAnswerMCPStdioPlugin, direct_answers

    async with DirectAnswerMCPStdioPlugin(name="accounts", command="python", args=[...]) as plugin:
        agent = ChatCompletionAgent(name="analyst", plugins=[plugin], **direct_answers(service, {"accounts": plugin}))
        response = await agent.get_response(messages="Show the annual accounts")
        print(response)  # the host's view of the verbatim result: caption, notice, every record

`direct_answers` returns the keyword arguments ``service`` and ``kernel`` of SK's `ChatCompletionAgent`. The service
is a `DirectAnswerService`: a chat completion service that runs the wrapped service's own auto function invocation
loop, unchanged. The kernel is a new SK `Kernel`, or the application's own (``kernel=``), to which `direct_answers`
adds the service's auto-function-invocation filter, SK's public extension point for a function call the model asked
for, with SK's own `add_filter`; the agent adds its plugins to that kernel, as it does to any kernel it is given. The
filter acts only inside this service's calls (other services of the same kernel are not affected); the service
refuses to run with a kernel that lacks it (an application that gives the agent the service alone), rather than let
a verbatim result reach the model unnoticed.

SK's own plugin keeps only a result's content blocks (not `isError`, not the result's directive), so
`direct_answers` refuses (TypeError) a plugin that is not a `DirectAnswerMCPPlugin`. For a function of one of
`plugins` whose tool the server marks verbatim (the tool's hint), the filter hands the call on, unchanged, to the
rest of SK's chain (`await next(context)`: the auto-function-invocation filters added after it, then SK's own kernel
function of the tool with the kernel's function-invocation filters), having asked the plugin to record that call:
the function runs SK's own `call_tool` (its checks, its errors, its mapping of the result's blocks to SK contents),
whose session, the plugin's, then also hands the adapter the raw result. The tool called is the one SK's own
function calls, read from that function (SK keeps the first of the tools whose names it normalizes alike); a
function SK did not build from a tool (a prompt's) is untouched. SK keeps no tool's hints, so the filter lists the
server's tools as SK's plugin does (the first page), once each time the plugin loads its tools (again on the
server's ``notifications/tools/list_changed``). A subclass of the adapter's plugin whose `call_tool` does not hand
the call on to the adapter's keeps its calls (nothing is recorded: the route is not taken).

Every filter of the application sees the call as SK makes it, with SK's own kernel function (``context.function`` is
the object ``kernel.get_function(plugin, name)`` returns) and its arguments, whether added before or after this one:
one that refuses it (does not call ``next``) means no call is made, and SK goes on as it does without the adapter
(the model reads what the filter left); one that rewrites the arguments decides what the server receives; one that
replaces the function's result, or edits it in place (the list SK's `call_tool` returned, or a content of it: the
plugin keeps a copy of SK's contents as made, and the route is taken only from a result still equal to it), decides
what the model reads (the route is not taken: the service answers only when each result of the turn is still the
host's view its filter recorded, and otherwise hands the turn back to the model: SK's loop goes on with the rounds of
function calling it has left, then, none left, makes its last model call without functions, whose text is the
answer). From the raw result of the call the chain made:

- a result the host presents verbatim (`mcp_rendering.integrations.answer.final_answer`): the function's result is
  the host's view, and when every call of the model's turn answered so, the filter sets SK's `context.terminate`,
  so that no model call follows. SK then returns a tool message whose text is empty; the service returns in its
  place an assistant message whose one `TextContent` is the host's view (the caption, a partial result's notice
  with how to get the rest, every record, bounded by `max_rows` and `max_bytes`), so that ``str(message)`` and
  ``message.content`` are the answer, and a `ChatCompletionAgent` keeps it in its thread as the turn's answer;
- an error result: never ends the turn; the model reads the host's error line and the server's message (SK's own
  plugin would hand it the message as if it were data), and may correct its call;
- a result the host does not present verbatim (the result's directive says it may be summarized): the model reads
  the function's value as SK's plugin makes it (its text, image, audio, ... contents);
- a result SK's mapping fails on (a resource link, in semantic-kernel 1.45): the server did answer, and the plugin
  recorded its result before SK's mapping raised. SK's function raises its error, which the application's filters
  see as SK's error result; when they leave it as SK made it, the filter answers from the raw result as above (the
  host's view and the route, or an error result's line), and for a result the host does not present verbatim the
  model reads the host's text of it (caption and records) in place of SK's error, which would say the call failed;
- in a turn that also called another function, or an error: the model answers, having read every result, the
  verbatim ones as the host's view.

Functions of tools the server does not mark, and of other plugins, are untouched (their calls go through SK's
plugin as usual, which keeps no result's directive, so a result's own directive on such a tool does not take the
route). Streaming calls pass through unchanged.

An agent given to this one as a plugin (SK makes it a function of this agent's kernel), and named in ``plugins``
beside the servers, is followed as a verbatim tool is: it answers directly when the function's result is the very
message that agent's `DirectAnswerService` made in that call (its own route ended its turn), holding still the host's
view alone; any other result (its model's text, a copy, an edited message) is read by this agent's model. That agent
needs its own `direct_answers` line, in the same form (``markdown``).

Each plugin is its own server, named by the application where it gives the plugin to `direct_answers` (SK's own
plugin names allow only letters, digits and ``_``, so they cannot spell every server's name): a result's caption
names the server of the plugin that made the call, never one name for the whole agent, and ``allow`` maps a
server's name to the names (the server's own) of its tools that may answer directly, so a tool of the same name on
another server is not allowed by it. A server could mark every tool: name the ones you mean.
"""

from __future__ import annotations

import contextvars
import copy
import functools
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, cast

# Resolved where `semantic-kernel[mcp]` is installed; the project's own environment goes without it.
from pydantic import Field, InstanceOf, PrivateAttr
from semantic_kernel import (  # pyright: ignore[reportMissingImports]
    Kernel,  # pyright: ignore[reportUnknownVariableType]
)
from semantic_kernel.agents import (  # pyright: ignore[reportMissingImports]
    ChatCompletionAgent,  # pyright: ignore[reportUnknownVariableType]
)
from semantic_kernel.connectors.ai.chat_completion_client_base import (  # pyright: ignore[reportMissingImports]
    ChatCompletionClientBase,  # pyright: ignore[reportUnknownVariableType]
)
from semantic_kernel.connectors.mcp import (  # pyright: ignore[reportMissingImports]
    MCPPluginBase,  # pyright: ignore[reportUnknownVariableType]
    MCPSsePlugin,  # pyright: ignore[reportUnknownVariableType]
    MCPStdioPlugin,  # pyright: ignore[reportUnknownVariableType]
    MCPStreamableHttpPlugin,  # pyright: ignore[reportUnknownVariableType]
    MCPWebsocketPlugin,  # pyright: ignore[reportUnknownVariableType]
)
from semantic_kernel.contents import (  # pyright: ignore[reportMissingImports]
    ChatMessageContent,  # pyright: ignore[reportUnknownVariableType]
    FunctionResultContent,  # pyright: ignore[reportUnknownVariableType]
    TextContent,  # pyright: ignore[reportUnknownVariableType]
)
from semantic_kernel.functions import (  # pyright: ignore[reportMissingImports]
    FunctionResult,  # pyright: ignore[reportUnknownVariableType]
)

from mcp_rendering.integrations.answer import (
    DEFAULT_MAX_BYTES,
    AllowByServer,
    AnswerOptions,
    is_verbatim_tool,
    servers_by_name,
)

__all__ = [
    "ANSWER_METADATA_KEY",
    "DirectAnswerArguments",
    "DirectAnswerMCPPlugin",
    "DirectAnswerMCPSsePlugin",
    "DirectAnswerMCPStdioPlugin",
    "DirectAnswerMCPStreamableHttpPlugin",
    "DirectAnswerMCPWebsocketPlugin",
    "DirectAnswerService",
    "direct_answers",
]

ANSWER_METADATA_KEY = "mcp-rendering/answer"
"""The key of the answer message's `metadata`, True: the message is the host's view, not a model's text."""


class _MCPPlugin(Protocol):
    """The public members of SK's `MCPPluginBase` this module uses."""

    name: str
    session: Any
    load_tools_flag: bool

    async def call_tool(self, tool_name: str, **kwargs: Any) -> list[Any]: ...


@dataclass
class _Call:
    """The one call of a verbatim tool the filter follows through the rest of SK's chain, as the plugin records it."""

    plugin: object
    """The plugin whose function the call is."""
    tool_name: str
    """The tool called, by its name on the server."""
    arguments: dict[str, Any] = field(default_factory=dict[str, Any])
    """The arguments sent, as the chain's filters left them."""
    result: Any = None
    """The raw `CallToolResult` as the session received it; None until the server answered."""
    value: Any = None
    """SK's own mapping of the result's content blocks (the function's value); None if it raised."""
    made: Any = None
    """A deep copy of `value` taken when SK's `call_tool` returned it: what SK made, whatever a filter edits in place
    later (the list, or a content in it, or the server's block a content holds)."""
    unmapped: Exception | None = None
    """The error SK's mapping raised on the result the server sent (a resource link, in semantic-kernel 1.45)."""


_FOLLOWED: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("mcp_rendering_sk_followed", default=None)
"""The call the filter follows, while the rest of SK's chain runs (SK runs each call of a turn in its own task)."""
_CALLING: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("mcp_rendering_sk_calling", default=None)
"""The followed call while SK's `call_tool` runs it: the plugin's session then records its result."""


class _RecordingSession:
    """The plugin's MCP session as SK's `call_tool` calls it, for the one call followed: everything answers as the
    plugin's session, and the result of its `call_tool` is recorded in `call`."""

    def __init__(self, session: Any, call: _Call) -> None:
        self._session = session
        self._call = call

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> Any:
        result = await self._session.call_tool(name, arguments=arguments, **options)
        self._call.arguments, self._call.result = dict(arguments or {}), result
        return result


class DirectAnswerMCPPlugin(MCPPluginBase):  # pyright: ignore[reportUntypedBaseClass]
    """SK's MCP plugin, which also records for `direct_answers` the raw result (the `CallToolResult` as the server
    sent it) of each call of a verbatim tool that the service's filter follows; its tools, their functions, the
    call and SK's mapping of the result are SK's own. Use one of the ready ones (`DirectAnswerMCPStdioPlugin`,
    ...) in place of SK's class of the same transport, or combine it with your own: ``class Mine(
    DirectAnswerMCPPlugin, YourMCPPlugin)``. A subclass that overrides `call_tool` and does not hand the call on to
    this class's keeps its result with the model."""

    @property
    def session(self) -> Any:  # pyright: ignore[reportIncompatibleVariableOverride]
        """The plugin's MCP session (SK's); inside a call the filter follows, one that also records the result."""
        session = cast("Any", self.__dict__.get("_direct_answer_session"))
        call = _CALLING.get()
        if session is None or call is None or call.plugin is not self:
            return session
        return _RecordingSession(session, call)

    @session.setter
    def session(self, session: Any) -> None:  # pyright: ignore[reportIncompatibleVariableOverride]
        self.__dict__["_direct_answer_session"] = session

    async def call_tool(self, tool_name: str, **kwargs: Any) -> list[Any]:  # pyright: ignore[reportIncompatibleMethodOverride]
        """SK's own `call_tool` (its checks, its errors, its mapping of the result), recording the raw result of a
        call the filter follows."""
        call = _FOLLOWED.get()
        if call is None or call.plugin is not self or call.tool_name != tool_name or _CALLING.get() is not None:
            return cast("list[Any]", await cast("Any", super()).call_tool(tool_name, **kwargs))
        call.result = call.value = call.made = call.unmapped = None
        token = _CALLING.set(call)
        try:
            call.value = cast("list[Any]", await cast("Any", super()).call_tool(tool_name, **kwargs))
            call.made = copy.deepcopy(call.value)
        except Exception as error:
            if call.result is not None:  # the server answered: SK's mapping of its result raised
                call.unmapped = error
            raise
        finally:
            _CALLING.reset(token)
        return call.value


class DirectAnswerMCPStdioPlugin(DirectAnswerMCPPlugin, MCPStdioPlugin):  # pyright: ignore[reportUntypedBaseClass]
    """SK's `MCPStdioPlugin`, recording for `direct_answers` (see `DirectAnswerMCPPlugin`)."""


class DirectAnswerMCPStreamableHttpPlugin(DirectAnswerMCPPlugin, MCPStreamableHttpPlugin):  # pyright: ignore[reportUntypedBaseClass]
    """SK's `MCPStreamableHttpPlugin`, recording for `direct_answers` (see `DirectAnswerMCPPlugin`)."""


class DirectAnswerMCPSsePlugin(DirectAnswerMCPPlugin, MCPSsePlugin):  # pyright: ignore[reportUntypedBaseClass]
    """SK's `MCPSsePlugin`, recording for `direct_answers` (see `DirectAnswerMCPPlugin`)."""


class DirectAnswerMCPWebsocketPlugin(DirectAnswerMCPPlugin, MCPWebsocketPlugin):  # pyright: ignore[reportUntypedBaseClass]
    """SK's `MCPWebsocketPlugin`, recording for `direct_answers` (see `DirectAnswerMCPPlugin`)."""


def _sk_error_text(function: Any, error: Exception) -> str:
    """The function result SK's auto function invocation makes of an error the function raised (semantic-kernel
    1.45, `Kernel._inner_auto_function_invoke_handler`): what the model reads unless a filter replaced it."""
    return f"An error occurred while invoking the function {function.fully_qualified_name}: {error}"


def _called_tool(function: Any, plugins: Iterable[_MCPPlugin]) -> tuple[_MCPPlugin, str] | None:
    """The plugin of `plugins` and the name of the MCP tool that SK's kernel function `function` calls, read from
    the function itself: SK's plugin builds a tool's function on ``functools.partial(plugin.call_tool, name)``
    (`MCPPluginBase.load_tools`). None for any other function (a prompt's, another plugin's)."""
    method: object = getattr(function, "method", None)
    if not isinstance(method, functools.partial):
        return None
    bound = cast("functools.partial[Any]", method)
    name = bound.args[0] if len(bound.args) == 1 and not bound.keywords else None
    if not isinstance(name, str):
        return None
    for plugin in plugins:
        if bound.func == plugin.call_tool:
            return plugin, name
    return None


def _tool_functions(plugin: _MCPPlugin) -> list[object]:
    """The functions SK's plugin holds for its tools: it builds new ones each time it loads its tools (when it
    connects, and again on the server's ``notifications/tools/list_changed``)."""
    return [
        value
        for value in vars(plugin).values()
        if isinstance(value, functools.partial) and cast("functools.partial[Any]", value).func == plugin.call_tool
    ]


@dataclass
class _Listing:
    """The server's tools as the filter listed them for one plugin."""

    functions: list[object]
    """The tool functions SK's plugin held when listed."""
    tools: dict[str, Any]
    """The tools listed, by their name on the server."""

    def current(self, plugin: _MCPPlugin) -> bool:
        """Whether SK's plugin has not loaded its tools again since this listing."""
        now = _tool_functions(plugin)
        return len(now) == len(self.functions) and all(a is b for a, b in zip(now, self.functions, strict=True))


@dataclass
class _Turn:
    """What the filter records inside one call of the service."""

    owner: object
    answers: dict[str, str] = field(default_factory=dict[str, str])
    """The host's view of each verbatim result, by function call id."""
    verbatim_calls: dict[int, int] = field(default_factory=dict[int, int])
    """How many calls of each model request (SK's request index) answered verbatim."""
    ended_at: int | None = None
    """The request index of the round this filter ended (set SK's `terminate`), if it did."""


_TURN: contextvars.ContextVar[_Turn | None] = contextvars.ContextVar("mcp_rendering_sk_turn", default=None)


@dataclass
class _View:
    """An answer a `DirectAnswerService` made: its message and the host's view it holds."""

    service: object
    message: Any
    text: str

    def unchanged(self, value: object) -> bool:
        """Whether `value` is this answer's message, holding still the host's view alone."""
        if value is not self.message:
            return False
        items = cast("list[Any]", self.message.items)
        return len(items) == 1 and isinstance(items[0], TextContent) and items[0].text == self.text


_VIEWS: contextvars.ContextVar[list[_View] | None] = contextvars.ContextVar("mcp_rendering_sk_views", default=None)
"""The answers the services made while the rest of SK's chain ran one function call the filter follows (an agent
given to the caller as a plugin runs inside that call)."""


def _text(text: str, **options: Any) -> Any:
    """SK's `TextContent`."""
    return cast("Callable[..., Any]", TextContent)(text=text, **options)


class DirectAnswerService(ChatCompletionClientBase):  # pyright: ignore[reportUntypedBaseClass]
    """A chat completion service that ends the turn on a verbatim MCP result with the host's view as the answer,
    in a kernel holding its filter: `direct_answers` builds both (see the module docstring)."""

    inner: Any
    """The wrapped `ChatCompletionClientBase`: the service whose model answers, and whose auto function invocation
    loop runs."""
    plugins: tuple[Any, ...] = ()
    """The MCP plugins whose tools may answer directly."""
    agents: tuple[Any, ...] = ()
    """The agents (each given its own `direct_answers`) whose direct answer, as a function of this agent's kernel,
    may answer directly."""
    servers: dict[str, str] = Field(default_factory=dict[str, str])
    """The server name each plugin's results are captioned with, by SK plugin name."""
    options: InstanceOf[AnswerOptions] = Field(default_factory=AnswerOptions)
    """The host's options, checked when made (`direct_answers` takes them as keyword arguments)."""
    allowed: InstanceOf[AllowByServer] = Field(default_factory=AllowByServer)
    """By plugin name, the tools that may answer directly (`direct_answers`' ``allow``)."""

    _listings: dict[int, _Listing] = PrivateAttr(default_factory=dict[int, _Listing])
    """The tools of each plugin's server (by the plugin's `id`), listed when first needed."""

    def get_prompt_execution_settings_class(self) -> Any:
        return self.inner.get_prompt_execution_settings_class()

    async def get_chat_message_contents(self, chat_history: Any, settings: Any, **kwargs: Any) -> list[Any]:
        """The wrapped service's answer, with a turn ended on verbatim results answered by the host's view."""
        kernel = kwargs.get("kernel")
        if kernel is not None and not self._filters(kernel):
            raise ValueError(
                "the kernel lacks this service's filter: give the agent both the service and the kernel that"
                " direct_answers returns, ChatCompletionAgent(..., **direct_answers(service, plugins)), or, for a"
                " kernel of your own, ChatCompletionAgent(..., **direct_answers(service, plugins, kernel=kernel))"
            )
        rounds = settings
        while True:
            turn = _Turn(owner=self)
            token = _TURN.set(turn)
            try:
                responses = cast(
                    "list[Any]", await self.inner.get_chat_message_contents(chat_history, rounds, **kwargs)
                )
            finally:
                _TURN.reset(token)
            if turn.ended_at is None or not any(self._replaced(response, turn) for response in responses):
                answers = [self._answer(response, turn) for response in responses]
                views = _VIEWS.get()
                if views is not None:  # run inside a call a caller's filter follows: it may answer with these
                    views.extend(
                        _View(self, answer, cast("str", answer.content))
                        for answer, response in zip(answers, responses, strict=True)
                        if answer is not response
                    )
                return answers
            # A filter that ran after this one's (one added before it) replaced a verbatim result of the turn this
            # filter ended: no route. SK's loop goes on from the history it left, as it would have without the
            # stop: with the rounds of function calling left, then (none left) one call without function calling.
            rounds = self._rest(rounds, turn.ended_at + 1)

    @staticmethod
    def _rest(settings: Any, used: int) -> Any:
        """A copy of `settings` for the rest of SK's loop once `used` of its rounds have run: the rounds left, or,
        none left, no function calling (SK's own last call: its function choice's settings reset)."""
        rest = copy.deepcopy(settings)
        behavior = rest.function_choice_behavior
        left = cast("int", behavior.maximum_auto_invoke_attempts) - used
        if left > 0:
            behavior.maximum_auto_invoke_attempts = left
        else:
            rest.function_choice_behavior = None
        return rest

    async def get_streaming_chat_message_contents(
        self, chat_history: Any, settings: Any, **kwargs: Any
    ) -> AsyncGenerator[list[Any], Any]:
        """The wrapped service's stream, unchanged (the route is taken in non-streaming calls only)."""
        async for chunks in self.inner.get_streaming_chat_message_contents(chat_history, settings, **kwargs):
            yield cast("list[Any]", chunks)

    def _filters(self, kernel: Any) -> bool:
        """Whether `kernel` holds this service's filter (SK's public list of them, read only)."""
        filters = cast("list[tuple[int, Any]]", kernel.auto_function_invocation_filters)
        return any(function == self._answer_filter for _, function in filters)

    @staticmethod
    def _ended(response: Any, turn: _Turn) -> list[Any] | None:
        """The function results of SK's tool message for a turn this service's filter ended (each call answered
        verbatim); None for any other response."""
        items = cast("list[Any]", response.items)
        if response.role != "tool" or not items:
            return None
        if not all(isinstance(item, FunctionResultContent) and item.id in turn.answers for item in items):
            return None
        return items

    def _replaced(self, response: Any, turn: _Turn) -> bool:
        """Whether a result of a turn this service's filter ended is no longer the host's view it recorded: a
        filter that ran after this one's returned (added before it) replaced it."""
        items = self._ended(response, turn)
        return items is not None and any(item.result != turn.answers[item.id] for item in items)

    def _answer(self, response: Any, turn: _Turn) -> Any:
        """The host's view in place of SK's tool message for a turn this service's filter ended."""
        items = self._ended(response, turn)
        if items is None:
            return response
        ids = [getattr(item, "id", None) for item in items]
        text = self.options.join(
            [turn.answers[cast("str", call_id)] for call_id in ids],
            [str(getattr(item, "function_name", None) or "unknown") for item in items],
        )
        message = cast("Callable[..., Any]", ChatMessageContent)
        return message(
            role="assistant",
            items=[_text(text)],
            name=response.name,
            metadata={ANSWER_METADATA_KEY: True},
        )

    async def _tool(self, plugin: _MCPPlugin, tool_name: str) -> Any:
        """The server's tool `tool_name` (its hints decide the route), listed as SK's plugin lists it (the first
        page), once for each time SK's plugin loads its tools; None when not listed or not connected."""
        listing = self._listings.get(id(plugin))
        if (listing is None or not listing.current(plugin)) and plugin.session is not None:
            functions = _tool_functions(plugin)
            page = await plugin.session.list_tools()
            tools: dict[str, Any] = {}
            for tool in cast("list[Any]", page.tools):
                tools.setdefault(cast("str", tool.name), tool)
            listing = self._listings[id(plugin)] = _Listing(functions, tools)
        return listing.tools.get(tool_name) if listing is not None else None

    async def _answer_filter(self, context: Any, next: Callable[[Any], Awaitable[None]]) -> None:
        """The auto-function-invocation filter `direct_answers` adds to the agent's kernel (see the module
        docstring): for a call of a verbatim tool of `plugins` inside this service's calls, it keeps the raw result
        of the call the rest of SK's chain makes; it hands every call on."""
        turn = _TURN.get()
        called = _called_tool(context.function, cast("tuple[_MCPPlugin, ...]", self.plugins))
        if turn is not None and turn.owner is self and called is not None:
            plugin, tool_name = called
            tool = await self._tool(plugin, tool_name)
            server = self.servers.get(plugin.name)
            if tool is not None and self.allowed.allows(server, tool.name) and is_verbatim_tool(tool):
                await self._through_chain(plugin, tool, context, next, turn)
                return
        if turn is None or turn.owner is not self or not self.agents:
            await next(context)
            return
        views: list[_View] = []
        token = _VIEWS.set(views)
        try:
            await next(context)
        finally:
            _VIEWS.reset(token)
        # The function's result is a listed agent's direct answer only if it IS the message that agent's service
        # made in this call, unchanged: no tool, server or filter can make that object.
        outcome = context.function_result
        value: object = outcome.value if outcome is not None else None
        services = [agent.service for agent in self.agents]
        for view in views:
            if any(view.service is service for service in services) and view.unchanged(value):
                self._answered(context, turn, view.text)
                return

    @staticmethod
    def _answered(context: Any, turn: _Turn, view: str) -> None:
        """Record the host's view `view` as the answer of the call of `context`; end the turn (SK's `terminate`)
        once every call of the model's step answered so."""
        function_call = context.function_call_content
        turn.answers[cast("str", (function_call.id if function_call is not None else None) or "unknown")] = view
        request = cast("int", context.request_sequence_index)
        turn.verbatim_calls[request] = turn.verbatim_calls.get(request, 0) + 1
        if turn.verbatim_calls[request] >= cast("int", context.function_count):
            context.terminate = True
            turn.ended_at = request

    async def _through_chain(
        self, plugin: _MCPPlugin, tool: Any, context: Any, next: Callable[[Any], Awaitable[None]], turn: _Turn
    ) -> None:
        """Hand the call on to the rest of SK's chain (the filters added after this one, then SK's own function with
        its function-invocation filters), its plugin recording the raw result; then answer from it, if the chain
        made the call and left its outcome as SK made it (the same list, still equal to the copy taken then)."""
        function = context.function
        call = _Call(plugin=plugin, tool_name=cast("str", tool.name))
        token = _FOLLOWED.set(call)
        try:
            await next(context)
        finally:
            _FOLLOWED.reset(token)
        outcome = context.function_result
        if call.result is None or outcome is None:
            return  # refused, or failed before the server answered: SK's own outcome stands
        if call.value is not None:
            if outcome.value is not call.value or outcome.value != call.made:
                return  # its result replaced, or edited in place, by a filter: the model reads the filter's
        elif call.unmapped is None or outcome.value != _sk_error_text(function, call.unmapped):
            return  # failed otherwise, or SK's error replaced by a filter
        server = self.servers.get(plugin.name)
        answer = self.options.answer(tool, call.result, arguments=call.arguments, default_server=server)
        if answer.is_error:
            context.function_result = FunctionResult(function=function.metadata, value=answer.text)
            return
        if not answer.verbatim:
            if call.value is None:
                # SK could not map the result: the model reads the host's text of it, not that the call failed.
                context.function_result = FunctionResult(function=function.metadata, value=self.options.text(answer))
            return  # otherwise the model reads the content blocks as SK mapped them
        view = self.options.text(answer)
        context.function_result = FunctionResult(function=function.metadata, value=view)
        self._answered(context, turn, view)


class DirectAnswerArguments(TypedDict):
    """The keyword arguments of SK's `ChatCompletionAgent` that `direct_answers` returns (pass them with ``**``)."""

    service: DirectAnswerService
    """The agent's chat completion service, wrapped."""
    kernel: Any
    """The agent's SK `Kernel`, holding the service's filter; the agent adds its plugins to it."""


def direct_answers(
    service: Any,
    plugins: Mapping[str, Any],
    *,
    kernel: Any = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    markdown: bool = False,
    allow: Mapping[str, Iterable[str]] | None = None,
) -> DirectAnswerArguments:
    """The ``service`` and ``kernel`` of an SK `ChatCompletionAgent` (pass them with ``**``) that end the turn on a
    verbatim result of an MCP tool of `plugins` with the host's view as the answer; see the module docstring.

    Args:
        service: the chat completion service whose model answers otherwise (any SK chat completion service).
        plugins: each MCP server's name (shown in its results' captions) mapped to its plugin (connected): the
            plugins whose tools may answer directly; and a name for each `ChatCompletionAgent` given to this agent
            as a plugin (built with its own `direct_answers`) whose direct answer may end this agent's turn. Give
            the agent the same plugins and agents (``plugins=[...]``).
        kernel: the application's own SK `Kernel` for the agent, to which the service's filter is added (SK's
            `add_filter`); None: a new one.
        max_rows: the host's bound on the records shown.
        max_bytes: the host's bound on the size of the records shown (None: no bound).
        markdown: answer with the Markdown form (every server string escaped or fenced) for a front end that
            renders the answer as Markdown; the plain text form otherwise, whose server text is raw.
        allow: by server name, the names (the server's own) of the tools whose verbatim result may end the turn; a
            server missing from it has none. None: every tool each server marks.

    Raises:
        TypeError, ValueError: an option of the wrong type or range (see `AnswerOptions` and `AllowByServer`),
            `plugins` is not a mapping of names to the adapter's plugins or to agents built with `direct_answers`
            in the same ``markdown`` form, or `kernel` is not an SK `Kernel`.
    """
    options = AnswerOptions(max_rows=max_rows, max_bytes=max_bytes, markdown=markdown)
    given = servers_by_name(plugins, "MCP plugins or agents", argument="plugins")
    agents = {name: agent for name, agent in given.items() if isinstance(agent, ChatCompletionAgent)}
    for name, agent in agents.items():
        nested = agent.service
        if not isinstance(nested, DirectAnswerService) or not nested._filters(agent.kernel):  # pyright: ignore[reportPrivateUsage]
            raise TypeError(
                f"the agent {name!r} does not answer directly: build it with its own line,"
                " ChatCompletionAgent(..., **direct_answers(service, plugins)), before giving it to another"
            )
        if nested.options.markdown != options.markdown:
            raise ValueError(
                f"the agent {name!r} answers in the {'Markdown' if nested.options.markdown else 'plain text'} form:"
                " give both agents the same markdown option"
            )
    named = cast("Mapping[str, _MCPPlugin]", {name: plugin for name, plugin in given.items() if name not in agents})
    for name, plugin in named.items():
        if not isinstance(plugin, DirectAnswerMCPPlugin):
            raise TypeError(
                f"the plugin of server {name!r} is a {type(plugin).__name__}: make each plugin given to"
                " direct_answers one of mcp_rendering.integrations.semantic_kernel's DirectAnswerMCPStdioPlugin,"
                " DirectAnswerMCPStreamableHttpPlugin, DirectAnswerMCPSsePlugin or DirectAnswerMCPWebsocketPlugin"
                " (SK's plugin of that transport, which also records each result as the server sent it), or a"
                " subclass of DirectAnswerMCPPlugin; or a ChatCompletionAgent built with its own direct_answers"
            )
    if kernel is not None and not isinstance(kernel, Kernel):
        raise TypeError(f"kernel must be a semantic_kernel Kernel, not {type(kernel).__name__}")
    agent_kernel = cast("Any", Kernel() if kernel is None else kernel)
    answering = DirectAnswerService(
        inner=service,
        plugins=tuple(named.values()),
        agents=tuple(agents.values()),
        servers={plugin.name: name for name, plugin in named.items()},
        options=options,
        allowed=AllowByServer(allow),
        service_id=cast("str", service.service_id),
        ai_model_id=cast("str", service.ai_model_id),
        instruction_role=cast("str", service.instruction_role),
    )
    agent_kernel.add_filter("auto_function_invocation", answering._answer_filter)  # pyright: ignore[reportPrivateUsage]
    return {"service": answering, "kernel": agent_kernel}
