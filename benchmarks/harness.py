"""The small harness every benchmark shares: interleaved rounds, the collector in one state on both sides, ratios.

A comparison times a *subject* against a *baseline* doing the same work (or the least work the subject cannot
avoid, such as `json.loads` of the result it reads). Each round times both, in alternating order so that drift in
the machine's load falls on both alike, and yields one ratio; a benchmark reports the median and the range of the
ratios of at least five rounds, with the median time of each side. Where one run takes only milliseconds, each
side's time in a round is the median of several runs, alternating run by run (`runs_for`). Before every timed
sample the collector runs a full collection and is then left on or switched off for the sample, the same on both
sides (``gc`` of the comparison), so that neither side pays for garbage the other left behind.

Every benchmark takes ``--quick`` (one round at small sizes: proves it runs, measures nothing) and ``--json PATH``
(writes what it printed, machine-readable; the performance page is generated from these files).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

GcState = Literal["on", "off"]
MIN_ROUNDS = 5
RESULTS = Path(__file__).resolve().parent / "results"
"""Where the committed full runs live: a quick run is never written there."""


@contextmanager
def collector(state: GcState) -> Iterator[None]:
    """A full collection, then the collector on or off for the block; its prior state restored afterwards."""
    was_enabled = gc.isenabled()
    gc.collect()
    if state == "on":
        gc.enable()
    else:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def settle() -> None:
    """A full collection, then every object still alive (the imported modules, the benchmark's inputs) moved out of
    the collector's reach for good (`gc.freeze`), on both sides alike: a full collection before a sample then
    scans only what was made since, in milliseconds instead of the few hundred a process holding an SDK takes.
    Call it once set-up is done, in a benchmark whose samples are many and short."""
    gc.collect()
    gc.freeze()


def timed(work: Callable[[], object], state: GcState) -> float:
    """Seconds one call of `work` takes, the collector in `state`."""
    with collector(state):
        begin = time.perf_counter()
        work()
        return time.perf_counter() - begin


@dataclass(frozen=True)
class Spread:
    """The median and the range of a set of samples."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, samples: Sequence[float]) -> Spread:
        return cls(statistics.median(samples), min(samples), max(samples))


@dataclass
class Result:
    """One comparison at one size: times in seconds, the ratio subject / baseline per round."""

    benchmark: str
    name: str
    subject: str
    baseline: str
    rows: int
    gc: GcState
    rounds: int
    subject_seconds: Spread
    baseline_seconds: Spread
    ratio: Spread
    extra: dict[str, Any] = field(default_factory=lambda: {})
    throughput: bool = False
    """When True, `ratio` is of throughputs (baseline time ÷ subject time: higher is better), not of times."""

    def line(self) -> str:
        if self.extra.get("unit") == "byte":  # `rows` counts bytes: the cost per megabyte reads better
            per = f"{self.subject_seconds.median / self.rows * 1e9 if self.rows else 0.0:>8.2f} ms/MB "
        else:
            per = f"{self.subject_seconds.median / self.rows * 1e6 if self.rows else 0.0:>8.2f} µs/row"
        return (
            f"  {self.name:<34} {self.rows:>9,}  gc {self.gc:<3}  {self.subject_seconds.median * 1e3:>10.2f} ms "
            f"{self.baseline_seconds.median * 1e3:>10.2f} ms  {per}  "
            f"{'throughput' if self.throughput else 'ratio'} {self.ratio.median:5.2f}x "
            f"[{self.ratio.low:.2f}-{self.ratio.high:.2f}] ({self.rounds} rounds)"
        )


def header(count: str = "rows") -> str:
    """The column heads of `Result.line`; `count` names what the size counts."""
    return (
        f"  {'comparison':<34} {count:>9}  {'':6}  {'subject':>13} {'baseline':>13}  {'subject per':>14}  "
        "ratio: median [range]"
    )


def ratio_of(
    benchmark: str,
    name: str,
    rows: int,
    subject: tuple[str, Callable[[], object]],
    baseline: tuple[str, Callable[[], object]],
    *,
    rounds: int,
    state: GcState = "on",
    extra: dict[str, Any] | None = None,
    warmup: Callable[[], object] | None = None,
    runs: int = 1,
) -> Result:
    """Time `subject` against `baseline` in `rounds` interleaved rounds, after one untimed run of each (or of
    `warmup`, the same work on a small input, where a run at full size would cost more than it tells). With `runs`,
    each side's time in a round is the median of that many runs, the two sides alternating run by run: a run of a
    few milliseconds alone is at the mercy of the scheduler (see `runs_for`)."""
    subject_name, subject_work = subject
    baseline_name, baseline_work = baseline
    if warmup is None:
        subject_work()
        baseline_work()
    else:
        warmup()
    subject_times: list[float] = []
    baseline_times: list[float] = []
    for number in range(rounds):
        subject_runs: list[float] = []
        baseline_runs: list[float] = []
        sides = [(baseline_work, baseline_runs), (subject_work, subject_runs)]
        if number % 2:
            sides.reverse()
        for _ in range(runs):
            for work, times in sides:
                times.append(timed(work, state))
        subject_times.append(statistics.median(subject_runs))
        baseline_times.append(statistics.median(baseline_runs))
    ratios = [s / b for s, b in zip(subject_times, baseline_times, strict=True)]
    return Result(
        benchmark,
        name,
        subject_name,
        baseline_name,
        rows,
        state,
        rounds,
        Spread.of(subject_times),
        Spread.of(baseline_times),
        Spread.of(ratios),
        extra or {},
    )


def runs_for(rows: int, *, quick: bool) -> int:
    """How many runs each side's time in a round of `ratio_of` is the median of, at `rows` rows: 10,000 // rows, from
    25 below 400 rows down to one from 5,001 rows up (ten at 1,000), so that a run of a few milliseconds is not
    alone; one in a quick run, which measures nothing (each run starts with a full collection)."""
    return 1 if quick else max(1, min(25, 10_000 // max(rows, 1)))


def from_ratios(
    benchmark: str,
    name: str,
    rows: int,
    subject_name: str,
    baseline_name: str,
    pairs: Sequence[tuple[float, float]],
    *,
    state: GcState = "on",
    throughput: bool = False,
    extra: dict[str, Any] | None = None,
) -> Result:
    """A `Result` from (subject, baseline) measurements taken elsewhere, one pair per interleaved round; with
    `throughput`, the ratio is of throughputs (baseline ÷ subject)."""
    subject_times = [s for s, _ in pairs]
    baseline_times = [b for _, b in pairs]
    return Result(
        benchmark,
        name,
        subject_name,
        baseline_name,
        rows,
        state,
        len(pairs),
        Spread.of(subject_times),
        Spread.of(baseline_times),
        Spread.of([b / s if throughput else s / b for s, b in pairs]),
        extra or {},
        throughput,
    )


def parser(description: str) -> argparse.ArgumentParser:
    """The options every benchmark takes: --quick, --rounds, --json."""
    options = argparse.ArgumentParser(description=description)
    options.add_argument("--quick", action="store_true", help="one round at small sizes: proves it runs")
    options.add_argument("--rounds", type=int, default=MIN_ROUNDS, help=f"interleaved rounds (at least {MIN_ROUNDS})")
    options.add_argument("--json", type=Path, help="also write the results to this file")
    return options


def rounds_of(options: argparse.Namespace) -> int:
    """The rounds the options ask for; refuses, before anything runs, a quick run aimed at the committed results."""
    if options.quick:
        path: Path | None = getattr(options, "json", None)
        if path is not None and path.resolve().parent == RESULTS:
            raise SystemExit(f"--quick measures nothing: not writing {path} over the committed results")
        return 1
    if options.rounds < MIN_ROUNDS:
        raise SystemExit(f"--rounds: at least {MIN_ROUNDS}, for a median and a range (or --quick)")
    return int(options.rounds)


def _commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}+dirty" if dirty else head


COMMIT = _commit()
"""The commit measured: read when the run starts, before any later change to the working tree."""

STARTED = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
"""When the run started (UTC)."""

LOAD_AT_START = [round(load, 2) for load in os.getloadavg()]
"""The machine's load average over 1, 5 and 15 minutes when the run started: above the CPU count, other work
shared the machine and the times (less so the interleaved ratios) are noisier."""


def write(path: Path | None, benchmark: str, results: Sequence[Result], *, quick: bool, **more: Any) -> None:
    """Write `results` (and any `more` members) as JSON to `path` (nothing when None), with what a reader needs to
    weigh them."""
    if path is None:
        return
    if quick and path.resolve().parent == RESULTS:
        raise SystemExit(f"--quick measures nothing: not writing {path} over the committed results")
    document = {
        "benchmark": benchmark,
        "commit": COMMIT,
        "quick": quick,
        "rounds": max((result.rounds for result in results), default=0),
        "started": STARTED,
        "load_average_at_start": LOAD_AT_START,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpus": os.cpu_count(),
        "results": [asdict(result) for result in results],
        **more,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def in_child(script: str, arguments: Sequence[str]) -> Any:
    """Run `script` with `arguments` in a fresh interpreter and return the JSON it prints last: a size measured in
    a process of its own starts from the same heap as every other, and gives its memory back when done."""
    child = subprocess.run(
        [sys.executable, script, *arguments], capture_output=True, text=True, check=False, cwd=Path(script).parent
    )
    if child.returncode != 0:
        sys.stderr.write(child.stderr)
        raise SystemExit(f"{Path(script).name} {' '.join(arguments)}: exit status {child.returncode}")
    return json.loads(child.stdout.strip().splitlines()[-1])


def print_for_parent(results: Sequence[Result]) -> None:
    """Print `results` as the JSON line `in_child` returns to the parent process."""
    print(json.dumps([asdict(result) for result in results]))


def result_from(data: dict[str, Any]) -> Result:
    """A `Result` back from its JSON form (as a child process printed it)."""
    spreads = {key: Spread(**data[key]) for key in ("subject_seconds", "baseline_seconds", "ratio")}
    return Result(**{**data, **spreads})
