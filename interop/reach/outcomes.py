"""The user's final answer beyond one whole verbatim result: a partial result, an error from a verbatim tool, and a
turn calling the verbatim tool and another tool.

Each `Scenario` is a script for the framework's own scripted model: the tool calls of each model turn, then
`SUMMARY`. A framework's outcome driver (``drivers/outcome_<framework>.py``) honours it by reading the job's
options: ``script``, a list of turns, each a list of ``{"name", "args"}`` calls, and ``server_name``, the name the
adapter shows in its caption; a job without ``script`` calls the example's verbatim tool once. The driver reports
``final``, the answer where the framework's applications read it, as for a whole result, and ``outputs``, what
the application can read of each tool call (the text of each tool message or output).

A driver takes part once it honours ``script`` and ``server_name`` and reports ``outputs``: `SCENARIO_DRIVERS` names
those that do (the others' configurations have no row in the outcome table yet).

`analyse_outcome` audits the final answer against the result of the scenario's `audited` call as the server sends
it (read over plain JSON-RPC): which kind of answer it is (the model's, the host's view, several of the host's
answers joined by `join_answers`, the host's error line, something else), the records it holds intact and in
order, whether it holds the server's error message, for a partial result whether the host's notice (that it is
partial, and how to get the rest) opens it, for the host's view of a call made beside others whether the host's
line opening it (`other_calls_line`) names every other call of the step, and, when the model answers, how many
records the host's view beside it holds (a tool output the driver reports, ``outputs``, that opens with the
host's caption, every record intact and in order; 0 when there is none).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from interop.run import wire_exchange
from mcp_rendering.audit import audit
from mcp_rendering.host import quote
from mcp_rendering.integrations.answer import OTHER_CALLS_OPENING, final_answer

__all__ = [
    "SCENARIOS",
    "SCENARIO_DRIVERS",
    "Call",
    "Scenario",
    "analyse_outcome",
    "outcome_id",
    "reference",
    "render_outcomes",
]


SCENARIO_DRIVERS = frozenset(
    {
        "outcome_langchain.py",
        "outcome_openai_agents.py",
        "outcome_google_adk.py",
        "outcome_agno.py",
        "outcome_strands.py",
        "outcome_haystack.py",
        "outcome_semantic_kernel.py",
        "outcome_pydantic_ai.py",
        "outcome_autogen.py",
        "outcome_llama_index.py",
        "outcome_crewai.py",
    }
)
"""The outcome drivers that honour a scenario (``script``, ``server_name``) and report ``outputs``."""


@dataclass(frozen=True)
class Call:
    name: str
    args: Mapping[str, Any]

    def job(self) -> dict[str, Any]:
        return {"name": self.name, "args": dict(self.args)}


@dataclass(frozen=True)
class Scenario:
    id: str
    label: str
    module: str
    """The example server (run as ``python -m module``)."""
    server_name: str
    turns: tuple[tuple[Call, ...], ...]
    """The tool calls of each model turn, before the model writes its summary."""
    audited: Call
    """The verbatim call whose result the final answer is audited against."""
    error: Call | None = None
    """The call of the script that fails, whose message must not reach the user as data."""


SCREENING = "mcp_rendering.examples.screening"
FINANCIAL = "mcp_rendering.examples.financial"
_PAGE = Call("screening_report", {})
_BAD_BATCH = Call("screening_report", {"batch": "no-such-batch"})
_ACCOUNTS = Call("financial_statements", {})

SCENARIOS: tuple[Scenario, ...] = (
    Scenario("partial", "a partial result (first page)", SCREENING, "example-screening", ((_PAGE,),), _PAGE),
    Scenario(
        "error",
        "an error, then the corrected call",
        SCREENING,
        "example-screening",
        ((_BAD_BATCH,), (_PAGE,)),
        _PAGE,
        error=_BAD_BATCH,
    ),
    Scenario(
        "mixed",
        "the verbatim tool and another in one turn",
        FINANCIAL,
        "example-financial",
        ((_ACCOUNTS, Call("key_figures", {})),),
        _ACCOUNTS,
    ),
)


def outcome_id(configuration: str, scenario: str, helped: bool) -> str:
    return f"{configuration}/{scenario}/{'helped' if helped else 'plain'}/outcome"


def scenario_job(scenario: Scenario, base: Mapping[str, Any], summary: str) -> dict[str, Any]:
    """The outcome driver's job for `scenario`, from a configuration's job for the whole result (`base`)."""
    return {
        **base,
        "args": ["-m", scenario.module],
        "options": {
            **base["options"],
            "summary": summary,
            "script": [[call.job() for call in turn] for turn in scenario.turns],
            "server_name": scenario.server_name,
        },
    }


@dataclass(frozen=True)
class Reference:
    """The audited call's tool and result, exactly as sent, and what the scenario's failing call sent."""

    tool: Mapping[str, Any]
    result: Mapping[str, Any]
    error_text: str | None


def _exchange(module: str, call: Call) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    tools, result = wire_exchange([sys.executable, "-m", module], call.name, dict(call.args))
    return next(tool for tool in tools if tool["name"] == call.name), result


def reference(scenario: Scenario) -> Reference:
    tool, result = _exchange(scenario.module, scenario.audited)
    error_text = None
    if scenario.error is not None:
        _, failed = _exchange(scenario.module, scenario.error)
        assert failed.get("isError") is True, f"{scenario.id}: the failing call must fail"
        error_text = "\n".join(block["text"] for block in failed["content"] if block.get("type") == "text")
    return Reference(tool, result, error_text)


_JOINED = re.compile(r"\d+ results follow, in the order called;")
"""How `join_answers` opens an answer joining several."""


def analyse_outcome(
    final: str, outputs: Sequence[str], scenario: Scenario, ref: Reference, summary: str
) -> dict[str, Any]:
    """What the user's final answer holds; see the module docstring."""
    # The answer the host would give for the audited call, its arguments known as the adapters know them.
    expected = final_answer(ref.tool, ref.result, server=scenario.server_name, arguments=dict(scenario.audited.args))
    caption = expected.presentation.caption or ""
    stripped = final.strip()
    # The host's line naming the other calls of the step that the answer leaves out, when one opens it.
    other_calls = ""
    if stripped.startswith(OTHER_CALLS_OPENING):
        other_calls, _, stripped = stripped.partition("\n\n")
    if stripped == summary:
        kind = "model"
    elif caption and stripped.startswith(caption):
        kind = "host view"
    elif _JOINED.match(stripped) and caption in stripped:
        kind = "host views joined"
    elif stripped.startswith("The tool ") and " reported an error." in stripped.split("\n", 1)[0]:
        kind = "host error line"
    else:
        kind = "other"
    report = audit(final, dict(ref.result), markup="text")
    analysis: dict[str, Any] = {
        "answer": kind,
        "records": {"expected": report.rows_expected, "intact": report.rows_intact},
        "issues": sorted({issue.kind for issue in report.issues}),
    }
    turn = next(turn for turn in scenario.turns if scenario.audited in turn)
    others = [call.name for call in turn if call != scenario.audited]
    if others and kind == "host view":
        analysis["others_named"] = all(quote(name) in other_calls for name in others)
    notice = expected.presentation.notice
    if notice is not None:
        # The host's lines open the answer: the caption, then the notice, each a paragraph of its own.
        analysis["notice_first"] = kind == "host view" and notice in stripped.split("\n\n")[:2]
    if ref.error_text is not None:
        analysis["error_text_shown"] = ref.error_text in final
    if kind == "model":
        # What the application can show beside the model's answer: a tool output that is the host's view.
        views = [output for output in outputs if caption and output.strip().startswith(caption)]
        reports = [audit(view, dict(ref.result), markup="text") for view in views]
        analysis["beside"] = max((report.rows_intact for report in reports if report.clean), default=0)
    return analysis


# ------------------------------------------------------------------------------------------------------- the table


def _phrase(outcome: Mapping[str, Any]) -> str:
    """One final answer in a few words."""
    records = outcome["records"]
    kind = outcome["answer"]
    if kind == "model":
        text = "model's answer"
        if outcome.get("beside"):
            text += f", host's view beside it ({outcome['beside']} records)"
    elif kind == "host error line":
        text = "host's error line"
    elif kind == "host views joined":
        whole = records["intact"] == records["expected"] and not outcome["issues"]
        text = (
            f"host's views joined, {records['expected']} records in order"
            if whole
            else f"host's views joined, **{records['intact']} of {records['expected']} records**"
        )
    elif kind == "host view":
        whole = records["intact"] == records["expected"] and not outcome["issues"]
        text = (
            f"host's view, {records['expected']} records in order"
            if whole
            else (f"host's view, **{records['intact']} of {records['expected']} records**")
        )
        if "notice_first" in outcome:
            text += ", notice first" if outcome["notice_first"] else ", **no notice first**"
        if "others_named" in outcome:
            text += ", the other call named" if outcome["others_named"] else ", **the other call not mentioned**"
    else:
        text = "**other**"
    if outcome.get("error_text_shown"):
        text += ", **error message shown**"
    return text


def render_outcomes(results: Mapping[str, Any]) -> str:
    """The compact table of `results["outcomes"]`: one row per configuration measured, one column per scenario."""
    outcomes = {outcome["id"]: outcome for outcome in results.get("outcomes", [])}
    scenarios: Sequence[Mapping[str, Any]] = results.get("scenarios", [])
    lines = [
        "| Framework | " + " | ".join(scenario["label"].capitalize() for scenario in scenarios) + " |",
        "|" + "---|" * (len(scenarios) + 1),
    ]
    for configuration in results["configurations"]:
        row: list[str] = []
        for scenario in scenarios:
            plain = outcomes.get(outcome_id(configuration["id"], scenario["id"], False))
            helped = outcomes.get(outcome_id(configuration["id"], scenario["id"], True))
            if plain is None or helped is None:
                break
            row.append(f"without: {_phrase(plain)}; with: {_phrase(helped)}")
        if len(row) == len(scenarios) and row:
            lines.append(f"| {configuration['label']} | " + " | ".join(row) + " |")
    legend = (
        "Each framework's own agent loop, its scripted model making each column's calls and then writing a "
        "three-line summary, without and with the adapter; the final answer audited against the verbatim call's "
        "result as the server sends it. Partial: the first page of `screening_report` "
        '(`python -m mcp_rendering.examples.screening`), 100 of 262 records; "notice first": the host\'s notice '
        "that it is partial, and how to get the rest, opens the answer. Error: a call for an unknown batch, then the "
        "corrected call in the model's next turn; \"error message shown\" would mark an answer holding the server's "
        "error message. Mixed: "
        "`financial_statements` and `key_figures` of `python -m mcp_rendering.examples.financial` in one turn; "
        '"beside it": a tool output the application reads is the host\'s view, every record in order; "the other '
        'call named": a host line opening the answer names the call whose result it leaves out.'
    )
    return "\n".join([*lines, "", legend])
