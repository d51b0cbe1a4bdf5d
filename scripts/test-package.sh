#!/usr/bin/env bash
# The release artefacts as a user gets them: build the sdist and, from it, the wheel; `twine check --strict` both;
# install the wheel in clean environments and run its command line there: the base install (the host side and
# `audit`), the `sdk` extra (the demo), and beside the MCP SDK's 1.x line (where `demo` names what to install).
# The wheels are left in dist/ (ignored by git) for the release workflow and for a look.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== build the sdist, then the wheel from it"
rm -rf dist
.venv/bin/python -m build --outdir dist . >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
ls dist
.venv/bin/twine check --strict dist/*
# The sdist holds the package, the top-level README and the license, and nothing else (no other folder's README).
stray=$(tar -tzf dist/*.tar.gz | sed 's|^[^/]*/||' | grep -vE '^(|python_ext/mcp_rendering/.*|README\.md|LICENSE|PKG-INFO|pyproject\.toml|\.gitignore)$' || true)
if [ -n "$stray" ]; then
  echo "FAILED: the sdist holds files it should not:" >&2
  echo "$stray" >&2
  exit 1
fi
wheel=$(ls dist/*.whl)
version=$(.venv/bin/python -c 'import runpy; print(runpy.run_path("python_ext/mcp_rendering/_version.py")["__version__"])')

# A result and a transcript that audit clean, and one the transcript leaves a line out of.
printf '%s\n' '{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "one\ntwo"}]}}' >"$work/result.json"
printf 'one\ntwo\n' >"$work/shown.txt"
printf 'one\n' >"$work/short.txt"

expect() { # expect STATUS PATTERN COMMAND...: the command exits STATUS and its output matches PATTERN
  local status=$1 pattern=$2
  shift 2
  local got=0
  "$@" >"$work/out" 2>&1 || got=$?
  if [ "$got" != "$status" ] || ! grep -qE -- "$pattern" "$work/out"; then
    echo "FAILED: $* (exit $got, expected $status and /$pattern/):" >&2
    cat "$work/out" >&2
    exit 1
  fi
  echo "ok: $(basename "$1") ${*:2} -> exit $got"
}

install() { # install ENV ARGS...: a fresh environment with what ARGS name
  local env=$1
  shift
  "$PY" -m venv "$work/$env"
  "$work/$env/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 | grep -v '^WARNING: Location' || true
}

echo "== the wheel alone (base install)"
install base "$wheel" -c constraints.txt
cli="$work/base/bin/mcp-rendering"
expect 0 "^mcp-rendering $version\$" "$cli" --version
expect 2 "^usage: mcp-rendering" "$cli"
expect 0 "fidelity: clean" "$cli" audit "$work/result.json" "$work/shown.txt"
expect 1 "missing_row" "$cli" audit "$work/result.json" "$work/short.txt"
expect 2 "^mcp-rendering demo: error: it needs the MCP Python SDK 2.x: pip install 'mcp-rendering\[sdk\]'\$" "$cli" demo
expect 2 "^mcp-rendering inspect: error: it needs the MCP Python SDK 2.x: pip install 'mcp-rendering\[sdk\]'\$" \
  "$cli" inspect -- "$work/base/bin/python" -c pass
expect 0 "^ok\$" "$work/base/bin/python" -c 'import mcp_rendering; mcp_rendering.present, mcp_rendering.audit; print("ok")'

echo "== the wheel with its sdk extra"
install sdk "$wheel[sdk]" -c constraints.txt
expect 0 "fidelity: clean; score 1.000" "$work/sdk/bin/mcp-rendering" demo

echo "== the wheel beside the MCP SDK's 1.x line"
# The langchain adapter's environment is a complete lock of a 1.x SDK line.
install sdk1 "$wheel" mcp -c interop/reach/requirements-langchain.txt
expect 0 "^mcp 1\." "$work/sdk1/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))'
expect 0 "fidelity: clean" "$work/sdk1/bin/mcp-rendering" audit "$work/result.json" "$work/shown.txt"
expect 2 "^mcp-rendering demo: error: it needs the MCP Python SDK 2.x, and this environment has mcp 1\." \
  "$work/sdk1/bin/mcp-rendering" demo
