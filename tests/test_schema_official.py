"""The specification's own tool-related examples (tests/fixtures/official/) stay valid under the merged schema."""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "official"
VERSION = "2026-07-28"


def _script(name: str) -> ModuleType:
    """Import one of the repository's generator scripts (they import each other by plain module name)."""
    scripts = str(REPO_ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)


gen_schema = _script("gen_schema")
MERGED = gen_schema.load_merged(VERSION)
OFFICIAL = sorted((FIXTURES / VERSION).glob("*/*.json"))


def _listed_hashes() -> dict[str, str]:
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `([^`]+)` \| ([0-9a-f]{64}) \|$", readme, flags=re.MULTILINE))


def test_fixtures_match_their_recorded_provenance() -> None:
    listed = _listed_hashes()
    on_disk = {path.relative_to(FIXTURES).as_posix(): path for path in OFFICIAL}
    assert set(listed) == set(on_disk)
    for name, path in on_disk.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == listed[name], name


def test_the_tool_types_are_all_there() -> None:
    assert {path.parent.name for path in OFFICIAL} >= {"Tool", "CallToolResult", "ListToolsResult"}


@pytest.mark.parametrize("path", OFFICIAL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_official_example_validates_against_merged_schema(path: Path) -> None:
    validator = gen_schema.definition_validator(MERGED, path.parent.name)
    errors = [error.message for error in validator.iter_errors(json.loads(path.read_text(encoding="utf-8")))]
    assert errors == []
