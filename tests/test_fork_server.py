"""The fork server that starts the adapter suites' example servers (tests/integrations/fork_server.py): a server it
forks answers a real client over stdio as a server the interpreter started would, from the same argv, environment,
working directory and sys.path; what it cannot start exactly runs on the interpreter itself; exit statuses and
signals pass through the launcher; nothing is left running."""

from __future__ import annotations

import json
import os
import py_compile
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

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
# every server process the tests saw: none may outlive the fork server
_started: list[int] = []

# Python itself ignores SIGPIPE and SIGXFSZ; SIGKILL and SIGSTOP cannot be caught.
_CATCHABLE = signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP, signal.SIGPIPE, signal.SIGXFSZ}

_SIGNALS = (
    "import signal, sys\n"
    "def signals():  # the signals ignored and those blocked\n"
    "    ignored = [int(s) for s in signal.valid_signals() if s not in (signal.SIGPIPE, signal.SIGXFSZ)\n"
    "               and signal.getsignal(s) == signal.SIG_IGN]\n"
    "    return ignored, sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))"
)
"""Code that defines `signals()`: what a start inherits of its parent's signals, to compare."""


@pytest.fixture(scope="module", autouse=True)
def _no_signal_ignored() -> Iterator[None]:
    """These tests start from what a client usually has: no signal ignored. A test run a shell started in the
    background (`&`, `nohup`) has SIGINT, SIGQUIT or SIGHUP ignored, and every process it starts would inherit that."""
    ignored = [signum for signum in _CATCHABLE if signal.getsignal(signum) == signal.SIG_IGN]
    for signum in ignored:
        signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
    yield
    for signum in ignored:
        signal.signal(signum, signal.SIG_IGN)


@pytest.fixture(scope="module")
def launcher(_no_signal_ignored: None) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("MCP_RENDERING_FORK_SERVERS", raising=False)  # these tests are of the fork server itself
        with fork_server.running(sys.executable) as path:
            yield Path(path)
    assert [pid for pid in _started if _alive(pid)] == []


def _alive(pid: int) -> bool:
    """Running, not ended (an orphan that ended may wait as a zombie for a reaper that never comes)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


class _SignalState(NamedTuple):
    """What the kernel says a process does with signals (for a failure to say which process kept a signal)."""

    state: str
    ignored: frozenset[int]
    blocked: frozenset[int]
    caught: frozenset[int]
    pending: frozenset[int]


def _signal_state(pid: int) -> _SignalState | None:
    """Process `pid`'s state and signals, from /proc; None once it has ended."""
    try:
        fields = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    except FileNotFoundError:
        return None

    def signals(*names: str) -> frozenset[int]:
        bits = 0
        for name in names:
            bits |= int(fields[name], 16)
        return frozenset(signum for signum in range(1, 65) if bits >> (signum - 1) & 1)

    return _SignalState(
        fields["State"].strip(), signals("SigIgn"), signals("SigBlk"), signals("SigCgt"), signals("SigPnd", "ShdPnd")
    )


def _ended_within(seconds: float, *pids: int) -> bool:
    deadline = time.monotonic() + seconds
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_alive(pid) for pid in pids)


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
        (["-m", "shadowing"], {"OTEL_PROPAGATORS": "tracecontext"}),
        (["-m", "shadowing"], {"PYTHONPATH": "shadowing"}),
        (["-m", "shadowing"], {"PYTHONPATH": "customizing"}),
        (["app"], {}),
        (["app.pyz"], {}),
        (["compiled.pyc"], {}),
    ],
    ids=[
        "-c",
        "another flag",
        "another PYTHON* setting",
        "a setting the SDK's imports read",
        "a path entry shadowing an imported package",
        "a path entry with sitecustomize",
        "a folder",
        "a zip application",
        "bytecode",
    ],
)
def test_what_a_fork_could_not_start_exactly_runs_on_the_interpreter(
    launcher: Path, tmp_path: Path, args: list[str], env: dict[str, str]
) -> None:
    (tmp_path / "shadowing.py").write_text(f"{_SIGNALS}\nprint('mcp' in sys.modules, signals())\n", encoding="utf-8")
    # A package the fork server imported, which this folder would shadow for a server on PYTHONPATH.
    (tmp_path / "shadowing" / "anyio").mkdir(parents=True)
    (tmp_path / "shadowing" / "anyio" / "__init__.py").write_text("", encoding="utf-8")
    # What `site` imports at start from PYTHONPATH: here it says so.
    (tmp_path / "customizing").mkdir()
    (tmp_path / "customizing" / "sitecustomize.py").write_text("print('customized')\n", encoding="utf-8")
    # What runs a folder, a zip application, bytecode: not source files.
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text((tmp_path / "shadowing.py").read_text(), encoding="utf-8")
    with zipfile.ZipFile(tmp_path / "app.pyz", "w") as application:
        application.write(tmp_path / "app" / "__main__.py", "__main__.py")
    py_compile.compile(str(tmp_path / "shadowing.py"), str(tmp_path / "compiled.pyc"))
    environment = ENV | env
    done = subprocess.run(
        [launcher, *args], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=30, check=True
    )
    real = subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout.replace("customized\n", "").startswith("False")
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
    # A client that ignores SIGINT, SIGALRM and SIGTSTP and blocks SIGUSR1 before it starts the server.
    client = (
        "import os, signal, sys\n"
        "for signum in (signal.SIGINT, signal.SIGALRM, signal.SIGTSTP): signal.signal(signum, signal.SIG_IGN)\n"
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
    ignored = sorted(int(signum) for signum in (signal.SIGINT, signal.SIGALRM, signal.SIGTSTP))
    expected = f"({ignored}, [{int(signal.SIGUSR1)}])"
    assert outputs == [f"True {expected}\n", f"False {expected}\n"]


# Waits for the end of stdin in steps: a SIGINT that lands just before a blocking read would wait with it (CPython
# raises KeyboardInterrupt between bytecodes), so the read is only made once stdin is readable.
_WAITING = """
import os, select, sys
print(os.getpid(), 'mcp' in sys.modules, flush=True)
while not select.select([sys.stdin], [], [], 0.1)[0]:
    pass
sys.stdin.read()  # until the end of stdin
print('stdin ended', flush=True)
"""


# A client that leaves every signal at its default and none blocked, whatever the test run has, then runs the launcher.
_DEFAULT_SIGNALS = (
    "import os, signal, sys\n"
    "for signum in signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}: signal.signal(signum, signal.SIG_DFL)\n"
    "signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
)


def _waiting(launcher: Path, tmp_path: Path) -> tuple[subprocess.Popen[str], int]:
    """A server that waits for the end of its stdin, started through the launcher by a client with no signal ignored
    or blocked; the launcher's process and the server's pid."""
    script = tmp_path / "waiting.py"
    script.write_text(_WAITING, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-c", _DEFAULT_SIGNALS, launcher, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
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
    # Both set before the server runs: the launcher catches the signal to forward it, the server neither ignores nor
    # blocks it. A launcher that does not end then says where the signal stayed.
    launcher_state, server_state = _signal_state(process.pid), _signal_state(pid)
    assert launcher_state is not None and server_state is not None
    assert signum in launcher_state.caught - launcher_state.blocked, launcher_state
    assert signum not in server_state.ignored | server_state.blocked, server_state
    process.send_signal(signum)
    try:
        status = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(
            f"the launcher did not end: before the signal {launcher_state}, the server {server_state}; 30 s after"
            f" {_signal_state(process.pid)}, the server {_signal_state(pid)}"
        )
    assert status == -signum  # the server died of the signal: SIGINT uncaught as KeyboardInterrupt
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
    real = subprocess.run(
        [sys.executable, str(script)], env=ENV, capture_output=True, text=True, timeout=30, check=False
    )
    assert (done.stdout, done.returncode) == ("True\n", status)
    assert ("ValueError: no" in done.stderr) == (status == 1)
    assert done.stderr == real.stderr  # the traceback has no frame of the fork server's


_PARENT = """
import os, subprocess, sys, time
from tests.integrations import fork_server
with fork_server.running(sys.executable) as launcher:
    environment = {"PATH": os.environ["PATH"]}
    server = subprocess.Popen([launcher, sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment)
    print(launcher, server.stdout.readline().decode().strip(), flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_the_fork_server_ends_with_its_parent_however_that_ends(tmp_path: Path, signum: signal.Signals) -> None:
    # SIGKILL, and SIGTERM at its default, end the parent without its `finally`: the fork server sees its pipe close.
    script = tmp_path / "waiting.py"
    script.write_text(_WAITING, encoding="utf-8")
    environment = {key: value for key, value in os.environ.items() if key != "MCP_RENDERING_FORK_SERVERS"}
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, str(script)], cwd=REPO, stdout=subprocess.PIPE, text=True, env=environment
    )
    assert parent.stdout is not None
    launcher, pid, forked = parent.stdout.readline().split()
    assert forked == "True"
    fork_server_pid = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])  # the server's parent
    parent.send_signal(signum)
    assert parent.wait(timeout=30) == -signum
    parent.stdout.close()
    assert _ended_within(10, int(pid), fork_server_pid)
    assert not Path(launcher).parent.exists()  # its folder, socket and launcher with it


def test_a_fork_server_that_does_not_start_leaves_the_servers_to_the_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MCP_RENDERING_FORK_SERVERS", raising=False)
    with tempfile.TemporaryDirectory() as folder:
        # A socket path longer than 107 bytes: the fork server cannot listen.
        long = Path(folder) / ("x" * 110)
        long.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(long))
        with pytest.warns(UserWarning, match="no fork server"), fork_server.running(sys.executable) as python:
            assert python == sys.executable
        # An interpreter that never gets ready (here it sleeps): the session does not wait for it past READY_SECONDS.
        hanging = Path(folder) / "python"
        hanging.write_text("#!/bin/sh\nexec sleep 600\n", encoding="utf-8")
        hanging.chmod(0o755)
        monkeypatch.setattr(fork_server, "READY_SECONDS", 1)
        with pytest.warns(UserWarning, match="not ready within 1 s"), fork_server.running(str(hanging)) as python:
            assert python == str(hanging)


def _socket_of(launcher: Path) -> str:
    return str(launcher.parent / "socket")


def _request(args: list[str], cwd: Path) -> bytes:
    """A request as a launcher sends it, that the fork server forks."""
    settings = fork_server._interpreter_settings({})  # pyright: ignore[reportPrivateUsage]
    request = {"args": args, "env": ENV, "cwd": str(cwd), "mask": [], "ignored": [], **settings}
    return json.dumps(request).encode()


def test_a_launcher_failing_at_any_step_harms_no_other(launcher: Path, tmp_path: Path) -> None:
    script = tmp_path / "waiting.py"
    script.write_text(_WAITING, encoding="utf-8")
    running, pid = _waiting(launcher, tmp_path)  # a server started before, through the same fork server

    def connected() -> socket.socket:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        connection.connect(_socket_of(launcher))
        return connection

    connected().close()  # gone before its request
    with connected() as connection:  # a request that is not one
        connection.sendall(b"not json")
    with connected() as connection:  # gone once its request is answered
        connection.sendall(_request([str(script)], tmp_path))
        assert json.loads(connection.recv(1024)) == {"descriptors": True}
    with connected() as connection, open(os.devnull, "rb") as devnull:  # gone before its child's pid is told
        connection.sendall(_request([str(script)], tmp_path))
        connection.recv(1024)
        socket.send_fds(connection, [b"descriptors"], [devnull.fileno()] * 3)
    with connected() as connection, open(os.devnull, "rb") as devnull:  # gone with its child told its pid
        connection.sendall(_request([str(script)], tmp_path))
        connection.recv(1024)
        socket.send_fds(connection, [b"descriptors"], [devnull.fileno()] * 3)
        child = json.loads(connection.recv(1024))["pid"]
    assert _ended_within(10, child)  # it never ran: its launcher did not say "go"
    # The fork server still forks, and the server started before ends with the status it chose.
    later, later_pid = _waiting(launcher, tmp_path)
    for process in (running, later):
        stdout, _ = process.communicate("", timeout=30)
        assert (stdout, process.returncode) == ("stdin ended\n", 0)
    assert not _alive(pid) and not _alive(later_pid)


def test_a_launcher_whose_fork_server_does_not_answer_runs_the_interpreter() -> None:
    with tempfile.TemporaryDirectory() as folder:  # short: a socket's path is at most 107 bytes
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # accepts connections, never answers
        silent.bind(str(Path(folder) / "socket"))
        silent.listen()
        launcher = Path(folder) / "python"
        fork_server.write_launcher(launcher, sys.executable, str(Path(folder) / "socket"))
        script = Path(folder) / "started.py"
        script.write_text("import sys\nprint('mcp' in sys.modules)\n", encoding="utf-8")
        began = time.monotonic()
        done = subprocess.run([launcher, script], env=ENV, capture_output=True, text=True, timeout=30, check=False)
        assert (done.stdout, done.returncode) == ("False\n", 0)
        assert time.monotonic() - began < fork_server.REPLY_SECONDS + 10
        # Meanwhile a signal ends the launcher as it would end the interpreter starting.
        waiting = subprocess.Popen([launcher, script], env=ENV, stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        waiting.terminate()
        assert waiting.wait(timeout=fork_server.REPLY_SECONDS - 1) == -signal.SIGTERM
        silent.close()


def test_a_request_too_large_to_send_runs_the_interpreter(launcher: Path, tmp_path: Path) -> None:
    script = tmp_path / "started.py"
    script.write_text("import os, sys\nprint('mcp' in sys.modules, len(os.environ['LARGE_2']))\n", encoding="utf-8")
    # Larger than a socket's send buffer, each variable within what exec takes.
    environment = ENV | {f"LARGE_{number}": "x" * 100_000 for number in range(3)}
    done = subprocess.run([launcher, script], env=environment, capture_output=True, text=True, timeout=30, check=False)
    assert (done.stdout, done.returncode) == ("False 100000\n", 0)


_HANDLING = """
import os, signal, sys
def handled(signum, _frame):  # it may come while `print` below still writes: not through sys.stdout
    os.write(1, f'handled {signal.Signals(signum).name}\\n'.encode())
    os._exit(0)
for signum in (signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
    signal.signal(signum, handled)
print(os.getpid(), 'mcp' in sys.modules, flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM])
def test_every_signal_the_server_handles_reaches_it_through_the_launcher(
    launcher: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    script = tmp_path / "handling.py"
    script.write_text(_HANDLING, encoding="utf-8")
    process = subprocess.Popen([launcher, script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV)
    assert process.stdout is not None and process.stdin is not None
    pid, forked = process.stdout.readline().split()
    _started.append(int(pid))
    assert forked == "True"
    process.send_signal(signum)
    assert (_output_within(30, process), process.wait(timeout=30)) == (f"handled {signum.name}\n", 0)
    process.stdin.close()
    process.stdout.close()


def _output_within(seconds: float, process: subprocess.Popen[str]) -> str:
    """What `process` writes until it ends, or until it is killed after `seconds`: a failure, never a hang."""
    assert process.stdout is not None
    watchdog = threading.Timer(seconds, process.kill)
    watchdog.start()
    try:
        return process.stdout.read()
    finally:
        watchdog.cancel()


def test_a_signal_its_client_left_ignored_reaches_a_server_that_handles_it(launcher: Path, tmp_path: Path) -> None:
    # The interpreter the launcher stands for would receive it: the launcher forwards it, the server decides.
    script = tmp_path / "handling.py"
    script.write_text(_HANDLING, encoding="utf-8")
    ignoring = (
        "import os, signal, sys\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\nos.execv(sys.argv[1], sys.argv[1:])"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", ignoring, launcher, script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert process.stdout is not None and process.stdin is not None
    pid, forked = process.stdout.readline().split()
    _started.append(int(pid))
    assert forked == "True"
    process.send_signal(signal.SIGHUP)
    assert (_output_within(30, process), process.wait(timeout=30)) == ("handled SIGHUP\n", 0)
    process.stdin.close()
    process.stdout.close()


def test_a_forked_server_reads_tz_as_a_started_one(launcher: Path, tmp_path: Path) -> None:
    # `time`, imported by the fork server, read TZ then: the child reads it again.
    script = tmp_path / "zone.py"
    script.write_text("import sys, time\nprint('mcp' in sys.modules, time.tzname, time.timezone)\n", encoding="utf-8")
    environment = ENV | {"TZ": "Asia/Tokyo"}
    forked, real = (
        subprocess.run([python, script], env=environment, capture_output=True, text=True, timeout=30, check=True)
        for python in (launcher, sys.executable)
    )
    assert (forked.stdout, real.stdout) == ("True ('JST', 'JST') -32400\n", "False ('JST', 'JST') -32400\n")


def test_a_forked_servers_collector_skips_only_what_the_sdks_import_made(launcher: Path, tmp_path: Path) -> None:
    # What the docstring states: the objects made by the imports before the fork are frozen; the server's own are not.
    script = tmp_path / "collector.py"
    script.write_text(
        "import gc, sys\n"
        "gc.collect()\n"
        "frozen = gc.get_freeze_count()\n"
        "made = [[] for _ in range(1000)]\n"
        "print('mcp' in sys.modules, frozen > 10_000, gc.get_freeze_count() == frozen, gc.is_tracked(made[0]))\n",
        encoding="utf-8",
    )
    forked, real = (
        subprocess.run([python, script], env=ENV, capture_output=True, text=True, timeout=30, check=True)
        for python in (launcher, sys.executable)
    )
    assert (forked.stdout, real.stdout) == ("True True True True\n", "False False True True\n")


def test_the_forked_servers_of_a_session_share_one_hash_seed_drawn_per_session() -> None:
    # What the docstring states: one seed per session, drawn at random per session (unlike starts, one seed each).
    code = "import sys\nprint('mcp' in sys.modules, hash('seed'))\n"
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "hashing.py"
        script.write_text(code, encoding="utf-8")
        sessions: list[set[str]] = []
        for _ in range(2):
            with fork_server.running(sys.executable) as path:
                runs = [subprocess.run([path, script], env=ENV, capture_output=True, text=True, timeout=30, check=True)]
                runs.append(subprocess.run([path, script], env=ENV, capture_output=True, text=True, timeout=30))
                sessions.append({run.stdout for run in runs})
    assert [len(outputs) for outputs in sessions] == [1, 1]
    assert all(output.startswith("True") for outputs in sessions for output in outputs)
    assert sessions[0] != sessions[1]


def test_a_signal_the_fork_server_was_left_ignoring_is_not_ignored_in_a_server_whose_client_does_not(
    tmp_path: Path,
) -> None:
    script = tmp_path / "signals.py"
    script.write_text(f"{_SIGNALS}\nprint('mcp' in sys.modules, signals())\n", encoding="utf-8")
    # The fork server starts with SIGALRM ignored; the client of the server it then forks has it at its default.
    parent = (
        "import os, signal, subprocess, sys\n"
        "from tests.integrations import fork_server\n"
        "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "with fork_server.running(sys.executable) as launcher:\n"
        "    signal.signal(signal.SIGALRM, signal.SIG_DFL)\n"
        "    environment = {'PATH': os.environ['PATH']}\n"
        "    print(subprocess.run([launcher, sys.argv[1]], env=environment, capture_output=True, text=True).stdout)\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "MCP_RENDERING_FORK_SERVERS"}
    done = subprocess.run(
        [sys.executable, "-c", parent, str(script)],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == "True ([], [])\n\n"
