"""`scripts/gen_conformance_patch.py` tells a stale patch (exit 1) from an unreadable input (exit 2) and from a
checkout without the suite's source (exit 3), so that `upstream/conformance/check.sh` never reports either as a
stale patch, and skips, saying why, where the suite's source is not beside the checkout."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gen_conformance_patch.py"


@pytest.fixture
def gen(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    monkeypatch.delenv("CONFORMANCE_SNAPSHOT", raising=False)
    return importlib.import_module("gen_conformance_patch")


def _run(*args: str, snapshot: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin"} | ({"CONFORMANCE_SNAPSHOT": str(snapshot)} if snapshot else {})
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, check=False)


def test_an_unreadable_snapshot_is_an_error_not_a_stale_patch(tmp_path: Path) -> None:
    broken = tmp_path / "conformance-c321dd3.tar.gz"
    broken.write_bytes(b"not a tar archive")
    checked = _run("--check", snapshot=broken)
    assert checked.returncode == 2
    assert "error: cannot build the patch" in checked.stderr
    assert "stale" not in checked.stdout + checked.stderr


def test_a_missing_snapshot_is_told_apart_from_a_stale_patch(
    gen: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A checkout with no snapshot beside it, and not a git worktree of one that has.
    monkeypatch.setattr(gen, "REPO_ROOT", tmp_path / "checkout")
    monkeypatch.setattr(sys, "argv", ["gen_conformance_patch.py", "--check"])
    with pytest.raises(SystemExit) as exited:
        gen.main()
    assert exited.value.code == 3


def test_a_stale_patch_exits_1(gen: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        snapshot = gen.find_snapshot()
    except SystemExit:
        pytest.skip("the suite snapshot is not beside this checkout")
    (tmp_path / "0001-rendering-scenarios.patch").write_text("an older patch\n", encoding="utf-8")
    monkeypatch.setenv("CONFORMANCE_SNAPSHOT", str(snapshot))
    monkeypatch.setattr(gen, "PATCHES_DIR", tmp_path)
    monkeypatch.setattr(gen, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["gen_conformance_patch.py", "--check"])
    assert gen.main() == 1


def test_check_sh_skips_in_one_line_on_a_clone_without_the_suite_source(tmp_path: Path) -> None:
    """A clone of the repository with nothing beside it: the conformance check says it is skipped, and why."""
    checkout = tmp_path / "clone"
    (checkout / "scripts").mkdir(parents=True)
    (checkout / "upstream" / "conformance").mkdir(parents=True)
    for name in ("gen_conformance_patch.py", "upstream_changes.py"):
        shutil.copy(ROOT / "scripts" / name, checkout / "scripts" / name)
    shutil.copy(ROOT / "upstream" / "conformance" / "check.sh", checkout / "upstream" / "conformance" / "check.sh")
    run = subprocess.run(
        ["bash", str(checkout / "upstream" / "conformance" / "check.sh")],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert run.stdout.splitlines() == [
        "upstream/conformance/check.sh: skipped: the conformance suite's source (conformance-c321dd3.tar.gz) is not "
        "beside this checkout; set CONFORMANCE_SNAPSHOT to it to run this check"
    ]


def test_the_generator_stage_of_test_sh_skips_a_missing_snapshot_and_goes_on(tmp_path: Path) -> None:
    """On a clone without the suite's source, the generators' stage says in one line what it skipped and why, and
    still runs (and fails on) the generators after it."""
    checkout = tmp_path / "clone"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "check-generators.sh", checkout / "scripts" / "check-generators.sh")
    shutil.copy(ROOT / "scripts" / "gen_conformance_patch.py", checkout / "scripts" / "gen_conformance_patch.py")
    # The helper module it imports, outside scripts/ so that the stage does not run them as generators.
    (checkout / "lib").mkdir()
    for helper in ("upstream_changes.py",):
        shutil.copy(ROOT / "scripts" / helper, checkout / "lib" / helper)
    # A later generator whose check fails: the stage must reach it and fail with its status.
    (checkout / "scripts" / "gen_zz_stale.py").write_text("import sys\nprint('stale', file=sys.stderr)\nsys.exit(1)\n")
    run = subprocess.run(
        ["bash", str(checkout / "scripts" / "check-generators.sh")],
        capture_output=True,
        text=True,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "PYTHONPATH": str(checkout / "lib")},
        check=False,
    )
    skipped = [line for line in run.stdout.splitlines() if line.startswith("skipped:")]
    assert len(skipped) == 1, run.stdout
    assert skipped[0].startswith("skipped: the suite snapshot conformance-c321dd3.tar.gz is absent")
    assert "== scripts/gen_zz_stale.py --check" in run.stdout
    assert run.returncode == 1
    assert "stale" in run.stderr
    assert "scripts/test.sh" not in run.stderr
    test_sh = (ROOT / "scripts" / "test.sh").read_text()
    assert "bash scripts/check-generators.sh" in test_sh
