"""The verbatim result builder: result shape, the directive's carriers, schemas, and a paged walk end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any

import anyio
import jsonschema
import mcp_types
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import ValidationError

import mcp_rendering
from mcp_rendering import patch
from mcp_rendering.builder import (
    VerbatimContent,
    error_result,
    output_schema,
    paged_result,
    text_framing,
    verbatim_result,
)
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.envelope import Budget, Envelope, RecordUris, read_record
from mcp_rendering.host import present
from mcp_rendering.render import render_text
from mcp_rendering.tokens import ContinuationTokens, Keyring
from mcp_rendering.types import (
    CONTINUATION_ID,
    EXTENSION_ID,
    PARTIAL_MARKER,
    RESULT_STRUCTURED_KEY,
    Rendering,
    ResultContinuation,
)

MERGED_SCHEMA = Path(__file__).resolve().parent.parent / "schema" / "merged" / "2026-07-28" / "schema.json"
URIS = RecordUris("ledger://statements/{statement}/rows/{row_id}")
GUIDANCE = "Show every line in order; nulls as 'n/a'."


@pytest.fixture(autouse=True)
def _clean_sdk() -> Iterator[None]:
    mcp_rendering.uninstall()
    yield
    mcp_rendering.uninstall()


def statement(rows: int = 40, memo: str = "note") -> Document:
    income = Section(
        id="income",
        title="Income",
        columns=("amount", "memo"),
        rows=tuple(Row(id=f"i{n}", label=f"Sale {n}", values=(n * 100, memo if n else None)) for n in range(rows)),
    )
    total = Section(
        id="totals",
        title="Totals",
        columns=("amount", "memo"),
        rows=(Row(id="t", label="Total", values=(sum(n * 100 for n in range(rows)), None), kind="total"),),
    )
    return URIS.assign(Document(title="Statement 2026-q1", sections=(income, total)), statement="2026-q1")


def envelope(max_bytes: int = 2000, max_field_bytes: int | None = None) -> Envelope:
    tokens = ContinuationTokens(Keyring.single(b"builder-test-key-0123456789"), clock=lambda: 1_800_000_000.0)
    return Envelope(
        tool="statement", tokens=tokens, budget=Budget(max_bytes=max_bytes, max_field_bytes=max_field_bytes)
    )


def wire(result: mcp_types.CallToolResult) -> dict[str, Any]:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_whole_document_result_shape() -> None:
    document = statement(3)
    result = verbatim_result(document, Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True))
    data = wire(result)
    structured = data["structuredContent"]
    assert set(structured) == {"document", "page", RESULT_STRUCTURED_KEY}
    assert Document.model_validate(structured["document"]) == document
    assert structured["page"] == {"complete": True, "returned": 4, "total": 4}
    directive = {"mode": "verbatim", "guidance": GUIDANCE, "nullDisplay": "n/a", "complete": True}
    assert structured[RESULT_STRUCTURED_KEY] == directive
    assert data["_meta"][EXTENSION_ID] == directive
    assert CONTINUATION_ID not in data["_meta"]
    assert data["isError"] is False
    [block] = data["content"]  # no per-record link unless asked: the URIs are in the structured records
    rows = [row for section in document.sections for row in section.rows]
    assert [row["uri"] for section in structured["document"]["sections"] for row in section["rows"]] == [
        row.uri for row in rows
    ]
    linked = wire(verbatim_result(document, record_links=True))["content"][1:]
    assert [(link["type"], link["uri"], link["name"]) for link in linked] == [
        ("resource_link", row.uri, row.id) for row in rows
    ]
    framing = text_framing(Rendering(mode="verbatim", guidance=GUIDANCE, null_display="n/a", complete=True), None, 4)
    assert block == {"type": "text", "text": f"{framing}\n\n{render_text(document, null_display='n/a')}"}
    lines = framing.splitlines()
    assert lines[0] == f"Rendering directive for this result ({EXTENSION_ID}):"
    assert lines[1].startswith("Mode: verbatim.")
    assert 'Null values are shown as "n/a".' in lines
    assert f"Guidance: {json.dumps(GUIDANCE)}" in lines
    assert lines[-1] == "Complete: all 4 records are in this result."
    assert PARTIAL_MARKER not in block["text"]


def test_incomplete_page_carries_complete_false_and_the_continuation_everywhere() -> None:
    document = statement()
    page = envelope().page(document, arguments={"statement": "2026-q1"}, caller="alice")
    assert not page.complete and page.next_token
    data = wire(verbatim_result(page, Rendering(mode="verbatim", guidance=GUIDANCE, complete=True)))
    expected = {"mode": "verbatim", "guidance": GUIDANCE, "complete": False}
    structured = data["structuredContent"]
    assert structured[RESULT_STRUCTURED_KEY] == expected == data["_meta"][EXTENSION_ID]
    # The envelope's clock reads 1_800_000_000 and its tokens live 900 s: the expiry signed into the token, in UTC.
    continuation = {"argument": "cursor", "token": page.next_token, "expiresAt": "2027-01-15T08:15:00Z"}
    assert data["_meta"][CONTINUATION_ID] == continuation
    assert (
        envelope()
        .tokens.verify(
            page.next_token,
            tool="statement",
            arguments={"statement": "2026-q1"},
            caller="alice",
            exclude_argument="cursor",
        )
        .expires_at
        == page.expires_at
        == 1_800_000_900
    )
    ResultContinuation.model_validate(continuation)  # the schema's pattern for expiresAt
    assert structured["page"]["nextToken"] == page.next_token
    assert structured["page"]["complete"] is False
    text = data["content"][0]["text"]
    framing, rendering = text.split("\n\n", 1)
    assert rendering.startswith(render_text(page.document))
    notice = framing.splitlines()[-1]
    assert notice.startswith(f"{PARTIAL_MARKER} this page holds {page.returned} of {page.total} records")
    assert f'"cursor": "{page.next_token}"' in notice


def test_a_page_brings_its_own_continuation_and_a_partial_one_is_never_sent_complete() -> None:
    whole = envelope(max_bytes=100_000).page(statement(3), arguments={}, caller="alice")
    with pytest.raises(ValueError, match="a page brings its own continuation"):
        verbatim_result(
            whole, continuation=ResultContinuation(argument="cursor", token="old", expires_at="2026-12-02T10:00:00Z")
        )
    sent = wire(verbatim_result(whole, Rendering(mode="verbatim", complete=True)))["_meta"]
    assert sent == {EXTENSION_ID: {"mode": "verbatim", "complete": True}}
    part = envelope().page(statement(), arguments={}, caller="alice")
    assert (
        wire(verbatim_result(part, Rendering(mode="verbatim", complete=True)))["_meta"][EXTENSION_ID]["complete"]
        is False
    )


def test_a_whole_document_can_say_that_more_records_exist() -> None:
    """A server that returns the top rows of a larger set says so: the directive keeps `complete: false` (and a
    continuation, if it gives one) in every channel, and no channel calls the result complete."""
    document = statement(3)
    for directive, follow in [
        (Rendering(mode="verbatim", complete=False), "The server offers no way to fetch the rest here."),
        (
            Rendering(complete=True),
            'To continue, call this tool again with the same arguments plus {"cursor": "top-3.more"}.',
        ),
    ]:
        continuation = (
            None
            if "cursor" not in follow
            else ResultContinuation(argument="cursor", token="top-3.more", expires_at="2999-01-01T00:00:00Z")
        )
        data = wire(verbatim_result(document, directive, continuation=continuation))
        sent = data["_meta"][EXTENSION_ID]
        assert sent["mode"] == "verbatim" and sent["complete"] is False
        assert data["structuredContent"]["page"]["complete"] is False
        assert data["structuredContent"][RESULT_STRUCTURED_KEY] == sent
        text = data["content"][0]["text"]
        assert f"{PARTIAL_MARKER} this result holds 4 records; more follow. {follow}" in text
        assert "Complete:" not in text
        presentation = present(None, data)
        assert not presentation.complete and presentation.notice is not None


def test_the_text_writes_out_the_mode_that_is_sent() -> None:
    document = statement(2)
    guidance_only = wire(verbatim_result(document, Rendering(guidance="Every row.", complete=True)))
    assert guidance_only["_meta"][EXTENSION_ID]["mode"] == "verbatim"
    assert "\nMode: verbatim. Show this result" in guidance_only["content"][0]["text"]
    unregistered = wire(verbatim_result(document, Rendering(mode="tabular", complete=True)))
    assert unregistered["_meta"][EXTENSION_ID]["mode"] == "tabular"
    assert '\nMode: "tabular", not a registered mode, so read as verbatim.' in unregistered["content"][0]["text"]
    summarizable = wire(verbatim_result(document, Rendering(mode="summarizable", complete=True)))
    assert "\nMode: summarizable. This result may be summarized" in summarizable["content"][0]["text"]


def test_record_links_and_field_links_are_resource_link_blocks() -> None:
    document = statement(5, memo="m" * 400)
    page = envelope(max_bytes=100_000, max_field_bytes=100).page(document, arguments={}, caller="alice")
    blocks = wire(verbatim_result(page, record_links=True))["content"]
    links = [block for block in blocks if block["type"] == "resource_link"]
    record_uris = [row.uri for section in document.sections for row in section.rows]
    field_uris = [URIS.field_uri(URIS.record_uri(f"i{n}", statement="2026-q1"), 1) for n in range(1, 5)]
    assert [link["uri"] for link in links] == record_uris + field_uris
    assert {link["name"] for link in links[: len(record_uris)]} == {
        row_id for row_id in ("i0", "i1", "i2", "i3", "i4", "t")
    }
    without = wire(verbatim_result(page))["content"]  # by default only what is too large to embed is linked
    assert [block["uri"] for block in without if block["type"] == "resource_link"] == field_uris
    assert "read it at " + field_uris[0] in without[0]["text"]


def test_structured_content_validates_against_the_output_schema() -> None:
    schema = output_schema()
    assert schema["type"] == "object"
    assert RESULT_STRUCTURED_KEY in schema["properties"]
    # The copy is declared but optional: a result without it (a tool error, an older server) still validates.
    assert set(schema["required"]) == {"document", "page"}
    document = statement(30, memo="m" * 300)
    pages = [
        envelope(max_field_bytes=100).page(document, arguments={}, caller="alice"),
        envelope(max_bytes=100_000).page(document, arguments={}, caller="alice"),
    ]
    for content in [document, *pages]:
        structured = wire(verbatim_result(content, Rendering(mode="verbatim", complete=True)))["structuredContent"]
        jsonschema.validate(structured, schema)
        assert VerbatimContent.model_validate(structured).page.complete is (content is not pages[0])
    good = wire(verbatim_result(document))["structuredContent"]
    del good[RESULT_STRUCTURED_KEY]
    jsonschema.validate(good, schema)
    # What the schema checks: the envelope's parts, each section an object with an id and a title, and the page
    # state; not a section's other members, nor a row's (described in words).
    unchecked = json.loads(json.dumps(good))
    unchecked["document"]["sections"][0]["rows"] = 7
    jsonschema.validate(unchecked, schema)
    for path, value in [
        (("page", "complete"), "no"),
        (("page", "returned"), -1),
        (("document", "title"), None),
        (("document", "sections"), {}),
        (("document", "sections"), [42]),
        (("document", "sections"), [None]),
        (("document", "sections"), [{"rows": []}]),
        ((RESULT_STRUCTURED_KEY,), "verbatim"),
    ]:
        broken = json.loads(json.dumps(good))
        parent = broken
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("page", "complete"), 1),  # was True: equal as a dict value, not a boolean
        (("page", "returned"), 4.0),  # was 4: equal as a dict value, not an integer
        (("page", "complete"), 1.0),
    ],
)
def test_built_content_changed_to_an_equal_value_of_another_type_is_validated_in_full(
    path: tuple[str, ...], value: object
) -> None:
    document = statement(3)
    structured = verbatim_result(document, Rendering(mode="verbatim", complete=True)).structured_content
    assert structured is not None
    returned = structured["page"]["returned"]
    assert VerbatimContent.model_validate(structured).page.returned == returned  # unchanged: the sealed path
    parent: Any = structured
    for key in path[:-1]:
        parent = parent[key]
    assert parent[path[-1]] == value
    parent[path[-1]] = value
    with pytest.raises(ValidationError):
        VerbatimContent.model_validate(structured)


def test_unpatched_sdk_keeps_only_the_meta_mirror() -> None:
    result = verbatim_result(statement(2), Rendering(mode="verbatim", complete=True))
    assert "rendering" not in type(result).model_fields
    data = wire(result)
    assert "_rendering" not in data
    assert data["_meta"][EXTENSION_ID] == {"mode": "verbatim", "complete": True}


def test_the_core_form_needs_the_patch() -> None:
    with pytest.raises(RuntimeError, match="install"):
        verbatim_result(statement(2), core_form=True)
    with patch.installed():
        assert "_rendering" not in wire(verbatim_result(statement(2)))  # sent only on request


def test_patched_sdk_types_the_core_form_and_validates_against_the_merged_schema() -> None:
    assert MERGED_SCHEMA.exists(), "the merged 2026-07-28 schema is generated by scripts/gen_schema.py"
    schema = json.loads(MERGED_SCHEMA.read_text())
    document = statement()
    page = envelope().page(document, arguments={}, caller="alice")
    with patch.installed():
        result = verbatim_result(
            page, Rendering(mode="verbatim", guidance=GUIDANCE, complete=True), record_links=True, core_form=True
        )
        rendering: Any = getattr(result, "rendering", None)
        assert rendering == {"mode": "verbatim", "guidance": GUIDANCE, "complete": False}  # kept as the wire value
        data = wire(result)
    assert data["_meta"][CONTINUATION_ID]["token"] == page.next_token
    assert data["_rendering"] == data["_meta"][EXTENSION_ID] == data["structuredContent"][RESULT_STRUCTURED_KEY]
    validator = jsonschema.Draft202012Validator({**schema, "$ref": "#/$defs/CallToolResult"})
    validator.validate(data)
    data["_rendering"]["complete"] = "no"
    assert not validator.is_valid(data)


def test_paged_result_turns_refusals_into_tool_errors() -> None:
    env = envelope()
    document = statement()
    first = paged_result(env, document, arguments={"statement": "2026-q1"}, caller="alice")
    token = wire(first)["structuredContent"]["page"]["nextToken"]
    for arguments, caller, changed, phrase in [
        ({"statement": "2026-q1", "cursor": token}, "mallory", document, "another caller"),
        ({"statement": "2026-q2", "cursor": token}, "alice", document, "different arguments"),
        ({"statement": "2026-q1", "cursor": token}, "alice", statement(41), "narrow the request"),
        ({"statement": "2026-q1", "cursor": "garbage"}, "alice", document, "malformed"),
    ]:
        result = paged_result(env, changed, arguments=arguments, caller=caller)
        data = wire(result)
        assert data["isError"] is True and "structuredContent" not in data
        assert phrase in data["content"][0]["text"]
    assert wire(error_result("stop"))["content"] == [{"type": "text", "text": "stop"}]


def build_server(document: Document, env: Envelope, *, core_form: bool = False) -> MCPServer:
    server = MCPServer("ledger")

    def load(params: Mapping[str, str], caller: str) -> Document | None:
        return document if params.get("statement") == "2026-q1" and caller == "alice" else None

    @server.tool()
    def statement_lines(
        statement: str, cursor: str | None = None
    ) -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        """Every line of a statement, in pages."""
        return paged_result(
            env,
            document,
            arguments={"statement": statement, "cursor": cursor},
            caller="alice",
            directive=Rendering(mode="verbatim", guidance=GUIDANCE, complete=True),
            record_links=True,
            core_form=core_form,
        )

    @server.resource(URIS.template, mime_type="application/json")
    def statement_row(statement: str, row_id: str) -> str:
        """One statement line."""
        uri = URIS.record_uri(row_id, statement=statement)
        return read_record(uri, uris=URIS, load=load, caller="alice").text

    return server


async def walk_over_client(server: MCPServer) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any]:
    structured: list[dict[str, Any]] = []
    directives: list[dict[str, Any]] = []
    async with Client(server) as client:
        tools = await client.list_tools()
        (tool,) = tools.tools
        arguments: dict[str, Any] = {"statement": "2026-q1"}
        for _ in range(50):
            result = await client.call_tool("statement_lines", arguments)
            assert not result.is_error
            data = wire(result)
            structured.append(data["structuredContent"])
            directive = data["_meta"][EXTENSION_ID]
            directives.append(directive)
            if directive["complete"]:
                assert CONTINUATION_ID not in data["_meta"]
                break
            continuation = data["_meta"][CONTINUATION_ID]
            arguments = {"statement": "2026-q1", continuation["argument"]: continuation["token"]}
        record = await client.read_resource(URIS.record_uri("i7", statement="2026-q1"))
    return structured, directives, (tool, record)


def test_end_to_end_walk_over_a_real_client() -> None:
    document = statement(60)
    env = envelope(max_bytes=3000)
    structured, directives, (tool, record) = anyio.run(walk_over_client, build_server(document, env))
    assert tool.output_schema is not None
    assert RESULT_STRUCTURED_KEY in tool.output_schema["properties"]
    assert len(structured) > 2
    walked = [
        row["id"] for content in structured for section in content["document"]["sections"] for row in section["rows"]
    ]
    assert walked == [row.id for section in document.sections for row in section.rows]
    assert [content[RESULT_STRUCTURED_KEY] for content in structured] == directives
    assert all(d["complete"] is False for d in directives[:-1]) and directives[-1]["complete"] is True
    (contents,) = record.contents
    assert isinstance(contents, mcp_types.TextResourceContents)
    assert json.loads(contents.text)["row"] == document.sections[0].rows[7].model_dump(mode="json")


def test_end_to_end_patched_client_receives_the_typed_directive() -> None:
    async def first_result() -> Any:
        async with Client(build_server(statement(60), envelope(max_bytes=3000), core_form=True)) as client:
            return await client.call_tool("statement_lines", {"statement": "2026-q1"})

    with patch.installed():
        result = anyio.run(first_result)
        rendering: Any = getattr(result, "rendering", None)
        effective = mcp_rendering.resolve_rendering(None, result, core_form=True)
    assert rendering == {"mode": "verbatim", "guidance": GUIDANCE, "complete": False}
    assert effective.completeness == "incomplete"
    assert result.meta is not None and result.meta[CONTINUATION_ID]["argument"] == "cursor"


def test_the_output_schema_is_self_contained() -> None:
    """Clients that compile `outputSchema` as draft-07 cannot resolve `$defs`; the schema must need none."""
    schema = output_schema()
    assert "$defs" not in schema and "$ref" not in json.dumps(schema)

    def object_valued_additional_properties(node: Any) -> bool:
        if isinstance(node, dict):
            if isinstance(node.get("additionalProperties"), dict):
                return True
            return any(object_valued_additional_properties(value) for value in node.values())
        return isinstance(node, list) and any(object_valued_additional_properties(item) for item in node)

    assert not object_valued_additional_properties(schema)
    assert {"document", "page", "_rendering"} <= set(schema["properties"])

    server = MCPServer("schema")

    @server.tool()
    def statement() -> Annotated[mcp_types.CallToolResult, VerbatimContent]:
        raise NotImplementedError

    async def published() -> dict[str, Any]:
        (tool,) = await server.list_tools()
        assert tool.output_schema is not None
        return tool.output_schema

    assert anyio.run(published) == schema


def test_a_continuation_given_with_a_document_is_checked_as_it_would_be_sent() -> None:
    """A server always states the token's expiry: one built without validation, and without it, is refused."""
    unchecked = ResultContinuation.model_construct(argument="cursor", token="t2")
    with pytest.raises(ValueError, match="expiresAt"):
        verbatim_result(statement(3), Rendering(mode="verbatim", complete=False), continuation=unchecked)
    stated = ResultContinuation(argument="cursor", token="t2", expires_at="2999-01-01T00:00:00Z")
    sent = wire(verbatim_result(statement(3), Rendering(mode="verbatim", complete=False), continuation=stated))
    assert sent["_meta"][CONTINUATION_ID] == {"argument": "cursor", "token": "t2", "expiresAt": "2999-01-01T00:00:00Z"}


@pytest.mark.parametrize("flag", ["record_links", "core_form"])
@pytest.mark.parametrize("value", ["no", 0, 1, None, "false"])
def test_a_switch_of_the_builders_is_a_bool(flag: str, value: Any) -> None:
    switch: dict[str, Any] = {flag: value}
    with pytest.raises(TypeError, match=rf"^{flag} must be True or False, not "):
        verbatim_result(statement(3), **switch)
    with pytest.raises(TypeError, match=rf"^{flag} must be True or False, not "):
        paged_result(envelope(), statement(3), arguments={"statement": "2026-q1"}, caller="alice", **switch)
