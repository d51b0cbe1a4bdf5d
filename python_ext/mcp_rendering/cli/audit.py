"""`mcp-rendering audit RESULT.json [MORE.json ...] TRANSCRIPT`: check what a host showed against the tool result it
showed.

Several RESULT files are the parts of one continued result, in the order they were fetched: the transcript is
audited against them as one (`mcp_rendering.audit.audit` with a list). Each holds a `CallToolResult` as wire JSON,
either alone or as the `result` of the JSON-RPC response that carried it (what a saved exchange or a proxy log
holds). Anything else (a JSON-RPC error or request, an object with no `content` array, an array, a scalar) is not a
result, and is refused with exit status 2 rather than audited as an empty one.

`--tool TOOL.json` (the `Tool` that returned the result, as wire JSON: its entry of `tools/list`) and `--arguments
ARGUMENTS.json` (the arguments of the call, a JSON object) read one result as the host read it (`audit(...,
tool=..., arguments=...)`): a continuation the host can follow must then be offered by the notice, and a later part
shown as partial. Without them the result is read alone, as its own carriers say."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, Literal, TextIO, cast

from mcp_rendering.audit import MAX_RESULT_BYTES, MAX_TRANSCRIPT_CHARS, AuditInputError, audit
from mcp_rendering.cli._input import InputError, parse_json, read_text_file
from mcp_rendering.render import visible

__all__ = ["add_arguments", "arguments_of", "markup_of", "result_of", "run_audit", "tool_of"]

_JSON_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "a boolean"),  # before int: a bool is an int
    ((int, float), "a number"),
    (str, "a string"),
    (list, "an array"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `audit`, for the command line's parser."""
    parser.add_argument(
        "result",
        nargs="+",
        help="the CallToolResult as wire JSON, alone or as a JSON-RPC response's result; several files: the parts of "
        "one continued result, in the order fetched, audited as one",
    )
    parser.add_argument("transcript", help="the text the host showed the user (UTF-8)")
    parser.add_argument(
        "--markup",
        choices=("auto", "text", "markdown"),
        default=None,
        help="how the transcript was displayed (default: by its name, text for .txt, markdown for .md or "
        ".markdown, else detect)",
    )
    parser.add_argument(
        "--tool",
        metavar="TOOL.json",
        help="the Tool that returned the result, as wire JSON (its tools/list entry): the result is read as the host "
        "read it, a continuation the host can follow included",
    )
    parser.add_argument(
        "--arguments",
        metavar="ARGUMENTS.json",
        help="the arguments of the call that returned the result, a JSON object (with --tool)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def result_of(value: Any) -> dict[str, Any]:
    """The `CallToolResult` that a parsed RESULT.json holds: the value itself, or a JSON-RPC response's `result`.

    Raises:
        InputError: the value is not a result, nor a successful response carrying one.
    """
    if not isinstance(value, Mapping):
        raise InputError(f"the result file holds {_kind_of(value)}, not a CallToolResult object")
    document = cast("Mapping[str, Any]", value)
    if "jsonrpc" in document:
        if "error" in document:
            error = document["error"]
            code: object = cast("Mapping[str, Any]", error).get("code") if isinstance(error, Mapping) else None
            raise InputError(f"the result file holds a JSON-RPC error response (code {code!a}), not a result")
        if "method" in document:
            raise InputError("the result file holds a JSON-RPC request or notification, not a result")
        if "result" not in document:
            raise InputError("the result file holds a JSON-RPC message with neither result nor error")
        return _result_of_response(document["result"])
    return _result_of_response(document)


def _result_of_response(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"the result file's result is {_kind_of(value)}, not a CallToolResult object")
    if not isinstance(cast("Mapping[str, Any]", value).get("content"), list):
        raise InputError("the result file holds no CallToolResult: a result has a content array")
    return dict(cast("Mapping[str, Any]", value))


def _kind_of(value: Any) -> str:
    return next(name for types, name in _JSON_KINDS if isinstance(value, types))


def tool_of(value: Any) -> dict[str, Any]:
    """The `Tool` that a parsed TOOL.json holds: an object with a `name` string and an `inputSchema` object.

    Raises:
        InputError: the value is not one tool (a `tools/list` result holding several is refused too).
    """
    if not isinstance(value, Mapping):
        raise InputError(f"the tool file holds {_kind_of(value)}, not a Tool object")
    tool = cast("Mapping[str, Any]", value)
    if isinstance(tool.get("tools"), list) or isinstance(tool.get("result"), Mapping):
        raise InputError("the tool file holds a tools/list result or response, not one Tool: save the tool's own entry")
    if not isinstance(tool.get("name"), str) or not isinstance(tool.get("inputSchema"), Mapping):
        raise InputError("the tool file holds no Tool: a tool has a name string and an inputSchema object")
    return dict(tool)


def arguments_of(value: Any) -> dict[str, Any]:
    """The call's arguments that a parsed ARGUMENTS.json holds: a JSON object.

    Raises:
        InputError: the value is not an object.
    """
    if not isinstance(value, Mapping):
        raise InputError(f"the arguments file holds {_kind_of(value)}, not a JSON object of the call's arguments")
    return dict(cast("Mapping[str, Any]", value))


def markup_of(transcript: str) -> Literal["auto", "text", "markdown"]:
    """The markup a transcript file's name says it holds: a `.txt` file is plain text (a host's text view, whose
    labels may hold Markdown characters that are not markup), a `.md` file Markdown; anything else is detected."""
    suffix = PurePath(transcript).suffix.lower()
    if suffix == ".txt":
        return "text"
    if suffix in (".md", ".markdown"):
        return "markdown"
    return "auto"


def run_audit(args: argparse.Namespace, out: TextIO) -> int:
    """Run `audit` on parsed arguments: 0 clean, 1 not faithful.

    Raises:
        InputError: input that cannot be audited (the command line exits 2).
    """
    files: list[str] = args.result
    if args.arguments is not None and args.tool is None:
        raise InputError("--arguments needs --tool: the call's arguments are read against the tool's definition")
    if args.tool is not None and len(files) > 1:
        raise InputError("--tool and --arguments read one result; the parts of a continued result are read without")
    tool = None if args.tool is None else tool_of(_json_file(args.tool, "tool file"))
    arguments = None if args.arguments is None else arguments_of(_json_file(args.arguments, "arguments file"))
    parts = [result_of(_json_file(name, "result file")) for name in files]
    # Four UTF-8 bytes at most per character: a file within this many bytes may still be within the limit.
    shown = read_text_file(args.transcript, MAX_TRANSCRIPT_CHARS * 4, "transcript")
    try:
        markup = args.markup or markup_of(args.transcript)
        if len(parts) == 1:
            report = audit(shown, parts[0], markup=markup, tool=tool, arguments=arguments)
        else:
            report = audit(shown, parts, markup=markup)
    except AuditInputError as error:
        raise InputError(visible(" ".join(str(error).split()))) from None
    except RecursionError:
        raise InputError("the result is nested too deeply to audit") from None
    if args.json:
        # ASCII escapes: no server string reaches the terminal raw.
        out.write(json.dumps(report.to_json(), indent=2, ensure_ascii=True) + "\n")
    else:
        out.write(report.format() + "\n")
    return 0 if report.clean else 1


def _json_file(name: str, what: str) -> Any:
    return parse_json(read_text_file(name, MAX_RESULT_BYTES, what), what)
