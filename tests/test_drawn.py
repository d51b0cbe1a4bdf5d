"""Text as it is drawn: the same value for numbers in the grouping of common locales, Unicode forms, dash-drawn
spaces (`mcp_rendering.drawn`)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from bidi import get_display
from hypothesis import assume, given
from hypothesis import strategies as st

from mcp_rendering.drawn import (
    as_drawn,
    cell_as_drawn,
    decimal_mark,
    lines_as_drawn,
    may_change,
    numbers_in,
    reordered_digits,
    right_to_left,
    right_to_left_count,
    starts_right_to_left,
)


@pytest.mark.parametrize(
    ("text", "decimal", "drawn"),
    [
        ("1,377,600", ".", "1377600"),
        ("1.377.600", ".", "1377600"),
        ("1\u202f377\u202f600", ".", "1377600"),
        ("1\u00a0377\u00a0600,50", ".", "1377600.50"),
        ("1\u2009377\u2009600.5", ",", "1377600.5"),
        ("1'377'600", ".", "1377600"),
        ("1\u2019377", ",", "1377"),
        ("1,377,600.25", ",", "1377600.25"),
        ("1.377.600,25", ".", "1377600.25"),
        ("1,377", ".", "1377"),
        ("1,377", ",", "1.377"),
        ("1.377", ".", "1.377"),
        ("1.377", ",", "1377"),
        ("12,5", ",", "12.5"),
        ("12,5", ".", "12,5"),  # not the decimal mark here, not a grouping: as written
        ("\u221264 800", ".", "-64 800"),  # U+2212 is a minus; plain spaces group only a cell
        ("-64,800", ".", "-64800"),
        ("+6.7 %", ".", "+6.7 %"),
        ("- 250", ".", "- 250"),
        ("(64,800)", ".", "(64800)"),
        ("FY2025: 186,000; FY2024: 204,500.", ".", "FY2025: 186000; FY2024: 204500."),
        ("512/53 26/27 2025-01-01", ".", "512/53 26/27 2025-01-01"),
        ("1.50", ".", "1.50"),
        ("1,37,76,00", ".", "1,37,76,00"),
        ("1,2345", ".", "1,2345"),
        ("\u1680250", ".", "-250"),
        ("1,377,600,25", ".", "1,377,600,25"),  # a fraction marked as the grouping is: neither, as written
        ("1.377.600.25", ",", "1.377.600.25"),
        ("e\u0301", ".", "\u00e9"),
    ],
)
def test_as_drawn(text: str, decimal: str, drawn: str) -> None:
    assert as_drawn(text, decimal) == drawn


def test_a_cell_holding_only_a_number_grouped_by_plain_spaces_is_that_number() -> None:
    assert cell_as_drawn(" 1 377  600 ") == "1377600"
    assert cell_as_drawn("1 377 600,5") == "1377600.5"
    assert cell_as_drawn("20 186 EUR") == "20 186 EUR"
    assert cell_as_drawn("20 1860") == "20 1860"
    assert as_drawn("1 377 600") == "1 377 600"  # outside a cell, plain spaces part numbers
    assert cell_as_drawn("1,377", ",") == "1.377"  # the transcript's decimal mark
    assert cell_as_drawn("1\u00a0377 600") == "1377 600"  # grouped by one kind of space, or not grouped
    assert cell_as_drawn("\t1 377") == "\t1 377"  # only plain spaces are trimmed
    assert cell_as_drawn("X1 377") == "X1 377"


@pytest.mark.parametrize(
    ("text", "mark"),
    [
        ("1.377.600 and 12", ","),
        ("1,377,600 and 1.377", "."),
        ("12,5 and 3,25", ","),
        ("6.7", "."),
        ("1,377", "."),  # one grouping or decimal: not said
        ("nothing", "."),
        ("1.377,5", ","),
        ("12,5 and 6.75", "."),  # as many each way: `.`
        ("12,5 and 6.75 and 1.5", "."),
    ],
)
def test_the_decimal_mark_is_the_one_most_numbers_imply(text: str, mark: str) -> None:
    assert decimal_mark(text) == mark


def test_may_change_is_false_only_for_text_read_as_written() -> None:
    assert not may_change("Sales 1000")
    assert not may_change("1234.56 and 1.377")  # `.` the decimal mark: fractions read as written
    assert may_change("1.377", ",")
    for text in ("1,000", "1.377.600", "1.377,5", "é", "\u1680", "\u2212"):
        assert may_change(text), text


@given(st.integers(min_value=-(10**15), max_value=10**15), st.sampled_from([",", ".", "\u202f", "\u00a0", "'"]))
def test_a_grouped_integer_is_the_same_value_and_another_is_not(number: int, group: str) -> None:
    digits = str(abs(number))
    grouped = group.join(digits[max(0, end - 3) : end] for end in range(len(digits), 0, -3)[::-1])
    written = ("-" if number < 0 else "") + grouped
    decimal = "," if group == "." else "."
    assert as_drawn(written, decimal) == str(number)
    assert as_drawn(str(number + 1), decimal) != as_drawn(written, decimal)


@given(st.text(max_size=20))
def test_canonically_equivalent_texts_are_drawn_alike(text: str) -> None:
    assert as_drawn(unicodedata.normalize("NFD", text)) == as_drawn(unicodedata.normalize("NFC", text))


def test_lines_as_drawn_is_as_drawn_of_each_line() -> None:
    lines = ["Sales 1000", "1,377,600", "é", "", "1.377.600 and 1234.56", "x\u1680y"]
    for decimal in (".", ","):
        assert lines_as_drawn(lines, decimal) == [as_drawn(line, decimal) for line in lines]
    assert lines_as_drawn(["a", "b"]) == ["a", "b"]
    assert lines_as_drawn(["1,000"]) == ["1000"]
    assert lines_as_drawn(["a", "1,000"]) == ["a", "1000"]
    assert lines_as_drawn(["1,377", "e\u0301"], ",") == ["1.377", "\u00e9"]
    many = ["a"] * 10 + ["1,000"] + ["b"] * 10  # the line a change is on, found by its offset
    assert lines_as_drawn(many) == ["a"] * 10 + ["1000"] + ["b"] * 10


def test_numbers_written_as_the_result_writes_them_are_no_evidence_of_the_transcripts_mark() -> None:
    copied = numbers_in(["Rate 12,5", "0,0", "1.377", "a2,5"])
    assert copied == {"12,5", "0,0"}  # `1.377` implies no mark, and `a2,5` is a word: no evidence either way
    assert decimal_mark("12,5 and 0,0", copied) == "."
    assert decimal_mark("12,5 and 3,5", copied) == ","
    assert decimal_mark("12,5 and 3,5 and 6.75", copied) == "."
    assert decimal_mark("12,5 and 0,0") == ","


def test_a_number_inside_a_word_is_no_evidence_and_copied_points_are_left_out_too() -> None:
    assert decimal_mark("Ref a2,5b") == "."
    assert decimal_mark("12,5 v6.75b w7.25z") == ","
    assert decimal_mark("2,5 6.75", numbers_in(["6.75"])) == ","


@pytest.mark.parametrize(
    ("paragraph", "lines"),
    [
        (["الأصول 1 377 600"], [0]),  # drawn `600 377 1`
        (["الأصول 1,377,600"], [0]),  # one number, but one drawn before the word
        (["Cash الأصول 1,000 900"], [0]),  # two values trade places
        (["1 377 600 שקל"], [0]),  # the block's first letter gives its direction
        (["שקל", "1 2", "x"], [1]),
        (["ש", "x 1 2"], [1]),  # in a block drawn right to left
        (["Cash: \u0661\u066c\u0662 \u00b7 \u0663"], [0]),  # Arabic-Indic digits, even after a Latin letter
        (["\u0661"], [0]),
        (["שקל: -250"], [0]),  # drawn `250-`
        (["Cash 1 377 600 שקל", "x 2"], []),  # digits after left-to-right letters, in a left-to-right block
        (["- Cash — FY2025: 1,377,600, FY2024: 1,327,000 (מזומנים)"], []),
        (["Cash 1 377 600"], []),
        (["Cash", "12 34"], []),
        (["שקל -\u0967\u0968"], [0]),  # Devanagari digits are left-to-right letters: their sign still moves
        (["\U00010d4a", "12 34"], [1]),  # a right-to-left letter newer than this Python's Unicode tables
        (["\u05ff 12"], [0]),  # unassigned, in a right-to-left block
        (["שקל \u2460 \u2461"], [0]),  # circled digits, which the algorithm treats as any punctuation
        (["Cash שקל \u2460 \u2461 שקל"], [0]),
        (["Cash \u2460 \u2461 שקל"], []),
        (["שקל \U0001ccf0"], [0]),  # a character this Python's tables do not know may be a digit
    ],
)
def test_reordered_digits_are_those_right_to_left_text_may_move(paragraph: list[str], lines: list[int]) -> None:
    assert reordered_digits(paragraph) == lines


def test_every_right_to_left_letter_and_arabic_number_is_found_by_the_prefilter() -> None:
    missed = [
        code_point
        for code_point in range(0x80, 0x110000)
        if unicodedata.bidirectional(chr(code_point)) in ("R", "AL", "AN") and not right_to_left(chr(code_point))
    ]
    assert missed == []
    assert not right_to_left("Cash 1 377 600 \u00e9\u4e2d")


def test_the_right_to_left_characters_counted_are_letters_and_arabic_digits() -> None:
    assert right_to_left_count("\u064b\u064b\u05b0 \u060c") == 0  # marks and a comma of those scripts
    assert right_to_left_count("שקל \u0661 \U00010d4a") == 5


def test_the_direction_of_a_text_is_that_of_its_first_letter_outside_isolates() -> None:
    assert starts_right_to_left("12 שקל Cash")
    assert not starts_right_to_left("\u2067שקל\u2069 Cash")
    assert starts_right_to_left("\u2066Cash\u2069 שקל")
    assert not starts_right_to_left("Cash")


def test_a_right_to_left_letter_the_text_does_not_show_may_govern_any_digits() -> None:
    assert reordered_digits(["Cash 12 34", "x"]) == []
    assert reordered_digits(["Cash 12 34", "x"], letters_unseen=True) == [0]


_NUMBER_AS_READ = re.compile(r"([+\-\u2212]?)[$%]*([0-9\u0660-\u0669\u0966-\u096f]+)")
_BIDI_CHARACTERS = "aZשק\u0644\u062712\u0663\u0664\u0967 ,.:/-+%$\u00a0'()\u2212\u066c\u0651\u05ff"
_BIDI_TEXT = st.text(st.sampled_from(list(_BIDI_CHARACTERS)), max_size=14)


@given(st.lists(_BIDI_TEXT, min_size=1, max_size=3), st.sampled_from(["L", None]))
def test_digits_not_reported_are_drawn_in_their_order_each_with_its_sign(lines: list[str], base: str | None) -> None:
    """Against an implementation of the Unicode bidirectional algorithm (python-bidi), in a block of either direction
    a block may take (left-to-right, or that of its first letter), its lines drawn as one paragraph: the runs of
    digits `reordered_digits` does not report are drawn, left to right, in the order written, each after the sign
    written before it."""
    assume(not reordered_digits(lines))
    text = " ".join(lines)
    drawn = str(get_display(text, base_dir=base))
    assert _NUMBER_AS_READ.findall(drawn) == _NUMBER_AS_READ.findall(text), drawn
