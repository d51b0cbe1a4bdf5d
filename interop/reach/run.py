"""Command line of the reach harness (run from the repository root with the project's environment).

    python -m interop.reach                 # set up the environments, measure, write results.json and the tables
    python -m interop.reach --check         # measure again; fail on any cell or table that differs; write nothing
    python -m interop.reach [--check] NAME  # the same for the configurations of the environments named only
    python -m interop.reach --check-tables  # offline: fail when a table differs from what results.json gives
    python -m interop.reach --tables        # offline: rewrite the tables from results.json
    python -m interop.reach --setup [NAME]  # only create or refresh the environments (all, or those named)
    python -m interop.reach --lock [NAME]   # re-resolve the pins and rewrite requirements-<name>.txt

The environments are cached outside the clone, one per lock (see `envs`); `.venv-reach/` at the repository root,
which git ignores, links to them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from interop.reach import tables
from interop.reach.envs import BY_NAME, ENVIRONMENTS, REACH, ROOT, Environment, SetupError, ensure, lock
from interop.reach.measure import CONFIGURATIONS, measure

RESULTS = REACH / "results.json"
PARALLEL_INSTALLS = 4
"""Installs at a time: more only share the same disk and network, and each must finish within pip's timeout."""


def _log(message: str) -> None:
    sys.stderr.write(f"reach: {message}\n")  # one write per line: the environments report from threads
    sys.stderr.flush()


def setup(envs: Sequence[Environment]) -> None:
    """Create or refresh the environments, in parallel, saying how long each took."""

    def one(env: Environment) -> None:
        took = ensure(env)
        _log(f"{env.name}: {'up to date' if took is None else f'installed in {took:.0f} s'} ({env.path})")

    with ThreadPoolExecutor(min(len(envs), PARALLEL_INSTALLS)) as pool:
        for future in [pool.submit(one, env) for env in envs]:
            future.result()


def load_results() -> dict[str, Any]:
    return json.loads(RESULTS.read_text(encoding="utf-8"))


def dump_results(results: Mapping[str, Any]) -> str:
    return json.dumps(results, indent=2, ensure_ascii=False) + "\n"


def differences(expected: Mapping[str, Any], measured: Mapping[str, Any]) -> list[str]:
    """One line per cell, final answer or version that differs between two results."""
    problems: list[str] = []
    if expected.get("versions") != measured.get("versions"):
        problems.append(f"versions: recorded {expected.get('versions')}, measured {measured.get('versions')}")
    kinds = ("cells", "answers", "outcomes")
    old = {cell["id"]: cell for kind in kinds for cell in expected.get(kind, [])}
    new = {cell["id"]: cell for kind in kinds for cell in measured.get(kind, [])}
    for key in sorted(old.keys() | new.keys()):
        if old.get(key) != new.get(key):
            problems.append(f"{key}: recorded {json.dumps(old.get(key))}, measured {json.dumps(new.get(key))}")
    return problems


def merge(recorded: Mapping[str, Any], measured: Mapping[str, Any], envs: Sequence[str]) -> dict[str, Any]:
    """`recorded` with the measurements of the environments `envs` replaced by `measured`'s, in the order a whole
    measurement writes them (by configuration)."""
    order = {configuration.id: index for index, configuration in enumerate(CONFIGURATIONS)}
    chosen = {configuration.id for configuration in CONFIGURATIONS if configuration.env in envs}
    merged = {**recorded, **{key: value for key, value in measured.items() if key not in ("versions",)}}
    for kind in ("cells", "answers", "outcomes"):
        kept = [cell for cell in recorded.get(kind, []) if cell["configuration"] not in chosen]
        merged[kind] = sorted([*kept, *measured.get(kind, [])], key=lambda cell: order[cell["configuration"]])
    versions = {**recorded.get("versions", {}), **measured.get("versions", {})}
    merged["versions"] = {env: versions[env] for env in dict.fromkeys(c.env for c in CONFIGURATIONS) if env in versions}
    return merged


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m interop.reach", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--check", action="store_true", help="measure again and compare; write nothing")
    modes.add_argument("--check-tables", action="store_true", help="compare the tables with results.json only")
    modes.add_argument("--tables", action="store_true", help="rewrite the tables from results.json only")
    modes.add_argument("--setup", action="store_true", help="only create or refresh the environments")
    modes.add_argument("--lock", action="store_true", help="re-resolve the pins into the lock files")
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"environments to set up, lock or measure: {', '.join(BY_NAME)}"
    )
    args = parser.parse_args(argv)
    if args.names and (args.tables or args.check_tables):
        parser.error("--tables and --check-tables read results.json whole: no environment names")
    if unknown := [name for name in args.names if name not in BY_NAME]:
        parser.error(f"unknown environment {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    chosen = [BY_NAME[name] for name in args.names] or list(ENVIRONMENTS)

    try:
        if args.lock:
            with ThreadPoolExecutor(len(chosen)) as pool:
                for path in pool.map(lock, chosen):
                    _log(f"locked {_relative(path)}")
            return 0
        if args.check_tables or args.tables:
            results = load_results()
            if args.tables:
                for path in tables.write(results):
                    _log(f"updated {_relative(path)}")
                return 0
            problems = [
                f"{_relative(path)} is stale: run `python -m interop.reach --tables`" for path in tables.stale(results)
            ]
            for problem in problems:
                _log(problem)
            return 1 if problems else 0
        used = {configuration.env for configuration in CONFIGURATIONS}
        if args.names and not args.setup and (unmeasured := [name for name in args.names if name not in used]):
            parser.error(f"no configuration is measured in {', '.join(unmeasured)}")
        setup(chosen if args.setup or args.names else ENVIRONMENTS)
        if args.setup:
            return 0
        started = time.monotonic()
        fresh = measure(args.names)
        _log(f"measured {len(fresh['cells'])} cells in {time.monotonic() - started:.0f} s")
        measured = merge(load_results(), fresh, args.names) if args.names else fresh
        if args.check:
            problems = differences(load_results(), measured)
            problems += [f"{_relative(path)} is stale" for path in tables.stale(load_results())]
            for problem in problems:
                _log(problem)
            return 1 if problems else 0
        RESULTS.write_text(dump_results(measured), encoding="utf-8")
        _log(f"wrote {_relative(RESULTS)}")
        for path in tables.write(measured):
            _log(f"updated {_relative(path)}")
        return 0
    except (SetupError, tables.MarkerError) as error:
        _log(str(error))
        return 2


if __name__ == "__main__":
    sys.exit(main())
