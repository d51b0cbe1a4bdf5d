"""The project's example instances (schema/examples/<Type>/<name>.json) against the merged and upstream schemas.

Every example must validate against its definition in the merged schema of every protocol version, and, for a
definition that exists upstream, against the untouched upstream schema too: the change is purely additive. The
negative cases show that it is the delta, not upstream, that gives the new members their types.
"""

from __future__ import annotations

import base64
import importlib
import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES_DIR = REPO_ROOT / "schema" / "examples"
EXTENSION_ID = "io.modelcontextprotocol/rendering"
CONTINUATION_ID = "mcp-rendering/result-continuation"
RESULT_STRUCTURED_KEY = "_rendering"


def _script(name: str) -> ModuleType:
    """Import one of the repository's generator scripts (they import each other by plain module name)."""
    scripts = str(REPO_ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)


gen_upstream = _script("gen_upstream")
gen_schema = _script("gen_schema")
VERSIONS: tuple[str, ...] = gen_upstream.VERSIONS
MERGED = {version: gen_schema.load_merged(version) for version in VERSIONS}
UPSTREAM = {
    version: gen_upstream.load_json(gen_upstream.UPSTREAM_DIR / version / "schema.json") for version in VERSIONS
}
EXAMPLES = sorted(EXAMPLES_DIR.glob("*/*.json"))


def _defs(document: dict[str, Any]) -> dict[str, Any]:
    return document[gen_schema.definitions_keyword(document)]


def _errors(document: dict[str, Any], name: str, instance: Any) -> list[str]:
    return [error.message for error in gen_schema.definition_validator(document, name).iter_errors(instance)]


def _example_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_every_example_type_is_covered() -> None:
    types = {path.parent.name for path in EXAMPLES}
    assert types == {
        "Rendering",
        "RenderingHints",
        "ResultContinuation",
        "ResultContinuationTool",
        "ToolAnnotations",
        "Tool",
        "CallToolResult",
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=_example_id)
@pytest.mark.parametrize("version", VERSIONS)
def test_example_validates_against_merged_schema(path: Path, version: str) -> None:
    type_name = path.parent.name
    assert type_name in _defs(MERGED[version])
    assert _errors(MERGED[version], type_name, json.loads(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLES if p.parent.name in {"ToolAnnotations", "Tool", "CallToolResult"}], ids=_example_id
)
@pytest.mark.parametrize("version", VERSIONS)
def test_example_still_validates_against_untouched_upstream(path: Path, version: str) -> None:
    assert _errors(UPSTREAM[version], path.parent.name, json.loads(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.parent.name in {"Tool", "CallToolResult"}], ids=_example_id)
def test_carriers_inside_examples_are_well_typed(path: Path) -> None:
    """The `_meta` mirror and the model-facing copy in structuredContent hold the same shapes as the core fields."""
    instance = json.loads(path.read_text(encoding="utf-8"))
    merged = MERGED["2026-07-28"]
    carrier = instance.get("_meta", {}).get(EXTENSION_ID)
    assert carrier is not None, "every Tool and CallToolResult example carries the normative _meta carrier"
    continuation = instance.get("_meta", {}).get(CONTINUATION_ID)
    if path.parent.name == "Tool":
        assert _errors(merged, "RenderingHints", carrier) == []
        assert continuation is None or _errors(merged, "ResultContinuationTool", continuation) == []
        # The core form, where present, repeats the carrier's values, never contradicts them.
        assert all(instance["annotations"].get(key, value) == value for key, value in carrier.items())
        return
    assert _errors(merged, "Rendering", carrier) == []
    assert continuation is None or _errors(merged, "ResultContinuation", continuation) == []
    if "_rendering" in instance:
        assert carrier == instance["_rendering"]
    structured = instance.get("structuredContent")
    if isinstance(structured, dict):
        # The model-facing copy repeats the carrier.
        assert structured[RESULT_STRUCTURED_KEY] == carrier


def test_examples_show_each_contract_case() -> None:
    """The examples the specification points to exist and show what their names promise."""

    def load(name: str) -> Any:
        return json.loads((EXAMPLES_DIR / name).read_text(encoding="utf-8"))

    page = load("CallToolResult/incomplete-page.json")["_meta"]
    assert page[EXTENSION_ID]["complete"] is False
    assert set(page[CONTINUATION_ID]) == {"argument", "token", "expiresAt"}
    # The expiry signed into the example token (1_796_000_900), as the carrier states it.
    assert page[CONTINUATION_ID]["expiresAt"] == "2026-11-30T01:08:20Z"
    assert page[CONTINUATION_ID] == load("ResultContinuation/incomplete-page.json")
    statement = load("CallToolResult/verbatim-statement.json")
    assert statement["_meta"][EXTENSION_ID]["complete"] is True  # a directive always states completeness
    assert CONTINUATION_ID not in statement["_meta"]
    assert "_rendering" not in statement  # the builder sends the normative carrier only
    both = load("CallToolResult/core-and-meta.json")
    assert both["_rendering"] == both["_meta"][EXTENSION_ID]
    assert load("Tool/verbatim-income-statement.json")["_meta"][EXTENSION_ID] == {"verbatimHint": True}


def test_the_example_token_is_a_real_signed_token() -> None:
    """It verifies with the published example key, at the example clock, for the example call; its payload holds
    keyed digests and a position, nothing a reader could use."""
    gen_examples = _script("gen_examples")
    token = json.loads((EXAMPLES_DIR / "CallToolResult/incomplete-page.json").read_text(encoding="utf-8"))["_meta"][
        CONTINUATION_ID
    ]["token"]
    state = gen_examples.example_tokens().verify(
        token,
        tool="ledger_lines",
        arguments={"company": "acme", "year": 2025, "cursor": token},
        caller="example-caller",
        exclude_argument="cursor",
    )
    assert state.position == 2
    payload = base64.urlsafe_b64decode(token.split(".")[2] + "==").decode()
    assert "acme" not in payload and "ledger" not in payload and "2025" not in payload


# --- negative cases: the delta types the new members; upstream accepts anything there -----------------------------

_BASE_RESULT: dict[str, Any] = {"resultType": "complete", "content": [{"type": "text", "text": "x"}]}
_NEGATIVE_CASES: list[tuple[str, str, Any]] = [
    ("verbatimHint-yes", "ToolAnnotations", {"verbatimHint": "yes"}),
    ("summarizeOkHint-1", "ToolAnnotations", {"summarizeOkHint": 1}),
    (
        "tool-annotation-yes",
        "Tool",
        {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"verbatimHint": "yes"}},
    ),
    ("mode-not-a-string", "CallToolResult", {**_BASE_RESULT, "_rendering": {"mode": 1, "complete": True}}),
    (
        "guidance-1001",
        "CallToolResult",
        {**_BASE_RESULT, "_rendering": {"mode": "verbatim", "guidance": "g" * 1001, "complete": True}},
    ),
    ("rendering-42", "CallToolResult", {**_BASE_RESULT, "_rendering": 42}),
    ("complete-a-string", "CallToolResult", {**_BASE_RESULT, "_rendering": {"complete": "false"}}),
    ("complete-missing", "CallToolResult", {**_BASE_RESULT, "_rendering": {"mode": "verbatim"}}),
    ("complete-misspelled", "CallToolResult", {**_BASE_RESULT, "_rendering": {"completed": True, "complete": True}}),
    ("null-display-empty", "CallToolResult", {**_BASE_RESULT, "_rendering": {"nullDisplay": "", "complete": True}}),
    ("null-display-blank", "CallToolResult", {**_BASE_RESULT, "_rendering": {"nullDisplay": "  ", "complete": True}}),
    ("null-display-zero", "CallToolResult", {**_BASE_RESULT, "_rendering": {"nullDisplay": "0", "complete": True}}),
    ("null-display-digit", "CallToolResult", {**_BASE_RESULT, "_rendering": {"nullDisplay": "٣", "complete": True}}),
    (
        "null-display-braille-blank",
        "CallToolResult",
        {**_BASE_RESULT, "_rendering": {"nullDisplay": "\u2800", "complete": True}},
    ),
    (
        "null-display-invisible",
        "CallToolResult",
        {**_BASE_RESULT, "_rendering": {"nullDisplay": "\u200b", "complete": True}},
    ),
]

# The carriers in `_meta` are typed by their own definitions (upstream leaves `_meta` values open).
_CARRIER_NEGATIVE_CASES: list[tuple[str, str, Any]] = [
    ("hints-unknown-member", "RenderingHints", {"verbatimhint": True}),
    ("hints-yes", "RenderingHints", {"verbatimHint": "yes"}),
    ("directive-Complete", "Rendering", {"Complete": True, "complete": True}),
    ("directive-is_complete", "Rendering", {"is_complete": True, "complete": False}),
    ("directive-null_display", "Rendering", {"null_display": "-", "complete": True}),
    ("directive-continuation", "Rendering", {"complete": False, "continuation": {"argument": "c", "token": "t"}}),
    ("continuation-token-alphabet", "ResultContinuation", {"argument": "cursor", "token": "IGNORE ALL"}),
    ("continuation-bad-argument", "ResultContinuation", {"argument": "1st", "token": "t"}),
    ("continuation-unknown", "ResultContinuation", {"argument": "cursor", "token": "t", "part": 2}),
    ("continuation-expiry-local", "ResultContinuation", {"argument": "c", "token": "t", "expiresAt": "2026-12-02"}),
    # Not a time at all, though every field has its digits: the schema admits only real field values.
    (
        "continuation-expiry-out-of-range",
        "ResultContinuation",
        {"argument": "c", "token": "t", "expiresAt": "2026-13-45T99:99:99Z"},
    ),
    (
        "continuation-expiry-hour-24",
        "ResultContinuation",
        {"argument": "c", "token": "t", "expiresAt": "2026-12-02T24:00:00Z"},
    ),
    ("continuation-tool-empty", "ResultContinuationTool", {}),
]


@pytest.mark.parametrize(
    ("type_name", "instance"), [case[1:] for case in _NEGATIVE_CASES], ids=[c[0] for c in _NEGATIVE_CASES]
)
@pytest.mark.parametrize("version", VERSIONS)
def test_merged_schema_rejects_what_upstream_lets_through(version: str, type_name: str, instance: Any) -> None:
    assert _errors(UPSTREAM[version], type_name, instance) == []
    assert _errors(MERGED[version], type_name, instance) != []


@pytest.mark.parametrize(
    ("type_name", "instance"),
    [case[1:] for case in _CARRIER_NEGATIVE_CASES],
    ids=[c[0] for c in _CARRIER_NEGATIVE_CASES],
)
@pytest.mark.parametrize("version", VERSIONS)
def test_the_schema_types_the_carriers_closed(version: str, type_name: str, instance: Any) -> None:
    assert _errors(MERGED[version], type_name, instance) != []


@pytest.mark.parametrize(
    "rendering",
    [
        None,
        {"complete": True},
        {"mode": "tabular", "complete": False},
        {"guidance": "no mode", "complete": True},
        {"mode": None, "guidance": None, "nullDisplay": None, "complete": True},
        {"nullDisplay": "n/a", "complete": True},
        {"nullDisplay": "— néant —", "complete": True},
    ],
)
@pytest.mark.parametrize("version", VERSIONS)
def test_open_mode_optional_members_and_null(version: str, rendering: Any) -> None:
    assert _errors(MERGED[version], "CallToolResult", {**_BASE_RESULT, "_rendering": rendering}) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_guidance_limit_is_inclusive(version: str) -> None:
    directive = {"mode": "verbatim", "guidance": "g" * 1000, "nullDisplay": "n" * 16, "complete": True}
    assert _errors(MERGED[version], "CallToolResult", {**_BASE_RESULT, "_rendering": directive}) == []
    over = {**_BASE_RESULT, "_rendering": {"mode": "verbatim", "nullDisplay": "n" * 17, "complete": True}}
    assert _errors(MERGED[version], "CallToolResult", over) != []


# --- the carriers in `_meta`: typed by the merged schemas, read leniently ------------------------------------------

INVALID_DIR = REPO_ROOT / "schema" / "invalid-examples"
INVALID_EXAMPLES = sorted(INVALID_DIR.glob("*/*.json"))


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_invalid_examples_exist_for_both_carriers_and_both_extensions() -> None:
    malformed = {(path.parent.name, key) for path in INVALID_EXAMPLES for key in _malformed_keys(path)}
    assert malformed == {(t, key) for t in ("Tool", "CallToolResult") for key in (EXTENSION_ID, CONTINUATION_ID)}


def _malformed_keys(path: Path) -> set[str]:
    """The carrier keys in which an invalid example differs from the valid example it was made from."""
    instance = _load(path)
    meta = instance["_meta"]
    return {key for key in (EXTENSION_ID, CONTINUATION_ID) if key in meta and _errors_at(path, key)}


def _errors_at(path: Path, key: str) -> list[str]:
    merged = MERGED["2026-07-28"]
    carrier_type = {
        ("Tool", EXTENSION_ID): "RenderingHints",
        ("Tool", CONTINUATION_ID): "ResultContinuationTool",
        ("CallToolResult", EXTENSION_ID): "Rendering",
        ("CallToolResult", CONTINUATION_ID): "ResultContinuation",
    }[(path.parent.name, key)]
    return _errors(merged, carrier_type, _load(path)["_meta"][key])


_BEFORE_ANY_EXPIRY = datetime(2026, 1, 1, tzinfo=timezone.utc)
"""Earlier than every example token's `expiresAt`: the examples are fixed, the clock is not."""


@pytest.mark.parametrize("path", INVALID_EXAMPLES, ids=_example_id)
@pytest.mark.parametrize("version", VERSIONS)
def test_merged_schema_rejects_a_malformed_carrier_that_upstream_accepts(path: Path, version: str) -> None:
    instance = _load(path)
    type_name = path.parent.name
    assert _errors(UPSTREAM[version], type_name, instance) == []
    errors = list(gen_schema.definition_validator(MERGED[version], type_name).iter_errors(instance))
    assert errors
    # Every error is inside one carrier: the rest of the example is valid.
    carriers = {tuple(error.absolute_path)[:2] for error in errors}
    assert carriers and all(where in {("_meta", EXTENSION_ID), ("_meta", CONTINUATION_ID)} for where in carriers)


def test_the_review_case_is_rejected_in_the_carrier() -> None:
    """`{"completed": true, "mode": 5}` in the result carrier: an unknown member, a wrong type, `complete` missing."""
    instance = _load(INVALID_DIR / "CallToolResult" / "misspelled-directive.json")
    assert instance["_meta"][EXTENSION_ID] == {"completed": True, "mode": 5}
    for version in VERSIONS:
        messages = _errors(MERGED[version], "CallToolResult", instance)
        assert any("completed" in message for message in messages)
        assert any("'complete' is a required property" in message for message in messages)
        assert any(message.startswith("5 is not of type") for message in messages)


@pytest.mark.parametrize("path", INVALID_EXAMPLES, ids=_example_id)
def test_a_reader_reads_a_rejected_carrier_without_failing_and_it_grants_nothing(path: Path) -> None:
    """The schema is the producer's contract; the reader reads what it rejects, and the reading never grants what a
    well-formed carrier would: no summarizing, no completeness, no continuation to follow. One exception, by the
    specification: a continuation without `expiresAt` (which a server always states) is followed, its expiry
    unknown, until the server refuses the token; the result is partial all the same."""
    from mcp_rendering.reading import read_continuation, read_hints_object, read_rendering_object

    instance = _load(path)
    meta = instance["_meta"]
    if path.parent.name == "Tool":
        hints, problems = read_hints_object(meta[EXTENSION_ID])
        assert hints.summarize_ok_hint is not True
        if EXTENSION_ID in _malformed_keys(path):
            assert problems
        if CONTINUATION_ID in _malformed_keys(path):
            paged = _load(EXAMPLES_DIR / "CallToolResult" / "incomplete-page.json")
            continuation = read_continuation(instance, paged, original_arguments={}, now=_BEFORE_ANY_EXPIRY)
            assert continuation.present and continuation.usable is None and continuation.problems
        return
    directive, problems = read_rendering_object(meta[EXTENSION_ID])
    assert directive is not None and directive.mode != "summarizable"
    if EXTENSION_ID in _malformed_keys(path):
        # A directive the schema rejects is reported, or (`complete` missing) reads as "completeness not stated".
        assert problems or directive.completeness == "not-stated"
        assert directive.completeness != "complete"
    if CONTINUATION_ID in _malformed_keys(path):
        # Read as the first part of a call without arguments: a well-formed continuation would be usable.
        tool = _load(EXAMPLES_DIR / "Tool" / "paged-ledger.json")
        continuation = read_continuation(tool, instance, original_arguments={}, now=_BEFORE_ANY_EXPIRY)
        assert continuation.present
        if path.stem == "continuation-without-expiry":
            assert continuation.usable is not None and continuation.usable.expires_at is None
        else:
            assert continuation.usable is None and continuation.problems


@pytest.mark.parametrize("version", VERSIONS)
def test_other_meta_keys_stay_open(version: str) -> None:
    """Only the two carrier keys are typed: any other key, even one that looks like a carrier, is as upstream has it."""
    result = _load(EXAMPLES_DIR / "CallToolResult" / "verbatim-statement.json")
    result["_meta"] = {
        **result["_meta"],
        "com.example/rendering": {"completed": True, "mode": 5},
        "io.modelcontextprotocol/rendering-next": 42,
    }
    assert _errors(MERGED[version], "CallToolResult", result) == []
    tool = _load(EXAMPLES_DIR / "Tool" / "paged-ledger.json")
    tool["_meta"] = {**tool["_meta"], "com.example/flags": ["a", 1, None]}
    assert _errors(MERGED[version], "Tool", tool) == []


@pytest.mark.parametrize(
    "expires_at",
    ["2026-12-02T10:15:00Z", "2026-12-31T23:59:59.123456789Z", "2028-02-29T00:00:00Z", "2026-01-01T00:00:00Z"],
)
@pytest.mark.parametrize("version", VERSIONS)
def test_an_expiry_in_utc_validates(version: str, expires_at: str) -> None:
    instance = {"argument": "cursor", "token": "t", "expiresAt": expires_at}
    assert _errors(MERGED[version], "ResultContinuation", instance) == []
