#!/usr/bin/env bash
# The whole check, as CI runs it: set-up, generators in --check mode, lint, types, docs, tests, the release artefacts,
# then the framework adapters and the reach table in the frameworks' own pinned environments.
#
# Independent stages run two at a time (scripts/parallel.py; CI has two cores), the last pool three, each one's
# output printed whole when it ends, then a table of their wall and CPU times. The quick stages come first, so that
# a stale generator or a lint error fails in a minute; pytest, with the conformance check beside it, next; then
# everything else in one pool. The frameworks' environments and the release artefacts are made beside the first two.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/.venv/bin:$PATH"

# Jobs beside the stages, each in a session of its own so that an early exit (a failing stage) stops it with its
# children; the output of each is kept and printed when the check waits for it.
logs=$(mktemp -d)
declare -A beside=()
trap 'for pid in "${beside[@]}"; do kill -- "-$pid" 2>/dev/null || true; done; rm -rf "$logs"' EXIT
start_beside() { # start_beside NAME COMMAND...
  setsid "${@:2}" >"$logs/$1" 2>&1 </dev/null &
  beside[$1]=$!
}
wait_for() { # wait_for NAME TITLE: print the job's output; stop the check if it failed
  local status=0
  wait "${beside[$1]}" || status=$?
  unset "beside[$1]"
  echo "== $2"
  cat "$logs/$1"
  if [ "$status" != 0 ]; then
    echo "test.sh: $2 failed (exit $status)" >&2
    exit "$status"
  fi
}

# The frameworks' environments are mostly downloads and file writes: they are made while the stages below run.
# Their set-up prints the adapter stages last (scripts/test-integrations.sh --stages), kept for the last pool.
start_beside environments bash -c \
  'python -m interop.reach --setup >&2 && bash scripts/test-integrations.sh --stages >"$0"' "$logs/stages"
# The release artefacts mostly wait on builds and installs (a third of their time on a core): beside the stages too.
start_beside package bash scripts/test-package.sh

echo "== the quick stages: generators, lint, types, docs"
python scripts/parallel.py --jobs 2 <<'STAGES'
pyright	pyright
generators (--check)	bash scripts/check-generators.sh && python -m interop.reach --check-tables
ruff	ruff check . && ruff format --check .
mkdocs build --strict	NO_MKDOCS_2_WARNING=1 mkdocs build --strict --site-dir "$(mktemp -d)"
STAGES
# mkdocs is not --quiet: the warnings that --strict fails on are the only account of why it failed.

# The conformance check mostly waits on npm and on its servers: it runs beside pytest.
start_beside conformance bash upstream/conformance/check.sh

echo "== pytest (Hypothesis profile ${HYPOTHESIS_PROFILE:-ci}; two workers, one test file per worker at a time)"
# The bounded, derandomized profile by default, as in CI; HYPOTHESIS_PROFILE=thorough explores widely.
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
python -m pytest -n 2 --dist loadfile "$@"

wait_for conformance "upstream/conformance/check.sh (the pull request to the conformance suite; ran beside pytest)"
wait_for environments "the frameworks' environments (set up or refreshed from their locks; made beside the stages above)"
wait_for package "the release artefacts: build, twine check, install in clean environments (made beside the stages above)"
integration_stages=$(cat "$logs/stages")

echo "== the upstream pull requests, the benchmarks, the adapters and the reach table"
# The longest first. The benchmarks run once each in quick mode: that proves they run; no timing is asserted.
# An upstream pull request's check that passed with the same inputs (its folder and pins) says so and stops
# (scripts/passed_before.py); MCP_RENDERING_RECHECK=1 runs it anyway.
{
  printf '%s\t%s\n' \
    "upstream/python-sdk/check.sh (the pull requests to the official Python SDK)" "bash upstream/python-sdk/check.sh" \
    "python -m interop.reach --check (what unmodified frameworks hand their model, re-measured)" \
    "python -m interop.reach --check" \
    "upstream/langchain-mcp-adapters/check.sh (the pull request to langchain-mcp-adapters)" \
    "bash upstream/langchain-mcp-adapters/check.sh" \
    "the benchmarks, each once in quick mode" 'for b in benchmarks/bench_*.py; do python "$b" --quick || exit; done'
  echo "$integration_stages"
} | python scripts/parallel.py --jobs 3 # these stages wait on servers part of the time: two left a core idle a sixth of it
