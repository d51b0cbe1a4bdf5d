"""What a tool result is made of, as a host shows it and an audit checks it: its records, in order.

One function, `result_records`, decides it for `mcp_rendering.host.present` and `mcp_rendering.audit.audit` alike,
for any result:

- **document**: `structuredContent["document"]` holds a valid `Document` (the reference builder's shape). Its
  sections and rows are the records, followed by the other members of `structuredContent` (all but `page`, the
  page state, and `_rendering`, the model-facing copy of the directive), read as below.
- **structured**: any other JSON in `structuredContent`. Every array is a section titled by its path (`$.hits`),
  and each of its elements a record: a row labelled by its index (`[0]`), whose values are the element's scalar
  leaves, one column per leaf path (`name`, `address.city`) in first-seen order; a leaf an element lacks shows as
  an empty cell. Scalar members outside any array form a first section, `$`, one row per member. An array inside
  a record is a section of its own, placed after the section that holds the record. Below `MAX_DEPTH` levels a
  subtree is shown as its compact JSON in one cell. A section whose elements have more than `MAX_COLUMNS` leaf
  paths between them has one column instead, `value`, holding each record's leaves as compact JSON (so that a
  small result of unlike records cannot make a table of records times paths cells).
- **text**: no structured content: the lines of the text content blocks, in order.

A row of a document or structured result is a *record*; a *section* is a titled group of records sharing columns;
a *subtotal* or *total* is a record of that kind (`Row.kind`), which aggregates records shown before it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, cast

from pydantic import ValidationError

from mcp_rendering.document import Cell, Document, Row, Section
from mcp_rendering.reading import MAX_MESSAGE_VALUES, MessageTooLargeError, check_finite_numbers
from mcp_rendering.render import visible
from mcp_rendering.types import RESULT_STRUCTURED_KEY

__all__ = [
    "MAX_COLUMNS",
    "MAX_DEPTH",
    "MAX_PATH",
    "ContentLine",
    "RecordsKind",
    "ResultRecords",
    "block_line",
    "content_lines",
    "json_sections",
    "result_records",
    "shows_text",
]

MAX_DEPTH = 32
"""Nesting depth below which a structured value is shown as compact JSON in one cell rather than as records."""

MAX_PATH = 256
"""The longest path (a label, a column name, a section title) shown, in code points; see `_shorten`."""

MAX_COLUMNS = 32
"""The most columns a section of structured content gets; beyond, each record is one cell of compact JSON."""

RecordsKind: TypeAlias = Literal["document", "structured", "text"]
"""Which reading of a result gave its records (see the module docstring)."""

_PAGE_KEY = "page"
_DOCUMENT_KEY = "document"
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_STRUCTURED_TITLE = "Structured content"
_ABSENT_CELL = ""


@dataclass(frozen=True)
class ContentLine:
    """One line of a result's content as shown: a line of a text block, a line naming another block, or the empty
    line between two blocks."""

    text: str
    from_text: bool
    """True for a line of a text block (the lines an audit checks); False for the other two."""
    block: int
    """Index of the content block it comes from; the empty line between two blocks carries the next one's."""

    @property
    def names_block(self) -> bool:
        """True for a line naming a non-text block: the empty line before a block names nothing."""
        return not self.from_text and bool(self.text)


@dataclass(frozen=True)
class ResultRecords:
    """The records of one result, in the order a faithful presentation shows them."""

    kind: RecordsKind
    document: Document | None
    """For "document" and "structured": the records as a document (sections of rows)."""
    lines: tuple[ContentLine, ...]
    """For "text": the content, line by line, blocks separated by an empty line."""
    unwalked: bool = False
    """Whether the structured content read (all of it for "structured"; for "document", its members beside the
    document and the page state) holds a value the reading did not walk: one `MAX_DEPTH` levels deep, shown as
    compact JSON, or one that is not JSON (a tuple), shown as its text. If not, every value was walked within
    `MAX_DEPTH` levels, and a reader forwarding them need not walk them again."""

    @property
    def count(self) -> int:
        """How many records: rows for a document or structured result, text lines for a text result."""
        if self.document is not None:
            return sum(len(section.rows) for section in self.document.sections)
        return sum(1 for line in self.lines if line.from_text and shows_text(line.text))


def shows_text(line: str) -> bool:
    """Whether a line of a text result shows anything once its hidden characters are made visible."""
    return bool(visible(line).strip())


def _structured(wire: Mapping[str, Any]) -> Any:
    return wire.get("structuredContent")


def _shorten(path: str) -> str:
    """A path of at most `MAX_PATH` code points: a longer one keeps its start and its end around an ellipsis. Each
    label, column name and title is a path, repeated for every leaf below it, so that a long key would otherwise
    cost its length once per leaf."""
    if len(path) <= MAX_PATH:
        return path
    half = (MAX_PATH - 1) // 2
    return f"{path[:half]}\u2026{path[-half:]}"


def _key_path(base: str, key: str) -> str:
    part = key if _PLAIN_KEY.fullmatch(key) else f"[{json.dumps(key, ensure_ascii=False)}]"
    if not base:
        return _shorten(part)
    return _shorten(f"{base}{part}" if part.startswith("[") else f"{base}.{part}")


def _unique(found: Mapping[str, Any], path: str, repeats: dict[str, int]) -> str:
    """`path`, numbered when a shortened path repeats one already found, so that no leaf hides another."""
    name = path
    while name in found:
        repeats[path] = repeats.get(path, 1) + 1
        name = f"{path} #{repeats[path]}"
    return name


_NOT_JSON = "(a value holding a number JSON cannot hold)"


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (RecursionError, TypeError, ValueError):
        return "(a value nested too deep to show)"


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | bool | int | float)


class _SectionBuilder:
    def __init__(self, path: str, title: str) -> None:
        self.path = path
        self.title = title
        self.columns: dict[str, None] = {}
        self.rows: list[tuple[str, str, dict[str, Cell]]] = []

    def add(self, row_id: str, label: str, leaves: dict[str, Cell]) -> None:
        for name in leaves:
            self.columns.setdefault(name)
        self.rows.append((row_id, label, leaves))

    def build(self) -> Section:
        if len(self.columns) > MAX_COLUMNS:
            rows = tuple(
                Row.model_construct(id=row_id, label=label, values=(_compact(leaves),), kind="item", level=0, uri=None)
                for row_id, label, leaves in self.rows
            )
            return Section.model_construct(id=self.path, title=self.title, columns=("value",), rows=rows)
        columns = tuple(self.columns)
        rows = tuple(
            Row.model_construct(
                id=row_id,
                label=label,
                values=tuple(leaves.get(column, _ABSENT_CELL) for column in columns),
                kind="item",
                level=0,
                uri=None,
            )
            for row_id, label, leaves in self.rows
        )
        return Section.model_construct(id=self.path, title=self.title, columns=columns, rows=rows)


class _Walker:
    """Turns JSON into sections, without recursion deeper than `MAX_DEPTH`."""

    def __init__(self) -> None:
        self.sections: list[_SectionBuilder] = []
        self.unwalked = False
        """Whether a value was left unwalked: `MAX_DEPTH` levels deep, or not JSON."""
        self.left = MAX_MESSAGE_VALUES
        """How many more values may be read: a value built in memory that holds itself, or shares values in many
        places, is written out as JSON would write it, and refused past the bound rather than read without end."""

    def leaves(self, value: Any, base: str, depth: int, nested: list[tuple[str, list[Any], int]]) -> dict[str, Cell]:
        """The scalar leaves of `value` under relative paths; arrays met on the way go to `nested`."""
        found: dict[str, Cell] = {}
        repeats: dict[str, int] = {}
        stack: list[tuple[str, Any, int]] = [(base, value, depth)]
        left = self.left
        while stack:
            path, node, level = stack.pop()
            left -= 1
            if left < 0:
                raise MessageTooLargeError.too_many_values()
            if isinstance(node, list) and level < MAX_DEPTH:
                nested.append((path, cast("list[Any]", node), level))
                continue
            if isinstance(node, Mapping) and level < MAX_DEPTH:
                items = list(cast("Mapping[str, Any]", node).items())
                stack.extend((_key_path(path, str(key)), child, level + 1) for key, child in reversed(items))
                continue
            name = _unique(found, path or "value", repeats)
            if _scalar(node):
                found[name] = cast("Cell", node)
            elif level >= MAX_DEPTH:
                self.unwalked = True
                # Read first within the bound: written out, a value shared in many places would not end.
                try:
                    left -= check_finite_numbers(node, max_values=max(left, 0))
                except MessageTooLargeError:
                    raise
                except ValueError:  # a number JSON cannot hold, which `present()` refuses: not written out
                    found[name] = _NOT_JSON
                else:
                    found[name] = _compact(node)
            else:
                self.unwalked = True
                found[name] = str(cast("object", node))
        self.left = left
        return found

    def array(self, path: str, items: list[Any], depth: int) -> None:
        section = _SectionBuilder(path, path)
        self.sections.append(section)
        nested: list[tuple[str, list[Any], int]] = []
        for index, item in enumerate(items):
            row_path = _shorten(f"{path}[{index}]")
            inner: list[tuple[str, list[Any], int]] = []
            section.add(row_path, f"[{index}]", self.leaves(item, "", depth + 1, inner))
            nested.extend((_join(row_path, relative), array, level) for relative, array, level in inner)
        for nested_path, array, level in nested:
            self.array(nested_path, array, level)


def _join(row_path: str, relative: str) -> str:
    if not relative:
        return row_path
    return _shorten(f"{row_path}{relative}" if relative.startswith("[") else f"{row_path}.{relative}")


def json_sections(value: Any) -> list[Section]:
    """The sections of a JSON value, read as the module docstring describes (empty for an empty object)."""
    return _json_sections(value)[0]


def _json_sections(value: Any) -> tuple[list[Section], bool]:
    """`json_sections`, and whether a value was left unwalked (`ResultRecords.unwalked`)."""
    walker = _Walker()
    if isinstance(value, list):
        walker.array("$", cast("list[Any]", value), 0)
        return [section.build() for section in walker.sections], walker.unwalked
    if not isinstance(value, Mapping):
        value = {"value": value}
    fields = _SectionBuilder("$", "$")
    nested: list[tuple[str, list[Any], int]] = []
    for key, child in cast("Mapping[str, Any]", value).items():
        leaves = walker.leaves(child, _key_path("", str(key)), 1, nested)
        for name, leaf in leaves.items():
            fields.add(f"$.{name}", name, {"value": leaf})
    for path, array, level in nested:
        walker.array(_shorten(f"$.{path}" if not path.startswith("[") else f"${path}"), array, level)
    sections = [fields.build()] if fields.rows else []
    return sections + [section.build() for section in walker.sections], walker.unwalked


def content_lines(wire: Mapping[str, Any]) -> tuple[ContentLine, ...]:
    """The result's content as lines: text blocks split at line feeds (or CRLF), every other block named on one line.

    Blocks are separated by an empty line.
    """
    content = wire.get("content")
    blocks: list[Any] = list(cast("list[Any]", content)) if isinstance(content, list) else []
    lines: list[ContentLine] = []
    for index, block in enumerate(blocks):
        if not isinstance(block, Mapping):
            continue
        block_map = cast("Mapping[str, Any]", block)
        body = block_map.get("text")
        if block_map.get("type") == "text" and isinstance(body, str):
            # A CRLF ends a line as a line feed does: its CR is no character of the line.
            entries = [ContentLine(line, True, index) for line in body.replace("\r\n", "\n").split("\n")]
        else:  # another block, or a text block without text, which is named like one
            entries = [ContentLine(block_line(block_map), False, index)]
        if lines:
            lines.append(ContentLine("", False, index))
        lines.extend(entries)
    return tuple(lines)


def block_line(block: Mapping[str, Any]) -> str:
    """One line naming a content block other than a text block with text, so that the user sees every block of the
    result, in order."""
    template, members = _block_line_members(block)
    return template.format(*(_shown(value) if isinstance(value, str) else "?" for value in members))


def block_line_strings(block: Mapping[str, Any]) -> list[str]:
    """The server's strings `block_line` shows of `block`, in order, as it shows them (on one line)."""
    return [_shown(value) for value in _block_line_members(block)[1] if isinstance(value, str)]


def _shown(member: str) -> str:
    return " ".join(member.splitlines())


def _block_line_members(block: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
    """The line naming `block`, with a `{}` for each member it shows, and those members: one choice for the line and
    for the strings the host checks on it."""
    kind = block.get("type")
    if kind == "resource_link":
        return "[link] {} <{}>", (block.get("name"), block.get("uri"))
    if kind in ("image", "audio"):  # the host's own spelling in the template, never the server's value
        return ("[image: {}]" if kind == "image" else "[audio: {}]"), (block.get("mimeType"),)
    if kind == "resource":
        resource = block.get("resource")
        inner: Mapping[str, Any] = cast("Mapping[str, Any]", resource) if isinstance(resource, Mapping) else {}
        return "[resource] {}", (inner.get("uri"),)
    if kind == "text":  # its `text` is not a string: the user is told a block is there, the model no more
        return "[text block without text]", ()
    return "[{} block]", (kind,)


def _valid_document(value: Any) -> Document | None:
    try:
        return Document.model_validate(value)
    except (ValidationError, RecursionError):
        return None


def _without(structured: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in structured.items() if key not in keys}


def result_records(wire: Mapping[str, Any]) -> ResultRecords:
    """The records of a result in wire form (see the module docstring)."""
    structured = _structured(wire)
    if isinstance(structured, Mapping):
        members = cast("Mapping[str, Any]", structured)
        document = _valid_document(members[_DOCUMENT_KEY]) if _DOCUMENT_KEY in members else None
        if document is not None:
            extra, unwalked = _json_sections(_without(members, _DOCUMENT_KEY, _PAGE_KEY, RESULT_STRUCTURED_KEY))
            if extra:
                document = Document.model_construct(title=document.title, sections=(*document.sections, *extra))
            return ResultRecords("document", document, (), unwalked)
        data = _without(members, RESULT_STRUCTURED_KEY)
        if data:
            return _structured_records(data)
    elif structured is not None:  # an array, or (against the schema) a scalar: shown all the same
        return _structured_records(structured)
    return ResultRecords("text", None, content_lines(wire))


def _structured_records(value: Any) -> ResultRecords:
    sections, unwalked = _json_sections(value)
    document = Document.model_construct(title=_STRUCTURED_TITLE, sections=tuple(sections))
    return ResultRecords("structured", document, (), unwalked)
