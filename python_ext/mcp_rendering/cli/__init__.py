"""The `mcp-rendering` command: `demo`, `inspect` and `audit`; alone, it prints its help.

- `mcp-rendering demo [--example NAME]` starts one of the example servers over stdio, connects the reference host
  and shows, step by step, what the user sees and whether it is faithful to the result (`mcp_rendering.cli.demo`).
- `mcp-rendering inspect [--strict] [--call TOOL --args JSON] -- COMMAND...` reports what any stdio MCP server
  declares and in which carrier, judged on the raw wire values (`mcp_rendering.cli.inspect`).
- `mcp-rendering audit [--tool TOOL.json --arguments ARGUMENTS.json] RESULT.json TRANSCRIPT.txt` checks a
  transcript against a tool result, saved alone or as the JSON-RPC response that carried it, read with the tool
  and the call's arguments when given (`mcp_rendering.cli.audit`).

`audit` and `--version` need only the package itself; `demo` and `inspect` need the MCP Python SDK 2.x (the `sdk`
extra). Without it, or beside the SDK's 1.x line, they exit 2 with one line saying what to install.

Exit status: 0 success; 1 a finding (an infidelity, a strict check that fails, a demo that did not audit clean);
2 nothing to judge (a usage error, a missing dependency, a server that cannot be inspected, input that cannot be
read), so that a CI step can tell a failed check from a check that could not run; 130 on Ctrl-C; 141 when the
reader of the output went away (`| head`), silently, as for any command killed by SIGPIPE.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import importlib.metadata
import io
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import TextIO, TypeVar, cast

from mcp_rendering._version import __version__
from mcp_rendering.cli._input import CommandError, InputError, parse_json

__all__ = ["main"]

_EXAMPLES = ("financial", "screening", "orgchart")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-rendering",
        description="Rendering hints for MCP tool results: a demo, an inspector for any stdio server, and an audit.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser(
        "demo",
        help="run an example server and show its result as the reference host does",
        description="Start an example server over stdio, call its verbatim tool, and show what the user sees, the "
        "framing the model receives and the audit of the shown text; then, for contrast, the audit of the kind of "
        "summary a host writes when nothing asks it not to. A paged result is followed to its last part, each part "
        "audited, and the first record that has a URI is read again through resources/read.",
    )
    demo.add_argument("--example", choices=_EXAMPLES, default="financial", help="default: %(default)s")
    demo.add_argument("--all-pages", action="store_true", help="print every page of a paged result in full")
    demo.add_argument(
        "--save",
        metavar="DIR",
        help="save the first result, what was shown, the tool and the call's arguments, for `audit`",
    )

    inspect = commands.add_parser(
        "inspect",
        help="report the extensions, hints and directives of any stdio MCP server",
        usage="%(prog)s [--timeout S] [--call TOOL [--args JSON]] [--json] [--strict] [--no-extension] -- COMMAND ...",
        description="Start a stdio MCP server, connect to it as a client would, and report what it declares: "
        "whether its capabilities declare the rendering and the result continuation extensions, each tool's "
        "rendering hints in both carriers (the normative _meta one and the core annotations) and its continuation "
        "argument, and, with --call, one result's directive in each carrier and its continuation. Every value is "
        "judged as it was on the wire, before any SDK model read it.",
    )
    inspect.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each answer (default 10)")
    inspect.add_argument("--call", metavar="TOOL", help="also call TOOL and judge its result's directive")
    inspect.add_argument("--args", metavar="JSON", help="arguments for --call, as a JSON object")
    inspect.add_argument("--json", action="store_true", help="print the report as JSON")
    inspect.add_argument(
        "--strict",
        action="store_true",
        help="state the strict check's verdict and exit 1 when it fails: a malformed value, a hint or directive "
        "without the _meta carrier, a continuation that does not say complete: false or states no expiry, hints "
        "from a server that does not declare rendering, a paged tool on a server that does not declare result "
        "continuation",
    )
    inspect.add_argument("--no-extension", action="store_true", help="do not declare the rendering extension")
    inspect.add_argument("server_command", nargs=argparse.REMAINDER, help="the server command, after --")

    from mcp_rendering.audit import MAX_RESULT_BYTES, MAX_TRANSCRIPT_CHARS
    from mcp_rendering.cli.audit import add_arguments

    add_arguments(
        commands.add_parser(
            "audit",
            help="audit a transcript against a tool result (or its parts): RESULT.json [MORE.json ...] TRANSCRIPT",
            description="Check that a transcript shows a tool result whole, in order, unaltered and nothing more. "
            "Exit status: 0 clean, 1 not faithful, 2 input that cannot be audited (a result file over "
            f"{MAX_RESULT_BYTES} bytes or a transcript over {MAX_TRANSCRIPT_CHARS} characters is refused unread).",
        )
    )
    return parser


_Caught = TypeVar("_Caught", bound=BaseException)

_SDK_MAJOR = 2


def _sdk_problem(command: str) -> str | None:
    """Why `command` cannot run in this environment, naming what to install; None when it can."""
    needs = f"mcp-rendering {command}: error: it needs the MCP Python SDK {_SDK_MAJOR}.x"
    try:
        version = importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        return f"{needs}: pip install 'mcp-rendering[sdk]'"
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) != _SDK_MAJOR:
        return (
            f"{needs}, and this environment has mcp {version}: install 'mcp-rendering[sdk]' in an environment "
            "of its own (python -m venv)"
        )
    try:
        importlib.metadata.version("mcp-types")
    except importlib.metadata.PackageNotFoundError:
        return f"{needs} with mcp-types: pip install 'mcp-rendering[sdk]'"
    return None


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
                parsed = parse_json(args.args, "--args value")
            except InputError as error:
                raise InspectError(str(error)) from None
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
        out.write(format_report(report, strict=args.strict) + "\n")
    return 1 if args.strict and report.strict_failures else 0


def _demo(args: argparse.Namespace, out: TextIO) -> int:
    from mcp_rendering.cli.demo import DemoError, run_demo

    try:
        return asyncio.run(run_demo(args.example, out, all_pages=args.all_pages, save=args.save))
    except DemoError as error:
        print(f"mcp-rendering demo: error: {error}", file=sys.stderr)
        return 2


class _OutputGone(Exception):
    """Writing the output failed; `error` says why (EPIPE: its reader went away)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


class _Output(io.TextIOBase):
    """Standard output that turns a failed write into `_OutputGone`, so that only output errors are caught as such."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            raise _OutputGone(error) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            raise _OutputGone(error) from None


def _inner(error: BaseException, kind: type[_Caught]) -> _Caught | None:
    """`error` itself or the first `kind` inside it: a task group (the SDK's transports) wraps what its tasks raise."""
    if isinstance(error, kind):
        return error
    for inner in cast("Sequence[BaseException]", getattr(error, "exceptions", ())):
        found = _inner(inner, kind)
        if found is not None:
            return found
    return None


def _run(args: argparse.Namespace, out: TextIO) -> int:
    if args.command == "audit":
        from mcp_rendering.cli.audit import run_audit

        return run_audit(args, out)
    problem = _sdk_problem(args.command)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    # The readers log malformed values as warnings and inspect reports them itself; without a handler of ours,
    # Python's last-resort handler would print them (and the SDK's transport errors) on stderr, which is kept for
    # one-line errors. An application that configures logging still receives them.
    for name in ("mcp_rendering", "mcp"):
        logging.getLogger(name).addHandler(logging.NullHandler())
    if args.command == "inspect":
        return _inspect(args, out)
    return _demo(args, out)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help()
        return 2
    out = _Output(sys.stdout)
    try:
        status = _run(args, cast("TextIO", out))
        out.flush()
    except (Exception, KeyboardInterrupt) as error:
        if _inner(error, KeyboardInterrupt) is not None:
            return 130
        refused = _inner(error, CommandError)
        if refused is not None:
            print(f"mcp-rendering {args.command}: error: {refused}", file=sys.stderr)
            return 2
        gone = _inner(error, _OutputGone)
        if gone is None:
            raise
        if gone.error.errno == errno.EPIPE:
            # Nothing more can reach the reader; point stdout at nothing so that the exit flush stays quiet.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
        print(f"mcp-rendering {args.command}: error: cannot write the output: {gone.error.strerror}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
