#!/usr/bin/env bash
# The whole check, as CI runs it: set-up, generators in --check mode, lint, types, docs, tests, the release artefacts,
# then the framework adapters and the reach table in the frameworks' own pinned environments.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export PATH="$PWD/.venv/bin:$PATH"

bash scripts/check-generators.sh
echo "== python -m interop.reach --check-tables"
python -m interop.reach --check-tables

echo "== ruff"
ruff check .
ruff format --check .

echo "== pyright"
pyright

if [ -f mkdocs.yml ]; then
  echo "== mkdocs build --strict"
  # Not --quiet: the warnings that --strict fails on are the only account of why it failed.
  NO_MKDOCS_2_WARNING=1 mkdocs build --strict --site-dir "$(mktemp -d)"
fi

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

echo "== the benchmarks, each once in quick mode (proves they run; no timing is asserted)"
for benchmark in benchmarks/bench_*.py; do
  python "$benchmark" --quick
done

echo "== the release artefacts: build, twine check, install in clean environments"
bash scripts/test-package.sh

echo "== upstream/python-sdk/check.sh (the pull request to the official Python SDK)"
bash upstream/python-sdk/check.sh

echo "== upstream/langchain-mcp-adapters/check.sh (the pull request to langchain-mcp-adapters)"
bash upstream/langchain-mcp-adapters/check.sh

echo "== the framework adapters, each in its framework's environment"
bash scripts/test-integrations.sh

echo "== python -m interop.reach --check (what unmodified frameworks hand their model, re-measured)"
python -m interop.reach --check
