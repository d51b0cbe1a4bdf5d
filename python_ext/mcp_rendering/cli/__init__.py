"""The `mcp-rendering` command: `demo`, `inspect` and `audit`.

- `mcp-rendering demo [--example NAME]` starts one of the example servers over stdio, connects the reference host
  and shows, step by step, what the user sees and whether it is faithful to the result (`mcp_rendering.cli.demo`).
- `mcp-rendering inspect [--strict] [--call TOOL --args JSON] -- COMMAND...` reports what any stdio MCP server
  declares and in which carrier, judged on the raw wire values (`mcp_rendering.cli.inspect`).
- `mcp-rendering audit RESULT.json TRANSCRIPT.txt` checks a transcript against a tool result
  (`mcp_rendering.audit.audit_main`).

`audit` and `--version` need only the package itself; `demo` and `inspect` need the MCP Python SDK 2.x (the `sdk`
extra), imported only when one of them runs.

Exit status: 0 success; 1 a finding (an infidelity, a strict check that fails, a demo that did not audit clean);
2 nothing to judge (a usage error, a server that cannot be inspected, input `audit` cannot read), so that a CI
step can tell a failed check from a check that could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from typing import TextIO, cast

from mcp_rendering._version import __version__

__all__ = ["main"]

_EXAMPLES = ("financial", "screening", "orgchart")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-rendering",
        description="Rendering hints for MCP tool results: a demo, an inspector for any stdio server, and an audit.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="run an example server and show its result as the reference host does")
    demo.add_argument("--example", choices=_EXAMPLES, default="financial", help="default: %(default)s")
    demo.add_argument("--all-pages", action="store_true", help="print every page of a paged result in full")
    demo.add_argument("--save", metavar="DIR", help="save the first result and what was shown, for `audit`")

    inspect = commands.add_parser(
        "inspect",
        help="report the rendering hints and directives of any stdio MCP server",
        usage="%(prog)s [--timeout S] [--call TOOL [--args JSON]] [--json] [--strict] [--no-extension] -- COMMAND ...",
    )
    inspect.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each answer (default 10)")
    inspect.add_argument("--call", metavar="TOOL", help="also call TOOL and judge its result's directive")
    inspect.add_argument("--args", metavar="JSON", help="arguments for --call, as a JSON object")
    inspect.add_argument("--json", action="store_true", help="print the report as JSON")
    inspect.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a value is malformed or a hint or directive lacks the _meta carrier",
    )
    inspect.add_argument("--no-extension", action="store_true", help="do not declare the rendering extension")
    inspect.add_argument("server_command", nargs=argparse.REMAINDER, help="the server command, after --")

    # Parsed by `audit_main` itself; listed here for `--help`.
    commands.add_parser("audit", help="audit a transcript against a tool result: RESULT.json TRANSCRIPT.txt")
    return parser


def _inspect(args: argparse.Namespace, out: TextIO) -> int:
    from mcp_rendering.cli.inspect import InspectError, format_report, inspect_server

    command: list[str] = list(args.server_command)
    if command and command[0] == "--":
        command = command[1:]
    arguments: dict[str, object] = {}
    try:
        if not args.timeout > 0:
            raise InspectError(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
        if args.args is not None:
            if args.call is None:
                raise InspectError("--args needs --call TOOL")
            try:
                parsed = json.loads(args.args)
            except ValueError as error:
                raise InspectError(f"--args is not JSON: {error}") from None
            if not isinstance(parsed, dict):
                raise InspectError("--args must be a JSON object")
            arguments = cast("dict[str, object]", parsed)
        report = asyncio.run(
            inspect_server(
                command,
                timeout=args.timeout,
                call=args.call,
                arguments=arguments,
                declare_extension=not args.no_extension,
            )
        )
    except InspectError as error:
        print(f"mcp-rendering inspect: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        # ASCII escapes: no server string can reach the terminal raw.
        out.write(json.dumps(report.to_json(), indent=2, ensure_ascii=True) + "\n")
    else:
        out.write(format_report(report) + "\n")
    return 1 if args.strict and report.strict_failures else 0


def _demo(args: argparse.Namespace, out: TextIO) -> int:
    from mcp_rendering.cli.demo import DemoError, run_demo

    try:
        return asyncio.run(run_demo(args.example, out, all_pages=args.all_pages, save=args.save))
    except DemoError as error:
        print(f"mcp-rendering demo: error: {error}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] == "audit":
        from mcp_rendering.audit import audit_main

        return audit_main(arguments[1:])
    args = _parser().parse_args(arguments)
    # The readers log malformed values as warnings and inspect reports them itself; without a handler of ours,
    # Python's last-resort handler would print them (and the SDK's transport errors) on stderr, which is kept for
    # one-line errors. An application that configures logging still receives them.
    for name in ("mcp_rendering", "mcp"):
        logging.getLogger(name).addHandler(logging.NullHandler())
    try:
        if args.command == "inspect":
            return _inspect(args, sys.stdout)
        return _demo(args, sys.stdout)
    except KeyboardInterrupt:
        return 130
    except ModuleNotFoundError as error:
        if error.name is not None and error.name.split(".")[0] in ("mcp", "mcp_types"):
            print(
                f"mcp-rendering {args.command}: error: it needs the MCP Python SDK 2.x: "
                "pip install 'mcp-rendering[sdk]'",
                file=sys.stderr,
            )
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
