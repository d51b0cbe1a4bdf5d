#!/usr/bin/env bash
# Creates .venv (once) and installs the package with its pinned dev group; installs the pinned
# Node packages of every folder that commits a package-lock.json. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "bootstrap: the development tools need Python 3.11 or newer; $PY is $("$PY" -V 2>&1)." >&2
  echo "bootstrap: set PYTHON to a newer interpreter (the package itself supports 3.10)." >&2
  exit 1
fi
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
