"""Differential proof of the audit: whenever it says clean, a second renderer shows every record.

Transcripts are generated from `present()`'s Markdown view of a generated document (labels and values full of
Markdown's and HTML's special characters) and then altered as a careless or hostile host might: raw HTML that
hides lines, broken escapes, emphasis, entities, moved, repeated and invented rows, indentation, fences, list and
quote markers, reference definitions, struck-through cells. The oracle renders each transcript with another
CommonMark implementation (markdown-it-py, GFM tables) and reads the text with another HTML5 parser (html5lib): the
audit, which uses cmark-gfm and Lexbor, must never call a transcript clean unless the oracle sees each section's
rows, in order, unaltered, under its own heading and its own header row, and no other table row.
"""

from __future__ import annotations

import re
from typing import Any

import html5lib
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from mcp_rendering.audit import audit, audit_document, fold
from mcp_rendering.document import Document, Row, Section
from mcp_rendering.host import present
from mcp_rendering.render import cell_text
from tests.support.answers import NULL_TEXT, Answer, corpus

_ALPHABET = st.sampled_from(list("abcXYZ019 |*_\\&<>`#[]!~-:.()"))
_TEXT = st.text(_ALPHABET, min_size=1, max_size=8).map(str.strip).filter(bool)
_NOT_SHOWN = {"script", "style", "template", "textarea", "title", "noscript", "iframe", "object", "select"}
_XHTML = "{http://www.w3.org/1999/xhtml}"


@st.composite
def documents(draw: st.DrawFn) -> Document:
    sections: list[Section] = []
    number = 0
    for index in range(draw(st.integers(min_value=1, max_value=2))):
        columns = tuple(draw(st.lists(_TEXT, min_size=1, max_size=2)))
        rows: list[Row] = []
        for _ in range(draw(st.integers(min_value=1, max_value=4))):
            values = tuple(draw(st.one_of(_TEXT, st.integers(-999, 999))) for _ in columns)
            rows.append(Row(id=f"r{number}", label=draw(_TEXT), values=values))
            number += 1
        sections.append(Section(id=f"s{index}", title=f"Section {index}", columns=columns, rows=tuple(rows)))
    return Document(title="Ledger", sections=tuple(sections))


def _result(document: Document) -> dict[str, Any]:
    return {"content": [], "structuredContent": {"document": document.model_dump(mode="json")}}


# ---------------------------------------------------------------------------------------------------- the oracle


def _text(element: Any) -> str:
    """The visible text of an element of html5lib's tree (comments, hidden and raw-text elements show nothing)."""
    tag = element.tag.removeprefix(_XHTML) if isinstance(element.tag, str) else None
    if tag == "br":
        return "\n" + (element.tail or "")  # a browser starts a line there
    if tag is None or tag in _NOT_SHOWN or "hidden" in element.attrib or tag == "img":
        return element.tail or ""
    if tag == "details" and "open" not in element.attrib:
        summary = next((child for child in element if child.tag == _XHTML + "summary"), None)
        return (_text(summary) if summary is not None else "") + (element.tail or "")
    inner = (element.text or "") + "".join(_text(child) for child in element)
    return inner + (element.tail or "")


def _oracle_lines(transcript: str) -> list[tuple[str, tuple[str, ...]]]:
    """("h2", (title,)), ("th", cells) and ("td", cells) in document order, as markdown-it and html5lib show them."""
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(transcript)
    tree = html5lib.parse(rendered)
    found: list[tuple[str, tuple[str, ...]]] = []
    stack = [tree]
    while stack:
        element = stack.pop()
        tag = element.tag.removeprefix(_XHTML) if isinstance(element.tag, str) else None
        if tag is None or tag in _NOT_SHOWN or "hidden" in element.attrib:
            continue
        if tag == "details" and "open" not in element.attrib:
            continue  # a collapsed block: its records are not seen
        if tag == "li":
            continue  # a list item is no table row
        if tag in ("p", "pre"):
            # Text a reader sees with its pipes, one line of it a row: cells between the pipes.
            for line in _text(element).removesuffix(element.tail or "").split("\n"):
                if line.strip().startswith("|"):
                    cells = line.strip().removeprefix("|").removesuffix("|").split("|")
                    found.append(("td", tuple(fold(cell) for cell in cells)))
            continue
        if tag == "h2":
            found.append(("h2", (fold(_text(element).removesuffix(element.tail or "")),)))
            continue
        if tag == "tr":
            cells = tuple(fold(_text(cell).removesuffix(cell.tail or "")) for cell in element)
            header = any(cell.tag == _XHTML + "th" for cell in element)
            found.append(("th" if header else "td", cells))
            continue
        stack.extend(reversed(list(element)))
    return found


_SHOWN_AS = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _as_shown(text: str) -> str:
    """A text as the views draw it: a backslash, a tab and a line break are written as escapes (host guide)."""
    return "".join(_SHOWN_AS.get(char, char) for char in text)


def _expected(document: Document) -> list[tuple[str, tuple[str, ...]]]:
    lines: list[tuple[str, tuple[str, ...]]] = []
    for section in document.sections:
        lines.append(("h2", (fold(_as_shown(section.title)),)))
        lines.append(("th", ("", *(fold(_as_shown(column)) for column in section.columns))))
        lines.extend(
            ("td", (fold(_as_shown(row.label)), *(fold(_as_shown(cell_text(value, "-"))) for value in row.values)))
            for row in section.rows
        )
    return lines


def _oracle_sees_every_record(transcript: str, document: Document) -> bool:
    """Each section's heading, then its rows in order, and nothing else record-shaped; a header row, where there
    is one, is the header of the section it is in (a line of pipes outside a table has none)."""
    seen = _oracle_lines(transcript)
    expected = _expected(document)
    if [line for line in seen if line[0] != "th"] != [line for line in expected if line[0] != "th"]:
        return False
    header_of = {
        fold(_as_shown(section.title)): ("", *(fold(_as_shown(column)) for column in section.columns))
        for section in document.sections
    }
    section: str | None = None
    for kind, cells in seen:
        if kind == "h2":
            section = cells[0]
        elif kind == "th" and header_of.get(section or "") != cells:
            return False
    return True


# ------------------------------------------------------------------------------------------------ the alterations


def _row_lines(lines: list[str]) -> list[int]:
    return [index for index, line in enumerate(lines) if line.startswith("| ") and "---" not in line and index > 0]


@st.composite
def altered(draw: st.DrawFn, markdown: str) -> str:
    lines = markdown.split("\n")
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        rows = _row_lines(lines)
        at = draw(st.integers(min_value=0, max_value=len(lines)))
        how = draw(
            st.sampled_from(
                [
                    "comment",
                    "comment-closed",
                    "details",
                    "hidden-div",
                    "textarea",
                    "unescape",
                    "swap",
                    "repeat",
                    "invent",
                    "indent",
                    "blank",
                    "marker",
                    "emphasis",
                    "entity",
                    "fence",
                    "definition",
                    "strike",
                    "title",
                    "swap-cells",
                    "move-header",
                ]
            )
        )
        row = draw(st.sampled_from(rows)) if rows else None
        if how == "comment":
            lines.insert(at, "<!--")
        elif how == "comment-closed":
            end = draw(st.integers(min_value=at, max_value=len(lines)))
            lines[at:end] = ["<!--", *lines[at:end], "-->"]
        elif how == "details":
            end = draw(st.integers(min_value=at, max_value=len(lines)))
            lines[at:end] = ["<details>", "", *lines[at:end], "", "</details>"]
        elif how == "hidden-div":
            lines[at:at] = ["<div hidden>", ""]
        elif how == "textarea":
            lines.insert(at, "<textarea>")
        elif row is None:
            continue
        elif how == "unescape":
            lines[row] = lines[row].replace("\\|", "|", 1).replace("\\*", "*", 1).replace("\\_", "_", 1)
        elif how == "swap":
            other = draw(st.sampled_from(rows))
            lines[row], lines[other] = lines[other], lines[row]
        elif how == "repeat":
            lines.insert(row, lines[row])
        elif how == "invent":
            lines.insert(row, "| Invented | 1 |")
        elif how == "indent":
            lines[row] = "    " + lines[row]
        elif how == "blank":
            lines.insert(row, "")
        elif how == "marker":
            lines[row] = draw(st.sampled_from(["- ", "> ", "1. "])) + lines[row]
        elif how == "emphasis":
            lines[row] = lines[row].replace("| ", "| *", 1).replace(" |", "* |", 2)
        elif how == "entity":
            lines[row] = lines[row].replace("\\&", "&amp;").replace("\\<", "&lt;")
        elif how == "fence":
            lines[row:row] = ["```"]
        elif how == "definition":
            lines.insert(row, '[x]: /u "' + lines[row].replace('"', "") + '"')
        elif how == "strike":
            lines[row] = lines[row].replace("| ", "| ~~", 1).replace(" |", "~~ |", 2)
        elif how == "swap-cells":
            cells = lines[row].split(" | ")
            if len(cells) >= 3:
                cells[1], cells[-2] = cells[-2], cells[1]
                lines[row] = " | ".join(cells)
        elif how == "move-header":
            headers = [index for index, line in enumerate(lines) if line.startswith("|  |")]
            if headers:
                other = draw(st.sampled_from(headers))
                lines[row], lines[other] = lines[other], lines[row]
        else:  # a row's label turned into a link with a title
            lines[row] = lines[row].replace("| ", '| [x](/u "', 1).replace(" |", '") |', 2)
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------------ the proof


@given(documents())
def test_the_oracle_sees_every_record_of_a_faithful_view(document: Document) -> None:
    markdown = present(None, _result(document)).markdown
    assert audit(markdown, _result(document), markup="markdown").clean
    assert _oracle_sees_every_record(markdown, document), _oracle_lines(markdown)


@given(st.data(), documents())
def test_whenever_the_audit_says_clean_the_other_renderer_sees_every_record(
    data: st.DataObject, document: Document
) -> None:
    markdown = present(None, _result(document)).markdown
    transcript = data.draw(altered(markdown))
    report = audit(transcript, _result(document), markup="markdown")
    if report.clean:
        assert _oracle_sees_every_record(transcript, document), transcript


# ------------------------------------------------------------------------------- the corpus of natural answers

_CORPUS = list(corpus())
_GROUP_MARK = re.compile(r"(?<=\d)[,.'\u00a0\u202f\u2009 ](?=\d{3}(?!\d))")
_COMMA_FRACTION = re.compile(r"(?<=\d),(?=\d{1,2}(?!\d))")


def _oracle_text(value: str) -> str:
    """A value or a line as the oracle compares it: its own reading of grouped digits, written apart from the
    audit's (grouping marks between digits dropped, a comma before one or two digits read as the decimal mark)."""
    return fold(_COMMA_FRACTION.sub(".", _GROUP_MARK.sub("", value.replace("\u2212", "-"))))


def _visible_lines(transcript: str) -> list[str]:
    """Every visible line of text, as markdown-it and html5lib show it (a table row as its cells joined)."""
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(transcript)
    tree = html5lib.parse(rendered)
    found: list[str] = []
    stack = [tree]
    while stack:
        element = stack.pop()
        tag = element.tag.removeprefix(_XHTML) if isinstance(element.tag, str) else None
        if tag is None or tag in _NOT_SHOWN or "hidden" in element.attrib or tag in ("s", "del"):
            continue
        if tag == "details" and "open" not in element.attrib:
            continue
        if tag in ("p", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "tr") or (
            tag == "li"
            and not any(child.tag.endswith(("}ul", "}ol", "}p")) for child in element if isinstance(child.tag, str))
        ):
            text = " | ".join(_text(cell).removesuffix(cell.tail or "") for cell in element) if tag == "tr" else None
            if text is None:
                text = _text(element).removesuffix(element.tail or "")
            found.extend(_oracle_text(line) for line in text.split("\n") if line.strip())
            continue
        if tag == "li":
            # A tight item holding a nested list: its own text, outside any paragraph, is a line before the list.
            children = [child for child in element if isinstance(child.tag, str)]
            lists = [child for child in children if child.tag.endswith(("}ul", "}ol"))]
            if lists and not any(child.tag.endswith("}p") for child in children):
                own = (element.text or "") + "".join(_text(child) for child in element if child not in lists)
                found.extend(_oracle_text(line) for line in own.split("\n") if line.strip())
                stack.extend(reversed(lists))
                continue
        stack.extend(reversed(list(element)))
    return found


def _oracle_sees_every_record_in_order(transcript: str, document: Document, null_display: str) -> bool:
    """Each record, in order, on a visible line of its own holding its label and each of its values."""
    lines = _visible_lines(transcript)
    position = 0
    for section in document.sections:
        for row in section.rows:
            label = _oracle_text(_as_shown(row.label))
            values = [_oracle_text(_as_shown(cell_text(value, null_display))) for value in row.values]
            while position < len(lines) and not (
                label in lines[position] and all(value in lines[position] for value in values if value)
            ):
                position += 1
            if position == len(lines):
                return False
            position += 1
    return True


@st.composite
def corpus_answers(draw: st.DrawFn) -> tuple[Answer, str]:
    """An answer of the corpus, faithful or not, then maybe changed once more at one line as a careless or hostile
    writer would."""
    answer = draw(st.sampled_from(_CORPUS))
    lines = answer.text.split("\n")
    at = draw(st.integers(min_value=0, max_value=len(lines) - 1))
    how = draw(st.sampled_from(["none", "delete", "repeat", "comment", "digit", "strike", "swap", "indent"]))
    if how == "delete":
        del lines[at]
    elif how == "repeat":
        lines.insert(at, lines[at])
    elif how == "comment":
        lines[at] = "<!-- " + lines[at] + " -->"
    elif how == "digit":
        lines[at] = re.sub(r"\d", lambda digit: str((int(digit.group(0)) + 1) % 10), lines[at], count=1)
    elif how == "strike":
        lines[at] = "~~" + lines[at] + "~~"
    elif how == "swap" and at + 1 < len(lines):
        lines[at], lines[at + 1] = lines[at + 1], lines[at]
    elif how == "indent":
        lines[at] = "    " + lines[at]
    return answer, "\n".join(lines)


@given(corpus_answers())
def test_whenever_the_audit_accepts_a_natural_answer_the_other_renderer_sees_every_record(
    drawn: tuple[Answer, str],
) -> None:
    answer, transcript = drawn
    fixture = answer.fixture
    report = audit_document(transcript, fixture.document, complete=fixture.complete, null_display=NULL_TEXT)
    if report.clean:
        assert _oracle_sees_every_record_in_order(transcript, fixture.document, NULL_TEXT), transcript


def test_the_oracle_sees_every_record_of_every_faithful_answer_of_the_corpus() -> None:
    for answer in _CORPUS:
        if answer.faithful:
            assert _oracle_sees_every_record_in_order(answer.text, answer.fixture.document, NULL_TEXT), answer.name


def test_the_oracle_sees_a_record_whose_item_holds_a_nested_list() -> None:
    # Found by the thorough profile: a record indented under the one before makes that one's item hold a list.
    answer = next(answer for answer in _CORPUS if answer.faithful and "/bullets/" in answer.name)
    lines = answer.text.split("\n")
    at = next(index for index, line in enumerate(lines) if line.startswith("- ") and lines[index - 1].startswith("- "))
    lines[at] = "    " + lines[at]
    transcript = "\n".join(lines)
    fixture = answer.fixture
    report = audit_document(transcript, fixture.document, complete=fixture.complete, null_display=NULL_TEXT)
    assert report.clean, report
    assert _oracle_sees_every_record_in_order(transcript, fixture.document, NULL_TEXT)
