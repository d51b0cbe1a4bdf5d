"""Start the example servers of the adapter suites from a process that has already imported the MCP SDK.

Each test starts one or more example servers over stdio, and nearly all of a start's CPU is importing the MCP SDK 2.x
and what it pulls in (pydantic, starlette, uvicorn, ...). The fork server imports those once, on the servers'
interpreter; a launcher, named in place of that interpreter, hands it its stdin, stdout, stderr, argv, environment,
working directory and signal state, and the fork server forks a child that runs the server module as `python -m` or
`python FILE` would. The project's own code (`mcp_rendering`, the example servers) is not imported beforehand, so each
server imports it from its own path. Anything the launcher cannot hand over exactly (other flags, `-c`, a FILE that is
not a `.py` source file, a path entry that could shadow a module already imported or holds a `sitecustomize` or
`usercustomize`, another locale, another `PYTHON*` or `OTEL_*` setting, a fork server that does not answer within
`REPLY_SECONDS`) runs the real interpreter instead. What still differs from a real start:
- the seed of str hashes: one per session, drawn at random when the session's fork server starts and shared by every
  server it forks, where each real start draws its own (so set order is the same in every forked server of a session);
- the server's parent (`os.getppid()`) is the fork server, and its process group and session are the fork server's;
- the SDK and what it imports are in `sys.modules` before the server runs (imported with the fork server's
  environment: of what they read at import, TZ is read again and `OTEL_*` and `PYTHON*` settings fall back);
- every object alive when the fork server is ready (after a collection: the interpreter's start, those imports and
  the fork server's own) is frozen (`gc.freeze`): the collector never scans it, never frees a cycle it is part of,
  and `gc.get_objects()` and `gc.get_referrers()` leave it out. That saves about a third of a forked server's CPU
  (the scanning, and the pages a scan copies from the fork server).

    python fork_server.py serve SOCKET     # the fork server (the session fixture starts it)
    launcher -m MODULE ARGS... | FILE ARGS...   # the launcher (written by `write_launcher`), as the interpreter

Only the standard library is imported at the top: the launcher runs on the interpreter with `-I -S`.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

# What the example servers import from outside the project and the standard library: about 0.6 s of CPU a start.
# Not `mcp_rendering`: once these are imported it costs about 0.07 s more, and imported beforehand every server would
# run the project's code as it was when the session began, whatever path and environment the server was given.
PREIMPORTED = ("mcp", "mcp.server.mcpserver", "mcp.server.stdio", "mcp.types", "mcp_types", "cmarkgfm", "selectolax")
# A request holds the environment; one too large for the socket's send buffer (about 200 KB) runs the interpreter.
_MESSAGE_BYTES = 1 << 20
READY_SECONDS = 10
"""How long the fork server may take to import `PREIMPORTED`: past that the servers start on the interpreter."""
REPLY_SECONDS = 5
"""How long a launcher waits for the fork server's answer before it runs the interpreter instead."""
# Those a launcher can forward; SIGPIPE and SIGXFSZ are left to the interpreter, which ignores them at every start.
_CATCHABLE = signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP, signal.SIGPIPE, signal.SIGXFSZ}


@contextlib.contextmanager
def running(python: str) -> Iterator[str]:
    """A fork server on `python` for the duration; what to run the servers with meanwhile: its launcher, or `python`
    itself where `MCP_RENDERING_FORK_SERVERS=0` or the fork server is not ready within `READY_SECONDS` (a warning says
    why). It ends with every child it has, and also when this process ends without running this `finally`."""
    import shutil
    import subprocess
    import tempfile
    import warnings

    if os.environ.get("MCP_RENDERING_FORK_SERVERS") == "0" or not hasattr(os, "pidfd_open"):  # pidfds: Linux only
        yield python
        return
    folder = Path(tempfile.mkdtemp(prefix="mcp-rendering-fork-"))  # short: a socket's path is at most 107 bytes
    socket_path = str(folder / "socket")
    log = folder / "log"  # what the fork server says: why a start was not forked, or why it did not start
    # No PYTHON* or OTEL_* settings: those of the servers' usual environment (an MCP client passes few variables). A
    # server started with others runs on the interpreter itself.
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "OTEL_"))}
    try:
        with log.open("wb") as errors:
            process = subprocess.Popen(
                [python, __file__, "serve", socket_path],
                stdin=subprocess.PIPE,  # its end, however this process ends, is the fork server's signal to end
                stdout=subprocess.PIPE,
                stderr=errors,
                env=environment,
                start_new_session=True,  # its own process group, which its children stay in: they end with it
            )
        assert process.stdin is not None and process.stdout is not None
        try:
            if select.select([process.stdout], [], [], READY_SECONDS)[0] and process.stdout.readline() == b"ready\n":
                launcher = folder / "python"
                write_launcher(launcher, python, socket_path)
                yield str(launcher)
            else:
                reason = log.read_text(errors="replace") or f"not ready within {READY_SECONDS} s"
                warnings.warn(f"the servers start on the interpreter: no fork server:\n{reason}", stacklevel=3)
                yield python
        finally:
            process.stdin.close()
            with contextlib.suppress(ProcessLookupError):  # it may have ended its group already
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            process.stdout.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_launcher(path: Path, python: str, socket_path: str) -> None:
    """An executable at `path` used exactly as `python` is, starting through the fork server at `socket_path`."""
    # -I -S: no site, no user environment, so that the launcher starts in a few milliseconds; this module is imported
    # from its own folder, appended after the standard library so that it can shadow nothing.
    path.write_text(
        f"#!{python} -IS\n"
        "import sys\n"
        f"sys.path.append({str(Path(__file__).parent)!r})\n"
        "import fork_server\n"
        f"fork_server.launch({python!r}, {socket_path!r}, sys.argv[1:])\n",
        encoding="utf-8",
    )
    path.chmod(0o755)


def _interpreter_settings(environ: dict[str, str]) -> dict[str, Any]:
    """What decides how the interpreter itself starts and what `PREIMPORTED` read of the environment at import, beside
    argv: a child can only be forked where these match (TZ, which `time` read, a child reads again)."""
    import locale

    python = {key: value for key, value in environ.items() if key.startswith("PYTHON") and key != "PYTHONPATH"}
    # OpenTelemetry, which the SDK imports, reads OTEL_PROPAGATORS and OTEL_PYTHON_CONTEXT at import.
    telemetry = {key: value for key, value in environ.items() if key.startswith("OTEL_")}
    return {"python": python, "telemetry": telemetry, "locale": locale.setlocale(locale.LC_CTYPE)}


def launch(python: str, socket_path: str, args: list[str]) -> NoReturn:
    """Run `python ARGS...` through the fork server, or the real interpreter where that is not the same."""
    if os.environ.get("MCP_RENDERING_FORK_SERVERS") == "0" or not _forkable(args):
        _exec(python, args)
    # What a start inherits of signals: the mask, and the signals its parent left ignored.
    ignored = {signum for signum in _CATCHABLE if signal.getsignal(signum) == signal.SIG_IGN}
    request = {
        "args": args,
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        "mask": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "ignored": sorted(ignored),
        **_interpreter_settings(dict(os.environ)),
    }
    # Until it says "go", the child waits and the fork server ends it if this launcher ends: a signal meanwhile ends
    # the launcher as it would have ended the interpreter starting, and any failure runs the interpreter instead.
    if signal.SIGINT not in ignored:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # what an interpreter has until it is ready to run code

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):  # the child has just ended: its status follows
            os.kill(pid, signum)

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    connection.settimeout(REPLY_SECONDS)
    try:
        connection.connect(socket_path)
        connection.sendall(json.dumps(request).encode())  # EMSGSIZE: too large to send
        # The descriptors only once the fork server has read the request: sent to one that no longer reads, they would
        # keep the client's pipes open after the interpreter run instead has ended.
        json.loads(connection.recv(_MESSAGE_BYTES))["descriptors"]  # no "descriptors": an answer to fall back
        socket.send_fds(connection, [b"descriptors"], [0, 1, 2])
        pid: int = json.loads(connection.recv(_MESSAGE_BYTES))["pid"]
        # Every signal, those left ignored too: a server may handle one of them, and the interpreter it stands for
        # would receive it (one it still ignores, it ignores when forwarded).
        for signum in _CATCHABLE:
            signal.signal(signum, forward)
        connection.sendall(b"go")
    except (OSError, ValueError, KeyError, TypeError):
        connection.close()
        for signum in _CATCHABLE - ignored:
            signal.signal(signum, signal.SIG_DFL)
        _exec(python, args)
    connection.settimeout(None)
    # The child holds the client's pipes now: the launcher lets go of its copies so that they close with the child.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    # A signal that comes after the handlers last ran and before the wait blocks would wait with it (CPython runs a
    # handler between bytecodes): a byte on the wakeup pipe ends the wait, so that `forward` runs.
    wakeup_read, wakeup_write = os.pipe()
    os.set_blocking(wakeup_read, False)
    os.set_blocking(wakeup_write, False)
    signal.set_wakeup_fd(wakeup_write)
    while connection not in select.select([connection, wakeup_read], [], [])[0]:
        with contextlib.suppress(BlockingIOError):
            os.read(wakeup_read, 512)
    message = connection.recv(_MESSAGE_BYTES)
    if not message:
        sys.stderr.write("fork_server: the fork server ended before the server did\n")
        os._exit(1)
    status: int = json.loads(message)["status"]
    if os.WIFSIGNALED(status):  # end the same way, so that the client reads the same status
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {os.WTERMSIG(status)})
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _forkable(args: list[str]) -> bool:
    """`-m MODULE ...` or `FILE ...`: what a child can run as the interpreter would."""
    if args[:1] == ["-m"]:
        return len(args) > 1
    return bool(args) and not args[0].startswith("-")


def _exec(python: str, args: list[str]) -> NoReturn:
    os.execv(python, [python, *args])


def _inherit_signals(request: dict[str, Any]) -> None:
    """The signal dispositions and mask an interpreter started by the launcher's parent would have."""
    for signum in _CATCHABLE:
        if signum in request["ignored"]:
            signal.signal(signum, signal.SIG_IGN)
        else:  # whatever the fork server inherited or set: a start sets SIGINT's handler only
            signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, request["mask"])


def _run_child(request: dict[str, Any], own_path: list[str]) -> None:
    """What a forked child runs once its launcher said "go": the server, as the interpreter runs it."""
    import importlib
    import random
    import runpy
    import time
    import types

    args: list[str] = request["args"]
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()  # `time` read TZ when the fork server imported it
    random.seed()  # a fork shares the fork server's state: reseed as a start would
    _reopen_stdio()
    sys.orig_argv = [sys.executable, *args]
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    importlib.invalidate_caches()
    try:
        if args[0] == "-m":
            sys.path[:] = [request["cwd"], *_path(request, own_path)]
            sys.argv = ["-m", *args[2:]]
            # What `python -m` itself runs (private, but the interpreter's own entry point for -m).
            runpy._run_module_as_main(args[1], alter_argv=True)  # pyright: ignore[reportAttributeAccessIssue]
        else:
            sys.path[:] = [str(Path(args[0]).resolve().parent), *_path(request, own_path)]
            sys.argv = list(args)
            file = os.path.join(request["cwd"], args[0])
            from importlib.machinery import SourceFileLoader

            main.__dict__.update(__file__=file, __cached__=None, __loader__=SourceFileLoader("__main__", file))
            code = compile(Path(file).read_bytes(), file, "exec", dont_inherit=True)  # not this module's __future__
            exec(code, main.__dict__)  # the server file, as `python FILE` runs it
    except Exception as error:  # printed as the interpreter prints it, without this module's frames
        trace = error.__traceback__
        while trace is not None and trace.tb_frame.f_code.co_filename == __file__:
            trace = trace.tb_next
        sys.excepthook(type(error), error.with_traceback(trace), trace)
        sys.exit(1)


def _reopen_stdio() -> None:
    """sys.stdin, stdout and stderr on the client's pipes, buffered as a start would have them."""
    import io

    def text(fd: int, before: Any) -> io.TextIOWrapper:
        # The same encoding and errors as the fork server's (the locale and PYTHON* settings match); line buffered
        # where a start would be: stderr always, stdout on a terminal.
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        raw.name = before.name  # type: ignore[misc] - "<stdin>" and the like, as the interpreter names them
        buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        line_buffering = fd == 2 or (fd == 1 and raw.isatty())
        return io.TextIOWrapper(buffered, before.encoding, before.errors, "\n", line_buffering=line_buffering)

    sys.stdin = sys.__stdin__ = text(0, sys.__stdin__)
    sys.stdout = sys.__stdout__ = text(1, sys.__stdout__)
    sys.stderr = sys.__stderr__ = text(2, sys.__stderr__)


def _path(request: dict[str, Any], own_path: list[str]) -> list[str]:
    """PYTHONPATH then the interpreter's own entries, made absolute and without repeats, as `site` leaves them."""
    entries = [entry for entry in request["env"].get("PYTHONPATH", "").split(os.pathsep) if entry]
    path: list[str] = []
    for entry in [*entries, *own_path]:
        absolute = os.path.abspath(os.path.join(request["cwd"], entry))
        if absolute not in path:
            path.append(absolute)
    return path


def _fallback_reason(request: dict[str, Any], own_path: list[str], settings: dict[str, Any]) -> str | None:
    """Why a child could not start as the real interpreter would, if it could not."""
    args: list[str] = request["args"]
    if not _forkable(args):
        return "not -m MODULE or FILE"
    if {key: request[key] for key in settings} != settings:
        return "another locale, PYTHON* or OTEL_* setting"
    file = os.path.join(request["cwd"], args[0])
    if args[0] != "-m" and not (file.endswith(".py") and os.path.isfile(file)):
        return "FILE is not a source file (a folder, a zip application, bytecode)"
    first = request["cwd"] if args[0] == "-m" else str(Path(args[0]).resolve().parent)
    loaded = _preimported_locations()
    for entry in [first, *_path(request, own_path)]:
        if entry in own_path:
            break  # the interpreter's own entries: where the imported modules came from
        try:
            names = {name.split(".")[0] for name in os.listdir(entry)}
        except OSError:
            continue
        if entry != first and names & {"sitecustomize", "usercustomize"}:  # `site` imports them at start
            return f"{entry} holds a module `site` would import"
        for name in names & loaded.keys():
            if loaded[name] != entry:
                return f"{entry} could shadow {name}"
    return None


def _preimported_locations() -> dict[str, str]:
    """The folder each top-level module imported so far came from, by name (built-in modules have none)."""
    found: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        if "." in name or name == "__main__":
            continue
        file = getattr(module, "__file__", None)
        if file:
            location = Path(file).parent
            found[name] = str(location.parent if Path(file).name.startswith("__init__.") else location)
    return found


def serve(socket_path: str) -> tuple[dict[str, Any], list[str]] | None:
    """Fork a child for each launcher connecting at `socket_path` until the pipe on stdin closes (the parent ended);
    return in a child only, with the launcher's request and the interpreter's own path, once the launcher said "go"."""
    import gc
    import importlib
    import selectors
    import shutil

    own_path = sys.path[1:]  # without this module's folder: what the interpreter itself puts on sys.path
    for name in PREIMPORTED:
        importlib.import_module(name)
    gc.collect()  # no garbage frozen: what is left lives as long as a server, its pages shared with the children
    gc.freeze()
    settings = _interpreter_settings(dict(os.environ))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(socket_path)
    listener.listen(64)
    listener.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "listener")
    selector.register(0, selectors.EVENT_READ, "parent")
    # A pidfd per child says when it ended without a thread or a SIGCHLD handler: the fork server stays single-threaded.
    # pidfd -> [pid, the launcher's connection until it is gone, the child's "go" pipe until it is told]
    children: dict[int, list[Any]] = {}

    def drop(connection: socket.socket) -> None:
        """One launcher gone or misbehaving: its connection closes, and its child, if any, is killed."""
        pidfd = selector.get_key(connection).data
        selector.unregister(connection)
        connection.close()
        if isinstance(pidfd, int):
            child = children[pidfd]
            os.kill(child[0], signal.SIGKILL)
            if child[2] is not None:
                os.close(child[2])
            child[1:] = [None, None]

    def answer(connection: socket.socket) -> tuple[dict[str, Any], list[str]] | None:
        """Read a launcher's next message, never waiting: its request, then its descriptors, then "go"; return in the
        child only."""
        state = selector.get_key(connection).data
        if isinstance(state, int):  # a child's pidfd: only "go" may follow, once; anything else, the launcher is gone
            message = connection.recv(16)
            child = children[state]
            if message != b"go" or child[2] is None:
                drop(connection)
                return None
            os.write(child[2], b"go")
            os.close(child[2])
            child[2] = None
            return None
        if state is None:  # the request, without the descriptors: those are sent once the fork server has answered
            data, _, flags, _ = socket.recv_fds(connection, _MESSAGE_BYTES, 0)
            if not data:
                drop(connection)
                return None
            request = json.loads(data)
            reason = "request too large" if flags & socket.MSG_TRUNC else _fallback_reason(request, own_path, settings)
            if reason is not None:
                print(f"fallback: {reason}: {request['args']}", file=sys.stderr, flush=True)
                connection.send(json.dumps({"fallback": reason}).encode())
                drop(connection)
                return None
            selector.modify(connection, selectors.EVENT_READ, request)
            connection.send(b'{"descriptors": true}')
            return None
        request = state
        _, fds, _, _ = socket.recv_fds(connection, 16, 3)
        try:
            if len(fds) != 3:
                drop(connection)
                return None
            go_read, go_write = os.pipe()
            pid = os.fork()
            if pid == 0:
                # The child keeps nothing of the fork server's: other children's pidfds, other launchers.
                selector.close()
                listener.close()
                connection.close()
                os.close(go_write)
                for other, (_, other_connection, other_go) in children.items():
                    os.close(other)
                    if other_connection is not None:
                        other_connection.close()
                    if other_go is not None:
                        os.close(other_go)
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                for fd in fds:
                    os.close(fd)  # all above 2: the fork server's own 0, 1 and 2 are open
                fds.clear()  # closed: not again in `finally`
                _inherit_signals(request)
                told = os.read(go_read, 2)
                os.close(go_read)
                if told != b"go":  # the launcher is gone: the fork server kills this child
                    os._exit(1)
                return request, own_path
            os.close(go_read)
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                os.kill(pid, signal.SIGKILL)
                os.close(go_write)
                os.waitpid(pid, 0)
                raise
            children[pidfd] = [pid, connection, go_write]
            selector.register(pidfd, selectors.EVENT_READ, "child")
            selector.modify(connection, selectors.EVENT_READ, pidfd)
            connection.send(json.dumps({"pid": pid}).encode())
            return None
        finally:
            for fd in fds:
                os.close(fd)

    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if selector.get_map().get(key.fileobj) is not key:
                continue  # unregistered by an earlier event of the same batch
            if key.data == "parent":
                if not os.read(0, 4096):  # the parent ended, however it did: so do the fork server and its children
                    shutil.rmtree(Path(socket_path).parent, ignore_errors=True)
                    os.killpg(0, signal.SIGKILL)
            elif key.data == "listener":
                try:
                    connection, _ = listener.accept()
                except OSError:
                    continue
                connection.setblocking(False)
                selector.register(connection, selectors.EVENT_READ, None)
            elif key.data == "child":  # a child ended: its launcher exits with its status
                pidfd = key.fd
                pid, connection, go = children.pop(pidfd)
                _, status = os.waitpid(pid, 0)
                selector.unregister(pidfd)
                os.close(pidfd)
                if go is not None:
                    os.close(go)
                if connection is not None:
                    selector.unregister(connection)
                    with contextlib.suppress(OSError):  # unless the launcher is gone already
                        connection.send(json.dumps({"status": status}).encode())
                    connection.close()
            else:  # a launcher's message, or its end
                connection = key.fileobj
                assert isinstance(connection, socket.socket)
                try:
                    started = answer(connection)
                except (OSError, ValueError, KeyError, TypeError) as error:  # this launcher's failure only
                    print(f"dropped a launcher: {error!r}", file=sys.stderr, flush=True)
                    if selector.get_map().get(connection) is not None:
                        drop(connection)
                    continue
                if started is not None:
                    return started


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve"] or len(sys.argv) != 3:
        sys.exit("usage: fork_server.py serve SOCKET")
    started = serve(sys.argv[2])
    if started is not None:
        # Run and end as the interpreter would: atexit and the threads' end go the usual way, since this is the top of
        # the child's stack.
        _run_child(*started)
