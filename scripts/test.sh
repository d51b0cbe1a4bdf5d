#!/usr/bin/env bash
# The whole check, as CI runs it: set-up, generators in --check mode, lint, types, docs, tests, the release artefacts,
# then the framework adapters and the reach table in the frameworks' own pinned environments.
#
# Independent stages run two at a time (scripts/parallel.py; CI has two cores), the last pool three, each one's
# output printed whole when it ends, then a table of their wall and CPU times. The quick stages come first, so that a stale generator or a lint
# error fails in a minute; pytest, with the conformance check beside it, next; then everything else in one pool.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/.venv/bin:$PATH"

echo "== the quick stages: generators, lint, types, docs"
python scripts/parallel.py --jobs 2 <<'STAGES'
pyright	pyright
generators (--check)	bash scripts/check-generators.sh && python -m interop.reach --check-tables
ruff	ruff check . && ruff format --check .
mkdocs build --strict	NO_MKDOCS_2_WARNING=1 mkdocs build --strict --site-dir "$(mktemp -d)"
STAGES
# mkdocs is not --quiet: the warnings that --strict fails on are the only account of why it failed.

# The conformance check mostly waits on npm and on its servers: it runs beside pytest, its output kept for later.
# In a session of its own, so that an early exit (a failing stage) stops it with its servers and npm.
conformance_log=$(mktemp)
setsid bash upstream/conformance/check.sh >"$conformance_log" 2>&1 </dev/null &
conformance_pid=$!
trap 'kill -- "-$conformance_pid" 2>/dev/null || true; rm -f "$conformance_log"' EXIT

echo "== pytest (Hypothesis profile ${HYPOTHESIS_PROFILE:-ci}; two workers, one test file per worker at a time)"
# The bounded, derandomized profile by default, as in CI; HYPOTHESIS_PROFILE=thorough explores widely.
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
python -m pytest -n 2 --dist loadfile "$@"

echo "== upstream/conformance/check.sh (the pull request to the conformance suite; ran beside pytest)"
conformance_status=0
wait "$conformance_pid" || conformance_status=$?
cat "$conformance_log"
if [ "$conformance_status" != 0 ]; then
  echo "test.sh: upstream/conformance/check.sh failed (exit $conformance_status)" >&2
  exit "$conformance_status"
fi

echo "== the frameworks' environments (set up or refreshed from their locks)"
python -m interop.reach --setup
integration_stages=$(bash scripts/test-integrations.sh --stages)

echo "== the upstream pull requests, the release artefacts, the benchmarks, the adapters and the reach table"
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
    "the release artefacts: build, twine check, install in clean environments" "bash scripts/test-package.sh" \
    "the benchmarks, each once in quick mode" 'for b in benchmarks/bench_*.py; do python "$b" --quick || exit; done'
  echo "$integration_stages"
} | python scripts/parallel.py --jobs 3 # these stages wait on servers part of the time: two left a core idle a sixth of it
