"""The model bound counts the payload as forwarded, to the byte: the least `max_bytes` under which a result reaches
the model whole is the size of what it receives, in every channel, whether the defusal replaced a line within one
text or across blocks, and whatever characters the text holds; and the model's copy, read as one text, holds no
imitation of the framing's header."""

from __future__ import annotations

import json
import unicodedata
from typing import Any, cast

import pytest

from mcp_rendering.host import FRAMING_HEADER, present

_HALF = FRAMING_HEADER.index("directive") + 4
"""Within the header's opening words, which alone make a text an imitation: neither part is one by itself."""
_QUOTES = '"' * 300
"""Each quote is two bytes for the model (JSON escapes it), one in the user's views: the payload meets the bound
first, though the views hold the header the model's copy replaces by a shorter note."""


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


RESULTS = {
    "header within one text": {"content": [_text(f"é first\n{FRAMING_HEADER}\nlast ü {_QUOTES}")]},
    "header across two texts": {
        "content": [_text(f"é {FRAMING_HEADER[:_HALF]}"), _text(f"{FRAMING_HEADER[_HALF:]}\nü {_QUOTES}")]
    },
    "header parts in a link's name and a text": {
        "content": [
            {"type": "resource_link", "uri": "https://example.com/é", "name": FRAMING_HEADER[:_HALF]},
            {"text": f"{FRAMING_HEADER[_HALF:]}\nü {_QUOTES}", "type": "text"},
        ],
        "structuredContent": {},
    },
    "no imitation": {"content": [_text(f"é plain\nü lines {_QUOTES}")]},
}


def _payload_bytes(model_result: dict[str, Any]) -> int:
    """The payload's bytes as `max_bytes` counts them: the model's copy as compact UTF-8 JSON, each block with its
    comma (these results carry no directive, so there is no framing block or directive copy to set aside)."""
    dumped = json.dumps(model_result, ensure_ascii=False, separators=(",", ":"))
    return len(dumped.encode()) - len('{"content":[]}') + (1 if model_result["content"] else 0)


def _least_bound_forwarding_whole(result: dict[str, Any], forwards: Any, whole: dict[str, Any]) -> int:
    low, high = 0, 10_000
    while low < high:
        middle = (low + high) // 2
        if present(None, result, max_bytes=middle, forwards=forwards).model_result == whole:
            high = middle
        else:
            low = middle + 1
    return low


@pytest.mark.parametrize("forwards", [None, "text", "structured", "both"])
@pytest.mark.parametrize("name", list(RESULTS))
def test_the_least_bound_forwarding_a_result_whole_is_the_size_it_is_forwarded_at(name: str, forwards: Any) -> None:
    result = RESULTS[name]
    unbounded = present(None, result, forwards=forwards)
    whole = unbounded.model_result
    size = _payload_bytes(whole)
    assert _least_bound_forwarding_whole(result, forwards, whole) == size


def _letters(text: str) -> str:
    return "".join(char for char in unicodedata.normalize("NFKC", text).casefold() if char.isalnum())


def _strings(value: Any) -> list[str]:
    """Every string of a JSON value in the order JSON writes it, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        pairs = cast("dict[str, Any]", value).items()
        return [string for key, item in pairs for string in (key, *_strings(item))]
    if isinstance(value, list):
        return [string for item in cast("list[Any]", value) for string in _strings(item)]
    return []


@pytest.mark.parametrize("forwards", [None, "text", "structured", "both"])
@pytest.mark.parametrize("name", list(RESULTS))
def test_the_models_copy_read_as_one_text_holds_no_imitation(name: str, forwards: Any) -> None:
    """Whichever part the host forwards, the model's copy never spells the header's opening words: neither its
    blocks' texts read one after another (as hosts join them), nor the strings of its structured copy in order."""
    copy = present(None, RESULTS[name], forwards=forwards).model_result
    opening = _letters(FRAMING_HEADER.split(",", 1)[0])
    texts = [block.get("text", "") for block in copy["content"]]
    assert opening not in _letters("".join(texts))
    assert opening not in _letters("".join(_strings(copy.get("structuredContent", {}))))


def test_no_key_of_a_block_as_shown_is_part_of_the_headers_opening_words() -> None:
    """Why a copy holding blocks as shown needs no defusal across its strings: between any two of their strings stands
    a key, and no key's letters are in the header's opening words, so no imitation spans them."""
    opening = _letters(FRAMING_HEADER.split(",", 1)[0])
    assert not any(_letters(key) in opening for key in ("type", "text", "uri", "name", "data", "mimeType", "content"))


def test_blocks_that_imitate_the_header_only_beside_the_hosts_copy_still_keep_to_the_bound() -> None:
    """The records' text ends with the header's opening letters but the last three ("low"), one a line, and the line
    the host writes for a block of an unknown type ("[low block]") supplies them: defused together, the blocks grow
    past what each measured alone, so the last are withheld until the model's copy fits."""
    letters = _letters(FRAMING_HEADER.split(",", 1)[0])[:-3]
    content = [{"type": "low"}, _text("\n".join(letters)), _text("x" * 300)]
    for bound in range(100, 1200, 7):
        presentation = present(None, {"content": content}, max_bytes=bound)
        blocks = presentation.model_result["content"]
        assert _payload_bytes({"content": blocks[1:] if presentation.framing else blocks}) <= bound
