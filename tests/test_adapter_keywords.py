"""Every framework adapter takes the host's options under the same keywords, with the same types and defaults as
`AnswerOptions`: each entry point spells them out (a shared `Unpack[TypedDict]` would lose the defaults from the
signatures, and closes the keywords of an entry point that also forwards the framework's own, as Agno's toolkit
does), so this test keeps the copies alike. Read from the source, as the frameworks are not installed here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

INTEGRATIONS = Path(__file__).resolve().parents[1] / "python_ext" / "mcp_rendering" / "integrations"
KEYWORDS = ("server", "max_rows", "max_bytes", "markdown", "allow")


def _keywords(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, tuple[str, str]]:
    """The keyword-only parameters of `function`, as written: annotation and default."""
    arguments = function.args
    return {
        argument.arg: (
            ast.unparse(argument.annotation) if argument.annotation else "",
            ast.unparse(default) if default is not None else "",
        )
        for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    }


def _functions(path: Path) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _reference() -> dict[str, tuple[str, str]]:
    [init] = [
        function
        for function in _functions(INTEGRATIONS / "answer.py")
        if function.name == "__init__" and "allow" in _keywords(function)
    ]
    return {name: _keywords(init)[name] for name in KEYWORDS}


SERVER_KEYED_ALLOW = ("Mapping[str, Iterable[str]] | None", "None")
"""`allow` of an entry point serving several servers, each named by the application where its tools come from (and
so taking no `server`): the names of each server's tools, by server."""
NOT_ENTRY_POINTS = {"__init__", "answer", "fastmcp", "pydantic_ai"}
"""Modules with no adapter entry point taking keywords: Pydantic AI's adapter is a capability whose options are
dataclass fields, its `allow` mapping each toolset to its tools."""
ADAPTERS = sorted(path for path in INTEGRATIONS.glob("*.py") if path.stem not in NOT_ENTRY_POINTS)


@pytest.mark.parametrize("path", ADAPTERS, ids=lambda path: path.stem)
def test_every_entry_point_takes_the_options_as_answer_options_does(path: Path) -> None:
    reference = _reference()
    # The entry points: what the application calls with `allow`, the option no internal helper takes.
    entries = [function for function in _functions(path) if "allow" in _keywords(function)]
    assert entries, f"{path.name} takes none of the host's options"
    for function in entries:
        keywords = _keywords(function)
        expected: dict[str, tuple[str, str] | None] = dict(reference)
        if keywords["allow"] == SERVER_KEYED_ALLOW:
            expected.update(server=None, allow=SERVER_KEYED_ALLOW)
        assert {name: keywords.get(name) for name in KEYWORDS} == expected, f"{path.name}: {function.name}"
