#!/usr/bin/env bash
# The framework adapters' tests, each at both ends of its extra's version range: the upper end in the framework's
# environment under .venv-reach/ (created or refreshed from interop/reach/requirements-*.txt first), the lower end in
# .venv-adapters/ (from tests/integrations/requirements-*-lowest.txt); then a strict type check of each adapter
# against its framework. Extra arguments go to each pytest run. The example servers run on the project environment.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# Each adapter is named by its framework's environment; its tests are tests/integrations/test_<name>.py and its
# module python_ext/mcp_rendering/integrations/<name>.py, with "-" written "_".
WITH_LOWEST=(langchain openai-agents)  # adapters whose extra has a lower bound, tested at both ends
PINNED_ONLY=(google-adk agno strands llama-index semantic-kernel haystack crewai pydantic-ai autogen)  # no extra yet: the pinned environment only

.venv/bin/python -m interop.reach --setup "${WITH_LOWEST[@]}" "${PINNED_ONLY[@]}"
export MCP_RENDERING_SERVER_PYTHON="$PWD/.venv/bin/python"
export PYTHONPATH="$PWD/python_ext"  # the environments hold the frameworks, not this project

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

status=0
for name in "${WITH_LOWEST[@]}"; do
  file="tests/integrations/test_${name//-/_}.py"
  lowest_env "$name"
  for env in ".venv-reach/$name" ".venv-adapters/$name-lowest"; do
    echo "== $file ($env)"
    # --confcutdir keeps tests/conftest.py, which needs the development tools, out of these environments.
    "$env/bin/python" -m pytest -q -p no:cacheprovider --confcutdir=tests/integrations "$file" "$@" || status=1
  done
done

# Adapters without a lower bound of their own (no extra yet): the framework's pinned environment only.
for name in "${PINNED_ONLY[@]}"; do
  env=".venv-reach/$name"
  file="tests/integrations/test_${name//-/_}.py"
  echo "== $file ($env)"
  "$env/bin/python" -m pytest -q -p no:cacheprovider --confcutdir=tests/integrations "$file" "$@" || status=1
done

# Bad input through each return-direct adapter, in each framework's pinned environment (the file skips the
# frameworks an environment does not hold).
for env in langchain openai-agents google-adk agno strands haystack autogen; do
  echo "== tests/integrations/test_bad_input.py (.venv-reach/$env)"
  ".venv-reach/$env/bin/python" -m pytest -q -p no:cacheprovider --confcutdir=tests/integrations \
    tests/integrations/test_bad_input.py "$@" || status=1
done

# Strict types of each adapter against its real framework (the project environment has neither framework).
for env in "${WITH_LOWEST[@]}" "${PINNED_ONLY[@]}"; do
  # the upper end: the adapter's annotations hold against the newest framework it supports
  adapter="python_ext/mcp_rendering/integrations/${env//-/_}.py"
  echo "== pyright (strict) on $adapter, against .venv-reach/$env"
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
  .venv/bin/pyright -p "$config_dir/pyrightconfig.json" || status=1
done

exit "$status"
