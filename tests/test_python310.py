"""The package declares Python >= 3.10. The development tools need 3.11, so these tests install the package alone
into fresh Python 3.10 environments: with its `sdk` extra, to run the end-to-end smoke check there; and with no
extra, to show that the host side works with no MCP SDK at all."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _candidates() -> list[str]:
    found = [path for path in [shutil.which("python3.10")] if path is not None]
    pyenv = shutil.which("pyenv")
    if pyenv is not None:
        # A pyenv shim only runs the version pyenv has selected, so look at the installed versions directly.
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
        found += sorted(str(path) for path in Path(root).glob("versions/3.10.*/bin/python3.10"))
    return found


def _python310() -> str | None:
    for candidate in _candidates():
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 10))"], capture_output=True
        )
        if probe.returncode == 0 and probe.stdout.strip() == b"True":
            return candidate
    return None


def _runtime_environment(tmp_path: Path, requirement: str) -> str:
    """A fresh Python 3.10 environment with `requirement` installed; the path of its interpreter."""
    interpreter = _python310()
    if interpreter is None:
        if os.environ.get("CI"):
            pytest.fail("CI must provide a Python 3.10 interpreter to check the oldest supported Python")
        pytest.skip("no Python 3.10 interpreter found")
    venv = tmp_path / "py310"
    subprocess.run([interpreter, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # The runtime dependencies only; the SDK and pydantic at the versions the development environment pins (their
    # own dependencies float: some pinned development versions have left Python 3.10 behind).
    pinned = ("mcp==", "mcp-types==", "pydantic==", "pydantic-core==")
    lines = (REPO / "constraints.txt").read_text().splitlines()
    constraints = tmp_path / "runtime-constraints.txt"
    constraints.write_text(
        "\n".join(line for line in lines if line.lower().replace("_", "-").startswith(pinned)) + "\n"
    )
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", requirement, "-c", str(constraints)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    return python


def _run_smoke(python: str, module: str) -> str:
    smoke = subprocess.run(
        [python, "-m", module],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr[-3000:]
    return smoke.stdout


@pytest.mark.slow
def test_the_runtime_works_on_python_310(tmp_path: Path) -> None:
    python = _runtime_environment(tmp_path, f"{REPO}[sdk]")
    assert "install/uninstall on Python 3.10" in _run_smoke(python, "tests.support.smoke")


@pytest.mark.slow
def test_the_host_side_needs_no_sdk(tmp_path: Path) -> None:
    python = _runtime_environment(tmp_path, str(REPO))
    out = _run_smoke(python, "tests.support.host_smoke")
    assert "without the SDK" in out and out.count("audited clean") == 2
    assert "names the extra it needs" in out
