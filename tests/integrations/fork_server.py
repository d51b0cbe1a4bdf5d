"""Start the example servers of the adapter suites from a process that has already imported the MCP SDK.

Each test starts one or more example servers over stdio, and nearly all of a start's CPU is importing the MCP SDK 2.x
and what it pulls in (pydantic, starlette, uvicorn, ...). The fork server imports those once, on the servers'
interpreter; a launcher, named in place of that interpreter, hands it its stdin, stdout, stderr, argv, environment
and working directory, and the fork server forks a child that runs the server module as `python -m` would. The
project's own code (`mcp_rendering`, the example servers) is not imported beforehand, so each server imports it from
its own path and reads its environment at import as a real start does. Anything the launcher cannot hand over exactly
(other flags, `-c`, a path entry that could shadow a module already imported, another locale or `PYTHON*` setting, no
fork server) runs the real interpreter instead: only the start-up cost differs, never the behaviour. What a fork
cannot draw again is the seed of str hashes: every server of a session shares the fork server's, where each start
draws its own (set order differs between starts either way; the suites and the reach check read the same with
and without the fork server).

    python fork_server.py serve SOCKET     # the fork server (the session fixture starts it)
    launcher -m MODULE ARGS... | FILE ARGS...   # the launcher (written by `write_launcher`), as the interpreter

Only the standard library is imported at the top: the launcher runs on the interpreter with `-I -S`.
"""

from __future__ import annotations

import contextlib
import json
import os
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
_MESSAGE_BYTES = 1 << 20  # a request holds the environment: far larger than any seen


@contextlib.contextmanager
def running(python: str) -> Iterator[str]:
    """A fork server on `python` for the duration; what to run the servers with meanwhile: its launcher, or `python`
    itself where `MCP_RENDERING_FORK_SERVERS=0` (start-up cost is all it changes). It ends with every child it has."""
    import shutil
    import subprocess
    import tempfile

    if os.environ.get("MCP_RENDERING_FORK_SERVERS") == "0" or not hasattr(os, "pidfd_open"):  # pidfds: Linux only
        yield python
        return
    folder = Path(tempfile.mkdtemp(prefix="mcp-rendering-fork-"))  # short: a socket's path is at most 107 bytes
    socket_path = str(folder / "socket")
    log = folder / "log"  # what the fork server says: why a start was not forked, or why it did not start
    # No PYTHON* settings: those of the servers' usual environment (an MCP client passes few variables). A server
    # started with others runs on the interpreter itself.
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    try:
        with log.open("wb") as errors:
            process = subprocess.Popen(
                [python, __file__, "serve", socket_path],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                env=environment,
                start_new_session=True,  # its own process group, which its children stay in: they end with it
            )
        assert process.stdout is not None
        try:
            if process.stdout.readline() != b"ready\n":
                raise RuntimeError(f"the fork server did not start:\n{log.read_text(errors='replace')}")
            launcher = folder / "python"
            write_launcher(launcher, python, socket_path)
            yield str(launcher)
        finally:
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
    """What decides how the interpreter itself starts, beside argv: a child can only be forked where these match."""
    import locale

    python = {key: value for key, value in environ.items() if key.startswith("PYTHON") and key != "PYTHONPATH"}
    return {"python": python, "locale": locale.setlocale(locale.LC_CTYPE)}


def launch(python: str, socket_path: str, args: list[str]) -> NoReturn:
    """Run `python ARGS...` through the fork server, or the real interpreter where that is not the same."""
    if os.environ.get("MCP_RENDERING_FORK_SERVERS") == "0" or not _forkable(args):
        _exec(python, args)
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        connection.connect(socket_path)
    except OSError:
        _exec(python, args)
    # Until the child's pid is known, a signal waits instead of ending the launcher before it could be forwarded.
    forwarded = {signal.SIGTERM, signal.SIGINT}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, forwarded)
    request = {
        "args": args,
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        # What a start inherits of signals: the mask, and the signals its parent left ignored.
        "mask": sorted(mask),
        "ignored": [signum for signum in _STARTING_HANDLERS if signal.getsignal(signum) == signal.SIG_IGN],
        **_interpreter_settings(dict(os.environ)),
    }
    socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
    reply = json.loads(connection.recv(_MESSAGE_BYTES) or b'{"fallback": "no answer"}')
    if "fallback" in reply:
        connection.close()
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # an exec keeps the mask
        _exec(python, args)
    pid: int = reply["pid"]
    for signum in forwarded:
        signal.signal(signum, lambda signum, _frame: os.kill(pid, signum))
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    # The child holds the client's pipes now: the launcher lets go of its copies so that they close with the child.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
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


class _Child:
    """What a forked child runs, once it has left the fork server's loop."""

    def __init__(self, request: dict[str, Any], own_path: list[str]) -> None:
        self.request = request
        self.own_path = own_path

    def run(self) -> None:
        request = self.request
        args: list[str] = request["args"]
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for signum, handler in _STARTING_HANDLERS.items():
            signal.signal(signum, signal.SIG_IGN if signum in request["ignored"] else handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, request["mask"])
        import importlib
        import random
        import runpy
        import types

        random.seed()  # a fork shares the fork server's state: reseed as a start would
        _reopen_stdio()
        sys.orig_argv = [sys.executable, *args]
        main = types.ModuleType("__main__")
        sys.modules["__main__"] = main
        importlib.invalidate_caches()
        if args[0] == "-m":
            sys.path[:] = [request["cwd"], *_path(request, self.own_path)]
            sys.argv = ["-m", *args[2:]]
            # What `python -m` itself runs (private, but the interpreter's own entry point for -m).
            runpy._run_module_as_main(args[1], alter_argv=True)  # pyright: ignore[reportAttributeAccessIssue]
        else:
            sys.path[:] = [str(Path(args[0]).resolve().parent), *_path(request, self.own_path)]
            sys.argv = list(args)
            file = os.path.join(request["cwd"], args[0])
            from importlib.machinery import SourceFileLoader

            main.__dict__.update(__file__=file, __cached__=None, __loader__=SourceFileLoader("__main__", file))
            code = compile(Path(file).read_bytes(), file, "exec", dont_inherit=True)  # not this module's __future__
            exec(code, main.__dict__)  # the server file, as `python FILE` runs it


# The handlers an interpreter starts with, where its parent left a signal at its default (the fork server sets none
# of its own; a child starts from these anyway).
_STARTING_HANDLERS: dict[int, Any] = {
    signal.SIGINT: signal.default_int_handler,
    signal.SIGTERM: signal.SIG_DFL,
    signal.SIGHUP: signal.SIG_DFL,
    signal.SIGQUIT: signal.SIG_DFL,
    signal.SIGUSR1: signal.SIG_DFL,
    signal.SIGUSR2: signal.SIG_DFL,
    signal.SIGCHLD: signal.SIG_DFL,
}


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
    if not _forkable(request["args"]):
        return "not -m MODULE or FILE"
    if {key: request[key] for key in settings} != settings:
        return "another locale or PYTHON* setting"
    first = request["cwd"] if request["args"][0] == "-m" else str(Path(request["args"][0]).resolve().parent)
    loaded = _preimported_locations()
    for entry in [first, *_path(request, own_path)]:
        if entry in own_path:
            break  # the interpreter's own entries: where the imported modules came from
        try:
            names = {name.split(".")[0] for name in os.listdir(entry)}
        except OSError:
            continue
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


def serve(socket_path: str) -> _Child | None:
    """Fork a child for each launcher connecting at `socket_path`; return in a child only, with what it runs."""
    import importlib
    import selectors

    own_path = sys.path[1:]  # without this module's folder: what the interpreter itself puts on sys.path
    for name in PREIMPORTED:
        importlib.import_module(name)
    settings = _interpreter_settings(dict(os.environ))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(socket_path)
    listener.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    # A pidfd per child says when it ended without a thread or a SIGCHLD handler: the fork server stays single-threaded.
    children: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, the launcher's connection)
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                connection, _ = listener.accept()
                connection.settimeout(10)
                try:
                    data, fds, _, _ = socket.recv_fds(connection, _MESSAGE_BYTES, 3)
                except OSError:
                    connection.close()
                    continue
                request = json.loads(data)
                reason = _fallback_reason(request, own_path, settings) if len(fds) == 3 else "no descriptors"
                if reason is not None:
                    print(f"fallback: {reason}: {request['args']}", file=sys.stderr, flush=True)
                    connection.sendall(json.dumps({"fallback": reason}).encode())
                    connection.close()
                    for fd in fds:
                        os.close(fd)
                    continue
                pid = os.fork()
                if pid == 0:
                    # The child keeps nothing of the fork server's: other children's pidfds, other launchers.
                    selector.close()
                    listener.close()
                    connection.close()
                    for pidfd, (_, other) in children.items():
                        os.close(pidfd)
                        other.close()
                    for target, fd in enumerate(fds):
                        os.dup2(fd, target)
                    for fd in fds:
                        if fd > 2:
                            os.close(fd)
                    return _Child(request, own_path)
                for fd in fds:
                    os.close(fd)
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (pid, connection)
                selector.register(pidfd, selectors.EVENT_READ)
                selector.register(connection, selectors.EVENT_READ, pidfd)
                connection.sendall(json.dumps({"pid": pid}).encode())
            elif isinstance(key.fileobj, int):  # a child ended: its launcher exits with its status
                pidfd = key.fileobj
                pid, connection = children.pop(pidfd)
                _, status = os.waitpid(pid, 0)
                selector.unregister(pidfd)
                os.close(pidfd)
                with contextlib.suppress(KeyError):  # not when its launcher ended first
                    selector.unregister(connection)
                with contextlib.suppress(OSError):  # unless the launcher is gone already
                    connection.sendall(json.dumps({"status": status}).encode())
                connection.close()
            else:  # a launcher ended before its child (killed): the child goes with it, as in its process group
                pidfd = key.data
                pid, connection = children[pidfd]
                selector.unregister(connection)
                os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    if sys.argv[1:2] != ["serve"] or len(sys.argv) != 3:
        sys.exit("usage: fork_server.py serve SOCKET")
    child = serve(sys.argv[2])
    if child is not None:
        # Run and end as the interpreter would: an uncaught exception, atexit and the threads' end all go the usual
        # way, since this is the top of the child's stack.
        child.run()
