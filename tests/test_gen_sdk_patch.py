"""scripts/gen_sdk_patch.py: the patches it renders, and exit statuses that tell a stale patch from any other error.

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
changes = importlib.import_module("upstream_changes")

ORIGINAL = "def f():\n    return 1\n"
LOCK = '[[package]]\nname = "anyio"\nversion = "4.9.0"\nsource = { registry = "https://pypi.org/simple" }\n'


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two pull requests against a two-file sdist: one changes a file (its diff) and adds one, the other adds one."""
    sdist = tmp_path / "mcp-9.9.9.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for name, text in {"src/m.py": ORIGINAL, "uv.lock": LOCK}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"mcp-9.9.9/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    sdk = tmp_path / "upstream" / "python-sdk"
    (sdk / "one" / "files" / "src").mkdir(parents=True)
    _change(sdk / "one" / "changes", "src/m.py", ORIGINAL, "def f():\n    return 2\n")
    (sdk / "one" / "files" / "src" / "new.py").write_text("X = 1\n", encoding="utf-8")
    (sdk / "two" / "files" / "docs").mkdir(parents=True)
    (sdk / "two" / "files" / "docs" / "page.md").write_text("# Page\n", encoding="utf-8")
    requests = (gen.PullRequest("one", "Change m", "Body."), gen.PullRequest("two", "Add a page", "Body two."))
    for name, value in {
        "REPO_ROOT": tmp_path,
        "SDK_DIR": sdk,
        "CONSTRAINTS": sdk / "constraints.txt",
        "SDIST_VERSION": "9.9.9",
        "PULL_REQUESTS": requests,
    }.items():
        monkeypatch.setattr(gen, name, value)
    monkeypatch.setattr(gen, "fetch_sdist", lambda: sdist)
    return sdk


def _change(folder: Path, path: str, old: str, new: str) -> None:
    """Write the diff of one file of the sdist, as a pull request keeps it."""
    target = folder / f"{path}.diff"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(changes.file_diff(path, old, new), encoding="utf-8")


def _run(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["gen_sdk_patch.py", *args])
    return gen._run()  # pyright: ignore[reportPrivateUsage]


def _git_apply(tree: Path, patch: str, ceiling: Path) -> None:
    applied = subprocess.run(
        ["git", "apply", "-"],
        cwd=tree,
        input=patch,
        text=True,
        capture_output=True,
        check=False,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(ceiling)},
    )
    assert applied.returncode == 0, applied.stderr


def test_each_written_patch_is_current_and_applies_alone_with_git_apply(
    layout: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(monkeypatch) == 0
    assert _run(monkeypatch, "--check") == 0
    one = (layout / "one" / "one.patch").read_text(encoding="utf-8")
    two = (layout / "two" / "two.patch").read_text(encoding="utf-8")
    assert one.startswith(f"From: {gen.AUTHOR}\nSubject: [PATCH] Change m\n\nBody.\n---\n")
    assert two.startswith(f"From: {gen.AUTHOR}\nSubject: [PATCH] Add a page\n\nBody two.\n---\n")
    assert gen.AUTHOR == "mcp-rendering maintainers <maintainers@mcp-rendering.invalid>"
    assert (layout / "constraints.txt").read_text(encoding="utf-8").endswith("anyio==4.9.0\n")
    for name, patch in {"one": one, "two": two}.items():
        tree = tmp_path / f"tree-{name}"
        (tree / "src").mkdir(parents=True)
        (tree / "src" / "m.py").write_text(ORIGINAL, encoding="utf-8")
        _git_apply(tree, patch, tmp_path)
    assert (tmp_path / "tree-one" / "src" / "m.py").read_text(encoding="utf-8") == "def f():\n    return 2\n"
    assert (tmp_path / "tree-one" / "src" / "new.py").read_text(encoding="utf-8") == "X = 1\n"
    assert (tmp_path / "tree-two" / "src" / "m.py").read_text(encoding="utf-8") == ORIGINAL
    assert (tmp_path / "tree-two" / "docs" / "page.md").read_text(encoding="utf-8") == "# Page\n"
    capsys.readouterr()
    assert _run(monkeypatch, "--list") == 0
    assert capsys.readouterr().out == "one/one.patch\ntwo/two.patch\n"


def test_a_part_is_diffed_against_the_earlier_parts_and_applies_after_them(
    layout: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pull request reviewed in parts: the second part changes a file the first adds and a file the first changes,
    and its patch applies to the release after the first part's."""
    _change(layout / "one" / "changes-2-more", "src/m.py", "def f():\n    return 2\n", "def f():\n    return 3\n")
    # A file the first part adds is the pull request's own: the second part holds it whole.
    (layout / "one" / "files-2-more" / "src").mkdir(parents=True)
    (layout / "one" / "files-2-more" / "src" / "new.py").write_text("X = 1\nY = 2\n", encoding="utf-8")
    (layout / "one" / "files").rename(layout / "one" / "files-1")
    (layout / "one" / "changes").rename(layout / "one" / "changes-1")
    requests = (
        gen.PullRequest("one", "Part one", "B1.", part="1"),
        gen.PullRequest("one", "Part two", "B2.", part="2-more"),
    )
    monkeypatch.setattr(gen, "PULL_REQUESTS", requests)
    assert _run(monkeypatch) == 0
    assert _run(monkeypatch, "--check") == 0
    assert sorted(path.name for path in layout.glob("*/*.patch")) == ["one-1.patch", "one-2-more.patch"]
    second = (layout / "one" / "one-2-more.patch").read_text(encoding="utf-8")
    assert "--- a/src/new.py\n+++ b/src/new.py\n" in second
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "m.py").write_text(ORIGINAL, encoding="utf-8")
    _git_apply(tree, (layout / "one" / "one-1.patch").read_text(encoding="utf-8"), tmp_path)
    _git_apply(tree, second, tmp_path)
    assert (tree / "src" / "m.py").read_text(encoding="utf-8") == "def f():\n    return 3\n"
    assert (tree / "src" / "new.py").read_text(encoding="utf-8") == "X = 1\nY = 2\n"
    capsys.readouterr()
    assert _run(monkeypatch, "--list") == 0
    assert capsys.readouterr().out == "one/one-1.patch\none/one-2-more.patch\n"
    # Unpacked at the second part, the first is the base: repacking the untouched tree rewrites the same part.
    unpacked = tmp_path / "unpacked"
    assert _run(monkeypatch, "--unpack", str(unpacked), "--part", "one-2-more") == 0
    assert (unpacked / "src" / "m.py").read_text(encoding="utf-8") == "def f():\n    return 3\n"
    assert _run(monkeypatch, "--repack", str(unpacked), "--part", "one-2-more") == 0
    assert _run(monkeypatch, "--check") == 0
    assert (layout / "one" / "one-2-more.patch").read_text(encoding="utf-8") == second


def test_a_stale_patch_exits_1_and_says_stale(
    layout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(monkeypatch) == 0
    (layout / "one" / "files" / "src" / "new.py").write_text("X = 2\n", encoding="utf-8")
    assert _run(monkeypatch, "--check") == gen.EXIT_STALE == 1
    out = capsys.readouterr().out
    assert "one/one.patch is stale" in out and "two.patch" not in out


def test_a_stray_patch_is_stale_and_removed_by_a_rewrite(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(monkeypatch) == 0
    stray = layout / "old" / "old.patch"
    stray.parent.mkdir()
    stray.write_text("old\n", encoding="utf-8")
    assert _run(monkeypatch, "--check") == 1
    assert _run(monkeypatch) == 0
    assert not stray.exists()


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        ("shared", "is changed by both one and two"),
        ("empty", "hold no file"),
        ("no-newline", "must end with a newline"),
        ("identical", "is unchanged"),
        ("whole", "is a file of the pinned source"),
        ("not-applying", "does not apply"),
    ],
)
def test_any_other_error_exits_2_and_says_it_is_not_staleness(
    layout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], breakage: str, message: str
) -> None:
    m_diff = layout / "one" / "changes" / "src" / "m.py.diff"
    if breakage == "shared":
        _change(layout / "two" / "changes", "src/m.py", ORIGINAL, "def f():\n    return 3\n")
    elif breakage == "empty":
        (layout / "two" / "files" / "docs" / "page.md").unlink()
    elif breakage == "no-newline":
        (layout / "one" / "files" / "src" / "new.py").write_text("X = 1", encoding="utf-8")
    elif breakage == "identical":
        m_diff.write_text(m_diff.read_text(encoding="utf-8").replace("return 2", "return 1"), encoding="utf-8")
    elif breakage == "whole":
        (layout / "one" / "files" / "src" / "m.py").write_text("def f():\n    return 2\n", encoding="utf-8")
        m_diff.unlink()
    else:
        m_diff.write_text(m_diff.read_text(encoding="utf-8").replace("return 1", "return 0"), encoding="utf-8")
    for args in ((), ("--check",)):
        assert _run(monkeypatch, *args) == gen.EXIT_ERROR == 2
        err = capsys.readouterr().err
        assert "error (not a stale patch)" in err and message in err


def test_an_unexpected_failure_exits_2_not_1(
    layout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken() -> Path:
        raise OSError("disk gone")

    monkeypatch.setattr(gen, "fetch_sdist", broken)
    assert _run(monkeypatch, "--check") == 2
    assert "OSError: disk gone" in capsys.readouterr().err


def test_the_committed_pull_requests_are_the_three_folders() -> None:
    """The repository's own layout: each pull request's folder holds its files, its issue and its description; the
    rendering pull request is reviewed in two parts, the server module first."""
    patches = [request.patch.relative_to(gen.SDK_DIR).as_posix() for request in gen.PULL_REQUESTS]
    assert patches == [
        "keep-extensions/keep-extensions.patch",
        "stdio-buffer/stdio-buffer.patch",
        "rendering/rendering-1-server.patch",
        "rendering/rendering-2-client.patch",
    ]
    for request in gen.PULL_REQUESTS:
        assert (gen.SDK_DIR / request.folder / "PR.md").is_file()
        assert (gen.SDK_DIR / request.folder / "ISSUE.md").is_file()
        assert any(request.files.rglob("*.py")) or any(request.dirs.changes.rglob("*.py.diff"))
        # The SDK's own files are kept as diffs, never whole.
        assert not set(request.files.rglob("*")) & {request.files / path for path in request.dirs.changed_paths()}


def test_a_non_canonical_diff_is_stale_and_rewritten(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A diff that applies but is not the generator's own form (here, one context line fewer) changes no patch byte,
    and is reported stale until rewritten."""
    assert _run(monkeypatch) == 0
    m_diff = layout / "one" / "changes" / "src" / "m.py.diff"
    canonical = m_diff.read_text(encoding="utf-8")
    m_diff.write_text(canonical.replace("@@ -1,2 +1,2 @@\n def f():\n", "@@ -2 +2 @@\n"), encoding="utf-8")
    patch = (layout / "one" / "one.patch").read_text(encoding="utf-8")
    assert _run(monkeypatch, "--check") == 1
    assert _run(monkeypatch) == 0
    assert m_diff.read_text(encoding="utf-8") == canonical
    assert (layout / "one" / "one.patch").read_text(encoding="utf-8") == patch


def test_unpack_then_repack_of_an_edited_tree_rewrites_the_part(
    layout: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An edit in the unpacked tree lands in the part: an SDK file as its diff, a new file whole."""
    assert _run(monkeypatch) == 0
    tree = tmp_path / "unpacked"
    assert _run(monkeypatch, "--unpack", str(tree), "--part", "one") == 0
    assert (tree / "src" / "m.py").read_text(encoding="utf-8") == "def f():\n    return 2\n"
    assert (tree / "uv.lock").read_text(encoding="utf-8") == LOCK
    (tree / "src" / "m.py").write_text("def f():\n    return 4\n", encoding="utf-8")
    (tree / "src" / "other.py").write_text("Z = 1\n", encoding="utf-8")
    assert _run(monkeypatch, "--repack", str(tree), "--part", "one") == 0
    assert _run(monkeypatch, "--check") == 0
    one = layout / "one"
    assert sorted(p.relative_to(one).as_posix() for p in one.rglob("*") if p.is_file()) == [
        "changes/src/m.py.diff",
        "files/src/new.py",
        "files/src/other.py",
        "one.patch",
    ]
    assert "+    return 4\n" in (one / "changes" / "src" / "m.py.diff").read_text(encoding="utf-8")
    assert "+++ b/src/other.py\n" in (one / "one.patch").read_text(encoding="utf-8")
