#!/usr/bin/env bash
# Mutation testing of core modules, one module at a time, with mutmut (not part of CI; run it by hand).
#
#   bash scripts/mutation.sh [--survivors] [--jobs N] [--keep] [--own] [--ref REV] MODULE...
#   bash scripts/mutation.sh [--survivors] --from DIR MODULE...
#   bash scripts/mutation.sh [--survivors] [--jobs N] [--retry-timeouts] --resume DIR MODULE...
#   bash scripts/mutation.sh [--jobs N] [--ref REV] --shard K/N --record FILE MODULE
#   bash scripts/mutation.sh --combine FILE...
#   bash scripts/mutation.sh tokens envelope patch
#   bash scripts/mutation.sh --survivors tokens > survivors.txt
#   bash scripts/mutation.sh --ref HEAD patch     # the committed code, whatever the working tree holds
#
# For each MODULE, the mutants of python_ext/mcp_rendering/MODULE.py are run against the module's test files
# only, tests/test_MODULE.py (required: the module's own test file) and tests/test_MODULE_*.py
# (tests/test_audit_cost.py is one of audit's; a prefix match, so a module named audit_x would lend its tests to
# audit too), or with --own against tests/test_MODULE.py alone, with HYPOTHESIS_PROFILE=ci. Per
# module it prints the mutants tried, killed, survived, without tests (no test of those files reaches the mutated
# function), timed out, suspicious (a crash or an unexpected exit code), set aside as
# equivalent, and the score = killed / (tried - equivalent); then one table for all modules. Timeouts and
# suspicious mutants are reported but not counted as killed. The exit status is non-zero if mutmut fails to run
# (for example a test fails on the unmutated code) or leaves mutants unchecked; a low score alone is not a failure.
#
# Needs mutmut in .venv: the dev group pins it (`bash scripts/bootstrap.sh` installs it).
#
# Nothing in the working tree is changed. The repository (tracked files plus untracked, non-ignored ones, as they
# are on disk now; or commit REV with --ref) is copied to a mktemp directory; python_ext/ is renamed src/ there
# (mutmut names modules after their paths and strips only a leading "src.", so src/mcp_rendering/tokens.py is
# mcp_rendering.tokens, the name the tests import); a [tool.mutmut] table is appended to that copy's
# pyproject.toml; and mutmut runs in the copy with the repository's python_ext/ (where the editable install
# points) removed from sys.path. A generated pytest plugin (-p mutation_harness) records which file the tests
# imported as mcp_rendering.MODULE, and the run fails unless it is the mutated copy. The copy is deleted at the
# end unless --keep is given.
#
# Options:
#   --survivors  print every mutant that was not killed (survived, no tests, timeout, suspicious) as a diff
#   --jobs N     parallel mutant workers (default: the number of cores)
#   --keep       keep the temporary directory and print its path. DIR/MODULE is mutmut's project for that module:
#                `cd DIR/MODULE && REPO/.venv/bin/mutmut show NAME` prints one mutant's diff, `mutmut results`
#                lists them; to retest after adding a test there, run mutmut with PYTHONPATH=DIR/harness (add the
#                test to one of the module's test files: a new file is not in the generated test selection, so it
#                is not run)
#   --own        run the mutants against tests/test_MODULE.py alone (the module's own test file), not against
#                tests/test_MODULE_*.py too: how much that one file pins down by itself
#   --ref REV    measure commit REV (git archive) instead of the working tree, e.g. while others edit it
#   --from DIR   run nothing: report again on the results kept in DIR by --keep (after editing the equivalents)
#   --resume DIR go on with a run kept in DIR by --keep that was stopped before its end: mutmut tries only the
#                mutants that have no result yet, against the same tests with the same settings, and keeps DIR
#                (where --keep left it: the run's settings name files in it)
#   --retry-timeouts  with --resume: try again the mutants that timed out (their time depends on the machine's load)
#   --shard K/N  run the mutants of one Nth of the module's functions (chosen by a hash of each function's name),
#                so that a run too long for one sitting is measured in parts; the report counts that part alone
#   --record FILE  write the report of one module as a record: its counts, the mutants not killed by key, the
#                commit, a digest of what decides them (the module, the tests run, tests/conftest.py and
#                tests/support/, the module's equivalents, the isolation and timeout settings) and one of each
#                other file of the package
#   --combine FILE...  add up the records of a module's shards, 1/N to N/N, each run to its end: refused unless their
#                digests agree; it names the other files of the package that differ between them. The records of a
#                module measured over several sittings are kept in scripts/mutation-records/ (MODULE-K-of-N.json)
# Environment:
#   MUTATION_TIMEOUT_MULTIPLIER (default 10), MUTATION_TIMEOUT_CONSTANT (default 3, seconds): a mutant is stopped
#     after (time of the tests that reach its function + constant) x multiplier seconds of wall time, twice that
#     in CPU time, and counted as a timeout. Most timeouts are slow kills (Hypothesis shrinking a failure), so
#     their number depends on the machine's load.
#   Under a mutant, a test past (its own time on the unmutated code + constant) x multiplier is interrupted and
#     skipped, and the others run: the mutant is killed if one of them fails before a second test is past its
#     deadline, and a timeout otherwise (a loop that no longer ends is the function's, and would hold the worker
#     for every other test's deadline in turn). A mutant that both hangs and fails some test may so be a timeout
#     in one run and killed in another (the order of its tests follows earlier kills): timeouts are not counted
#     as killed, so the score can only be lower. A test with a pytest-timeout marker of its own keeps it (there,
#     a hang is the test's failure).
#   MUTATION_ISOLATION=forkserver (default) or fork. With fork, mutmut forks every mutant's process from one that
#     has already imported the package and the test modules, so code run at import (a module-level
#     `URIS = RecordUris(...)` in a test file) never runs mutated and its mutants survive whatever the tests check.
#     With forkserver (warmup "import"), the fork server imports only the third-party modules the tests need and
#     each mutant's process imports mcp_rendering and the test module afresh, with its mutant active. The plugin
#     also credits the functions run at import to every test of the file, not to the first one only, so that
#     their mutants run against the tests that use what they built; and it counts a mutant that breaks the
#     import of the test module as killed (mutmut would report it as a timeout or as interrupted by the user).
#     fork is faster (about 0.2 s less per mutant); the two agree except on such mutants.
#
# Reading a survivor. Each mutant that was not killed is shown (with --survivors) as
#     survived  tokens:Keyring.__init__:581e4f89d5  (mcp_rendering.tokens.xǁKeyringǁ__init____mutmut_12)
#     --- src/mcp_rendering/tokens.py
#     +++ src/mcp_rendering/tokens.py
#     @@ -11,7 +11,7 @@
#              raise ValueError(f"key id {key_id!r} must be 1-32 characters of A-Z, a-z, 0-9, '_' or '-'")
#          raw = secret.encode("utf-8") if isinstance(secret, str) else bytes(secret)
#     -        if len(raw) < _MIN_SECRET_BYTES:
#     +        if len(raw) <= _MIN_SECRET_BYTES:
#              raise ValueError(f"secret of key {key_id!r} is shorter than {_MIN_SECRET_BYTES} bytes")
# that is, the function as written (-) and as mutated (+), in the temporary copy's paths (src/ is python_ext/).
# Every test of the module's test files passed with the mutated line, so none pins down that behaviour; a test that
# fails on the mutant and passes on the real code kills it (here: a secret of exactly 16 bytes is accepted).
# "no tests" means no test of those files even calls the function. The first field is the mutant's stable key; the
# name in parentheses is mutmut's own, which numbers the mutants of a function in order and so shifts whenever
# the function is edited. The key is MODULE:FUNCTION:HASH, HASH being the first 10 hex digits of the SHA-256 of
# the function's name and of the removed and added lines of the diff, stripped of indentation: it holds as long as
# the mutated line itself is unchanged. Identical mutations of identical lines in one function get ~2, ~3 appended,
# in mutmut's order.
#
# Marking an equivalent mutant. A mutant is equivalent when no test could ever kill it, because the program behaves
# identically with it for every input. Add a line to scripts/mutation-equivalents.txt: the key, whitespace, and a
# one-line reason (required), for example
#     tokens:_b64encode:b54c6dd91e  bytes.decode("ASCII") is bytes.decode("ascii"): codec names are case-insensitive
# The script then counts it as equivalent, leaves it out of the score's denominator and lists it, with its reason,
# after the survivors. An entry that matches no mutant (its line changed or went) or matches a killed one (so it was
# not equivalent) is reported as stale and has no effect. A mutant that is merely hard to kill is a missing test.
#
# mutmut mutates only inside functions and methods: module-level constants, class bodies and decorated functions
# (other than @staticmethod and @classmethod) are not mutated, nor are calls of len() and isinstance().
set -euo pipefail

# The whole script is one function, read before it runs, so that editing the file during a run cannot derail it.
main() {
MUTMUT_VERSION=3.8.1
REPO=$(cd "$(dirname "$0")/.." && pwd)
PY="$REPO/.venv/bin/python"
EQUIVALENTS=${MUTATION_EQUIVALENTS:-$REPO/scripts/mutation-equivalents.txt}
PACKAGE_DIR=python_ext/mcp_rendering
PACKAGE=mcp_rendering

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

# --combine: the records of a module's shards (--shard K/N --record FILE), added up when they measured the same files.
combine_records() {  # combine_records FILE...
  "$PY" - "$@" <<'PY'
import json
import sys

records = []
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            records.append((path, json.load(f)))
    except (OSError, ValueError) as error:
        sys.exit(f"mutation: cannot read the record {path}: {error}")
first = records[0][1]
parts = int(first["shard"].partition("/")[2])
problems = []
for path, record in records:
    for field in ("module", "measured_sha256"):
        if record[field] != first[field]:
            problems.append(f"{path}: another {field} than {records[0][0]}")
    if int(record["shard"].partition("/")[2]) != parts:
        problems.append(f"{path}: shard {record['shard']}, not of {parts}")
    if record["unchecked"]:
        problems.append(f"{path}: {record['unchecked']} mutants of its shard were not checked")
shards = sorted(int(record["shard"].partition("/")[0]) for _, record in records)
if shards != list(range(1, parts + 1)):
    problems.append(f"shards {shards} of {parts}: each shard once, all of them")
if problems:
    sys.exit("mutation: the records do not add up:\n  " + "\n  ".join(problems))
columns = ["tried", "killed", "survived", "no_tests", "timeout", "suspicious", "equivalent"]
total = {column: sum(record[column] for _, record in records) for column in [*columns, "seconds"]}
# Other modules of the package are not mutated, but the tests run them: say which ones differ between shards.
paths = sorted({path for _, record in records for path in record["package_sha256"]})
beside = [path for path in paths if len({record["package_sha256"].get(path) for _, record in records}) > 1]
denominator = total["tried"] - total["equivalent"]
print(f"{first['module']}: {len(records)} shards of the same code, tests and settings ({first['measured_sha256'][:12]}):")
for path, record in sorted(records, key=lambda item: item[1]["shard"]):
    row_score = record["killed"] / (record["tried"] - record["equivalent"] or 1)
    print(f"   {record['shard']}  {record['commit']}  tried {record['tried']}, killed {record['killed']}, "
          f"score {100 * row_score:.1f}%  ({record['seconds']:.0f} s)  {path}")
print(
    "   all: " + ", ".join(f"{column.replace('_', ' ')} {total[column]}" for column in columns)
    + f"; score {total['killed']}/{denominator} = {100 * total['killed'] / (denominator or 1):.1f}%"
)
if beside:
    print(f"   note: the shards ran beside other versions of {', '.join(beside)} (not mutated; the tests run them)")
for _, record in records:
    for key, status in record["not_killed"].items():
        print(f"   {status}  {key}")
PY
}

show_survivors=0
own=0
keep=0
ref=
from=
resume=
retry_timeouts=0
shard=
record=
combine=0
jobs=$(nproc 2>/dev/null || echo 2)
modules=()
while [ $# -gt 0 ]; do
  case "$1" in
    --survivors) show_survivors=1 ;;
    --keep) keep=1 ;;
    --own) own=1 ;;
    --jobs|-j)
      [ $# -ge 2 ] || { echo "mutation: $1 needs a number" >&2; exit 2; }
      jobs=$2; shift ;;
    --jobs=*) jobs=${1#--jobs=} ;;
    --ref)
      [ $# -ge 2 ] || { echo "mutation: --ref needs a commit" >&2; exit 2; }
      ref=$2; shift ;;
    --ref=*) ref=${1#--ref=} ;;
    --from)
      [ $# -ge 2 ] || { echo "mutation: --from needs a directory" >&2; exit 2; }
      from=$2; shift ;;
    --from=*) from=${1#--from=} ;;
    --resume)
      [ $# -ge 2 ] || { echo "mutation: --resume needs a directory" >&2; exit 2; }
      resume=$2; shift ;;
    --resume=*) resume=${1#--resume=} ;;
    --retry-timeouts) retry_timeouts=1 ;;
    --shard)
      [ $# -ge 2 ] || { echo "mutation: --shard needs K/N" >&2; exit 2; }
      shard=$2; shift ;;
    --shard=*) shard=${1#--shard=} ;;
    --record)
      [ $# -ge 2 ] || { echo "mutation: --record needs a file" >&2; exit 2; }
      record=$2; shift ;;
    --record=*) record=${1#--record=} ;;
    --combine) combine=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "mutation: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) modules+=("$1") ;;
  esac
  shift
done
if [ "$combine" = 1 ]; then
  [ ${#modules[@]} -gt 0 ] || { echo "mutation: --combine needs the record files" >&2; exit 2; }
  combine_records "${modules[@]}"
  exit $?
fi
[ ${#modules[@]} -gt 0 ] || { echo "usage: bash scripts/mutation.sh [--survivors] [--jobs N] [--keep] [--own] [--ref REV] MODULE..., or with --from DIR or --resume DIR (see --help)" >&2; exit 2; }
[ -z "$from" ] || [ -z "$resume" ] || { echo "mutation: --from and --resume exclude each other" >&2; exit 2; }
[ "$retry_timeouts" = 0 ] || [ -n "$resume" ] || { echo "mutation: --retry-timeouts goes with --resume" >&2; exit 2; }
if [ -n "$resume" ] && { [ -n "$ref" ] || [ "$own" = 1 ] || [ "$keep" = 1 ]; }; then
  echo "mutation: --resume goes on with the kept run's own commit and tests, and keeps it: no --ref, --own or --keep" >&2
  exit 2
fi
case "$jobs" in ''|*[!0-9]*|0) echo "mutation: --jobs needs a positive number, not '$jobs'" >&2; exit 2 ;; esac
if [ -n "$shard" ]; then
  [ -z "$from" ] && [ -z "$resume" ] || { echo "mutation: --shard goes with a new run (a kept run keeps its own)" >&2; exit 2; }
  case "$shard" in
    [1-9]/[1-9]|[1-9]/[1-9][0-9]|[1-9][0-9]/[1-9][0-9]) [ "${shard%/*}" -le "${shard#*/}" ] ||
      { echo "mutation: --shard K/N needs 1 <= K <= N, not '$shard'" >&2; exit 2; } ;;
    *) echo "mutation: --shard needs K/N (1 <= K <= N < 100), not '$shard'" >&2; exit 2 ;;
  esac
fi
if [ -n "$record" ]; then
  [ ${#modules[@]} -eq 1 ] || { echo "mutation: --record writes one module's record: name one module" >&2; exit 2; }
  case "$record" in /*) ;; *) record="$PWD/$record" ;; esac
fi
if [ -n "$ref" ]; then
  commit=$(git -C "$REPO" rev-parse --verify --quiet "$ref^{commit}") || { echo "mutation: no commit $ref" >&2; exit 2; }
fi
exists() {  # exists PATH: in the working tree, or in the commit given with --ref
  if [ -n "$ref" ]; then git -C "$REPO" cat-file -e "$commit:$1" 2>/dev/null; else [ -f "$REPO/$1" ]; fi
}
test_files() {  # test_files MODULE: the module's test files in the copy, one a line (its own file alone with --own)
  if [ "$own" = 1 ]; then echo tests/test_"$1".py; return; fi
  (cd "$COPY" && for f in tests/test_"$1".py tests/test_"$1"_*.py; do if [ -f "$f" ]; then echo "$f"; fi; done)
}
for module in "${modules[@]}"; do
  case "$module" in *[!A-Za-z0-9_]*) echo "mutation: '$module' is not a module name" >&2; exit 2 ;; esac
  exists "$PACKAGE_DIR/$module.py" || { echo "mutation: no $PACKAGE_DIR/$module.py" >&2; exit 2; }
  exists "tests/test_$module.py" || { echo "mutation: no tests/test_$module.py for $module" >&2; exit 2; }
done

[ -x "$PY" ] || { echo "mutation: no $PY; run bash scripts/bootstrap.sh first" >&2; exit 2; }
installed=$("$PY" -c 'import importlib.metadata as m; print(m.version("mutmut"))' 2>/dev/null || true)
if [ "$installed" != "$MUTMUT_VERSION" ]; then
  echo "mutation: needs mutmut==$MUTMUT_VERSION in .venv (found: ${installed:-none});" \
    "run: .venv/bin/pip install mutmut==$MUTMUT_VERSION" >&2
  exit 2
fi

# Reads mutmut's results for one module: counts, keys, diffs; matches the equivalents file.
report() {
  "$PY" - "$@" <<'PY'
import hashlib
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

from mutmut.mutation.diff_apply import get_diff_for_mutant
from mutmut.stats import status_by_exit_code

module, package, equivalents_path, seconds, show, out, shard, record_path, commit = sys.argv[1:10]
source = f"src/{package}/{module}.py"
meta = json.loads((Path("mutants") / f"{source}.meta").read_text())
codes: dict[str, int | None] = meta["exit_code_by_key"]
prefix = f"{package}.{module}."


def function_of(name: str) -> str:
    mangled = name[len(prefix) :].partition("__mutmut_")[0]
    if mangled.startswith("x_"):
        return mangled[2:]
    return ".".join(part for part in mangled[1:].split("ǁ") if part)


def number_of(name: str) -> int:
    return int(name.rpartition("__mutmut_")[2])


def changed_lines(diff: str) -> list[str]:
    return [
        line[0] + line[1:].strip()
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


if shard:  # only the shard's functions were run: the others are not part of this report
    part, _, parts = shard.partition("/")
    codes = {
        name: code
        for name, code in codes.items()
        if int(hashlib.sha256(function_of(name).encode()).hexdigest(), 16) % int(parts) == int(part) - 1
    }
statuses = {name: status_by_exit_code[code] for name, code in codes.items()}
keys: dict[str, str] = {}
diffs: dict[str, str] = {}
seen: Counter[str] = Counter()
for name in sorted(codes, key=lambda n: (function_of(n), number_of(n))):
    diff = get_diff_for_mutant(name, path=source)
    function = function_of(name)
    digest = hashlib.sha256("\n".join([function, *changed_lines(diff)]).encode()).hexdigest()[:10]
    key = f"{module}:{function}:{digest}"
    seen[key] += 1
    keys[name] = key if seen[key] == 1 else f"{key}~{seen[key]}"
    diffs[name] = diff

reasons: dict[str, str] = {}
problems: list[str] = []
path = Path(equivalents_path)
for number, raw in enumerate(path.read_text().splitlines() if path.exists() else [], start=1):
    line = raw.strip()
    if not line or line.startswith("#"):
        continue
    key, _, reason = line.partition(" ")
    if not key.startswith(f"{module}:"):
        continue
    if not reason.strip():
        problems.append(f"{path.name}:{number}: {key} has no reason; ignored")
        continue
    reasons[key] = reason.strip()

all_reasons = dict(reasons)  # the module's, which a record's digest holds: the same for every shard
if shard:  # an equivalent of another shard's function is not this report's to judge
    reasons = {
        key: reason
        for key, reason in reasons.items()
        if int(hashlib.sha256(key.split(":")[1].encode()).hexdigest(), 16) % int(parts) == int(part) - 1
    }
by_key = {key: name for name, key in keys.items()}
equivalent = set()
for key, reason in reasons.items():
    name = by_key.get(key)
    if name is None:
        problems.append(f"stale equivalent (matches no mutant of {module}): {key}")
    elif statuses[name] == "killed":
        problems.append(f"stale equivalent (the tests kill it, so it is not equivalent): {key}")
    elif statuses[name] not in ("not checked", "skipped", "caught by type check"):
        equivalent.add(name)  # only a mutant that was tried leaves the score's denominator

count = Counter(statuses.values())
unchecked = count["not checked"]
skipped = count["skipped"] + count["caught by type check"]
tried = len(codes) - unchecked - skipped
killed = count["killed"]
survivors = [n for n in codes if statuses[n] not in ("killed", "not checked", "skipped", "caught by type check")]
survivors = [n for n in survivors if n not in equivalent]
left = Counter(statuses[n] for n in survivors)
survived, no_tests, timeouts = left["survived"], left["no tests"], left["timeout"]
suspicious = sum(left[s] for s in ("suspicious", "segfault", "check was interrupted by user"))
denominator = tried - len(equivalent)
score = killed / denominator if denominator else 0.0
row = {
    "module": module, "tried": tried, "killed": killed, "survived": survived, "no_tests": no_tests,
    "timeout": timeouts, "suspicious": suspicious, "equivalent": len(equivalent), "score": score,
    "seconds": float(seconds), "unchecked": unchecked,
}
Path(out).write_text(json.dumps(row))
if record_path:
    # What another run's record must share for the two to add up: the module and the test files measured.
    settings = tomllib.loads(Path("pyproject.toml").read_text())["tool"]["mutmut"]
    selection = settings["pytest_add_cli_args_test_selection"]
    # The module, the tests measured and what they import from tests/, the module's equivalents, the settings; the
    # rest of the package is listed file by file, for --combine to say where shards measured beside other code.
    measured = sorted({source, *selection, "tests/conftest.py", *map(str, Path("tests/support").rglob("*.py"))})
    package = {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(Path("src").rglob("*.py"))
    }
    digest = hashlib.sha256()
    for path in measured:
        if Path(path).is_file():
            digest.update(path.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    for key in sorted(all_reasons):
        digest.update(f"{key} {all_reasons[key]}\0".encode())
    for name in ("process_isolation", "timeout_multiplier", "timeout_constant"):
        digest.update(f"{name}={settings.get(name)}\0".encode())
    record = {
        "module": module,
        "shard": shard or "1/1",
        "commit": commit,
        "measured_sha256": digest.hexdigest(),
        "package_sha256": package,
        "test_files": sorted(selection),
        **{name: row[name] for name in ("tried", "killed", "survived", "no_tests", "timeout", "suspicious", "equivalent", "unchecked", "seconds")},
        "not_killed": {keys[name]: statuses[name] for name in sorted(survivors, key=lambda n: keys[n])},
    }
    Path(record_path).write_text(json.dumps(record, indent=1) + "\n")
    print(f"   record written to {record_path}")

print(
    f"   tried {tried}, killed {killed}, survived {survived}, no tests {no_tests}, timeout {timeouts}, "
    f"suspicious {suspicious}, equivalent {len(equivalent)}; "
    f"score {killed}/{denominator} = {100 * score:.1f}%  ({float(seconds):.0f} s)"
)
if unchecked:
    print(f"   {unchecked} mutants were not checked: the run did not finish (a run kept with --keep goes on with --resume)")
for problem in problems:
    print(f"   warning: {problem}")
order = sorted(survivors, key=lambda n: (function_of(n), number_of(n)))
if show == "1":
    for name in order:
        print()
        print(f"{statuses[name]}  {keys[name]}  ({name})")
        print(diffs[name])
    for name in sorted(equivalent, key=lambda n: (function_of(n), number_of(n))):
        print()
        print(f"equivalent  {keys[name]}  ({name}): {reasons[keys[name]]}")
        print(diffs[name])
elif order:
    print(f"   {len(order)} not killed; --survivors shows them as diffs")
PY
}

# Reads one module's results; appends to results, sets failed.
report_module() {  # report_module MODULE SECONDS
  if (cd "$WORK/$1" && report "$1" "$PACKAGE" "$EQUIVALENTS" "$2" "$show_survivors" "$WORK/result-$1.json.new" \
    "$(cat "$WORK/shard" 2>/dev/null)" "$record" "$(cat "$WORK/commit" 2>/dev/null)"); then
    mv "$WORK/result-$1.json.new" "$WORK/result-$1.json"
    results+=("$WORK/result-$1.json")
  else
    echo "   mutation: reading mutmut's results failed" >&2
    failed=1
  fi
}

# The table of all modules.
summarize() {
  [ ${#results[@]} -gt 0 ] || return 0
  echo
  "$PY" - "${results[@]}" <<'PY' || failed=1
import json
import sys

rows = [json.load(open(path)) for path in sys.argv[1:]]
columns = ["tried", "killed", "survived", "no_tests", "timeout", "suspicious", "equivalent"]
total = {c: sum(r[c] for r in rows) for c in [*columns, "seconds", "unchecked"]}
denominator = total["tried"] - total["equivalent"]
total.update(module="all", score=total["killed"] / denominator if denominator else 0.0)
header = ["module", *(c.replace("_", " ") for c in columns), "score", "time"]
lines = [
    [r["module"], *(str(r[c]) for c in columns), f"{100 * r['score']:.1f}%", f"{r['seconds']:.0f} s"]
    for r in [*rows, *([total] if len(rows) > 1 else [])]
]
widths = [max(len(x) for x in column) for column in zip(header, *lines)]
for i, line in enumerate([header, *lines]):
    if len(rows) > 1 and i == len(lines):
        print("  ".join("-" * w for w in widths))
    print("  ".join(x.ljust(w) if j == 0 else x.rjust(w) for j, (x, w) in enumerate(zip(line, widths))))
print("score = killed / (tried - equivalent); timeouts and suspicious mutants are not counted as killed")
sys.exit(1 if total["unchecked"] else 0)
PY
}

# Runs mutmut in the copy; refuses a run in which the tests imported the package from anywhere but the mutants.
run_mutmut() {  # run_mutmut MODULE, run in the copy
  MUTATION_TARGET="$PACKAGE.$1" MUTATION_IMPORT_RECORD="$WORK/imported-$1.json" \
    "$PY" - "$REPO" "$jobs" "$1" "$WORK/imported-$1.json" <<'PY'
import ast
import hashlib
import json
import os
import sys
from pathlib import Path

repo, jobs, module, record_path = sys.argv[1:5]
original = (Path(repo) / "python_ext").resolve()
# The editable install puts the real python_ext on sys.path; without it only the mutated copy can be imported.
sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != original]
from mutmut.__main__ import cli  # noqa: E402

patterns: list[str] = []
meta_path = Path(f"mutants/src/mcp_rendering/{module}.py.meta")
if (shard := os.environ.get("MUTATION_SHARD", "")) and meta_path.exists():
    # Going on with a kept shard: mutmut runs every mutant it is named, so name those of the shard without a result.
    part, _, parts = shard.partition("/")
    for name, code in json.loads(meta_path.read_text())["exit_code_by_key"].items():
        mangled = name[len(f"mcp_rendering.{module}.") :].partition("__mutmut_")[0]
        function = mangled[2:] if mangled.startswith("x_") else ".".join(p for p in mangled[1:].split("ǁ") if p)
        if code is None and int(hashlib.sha256(function.encode()).hexdigest(), 16) % int(parts) == int(part) - 1:
            patterns.append(name)
    print(f"mutation: shard {shard}: {len(patterns)} mutants left")
    if not patterns:
        sys.exit(0)
elif shard:
    # The shard's functions, as mutmut names their mutants (a method's name holds its class's).
    part, _, parts = shard.partition("/")
    tree = ast.parse(Path(f"src/mcp_rendering/{module}.py").read_text())
    for node in tree.body:
        defined = [node] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else []
        owner = node.name if isinstance(node, ast.ClassDef) else ""
        if owner:
            defined = [item for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)]
        for function in defined:
            name = f"{owner}.{function.name}" if owner else function.name
            if int(hashlib.sha256(name.encode()).hexdigest(), 16) % int(parts) == int(part) - 1:
                mangled = f"xǁ{owner}ǁ{function.name}" if owner else f"x_{function.name}"
                patterns.append(f"mcp_rendering.{module}.{mangled}__mutmut_*")
    print(f"mutation: shard {shard}: {len(patterns)} functions")
    if not patterns:
        print(f"mutation: no function of {module} falls in shard {shard}: use fewer shards")
        sys.exit(3)
cli.main(args=["run", "--max-children", jobs, *patterns], prog_name="mutmut", standalone_mode=False)
expected = (Path.cwd() / "mutants" / "src" / "mcp_rendering" / f"{module}.py").resolve()
try:
    record = json.loads(Path(record_path).read_text())
except (OSError, ValueError):
    print("mutation: no record of what the tests imported (the harness plugin did not run)")
    sys.exit(3)
where = Path(record["file"]).resolve() if record["file"] else None
if where != expected or not record["trampolines"]:
    print(f"mutation: the tests imported mcp_rendering.{module} from {where}, not the mutants ({expected})")
    sys.exit(3)
PY
}

# Runs mutmut for MODULE in its project, $WORK/MODULE (with "append", going on with a kept run: its log is added to),
# then reports on it; sets failed when mutmut fails or leaves no results.
mutate_and_report() {  # mutate_and_report MODULE [append]
  local module=$1 log="$WORK/mutmut-$1.log" start status seconds
  start=$(date +%s)
  [ "${2:-}" = append ] || : > "$log"
  set +e
  (cd "$WORK/$module" && run_mutmut "$module") >> "$log" 2>&1
  status=$?
  set -e
  seconds=$(( $(date +%s) - start ))
  if [ "$status" != 0 ] || [ ! -f "$WORK/$module/mutants/src/$PACKAGE/$module.py.meta" ]; then
    echo "   mutmut failed (exit $status) after ${seconds} s; the end of its output:" >&2
    # mutmut redraws a progress line with carriage returns; keep the lines that say something.
    tr '\r' '\n' < "$log" | grep -v -E '^(⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏)' | grep -v '^[[:space:]]*$' | tail -n 40 >&2
    failed=1
    return 0
  fi
  report_module "$module" "$seconds"
}

# --from DIR: the same report and table from a kept run, without running mutmut again.
reread() {  # reread DIR
  failed=0
  results=()
  for module in "${modules[@]}"; do
    selection=$(sed -n 's/^pytest_add_cli_args_test_selection = \[\(.*\)\]$/\1/p' "$1/$module/pyproject.toml" \
      2>/dev/null | tr -d '",')
    echo "== $module: results kept in $1/$module, of a run against ${selection:-(unknown)}"
    if [ ! -f "$1/$module/mutants/src/$PACKAGE/$module.py.meta" ]; then
      echo "   mutation: no mutmut results for $module in $1" >&2
      failed=1
      continue
    fi
    seconds=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["seconds"])' "$1/result-$module.json" 2>/dev/null || echo 0)
    report_module "$module" "$seconds"
  done
  summarize
  return "$failed"
}

if [ -n "$from" ]; then
  # Only read the results of an earlier run kept with --keep again (after editing the equivalents file).
  [ -d "$from" ] || { echo "mutation: no directory $from" >&2; exit 2; }
  WORK=$(cd "$from" && pwd)
  reread "$WORK"
  exit $?
fi

if [ -n "$resume" ]; then
  # Go on with a kept run that was stopped: mutmut lets every result it has stand and tries the rest.
  [ -d "$resume" ] || { echo "mutation: no directory $resume" >&2; exit 2; }
  WORK=$(cd "$resume" && pwd)
  export HYPOTHESIS_PROFILE=ci PYTHONPATH="$WORK/harness"
  MUTATION_SHARD=$(cat "$WORK/shard" 2>/dev/null || true)
  mkdir -p "$WORK/killers"
  export MUTATION_SHARD MUTATION_KILLERS="$WORK/killers"
  for module in "${modules[@]}"; do  # the kept run's timeouts, for the harness's deadlines
    MUTATION_TIMEOUT_MULTIPLIER=$(sed -n 's/^timeout_multiplier = //p' "$WORK/$module/pyproject.toml" 2>/dev/null || true)
    MUTATION_TIMEOUT_CONSTANT=$(sed -n 's/^timeout_constant = //p' "$WORK/$module/pyproject.toml" 2>/dev/null || true)
  done
  export MUTATION_TIMEOUT_MULTIPLIER=${MUTATION_TIMEOUT_MULTIPLIER:-10} MUTATION_TIMEOUT_CONSTANT=${MUTATION_TIMEOUT_CONSTANT:-3}
  unset MUTANT_UNDER_TEST
  failed=0
  results=()
  for module in "${modules[@]}"; do
    RUN="$WORK/$module"
    if [ ! -f "$RUN/mutants/src/$PACKAGE/$module.py.meta" ]; then
      echo "   mutation: no run of $module kept in $WORK to go on with (run it anew)" >&2
      failed=1
      continue
    fi
    if [ "$retry_timeouts" = 1 ]; then
      "$PY" - "$RUN/mutants/src/$PACKAGE/$module.py.meta" <<'PY'
import json
import sys

from mutmut.stats import status_by_exit_code

path = sys.argv[1]
with open(path) as f:
    meta = json.load(f)
codes = meta["exit_code_by_key"]
timed_out = [name for name, code in codes.items() if status_by_exit_code[code] == "timeout"]
for name in timed_out:
    codes[name] = None  # not checked: mutmut tries it again
with open(path, "w") as f:
    json.dump(meta, f)
print(f"   {len(timed_out)} mutants that timed out are tried again")
PY
    fi
    echo "== $module: going on with the run kept in $RUN (the time below counts this part alone)"
    mutate_and_report "$module" append
  done
  summarize
  echo "mutation: kept in $WORK (report on it again with --from $WORK)"
  exit "$failed"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mutation.XXXXXX")
printf '%s\n' "$shard" > "$WORK/shard"
if [ -n "$ref" ]; then echo "$commit" > "$WORK/commit"; else echo "working tree of $(git -C "$REPO" rev-parse HEAD)" > "$WORK/commit"; fi
export MUTATION_SHARD="$shard"
cleanup() {
  if [ "$keep" = 1 ]; then echo "mutation: kept in $WORK (report on it again with --from $WORK)"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

COPY="$WORK/.copy"
mkdir -p "$COPY"
if [ -n "$ref" ]; then
  echo "mutation: measuring commit $(git -C "$REPO" rev-parse --short "$commit") ($ref), not the working tree"
  git -C "$REPO" archive --format=tar "$commit" | tar -xf - -C "$COPY"
else
  # Tracked files and untracked, non-ignored ones, as they are on disk (deleted files are skipped).
  files=()
  while IFS= read -r -d '' f; do
    if [ -e "$REPO/$f" ] || [ -L "$REPO/$f" ]; then files+=("$f"); fi
  done < <(git -C "$REPO" ls-files -z --cached --others --exclude-standard)
  (cd "$REPO" && printf '%s\0' "${files[@]}" | tar --null -T - -cf -) | tar -xf - -C "$COPY"
fi
[ ! -e "$COPY/src" ] || { echo "mutation: the repository already has a src/; this script renames python_ext/ to it" >&2; exit 2; }
mv "$COPY/python_ext" "$COPY/src"
if grep -q '^\[tool\.mutmut\]' "$COPY/pyproject.toml"; then
  echo "mutation: pyproject.toml already has a [tool.mutmut] table; this script generates its own" >&2
  exit 2
fi
cp "$COPY/pyproject.toml" "$WORK/pyproject.orig.toml"
# Everything at the top level besides the package, the tests and pyproject.toml (which mutmut copies itself) goes
# into mutmut's working directory too, so that tests reading repository files find them.
also_copy=$(cd "$COPY" && for entry in * .[!.]*; do
  [ -e "$entry" ] || continue
  case "$entry" in src|tests|pyproject.toml|mutants|.git) continue ;; esac
  printf '"%s", ' "$entry"
done)

export HYPOTHESIS_PROFILE=ci
unset MUTANT_UNDER_TEST
isolation=${MUTATION_ISOLATION:-forkserver}
case "$isolation" in fork|forkserver) ;; *) echo "mutation: MUTATION_ISOLATION is fork or forkserver" >&2; exit 2 ;; esac
multiplier=${MUTATION_TIMEOUT_MULTIPLIER:-10}
constant=${MUTATION_TIMEOUT_CONSTANT:-3}
export MUTATION_TIMEOUT_MULTIPLIER=$multiplier MUTATION_TIMEOUT_CONSTANT=$constant  # for the harness's deadlines

# A pytest plugin loaded into every pytest run of mutmut (stats, clean run, forced fail, each mutant).
HARNESS="$WORK/harness"
mkdir -p "$HARNESS"
cat > "$HARNESS/mutation_harness.py" <<'PY'
"""Generated by scripts/mutation.sh; loaded with -p into every pytest run of mutmut."""

import json
import os
import signal
import sys
import time

import pytest
from mutmut.mutation.trampoline import get_mutant_under_test
from mutmut.state import state

_reached_at_import: set[str] = set()
_durations: dict[str, float] = {}
_recorded: set[str] = set()  # the test ids mutmut named for the mutant


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    if get_mutant_under_test() != "stats":
        return
    # Functions run while the test modules were imported (a module-level `URIS = RecordUris(...)`) serve every test
    # of the file; mutmut would credit them to the first test only, and run their mutants against that test alone.
    _reached_at_import.update(state()._stats)
    # What the tests import: checked by scripts/mutation.sh after the run.
    name, record_path = os.environ.get("MUTATION_TARGET"), os.environ.get("MUTATION_IMPORT_RECORD")
    if not name or not record_path:
        return
    module = sys.modules.get(name)
    record = {
        "file": getattr(module, "__file__", None),
        "trampolines": module is not None and any("__mutmut_" in attribute for attribute in vars(module)),
    }
    with open(record_path, "w") as f:
        json.dump(record, f)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    if _reached_at_import and get_mutant_under_test() == "stats":
        state()._stats.update(_reached_at_import)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    # mutmut's fork mode runs a mutant's tests fastest first, so that a killed mutant stops early (-x); its fork
    # server runs them in no particular order. Restore the order from the durations mutmut measured, with the tests
    # that killed other mutants of the same function first (most kills first), then those mutmut named before the
    # other parametrizations of their functions: the order changes when a mutant is killed, and whether it is only
    # where two tests past their deadlines come before a failing one (a timeout then, `pytest_runtest_call`).
    if "__mutmut_" not in get_mutant_under_test():
        return
    try:
        with open("mutmut-stats.json") as f:
            durations = json.load(f)["duration_by_test"]
    except (OSError, ValueError, KeyError):
        durations = {}
    _durations.update(durations)
    kills: dict[str, int] = {}
    try:
        with open(_killers_file()) as f:
            for line in f:
                kills[line.rstrip("\n")] = kills.get(line.rstrip("\n"), 0) + 1
    except (OSError, KeyError):  # none yet, or run without the script's setting
        pass
    items.sort(key=lambda item: (-kills.get(item.nodeid, 0), item.nodeid not in _recorded, durations.get(item.nodeid, 0.0)))


class _Hung(BaseException):
    """A test past its deadline under a mutant (not an Exception: the code under test cannot catch it)."""


_hung: list[str] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    # A mutant that makes a test run on and on (a loop that no longer ends) would hold its process until mutmut's
    # bound for all the function's tests. Past (its own time on the unmutated code + the constant) x the multiplier,
    # the test is interrupted and skipped and the others run: the mutant is killed if any of them fails, and a
    # timeout otherwise (`pytest_sessionfinish`), or as soon as a second test is past its deadline. A test with a
    # timeout of its own (pytest-timeout's marker: a hang is its failure) keeps it.
    if "__mutmut_" not in get_mutant_under_test() or item.get_closest_marker("timeout") is not None:
        return (yield)
    multiplier = float(os.environ.get("MUTATION_TIMEOUT_MULTIPLIER", "10"))
    constant = float(os.environ.get("MUTATION_TIMEOUT_CONSTANT", "3"))
    deadline = (_durations.get(item.nodeid, 0.0) + constant) * multiplier

    def interrupt(*_):
        raise _Hung

    previous_handler = signal.signal(signal.SIGALRM, interrupt)
    previous_delay, _ = signal.setitimer(signal.ITIMER_REAL, deadline, 1.0)  # again each second, until it ends
    started = time.monotonic()
    try:
        return (yield)
    except _Hung:
        _hung.append(item.nodeid)
        if len(_hung) > 1:  # a second test that would not end: the loop is the function's, not one test's
            os.kill(os.getpid(), signal.SIGXCPU)  # a timeout now, not after each other test's deadline in turn
        pytest.skip(f"past its deadline of {deadline:.0f} s under the mutant")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay:  # pytest-timeout's own alarm, for what is left of the test
            signal.setitimer(signal.ITIMER_REAL, max(previous_delay - (time.monotonic() - started), 0.001))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if _hung and exitstatus == 0:  # no test failed, and one would not end: a timeout, as mutmut counts its own
        os.kill(os.getpid(), signal.SIGXCPU)


def _killers_file() -> str:
    """Where the tests that killed mutants of the function under test are listed, one a line."""
    function = get_mutant_under_test().partition("__mutmut_")[0]
    return os.path.join(os.environ["MUTATION_KILLERS"], function)


def pytest_runtest_logreport(report):
    if report.failed and "__mutmut_" in get_mutant_under_test() and os.environ.get("MUTATION_KILLERS"):
        with open(_killers_file(), "a") as f:  # one short line a write: appends from parallel mutants stay whole
            f.write(report.nodeid + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report):
    # A mutant that breaks the import of a test module is killed. pytest would report it as "interrupted" (exit
    # status 2, which mutmut counts as interrupted by the user) or, when mutmut passes test ids, as "not found"
    # (status 4, which mutmut's fork server turns into 255 and counts as a timeout). This process runs one mutant
    # and nothing else, so end it as a failed test run.
    if report.failed and "__mutmut_" in get_mutant_under_test():
        os._exit(1)


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    if "__mutmut_" in get_mutant_under_test():
        # mutmut names a mutant's tests by the ids it recorded on the unmutated code. A parametrized test whose
        # parameters the package computes (the lines a host writes) has other ids under a mutant that changes them,
        # and pytest, finding no test by the recorded id, would exit with status 4 ("not found"), which mutmut counts
        # as a timeout. Run every parametrization of each test function named instead: what the test is under the
        # mutant.
        named: set[str] = set()
        kept = []
        for arg in args:
            if "::" in arg:
                _recorded.add(arg)
                arg = arg.partition("[")[0]
                if arg in named:
                    continue
                named.add(arg)
            kept.append(arg)
        args[:] = kept
    # The same as for a test module for a mutant that breaks the import of the package itself (code run at import,
    # such as a pattern compiled from a function's result), which tests/conftest.py imports: pytest would exit with
    # status 4 before any test module is collected.
    try:
        return (yield)
    except Exception:
        if "__mutmut_" in get_mutant_under_test():
            os._exit(1)
        raise
PY
export PYTHONPATH="$HARNESS"
mkdir -p "$WORK/killers"
export MUTATION_KILLERS="$WORK/killers"

# The modules the fork server imports once (third-party ones: pytest, pydantic, mcp, hypothesis, ...): everything the
# test file imports except the package and the tests, which each mutant's process imports afresh, with its mutant
# active, so that code run at import (module-level fixtures, constants built by calls) runs mutated too.
write_preload() {  # write_preload MODULE OUT TEST_FILE..., run in the copy
  "$PY" - "$1" "$2" "$REPO" "${@:3}" <<'PY' >/dev/null 2>&1
import sys
from pathlib import Path

_module, out, repo, *tests = sys.argv[1:]
original = (Path(repo) / "python_ext").resolve()
sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != original]
sys.path.insert(0, str(Path("src").resolve()))
before = set(sys.modules)
import pytest  # noqa: E402

pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *tests])
here = Path.cwd().resolve()
names = []
for name, loaded in list(sys.modules.items()):
    top = name.partition(".")[0]
    if name in before or top in ("mcp_rendering", "tests", "conftest", "mutation_harness", "__main__"):
        continue
    file = getattr(loaded, "__file__", None)
    if file and here in Path(file).resolve().parents:
        continue
    names.append(name)
Path(out).write_text("\n".join(names) + "\n")
PY
}

failed=0
results=()
for module in "${modules[@]}"; do
  mapfile -t tests < <(test_files "$module")
  echo "== $module: $PACKAGE_DIR/$module.py against ${tests[*]}"
  RUN="$WORK/$module"
  rm -rf "$RUN"
  cp -a "$COPY" "$RUN"
  {
    cat "$WORK/pyproject.orig.toml"
    cat <<TOML

# Generated by scripts/mutation.sh in a temporary copy; not part of the repository.
[tool.mutmut]
source_paths = ["src/$PACKAGE"]
only_mutate = ["src/$PACKAGE/$module.py"]
pytest_add_cli_args_test_selection = [$(printf '"%s", ' "${tests[@]}" | sed 's/, $//')]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "mutation_harness"]
also_copy = [${also_copy%, }]
process_isolation = "$isolation"
forkserver_warmup = "import"
preload_modules_file = "$WORK/preload-$module.txt"
timeout_multiplier = $multiplier
timeout_constant = $constant
use_git_change_detection = false
TOML
  } > "$RUN/pyproject.toml"
  (cd "$RUN" && write_preload "$module" "$WORK/preload-$module.txt" "${tests[@]}") || : > "$WORK/preload-$module.txt"
  mutate_and_report "$module"
done

summarize
exit "$failed"
}

main "$@"
