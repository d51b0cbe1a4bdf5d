#!/usr/bin/env bash
# Creates .venv (once) and installs the package with its pinned dev group; installs the pinned
# Node packages of every folder that commits a package-lock.json. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# pip >= 25.1 understands PEP 735 dependency groups (--group).
.venv/bin/python -m pip install --quiet --disable-pip-version-check 'pip==25.3'
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e . --group dev -c constraints.txt

for dir in schema/ts interop; do
  if [ -f "$dir/package-lock.json" ] && [ ! -d "$dir/node_modules" -o "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
