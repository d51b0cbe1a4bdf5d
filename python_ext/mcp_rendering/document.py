"""The document model shared by servers and hosts: titled sections of ordered rows.

A verbatim result is a `Document`. Its order is the order of its sections and of the rows inside each section;
subtotals and totals are rows of their own kind, and a missing value is `None` (shown as the directive's
`nullDisplay`). Every row has an `id` unique in the document, and gets a canonical `uri` before any budget is
applied, so a row keeps its identity whichever page it lands on.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetPydanticSchema,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)
from pydantic_core import CoreSchema, core_schema

# JSON has no infinity or NaN (RFC 8259): a document holding one could not reach the wire as it is, so it is refused
# when built rather than written as null.
_FiniteFloat: TypeAlias = Annotated[float, Field(strict=True, allow_inf_nan=False)]

__all__ = ["Cell", "Document", "Row", "RowKind", "Section"]


def _serialized_by_type(source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
    # A validated cell is a str, int, float, bool or None, which pydantic writes the same by its type alone; its
    # union serializer would try the members one by one, half the time of writing a whole document.
    schema = handler(source).copy()
    schema["serialization"] = core_schema.simple_ser_schema("any")
    return schema


# Left to right: with strict members no value matches two, so the first match is the only one, and the union is
# checked without the "smart" mode's second pass (a third of a host's validation time for a large result).
Cell: TypeAlias = Annotated[
    StrictStr | StrictInt | _FiniteFloat | StrictBool | None,
    Field(union_mode="left_to_right"),
    GetPydanticSchema(_serialized_by_type),
]
"""One value of a row. `None` is a null: present in the data, shown as the directive's `nullDisplay`."""

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
