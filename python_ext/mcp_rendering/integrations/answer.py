"""The host's view of one tool result as an agent's final answer: what the framework adapters hand the user when a
framework's own return-direct route ends the turn on a verbatim result, so that no model rewrites it.

`final_answer` builds it from the tool and its `CallToolResult`:

- a result the host presents verbatim (`Presentation.mode`): the caption naming the tool and server first, then
  `present()`'s text (or Markdown), which opens with the notice of a partial result, saying how to get the rest;
- an error result: a line of the host's saying the tool failed, then the server's message as `present()` shows
  server text (hidden characters escaped; fenced in Markdown); when the host's bounds cut the message, a line
  saying how much of it the answer shows, and why, comes before it;
- a result the host's bounds cut (`max_rows`, `max_bytes`): an answer has no full result behind it for the user to
  open, so in place of `present()`'s notice a line saying exactly what the answer shows ("the first 3 of 10
  lines", "2 of 5 records", "the first 90 of 1000 content blocks" of a result with no text), which bound cut it
  (the most records the host puts in one answer, or as many as fit its byte bound), that the others are not in
  the answer (nor, for a page of a partial result, what the server has after it), and what the user can do: ask
  again with a narrower query, or what the application offers (`how_to_see_more`: an application that keeps the
  result answers again with `first_row=answer.presentation.next_first_row`, as `present()` pages);
- a result with nothing to show: a line of the host's saying so; when the host's byte bound is why (a single line
  larger than `max_bytes`), the line says so, with the result's size and the bound, and that a narrower query is
  the way to see it;
- a result whose completeness the server did not state (a tool's hint without a result directive): in place of
  `present()`'s partial notice, a neutral line saying the server did not say whether it is the whole result (the
  host cannot know that part of it is missing); `FinalAnswer.complete` stays False.

The host's own lines always come first and the server's text after them, so that nothing the server writes can
pass for the host's: a server line imitating a caption or a notice sits below the real one. Where the server's
text holds a line worded like one of the host's (`mcp_rendering.host.imitates_host`: opening as a line of
`mcp_rendering.host.HOST_LINES` does, this module's among them, spelled or marked up otherwise, speaking of a host,
or claiming in the usual words that the result is whole), a host line, `IMITATION_WARNING`, comes just before that
text, so that such a line cannot pass for the host's where the host's lines end. The answer is bounded as
`present()` bounds it (`max_rows`, `max_bytes`); by default, `DEFAULT_MAX_BYTES`, since an answer has no
scroll-back the host controls. So is its work, in records: the result is read once, in time linear in its size, and
rendered whole at most twice (the model's copy `present()` makes of a page holding every record, and the user's
view only when the whole could fit `max_bytes`); the page shown is searched among pages of at most about twice its
records, so a huge result (50 MB of text, a million records) costs one reading and renderings of pages near the one
shown. The pages of a text result are measured from its lines, each made visible once, so only the page shown is
rendered, whatever the number of lines or blocks (see the host guide's "Your own bounds").

`join_answers` puts several answers in one, each closed by a host line whose mark no server text can hold,
bounded as a whole by the same `max_bytes` (a host line first names the answers left out, by order and tool);
`other_calls_line` is the host line opening an answer that leaves out other calls of its step (a
framework whose route ends on the step's first direct result).
`is_verbatim_tool` reads a tool's hint, for routes that must be chosen before any call (a flag set when the tools
are loaded).

`AnswerOptions` holds the options every framework adapter takes, under the same keyword names (`server`,
`max_rows`, `max_bytes`, `markdown`, `allow`), checked once when made, and the one rule for taking a route:

- a route the framework fixes before any result (a flag set when the tools are loaded) is set on a tool whose hint
  reads verbatim (`AnswerOptions.selects`); a result's own directive cannot take it;
- a route the framework takes after the call is taken for a result the host presents verbatim, from the tool's
  hint or the result's directive, that is not an error (`AnswerOptions.direct_answer`);
- either way, only for a tool `allow` names, when it names any.

An adapter whose one entry point serves every MCP server of an agent (Google ADK, Haystack, Semantic Kernel,
Strands, Pydantic AI) names each result's server from what produced it (the toolset or plugin, named by the
application where the framework gives it no name), never from one option for the whole agent, and takes `allow`
keyed by server (`AllowByServer`: each server's name mapped to its tools' names), so that a second server's tool of
the same name is not allowed by the first's entry; it takes no `server` keyword. The adapters made for one server
(one toolkit, tool spec or server class) take `server` and `allow` as tool names, that server's.

Each adapter's entry point spells the keywords out, with `AnswerOptions`' types and defaults (a test keeps the
copies alike), rather than sharing one `TypedDict` through ``**options: Unpack[...]``: a `TypedDict` holds no
defaults, so signatures and their reference pages would lose `DEFAULT_MAX_BYTES`; `Unpack` needs Python 3.11 or a
new dependency on this package's 3.10; and it closes the keywords of an entry point that also forwards the
framework's own (Agno's toolkit takes `MCPTools`' arguments beside these).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from mcp_rendering.host import (
    ANSWER_ERROR,
    ANSWER_MESSAGE_FOLLOWS,
    ANSWER_NOTHING,
    ANSWER_OVER_BOUND,
    IMITATION_WARNING,
    JOINED_END,
    JOINED_HEAD,
    NAME_LIMIT,
    NARROWER_QUERY,
    OTHER_CALLS_OPENING,
    OVER_BOUND,
    UNSTATED_COMPLETENESS,
    Presentation,
    present,
    quote,
    tool_result_wire,
)
from mcp_rendering.reading import read_tool_hints
from mcp_rendering.render import markdown_escape
from mcp_rendering.types import PARTIAL_MARKER

__all__ = [
    "DEFAULT_MAX_BYTES",
    "IMITATION_WARNING",
    "NARROWER_QUERY",
    "OTHER_CALLS_OPENING",
    "UNSTATED_COMPLETENESS",
    "AllowByServer",
    "AnswerOptions",
    "FinalAnswer",
    "final_answer",
    "is_verbatim_tool",
    "join_answers",
    "other_calls_line",
]

DEFAULT_MAX_BYTES = 512 * 1024
"""The default bound on the UTF-8 size of the records shown in an answer (the host's lines come on top)."""


@dataclass(frozen=True)
class FinalAnswer:
    """What the user receives as the agent's final answer for one tool result."""

    text: str
    """The answer as plain text: the host's lines (caption, notice or error line), then the result."""
    markdown: str
    """The same answer as Markdown, every server string escaped or fenced."""
    verbatim: bool
    """True when the host presents the result verbatim: a return-direct route should end the turn with it."""
    is_error: bool
    """True for an error result (`isError`)."""
    complete: bool
    """False when the answer shows only part of the result (its notice then says what it shows and what the user
    can do) or when the server did not state that the result is whole (a neutral line then says so)."""
    presentation: Presentation
    """The presentation the answer was built from (what the model would have received, and `next_arguments`)."""


def is_verbatim_tool(tool: Any) -> bool:
    """Whether the tool's own hint asks that its results be shown verbatim (a carrier that is not clean reads
    verbatim, as everywhere in the extension). A tool that cannot be read at all is not taken as verbatim."""
    try:
        return read_tool_hints(tool).verbatim_hint is True
    except (TypeError, ValueError):
        return False


def _name(tool: Any) -> str:
    name: object = (
        cast("Mapping[str, Any]", tool).get("name") if isinstance(tool, Mapping) else getattr(tool, "name", None)
    )
    return name if isinstance(name, str) and name else "unknown"


def _source(tool: Any, server: str | None) -> str:
    who = f"tool {quote(_name(tool)[:NAME_LIMIT])}"
    return f"{who} of server {quote(server[:NAME_LIMIT])}" if server else who


def _unstated_notice(presentation: Presentation) -> str | None:
    """The neutral line replacing `present()`'s partial notice when the only reason for it is that the server did
    not state completeness (no continuation, nothing cut by the host); None otherwise."""
    if presentation.notice is None or presentation.server_completeness != "not-stated" or presentation.host_bounded:
        return None
    return UNSTATED_COMPLETENESS


def _text_size(wire: Mapping[str, Any]) -> int:
    """The UTF-8 size of the result's text blocks."""
    content: object = wire.get("content")
    blocks = cast("list[object]", content) if isinstance(content, list) else []
    return sum(
        len(text.encode("utf-8", "surrogatepass"))
        for block in blocks
        if isinstance(block, Mapping) and isinstance(text := cast("Mapping[str, Any]", block).get("text"), str)
    )


def _cut_notice(presentation: Presentation, bounds: tuple[int | None, int | None], how_to_see_more: str | None) -> str:
    """The notice of an answer the host's bounds (`max_rows`, `max_bytes`) or `first_row` cut: what it shows, which
    bound, that the others are not in it, and what the user can do. The facts are `present()`'s (its extent, the
    bound that cut it, what the server said of completeness); its notice speaks of a view the user can page, which
    an answer is not."""
    state = presentation.server_completeness
    of = {
        "complete": "a result the server sent whole",
        "partial": "one page of a partial result",
        "not-stated": "a result the server did not say was whole",
    }[state]
    notice = f"{PARTIAL_MARKER} this answer shows {presentation.extent} of {of}"
    max_rows, max_bytes = bounds
    if presentation.cut_by is None:  # the last part of a paged answer: only what came before is cut
        notice += "; what comes before is not in it"
    elif presentation.cut_by == "max_rows":
        notice += f" (this host's bound: {max_rows} per answer); the others are not in it"
    else:
        notice += f" (as many as fit this host's bound of {max_bytes} bytes per answer); the others are not in it"
    if state == "partial":
        notice += ", nor what the server has after this page"
    return f"{notice}. {how_to_see_more or NARROWER_QUERY}"


def _over_bound(presentation: Presentation, records_text: str) -> bool:
    """Whether nothing of the result fits the byte bound: no record shown, or one shown alone over it."""
    return not records_text.strip() or OVER_BOUND in (presentation.notice or "")


def _message_cut_notice(presentation: Presentation, bounds: tuple[int | None, int | None]) -> str:
    """The line of an error answer whose message the host's bounds cut: how much of it the answer shows, which bound
    cut it, and that the rest is not in it."""
    max_rows, max_bytes = bounds
    why = (
        f"this host's bound: {max_rows} per answer"
        if presentation.cut_by == "max_rows"
        else f"as many as fit this host's bound of {max_bytes} bytes per answer"
    )
    return (
        f"{PARTIAL_MARKER} this answer shows {presentation.extent} of the server's message ({why}); the others are not"
        " in it."
    )


def _split_notice(view: str, notice: str | None, markdown: bool) -> tuple[str, str]:
    """The view's opening notice (the host's line, empty when it has none) and its records."""
    lead = "" if notice is None else f"> {markdown_escape(notice)}\n\n" if markdown else f"{notice}\n\n"
    if lead and view.startswith(lead):
        return lead.strip("\n"), view[len(lead) :].strip("\n")
    return "", view.strip("\n")


def final_answer(
    tool: Any,
    result: Any,
    *,
    server: str | None = None,
    max_rows: int | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    arguments: Mapping[str, Any] | None = None,
    first_row: int = 0,
    how_to_see_more: str | None = None,
) -> FinalAnswer:
    """The host's view of `result` (a result of `tool`) as the final answer; see the module docstring.

    Args:
        tool: the `Tool` (SDK model of any version, or wire dict) that produced the result; None if unknown (a
            framework's tool object without the server's definition is unknown too: see `mcp_rendering.present`).
        result: the `CallToolResult` (SDK model, a framework's own of that shape, or wire dict).
        server: the server's name, shown in the caption and in an error line.
        max_rows: the host's bound on the records shown (see `mcp_rendering.present`).
        max_bytes: the host's bound on the size of the records shown; None for none.
        arguments: the arguments of the call, so that a partial result's notice can offer the next call; None when
            they are not known (as for `mcp_rendering.present`: a continuation is then not offered, and a result of a
            tool that declares a continuation argument may be a later part), `{}` for a call without any.
        first_row: the first record to show, as for `present()`: an application that offers the records an answer
            left out answers again with `first_row=answer.presentation.next_first_row`.
        how_to_see_more: the application's own sentence telling the user how to see the records an answer its
            bounds cut leaves out (say, a command that shows the next ones); by default, `NARROWER_QUERY`.

    Raises:
        TypeError: `result` is not a tool result, or `how_to_see_more` is not a string.
        ValueError: `how_to_see_more` is blank or more than one line; a bound or `first_row` `present()` refuses.
    """
    if how_to_see_more is not None and not isinstance(how_to_see_more, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"how_to_see_more must be a string or None, not {type(how_to_see_more).__name__}")
    if how_to_see_more is not None and (not how_to_see_more.strip() or len(how_to_see_more.splitlines()) > 1):
        raise ValueError("how_to_see_more must be one line of text")
    wire = tool_result_wire(result)
    presentation = present(
        tool,
        wire,
        server=server,
        max_rows=max_rows,
        max_bytes=max_bytes,
        arguments=arguments,
        first_row=first_row,
    )
    source = _source(tool, server)
    notice_text, records_text = _split_notice(presentation.text, presentation.notice, markdown=False)
    notice_markdown, records_markdown = _split_notice(presentation.markdown, presentation.notice, markdown=True)
    if wire.get("isError") is True:
        # An error message is no set of records, so no partial notice goes with it: only a line saying what the
        # host's byte bound left out of it, if anything.
        head = ANSWER_ERROR.format(source=source)
        cut = ""
        if _over_bound(presentation, records_text) and presentation.host_bounded and max_bytes is not None:
            cut = ANSWER_OVER_BOUND.format(source=source, size=_text_size(wire), bound=max_bytes)
            records_text = records_markdown = ""
        elif records_text.strip():
            head += ANSWER_MESSAGE_FOLLOWS
            if presentation.extent is not None:
                cut = _message_cut_notice(presentation, (max_rows, max_bytes))
        text = "\n\n".join(line for line in (head, cut, records_text) if line.strip())
        markdown = "\n\n".join(
            line for line in (markdown_escape(head), markdown_escape(cut), records_markdown) if line.strip()
        )
        return FinalAnswer(text, markdown, presentation.mode == "verbatim", True, presentation.complete, presentation)
    unstated = _unstated_notice(presentation)
    if presentation.extent is not None:
        notice_text = _cut_notice(presentation, (max_rows, max_bytes), how_to_see_more)
        notice_markdown = f"> {markdown_escape(notice_text)}"
    elif unstated is not None:
        notice_text, notice_markdown = unstated, markdown_escape(unstated)
    empty = ""
    if _over_bound(presentation, records_text) and presentation.host_bounded and max_bytes is not None:
        # Nothing fits the bound (a first record larger than it, which `present()` pages alone): an answer has no
        # pages, so it says so rather than show a record over its bound.
        size = _text_size(wire)
        empty = ANSWER_OVER_BOUND.format(source=source, size=size, bound=max_bytes)
        notice_text = notice_markdown = records_text = records_markdown = ""
    elif not records_text.strip():
        empty = ANSWER_NOTHING.format(source=source)
    # `present()`'s records open with `IMITATION_WARNING` when a server line is worded like the host's.
    text_lines = (presentation.caption, empty, notice_text, records_text)
    markdown_lines = (presentation.caption_markdown, markdown_escape(empty), notice_markdown, records_markdown)
    return FinalAnswer(
        "\n\n".join(line for line in text_lines if line),
        "\n\n".join(line for line in markdown_lines if line),
        presentation.mode == "verbatim",
        False,
        presentation.complete,
        presentation,
    )


def join_answers(
    answers: Sequence[str],
    *,
    markdown: bool = False,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    names: Sequence[str] | None = None,
) -> str:
    """Several answers (of one turn, in the order called) as one: a host line first saying how many follow and the
    mark of the host's end lines, then each answer closed by its end line. The mark is drawn from a digest of every
    answer, so no server text can hold it (it would have to contain a digest of itself), and a server's body
    imitating an end line and the next caption is told apart. One answer is returned as it is.

    `max_bytes` bounds the whole answer as `final_answer` bounds one (the UTF-8 size of the answers; the host's lines
    come on top; None for no bound): the first answer is always kept (it is bounded on its own), each next one while
    the answers kept so far fit. The answers left out are named, before any server text, in a host line saying which
    (their order, and their tools' `names` when given, one per answer) and why.

    Raises:
        ValueError: `names` does not name every answer.
    """
    if names is not None and len(names) != len(answers):
        raise ValueError(f"names must name every answer: {len(names)} names for {len(answers)} answers")
    kept = _fitting_answers(answers, max_bytes)
    left_out = _left_out_line(len(answers), kept, max_bytes, names[kept:] if names is not None else None)
    shown = answers[:kept]
    if len(shown) <= 1:
        lines = [left_out, *shown] if left_out else list(shown)
        if markdown and left_out:
            lines[0] = markdown_escape(left_out)
        return "\n\n".join(lines)
    digest = hashlib.sha256("\0".join(shown).encode("utf-8", "surrogatepass")).hexdigest()
    windows = (digest[start : start + 12] for start in range(len(digest) - 11))
    mark = next((window for window in windows if not any(window in answer for answer in shown)), digest)
    count = len(shown)
    host_lines = [JOINED_HEAD.format(count=count, mark=mark), *([left_out] if left_out else [])]
    if markdown:
        host_lines = [markdown_escape(line) for line in host_lines]
    lines = list(host_lines)
    for index, answer in enumerate(shown, 1):
        end = JOINED_END.format(index=index, count=count, mark=mark)
        lines += [answer, markdown_escape(end) if markdown else end]
    return "\n\n".join(lines)


def _fitting_answers(answers: Sequence[str], max_bytes: int | None) -> int:
    """How many of `answers`, from the first, the whole answer holds within `max_bytes` (the first always)."""
    if max_bytes is None:
        return len(answers)
    total = 0
    for index, answer in enumerate(answers):
        total += len(answer.encode("utf-8", "surrogatepass"))
        if index and total > max_bytes:
            return index
    return len(answers)


def _left_out_line(count: int, kept: int, max_bytes: int | None, names: Sequence[str] | None) -> str:
    """The host line naming the answers `join_answers` leaves out (empty when it keeps them all)."""
    if kept >= count:
        return ""
    which = f"result {count}" if kept + 1 == count else f"results {kept + 1} to {count}"
    if names:
        which += f", of {_tools(names)},"
    return (
        f"{PARTIAL_MARKER} this answer shows the first {kept} of {count} results (as many as fit this host's bound"
        f" of {max_bytes} bytes per answer); {which} {'is' if kept + 1 == count else 'are'} not in it."
        f" {NARROWER_QUERY}"
    )


def _tools(names: Sequence[str]) -> str:
    quoted = [quote(name[:NAME_LIMIT]) for name in dict.fromkeys(names)]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
    return f"tool{'s' if len(quoted) > 1 else ''} {listed}"


def other_calls_line(not_shown: Sequence[str], not_run: Sequence[str] = (), *, markdown: bool = False) -> str:
    """The host line opening an answer that leaves out other calls of its step, naming their tools: `not_shown`,
    calls that ran but whose results the answer does not hold; `not_run`, calls the framework never ran. Empty when
    both are empty. The line comes before any server text, so that none can pass for it."""
    parts: list[str] = []
    if not_shown:
        parts.append(f"{_tools(not_shown)}, whose result{'s are' if len(not_shown) > 1 else ' is'} not shown here")
    if not_run:
        parts.append(f"{_tools(not_run)}, which {'were' if len(not_run) > 1 else 'was'} not run")
    if not parts:
        return ""
    line = f"{OTHER_CALLS_OPENING}{'; and '.join(parts)}."
    return markdown_escape(line) if markdown else line


def _name_of(tool: Any) -> object:
    if isinstance(tool, Mapping):
        return cast("Mapping[str, Any]", tool).get("name")
    return getattr(tool, "name", None)


def _checked_bound(name: str, value: object, least: int) -> int | None:
    if value is None:
        return None
    if type(value) is not int:  # a bool or a float is no count of rows or bytes
        raise TypeError(f"{name} must be an integer or None, not {type(value).__name__}")
    if value < least:
        raise ValueError(f"{name} must be {'one' if least else 'zero'} or more")
    return value


def _checked_allow(allow: object) -> frozenset[str] | None:
    if allow is None:
        return None
    if isinstance(allow, (str, bytes)) or not isinstance(allow, Iterable):
        raise TypeError(f"allow must be tool names (an iterable of strings) or None, not {type(allow).__name__}")
    names = tuple(cast("Iterable[object]", allow))
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"allow must hold tool names (strings), not {type(name).__name__}")
    return frozenset(cast("tuple[str, ...]", names))


def _checked_allow_by_server(allow: object) -> dict[str, frozenset[str]] | None:
    if allow is None:
        return None
    if not isinstance(allow, Mapping):
        raise TypeError(f"allow must map server names to tool names, not {type(allow).__name__}")
    checked: dict[str, frozenset[str]] = {}
    for server, names in cast("Mapping[object, object]", allow).items():
        if not isinstance(server, str):
            raise TypeError(f"allow must map server names (strings), not {type(server).__name__}")
        checked[server] = _checked_allow(names) or frozenset[str]()
    return checked


@dataclass(frozen=True, init=False)
class AllowByServer:
    """The `allow` option of an adapter serving several MCP servers: each server's name (as its captions show it)
    mapped to the names (the server's own) of its tools whose verbatim result may answer directly; a server missing
    from it has none. None: every tool each server marks."""

    allow: Mapping[str, frozenset[str]] | None

    def __init__(self, allow: Mapping[str, Iterable[str]] | None = None) -> None:
        """
        Raises:
            TypeError: `allow` is not a mapping of server names to tool names.
        """
        object.__setattr__(self, "allow", _checked_allow_by_server(allow))

    def allows(self, server: str | None, name: object) -> bool:
        """Whether the tool called `name` of the server named `server` (None: unnamed, never allowed by a mapping)
        may answer directly."""
        if self.allow is None:
            return True
        return server is not None and isinstance(name, str) and name in self.allow.get(server, frozenset[str]())

    def listed(self) -> dict[str, list[str]] | None:
        """`allow` as plain data (sorted names), for a framework's serialization."""
        return None if self.allow is None else {server: sorted(names) for server, names in self.allow.items()}


def servers_by_name(servers: object, holding: str, *, argument: str = "servers") -> dict[str, Any]:
    """An adapter's argument (named `argument`) as a dict: each server's name (as its captions show it) mapped to
    what the framework holds for it (`holding` names that, for the error).

    Raises:
        TypeError: `servers` is not a mapping whose keys are non-empty strings.
    """
    if not isinstance(servers, Mapping) or not all(
        isinstance(name, str) and name for name in cast("Mapping[object, object]", servers)
    ):
        raise TypeError(f"{argument} must map server names (non-empty strings) to {holding}")
    return dict(cast("Mapping[str, Any]", servers))


@dataclass(frozen=True, init=False)
class AnswerOptions:
    """The host's options for a framework adapter's direct answers (every adapter takes them as keyword arguments of
    these names), checked when made, and the rule for taking the route (see the module docstring)."""

    server: str | None
    """The server name shown in the caption; None: the adapter's own name for the server, if it has one."""
    max_rows: int | None
    """The host's bound on the records shown (None: no bound)."""
    max_bytes: int | None
    """The host's bound on the UTF-8 size of the records shown (None: no bound)."""
    markdown: bool
    """Answer with the Markdown form (every server string escaped or fenced), for a front end that renders the
    answer as Markdown; the plain text form otherwise, whose server text is raw."""
    allow: frozenset[str] | None
    """The names of the tools whose result may answer directly; None: every tool the server marks. A server could
    mark every tool verbatim: name the ones you mean."""

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
        Raises:
            TypeError: an option of the wrong type (a bool is no bound, a string is no list of names).
            ValueError: an empty server name, `max_rows` below one or `max_bytes` below zero.
        """
        given = cast("object", server)
        if given is not None and not isinstance(given, str):
            raise TypeError(f"server must be a name (a string) or None, not {type(given).__name__}")
        if given == "":
            raise ValueError("server must be a name or None, not empty")
        flag = cast("object", markdown)
        if not isinstance(flag, bool):
            raise TypeError(f"markdown must be True or False, not {type(flag).__name__}")
        object.__setattr__(self, "server", server)
        object.__setattr__(self, "max_rows", _checked_bound("max_rows", max_rows, 1))
        object.__setattr__(self, "max_bytes", _checked_bound("max_bytes", max_bytes, 0))
        object.__setattr__(self, "markdown", markdown)
        object.__setattr__(self, "allow", _checked_allow(allow))

    def allows(self, name: object) -> bool:
        """Whether `allow` lets the tool called `name` answer directly."""
        return self.allow is None or (isinstance(name, str) and name in self.allow)

    def selects(self, tool: Any, name: str | None = None) -> bool:
        """Whether a route fixed before any result is set on `tool`: `allow` lets it (by `name`, default the tool's
        own name) and its hint reads verbatim."""
        return self.allows(_name_of(tool) if name is None else name) and is_verbatim_tool(tool)

    def answer(
        self,
        tool: Any,
        result: Any,
        *,
        arguments: Mapping[str, Any] | None = None,
        default_server: str | None = None,
    ) -> FinalAnswer:
        """`final_answer` of `result` with these options; `default_server` names the server when `server` is None.

        Raises:
            TypeError: `result` is not a tool result.
        """
        return final_answer(
            tool,
            result,
            server=self.server or default_server,
            max_rows=self.max_rows,
            max_bytes=self.max_bytes,
            arguments=arguments,
        )

    def text(self, answer: FinalAnswer) -> str:
        """The form of `answer` these options ask for: its Markdown or its plain text."""
        return answer.markdown if self.markdown else answer.text

    def direct_answer(
        self,
        tool: Any,
        result: Any,
        *,
        name: str | None = None,
        arguments: Mapping[str, Any] | None = None,
        default_server: str | None = None,
    ) -> str | None:
        """The answer ending the turn, for a route taken after the call: the host's view of `result` when `allow`
        lets the tool (by `name`, default the tool's own name) answer and the host presents the result verbatim
        (the tool's hint or the result's directive) and it is not an error; None for any other result, and for one
        the host cannot read (the framework then hands it on as usual)."""
        if not self.allows(_name_of(tool) if name is None else name):
            return None
        try:
            answer = self.answer(tool, result, arguments=arguments, default_server=default_server)
        except (TypeError, ValueError):
            return None
        if not answer.verbatim or answer.is_error:
            return None
        return self.text(answer)

    def join(self, answers: Sequence[str], names: Sequence[str] | None = None) -> str:
        """`join_answers` of a turn's answers (`names`: their tools', one per answer, when known), in the form these
        options ask for, bounded as a whole by `max_bytes`."""
        return join_answers(answers, markdown=self.markdown, max_bytes=self.max_bytes, names=names)
