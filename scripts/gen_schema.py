"""Apply the rendering delta to every pinned upstream schema and write schema/merged/<version>/schema.json.

The delta (`schema/delta/rendering.schema.json`, JSON Schema 2020-12) holds two kinds of definitions:

- new definitions (`Rendering`, ...), copied into the upstream document as they are;
- fragments of existing definitions, marked by the title `<Name>Delta` (`ToolDelta`, `ToolAnnotationsDelta`,
  `CallToolResultDelta`): only their `properties` are added to the upstream definition `<Name>`.

The merge refuses to overwrite anything: a new definition that already exists upstream, a fragment whose target is
missing, or a property the target already declares is an error. The one exception is `_meta`, whose keys upstream
leaves open for extensions: a fragment may type some of its keys (the carriers), and the merged `_meta` is then
`allOf` upstream's own schema, kept whole, and the delta's, which may hold only `type: object` and `properties`; so
the merged schema admits no `_meta` that upstream rejects, and every key the delta does not name stays open.

For a draft-07 upstream (which names its definitions `definitions`), the delta's references are rewritten to
`#/definitions/...` and the delta may use only keywords that draft-07 defines with the same meaning, so the merged
document stays in its upstream dialect.

Usage:
    python scripts/gen_schema.py            # write the merged schemas
    python scripts/gen_schema.py --check    # exit 1 when a merged schema is missing or out of date
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import Any

from gen_upstream import REPO_ROOT, UPSTREAM_DIR, VERSIONS, dump_json, load_json
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

DELTA_PATH = REPO_ROOT / "schema" / "delta" / "rendering.schema.json"
MERGED_DIR = REPO_ROOT / "schema" / "merged"
FRAGMENT_SUFFIX = "Delta"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
# Keywords the delta may use when merged into a draft-07 document: those whose meaning is the same in both dialects.
_PORTABLE_KEYWORDS = frozenset(
    {
        "$ref",
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "description",
        "title",
        "anyOf",
        "oneOf",
        "allOf",
    }
)
_FRAGMENT_KEYS = frozenset({"title", "description", "properties"})
# The property whose keys upstream leaves open, and the keywords a delta may use to type some of those keys.
OPEN_META = "_meta"
_META_KEYS = frozenset({"type", "description", "properties"})


class MergeError(ValueError):
    """The delta cannot be applied to an upstream schema without changing what upstream already defines."""


def definitions_keyword(document: dict[str, Any]) -> str:
    """The keyword under which a schema document keeps its definitions (`$defs`, or draft-07's `definitions`)."""
    if document.get("$schema") == DRAFT_07:
        return "definitions"
    if document.get("$schema") == DRAFT_2020_12:
        return "$defs"
    raise MergeError(f"unsupported dialect {document.get('$schema')!r}")


def is_fragment(name: str, definition: dict[str, Any]) -> bool:
    """True for a delta definition that adds properties to the upstream definition `name`."""
    return definition.get("title") == f"{name}{FRAGMENT_SUFFIX}"


def _port(node: Any, defs_keyword: str, dialect: str, path: str) -> Any:
    """Copy a delta subschema into the target dialect: rewrite local references, refuse non-portable keywords."""
    if isinstance(node, list):
        return [_port(item, defs_keyword, dialect, f"{path}/{index}") for index, item in enumerate(node)]
    if not isinstance(node, dict):
        return node
    ported: dict[str, Any] = {}
    for key, value in node.items():
        if dialect == DRAFT_07 and key not in _PORTABLE_KEYWORDS:
            raise MergeError(f"delta keyword {key!r} at {path} has no draft-07 equivalent")
        if key == "$ref":
            # draft-07 ignores every keyword beside $ref: only annotations may sit there.
            if dialect == DRAFT_07 and set(node) - {"$ref", "description", "title"}:
                raise MergeError(f"delta reference at {path} has sibling keywords, which draft-07 would ignore")
            prefix = "#/$defs/"
            if not value.startswith(prefix):
                raise MergeError(f"delta reference {value!r} at {path} is not local to the delta")
            ported[key] = f"#/{defs_keyword}/{value[len(prefix) :]}"
        elif key == "properties":
            ported[key] = {
                name: _port(sub, defs_keyword, dialect, f"{path}/{key}/{name}") for name, sub in value.items()
            }
        elif key in {"enum", "const", "required", "description", "title", "pattern"}:
            ported[key] = copy.deepcopy(value)
        else:
            ported[key] = _port(value, defs_keyword, dialect, f"{path}/{key}")
    return ported


def _declared_keys(schema: dict[str, Any], definitions: dict[str, Any]) -> set[str]:
    """The property names an upstream schema declares, following a local reference (2026-07-28's `MetaObject`)."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        schema = definitions.get(ref.rsplit("/", 1)[-1], {})
    return set(schema.get("properties", {}))


def _narrow_meta(
    upstream_meta: dict[str, Any],
    delta_meta: dict[str, Any],
    definitions: dict[str, Any],
    ported: dict[str, Any],
    path: str,
) -> dict[str, Any]:
    """Upstream's `_meta` schema conjoined with the delta's typing of some of its open keys."""
    if set(delta_meta) - _META_KEYS or delta_meta.get("type") != "object":
        raise MergeError(
            f"{path} may only type keys of an object: type object and properties, found {sorted(delta_meta)}"
        )
    taken = _declared_keys(upstream_meta, definitions) & set(delta_meta.get("properties", {}))
    if taken:
        raise MergeError(
            f"{path} types {sorted(taken)}, which upstream already declares; the delta must not redefine it"
        )
    return {"allOf": [upstream_meta, ported]}


def merge(upstream: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Return `upstream` with the delta applied (neither argument is modified)."""
    dialect = upstream.get("$schema", "")
    defs_keyword = definitions_keyword(upstream)
    merged = copy.deepcopy(upstream)
    definitions: dict[str, Any] = merged[defs_keyword]
    for name, definition in delta["$defs"].items():
        path = f"#/$defs/{name}"
        if is_fragment(name, definition):
            extra_keys = set(definition) - _FRAGMENT_KEYS
            if extra_keys:
                raise MergeError(f"fragment {path} may only add properties, found {sorted(extra_keys)}")
            target = definitions.get(name)
            if target is None:
                raise MergeError(f"fragment {path} targets {name}, which upstream does not define")
            properties: dict[str, Any] = target.setdefault("properties", {})
            for prop, schema in definition.get("properties", {}).items():
                prop_path = f"{path}/properties/{prop}"
                ported = _port(schema, defs_keyword, dialect, prop_path)
                if prop == OPEN_META and prop in properties:
                    properties[prop] = _narrow_meta(properties[prop], schema, definitions, ported, prop_path)
                elif prop in properties:
                    raise MergeError(f"{name}.{prop} already exists upstream; the delta must not redefine it")
                else:
                    properties[prop] = ported
            target["properties"] = dict(sorted(properties.items()))
        else:
            if name in definitions:
                raise MergeError(f"definition {name} already exists upstream; the delta must not replace it")
            definitions[name] = _port(definition, defs_keyword, dialect, path)
    merged[defs_keyword] = dict(sorted(definitions.items()))
    return merged


def load_merged(version: str, merged_dir: Path = MERGED_DIR) -> dict[str, Any]:
    """Read the committed merged schema of one protocol version."""
    return load_json(merged_dir / version / "schema.json")


def definition_validator(document: dict[str, Any], name: str) -> Validator:
    """A validator for instances of the definition `name` of a schema document, in the document's own dialect.

    The document becomes the root of the validated schema, so its local references resolve as they do upstream.
    """
    schema = {**document, "$ref": f"#/{definitions_keyword(document)}/{name}"}
    return validator_for(document)(schema)


def build(
    delta_path: Path = DELTA_PATH, upstream_dir: Path = UPSTREAM_DIR, merged_dir: Path = MERGED_DIR
) -> dict[Path, bytes]:
    """Compute every merged schema, checked against its dialect's metaschema."""
    delta = load_json(delta_path)
    outputs: dict[Path, bytes] = {}
    for version in VERSIONS:
        merged = merge(load_json(upstream_dir / version / "schema.json"), delta)
        validator_for(merged).check_schema(merged)
        outputs[merged_dir / version / "schema.json"] = dump_json(merged)
    return outputs


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify instead of writing; exit 1 on drift")
    args = parser.parse_args(argv)
    try:
        outputs = build()
    except MergeError as error:
        print(f"gen_schema: cannot merge the delta: {error}", file=sys.stderr)
        return 1
    if args.check:
        stale = [path for path, data in outputs.items() if not path.is_file() or path.read_bytes() != data]
        if stale:
            print("gen_schema: merged schemas are out of date:", file=sys.stderr)
            for path in stale:
                print(f"  - {path.relative_to(REPO_ROOT)}", file=sys.stderr)
            print("Run `python scripts/gen_schema.py` and review the diff.", file=sys.stderr)
            return 1
        print(f"gen_schema: {len(outputs)} merged schemas up to date")
        return 0
    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"gen_schema: wrote {len(outputs)} merged schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
