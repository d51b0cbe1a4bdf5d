"""Length limits of the proposal's documents, counted outside code blocks.

The charter (the SEP) stays within 1,500 words, and each extension specification within 3,000. Two counts are
checked, since a reviewer may count either way: words (whitespace-separated tokens with a letter or digit) and every
whitespace-separated token, table pipes included. Tables count, which is stricter than a limit outside tables.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHARTER = ROOT / "sep" / "0000-rendering-directives.md"
SPECIFICATIONS = (ROOT / "sep" / "rendering.mdx", ROOT / "sep" / "result-continuation.mdx")

CHARTER_LIMIT = 1_500
SPECIFICATION_LIMIT = 3_000

# A fence opens with three or more backticks or tildes and closes with at least as many of the same character.
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n.*?^ {0,3}(?P=fence)[`~]*[ \t]*$", re.S | re.M)


def outside_code_blocks(text: str) -> str:
    """The text with its fenced code blocks removed (an unclosed fence runs to the end, as CommonMark reads it)."""
    text = _FENCE.sub("", text)
    unclosed = re.search(r"^ {0,3}(`{3,}|~{3,})", text, re.M)
    return text[: unclosed.start()] if unclosed else text


def word_count(text: str) -> int:
    return sum(1 for token in outside_code_blocks(text).split() if re.search(r"\w", token))


def token_count(text: str) -> int:
    return len(outside_code_blocks(text).split())


def test_the_charter_stays_within_its_words() -> None:
    text = CHARTER.read_text(encoding="utf-8")
    assert word_count(text) <= CHARTER_LIMIT
    assert token_count(text) <= CHARTER_LIMIT


@pytest.mark.parametrize("path", SPECIFICATIONS, ids=lambda path: path.name)
def test_each_specification_stays_within_its_words(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert word_count(text) <= SPECIFICATION_LIMIT
    assert token_count(text) <= SPECIFICATION_LIMIT


def test_words_in_code_blocks_do_not_count() -> None:
    fenced = 'one two\n\n```json\n{"three": 4}\n```\n\nfive\n\n~~~~\nsix ``` seven\n~~~~\n'
    assert word_count(fenced) == 3
    assert token_count("a | b |\n|---|---|\n") == 5
    assert word_count("a | b |\n|---|---|\n") == 2


def test_an_unclosed_fence_hides_the_rest() -> None:
    assert word_count("one\n\n```\ntwo three\n") == 1


def test_a_longer_fence_is_not_closed_by_a_shorter_one() -> None:
    assert word_count("one\n````\n```\ntwo\n````\nthree\n") == 2
