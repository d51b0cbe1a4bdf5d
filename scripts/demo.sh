#!/usr/bin/env bash
# The main job: set up once (Python only), then run the demo: an example server over stdio, the reference host,
# and the fidelity audit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --demo
exec .venv/bin/mcp-rendering demo "$@"
