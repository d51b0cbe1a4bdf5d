#!/usr/bin/env bash
# The main job: set up once, then run the demo (an example server over stdio, the reference host, the audit).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh >/dev/null
exec .venv/bin/mcp-rendering demo "$@"
