#!/usr/bin/env bash
# The pull request to langchain-mcp-adapters, checked the way that project checks itself:
#   1. the committed patch must be current (scripts/gen_langchain_patch.py --check);
#   2. the pinned sdist (0.3.2, by version and sha256) is unpacked into .cache/upstream/ and the patch applies to it
#      with `git apply`;
#   3. an environment holds the runtime packages of the LangChain reach lock (langchain-core, langchain, langgraph,
#      mcp 1.x: what the release resolves to) and the project's `test` dependency group at the versions of its
#      uv.lock at the release tag (requirements-test.txt);
#   4. as its Makefile: `ruff format --diff` on langchain_mcp_adapters/ and tests/ under its pyproject.toml;
#      `ruff check` on them and mypy (commented out of its `lint` target) on the package, adding no finding to
#      the release's own; then its whole test suite as `make test` runs it
#      (pytest --disable-socket --allow-unix-socket tests/ --timeout 10).
# Exits non-zero with the reason on the first failure. A pass is recorded by the digest of its inputs, and a later
# run with the same inputs says so and stops (scripts/passed_before.py).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/.cache/upstream"
tree="$cache/langchain-mcp-adapters-tree"
venv="$cache/langchain-mcp-adapters-venv"
python="${PYTHON:-python3}"

fail() {
  echo "upstream/langchain-mcp-adapters/check.sh: $*" >&2
  exit 1
}

status=0
"$python" "$root/scripts/gen_langchain_patch.py" --check || status=$?
case "$status" in
  0) ;;
  1) fail "the patch is stale: run python scripts/gen_langchain_patch.py and commit the result" ;;
  *) fail "scripts/gen_langchain_patch.py --check failed with status $status (see above)" ;;
esac
# What the rest reads: this folder (the patch, this script, the test pins), the release's pin and the runtime lock.
# A pass with these exact inputs, on this interpreter, is not run again (scripts/passed_before.py;
# MCP_RENDERING_RECHECK=1 runs it).
inputs=("$here" "$root/scripts/gen_langchain_patch.py" "$root/interop/reach/requirements-langchain.txt")
if "$python" "$root/scripts/passed_before.py" langchain-mcp-adapters --query "${inputs[@]}"; then
  exit 0
fi
sdist="$("$python" "$root/scripts/gen_langchain_patch.py" --fetch)" || fail "could not fetch the pinned sdist"

echo "== applying the patch to $(basename "$sdist")"
rm -rf "$tree"
mkdir -p "$tree"
tar xzf "$sdist" -C "$tree" --strip-components=1
export GIT_CEILING_DIRECTORIES="$cache"  # the tree sits inside this checkout: let `git apply` patch the tree
patch="$here/patches/0001-honor-verbatim-hint.patch"
(cd "$tree" && git apply --check "$patch" && git apply "$patch") || fail "$(basename "$patch") does not apply"

lock="$root/interop/reach/requirements-langchain.txt"
stamp="$venv/.inputs.sha256"
wanted="$(cat "$lock" "$here/requirements-test.txt" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  echo "== installing the runtime packages and the project's test tools"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
  "${pip[@]}" --no-deps -r "$lock" || fail "pip could not install $lock"
  "${pip[@]}" -r "$here/requirements-test.txt" || fail "pip could not install the test tools"
  echo "$wanted" >"$stamp"
fi
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
# The released package in the environment is replaced by the patched tree.
rm -rf "$site"/langchain_mcp_adapters "$site"/langchain_mcp_adapters-*.dist-info
echo "$tree" >"$site/langchain-mcp-adapters-tree.pth"

cd "$tree"
echo "== make lint: ruff format --diff (ruff $("$venv/bin/ruff" --version | cut -d' ' -f2))"
"$venv/bin/ruff" format --no-cache langchain_mcp_adapters/ tests/ --diff || fail "ruff format"

# `ruff check` (the rest of `make lint`) reports findings in the release itself under its own version and
# configuration (CPY001, a copyright notice atop each file, and a few more), and mypy is commented out of the
# target: for both, the check is that the patch adds no finding (file, rule, message; line numbers left out).
# CPY001 is left out: no file of the release has the notice, so a new file cannot either.
findings() { # findings DIR: ruff's and mypy's findings on the project's files, without line numbers, sorted
  {
    (cd "$1" && { "$venv/bin/ruff" check --output-format concise --no-cache langchain_mcp_adapters/ tests/ || true; } |
      sed -E 's/:[0-9]+:[0-9]+:/:/')
    (cd "$1" && { "$venv/bin/mypy" --no-incremental langchain_mcp_adapters || true; } | sed -E 's/:[0-9]+: /: /')
  } | grep -E '^[^ ]+\.py:' | grep -v ' CPY001 ' | LC_ALL=C sort || true
}
pristine="$cache/langchain-mcp-adapters-pristine"
rm -rf "$pristine"
mkdir -p "$pristine"
tar xzf "$sdist" -C "$pristine" --strip-components=1
echo "== ruff check and mypy $("$venv/bin/mypy" --version | cut -d' ' -f2): findings the patch adds"
added="$(LC_ALL=C comm -13 <(findings "$pristine") <(findings "$tree"))"
[ -z "$added" ] || fail "the patch adds lint or type findings:"$'\n'"$added"
echo "== make test: pytest --disable-socket --allow-unix-socket tests/ --timeout 10"
# Its stdio tests start their servers as `python3`: the environment's, as under the project's own CI.
PATH="$venv/bin:$PATH" "$venv/bin/python" -m pytest -p no:cacheprovider --disable-socket --allow-unix-socket tests/ \
  --timeout 10 || fail "pytest"
cd "$root"
"$python" "$root/scripts/passed_before.py" langchain-mcp-adapters --record "${inputs[@]}"
echo "upstream/langchain-mcp-adapters/check.sh: all checks passed"
