"""Generate the Performance page and its plots from the benchmarks' committed results.

Every benchmark writes what it printed as JSON (`--json`); the full run the page shows is committed under
`benchmarks/results/`. This generator reads those files and writes `docs/performance.md` and the plots under
`docs/assets/performance/` (SVG, deterministic: a fixed hash salt, text kept as text, no date).

Usage:
    python scripts/gen_performance.py            # rewrite the page and the plots
    python scripts/gen_performance.py --check    # exit 1 when they are out of date

To refresh the figures, run the benchmarks with `--json benchmarks/results/<name>.json` (the page lists the
commands), then this generator.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from generated import ROOT, write_or_check

RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "performance.md"
PLOTS = ROOT / "docs" / "assets" / "performance"
BENCHMARKS = ("call", "present", "audit", "envelope", "patch", "stdio-buffer")

Run = dict[str, Any]
Entry = dict[str, Any]


def load() -> dict[str, Run]:
    runs: dict[str, Run] = {}
    for name in BENCHMARKS:
        path = RESULTS / f"{name}.json"
        if not path.is_file():
            raise SystemExit(f"gen_performance: {path.relative_to(ROOT)} is missing; run the benchmark with --json")
        runs[name] = json.loads(path.read_text(encoding="utf-8"))
    return runs


def _entries(run: Run, name: str | None = None, **extra: Any) -> list[Entry]:
    return [
        entry
        for entry in run["results"]
        if (name is None or entry["name"] == name) and all(entry["extra"].get(k) == v for k, v in extra.items())
    ]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f}" if seconds >= 0.01 else f"{seconds * 1e3:,.2f}"


def _ratio(entry: Entry) -> str:
    ratio = entry["ratio"]
    return f"{ratio['median']:.2f}x ({ratio['low']:.2f}-{ratio['high']:.2f})"


def _per_row(entry: Entry) -> str:
    return f"{entry['subject_seconds']['median'] / entry['rows'] * 1e6:.2f}"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], align: str) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(":--" if a == "l" else "--:" for a in align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _provenance(run: Run) -> str:
    rounds = sorted({entry["rounds"] for entry in run["results"]})
    text = (
        f"`benchmarks/results/{run['benchmark']}.json`: commit `{run['commit']}`, {run['implementation']} "
        f"{run['python']}, {run['cpus']} CPUs, {'/'.join(map(str, rounds))} interleaved rounds per ratio."
    )
    if run["quick"]:
        text += " **A quick run (one round): it shows that the benchmark runs, not what anything costs.**"
    return text


# ------------------------------------------------------------------------------------------------------------ plots


def _figure() -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("svg")
    from matplotlib import pyplot

    matplotlib.rcParams.update(
        {"svg.hashsalt": "mcp-rendering", "svg.fonttype": "none", "font.size": 9, "axes.grid": True}
    )
    figure, axes = pyplot.subplots(figsize=(7.0, 4.0))
    return figure, axes


def _svg(figure: Any) -> str:
    from matplotlib import pyplot

    buffer = io.StringIO()
    figure.tight_layout()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    pyplot.close(figure)
    return buffer.getvalue()


def _series(entries: Sequence[Entry], side: str) -> tuple[list[int], list[float]]:
    ordered = sorted(entries, key=lambda e: e["rows"])
    return [e["rows"] for e in ordered], [e[side]["median"] / e["rows"] * 1e6 for e in ordered]


def cost_per_row_plot(runs: dict[str, Run]) -> str:
    """Microseconds per row against rows, log-log: the host side, the call path, and `json.loads` under both."""
    figure, axes = _figure()
    present = _entries(runs["present"], "present: text + model copy")
    audit = _entries(runs["audit"], "audit")
    lines: list[tuple[str, Sequence[Entry], str, str]] = [
        ("json.loads of the result (the limit)", present, "baseline_seconds", "k--"),
        ("present(): text + model copy, with json.loads", present, "subject_seconds", "o-"),
        ("audit(), collector on", [e for e in audit if e["gc"] == "on"], "subject_seconds", "s-"),
        ("audit(), collector off", [e for e in audit if e["gc"] == "off"], "subject_seconds", "s:"),
        ("call over stdio: quickstart", _entries(runs["call"], "call over stdio"), "subject_seconds", "^-"),
        ("call over stdio: plain server", _entries(runs["call"], "call over stdio"), "baseline_seconds", "v:"),
        ("call over HTTP: quickstart", _entries(runs["call"], "call over http"), "subject_seconds", "D-"),
    ]
    for label, entries, side, style in lines:
        if entries:
            rows, cost = _series(entries, side)
            axes.plot(rows, cost, style, label=label, markersize=4)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("rows in the result")
    axes.set_ylabel("µs per row (median)")
    axes.set_title("Cost per row: flat means linear growth")
    axes.legend(fontsize=7, loc="best")
    return _svg(figure)


def ratio_plot(runs: dict[str, Run]) -> str:
    """Each ratio's median and range against rows, with the targets."""
    figure, axes = _figure()
    series: list[tuple[str, Sequence[Entry], str]] = [
        ("call over stdio ÷ plain (target ≤ 1.2)", _entries(runs["call"], "call over stdio"), "^-"),
        ("call over HTTP ÷ plain (target ≤ 1.2)", _entries(runs["call"], "call over http"), "D-"),
        (
            "present() + json.loads ÷ json.loads (target ≤ 5 at 100,000)",
            _entries(runs["present"], "present: text + model copy"),
            "o-",
        ),
        ("audit() ÷ json.loads, collector on", [e for e in _entries(runs["audit"], "audit") if e["gc"] == "on"], "s-"),
    ]
    for label, entries, style in series:
        ordered = sorted(entries, key=lambda e: e["rows"])
        if not ordered:
            continue
        rows = [e["rows"] for e in ordered]
        medians = [e["ratio"]["median"] for e in ordered]
        below = [e["ratio"]["median"] - e["ratio"]["low"] for e in ordered]
        above = [e["ratio"]["high"] - e["ratio"]["median"] for e in ordered]
        axes.errorbar(rows, medians, yerr=[below, above], fmt=style, label=label, markersize=4, capsize=3)
    axes.axhline(1.2, color="grey", linewidth=0.8, linestyle="--")
    axes.axhline(5.0, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("rows in the result")
    axes.set_ylabel("ratio (median, bars: range of the rounds)")
    axes.set_title("Ratios against their baselines")
    axes.legend(fontsize=7, loc="best")
    return _svg(figure)


# ------------------------------------------------------------------------------------------------------------- page


def call_section(run: Run) -> str:
    per_call = [e for e in run["results"] if not e["throughput"]]
    rows = [
        (
            e["extra"]["transport"].replace("http", "streamable HTTP"),
            f"{e['rows']:,}",
            _ms(e["subject_seconds"]["median"]),
            _ms(e["baseline_seconds"]["median"]),
            _ratio(e),
        )
        for e in per_call
    ]
    concurrent = [e for e in run["results"] if e["throughput"]]
    concurrent_rows = [
        (
            e["name"],
            f"{e['rows']:,}",
            _ms(e["subject_seconds"]["median"]),
            _ms(e["baseline_seconds"]["median"]),
            _ratio(e),
        )
        for e in concurrent
    ]
    breakdown = run.get("breakdown") or {"rows": 0, "parts": []}
    parse = next((p["seconds"] for p in breakdown["parts"] if p["part"].startswith("parse")), None)
    parts = [
        (p["part"], _ms(p["seconds"]), f"{p['seconds'] / parse:.2f}x" if parse else "") for p in breakdown["parts"]
    ]
    return "\n\n".join(
        [
            "## The call path",
            "Per call, the server quickstart (extension, hint, `-> Annotated[CallToolResult, VerbatimContent]`) "
            "against a plain `MCPServer` returning the same bytes, each in its own process; a round alternates "
            "calls between them and its ratio is of the two medians. Target: at most 1.2x.",
            _table(["transport", "rows", "quickstart (ms)", "plain (ms)", "ratio: median (range)"], rows, "lrrrr"),
            "Throughput of 50 concurrent calls over streamable HTTP, with the extension ÷ without it (target: at "
            "least 0.95x); the times are of a whole batch.",
            _table(
                ["calls", "rows", "quickstart (ms)", "plain (ms)", "throughput: median (range)"],
                concurrent_rows,
                "lrrrr",
            ),
            f"Where the quickstart's time goes at {breakdown['rows']:,} rows, each part timed alone in one process "
            "(fastest run). The server's check against `VerbatimContent` is by construction: `verbatim_result` "
            "builds the structured content from models already validated and hands it out sealed, and the check "
            "compares it with a fresh dump of those models instead of validating every row again; content changed "
            "after building, or copied, is validated in full, as the last but one line shows.",
            _table(["part", "ms", "÷ json.loads"], parts, "lrr"),
            _provenance(run),
        ]
    )


def present_section(run: Run) -> str:
    rows = [
        (
            e["name"].removeprefix("present: "),
            f"{e['rows']:,}",
            _ms(e["baseline_seconds"]["median"]),
            _ms(e["subject_seconds"]["median"]),
            _per_row(e),
            _ratio(e),
        )
        for e in run["results"]
    ]
    return "\n\n".join(
        [
            "## `present()`",
            "A host parses the result (`json.loads`, the least any reader pays) and presents it with "
            "`present(tool, result, server=...)`, reading the plain-text view and the model's copy (and, in the "
            "second variant, the Markdown view too). The subject includes the parse; the ratio is to the parse "
            "alone. Target: at most 5x at 100,000 rows, and a flat cost per row from 1,000 to 1,000,000.",
            _table(
                [
                    "views read",
                    "rows",
                    "json.loads (ms)",
                    "present + json.loads (ms)",
                    "µs/row",
                    "ratio: median (range)",
                ],
                rows,
                "lrrrrr",
            ),
            f"Largest size measured: {max((e['rows'] for e in run['results']), default=0):,} rows.",
            _provenance(run),
        ]
    )


def audit_section(run: Run) -> str:
    rows = [
        (
            f"{e['rows']:,}",
            e["gc"],
            _ms(e["baseline_seconds"]["median"]),
            _ms(e["subject_seconds"]["median"]),
            _per_row(e),
            _ratio(e),
            f"{e['extra']['peak_growth_per_json_byte']:.2f}x",
        )
        for e in run["results"]
    ]
    return "\n\n".join(
        [
            "## The audit",
            "`audit(text, result)` of the text `present()` showed, against `json.loads` of the result's JSON, with "
            "the collector on for both sides (what a caller sees) and off for both (what the collector adds). The "
            "peak memory is the audit's growth beyond its inputs, as a multiple of the result's JSON size."
            + (
                " **In the commit measured, `audit()` switches the collector off itself while it runs**, so with "
                "the collector on it runs without it while `json.loads` pays for it: only the figures with the "
                "collector off on both sides compare like with like."
                if any(e["extra"].get("audit_switches_collector_off") for e in run["results"])
                else ""
            ),
            _table(
                [
                    "rows",
                    "collector",
                    "json.loads (ms)",
                    "audit (ms)",
                    "µs/row",
                    "ratio: median (range)",
                    "peak memory",
                ],
                rows,
                "lcrrrrr",
            ),
            _provenance(run),
        ]
    )


def envelope_section(run: Run) -> str:
    rows = [
        (
            e["name"],
            f"{e['rows']:,}",
            _ms(e["subject_seconds"]["median"]),
            f"{e['baseline']}: {_ms(e['baseline_seconds']['median'])}",
            _per_row(e),
            _ratio(e),
        )
        for e in run["results"]
    ]
    return "\n\n".join(
        [
            "## The envelope",
            "Paging a result into 1 MB pages (every page, with a data version from the tool) against `json.dumps` "
            "of the same pages (target: at most 2x at 100,000 records), and the default content fingerprint "
            "against a data version.",
            _table(
                ["comparison", "records", "subject (ms)", "baseline (ms)", "µs/record", "ratio: median (range)"],
                rows,
                "lrrrrr",
            ),
            _provenance(run),
        ]
    )


def patch_section(run: Run) -> str:
    rows = [
        (
            e["name"],
            f"{e['rows']:,}",
            _ms(e["subject_seconds"]["median"]),
            _ms(e["baseline_seconds"]["median"]),
            _ratio(e),
        )
        for e in run["results"]
    ]
    install = run.get("install_seconds")
    return "\n\n".join(
        [
            "## The SDK patch",
            "Validating and dumping the SDK's models with the patch installed ÷ without it (target: at most 1.10x)."
            + (f" `install()` takes {install * 1e3:.1f} ms (median of 10)." if install is not None else ""),
            _table(["model", "items", "patched (ms)", "unpatched (ms)", "ratio: median (range)"], rows, "lrrrr"),
            _provenance(run),
        ]
    )


def stdio_section(run: Run) -> str:
    rows = [
        (
            f"{e['rows'] / 1e6:g} MB",
            _ms(e["subject_seconds"]["median"]),
            _ms(e["baseline_seconds"]["median"]),
            _ratio(e),
        )
        for e in run["results"]
    ]
    return "\n\n".join(
        [
            "## The SDK's stdio client",
            "The SDK's stdio client (mcp 2.3.0) joins the unfinished line it holds with each 64 KiB chunk and splits "
            "the whole text again, so a long message costs time quadratic in its length. The fix, a separate patch "
            "to the SDK with a test of its own (`upstream/python-sdk/stdio-buffer/`), joins the pieces once. Its "
            "`check.sh` runs the SDK's stdio tests on the patched source and then this benchmark: one long message "
            "received through `stdio_client`, patched ÷ unpatched source, the same interpreter and dependencies.",
            _table(["message", "patched (ms)", "unpatched (ms)", "ratio: median (range)"], rows, "lrrr"),
            _provenance(run),
        ]
    )


INTRODUCTION = """\
# Performance

What the extension costs, measured against what the same work costs without it. Every figure on this page is a
ratio printed by one of the benchmarks under `benchmarks/`, all built on one small harness:

- **Like with like.** Both sides of a ratio do the same work (two servers build the same result with
  `verbatim_result` and return the same bytes), or the subject is compared with the least work it cannot avoid
  (`json.loads` of the result it reads).
- **Interleaved rounds.** Each round times both sides, in alternating order, so that the load of the machine falls
  on both alike; every ratio is the median and the range of at least five rounds. Absolute times depend on the
  machine (these ran on a shared two-core machine); the ratios are what to read.
- **The collector in the same state on both sides.** Before every timed sample the collector runs a full collection
  and stays on for the sample, on both sides (the audit is also shown with it off on both). The collector is the
  caller's: a library must not switch it off behind its caller's back, so the figures with the collector on are
  the ones a host pays, and the targets are judged by them.
- **Machine-readable.** Each benchmark takes `--json FILE`; this page and its plots are generated from the committed
  files by `scripts/gen_performance.py`, which CI runs with `--check`. `--quick` runs each comparison once, which
  CI does to prove that every benchmark runs; no test asserts a timing.

![Cost per row against rows](assets/performance/cost-per-row.svg)

![Ratios against rows](assets/performance/ratios.svg)
"""

REPRODUCE = """\
## Reproducing

From the repository's root, in its environment (`scripts/bootstrap.sh`); a full run takes about half an hour:

```bash
cd benchmarks
python bench_call.py --json results/call.json
python bench_present.py --json results/present.json
python bench_audit.py --json results/audit.json
python bench_envelope.py --json results/envelope.json
python bench_patch.py --json results/patch.json
results="$PWD/results"
bash ../upstream/python-sdk/stdio-buffer/check.sh --json "$results/stdio-buffer.json"
cd .. && python scripts/gen_performance.py
```
"""


def _at(entries: Sequence[Entry], rows: int) -> Entry | None:
    return next((e for e in entries if e["rows"] == rows), None)


def _verdict(value: float, limit: float, *, at_least: bool = False) -> str:
    return "met" if (value >= limit if at_least else value <= limit) else "**not met**"


def summary(runs: dict[str, Run]) -> str:
    """Each target of the issue next to the measured median it is judged by."""
    lines: list[tuple[str, str, str]] = []
    per_call = [e for e in runs["call"]["results"] if not e["throughput"]]
    if per_call:
        worst = max(per_call, key=lambda e: e["ratio"]["median"])
        where = f"{worst['rows']:,} rows, {worst['extra']['transport']}"
        lines.append(
            (
                "a call: quickstart ÷ plain ≤ 1.2x, every size and transport",
                f"worst median {worst['ratio']['median']:.2f}x ({where})",
                _verdict(worst["ratio"]["median"], 1.2),
            )
        )
    for entry in (e for e in runs["call"]["results"] if e["throughput"]):
        lines.append(
            (
                f"{entry['name']}: throughput ≥ 0.95x",
                f"{entry['ratio']['median']:.2f}x",
                _verdict(entry["ratio"]["median"], 0.95, at_least=True),
            )
        )
    present = _entries(runs["present"], "present: text + model copy")
    if (entry := _at(present, 100_000)) is not None:
        lines.append(
            (
                "present() + json.loads ≤ 5x json.loads at 100,000 rows",
                f"{entry['ratio']['median']:.2f}x",
                _verdict(entry["ratio"]["median"], 5.0),
            )
        )
    if len(present) >= 2:
        ordered = sorted(present, key=lambda e: e["rows"])
        first, last = ordered[0], ordered[-1]
        growth = (last["subject_seconds"]["median"] / last["rows"]) / (
            first["subject_seconds"]["median"] / first["rows"]
        )
        lines.append(
            (
                "present(): cost per row flat from 1,000 to 1,000,000 rows",
                f"{growth:.2f}x the cost per row at {first['rows']:,} rows, at {last['rows']:,}",
                "see the table",
            )
        )
    audits = _entries(runs["audit"], "audit")
    # Judged with the collector on, unless the audit switched it off itself: then only "off" is like with like.
    state = "off" if any(e["extra"].get("audit_switches_collector_off") for e in audits) else "on"
    if (entry := _at([e for e in audits if e["gc"] == state], 100_000)) is not None:
        lines.append(
            (
                f"audit() ÷ json.loads at 100,000 rows, collector {state} on both sides",
                f"{entry['ratio']['median']:.2f}x",
                "",
            )
        )
    if (entry := _at(_entries(runs["envelope"], "walk, 1 MB pages"), 100_000)) is not None:
        lines.append(
            (
                "envelope ÷ json.dumps ≤ 2x at 100,000 records",
                f"{entry['ratio']['median']:.2f}x",
                _verdict(entry["ratio"]["median"], 2.0),
            )
        )
    if runs["patch"]["results"]:
        worst = max(runs["patch"]["results"], key=lambda e: e["ratio"]["median"])
        lines.append(
            (
                "SDK patch: patched ÷ unpatched ≤ 1.10x",
                f"worst median {worst['ratio']['median']:.2f}x ({worst['name']})",
                _verdict(worst["ratio"]["median"], 1.10),
            )
        )
    if runs["stdio-buffer"]["results"]:
        largest = max(runs["stdio-buffer"]["results"], key=lambda e: e["rows"])
        lines.append(
            (
                f"stdio buffer patch, one {largest['rows'] / 1e6:g} MB message: patched ÷ unpatched",
                f"{largest['ratio']['median']:.2f}x",
                "",
            )
        )
    quick = [name for name, run in runs.items() if run["quick"]]
    note = f" **Quick runs, which measure nothing: {', '.join(quick)}.**" if quick else ""
    return "\n\n".join(
        [
            "## Summary",
            "Each target next to the median it is judged by (the sections below give the ranges)." + note,
            _table(["target", "measured", "target met"], lines, "lll"),
        ]
    )


def page(runs: dict[str, Run]) -> str:
    sections = [
        INTRODUCTION,
        summary(runs),
        call_section(runs["call"]),
        present_section(runs["present"]),
        audit_section(runs["audit"]),
        envelope_section(runs["envelope"]),
        patch_section(runs["patch"]),
        stdio_section(runs["stdio-buffer"]),
        REPRODUCE,
    ]
    return "\n\n".join(section.strip("\n") for section in sections) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page or a plot is out of date")
    args = parser.parse_args(argv)
    runs = load()
    files = {
        PAGE: page(runs),
        PLOTS / "cost-per-row.svg": cost_per_row_plot(runs),
        PLOTS / "ratios.svg": ratio_plot(runs),
    }
    return write_or_check(files, check=args.check, generator=Path(__file__).name)


if __name__ == "__main__":
    sys.exit(main())
