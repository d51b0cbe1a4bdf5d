"""Build a verbatim tool result from a document or a bounded page, in one call.

The result carries its records and its directive in every channel a host may forward:

- the directive in ``_meta["io.modelcontextprotocol/rendering"]``, the normative carrier, which every measured
  client keeps;
- ``structuredContent``: ``{"document", "page", "_rendering"}``, the data, its page state, and a model-facing copy
  of the directive (some hosts forward only ``structuredContent`` to the model);
- one text block: the directive written out for a reader (mode, guidance, null text, completeness and how to
  continue), then a complete plain rendering of the same records in the same order; plus ``resource_link`` blocks
  for records and fields too large to embed (and for every record, on request). Hosts that forward only the text
  (most agent frameworks) thus still give the model the directive.

The text block is a rendering of the records rather than the serialized JSON the specification suggests for
structured results: serialized JSON would carry the data but not the framing, and it is not what a user should be
shown. The envelope's budget bounds the page (``document`` and ``page``); the text and the directive copy come on
top (a few kilobytes for the directive, about as much again as the page for the text), so a server facing a hard
transport limit sets the page budget to well under half of it.

A server declares the matching output schema by annotating its tool ``-> Annotated[CallToolResult,
VerbatimContent]`` (the SDK then checks every result against it: what `verbatim_result` built is checked by
construction, anything changed since in full), or publishes `output_schema()` itself.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from typing import Annotated, Any, TypeVar, cast

import mcp_types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import principal_components
from mcp.server.mcpserver.context import Context
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    StrictBool,
    StrictInt,
    StrictStr,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema as pydantic_core_schema
from pydantic_core import to_json, to_jsonable_python

from mcp_rendering.document import Document, Rows
from mcp_rendering.envelope import Budget, BudgetError, Envelope, Page, ResultChangedError
from mcp_rendering.extension import tool_annotations
from mcp_rendering.patch import is_installed
from mcp_rendering.reading import DEFAULT_NULL_DISPLAY
from mcp_rendering.render import render_text
from mcp_rendering.tokens import ContinuationTokens, Keyring, NotJSONArgumentsError, TokenError
from mcp_rendering.types import (
    CONTINUATION_ID,
    EXTENSION_ID,
    PARTIAL_MARKER,
    RESULT_STRUCTURED_KEY,
    Rendering,
    ResultContinuation,
    ResultContinuationTool,
)

__all__ = [
    "ANONYMOUS_CALLER",
    "SECRET_VARIABLE",
    "LinkedFieldState",
    "LinkedRecordState",
    "PageState",
    "VerbatimContent",
    "continuation_tool_meta",
    "error_result",
    "output_schema",
    "page_directive",
    "paged_result",
    "paged_tool",
    "request_caller",
    "text_framing",
    "verbatim_result",
    "verbatim_tool",
]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)


class LinkedFieldState(_Wire):
    """A cell replaced by the URI of a field resource, because it exceeded the field size limit."""

    row_id: StrictStr = Field(alias="rowId")
    column: StrictInt
    name: StrictStr
    uri: StrictStr
    bytes: StrictInt


class LinkedRecordState(_Wire):
    """A record returned as a link to its canonical URI, because it exceeded the page budget."""

    row_id: StrictStr = Field(alias="rowId")
    section_id: StrictStr = Field(alias="sectionId")
    uri: StrictStr
    bytes: StrictInt


class PageState(_Wire):
    """The page member of a verbatim result's structured content."""

    complete: StrictBool
    """False when more records follow; a host must not present the result as complete."""
    returned: StrictInt = Field(ge=0)
    """Records in this result."""
    total: StrictInt | None = Field(default=None, ge=0)
    """Records in the whole result set, when known."""
    next_token: StrictStr | None = Field(default=None, alias="nextToken", max_length=4096)
    """Continuation token for the next page (the same one the result continuation carrier holds)."""
    linked_records: list[LinkedRecordState] | None = Field(default=None, alias="linkedRecords")
    linked_fields: list[LinkedFieldState] | None = Field(default=None, alias="linkedFields")


class _BuiltContent(dict[str, Any]):
    """Structured content as `verbatim_result` built it from models already validated (`Document`, `Page`).

    The SDK checks a tool's result against `VerbatimContent` after the tool returns it; validating every row again
    would cost more than building the result. What was built from validated models conforms by construction, so
    the check only needs to know that nothing changed since. Everything it holds was made for it alone, so nothing
    in it can change unless a reference to it leaves through this object: every method that hands one out (or
    changes the content) first records the content's compact JSON text. Content never reached that way is
    unchanged with no work at all; content that was is compared with that text at the check (one pass in Rust),
    and validated in full if it differs. Only an explicit call of `dict`'s own methods on it gets past this.
    """

    __slots__ = ("_model", "_pristine", "_reached")

    def __init__(self, content: Any = (), model: Callable[[], VerbatimContent] | None = None) -> None:
        # Without a model (built as a dict is, `type(content)(pairs)`), the seal vouches for nothing.
        super().__init__(content)
        self._model = model
        self._pristine: bytes | None = None
        self._reached = False

    def _reach(self) -> None:
        if not self._reached:
            pristine = self._json()  # before any reference to what it holds leaves this object
            # Another thread may have reached it meanwhile and changed it since: its record, made first, stays.
            if not self._reached:
                self._pristine = pristine
                self._reached = True

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        # A copy or a pickle is a plain dict, checked in full: the seal vouches for this object only.
        self._reach()
        return dict, (dict(self),)

    def unchanged(self) -> VerbatimContent | None:
        """The model this content was built from, or None if the content no longer matches it.

        The JSON text tells apart what dict equality does not (`1`, `True`, `1.0`). It cannot tell a key `1` from
        `"1"`, but every key of the content is a field name of a model that forbids extra members, none of which
        a non-string key could spell; and what it cannot tell apart (a tuple for a list) reaches the client as
        the same JSON. Anything else makes the texts differ, and the content is then validated in full. One thing
        it cannot see: a value that writing consumes (an iterator, a generator) is written once, here, and then
        reaches the wire empty; built content holds lists, and a tool that replaces one must not use an iterator.
        """
        if self._model is None:
            return None
        if self._reached:
            current = self._json()
            if current is None or current != self._pristine:
                return None
        try:
            return self._model()
        except ValueError:  # a page state the models refuse (a `Page` built by hand): validated in full, located
            return None

    def _json(self) -> bytes | None:
        """What the SDK writes on the wire: pydantic's JSON, non-finite floats spelled out so that they differ;
        None for content JSON cannot hold (then validated in full)."""
        try:
            return to_json(self, inf_nan_mode="constants")
        except ValueError:
            return None


def _reaching(name: str) -> Callable[..., Any]:
    inherited = getattr(dict, name)

    def reaching(self: _BuiltContent, *args: Any, **kwargs: Any) -> Any:
        self._reach()  # pyright: ignore[reportPrivateUsage]
        return inherited(self, *args, **kwargs)

    reaching.__name__ = reaching.__qualname__ = name
    return reaching


# Every `dict` method that hands out a value it holds, or changes it (`==` hands each value to the other side's
# `__eq__`; `dict(content)` and `{**content}` go through `keys` once `__iter__` is overridden).
for _name in (
    "__getitem__", "get", "__iter__", "__reversed__", "keys", "values", "items", "copy", "__or__", "__ror__",
    "__eq__", "__ne__", "__setitem__", "__delitem__", "__ior__", "pop", "popitem", "clear", "update", "setdefault",
):  # fmt: skip
    setattr(_BuiltContent, _name, _reaching(_name))


def _built_or_validated(value: Any, validate: pydantic_core_schema.ValidatorFunctionWrapHandler) -> Any:
    if type(value) is _BuiltContent and (model := value.unchanged()) is not None:
        return model
    return validate(value)


class VerbatimContent(_Wire):
    """The structured content of a verbatim result: the document, its page state, and the model-facing directive."""

    document: Document
    page: PageState
    rendering: Rendering | None = Field(default=None, alias=RESULT_STRUCTURED_KEY)
    """A copy of the result's directive for the model; hosts read the directive from the result itself."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: pydantic_core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return output_schema()

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> pydantic_core_schema.CoreSchema:
        # FastMCP reads `Annotated[CallToolResult, VerbatimContent]` as a whole, so pydantic calls this hook with
        # `CallToolResult` as `source`: keep that type's own schema. The inherited hook does the same, with a
        # deprecation warning.
        schema = handler(source)
        if source is not cls:
            return schema
        return pydantic_core_schema.no_info_wrap_validator_function(_built_or_validated, schema)


_SECTION_SHAPE = (
    "The sections, in order. Each is an object {id, title, columns, rows}: an ordered group of rows sharing one "
    "set of columns (`columns`, their names). `rows` holds the records of the section, in order, each an object "
    "{id, label, values, kind, level, uri}: `values` holds one cell per column (string, number, boolean, or null "
    "for a missing value; an exact decimal amount is a string of its digits in positional notation, such as "
    '"1234.50" or "1000" (never "1E+3"), an integer beyond 2^53 a string of its digits, and a date or date-time '
    "a string in ISO 8601, so that no reader turns any of them into a binary float); `kind` is item, "
    "subtotal or total; `level` is the indent depth; `uri` is the record's "
    "canonical URI, when it has one."
)


def output_schema() -> dict[str, Any]:
    """The ``outputSchema`` of a verbatim tool: the envelope ``{document, page, _rendering}``, declared shallowly.

    It checks the envelope's parts, that each section is an object with an id and a title, and the page state, and
    describes a section's members and a row's in words rather than checking them: clients validate every result
    against ``outputSchema`` in pure Python, so each checked member costs them on every call (a schema per cell,
    many times the JSON parse of the result; see ``benchmarks/bench_call.py``), while the server's
    `VerbatimContent` model has already checked every one. It has
    no ``$defs`` and no object-valued ``additionalProperties``, which some clients cannot compile.
    """
    string = {"type": "string"}
    count = {"type": "integer", "minimum": 0}
    linked = {"type": ["array", "null"], "items": {"type": "object"}}
    return {
        "type": "object",
        "description": VerbatimContent.__doc__,
        "required": ["document", "page"],
        "properties": {
            "document": {
                "type": "object",
                "description": "The records, in order: a title and its sections.",
                "required": ["title"],
                "properties": {
                    "title": string,
                    "sections": {
                        "type": "array",
                        "description": _SECTION_SHAPE,
                        "items": {"type": "object", "required": ["id", "title"]},
                    },
                },
            },
            "page": {
                "type": "object",
                "description": "Whether this result holds every record, and how to ask for the rest.",
                "required": ["complete", "returned"],
                "properties": {
                    "complete": {"type": "boolean"},
                    "returned": count,
                    "total": {"type": ["integer", "null"], "minimum": 0},
                    "nextToken": {"type": ["string", "null"]},
                    "linkedRecords": linked,
                    "linkedFields": linked,
                },
            },
            RESULT_STRUCTURED_KEY: {
                "type": "object",
                "description": (
                    "A copy of the result's rendering directive (mode, guidance, nullDisplay, complete), for hosts "
                    "that forward only structured content to the model; content, never a directive."
                ),
            },
        },
    }


def _rfc3339_utc(seconds: int) -> str:
    """An instant as `ResultContinuation.expiresAt` writes it: RFC 3339, UTC, whole seconds, `Z`."""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def page_directive(directive: Rendering, page: Page | None) -> tuple[Rendering, ResultContinuation | None]:
    """`directive` as sent with `page`, and the continuation that goes with it: a mode (verbatim unless it names
    one), ``complete`` false when the page is not the last (whatever the directive says) and, for such a page, where
    the rest is. Without a page (a whole document), the directive's own ``complete`` stands, so that a server can
    say that a document it built holds fewer records than the call selects.
    """
    mode = directive.mode or "verbatim"
    if page is None or page.complete:
        return directive.model_copy(update={"mode": mode}), None
    assert page.next_token is not None  # an incomplete page always carries a token
    assert page.expires_at is not None  # and its expiry, which every continuation states
    expires_at = _rfc3339_utc(page.expires_at)
    continuation = ResultContinuation(argument=page.argument, token=page.next_token, expires_at=expires_at)
    return directive.model_copy(update={"mode": mode, "complete": False}), continuation


def continuation_tool_meta(argument: str) -> dict[str, Any]:
    """The `_meta` of a tool whose results may come in parts: its result continuation carrier, naming the argument
    that receives tokens (declare it in the tool's `inputSchema` as an optional string too).

    Raises:
        pydantic.ValidationError: `argument` is not a valid argument name.
    """
    declared = ResultContinuationTool.model_validate({"argument": argument})
    return {CONTINUATION_ID: declared.model_dump(mode="json", by_alias=True)}


def _json_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)


_VERBATIM_TEXT = (
    "Show this result to the user in full: every section and every row, in the order given, with subtotals and "
    "totals, values unchanged; do not summarize or leave anything out."
)


def text_framing(
    directive: Rendering, page: Page | None, records: int, continuation: ResultContinuation | None = None
) -> str:
    """The directive and continuation as sent (see `page_directive`) written out for the reader of the text block:
    the lines placed before the rendering of its `records`."""
    lines = [f"Rendering directive for this result ({EXTENSION_ID}):"]
    mode = directive.mode or "verbatim"
    if mode == "summarizable":
        lines.append("Mode: summarizable. This result may be summarized, abridged or reformatted.")
    elif mode == "verbatim":
        lines.append(f"Mode: verbatim. {_VERBATIM_TEXT}")
    else:
        lines.append(f"Mode: {_json_quote(mode)}, not a registered mode, so read as verbatim. {_VERBATIM_TEXT}")
    lines.append(f"Null values are shown as {_json_quote(directive.null_display or DEFAULT_NULL_DISPLAY)}.")
    if directive.guidance:
        lines.append(f"Guidance: {_json_quote(directive.guidance)}")
    if directive.complete and continuation is None:
        lines.append(f"Complete: all {records} records are in this result.")
        return "\n".join(lines)
    extent = (
        f"this page holds {page.returned} of {page.total} records"
        if page is not None
        else f"this result holds {records} records"
    )
    if continuation is None:
        follow = "The server offers no way to fetch the rest here."
    else:
        extra = json.dumps({continuation.argument: continuation.token})
        follow = f"To continue, call this tool again with the same arguments plus {extra}."
    lines.append(f"{PARTIAL_MARKER} {extent}; more follow. {follow}")
    return "\n".join(lines)


def _link_notes(page: Page) -> str:
    lines: list[str] = []
    for record in page.linked_records:
        lines.append(
            f"Record {record.row_id} ({record.bytes} bytes) is too large to show here; read it at {record.uri}"
        )
    for field in page.linked_fields:
        lines.append(
            f"Field {field.name!r} of record {field.row_id} ({field.bytes} bytes) is shown as its link; "
            f"read it at {field.uri}"
        )
    return "\n".join(lines)


def _flags(**flags: object) -> None:
    """Refuse a switch that is not a bool: a string such as "no" would read as true."""
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, not {type(value).__name__}")


def verbatim_result(
    content: Page | Document,
    directive: Rendering | None = None,
    *,
    record_links: bool = False,
    core_form: bool = False,
    continuation: ResultContinuation | None = None,
) -> mcp_types.CallToolResult:
    """A complete `CallToolResult` for a verbatim document or one bounded page of it.

    The structured content is written from `content` as pydantic validated it, so the server's check against
    `VerbatimContent` does not validate it again (see `_BuiltContent`). A model pydantic never validated (made with
    `model_construct`, or changed by `model_copy(update=...)`) is not checked there: validate such a document
    first (`Document.model_validate(document.model_dump())`). The directive and a continuation are small, and are
    checked here whatever way they were made.

    Args:
        content: a `Page` from `Envelope.page`, or a whole `Document` (returned complete).
        directive: the rendering directive; defaults to ``Rendering(mode="verbatim", complete=True)``. A page that
            is not the last is sent with ``complete`` false and a continuation carrier. Its ``nullDisplay`` is also
            how the text block shows nulls.
        record_links: also add a ``resource_link`` block for every record on the page that has a URI. Off by
            default: some agent frameworks fail the whole call on such blocks or hand the model one line per link
            (see the reach page of the documentation); the URIs stay in the structured records either way, and
            links for records and fields too large to embed are always added.
        core_form: also send the directive in its core form, ``CallToolResult._rendering`` (equal to the
            ``_meta`` carrier), the promotion draft's prototype. It needs the SDK patch (`mcp_rendering.install()`),
            which adds that field.
        continuation: for a whole `Document` that holds fewer records than the call selects, where the rest is
            (the result is then sent with ``complete`` false). A `Page` brings its own.

    Raises:
        RuntimeError: `core_form` without the SDK patch installed.
        TypeError: `record_links` or `core_form` is not a bool.
        ValueError: a `continuation` given with a `Page`; a `continuation` or a `directive` that is not valid
            (pydantic's `ValidationError`: a continuation without `expiresAt`, a digit as the null text).
    """
    _flags(record_links=record_links, core_form=core_form)
    page = content if isinstance(content, Page) else None
    document = content.document if isinstance(content, Page) else content
    if continuation is not None and page is not None:
        raise ValueError("a page brings its own continuation; pass continuation only with a whole document")
    if continuation is not None:
        # One built without validation (`model_construct`) is checked here: a server always states the expiry.
        continuation = ResultContinuation.model_validate(continuation.model_dump(by_alias=True, exclude_none=True))
    if directive is not None:  # the same for a directive changed by assignment, which its model does not validate
        directive = Rendering.model_validate(directive.model_dump(by_alias=True, exclude_none=True))
    effective, page_continuation = page_directive(directive or Rendering(mode="verbatim", complete=True), page)
    if continuation is not None:
        effective = effective.model_copy(update={"complete": False})
    else:
        continuation = page_continuation
    directive_wire = effective.model_dump(mode="json", by_alias=True, exclude_none=True)

    def page_state() -> dict[str, Any]:
        if page is not None:
            return page.meta_wire()
        count = sum(len(section.rows) for section in document.sections)
        if effective.complete is False:  # the server says more records exist than this document holds
            state: dict[str, Any] = {"complete": False, "returned": count}
            if continuation is not None:
                state["nextToken"] = continuation.token
            return state
        return {"complete": True, "returned": count, "total": count}

    def structured_content() -> dict[str, Any]:
        return {
            "document": document.model_dump(mode="json"),
            "page": page_state(),
            RESULT_STRUCTURED_KEY: dict(directive_wire),
        }

    def model() -> VerbatimContent:
        page_model = PageState.model_validate(page_state())
        return VerbatimContent.model_construct(document=document, page=page_model, rendering=effective)

    structured = structured_content()

    shown_null = effective.null_display or DEFAULT_NULL_DISPLAY
    records = sum(len(section.rows) for section in document.sections)
    framing = text_framing(effective, page, records, continuation)
    text = f"{framing}\n\n{render_text(document, null_display=shown_null)}"
    if page is not None and (notes := _link_notes(page)):
        text = f"{text}\n{notes}\n"
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if record_links:
        for section in document.sections:
            for row in section.rows:
                if row.uri:
                    blocks.append(
                        {
                            "type": "resource_link",
                            "uri": row.uri,
                            "name": row.id,
                            "title": row.label,
                            "mimeType": "application/json",
                        }
                    )
    if page is not None:
        for record in page.linked_records:
            blocks.append(
                {
                    "type": "resource_link",
                    "uri": record.uri,
                    "name": record.row_id,
                    "description": f"Record {record.row_id} ({record.bytes} bytes), not embedded: over the budget",
                    "mimeType": "application/json",
                }
            )
        for field in page.linked_fields:
            blocks.append(
                {
                    "type": "resource_link",
                    "uri": field.uri,
                    "name": f"{field.row_id}/{field.name}",
                    "description": f"Field {field.name!r} of record {field.row_id} ({field.bytes} bytes), not embedded",
                }
            )
    wire: dict[str, Any] = {
        "content": blocks,
        "structuredContent": structured,
        "isError": False,
        "_meta": {EXTENSION_ID: directive_wire},
    }
    if continuation is not None:
        wire["_meta"][CONTINUATION_ID] = continuation.model_dump(mode="json", by_alias=True, exclude_none=True)
    if core_form:
        if not is_installed():
            raise RuntimeError("core_form=True needs the SDK patch: call mcp_rendering.install() first")
        wire["_rendering"] = directive_wire
    result = mcp_types.CallToolResult.model_validate(wire)
    # Validation copied the structured content into a plain dict: hand out the sealed one (same members).
    return result.model_copy(update={"structured_content": _BuiltContent(structured, model)})


def error_result(message: str) -> mcp_types.CallToolResult:
    """A tool error (``isError``) whose text the model reads to correct its next call."""
    return mcp_types.CallToolResult.model_validate({"content": [{"type": "text", "text": message}], "isError": True})


def paged_result(
    envelope: Envelope,
    document: Document,
    *,
    arguments: Mapping[str, Any],
    caller: str,
    directive: Rendering | None = None,
    fingerprint: str | None = None,
    record_links: bool = False,
    core_form: bool = False,
) -> mcp_types.CallToolResult:
    """The page this call asks for, as a verbatim result; a refused token, arguments that are not JSON text, a
    changed result set or an impossible budget becomes a tool error the model can act on (never a silently
    shortened result).

    Args:
        envelope: the tool's envelope (budget, token issuer, continuation argument name).
        document: the whole result set, rows already carrying their URIs (`RecordUris.assign`).
        arguments: the call's arguments as received, continuation argument included.
        caller: the caller's identity as the server knows it.
        directive: the rendering directive; defaults to verbatim.
        fingerprint: a cheap version of the result set (see `Envelope.page`).
        record_links: also add a ``resource_link`` block for every record on the page that has a URI (see
            `verbatim_result`; off by default).
        core_form: also send the directive as ``CallToolResult._rendering`` (see `verbatim_result`).
    """
    _flags(record_links=record_links, core_form=core_form)
    try:
        page = envelope.page(document, arguments=arguments, caller=caller, fingerprint=fingerprint)
    except (TokenError, ResultChangedError, BudgetError, NotJSONArgumentsError) as exc:
        return error_result(exc.message)
    return verbatim_result(page, directive, record_links=record_links, core_form=core_form)


# ------------------------------------------------------------------------------------ tools from the rows a server has

SECRET_VARIABLE = "MCP_RENDERING_SECRET"
"""The environment variable `paged_tool` reads its token secret from (at least 16 bytes, shared by the replicas)."""

ANONYMOUS_CALLER = "anonymous"
"""The caller of a request that carries no access token (stdio, HTTP without authorization): one context for all."""

_Tool = TypeVar("_Tool", bound=Callable[..., Any])


def request_caller() -> str:
    """The caller of the request in flight, as tokens are bound to it: the principal of its access token (client,
    issuer and subject, as the SDK's `principal_components` names it), or `ANONYMOUS_CALLER` without one. Never a
    session: the 2026-07-28 protocol has none, and a token must resume from any replica."""
    token = get_access_token()
    if token is None:
        return ANONYMOUS_CALLER
    return json.dumps(list(principal_components(token)))


def verbatim_tool(
    server: Any,
    *,
    name: str | None = None,
    title: str | None = None,
    guidance: str | None = None,
    null_display: str | None = None,
    read_only_hint: bool | None = None,
) -> Callable[[_Tool], _Tool]:
    """Register the decorated function as a tool whose results are shown whole: ``@verbatim_tool(mcp)``.

    The function returns the rows it already has: a list of rows (mappings, dataclasses, pydantic models or named
    tuples, each with a ``label`` field; see `Document.from_rows`), a mapping of section titles to such lists, a
    `Rows` (the rows, whether they are the whole result: ``Rows(rows, complete=False)`` for a search that stopped
    at its limit, and which fields hold each row's id, kind and level), or a `Document`. The tool is declared with
    ``verbatimHint`` and the `VerbatimContent` output schema, and each call returns `verbatim_result` of the rows:
    the directive (``complete``, `guidance`, `null_display`) in ``_meta``,
    the records in ``structuredContent`` and in the text. A `CallToolResult` it returns (`error_result`) is sent as
    it is. Works on an `MCPServer` (`mcp` 2.x) and a FastMCP 4 server alike: both take these ``tool`` arguments.

    Args:
        server: the server whose ``tool`` decorator registers it.
        name: the tool's name; the function's name by default.
        title: the tool's title, also the document's title (the name by default).
        guidance: the directive's guidance, for instance "Keep the order and every subtotal."
        null_display: how a missing value is shown (`nullDisplay`; ``n/a`` by default).
        read_only_hint: the tool's ``readOnlyHint``.

    Raises:
        pydantic.ValidationError: a `guidance` or `null_display` the directive refuses.
    """
    _require_declared(server, EXTENSION_ID, "verbatim_tool", "MCPServer(name, **registration())")
    directive = Rendering(mode="verbatim", guidance=guidance, null_display=null_display, complete=True)

    def register(function: _Tool) -> _Tool:
        tool_name = name or function.__name__
        document_title = title or tool_name

        def respond(outcome: Any, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
            if isinstance(outcome, mcp_types.CallToolResult):
                return outcome
            document = _document(outcome, document_title, tool_name)
            return verbatim_result(document, _directive_for(directive, outcome))

        annotations = tool_annotations(title=title, read_only_hint=read_only_hint, verbatim_hint=True)
        return _register(server, function, respond, name=tool_name, title=title, annotations=annotations)

    return register


def paged_tool(
    server: Any,
    *,
    name: str | None = None,
    title: str | None = None,
    guidance: str | None = None,
    null_display: str | None = None,
    read_only_hint: bool | None = None,
    budget: Budget | None = None,
    argument: str = "cursor",
    secret: str | bytes | Keyring | None = None,
    caller: Callable[[], str] = request_caller,
) -> Callable[[_Tool], _Tool]:
    """`verbatim_tool` for results that may not fit one call: each call returns one page, cut at record boundaries
    within `budget`, and a page that is not the last says so and carries a signed token for the rest.

    The tool gains an optional string argument (`argument`, ``cursor`` by default) that receives the token, declared
    in its ``inputSchema`` and in its result continuation carrier; the function never sees it and returns the whole
    result set on every call, in the same order. The server must declare result continuation as well:
    ``MCPServer(name, **registration(continuation=True))``. A refused or expired token, a result set changed since
    the token was issued, or a budget too small for one record becomes a tool error the model can act on.

    Args:
        budget: page limits; one megabyte and no item limit by default.
        argument: the name of the continuation argument.
        secret: the key tokens are signed with (at least 16 bytes, shared by every replica); by default read from
            the environment variable `MCP_RENDERING_SECRET` when the tool is declared. A single secret is the key
            id ``k1`` of a one-key `Keyring`, and tokens name that id; to rotate keys, pass a `Keyring` whose
            current key signs new tokens while the older ones still verify the tokens they signed.
        caller: who is calling, as tokens are bound to it; `request_caller` (the access token's principal, or one
            anonymous context) by default.
        server: the server whose ``tool`` decorator registers it.
        name: the tool's name; the function's name by default.
        title: the tool's title, also the document's title (the name by default).
        guidance: the directive's guidance.
        null_display: how a missing value is shown (`nullDisplay`; ``n/a`` by default).
        read_only_hint: the tool's ``readOnlyHint``.

    Raises:
        RuntimeError: no `secret` and `MCP_RENDERING_SECRET` is not set.
        ValueError: a secret shorter than 16 bytes or of one byte repeated; a function that already has a parameter
            named `argument`.
    """
    _require_declared(server, EXTENSION_ID, "paged_tool", "MCPServer(name, **registration(continuation=True))")
    _require_declared(server, CONTINUATION_ID, "paged_tool", "MCPServer(name, **registration(continuation=True))")
    tokens = ContinuationTokens(_keyring(secret))
    directive = Rendering(mode="verbatim", guidance=guidance, null_display=null_display, complete=True)

    def register(function: _Tool) -> _Tool:
        tool_name = name or function.__name__
        document_title = title or tool_name
        envelope = Envelope(tool=tool_name, tokens=tokens, budget=budget, argument=argument)

        def respond(outcome: Any, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
            if isinstance(outcome, mcp_types.CallToolResult):
                return outcome
            document = _document(outcome, document_title, tool_name)
            return paged_result(
                envelope, document, arguments=arguments, caller=caller(), directive=_directive_for(directive, outcome)
            )

        annotations = tool_annotations(title=title, read_only_hint=read_only_hint, verbatim_hint=True)
        return _register(
            server,
            function,
            respond,
            name=tool_name,
            title=title,
            annotations=annotations,
            continuation_argument=argument,
        )

    return register


def _declared_extensions(server: Any) -> set[str] | None:
    """The extension identifiers `server` declares: an `MCPServer` keeps its extension objects, FastMCP their
    identifiers. None for a server of another kind, whose declaration cannot be read."""
    declared = getattr(server, "_extensions", None)
    if not isinstance(declared, Iterable):
        return None
    items = cast("Iterable[Any]", declared)
    return {item if isinstance(item, str) else str(getattr(item, "identifier", "")) for item in items}


def _require_declared(server: Any, identifier: str, declaring: str, how: str) -> None:
    """Refuse to declare a tool on a server that lacks `identifier`: its hints or continuation would reach no
    client that needs the declaration, silently."""
    declared = _declared_extensions(server)
    if declared is not None and identifier not in declared:
        fastmcp = (
            "enable_rendering(app, continuation=True)" if identifier == CONTINUATION_ID else "enable_rendering(app)"
        )
        raise RuntimeError(
            f"{declaring} needs a server that declares {identifier}: create it as {how} "
            f"(on FastMCP, call mcp_rendering.integrations.fastmcp.{fastmcp} first)"
        )


def _keyring(secret: str | bytes | Keyring | None) -> Keyring:
    """`paged_tool`'s signing keys, with errors that say where the secret came from."""
    if isinstance(secret, Keyring):
        return secret
    source = "secret="
    if secret is None:
        secret = os.environ.get(SECRET_VARIABLE)
        if not secret:
            raise RuntimeError(
                f"paged_tool signs continuation tokens with a secret: set the environment variable {SECRET_VARIABLE} "
                "(at least 16 bytes, the same on every replica) or pass secret=..."
            )
        source = f"the environment variable {SECRET_VARIABLE}"
    try:
        return Keyring.single(secret)
    except ValueError as error:
        raise ValueError(
            f"paged_tool's secret, from {source}: {error} (give at least 16 random bytes, for instance "
            "python -c 'import secrets; print(secrets.token_hex())')"
        ) from None


def _document(outcome: Any, title: str, tool: str) -> Document:
    if isinstance(outcome, Document):
        return outcome
    if isinstance(outcome, Rows):
        return outcome.document(title)
    if isinstance(outcome, (str, bytes)) or not isinstance(outcome, (Mapping, Iterable)):
        raise TypeError(
            f"tool {tool!r} returned a {type(outcome).__name__}: a verbatim tool returns its rows (a list of rows, a "
            "mapping of section titles to lists of rows), a Document or a CallToolResult"
        )
    return Document.from_rows(cast("Iterable[Any] | Mapping[str, Iterable[Any]]", outcome), title=title)


def _directive_for(directive: Rendering, outcome: Any) -> Rendering:
    """The tool's directive, sent with ``complete`` false when the function says its rows are not the whole."""
    if isinstance(outcome, Rows) and not outcome.complete:
        return directive.model_copy(update={"complete": False})
    return directive


def _is_context(value: Any) -> bool:
    if isinstance(value, Context):
        return True
    fastmcp = sys.modules.get("fastmcp")  # a FastMCP context, when FastMCP is in use at all
    return fastmcp is not None and isinstance(value, getattr(fastmcp, "Context", ()))


def _register(
    server: Any,
    function: Callable[..., Any],
    respond: Callable[[Any, Mapping[str, Any]], mcp_types.CallToolResult],
    *,
    name: str,
    title: str | None,
    annotations: mcp_types.ToolAnnotations,
    continuation_argument: str | None = None,
) -> Any:
    """Register `function` on `server` behind a wrapper that turns what it returns into a result (`respond`): the
    wrapper has the function's parameters (plus the continuation argument) and the `VerbatimContent` return type, so
    that either framework derives the input and output schemas and injects a context as it would for `function`."""
    signature = inspect.signature(function, eval_str=True)
    parameters = list(signature.parameters.values())
    # The hint under `_meta` is written here, not left to the extension's middleware: the tool carries it whatever
    # the server's middleware does.
    meta: dict[str, Any] = {EXTENSION_ID: {"verbatimHint": True}}
    if continuation_argument is not None:
        if continuation_argument in signature.parameters:
            raise ValueError(
                f"tool {name!r} already has a parameter {continuation_argument!r}: the continuation argument needs "
                "its own name (paged_tool(argument=...))"
            )
        meta |= continuation_tool_meta(continuation_argument)
        token = inspect.Parameter(
            continuation_argument, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=str | None
        )
        variadic = [p for p in parameters if p.kind is inspect.Parameter.VAR_KEYWORD]
        parameters = [p for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD] + [token, *variadic]

    def split(kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The function's own arguments, and the call's arguments as tokens are bound to them: in their JSON form,
        as the framework validated them (a date argument arrives as a `date`), the same on every call that sends
        the same arguments."""
        cursor = kwargs.pop(continuation_argument, None) if continuation_argument is not None else None
        bound = to_jsonable_python({key: value for key, value in kwargs.items() if not _is_context(value)})
        if cursor is not None and continuation_argument is not None:
            bound[continuation_argument] = cursor
        return kwargs, bound

    @functools.wraps(function)
    async def awaited(*args: Any, **kwargs: Any) -> mcp_types.CallToolResult:
        own, bound = split(kwargs)
        return respond(await function(*args, **own), bound)

    @functools.wraps(function)
    def called(*args: Any, **kwargs: Any) -> mcp_types.CallToolResult:
        own, bound = split(kwargs)
        return respond(function(*args, **own), bound)

    tool: Callable[..., Any] = awaited if inspect.iscoroutinefunction(function) else called

    returns = Annotated[mcp_types.CallToolResult, VerbatimContent]
    tool.__signature__ = signature.replace(parameters=parameters, return_annotation=returns)  # type: ignore[attr-defined]
    hints = {p.name: p.annotation for p in parameters if p.annotation is not inspect.Parameter.empty}
    tool.__annotations__ = {**hints, "return": returns}
    server.tool(name=name, title=title, annotations=annotations, meta=meta)(tool)
    return function
