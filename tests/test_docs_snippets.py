"""The documentation's code is true: it runs as written, and it fits the page.

- The server quickstart's Python blocks, joined in page order with stand-ins for the reader's own data access, make
  a server whose verbatim, paged and summarizable tools and record resources work through a real client.
- The host guide's Python blocks run against that server and against wire dictionaries.
- The front page's two presentations and their audit scores are what the code computes today.
- Every line of a fenced code block in a hand-written page is at most `MAX_CODE_LINE` characters, so that no
  example needs a sideways scroll.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_rendering
from mcp_rendering.types import EXTENSION_ID, PARTIAL_MARKER

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
QUICKSTART = DOCS / "quickstart-server.md"
HOST_GUIDE = DOCS / "host-guide.md"

MAX_CODE_LINE = 88
"""The longest line a fenced code block may hold: the width of the site's content column at its default size."""

GENERATED_PAGES = ("sep.md", "specification.md", "result-continuation.md", "promotion.md")
"""Pages copied from sep/ by scripts/gen_docs_sep.py: their code is written for the specification repository."""

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")

SECRET = "a-secret-of-at-least-sixteen-bytes"
"""The page's one input from the environment: `MCP_RENDERING_SECRET`."""

EXERCISE = textwrap.dedent(
    """
    import anyio
    from mcp import Client

    async def exercise():
        async with Client(mcp) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            sheet = await client.call_tool("balance_sheet", {"company": "acme"})
            statement = await client.call_tool("income_statement", {"company": "acme"})
            figures = await client.call_tool("key_figures", {"company": "acme"})
            first = await client.call_tool("screening_hits", {"case": "C-17"})
            linked = await client.call_tool("screening_records", {"case": "C-17"})
            links = [block for block in linked.content if block.type == "resource_link"]
            record = await client.read_resource(linked.structured_content["document"]["sections"][0]["rows"][0]["uri"])
            return tools, sheet, statement, figures, first, linked, links, record

    OUTCOME = anyio.run(exercise)
    """
)


def code_blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """Every fenced code block of a Markdown page: (info string, line number of its first line, its lines)."""
    blocks: list[tuple[str, int, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, indent = opening.group("fence"), len(opening.group("indent"))
        body: list[str] = []
        index += 1
        start = index + 1
        while index < len(lines):
            closing = _FENCE.match(lines[index])
            if closing is not None and closing.group("fence").startswith(fence) and not closing.group("info").strip():
                break
            body.append(lines[index][indent:] if lines[index][:indent].isspace() else lines[index])
            index += 1
        blocks.append((opening.group("info").strip(), start, body))
        index += 1
    return blocks


def python_blocks(path: Path) -> list[str]:
    blocks = code_blocks(path.read_text(encoding="utf-8"))
    return ["\n".join(body) + "\n" for info, _, body in blocks if info == "python"]


def quickstart_server(tmp_path: Path) -> Path:
    """Every Python block of the quickstart, in page order, as the page says to save it."""
    blocks = python_blocks(QUICKSTART)
    assert len(blocks) >= 7, "the quickstart lost its code"
    script = tmp_path / "server.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    return script


def run_quickstart(tmp_path: Path) -> dict[str, Any]:
    """The quickstart's server, exercised in process by a real client (not run as `__main__`: no stdio here)."""
    os.environ.setdefault("MCP_RENDERING_SECRET", SECRET)
    script = quickstart_server(tmp_path)
    script.write_text(script.read_text(encoding="utf-8") + EXERCISE, encoding="utf-8")
    return runpy.run_path(str(script))


def test_the_server_quickstart_runs_over_stdio_as_the_page_says(tmp_path: Path) -> None:
    quickstart_server(tmp_path)
    commands = shell_commands(QUICKSTART)
    assert commands[-2].startswith("export MCP_RENDERING_SECRET=")
    assert commands[-1].startswith("mcp-rendering inspect --strict --call screening_hits")
    as_json = commands[-1].replace(" -- ", " --json -- ", 1)
    done = _in_project_env(tmp_path, f"{commands[-2]} && {as_json}", shell=True)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["call"]["complete"] is False  # the first page of 120 hits, 50 a page
    assert report["strict_failures"] == []
    assert {tool["name"] for tool in report["tools"]} >= {"income_statement", "screening_hits", "status"}
    assert (report["extension_advertised"], report["continuation_advertised"]) == (True, True)


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    yield
    mcp_rendering.uninstall()


def test_the_server_quickstart_runs(tmp_path: Path) -> None:
    namespace = run_quickstart(tmp_path)
    tools, sheet, statement, figures, first, linked, links, record = namespace["OUTCOME"]
    assert {"balance_sheet", "income_statement", "key_figures", "screening_hits", "screening_records", "status"} <= set(
        tools
    )

    # The tool from rows: the hint listed, the directive in `_meta` and its copy, amounts exact in both channels.
    assert (tools["balance_sheet"].meta or {})[EXTENSION_ID] == {"verbatimHint": True}
    sheet_directive = {"mode": "verbatim", "guidance": "Show every line, in order.", "complete": True}
    assert (sheet.meta or {})[EXTENSION_ID] == sheet_directive == sheet.structured_content["_rendering"]
    [assets] = sheet.structured_content["document"]["sections"]
    assert assets["columns"] == ["2024", "2025"]
    assert [row["values"] for row in assets["rows"]] == [
        ["1200.00", "1534.10"],
        ["880.40", None],
        ["2080.40", "1534.10"],
    ]
    assert assets["rows"][2]["kind"] == "total"
    assert "| Cash" in sheet.content[0].text and "1200.00" in sheet.content[0].text

    # The hints reach the client in the normative carrier, copied there by the middleware.
    assert (tools["income_statement"].meta or {})[EXTENSION_ID] == {"verbatimHint": True}
    assert (tools["key_figures"].meta or {})[EXTENSION_ID] == {"summarizeOkHint": True}
    assert mcp_rendering.resolve_rendering(tools["key_figures"], figures).mode == "summarizable"

    # The verbatim result: directive in `_meta`, its model copy in structuredContent, the text framed first.
    directive = (statement.meta or {})[EXTENSION_ID]
    assert directive["mode"] == "verbatim" and "guidance" in directive
    assert statement.structured_content["_rendering"] == directive
    assert statement.content[0].text.startswith(f"Rendering directive for this result ({EXTENSION_ID}):")
    assert mcp_rendering.resolve_rendering(tools["income_statement"], statement).source == "result._meta"

    # The core form and the record links, on request (no link here: the statement's rows have no URI).
    core = namespace["statement"]
    assert core.model_dump(by_alias=True, exclude_none=True)["_rendering"] == {"mode": "verbatim", "complete": True}
    assert all(block.type == "text" for block in core.content)

    # The paged tools: an incomplete first page, no per-record link by default, each record readable by its URI.
    for part in (first, linked):
        assert part.structured_content["page"]["complete"] is False
        first_directive = mcp_rendering.read_directive(part)
        assert first_directive is not None and first_directive.complete is False
        assert PARTIAL_MARKER in part.content[0].text
    assert links == []
    assert '"id":"h0"' in record.contents[0].text.replace(" ", "")


HOST_STAND_INS = textwrap.dedent(
    """
    from mcp_rendering import Document, Row, Section, verbatim_result
    from mcp_rendering.render import render_text

    _document = Document(
        title="Grand livre",
        sections=(
            Section(
                id="capitaux",
                title="Capitaux",
                columns=("Solde",),
                rows=(
                    Row(id="101000", label="101000 Capital social", values=(50000,)),
                    Row(id="106100", label="106100 Réserve légale", values=(None,)),
                ),
            ),
        ),
    )
    tool = {
        "name": "ledger",
        "inputSchema": {"type": "object"},
        "_meta": {"io.modelcontextprotocol/rendering": {"verbatimHint": True}},
    }
    result = verbatim_result(_document).model_dump(mode="json", by_alias=True, exclude_none=True)
    arguments = {}
    shown_text = render_text(_document)
    """
)


def test_the_host_guide_runs(tmp_path: Path) -> None:
    server = run_quickstart(tmp_path)["mcp"]
    blocks = python_blocks(HOST_GUIDE)
    assert len(blocks) >= 6, "the host guide lost its code"
    script = tmp_path / "host_guide.py"
    script.write_text(HOST_STAND_INS + "\n".join(blocks), encoding="utf-8")
    namespace = runpy.run_path(str(script))

    assert namespace["rendering"].mode == "verbatim" and namespace["rendering"].complete
    assert namespace["presentation"].complete and namespace["presentation"].caption is not None
    paged = [row.id for page in namespace["shown_pages"] for s in page.document.sections for row in s.rows]
    assert paged == ["101000", "106100"] and len(namespace["shown_pages"]) == 2  # the loop body ran
    assert namespace["report"].clean and namespace["report"].score == 1.0
    beside = namespace["beside"]
    assert beside.startswith('Verbatim result from tool "ledger" of server "example-financial".')
    assert mcp_rendering.audit(beside, namespace["result"], markup="text").clean
    answers = namespace["answers"]  # an answer cut at one record, then the next from `next_first_row`
    assert len(answers) == 2 and all("full result" not in answer for answer in answers)

    import anyio
    from mcp import Client

    async def exercise() -> tuple[Any, list[Any], bool]:
        shown = await namespace["show_statement"](server, "acme")
        async with Client(server) as client:
            tool = next(tool for tool in (await client.list_tools()).tools if tool.name == "screening_hits")
            pages, whole = await namespace["every_page"](client, tool, {"case": "C-17"})
        return shown, pages, whole

    shown, pages, whole = anyio.run(exercise)
    assert shown.mode == "verbatim" and shown.complete
    assert mcp_rendering.audit(shown.text, shown.model_result).clean
    # Each part alone is partial, the last one too (read alone it is not the whole); the parts together are complete.
    assert [page.complete for page in pages] == [False, False, False] and whole
    assert sum(len(page.document.sections[0].rows) for page in pages) == 120


def test_the_front_page_scores_are_computed() -> None:
    """The two presentations of the front page, and the audit line under each, are what the code gives now."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        generator = importlib.import_module("gen_docs_example")
        expected = generator.snippets()
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    for path, text in expected.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run python scripts/gen_docs_example.py"
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for path in expected:
        assert f'--8<-- "docs/snippets/{path.name}"' in index
    assert "**Audit score 1.00**" in expected[generator.VERBATIM]
    assert "**Audit score 0.00**" in expected[generator.SUMMARY]


def _hand_written_pages() -> list[Path]:
    return sorted(path for path in DOCS.rglob("*.md") if path.relative_to(DOCS).as_posix() not in GENERATED_PAGES)


@pytest.mark.parametrize("page", _hand_written_pages(), ids=lambda path: path.relative_to(DOCS).as_posix())
def test_code_lines_fit_the_column(page: Path) -> None:
    too_long = [
        f"{page.relative_to(DOCS).as_posix()}:{start + offset}: {len(line)} characters"
        for _, start, body in code_blocks(page.read_text(encoding="utf-8"))
        for offset, line in enumerate(body)
        if len(line) > MAX_CODE_LINE
    ]
    assert too_long == [], "\n".join(too_long)


def test_the_line_check_catches_a_long_line() -> None:
    """The block reader itself: indented fences (inside an admonition) count, text outside fences does not."""
    page = "x" * 200 + "\n\n    ```python\n    " + "y" * 89 + "\n    ```\n\n~~~\nshort\n~~~\n"
    blocks = code_blocks(page)
    assert [(info, start) for info, start, _ in blocks] == [("python", 4), ("", 8)]
    assert max(len(line) for line in blocks[0][2]) == 89 > MAX_CODE_LINE
    assert blocks[1][2] == ["short"]


# ------------------------------------------------------------------------------------ the README and Get started

README = ROOT / "README.md"
GET_STARTED = DOCS / "get-started.md"
VENV_BIN = Path(sys.executable).parent
INSTALL_LINES = ("python -m venv ", ". .venv/bin/activate", "pip install ")
"""Lines of a page's shell blocks that set up the environment this test already runs in (scripts/test-package.sh
installs the built wheel the same way, in clean environments)."""


def shell_commands(path: Path) -> list[str]:
    """The commands of a page's `bash` blocks, continued lines joined, comments dropped, set-up lines left out."""
    commands: list[str] = []
    for info, _, body in code_blocks(path.read_text(encoding="utf-8")):
        if info != "bash":
            continue
        for line in "\n".join(body).replace("\\\n", " ").splitlines():
            command = " ".join(line.split(" #", 1)[0].split())
            if command and not command.startswith("#") and not command.startswith(INSTALL_LINES):
                commands.append(command)
    return commands


def _in_project_env(tmp_path: Path, argv: list[str] | str, *, shell: bool = False) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        argv, cwd=tmp_path, env=env, shell=shell, capture_output=True, text=True, timeout=120, check=False
    )


@functools.cache
def _shell_folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="docs-commands-"))


@functools.cache
def shell_command(command: str) -> str:
    """The output of a page's command, run once per test session in one folder: the pages share commands (`demo
    --save out`, then `audit` of what it saved), and each runs in the order its page gives."""
    ran = _in_project_env(_shell_folder(), command, shell=True)
    assert ran.returncode == 0, (command, ran.stdout[-2000:], ran.stderr[-2000:])
    return ran.stdout


def test_the_readme_server_and_host_run_as_written_and_keep_every_amount_exact(tmp_path: Path) -> None:
    """The README's two blocks: a server importing two names of the package, from rows with `Decimal` amounts, and
    the host that declares, presents and audits, run as the README says (saved side by side, over stdio)."""
    server, host = python_blocks(README)
    imported = re.findall(r"^from mcp_rendering import (.+)$", server, flags=re.M)
    assert len([name for line in imported for name in line.split(", ")]) <= 3
    assert "import mcp_rendering" not in server
    (tmp_path / "ledger.py").write_text(server, encoding="utf-8")
    (tmp_path / "host.py").write_text(host, encoding="utf-8")
    done = _in_project_env(tmp_path, [sys.executable, "host.py"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("fidelity: clean; score 1.000; 3/3 records intact; result complete")
    for label, amount in (
        ("Cash", "1200.00"),
        ("Receivables", "12345678901234567.89"),
        ("Total: Total assets", "12345678901235767.89"),
    ):
        assert any(f" {label} " in line and f" {amount} " in line for line in lines), (label, done.stdout)


def test_the_get_started_page_runs_as_written(tmp_path: Path) -> None:
    [host] = python_blocks(GET_STARTED)
    (tmp_path / "host.py").write_text(host, encoding="utf-8")
    done = _in_project_env(tmp_path, [sys.executable, "host.py"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    page = GET_STARTED.read_text(encoding="utf-8")
    promised = re.search(r"The last line prints\s+`([^`]+)`", page)
    assert promised is not None
    assert lines[-1] == promised.group(1)
    assert "[Rendering directive for the tool result below" in done.stdout

    commands = shell_commands(GET_STARTED)
    assert commands == [
        "mcp-rendering inspect -- python -m mcp_rendering.examples.financial",
        "mcp-rendering demo --save out",
        "mcp-rendering audit out/result.json out/transcript.txt",
    ]
    outputs = [shell_command(command) for command in commands]
    assert "financial_statements" in outputs[0]
    assert outputs[2].startswith("fidelity: clean")


def test_the_get_started_page_says_what_an_altered_line_does(tmp_path: Path) -> None:
    # The page's claim: change a line of what is shown and the audit names the altered record.
    [host] = python_blocks(GET_STARTED)
    altered = host.replace(
        "audit(shown, result, tool=tool, arguments=arguments)",
        'audit(shown.text.replace("Capitaux propres", "Equity"), result, tool=tool, arguments=arguments, '
        'markup="text")',
    )
    assert altered != host
    (tmp_path / "host.py").write_text(altered, encoding="utf-8")
    done = _in_project_env(tmp_path, [sys.executable, "host.py"])
    assert done.returncode == 0, done.stderr
    assert "Capitaux propres" in done.stdout.split("fidelity:", 1)[1]


def test_the_command_line_page_runs_as_written() -> None:
    commands = shell_commands(DOCS / "cli.md")
    assert len(commands) == 6
    for command in commands:
        shell_command(command)


# ------------------------------------------------------------------------------------ FastMCP, and every page's code

FASTMCP = DOCS / "fastmcp.md"


def test_the_fastmcp_page_makes_a_server_a_client_reads_over_stdio(tmp_path: Path) -> None:
    blocks = python_blocks(FASTMCP)
    assert len(blocks) == 4, "the FastMCP page's code changed: update this test"
    assert blocks[-1].startswith('if __name__ == "__main__":')
    script = tmp_path / "ledger.py"
    script.write_text("\n".join(blocks), encoding="utf-8")  # in page order, as the page says to save them
    probe = textwrap.dedent(
        """
        import json, sys
        import anyio
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters
        from mcp_rendering import audit, client_extension, present

        async def main():
            server = StdioServerParameters(command=sys.executable, args=[sys.argv[1]])
            async with Client(server, extensions=[client_extension()]) as client:
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                statement = await client.call_tool("income_statement", {"company": "acme"})
                figures = await client.call_tool("key_figures", {"company": "acme"})
            verbatim = present(tools["income_statement"], statement, server="ledger")
            summarizable = present(tools["key_figures"], figures, server="ledger")
            print(json.dumps({
                "tool_meta": {name: tool.meta for name, tool in tools.items()},
                "result_meta": statement.meta,
                "modes": [verbatim.mode, summarizable.mode],
                "audit": audit(verbatim.text, statement, markup="text").format(),
                "figures": figures.content[0].text,
            }))

        anyio.run(main)
        """
    )
    done = _in_project_env(tmp_path, [sys.executable, "-c", probe, str(script)])
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["tool_meta"]["income_statement"][EXTENSION_ID] == {"verbatimHint": True}
    assert seen["tool_meta"]["key_figures"][EXTENSION_ID] == {"summarizeOkHint": True}
    assert seen["result_meta"][EXTENSION_ID] == {"mode": "verbatim", "complete": True}  # as the page's wire shows
    assert seen["modes"] == ["verbatim", "summarizable"]
    assert seen["audit"] == "fidelity: clean; score 1.000; 3/3 records intact; result complete; transcript read as text"
    assert seen["figures"] == "acme: revenue 1,200 EUR, up 4 % on the year"


PAGES_WITH_CODE_RUN = {
    "README.md": ("tests/test_docs_snippets.py", "test_the_readme_server_and_host_run_as_written"),
    "docs/get-started.md": ("tests/test_docs_snippets.py", "test_the_get_started_page_runs_as_written"),
    "docs/quickstart-server.md": ("tests/test_docs_snippets.py", "test_the_server_quickstart_runs"),
    "docs/host-guide.md": ("tests/test_docs_snippets.py", "test_the_host_guide_runs"),
    "docs/fastmcp.md": ("tests/test_docs_snippets.py", "test_the_fastmcp_page_makes_a_server"),
    "docs/langchain.md": ("tests/integrations/test_langchain.py", 'page_examples("langchain.md")'),
    "docs/openai-agents.md": ("tests/integrations/test_openai_agents.py", 'page_examples("openai-agents.md")'),
    "docs/google-adk.md": ("tests/integrations/test_google_adk.py", 'page_examples("google-adk.md")'),
    "docs/agno.md": ("tests/integrations/test_agno.py", 'page_examples("agno.md")'),
    "docs/strands.md": ("tests/integrations/test_strands.py", 'page_examples("strands.md")'),
    "docs/llama-index.md": ("tests/integrations/test_llama_index.py", 'page_examples("llama-index.md")'),
    "docs/semantic-kernel.md": ("tests/integrations/test_semantic_kernel.py", 'page_examples("semantic-kernel.md")'),
    "docs/haystack.md": ("tests/integrations/test_haystack.py", 'page_examples("haystack.md")'),
    "docs/crewai.md": ("tests/integrations/test_crewai.py", 'page_examples("crewai.md")'),
    "docs/pydantic-ai.md": ("tests/integrations/test_pydantic_ai.py", 'page_examples("pydantic-ai.md")'),
    "docs/autogen.md": ("tests/integrations/test_autogen.py", 'page_examples("autogen.md")'),
}
"""Every page that holds Python code, and the test that runs it (the adapters' pages in their frameworks'
environments, through scripts/test-integrations.sh)."""


def test_every_python_block_of_the_docs_is_run_by_a_test() -> None:
    pages = [README, *_hand_written_pages()]
    with_code = {path.relative_to(ROOT).as_posix() for path in pages if python_blocks(path)}
    assert with_code == set(PAGES_WITH_CODE_RUN), "a page's Python code is run by no test: add one here"
    for test_file, runner in PAGES_WITH_CODE_RUN.values():
        assert runner in (ROOT / test_file).read_text(encoding="utf-8"), (test_file, runner)


_PYPI_INSTALL = re.compile(r"pip install (?:--pre )?['\"]?mcp-rendering\b")
_FIRST_RELEASE = re.compile(r"first release", re.IGNORECASE)


def _paragraphs(text: str) -> list[str]:
    """Paragraphs and list items; a code block is a paragraph."""
    return [paragraph for paragraph in re.split(r"\n[ \t]*\n|\n(?=[-*] )", text) if paragraph.strip()]


def pypi_installs_offered_today(text: str) -> list[str]:
    """The paragraphs (a code block is one) that install this package from PyPI without saying that this works from
    the first release on: nothing is published until then."""
    return [p for p in _paragraphs(text) if _PYPI_INSTALL.search(p) and not _FIRST_RELEASE.search(p)]


@pytest.mark.parametrize(
    "page",
    [README, *_hand_written_pages()],
    ids=lambda path: path.relative_to(ROOT).as_posix(),
)
def test_no_page_offers_an_install_from_pypi_before_the_first_release(page: Path) -> None:
    assert pypi_installs_offered_today(page.read_text(encoding="utf-8")) == []


def test_the_install_check_tells_the_first_release_apart() -> None:
    assert pypi_installs_offered_today("```bash\npip install --pre mcp-rendering\n```\n") != []
    assert pypi_installs_offered_today("Run `pip install 'mcp-rendering[sdk]'`.\n") != []
    assert pypi_installs_offered_today("At the first release: `pip install --pre 'mcp-rendering[sdk]'`.\n") == []
    assert pypi_installs_offered_today("```bash\npip install -e '.[sdk]'\n```\n") == []
    assert pypi_installs_offered_today("- At the first release, yes.\n- `pip install mcp-rendering`\n") != []
