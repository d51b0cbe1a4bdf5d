"""Runs each framework configuration against the financial example and reads what its model would receive, and,
where the framework has a return-direct route, what its user finally receives.

A cell is one configuration, one server variant, without or with the host's adapter. Its driver reports the
payload the framework hands the model as typed parts; `analyse` decides, against the result the server really
sent (read over plain JSON-RPC), whether the model can see the directive's mode, guidance, null display and
completeness statement, how many of the records it receives intact, and through which channel: "text" for prose
the model reads, "JSON" for structured content forwarded as JSON.

The user's final answer is measured with the framework's own agent loop, unmodified, driven by its own scripted or
test model, which calls the tool and then writes `SUMMARY` (a stand-in for a model that summarizes): without the
host's adapter, and with it (`Configuration.route`). `analyse_answer` audits that answer against the result.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

from interop.reach import outcomes
from interop.reach.envs import BY_NAME, REACH, ROOT, Environment, installed_versions, project_path
from interop.run import wire_exchange
from mcp_rendering.audit import audit
from mcp_rendering.host import COMPLETE_LINE, FRAMING_HEADER, result_is_complete
from mcp_rendering.reading import DEFAULT_NULL_DISPLAY, read_directive
from mcp_rendering.records import result_records
from mcp_rendering.types import PARTIAL_MARKER
from tests.integrations import fork_server

EXAMPLE_MODULE = "mcp_rendering.examples.financial"
TOOL = "financial_statements"
DRIVERS = REACH / "drivers"
DRIVER_TIMEOUT_SECONDS = 600
PARALLEL_DRIVERS = 4
"""Driver processes at a time: each starts its example servers in turn, and CI has two cores."""
TEXT, JSON_CHANNEL, STRINGIFIED = "text", "JSON", "stringified"
CHANNELS = (TEXT, JSON_CHANNEL, STRINGIFIED)


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
    route: str | None = None
    """The framework's return-direct route as the host's adapter takes it, measured by `answer_driver`."""
    answer_driver: str | None = None
    """The driver that runs the framework's own agent loop and reports the user's final answer."""
    native_route: str | None = None
    """The framework's own return-direct route when no adapter takes it here; None when it has none."""
    no_adapter_by_design: str | None = None
    """Why the adapters refuse this configuration on purpose (Markdown, linking the docs that say more); None when
    an adapter is simply not written yet."""


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
        route="`return_direct` (`answer_directly`)",
        answer_driver="outcome_langchain.py",
    ),
    Configuration(
        "openai-agents",
        "openai-agents",
        "openai-agents",
        "openai_agents_driver.py",
        adapter="`RenderingMCPServerStdio`",
        route="`tool_use_behavior` (`verbatim_final_output`)",
        answer_driver="outcome_openai_agents.py",
    ),
    Configuration(
        "openai-agents-structured",
        "openai-agents, `use_structured_content=True`",
        "openai-agents",
        "openai_agents_driver.py",
        options={"use_structured_content": True},
        adapter="`RenderingMCPServerStdio`",
        route="`tool_use_behavior` (`verbatim_final_output`)",
        answer_driver="outcome_openai_agents.py",
    ),
    Configuration(
        "pydantic-ai",
        "pydantic-ai `MCPToolset`",
        "pydantic-ai",
        "pydantic_ai_driver.py",
        route="`SkipModelRequest` from `before_model_request` (`DirectAnswers`)",
        answer_driver="outcome_pydantic_ai.py",
    ),
    Configuration(
        "autogen",
        "AutoGen `McpWorkbench`",
        "autogen",
        "autogen_driver.py",
        native_route="`reflect_on_tool_use=False`, agent-wide",
        no_adapter_by_design="an `McpWorkbench` hands on no raw result; the adapter takes the route over "
        "`mcp_server_tools` ([AutoGen](autogen.md#mcpworkbench))",
    ),
    Configuration(
        "autogen-adapters",
        "AutoGen `mcp_server_tools`",
        "autogen",
        "autogen_driver.py",
        options={"adapters": True},
        route="`reflect_on_tool_use=False`, agent-wide, the turn ended at a verbatim step (`DirectAnswerAgent`)",
        answer_driver="outcome_autogen.py",
    ),
    Configuration(
        "llama-index",
        "LlamaIndex `McpToolSpec`",
        "llama-index",
        "llama_index_driver.py",
        route="`return_direct` (`load_direct_answer_tools`)",
        answer_driver="outcome_llama_index.py",
    ),
    Configuration(
        "haystack",
        "Haystack `MCPTool`",
        "haystack",
        "haystack_driver.py",
        route="`stop_run` from a `before_llm` hook (`direct_answers`)",
        answer_driver="outcome_haystack.py",
    ),
    Configuration(
        "strands",
        "Strands Agents `MCPClient`",
        "strands",
        "strands_driver.py",
        route="`end_turn` from an `AfterToolsEvent` hook (`DirectAnswers`)",
        answer_driver="outcome_strands.py",
    ),
    Configuration("dspy", "DSPy `Tool.from_mcp_tool`", "dspy", "dspy_driver.py"),
    Configuration(
        "dspy-structured",
        'DSPy `Tool.from_mcp_tool`, `result_mode="structured"`',
        "dspy",
        "dspy_driver.py",
        options={"structured": True},
    ),
    Configuration("beeai", "BeeAI Framework `MCPTool`", "beeai", "beeai_driver.py"),
    Configuration("camel", "CAMEL `MCPToolkit` (`ChatAgent`)", "camel", "camel_driver.py"),
    Configuration(
        "agno",
        "Agno `MCPTools`",
        "agno",
        "agno_driver.py",
        route="`StopAgentRun` (`DirectAnswerMCPTools`)",
        answer_driver="outcome_agno.py",
    ),
    Configuration(
        "google-adk",
        "Google ADK `McpToolset`",
        "google-adk",
        "google_adk_driver.py",
        route="`skip_summarization` (`direct_answers`)",
        answer_driver="outcome_google_adk.py",
    ),
    Configuration(
        "semantic-kernel",
        "Semantic Kernel `MCPStdioPlugin`",
        "semantic-kernel",
        "semantic_kernel_driver.py",
        route="`terminate` in an auto-function-invocation filter (`direct_answers`)",
        answer_driver="outcome_semantic_kernel.py",
    ),
    Configuration("smolagents", "smolagents `ToolCollection.from_mcp`", "smolagents", "smolagents_driver.py"),
    Configuration(
        "smolagents-structured",
        "smolagents `ToolCollection.from_mcp`, `structured_output=True`",
        "smolagents",
        "smolagents_driver.py",
        options={"structured": True},
    ),
    Configuration(
        "crewai",
        "CrewAI `MCPServerAdapter`",
        "crewai",
        "crewai_driver.py",
        route="`result_as_answer` (`DirectAnswerToolAdapter`)",
        answer_driver="outcome_crewai.py",
    ),
)
VARIANTS: tuple[Variant, ...] = (
    Variant("default", "default", ()),
    Variant("record-links", "`--record-links`", ("--record-links",)),
)


SUMMARY = "Revenue grew in FY2025.\nEquity and cash are up.\nNo line stands out."
"""What each scripted model writes after the tool call, in three lines: a stand-in for a model that summarizes."""


def cell_id(configuration: Configuration, variant: Variant, helped: bool) -> str:
    return f"{configuration.id}/{variant.id}/{'helped' if helped else 'plain'}"


def answer_id(configuration: Configuration, variant: Variant, helped: bool) -> str:
    return f"{cell_id(configuration, variant, helped)}/answer"


# ------------------------------------------------------------------------------------------------------ the drivers


def _driver_env() -> dict[str, str]:
    # The framework's interpreter must see its own packages only, not the project environment's.
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PYTHONPATH"] = project_path()  # `mcp_rendering` from this working tree, for the adapters
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


def _job(configuration: Configuration, variant: Variant, helped: bool, server_python: str) -> dict[str, Any]:
    return {
        "id": cell_id(configuration, variant, helped),
        "command": server_python,
        "args": ["-m", EXAMPLE_MODULE, *variant.args],
        "cwd": str(ROOT),
        "helped": helped,
        "options": dict(configuration.options),
    }


def observe_all(
    configurations: Sequence[Configuration] = CONFIGURATIONS, server_python: str = sys.executable
) -> dict[str, dict[str, Any]]:
    """Every cell's observation (and every final answer's, under `answer_id`), one driver process per
    (environment, driver), those processes in parallel, their servers run with `server_python`."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for configuration in configurations:
        for variant in VARIANTS:
            for helped in (False, True) if configuration.adapter else (False,):
                key = (configuration.env, configuration.driver)
                groups.setdefault(key, []).append(_job(configuration, variant, helped, server_python))
            if configuration.answer_driver is not None:
                for helped in (False, True):
                    job = _job(configuration, variant, helped, server_python)
                    job["id"] = answer_id(configuration, variant, helped)
                    job["options"]["summary"] = SUMMARY
                    groups.setdefault((configuration.env, configuration.answer_driver), []).append(job)
        if configuration.answer_driver in outcomes.SCENARIO_DRIVERS:  # beyond one whole result (`outcomes`)
            for scenario in outcomes.SCENARIOS:
                for helped in (False, True):
                    job = outcomes.scenario_job(
                        scenario, _job(configuration, VARIANTS[0], helped, server_python), SUMMARY
                    )
                    job["id"] = outcomes.outcome_id(configuration.id, scenario.id, helped)
                    groups.setdefault((configuration.env, configuration.answer_driver), []).append(job)
    with ThreadPoolExecutor(min(len(groups), PARALLEL_DRIVERS)) as pool:
        futures = [pool.submit(run_driver, BY_NAME[env], driver, jobs) for (env, driver), jobs in groups.items()]
        reports = [future.result() for future in futures]
    return {job_id: observation for report in reports for job_id, observation in report["observations"].items()}


# ------------------------------------------------------------------------------------------------------ the analysis


@dataclass(frozen=True)
class _View:
    """A payload sorted by channel: the prose the model reads, the JSON objects, what came stringified, the links."""

    prose: str
    objects: list[Any]
    stringified_prose: str
    stringified_objects: list[Any]
    counts: dict[str, int]


def _view(parts: Sequence[Mapping[str, Any]]) -> _View:
    prose: list[str] = []
    objects: list[Any] = []
    stringified_prose: list[str] = []
    stringified_objects: list[Any] = []
    counts: dict[str, int] = {}

    def count(kind: str) -> None:
        counts[kind] = counts.get(kind, 0) + 1

    for part in parts:
        kind = part["kind"]
        if kind == "text":
            text = cast("str", part["text"])
            decoded = _json_value(text)
            if decoded is not None and _object_kind(decoded) in ("structured", "link"):
                objects.append(decoded)
                count(f"{_object_kind(decoded)} as JSON text")
            elif decoded is not None and (inner := _dumped_blocks(decoded)) is not None:
                stringified_prose.extend(inner[0])
                stringified_objects.extend(inner[1])
                count("JSON dump")
            elif (texts := _repr_texts(text)) is not None:
                stringified_prose.extend(texts)
                count("repr")
            elif _text_list(literal := _python_literal(text)):
                # A Python list repr of the text blocks' texts (CrewAI's MCP tools for a result of several blocks).
                stringified_prose.extend(cast("list[str]", literal))
                count("repr")
            elif literal is not None and (inner := _dumped_blocks(literal)) is not None:
                stringified_prose.extend(inner[0])
                stringified_objects.extend(inner[1])
                count("structured repr" if _object_kind(literal) == "structured" else "repr")
            elif decoded is not None:
                objects.append(decoded)
                count("object as JSON text")
            else:
                prose.append(text)
                count("text")
                for _ in range(text.count("resource_link")):  # a framework's own line for each block it dropped
                    count("link line")
        elif kind == "json":
            value = part["value"]
            inner = _dumped_blocks(value) if _object_kind(value) == "object" else None
            if inner is not None:  # the result's own blocks handed over as objects: readable as JSON only
                stringified_prose.extend(inner[0])
                stringified_objects.extend(inner[1])
                count("blocks as objects")
            else:
                objects.append(value)
                count(_object_kind(value))
        elif kind == "error":
            prose.append(cast("str", part["text"]))
            count("error")
        else:
            count(kind)
    return _View("\n\n".join(prose), objects, "\n\n".join(stringified_prose), stringified_objects, counts)


def _json_value(text: str) -> Any:
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _text_list(value: Any) -> bool:
    """Whether `value` is a non-empty list of strings."""
    return isinstance(value, list) and bool(value) and all(isinstance(item, str) for item in cast("list[Any]", value))


def _object_kind(value: Any) -> str:
    if isinstance(value, dict) and "document" in value:
        return "structured"
    if isinstance(value, dict) and value.get("type") == "resource_link":
        return "link"
    return "object"


def _dumped_blocks(value: Any) -> tuple[list[str], list[Any]] | None:
    """The texts and structured objects inside a JSON form of the result or of its content blocks; None when
    `value` is neither (it then counts as some other object)."""
    texts: list[str] = []
    structured: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "text" and isinstance(node.get("text"), str):
                texts.append(node["text"])
            if "document" in node:
                structured.append(node)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(value)
    return (texts, structured) if texts or structured else None


_REPR_TEXT = re.compile(r"""text=('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|'text': ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def _python_literal(text: str) -> Any:
    """The dict or list a Python repr such as ``{'document': ...}`` writes out; None for anything else."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


def _repr_texts(text: str) -> list[str] | None:
    """The text of every content block inside a Python repr of the result or of its blocks (`TextContent(...,
    text='...')`, `{'type': 'text', 'text': '...'}`); None when `text` is not such a repr."""
    if not re.search(r"TextContent\(|CallToolResult\(|\{'type': 'text'", text):
        return None
    found: list[str] = []
    for match in _REPR_TEXT.finditer(text):
        literal = match.group(1) or match.group(2)
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str) and value not in found:  # a wrapper's repr may repeat its inner block's text
            found.append(value)
    return found


_PHRASES = {
    "error": ("error message", "error messages"),
    "text": ("text part", "text parts"),
    "structured": ("`structuredContent` object", "`structuredContent` objects"),
    "structured as JSON text": ("`structuredContent` as JSON text", "`structuredContent` as JSON texts"),
    "JSON dump": ("JSON dump of the result's blocks", "JSON dumps of the result's blocks"),
    "repr": ("Python repr of the result's blocks", "Python reprs of the result's blocks"),
    "structured repr": ("Python repr of `structuredContent`", "Python reprs of `structuredContent`"),
    "blocks as objects": ("JSON object of the result's blocks", "JSON objects of the result's blocks"),
    "link line": ("line naming a dropped `resource_link`", "lines naming a dropped `resource_link`"),
    "link as JSON text": ("resource link as JSON text", "resource links as JSON text"),
    "file": ("file block (URI only)", "file blocks (URI only)"),
    "uri": ("bare URI string", "bare URI strings"),
    "link": ("resource link object", "resource link objects"),
    "object": ("other object", "other objects"),
    "object as JSON text": ("other JSON text", "other JSON texts"),
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


_MEMBERS = ("mode", "guidance", "null_display", "completeness")


def _directive_seen(prose: str, objects: Sequence[Any], result: Mapping[str, Any]) -> dict[str, bool]:
    """Which members of the result's directive are readable in some prose and some JSON objects."""
    directive = read_directive(result)
    assert directive is not None and directive.mode is not None, "the financial example sends a directive"
    null_display = directive.null_display or DEFAULT_NULL_DISPLAY
    guidance = directive.guidance or ""
    copies = _directive_copies(objects)
    pages = _page_states(objects)
    complete = result_is_complete(dict(result))
    null_pattern = re.compile(r"null values (?:are shown )?as " + re.escape(json.dumps(null_display)), re.IGNORECASE)
    completeness_pattern = re.compile(
        r"Complete: all \d+ records|" + re.escape(COMPLETE_LINE) + "|" + re.escape(PARTIAL_MARKER)
    )
    return {
        "mode": f"Mode: {directive.mode}." in prose or any(copy.get("mode") == directive.mode for copy in copies),
        "guidance": bool(guidance) and (guidance in prose or any(copy.get("guidance") == guidance for copy in copies)),
        "null_display": bool(null_pattern.search(prose))
        or any(copy.get("nullDisplay") == null_display for copy in copies),
        "completeness": bool(completeness_pattern.search(prose))
        or any(page.get("complete") is complete for page in pages)
        or any(isinstance(copy.get("complete"), bool) for copy in copies),
    }


def _records_seen(prose: str, objects: Sequence[Any], result: Mapping[str, Any]) -> int:
    """How many of the result's records are readable unchanged in some prose or some JSON objects."""
    in_text = audit(prose, dict(result), markup="text").rows_intact if prose else 0
    return max(in_text, _json_records(objects, _expected_rows(result)))


def analyse(parts: Sequence[Mapping[str, Any]], result: Mapping[str, Any]) -> dict[str, Any]:
    """What of the directive and the records reaches the model, by channel, for one payload: "text" in prose the
    model reads, "JSON" in structured content forwarded as JSON, "stringified" only inside a Python repr or a JSON
    dump of the result's blocks (escaped, on one line)."""
    view = _view(parts)
    by_channel: dict[str, tuple[str, list[Any]]] = {
        TEXT: (view.prose, []),
        JSON_CHANNEL: ("", view.objects),
        STRINGIFIED: (view.stringified_prose, view.stringified_objects),
    }
    seen = {channel: _directive_seen(prose, objects, result) for channel, (prose, objects) in by_channel.items()}
    records = {channel: _records_seen(prose, objects, result) for channel, (prose, objects) in by_channel.items()}
    return {
        "receives": describe(view.counts),
        "failed": "error" in view.counts,
        "framing": FRAMING_HEADER in view.prose,
        **{member: [channel for channel in CHANNELS if seen[channel][member]] for member in _MEMBERS},
        "records": {"expected": len(_expected_rows(result)), **records},
    }


def analyse_answer(final: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """What the user's final answer holds of the result: whether it is the model's summary, the records shown intact
    and in order (the audit, read as plain text), and the kinds of problem the audit found (a record missing,
    altered, out of order, or a record-shaped line that stands for no record)."""
    report = audit(final, dict(result), markup="text")
    return {
        "summary": final.strip() == SUMMARY,
        "records": {"expected": report.rows_expected, "intact": report.rows_intact},
        "issues": sorted({issue.kind for issue in report.issues}),
    }


def reference_results() -> dict[str, dict[str, Any]]:
    """The result of the tool exactly as each server variant sends it, by variant id."""
    found: dict[str, dict[str, Any]] = {}
    for variant in VARIANTS:
        _, result = wire_exchange([sys.executable, "-m", EXAMPLE_MODULE, *variant.args], TOOL, {})
        found[variant.id] = result
    return found


def measure(envs: Collection[str] = ()) -> dict[str, Any]:
    """Measure every cell, or only those of the configurations in `envs` (environment names); the content of
    `results.json` for what was measured."""
    configurations = tuple(c for c in CONFIGURATIONS if not envs or c.env in envs)
    references = reference_results()
    # Nearly all of a driver's work is starting the example server: the starts go through a fork server that has
    # imported the MCP SDK once (MCP_RENDERING_FORK_SERVERS=0 does without). The servers of a run then share one str
    # hash seed (and the other differences fork_server.py lists); each reading is compared with a reference from a
    # real start, never with another forked server's.
    with fork_server.running(sys.executable) as server_python:
        observations = observe_all(configurations, server_python)
    cells: list[dict[str, Any]] = []
    for configuration in configurations:
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
    answers: list[dict[str, Any]] = []
    for configuration in configurations:
        if configuration.answer_driver is None:
            continue
        for variant in VARIANTS:
            for helped in (False, True):
                key = answer_id(configuration, variant, helped)
                analysis = analyse_answer(observations[key]["final"], references[variant.id])
                answers.append(
                    {"id": key, "configuration": configuration.id, "variant": variant.id, "helped": helped, **analysis}
                )
    scenario_references = {scenario.id: outcomes.reference(scenario) for scenario in outcomes.SCENARIOS}
    outcome_cells: list[dict[str, Any]] = []
    for configuration in configurations:
        if configuration.answer_driver not in outcomes.SCENARIO_DRIVERS:
            continue
        for scenario in outcomes.SCENARIOS:
            for helped in (False, True):
                key = outcomes.outcome_id(configuration.id, scenario.id, helped)
                observed = observations[key]
                analysis = outcomes.analyse_outcome(
                    observed["final"], observed["outputs"], scenario, scenario_references[scenario.id], SUMMARY
                )
                cell = {"id": key, "configuration": configuration.id, "scenario": scenario.id, "helped": helped}
                outcome_cells.append({**cell, **analysis})
    return {
        "generator": "python -m interop.reach",
        "server": f"python -m {EXAMPLE_MODULE}",
        "tool": TOOL,
        "versions": {env: installed_versions(BY_NAME[env]) for env in dict.fromkeys(c.env for c in configurations)},
        "configurations": configuration_records(),
        "variants": [{"id": v.id, "label": v.label} for v in VARIANTS],
        "summary": SUMMARY,
        "cells": cells,
        "answers": answers,
        "scenarios": [{"id": scenario.id, "label": scenario.label} for scenario in outcomes.SCENARIOS],
        "outcomes": outcome_cells,
    }


def configuration_records() -> list[dict[str, Any]]:
    """The configurations as results.json records them, for the tables to name and explain each row."""
    return [
        {
            "id": c.id,
            "label": c.label,
            "env": c.env,
            "adapter": c.adapter,
            "route": c.route,
            "native_route": c.native_route,
            "no_adapter_by_design": c.no_adapter_by_design,
        }
        for c in CONFIGURATIONS
    ]
