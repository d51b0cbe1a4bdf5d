#!/usr/bin/env bash
# The pull request to the MCP conformance suite, checked with the suite's own tools:
#   1. the committed patch must be current (scripts/gen_conformance_patch.py --check), and applies with `git apply`
#      to the suite's source at the pinned commit (the snapshot beside this checkout, see that script);
#   2. the suite's own checks pass: `npm ci`, `npm run build`, `npm run check` (typecheck, eslint, prettier),
#      `npm test` (vitest);
#   3. its CLI passes the rendering-server scenario, over streamable HTTP, under 2025-11-25 and 2026-07-28, against
#      a server that uses only the patched SDK (docs_src/rendering/tutorial001.py) and against the project's
#      example servers (financial, screening, orgchart), and fails a server that breaks its rules;
#   4. its CLI passes the result-continuation-server scenario, the same way, against the example servers that page
#      (screening, orgchart; the patched SDK has no continuation module, so there is no SDK-only server to run),
#      and against a screening server whose tokens live 15 seconds, so that the expired-token check, skipped
#      against the others (their tokens live 15 minutes), waits for a token to expire and sees it refused; and
#      against an org chart server that accepts one bearer credential as a principal beside anonymous callers,
#      with that credential given to the scenario, so that the check that a token crosses neither way between the
#      anonymous context and the principal, skipped against the others, is observed;
#   5. its CLI passes the rendering-client scenario, under both versions, against a host built on the patched SDK
#      and against the project's reference host, and the result-continuation-client scenario against the
#      reference host.
# The scenarios' failure verdicts against servers and clients that break the rules of either extension are
# asserted by the suite's own vitest files, run by `npm test`.
# Known failures are listed, with their reasons, in expected-failures/<run>.yml (the suite's baseline format; an
# entry that starts passing fails the run until it is removed). Exits non-zero with the reason on the first failure.
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
"$python" "$root/scripts/gen_conformance_patch.py" --check || patch_status=$?
case "$patch_status" in
  0) ;;
  1) fail "the patch is stale: run scripts/gen_conformance_patch.py" ;;
  *) fail "could not check the patch (gen_conformance_patch.py exited $patch_status; its message is above)" ;;
esac
snapshot="$("$python" "$root/scripts/gen_conformance_patch.py" --snapshot)" || fail "no suite snapshot"
[ -x "$project_python" ] || fail "no $project_python: run scripts/bootstrap.sh first"
node22="$(bash "$root/scripts/node22.sh")" || fail "no Node >= 22.18"
export PATH="$(dirname "$node22"):$PATH"

echo "== applying the patch to $(basename "$snapshot")"
rm -rf "$tree"
mkdir -p "$tree"
tar xzf "$snapshot" -C "$tree" --strip-components=1
# The tree sits inside this repository's checkout: stop git from finding it, so that `git apply` patches the tree.
export GIT_CEILING_DIRECTORIES="$cache"
for patch in "$here"/patches/*.patch; do
  (cd "$tree" && git apply --check "$patch" && git apply "$patch") || fail "$(basename "$patch") does not apply"
done

cd "$tree"
echo "== npm ci, npm run build"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error || fail "npm ci failed"
npm run --silent build >/dev/null || fail "npm run build failed"
echo "== npm run check"
npm run --silent check || fail "npm run check failed"
echo "== npm test"
logs="$cache/conformance-logs"
rm -rf "$logs"
mkdir -p "$logs"
# In its own process group: some of the suite's tests leave servers running, which are stopped with it.
setsid npm test --silent >"$logs/npm-test.txt" 2>&1 &
npm_test=$!
npm_test_status=0
wait "$npm_test" || npm_test_status=$?
kill -- "-$npm_test" 2>/dev/null || true
if [ "$npm_test_status" -ne 0 ]; then
  tail -n 40 "$logs/npm-test.txt" >&2
  fail "npm test failed (output: $logs/npm-test.txt)"
fi
sed 's/\x1b\[[0-9;]*m//g' "$logs/npm-test.txt" | grep -E '^ *(Test Files|Tests) ' || true

read -r sdk_tree sdk_venv < <(bash "$here/../python-sdk/check.sh" --prepare) || fail "could not prepare the patched SDK"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for_port() {
  "$python" - "$1" <<'EOF' || fail "the server on port $1 did not start (log: $2)"
import socket, sys, time
deadline = time.monotonic() + 30
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
start_server() { # name, then the command (the port is appended or substituted for PORT)
  local name="$1" port
  shift
  port="$(free_port)"
  "${@//PORT/$port}" >"$logs/$name.log" 2>&1 &
  pids+=("$!")
  wait_for_port "$port" "$logs/$name.log"
  server_urls[$name]="http://127.0.0.1:$port/mcp"
}
start_server sdk env PYTHONPATH="$sdk_tree" "$sdk_venv/bin/python" "$here/servers/sdk_rendering_server.py" PORT
start_server broken env PYTHONPATH="$sdk_tree" "$sdk_venv/bin/python" "$here/servers/broken_rendering_server.py" PORT
# The example servers sign continuation tokens with a secret every replica shares; they refuse HTTP without one.
export MCP_RENDERING_EXAMPLE_SECRET="${MCP_RENDERING_EXAMPLE_SECRET:-conformance-run-$RANDOM-$RANDOM-$$}"
for example in financial screening orgchart; do
  start_server "$example" "$project_python" -m "mcp_rendering.examples.$example" --http 127.0.0.1:PORT
done
# Tokens that expire within the time the result-continuation-server scenario waits (20 s).
start_server screening-short-lived env MCP_RENDERING_EXAMPLE_TOKEN_TTL=15 \
  "$project_python" -m mcp_rendering.examples.screening --http 127.0.0.1:PORT
# One bearer credential the server accepts as a principal beside anonymous callers, and which the scenario is given
# (MCP_CONFORMANCE_SERVER_BEARER) to call with; a fresh one per run.
bearer="conformance-bearer-$("$python" -c 'import secrets; print(secrets.token_hex(16))')"
start_server orgchart-bearer env MCP_RENDERING_EXAMPLE_BEARER="$bearer" \
  "$project_python" -m mcp_rendering.examples.orgchart --http 127.0.0.1:PORT

baseline() { # the baseline of a run, when expected-failures/ has one
  [ -f "$here/expected-failures/$1.yml" ] && echo "$1.yml" || true
}
run_cli() { # label, baseline file or "", then the CLI arguments
  local label="$1" baseline="$2"
  shift 2
  local args=("$@" --output-dir "$logs/results")
  [ -n "$baseline" ] && args+=(--expected-failures "$here/expected-failures/$baseline")
  if node dist/index.js "${args[@]}" >"$logs/$label.txt" 2>&1; then
    echo "   ok   $label"
  else
    sed 's/\x1b\[[0-9;]*m//g' "$logs/$label.txt" | grep -E 'FAILURE|Unexpected|Stale|stale|Error' >&2 || true
    fail "$label failed (output: $logs/$label.txt)"
  fi
}

echo "== rendering-server, over streamable HTTP"
for version in "${versions[@]}"; do
  for name in sdk financial screening orgchart; do
    run_cli "server-$name-$version" "$(baseline "server-$name-$version")" server --url "${server_urls[$name]}" \
      --scenario rendering-server --spec-version "$version" --force
  done
done

echo "== result-continuation-server, over streamable HTTP"
for version in "${versions[@]}"; do
  for name in screening orgchart screening-short-lived; do
    run_cli "continuation-server-$name-$version" "$(baseline "continuation-server-$name-$version")" server \
      --url "${server_urls[$name]}" --scenario result-continuation-server --spec-version "$version" --force
  done
  # With the credential, in a subshell so that no other run has it (the context check is skipped there).
  (
    export MCP_CONFORMANCE_SERVER_BEARER="$bearer"
    run_cli "continuation-server-orgchart-bearer-$version" "$(baseline "continuation-server-orgchart-bearer-$version")" \
      server --url "${server_urls[orgchart-bearer]}" --scenario result-continuation-server --spec-version "$version" \
      --force
  ) || exit 1
  # The context check must have been observed, not skipped, where the scenario has a credential.
  out="$logs/continuation-server-orgchart-bearer-$version.txt"
  sed 's/\x1b\[[0-9;]*m//g' "$out" >"$out.plain"
  grep -qE "\[sep-0000-continuation-server-token-bound-to-context +\] SUCCESS" "$out.plain" ||
    fail "the token context check was not observed with a credential under $version ($out)"
  # The expired-token check must have been observed, not skipped, where tokens live 15 seconds.
  out="$logs/continuation-server-screening-short-lived-$version.txt"
  sed 's/\x1b\[[0-9;]*m//g' "$out" >"$out.plain"
  grep -qE "\[sep-0000-continuation-server-rejects-expired-token +\] SUCCESS" "$out.plain" ||
    fail "the expired-token check was not observed against short-lived tokens under $version ($out)"
done

echo "== rendering-server must fail a server that breaks its rules"
for version in "${versions[@]}"; do
  out="$logs/server-broken-$version.txt"
  if node dist/index.js server --url "${server_urls[broken]}" --scenario rendering-server --spec-version "$version" \
    --force >"$out" 2>&1; then
    fail "rendering-server passed the broken server under $version (output: $out)"
  fi
  # Colours stripped into a file first: grep -q in a pipe can end the pipe early, which pipefail reports.
  sed 's/\x1b\[[0-9;]*m//g' "$out" >"$out.plain"
  for id in sep-0000-rendering-server-carriers-typed sep-0000-rendering-server-declares; do
    grep -qE "\[$id +\] FAILURE" "$out.plain" || fail "$id did not fail the broken server ($out)"
  done
  echo "   ok   server-broken-$version fails as it must"
done

echo "== rendering-client"
for version in "${versions[@]}"; do
  run_cli "client-sdk-host-$version" "$(baseline "client-sdk-host-$version")" client --scenario rendering-client --spec-version "$version" --force \
    --command "env PYTHONPATH=$sdk_tree $sdk_venv/bin/python $here/clients/sdk_host.py"
  run_cli "client-reference-host-$version" "$(baseline "client-reference-host-$version")" client --scenario rendering-client \
    --spec-version "$version" --force --command "$project_python $here/clients/reference_host.py"
done
echo "== result-continuation-client"
for version in "${versions[@]}"; do
  run_cli "continuation-client-reference-host-$version" "$(baseline "continuation-client-reference-host-$version")" \
    client --scenario result-continuation-client --spec-version "$version" --force \
    --command "$project_python $here/clients/reference_host.py"
done
echo "upstream/conformance/check.sh: ok"
