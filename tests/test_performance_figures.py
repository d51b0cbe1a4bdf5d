"""The performance figures the SEP charter and the documentation quote are the ones the committed results hold.

Nothing here is timed: it reads `benchmarks/results/*.json` and the texts that quote them.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
SEP = ROOT / "sep" / "0000-rendering-directives.md"
PAGE = ROOT / "docs" / "performance.md"
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.]*\d)")


def _module(folder: str, name: str) -> ModuleType:
    path = str(ROOT / folder)
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module(name)


gen_performance = _module("scripts", "gen_performance")
harness = _module("benchmarks", "harness")


def _runs() -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(RESULTS.glob("*.json"))}


def _figures(runs: dict[str, dict[str, Any]]) -> set[str]:
    """Every ratio (and load average) the results hold or imply, to two decimals: what a quoted figure may be."""
    values: list[float] = []
    for run in runs.values():
        values += run.get("load_average_at_start", [])
        for entry in run["results"]:
            values += [entry["ratio"][key] for key in ("median", "low", "high")]
            if "peak_growth_per_json_byte" in entry["extra"]:
                values.append(entry["extra"]["peak_growth_per_json_byte"])
        parts = [part["seconds"] for part in (run.get("breakdown") or {}).get("parts", [])]
        values += [a / b for a, b in itertools.permutations(parts, 2)]
        for side in ("subject_seconds", "baseline_seconds"):
            per_row = [e[side]["median"] / e["rows"] for e in run["results"] if e["rows"]]
            values += [a / b for a, b in itertools.permutations(per_row, 2)]
    return {f"{value:.2f}" for value in values}


def _section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_committed_results_are_full_runs_that_say_how_they_were_measured() -> None:
    runs = _runs()
    assert set(gen_performance.BENCHMARKS) <= set(runs)
    for name, run in runs.items():
        assert run["quick"] is False, name
        assert all(entry["rounds"] >= harness.MIN_ROUNDS for entry in run["results"]), name
    # The figures the charter quotes come from runs that say when they ran and how busy the machine was.
    for name in ("call", "present", "audit"):
        run = runs[name]
        assert run["rounds"] >= harness.MIN_ROUNDS, name
        load = run["load_average_at_start"]
        assert len(load) == 3 and all(value >= 0 for value in load), name
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", run["started"]), name


def test_the_charter_quotes_the_generated_figures() -> None:
    charter = SEP.read_text(encoding="utf-8")
    assert charter.count(gen_performance.BEGIN) == 1 and charter.count(gen_performance.END) == 1
    assert gen_performance.sep_text(charter, gen_performance.load()) == charter


def test_every_figure_in_the_charter_s_performance_section_is_in_the_results() -> None:
    section = _section(SEP.read_text(encoding="utf-8"), "Performance Implications")
    quoted = DECIMAL.findall(section)
    assert quoted, "the section quotes no measured figure"
    unknown = set(quoted) - _figures(_runs())
    assert not unknown, f"figures in the charter that no results file holds: {sorted(unknown)}"


def test_every_ratio_on_the_performance_page_is_in_the_results() -> None:
    quoted = re.findall(r"(\d+\.\d\d)x", PAGE.read_text(encoding="utf-8"))
    assert quoted
    # Besides measured figures, the page states the targets, and a part's ratio to itself (the parse, 1.00x).
    unknown = set(quoted) - _figures(_runs()) - {"0.95", "1.10", "1.00"}
    assert not unknown, f"ratios on docs/performance.md that no results file holds: {sorted(unknown)}"


def test_a_stale_figure_in_the_charter_is_caught() -> None:
    # The check above is only worth something if a hand-written figure fails it.
    section = _section(SEP.read_text(encoding="utf-8"), "Performance Implications")
    tampered = section.replace(gen_performance.END, "It costs 0.987654 times as much.\n" + gen_performance.END)
    assert set(DECIMAL.findall(tampered)) - _figures(_runs()) == {"0.987654"}
    with pytest.raises(SystemExit, match="exactly one block"):
        gen_performance.sep_text(section.replace(gen_performance.END, ""), gen_performance.load())


def _quick(run: dict[str, Any]) -> None:
    run["quick"] = True


def _one_round(run: dict[str, Any]) -> None:
    run["results"][0]["rounds"] = 1


@pytest.mark.parametrize(
    ("spoil", "message"),
    [(_quick, "is a quick run"), (_one_round, "fewer than 5 rounds")],
)
def test_the_generator_refuses_a_quick_run_or_one_of_too_few_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoil: Any, message: str
) -> None:
    for path in RESULTS.glob("*.json"):
        run = json.loads(path.read_text(encoding="utf-8"))
        if path.stem == "present":
            spoil(run)
        (tmp_path / path.name).write_text(json.dumps(run), encoding="utf-8")
    monkeypatch.setattr(gen_performance, "RESULTS", tmp_path)
    monkeypatch.setattr(gen_performance, "ROOT", tmp_path)
    with pytest.raises(SystemExit, match=message):
        gen_performance.load()


def test_a_quick_run_is_never_written_over_the_committed_results(tmp_path: Path) -> None:
    target = harness.RESULTS / "present.json"
    before = target.read_bytes()
    options = argparse.Namespace(quick=True, rounds=5, json=target)
    with pytest.raises(SystemExit, match="--quick measures nothing"):
        harness.rounds_of(options)
    with pytest.raises(SystemExit, match="--quick measures nothing"):
        harness.write(target, "present", [], quick=True)
    assert target.read_bytes() == before
    elsewhere = tmp_path / "present.json"
    assert harness.rounds_of(argparse.Namespace(quick=True, rounds=5, json=elsewhere)) == 1
    harness.write(elsewhere, "present", [], quick=True)
    written = json.loads(elsewhere.read_text(encoding="utf-8"))
    assert written["quick"] is True and len(written["load_average_at_start"]) == 3
