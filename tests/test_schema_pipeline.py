"""The schema pipeline: shape-only upstream copies, the merge of the delta, and the generated types module."""

from __future__ import annotations

import copy
import importlib
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def _script(name: str) -> ModuleType:
    """Import one of the repository's generator scripts (they import each other by plain module name)."""
    scripts = str(REPO_ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)


gen_upstream = _script("gen_upstream")
gen_schema = _script("gen_schema")
gen_types = _script("gen_types")

DELTA: dict[str, Any] = json.loads(gen_schema.DELTA_PATH.read_text(encoding="utf-8"))


def _upstream(version: str) -> dict[str, Any]:
    return gen_upstream.load_json(gen_upstream.UPSTREAM_DIR / version / "schema.json")


# --- shape-only copies ---------------------------------------------------------------------------------------------


def test_strip_removes_the_keyword_but_keeps_a_property_named_description() -> None:
    schema = {
        "description": "top",
        "type": "object",
        "properties": {
            "description": {"description": "the property's own doc", "type": "string"},
            "items": {"type": "array", "items": {"description": "nested", "type": "string"}},
            "kind": {"enum": [{"description": "data, not a keyword"}], "default": {"description": "data too"}},
        },
        "anyOf": [{"description": "branch", "required": ["description"]}],
        "$defs": {"X": {"description": "def", "type": "null"}},
    }
    stripped = gen_upstream.strip_descriptions(schema)
    assert stripped == {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "items": {"type": "array", "items": {"type": "string"}},
            "kind": {"enum": [{"description": "data, not a keyword"}], "default": {"description": "data too"}},
        },
        "anyOf": [{"required": ["description"]}],
        "$defs": {"X": {"type": "null"}},
    }
    assert gen_upstream.description_paths(stripped) == []
    assert gen_upstream.description_paths(schema) == [
        "/description",
        "/properties/description/description",
        "/properties/items/items/description",
        "/anyOf/0/description",
        "/$defs/X/description",
    ]


def test_strip_refuses_an_unknown_keyword() -> None:
    with pytest.raises(gen_upstream.SchemaShapeError, match="x-doc"):
        gen_upstream.strip_descriptions({"properties": {"a": {"x-doc": "prose?"}}})


@pytest.mark.parametrize("version", gen_upstream.VERSIONS)
def test_pinned_copy_is_the_upstream_shape(version: str) -> None:
    """Each copy keeps every definition and property of upstream; it only lacks descriptions."""
    copy_ = _upstream(version)
    assert gen_upstream.description_paths(copy_) == []
    keyword = gen_schema.definitions_keyword(copy_)
    assert "ToolAnnotations" in copy_[keyword]
    assert "description" in copy_[keyword]["Tool"]["properties"]  # the property, not the keyword
    manifest = gen_upstream.load_manifest()
    assert manifest["commit"] == gen_upstream.UPSTREAM_COMMIT
    assert manifest["schemas"][version]["dialect"] == copy_["$schema"]


def test_offline_check_passes_on_the_committed_copies() -> None:
    assert gen_upstream.check_offline() == []


@pytest.fixture
def upstream_copy(tmp_path: Path) -> Path:
    target = tmp_path / "upstream"
    shutil.copytree(gen_upstream.UPSTREAM_DIR, target)
    return target


def test_offline_check_detects_an_edited_copy(upstream_copy: Path) -> None:
    path = upstream_copy / "2026-07-28" / "schema.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["$defs"]["ToolAnnotations"]["description"] = "reintroduced prose"
    path.write_bytes(gen_upstream.dump_json(document))
    problems = gen_upstream.check_offline(upstream_copy)
    assert any("sha256 differs" in problem for problem in problems)
    assert any("not shape-only" in problem and "/$defs/ToolAnnotations/description" in problem for problem in problems)


def test_check_detects_upstream_drift(tmp_path: Path, upstream_copy: Path) -> None:
    """A source whose schema changed (here: one definition gains a property) is reported as drift."""
    source = tmp_path / "spec"
    for version in gen_upstream.VERSIONS:
        (source / version).mkdir(parents=True)
        # The shape-only copy is a valid stand-in for the upstream file: stripping it again is the identity.
        shutil.copy(upstream_copy / version / "schema.json", source / version / "schema.json")
    produced = gen_upstream.build(source, upstream_copy)
    gen_upstream.write(produced)
    assert gen_upstream.check_against(source, upstream_copy) == []

    changed = json.loads((source / "2025-11-25" / "schema.json").read_text(encoding="utf-8"))
    changed["$defs"]["Tool"]["properties"]["newField"] = {"type": "string", "description": "new upstream prose"}
    (source / "2025-11-25" / "schema.json").write_text(json.dumps(changed), encoding="utf-8")
    problems = gen_upstream.check_against(source, upstream_copy)
    assert any("2025-11-25" in problem for problem in problems)
    assert any(
        problem.endswith(
            f"{gen_upstream.MANIFEST_NAME} differs from what {source} produces (upstream changed or copy edited)"
        )
        for problem in problems
    )


def test_check_against_the_shared_specification_when_available() -> None:
    source = gen_upstream.default_source()
    if source is None:
        pytest.skip("the specification folder is not beside this checkout; the offline check above still ran")
    assert gen_upstream.check_against(source) == []


# --- merge ---------------------------------------------------------------------------------------------------------


def _walk_refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in _walk_refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _walk_refs(value)]
    return []


@pytest.mark.parametrize("version", gen_upstream.VERSIONS)
def test_merge_is_additive_and_committed(version: str) -> None:
    upstream = _upstream(version)
    merged = gen_schema.merge(upstream, DELTA)
    keyword = gen_schema.definitions_keyword(upstream)
    committed = json.loads((gen_schema.MERGED_DIR / version / "schema.json").read_text(encoding="utf-8"))
    assert committed == merged

    # Removing exactly what the delta adds gives back upstream: nothing upstream was changed.
    reverted = copy.deepcopy(merged)
    for name in ("Rendering", "RenderingHints", "ResultContinuation", "ResultContinuationTool"):
        del reverted[keyword][name]
    for prop in ("verbatimHint", "summarizeOkHint"):
        del reverted[keyword]["ToolAnnotations"]["properties"][prop]
    del reverted[keyword]["CallToolResult"]["properties"]["_rendering"]
    for name in ("Tool", "CallToolResult"):
        # `_meta` is upstream's own schema, kept whole as the first branch, and the carriers' typing.
        conjoined = reverted[keyword][name]["properties"]["_meta"]["allOf"]
        assert conjoined[0] == upstream[keyword][name]["properties"]["_meta"]
        assert set(conjoined[1]) == {"type", "description", "properties"}
        reverted[keyword][name]["properties"]["_meta"] = conjoined[0]
    assert reverted == upstream

    # References stay in the document's own dialect and all resolve.
    refs = _walk_refs(merged)
    assert refs
    assert all(ref.startswith(f"#/{keyword}/") and ref.split("/")[-1] in merged[keyword] for ref in refs)
    assert "title" not in merged[keyword]["ToolAnnotations"]


def test_merge_refuses_to_redefine_an_upstream_property() -> None:
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["ToolAnnotations"]["properties"]["readOnlyHint"] = {"type": "boolean"}
    with pytest.raises(gen_schema.MergeError, match=r"ToolAnnotations\.readOnlyHint already exists upstream"):
        gen_schema.merge(_upstream("2026-07-28"), delta)


def test_merge_refuses_to_retype_a_meta_key_upstream_declares() -> None:
    """2026-07-28 types `_meta["io.modelcontextprotocol/serverInfo"]` of every result; the delta may not retype it."""
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["CallToolResult"]["properties"]["_meta"]["properties"]["io.modelcontextprotocol/serverInfo"] = {
        "type": "string"
    }
    with pytest.raises(gen_schema.MergeError, match=r"serverInfo.*upstream already declares"):
        gen_schema.merge(_upstream("2026-07-28"), delta)
    # Under the older versions upstream leaves that key open, so typing it there is additive.
    gen_schema.merge(_upstream("2025-11-25"), delta)


@pytest.mark.parametrize(
    ("keyword", "value"), [("additionalProperties", False), ("required", ["io.modelcontextprotocol/rendering"])]
)
def test_merge_refuses_to_close_or_require_meta(keyword: str, value: Any) -> None:
    """The delta types some keys of `_meta`; it must not close `_meta` to other keys nor require a carrier."""
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["Tool"]["properties"]["_meta"][keyword] = value
    with pytest.raises(gen_schema.MergeError, match="may only type keys of an object"):
        gen_schema.merge(_upstream("2025-11-25"), delta)


def test_only_meta_may_be_narrowed() -> None:
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["Tool"]["properties"]["annotations"] = {"type": "object", "properties": {"x": {"type": "string"}}}
    with pytest.raises(gen_schema.MergeError, match=r"Tool\.annotations already exists upstream"):
        gen_schema.merge(_upstream("2025-06-18"), delta)


def test_merge_refuses_to_replace_an_upstream_definition() -> None:
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["TextContent"] = {"type": "object"}
    with pytest.raises(gen_schema.MergeError, match="TextContent already exists upstream"):
        gen_schema.merge(_upstream("2025-11-25"), delta)


def test_merge_refuses_a_fragment_without_target_or_with_other_keywords() -> None:
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["NoSuchThing"] = {"title": "NoSuchThingDelta", "properties": {"a": {"type": "string"}}}
    with pytest.raises(gen_schema.MergeError, match="which upstream does not define"):
        gen_schema.merge(_upstream("2026-07-28"), delta)
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["CallToolResult"]["required"] = ["_rendering"]
    with pytest.raises(gen_schema.MergeError, match="may only add properties"):
        gen_schema.merge(_upstream("2026-07-28"), delta)


def test_merge_into_draft_07_refuses_keywords_it_would_misread() -> None:
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["Rendering"]["properties"]["tags"] = {"type": "array", "prefixItems": [{"type": "string"}]}
    with pytest.raises(gen_schema.MergeError, match="no draft-07 equivalent"):
        gen_schema.merge(_upstream("2025-06-18"), delta)
    # The same delta is fine for a 2020-12 upstream.
    gen_schema.merge(_upstream("2025-11-25"), delta)

    delta = copy.deepcopy(DELTA)
    delta["$defs"]["CallToolResult"]["properties"]["_rendering"]["anyOf"][0]["type"] = "object"
    with pytest.raises(gen_schema.MergeError, match="draft-07 would ignore"):
        gen_schema.merge(_upstream("2025-06-18"), delta)


# --- generated types -----------------------------------------------------------------------------------------------


def test_generated_module_is_current_and_has_only_the_delta_models() -> None:
    text = gen_types.generate()
    assert gen_types.OUTPUT_PATH.read_text(encoding="utf-8") == text
    assert gen_types.header(gen_types.DELTA_PATH.read_bytes()) in text
    classes = [line.split("(")[0].removeprefix("class ") for line in text.splitlines() if line.startswith("class ")]
    assert classes == [
        "RenderingHints",
        "Rendering",
        "ResultContinuationTool",
        "ResultContinuation",
        "ToolAnnotationsDelta",
        "CallToolResultDelta",
    ]


def test_generated_module_follows_the_delta(tmp_path: Path) -> None:
    """Changing a limit in the delta changes the generated constraint and the recorded source hash."""
    delta = copy.deepcopy(DELTA)
    delta["$defs"]["Rendering"]["properties"]["guidance"]["maxLength"] = 999
    altered = tmp_path / "rendering.schema.json"
    altered.write_text(json.dumps(delta, indent=2), encoding="utf-8")
    text = gen_types.generate(altered)
    assert "max_length=999" in text
    assert "max_length=1000" not in text
    assert gen_upstream.sha256_hex(altered.read_bytes()) in text
