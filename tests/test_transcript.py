"""What `read_markdown` reads of a transcript, block by block: each line's visible text, its block, and the
constructs whose display is not certain."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from mcp_rendering.transcript import (  # pyright: ignore[reportPrivateUsage]
    MAX_RAW_HTML,
    ShownLine,
    Uncertain,
    _source_from,
    _start_end,
    read_markdown,
    split_at_line_breaks,
)


def _lines(text: str) -> list[tuple[int, str, str]]:
    return [(line.number, line.text, line.block) for line in read_markdown(text).lines]


def _uncertain(text: str) -> list[tuple[int, str]]:
    return [(item.line, item.what) for item in read_markdown(text).uncertain]


def test_headings_and_paragraphs_read_line_by_line_a_soft_break_continuing_the_block() -> None:
    view = read_markdown("# Title\n\npara *one*\ncontinues")
    assert [(line.number, line.text, line.block, line.continues) for line in view.lines] == [
        (0, "Title", "heading", False),
        (2, "para one", "paragraph", False),
        (3, "continues", "paragraph", True),
    ]
    assert view.uncertain == [] and view.tags == {"h1", "p"}


def test_list_items_carry_the_marker_the_renderer_shows_and_their_list() -> None:
    view = read_markdown("- a\n- b\n\n3. x\n4) y\n7. z")
    assert [(line.number, line.text, line.block, line.list_id, line.marker) for line in view.lines] == [
        (0, "a", "item", 1, "-"),
        (1, "b", "item", 1, "-"),
        (3, "x", "item", 2, "3."),
        (4, "y", "item", 3, "4)"),
        (5, "z", "item", 4, "7."),
    ]


def test_an_ordered_list_is_numbered_from_its_start_whatever_the_source_numbers() -> None:
    view = read_markdown("5. a\n5. b\n1. c")
    assert [line.marker for line in view.lines] == ["5.", "6.", "7."]


def test_an_items_second_line_and_nested_blocks_keep_the_list_but_not_the_marker() -> None:
    view = read_markdown("1. first\n   more\n\n   para\n2. second")
    assert [(line.number, line.text, line.block, line.list_id, line.marker, line.continues) for line in view.lines] == [
        (0, "first", "item", 1, "1.", False),
        (1, "more", "item", 1, "", True),
        (3, "para", "item", 1, "", False),
        (4, "second", "item", 1, "2.", False),
    ]


def test_a_heading_in_an_item_is_not_the_items_first_line() -> None:
    view = read_markdown("- a\n  # h")
    assert [(line.number, line.text, line.block, line.marker) for line in view.lines] == [
        (0, "a", "item", "-"),
        (1, "h", "heading", ""),
    ]


def test_an_items_text_reads_whole_through_nested_emphasis() -> None:
    assert _lines("- a *b **c*** d\n- BOX") == [(0, "a b c d", "item"), (1, "BOX", "item")]


@pytest.mark.parametrize(
    ("text", "marker"),
    [("- 1. x", "1."), ("> 3) a", "3)"), ("> - a", "-")],
)
def test_an_items_marker_is_read_inside_block_quotes_and_outer_items(text: str, marker: str) -> None:
    assert [(line.number, line.text, line.marker) for line in read_markdown(text).lines] == [(0, text[-1], marker)]


def test_table_rows_are_read_as_their_cells_under_their_table() -> None:
    view = read_markdown("| A | B |\n| --- | --- |\n| 1 | *2* |\n\ntext\n\n| C |\n| - |\n| 3 |")
    assert view.lines == [
        ShownLine(0, "| A | B |", "header", ("A", "B"), table=1),
        ShownLine(2, "| 1 | 2 |", "row", ("1", "2"), table=1),
        ShownLine(4, "text", "paragraph", list_id=1),  # a paragraph's lines are one block
        ShownLine(6, "| C |", "header", ("C",), table=2),
        ShownLine(8, "| 3 |", "row", ("3",), table=2),
    ]


def test_code_blocks_show_their_text_as_is_and_an_empty_fence_shows_nothing() -> None:
    assert _lines("```\n**code**\n```\n\n    indented\n\n```\n```") == [
        (1, "**code**", "code"),
        (4, "indented", "code"),
    ]
    assert _lines("~~~\nx\n~~~") == [(1, "x", "code")]
    # A code line is no item: it carries no marker and no list.
    assert read_markdown("```\nx\n```").lines == [ShownLine(1, "x", "code")]


def test_a_fenced_code_block_in_a_block_quote_shows_its_text_on_its_own_lines() -> None:
    assert _lines("> ```\n> c\n> ```") == [(1, "c", "code")]


def test_block_quotes_are_read_through() -> None:
    assert _lines("> quote\n>\n> - item") == [(0, "quote", "paragraph"), (2, "item", "item")]


def test_entities_and_escapes_are_decoded_and_a_hard_break_starts_a_line() -> None:
    assert _lines("a &amp; \\*b\\*\\\nc") == [(0, "a & *b*", "paragraph"), (1, "c", "paragraph")]
    for text in ("a\\\nPartial result: b", "a  \nPartial result: b"):
        first, second = read_markdown(text).lines
        assert (second.text, second.continues) == ("Partial result: b", False)  # not a run-on line: a line anew
        assert not first.continues
    assert [line.continues for line in read_markdown("a\nb").lines] == [False, True]


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("![alt](x) t", "an image (its alternative text may or may not be shown)"),
        ('[a](u "t")', "a link title (a tooltip)"),
        ("~~s~~", "struck-through text"),
        ("[r]: /x", "text no block shows (a link reference definition, say)"),
        ("a <span>b</span>", "raw HTML"),
        ('a <span title="t">b</span>', "raw HTML"),
        ("| ![x](y) |\n| - |", "an image (its alternative text may or may not be shown)"),
        ("- ![x](y)", "an image (its alternative text may or may not be shown)"),
    ],
)
def test_constructs_whose_display_is_not_certain_are_reported_on_their_line(text: str, what: str) -> None:
    assert _uncertain(f"ok\n\n{text}") == [(2, what)]


def test_text_an_inline_element_hides_is_not_shown() -> None:
    view = read_markdown("a <textarea>b</textarea> c\n\nd <!-- e --> f\n\ng <b hidden>h</b> i")
    assert [line.text for line in view.lines] == ["a  c", "d  f", "g  i"]
    assert [item.line for item in view.uncertain] == [0, 2, 4]


def test_a_line_before_raw_html_or_struck_through_text_in_its_paragraph_shows_all_its_text() -> None:
    assert _lines("a *b*\nc <i>d</i>")[0] == (0, "a b", "paragraph")
    assert _lines("a ~~s~~\nb") == [(0, "a ", "paragraph"), (1, "b", "paragraph")]


@pytest.mark.parametrize(
    "element",
    [
        "<details><summary>S</summary>h</details>",
        "<details open><summary>T</summary>i</details>",
        "<s>x</s>",
        "<datalist><option>x</option>y</datalist>",
        "<dialog>x</dialog>",
        "<span popover>x</span>",
        "<em hidden>x</em>",
        '<a href="u" name="n">x</a>',
        '<input type="text" value="x">',
    ],
)
def test_an_element_the_renderer_does_not_write_shows_none_of_its_text(element: str) -> None:
    """A browser may hide, strike or move the text of raw HTML (an element the renderer never writes, or one of its
    own with an attribute it never gives): none of it counts as shown, and its line is reported."""
    view = read_markdown(f"- a {element} b\n- next")
    assert [(line.number, line.text) for line in view.lines] == [(0, "a  b"), (1, "next")]
    assert _uncertain(f"- a {element} b\n- next") == [(0, "raw HTML")]


@pytest.mark.parametrize("element", ["<em>x</em>", "<strong>x</strong>", "<code>x</code>", '<a href="u">x</a>'])
def test_raw_html_spelled_as_the_renderers_own_element_shows_its_text_and_is_reported(element: str) -> None:
    assert [line.text for line in read_markdown(f"a {element} b").lines] == ["a x b"]
    assert _uncertain(f"a {element} b") == [(0, "raw HTML")]


@pytest.mark.parametrize(
    ("text", "rows", "paragraph"),
    [
        ("X\n| a |\n| - |", [(1, "| a |", "header")], [0]),
        ("X\nW\n| a |\n| - |\n| 1 |", [(2, "| a |", "header"), (4, "| 1 |", "row")], [0, 1]),
        ("> X\n> | a |\n> | - |\n> | 1 |", [(1, "| a |", "header"), (3, "| 1 |", "row")], [0]),
    ],
)
def test_a_paragraph_a_table_interrupts_shows_nothing_and_the_header_row_keeps_its_line(
    text: str, rows: list[tuple[int, str, str]], paragraph: list[int]
) -> None:
    """cmark-gfm places the header row on the paragraph's first line and gives the paragraph no position: the
    header is on the line before the delimiter row, the paragraph's lines are reported, never shown."""
    assert _lines(text) == rows
    what = "a paragraph a table interrupts (renderers differ on whether a table can)"
    assert _uncertain(text) == [(line, what) for line in paragraph]


def test_a_table_that_interrupts_an_items_text_keeps_its_header_on_its_line() -> None:
    assert _lines("- X\n  | a |\n  | - |") == [(0, "X", "item"), (1, "| a |", "header")]


@pytest.mark.parametrize("text", ["1. | a |\n   | - |\n    | 1 |", "> 1. | a |\n>    | - |\n>     | 1 |"])
def test_a_table_row_indented_four_spaces_is_reported_on_its_line(text: str) -> None:
    assert _uncertain(text) == [(2, "a table row indented as code (renderers differ on whether it is a row)")]


def test_a_collapsed_details_hides_its_content() -> None:
    view = read_markdown("x <details><summary>S</summary>hidden</details> y")
    assert [line.text for line in view.lines] == ["x "] and _uncertain("x <details>") == [(0, "raw HTML")]


def test_one_finding_per_line_the_first_construct_found_there() -> None:
    assert read_markdown("![a](b) ~~c~~\n\n~~d~~").uncertain == [
        Uncertain(0, "an image (its alternative text may or may not be shown)"),
        Uncertain(2, "struck-through text"),
    ]


def test_lines_of_markers_and_delimiter_rows_are_structure_not_unshown_text() -> None:
    assert _uncertain("-\n\n*\n\n+\n\n>\n\n---\n\n***\n\n___\n\n> | a |\n> | - |") == []


@pytest.mark.parametrize(
    "text",
    [
        "x\n\n# h\n[r]: /x",
        "x\n\n***\n[r]: /x",
        "x\n\n```\nc\n```\n[r]: /x",
        "x\n\n> | a |\n> | - |\n> | 1 |\n[r]: /x",
    ],
)
def test_text_no_block_shows_is_reported_right_after_any_block(text: str) -> None:
    last = text.count("\n")
    assert _uncertain(text) == [(last, "text no block shows (a link reference definition, say)")]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\nb\nc <b>x</b>\nd", [0, 1, 2, 3]),
        ("- a\n- b\n  c <i>y</i>", [1, 2]),
        ("| a |\n| - |\n| <b>1</b> |", [2]),
        ("> a\n> b <span>", [0, 1]),
        ("a <br> <b>x</b>\nc", [0, 1]),  # a line break tag beside other raw HTML
        ("a <br class=x>\nc", [0, 1]),
        ("a </br>\nc", [0, 1]),
        ("a\n\n<!-- c -->\n", [2]),
        ("# h\n\n\n<p>x</p>", [3]),
        ("x **a\nb <i>c</i>**", [0, 1]),
        ("p\n\n\n\n<div>\nx\n</div>\n\nq", [4, 5, 6]),
        ("a\n*b\nc*\nd <b>x</b>", [0, 1, 2, 3]),
        ("x <textarea>\nh\n</textarea> y\nz", [0, 1, 2, 3]),  # the HTML parser drops the line break after <textarea>
        ("# h\n<!-- c -->\nok", [1]),
    ],
)
def test_raw_html_is_reported_on_the_line_that_holds_it(text: str, lines: list[int]) -> None:
    """Inline HTML on every line of the block it sits in (an element may span them, and the HTML parser may drop a
    line break inside one), block HTML on the first non-blank line after the block before it."""
    assert [line for line, _ in _uncertain(text)] == lines
    assert _uncertain(text)[0][1] == "raw HTML"


def test_text_after_a_collapsed_details_in_an_item_stays_on_its_source_line() -> None:
    """The hidden content's line breaks count, and the line break the renderer puts before the item's HTML block
    is not in the source: nothing of the element shows, `after` is on its own line, every line of the item is
    reported."""
    text = "- <details><summary>S</summary>\n  secret\n  </details>\n  after"
    shown = [(number, line) for number, line, _ in _lines(text) if line]
    assert shown == [(3, "after")]
    assert _uncertain(text) == [(line, "raw HTML") for line in range(4)]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a <!-- x\ny --> b\nc", [(0, "a "), (1, " b"), (2, "c")]),
        ("a <b hidden>x\ny</b> b\nc", [(0, "a "), (1, " b"), (2, "c")]),
        ("a ~~x\ny~~ b\nc", [(0, "a "), (1, " b"), (2, "c")]),
        ("- x <details><summary>S</summary>\n  h </details> y\n  z", [(0, "x "), (1, " y"), (2, "z")]),
        ("- x <details>\n  h <summary>S</summary> i\n  j </details> y\n  z", [(0, "x "), (2, " y"), (3, "z")]),
    ],
)
def test_text_after_hidden_text_that_spans_lines_stays_on_its_source_line(
    text: str, shown: list[tuple[int, str]]
) -> None:
    assert [(number, line) for number, line, _ in _lines(text) if line] == shown


def test_an_items_text_after_an_empty_marker_line_is_on_the_next_line() -> None:
    assert _lines("-\n  a\n- b") == [(1, "a", "item"), (2, "b", "item")]
    assert _lines("-\n  <em>x</em>")[0][:2] == (1, "x")


@pytest.mark.parametrize(
    ("text", "markers"),
    [("- 1) a\n  2) b", ["1)", "2)"]), ("> 1) a\n> 2) b", ["1)", "2)"]), ("1. 3) a\n   4) b", ["3)", "4)"])],
)
def test_an_inner_list_that_starts_on_its_outer_items_line_reads_its_own_marker(text: str, markers: list[str]) -> None:
    assert [line.marker for line in read_markdown(text).lines if line.marker] == markers


@pytest.mark.parametrize("text", ["<!-- c -->\nok", "<!-- a -->\n<!-- b -->\nok", "<div>x</div>\n\nok"])
def test_raw_html_that_opens_the_transcript_is_reported_as_raw_html(text: str) -> None:
    """The HTML5 parser moves a comment that opens the document out of <body>: still found, and named."""
    assert _uncertain(text)[0] == (0, "raw HTML")
    assert _lines(text)[-1] == (text.count("\n"), "ok", "paragraph")


FOOTNOTE = "a footnote (a renderer with footnotes on, as GitHub's, moves it or hides it)"
IMAGE = "an image (its alternative text may or may not be shown)"
UNPLACEABLE = "text whose line breaks the renderer does not keep (a code span or link over lines)"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Cash[^1] 100\n\n[^1]: restated\n\nTotal 5", [(0, FOOTNOTE), (2, FOOTNOTE)]),  # the reference, the definition
        # A definition over two lines; without footnotes, a link reference definition and a paragraph the renderer
        # places on the definition's line.
        ("- Cash[^n]\n\n[^n]: note\n    more of it\n\nTotal 5", [(0, FOOTNOTE), (2, UNPLACEABLE), (3, UNPLACEABLE)]),
        ("[^x]: a definition nothing refers to\n\nshown", [(0, FOOTNOTE)]),  # not shown at all with footnotes on
        ("a [^b c] d\n\ne [^1] f", []),  # a caret in brackets, no footnote
    ],
)
def test_a_footnote_is_reported_on_every_line_a_renderer_with_footnotes_on_moves_or_hides(
    text: str, found: list[tuple[int, str]]
) -> None:
    assert _uncertain(text) == found


def test_a_task_lists_boxes_are_read_as_drawn_and_only_a_disabled_check_box_is_drawn_as_one() -> None:
    """cmark-gfm writes a task list item's box as a disabled check box; a check box in raw HTML is drawn as a box
    only when it is one the renderer could have written."""
    assert _lines("- [x] done\n- [ ] open\n- [X] also") == [
        (0, "[x] done", "item"),
        (1, "[ ] open", "item"),
        (2, "[x] also", "item"),
    ]
    inputs = [
        '<input type="checkbox" disabled checked>',
        '<input type="checkbox" disabled>',
        '<input type="checkbox" checked>',
        '<input type="radio" disabled checked>',
        "<input disabled>",
    ]
    view = read_markdown("\n\n".join(f"a {element} b" for element in inputs))
    assert [line.text for line in view.lines] == ["a [x] b", "a [ ] b", "a  b", "a  b", "a  b"]
    assert [item.line for item in view.uncertain] == [0, 2, 4, 6, 8]  # raw HTML all the same


@pytest.mark.parametrize(
    ("text", "emphasized"),
    [
        ("**Assets**", [True]),
        ("*Assets*", [True]),
        ("**Assets:**", [True]),
        ("**Assets**:", [True]),
        ("- **Cash**", [True]),
        ("**Assets** total", [False]),
        ("**Assets** X", [False]),
        ("**A** and **B**", [False]),
        ("`Assets`", [False]),
        ("# **Assets**", [False]),  # a heading is a title already
        ("**Assets\ntotal**", [False, False]),  # a title is one line
        ("- **Cash** 5\n- *Bank*", [False, True]),
    ],
)
def test_a_line_is_emphasized_when_its_whole_visible_text_is_one_bold_or_italic_run(
    text: str, emphasized: list[bool]
) -> None:
    assert [line.emphasized for line in read_markdown(text).lines] == emphasized


def test_a_hard_break_in_a_heading_or_a_table_cell_reads_as_a_space() -> None:
    assert _lines("a  \nb\n===") == [(0, "a ", "heading"), (1, "b", "heading")]
    assert read_markdown("| a<br>b | c |\n| - | - |").lines[0].cells == ("a b", "c")


@pytest.mark.parametrize("tag", ["<br>", "<BR>", "<br/>", "<br />"])
def test_a_line_break_tag_is_a_hard_line_break_and_shows_the_text_around_it(tag: str) -> None:
    """A renderer that keeps raw HTML draws it as a break, one that escapes it as the tag between the same words."""
    assert read_markdown(f"a{tag}\nb\nc").lines == [
        ShownLine(0, "a", "paragraph", list_id=1),
        ShownLine(1, "b", "paragraph", list_id=1, after_break=True),
        ShownLine(2, "c", "paragraph", list_id=1, continues=True),
    ]
    assert [line.text for line in read_markdown(f"- Cash{tag}1,000\n- b").lines] == ["Cash 1,000", "b"]
    assert read_markdown(f"| a{tag}b | c |\n| - | - |").uncertain == []
    assert read_markdown(f"> x {tag}\n> `<i>`").uncertain != []  # a `<` that opens no line break tag, even in code
    assert read_markdown(f"a{tag}\n\n< 1 year").uncertain == []  # a `<` that opens no tag
    assert read_markdown(f"a{tag}\n\n<https://example.com> <a@example.com>").uncertain == []  # autolinks
    assert read_markdown(f"a{tag}\n\n<1@x.io> <b hidden>c</b>").uncertain != []  # a tag, beside an autolink


def test_a_line_is_ended_after_a_line_break_tag_that_text_follows_where_the_renderer_draws_it_alike() -> None:
    assert split_at_line_breaks("a\n- b<br> c<BR/>d\n> e<br />f\n\ng") == (
        "a\n- b<br>\nc<BR/>\nd\n> e<br />\nf\n\ng",
        [0, 1, 1, 1, 2, 2, 3, 4],
    )
    assert split_at_line_breaks("a<br>\nb<br>  \nc") is None  # every tag ends its line already
    assert split_at_line_breaks("| a<br>b | c |\n| - | - |") is None  # a cell: the row stays one line
    for drawn_otherwise in ("`a<br>b`", "    a<br>b", "a<br><b>c</b>", "<br>b", "# a<br>b"):
        assert split_at_line_breaks(drawn_otherwise) is None, drawn_otherwise
    # Within a line: not a tag in a code span, nor one with nothing before it; a heading stays one line.
    assert split_at_line_breaks("a `x<br>y` b<br>c") == ("a `x<br>y` b<br>\nc", [0, 0])
    assert split_at_line_breaks("`Cash`: 1<br>`Bank`: 2") == ("`Cash`: 1<br>\n`Bank`: 2", [0, 0])
    assert split_at_line_breaks("<br>Thanks\n# Fees<br>x\n\na<br>b") == (
        "<br>Thanks\n# Fees<br>x\n\na<br>\nb",
        [0, 1, 2, 3, 3],
    )
    assert split_at_line_breaks("``a<br>b`` c<br>d ``e`` `f<br>g") == ("``a<br>b`` c<br>\nd ``e`` `f<br>\ng", [0, 0, 0])
    # An escaped backtick opens no span; the rest of its run, or a backtick after an escaped backslash, does; in a
    # span, a backslash is text.
    assert split_at_line_breaks("a \\`x<br>y` b") == ("a \\`x<br>\ny` b", [0, 0])
    for in_span in ("a \\\\`x<br>y` b", "a \\``x<br>y` b"):
        assert split_at_line_breaks(in_span) is None, in_span
    assert split_at_line_breaks("`a\\`<br>b") == ("`a\\`<br>\nb", [0, 0])
    # A line left as it is, where a tag shows as written or parts cells, leaves the others to be split.
    for kept in ("| a<br>b | c |\n| - | - |", "`a<br>b` c", "```\na<br>b\n```", "    a<br>b"):
        lines = kept.count("\n") + 1
        assert split_at_line_breaks(f"{kept}\n\nx<br>y") == (
            f"{kept}\n\nx<br>\ny",
            [*range(lines + 2), lines + 1],
        ), kept


@pytest.mark.parametrize(
    ("shown", "ended"),
    [
        ("a<br>- b", "a<br>\n\\- b"),
        ("a<br>+ b", "a<br>\n\\+ b"),
        ("a<br># b", "a<br>\n\\# b"),
        ("a<br>> b", "a<br>\n\\> b"),
        ("a<br>=", "a<br>\n\\="),
        ("a<br>1) b", "a<br>\n1\\) b"),
        ("a<br>123456789. b", "a<br>\n123456789\\. b"),
        ("a<br>- b<br>2. c", "a<br>\n\\- b<br>\n2\\. c"),
    ],
)
def test_what_would_start_a_block_after_a_tag_is_escaped_on_its_own_line(shown: str, ended: str) -> None:
    """Ended there, the line would start a block of its own (a list, a heading, a quote): escaped, it is drawn as the
    text it is after the tag."""
    lines = ended.count("\n") + 1
    assert split_at_line_breaks(f"{shown}\n\nx<br>y") == (f"{ended}\n\nx<br>\ny", [0] * lines + [1, 2, 2])
    assert split_at_line_breaks("a<br>1234567890. b") == ("a<br>\n1234567890. b", [0, 0])  # no list marker
    assert split_at_line_breaks("a<br>*b* c") == ("a<br>\n*b* c", [0, 0])  # emphasis starts no block


@pytest.mark.parametrize(
    "kept",
    [
        "a<br><div>b</div>",
        "a<br>| b |",
        "a<br><b>c</b>",
        # Escaped, these would no longer close emphasis or a code span, or open one.
        "a<br>* b",
        "Fees are *low<br>* as shown.",
        "a<br>```",
        "Quote code as<br>```x``` inline.",
        "a<br>~~~",
    ],
)
def test_a_tag_before_html_a_star_bullet_a_fence_or_in_a_table_line_is_left_in_its_line(kept: str) -> None:
    """Escaped, HTML would show as written; a `|` line may be a table's row. The other lines are split."""
    assert split_at_line_breaks(f"{kept}\n\nx<br>y") == (f"{kept}\n\nx<br>\ny", [0, 1, 2, 2])


def test_where_an_escape_would_change_what_is_drawn_no_tag_before_a_blocks_start_is_ended() -> None:
    """In an image's text, the escape's backslash would be the image's: the other lines are split as before."""
    image = "![chart<br>- fees](x.png)"
    assert split_at_line_breaks(f"x<br>y\n\n{image}") == (f"x<br>\ny\n\n{image}", [0, 0, 1, 2])
    assert split_at_line_breaks(f"x<br>- y\n\n{image}") is None


def test_code_blocks_are_found_for_the_split_without_the_html_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read from the renderer's HTML as written, before the cap on raw HTML that keeps the parser's cost bounded."""

    def refuse(*_: object) -> None:
        raise AssertionError("the HTML parser was called")

    monkeypatch.setattr("mcp_rendering.transcript.LexborHTMLParser", refuse)
    shown = "```\nx<br>y\n```\n\n- a\n\n      c<br>d\n\ne<br>f" + "\n\na<div><b>" * 100
    split = split_at_line_breaks(shown)
    assert split is not None and split[0].startswith("```\nx<br>y\n```\n\n- a\n\n      c<br>d\n\ne<br>\nf")


def test_raw_html_in_the_header_row_of_a_table_that_interrupts_a_paragraph_is_found() -> None:
    """The renderer places that row on the paragraph's first line, which holds no tag."""
    styled = read_markdown("Note\n| a <style>tbody{display:none}</style> | b |\n| - | - |\n| 1 | 2 |")
    assert styled.lines == []  # a style sheet: nothing certain
    hidden = read_markdown("Note\n| a <span hidden>x</span> | b |\n| - | - |\n| 1 | 2 |")
    assert (1, "raw HTML") in [(item.line, item.what) for item in hidden.uncertain]


def test_lines_after_a_hard_break_keep_their_block_and_list_and_start_anew() -> None:
    assert read_markdown("intro\n\none  \ntwo\nthree").lines == [
        ShownLine(0, "intro", "paragraph", list_id=1),
        ShownLine(2, "one", "paragraph", list_id=2),
        ShownLine(3, "two", "paragraph", list_id=2, after_break=True),
        ShownLine(4, "three", "paragraph", list_id=2, continues=True),
    ]
    assert read_markdown("- one\\\n  two").lines == [
        ShownLine(0, "one", "item", list_id=1, marker="-"),
        ShownLine(1, "two", "item", list_id=1, after_break=True),
    ]


def test_a_blank_line_in_a_code_block_is_shown_and_a_line_of_hidden_text_in_a_paragraph_is_not() -> None:
    assert read_markdown("```\na\n\nb\n```").lines == [
        ShownLine(1, "a", "code"),
        ShownLine(2, "", "code", continues=True),
        ShownLine(3, "b", "code", continues=True),
    ]
    assert [(line.number, line.text) for line in read_markdown("a\n<b></b>\nb").lines] == [(0, "a"), (2, "b")]


def test_paragraphs_and_lists_are_numbered_in_one_sequence_and_a_heading_is_in_none() -> None:
    assert read_markdown("# T\n\np\n\n- a\n\nq\n\n> r").lines == [
        ShownLine(0, "T", "heading"),
        ShownLine(2, "p", "paragraph", list_id=1),
        ShownLine(4, "a", "item", list_id=2, marker="-"),
        ShownLine(6, "q", "paragraph", list_id=3),
        ShownLine(8, "r", "paragraph", list_id=4),  # no marker inside a block quote
    ]


@pytest.mark.parametrize(
    ("text", "markers"),
    [("- é\n- b", ["-", "-"]), ("1) ü\n2) b", ["1)", "2)"]), ("- a\n  - ü\n  - b", ["-", "-", "-"])],
)
def test_an_items_marker_is_read_before_text_that_is_not_ascii(text: str, markers: list[str]) -> None:
    assert [line.marker for line in read_markdown(text).lines] == markers


def test_a_collapsed_details_without_a_summary_shows_none_of_its_content_and_what_follows_it_all() -> None:
    assert _lines("- a <details>x<b>y</b></details> tail") == [(0, "a  tail", "item")]


def test_an_empty_paragraph_the_html_parser_makes_is_skipped() -> None:
    """`</p>` after a block element the HTML5 parser closed the paragraph for makes an empty paragraph of its own,
    with no position, followed by a block that is no table."""
    assert _lines("a <details>x</details> b\n\nnext") == [(0, "a ", "paragraph"), (2, "next", "paragraph")]


def test_only_the_lines_of_a_paragraph_a_table_interrupts_are_reported() -> None:
    what = "a paragraph a table interrupts (renderers differ on whether a table can)"
    assert _uncertain("intro\n\npara\n| a |\n| - |\n| 1 |") == [(2, what)]


def test_a_body_row_that_begins_with_text_then_spaces_is_no_row_indented_as_code() -> None:
    assert _uncertain("| a | b |\n| - | - |\nX    | Y") == []


def test_lines_of_markers_in_raw_html_are_not_reported_as_unshown_text() -> None:
    """The raw HTML block's first line is reported; a line of list markers in it shows no text of a record."""
    assert _uncertain("- a\n<div>\n-\n+\n*\nx") == [
        (1, "raw HTML"),
        (5, "text no block shows (a link reference definition, say)"),
    ]


def test_a_delimiter_row_holding_a_tab_is_structure() -> None:
    assert _uncertain("| a | b |\n|\t:- | - |\n| 1 | 2 |") == []


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("a\n*b <!-- c --> d*\ne\n\nnext", [0, 1, 2]),  # in emphasis, not at block level
        ("| a | b |\n| - | - |\n| *x <!-- c -->* | 2 |\n\nnext", [2]),
        ("- a\n- *b <i>c</i>*\n- d\n\nnext", [1]),
        ("> a\n>\n\n<div>x</div>", [3]),  # the block before it is the block quote, not its paragraph
        ("> a\n> b\n>\n> c\n>\n> <div>x</div>", [5]),  # at block level in a block quote, after its blocks
        ("> <div>x</div>\n>\n> more", [0]),
    ],
)
def test_raw_html_is_reported_on_its_line_inside_emphasis_and_after_a_container(text: str, lines: list[int]) -> None:
    assert _uncertain(text) == [(line, "raw HTML") for line in lines]


POSITIONS = "raw HTML that writes the renderer's own source positions (no line can be placed)"


@pytest.mark.parametrize(
    "element",
    [
        '<p data-sourcepos="5:1-5:9">Sales 100</p>',  # on a blank line
        '<p data-sourcepos="1:1-1:5">Sales 100</p>',  # on the line of the renderer's own paragraph, as it places it
        '<P DATA-SOURCEPOS="1:1-1:5">Sales 100</P>',
        '<p data-sourcepos="1:1-1:5">Sales 100</p><textarea>',  # in its place, the renderer's own swallowed
        '<ul><li data-sourcepos="3:14-3:14">Sales 100</li></ul>',  # a column that moves an item's text
        f'<p data-sourcepos="1:1-{"9" * 9}:1">x</p>' * 20,  # past the end, many times: nothing is walked
        '<li data-sourcepos="²:1-1:1">x</li>',
    ],
)
def test_a_transcript_whose_raw_html_writes_the_renderers_source_positions_shows_no_line(element: str) -> None:
    """cmark-gfm places each block by the `data-sourcepos` it writes; raw HTML that writes it too could put its text
    on any line, or in the place of the renderer's own, so no line is certain."""
    view = read_markdown(f"Intro\n\n{element}\n\n\nend")
    assert view.lines == []
    assert view.uncertain == [Uncertain(0, POSITIONS), Uncertain(2, POSITIONS), Uncertain(5, POSITIONS)]


@pytest.mark.parametrize("text", ["The `data-sourcepos` attribute\n\nend", "a <b>b</b>\n\nend"])
def test_the_attributes_name_without_raw_html_or_raw_html_without_it_is_read_as_usual(text: str) -> None:
    assert [line.number for line in read_markdown(text).lines] == [0, 2]


@pytest.mark.parametrize(
    ("position", "span", "source"),
    [
        ("1:1-1:3", (0, 0), "- a"),
        ("1:3-1:3", (0, 0), "a"),
        ("1:99-1:99", (0, 0), ""),  # a column past the line
        ("²:1-1:1", None, ""),
        ("1:²-1:1", (0, 0), ""),
        (f"{'9' * 5000}:1-1:1", None, ""),
        ("1:1-:1", None, "- a"),  # no end line: the start alone places the item's source
        (":-:", None, ""),
        ("", None, ""),
        ("0:0-0:0", None, ""),
    ],
)
def test_a_position_in_a_form_cmark_gfm_never_writes_places_nothing(
    position: str, span: tuple[int, int] | None, source: str
) -> None:
    """Read by itself, as the walk reads every position: no value makes reading it fail."""
    element = LexborHTMLParser(f'<li data-sourcepos="{position}">x</li>').css_first("li")
    assert element is not None
    assert _start_end(element) == span
    assert _source_from(element, ["- a"])[1] == source


def test_more_raw_html_than_is_read_leaves_no_line_certain_and_up_to_the_limit_all_is_read() -> None:
    """The HTML parser's cost grows faster than the raw HTML it holds (unclosed inline elements): past the limit the
    transcript is not parsed, and nothing of it is certain."""
    at_limit = "a <b>x</b>\n\n" * (MAX_RAW_HTML // 2) + "end"
    assert read_markdown(at_limit).lines[-1].text == "end"
    over = at_limit.replace("end", "<i>end")
    view = read_markdown(over)
    assert view.lines == []
    what = f"more raw HTML than is read (over {MAX_RAW_HTML} pieces)"
    assert view.uncertain == [Uncertain(number, what) for number in range(0, MAX_RAW_HTML + 1, 2)]


def test_a_lone_surrogate_is_refused_with_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"lone surrogate \(U\+D800\)"):
        read_markdown("a\ud800")


LINE_ENDING = "a line ending the renderer sees and a line count does not (a carriage return)"


def test_a_carriage_return_alone_leaves_no_line_certain() -> None:
    """The renderer ends a line at a carriage return, the line count does not: no line can be placed."""
    assert read_markdown("a\rb\n\nc").lines == []
    assert _uncertain("a\rb\n\nc") == [(0, LINE_ENDING), (2, LINE_ENDING)]


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("Alice&#10;Bob\n\nc", [0]),
        ("- a&#13;b\n\nc", [0]),
        ("a &#x0A; b\n\nc", [0]),
        ("a &#X00d; b\n\nc", [0]),
        ("# a &NewLine; b\n\nc", [0]),
        ("| h |\n| - |\n| a&#10;b |\n\nc", []),  # a cell is one line whatever it holds: the break is a space
        ("![a&#10;b](x) y\nz\n\nc", [0, 1]),
    ],
)
def test_a_reference_to_a_line_break_leaves_its_block_unplaced(text: str, lines: list[int]) -> None:
    """The renderer decodes it into a line break the source does not have: the block's lines cannot be told apart,
    and the next block is placed as ever."""
    assert [line for line, _ in _uncertain(text)] == lines
    assert all(what in (UNPLACEABLE, IMAGE) for _, what in _uncertain(text))
    assert _lines(text)[-1] == (text.count("\n"), "c", "paragraph")


def test_a_reference_to_a_line_break_the_renderer_decodes_leaves_its_block_unplaced_whatever_the_count() -> None:
    """A line break it loses elsewhere in the block would make the count come out right: which lines show what
    cannot be told by counting, so the block is not placed, also beside references it shows as written."""
    assert _uncertain("[r]: /u\nAlice&#10;Bob") == [(0, UNPLACEABLE), (1, UNPLACEABLE)]
    assert _uncertain("a `b\nc` d&#10;e\nf") == [(0, UNPLACEABLE), (1, UNPLACEABLE), (2, UNPLACEABLE)]
    assert _uncertain("write `&#10;` or &#10;\n\nok") == [(0, UNPLACEABLE)]
    assert _uncertain("a &amp;#10; b&#10;c\n\nok") == [(0, UNPLACEABLE)]  # spelled as a reference, not decoded
    # `&` is punctuation to the rules of emphasis: the reference made inert must stay so.
    assert _uncertain("&amp;#1*0;.*&#10;x `a\nb` c") == [(0, UNPLACEABLE), (1, UNPLACEABLE)]


@pytest.mark.parametrize("text", ["write `&#10;` for a line feed", "write \\&#10; for a line feed", "`&#x0A;`"])
def test_a_reference_to_a_line_break_the_renderer_shows_as_written_is_text_like_any_other(text: str) -> None:
    """In a code span or after a backslash the renderer shows it as written: no line break, nothing to place."""
    assert _uncertain(text + "\n\nok") == []
    assert _lines(text)[0][0] == 0


@pytest.mark.parametrize("text", ["a &#100; b", "a &#xAB; b", "a &#1013; b", "a &newline; b", "a\r\nb"])
def test_other_references_and_a_crlf_line_ending_are_read_as_written(text: str) -> None:
    assert read_markdown(text).uncertain == []


PAGE_WIDE = (
    "raw HTML with a style sheet, a style attribute or a script, or attributes of the whole page (it can hide any line)"
)


@pytest.mark.parametrize(
    "html",
    [
        "<style>td{display:none}</style>",
        "<svg><style>td{display:none}</style></svg>",
        '<link rel="stylesheet" href="x.css">',
        '<span style="position:fixed;inset:0;background:white">x</span>',
        '<em STYLE="x">y</em>',
        "<script>document.body.hidden = true</script>",
        '<img src="x" onerror="document.body.hidden = true">',
        '<IMG SRC="x" ONERROR="document.body.hidden = true">',
        "<noscript>",  # a browser running scripts reads everything up to `</noscript>` as its text
        "<body hidden>",
        '<html dir="rtl">',
        '<iframe srcdoc="<script>parent.document.body.hidden = true</script>"></iframe>',
        '<object data="x.html"></object>',
        '<meta http-equiv="refresh" content="0; url=https://example.com/">',
        '<template shadowrootmode="open"></template>',  # a shadow root on the page: nothing else of it shows
        '<svg width="1" height="1" overflow="visible"><rect y="-500" width="2000" height="900" fill="white"/></svg>',
        "<dialog open>x</dialog>",  # drawn over the page
    ],
)
def test_raw_html_that_can_hide_any_line_leaves_no_line_certain(html: str) -> None:
    text = f"| Name | Amount |\n| - | - |\n| Alice | 100 |\n\nSee {html}."
    assert read_markdown(text).lines == []
    assert _uncertain(text) == [(line, PAGE_WIDE) for line in (0, 1, 2, 4)]


@pytest.mark.parametrize("prose", ["Based on = one=1 <b>x</b>.", 'See <a href="u">online = yes</a>.'])
def test_prose_that_only_reads_like_an_event_handler_is_raw_html_of_its_line(prose: str) -> None:
    text = f"| Name | Amount |\n| - | - |\n| Alice | 100 |\n\n{prose}"
    assert _lines(text)[:2] == [(0, "| Name | Amount |", "header"), (2, "| Alice | 100 |", "row")]
    assert _uncertain(text) == [(4, "raw HTML")]


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ("- x\n  ```\n  c\n  ```\n  b\n- next", 4),
        ("- x\n  # H\n  b\n- next", 2),
        ("- x\n  ***\n  b\n- next", 2),
    ],
)
def test_an_items_text_after_one_of_its_blocks_is_on_its_own_line_and_no_item_of_its_own(text: str, after: int) -> None:
    """In a tight item, text after a code block, heading or rule: the renderer's line break after the block is not
    the source's, and the line is the item's, not a new item."""
    view = read_markdown(text)
    assert view.uncertain == []
    line = next(line for line in view.lines if line.text == "b")
    assert (line.number, line.block, line.after_break, line.marker) == (after, "item", True, "")
    assert [line.number for line in view.lines if line.block == "item"] == [0, after, after + 1]


@pytest.mark.parametrize(
    ("text", "lines", "what"),
    [
        ("x\ny ~~Alice~~ z", [1], "struck-through text"),
        ("x\ny ~~Alice\n100~~ z", [1, 2], "struck-through text"),
        ("x\ny ![a](b) z", [1], "an image (its alternative text may or may not be shown)"),
        ('x\ny [a\nb](u "t") z', [1, 2], "a link title (a tooltip)"),
        ("- x\n  ```\n  c\n  ```\n  ~~b~~", [4], "struck-through text"),
    ],
)
def test_a_construct_is_reported_on_every_line_it_spans(text: str, lines: list[int], what: str) -> None:
    assert _uncertain(text) == [(line, what) for line in lines]


@pytest.mark.parametrize(
    "cell",
    ["1 <tbody hidden>", "1 <tbody>", "1 <thead>", "1 <tfoot>"],
)
def test_rows_raw_html_moves_into_a_row_group_of_its_own_show_nothing(cell: str) -> None:
    """Raw HTML in a cell may open a row group the renderer never writes (hidden, or a header the reader takes
    for titles): the rows it takes are reported, not shown."""
    text = f"| h | v |\n|---|---|\n| a | {cell} |\n| b | 2 |"
    assert _certified(text) == [(0, "| h | v |")]
    assert [line for line, _ in _uncertain(text)] == [2, 3]


def _certified(text: str) -> list[tuple[int, str]]:
    view = read_markdown(text)
    reported = {item.line for item in view.uncertain}
    return [(line.number, line.text) for line in view.lines if line.number not in reported]


@pytest.mark.parametrize(
    "text",
    [
        "a <s>x\n\nBob 200",
        "- a <s>x\n- Bob 200",
        "- a <s>x\n\n- Bob 200",
        "> a <s>x\n>\n> Bob 200",
        "# a <s>x\n# Bob 200",
    ],
)
def test_what_the_parser_carries_raw_html_into_is_never_certified(text: str) -> None:
    """An unclosed formatting element is reopened around what follows it: `Bob 200` is struck through."""
    assert _certified(text) == []


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("`a\nb` x\nsecond", [0, 1, 2]),  # a code span's line break is a space
        ("[a](\nu) x\nsecond", [0, 1, 2]),  # so is one before a link's destination
        ("[foo]: /url\nbar 1", [0, 1]),  # the paragraph is placed on the definition's line
        ("- `x\n  y` z\n  next 1", [0, 1, 2]),
        ("- `x\n  y` z\n  next 1\n  - inner", [0, 1, 2]),
    ],
)
def test_text_whose_line_breaks_the_renderer_does_not_keep_shows_nothing(text: str, lines: list[int]) -> None:
    assert [line.number for line in read_markdown(text).lines if line.number in lines] == []
    assert _uncertain(text) == [(line, UNPLACEABLE) for line in lines]


@pytest.mark.parametrize(
    "text",
    [
        "Title\nmore\n===\n\nok",  # a setext heading over two lines: its underline is a line of its own
        "- a\n  b\n\n\n- c",  # an item's position takes in the blank lines after it
        "> - a\n>   b\n>\n> p",
        "- x\n  | a |\n  | - |\n  | 1 |",  # a table that interrupts an item's text
    ],
)
def test_blocks_whose_line_breaks_are_all_kept_are_placed(text: str) -> None:
    assert read_markdown(text).uncertain == []


def test_shown_lines_are_in_source_order() -> None:
    numbers = [line.number for line in read_markdown("- x\n  ```\n  c\n  ```\n  b\n- next").lines]
    assert numbers == sorted(numbers) == [0, 2, 4, 5]


def test_raw_html_between_ordered_items_does_not_renumber_them() -> None:
    """The HTML parser leaves an unclosed element between the items: a browser numbers the items only."""
    view = read_markdown("1. a <b>x\n2. y</b> z\n3. w\n4. v")
    assert [(line.number, line.marker) for line in view.lines] == [(0, "1."), (1, "2."), (2, "3."), (3, "4.")]


@pytest.mark.parametrize(
    ("text", "line"), [("- ```\n  x\n  ```", 1), ("> 1. ~~~\n>    x\n>    ~~~", 1), ("```\nx\n```", 1)]
)
def test_a_fenced_code_blocks_text_starts_after_its_fence_wherever_the_fence_opens(text: str, line: int) -> None:
    assert _lines(text) == [(line, "x", "code")]


def test_an_item_raw_html_takes_out_of_its_list_is_not_placed() -> None:
    view = read_markdown("1. a </ol>\n2. b\n3. c")
    assert min(item.line for item in view.uncertain) == 0
    assert [(line.number, line.text) for line in view.lines] == [(0, "a ")]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Title\n=====\nSome text.", [(0, "Title", "heading"), (2, "Some text.", "paragraph")]),
        ("- a\n  Setext\n  ===\n- b", [(0, "a", "heading"), (1, "Setext", "heading"), (3, "b", "item")]),
        ("> T\n> ==\n> p", [(0, "T", "heading"), (2, "p", "paragraph")]),
        ("- [x] \n  text", [(1, "[x] text", "item")]),  # a task list item's box alone on the marker's line
        ("- [x] \n- b", [(0, "[x] ", "item"), (1, "b", "item")]),
    ],
)
def test_a_setext_heading_and_a_task_box_alone_on_its_line_are_placed(
    text: str, shown: list[tuple[int, str, str]]
) -> None:
    assert _lines(text) == shown and _uncertain(text) == []


def test_a_setext_heading_whose_text_holds_a_code_span_over_lines_is_unplaceable() -> None:
    assert _uncertain("a\n`b\nc`\n===\nnext") == [(line, UNPLACEABLE) for line in range(5)]


def test_text_after_a_block_raw_html_puts_in_an_item_is_not_placed() -> None:
    """A raw `<p>` in an item is a block with no position: the text after it cannot be placed (the item's lines are
    reported), and the next item keeps its line."""
    text = "- a <p>x</p> b\n- c"
    assert _certified(text) == [(1, "c")]
    assert _uncertain(text) == [(0, "raw HTML")]


@pytest.mark.parametrize(
    ("text", "shown", "reported"),
    [
        ("#1 Pick\n-------", [(0, "#1 Pick", "heading")], []),  # a setext heading whose text starts with `#`
        ("`x\ny`\n=>\n===", [], [0, 1, 2, 3]),  # a code span's lost line break: `=>` is not its underline
        ("`x\ny` a&#10;b\n===", [], [0, 1, 2]),  # a lost line break and a decoded one: the count cannot tell
        ("Title\n===\n---", [(0, "Title", "heading")], []),  # a rule after it, which its position takes in
    ],
)
def test_a_setext_heading_ends_at_its_own_underline(
    text: str, shown: list[tuple[int, str, str]], reported: list[int]
) -> None:
    assert _lines(text) == shown
    assert [line for line, _ in _uncertain(text)] == reported


def test_items_after_an_item_raw_html_starts_are_numbered_uncertainly() -> None:
    """A raw `<li>` is numbered by a browser, with any number it gives itself: the numbers after it are not certain."""
    text = "1. a <li value=10>x\n2. b\n3. c"
    assert _uncertain(text) == [
        (0, "raw HTML"),
        (1, "an item numbered after an item raw HTML starts"),
        (2, "an item numbered after an item raw HTML starts"),
    ]
    assert _uncertain("- a <li>x\n- b") == [(0, "raw HTML")]  # bullets are not numbered


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("    ~~~ x\n    y", [(0, "~~~ x", "code"), (1, "y", "code")]),  # indented, not fenced
        ("    ```\n    y\n\n\nz", [(0, "```", "code"), (1, "y", "code"), (4, "z", "paragraph")]),
        ("~~~\n~~~ x\n~~~", [(1, "~~~ x", "code")]),
        ("```\na", [(1, "a", "code")]),  # a fence left open runs to the end
    ],
)
def test_an_indented_code_block_that_starts_like_a_fence_is_read_as_indented(
    text: str, shown: list[tuple[int, str, str]]
) -> None:
    assert _lines(text) == shown
