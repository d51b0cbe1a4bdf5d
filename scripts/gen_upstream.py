"""Pin shape-only copies of the official MCP JSON Schemas under schema/upstream/.

For each pinned protocol version, the official `schema.json` is read from a local checkout of the specification
repository's `schema/` folder, every JSON Schema `description` keyword is removed (a property that happens to be
*named* "description" is kept), and the result is written to `schema/upstream/<version>/schema.json`.
`schema/upstream/manifest.json` records where each file came from and the sha256 of both the upstream file and the
shape-only copy.

Usage:
    python scripts/gen_upstream.py [--source DIR]          # (re)write the copies and the manifest
    python scripts/gen_upstream.py --check [--source DIR]  # exit 1 on any drift

The source folder is `--source`, else the environment variable MCP_SPEC_DIR: the `schema/` folder of a checkout of
the specification repository at the pinned commit, holding one `<version>/schema.json` per version. Without a
source, `--check` still verifies that every copy matches the manifest's hash and holds no `description`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_DIR = REPO_ROOT / "schema" / "upstream"
MANIFEST_NAME = "manifest.json"

VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
UPSTREAM_REPOSITORY = "modelcontextprotocol/modelcontextprotocol"
UPSTREAM_COMMIT = "b0f60ba5409db7a6582440a7b473cc0398890f15"
UPSTREAM_LICENSE = (
    "The MCP specification is licensed Apache-2.0; parts contributed before the relicensing remain under MIT. "
    "These copies keep only the schemas' structure (no documentation text), with this provenance."
)
TRANSFORMATION = (
    "Every `description` keyword of every schema object was removed, recursively; properties named "
    "`description` and all other keywords are unchanged. Serialized as UTF-8 JSON, 2-space indent, upstream key "
    "order, trailing newline."
)

# Keywords whose value is a map from names to subschemas.
_SCHEMA_MAP_KEYWORDS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
# Keywords whose value is one subschema (or, for draft-07 `items`/`additionalItems`, possibly a list of them).
_SCHEMA_KEYWORDS = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)
# Keywords whose value is a list of subschemas.
_SCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# Keywords holding instance data or plain values: never descended into (a "description" there is data).
_VALUE_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "type",
        "const",
        "enum",
        "default",
        "examples",
        "format",
        "required",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minContains",
        "maxContains",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "contentEncoding",
        "contentMediaType",
        "readOnly",
        "writeOnly",
        "deprecated",
    }
)
STRIPPED_KEYWORD = "description"


class SchemaShapeError(ValueError):
    """The schema uses a keyword the shape-only transform does not know how to treat."""


def sha256_hex(data: bytes) -> str:
    """Return the lowercase hex sha256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def dump_json(document: Any) -> bytes:
    """Serialize a JSON document the way every file of the schema pipeline is written (stable, diff-friendly)."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def load_json(path: Path) -> Any:
    """Read a UTF-8 JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def _check_keyword(key: str, path: str) -> None:
    """Refuse a keyword the transform does not classify, rather than guess whether it holds prose."""
    known = _SCHEMA_MAP_KEYWORDS | _SCHEMA_KEYWORDS | _SCHEMA_LIST_KEYWORDS | _VALUE_KEYWORDS
    if key not in known and key not in {"dependencies", STRIPPED_KEYWORD}:
        raise SchemaShapeError(f"unknown keyword {key!r} at {path or '/'}: cannot tell whether it holds prose")


def _subschemas(schema: dict[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    """Yield (path, subschema) for every direct subschema of `schema`."""
    for key, value in schema.items():
        _check_keyword(key, path)
        if key in _SCHEMA_MAP_KEYWORDS or key == "dependencies":
            # draft-07 `dependencies` maps a property to a subschema or to a list of names; a list yields nothing.
            for name, sub in value.items():
                yield f"{path}/{key}/{name}", sub
        elif key in _SCHEMA_LIST_KEYWORDS or (key in _SCHEMA_KEYWORDS and isinstance(value, list)):
            for index, sub in enumerate(value):
                yield f"{path}/{key}/{index}", sub
        elif key in _SCHEMA_KEYWORDS:
            yield f"{path}/{key}", value


def strip_descriptions(schema: Any, path: str = "") -> Any:
    """Return a copy of `schema` without any `description` keyword, at any depth.

    Only schema objects are rewritten: names inside `properties` (so a property called "description") and instance
    data under `const`, `enum`, `default` or `examples` are left alone. Boolean schemas pass through.
    """
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        _check_keyword(key, path)
        if key == STRIPPED_KEYWORD:
            continue
        if key in _SCHEMA_MAP_KEYWORDS or key == "dependencies":
            result[key] = {name: strip_descriptions(sub, f"{path}/{key}/{name}") for name, sub in value.items()}
        elif key in _SCHEMA_LIST_KEYWORDS or (key in _SCHEMA_KEYWORDS and isinstance(value, list)):
            result[key] = [strip_descriptions(sub, f"{path}/{key}/{index}") for index, sub in enumerate(value)]
        elif key in _SCHEMA_KEYWORDS:
            result[key] = strip_descriptions(value, f"{path}/{key}")
        else:
            result[key] = value
    return result


def description_paths(schema: Any, path: str = "") -> list[str]:
    """Return the JSON-pointer-like paths of every `description` keyword left in `schema` (empty when shape-only)."""
    if not isinstance(schema, dict):
        return []
    found = [f"{path}/{STRIPPED_KEYWORD}"] if STRIPPED_KEYWORD in schema else []
    for sub_path, sub in _subschemas(schema, path):
        found.extend(description_paths(sub, sub_path))
    return found


def default_source() -> Path | None:
    """The specification folder to read when none is given: MCP_SPEC_DIR, if set."""
    env = os.environ.get("MCP_SPEC_DIR")
    return Path(env) if env else None


def _display(path: Path) -> str:
    """A path relative to the repository when it lies inside it, for messages."""
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def build(source: Path, upstream_dir: Path = UPSTREAM_DIR) -> dict[Path, bytes]:
    """Compute every file this script owns (the shape-only copies and the manifest) from the upstream folder."""
    outputs: dict[Path, bytes] = {}
    entries: dict[str, Any] = {}
    for version in VERSIONS:
        upstream_file = source / version / "schema.json"
        if not upstream_file.is_file():
            raise FileNotFoundError(f"upstream schema missing: {upstream_file}")
        raw = upstream_file.read_bytes()
        document = json.loads(raw)
        shape_only = dump_json(strip_descriptions(document))
        outputs[upstream_dir / version / "schema.json"] = shape_only
        entries[version] = {
            "path": f"schema/{version}/schema.json",
            "dialect": document.get("$schema"),
            "upstreamSha256": sha256_hex(raw),
            "shapeOnlySha256": sha256_hex(shape_only),
        }
    manifest = {
        "repository": UPSTREAM_REPOSITORY,
        "commit": UPSTREAM_COMMIT,
        "license": UPSTREAM_LICENSE,
        "transformation": TRANSFORMATION,
        "generator": "scripts/gen_upstream.py",
        "schemas": entries,
    }
    outputs[upstream_dir / MANIFEST_NAME] = dump_json(manifest)
    return outputs


def load_manifest(upstream_dir: Path = UPSTREAM_DIR) -> dict[str, Any]:
    """Read the manifest of the pinned copies."""
    return load_json(upstream_dir / MANIFEST_NAME)


def check_offline(upstream_dir: Path = UPSTREAM_DIR) -> list[str]:
    """Verify the pinned copies on their own: hashes match the manifest and no description is left."""
    manifest_path = upstream_dir / MANIFEST_NAME
    if not manifest_path.is_file():
        return [f"{_display(manifest_path)} is missing"]
    problems: list[str] = []
    schemas: dict[str, Any] = load_manifest(upstream_dir).get("schemas", {})
    if sorted(schemas) != sorted(VERSIONS):
        problems.append(f"manifest lists versions {sorted(schemas)}, expected {sorted(VERSIONS)}")
    for version, entry in schemas.items():
        copy = upstream_dir / version / "schema.json"
        if not copy.is_file():
            problems.append(f"{_display(copy)} is missing")
            continue
        data = copy.read_bytes()
        if sha256_hex(data) != entry.get("shapeOnlySha256"):
            problems.append(f"{_display(copy)}: sha256 differs from the manifest (edited by hand?)")
        left = description_paths(json.loads(data))
        if left:
            problems.append(f"{_display(copy)}: not shape-only, {len(left)} description keyword(s), e.g. {left[0]}")
    return problems


def check_against(source: Path, upstream_dir: Path = UPSTREAM_DIR) -> list[str]:
    """Compare every owned file with what `source` would produce."""
    try:
        expected_files = build(source, upstream_dir)
    except (OSError, ValueError) as error:
        return [f"cannot read the upstream folder {source}: {error}"]
    problems: list[str] = []
    for path, expected in expected_files.items():
        if not path.is_file():
            problems.append(f"{_display(path)} is missing")
        elif path.read_bytes() != expected:
            problems.append(f"{_display(path)} differs from what {source} produces (upstream changed or copy edited)")
    return problems


def write(outputs: dict[Path, bytes]) -> None:
    """Write the computed files, creating folders as needed."""
    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify instead of writing; exit 1 on drift")
    parser.add_argument("--source", type=Path, help="folder holding <version>/schema.json of the specification")
    args = parser.parse_args(argv)
    source: Path | None = args.source or default_source()
    if source is not None and not source.is_dir():
        parser.error(f"upstream folder {source} does not exist")

    if args.check:
        problems = check_offline()
        if source is not None:
            problems += check_against(source)
        if problems:
            print("gen_upstream: pinned upstream schemas are out of date:", file=sys.stderr)
            for problem in problems:
                print(f"  - {problem}", file=sys.stderr)
            print("Run `python scripts/gen_upstream.py` to resync (and review the diff).", file=sys.stderr)
            return 1
        where = f"against {source}" if source is not None else "offline (no upstream folder found)"
        print(f"gen_upstream: {len(VERSIONS)} pinned schemas up to date, checked {where}")
        return 0

    if source is None:
        parser.error("no upstream folder: pass --source DIR or set MCP_SPEC_DIR")
    write(build(source))
    print(f"gen_upstream: wrote {len(VERSIONS)} shape-only schemas and the manifest from {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
