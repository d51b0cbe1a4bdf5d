"""Every framework adapter has an install extra, whose ranges hold the versions the adapter is tested against, and
its docs page installs it."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# tomllib is 3.11+; the tests run on 3.11, the package supports 3.10 (which pyright checks against).
tomllib: Any = importlib.import_module("tomllib")
ROOT = Path(__file__).resolve().parents[1]
INTEGRATIONS = ROOT / "python_ext" / "mcp_rendering" / "integrations"
NOT_ADAPTERS = {"__init__", "answer"}
"""Modules of the integrations package that adapt no framework."""
ADAPTERS = sorted(path.stem for path in INTEGRATIONS.glob("*.py") if path.stem not in NOT_ADAPTERS)
EXTRAS: dict[str, list[str]] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "optional-dependencies"
]


def _extra(module: str) -> str:
    """The extra, the docs page and the reach environment of an adapter module are named alike."""
    return module.replace("_", "-")


def _pinned(environment: str) -> dict[str, str]:
    """The exact versions of the reach environment's lock, by canonical name."""
    lock = ROOT / "interop" / "reach" / f"requirements-{environment}.txt"
    pins: dict[str, str] = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        if "==" in line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


def test_the_adapters_are_found() -> None:
    assert {"agno", "crewai", "google_adk", "haystack", "langchain", "strands"} <= set(ADAPTERS)


@pytest.mark.parametrize("module", ADAPTERS)
def test_every_adapter_has_an_extra_its_docs_page_installs(module: str) -> None:
    extra = _extra(module)
    assert EXTRAS.get(extra), f"pyproject.toml has no {extra!r} extra for mcp_rendering.integrations.{module}"
    page = (ROOT / "docs" / f"{extra}.md").read_text(encoding="utf-8")
    assert f"pip install -e '.[{extra}]'" in page, f"docs/{extra}.md does not install the {extra!r} extra"


@pytest.mark.parametrize("module", [module for module in ADAPTERS if module != "fastmcp"])
def test_every_extra_accepts_the_versions_its_adapter_is_tested_against(module: str) -> None:
    extra = _extra(module)
    pins = _pinned(extra)
    for line in EXTRAS[extra]:
        requirement = Requirement(line)
        version = pins.get(canonicalize_name(requirement.name))
        assert version is not None, f"{requirement.name} is not in the {extra} reach environment"
        assert requirement.specifier.contains(version), f"{line} leaves out {version}, the tested version"
        # Bounded both ways: no release older than the tested one, none of a next major line unchecked.
        assert not requirement.specifier.contains("0.0.1"), f"{line} has no lower bound"
        assert not requirement.specifier.contains("9999"), f"{line} has no upper bound"


def test_the_fastmcp_extra_accepts_the_development_pin() -> None:
    development = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["dependency-groups"]["dev"]
    [pin] = [Requirement(line) for line in development if Requirement(line).name == "fastmcp"]
    [version] = [spec.version for spec in pin.specifier]
    [extra] = [Requirement(line) for line in EXTRAS["fastmcp"]]
    assert extra.specifier.contains(version)
