#!/usr/bin/env bash
# The framework adapters' tests, each in its framework's own environment under .venv-reach/ (created or refreshed
# from interop/reach/requirements-*.txt first), then a strict type check of each adapter against its framework.
# Extra arguments go to each pytest run. The example servers run on the project environment (.venv).
set -euo pipefail
cd "$(dirname "$0")/.."

.venv/bin/python -m interop.reach --setup langchain openai-agents
export MCP_RENDERING_SERVER_PYTHON="$PWD/.venv/bin/python"
export PYTHONPATH="$PWD/python_ext"  # the environments hold the frameworks, not this project

status=0
for pair in langchain:test_langchain.py openai-agents:test_openai_agents.py; do
  env="${pair%%:*}"
  file="tests/integrations/${pair#*:}"
  echo "== $file (.venv-reach/$env)"
  # --confcutdir keeps tests/conftest.py, which needs the development tools, out of these environments.
  ".venv-reach/$env/bin/python" -m pytest -q -p no:cacheprovider --confcutdir=tests/integrations "$file" "$@" \
    || status=1
done

# Strict types of each adapter against its real framework (the project environment has neither framework).
for pair in langchain:langchain.py openai-agents:openai_agents.py; do
  env="${pair%%:*}"
  adapter="python_ext/mcp_rendering/integrations/${pair#*:}"
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
