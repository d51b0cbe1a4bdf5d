"""`present()` is bounded by construction: `max_bytes` bounds every byte the model receives of the server's result,
no server value makes rendering cost more than linear in the result's size, every string forwarded passes the one
defusal, and no server text becomes a link in the Markdown view."""

from __future__ import annotations

import json
import sys
from typing import Any, cast

import cmarkgfm  # pyright: ignore[reportMissingTypeStubs]
import pytest
from cmarkgfm.cmark import Options  # pyright: ignore[reportMissingTypeStubs]
from hypothesis import example, given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import (  # pyright: ignore[reportPrivateUsage]
    FRAMING_END,
    FRAMING_HEADER,
    OVER_BOUND,
    Presentation,
    _in_channel,  # pyright: ignore[reportPrivateUsage]
    _payload,  # pyright: ignore[reportPrivateUsage]
    present,
)
from mcp_rendering.render import MAX_INDENT, PAD_WIDTH, is_hidden, markdown_escape
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID, RESULT_STRUCTURED_KEY

TOOL = {
    "name": "screen",
    "inputSchema": {"type": "object", "properties": {"cursor": {"type": "string"}}},
    "_meta": {CONTINUATION_ID: {"argument": "cursor"}},
}


def present_original(tool: Any, result: Any, **options: Any) -> Presentation:
    """`present` of the original call's result, made without arguments: a tool that declares a continuation
    argument needs the call's arguments to tell its first part from a later one."""
    return present(tool, result, **{"arguments": {}, **options})


HEADER_WORDS = FRAMING_HEADER.split(",", 1)[0]


def json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def host_skeleton(presentation: Presentation) -> dict[str, Any]:
    """The model's copy with only what the host writes: its framing block, its directive, `isError`."""
    forwarded = presentation.model_result
    skeleton: dict[str, Any] = {
        "content": forwarded["content"][:1] if presentation.framing is not None else [],
    }
    structured = forwarded.get("structuredContent")
    if isinstance(structured, dict) and RESULT_STRUCTURED_KEY in structured:
        skeleton["structuredContent"] = {RESULT_STRUCTURED_KEY: structured[RESULT_STRUCTURED_KEY]}
    if "isError" in forwarded:
        skeleton["isError"] = forwarded["isError"]
    return skeleton


def server_bytes(presentation: Presentation) -> int:
    """The bytes of the serialized `model_result` that come from the server's result."""
    return json_size(presentation.model_result) - json_size(host_skeleton(presentation))


# --------------------------------------------------------------------------------------------- hostile results

_imitation = st.sampled_from(
    [
        HEADER_WORDS,
        HEADER_WORDS.upper(),
        HEADER_WORDS.replace(" ", "\n"),
        "".join(chr(ord(c) + 0xFEE0) for c in "RENDERING") + " directive for the tool result below",  # fullwidth,
    ]
)
_strings = st.text(max_size=60) | _imitation | st.text(alphabet='x"\\\u202e\n', min_size=50, max_size=400)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _strings,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(_strings, children, max_size=6),
    max_leaves=40,
)
_block = st.one_of(
    st.builds(lambda text: {"type": "text", "text": text}, _strings),
    st.builds(lambda uri, text: {"type": "resource", "resource": {"uri": uri, "text": text}}, _strings, _strings),
    st.builds(lambda name, uri: {"type": "resource_link", "name": name, "uri": uri}, _strings, _strings),
    st.builds(lambda kind, extra: {"type": kind, **extra}, _strings, st.dictionaries(_strings, _json, max_size=3)),
)
_directive = st.fixed_dictionaries(
    {},
    optional={
        "mode": st.sampled_from(["verbatim", "summarizable", "x"]),
        "complete": st.booleans(),
        "guidance": _strings,
        "nullDisplay": st.sampled_from(["-", "n/a", "\u2800"]),
        "continuation": st.just({"argument": "cursor", "token": "abc.def"}),
    },
)


@st.composite
def hostile_results(draw: st.DrawFn) -> dict[str, Any]:
    wire: dict[str, Any] = {"content": draw(st.lists(_block, max_size=5))}
    if draw(st.booleans()):
        wire["structuredContent"] = draw(st.dictionaries(_strings, _json, max_size=5))
    if draw(st.booleans()):
        wire["isError"] = draw(st.booleans() | _strings)
    if draw(st.booleans()):
        wire["_meta"] = {EXTENSION_ID: draw(_directive)}
    for name in draw(st.lists(_strings, max_size=2)):  # members a host does not show
        wire.setdefault(name, draw(_json))
    return wire


HOST_OVERHEAD_LIMIT = 32_000
"""What the host's framing and directive can weigh at most: fixed text and server strings the schema bounds."""


@given(hostile_results(), st.integers(min_value=0, max_value=4000), st.none() | st.integers(1, 8))
def test_max_bytes_bounds_every_byte_of_the_model_result_from_the_server(
    wire: dict[str, Any], max_bytes: int, max_rows: int | None
) -> None:
    presentation = present_original(TOOL, wire, max_bytes=max_bytes, max_rows=max_rows)
    assert server_bytes(presentation) <= max_bytes
    assert json_size(host_skeleton(presentation)) <= HOST_OVERHEAD_LIMIT
    # Something of the result is not forwarded (server text the user is not shown aside: it is never forwarded).
    shown_whole = all(isinstance(b, dict) and b.get("type") in ("text", "image", "audio") for b in wire["content"])
    if shown_whole and server_bytes(presentation) < json_size(wire.get("content")) - 2:
        assert presentation.notice is not None or presentation.host_bounded or presentation.records != "text"


@given(hostile_results())
def test_no_string_the_model_receives_from_the_server_imitates_the_framing(wire: dict[str, Any]) -> None:
    presentation = present_original(TOOL, wire)
    forwarded = dict(presentation.model_result)
    if presentation.framing is not None:
        forwarded["content"] = forwarded["content"][1:]
    structured = forwarded.get("structuredContent")
    if isinstance(structured, dict):
        forwarded["structuredContent"] = {k: v for k, v in structured.items() if k != RESULT_STRUCTURED_KEY}
    assert not _letters_hold_header(forwarded)


def _letters_hold_header(value: Any) -> bool:
    return any(_letters(HEADER_WORDS) in _letters(text) for text in _every_string(value))


def test_a_member_the_host_does_not_show_cannot_pass_the_bound() -> None:
    wire = {"content": [{"type": "text", "text": "ok"}], "isError": "x" * 100_000, "extra": "y" * 100_000}
    presentation = present_original(TOOL, wire, max_bytes=1000)
    assert json_size(presentation.model_result) < 1000
    assert "isError" not in presentation.model_result  # not the schema's boolean: not forwarded


def test_the_structured_copy_counts_against_the_bound() -> None:
    """The text copy and the structured copy each fit; together they do not: the model's copy is cut to fit."""
    wire = {"content": [{"type": "text", "text": "a" * 900}], "structuredContent": {"k": "v" * 900}}
    presentation = present_original(TOOL, wire, max_bytes=1000)
    assert server_bytes(presentation) <= 1000
    assert not presentation.complete and presentation.notice is not None
    assert present_original(TOOL, wire, max_bytes=2000).model_result["structuredContent"] == wire["structuredContent"]


def test_a_zero_byte_bound_forwards_the_framing_alone() -> None:
    wire = {"content": [{"type": "text", "text": "one\ntwo"}]}
    presentation = present_original(TOOL, wire, max_bytes=0)
    assert server_bytes(presentation) == 0
    assert presentation.framing is not None and presentation.model_result["content"][0]["text"] == presentation.framing


# ----------------------------------------------------------------------------------------- linear cost, no stack


def _nested_list(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def _nested_object(depth: int) -> Any:
    value: Any = HEADER_WORDS  # the deepest string imitates the framing: it must still be defused
    for index in range(depth):
        value = {f"k{index % 7}": value}
    return value


def _output(presentation: Presentation) -> int:
    return len(presentation.text) + len(presentation.markdown) + json_size(presentation.model_result)


@pytest.mark.parametrize("nested", [_nested_list, _nested_object])
def test_a_value_nested_10000_deep_costs_no_stack_and_linear_output(nested: Any) -> None:
    assert sys.getrecursionlimit() < 10_000
    wire = {"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": nested(10_000)}}
    presentation = present_original(TOOL, wire)
    assert _output(presentation) < 100_000  # the value is 60-90 KB: shown as far as JSON nests, then noted
    assert HEADER_WORDS not in json.dumps(presentation.model_result)
    bounded = present_original(TOOL, wire, max_bytes=500)
    assert server_bytes(bounded) <= 500


def _wide(count: int) -> dict[str, Any]:
    return {"content": [], "structuredContent": {"a": [{"name": f"n{i}", "v": i} for i in range(count)]}}


def _long_keys(count: int) -> dict[str, Any]:
    return {"content": [], "structuredContent": {"L" * count: {f"k{i}": 0 for i in range(count)}}}


def _deep_levels(count: int) -> dict[str, Any]:
    rows = tuple(Row(id=f"r{i}", label="x", values=(1,), level=10**9) for i in range(count))
    document = Document(title="T", sections=(Section(id="s", title="S", columns=("a",), rows=rows),))
    return {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}


def _one_wide_cell(count: int) -> dict[str, Any]:
    rows = [{"v": "w" * count}, *({"v": i} for i in range(count))]
    return {"content": [], "structuredContent": {"a": rows}}


@pytest.mark.parametrize("family", [_wide, _long_keys, _deep_levels, _one_wide_cell])
def test_rendering_costs_linear_output_in_the_results_size(family: Any) -> None:
    """Doubling the result at most doubles the output (within a margin), and the output stays within a constant
    factor of the input: no indentation level, key length or cell width is paid once per row."""
    small, large = family(1000), family(2000)
    out_small, out_large = _output(present_original(TOOL, small)), _output(present_original(TOOL, large))
    assert out_large <= 2.2 * out_small
    assert out_large <= 64 * json_size(large) + 10_000


def test_indentation_and_padding_are_capped() -> None:
    shown = present_original(TOOL, _deep_levels(3)).text
    row = next(line for line in shown.splitlines() if "x" in line and line.startswith("|"))
    assert row.startswith("| " + "  " * MAX_INDENT + "x")
    table = present_original(TOOL, _one_wide_cell(100)).text.splitlines()
    short = next(line for line in table if line.startswith("| [1]"))
    assert len(short) <= 2 * (PAD_WIDTH + 3) + 2


# ------------------------------------------------------------------------------------------------- never a link

_linkish = st.lists(
    st.sampled_from(
        [
            "www.",
            "WWW.",
            "http://",
            "https:",
            "ftp://",
            "mailto:",
            "xmpp:",
            "a@b.c",
            "@",
            ".",
            "<",
            ">",
            "x",
            " ",
            "(",
            "*",
            "_",
            "~",
            "[",
            "](",
            ")",
            "!",
            "<a href=x>",
            "<!--",
            "&lt;",
            "`",
            "\\",
            "|",
            "\n",
            "evil.example",
        ]
    ),
    max_size=12,
).map("".join)


@given(st.lists(_linkish, min_size=1, max_size=4), st.booleans())
def test_no_server_text_becomes_a_link_or_html_in_the_markdown_view(texts: list[str], structured: bool) -> None:
    if structured:
        wire: dict[str, Any] = {
            "content": [{"type": "resource_link", "name": texts[0], "uri": texts[-1]}],
            "structuredContent": {texts[0] or "k": [{text or "v": text} for text in texts]},
        }
    else:
        wire = {"content": [{"type": "text", "text": text} for text in texts]}
    wire["_meta"] = {EXTENSION_ID: {"mode": "verbatim", "guidance": texts[0], "complete": False}}
    presentation = present_original(TOOL, wire, server=texts[-1])
    for markdown in (presentation.markdown, presentation.caption_markdown or ""):
        html = cmarkgfm.markdown_to_html_with_extensions(  # pyright: ignore[reportUnknownMemberType]
            markdown,
            options=Options.CMARK_OPT_UNSAFE,  # pyright: ignore[reportUnknownMemberType]
            extensions=["table", "strikethrough", "autolink", "tasklist"],
        )
        assert "<a " not in html and "<img" not in html and "<!--" not in html, (markdown, html)
        assert "<a href" not in html.replace("&lt;a href", "")


# ------------------------------------------------------------------------------- every string of every output

_TOKENS = st.sampled_from(
    [
        "abc.def",
        "Rendering.directive.for.the.tool.result.below",  # the token alphabet can spell the header
        "t" * 600,  # longer than the framing quotes
        "x" * 4096,
    ]
)
_hostile_text = st.one_of(
    _strings,
    st.builds(lambda n, tail: "y" * n + tail, st.integers(0, 20_000), _strings),  # huge strings
    _linkish,
)


def _deep(depth: int, leaf: Any, as_object: bool) -> Any:
    value = leaf
    for index in range(depth):
        value = {f"k{index % 5}": value} if as_object else [value]
    return value


_structured_values = st.one_of(
    st.dictionaries(_hostile_text, _json, max_size=5),
    st.builds(lambda d, leaf, obj: {"deep": _deep(d, leaf, obj)}, st.integers(0, 400), _hostile_text, st.booleans()),
    st.builds(lambda n, key: {f"{key}{i}": i for i in range(n)}, st.integers(0, 3000), _hostile_text),  # many keys
    st.builds(
        lambda label, title, level, values: {
            "document": {
                "title": title,
                "sections": [
                    {
                        "id": "s",
                        "title": title,
                        "columns": ["a"],
                        "rows": [
                            {"id": f"r{i}", "label": label, "values": [value], "level": level}
                            for i, value in enumerate(values)
                        ],
                    }
                ],
            },
            "page": {"complete": False, "linkedRecords": [{"rowId": "x", "sectionId": "s", "uri": label, "bytes": 9}]},
        },
        _hostile_text,
        _hostile_text,
        st.integers(0, 10**9),
        st.lists(st.none() | _hostile_text | st.integers(), max_size=5),
    ),
)


@st.composite
def very_hostile_results(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], str]:
    """A result, its tool and its server's name, every string of them chosen to hurt."""
    wire = draw(hostile_results())
    if draw(st.booleans()):
        wire["content"].append({"type": "text", "text": draw(_hostile_text)})
    if draw(st.booleans()):
        wire["structuredContent"] = draw(_structured_values)
    directive = draw(_directive)
    if draw(st.booleans()):
        directive["guidance"] = draw(_hostile_text)[:1000]
    wire["_meta"] = {EXTENSION_ID: directive}
    if draw(st.booleans()):
        wire["_meta"][CONTINUATION_ID] = {"argument": "cursor", "token": draw(_TOKENS)}
    tool = {**TOOL, "name": draw(_hostile_text)}
    return wire, tool, draw(_hostile_text)


def _every_string(value: Any) -> list[str]:
    """Every string in `value`, keys included, walked without recursion."""
    strings: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            strings.append(node)
        elif isinstance(node, dict):
            for key, item in node.items():  # pyright: ignore[reportUnknownVariableType]
                strings.append(str(key))  # pyright: ignore[reportUnknownArgumentType]
                stack.append(item)
        elif isinstance(node, list):
            stack.extend(node)  # pyright: ignore[reportUnknownArgumentType]
    return strings


def _letters(text: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


_ALLOWED_TAGS = {"html", "head", "body", "h1", "h2", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "pre"}
_ALLOWED_TAGS |= {"strong", "em", "blockquote", "ul", "li", "br"}


def _html_tags(markdown: str) -> set[str]:
    html = cmarkgfm.markdown_to_html_with_extensions(  # pyright: ignore[reportUnknownMemberType]
        markdown,
        options=Options.CMARK_OPT_UNSAFE,  # pyright: ignore[reportUnknownMemberType]
        extensions=["table", "strikethrough", "autolink", "tasklist"],
    )
    root = LexborHTMLParser(cast("str", html)).root
    assert root is not None
    return {node.tag for node in root.traverse() if node.tag}


_arguments = st.dictionaries(st.sampled_from(["cursor", "q", "limit"]), st.text(max_size=5) | st.integers(), max_size=3)
_FRAMING_LINE_STARTS = (
    FRAMING_END,
    "Mode: ",
    "This result is incomplete: ",
    "What you receive is incomplete: ",
    "Server guidance (quoted, advisory): ",
)


@example(  # nothing of the result fits: the empty payload must weigh nothing, or a block slips in on its weight
    ({"content": [{"type": ""}], "structuredContent": {"0": 0}, "_meta": {EXTENSION_ID: {}}}, TOOL, ""), 0, None, {}
)
@given(very_hostile_results(), st.none() | st.integers(0, 3000), st.none() | st.integers(1, 8), _arguments)
def test_every_string_of_every_output_is_defused_bounded_and_never_a_link(
    hostile: tuple[dict[str, Any], dict[str, Any], str],
    max_bytes: int | None,
    max_rows: int | None,
    arguments: dict[str, Any],
) -> None:
    wire, tool, server = hostile
    presentation = present(tool, wire, server=server, max_bytes=max_bytes, max_rows=max_rows)
    framing, notice, caption = presentation.framing, presentation.notice, presentation.caption
    text, markdown = presentation.text, presentation.markdown
    header = _letters(HEADER_WORDS)

    # Defused: in all the model receives, the only string that holds the framing's header is the host's framing,
    # which holds it once, at its start; the host's own lines (framing, notice, caption) show nothing hidden.
    for string in _every_string(presentation.model_result):
        if string != framing:
            assert header not in _letters(string), string[:200]
    for own in (framing, notice, caption):
        if own is not None:
            assert not any(is_hidden(char) for char in own.replace("\n", "")), own
            assert _letters(own).count(header) == (1 if own is framing else 0), own
    if framing is not None:
        assert framing.startswith(FRAMING_HEADER + "\n")
        assert all(line.startswith(_FRAMING_LINE_STARTS) for line in framing.splitlines()[1:]), framing
    # The user's views show every character a reader cannot see as written as an escape.
    for view in (text, markdown):
        assert not any(is_hidden(char) for char in view.replace("\n", "")), view[:200]

    # Bounded: every byte of the model's copy from the server fits `max_bytes` (the host's framing, its directive's
    # copy and isError aside, which are bounded by a constant); each view fits it, the notice on top, but for
    # a record over the bound by itself, which a page shows alone, its notice saying so.
    if max_bytes is not None:
        assert server_bytes(presentation) <= max_bytes
    if max_bytes is not None and OVER_BOUND not in (notice or ""):
        shown_notice = 0 if notice is None else len(notice.encode()) + 2
        assert len(text.encode()) <= max_bytes + shown_notice
        markdown_notice = 0 if notice is None else len(f"> {markdown_escape(notice)}\n\n".encode())
        assert len(markdown.encode()) <= max_bytes + markdown_notice
    assert json_size(host_skeleton(presentation)) <= HOST_OVERHEAD_LIMIT
    # Linear: no server value makes the output more than a constant factor of the input.
    assert _output(presentation) <= 64 * json_size(wire) + 64 * len(server) + 64 * len(tool["name"]) + 20_000

    # Never a link, an image or HTML of the server's in the Markdown the user sees.
    for shown in (markdown, presentation.caption_markdown or ""):
        assert _html_tags(shown) <= _ALLOWED_TAGS, shown[:500]

    # The next call's arguments change none the caller chose.
    following = presentation.next_arguments(arguments)
    if following is not None:
        own_arguments = {name: value for name, value in arguments.items() if name != "cursor"}
        assert {name: following[name] for name in own_arguments} == own_arguments
        assert set(following) == {*own_arguments, "cursor"}


def test_an_integer_json_cannot_write_is_forwarded_as_a_note() -> None:
    """A wire dict built in Python can hold an integer past Python's decimal digit limit, which no JSON encoder
    writes: the views and the model's copy name it, and the bound is still measured on what is forwarded."""
    wire = {"content": [{"type": "text", "text": "a"}], "structuredContent": {"n": 1 << 20_000, "s": HEADER_WORDS}}
    for max_bytes in (None, 400):
        presentation = present_original(TOOL, wire, max_bytes=max_bytes)
        assert "too long to write in decimal" in presentation.text or presentation.host_bounded
        dumped = json.dumps(presentation.model_result)
        assert HEADER_WORDS not in dumped
        if max_bytes is None:
            assert "too large to write as JSON" in dumped


@given(
    st.dictionaries(
        st.text(max_size=5), st.text(max_size=20) | st.integers() | st.lists(st.text(max_size=5)), max_size=5
    ),
    st.lists(
        st.fixed_dictionaries(
            {"type": st.just("resource_link"), "uri": st.text(max_size=8), "name": st.text(max_size=8)}
        ),
        max_size=2,
    ),
    st.sampled_from([None, "text", "structured", "both"]),
    st.text(max_size=60),
)
def test_the_size_of_a_copy_in_its_channel_is_its_size_as_json(
    copy: dict[str, Any], others: list[Any], forwards: Any, text: str
) -> None:
    """The model's copy of structured records is sized without dumping it again: the size must be the dump's."""
    payload = _in_channel(forwards, others, copy, lambda: text)
    assert payload.size() == _payload(payload.blocks, payload.copy).size()
