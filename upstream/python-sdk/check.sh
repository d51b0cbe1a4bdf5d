#!/usr/bin/env bash
# The pull requests to the official MCP Python SDK (one folder each: keep-extensions, stdio-buffer, rendering, the
# last in two parts), checked the way the SDK checks itself:
#   1. every patch is current (scripts/gen_sdk_patch.py --check); the pinned sdist (mcp 2.3.0, by version and
#      sha256) is fetched once with pip into .cache/upstream/;
#   2. the SDK's runtime and development dependencies are installed at the versions of its own uv.lock
#      (constraints.txt);
#   3. per patch, on a fresh copy of the release with only its patch applied, after the earlier parts of its pull
#      request (`git apply --check`, then `git apply`): ruff (check and format) and pyright under the SDK's configuration on every Python file it adds
#      or changes (an error counts unless the pristine release has it too, on the same files); the SDK's test-quality rules (.claude/skills/test-quality/SKILL.md, AGENTS.md) on every line it
#      adds; and its test files under coverage, with the source files it adds and the test files it changes at 100%
#      (branches included);
#   4. on the release with every patch applied: the SDK's own CI command over the whole tree (`coverage run
#      -m pytest -n ...`, `coverage combine`, `coverage report` at the SDK's fail_under = 100, then
#      `strict-no-cover`), with the SDK's PYTHONWARNDEFAULTENCODING=1.
# Exits non-zero with the reason on the first failure, and prints the wall time of each step. A pass is recorded
# by the digest of its inputs, and a later run with the same inputs says so and stops (scripts/passed_before.py).
#
#   bash upstream/python-sdk/check.sh            # the whole check
#   bash upstream/python-sdk/check.sh --prepare  # only the tree with every patch and its environment,
#                                                # printed as "TREE VENV" (upstream/conformance/check.sh serves it)
# Environment: PYTHON (default python3), SDK_CHECK_WORKERS (pytest-xdist workers of step 4, default 2),
# MCP_RENDERING_RECHECK=1 (run it even if it passed with the same inputs).
set -euo pipefail
prepare_only=false
[ "${1:-}" = "--prepare" ] && prepare_only=true
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/.cache/upstream"
tree="$cache/python-sdk-tree"
venv="$cache/python-sdk-venv"
python="${PYTHON:-python3}"
workers="${SDK_CHECK_WORKERS:-2}"
started=$SECONDS

fail() {
  echo "upstream/python-sdk/check.sh: $*" >&2
  exit 1
}
say() { if $prepare_only; then echo "$@" >&2; else echo "$@"; fi; }
elapsed() { say "   ($(($SECONDS - $1)) s)"; }

# gen_sdk_patch.py --check exits 1 only for a stale patch; 2 for anything else (its message says what).
status=0
"$python" "$root/scripts/gen_sdk_patch.py" --check || status=$?
case "$status" in
  0) ;;
  1) fail "a patch is stale: run python scripts/gen_sdk_patch.py and commit the result" ;;
  *) fail "scripts/gen_sdk_patch.py --check failed with status $status (an error, not a stale patch: see above)" ;;
esac
# What the rest reads: this folder (the patches, this script, the pins) and the release's pin. A pass with these
# exact inputs, on this interpreter, is not run again (scripts/passed_before.py; MCP_RENDERING_RECHECK=1 runs it).
inputs=("$here" "$root/scripts/gen_sdk_patch.py")
if ! $prepare_only && "$python" "$root/scripts/passed_before.py" python-sdk --query "${inputs[@]}"; then
  exit 0
fi
sdist="$("$python" "$root/scripts/gen_sdk_patch.py" --fetch)" || fail "could not fetch the pinned sdist (see above)"
mapfile -t patches < <("$python" "$root/scripts/gen_sdk_patch.py" --list) # each "<folder>/<name>.patch", in order

# The tree sits inside this repository's checkout: stop git from finding it, so that `git apply` patches the tree.
export GIT_CEILING_DIRECTORIES="$cache"
fresh_tree() { # the pinned release with the named patches applied, in order
  rm -rf "$tree"
  mkdir -p "$tree"
  tar xzf "$sdist" -C "$tree" --strip-components=1
  local patch
  for patch in "$@"; do
    (cd "$tree" && git apply --check "$here/$patch" && git apply "$here/$patch") \
      || fail "$patch does not apply to $(basename "$sdist")"
  done
  ln -s "$venv" "$tree/.venv" # where the SDK's pyright configuration looks for the environment
}

# The SDK's runtime dependencies and its default dependency groups (dev and docs), at the versions of its uv.lock;
# strict-no-cover is a git dependency there, and its PyPI release is the same tool.
packages=(anyio httpx2 pydantic pydantic-settings starlette python-multipart sse-starlette uvicorn jsonschema
  'pyjwt[crypto]' typing-extensions typing-inspection opentelemetry-api typer python-dotenv rich
  pytest inline-snapshot dirty-equals 'coverage[toml]' pyright ruff trio pytest-examples pytest-xdist
  pytest-flakefinder pytest-pretty pillow blockbuster logfire opentelemetry-sdk strict-no-cover==0.1.1
  zensical mkdocstrings mkdocstrings-python pyyaml griffelib markdown pymdown-extensions)
stamp="$venv/.constraints.sha256"
wanted="$( (cat "$here/constraints.txt"; echo "${packages[*]}") | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  say "== installing the SDK's runtime and development dependencies (pinned by its uv.lock)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -c "$here/constraints.txt" "${packages[@]}" >&2 \
    || fail "pip could not install the pinned dependencies"
  echo "$wanted" >"$stamp"
fi
# The SDK's workspace packages as an editable install, without its build backend (which needs a git checkout).
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
printf '%s\n' "$tree/src" "$tree/src/mcp-types" "$tree/examples" >"$site/mcp-sdk-tree.pth"
# strict-no-cover runs `uv run coverage json`; without uv, a stand-in runs the command in this environment.
mkdir -p "$venv/uv-shim"
printf '#!/bin/sh\n[ "$1" = run ] && shift\nexec "$@"\n' >"$venv/uv-shim/uv"
chmod +x "$venv/uv-shim/uv"
export PATH="$venv/bin:$venv/uv-shim:$PATH"

if $prepare_only; then
  fresh_tree "${patches[@]}"
  echo "$tree $venv"
  exit 0
fi

pyright_errors() { # the pyright errors (SDK configuration) of the given files, one "file<TAB>rule<TAB>message" a line
  local report status=0
  report="$(PYRIGHT_PYTHON_IGNORE_WARNINGS=1 "$venv/bin/pyright" --outputjson "$@")" || status=$?
  [ "$status" -le 1 ] || fail "pyright could not run (status $status)"
  "$venv/bin/python" -c '
import json, os, sys

for found in json.load(sys.stdin)["generalDiagnostics"]:
    if found["severity"] == "error":
        print(os.path.relpath(found["file"]), found.get("rule", ""), " ".join(found["message"].split()), sep="\t")
' <<<"$report"
}

# The SDK's test-quality rules a line can break: a `match=` on message text, a fake object, a new suppression, a
# sleep, a `Test` class, `from __future__ import annotations` in a test (SKILL.md, AGENTS.md).
quality_rules='match=|SimpleNamespace|# *(type|pyright): *ignore|# *noqa|# *pragma|(time|anyio|asyncio)\.sleep\(|^class Test|^from __future__ import annotations'

for index in "${!patches[@]}"; do
  step=$SECONDS
  patch="$here/${patches[$index]}"
  request="$(basename "$patch" .patch)"
  # The earlier parts of the same pull request (same folder), which this part follows.
  base=()
  for earlier in "${patches[@]:0:$index}"; do
    [ "${earlier%%/*}" = "${patches[$index]%%/*}" ] && base+=("$earlier")
  done
  echo "== $request: applying ${patches[$index]} to $(basename "$sdist")${base[*]:+ after ${base[*]}}"
  fresh_tree "${base[@]}" "${patches[$index]}"
  cd "$tree"
  mapfile -t changed < <(grep -h '^+++ b/' "$patch" | sed 's|^+++ b/||')
  mapfile -t added < <(awk '/^--- \/dev\/null/{getline; sub(/^\+\+\+ b\//, ""); print}' "$patch")
  python_files=() tests=() measured=()
  for file in "${changed[@]}"; do
    case "$file" in
      *.py) python_files+=("$file") ;;
    esac
    case "$file" in
      tests/*test_*.py) tests+=("$file") measured+=("$file") ;;
    esac
  done
  # The source files it adds; a source file it changes is measured by step 4, with the tests of the whole tree.
  for file in "${added[@]}"; do
    case "$file" in
      src/*.py) measured+=("$file") ;;
    esac
  done
  "$venv/bin/ruff" check "${python_files[@]}" || fail "$request: ruff check failed"
  "$venv/bin/ruff" format --check "${python_files[@]}" || fail "$request: ruff format --check failed"
  pyright_errors "${python_files[@]}" >"$cache/pyright-patched.txt"
  if [ -s "$cache/pyright-patched.txt" ]; then
    # An error the pristine release shows too, on the same files, is not the patch's: pyright given single files
    # checks a module they import through the environment as a library (the SDK runs it on the whole project).
    cd "$root"
    fresh_tree "${base[@]}"
    cd "$tree"
    existing=()
    for file in "${python_files[@]}"; do [ -f "$file" ] && existing+=("$file"); done
    : >"$cache/pyright-pristine.txt"
    [ "${#existing[@]}" -gt 0 ] && pyright_errors "${existing[@]}" >"$cache/pyright-pristine.txt"
    if grep -vxFf "$cache/pyright-pristine.txt" "$cache/pyright-patched.txt"; then
      fail "$request: pyright reports the errors above, which the pristine release does not have"
    fi
    echo "   pyright: $(wc -l <"$cache/pyright-patched.txt") error(s), each present before the patch too"
    cd "$root"
    fresh_tree "${base[@]}" "${patches[$index]}"
    cd "$tree"
  fi
  added_tests="$(awk '/^\+\+\+ b\//{t=($2 ~ /^b\/tests\//)} t && /^\+[^+]/{print substr($0, 2)}' "$patch")"
  added_src="$(awk '/^\+\+\+ b\//{t=($2 !~ /^b\/tests\//)} t && /^\+[^+]/{print substr($0, 2)}' "$patch")"
  if grep -nE "$quality_rules" <<<"$added_tests" || grep -nE '# *(type|pyright): *ignore|# *noqa|# *pragma' <<<"$added_src"; then
    fail "$request: an added line breaks the SDK's test-quality rules (above)"
  fi
  log="$cache/python-sdk-$request-pytest.txt"
  "$venv/bin/coverage" erase
  if ! PYTHONWARNDEFAULTENCODING=1 "$venv/bin/coverage" run -m pytest -q -p no:cacheprovider --color=no \
    "${tests[@]}" >"$log" 2>&1; then
    grep -vE ' PASSED' "$log" | tail -n 60 >&2
    fail "$request: pytest failed (output: $log)"
  fi
  sed -n '/^Results (/,$p' "$log" | tr -s ' \n' ' '
  echo
  "$venv/bin/coverage" combine --quiet >/dev/null 2>&1 || true
  include="$(IFS=,; echo "${measured[*]}")"
  "$venv/bin/coverage" report --include="$include" --fail-under=100 \
    || fail "$request: its changed files are not fully covered by its tests (branches included)"
  cd "$root"
  elapsed "$step"
done

step=$SECONDS
echo "== every patch together: the SDK's CI command over the whole tree (pytest -n $workers)"
fresh_tree "${patches[@]}"
cd "$tree"
deselect=()
if [ "$(id -u)" = 0 ]; then
  # root reads a file whatever its mode, so the test that expects a PermissionError from a mode-000 file cannot
  # pass under root; its lines are `lax no cover`, so deselecting it changes no coverage figure.
  deselect+=(--deselect tests/server/mcpserver/resources/test_file_resources.py::test_permission_error)
fi
log="$cache/python-sdk-whole-tree-pytest.txt"
"$venv/bin/coverage" erase
if ! PYTHONWARNDEFAULTENCODING=1 "$venv/bin/coverage" run -m pytest -n "$workers" -p no:cacheprovider --color=no \
  "${deselect[@]}" >"$log" 2>&1; then
  grep -E 'FAILED|ERROR|Error' "$log" | tail -n 40 >&2
  fail "the SDK's whole suite failed (output: $log)"
fi
sed -n '/^Results (/,$p' "$log" | tr -s ' \n' ' '
echo
"$venv/bin/coverage" combine --quiet
"$venv/bin/coverage" report --format=total >"$cache/python-sdk-coverage-total.txt" || true
echo "   coverage of the whole tree: $(cat "$cache/python-sdk-coverage-total.txt")%"
"$venv/bin/coverage" report || fail "the whole tree is below the SDK's coverage gate (fail_under = 100)"
strict-no-cover || fail "strict-no-cover: a line marked 'pragma: no cover' is covered"
elapsed "$step"
cd "$root"
"$python" "$root/scripts/passed_before.py" python-sdk --record "${inputs[@]}"
echo "upstream/python-sdk/check.sh: ok ($(($SECONDS - started)) s)"
