"""The document model shared by servers and hosts: titled sections of ordered rows.

A verbatim result is a `Document`. Its order is the order of its sections and of the rows inside each section;
subtotals and totals are rows of their own kind, and a missing value is `None` (shown as the directive's
`nullDisplay`). Every row has an `id` unique in the document, and gets a canonical `uri` before any budget is
applied, so a row keeps its identity whichever page it lands on.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal
from itertools import chain
from operator import attrgetter
from typing import Annotated, Any, Literal, TypeAlias, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetPydanticSchema,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)
from pydantic_core import CoreSchema, core_schema

# What a cell may hold once validated, and how each travels in JSON: a string, an integer, a finite float (JSON has
# no infinity or NaN, RFC 8259), a boolean or null. More types are accepted when a document is built in Python, and
# kept exact as text: a finite `Decimal` as its digits in positional notation (`Decimal("1234.50")` travels as
# `"1234.50"`, never as the float `1234.5`; `Decimal("1E+3")` as `"1000"`), an int beyond +-2**53 (which many JSON
# readers hold as a double, RFC 8259 section 6) as its decimal digits, and a `date` or `datetime` as its ISO 8601
# form. Anything else (a NaN or infinite float or Decimal, a Decimal whose positional form would exceed
# `MAX_DECIMAL_DIGITS` characters, a `time`, a UUID, bytes, an object) is refused when the document is built, never
# converted silently: a figure must reach the reader as the server holds it.
CELL_TYPES = "a str, an int, a finite float, a bool, None, a finite Decimal, a date or a datetime"
"""The types a cell accepts, as error messages name them."""

MAX_EXACT_JSON_INT = 2**53
"""The largest magnitude an int travels as a JSON number; beyond it, as a string of its digits (as a `Decimal`)."""

MAX_DECIMAL_DIGITS = 1000
"""The longest positional form of a `Decimal` accepted: `Decimal("1E+100000")` would be written as 100001 digits."""


def decimal_text(value: Decimal) -> str:
    """A finite `Decimal` as its exact digits in positional notation (`1E+3` as `1000`, `1.20` as `1.20`).

    Raises:
        ValueError: a NaN or infinite Decimal, or one whose positional form exceeds `MAX_DECIMAL_DIGITS` characters.
    """
    if not value.is_finite():
        raise ValueError(f"the Decimal {value} has no exact figure")
    digits, exponent = len(value.as_tuple().digits), int(value.as_tuple().exponent)
    length = digits + exponent if exponent >= 0 else max(digits, -exponent) + 1
    if length > MAX_DECIMAL_DIGITS:
        raise ValueError(
            f"the Decimal {value} would be written with {length} digits in positional notation, more than "
            f"{MAX_DECIMAL_DIGITS}: send it as text (str(value)) if its exponent form is what the reader should see"
        )
    return format(value, "f")


_MAX_INT_BITS = 12_000
"""The longest int sent as digits (about 3600 of them); Python writes no more than 4300 by default."""


def _int_cell(value: int) -> int | str:
    """An int as it travels: a JSON number within +-2**53, the string of its digits beyond (an int too long to
    write in decimal stays a number, which the renderings show as a note; `Document.from_rows` refuses it)."""
    if -MAX_EXACT_JSON_INT <= value <= MAX_EXACT_JSON_INT or value.bit_length() > _MAX_INT_BITS:
        return value
    return int.__repr__(value)


def _calendar_text(value: date) -> str:
    return value.isoformat()


def _cell_schema(source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
    # Left to right: with strict members no value matches two, so the first match is the only one, and the union is
    # checked without the "smart" mode's second pass (a third of a host's validation time for a large result). A
    # Decimal is tried before the float, which would take it as a number and round it. JSON input, the host's case,
    # only ever holds the JSON types: it skips the Python-only members.
    text = core_schema.str_schema(strict=True)
    number = core_schema.float_schema(strict=True, allow_inf_nan=False)
    boolean = core_schema.bool_schema(strict=True)
    null = core_schema.none_schema()
    json_types: list[CoreSchema | tuple[CoreSchema, str]] = [
        text,
        core_schema.int_schema(strict=True),
        number,
        boolean,
        null,
    ]
    exact_int = core_schema.int_schema(strict=True, ge=-MAX_EXACT_JSON_INT, le=MAX_EXACT_JSON_INT)
    large_int = core_schema.no_info_after_validator_function(_int_cell, core_schema.int_schema(strict=True))
    python_types: list[CoreSchema | tuple[CoreSchema, str]] = [
        text,
        exact_int,
        large_int,
        core_schema.no_info_after_validator_function(decimal_text, core_schema.is_instance_schema(Decimal)),
        number,
        boolean,
        null,
        core_schema.no_info_after_validator_function(_calendar_text, core_schema.is_instance_schema(date)),
    ]
    error_type, message = "cell_type", f"A cell should be {CELL_TYPES}"
    # A cell of one of the exact JSON types (all a host's dict holds) goes straight to its member, chosen by its type
    # in C: tried left to right, a float would first fail four members and a null six, each failure a built
    # error. Any other value (a subclass, a Decimal, a date), and an int beyond the exact range (sent as its digits,
    # rare enough not to be worth a union in every int's path), fails that choice and is tried member by member.
    by_type = core_schema.tagged_union_schema(
        {
            str: text,
            int: exact_int,
            float: number,
            bool: boolean,
            type(None): null,
        },
        discriminator=type,
    )
    # A validated cell is a str, int, float, bool or None, which pydantic writes the same by its type alone; a union
    # serializer would try the members one by one, half the time of writing a whole document.
    return core_schema.json_or_python_schema(
        json_schema=core_schema.union_schema(
            json_types, mode="left_to_right", custom_error_type=error_type, custom_error_message=message
        ),
        python_schema=core_schema.union_schema(
            [by_type, core_schema.union_schema(python_types, mode="left_to_right")],
            mode="left_to_right",
            custom_error_type=error_type,
            custom_error_message=message,
        ),
        serialization=core_schema.simple_ser_schema("any"),
    )


Cell: TypeAlias = Annotated[StrictStr | StrictInt | float | StrictBool | None, GetPydanticSchema(_cell_schema)]
"""One value of a row. `None` is a null: present in the data, shown as the directive's `nullDisplay`. Built in
Python, a cell may also be given as a finite `Decimal`, a `date` or a `datetime`, which it holds as exact text (see
`CELL_TYPES`)."""

RowKind: TypeAlias = Literal["item", "subtotal", "total"]
"""An ordinary row, a subtotal of the rows above it, or a grand total."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Row(_Model):
    """One record: a labelled line with one value per column of its section."""

    id: StrictStr = Field(min_length=1)
    """Stable record identifier, unique in the document."""
    label: StrictStr
    """What the row is (an account, a screened name, a person)."""
    values: tuple[Cell, ...] = ()
    """One value per column of the section, in column order."""
    kind: RowKind = "item"
    level: StrictInt = Field(default=0, ge=0)
    """Depth in a hierarchy (an org chart, nested accounts); 0 is the top."""
    uri: StrictStr | None = None
    """Canonical record URI, resolvable through `resources/read`; assigned by the server before budgeting."""


class Section(_Model):
    """An ordered group of rows sharing one set of columns."""

    id: StrictStr = Field(min_length=1)
    title: StrictStr
    columns: tuple[StrictStr, ...] = ()
    rows: tuple[Row, ...] = ()

    @model_validator(mode="after")
    def _rows_match_columns(self) -> Section:
        width = len(self.columns)
        # The lengths of all rows in one pass in C; the loop below runs only to name the first row that is off.
        if set(map(len, map(attrgetter("values"), self.rows))) - {width}:
            row = next(row for row in self.rows if len(row.values) != width)
            raise ValueError(f"row {row.id!r} of section {self.id!r} has {len(row.values)} values for {width} columns")
        return self


class Document(_Model):
    """A whole verbatim result: a title and its sections, in order."""

    title: StrictStr
    sections: tuple[Section, ...] = ()

    @model_validator(mode="after")
    def _ids_are_unique(self) -> Document:
        ids = list(chain.from_iterable(map(attrgetter("id"), section.rows) for section in self.sections))
        if len(set(ids)) == len(ids):  # decided in C; the loop below only names the first repeated id
            return self
        seen: set[str] = set()
        for row_id in ids:
            if row_id in seen:
                raise ValueError(f"duplicate row id {row_id!r}")
            seen.add(row_id)
        return self

    @classmethod
    def from_rows(
        cls,
        rows: Iterable[Any] | Mapping[str, Iterable[Any]],
        *,
        title: str,
        id: str | None = None,
        kind: str | None = None,
        level: str | None = None,
    ) -> Document:
        """A document from the rows a server already has: one section, or one per key of a mapping of section
        titles to rows.

        A row is a mapping (a dict, or any object with `keys()` and `[]`, such as a database driver's row: a
        `sqlite3.Row`), a dataclass, a pydantic model or a named tuple. Its `label` field is the row's label (a
        string, required); every other field is a column, in the order of the section's first row, and every row of
        a section holds the same columns. A row's metadata is read only from the fields you name: `id` (a string, or
        an integer key written as its digits; by default the row's position in the document, from 1), `kind` (item,
        subtotal or total) and `level` (an indent depth). Unnamed, a field called `id`, `kind` or `level` is a column
        like any other. A cell holds one of `CELL_TYPES`; a `Decimal`, a `date` and a `datetime` are kept exact as
        text. Label and values are sent as they are: the renderings escape what would read as markup or move text
        around, and the audit reads them back. Errors name a row by its position: `row 1` is the first row.

        Raises:
            ValueError: a row without a string label, rows of one section with different columns, a NaN or
                infinite float or Decimal, a duplicate row id (each naming the row and the column).
            TypeError: a row that is not a mapping, dataclass, pydantic model or named tuple; a cell of another
                type than `CELL_TYPES`.
        """
        meta = {"id": id, "kind": kind, "level": level}
        named = {field: role for role, field in meta.items() if field is not None}
        if "label" in named:
            raise ValueError(f"the field 'label' is the row's label: it cannot also be its {named['label']}")
        grouped: Iterable[tuple[str, Iterable[Any]]] = (
            # One list of rows is one section without a title of its own: the document's title names it.
            cast("Mapping[str, Iterable[Any]]", rows).items() if isinstance(rows, Mapping) else (("", rows),)
        )
        position = 0
        sections: list[Section] = []
        first_of_id: dict[str, int] = {}
        for number, (section_title, section_rows) in enumerate(grouped):
            columns: tuple[str, ...] | None = None
            built: list[Row] = []
            for record in section_rows:
                position += 1
                fields = _row_fields(record, position)
                names = tuple(name for name in fields if name != "label" and name not in named)
                if columns is None:
                    columns = names
                elif set(names) != set(columns):
                    raise ValueError(
                        f"row {position} has the columns {list(names)}, but the first row of its section has "
                        f"{list(columns)}: give every row the same columns (None for a missing value)"
                    )
                row = _row(fields, columns, position, named)
                earlier = first_of_id.setdefault(row.id, position)
                if earlier != position:
                    raise ValueError(
                        f"row {position} has the id {row.id!r} of row {earlier}: every row needs an id of its own"
                    )
                built.append(row)
            section_id = "rows" if not isinstance(rows, Mapping) else f"section-{number + 1}"
            sections.append(Section(id=section_id, title=section_title, columns=columns or (), rows=tuple(built)))
        return cls(title=title, sections=tuple(sections))


def _row_fields(record: Any, position: int) -> dict[str, Any]:
    fields: dict[Any, Any]
    if isinstance(record, Mapping):
        fields = dict(cast("Mapping[Any, Any]", record))
    elif isinstance(record, BaseModel):
        fields = {name: getattr(record, name) for name in type(record).model_fields}
    elif dataclasses.is_dataclass(record) and not isinstance(record, type):
        fields = {field.name: getattr(record, field.name) for field in dataclasses.fields(cast("Any", record))}
    elif isinstance(record, tuple) and hasattr(cast("Any", record), "_asdict"):
        fields = dict(cast("Any", record)._asdict())
    elif callable(getattr(cast("object", record), "keys", None)) and hasattr(cast("object", record), "__getitem__"):
        # A driver's row mapping that is not a `Mapping` (a `sqlite3.Row`): its keys, in column order.
        keyed = cast("Any", record)
        fields = {name: keyed[name] for name in keyed.keys()}  # noqa: SIM118 - iterating a sqlite3.Row yields values
    else:
        raise TypeError(
            f"row {position} is a {type(cast('object', record)).__name__}: give a mapping (or a row with keys()), "
            "a dataclass, a pydantic model or a named tuple with a label field"
        )
    if not all(isinstance(name, str) for name in fields):
        raise TypeError(f"row {position} has a field name that is not a string")
    return cast("dict[str, Any]", fields)


def _row(fields: dict[str, Any], columns: tuple[str, ...], position: int, named: Mapping[str, str]) -> Row:
    name = f"row {position}"
    label = fields.get("label")
    if not isinstance(label, str):
        found = "no label" if label is None else f"a label of type {type(label).__name__}"
        raise ValueError(f"{name} has {found}: every row needs a string label (what the row is)")
    described = {role: fields[field] for field, role in named.items() if field in fields}
    row_id = described.pop("id", str(position))
    if isinstance(row_id, int) and not isinstance(row_id, bool):  # a database key: the same digits as text
        row_id = str(row_id)
    values = tuple(_cell(fields[column], name, column) for column in columns)
    try:
        return Row.model_validate({"id": row_id, "label": label, "values": values, **described})
    except ValidationError as error:  # a kind, level or id the model refuses: say which row, and what it says
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise ValueError(f"{name}: {problems}") from None


def _cell(value: Any, row: str, column: str) -> Any:
    """`value` checked for a cell, with an error that names the row and the column."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(
            f"{row}, column {column!r}: the float {value} has no exact figure and JSON cannot carry it; "
            "send None for a missing value"
        )
    if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        raise ValueError(
            f"{row}, column {column!r}: an int of {value.bit_length()} bits is too long to send as exact digits"
        )
    if isinstance(value, Decimal):
        try:
            decimal_text(value)
        except ValueError as error:
            raise ValueError(f"{row}, column {column!r}: {error}") from None
    if value is not None and not isinstance(value, (str, int, float, Decimal, date)):
        raise TypeError(
            f"{row}, column {column!r}: a value of type {type(value).__name__} cannot be kept exact; a cell holds "
            f"{CELL_TYPES} (convert the value to one of them, str(value) for text)"
        )
    return value


@dataclasses.dataclass(frozen=True)
class Rows:
    """What a verbatim tool's function returns when its rows need more than a plain list: the rows (as
    `Document.from_rows` takes them), whether they are the whole result, and which fields hold row metadata.

    ``return Rows(hits, complete=False)`` says the rows are not all there are (a search stopped at its limit): the
    result is sent with ``complete`` false, and a host never presents it as the whole. ``Rows(accounts,
    kind="kind", level="level")`` reads each row's kind and indent depth from those fields.
    """

    rows: Iterable[Any] | Mapping[str, Iterable[Any]]
    complete: bool = True
    id: str | None = None
    kind: str | None = None
    level: str | None = None

    def document(self, title: str) -> Document:
        """These rows as a `Document` titled `title` (see `Document.from_rows`)."""
        return Document.from_rows(self.rows, title=title, id=self.id, kind=self.kind, level=self.level)
