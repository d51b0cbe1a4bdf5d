"""What a result is made of (`records.result_records`): the shapes of structured content it reads as records."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_rendering.audit import audit
from mcp_rendering.host import present
from mcp_rendering.records import MAX_COLUMNS, MAX_DEPTH, result_records
from tests.test_host import big_result


def test_records_with_few_paths_get_a_column_per_path() -> None:
    items = [{"name": "a", "address": {"city": "Lyon"}}, {"name": "b", "score": 3}]
    document = result_records({"content": [], "structuredContent": {"hits": items}}).document
    assert document is not None
    (section,) = document.sections
    assert section.columns == ("name", "address.city", "score")
    assert [row.values for row in section.rows] == [("a", "Lyon", ""), ("b", "", 3)]


def test_unlike_records_stay_one_cell_each_so_the_view_grows_with_the_result() -> None:
    """2,000 records, each with a key of its own: as a table that would be 2,000 x 2,000 cells. Past MAX_COLUMNS
    paths a record is one cell of compact JSON, so what is shown stays about the size of the result."""
    items = [{f"k{index}": index} for index in range(2000)]
    wire = {"content": [], "structuredContent": {"items": items}}
    document = result_records(wire).document
    assert document is not None
    (section,) = document.sections
    assert section.columns == ("value",)
    assert section.rows[7].values == ('{"k7":7}',)
    presentation = present(None, wire)
    assert len(presentation.text) < 40 * len(json.dumps(items))
    assert audit(presentation.text, wire).clean


def test_the_column_limit_is_exact() -> None:
    fits = [{f"k{index}": index for index in range(MAX_COLUMNS)}]
    over = [{f"k{index}": index for index in range(MAX_COLUMNS + 1)}]
    for items, columns in ((fits, MAX_COLUMNS), (over, 1)):
        document = result_records({"content": [], "structuredContent": {"items": items}}).document
        assert document is not None and len(document.sections[0].columns) == columns


def _nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("beside_a_document", [False, True], ids=["structured", "beside a document"])
@pytest.mark.parametrize(
    ("value", "unwalked"),
    [(_nested(MAX_DEPTH - 1), False), (_nested(MAX_DEPTH), True), ((1, 2), True)],
    ids=["below MAX_DEPTH", "at MAX_DEPTH", "a tuple"],
)
def test_the_reading_says_whether_it_left_a_value_unwalked(beside_a_document: bool, value: Any, unwalked: bool) -> None:
    """A value `MAX_DEPTH` levels deep (the structured content's members the first level) or one that is not JSON:
    what a reader forwarding the structured content relies on to leave it unwalked."""
    wire = big_result(2) if beside_a_document else {"content": [], "structuredContent": {}}
    wire["structuredContent"]["a"] = value
    records = result_records(wire)
    assert records.kind == ("document" if beside_a_document else "structured")
    assert records.unwalked is unwalked
