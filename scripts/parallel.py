"""Run the check's independent stages a few at a time: each stage's output is printed whole when it ends (never
interleaved), then a table of every stage's wall and CPU time, so that the slowest stages are known.

    python scripts/parallel.py --jobs 2 < stages.txt

Each line of standard input is a stage: its name, a tab, and a bash command, run from the current directory.
Stages start in the order given, so the longest go first. The exit status is 1 when any stage failed (each is
named in the table), 2 for input that is not a list of stages.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Outcome:
    name: str
    status: int
    wall: float
    cpu: float


_print_lock = threading.Lock()


def _cpu_seconds(times_output: str) -> float:
    """The CPU time of a command's processes from bash's `times` (its second line: the children's user and
    system time, as `0m1.250s 0m0.310s`)."""
    lines = times_output.split("\n")
    if len(lines) < 2:
        return 0.0
    total = 0.0
    for field in lines[1].split():
        minutes, _, seconds = field.rstrip("s").partition("m")
        total += int(minutes) * 60 + float(seconds)
    return total


def run_stage(name: str, command: str) -> Outcome:
    with tempfile.NamedTemporaryFile("r", suffix=".times", encoding="utf-8") as times:
        # `times` after the command counts every process the command waited for, in user and system time.
        script = f'{{ {command}\n}}; status=$?; times >{times.name!r}; exit "$status"'
        started = time.monotonic()
        done = subprocess.run(
            ["bash", "-c", script], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        wall = time.monotonic() - started
        cpu = _cpu_seconds(Path(times.name).read_text(encoding="utf-8"))
    with _print_lock:
        sys.stdout.write(f"== {name}\n")
        sys.stdout.flush()
        sys.stdout.buffer.write(done.stdout)
        verdict = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
        sys.stdout.write(f"-- {name}: {verdict} in {wall:.0f} s\n")
        sys.stdout.flush()
    return Outcome(name, done.returncode, wall, cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2, help="stages at a time (default 2)")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    stages: list[tuple[str, str]] = []
    for number, line in enumerate(sys.stdin.read().splitlines(), 1):
        if not line.strip():
            continue
        name, tab, command = line.partition("\t")
        if not tab or not name.strip() or not command.strip():
            print(f"parallel.py: line {number} is not NAME<TAB>COMMAND: {line!r}", file=sys.stderr)
            return 2
        stages.append((name.strip(), command))
    started = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(lambda stage: run_stage(*stage), stages))
    print(f"\n{'stage':<60} {'wall s':>7} {'CPU s':>7}")
    for outcome in outcomes:
        mark = "" if outcome.status == 0 else "  FAILED"
        print(f"{outcome.name:<60} {outcome.wall:>7.0f} {outcome.cpu:>7.0f}{mark}")
    print(f"{f'{len(outcomes)} stages, {args.jobs} at a time':<60} {time.monotonic() - started:>7.0f}")
    failed = [outcome.name for outcome in outcomes if outcome.status != 0]
    if failed:
        print(f"parallel.py: failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
