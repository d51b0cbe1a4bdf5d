"""The server quickstart's code runs as written: its blocks, joined in page order with stand-ins for the reader's
own data access, make a server whose paged verbatim tool and record resources work through a real client."""

from __future__ import annotations

import re
import runpy
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_rendering

QUICKSTART = Path(__file__).resolve().parents[1] / "docs" / "quickstart-server.md"

# What the page says the reader supplies: their data, their authentication, their authorization, their secret.
STAND_INS = textwrap.dedent(
    """
    import os
    os.environ.setdefault("CONTINUATION_SECRET", "a-secret-of-at-least-sixteen-bytes")
    from mcp_rendering.document import Document, Row, Section

    def load_hits(case):
        rows = tuple(Row(id=f"h{i}", label=f"Name {i}", values=(99 - i,)) for i in range(120))
        section = Section(id="s", title="Hits", columns=("score",), rows=rows)
        return Document(title=f"Hits of {case}", sections=(section,))

    def current_user(ctx):
        return "analyst"

    def may_read(caller, case):
        return caller == "analyst"
    """
)

EXERCISE = textwrap.dedent(
    """
    import anyio
    from mcp import Client

    async def exercise():
        async with Client(mcp) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            statement = await client.call_tool("income_statement", {"company": "acme"})
            first = await client.call_tool("screening_hits", {"case": "C-17"})
            links = [block for block in first.content if block.type == "resource_link"]
            record = await client.read_resource(links[0].uri)
            return names, statement, first, links, record

    OUTCOME = anyio.run(exercise)
    """
)


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    yield
    mcp_rendering.uninstall()


def test_the_server_quickstart_runs(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", QUICKSTART.read_text(), flags=re.S)
    server_blocks = [block for block in blocks if "MCPServer(" in block or "@mcp." in block]
    assert len(server_blocks) >= 3, "the quickstart lost its server code"
    script = tmp_path / "quickstart.py"
    script.write_text(STAND_INS + "\n".join(server_blocks) + EXERCISE)
    namespace: dict[str, Any] = runpy.run_path(str(script))
    names, statement, first, links, record = namespace["OUTCOME"]
    assert {"income_statement", "screening_hits"} <= names
    assert mcp_rendering.read_directive(statement) is not None
    assert first.structured_content["page"]["complete"] is False
    assert len(links) == 50
    assert '"id":"h0"' in record.contents[0].text.replace(" ", "")
