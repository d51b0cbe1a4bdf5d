"""Ready to release: the workflows run what the README says, publish by trusted publishing only, pin every action
by version; the version, the changelog and the packaging metadata agree."""

from __future__ import annotations

import re
import runpy
from importlib import metadata
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
_EXACT_VERSION = re.compile(r"^[\w.-]+/[\w.-]+@v\d+\.\d+\.\d+$")


def _workflow(name: str) -> dict[Any, Any]:
    """A workflow as YAML 1.1 reads it: the key `on` becomes True."""
    loaded = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return cast("dict[Any, Any]", loaded)


def _steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def _version() -> str:
    return str(runpy.run_path(str(ROOT / "python_ext" / "mcp_rendering" / "_version.py"))["__version__"])


@pytest.mark.parametrize("name", ["ci.yml", "release.yml", "docs.yml"])
def test_every_action_is_pinned_by_version(name: str) -> None:
    uses = [step["uses"] for step in _steps(_workflow(name)) if "uses" in step]
    assert uses
    assert [use for use in uses if not _EXACT_VERSION.match(use)] == []


def test_pull_requests_run_the_readme_test_command() -> None:
    workflow = _workflow("ci.yml")
    assert "pull_request" in workflow[True]
    runs = [step.get("run") for step in _steps(workflow)]
    assert "bash scripts/test.sh" in runs
    assert "bash scripts/test.sh" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_a_version_tag_publishes_by_trusted_publishing() -> None:
    workflow = _workflow("release.yml")
    assert workflow[True]["push"]["tags"] == ["v*"]
    publish = workflow["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    step = next(step for step in publish["steps"] if step.get("uses", "").startswith("pypa/gh-action-pypi-publish@"))
    assert "with" not in step  # no password, no token: PyPI trusts the workflow itself
    # Nothing is built or published unless the README's test command passed first, as on a pull request.
    assert workflow["jobs"]["test"] == {"uses": "./.github/workflows/ci.yml"}
    assert "workflow_call" in _workflow("ci.yml")[True]
    assert workflow["jobs"]["build"]["needs"] == "test" and "test" in publish["needs"]
    build_runs = " ".join(str(step.get("run", "")) for step in workflow["jobs"]["build"]["steps"])
    assert "scripts/test-package.sh" in build_runs and 'GITHUB_REF_NAME}" != "v${version}' in build_runs


def test_the_docs_site_is_deployed_from_a_strict_build() -> None:
    workflow = _workflow("docs.yml")
    runs = " ".join(str(step.get("run", "")) for step in _steps(workflow))
    assert "mkdocs build --strict" in runs
    assert any(step.get("uses", "").startswith("actions/deploy-pages@") for step in _steps(workflow))


def test_the_changelog_opens_with_the_version_being_released() -> None:
    changelog = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    first = next(line for line in changelog.splitlines() if line.startswith("## "))
    assert first.startswith(f"## {_version()} ")


def test_the_extras_are_compatible_ranges() -> None:
    # As the installed package states them: what pip resolves for a user.
    extras = [requirement for requirement in metadata.requires("mcp-rendering") or [] if "extra ==" in requirement]
    assert len(extras) >= 5
    for requirement in extras:
        assert "==" not in requirement.split(";")[0], requirement
        assert ">=" in requirement and "<" in requirement, requirement
