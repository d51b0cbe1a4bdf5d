"""The TypeScript delta (schema/rendering.ts) and the JSON Schema delta declare exactly the same change.

ts-json-schema-generator (pinned in schema/ts/package-lock.json) turns the TypeScript file into JSON Schema; both
sides are reduced to what the wire format depends on (definitions, member names, types, references, required
members, enums and string limits) and compared definition by definition. Documentation text is not compared.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO_ROOT / "schema"
TS_SOURCE = SCHEMA_DIR / "rendering.ts"
JSON_DELTA = SCHEMA_DIR / "delta" / "rendering.schema.json"
TS_TOOLING = SCHEMA_DIR / "ts"
GENERATOR = TS_TOOLING / "node_modules" / "ts-json-schema-generator" / "bin" / "ts-json-schema-generator.js"

# Keywords that carry no wire constraint. `additionalProperties` is left out on both sides on purpose: the TypeScript
# side is generated with additional properties allowed, matching the contract that unknown members are ignored.
_ANNOTATIONS = frozenset({"description", "title", "$comment", "markdownDescription", "additionalProperties"})
_CONSTRAINTS = frozenset(
    {"type", "enum", "const", "$ref", "properties", "required", "items", "anyOf", "maxLength", "minLength", "pattern"}
    | {"minimum", "maximum", "minItems", "maxItems"}
)


def generate_from_typescript(source: Path) -> dict[str, Any]:
    """Run the pinned generator on a TypeScript file and return the definitions it produces."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is required for the TypeScript delta check (node was not found on PATH)")
    if not GENERATOR.is_file():
        pytest.fail(f"{GENERATOR.relative_to(REPO_ROOT)} is missing: run `npm ci` in schema/ts (scripts/bootstrap.sh)")
    completed = subprocess.run(
        [node, str(GENERATOR), "--path", str(source), "--type", "*", "--additional-properties"],
        cwd=TS_TOOLING,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    if completed.returncode != 0:
        pytest.fail(f"ts-json-schema-generator failed on {source.name}:\n{completed.stderr}")
    return json.loads(completed.stdout)["definitions"]


def shape(schema: dict[str, Any], path: str) -> dict[str, Any]:
    """The wire-relevant part of a schema object, with references reduced to the definition name.

    An unrecognised keyword is kept under a marker key, so it shows up as a difference instead of being skipped.
    """
    reduced: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key not in _CONSTRAINTS:
            reduced[f"unrecognised keyword {key}"] = value
        elif key == "$ref":
            reduced[key] = value.rsplit("/", 1)[-1]
        elif key == "properties":
            reduced[key] = {name: shape(sub, f"{path}.{name}") for name, sub in value.items()}
        elif key == "items":
            reduced[key] = shape(value, f"{path}[]")
        elif key == "anyOf":
            reduced[key] = [shape(branch, f"{path}|{index}") for index, branch in enumerate(value)]
        elif key in {"required", "enum"}:
            reduced[key] = sorted(value, key=json.dumps)
        else:
            reduced[key] = value
    # A delta fragment (ToolAnnotations, CallToolResult) lists members only; the interface is an object type.
    if "properties" in reduced:
        reduced.setdefault("type", "object")
        reduced.setdefault("required", [])
    return reduced


def differences(left: Any, right: Any, path: str = "") -> list[str]:
    """Every place where two reduced schemas disagree, `left` being the TypeScript side."""
    if isinstance(left, dict) and isinstance(right, dict):
        found: list[str] = []
        for key in sorted(set(left) | set(right)):
            where = f"{path}/{key}"
            if key not in right:
                found.append(f"{where}: only in TypeScript ({json.dumps(left[key])})")
            elif key not in left:
                found.append(f"{where}: only in JSON Schema ({json.dumps(right[key])})")
            else:
                found.extend(differences(left[key], right[key], where))
        return found
    if left != right:
        return [f"{path}: TypeScript {json.dumps(left)} != JSON Schema {json.dumps(right)}"]
    return []


def compare(ts_definitions: dict[str, Any], json_delta: dict[str, Any]) -> list[str]:
    """Compare the generated TypeScript definitions with the JSON delta's `$defs`, definition by definition."""
    ts_side = {name: shape(schema, name) for name, schema in ts_definitions.items()}
    json_side = {name: shape(schema, name) for name, schema in json_delta["$defs"].items()}
    return differences(ts_side, json_side)


@pytest.fixture(scope="module")
def ts_definitions() -> dict[str, Any]:
    return generate_from_typescript(TS_SOURCE)


def _json_delta() -> dict[str, Any]:
    return json.loads(JSON_DELTA.read_text(encoding="utf-8"))


def test_typescript_and_json_deltas_agree(ts_definitions: dict[str, Any]) -> None:
    assert sorted(ts_definitions) == sorted(_json_delta()["$defs"])
    assert compare(ts_definitions, _json_delta()) == []


_JSON_ALTERATIONS = {
    "limit": (("Rendering", "properties", "guidance", "maxLength"), 999, "/Rendering/properties/guidance/maxLength"),
    "pattern": (
        ("ResultContinuation", "properties", "argument", "pattern"),
        "^[a-z]+$",
        "/ResultContinuation/properties/argument/pattern",
    ),
    "type": (
        ("ToolAnnotations", "properties", "verbatimHint", "type"),
        "string",
        "/ToolAnnotations/properties/verbatimHint/type",
    ),
    "nullable": (
        ("Rendering", "properties", "complete", "type"),
        ["boolean", "null"],
        "/Rendering/properties/complete/type",
    ),
    "required": (("Rendering", "required"), ["mode", "complete"], "/Rendering/required"),
    "member": (("CallToolResult", "properties", "_layout"), {"type": "object"}, "/CallToolResult/properties/_layout"),
    "carrier": (
        ("Tool", "properties", "_meta", "properties", "io.modelcontextprotocol/rendering", "$ref"),
        "#/$defs/Rendering",
        "/Tool/properties/_meta/properties/io.modelcontextprotocol/rendering/$ref",
    ),
    "reference": (
        ("CallToolResult", "properties", "_rendering", "anyOf"),
        [{"$ref": "#/$defs/RenderingHints"}, {"type": "null"}],
        "/CallToolResult/properties/_rendering/anyOf",
    ),
}


@pytest.mark.parametrize("alteration", sorted(_JSON_ALTERATIONS))
def test_a_json_side_change_is_detected(ts_definitions: dict[str, Any], alteration: str) -> None:
    keys, value, expected_path = _JSON_ALTERATIONS[alteration]
    delta = _json_delta()
    target = delta["$defs"]
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value
    reported = compare(ts_definitions, delta)
    assert [line for line in reported if line.startswith(f"{expected_path}:")], reported


def test_a_typescript_side_change_is_detected(tmp_path: Path) -> None:
    source = TS_SOURCE.read_text(encoding="utf-8")
    altered = source.replace("@maxLength 1000", "@maxLength 100").replace("complete: boolean;", "complete: string;")
    assert altered.count("@maxLength 100\n") == 1 and "complete: string;" in altered
    copy = tmp_path / "rendering.ts"
    copy.write_text(altered, encoding="utf-8")
    reported = compare(generate_from_typescript(copy), _json_delta())
    assert sorted(line.split(":")[0] for line in reported) == [
        "/Rendering/properties/complete/type",
        "/Rendering/properties/guidance/maxLength",
    ]


def test_each_hint_documents_its_default(ts_definitions: dict[str, Any]) -> None:
    documented = {
        ("RenderingHints", "verbatimHint"): "Default: false",
        ("RenderingHints", "summarizeOkHint"): "Default: false",
        ("Rendering", "complete"): "Required",
        ("Rendering", "nullDisplay"): 'Default: "n/a"',
    }
    for (definition, member), default in documented.items():
        assert default in ts_definitions[definition]["properties"][member]["description"], (definition, member)


def test_included_examples_exist() -> None:
    included = re.findall(r"\{@includeCode \./([^}\s]+)\}", TS_SOURCE.read_text(encoding="utf-8"))
    assert included
    for relative in included:
        assert (SCHEMA_DIR / relative).is_file(), relative
    # Every type the change introduces or extends carries at least one example.
    examples_by_type = {Path(relative).parts[1] for relative in included}
    assert examples_by_type == set(_json_delta()["$defs"])
