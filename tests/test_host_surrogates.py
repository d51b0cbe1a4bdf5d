"""A lone surrogate (JSON's "\\ud800" reads as one) anywhere in server text never makes `present()` raise: every
view shows it as an escape, as it shows other hidden characters, and the model's copy stays UTF-8 JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_rendering.builder import verbatim_result
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.integrations.answer import final_answer
from mcp_rendering.types import EXTENSION_ID

LONE = json.loads('"a\\ud800b"')
TOOL = {"name": "t", "inputSchema": {"type": "object"}, "_meta": {EXTENSION_ID: {"verbatimHint": True}}}
WHOLE = {EXTENSION_ID: {"mode": "verbatim", "complete": True}}


def _document_result() -> dict[str, Any]:
    document = Document(
        title=LONE,
        sections=(Section(id="s", title=LONE, columns=(LONE,), rows=(Row(id="r", label=LONE, values=(LONE,)),)),),
    )
    return verbatim_result(document).model_dump(mode="json", by_alias=True, exclude_none=True)


RESULTS = {
    "text block": {"content": [{"type": "text", "text": LONE}], "_meta": WHOLE},
    "cell": {"content": [], "structuredContent": {"rows": [{"k": LONE}]}, "_meta": WHOLE},
    "key": {"content": [], "structuredContent": {"rows": [{LONE: 1}]}, "_meta": WHOLE},
    "document": _document_result(),
    "guidance": {"content": [], "_meta": {EXTENSION_ID: {"mode": "verbatim", "guidance": LONE}}},
}


@pytest.mark.parametrize("forwards", [None, "text", "structured", "both"])
@pytest.mark.parametrize("max_bytes", [None, 60, 100_000])
@pytest.mark.parametrize("where", list(RESULTS))
def test_a_lone_surrogate_is_escaped_in_every_view_and_the_model_copy(
    where: str, max_bytes: int | None, forwards: Any
) -> None:
    presentation = present(TOOL, RESULTS[where], server=LONE, max_bytes=max_bytes, forwards=forwards)
    shown = [presentation.text, presentation.markdown, presentation.caption or "", presentation.notice or ""]
    shown.append(presentation.caption_markdown or "")
    for view in shown:
        view.encode()  # UTF-8: no lone surrogate left
    if where not in ("guidance", "key"):
        assert "\\ud800" in presentation.text
    forwarded = json.dumps(presentation.model_result, ensure_ascii=False)
    assert json.loads(forwarded.encode().decode()) == presentation.model_result
    if max_bytes is None and where != "guidance":
        assert "\\ud800" in forwarded


@pytest.mark.parametrize("where", list(RESULTS))
def test_a_final_answer_escapes_a_lone_surrogate(where: str) -> None:
    answer = final_answer(TOOL, RESULTS[where], server=LONE)
    answer.text.encode()
    answer.markdown.encode()
