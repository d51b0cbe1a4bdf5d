#!/usr/bin/env bash
# The framework adapters' tests, each at both ends of its extra's version range: the upper end in the framework's
# environment under .venv-reach/ (created or refreshed from interop/reach/requirements-*.txt first), the lower end in
# .venv-adapters/ (from tests/integrations/requirements-*-lowest.txt); the bad-input tests beside the suites of the
# frameworks they cover; then a strict type check of each adapter against its framework. Extra arguments go to each
# pytest run. The example servers run on the project environment.
#
#   bash scripts/test-integrations.sh            # set up, then run the stages two at a time (JOBS=N for N)
#   bash scripts/test-integrations.sh --stages   # set up, then print the stages for scripts/parallel.py
#                                                # (scripts/test.sh runs them in one pool with its other stages)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# Each adapter is named by its framework's environment; its tests are tests/integrations/test_<name>.py and its
# module python_ext/mcp_rendering/integrations/<name>.py, with "-" written "_".
WITH_LOWEST=(langchain openai-agents)  # adapters whose extra has a lower bound, tested at both ends
PINNED_ONLY=(google-adk agno strands llama-index semantic-kernel haystack crewai pydantic-ai autogen)  # no extra yet: the pinned environment only

.venv/bin/python -m interop.reach --setup "${WITH_LOWEST[@]}" "${PINNED_ONLY[@]}"

lowest_env() { # lowest_env NAME: .venv-adapters/NAME-lowest holds exactly its lock (refreshed when the lock changes)
  local lock="tests/integrations/requirements-$1-lowest.txt" env=".venv-adapters/$1-lowest" digest
  digest=$(cat "$lock" pyproject.toml | "$PY" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')
  if [ "$(cat "$env/.stamp" 2>/dev/null)" != "$digest" ]; then
    echo "mcp-rendering: installing $env from $lock..." >&2
    rm -rf "$env"
    "$PY" -m venv "$env"
    local pip=("$env/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps)
    { "${pip[@]}" -r "$lock" && "${pip[@]}" -e .; } 2>&1 | grep -v '^WARNING: Location' || true
    "$env/bin/python" -m pip check >/dev/null
    echo "$digest" >"$env/.stamp"
  fi
}

stage() { # stage NAME COMMAND...: one line for scripts/parallel.py, the command quoted for bash
  printf '%s\t' "$1"
  shift
  printf '%q ' "$@"
  printf '\n'
}
# The environments hold the frameworks, not this project: it comes from python_ext/, its servers run on .venv.
adapter_tests=(env "PYTHONPATH=$PWD/python_ext" "MCP_RENDERING_SERVER_PYTHON=$PWD/.venv/bin/python")
# --confcutdir keeps tests/conftest.py, which needs the development tools, out of these environments.
pytest_options=(-m pytest -q -p no:cacheprovider --confcutdir=tests/integrations)
# The frameworks whose environments run the bad-input tests (the file skips what an environment does not hold).
BAD_INPUT=(langchain openai-agents google-adk agno strands haystack autogen)

stages() {
  local name env file extra
  for name in "${WITH_LOWEST[@]}" "${PINNED_ONLY[@]}"; do
    file="tests/integrations/test_${name//-/_}.py"
    extra=()
    if [[ " ${BAD_INPUT[*]} " == *" $name "* ]]; then extra=(tests/integrations/test_bad_input.py); fi
    stage "adapter: $name${extra:+, bad input}" \
      "${adapter_tests[@]}" ".venv-reach/$name/bin/python" "${pytest_options[@]}" "$file" "${extra[@]}" "$@"
    if [[ " ${WITH_LOWEST[*]} " == *" $name "* ]]; then
      stage "adapter: $name, lowest versions" \
        "${adapter_tests[@]}" ".venv-adapters/$name-lowest/bin/python" "${pytest_options[@]}" "$file" "$@"
    fi
  done
  # Strict types of each adapter against its real framework (the project environment has neither framework): the
  # upper end, so the adapter's annotations hold against the newest framework it supports.
  for env in "${WITH_LOWEST[@]}" "${PINNED_ONLY[@]}"; do
    stage "adapter: $env, pyright strict" \
      .venv/bin/pyright -p ".venv-reach/pyright-$env/pyrightconfig.json"
  done
}

for name in "${WITH_LOWEST[@]}"; do
  lowest_env "$name"
done
for env in "${WITH_LOWEST[@]}" "${PINNED_ONLY[@]}"; do
  adapter="python_ext/mcp_rendering/integrations/${env//-/_}.py"
  config_dir=".venv-reach/pyright-$env"
  mkdir -p "$config_dir"
  cat > "$config_dir/pyrightconfig.json" <<JSON
{
  "include": ["../../$adapter"],
  "extraPaths": ["../../python_ext"],
  "typeCheckingMode": "strict",
  "pythonVersion": "3.10",
  "venvPath": "..",
  "venv": "$env"
}
JSON
done

if [ "${1:-}" = "--stages" ]; then
  shift
  stages "$@"
else
  stages "$@" | .venv/bin/python scripts/parallel.py --jobs "${JOBS:-2}"
fi
