#!/usr/bin/env bash
# The pull requests to the MCP conformance suite, checked with the suite's own tools:
#   1. the committed patches are current (scripts/gen_conformance_patch.py --check); on a checkout without the
#      suite's source at the pinned commit, this check says so in one line and stops, successfully;
#   2. 0001-rendering-scenarios.patch applies alone with `git apply`, and the suite's own checks pass on it:
#      `npm ci`, `npm run build`, `npm run check` (typecheck, eslint, prettier), the whole `npm test` (vitest: the
#      rendering scenarios against the everything-server and everything-client, and against a broken server and a
#      broken client, for every check id), and `list` names no rendering scenario (they are in no suite but their
#      own opt-in one);
#   3. 0002-result-continuation-scenarios.patch applies on top; build, check and its vitest files pass;
#   4. the CLI passes rendering-server against the everything-server under 2025-11-25 and 2026-07-28 and through
#      `--suite rendering`, and judges the project's financial example server (built on the Python SDK), whose
#      lack of the fixture tools is untestable, as its baseline says;
#   5. the CLI passes rendering-client with the everything-client (both versions, and `--suite rendering`) and with
#      the project's reference host;
#   6. the CLI passes result-continuation-server against the project's paging example servers, whose tokens live
#      15 seconds and which accept a bearer credential as a principal, given to the scenario with --bearer-token,
#      so that the expired-token and context checks are observed; and result-continuation-client against the
#      reference host.
# Known failures are listed, with their reasons, in expected-failures/<run>.yml (the suite's baseline format; an
# entry that starts passing fails the run until it is removed). Every CLI run is made; the check fails at the end
# when one of them failed.
# Steps 2 and 3 read only the suite, the patches, this script, Node and npm: a pass of theirs is recorded by the
# digest of those (scripts/passed_before.py), and a later run with the same inputs builds the suite without checking
# it again (MCP_RENDERING_RECHECK=1 checks it anyway). Steps 4 to 6 read the project's servers and host: they run
# every time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="$root/.cache/upstream"
tree="$cache/conformance-tree"
python="${PYTHON:-python3}"
project_python="$root/.venv/bin/python"
versions=(2025-11-25 2026-07-28)

fail() {
  echo "upstream/conformance/check.sh: $*" >&2
  exit 1
}

patch_status=0
"$python" "$root/scripts/gen_conformance_patch.py" --check 2>/dev/null || patch_status=$?
case "$patch_status" in
  0) ;;
  1) fail "the patches are stale: run scripts/gen_conformance_patch.py" ;;
  3)
    echo "upstream/conformance/check.sh: skipped: the conformance suite's source (conformance-c321dd3.tar.gz) is not beside this checkout; set CONFORMANCE_SNAPSHOT to it to run this check"
    exit 0
    ;;
  *) "$python" "$root/scripts/gen_conformance_patch.py" --check || true
     fail "could not check the patches (gen_conformance_patch.py exited $patch_status; its message is above)" ;;
esac
snapshot="$("$python" "$root/scripts/gen_conformance_patch.py" --snapshot)" || fail "no suite snapshot"
[ -x "$project_python" ] || fail "no $project_python: run scripts/bootstrap.sh first"
node22="$(bash "$root/scripts/node22.sh")" || fail "no Node >= 22.18"
export PATH="$(dirname "$node22"):$PATH"
logs="$cache/conformance-logs"
rm -rf "$logs" "$tree"
mkdir -p "$logs" "$tree"
tar xzf "$snapshot" -C "$tree" --strip-components=1
# The tree sits inside this repository's checkout: stop git from finding it, so that `git apply` patches the tree.
export GIT_CEILING_DIRECTORIES="$cache"
apply() {
  (cd "$tree" && git apply --check "$here/patches/$1" && git apply "$here/patches/$1") || fail "$1 does not apply"
}
# build_and_check LABEL VITEST_LABEL [VITEST_ARGS...]: build always; check and vitest unless they passed before.
build_and_check() {
  local label="$1"
  shift
  npm run --silent build >/dev/null || fail "npm run build failed ($label)"
  $suite_checked && return
  npm run --silent check || fail "npm run check failed ($label)"
  vitest "$@"
}
vitest() { # label, then the vitest arguments; in its own process group, as some tests leave servers running
  local label="$1" status=0
  shift
  setsid npx vitest run "$@" >"$logs/$label.txt" 2>&1 &
  local pid=$!
  wait "$pid" || status=$?
  kill -- "-$pid" 2>/dev/null || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$logs/$label.txt" >&2
    fail "vitest failed: $label (output: $logs/$label.txt)"
  fi
  sed 's/\x1b\[[0-9;]*m//g' "$logs/$label.txt" | grep -E '^ *(Test Files|Tests) ' || true
}

{ node --version && npm --version; } >"$cache/conformance-tools"
suite_inputs=("$here/patches" "$here/check.sh" "$snapshot" "$cache/conformance-tools")
suite_checked=false
if "$python" "$root/scripts/passed_before.py" conformance-suite --query "${suite_inputs[@]}"; then
  suite_checked=true
fi

checks="check, npm test"
$suite_checked && checks="its checks passed before"
echo "== 0001-rendering-scenarios.patch alone: npm ci, build, $checks"
apply 0001-rendering-scenarios.patch
cd "$tree"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error || fail "npm ci failed"
build_and_check "rendering patch" npm-test-rendering
node dist/index.js list >"$logs/list.txt"
if grep -q rendering "$logs/list.txt"; then fail "a rendering scenario is listed outside its opt-in suite"; fi

checks="check, its vitest files"
$suite_checked && checks="its checks passed before"
echo "== 0002-result-continuation-scenarios.patch on top: build, $checks"
apply 0002-result-continuation-scenarios.patch
build_and_check "result continuation patch" npm-test-continuation src/scenarios/server/result-continuation.test.ts \
  src/scenarios/client/result-continuation.test.ts src/scenarios/server/repeated-members.test.ts
node dist/index.js list >"$logs/list.txt"
if grep -q continuation "$logs/list.txt"; then fail "a continuation scenario is listed outside its opt-in suite"; fi
$suite_checked || "$python" "$root/scripts/passed_before.py" conformance-suite --record "${suite_inputs[@]}"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for_port() {
  "$python" - "$1" <<'EOF' || fail "the server on port $1 did not start (log: $2)"
import socket, sys, time
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.2)
sys.exit(1)
EOF
}
declare -A server_urls
start_server() { # name, then the command (PORT in an argument becomes the port; the PORT variable is set too)
  local name="$1" port
  shift
  port="$(free_port)"
  PORT="$port" setsid "${@//PORT/$port}" >"$logs/$name.log" 2>&1 &
  pids+=("$!")
  wait_for_port "$port" "$logs/$name.log"
  server_urls[$name]="http://127.0.0.1:$port/mcp"
}
start_server everything npx tsx examples/servers/typescript/everything-server.ts
# The example servers sign continuation tokens with a secret every replica shares; they refuse HTTP without one.
export MCP_RENDERING_EXAMPLE_SECRET="${MCP_RENDERING_EXAMPLE_SECRET:-conformance-run-$RANDOM-$RANDOM-$$}"
start_server financial "$project_python" -m mcp_rendering.examples.financial --http 127.0.0.1:PORT
# The paging servers: tokens that expire within the time the result-continuation-server scenario waits (20 s), and
# one bearer credential accepted as a principal beside anonymous callers, given to the scenario through the
# runner's --bearer-token (a fresh one per run), so that every check is observed.
bearer="conformance-bearer-$("$python" -c 'import secrets; print(secrets.token_hex(16))')"
for example in screening orgchart; do
  start_server "$example" env MCP_RENDERING_EXAMPLE_TOKEN_TTL=15 MCP_RENDERING_EXAMPLE_BEARER="$bearer" \
    "$project_python" -m "mcp_rendering.examples.$example" --http 127.0.0.1:PORT
done

failed_runs=()
run_cli() { # label, then the CLI arguments; its baseline is expected-failures/<label>.yml when there is one
  local label="$1"
  shift
  local args=("$@" --output-dir "$logs/results")
  [ -f "$here/expected-failures/$label.yml" ] && args+=(--expected-failures "$here/expected-failures/$label.yml")
  if node dist/index.js "${args[@]}" >"$logs/$label.txt" 2>&1; then
    echo "   ok   $label"
  else
    echo "   FAIL $label (output: $logs/$label.txt)"
    sed 's/\x1b\[[0-9;]*m//g' "$logs/$label.txt" | grep -E 'FAILURE|WARNING|Unexpected|Stale|stale|Error' | head -n 20 || true
    failed_runs+=("$label")
  fi
}
observed() { # label, check id: the check ran and passed (it is not left untestable where it can be observed)
  # Not grep -q in a pipe: it can end the pipe early, which pipefail reports as a failure.
  sed 's/\x1b\[[0-9;]*m//g' "$logs/$1.txt" | grep -E "\[$2 +\] SUCCESS" >/dev/null || {
    echo "   FAIL $1: $2 was not observed passing"
    failed_runs+=("$1:$2")
  }
}
everything_client="npx tsx examples/clients/typescript/everything-client.ts"

echo "== rendering-server"
for version in "${versions[@]}"; do
  for name in everything financial; do
    run_cli "rendering-server-$name-$version" server --url "${server_urls[$name]}" --scenario rendering-server \
      --spec-version "$version" --force
  done
done
run_cli rendering-server-everything-suite server --url "${server_urls[everything]}" --suite rendering

echo "== rendering-client"
for version in "${versions[@]}"; do
  run_cli "rendering-client-everything-$version" client --scenario rendering-client --spec-version "$version" \
    --force --command "$everything_client"
  run_cli "rendering-client-reference-host-$version" client --scenario rendering-client --spec-version "$version" \
    --force --command "$project_python $here/clients/reference_host.py"
done
run_cli rendering-client-everything-suite client --suite rendering --command "$everything_client"

echo "== result-continuation-server"
for version in "${versions[@]}"; do
  for name in screening orgchart; do
    run_cli "continuation-server-$name-$version" server --url "${server_urls[$name]}" \
      --scenario result-continuation-server --spec-version "$version" --force --bearer-token "$bearer"
    for id in continuation-server-token-bound-to-context continuation-server-rejects-expired-token; do
      observed "continuation-server-$name-$version" "$id"
    done
  done
done

echo "== result-continuation-client"
for version in "${versions[@]}"; do
  run_cli "continuation-client-reference-host-$version" client --scenario result-continuation-client \
    --spec-version "$version" --force --command "$project_python $here/clients/reference_host.py"
done

[ "${#failed_runs[@]}" -eq 0 ] || fail "failed: ${failed_runs[*]}"
echo "upstream/conformance/check.sh: ok"
