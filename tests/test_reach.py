"""The reach harness's reading of what a framework hands its model, on payloads built here from a real result.

The measurement itself runs each framework in its own environment (`python -m interop.reach --check`); these tests
check the analysis and the tables it feeds, for each shape of payload the frameworks were seen to produce.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from interop.reach import envs, tables
from interop.reach.measure import CONFIGURATIONS, VARIANTS, analyse, cell_id
from interop.reach.run import differences, merge
from mcp_rendering import Rendering, verbatim_result
from mcp_rendering.examples.financial import GUIDANCE, RECORD_URIS
from mcp_rendering.examples.financial_data import financial_statements

RESULT_MODEL = verbatim_result(
    RECORD_URIS.assign(financial_statements()),
    Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True),
)
RESULT: dict[str, Any] = RESULT_MODEL.model_dump(mode="json", by_alias=True, exclude_none=True)
TEXT: str = RESULT["content"][0]["text"]
RECORDS = sum(len(section["rows"]) for section in RESULT["structuredContent"]["document"]["sections"])
MEMBERS = ("mode", "guidance", "null_display", "completeness")


def text(value: str) -> dict[str, Any]:
    return {"kind": "text", "text": value}


def test_the_text_block_as_prose_carries_everything_in_text() -> None:
    cell = analyse([text(TEXT)], RESULT)
    assert cell["receives"] == "1 text part" and not cell["failed"] and not cell["framing"]
    assert all(cell[member] == ["text"] for member in MEMBERS)
    assert cell["records"] == {"expected": RECORDS, "text": RECORDS, "JSON": 0, "stringified": 0}


def test_structured_content_as_json_text_is_the_json_channel() -> None:
    cell = analyse([text(json.dumps(RESULT["structuredContent"]))], RESULT)
    assert cell["receives"] == "1 `structuredContent` as JSON text"
    assert all(cell[member] == ["JSON"] for member in MEMBERS)
    assert cell["records"]["JSON"] == RECORDS and cell["records"]["text"] == 0


@pytest.mark.parametrize(
    ("payload", "described"),
    [
        (RESULT_MODEL.model_dump_json(by_alias=True), "1 JSON dump of the result's blocks"),
        (json.dumps(RESULT["content"]), "1 JSON dump of the result's blocks"),
        (str(RESULT_MODEL), "1 Python repr of the result's blocks"),
        (str(RESULT_MODEL.content), "1 Python repr of the result's blocks"),
        (str(RESULT["structuredContent"]), "1 Python repr of `structuredContent`"),
        (
            str([block["text"] for block in RESULT["content"] if block["type"] == "text"]),
            "1 Python repr of the result's blocks",
        ),
    ],
    ids=["result-json", "blocks-json", "result-repr", "blocks-repr", "structured-repr", "texts-repr"],
)
def test_a_repr_or_a_dump_is_stringified_never_text(payload: str, described: str) -> None:
    cell = analyse([text(payload)], RESULT)
    assert cell["receives"] == described
    assert all(cell[member] == ["stringified"] for member in MEMBERS)
    assert cell["records"] == {"expected": RECORDS, "text": 0, "JSON": 0, "stringified": RECORDS}


def test_the_blocks_handed_over_as_objects_are_stringified() -> None:
    cell = analyse([{"kind": "json", "value": RESULT}], RESULT)
    assert cell["receives"] == "1 JSON object of the result's blocks"
    assert cell["records"]["stringified"] == RECORDS and cell["mode"] == ["stringified"]


def test_a_failed_call_shows_nothing_and_says_so() -> None:
    cell = analyse([{"kind": "error", "text": "ValueError: Unknown content type from server"}], RESULT)
    assert cell["failed"] and cell["receives"] == "1 error message"
    assert all(cell[member] == [] for member in MEMBERS)
    assert cell["records"] == {"expected": RECORDS, "text": 0, "JSON": 0, "stringified": 0}


def test_a_cut_text_loses_records_and_completeness() -> None:
    lines = TEXT.splitlines()
    kept = "\n".join(line for line in lines if not line.startswith("Complete:"))
    kept = kept[: len(kept) // 2].rsplit("\n", 1)[0]
    cell = analyse([text(kept)], RESULT)
    assert cell["completeness"] == [] and cell["mode"] == ["text"]
    assert 0 < cell["records"]["text"] < RECORDS


def test_links_are_counted_beside_the_text() -> None:
    links = [{"kind": "file", "url": f"accounts://x/{n}"} for n in range(3)]
    cell = analyse([text(TEXT), *links], RESULT)
    assert cell["receives"] == "1 text part, 3 file blocks (URI only)"
    assert cell["records"]["text"] == RECORDS


def _results(cell: dict[str, Any]) -> dict[str, Any]:
    configuration = CONFIGURATIONS[0]
    cells = []
    for variant in VARIANTS:
        for helped in (False, True):
            cells.append({**cell, "id": cell_id(configuration, variant, helped), "helped": helped})
    return {
        "server": "python -m example",
        "tool": "t",
        "versions": {configuration.env: {"framework": "1.0"}},
        "configurations": [{"id": configuration.id, "label": "F", "env": configuration.env, "adapter": "`A`"}],
        "variants": [{"id": v.id, "label": v.label} for v in VARIANTS],
        "cells": cells,
    }


def test_the_tables_say_when_a_call_fails_and_what_came_stringified() -> None:
    failed = _results(analyse([{"kind": "error", "text": "boom"}], RESULT))
    assert "**the call fails**: 1 error message" in tables.render_table(failed)
    assert "**the call fails**" in tables.render_summary(failed)
    stringified = _results(analyse([text(str(RESULT_MODEL))], RESULT))
    table = tables.render_table(stringified)
    assert f"all {RECORDS} (stringified)" in table and "yes (stringified)" in table
    assert f"directive, all {RECORDS} records (stringified)" in tables.render_summary(stringified)


def test_differences_name_the_cell_that_changed() -> None:
    recorded = _results(analyse([text(TEXT)], RESULT))
    measured = json.loads(json.dumps(recorded))
    measured["cells"][1]["records"]["text"] = 3
    [problem] = differences(recorded, measured)
    assert problem.startswith(recorded["cells"][1]["id"] + ": recorded")
    assert differences(recorded, recorded) == []


def test_a_line_per_dropped_link_is_counted() -> None:
    noted = TEXT + "\n" + "[Unsupported content type: resource_link]\n" * 2
    cell = analyse([text(noted)], RESULT)
    assert cell["receives"] == "1 text part, 2 lines naming a dropped `resource_link`"
    assert cell["records"]["text"] == RECORDS


def test_an_environment_is_cached_by_its_lock_and_shared_by_clones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reach, cache = tmp_path / "reach", tmp_path / "cache"
    reach.mkdir()
    monkeypatch.setattr(envs, "REACH", reach)
    monkeypatch.setattr(envs, "CACHE_ROOT", cache)
    env = envs.Environment("tiny", (), ())
    env.lock_file.write_text("# nothing but the interpreter\n", encoding="utf-8")
    first_clone, second_clone = tmp_path / "one", tmp_path / "two"

    monkeypatch.setattr(envs, "ENV_ROOT", first_clone)
    assert envs.ensure(env) is not None and envs.is_current(env)
    store = env.store
    assert (first_clone / "tiny").resolve() == store.resolve() and env.python.is_file()
    assert envs.ensure(env) is None  # cached

    monkeypatch.setattr(envs, "ENV_ROOT", second_clone)
    assert envs.ensure(env) is None and (second_clone / "tiny").resolve() == store.resolve()

    env.lock_file.write_text("# another lock\n", encoding="utf-8")
    assert not envs.is_current(env) and env.store != store
    (env.store / "bin").mkdir(parents=True)  # an interrupted install: no stamp, so not current
    assert not envs.is_current(env)


def test_the_final_answer_is_audited_against_the_result() -> None:
    from interop.reach.measure import SUMMARY, analyse_answer
    from mcp_rendering.integrations.answer import final_answer

    summary = analyse_answer(SUMMARY, RESULT)
    assert summary["summary"] and summary["records"]["intact"] == 0
    host_view = final_answer(None, RESULT, server="example-financial").text
    whole = analyse_answer(host_view, RESULT)
    assert whole == {"summary": False, "records": {"expected": RECORDS, "intact": RECORDS}, "issues": []}
    lines = host_view.splitlines()
    table_line = next(index for index, line in enumerate(lines) if line.startswith("|   "))
    invented = "\n".join([*lines[: table_line + 1], "|   Invented line | 999 | 1 | 2 |", *lines[table_line + 1 :]])
    assert "fabricated_row" in analyse_answer(invented, RESULT)["issues"]
    cut = "\n".join(lines[: len(lines) // 2])
    assert 0 < analyse_answer(cut, RESULT)["records"]["intact"] < RECORDS


def test_the_table_gives_the_final_answer_per_configuration() -> None:
    from interop.reach.measure import analyse_answer

    results = _results(analyse([text(TEXT)], RESULT))
    results["configurations"][0]["route"] = "`R`"
    ids = [cell["id"] for cell in results["cells"]]
    results["answers"] = [
        {
            "id": f"{cell}/answer",
            "helped": cell.endswith("helped"),
            **analyse_answer(TEXT if cell.endswith("helped") else "Short.", RESULT),
        }
        for cell in ids
    ]
    table = tables.render_table(results)
    assert f"without: **0 of {RECORDS} records**" in table and "with `R`: " in table
    summary = tables.render_summary(results)
    assert f"| `R`: all {RECORDS} in order |" in summary
    assert f"(without the adapter: **0 of {RECORDS} records**)" in summary
    # An adapter that acts on the final answer alone leaves what the model receives as it was, and says so.
    results["configurations"][0]["adapter"] = None
    assert "| unchanged: the adapter changes only the user's final answer |" in tables.render_table(results)
    del results["answers"]
    results["configurations"][0].update(adapter=None, route=None, native_route="`skip_summarization`")
    assert "route: `skip_summarization`; not measured yet (no adapter)" in tables.render_table(results)
    assert "| no adapter |" in tables.render_table(results)
    assert "| not measured yet |" in tables.render_summary(results)
    results["configurations"][0]["no_adapter_by_design"] = "its tools hand on no result"
    table = tables.render_table(results)
    assert "| no adapter for this configuration, by design |" in table
    assert "no adapter for this configuration, by design: its tools hand on no result |" in table
    assert "not measured" not in table
    assert "| no adapter, by design |" in tables.render_summary(results)
    results["configurations"][0].update(native_route=None, no_adapter_by_design=None)
    assert "**no route**" in tables.render_table(results)
    assert "| no route |" in tables.render_summary(results)


def test_results_record_the_configurations_as_measure_defines_them() -> None:
    from interop.reach.measure import configuration_records

    recorded = json.loads((Path(__file__).parents[1] / "interop/reach/results.json").read_text(encoding="utf-8"))
    assert recorded["configurations"] == configuration_records()


def test_measuring_some_environments_replaces_their_cells_only_in_place() -> None:
    recorded = json.loads((Path(__file__).parents[1] / "interop/reach/results.json").read_text(encoding="utf-8"))
    env = "haystack"
    ids = {configuration.id for configuration in CONFIGURATIONS if configuration.env == env}
    changed = {
        kind: [{**cell, "remeasured": True} for cell in recorded[kind] if cell["configuration"] in ids]
        for kind in ("cells", "answers", "outcomes")
    }
    assert all(changed.values())
    merged = merge(recorded, {**changed, "versions": {env: {"haystack-ai": "0"}}}, [env])
    for kind in ("cells", "answers", "outcomes"):
        # The same cells in the same order, only the named environment's replaced.
        assert [cell["id"] for cell in merged[kind]] == [cell["id"] for cell in recorded[kind]]
        assert {cell["id"] for cell in merged[kind] if cell.get("remeasured")} == {
            cell["id"] for cell in recorded[kind] if cell["configuration"] in ids
        }
    assert merged["versions"][env] == {"haystack-ai": "0"}
    assert list(merged["versions"]) == list(recorded["versions"])
    assert differences(recorded, merge(recorded, {kind: [] for kind in changed}, [env]))
