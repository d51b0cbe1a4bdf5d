#!/usr/bin/env bash
# The pull request to the official MCP Python SDK, checked the way the SDK checks itself:
#   1. the pinned sdist (mcp 2.3.0, by version and sha256) is fetched once with pip into .cache/upstream/;
#   2. the committed series must be current (scripts/gen_sdk_patch.py --check), and applies with `git apply`;
#   3. the SDK's development tools are installed at the versions of its own uv.lock (constraints.txt);
#   4. ruff (check and format) and pyright run under the SDK's own configuration on every file the series adds or
#      changes; pytest (the SDK's config: warnings are errors) runs the added tests and the SDK tests of what the
#      series touches (the server runner, the extensions capability, MCP Apps, docs_src shape, docs build config),
#      with branch coverage of the added code at 100%.
# The SDK's whole suite is not run: the one existing module the series changes (src/mcp/server/runner.py) is
# covered by the test files above.
# Then, if present, the separate stdio-buffer patch's own check (upstream/python-sdk/stdio-buffer/check.sh), with
# its benchmark in --quick mode; run that script alone, without --quick, to measure.
# Exits non-zero with the reason on the first failure.
#
#   bash upstream/python-sdk/check.sh            # the whole check
#   bash upstream/python-sdk/check.sh --prepare  # only steps 1-3: the patched tree and its environment, printed as
#                                                # "TREE VENV" (upstream/conformance/check.sh serves it)
set -euo pipefail
prepare_only=false
[ "${1:-}" = "--prepare" ] && prepare_only=true
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/.cache/upstream"
tree="$cache/python-sdk-tree"
venv="$cache/python-sdk-venv"
python="${PYTHON:-python3}"

fail() {
  echo "upstream/python-sdk/check.sh: $*" >&2
  exit 1
}

# gen_sdk_patch.py --check exits 1 only for a stale series; 2 for anything else (its message says what).
status=0
"$python" "$root/scripts/gen_sdk_patch.py" --check || status=$?
case "$status" in
  0) ;;
  1) fail "the patch series is stale: run python scripts/gen_sdk_patch.py and commit the result" ;;
  *) fail "scripts/gen_sdk_patch.py --check failed with status $status (an error, not a stale series: see above)" ;;
esac
sdist="$("$python" "$root/scripts/gen_sdk_patch.py" --fetch)" || fail "could not fetch the pinned sdist (see above)"

say() { if $prepare_only; then echo "$@" >&2; else echo "$@"; fi; }
say "== applying the series to $(basename "$sdist")"
rm -rf "$tree"
mkdir -p "$tree"
tar xzf "$sdist" -C "$tree" --strip-components=1
# The tree sits inside this repository's checkout: stop git from finding it, so that `git apply` patches the tree.
export GIT_CEILING_DIRECTORIES="$cache"
for patch in "$here"/patches/*.patch; do
  (cd "$tree" && git apply --check "$patch" && git apply "$patch") || fail "$(basename "$patch") does not apply"
done

stamp="$venv/.constraints.sha256"
wanted="$(sha256sum "$here/constraints.txt" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  say "== installing the SDK's runtime and development dependencies (pinned by its uv.lock)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -c "$here/constraints.txt" \
    anyio httpx2 pydantic starlette python-multipart sse-starlette uvicorn jsonschema 'pyjwt[crypto]' \
    typing-extensions typing-inspection opentelemetry-api typer python-dotenv \
    pytest inline-snapshot dirty-equals 'coverage[toml]' pyright ruff trio pytest-examples pytest-xdist \
    pytest-pretty blockbuster logfire opentelemetry-sdk pyyaml griffelib markdown pymdown-extensions >&2 \
    || fail "pip could not install the pinned dependencies"
  echo "$wanted" >"$stamp"
fi
# The SDK's editable install, without its build backend (which needs a git checkout for its version).
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
printf '%s\n' "$tree/src" "$tree/src/mcp-types" "$tree/examples" >"$site/mcp-sdk-tree.pth"
ln -sfn "$venv" "$tree/.venv"
if $prepare_only; then
  echo "$tree $venv"
  exit 0
fi

cd "$tree"
mapfile -t changed < <(grep -h '^+++ b/' "$here"/patches/*.patch | sed 's|^+++ b/||')
python_files=()
for file in "${changed[@]}"; do
  case "$file" in *.py) python_files+=("$file") ;; esac
done
added_code=(src/mcp/shared/rendering.py src/mcp/server/rendering.py src/mcp/client/rendering.py)

echo "== ruff (the SDK's configuration)"
"$venv/bin/ruff" check "${python_files[@]}" || fail "ruff check failed"
"$venv/bin/ruff" format --check "${python_files[@]}" || fail "ruff format --check failed"

echo "== pyright (the SDK's configuration: strict)"
PYRIGHT_PYTHON_IGNORE_WARNINGS=1 "$venv/bin/pyright" "${python_files[@]}" || fail "pyright failed"

echo "== pytest (the SDK's configuration: warnings are errors) with branch coverage of the added code"
rm -f .coverage .coverage.*
pytest_log="$cache/python-sdk-pytest.txt"
if ! PYTHONWARNDEFAULTENCODING=1 "$venv/bin/coverage" run -m pytest -q -p no:cacheprovider --color=no \
  tests/server/test_rendering.py tests/client/test_rendering.py tests/docs_src/test_rendering.py \
  tests/docs_src/test_shape.py tests/docs/test_build_config.py tests/server/test_apps.py \
  tests/server/test_extensions_capability.py tests/server/test_runner.py \
  tests/server/mcpserver/test_extension.py >"$pytest_log" 2>&1; then
  grep -vE ' PASSED' "$pytest_log" | tail -n 60 >&2
  fail "pytest failed (output: $pytest_log)"
fi
grep -A1 '^Results' "$pytest_log" || true
"$venv/bin/coverage" combine --quiet >/dev/null 2>&1 || true
include="$(IFS=,; echo "${added_code[*]}")"
"$venv/bin/coverage" report --include="$include" --show-missing --fail-under=100 \
  || fail "the added code is not fully covered (branches included)"

if [ -f "$here/stdio-buffer/check.sh" ]; then
  echo "== the stdio-buffer patch (upstream/python-sdk/stdio-buffer/check.sh)"
  # Its work folder in the cache: the verified sdist is reused and its environment kept between runs.
  mkdir -p "$cache/stdio-buffer"
  [ -f "$cache/stdio-buffer/$(basename "$sdist")" ] || cp "$sdist" "$cache/stdio-buffer/"
  STDIO_BUFFER_WORK="$cache/stdio-buffer" bash "$here/stdio-buffer/check.sh" --quick || fail "upstream/python-sdk/stdio-buffer/check.sh failed"
fi
echo "upstream/python-sdk/check.sh: ok"
