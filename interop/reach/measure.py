"""Runs each framework configuration against the financial example and reads what its model would receive.

A cell is one configuration, one server variant, without or with the host's adapter. Its driver reports the
payload the framework hands the model as typed parts; `analyse` decides, against the result the server really
sent (read over plain JSON-RPC), whether the model can see the directive's mode, guidance, null display and
completeness statement, how many of the records it receives intact, and through which channel: "text" for prose
the model reads, "JSON" for structured content forwarded as JSON.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

from interop.reach.envs import BY_NAME, REACH, ROOT, Environment, installed_versions
from interop.run import wire_exchange
from mcp_rendering.audit import audit
from mcp_rendering.host import FRAMING_HEADER, result_is_complete
from mcp_rendering.reading import read_directive
from mcp_rendering.records import result_records
from mcp_rendering.types import PARTIAL_MARKER

EXAMPLE_MODULE = "mcp_rendering.examples.financial"
TOOL = "financial_statements"
DRIVERS = REACH / "drivers"
DRIVER_TIMEOUT_SECONDS = 600
TEXT, JSON_CHANNEL = "text", "JSON"


@dataclass(frozen=True)
class Configuration:
    """One row group of the table: a framework set up one way."""

    id: str
    label: str
    env: str
    driver: str
    options: Mapping[str, Any] = field(default_factory=dict[str, Any])
    adapter: str | None = None
    """The adapter of `mcp_rendering.integrations` measured in the helped column; None when there is none."""


@dataclass(frozen=True)
class Variant:
    id: str
    label: str
    args: tuple[str, ...]


CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "langchain",
        "langchain-mcp-adapters",
        "langchain",
        "langchain_driver.py",
        adapter="`rendering_interceptor`",
    ),
    Configuration(
        "openai-agents",
        "openai-agents",
        "openai-agents",
        "openai_agents_driver.py",
        adapter="`RenderingMCPServerStdio`",
    ),
    Configuration(
        "openai-agents-structured",
        "openai-agents, `use_structured_content=True`",
        "openai-agents",
        "openai_agents_driver.py",
        options={"use_structured_content": True},
        adapter="`RenderingMCPServerStdio`",
    ),
    Configuration("pydantic-ai", "pydantic-ai `MCPToolset`", "pydantic-ai", "pydantic_ai_driver.py"),
)
VARIANTS: tuple[Variant, ...] = (
    Variant("record-links", "record links (default)", ()),
    Variant("no-record-links", "`--no-record-links`", ("--no-record-links",)),
)


def cell_id(configuration: Configuration, variant: Variant, helped: bool) -> str:
    return f"{configuration.id}/{variant.id}/{'helped' if helped else 'plain'}"


# ------------------------------------------------------------------------------------------------------ the drivers


def _driver_env() -> dict[str, str]:
    # The framework's interpreter must see its own packages only, not the project environment's.
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_driver(env: Environment, driver: str, jobs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Run one driver in its environment over `jobs`; its report (versions and observations by job id)."""
    request = json.dumps({"tool": TOOL, "jobs": list(jobs)})
    done = subprocess.run(
        [str(env.python), str(DRIVERS / driver)],
        input=request,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_driver_env(),
        timeout=DRIVER_TIMEOUT_SECONDS,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{driver} in {env.name} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return cast("dict[str, Any]", json.loads(lines[-1]))


def _job(configuration: Configuration, variant: Variant, helped: bool) -> dict[str, Any]:
    return {
        "id": cell_id(configuration, variant, helped),
        "command": sys.executable,
        "args": ["-m", EXAMPLE_MODULE, *variant.args],
        "cwd": str(ROOT),
        "helped": helped,
        "options": dict(configuration.options),
    }


def observe_all() -> dict[str, dict[str, Any]]:
    """Every cell's observation, one driver process per (environment, driver), those processes in parallel."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for configuration in CONFIGURATIONS:
        for variant in VARIANTS:
            for helped in (False, True) if configuration.adapter else (False,):
                key = (configuration.env, configuration.driver)
                groups.setdefault(key, []).append(_job(configuration, variant, helped))
    with ThreadPoolExecutor(len(groups)) as pool:
        futures = [pool.submit(run_driver, BY_NAME[env], driver, jobs) for (env, driver), jobs in groups.items()]
        reports = [future.result() for future in futures]
    return {job_id: observation for report in reports for job_id, observation in report["observations"].items()}


# ------------------------------------------------------------------------------------------------------ the analysis


@dataclass(frozen=True)
class _View:
    """A payload sorted by channel: the prose the model reads, the JSON objects, the links."""

    prose: str
    objects: list[Any]
    counts: dict[str, int]


def _view(parts: Sequence[Mapping[str, Any]]) -> _View:
    prose: list[str] = []
    objects: list[Any] = []
    counts: dict[str, int] = {}

    def count(kind: str) -> None:
        counts[kind] = counts.get(kind, 0) + 1

    for part in parts:
        kind = part["kind"]
        if kind == "text":
            text = cast("str", part["text"])
            decoded = _json_object(text)
            if decoded is None:
                prose.append(text)
                count("text")
            else:
                objects.append(decoded)
                count(f"{_object_kind(decoded)} as JSON text")
        elif kind == "json":
            objects.append(part["value"])
            count(_object_kind(part["value"]))
        else:
            count(kind)
    return _View("\n\n".join(prose), objects, counts)


def _json_object(text: str) -> Any:
    if not text.lstrip().startswith("{"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _object_kind(value: Any) -> str:
    if isinstance(value, dict) and "document" in value:
        return "structured"
    if isinstance(value, dict) and value.get("type") == "resource_link":
        return "link"
    return "object"


_PHRASES = {
    "text": ("text part", "text parts"),
    "structured": ("`structuredContent` object", "`structuredContent` objects"),
    "structured as JSON text": ("`structuredContent` as JSON text", "`structuredContent` as JSON texts"),
    "link as JSON text": ("resource link as JSON text", "resource links as JSON text"),
    "file": ("file block (URI only)", "file blocks (URI only)"),
    "uri": ("bare URI string", "bare URI strings"),
    "link": ("resource link object", "resource link objects"),
    "object": ("other object", "other objects"),
}


def describe(counts: Mapping[str, int]) -> str:
    """What the model receives, in a few words: `1 text part, 54 file blocks (URI only)`."""
    phrases: list[str] = []
    for kind, (one, many) in _PHRASES.items():
        number = counts.get(kind, 0)
        if number:
            phrases.append(f"{number} {one if number == 1 else many}")
    return ", ".join(phrases) or "nothing"


def _expected_rows(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    document = result_records(result).document
    assert document is not None, "the financial example returns a document"
    return [row.model_dump(mode="json") for section in document.sections for row in section.rows]


def _rows_in(value: Any) -> list[Any]:
    document = value.get("document") if isinstance(value, dict) else None
    sections = document.get("sections") if isinstance(document, dict) else None
    rows: list[Any] = []
    for section in sections if isinstance(sections, list) else []:
        if isinstance(section, dict) and isinstance(section.get("rows"), list):
            rows.extend(section["rows"])
    return rows


def _json_records(objects: Sequence[Any], expected: Sequence[Mapping[str, Any]]) -> int:
    """Records of `expected` found unchanged in a forwarded structured object (the best one)."""
    best = 0
    for value in objects:
        by_id = {row.get("id"): row for row in _rows_in(value) if isinstance(row, dict)}
        found = 0
        for row in expected:
            shown = by_id.get(row["id"])
            if shown is not None and all(shown.get(key) == row[key] for key in ("label", "values", "kind")):
                found += 1
        best = max(best, found)
    return best


def _directive_copies(objects: Sequence[Any]) -> list[Mapping[str, Any]]:
    copies: list[Mapping[str, Any]] = []
    for value in objects:
        copy = value.get("_rendering") if isinstance(value, dict) else None
        if isinstance(copy, dict):
            copies.append(cast("Mapping[str, Any]", copy))
    return copies


def _page_states(objects: Sequence[Any]) -> list[Mapping[str, Any]]:
    return [value["page"] for value in objects if isinstance(value, dict) and isinstance(value.get("page"), dict)]


def analyse(parts: Sequence[Mapping[str, Any]], result: Mapping[str, Any]) -> dict[str, Any]:
    """What of the directive and the records reaches the model, by channel, for one payload."""
    directive = read_directive(result)
    assert directive is not None and directive.mode is not None, "the financial example sends a directive"
    null_display = directive.null_display or "-"
    view = _view(parts)
    copies = _directive_copies(view.objects)
    pages = _page_states(view.objects)
    expected = _expected_rows(result)

    def channels(in_text: bool, in_json: bool) -> list[str]:
        return [name for name, found in ((TEXT, in_text), (JSON_CHANNEL, in_json)) if found]

    prose = view.prose
    mode_seen = f"Mode: {directive.mode}." in prose
    guidance = directive.guidance or ""
    null_pattern = re.compile(r"null values (?:are shown )?as " + re.escape(json.dumps(null_display)), re.IGNORECASE)
    completeness_pattern = re.compile(r"Complete: all \d+ records|" + re.escape(PARTIAL_MARKER))
    text_records = audit(prose, dict(result), markup="text").rows_intact if prose else 0
    json_records = _json_records(view.objects, expected)
    complete = result_is_complete(dict(result))
    return {
        "receives": describe(view.counts),
        "framing": FRAMING_HEADER in prose,
        "mode": channels(mode_seen, any(copy.get("mode") == directive.mode for copy in copies)),
        "guidance": channels(
            bool(guidance) and guidance in prose, any(copy.get("guidance") == guidance for copy in copies)
        ),
        "null_display": channels(
            bool(null_pattern.search(prose)), any(copy.get("nullDisplay") == null_display for copy in copies)
        ),
        "completeness": channels(
            bool(completeness_pattern.search(prose)),
            any(page.get("complete") is complete for page in pages)
            or any(isinstance(copy.get("complete"), bool) for copy in copies),
        ),
        "records": {"expected": len(expected), TEXT: text_records, JSON_CHANNEL: json_records},
    }


def reference_results() -> dict[str, dict[str, Any]]:
    """The result of the tool exactly as each server variant sends it, by variant id."""
    found: dict[str, dict[str, Any]] = {}
    for variant in VARIANTS:
        _, result = wire_exchange([sys.executable, "-m", EXAMPLE_MODULE, *variant.args], TOOL, {})
        found[variant.id] = result
    return found


def measure() -> dict[str, Any]:
    """Measure every cell; the content of `results.json`."""
    references = reference_results()
    observations = observe_all()
    cells: list[dict[str, Any]] = []
    for configuration in CONFIGURATIONS:
        for variant in VARIANTS:
            for helped in (False, True) if configuration.adapter else (False,):
                key = cell_id(configuration, variant, helped)
                analysis = analyse(observations[key]["parts"], references[variant.id])
                cells.append(
                    {
                        "id": key,
                        "configuration": configuration.id,
                        "variant": variant.id,
                        "helped": helped,
                        **analysis,
                    }
                )
    return {
        "generator": "python -m interop.reach",
        "server": f"python -m {EXAMPLE_MODULE}",
        "tool": TOOL,
        "versions": {env: installed_versions(BY_NAME[env]) for env in dict.fromkeys(c.env for c in CONFIGURATIONS)},
        "configurations": [{"id": c.id, "label": c.label, "env": c.env, "adapter": c.adapter} for c in CONFIGURATIONS],
        "variants": [{"id": v.id, "label": v.label} for v in VARIANTS],
        "cells": cells,
    }
