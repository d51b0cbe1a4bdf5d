#!/usr/bin/env bash
# Re-measure every benchmark in full mode, write benchmarks/results/, and regenerate the performance page, its plots
# and the figures the SEP charter quotes. Prints each step's duration and the total.
#
#   bash benchmarks/run_all.sh           (13 minutes on a quiet two-core machine, load average 0.65 at the start:
#                                         call 1.7, present 5.4, audit 3.4, envelope 1, patch 0.3, stdio-buffer 1.4)
#   bash benchmarks/run_all.sh --quick   (each benchmark in one round at its smallest size: proves the run works,
#                                         measures nothing, and writes nothing: the committed results stay as they
#                                         are; under a minute on the same machine, most of it stdio-buffer's set-up)
#
# Run it on a quiet machine: the ratios are interleaved so that load falls on both sides alike, but a busy machine
# widens every range. Each results file records the load average at its start. Results are written to a temporary
# folder first and moved into benchmarks/results/ only when every benchmark has finished, so a failed or
# interrupted run leaves the committed results as they were.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ -x .venv/bin/python ]; then
  export PATH="$root/.venv/bin:$PATH"
fi
quick=()
case "${1:-}" in
  "") ;;
  --quick) quick=(--quick) ;;
  *)
    echo "usage: bash benchmarks/run_all.sh [--quick]" >&2
    exit 2
    ;;
esac
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT

echo "run_all: load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
total_start=$SECONDS
step() {
  local name=$1
  shift
  local start=$SECONDS
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}
bench() {
  local name=$1
  shift
  step "$name" python "benchmarks/bench_$name.py" "${quick[@]}" "$@" --json "$staging/$name.json"
}
bench call
bench present --gc on off
# The sizes the audit's target names (1,000 to 100,000 rows), as bench_audit.py's default: stated for the record.
bench audit --rows 1000 10000 100000
bench envelope
bench patch
step stdio-buffer bash upstream/python-sdk/stdio-buffer/check.sh "${quick[@]}" --json "$staging/stdio-buffer.json"

if [ ${#quick[@]} -eq 0 ]; then
  mv "$staging"/*.json benchmarks/results/
  python scripts/gen_performance.py
fi
echo "run_all: every benchmark in $(((SECONDS - total_start) / 60)) min $(((SECONDS - total_start) % 60)) s"
