"""scripts/gen_sdk_patch.py: the series it renders, and exit statuses that tell a stale series from any other error.

upstream/python-sdk/check.sh reads the status: 1 is "stale, regenerate", anything else is a broken input. Each test
runs the script's entry point on a small sdist built here, so no download is needed."""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    scripts = str(REPO_ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module("gen_sdk_patch")


gen = _script()

ORIGINAL = "def f():\n    return 1\n"
LOCK = '[[package]]\nname = "anyio"\nversion = "4.9.0"\nsource = { registry = "https://pypi.org/simple" }\n'


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one changed file and one added file against a two-file sdist."""
    sdist = tmp_path / "mcp-9.9.9.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for name, text in {"src/m.py": ORIGINAL, "uv.lock": LOCK}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"mcp-9.9.9/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    files = tmp_path / "upstream" / "python-sdk" / "files"
    (files / "src").mkdir(parents=True)
    (files / "src" / "m.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    (files / "src" / "new.py").write_text("X = 1\n", encoding="utf-8")
    series = (gen.Patch("0001-x.patch", "Change m", "Body.", ("src/m.py", "src/new.py")),)
    for name, value in {
        "REPO_ROOT": tmp_path,
        "FILES_DIR": files,
        "PATCHES_DIR": files.parent / "patches",
        "CONSTRAINTS": files.parent / "constraints.txt",
        "SDIST_VERSION": "9.9.9",
        "SERIES": series,
    }.items():
        monkeypatch.setattr(gen, name, value)
    monkeypatch.setattr(gen, "fetch_sdist", lambda: sdist)
    return files


def _run(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["gen_sdk_patch.py", *args])
    return gen._run()  # pyright: ignore[reportPrivateUsage]


def test_a_written_series_is_current_and_applies_with_git_apply(
    layout: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert _run(monkeypatch) == 0
    assert _run(monkeypatch, "--check") == 0
    patch = (layout.parent / "patches" / "0001-x.patch").read_text(encoding="utf-8")
    assert patch.startswith(f"From: {gen.AUTHOR}\nSubject: [PATCH 1/1] Change m\n")
    assert gen.AUTHOR == "mcp-rendering maintainers <maintainers@mcp-rendering.invalid>"
    assert (layout.parent / "constraints.txt").read_text(encoding="utf-8").endswith("anyio==4.9.0\n")
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "m.py").write_text(ORIGINAL, encoding="utf-8")
    applied = subprocess.run(
        ["git", "apply", "-"],
        cwd=tree,
        input=patch,
        text=True,
        capture_output=True,
        check=False,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)},
    )
    assert applied.returncode == 0, applied.stderr
    assert (tree / "src" / "m.py").read_text(encoding="utf-8") == "def f():\n    return 2\n"
    assert (tree / "src" / "new.py").read_text(encoding="utf-8") == "X = 1\n"


def test_a_stale_series_exits_1_and_says_stale(
    layout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(monkeypatch) == 0
    (layout / "src" / "new.py").write_text("X = 2\n", encoding="utf-8")
    assert _run(monkeypatch, "--check") == gen.EXIT_STALE == 1
    assert "0001-x.patch is stale" in capsys.readouterr().out


def test_a_stray_patch_is_stale(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(monkeypatch) == 0
    (layout.parent / "patches" / "0002-old.patch").write_text("old\n", encoding="utf-8")
    assert _run(monkeypatch, "--check") == 1


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        ("unlisted", "SERIES and files/ disagree"),
        ("no-newline", "must end with a newline"),
        ("identical", "identical to the SDK's"),
    ],
)
def test_any_other_error_exits_2_and_says_it_is_not_staleness(
    layout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], breakage: str, message: str
) -> None:
    if breakage == "unlisted":
        (layout / "src" / "stray.py").write_text("", encoding="utf-8")
    elif breakage == "no-newline":
        (layout / "src" / "new.py").write_text("X = 1", encoding="utf-8")
    else:
        (layout / "src" / "m.py").write_text(ORIGINAL, encoding="utf-8")
    for args in ((), ("--check",)):
        assert _run(monkeypatch, *args) == gen.EXIT_ERROR == 2
        err = capsys.readouterr().err
        assert "error (not a stale series)" in err and message in err


def test_an_unexpected_failure_exits_2_not_1(
    layout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken() -> Path:
        raise OSError("disk gone")

    monkeypatch.setattr(gen, "fetch_sdist", broken)
    assert _run(monkeypatch, "--check") == 2
    assert "OSError: disk gone" in capsys.readouterr().err
