"""The audit of the user's final answer beyond one whole result (`interop.reach.outcomes`): what each kind of answer
reads as, against the example servers' real results."""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

from interop.reach import outcomes
from interop.reach.measure import SUMMARY
from interop.run import wire_exchange
from mcp_rendering.integrations.answer import final_answer, join_answers, other_calls_line

BY_ID = {scenario.id: scenario for scenario in outcomes.SCENARIOS}


@cache
def _reference(scenario_id: str) -> outcomes.Reference:
    return outcomes.reference(BY_ID[scenario_id])


def _view(scenario_id: str) -> str:
    ref, scenario = _reference(scenario_id), BY_ID[scenario_id]
    # As an adapter builds it: with the call's arguments, which say how to ask for the rest.
    return final_answer(ref.tool, ref.result, server=scenario.server_name, arguments=dict(scenario.audited.args)).text


def _analyse(scenario_id: str, final: str, outputs: list[str] | None = None) -> dict[str, Any]:
    return outcomes.analyse_outcome(final, outputs or [], BY_ID[scenario_id], _reference(scenario_id), SUMMARY)


def test_a_partial_answer_needs_the_notice_first_and_every_record_of_the_part() -> None:
    view = _view("partial")
    whole = _analyse("partial", view)
    assert whole["answer"] == "host view" and whole["notice_first"] is True and not whole["issues"]
    assert whole["records"]["intact"] == whole["records"]["expected"] > 0
    caption, notice, records = view.split("\n\n", 2)
    without_notice = _analyse("partial", f"{caption}\n\n{records}")
    assert without_notice["notice_first"] is False and without_notice["issues"]
    summary = _analyse("partial", SUMMARY)
    assert summary["answer"] == "model" and summary["notice_first"] is False and summary["beside"] == 0
    assert notice.startswith("Partial result:")


def test_an_error_answer_is_told_from_the_view_and_its_message_is_found() -> None:
    scenario = BY_ID["error"]
    assert scenario.error is not None
    error = scenario.error
    tools, failed = wire_exchange([sys.executable, "-m", scenario.module], error.name, dict(error.args))
    tool = next(tool for tool in tools if tool["name"] == scenario.error.name)
    host_error = final_answer(tool, failed, server=scenario.server_name).text
    analysis = _analyse("error", host_error)
    assert analysis["answer"] == "host error line" and analysis["error_text_shown"] is True
    raw = _analyse("error", _reference("error").error_text or "")
    assert raw["answer"] == "other" and raw["error_text_shown"] is True
    corrected = _analyse("error", _view("error"))
    assert corrected["answer"] == "host view" and corrected["error_text_shown"] is False


def test_beside_the_model_answer_only_a_captioned_whole_view_counts() -> None:
    view = _view("mixed")
    raw_text = "\n\n".join(
        block["text"] for block in _reference("mixed").result["content"] if block.get("type") == "text"
    )
    assert _analyse("mixed", SUMMARY, [raw_text, "Key figures."])["beside"] == 0
    beside = _analyse("mixed", SUMMARY, ["Key figures.", view])
    assert beside["answer"] == "model" and beside["beside"] == beside["records"]["expected"]
    cut = "\n".join(view.splitlines()[: len(view.splitlines()) // 2])
    assert _analyse("mixed", SUMMARY, [cut])["beside"] == 0


def test_the_outcome_table_has_a_row_per_configuration_measured() -> None:
    results: dict[str, Any] = {
        "configurations": [{"id": "x", "label": "X agents"}, {"id": "y", "label": "Y agents"}],
        "scenarios": [{"id": scenario.id, "label": scenario.label} for scenario in outcomes.SCENARIOS],
        "outcomes": [],
    }
    for scenario in outcomes.SCENARIOS:
        for helped in (False, True):
            final = _view(scenario.id) if helped and scenario.id != "mixed" else SUMMARY
            outputs = [_view(scenario.id)] if helped else []
            results["outcomes"].append(
                {"id": outcomes.outcome_id("x", scenario.id, helped), **_analyse(scenario.id, final, outputs)}
            )
    table = outcomes.render_outcomes(results)
    assert "| X agents |" in table and "Y agents" not in table
    assert "with: host's view, 100 records in order, notice first" in table
    assert "with: model's answer, host's view beside it (54 records)" in table
    assert "**error message shown**" not in table


def test_a_joined_answer_and_a_view_naming_the_other_call_are_told_apart() -> None:
    view = _view("mixed")
    joined = _analyse("mixed", join_answers([view, "Key figures."]))
    assert joined["answer"] == "host views joined" and not joined["issues"]
    assert joined["records"]["intact"] == joined["records"]["expected"] == 54
    named = _analyse("mixed", f"{other_calls_line(['key_figures'])}\n\n{view}")
    assert named["answer"] == "host view" and named["others_named"] is True and not named["issues"]
    silent = _analyse("mixed", view)
    assert silent["answer"] == "host view" and silent["others_named"] is False
    wrong = _analyse("mixed", f"{other_calls_line(['another_tool'])}\n\n{view}")
    assert wrong["others_named"] is False
    # A view alone in its step says nothing of other calls.
    assert "others_named" not in _analyse("partial", _view("partial"))
    phrases = [outcomes._phrase(analysis) for analysis in (joined, named, silent)]  # pyright: ignore[reportPrivateUsage]
    assert phrases == [
        "host's views joined, 54 records in order",
        "host's view, 54 records in order, the other call named",
        "host's view, 54 records in order, **the other call not mentioned**",
    ]
