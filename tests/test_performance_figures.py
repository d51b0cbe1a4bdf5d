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


def _entry(name: str, rows: int, gc: str, ratio: float, parse_per_row: float = 1e-6, **extra: Any) -> dict[str, Any]:
    """A result entry: `parse_per_row` seconds a row for json.loads, `ratio` times that for the subject."""
    spread = {"median": ratio, "low": ratio, "high": ratio}
    return {
        "name": name,
        "rows": rows,
        "gc": gc,
        "rounds": 5,
        "ratio": spread,
        "subject_seconds": {"median": ratio * parse_per_row * rows, "low": 0.0, "high": 0.0},
        "baseline_seconds": {"median": parse_per_row * rows, "low": 0.0, "high": 0.0},
        "extra": extra,
    }


def test_each_audit_is_shown_beside_the_floors_of_its_own_shape_size_and_collector_state() -> None:
    audits = [
        _entry("audit", 1_000, "on", 9.0, shape="ledger", part="audit"),
        _entry("audit, text", 1_000, "on", 90.0, shape="text", part="audit"),
        _entry("audit, text", 1_000, "off", 80.0, shape="text", part="audit"),
    ]
    floors = [
        _entry(f"{part}, {shape}", 1_000, "on", ratio, shape=shape, part=part)
        for shape, base in (("ledger", 1.0), ("text", 10.0))
        for part, ratio in zip(gen_performance.FLOORS, (base, base + 1, base + 2), strict=True)
    ]
    run = {"results": [*floors, *audits]}
    rows = gen_performance._beside(gen_performance._audits(run), run["results"], gen_performance.FLOORS)
    # The text audit with the collector off has no floors measured beside it: it gets no row.
    assert rows == [
        ("ledger", "1,000", "on", "9.00x", "1.00x", "2.00x", "3.00x"),
        ("text", "1,000", "on", "90.00x", "10.00x", "11.00x", "12.00x"),
    ]
    assert gen_performance._audits(run, "text") == audits[1:]


def test_the_committed_results_fill_the_tables_of_floors_and_stages() -> None:
    # The benchmarks name what they time; a name changed on one side only would empty a table without a word.
    page = PAGE.read_text(encoding="utf-8")
    runs = gen_performance.load()
    floors = gen_performance._beside(
        gen_performance._audits(runs["audit"]), runs["audit"]["results"], gen_performance.FLOORS
    )
    assert {row[0] for row in floors} == {"ledger", "one-section", "text", "shared-label"}
    assert "| shape | rows | collector | audit | parsers | records | line lookups |" in page
    assert "| rows | collector | present + json.loads | parse + records | + text view | + model copy |" in page
    names = {entry["name"] for entry in runs["present"]["results"]}
    assert set(gen_performance.PRESENT_STAGES) <= names


def test_the_page_states_the_runs_and_batches_the_results_record() -> None:
    runs = gen_performance.load()
    assert f"at 1,000 rows, {gen_performance._runs_at_1000(runs)} in the runs shown" in gen_performance.page(runs)
    for entry in runs["present"]["results"]:
        entry["extra"]["runs_per_round"] = 7 if entry["rows"] == 1_000 else 1
    for entry in runs["audit"]["results"]:
        entry["extra"]["runs_per_round"] = 7 if entry["rows"] == 1_000 else 1
    concurrent = [e for e in runs["call"]["results"] if e["throughput"]]
    for entry in concurrent:
        entry["extra"]["batches_per_round"] = 4
    text = gen_performance.page(runs)
    assert "at 1,000 rows, 7 runs in the runs shown" in text
    assert "each round alternates 4 batches to each server" in text
    for entry in concurrent:
        del entry["extra"]["batches_per_round"]
    assert "each round alternates 1 batch to each server" in gen_performance.page(runs)


@pytest.mark.parametrize(
    ("present_per_row", "verdict"),
    [((7.0, 6.0, 7.5), "met"), ((7.8, 6.5, 7.0), "met"), ((7.0, 6.0, 7.9), "**not met**")],
)
def test_present_is_judged_linear_when_its_cost_per_row_spreads_no_more_than_the_parse_s(
    present_per_row: tuple[float, float, float], verdict: str
) -> None:
    # json.loads: 1.3, 1.0 and 1.1 µs a row at 1,000, 100,000 and 1,000,000 rows: it spreads 1.30x.
    parse = (1.3e-6, 1.0e-6, 1.1e-6)
    runs = gen_performance.load()
    runs["present"] = {
        **runs["present"],
        "results": [
            _entry("present: text + model copy", rows, gc, cost / (seconds * 1e6), seconds)
            for gc in ("on", "off")
            for rows, cost, seconds in zip((1_000, 100_000, 1_000_000), present_per_row, parse, strict=True)
        ],
    }
    lines = [line for line in gen_performance.summary(runs).splitlines() if "present(): linear" in line]
    assert len(lines) == 2 and all(line.endswith(f"| {verdict} |") for line in lines)
    assert "json.loads's 1.30x" in lines[0]


@pytest.mark.parametrize(("ratio", "verdict"), [(5.99, "met"), (6.0, "met"), (6.01, "**not met**")])
def test_present_is_held_to_its_bound_at_100000_rows_with_the_collector_on_and_off(ratio: float, verdict: str) -> None:
    runs = gen_performance.load()
    runs["present"] = {
        **runs["present"],
        "results": [
            _entry("present: text + model copy", rows, gc, ratio if rows == 100_000 else 5.0)
            for gc in ("on", "off")
            for rows in (1_000, 100_000)
        ],
    }
    bound = f"| present() + json.loads ≤ {gen_performance.PRESENT_BOUND:g}x json.loads at 100,000 rows, collector"
    lines = [line for line in gen_performance.summary(runs).splitlines() if line.startswith(bound)]
    assert [line.removeprefix(bound).split(" |")[0] for line in lines] == [" on", " off"]
    assert all(line.endswith(f"| {verdict} |") for line in lines)
