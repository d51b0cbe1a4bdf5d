#!/usr/bin/env bash
# The stdio-client buffer fix for the Python SDK, checked end to end: fetch the mcp 2.3.0 sdist (pinned by version
# and hash), apply stdio-buffer.patch with `git apply`, run the SDK's own tests that cover the stdio client on the
# patched source, then the benchmark against the unpatched source.
#
#   check.sh [--quick] [--json FILE]   --quick: the benchmark once, at 1 MB (what upstream/python-sdk/check.sh
#                                      runs); without it, the full measurement; --json: its results, machine-readable
#
# Environment: PYTHON (default python3, 3.11 or newer); STDIO_BUFFER_WORK, a folder to work in (default: a fresh
# temporary one, removed afterwards).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
VERSION=2.3.0
SHA256=8b147a50441cf059dc88c684e0aeed3687f0aa0f39c6cde7b90330effd2b34d8
PY=${PYTHON:-python3}

work=${STDIO_BUFFER_WORK:-}
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

sdist="$work/mcp-$VERSION.tar.gz"
if [ ! -f "$sdist" ]; then
  "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: "mcp==$VERSION" -d "$work"
fi
echo "$SHA256  $sdist" | sha256sum --check --quiet

rm -rf "$work/unpatched" "$work/patched"
mkdir -p "$work/unpatched" "$work/patched"
tar -xzf "$sdist" -C "$work/unpatched" --strip-components=1
tar -xzf "$sdist" -C "$work/patched" --strip-components=1
# `git apply` checks the whole patch before changing anything, and refuses fuzz. The ceiling stops git from
# finding an enclosing checkout (STDIO_BUFFER_WORK may sit inside one), which would make it patch nothing.
(cd "$work/patched" && GIT_CEILING_DIRECTORIES="$work" git apply --check "$here/stdio-buffer.patch" \
  && GIT_CEILING_DIRECTORIES="$work" git apply "$here/stdio-buffer.patch") \
  || { echo "stdio-buffer/check.sh: stdio-buffer.patch does not apply to mcp $VERSION" >&2; exit 1; }
grep -q 'pending: list\[str\] = \[\]' "$work/patched/src/mcp/client/stdio.py" \
  || { echo "stdio-buffer/check.sh: the patched tree lacks the fix" >&2; exit 1; }

if [ ! -x "$work/venv/bin/python" ]; then
  "$PY" -m venv "$work/venv"
fi
pip=("$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" --no-deps -r "$here/requirements.txt"
"${pip[@]}" --no-deps --force-reinstall "$work/patched"

echo "== the SDK's stdio-client tests, on the patched SDK"
(cd "$work/patched" && "$work/venv/bin/python" -m pytest -q -p no:cacheprovider -o addopts="-p anyio" \
  tests/client/test_stdio.py tests/transports/stdio tests/interaction/transports/test_stdio.py)

echo "== the benchmark: patched against unpatched"
"$work/venv/bin/python" "$here/bench_stdio_buffer.py" --unpatched "$work/unpatched/src" --patched "$work/patched/src" "$@"
