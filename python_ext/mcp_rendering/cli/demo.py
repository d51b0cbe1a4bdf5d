"""`mcp-rendering demo`: one example server over stdio, the reference host, and the fidelity audit, narrated.

It starts an example server as a subprocess, connects `mcp.Client` with the extension declared, and shows step by
step what the user sees, the framing the model receives, and the audit of the shown text; then, for contrast, the
audit of the kind of summary a host writes when nothing asks it not to.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Mapping
from typing import Any, TextIO, cast

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextResourceContents, Tool
from pydantic import BaseModel

from mcp_rendering.audit import AuditReport, audit
from mcp_rendering.cli._input import CommandError
from mcp_rendering.document import Document
from mcp_rendering.examples import EXAMPLES, module_of
from mcp_rendering.extension import client_extension
from mcp_rendering.host import present
from mcp_rendering.reading import combine_parts, read_tool_hints, resolve_rendering
from mcp_rendering.render import cell_text, visible
from mcp_rendering.types import EXTENSION_ID

__all__ = ["DemoError", "run_demo"]

_HINTS = ("verbatimHint", "summarizeOkHint")


class DemoError(CommandError):
    """The demo could not run; the message is one line."""


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


_WRAP = 100


class _Narrator:
    """Numbered steps, indented details and framed blocks, so that a first-time reader can follow along."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.step = 0

    def line(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def title(self, text: str) -> None:
        self.line(text)
        self.line("=" * len(text))

    def heading(self, text: str) -> None:
        self.step += 1
        self.line()
        self.line(f"[{self.step}] {text}")

    def detail(self, text: str, *, prefix: str = "") -> None:
        """Indented text, wrapped for a terminal; `prefix` starts every line (for quoting)."""
        for paragraph in text.splitlines() or [""]:
            wrapped = textwrap.wrap(paragraph, _WRAP - len(prefix), break_on_hyphens=False) or [""]
            for part in wrapped:
                self.line(f"    {prefix}{part}")

    def framed(self, label: str, body: str) -> None:
        """`body` verbatim (never wrapped: it is the rendering under audit) between two rules."""
        self.line(f"    ---- {label} " + "-" * max(3, _WRAP - 6 - len(label)))
        for part in body.rstrip("\n").splitlines():
            self.line(f"    {part}")
        self.line("    " + "-" * _WRAP)


def _wire_of(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _hint_summary(tool: Tool) -> str:
    hints = read_tool_hints(tool)
    parts: list[str] = []
    if hints.verbatim_hint is not None:
        parts.append(f"verbatimHint={str(hints.verbatim_hint).lower()}")
    if hints.summarize_ok_hint is not None:
        parts.append(f"summarizeOkHint={str(hints.summarize_ok_hint).lower()}")
    return ", ".join(parts) or "no rendering hints"


def _carriers(tool: Tool) -> str:
    wire = _wire_of(tool)
    annotations = wire.get("annotations")
    meta = wire.get("_meta")
    found: list[str] = []
    if isinstance(annotations, Mapping) and any(hint in annotations for hint in _HINTS):
        found.append("annotations")
    if isinstance(meta, Mapping) and EXTENSION_ID in meta:
        found.append("_meta")
    return " + ".join(found) or "no carrier"


def _row_ids(document: Document | None) -> list[str]:
    return [] if document is None else [row.id for section in document.sections for row in section.rows]


def _first_uri(document: Document | None) -> str | None:
    if document is None:
        return None
    return next((row.uri for section in document.sections for row in section.rows if row.uri), None)


def _typical_summary(document: Document) -> str:
    """What a summarizing host tends to show: the title and each section's last total, nothing else."""
    lines = [document.title]
    for section in document.sections:
        totals = [row for row in section.rows if row.kind == "total"]
        if totals:
            row = totals[-1]
            figures = (cell_text(value) for value in row.values)
            lines.append(f"{row.label}: {', '.join(figure for figure in figures if figure)}")
    return "\n".join(lines)


def _verdict(report: AuditReport) -> str:
    if report.clean:
        return f"score {report.score:.2f}, clean"
    return f"score {report.score:.2f}, NOT clean ({len(report.issues)} issue(s))"


_SAVED = ("result.json", "transcript.txt", "tool.json", "arguments.json")
"""What `--save` writes: the first result, what was shown, the tool that returned it and the call's arguments."""


def _save_paths(directory: str) -> tuple[str, ...]:
    """The files `--save` writes (`_SAVED`), checked now (and left untouched), so that a path that cannot be written is
    refused before the demo runs rather than after, and a failed run keeps what an earlier one saved.

    Raises:
        DemoError: the directory cannot be written, or a file is a symbolic link or not a regular file.
    """
    paths = tuple(os.path.join(directory, name) for name in _SAVED)
    try:
        os.makedirs(directory, exist_ok=True)
        for path in paths:
            if os.path.islink(path):
                raise OSError(errno.ELOOP, "is a symbolic link, which --save does not follow", path)
            if os.path.lexists(path) and not os.path.isfile(path):
                code = errno.EISDIR if os.path.isdir(path) else errno.EINVAL
                raise OSError(code, os.strerror(code) if code == errno.EISDIR else "not a regular file", path)
        descriptor, probe = tempfile.mkstemp(dir=directory, prefix=".mcp-rendering-")
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        where = ascii(error.filename) if error.filename else ascii(directory)
        raise DemoError(f"cannot save into {directory!a}: {where}: {error.strerror or error}") from None
    return paths


def _replace_atomically(path: str, text: str) -> None:
    """Write `text` to a new file beside `path`, then rename it over `path`: a reader sees the old file or the
    new one, never a truncated one, and a symbolic link at `path` is replaced, never written through."""
    descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".mcp-rendering-")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _save(paths: tuple[str, ...], result: CallToolResult, shown: str, tool: Tool, arguments: dict[str, Any]) -> None:
    result_path, shown_path, tool_path, arguments_path = paths
    try:
        for path in paths:
            if os.path.islink(path):  # appeared since the run started
                raise OSError(errno.ELOOP, "is a symbolic link, which --save does not follow", path)
        _replace_atomically(result_path, json.dumps(_wire_of(result), indent=2, ensure_ascii=False) + "\n")
        _replace_atomically(shown_path, shown)
        _replace_atomically(tool_path, json.dumps(_wire_of(tool), indent=2, ensure_ascii=False) + "\n")
        _replace_atomically(arguments_path, json.dumps(arguments, indent=2, ensure_ascii=False) + "\n")
    except OSError as error:
        raise DemoError(f"cannot save {error.filename!a}: {error.strerror or error}") from None


async def run_demo(example: str, out: TextIO, *, all_pages: bool = False, save: str | None = None) -> int:
    """Run one example end to end and narrate it.

    Returns 0 when every page audits clean and a paged result is walked to its end with no record repeated.
    """
    save_paths = None if save is None else _save_paths(save)  # refused before anything runs
    say = _Narrator(out)
    module = module_of(example)
    say.title(f"mcp-rendering demo: {example}")
    say.detail(f"{EXAMPLES[example]}.")
    say.detail(
        "A tool server marks its result 'verbatim'. The reference host shows it whole, and an audit checks that "
        "what the user sees holds every section, row, subtotal and value of the result, in order."
    )

    say.heading("Start the example server as a subprocess, spoken to over stdio")
    say.detail(f"$ python -m {module}")
    parameters = StdioServerParameters(command=sys.executable, args=["-m", module])

    say.heading("Connect the reference host")
    say.detail(
        f"mcp.Client with the extension {EXTENSION_ID} declared; the hints and the directive travel in "
        "_meta, which the SDK delivers as it is, unpatched"
    )
    clean = True
    paged = False
    async with Client(parameters, extensions=[client_extension()]) as client:
        info = client.server_info
        server_label = info.name if info is not None else None
        server_name = visible(f"{info.name} {info.version}") if info is not None else "(unnamed server)"
        say.detail(f"connected to {server_name}, protocol {client.protocol_version}")

        say.heading("List the tools and the rendering hints they declare")
        tools = (await client.list_tools()).tools
        name_width = max(len(tool.name) for tool in tools)
        hint_width = max(len(_hint_summary(tool)) for tool in tools)
        for tool in tools:
            mode = resolve_rendering(tool, None).mode
            say.detail(
                f"{visible(tool.name):<{name_width}}  {_hint_summary(tool):<{hint_width}}  "
                f"in {_carriers(tool):<19} -> {mode}"
            )
        tool = next((t for t in tools if resolve_rendering(t, None).mode == "verbatim"), None)
        if tool is None:
            raise DemoError(f"the {example} example declares no verbatim tool")

        arguments: dict[str, Any] = {}
        say.heading(f"Call {visible(tool.name)} {json.dumps(arguments)}")
        result = await client.call_tool(tool.name, arguments)
        shown = present(tool, result, server=server_label, arguments=arguments)
        parts = [shown.rendering]
        directive = shown.rendering.directive
        if directive is not None:
            state = "complete" if shown.complete else "INCOMPLETE: a bounded page"
            say.detail(
                f"directive (read from {shown.rendering.source}): mode {directive.mode}, {state}, "
                f"nulls shown as {shown.rendering.null_display!r}"
            )
            if directive.guidance:
                say.detail(f"guidance: {visible(directive.guidance)}")

        extent = "the whole result" if shown.complete else "a part of the result, marked partial"
        say.heading(f"What the user sees (mode {shown.mode}: {extent}, in order)")
        say.framed(shown.caption or "shown to the user", shown.text)
        if shown.framing is not None:
            say.detail("The model receives the same result, with this framing block placed first:")
            say.detail(shown.framing, prefix="| ")

        say.heading("Audit the shown text against the result")
        report = audit(shown.text, result, markup="text", tool=tool, arguments=arguments)
        clean = clean and report.clean
        say.detail(report.format())
        if shown.document is not None:
            summary = _typical_summary(shown.document)
            contrast = audit(summary, result)
            say.detail("For contrast, the kind of summary a host writes when nothing asks it not to:")
            say.detail(summary, prefix="| ")
            say.detail(
                f"its audit: {_verdict(contrast)}; rows missing: {len(contrast.missing)}, "
                f"sections dropped: {len(contrast.dropped_sections)}"
            )
        if save_paths is not None:
            _save(save_paths, result, shown.text, tool, arguments)
            result_path, shown_path, tool_path, arguments_path = save_paths
            say.detail(f"saved: {', '.join(save_paths)}")
            say.detail(
                f"re-run the audit with: mcp-rendering audit --tool {shlex.quote(tool_path)} --arguments "
                f"{shlex.quote(arguments_path)} {shlex.quote(result_path)} {shlex.quote(shown_path)}"
            )

        paged = not shown.complete
        first_uri = _first_uri(shown.document)
        seen = _row_ids(shown.document)
        if not shown.complete:
            say.heading("The result is a bounded page: follow the continuation to the end")
            say.detail(
                f"page 1: {len(seen)} records, audit {_verdict(report)}; the notice tells the user it is partial"
            )
            pages = 1
            following = shown.next_arguments(arguments)
            while following is not None:
                pages += 1
                result = await client.call_tool(tool.name, following)
                if result.is_error:
                    clean = False
                    say.detail(f"page {pages}: the server refused the continuation")
                    break
                # Read with the arguments of its own call: a later part, never the whole on its own.
                shown = present(tool, result, server=server_label, arguments=following)
                parts.append(shown.rendering)
                report = audit(shown.text, result, markup="text", tool=tool, arguments=following)
                clean = clean and report.clean
                ids = _row_ids(shown.document)
                seen.extend(ids)
                status = "the last page" if shown.rendering.continuation is None else "more follow"
                say.detail(f"page {pages}: {len(ids)} records, audit {_verdict(report)}; {status}")
                if all_pages:
                    say.framed(f"page {pages}, shown to the user", shown.text)
                following = shown.next_arguments(following)
            repeated = len(seen) - len(set(seen))
            expected = _page_total(result)
            missing = "" if expected is None else f" of {expected}"
            say.detail(f"walked {pages} pages: {len(seen)}{missing} records, {repeated} repeated")
            whole = combine_parts(parts)[1]  # complete only when the parts chain and the last one ends the result
            clean = clean and whole and repeated == 0 and (expected is None or expected == len(seen))

        if first_uri is not None:
            say.heading("Resolve one record by its canonical URI (resources/read, same caller)")
            say.detail(first_uri)
            read = await client.read_resource(first_uri)
            for content in read.contents:
                if isinstance(content, TextResourceContents):
                    say.framed(content.mime_type or "text/plain", _pretty(content.text))

    say.line()
    if clean and paged:
        say.line(
            "Outcome: each part was shown in order and marked partial until the last, the parts together hold the "
            "whole result, each record once, and the audit found nothing missing or altered."
        )
    elif clean:
        say.line("Outcome: the user saw the whole result, in order, and the audit found nothing missing or altered.")
    else:
        say.line("Outcome: the audit found a problem (see above).")
    return 0 if clean else 1


def _pretty(text: str) -> str:
    """A JSON object one member per line (compact values), anything else as it is."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    members = _mapping(value)
    if members is None:
        return text
    return "\n".join(f"{key}: {json.dumps(member, ensure_ascii=False)}" for key, member in members.items())


def _page_total(result: CallToolResult) -> int | None:
    page = _mapping((_mapping(result.structured_content) or {}).get("page"))
    total = None if page is None else page.get("total")
    return total if isinstance(total, int) else None
