#!/usr/bin/env bash
# Creates .venv (once) and installs what a command needs, pinned by constraints.txt. Safe to run again: when
# pyproject.toml and constraints.txt are unchanged since the last install of the same kind, it installs nothing.
#
#   bootstrap.sh --demo   the package with its SDK extra: all the demo needs (Python only)
#   bootstrap.sh          everything the checks need: the dev group, and the pinned Node packages of every
#                         folder that commits a package-lock.json (npm), plus a Node >= 22.18 (scripts/node22.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full
if [ "${1:-}" = "--demo" ]; then
  mode=demo
fi

PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
  echo "bootstrap: no $PY on PATH; install Python 3.11 or newer, or set PYTHON to one." >&2
  exit 1
fi
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "bootstrap: the development tools need Python 3.11 or newer; $PY is $("$PY" -V 2>&1)." >&2
  echo "bootstrap: set PYTHON to a newer interpreter (the package itself supports 3.10)." >&2
  exit 1
fi

inputs=$(cat pyproject.toml constraints.txt | "$PY" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')
stamp=".venv/.installed-$mode"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$inputs" ]; then
  echo "mcp-rendering: installing the pinned Python dependencies into .venv ($mode; a minute on the first run)..." >&2
  if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
  fi
  pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
  # pip >= 25.1 understands PEP 735 dependency groups (--group).
  "${pip[@]}" 'pip==25.3'
  if [ "$mode" = demo ]; then
    "${pip[@]}" -e '.[sdk]' -c constraints.txt
  else
    "${pip[@]}" -e '.[sdk,fastmcp]' --group dev -c constraints.txt
    echo "$inputs" >.venv/.installed-demo # the full install holds the demo's
  fi
  echo "$inputs" >"$stamp"
fi

if [ "$mode" = demo ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "bootstrap: the checks need Node.js and npm (Node >= 22.18, or any Node with npm to fetch a pinned 22)." >&2
  exit 1
fi
for dir in schema/ts interop conformance; do
  if [ -f "$dir/package-lock.json" ] && [ ! -d "$dir/node_modules" -o "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
# Node >= 22.18 for the conformance harness and the Inspector: the machine's node, or the pinned one of
# tools/node22 (installed here on first use).
bash scripts/node22.sh >/dev/null
