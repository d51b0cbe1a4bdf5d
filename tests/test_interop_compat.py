"""scripts/gen_compat.py: the matrix rendered between marker lines, and the failures it must report."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from interop.run import ROOT, load_expected
from interop.scenarios import SCENARIOS


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_compat", ROOT / "scripts" / "gen_compat.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_compat"] = module
    spec.loader.exec_module(module)
    return module


gen = _load_generator()

PAGE = "# Compatibility\n\nIntro.\n\n<!-- BEGIN compat-matrix -->\nold table\n<!-- END compat-matrix -->\n\nAfter.\n"


def test_fills_the_markers_and_keeps_the_rest() -> None:
    content = gen.block(load_expected())
    filled = gen.replace_between_markers(PAGE, content, "page.md")
    assert filled.startswith("# Compatibility\n\nIntro.\n\n<!-- BEGIN compat-matrix -->\n")
    assert filled.endswith("<!-- END compat-matrix -->\n\nAfter.\n")
    assert "old table" not in filled
    for scenario in SCENARIOS:
        assert scenario.label in filled
    assert gen.replace_between_markers(filled, content, "page.md") == filled


@pytest.mark.parametrize(
    "text",
    [
        "# No markers at all\n",
        "<!-- END compat-matrix -->\n<!-- BEGIN compat-matrix -->\n",
        "<!-- BEGIN compat-matrix -->\n<!-- END compat-matrix -->\n<!-- BEGIN compat-matrix -->\n",
    ],
)
def test_missing_or_broken_markers_are_named(text: str) -> None:
    with pytest.raises(gen.MarkerError, match=r"page\.md: expected exactly one line"):
        gen.replace_between_markers(text, "table", "page.md")


def test_check_names_a_page_without_markers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    monkeypatch.setattr(gen, "DOCS_PAGE", tmp_path / "docs" / "compatibility.md")
    assert gen.targets() == ([], ["docs/compatibility.md does not exist (it must carry the compat-matrix markers)"])
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "compatibility.md").write_text("# Compatibility\n", encoding="utf-8")
    assert gen.targets() == (
        [],
        ["docs/compatibility.md has no `<!-- BEGIN compat-matrix -->` / `<!-- END compat-matrix -->` marker lines"],
    )
    (tmp_path / "docs" / "compatibility.md").write_text(PAGE, encoding="utf-8")
    assert gen.targets() == ([tmp_path / "docs" / "compatibility.md"], [])
