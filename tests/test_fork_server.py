"""The fork server that starts the adapter suites' example servers (tests/integrations/fork_server.py): a server it
forks answers a real client over stdio as a server the interpreter started would, from the same argv, environment,
working directory and sys.path; what it cannot start exactly runs on the interpreter itself; exit statuses and
signals pass through the launcher; nothing is left running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.integrations import fork_server

REPO = Path(__file__).resolve().parents[1]
PROBE_MODULE = "tests.support.start_probe"
PROBE_FILE = REPO / "tests" / "support" / "start_probe.py"
# A server's usual environment: few variables (the test run's own PYTHON* settings would make each run unforked).
ENV = {"PATH": os.environ["PATH"]}
_started: list[int] = []

_SIGNALS = (
    "import signal, sys\n"
    "def signals():  # the signals ignored and those blocked\n"
    "    ignored = [int(s) for s in signal.valid_signals() if s not in (signal.SIGPIPE, signal.SIGXFSZ)\n"
    "               and signal.getsignal(s) == signal.SIG_IGN]\n"
    "    return ignored, sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))"
)
"""Code that defines `signals()`: what a start inherits of its parent's signals, to compare."""
# every server process the tests saw: none may outlive the fork server


@pytest.fixture(scope="module")
def launcher() -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("MCP_RENDERING_FORK_SERVERS", raising=False)  # these tests are of the fork server itself
        with fork_server.running(sys.executable) as path:
            yield Path(path)
    assert [pid for pid in _started if _alive(pid)] == []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _call(command: Path | str, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Any:
    """Start the server with `command` as its interpreter, as an MCP client does, and call its one tool."""

    async def run() -> mcp_types.CallToolResult:
        parameters = StdioServerParameters(command=str(command), args=args, cwd=str(cwd), env=env)
        async with Client(parameters, read_timeout_seconds=30) as client:
            tools = await client.list_tools()
            return await client.call_tool(tools.tools[0].name, {})

    result = anyio.run(run)
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def _start(command: Path | str, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    result = _call(command, args, cwd, env)
    start: dict[str, Any] = json.loads(result["content"][0]["text"])
    _started.append(start["pid"])
    assert not _alive(start["pid"]), "the server ends when its client closes its stdin"
    return start


@pytest.mark.parametrize(
    ("args", "pythonpath"),
    [
        (["-m", PROBE_MODULE, "one", "--two"], f"{REPO}{os.pathsep}relative{os.pathsep}{REPO}"),
        ([str(PROBE_FILE), "one"], "relative"),
        (["../" + PROBE_FILE.relative_to(REPO.parent).as_posix()], None),
    ],
    ids=["module", "file", "relative file"],
)
def test_a_forked_server_was_started_as_the_interpreter_would_start_it(
    launcher: Path, args: list[str], pythonpath: str | None
) -> None:
    cwd = REPO if pythonpath is None else REPO / "docs"
    env = {"MCP_RENDERING_PROBE": "value"} | ({"PYTHONPATH": pythonpath} if pythonpath else {})
    started = _start(sys.executable, args, cwd, env)
    forked = _start(launcher, args, cwd, env)
    assert (started.pop("sdk_imported_before"), forked.pop("sdk_imported_before")) == (False, True)
    assert started.pop("pid") != forked.pop("pid")
    assert started.pop("random") != forked.pop("random")
    assert forked == started
    assert forked["environment"]["MCP_RENDERING_PROBE"] == "value"


def test_two_forked_servers_draw_different_random_numbers(launcher: Path) -> None:
    first, second = (_start(launcher, ["-m", PROBE_MODULE], REPO) for _ in range(2))
    assert first["random"] != second["random"]


def test_an_example_server_forked_answers_as_one_started(launcher: Path) -> None:
    args = ["-m", "mcp_rendering.examples.financial"]
    assert _call(launcher, args, REPO) == _call(sys.executable, args, REPO)


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["-c", f"{_SIGNALS}\nprint('mcp' in sys.modules, signals())"], {}),
        (["-X", "dev", "-c", "import sys; print('mcp' in sys.modules, sys.flags.dev_mode)"], {}),
        (["-m", "shadowing"], {"PYTHONHASHSEED": "1"}),
        (["-m", "shadowing"], {"PYTHONPATH": "shadowing"}),
    ],
    ids=["-c", "another flag", "another PYTHON* setting", "a path entry shadowing an imported package"],
)
def test_what_a_fork_could_not_start_exactly_runs_on_the_interpreter(
    launcher: Path, tmp_path: Path, args: list[str], env: dict[str, str]
) -> None:
    (tmp_path / "shadowing.py").write_text(f"{_SIGNALS}\nprint('mcp' in sys.modules, signals())\n", encoding="utf-8")
    # A package the fork server imported, which this folder would shadow for a server on PYTHONPATH.
    (tmp_path / "shadowing" / "anyio").mkdir(parents=True)
    (tmp_path / "shadowing" / "anyio" / "__init__.py").write_text("", encoding="utf-8")
    environment = ENV | env
    done = subprocess.run(
        [launcher, *args], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=30, check=True
    )
    real = subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout.startswith("False")
    assert done.stdout == real.stdout


def test_the_same_launch_with_nothing_to_shadow_is_forked(launcher: Path, tmp_path: Path) -> None:
    # The counterpart of the cases above: the fork server is reachable and these arguments are forked.
    (tmp_path / "shadowing.py").write_text(f"{_SIGNALS}\nprint('mcp' in sys.modules, signals())\n", encoding="utf-8")
    done = subprocess.run(
        [launcher, "-m", "shadowing"], cwd=tmp_path, env=ENV, capture_output=True, text=True, check=False
    )
    assert (done.stdout, done.returncode) == ("True ([], [])\n", 0)


def test_a_server_forked_inherits_the_signals_its_client_left_ignored_or_blocked(
    launcher: Path, tmp_path: Path
) -> None:
    script = tmp_path / "signals.py"
    script.write_text(f"{_SIGNALS}\nprint('mcp' in sys.modules, signals())\n", encoding="utf-8")
    # A client that ignores SIGINT and blocks SIGUSR1 before it starts the server.
    client = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1}); os.execv(sys.argv[1], sys.argv[1:])"
    )
    outputs = [
        subprocess.run(
            [sys.executable, "-c", client, str(python), str(script)],
            env=ENV,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
        for python in (launcher, sys.executable)
    ]
    expected = f"([{int(signal.SIGINT)}], [{int(signal.SIGUSR1)}])"
    assert outputs == [f"True {expected}\n", f"False {expected}\n"]


_WAITING = """
import os, sys
print(os.getpid(), 'mcp' in sys.modules, flush=True)
sys.stdin.read()  # until the end of stdin
print('stdin ended', flush=True)
"""


def _waiting(launcher: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    script = tmp_path / "waiting.py"
    script.write_text(_WAITING, encoding="utf-8")
    process = subprocess.Popen(
        [launcher, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV
    )
    assert process.stdout is not None
    pid, forked = process.stdout.readline().split()
    assert forked == "True"
    _started.append(int(pid))
    return process, int(pid)


def test_the_server_ends_at_the_end_of_its_stdin_and_its_status_is_the_launchers(
    launcher: Path, tmp_path: Path
) -> None:
    process, pid = _waiting(launcher, tmp_path)
    stdout, _ = process.communicate("", timeout=30)
    assert (stdout, process.returncode) == ("stdin ended\n", 0)
    assert not _alive(pid)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_launcher_reaches_the_server_and_its_end_is_the_launchers(
    launcher: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    process, pid = _waiting(launcher, tmp_path)
    process.send_signal(signum)
    assert process.wait(timeout=30) == -signum  # the server died of the signal: SIGINT uncaught as KeyboardInterrupt
    assert not _alive(pid)
    assert process.stdin is not None
    process.stdin.close()
    assert process.stdout is not None
    process.stdout.close()


def test_a_launcher_killed_takes_its_server_with_it(launcher: Path, tmp_path: Path) -> None:
    process, pid = _waiting(launcher, tmp_path)
    process.kill()
    process.wait(timeout=30)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    assert process.stdin is not None
    process.stdin.close()
    assert process.stdout is not None
    process.stdout.close()


@pytest.mark.parametrize(("code", "status"), [("import sys; sys.exit(3)", 3), ("raise ValueError('no')", 1)])
def test_the_servers_exit_status_is_the_launchers(launcher: Path, tmp_path: Path, code: str, status: int) -> None:
    script = tmp_path / "ending.py"
    script.write_text(f"import sys\nprint('mcp' in sys.modules)\n{code}\n", encoding="utf-8")
    done = subprocess.run([launcher, str(script)], env=ENV, capture_output=True, text=True, timeout=30, check=False)
    assert (done.stdout, done.returncode) == ("True\n", status)
    assert ("ValueError: no" in done.stderr) == (status == 1)
