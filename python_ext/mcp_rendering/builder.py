"""Build a verbatim tool result from a document or a bounded page, in one call.

The result carries the data three ways, because hosts read different channels:

- ``structuredContent``: ``{"document", "page", "_rendering"}`` - the data, its page state, and a model-facing copy
  of the directive (a host may forward only ``structuredContent`` to the model);
- one text block: a complete plain rendering a host can show as is, with an explicit notice when the page is
  incomplete, plus ``resource_link`` blocks for linked records and fields (and for every record, on request);
- the directive itself: the ``_rendering`` field (typed once `mcp_rendering.patch` is installed, dropped by an
  unpatched SDK) and its mirror ``_meta["io.modelcontextprotocol/rendering"]``, which reaches unpatched clients.

The envelope's budget bounds the page (``document`` and ``page``); the result also carries the directive copy
(a few kilobytes at most: guidance and token are bounded by the schema) and a text rendering of the same rows, so a
server facing a hard transport limit sets the page budget to well under half of it.

A server declares the matching output schema by annotating its tool ``-> Annotated[CallToolResult,
VerbatimContent]`` (the SDK then validates every result against it), or publishes `output_schema()` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import mcp_types
from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, StrictBool, StrictInt, StrictStr
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema as pydantic_core_schema

from mcp_rendering.document import Document
from mcp_rendering.envelope import BudgetError, Envelope, Page, ResultChangedError
from mcp_rendering.render import render_text
from mcp_rendering.tokens import TokenError
from mcp_rendering.types import EXTENSION_ID, RESULT_STRUCTURED_KEY, Rendering, RenderingContinuation

__all__ = [
    "LinkedFieldState",
    "LinkedRecordState",
    "PageState",
    "VerbatimContent",
    "error_result",
    "output_schema",
    "page_directive",
    "paged_result",
    "verbatim_result",
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
    """Continuation token for the next page (the same one the directive's `continuation` carries)."""
    linked_records: list[LinkedRecordState] | None = Field(default=None, alias="linkedRecords")
    linked_fields: list[LinkedFieldState] | None = Field(default=None, alias="linkedFields")


class VerbatimContent(_Wire):
    """The structured content of a verbatim result: the document, its page state, and the model-facing directive."""

    document: Document
    page: PageState
    rendering: Rendering = Field(alias="_rendering")
    """A copy of the result's directive for the model; hosts read the directive from the result itself."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: pydantic_core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # Self-contained, with no `$defs`: clients that compile `outputSchema` as draft-07 cannot resolve
        # `#/$defs/...` (TypeScript SDK 1.22.0 rejects the whole tools/list over it, as the interop harness measured).
        return _inline_references(handler(core_schema), handler)


def _inline_references(schema: Any, handler: GetJsonSchemaHandler) -> Any:
    """`schema` with every local `$ref` replaced by its definition (the document model has no cycles)."""
    if isinstance(schema, dict):
        node = cast("dict[str, Any]", schema)
        reference = node.get("$ref")
        if isinstance(reference, str):
            target = handler.resolve_ref_schema({"$ref": reference})
            siblings = {key: value for key, value in node.items() if key != "$ref"}
            return {**_inline_references(target, handler), **siblings}
        return {key: _inline_references(value, handler) for key, value in node.items()}
    if isinstance(schema, list):
        return [_inline_references(item, handler) for item in cast("list[Any]", schema)]
    return schema


def output_schema() -> dict[str, Any]:
    """JSON Schema of `VerbatimContent`, for a tool's ``outputSchema`` (it declares the ``_rendering`` member)."""
    return VerbatimContent.model_json_schema(by_alias=True)


def page_directive(directive: Rendering, page: Page | None) -> Rendering:
    """`directive` with ``complete`` and ``continuation`` set from the page state (a whole document is complete)."""
    if page is None or page.complete:
        return directive.model_copy(update={"complete": None, "continuation": None})
    assert page.next_token is not None  # an incomplete page always carries a token
    return directive.model_copy(
        update={
            "complete": False,
            "continuation": RenderingContinuation(argument=page.argument, token=page.next_token),
        }
    )


def _notice(page: Page) -> str:
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
    if not page.complete:
        lines.append(
            f"INCOMPLETE: this page shows {page.returned} of {page.total} records; more follow. To continue, call "
            f'the same tool again with the same arguments plus "{page.argument}": "{page.next_token}".'
        )
    return "\n".join(lines)


def verbatim_result(
    content: Page | Document,
    directive: Rendering | None = None,
    *,
    record_links: bool = False,
    null_display: str | None = None,
) -> mcp_types.CallToolResult:
    """A complete `CallToolResult` for a verbatim document or one bounded page of it.

    Args:
        content: a `Page` from `Envelope.page`, or a whole `Document` (returned complete).
        directive: the rendering directive; defaults to ``Rendering(mode="verbatim")``. For an incomplete page,
            ``complete`` and ``continuation`` are filled in from the page.
        record_links: also add a ``resource_link`` block for every record URI on the page (links for records and
            fields too large to embed are always added).
        null_display: text for null values in the text block; defaults to the directive's ``nullDisplay`` or "-".
    """
    page = content if isinstance(content, Page) else None
    document = content.document if isinstance(content, Page) else content
    effective = page_directive(directive or Rendering(mode="verbatim"), page)
    directive_wire = effective.model_dump(mode="json", by_alias=True, exclude_none=True)

    if page is not None:
        structured: dict[str, Any] = page.to_wire()
    else:
        count = sum(len(section.rows) for section in document.sections)
        state = {"complete": True, "returned": count, "total": count}
        structured = {"document": document.model_dump(mode="json"), "page": state}
    structured[RESULT_STRUCTURED_KEY] = directive_wire

    shown_null = null_display if null_display is not None else (effective.null_display or "-")
    text = render_text(document, null_display=shown_null)
    if page is not None and (notice := _notice(page)):
        text = f"{text}\n\n{notice}"
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
        "_rendering": directive_wire,
        "_meta": {EXTENSION_ID: directive_wire},
    }
    # Validating the wire form lets an installed patch type `_rendering`; an unpatched SDK ignores it and the
    # `_meta` mirror still carries the directive.
    return mcp_types.CallToolResult.model_validate(wire)


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
) -> mcp_types.CallToolResult:
    """The page this call asks for, as a verbatim result; a refused token, a changed result set or an impossible
    budget becomes a tool error the model can act on (never a silently shortened result).

    Args:
        envelope: the tool's envelope (budget, token issuer, continuation argument name).
        document: the whole result set, rows already carrying their URIs (`RecordUris.assign`).
        arguments: the call's arguments as received, continuation argument included.
        caller: the caller's identity as the server knows it.
        directive: the rendering directive; defaults to verbatim.
        fingerprint: a cheap version of the result set (see `Envelope.page`).
        record_links: add a ``resource_link`` block for every record on the page.
    """
    try:
        page = envelope.page(document, arguments=arguments, caller=caller, fingerprint=fingerprint)
    except (TokenError, ResultChangedError, BudgetError) as exc:
        return error_result(exc.message)
    return verbatim_result(page, directive, record_links=record_links)
