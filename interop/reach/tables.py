"""Renders `results.json` as the reach table, between the reach-summary markers of the SEP and of docs/reach.md.

The docs page gets the full table, one column per member of the directive; the SEP, whose length is bounded, a
summary with the members in one column. A marker pair is a line starting ``<!-- BEGIN reach-summary`` and a line
``<!-- END reach-summary -->``; only what lies between them is rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from interop.reach.envs import ROOT
from interop.reach.outcomes import render_outcomes

BEGIN_PREFIX = "<!-- BEGIN reach-summary"
END = "<!-- END reach-summary -->"
OUTCOMES_BEGIN_PREFIX = "<!-- BEGIN reach-outcomes"
OUTCOMES_END = "<!-- END reach-outcomes -->"
NOTICE = "<!-- Generated from interop/reach/results.json by `python -m interop.reach`; do not edit by hand. -->"
SEP = ROOT / "sep" / "0000-rendering-directives.md"
DOCS_PAGE = ROOT / "docs" / "reach.md"
TARGETS: tuple[Path, ...] = (SEP, DOCS_PAGE)
_MEMBERS = (
    ("mode", "mode"),
    ("guidance", "guidance"),
    ("null_display", "null display"),
    ("completeness", "completeness"),
)


class MarkerError(ValueError):
    """A target lacks the marker lines, or has them more than once or out of order."""


def _seen(channels: Sequence[str]) -> str:
    return f"yes ({', '.join(channels)})" if channels else "**no**"


_CHANNELS = ("text", "JSON", "stringified")


def _records(records: Mapping[str, Any], unit: str = "") -> str:
    expected = records["expected"]
    channels = [name for name in _CHANNELS if records.get(name, 0) == expected]
    if channels:
        return f"all {expected}{unit} ({', '.join(channels)})"
    return f"**{max(records.get(name, 0) for name in _CHANNELS)} of {expected}{unit}**"


def _receives(cell: Mapping[str, Any]) -> str:
    return f"**the call fails**: {cell['receives']}" if cell.get("failed") else cell["receives"]


def _helped(cell: Mapping[str, Any] | None, configuration: Mapping[str, Any]) -> str:
    """What the model receives with the host's adapter, or what that adapter changes instead."""
    adapter = configuration["adapter"]
    if cell is None or adapter is None:
        if configuration.get("route"):
            return "unchanged: the adapter changes only the user's final answer"
        if configuration.get("no_adapter_by_design"):
            return "no adapter for this configuration, by design"
        return "no adapter"
    missing = [name for key, name in _MEMBERS if not cell[key]]
    parts = [
        "framing first" if cell["framing"] else "**no framing**",
        "every member" if not missing else "**no " + ", ".join(missing) + "**",
        _records(cell["records"], " records"),
    ]
    return f"{adapter}: " + ", ".join(parts)


def _answer(answer: Mapping[str, Any]) -> str:
    """What the user's final answer holds of the result, in a few words."""
    if answer["summary"]:
        return "the model's summary"
    records = answer["records"]
    issues = ", ".join(kind.replace("_", " ") for kind in answer["issues"])
    if records["intact"] == records["expected"] and not issues:
        return f"every record in order ({records['expected']}), nothing else record-shaped"
    return f"**{records['intact']} of {records['expected']} records**" + (f" ({issues})" if issues else "")


def _final_answer(
    configuration: Mapping[str, Any], plain: Mapping[str, Any] | None, helped: Mapping[str, Any] | None
) -> str:
    if plain is not None and helped is not None:
        return f"without: {_answer(plain)}; with {configuration['route']}: {_answer(helped)}"
    if configuration.get("native_route"):
        if reason := configuration.get("no_adapter_by_design"):
            return f"route: {configuration['native_route']}; no adapter for this configuration, by design: {reason}"
        return f"route: {configuration['native_route']}; not measured yet (no adapter)"
    return "**no route**: the model writes the answer; the host shows its own view beside it"


def _versions(results: Mapping[str, Any]) -> str:
    """Each framework's version, and the versions of what it was measured with."""
    groups: list[str] = []
    for versions in results["versions"].values():
        named = [f"{name} {version}" for name, version in versions.items()]
        groups.append(f"{named[0]} ({', '.join(named[1:])})" if len(named) > 1 else named[0])
    return "; ".join(groups)


def render_table(results: Mapping[str, Any]) -> str:
    """The Markdown table and its legend."""
    cells = {cell["id"]: cell for cell in results["cells"]}
    answers = {answer["id"]: answer for answer in results.get("answers", [])}
    header = (
        "| Framework | Server | The model receives | Mode | Guidance | Null display | Completeness | Records "
        "| With the host's adapter | The user's final answer |"
    )
    lines = [header, "|" + "---|" * 10]
    for configuration in results["configurations"]:
        for variant in results["variants"]:
            plain = cells[f"{configuration['id']}/{variant['id']}/plain"]
            helped = cells.get(f"{configuration['id']}/{variant['id']}/helped")
            row = [
                configuration["label"],
                variant["label"],
                _receives(plain),
                *(_seen(plain[key]) for key, _ in _MEMBERS),
                _records(plain["records"]),
                _helped(helped, configuration),
                _final_answer(
                    configuration,
                    answers.get(f"{configuration['id']}/{variant['id']}/plain/answer"),
                    answers.get(f"{configuration['id']}/{variant['id']}/helped/answer"),
                ),
            ]
            lines.append("| " + " | ".join(row) + " |")
    legend = (
        f"Measured on `{results['server']}`, tool `{results['tool']}`, without calling any model, with "
        f'{_versions(results)}. "text": in prose the model reads; "JSON": in structured content forwarded '
        'as JSON; "stringified": only inside a Python repr or a JSON dump of the result or of its blocks. '
        'Records count those the model receives unchanged. "With the host\'s adapter": what the model receives '
        'with the adapter of `mcp_rendering.integrations` in place; "unchanged" where the framework\'s adapter '
        "acts on the user's final answer only. \"The user's final answer\" is what the user "
        "receives from the framework's own agent loop, driven by its own scripted model, which calls the tool and "
        "then writes a three-line summary, audited against the result, without and with the adapter taking the "
        "framework's return-direct route."
    )
    return "\n".join([*lines, "", legend])


def _directive(cell: Mapping[str, Any]) -> str:
    """The four members in one cell: where they all are, or which are missing."""
    if cell.get("failed"):
        return "**the call fails**"
    missing = [name for key, name in _MEMBERS if not cell[key]]
    if missing:
        return "**no " + ", ".join(missing) + "**"
    channels = sorted({channel for key, _ in _MEMBERS for channel in cell[key]})
    return f"all ({', '.join(channels)})"


def _model_receives(cell: Mapping[str, Any]) -> str:
    """The directive's members and the records in one cell, the channel named once when they share it."""
    directive, records = _directive(cell), _records(cell["records"], " records")
    if cell.get("failed"):
        return directive
    if directive.startswith("all (") and records.endswith(directive[3:]):
        return f"directive, {records}"
    return f"directive: {directive}; {records}"


def _by_variant(cells: list[tuple[str, str]]) -> str:
    """One cell for every server variant: the shared value, or each variant's value, named by the variant."""
    values = {value for _, value in cells}
    if len(values) == 1:
        return values.pop()
    return "; ".join(f"{label}: {value}" for label, value in cells)


def _final_answer_summary(
    configuration: Mapping[str, Any], plain: Mapping[str, Any] | None, helped: Mapping[str, Any] | None
) -> str:
    """The user's final answer in the SEP's summary: with the route the adapter takes, and without it."""
    if plain is not None and helped is not None:
        switch = re.search(r"`[^`]+`", configuration["route"])  # the switch's name alone
        return f"{switch.group(0) if switch else configuration['route']}: {_short_answer(helped)}"
    if configuration.get("native_route"):
        return "no adapter, by design" if configuration.get("no_adapter_by_design") else "not measured yet"
    return "no route"


def _short_answer(answer: Mapping[str, Any]) -> str:
    if answer["summary"]:
        return "the model's summary"
    records = answer["records"]
    if records["intact"] == records["expected"] and not answer["issues"]:
        return f"all {records['expected']} in order"
    return f"**{records['intact']} of {records['expected']} records**"


def render_summary(results: Mapping[str, Any]) -> str:
    """The short form of the table, for the SEP: one row per framework configuration, the server variants folded
    into each cell and the directive's members into one column."""
    cells = {cell["id"]: cell for cell in results["cells"]}
    answers = {answer["id"]: answer for answer in results.get("answers", [])}
    lines = [
        "| Framework | The model receives | The user's final answer with the adapter |",
        "|" + "---|" * 3,
    ]
    for configuration in results["configurations"]:
        directive: list[tuple[str, str]] = []
        final: list[tuple[str, str]] = []
        for variant in results["variants"]:
            plain = cells[f"{configuration['id']}/{variant['id']}/plain"]
            directive.append((variant["id"], _model_receives(plain)))
            prefix = f"{configuration['id']}/{variant['id']}"
            final.append(
                (
                    variant["id"],
                    _final_answer_summary(
                        configuration, answers.get(f"{prefix}/plain/answer"), answers.get(f"{prefix}/helped/answer")
                    ),
                )
            )
        row = [configuration["label"], _by_variant(directive), _by_variant(final)]
        lines.append("| " + " | ".join(row) + " |")
    legend = (
        "Directive: its mode, guidance, null display and completeness, measured with and without a "
        f"`resource_link` per record on `{results['server']}`, calling no model. Full table and pinned versions on "
        "the [reach page](../docs/reach.md). Final answer: the framework's agent loop, its "
        f"scripted model summarizing the result (without the adapter: {_unhelped_answers(answers)})."
    )
    return "\n".join([*lines, "", legend])


def _unhelped_answers(answers: Mapping[str, Mapping[str, Any]]) -> str:
    found = sorted({_short_answer(answer) for answer in answers.values() if not answer["helped"]})
    return " or ".join(found) or "not measured"


def block(results: Mapping[str, Any], path: Path = DOCS_PAGE) -> str:
    """What belongs between the markers of `path`."""
    table = render_summary(results) if path == SEP else render_table(results)
    return f"{NOTICE}\n\n{table}\n"


def replace_between_markers(
    text: str, content: str, name: str, begin_prefix: str = BEGIN_PREFIX, end: str = END
) -> str:
    lines = text.splitlines(keepends=True)
    begins = [index for index, line in enumerate(lines) if line.strip().startswith(begin_prefix)]
    ends = [index for index, line in enumerate(lines) if line.strip() == end]
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        raise MarkerError(
            f"{name}: expected one line starting `{begin_prefix}` followed by one line `{end}` "
            f"(found {len(begins)} BEGIN, {len(ends)} END)"
        )
    return "".join(lines[: begins[0] + 1]) + "\n" + content + "\n" + "".join(lines[ends[0] :])


def rendered(results: Mapping[str, Any]) -> dict[Path, str]:
    """Each target's text as the generator would write it."""
    out: dict[Path, str] = {}
    for path in TARGETS:
        text = path.read_text(encoding="utf-8")
        out[path] = replace_between_markers(text, block(results, path), str(path.relative_to(ROOT)))
    # The outcomes beyond one whole result, in a table of their own on the docs page.
    out[DOCS_PAGE] = replace_between_markers(
        out[DOCS_PAGE],
        f"{NOTICE}\n\n{render_outcomes(results)}\n",
        str(DOCS_PAGE.relative_to(ROOT)),
        OUTCOMES_BEGIN_PREFIX,
        OUTCOMES_END,
    )
    return out


def stale(results: Mapping[str, Any]) -> list[Path]:
    """The targets whose text differs from what the generator would write."""
    return [path for path, text in rendered(results).items() if path.read_text(encoding="utf-8") != text]


def write(results: Mapping[str, Any]) -> list[Path]:
    """Rewrite the stale targets; the ones written."""
    written: list[Path] = []
    for path, text in rendered(results).items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
