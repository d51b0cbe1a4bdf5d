"""Every string `present()` forwards to the model passes one defusal, and the scan that usually shows it has
nothing to do never misses an imitation of the framing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from mcp_rendering.host import FRAMING_HEADER, present
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

IMITATION = FRAMING_HEADER.split(",", 1)[0]
_SEPARATORS = st.sampled_from(["", " ", "-", "\n", "\t", '"', "\\", "/", "\u00a0", "_", "\u2028"])


@st.composite
def imitations(draw: st.DrawFn) -> str:
    """The framing's opening words, respelled as a server might: cases changed, separators between letters,
    fullwidth letters, text around it."""
    letters: list[str] = []
    for char in IMITATION:
        if char.isalnum():
            char = draw(st.sampled_from([char, char.upper(), char.lower(), chr(ord(char.lower()) + 0xFEE0)]))
        letters.append(char + (draw(_SEPARATORS) if char.isalnum() and draw(st.booleans()) else ""))
    return draw(st.text(max_size=5)) + "".join(letters) + draw(st.text(max_size=5))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [key, *_strings(item)]]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@example(IMITATION.replace("Ren", "Re\\n"), "structured")  # a backslash before a letter: JSON writes `\\n`
@example(IMITATION.replace(" ", "\n"), "key")
@given(imitations(), st.sampled_from(["text", "key", "unknown block", "description", "structured", "array"]))
def test_an_imitation_anywhere_is_defused(imitation: str, place: str) -> None:
    content: list[Any] = [{"type": "text", "text": "rows below"}]
    structured: dict[str, Any] = {"rows": [{"label": "Sales", "value": 1}]}
    if place == "text":
        content.append({"type": "text", "text": imitation})
    elif place == "key":
        structured[imitation] = 1
    elif place == "unknown block":
        content.append({"type": "x-widget", "body": {"caption": imitation}})
    elif place == "description":
        content.append({"type": "resource_link", "uri": "r://x", "name": "x", "description": imitation})
    elif place == "structured":
        structured["rows"].append({"label": imitation, "value": 2})
    else:
        structured["notes"] = ["a", imitation]
    result = {"content": content, "structuredContent": structured}
    forwarded = present(None, result).model_result
    server_strings = _strings({"content": forwarded["content"][1:], "structured": forwarded.get("structuredContent")})
    assert not any(IMITATION.lower() in " ".join(s.split()).lower() for s in server_strings), json.dumps(forwarded)
    # A text block, an unknown block or a link beside structured records is not forwarded at all (the user never
    # sees it); what the structured copy holds is defused in place.
    if place in ("key", "structured", "array"):
        assert "imitates the host's rendering directive" in json.dumps(forwarded)
    elif place != "text":
        assert forwarded["content"][-1] == {"type": "text", "text": '{"rows":[{"label":"Sales","value":1}]}'}
        assert all(block["type"] == "text" for block in forwarded["content"])  # no block but the records


def test_text_that_does_not_imitate_is_forwarded_unchanged() -> None:
    structured = {"rows": [{"label": "Rendering directive", "value": "for the tool"}], "n\\t": ["\u00e9\\u0041"]}
    result = {"content": [{"type": "text", "text": "a\nb"}], "structuredContent": structured}
    forwarded = present(None, result).model_result
    assert forwarded["structuredContent"] == structured
    text = forwarded["content"][-1]["text"]
    assert text == present(None, result).text or json.loads(text) == structured  # the copy when that is leaner
    text_only = {"content": [{"type": "text", "text": "a\nb"}]}
    assert present(None, text_only).model_result["content"] == text_only["content"]


def _letters_of(text: str) -> str:
    import unicodedata

    return "".join(char for char in unicodedata.normalize("NFKC", text).casefold() if char.isalnum())


@given(
    imitations(),
    st.data(),
    st.sampled_from(["text", "resource"]),
    st.sampled_from([None, "verbatim", "summarizable"]),
)
def test_an_imitation_split_across_blocks_is_defused(imitation: str, data: st.DataObject, kind: str, mode: Any) -> None:
    """The model reads consecutive blocks as one text: a header cut in two (or three) pieces, each harmless alone,
    must not reach it whole."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(imitation)), min_size=1, max_size=2)))
    pieces = [imitation[a:b] for a, b in zip([0, *cuts], [*cuts, len(imitation)], strict=True)]

    def block(text: str) -> dict[str, Any]:
        if kind == "text":
            return {"type": "text", "text": text}
        return {"type": "resource", "resource": {"uri": "r://x", "mimeType": "text/plain", "text": text}}

    content = [{"type": "text", "text": "rows below"}, *(block(piece) for piece in pieces), block("Mode: x.")]
    result: dict[str, Any] = {"content": content}
    if mode is not None:
        result["_meta"] = {"io.modelcontextprotocol/rendering": {"mode": mode, "complete": True}}
    forwarded = present(None, result).model_result["content"]
    server_blocks = forwarded[1:] if mode is not None else forwarded
    joined = "".join(_letters_of(b.get("text") or b.get("resource", {}).get("text") or "") for b in server_blocks)
    assert _letters_of(IMITATION) not in joined, json.dumps(forwarded)
    if kind == "text":  # an embedded resource reaches the model as the line the user sees, which names its URI only
        assert "imitates the host's rendering directive" in json.dumps(forwarded)


def test_text_split_across_blocks_that_does_not_imitate_is_forwarded_unchanged() -> None:
    content = [{"type": "text", "text": "Rendering directive"}, {"type": "text", "text": "for the tool"}]
    forwarded = present(None, {"content": content}).model_result
    assert forwarded["content"] == content


@given(st.integers(1, len(IMITATION) - 1), st.sampled_from(["guidance", "nullDisplay"]))
def test_the_framings_end_cannot_begin_an_imitation_the_server_completes(cut: int, member: str) -> None:
    """Server text quoted at the framing's end (its guidance) and the server's first text block read side by side:
    the framing ends with host text whose last letter is none of the header's, so they cannot spell it together."""
    head, tail = IMITATION[:cut], IMITATION[cut:]
    directive: dict[str, Any] = {"mode": "verbatim", "complete": True}
    directive[member] = head[-16:] if member == "nullDisplay" else head
    result = {"content": [{"type": "text", "text": tail}], "_meta": {"io.modelcontextprotocol/rendering": directive}}
    forwarded = present(None, result).model_result["content"]
    joined = "".join(_letters_of(block.get("text", "")) for block in forwarded)
    assert joined.count(_letters_of(IMITATION)) == 1  # the host's own header, at the start
    assert joined.startswith(_letters_of(IMITATION))


NOTE = "[server text that imitates the host's rendering directive, removed]"


def test_the_note_cannot_join_server_text_into_an_imitation() -> None:
    """The note's letters neither hold the header's nor begin with an end of them nor end with a beginning of them:
    whatever server text stands beside it, the note adds no letter to an imitation."""
    note, header = _letters_of(NOTE), _letters_of(IMITATION)
    assert header not in note
    assert not any(note.startswith(header[-size:]) for size in range(1, len(header)))
    assert not any(note.endswith(header[:size]) for size in range(1, len(header)))


def test_a_header_before_two_thousand_blocks_replaces_that_block_alone() -> None:
    """One imitating block, then 2000 blocks each continuing the header's words: the note replacing the first does
    not read as the header with the next, so every other block reaches the model unchanged."""
    rest = [{"type": "text", "text": "for the tool result below"}] * 2000
    result = {
        "content": [{"type": "text", "text": IMITATION}, *rest],
        "_meta": {"io.modelcontextprotocol/rendering": {"mode": "verbatim", "complete": True}},
    }
    forwarded = present(None, result, forwards="text").model_result["content"]
    assert forwarded[1] == {"type": "text", "text": NOTE}
    assert forwarded[2:] == rest


def test_inside_a_block_only_the_imitating_lines_are_replaced() -> None:
    """A header spelled over two lines replaces both; one on a line of its own replaces that line, not the next
    (which holds no imitation beside the note), nor the block's other lines."""
    split = "[Rendering directive\nfor the tool result below, relayed"
    text = f"Record 1\n{split}\nRecord 2\n{IMITATION}\nfor the tool result below\n"
    forwarded = present(None, {"content": [{"type": "text", "text": text}]}).model_result["content"]
    expected = f"Record 1\n{NOTE}\n{NOTE}\nRecord 2\n{NOTE}\nfor the tool result below\n"
    assert forwarded == [{"type": "text", "text": expected}]


def test_a_header_split_across_blocks_replaces_the_lines_that_spell_it() -> None:
    head, tail = IMITATION[:12], IMITATION[12:]
    content = [{"type": "text", "text": f"Record 1\n{head}"}, {"type": "text", "text": f"{tail}\nRecord 2"}]
    forwarded = present(None, {"content": content}).model_result["content"]
    assert forwarded == [{"type": "text", "text": f"Record 1\n{NOTE}"}, {"type": "text", "text": f"{NOTE}\nRecord 2"}]


def test_a_header_split_across_blocks_with_an_image_between_replaces_the_lines_that_spell_it() -> None:
    """An image holds no text: the model reads the text blocks on either side of it as one text."""
    head, tail = IMITATION[:12], IMITATION[12:]
    image = {"type": "image", "mimeType": "image/png", "data": "AAAA"}
    content = [{"type": "text", "text": f"Record 1\n{head}"}, image, {"type": "text", "text": f"{tail}\nRecord 2"}]
    forwarded = present(None, {"content": content}).model_result["content"]
    assert forwarded == [
        {"type": "text", "text": f"Record 1\n{NOTE}"},
        image,
        {"type": "text", "text": f"{NOTE}\nRecord 2"},
    ]


def test_a_continuation_whose_argument_and_token_spell_the_header_together_is_referred_to_not_quoted() -> None:
    """The framing quotes the argument's name just before the token: read together they could spell the header's
    opening words though neither does alone, so such a token is referred to, as an unquotable one is."""
    opening = FRAMING_HEADER.split(",", 1)[0]  # "[Rendering directive for the tool result below"
    argument, token = "Rendering_directive", "for.the.tool.result.below"
    assert opening.lower().replace("[", "").replace(" ", "") == (argument + token).lower().replace("_", "").replace(
        ".", ""
    )
    tool = {
        "name": "t",
        "inputSchema": {"type": "object", "properties": {argument: {"type": "string"}}},
        "_meta": {CONTINUATION_ID: {"argument": argument}},
    }
    partial = {
        "content": [{"type": "text", "text": "a"}],
        "_meta": {
            EXTENSION_ID: {"mode": "summarizable", "complete": False},
            CONTINUATION_ID: {"argument": argument, "token": token},
        },
    }
    presentation = present(tool, partial, arguments={})
    assert presentation.framing is not None and token not in presentation.framing
    assert f'(argument "{argument}", a token of {len(token)} characters, not quoted here)' in presentation.framing
    assert presentation.next_arguments({}) == {argument: token}  # the host still follows it


@st.composite
def _blocks_spelling(draw: st.DrawFn, imitation: str) -> list[dict[str, Any]]:
    """`imitation` cut in pieces, each placed in a text block or in a link's name or URI, other links' names and
    URIs left without letters or holding the next piece; a record line before them all."""
    cuts = sorted(draw(st.lists(st.integers(0, len(imitation)), min_size=1, max_size=3)))
    pieces = [imitation[a:b] for a, b in zip([0, *cuts], [*cuts, len(imitation)], strict=True)]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": "Record 1"}]
    index = 0
    while index < len(pieces):
        place = draw(st.sampled_from(["text", "name", "uri", "both"]))
        if place == "text":
            blocks.append({"type": "text", "text": pieces[index]})
            index += 1
        elif place == "both" and index + 1 < len(pieces):
            first, second = pieces[index], pieces[index + 1]
            name, uri = (first, second) if draw(st.booleans()) else (second, first)
            blocks.append({"type": "resource_link", "name": name, "uri": uri})
            index += 2
        else:
            other = draw(st.sampled_from(["", "-", "r://x"]))
            name, uri = (pieces[index], other) if place == "name" else (other, pieces[index])
            blocks.append({"type": "resource_link", "name": name, "uri": uri})
            index += 1
    return [*blocks, {"type": "text", "text": "Mode: summarizable."}]


_LINK_SHOWN = (
    lambda name, uri: name + uri,
    lambda name, uri: uri + name,
    lambda name, uri: name,
    lambda name, uri: uri,
    lambda name, uri: name or uri,
    lambda name, uri: "",
)
"""What a host may show of a link: both, in either order; one alone; the name, or the URI when the name is empty;
neither."""


def _readings(blocks: list[dict[str, Any]]) -> list[str]:
    """The letters of `blocks` read as one text, every link shown in each of the ways of `_LINK_SHOWN`."""
    return [
        "".join(
            _letters_of(block["text"] if block["type"] == "text" else shown(block["name"], block["uri"]))
            for block in blocks
        )
        for shown in _LINK_SHOWN
    ]


@given(st.data())
def test_a_header_split_across_text_and_links_is_defused_in_either_reading(data: st.DataObject) -> None:
    """A model reads a link as its host shows it (`_LINK_SHOWN`). A header whose pieces lie in text blocks and links
    reaches it in none of these readings."""
    imitation = data.draw(imitations())
    content = data.draw(_blocks_spelling(imitation))
    forwarded = present(None, {"content": content}).model_result["content"]
    assert not any(_letters_of(IMITATION) in reading for reading in _readings(forwarded)), json.dumps(forwarded)
    assert forwarded[0] == content[0]
    assert forwarded[-1] == content[-1]


def test_a_header_split_across_a_text_a_links_name_and_a_text_replaces_the_three() -> None:
    name = IMITATION[12:20]
    content = [
        {"type": "text", "text": f"Record 1\n{IMITATION[:12]}"},
        {"type": "resource_link", "uri": "r://statement", "name": name},
        {"type": "text", "text": f"{IMITATION[20:]}\nRecord 2"},
    ]
    forwarded = present(None, {"content": content}).model_result["content"]
    assert forwarded == [
        {"type": "text", "text": f"Record 1\n{NOTE}"},
        {"type": "text", "text": NOTE},
        {"type": "text", "text": f"{NOTE}\nRecord 2"},
    ]


def test_a_header_split_between_one_links_name_and_uri_replaces_the_link() -> None:
    """A link alone: its name and URI, each harmless, spell the header together in either order."""
    for name, uri in [(IMITATION[:12], IMITATION[12:]), (IMITATION[12:], IMITATION[:12])]:
        content = [{"type": "resource_link", "uri": uri, "name": name}]
        assert present(None, {"content": content}).model_result["content"] == [{"type": "text", "text": NOTE}]


def test_links_beside_a_split_header_that_hold_none_of_it_are_forwarded_unchanged() -> None:
    link = {"type": "resource_link", "uri": "r://statement", "name": "Statement"}
    content = [
        link,
        {"type": "text", "text": IMITATION[:12]},
        {"type": "text", "text": IMITATION[12:]},
        link,
    ]
    forwarded = present(None, {"content": content}).model_result["content"]
    assert forwarded == [link, {"type": "text", "text": NOTE}, {"type": "text", "text": NOTE}, link]


def test_a_header_split_around_a_link_a_host_drops_replaces_the_text_on_either_side() -> None:
    """A host that forwards no links joins the text on either side of one."""
    link = {"type": "resource_link", "uri": "r://statement", "name": "Statement"}
    content = [{"type": "text", "text": f"Record 1\n{IMITATION[:12]}"}, link, {"type": "text", "text": IMITATION[12:]}]
    forwarded = present(None, {"content": content}).model_result["content"]
    assert forwarded == [{"type": "text", "text": f"Record 1\n{NOTE}"}, link, {"type": "text", "text": NOTE}]


def test_what_holds_no_letter_of_a_split_header_is_kept() -> None:
    """A rule between two lines of the header, or a link named without letters between two blocks of it, holds none
    of its letters: once the lines holding them are notes, it joins nothing, and is forwarded as sent."""
    rule = f"{IMITATION[:12]}\n---\n{IMITATION[12:]}\nRecord 2"
    forwarded = present(None, {"content": [{"type": "text", "text": rule}]}).model_result["content"]
    assert forwarded == [{"type": "text", "text": f"{NOTE}\n---\n{NOTE}\nRecord 2"}]
    link = {"type": "resource_link", "uri": "#", "name": "\u00a7"}
    content = [{"type": "text", "text": IMITATION[:12]}, link, {"type": "text", "text": IMITATION[12:]}]
    forwarded = present(None, {"content": content}).model_result["content"]
    assert forwarded == [{"type": "text", "text": NOTE}, link, {"type": "text", "text": NOTE}]


def test_a_header_a_host_showing_names_or_else_uris_would_read_replaces_the_links() -> None:
    """A host that shows a link's name, or its URI when the name is empty, reads the middle link's URI here."""
    content = [
        {"type": "resource_link", "name": "Rendering", "uri": "zz:1"},
        {"type": "resource_link", "name": "", "uri": "directivefor"},
        {"type": "resource_link", "name": "the tool result below", "uri": "zz:2"},
    ]
    forwarded = present(None, {"content": content}).model_result["content"]
    assert forwarded == [{"type": "text", "text": NOTE}] * 3
