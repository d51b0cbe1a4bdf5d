"""The scenarios of the matrix: one tool and one call result per scenario, written as raw wire JSON.

Each scenario is served alone (one tool named `report`), so a client that rejects a whole `tools/list` or
`tools/call` result fails only its own row. A probe names one JSON path in what the application sees and the value
the server sent there; the runner compares the two to classify a cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EXTENSION_ID = "io.modelcontextprotocol/rendering"
TOOL_NAME = "report"

Where = Literal["tool", "result"]
Group = Literal[
    "baseline", "annotations", "tool _meta", "result _rendering", "result _meta", "structuredContent", "control"
]

MISSING: Any = object()
"""Sentinel for a path that is absent (distinct from a JSON null)."""


@dataclass(frozen=True)
class Probe:
    """One field to look for: `path` inside the listed tool (`where="tool"`) or the call result."""

    where: Where
    path: tuple[str, ...]


@dataclass(frozen=True)
class Expectation:
    """What a server sent, and where to look for it in what the application received."""

    tool_name: str
    tool: dict[str, Any]
    result: dict[str, Any]
    probes: tuple[Probe, ...]

    def sent(self, probe: Probe) -> Any:
        """The value the server put at the probe's path."""
        return lookup(self.tool if probe.where == "tool" else self.result, probe.path)


@dataclass(frozen=True)
class Scenario:
    """One row of the matrix: what the fixture server lists and returns, and which fields to look for."""

    id: str
    group: Group
    label: str
    probes: tuple[Probe, ...]
    annotations: dict[str, Any] | None = None
    tool_meta: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    result_extra: dict[str, Any] = field(default_factory=dict[str, Any])
    structured: dict[str, Any] | None = None
    valid: bool = True
    """False for a malformed value: the proposal says such a value is read safely, never fails the result."""

    def tool(self) -> dict[str, Any]:
        """The tool exactly as the fixture server lists it."""
        tool: dict[str, Any] = {
            "name": TOOL_NAME,
            "description": "Returns a small fixed report.",
            "inputSchema": {"type": "object", "properties": {}},
        }
        if self.annotations is not None:
            tool["annotations"] = self.annotations
        if self.tool_meta is not None:
            tool["_meta"] = self.tool_meta
        if self.output_schema is not None:
            tool["outputSchema"] = self.output_schema
        return tool

    def result(self) -> dict[str, Any]:
        """The tools/call result exactly as the fixture server returns it."""
        result: dict[str, Any] = {"content": [{"type": "text", "text": "alpha 1\nbeta 2\ntotal 3"}]}
        if self.structured is not None:
            result["structuredContent"] = self.structured
        result.update(self.result_extra)
        return result

    def expectation(self) -> Expectation:
        """The scenario as the input of a classification."""
        return Expectation(TOOL_NAME, self.tool(), self.result(), self.probes)


def lookup(document: Any, path: tuple[str, ...]) -> Any:
    """The value at `path` in a JSON document, or `MISSING` when any step is absent."""
    node = document
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return MISSING
        node = node[key]  # pyright: ignore[reportUnknownVariableType]
    return node  # pyright: ignore[reportUnknownVariableType]


VALID_RENDERING: dict[str, Any] = {
    "mode": "verbatim",
    "guidance": "Show every line in order, subtotals included.",
    "nullDisplay": "n/a",
    "complete": True,
}

_VERBATIM = Probe("tool", ("annotations", "verbatimHint"))
_SUMMARIZE = Probe("tool", ("annotations", "summarizeOkHint"))
_TOOL_META = Probe("tool", ("_meta", EXTENSION_ID))
_RESULT_RENDERING = Probe("result", ("_rendering",))
_RESULT_META = Probe("result", ("_meta", EXTENSION_ID))

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "baseline",
        "baseline",
        "no extension fields (readOnlyHint true, text content)",
        (Probe("tool", ("annotations", "readOnlyHint")), Probe("result", ("content",))),
        annotations={"readOnlyHint": True},
    ),
    Scenario(
        "hints-annotations",
        "annotations",
        "`verbatimHint: true`, `summarizeOkHint: false`",
        (_VERBATIM, _SUMMARIZE),
        annotations={"verbatimHint": True, "summarizeOkHint": False},
    ),
    Scenario(
        "hints-annotations-string",
        "annotations",
        'malformed: `verbatimHint: "yes"`, `summarizeOkHint: "yes"`',
        (_VERBATIM, _SUMMARIZE),
        annotations={"verbatimHint": "yes", "summarizeOkHint": "yes"},
        valid=False,
    ),
    Scenario(
        "hints-annotations-object",
        "annotations",
        "malformed: `verbatimHint: {}`",
        (_VERBATIM,),
        annotations={"verbatimHint": {}},
        valid=False,
    ),
    Scenario(
        "hints-meta",
        "tool _meta",
        "`Tool._meta` carrier `{verbatimHint: true, summarizeOkHint: false}`",
        (_TOOL_META,),
        tool_meta={EXTENSION_ID: {"verbatimHint": True, "summarizeOkHint": False}},
    ),
    Scenario(
        "hints-meta-string",
        "tool _meta",
        'malformed: `Tool._meta` carrier `{verbatimHint: "yes"}`',
        (_TOOL_META,),
        tool_meta={EXTENSION_ID: {"verbatimHint": "yes"}},
        valid=False,
    ),
    Scenario(
        "rendering",
        "result _rendering",
        "`_rendering` valid object",
        (_RESULT_RENDERING,),
        result_extra={"_rendering": VALID_RENDERING},
    ),
    Scenario(
        "rendering-unknown-mode",
        "result _rendering",
        'unregistered mode: `_rendering.mode: "fancy"`',
        (_RESULT_RENDERING,),
        result_extra={"_rendering": {"mode": "fancy"}},
    ),
    Scenario(
        "rendering-long-guidance",
        "result _rendering",
        "malformed: `_rendering.guidance` of 1001 characters",
        (_RESULT_RENDERING,),
        result_extra={"_rendering": {"mode": "verbatim", "guidance": "g" * 1001}},
        valid=False,
    ),
    Scenario(
        "rendering-string-bool",
        "result _rendering",
        'malformed: `_rendering.complete: "yes"`',
        (_RESULT_RENDERING,),
        result_extra={"_rendering": {"mode": "verbatim", "complete": "yes"}},
        valid=False,
    ),
    Scenario(
        "rendering-number",
        "result _rendering",
        "malformed: `_rendering: 42`",
        (_RESULT_RENDERING,),
        result_extra={"_rendering": 42},
        valid=False,
    ),
    Scenario(
        "rendering-null",
        "result _rendering",
        "`_rendering: null` (absent)",
        (_RESULT_RENDERING,),
        result_extra={"_rendering": None},
    ),
    Scenario(
        "rendering-meta",
        "result _meta",
        "`CallToolResult._meta` carrier, valid object",
        (_RESULT_META,),
        result_extra={"_meta": {EXTENSION_ID: VALID_RENDERING}},
    ),
    Scenario(
        "rendering-meta-unknown-mode",
        "result _meta",
        'unregistered mode: `_meta` carrier `{mode: "fancy"}`',
        (_RESULT_META,),
        result_extra={"_meta": {EXTENSION_ID: {"mode": "fancy"}}},
    ),
    Scenario(
        "rendering-meta-number",
        "result _meta",
        "malformed: `_meta` carrier `42`",
        (_RESULT_META,),
        result_extra={"_meta": {EXTENSION_ID: 42}},
        valid=False,
    ),
    Scenario(
        "rendering-structured",
        "structuredContent",
        "model-facing copy `structuredContent._rendering`, declared in `outputSchema`",
        (Probe("result", ("structuredContent", "_rendering")),),
        output_schema={
            "type": "object",
            "properties": {"total": {"type": "integer"}, "_rendering": {"type": "object"}},
            "required": ["total"],
        },
        structured={"total": 3, "_rendering": VALID_RENDERING},
    ),
    Scenario(
        "control-readonly-string",
        "control",
        'control: `readOnlyHint: "yes"`',
        (Probe("tool", ("annotations", "readOnlyHint")),),
        annotations={"readOnlyHint": "yes"},
        valid=False,
    ),
    Scenario(
        "control-readonly-object",
        "control",
        "control: `readOnlyHint: {}`",
        (Probe("tool", ("annotations", "readOnlyHint")),),
        annotations={"readOnlyHint": {}},
        valid=False,
    ),
    Scenario(
        "control-iserror-string",
        "control",
        'control: `isError: "maybe"`',
        (Probe("result", ("isError",)),),
        result_extra={"isError": "maybe"},
        valid=False,
    ),
)

BY_ID: dict[str, Scenario] = {scenario.id: scenario for scenario in SCENARIOS}
