"""The bounded envelope: cut a `Document` into pages that fit a byte and item budget, at record boundaries only.

A page holds whole rows, in order; a section split across pages repeats its id, title and columns on the next
page. Every row keeps the canonical `uri` it was given before budgeting (see `RecordUris`). A page says whether it
is complete and, when it is not, carries a continuation token (see `mcp_rendering.tokens`) that holds all the state
needed to resume on any replica.

Sizes are measured on the compact JSON that pydantic produces, the form the MCP SDK sends: each row is serialized
once, and the page's framing is accounted for exactly, so a page's `size_bytes` equals the length of its
serialized `to_wire()` form without ever serializing the whole page while packing.

What never happens: a record, id or URI cut in the middle; a record silently dropped or repeated; a page built
from a result set that changed under its token (that raises `ResultChangedError`, which carries a narrowing
instruction for the caller).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

from pydantic import ValidationError
from pydantic_core import to_json

from mcp_rendering.document import Cell, Document, Row, Section
from mcp_rendering.tokens import ContinuationTokens, IssuedToken, MalformedTokenError
from mcp_rendering.types import ResultContinuationTool

__all__ = [
    "Budget",
    "BudgetError",
    "Envelope",
    "LinkedField",
    "LinkedRecord",
    "Page",
    "RecordNotFoundError",
    "RecordRef",
    "RecordUris",
    "ResolvedResource",
    "ResultChangedError",
    "content_fingerprint",
    "read_record",
]

_row_json = Row.__pydantic_serializer__.to_json
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ResultChangedError(Exception):
    """The result set differs from the one a continuation token was cut from.

    Resuming could skip or repeat records, so the call fails instead; `message` tells the caller to start over
    and to narrow the request.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BudgetError(ValueError):
    """The budget cannot hold even one record's link (or an empty section's header): a bounded error, not a cut."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RecordNotFoundError(LookupError):
    """No record at this URI for this caller. Raised alike for a missing record and for one the caller may not
    see, so that existence does not leak."""


@dataclass(frozen=True)
class Budget:
    """Limits of one page."""

    max_bytes: int = 1_000_000
    """Upper bound on the page's serialized JSON (`Page.size_bytes`), in UTF-8 bytes."""
    max_items: int | None = None
    """Upper bound on the records per page (rows plus linked records); None for no item limit."""
    max_field_bytes: int | None = None
    """A cell whose serialized JSON is longer than this is replaced by the URI of a field resource holding it
    (listed in the page's `linkedFields`); None to always embed cells."""

    def __post_init__(self) -> None:
        """Refuse a limit that is not a positive integer: TypeError for another type (a bool or a float: 1.5 records
        is no limit a page can keep), ValueError for zero or less."""
        _positive("max_bytes", self.max_bytes)
        if self.max_items is not None:
            _positive("max_items", self.max_items)
        if self.max_field_bytes is not None:
            _positive("max_field_bytes", self.max_field_bytes)


def _positive(name: str, value: object) -> None:
    if type(value) is not int:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be positive")


def _name(what: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, not {type(value).__name__}")
    if not value:
        raise ValueError(f"{what} must not be empty")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} {value!a} holds a lone surrogate, which is not text") from None


def _argument_name(value: str) -> None:
    """Refuse, when the envelope is made, an argument name the continuation carrier of every page would refuse."""
    try:
        ResultContinuationTool.model_validate({"argument": value})
    except ValidationError:
        raise ValueError(
            f"argument {value!a} is not a valid argument name: 1-64 characters of A-Z, a-z, 0-9 or '_', "
            "not starting with a digit"
        ) from None


@dataclass(frozen=True)
class RecordRef:
    """A record or field URI taken apart by `RecordUris.parse`."""

    params: Mapping[str, str]
    """The template's parameters other than `row_id`."""
    row_id: str
    column: int | None = None
    """Column index for a field URI; None for a record URI."""


class RecordUris:
    """Canonical record URIs from a template such as ``ledger://statements/{statement}/rows/{row_id}``.

    The template must contain ``{row_id}``; its other placeholders are filled from keyword parameters. Values are
    percent-encoded, so a URI is built and parsed back without loss. A large field of a record is addressed as
    ``<record uri>/fields/<column index>``.
    """

    def __init__(self, template: str) -> None:
        """Raises: TypeError if `template` is not a string; ValueError without one ``{row_id}`` placeholder."""
        _name("template", template)
        names = _PLACEHOLDER.findall(template)
        if "row_id" not in names:
            raise ValueError("a record URI template needs a {row_id} placeholder")
        if len(set(names)) != len(names):
            raise ValueError("a placeholder appears twice in the record URI template")
        self.template = template
        self.field_template = template + "/fields/{column}"
        pattern = ""
        last = 0
        for match in _PLACEHOLDER.finditer(template):
            pattern += re.escape(template[last : match.start()]) + f"(?P<{match.group(1)}>[^/?#]+)"
            last = match.end()
        pattern += re.escape(template[last:])
        self._record = re.compile(pattern + r"\Z")
        self._field = re.compile(pattern + r"/fields/(?P<__column>0|[1-9][0-9]*)\Z")
        self._params = tuple(name for name in names if name != "row_id")

    def record_uri(self, row_id: str, **params: str) -> str:
        """The URI of record `row_id`."""
        missing = set(self._params) - set(params)
        if missing:
            raise ValueError(f"record URI template needs {sorted(missing)}")
        values = {name: quote(value, safe="") for name, value in params.items()}
        return self.template.format(row_id=quote(row_id, safe=""), **values)

    @staticmethod
    def field_uri(record_uri: str, column: int) -> str:
        """The URI of one field (by column index) of the record at `record_uri`."""
        return f"{record_uri}/fields/{column}"

    def assign(self, document: Document, **params: str) -> Document:
        """A copy of `document` with every row's `uri` set from the template. Do this before budgeting."""
        sections = tuple(
            section.model_copy(
                update={
                    "rows": tuple(
                        row.model_copy(update={"uri": self.record_uri(row.id, **params)}) for row in section.rows
                    )
                }
            )
            for section in document.sections
        )
        return document.model_copy(update={"sections": sections})

    def parse(self, uri: str) -> RecordRef | None:
        """Take a record or field URI apart; None if it does not follow the template."""
        field = self._field.match(uri)
        match = field or self._record.match(uri)
        if match is None:
            return None
        groups = match.groupdict()
        column = int(groups.pop("__column")) if field else None
        row_id = unquote(groups.pop("row_id"))
        return RecordRef(params={k: unquote(v) for k, v in groups.items()}, row_id=row_id, column=column)


@dataclass(frozen=True)
class LinkedField:
    """A cell too large to embed: its value in the page is `uri`; the body is read through `resources/read`."""

    row_id: str
    column: int
    name: str
    uri: str
    bytes: int
    """Size of the cell's serialized JSON."""

    def to_wire(self) -> dict[str, Any]:
        """The JSON form listed under the page's `linkedFields`."""
        return {"rowId": self.row_id, "column": self.column, "name": self.name, "uri": self.uri, "bytes": self.bytes}


@dataclass(frozen=True)
class LinkedRecord:
    """A record too large for the budget: returned as a link to its canonical URI, alone on its page."""

    row_id: str
    section_id: str
    uri: str
    bytes: int
    """Size of the record's serialized JSON."""

    def to_wire(self) -> dict[str, Any]:
        """The JSON form listed under the page's `linkedRecords`."""
        return {"rowId": self.row_id, "sectionId": self.section_id, "uri": self.uri, "bytes": self.bytes}


@dataclass(frozen=True)
class Page:
    """One bounded page of a document."""

    document: Document
    """The page's sections (headers repeated when split) and whole rows, in order."""
    complete: bool
    """True when this page ends the result: nothing follows."""
    returned: int
    """Records on this page (rows plus linked records)."""
    total: int
    """Records in the whole result set."""
    next_token: str | None
    """Continuation token when incomplete."""
    argument: str
    """Name of the tool argument that takes the continuation token."""
    expires_at: int | None = None
    """Expiry of `next_token`, in whole seconds since the epoch (None when there is no token)."""
    linked_records: tuple[LinkedRecord, ...] = ()
    linked_fields: tuple[LinkedField, ...] = ()
    size_bytes: int = 0
    """Exact length of the compact JSON of `to_wire()`, in UTF-8 bytes."""

    def meta_wire(self) -> dict[str, Any]:
        """The page state: ``{complete, returned, total, nextToken?, linkedRecords?, linkedFields?}``."""
        meta: dict[str, Any] = {"complete": self.complete, "returned": self.returned, "total": self.total}
        if self.next_token is not None:
            meta["nextToken"] = self.next_token
        if self.linked_records:
            meta["linkedRecords"] = [link.to_wire() for link in self.linked_records]
        if self.linked_fields:
            meta["linkedFields"] = [link.to_wire() for link in self.linked_fields]
        return meta

    def to_wire(self) -> dict[str, Any]:
        """``{"document": ..., "page": ...}``: the JSON the budget was measured on."""
        return {"document": self.document.model_dump(mode="json"), "page": self.meta_wire()}

    def record_links(self) -> list[tuple[str, str]]:
        """(uri, row id) of every record on the page, rows and linked records, in order."""
        links = [(row.uri, row.id) for section in self.document.sections for row in section.rows if row.uri]
        links.extend((link.uri, link.row_id) for link in self.linked_records)
        return links


def content_fingerprint(document: Document) -> str:
    """A digest of the whole document's content, used when the tool has no cheaper version of its data.

    It costs one serialization of the document per call; a tool serving large result sets should pass its own
    fingerprint (a data version, an ETag, a last-modified stamp) to `Envelope.page` instead.
    """
    return hashlib.sha256(document.__pydantic_serializer__.to_json(document)).hexdigest()


def _jlen(value: object) -> int:
    return len(to_json(value))


class Envelope:
    """Pages the results of one tool within a budget, with continuation tokens bound to the call.

    One instance serves every call of the tool; it keeps no per-call state.
    """

    def __init__(
        self,
        *,
        tool: str,
        tokens: ContinuationTokens,
        budget: Budget | None = None,
        argument: str = "cursor",
    ) -> None:
        """Configure the envelope of one tool.

        Args:
            tool: the tool's name (tokens are bound to it).
            tokens: the token issuer shared by the server's replicas.
            budget: page limits.
            argument: name of the tool argument that takes the continuation token.

        Raises:
            TypeError: `tool` or `argument` is not a string, `tokens` not a `ContinuationTokens`, `budget` not a
                `Budget`.
            ValueError: `tool` or `argument` is empty or holds a lone surrogate, or `argument` is not a valid
                argument name (the continuation carrier's pattern: ``[A-Za-z_][A-Za-z0-9_]{0,63}``).
        """
        _name("tool", tool)
        _name("argument", argument)
        _argument_name(argument)
        if not isinstance(tokens, ContinuationTokens):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"tokens must be a ContinuationTokens, not {type(tokens).__name__}")
        if budget is not None and not isinstance(budget, Budget):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"budget must be a Budget, not {type(budget).__name__}")
        self.tool = tool
        self.tokens = tokens
        self.budget = budget or Budget()
        self.argument = argument

    def page(
        self,
        document: Document,
        *,
        arguments: Mapping[str, Any],
        caller: str,
        fingerprint: str | None = None,
    ) -> Page:
        """The page of `document` that this call asks for.

        Args:
            document: the whole result set, rows already carrying their canonical URIs.
            arguments: the call's arguments as received; the continuation token, if any, is read from
                ``arguments[self.argument]`` and the rest are bound into the next token.
            caller: the caller's identity as the server knows it (for example the authenticated subject).
            fingerprint: a cheap version of the result set; defaults to `content_fingerprint(document)`.

        Raises:
            TokenError: the continuation token is refused (its subclass says why).
            NotJSONArgumentsError: the arguments are not JSON text, so no token can be bound to them.
            ResultChangedError: the result set changed since the token was issued.
            BudgetError: the budget cannot hold even one record's link.
        """
        fingerprint = content_fingerprint(document) if fingerprint is None else fingerprint
        token = arguments.get(self.argument)
        units = _Units(document)
        start = 0
        if token is not None:
            if not isinstance(token, str):
                raise MalformedTokenError("continuation token is malformed: not a string")
            state = self.tokens.verify(
                token, tool=self.tool, arguments=arguments, caller=caller, exclude_argument=self.argument
            )
            expected = self.tokens.fingerprint_digest(fingerprint, state.key_id)
            if state.fingerprint != expected or state.position > units.count:
                raise ResultChangedError(
                    f"the result of {self.tool!r} changed since this continuation token was issued "
                    f"(it now holds {units.records} records), so continuing could skip or repeat records. "
                    f"Call {self.tool!r} again without {self.argument!r}, and narrow the request (a tighter "
                    "filter or a smaller range) so that the result fits in fewer pages."
                )
            start = state.position
        return _Packer(self, document, units, start, arguments, caller, fingerprint).pack()


class _Units:
    """The paging sequence: each row is a unit, and so is each empty section (so it appears exactly once)."""

    def __init__(self, document: Document) -> None:
        offsets: list[int] = []
        count = 0
        records = 0
        for section in document.sections:
            offsets.append(count)
            count += len(section.rows) or 1
            records += len(section.rows)
        self.offsets = offsets
        self.count = count
        self.records = records


@dataclass
class _Part:
    section: Section
    rows: list[Row]


@dataclass
class _Fill:
    """The units one packing pass took: the page's content before its token and its size are settled."""

    parts: list[_Part]
    linked_fields: list[LinkedField]
    linked_records: list[LinkedRecord]
    used: int
    """Bytes of the sections and rows, commas included."""
    position: int
    """The first unit not taken."""
    items: int
    complete: bool
    stopped_by_items: bool


class _Packer:
    def __init__(
        self,
        envelope: Envelope,
        document: Document,
        units: _Units,
        start: int,
        arguments: Mapping[str, Any],
        caller: str,
        fingerprint: str,
    ) -> None:
        self.envelope = envelope
        self.document = document
        self.units = units
        self.start = start
        self.arguments = arguments
        self.caller = caller
        self.fingerprint = fingerprint

    def _meta_size(self, *, complete: bool, returned: int, token: str | None) -> int:
        meta: dict[str, Any] = {"complete": complete, "returned": returned, "total": self.units.records}
        if token is not None:
            meta["nextToken"] = token
        return _jlen(meta)

    def _token(self, position: int) -> IssuedToken:
        env = self.envelope
        return env.tokens.issue_token(
            tool=env.tool,
            arguments=self.arguments,
            caller=self.caller,
            position=position,
            fingerprint=self.fingerprint,
            exclude_argument=env.argument,
        )

    def pack(self) -> Page:
        budget = self.envelope.budget
        records = self.units.records
        # Framing: {"document":{"title":T,"sections":[...]},"page":M}; M is reserved with room for a token only where
        # one will be issued: a page that ends the result carries none. A page cut short reserves its count at its
        # largest value (the result's); the last page holds every record from here on, a count known now.
        frame = len('{"document":,"page":}') + _jlen({"title": self.document.title, "sections": []})
        token_reserve = self._meta_size(complete=False, returned=records, token=self._token(self.units.count).token)
        with_token = budget.max_bytes - frame - token_reserve
        rest = self._records_from(self.start)
        without_token = budget.max_bytes - frame - self._meta_size(complete=True, returned=rest, token=None)
        refused: BudgetError | None = None
        try:
            fill: _Fill | None = self._fill(with_token)
        except BudgetError as error:
            fill, refused = None, error
        if fill is not None and fill.complete:
            return self._page(fill, frame)
        # Cut short: would the rest fit as the last page, in the room the token would have taken? Rarely worth a
        # second pass, and a lower bound on the rest's size (a few rows at most) says when it is.
        if fill is None or not fill.stopped_by_items:
            start, used = (self.start, 0) if fill is None else (fill.position, fill.used)
            if self._rest_may_fit(start, without_token - used, empty_page=used == 0):
                try:
                    whole = self._fill(without_token)
                except BudgetError:
                    whole = None
                if whole is not None and whole.complete:
                    return self._page(whole, frame)
        if fill is None:
            assert refused is not None
            raise refused
        return self._page(fill, frame)

    def _records_from(self, start: int) -> int:
        """The records in the units from `start` on: a page holding them all returns that many."""
        return sum(
            len(section.rows) - min(max(start - begin, 0), len(section.rows))
            for begin, section in zip(self.units.offsets, self.document.sections, strict=True)
        )

    def _rest_may_fit(self, start: int, room: int, *, empty_page: bool = False) -> bool:
        """False when the units from `start` on surely take more than `room` bytes (or more than `max_items`);
        `empty_page` when they would begin the page."""
        budget = self.envelope.budget
        needed = 0
        rows = 0
        for index, section in enumerate(self.document.sections):
            begin = self.units.offsets[index]
            for row in section.rows[max(0, start - begin) :]:
                rows += 1
                size = len(_row_json(row))
                # A linked cell may shrink a row, and the first record of an empty page, too large for it, is sent
                # as a link: count nothing for either (this is a lower bound).
                linkable = (budget.max_field_bytes is not None and size > budget.max_field_bytes) or (
                    empty_page and rows == 1 and size > room
                )
                needed += 0 if linkable and row.uri else size
                if needed > room or (budget.max_items is not None and rows > budget.max_items):
                    return False
        return needed <= room

    def _fill(self, limit: int) -> _Fill:
        """Pack whole units from `self.start` while their bytes stay within `limit`."""
        budget = self.envelope.budget
        document = self.document
        units = self.units
        max_items = budget.max_items
        max_field = budget.max_field_bytes

        parts: list[_Part] = []
        linked_fields: list[LinkedField] = []
        linked_records: list[LinkedRecord] = []
        used = 0  # bytes of sections and rows, commas included
        items = 0
        position = self.start
        stop = False
        stopped_by_items = False
        offsets = units.offsets
        for index, section in enumerate(document.sections):
            begin = offsets[index]
            n_rows = len(section.rows)
            if begin + (n_rows or 1) <= position:
                continue
            header = _jlen({"id": section.id, "title": section.title, "columns": list(section.columns), "rows": []})
            section_cost = header + (1 if parts else 0)
            if n_rows == 0:
                if used + section_cost > limit:
                    if not parts:
                        raise BudgetError(f"the budget of {budget.max_bytes} bytes cannot hold section {section.id!r}")
                    break
                parts.append(_Part(section, []))
                used += section_cost
                position += 1
                continue
            part: _Part | None = None
            for row in section.rows[position - begin :]:
                if max_items is not None and items >= max_items:
                    stop = stopped_by_items = True
                    break
                row_bytes = _row_json(row)
                size = len(row_bytes)
                fields: list[LinkedField] = []
                if max_field is not None and size > max_field and row.uri is not None:
                    row, fields = _link_fields(row, section, max_field)
                    if fields:
                        size = len(_row_json(row))
                cost = size + (1 if part is not None and part.rows else 0)
                if part is None:
                    cost += section_cost
                if fields:
                    cost += sum(_jlen(link.to_wire()) + 1 for link in fields)
                    if not linked_fields:
                        cost += len(',"linkedFields":[]') - 1
                if used + cost > limit:
                    if parts or part is not None:
                        stop = True
                        break
                    # Alone on an empty page and still too large: link the record instead of cutting it.
                    if row.uri is None:
                        overhead = budget.max_bytes - limit
                        raise BudgetError(
                            f"record {row.id!r} ({len(row_bytes)} bytes) does not fit a page of max_bytes="
                            f"{budget.max_bytes}: the page's framing (title, section, page state and continuation "
                            f"token) takes {overhead} bytes of it; a page that holds this record needs max_bytes of "
                            f"at least {overhead + section_cost + len(row_bytes)}"
                        )
                    link = LinkedRecord(row_id=row.id, section_id=section.id, uri=row.uri, bytes=len(row_bytes))
                    link_cost = section_cost + _jlen(link.to_wire()) + len(',"linkedRecords":[]')
                    if used + link_cost > limit:
                        raise BudgetError(
                            f"the budget of {budget.max_bytes} bytes cannot hold even a link to record {row.id!r}"
                        )
                    parts.append(_Part(section, []))
                    used += section_cost
                    linked_records.append(link)
                    position += 1
                    items += 1
                    stop = True
                    break
                if part is None:
                    part = _Part(section, [])
                    parts.append(part)
                part.rows.append(row)
                linked_fields.extend(fields)
                used += cost
                position += 1
                items += 1
            if stop:
                break

        return _Fill(
            parts, linked_fields, linked_records, used, position, items, position >= units.count, stopped_by_items
        )

    def _page(self, fill: _Fill, frame: int) -> Page:
        budget = self.envelope.budget
        issued = None if fill.complete else self._token(fill.position)
        token = None if issued is None else issued.token
        page_document = self.document.model_copy(
            update={
                "sections": tuple(part.section.model_copy(update={"rows": tuple(part.rows)}) for part in fill.parts),
            }
        )
        meta_size = self._meta_size(complete=fill.complete, returned=fill.items, token=token)
        if fill.linked_records:
            meta_size += (
                len(',"linkedRecords":[]')
                + sum(_jlen(link.to_wire()) for link in fill.linked_records)
                + (len(fill.linked_records) - 1)
            )
        size = frame + fill.used + meta_size
        if size > budget.max_bytes:  # only a page with no record at all gets here: the framing alone is too large
            raise BudgetError(
                f"the budget of {budget.max_bytes} bytes cannot hold even an empty page ({size} bytes of framing)"
            )
        return Page(
            document=page_document,
            complete=fill.complete,
            returned=fill.items,
            total=self.units.records,
            next_token=token,
            argument=self.envelope.argument,
            expires_at=None if issued is None else issued.expires_at,
            linked_records=tuple(fill.linked_records),
            linked_fields=tuple(fill.linked_fields),
            size_bytes=size,
        )


def _link_fields(row: Row, section: Section, max_field: int) -> tuple[Row, list[LinkedField]]:
    assert row.uri is not None
    values: list[Cell] = list(row.values)
    links: list[LinkedField] = []
    for column, value in enumerate(row.values):
        size = _jlen(value)
        if size > max_field:
            uri = RecordUris.field_uri(row.uri, column)
            links.append(LinkedField(row_id=row.id, column=column, name=section.columns[column], uri=uri, bytes=size))
            values[column] = uri
    if not links:
        return row, links
    return row.model_copy(update={"values": tuple(values)}), links


@dataclass(frozen=True)
class ResolvedResource:
    """What `resources/read` returns for a record or field URI."""

    uri: str
    mime_type: str
    text: str


def read_record(
    uri: str,
    *,
    uris: RecordUris,
    load: Callable[[Mapping[str, str], str], Document | None],
    caller: str,
) -> ResolvedResource:
    """Resolve a record or field URI for `resources/read`, under the caller's own authorization.

    Args:
        uri: the record URI (or a field URI under it) as returned in a page.
        uris: the tool's URI template.
        load: ``load(params, caller)`` returns the document this caller may see for the template parameters (the
            same loader the tool uses, so the same authorization applies), or None when the caller may see none.
        caller: the caller's identity as the server knows it.

    Returns:
        A record as JSON (``{"sectionId", "sectionTitle", "columns", "row"}``); a field as its text when it is a
        string, else as JSON.

    Raises:
        RecordNotFoundError: no such record for this caller (missing and forbidden look the same).
    """
    ref = uris.parse(uri)
    if ref is None:
        raise RecordNotFoundError(f"not a record URI of this tool: {uri}")
    document = load(ref.params, caller)
    if document is not None:
        for section in document.sections:
            for row in section.rows:
                if row.id != ref.row_id:
                    continue
                canonical = row.uri if ref.column is None or row.uri is None else uris.field_uri(row.uri, ref.column)
                if canonical is not None and canonical != uri:
                    break
                if ref.column is None:
                    body = {
                        "sectionId": section.id,
                        "sectionTitle": section.title,
                        "columns": list(section.columns),
                        "row": row.model_dump(mode="json"),
                    }
                    return ResolvedResource(uri=uri, mime_type="application/json", text=to_json(body).decode())
                if ref.column < len(row.values):
                    value = row.values[ref.column]
                    if isinstance(value, str):
                        return ResolvedResource(uri=uri, mime_type="text/plain", text=value)
                    return ResolvedResource(uri=uri, mime_type="application/json", text=to_json(value).decode())
                break
    raise RecordNotFoundError(f"no record at {uri}")
