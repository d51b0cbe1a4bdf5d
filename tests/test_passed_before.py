"""scripts/passed_before.py, the record of passed upstream checks: a pass is found only for the same inputs, byte
for byte, and never when asked to run again."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "passed_before.py"


@pytest.fixture
def inputs(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "pr"
    (folder / "sub").mkdir(parents=True)
    (folder / "check.sh").write_text("echo ok\n")
    (folder / "sub" / "one.patch").write_text("+a\n")
    pin = tmp_path / "pin.py"
    pin.write_text("SHA = 'x'\n")
    return [folder, pin]


def _run(mode: str, inputs: list[Path], name: str = "pr", recheck: bool = False) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "MCP_RENDERING_RECHECK"}
    env["MCP_RENDERING_CHECK_CACHE"] = str(inputs[0].parent / "cache")
    if recheck:
        env["MCP_RENDERING_RECHECK"] = "1"
    command = [sys.executable, str(SCRIPT), name, mode, *map(str, inputs)]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_a_recorded_pass_is_found_for_the_same_inputs_only(inputs: list[Path]) -> None:
    assert _run("--query", inputs).returncode == 1
    assert _run("--record", inputs).returncode == 0
    found = _run("--query", inputs)
    assert found.returncode == 0 and "with these exact inputs" in found.stdout
    assert _run("--query", inputs, name="other").returncode == 1


CHANGES: dict[str, Callable[[Path, Path], object]] = {
    "a byte": lambda folder, pin: (folder / "sub" / "one.patch").write_text("+b\n"),
    "a name": lambda folder, pin: (folder / "sub" / "one.patch").rename(folder / "sub" / "two.patch"),
    "a new file": lambda folder, pin: (folder / "new.txt").write_text(""),
    "another input": lambda folder, pin: pin.write_text("SHA = 'y'\n"),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_any_change_to_an_input_runs_the_check_again(
    inputs: list[Path], change: Callable[[Path, Path], object]
) -> None:
    _run("--record", inputs)
    change(inputs[0], inputs[1])
    assert _run("--query", inputs).returncode == 1


def test_recheck_ignores_the_record(inputs: list[Path]) -> None:
    _run("--record", inputs)
    assert _run("--query", inputs, recheck=True).returncode == 1


def test_a_missing_input_is_an_error(inputs: list[Path]) -> None:
    missing = _run("--query", [*inputs, inputs[1].with_name("gone.py")])
    assert missing.returncode == 2 and "gone.py does not exist" in missing.stderr
