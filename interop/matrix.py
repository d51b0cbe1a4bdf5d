"""Classifying what a client showed its application, and rendering the measured matrix as Markdown.

A driver reports, per scenario, the `tools/list` and `tools/call` results exactly as the application received them
(or the error text). `classify` turns one such observation into a cell; `render_markdown` turns `matrix.json` into
the table that the results file, the SEP and the docs all carry.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from interop.scenarios import MISSING, Expectation, Probe, lookup

Outcome = Literal[
    "kept", "changed", "stripped", "mixed", "tool dropped", "list rejected", "call rejected", "connect failed"
]

OUTCOME_TEXT: dict[str, str] = {
    "kept": "kept",
    "changed": "changed",
    "stripped": "stripped",
    "mixed": "mixed",
    "tool dropped": "**tool dropped**",
    "list rejected": "**list rejected**",
    "call rejected": "**call rejected**",
    "connect failed": "**connect failed**",
}

LEGEND = (
    "kept: the application sees the value as sent. stripped: the field is gone, the rest of the result is intact. "
    "changed: the application sees a different value (shown). tool dropped: `tools/list` succeeds without the tool. "
    "list rejected / call rejected: the client raises on the whole `tools/list` / `tools/call` result."
)

_MAX_ERROR = 200


def _phase(observation: dict[str, Any], name: str) -> dict[str, Any]:
    phase = observation.get(name)
    return phase if isinstance(phase, dict) else {"ok": False, "error": "no result reported"}


def _listed_tool(listed: dict[str, Any], name: str) -> Any:
    tools = listed.get("tools")
    if isinstance(tools, list):
        for tool in tools:  # pyright: ignore[reportUnknownVariableType]
            if isinstance(tool, dict) and tool.get("name") == name:  # pyright: ignore[reportUnknownMemberType]
                return tool  # pyright: ignore[reportUnknownVariableType]
    return MISSING


def _probe_outcome(expected: Expectation, probe: Probe, document: Any) -> tuple[str, Any]:
    seen = lookup(document, probe.path)
    if seen is MISSING:
        return "stripped", None
    sent = expected.sent(probe)
    # JSON equality without bool/int confusion: compare canonical encodings.
    if json.dumps(seen, sort_keys=True) == json.dumps(sent, sort_keys=True):
        return "kept", seen
    return "changed", seen


def classify(expected: Expectation, observation: dict[str, Any]) -> dict[str, Any]:
    """One matrix cell from one driver observation: the outcome, what the application saw, and any error text."""
    if "connect" in observation:
        return {"outcome": "connect failed", "error": short_error(_phase(observation, "connect").get("error"))}
    listed, called = _phase(observation, "list"), _phase(observation, "call")
    needs_list = any(probe.where == "tool" for probe in expected.probes)
    if needs_list and not listed.get("ok"):
        return {"outcome": "list rejected", "error": short_error(listed.get("error"))}
    tool = _listed_tool(listed.get("value") or {}, expected.tool_name) if listed.get("ok") else MISSING
    if needs_list and tool is MISSING:
        return {"outcome": "tool dropped", "error": short_error(called.get("error")) if not called.get("ok") else None}
    if not called.get("ok"):
        return {"outcome": "call rejected", "error": short_error(called.get("error"))}
    outcomes: list[str] = []
    seen: dict[str, Any] = {}
    for probe in expected.probes:
        document = tool if probe.where == "tool" else called.get("value")
        outcome, value = _probe_outcome(expected, probe, document)
        outcomes.append(outcome)
        if outcome == "changed":
            seen[".".join(probe.path)] = value
    unique = sorted(set(outcomes))
    cell: dict[str, Any] = {"outcome": unique[0] if len(unique) == 1 else "mixed"}
    if seen:
        cell["seen"] = seen
    if cell["outcome"] == "mixed":
        cell["probes"] = {
            ".".join(probe.path): outcome for probe, outcome in zip(expected.probes, outcomes, strict=True)
        }
    return cell


def short_error(error: Any) -> str | None:
    """An error text on one line, cut to a readable length (the full text varies little but reads badly)."""
    if error is None:
        return None
    text = re.sub(r"\s+", " ", str(error)).strip()
    return text if len(text) <= _MAX_ERROR else text[: _MAX_ERROR - 1] + "…"


def cell_text(cell: dict[str, Any]) -> str:
    """The Markdown text of one cell."""
    text = OUTCOME_TEXT[cell["outcome"]]
    if cell["outcome"] == "changed":
        text += " to " + ", ".join(f"`{json.dumps(value)}`" for value in cell.get("seen", {}).values())
    if cell["outcome"] == "mixed":
        text += " (" + ", ".join(f"{path}: {outcome}" for path, outcome in cell["probes"].items()) + ")"
    return text


def _table(
    heading: str, rows: list[dict[str, Any]], cells: dict[str, Any], clients: list[dict[str, Any]], errors: list[str]
) -> list[str]:
    lines = [f"| {heading} | " + " | ".join(client["short"] for client in clients) + " |"]
    lines.append("|---" * (len(clients) + 1) + "|")
    for row in rows:
        texts: list[str] = []
        for client in clients:
            cell = cells[row["id"]][client["id"]]
            text = cell_text(cell)
            if cell.get("error"):
                error = str(cell["error"]).replace("`", "'")
                errors.append(f"{len(errors) + 1}. {row['id']} / {client['short']}: `{error}`")
                text += f" [{len(errors)}]"
            texts.append(text)
        lines.append(f"| {row['label']} | " + " | ".join(texts) + " |")
    return lines


def render_markdown(matrix: dict[str, Any]) -> str:
    """The matrix as Markdown: pinned clients, the tables, a legend and the error texts (no trailing newline)."""
    clients: list[dict[str, Any]] = matrix["clients"]
    lines = ["Clients measured (versions pinned exactly; protocol version as negotiated with the fixture server):", ""]
    lines += [
        f"- {client['label']}: `{client['package']}` {client['version']}, protocol {client['protocol']}"
        for client in clients
    ]
    errors: list[str] = []
    lines += ["", *_table("what the server sends", matrix["scenarios"], matrix["cells"], clients, errors)]
    example = matrix.get("example")
    if example:
        lines += [
            "",
            f"Against the project's own example server (`python -m {example['module']}`, patched, with the extension), "
            f"tool `{example['tool']}`, each carrier it sends:",
            "",
            *_table("carrier", example["rows"], example["cells"], clients, errors),
        ]
    lines += ["", LEGEND]
    if errors:
        lines += ["", "Error texts, as each client reported them (whitespace collapsed, cut at 200 characters):", ""]
        lines += errors
    return "\n".join(lines)
