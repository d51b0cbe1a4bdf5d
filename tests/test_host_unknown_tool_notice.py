"""A partial result's notice when the host does not have the tool's definition: a framework's tool object keeps
neither the tool's `_meta` nor its annotations, so the tool's continuation declaration is unknown, not absent, and
the notice must not say the server gave no way to fetch the rest."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.types import Tool

from mcp_rendering import present
from mcp_rendering.audit import audit
from mcp_rendering.host import state_of_wire
from mcp_rendering.integrations.answer import final_answer
from mcp_rendering.reading import resolve_rendering
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, PARTIAL_MARKER

SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}, "cursor": {"type": "string"}}}
DECLARED = {"name": "accounts", "inputSchema": SCHEMA, "_meta": {CONTINUATION_ID: {"argument": "cursor"}}}
UNKNOWN = "This host does not know how the server offers the rest: it was not given the tool's definition."
NO_WAY = "The server gave no way to fetch the rest."


class FrameworkTool:
    """A framework's own tool object: the tool's name and parameters, none of the server's `_meta`."""

    name = "accounts"
    parameters = SCHEMA


def _partial(*, continuation: bool = True) -> dict[str, Any]:
    meta: dict[str, Any] = {EXTENSION_ID: {"mode": "verbatim", "complete": False}}
    if continuation:
        meta[CONTINUATION_ID] = {"argument": "cursor", "token": "page-2"}
    return {"content": [{"type": "text", "text": "alpha\nbeta"}], "_meta": meta}


def _notice(tool: Any, result: dict[str, Any]) -> str:
    presentation = present(tool, result, arguments={"query": "all"})
    assert presentation.notice is not None
    return presentation.notice


@pytest.mark.parametrize(
    "tool", [None, {"name": "accounts"}, FrameworkTool()], ids=["none", "name-only", "framework-object"]
)
def test_a_continuation_of_a_tool_the_host_has_no_definition_of_is_unknown_not_absent(tool: Any) -> None:
    presentation = present(tool, _partial(), arguments={"query": "all"})
    assert presentation.notice == f"{PARTIAL_MARKER} it shows only part of the records. {UNKNOWN}"
    assert "no way" not in (presentation.framing or "")
    # Unknown, the continuation is still never followed: its argument could not be checked against the tool's.
    assert presentation.next_arguments({"query": "all"}) is None
    rendering = resolve_rendering(tool, _partial(), call_arguments={"query": "all"})
    assert not rendering.tool_defined
    assert [problem.detail for problem in rendering.continuation_reading.problems] == [
        "the tool's definition, which declares the argument, was not given"
    ]


@pytest.mark.parametrize("tool", [None, {"name": "accounts"}, FrameworkTool()])
def test_final_answer_for_a_tool_without_its_definition_says_only_what_the_host_knows(tool: Any) -> None:
    answer = final_answer(tool, _partial(), server="ledger", arguments={"query": "all"})
    assert answer.verbatim and not answer.complete
    notice = answer.text.split("\n\n")[1]
    assert notice.startswith(PARTIAL_MARKER) and notice.endswith(UNKNOWN)
    assert "no way" not in answer.text and "no way" not in answer.markdown
    assert answer.text.endswith("alpha\nbeta")


def test_a_tool_definition_declaring_no_continuation_is_known_to_offer_none() -> None:
    # The server's own definition, without the declaration: the result's continuation names an argument the tool
    # never declared, so there is no usable way, and the host knows it.
    for tool in (
        {"name": "accounts", "inputSchema": SCHEMA},
        Tool.model_validate({"name": "accounts", "inputSchema": SCHEMA}),
    ):
        assert resolve_rendering(tool, _partial()).tool_defined
        assert _notice(tool, _partial()).endswith("The server gave no usable way to fetch the rest.")
        answer = final_answer(tool, _partial(), arguments={"query": "all"})
        assert answer.text.split("\n\n")[1].endswith("The server gave no usable way to fetch the rest.")


def test_a_tool_definition_declaring_the_continuation_offers_the_rest() -> None:
    for tool in (DECLARED, Tool.model_validate(DECLARED)):
        assert _notice(tool, _partial()).endswith('The rest can be fetched from the tool "accounts".')
        answer = final_answer(tool, _partial(), arguments={"query": "all"})
        assert answer.presentation.next_arguments({"query": "all"}) == {"query": "all", "cursor": "page-2"}


@pytest.mark.parametrize("tool", [None, {"name": "accounts"}, FrameworkTool(), DECLARED])
def test_a_partial_result_without_a_continuation_gave_no_way_whatever_the_host_knows_of_the_tool(tool: Any) -> None:
    # The continuation travels on the result: without one there, the server gave none, whatever the tool declares.
    assert _notice(tool, _partial(continuation=False)).endswith(NO_WAY)
    answer = final_answer(tool, _partial(continuation=False), arguments={"query": "all"})
    assert answer.text.split("\n\n")[1].endswith(NO_WAY)


def _later_part(directive: Any) -> dict[str, Any]:
    part: dict[str, Any] = {"content": [{"type": "text", "text": "gamma"}]}
    if directive is not None:
        part["_meta"] = {EXTENSION_ID: directive}
    return part


@pytest.mark.parametrize(
    ("directive", "state"),
    [
        (None, "not-stated"),
        ({"mode": "verbatim"}, "not-stated"),
        ({"mode": "verbatim", "complete": "true"}, "not-stated"),
        ({"mode": "verbatim", "complete": 1}, "not-stated"),
        ({"mode": "verbatim", "complete": False}, "partial"),
        ({"mode": "verbatim", "complete": True}, "complete"),
    ],
    ids=repr,
)
def test_the_last_part_of_a_continued_result_read_without_the_tool_is_complete_only_when_it_says_so(
    directive: Any, state: str
) -> None:
    """Read without the tool's definition, the last part fetched says the whole is complete only with a literal
    `complete: true`: a part saying nothing is part of a result the server continued, not a result outside the
    extension. The parts audited as one read alike; a result read alone keeps its own reading."""
    first = _partial()
    later = _later_part(directive)
    assert state_of_wire(later, last_part=True) == state
    report = audit("alpha\nbeta\ngamma", [first, later])
    assert report.result_complete is (state == "complete")
    assert report.clean is (state == "complete"), report.format()
    if directive is None:
        assert state_of_wire(later) == "complete"  # alone, a result outside the extension, which MCP sends whole


PARTIAL = f"{PARTIAL_MARKER} it shows only part of the records."


@pytest.mark.parametrize(
    ("tool", "result", "arguments", "expected"),
    [
        (  # the call set the continuation argument and the result offers none: the last of the parts
            DECLARED,
            _partial(continuation=False),
            {"query": "all", "cursor": "page-2"},
            "It is the last part of a result fetched in parts: the earlier records came in the earlier parts.",
        ),
        (
            DECLARED,
            _partial(),
            None,
            "It may be one part of a result fetched in parts: the call's arguments were not given to the host.",
        ),
        (DECLARED, _partial(continuation=False), {"query": "all"}, NO_WAY),
        (DECLARED, _partial(), {"query": "all"}, 'The rest can be fetched from the tool "accounts".'),
        ({**DECLARED, "name": ""}, _partial(), {"query": "all"}, "The rest can be fetched from the same tool."),
    ],
    ids=["last-part", "arguments-unknown", "no-way", "named-tool", "unnamed-tool"],
)
def test_each_way_to_the_rest_is_said_in_its_own_words(
    tool: Any, result: dict[str, Any], arguments: dict[str, Any] | None, expected: str
) -> None:
    assert present(tool, result, arguments=arguments).notice == f"{PARTIAL} {expected}"
