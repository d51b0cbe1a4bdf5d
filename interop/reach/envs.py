"""One virtual environment per framework, installed from a committed lock of exact versions.

Each framework resolves its own `mcp` (LangChain's adapters need the SDK's 1.x line, the others take 2.x), so none
of them can share the project's environment. An environment holds exactly the packages of
`interop/reach/requirements-<name>.txt` (installed without dependency resolution, then checked with `pip check`),
and not this project: whatever runs in it puts the working tree's `python_ext` on `PYTHONPATH` (see
`project_path`), so that one environment serves every clone.

Environments are kept in a cache directory outside the clone (`$MCP_RENDERING_REACH_CACHE`, by default
`~/.cache/mcp-rendering/reach`), one per lock digest and interpreter, so that a fresh clone or a CI run on the same
machine reuses the ones already installed; `.venv-reach/<name>` at the repository root links to the current one.
A store is installed under an exclusive lock of its own (`<store>.lock`), so that clones running at the same time
never delete or use a store another is still installing (a virtual environment cannot be renamed into place: its
scripts name its path).

`lock()` writes the lock files: it installs each framework's top-level pins, the test runner's and this project's
own dependencies into a scratch environment, and freezes what resolved.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[2]
REACH = ROOT / "interop" / "reach"
ENV_ROOT = ROOT / ".venv-reach"
"""Where this clone links to its environments (and locks in scratch environments)."""
CACHE_ROOT = Path(
    os.environ.get("MCP_RENDERING_REACH_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mcp-rendering" / "reach"
)
"""Where the environments themselves are kept, shared by the clones of this machine."""
PIP_TIMEOUT_SECONDS = 900
STAMP = ".reach-stamp"


@dataclass(frozen=True)
class Environment:
    """One framework's environment."""

    name: str
    pins: tuple[str, ...]
    """The top-level requirements the lock is resolved from."""
    reported: tuple[str, ...]
    """Distributions whose installed versions the results record."""

    @property
    def lock_file(self) -> Path:
        return REACH / f"requirements-{self.name}.txt"

    @property
    def path(self) -> Path:
        return ENV_ROOT / self.name

    @property
    def python(self) -> Path:
        return self.path / "bin" / "python"

    @property
    def store(self) -> Path:
        """The cached environment for the current lock and interpreter."""
        return CACHE_ROOT / f"{self.name}-{_stamp(self)[:16]}"


ENVIRONMENTS: tuple[Environment, ...] = (
    Environment(
        "langchain",
        ("langchain-mcp-adapters==0.3.2", "langchain-core==1.8.3", "langchain==1.5.2"),
        ("langchain-mcp-adapters", "langchain-core", "langchain", "langgraph", "mcp"),
    ),
    Environment("openai-agents", ("openai-agents==0.24.0",), ("openai-agents", "mcp")),
    Environment("pydantic-ai", ("pydantic-ai-slim[mcp]==2.68.0",), ("pydantic-ai-slim", "fastmcp-slim", "mcp")),
    Environment("smolagents", ("smolagents[mcp]==1.26.0", "mcp==1.30.0"), ("smolagents", "mcpadapt", "mcp")),
    Environment(
        "llama-index",
        ("llama-index-tools-mcp==0.6.0", "llama-index-core==0.14.25", "mcp==2.3.0"),
        ("llama-index-tools-mcp", "llama-index-core", "mcp"),
    ),
    Environment(
        "autogen",
        ("autogen-ext[mcp]==0.7.5", "autogen-agentchat==0.7.5", "mcp==1.30.0"),
        ("autogen-ext", "autogen-agentchat", "autogen-core", "mcp"),
    ),
    Environment("google-adk", ("google-adk==2.13.0", "mcp==2.3.0"), ("google-adk", "mcp")),
    Environment("agno", ("agno==3.1.10", "fastmcp>=4,<5"), ("agno", "fastmcp", "mcp")),
    Environment("haystack", ("mcp-haystack==2.1.1",), ("mcp-haystack", "haystack-ai", "mcp")),
    Environment("semantic-kernel", ("semantic-kernel[mcp]==1.45.0",), ("semantic-kernel", "mcp")),
    Environment("dspy", ("dspy==3.4.1", "mcp"), ("dspy", "mcp")),
    Environment("strands", ("strands-agents==1.62.0",), ("strands-agents", "mcp")),
    Environment("beeai", ("beeai-framework[mcp]==0.1.85",), ("beeai-framework", "mcp")),
    Environment("camel", ("camel-ai==0.2.90", "mcp==1.30.0"), ("camel-ai", "mcp")),
    Environment(
        "crewai", ("crewai==1.15.30", "crewai-tools[mcp]==1.15.30"), ("crewai", "crewai-tools", "mcpadapt", "mcp")
    ),
)
BY_NAME = {env.name: env for env in ENVIRONMENTS}

_TEST_TOOLS = ("pytest", "pytest-timeout")
"""Development pins copied from pyproject.toml into every lock, so that the integration tests run there."""


class SetupError(RuntimeError):
    """An environment could not be locked or installed; the message says which step failed."""


def _pyproject() -> dict[str, Any]:
    if sys.version_info < (3, 11):
        raise SetupError("locking reads pyproject.toml with tomllib: run it on Python 3.11 or later")
    import tomllib

    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def extra_pins() -> tuple[str, ...]:
    """This project's own dependencies and the test runner's pins, as pyproject.toml states them."""
    project = _pyproject()
    dependencies = cast("list[str]", project["project"]["dependencies"])
    dev = cast("list[str]", project["dependency-groups"]["dev"])
    tools = [pin for pin in dev if pin.split("==", 1)[0] in _TEST_TOOLS]
    return (*dependencies, *tools)


def _run(command: list[str], what: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as error:
        raise SetupError(f"{what}: no answer within {PIP_TIMEOUT_SECONDS} s") from error
    if done.returncode != 0:
        raise SetupError(f"{what} failed ({done.returncode}):\n{(done.stdout + done.stderr)[-4000:]}")
    return done.stdout


def _pip(python: Path, *arguments: str) -> list[str]:
    return [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input", *arguments]


def _create(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The interpreter of the project's environment, so that every framework runs on the same Python.
    _run([sys.executable, "-m", "venv", str(path)], f"creating {path}")
    return path / "bin" / "python"


def _stamp(env: Environment) -> str:
    digest = hashlib.sha256(env.lock_file.read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def project_path() -> str:
    """The `PYTHONPATH` under which a framework's environment imports `mcp_rendering` from this working tree."""
    return str(ROOT / "python_ext")


def is_current(env: Environment) -> bool:
    """True when the environment's store exists and was completely installed from the current lock."""
    stamp = env.store / STAMP
    return stamp.is_file() and stamp.read_text(encoding="utf-8") == _stamp(env)


def _link(env: Environment, store: Path) -> None:
    if env.path.is_symlink() and env.path.resolve() == store.resolve():
        return
    if env.path.is_symlink() or env.path.is_file():
        env.path.unlink()
    elif env.path.exists():  # an environment of an earlier layout, installed in place
        shutil.rmtree(env.path)
    env.path.parent.mkdir(parents=True, exist_ok=True)
    env.path.symlink_to(store, target_is_directory=True)


def ensure(env: Environment) -> float | None:
    """Install the environment of the current lock unless cached, and link `.venv-reach/<name>` to it; the seconds
    the install took, or None when it was cached."""
    if not env.lock_file.is_file():
        raise SetupError(f"{env.lock_file.relative_to(ROOT)} is missing: run `python -m interop.reach --lock`")
    stamp = _stamp(env)  # of the lock as installed, should it change meanwhile
    store = CACHE_ROOT / f"{env.name}-{stamp[:16]}"
    with _store_lock(store):
        if is_current(env):  # read under the lock: another clone may have just finished it
            _link(env, store)
            return None
        started = time.monotonic()
        python = _create(store)  # an incomplete store (no stamp) is created anew
        name = env.name
        _run(_pip(python, "install", "-q", "--no-deps", "-r", str(env.lock_file)), f"installing the {name} lock")
        _run(_pip(python, "check"), f"checking the {name} environment")
        (store / STAMP).write_text(stamp, encoding="utf-8")  # last: it marks the store complete
        _link(env, store)
        return time.monotonic() - started


@contextlib.contextmanager
def _store_lock(store: Path) -> Iterator[None]:
    """Hold the store's exclusive lock; released by the system should the process die."""
    store.parent.mkdir(parents=True, exist_ok=True)
    with (store.parent / f"{store.name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def lock(env: Environment) -> Path:
    """Resolve the framework's pins with this project's dependencies and write the exact versions to its lock."""
    scratch = ENV_ROOT / f".lock-{env.name}"
    python = _create(scratch)
    try:
        pins = (*env.pins, *extra_pins())
        _run(_pip(python, "install", "-q", *pins), f"resolving {', '.join(pins)}")
        # --all: a framework may need a newer setuptools than the one a new environment comes with.
        frozen = _run(_pip(python, "freeze", "--all", "--exclude", "pip"), f"freezing {env.name}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    lines = sorted((line for line in frozen.splitlines() if line and not line.startswith("#")), key=str.lower)
    header = [
        f"# Every package of the {env.name} environment, at its exact version.",
        "# Generated by `python -m interop.reach --lock`; installed with `pip install --no-deps -r`.",
        f"# Resolved from: {', '.join(pins)} (Python {sys.version_info.major}.{sys.version_info.minor}).",
    ]
    env.lock_file.write_text("\n".join([*header, *lines]) + "\n", encoding="utf-8")
    return env.lock_file


def installed_versions(env: Environment) -> dict[str, str]:
    """The locked versions of the distributions the results record."""
    wanted = {name.lower(): name for name in env.reported}
    found: dict[str, str] = {}
    for line in env.lock_file.read_text(encoding="utf-8").splitlines():
        name, separator, version = line.partition("==")
        if separator and name.strip().lower() in wanted:
            found[wanted[name.strip().lower()]] = version.strip()
    return {name: found.get(name, "absent") for name in env.reported}
