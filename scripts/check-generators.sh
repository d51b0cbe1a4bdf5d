#!/usr/bin/env bash
# Every generator in --check mode. Exit 3 from a generator means a source it needs is not in this checkout (a clone
# with nothing beside it): that stage is skipped in one line saying why, and the others still run.
set -euo pipefail
cd "$(dirname "$0")/.."
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
for generator in scripts/gen_*.py; do
  [ -e "$generator" ] || continue
  echo "== $generator --check"
  status=0
  python "$generator" --check 2>"$errors" || status=$?
  if [ "$status" = 3 ]; then
    # The generator's last line of error output is the reason, after its own name.
    echo "skipped: $(tail -n 1 "$errors" | sed 's/^[A-Za-z_]*: //')"
  else
    cat "$errors" >&2
    if [ "$status" != 0 ]; then
      echo "check-generators.sh: $generator --check failed (exit $status)" >&2
      exit "$status"
    fi
  fi
done
