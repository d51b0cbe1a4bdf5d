"""The measured compatibility matrix: re-measure every pinned client and compare with the committed table.

The committed `interop/results/matrix.json` is what the SEP and the docs state. Running the real clients again must
give the same cells; when a client release changes behaviour, this test fails and the matrix has to be regenerated
(`python -m interop.run`) and the prose reviewed.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from interop.matrix import classify
from interop.run import (
    CLIENTS,
    INSPECTOR_PACKAGE,
    ROOT,
    InteropSetupError,
    differences,
    installed_node_package,
    load_expected,
    results_markdown,
    run_matrix,
)
from interop.scenarios import BY_ID, EXTENSION_ID, SCENARIOS, TOOL_NAME


def _exchange(scenario: str, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    lines = "".join(json.dumps({"jsonrpc": "2.0", **request}) + "\n" for request in requests)
    done = subprocess.run(
        [sys.executable, "-m", "interop.fixture_server", "--scenario", scenario],
        input=lines,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_fixture_server_puts_malformed_values_on_the_wire() -> None:
    init = {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}
    replies = _exchange("rendering-number", init, {"id": 2, "method": "tools/call", "params": {"name": TOOL_NAME}})
    assert replies[0]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[1]["result"]["_rendering"] == 42

    listed = _exchange("hints-annotations-string", {"id": 1, "method": "tools/list"})
    assert listed[0]["result"]["tools"][0]["annotations"] == {"verbatimHint": "yes", "summarizeOkHint": "yes"}

    long_guidance = _exchange("rendering-long-guidance", {"id": 1, "method": "tools/call", "params": {}})
    assert len(long_guidance[0]["result"]["_rendering"]["guidance"]) == 1001


def test_fixture_server_speaks_the_2026_era() -> None:
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    discover, listed, unknown = _exchange(
        "hints-meta",
        {"id": 1, "method": "server/discover", "params": meta},
        {"id": 2, "method": "tools/list", "params": meta},
        {"id": 3, "method": "resources/list", "params": meta},
    )
    assert discover["result"]["supportedVersions"] == ["2026-07-28"]
    assert listed["result"]["resultType"] == "complete"
    assert listed["result"]["tools"][0]["_meta"][EXTENSION_ID] == {"verbatimHint": True, "summarizeOkHint": False}
    assert unknown["error"]["code"] == -32601


def _tool_observation(scenario_id: str, annotations: Any) -> dict[str, Any]:
    tool = {**BY_ID[scenario_id].tool(), "annotations": annotations}
    return {"list": {"ok": True, "value": {"tools": [tool]}}, "call": {"ok": True, "value": {"content": []}}}


def test_classify_tells_the_outcomes_apart() -> None:
    hints = BY_ID["hints-annotations"]
    assert classify(
        hints.expectation(), _tool_observation(hints.id, {"verbatimHint": True, "summarizeOkHint": False})
    ) == {"outcome": "kept"}
    assert classify(hints.expectation(), _tool_observation(hints.id, {})) == {"outcome": "stripped"}
    assert classify(hints.expectation(), _tool_observation(hints.id, {"verbatimHint": True})) == {
        "outcome": "mixed",
        "probes": {"annotations.verbatimHint": "kept", "annotations.summarizeOkHint": "stripped"},
    }
    # 1 == True in Python; the wire distinguishes them, and so must the harness.
    assert (
        classify(hints.expectation(), _tool_observation(hints.id, {"verbatimHint": 1, "summarizeOkHint": 0}))["outcome"]
        == "changed"
    )

    control = BY_ID["control-readonly-string"]
    assert classify(control.expectation(), _tool_observation(control.id, {"readOnlyHint": True})) == {
        "outcome": "changed",
        "seen": {"annotations.readOnlyHint": True},
    }
    rejected = {
        "list": {"ok": False, "error": "Expected  boolean,\n received string"},
        "call": {"ok": True, "value": {}},
    }
    assert classify(control.expectation(), rejected) == {
        "outcome": "list rejected",
        "error": "Expected boolean, received string",
    }
    dropped = {"list": {"ok": True, "value": {"tools": []}}, "call": {"ok": False, "error": "not found"}}
    assert classify(control.expectation(), dropped) == {"outcome": "tool dropped", "error": "not found"}

    rendering = BY_ID["rendering-null"]
    kept_null = {"list": {"ok": True, "value": {"tools": []}}, "call": {"ok": True, "value": {"_rendering": None}}}
    assert classify(rendering.expectation(), kept_null) == {"outcome": "kept"}
    assert classify(rendering.expectation(), {**kept_null, "call": {"ok": True, "value": {}}}) == {
        "outcome": "stripped"
    }
    assert (
        classify(rendering.expectation(), {**kept_null, "call": {"ok": False, "error": "bad"}})["outcome"]
        == "call rejected"
    )


def test_differences_reports_every_contradiction() -> None:
    expected = load_expected()
    assert differences(expected, expected) == []
    measured = copy.deepcopy(expected)
    measured["cells"]["rendering"]["python"] = {"outcome": "kept"}
    measured["clients"][0]["version"] = "0.0.0"
    problems = differences(expected, measured)
    assert len(problems) == 2
    assert any(problem.startswith("rendering / python: measured kept") for problem in problems)


def test_committed_matrix_is_complete_and_its_markdown_current() -> None:
    expected = load_expected()
    assert [client["id"] for client in expected["clients"]] == [client.id for client in CLIENTS]
    assert [row["id"] for row in expected["scenarios"]] == [scenario.id for scenario in SCENARIOS]
    assert (ROOT / "interop" / "results" / "matrix.md").read_text(encoding="utf-8") == results_markdown(expected)


def _require_node_clients() -> None:
    try:
        installed_node_package(INSPECTOR_PACKAGE)
    except InteropSetupError as missing:
        if os.environ.get("CI"):
            pytest.fail(str(missing))
        pytest.skip(str(missing))


@pytest.mark.slow
def test_measured_matrix_matches_the_committed_one() -> None:
    _require_node_clients()
    measured = run_matrix()
    problems = differences(load_expected(), measured)
    assert problems == [], "a client no longer behaves as the matrix says:\n" + "\n".join(problems)
