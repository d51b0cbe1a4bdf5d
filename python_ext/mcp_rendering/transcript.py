"""What a reader sees of a Markdown transcript, block by block, read by real parsers.

The transcript is rendered by cmark-gfm (GitHub's own CommonMark + GFM renderer, through `cmarkgfm`) with raw HTML
kept, as a host that renders HTML would show it, and the resulting HTML is parsed by an HTML5 parser (Lexbor,
through `selectolax`), as a browser would build it. The visible text of every block is then read from that tree:
the text of raw HTML (a comment, an element the renderer never writes, or one of its own with an attribute it never
gives) is not visible, a line break tag (`<br>`) is a hard line break at a line's end and a space inside a line or a
cell (the audit first ends a line after such a tag where the renderer draws the same: `split_at_line_breaks`), an
entity is what the HTML parser decodes it to, a list is numbered as the renderer numbers it.

Only what every CommonMark renderer shows alike is certain. Each construct whose visible text depends on the
renderer, its options, style sheets or attributes (raw HTML, images, link titles, struck-through text, text that no
block shows such as a link reference definition, and footnotes, which a renderer with footnotes on, as GitHub's,
moves to the end or leaves out when unreferenced) is reported as an `Uncertain` construct on each line it may
change (for raw HTML inside a block, every line of the block, unless every `<` that could open a tag opens a line
break tag, which a renderer that escapes raw HTML shows as the tag between the same words), and shows nothing: a record
it carries does not count as shown. What the renderer's options draw alike is read as drawn: a task list's check box
as `[x]` or `[ ]`, a hard line break as the start of a new line (not a run-on line).

Lines are placed by the `data-sourcepos` attribute cmark-gfm writes on its blocks and by the line breaks of their
text. A block whose text has other line breaks than its source (a code span or link over lines, a reference to a
line break the renderer decodes) has its lines reported. A transcript in which neither can be trusted has every line
reported and none shown: its raw HTML may write the attribute (it holds the attribute's name) or hide any line (a
style sheet, a script, a frame), or the renderer ends a line the source lines do not (a carriage return alone).

The cost stays linear in the transcript: raw HTML is located in one walk of the safe rendering, and nodes are
compared by position, never by their serialised HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, cast

import cmarkgfm  # pyright: ignore[reportMissingTypeStubs]
from cmarkgfm.cmark import Options  # pyright: ignore[reportMissingTypeStubs]
from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = [
    "MAX_RAW_HTML",
    "BlockKind",
    "ShownLine",
    "TranscriptView",
    "Uncertain",
    "read_markdown",
    "split_at_line_breaks",
]

BlockKind: TypeAlias = Literal["heading", "paragraph", "item", "row", "header", "code"]
"""The block a visible line belongs to: a heading, a paragraph, a list item's text, a table row, a table's header
row, or a code block (shown as plain text)."""

_EXTENSIONS = ["table", "strikethrough", "autolink", "tasklist"]
_SOURCEPOS = cast("int", Options.CMARK_OPT_SOURCEPOS)  # pyright: ignore[reportUnknownMemberType]
_UNSAFE = cast("int", Options.CMARK_OPT_UNSAFE)  # pyright: ignore[reportUnknownMemberType]
_RENDER_OPTIONS = _SOURCEPOS | _UNSAFE
"""Raw HTML kept, as a host that renders HTML shows it; each block marked with its source lines."""
_SAFE_OPTIONS = _SOURCEPOS
"""Raw HTML replaced by a comment: where the comments are is where raw HTML is."""

# The inline elements cmark-gfm writes, with the attributes it may give each: any other element, or one of these with
# another attribute (`hidden`, `popover`, ...), is raw HTML, whose text a browser may hide, move or change.
_RENDERERS_INLINE: dict[str, frozenset[str]] = {
    "em": frozenset(),
    "strong": frozenset(),
    "code": frozenset(),
    "del": frozenset(),
    "br": frozenset(),
    "a": frozenset({"href", "title"}),
    "img": frozenset({"src", "alt", "title"}),
    "input": frozenset({"type", "checked", "disabled"}),
}
_PAGE_WIDE = (
    "style, link, script, noscript, iframe, frame, frameset, object, embed, meta[http-equiv], template[shadowrootmode],"
    " template[shadowroot], svg, math, dialog[open], [style]"
)
"""Raw HTML that can hide, cover or replace any line of the page: style sheets and style attributes, scripts and
documents of the page's origin that may run them, what an HTML parser reads otherwise when scripts run (the one here
does not run them), a refresh to another page, a shadow root attached to the page, drawings that may paint outside
their box, an open dialog, drawn over the page."""
_EVENT_HANDLER = re.compile(r"\bon[a-z]+\s*=", re.IGNORECASE)
"""What an event handler attribute (a script) looks like in raw HTML: confirmed on the parsed elements."""
_UNCERTAIN_INLINE = "img, a[title], del, br, input"
"""The renderer's elements that are not shown as their text: of uncertain display, a hard break (which starts a new
visible line) and a task list's check box (drawn as `[x]` or `[ ]`)."""
_HARD_BREAK = "\x00"
"""Where a hard break is, in the text of a block (cmark-gfm never puts U+0000 in its output)."""
_BREAK_INSIDE_LINE = re.compile("\x00(?=[^\n])")
"""A line break tag inside a source line (one `split_at_line_breaks` could not end the line after): a visible line
is read as one source line, so it parts words as a space."""
_LINE_BREAK = r"<br[ \t]*/?>"
"""A line break tag (`<br>`, `<br/>`, `<br />`, in any case): cmark-gfm passes it on as raw HTML, and writes its own
hard breaks as `<br />`."""
_LINE_BREAK_TAG = re.compile(_LINE_BREAK, re.IGNORECASE)
_BREAK_BEFORE_TEXT = re.compile(rf"({_LINE_BREAK})[ \t]*(?=[^ \t\r\n<*`~]|\*[^ \t\r\n]|`(?!``)|~(?!~~))", re.IGNORECASE)
"""A line break tag with text after it on its line, but for a `<` (escaped, a tag would show as written) and what
would start a block with a character that means something inside a line too (a `*` bullet, a fence): escaped, it
might no longer close emphasis or a code span."""
_BLOCK_START = re.compile(r"[0-9]{1,9}[.)]|[-+#>=]")
"""What would start a block at the start of a line (a list's marker, a heading, a quote, an underline) with
characters that mean nothing inside one, so that escaped they are drawn as they were (an ordered list's marker has
at most nine digits)."""
_LIST_NUMBER = re.compile("[0-9]{1,9}(?=[.)])")
_BACKTICKS = re.compile("`+")
_AFTER_BREAK_ELEMENT = re.compile(rf"({_LINE_BREAK})[ \t\n]+", re.IGNORECASE)
_POSITION_ATTRIBUTE = re.compile(r' data-sourcepos="[0-9:-]*"')
_CODE_BLOCK = re.compile(r'<pre data-sourcepos="([0-9:-]*)"')
_TAG_START = re.compile(r"<[A-Za-z/!?]")
"""Raw HTML a renderer that keeps it draws as a hard line break and one that escapes it as the tag: either way, the
text around it is all shown."""
_AUTOLINK = re.compile(
    r"<(?=[A-Za-z])(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>]*"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>"
)
"""An autolink (`<https://example.com>`, `<a@example.com>`) as CommonMark defines it, of those that open with a letter
as a tag does: never a tag (no tag's name holds `:` or `@`)."""
_FOOTNOTE_REFERENCE = re.compile(r"\[\^[^\]\s]+\]")
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_IN_ITEM_BLOCKS = frozenset({"p", "ul", "ol", "blockquote", "pre", "table", "h1", "h2", "h3", "h4", "h5", "h6", "hr"})
_ORDERED = re.compile(r"[0-9]{1,9}([.)])")
_MARKER = re.compile(r"[-+*]|[0-9]{1,9}[.)]")
_TASK_BOX = re.compile(r"\[[ xX]\]")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_LINE_BREAK_REFERENCE = re.compile(r"&(?:#0*1[03](?![0-9])|#[xX]0*[aAdD](?![0-9a-fA-F])|NewLine;)")
"""A character reference to a line feed or carriage return (spelled loosely: the HTML parser reads some without
`;`), which the renderer or the HTML parser decodes into a line break."""
MAX_RAW_HTML = 1000
"""The pieces of raw HTML (tags, comments, HTML blocks) read in one transcript; with more, no line is certain."""
_NO_SOURCE = (-1, "")
"""What `_source_from` gives a block without a position, and the walk carries for a node that is not a list item
(each item's is read by its list)."""


@dataclass(frozen=True, slots=True)
class Uncertain:
    """A construct whose visible text depends on the renderer: reported, never certified."""

    line: int
    """0-based source line."""
    what: str


@dataclass(slots=True)
class ShownLine:
    """One source line's visible text within its block."""

    number: int
    """0-based source line."""
    text: str
    """The visible text, unfolded."""
    block: BlockKind
    cells: tuple[str, ...] | None = None
    """A table row's cells."""
    list_id: int = -1
    """For a list item: which list it is in; for a paragraph's line, which paragraph (numbered with the lists)."""
    continues: bool = False
    """The line continues its block's previous line (a soft break: the reader sees one run of text)."""
    table: int = 0
    """For a table row: which table it is in."""
    marker: str = ""
    """For the first line of a list item: the marker the reader sees (`3.` as the renderer numbers it, or `-`)."""
    emphasized: bool = False
    """The whole line is emphasized (bold or italic), as a reader takes a title to be."""
    after_break: bool = False
    """The line follows a hard line break in its block: it starts a line, but not an item of its own."""


@dataclass(slots=True)
class TranscriptView:
    lines: list[ShownLine] = field(default_factory=lambda: [])
    uncertain: list[Uncertain] = field(default_factory=lambda: [])
    tags: set[str] = field(default_factory=lambda: set())
    """Every element the renderer produced."""


def _start_end(node: LexborNode) -> tuple[int, int] | None:
    first, last = _lines_of(node.attributes.get("data-sourcepos") or "")
    if first < 0 or last < first:
        return None  # cmark-gfm gives no position to a paragraph a table interrupts (see `_header_line`)
    return first, last


def _lines_of(position: str) -> tuple[int, int]:
    """The 0-based first and last lines of a `data-sourcepos` (`L:C-L:C`), below 0 where it does not say."""
    start, _, end = position.partition("-")
    first = _number(start.partition(":")[0]) - 1
    line, _, column = end.partition(":")
    last = _number(line) - 1
    if column == "0" and last > first:  # the end of the line before (a setext heading, an item): that line
        last -= 1
    return first, last


def _number(text: str) -> int:
    """A line or column of a `data-sourcepos`, as cmark-gfm writes one (ASCII digits, far fewer than 10), else -1:
    raw HTML may write the attribute too, with any value."""
    return int(text) if 0 < len(text) < 10 and text.isascii() and text.isdigit() else -1


def _header_line(table: LexborNode, span: tuple[int, int]) -> int:
    """The line of a table's header row: the line before its delimiter row. cmark-gfm gives the header row (and
    the table) the start of the paragraph the table interrupts, and that paragraph no position; the delimiter row
    is the line before the first body row, or the table's last line when it has none."""
    body = table.css_first("tbody > tr")
    first_row = _start_end(body) if body is not None else None
    return max(span[0], (first_row[0] - 1 if first_row is not None else span[1]) - 1)


def _source_from(block: LexborNode, source_lines: list[str]) -> tuple[int, str]:
    """A block's first line and its source from its first column on (an item's from its marker). cmark-gfm's columns
    count bytes, but only markers, spaces and tabs (ASCII) come before a block's column, so the column indexes the
    line's characters alike."""
    line, _, column = (block.attributes.get("data-sourcepos") or "").partition("-")[0].partition(":")
    number, at = _number(line) - 1, _number(column) - 1
    if not 0 <= number < len(source_lines) or at < 0:
        return _NO_SOURCE  # no position: raw HTML made it
    return number, source_lines[number][at:]


def _item_text_origin(item: LexborNode, number: int, source: str) -> tuple[int, bool]:
    """The line an item's own text starts on (its marker's line, or the next when nothing but a task list item's box
    follows the marker), and whether the renderer put a line break of its own before that text (before an HTML block
    that opens the item: the source has none there). `number` and `source` are the item's `_source_from`."""
    marker = _MARKER.match(source)
    rest = source[marker.end() :].strip() if marker is not None else "x"
    first = item.child
    span = _start_end(item)
    # A task list item's box alone on the marker's line: the renderer draws the text after it, from the next line.
    box_alone = first is not None and first.tag == "input" and _TASK_BOX.fullmatch(rest) is not None
    opens_empty = not rest or (box_alone and span is not None and span[1] > number)
    second = first.next if first is not None else None
    leading = (
        first is not None
        and first.tag == "-text"
        and (first.text_content or "").startswith("\n")
        and second is not None
        and second.tag not in _IN_ITEM_BLOCKS
    )
    return number + 1 if opens_empty else number, leading


def _emphasized(node: LexborNode) -> bool:
    """A block whose visible text is one emphasized run (a `:` may follow it)."""
    return _emphasized_run(list(node.iter(include_text=True)))


def _emphasized_run(nodes: list[LexborNode]) -> bool:
    shown = [node for node in nodes if node.tag != "-text" or (node.text_content or "").strip(" \t\n:")]
    return len(shown) == 1 and shown[0].tag in ("strong", "em")


def _line_breaks(node: LexborNode) -> str:
    """The line breaks of a node a reader does not see: what follows it stays on its source line."""
    return "\n" * (node.html or "").count("\n")


def _render(text: str, options: int) -> LexborHTMLParser:
    return LexborHTMLParser(_html(text, options))


def _html(text: str, options: int) -> str:
    return cast(
        "str",
        cmarkgfm.markdown_to_html_with_extensions(  # pyright: ignore[reportUnknownMemberType]
            text, options=options, extensions=_EXTENSIONS
        ),
    )


class _Walker:
    def __init__(self, source_lines: list[str], plain: bool) -> None:
        self.source_lines = source_lines
        self.plain = plain
        """No raw HTML and no construct of uncertain display anywhere: every text node is shown."""
        self.view = TranscriptView()
        self.lists = 0
        self.tables = 0
        self.covered = bytearray(len(source_lines) + 1)
        self.referenced = bytearray(len(source_lines) + 1)
        """The lines holding a reference to a line break, when the renderer decodes one in the transcript."""

    # -- inline text

    def inline_text(self, nodes: list[LexborNode], line: int) -> str:
        """The visible text of an inline run whose first line is `line`; constructs a reader may not see are
        reported on every line they span."""
        parts: list[str] = []
        breaks = 0  # the line breaks in `parts`: the run has reached line `line + breaks`
        stack = list(reversed(nodes))
        while stack:
            child = stack.pop()
            tag = child.tag
            if tag == "-text":
                text = child.text_content or ""
                parts.append(text)
                breaks += text.count("\n")
                continue
            if self.plain:  # only the renderer's own elements, all their text shown, nothing to report
                parts.append(child.text(deep=True))
                continue
            if tag == "-comment":  # never shown; its line is reported from the safe rendering
                parts.append(hidden := _line_breaks(child))
                breaks += len(hidden)
                continue
            attributes = child.attributes
            own = _RENDERERS_INLINE.get(tag or "")
            if own is None or not own.issuperset(attributes):
                what = "raw HTML"
            elif tag == "br":
                parts.append(_HARD_BREAK)
                continue
            elif tag == "input" and attributes.get("type") == "checkbox" and "disabled" in attributes:
                parts.append("[x]" if "checked" in attributes else "[ ]")  # a task list item's box, as drawn
                continue
            elif tag in ("img", "input"):
                what = "an image (its alternative text may or may not be shown)" if tag == "img" else "a form control"
            elif tag == "del":
                what = "struck-through text"
            else:
                if tag == "a" and "title" in attributes:
                    self.uncertain_lines(line + breaks, child, "a link title (a tooltip)")
                stack.extend(reversed(list(child.iter(include_text=True))))
                continue
            hidden = self.uncertain_lines(line + breaks, child, what)
            parts.append(hidden)
            breaks += len(hidden)
        return "".join(parts)

    def block_text(self, node: LexborNode, line: int) -> str:
        if self.plain:
            return node.text(deep=True)  # only the renderer's own inline elements: every text node is shown
        return self.inline_text(list(node.iter(include_text=True)), line)

    def uncertain(self, line: int, what: str) -> None:
        # A construct that ends with a line break the renderer decodes reaches past the last line: it is on the last.
        self.view.uncertain.append(Uncertain(min(line, len(self.source_lines) - 1), what))

    def uncertain_lines(self, first: int, node: LexborNode, what: str) -> str:
        """Report `node` on every line it spans from `first`; its line breaks, which keep what follows it on its
        source line."""
        hidden = _line_breaks(node)
        for line in range(first, first + len(hidden) + 1):
            self.uncertain(line, what)
        return hidden

    # -- blocks

    def placed(self, text: str, first: int, last: int) -> bool:
        """Whether `text`'s lines are the source's from `first` to `last`: as many line breaks, and no reference to
        one on those lines (the renderer decodes it into a line break the source does not have, and another
        construct may lose one: the count alone cannot tell)."""
        return text.count("\n") == last - first and not any(self.referenced[first : last + 1])

    def unplaceable(self, first: int, last: int) -> None:
        """Report the lines of text whose line breaks the renderer does not keep all of (in a code span or a link
        written over lines), or keeps from a definition it takes out (a link reference definition before a
        paragraph): which of them shows what cannot be told."""
        for line in range(first, last + 1):
            self.uncertain(line, "text whose line breaks the renderer does not keep (a code span or link over lines)")

    def add_text(
        self,
        start: int,
        text: str,
        block: BlockKind,
        list_id: int = -1,
        marker: str = "",
        emphasized: bool = False,
        after_block: bool = False,
    ) -> None:
        """Show `text` from line `start`, a line a source line; `after_block`: it follows a block of its list item,
        so it starts a line but not an item of its own."""
        if _HARD_BREAK in text:
            text = _BREAK_INSIDE_LINE.sub(" ", text)
        if "\n" not in text:  # one line, as most blocks are: what follows, without the splitting
            if start < len(self.source_lines):
                shown = ShownLine(start, text.replace(_HARD_BREAK, ""), block, None, list_id, False, 0, marker)
                shown.emphasized, shown.after_break = emphasized, after_block
                self.view.lines.append(shown)
                self.covered[start] = 1
            return
        pieces = text.split("\n")
        del pieces[max(0, len(self.source_lines) - start) :]  # an indented code block's last line break
        if not pieces:
            return
        lines = self.view.lines
        lines.append(ShownLine(start, pieces[0].replace(_HARD_BREAK, ""), block, None, list_id, False, 0, marker))
        lines[-1].emphasized, lines[-1].after_break = emphasized and len(pieces) == 1, after_block
        if _HARD_BREAK not in text:
            lines.extend(
                [
                    ShownLine(number, piece, block, None, list_id, True)
                    for number, piece in enumerate(pieces[1:], start + 1)
                    if piece or block == "code"  # a line all of hidden text shows nothing
                ]
            )
        else:  # after a hard break a line starts anew: the reader sees it begin a line, not run on
            for number, piece in enumerate(pieces[1:], start + 1):
                if piece:
                    broken = pieces[number - start - 1].endswith(_HARD_BREAK)
                    shown = ShownLine(number, piece.replace(_HARD_BREAK, ""), block, None, list_id, not broken)
                    shown.after_break = broken
                    lines.append(shown)
        self.covered[start : start + len(pieces)] = b"\x01" * len(pieces)

    def interrupted_paragraph(self, node: LexborNode) -> None:
        """A paragraph a table interrupts: on the lines from the table's reported start to its header row.
        Renderers differ on whether a table may interrupt a paragraph, so it shows nothing certain."""
        table = node.next
        while table is not None and table.tag == "-text":
            table = table.next
        span = _start_end(table) if table is not None and table.tag == "table" else None
        if table is None or span is None:
            return
        for line in range(span[0], _header_line(table, span)):
            self.uncertain(line, "a paragraph a table interrupts (renderers differ on whether a table can)")
            self.covered[line] = 1

    def run_end(self, end: int, block: LexborNode | None) -> int | None:
        """The last line of a run of an item's text: the line before the block that follows it, or the item's
        last line that is not blank (an item's position takes in the blank lines after it); None when the block
        has no position (raw HTML, whose lines are reported)."""
        if block is not None:
            span = _start_end(block)
            if span is None:
                return None
            # A table that interrupts the text is given the text's first line: it starts at its header row.
            return (_header_line(block, span) if block.tag == "table" else span[0]) - 1
        return self.last_filled(0, end)

    def last_filled(self, first: int, last: int) -> int:
        """The last line from `first` to `last` that is not blank: a block's position may take in blank lines
        after it."""
        last = min(last, len(self.source_lines) - 1)
        while last > first and not self.source_lines[last].strip(_BLANK_QUOTED):
            last -= 1
        return last

    def item_marker(self, listing: LexborNode, index: int, source: str) -> str:
        """The marker a reader sees before an item whose source from its marker on is `source`: the renderer's own
        number in an ordered list (the source's numbers are not shown), the bullet as written otherwise. Read at the
        item's own column, so that an item that starts on its outer item's or block quote's line reads its own
        marker."""
        if listing.tag != "ol":
            return source[:1]
        start = listing.attributes.get("start")
        ordered = _ORDERED.match(source)
        delimiter = ordered.group(1) if ordered is not None else "."
        return f"{(int(start) if start and start.isdigit() else 1) + index}{delimiter}"

    def walk(self, root: LexborNode) -> None:
        # (node, list it is in, marker its first line shows, for an item its `_source_from`, set by its list); a
        # stack, so that nesting costs no recursion.
        stack: list[tuple[LexborNode, int, str, tuple[int, str]]] = [
            (child, -1, "", _NO_SOURCE) for child in reversed(list(root.iter()))
        ]
        covered = self.covered
        while stack:
            node, list_id, marker, item_source = stack.pop()
            tag = node.tag
            self.view.tags.add(tag or "")
            if tag in ("thead", "tbody"):
                stack.extend((child, list_id, "", _NO_SOURCE) for child in reversed(list(node.iter())))
                continue
            span = _start_end(node)
            if span is None:
                if tag == "p":
                    self.interrupted_paragraph(node)
                continue  # raw HTML at block level: reported from the safe rendering, shows nothing certain
            start, end = span
            if tag in _HEADINGS or tag == "p":
                text = self.block_text(node, start)
                if tag in _HEADINGS and _ATX.match(_source_from(node, self.source_lines)[1]) is None:
                    # A setext heading: cmark-gfm ends it at its underline or at the line after it; it ends at the
                    # line after its text, which must be its underline.
                    underline = start + text.count("\n") + 1
                    if (
                        underline not in (end, end - 1)
                        or not _underline(self.source_lines[underline])
                        or not self.placed(text, start, underline - 1)  # no reference to a line break in it
                    ):
                        self.unplaceable(start, end)
                        continue
                    end = underline
                elif not self.placed(text, start, self.last_filled(start, end)):
                    self.unplaceable(start, end)
                    continue
                covered[start : end + 1] = b"\x01" * (end + 1 - start)
                block: BlockKind = "heading" if tag in _HEADINGS else "item" if list_id >= 0 else "paragraph"
                if block == "paragraph":  # a paragraph's lines are one block, numbered with the lists
                    self.lists += 1
                    list_id = self.lists
                if tag in _HEADINGS:
                    text = text.replace(_HARD_BREAK, " ")
                self.add_text(start, text, block, list_id, marker, tag == "p" and _emphasized(node))
            elif tag == "table":
                self.tables += 1
                # The renderer's row groups: its header, then its body if any. Raw HTML in a cell may open another,
                # or move rows into a header; rows it takes show nothing (their lines are reported).
                groups: list[LexborNode] = []
                for group, name in zip(node.iter(), ("thead", "tbody"), strict=False):
                    if group.tag != name or group.attributes:
                        break
                    groups.append(group)
                stack.extend((group, list_id, "", _NO_SOURCE) for group in reversed(groups))
            elif tag == "tr":
                covered[start : end + 1] = b"\x01" * (end + 1 - start)
                parent = node.parent
                header = parent is not None and parent.tag == "thead"
                table = parent.parent if parent is not None else None
                table_span = _start_end(table) if header and table is not None else None
                if table is not None and table_span is not None:
                    start = end = _header_line(table, table_span)
                    covered[start] = 1
                source = self.source_lines[start].lstrip(">") if start < len(self.source_lines) else ""
                if not header and len(source) - len(source.lstrip(" ")) >= 4:
                    self.uncertain(start, "a table row indented as code (renderers differ on whether it is a row)")
                if self.plain:
                    cells = tuple([cell.text(deep=True) for cell in node.iter()])
                else:
                    cells = tuple([self.block_text(cell, start).replace(_HARD_BREAK, " ") for cell in node.iter()])
                self.view.lines.append(
                    ShownLine(
                        start, "| " + " | ".join(cells) + " |", "header" if header else "row", cells, table=self.tables
                    )
                )
            elif tag == "pre":
                covered[start : end + 1] = b"\x01" * (end + 1 - start)
                code = node.text(deep=True).removesuffix("\n")
                # A fenced block's lines are its code's and its fences': more than an indented block's, its code's.
                fenced = self.last_filled(start, end) - start + 1 > (code.count("\n") + 1 if code else 0)
                if code or not fenced:
                    self.add_text(start + 1 if fenced else start, code, "code")
            elif tag == "li":
                if item_source == _NO_SOURCE:
                    continue  # an item raw HTML took out of its list: not where the renderer put it
                covered[start] = 1
                first, leading = _item_text_origin(node, *item_source)
                # The item's text, in runs between its blocks, each with the line its text is counted from: a run
                # after a block starts on the line after the block's last (the renderer's line break after the
                # block, like the one it may put before the item's text, is not in the source).
                runs: list[tuple[int | None, list[LexborNode]]] = [(first - leading, [])]
                blocks: list[LexborNode] = []
                for child in node.iter(include_text=True):
                    if child.tag in _IN_ITEM_BLOCKS:
                        blocks.append(child)
                        block_span = _start_end(child)
                        runs.append((block_span[1] if block_span is not None else None, []))
                    else:
                        runs[-1][1].append(child)
                for index, (origin, inline) in enumerate(runs):
                    if origin is None or not inline:
                        continue  # after a block without a position (raw HTML, whose lines are reported)
                    text = self.inline_text(inline, origin).rstrip("\n")
                    own_break = index > 0 or leading
                    if own_break:
                        text = text.removeprefix("\n")
                    line = origin + own_break
                    last = self.run_end(end, blocks[index] if index < len(blocks) else None)
                    if last is not None and text.strip() and not self.placed(text, line, last):
                        self.unplaceable(line, last)
                        continue
                    if text.strip():
                        shown_marker = marker if index == 0 else ""
                        emphasized = _emphasized_run(inline)
                        self.add_text(line, text, "item", list_id, shown_marker, emphasized, index > 0)
                        if index == 0:
                            marker = ""
                if blocks:
                    stack.extend(
                        (child, list_id, marker if index == 0 else "", _NO_SOURCE)
                        for index, child in reversed(list(enumerate(blocks)))
                    )
            elif tag in ("ul", "ol"):
                self.lists += 1
                # Its items only: a browser numbers them, not what raw HTML leaves among them; but it numbers an item
                # raw HTML starts too, which may give itself any number: the numbers after one are not certain.
                items = [child for child in node.iter() if child.tag == "li"]
                sources = [_source_from(item, self.source_lines) for item in items]  # each item's, read once
                raw = next((index for index, source in enumerate(sources) if source == _NO_SOURCE), len(items))
                for number, _ in sources[raw + 1 :] if tag == "ol" else ():
                    self.uncertain(number, "an item numbered after an item raw HTML starts")
                stack.extend(
                    (items[index], self.lists, self.item_marker(node, index, sources[index][1]), sources[index])
                    for index in range(len(items) - 1, -1, -1)
                )
            elif tag == "hr":
                covered[start : end + 1] = b"\x01" * (end + 1 - start)
            else:  # a container: block quote, table and its parts
                stack.extend((child, list_id, "", _NO_SOURCE) for child in reversed(list(node.iter())))


_FLOW_PARENTS = frozenset({"body", "blockquote"})
"""Elements whose children are blocks (a list item may hold inline text directly, in a tight list)."""
_BLANK_QUOTED = " \t>"
"""What a line that shows nothing inside block quotes is made of."""


def _raw_html_lines(tree: LexborHTMLParser, source_lines: list[str], only_line_breaks: bool) -> list[int]:
    """The lines raw HTML may change, found where the safe rendering (`tree`) omits it: the first line of an HTML
    block, and every line of a block whose text holds raw HTML (an element may hide, move or swallow any of its lines,
    and the HTML parser may drop a line break of its source), unless the transcript's only tags are line break tags
    (`only_line_breaks`), which show the text around them."""
    body = tree.body
    document = tree.root.parent if tree.root is not None else None
    if body is None or document is None:
        return []
    marked = bytearray(len(source_lines))
    ones = memoryview(b"\x01" * len(source_lines))
    # Block-level HTML sits between blocks: walk in document order, remembering the last block that ended (the whole
    # document, since the HTML5 parser moves a comment that opens it out of <body>). Inline HTML marks the lines of
    # the innermost block with a position around it.
    previous_end = -1
    stack: list[tuple[LexborNode, tuple[int, int] | None]] = [
        (node, None) for node in reversed(list(document.iter(include_text=True)))
    ]
    while stack:
        node, block = stack.pop()
        tag = node.tag
        if tag == "-text":
            continue
        parent = node.parent
        in_flow = parent is not None and parent.tag in _FLOW_PARENTS  # a block among blocks, not inline
        if tag == "-comment":
            if block is not None and not in_flow:
                if not only_line_breaks:
                    first, last = block[0], min(block[1], len(source_lines) - 1)
                    marked[first : last + 1] = ones[: max(0, last + 1 - first)]
            else:  # at block level: on the first line not blank (block quote markers aside) after the block before
                after = range(previous_end + 1, len(source_lines))
                line = next((line for line in after if source_lines[line].strip(_BLANK_QUOTED)), len(source_lines) - 1)
                marked[line] = 1
                previous_end = line  # the next HTML block starts after this one's first line
            continue
        span = _start_end(node)
        if span is not None and in_flow:
            # A block quote's blocks come after its first line's marker; any other block ends where it ends.
            previous_end = span[0] - 1 if tag == "blockquote" else span[1]
        stack.extend((child, span or block) for child in reversed(list(node.iter(include_text=True))))
    return [line for line, mark in enumerate(marked) if mark]


def read_markdown(text: str) -> TranscriptView:
    """The visible lines of a Markdown transcript, and the constructs whose visible text is not certain.

    Raises:
        ValueError: the text holds a lone surrogate, which is no character: no renderer reads it.
    """
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError as error:
            raise ValueError(f"the transcript holds a lone surrogate (U+{ord(text[error.start]):04X})") from None
    text = text.replace("\r\n", "\n")
    source_lines = text.split("\n")
    if "\r" in text:
        what = "a line ending the renderer sees and a line count does not (a carriage return)"
        return _nothing_certain(source_lines, what)
    raw_html: list[int] = []
    if "<" in text:  # raw HTML needs one
        safe = _html(text, _SAFE_OPTIONS)
        if safe.count(_OMITTED) > MAX_RAW_HTML:  # before the HTML parser, whose cost grows faster with raw HTML
            return _nothing_certain(source_lines, f"more raw HTML than is read (over {MAX_RAW_HTML} pieces)")
        # Raw HTML starts with `<` and a letter, `/`, `!` or `?`: when each such `<` opens a line break tag, those
        # tags are all the raw HTML there is (tested on the whole text: a block's lines are not always its source's).
        tags = len(_TAG_START.findall(text)) - len(_AUTOLINK.findall(text))
        only_line_breaks = tags == len(_LINE_BREAK_TAG.findall(text))
        raw_html = _raw_html_lines(LexborHTMLParser(safe), source_lines, only_line_breaks)
    if raw_html and _POSITIONS in text.casefold():
        what = "raw HTML that writes the renderer's own source positions (no line can be placed)"
        return _nothing_certain(source_lines, what)
    tree = _render(text, _RENDER_OPTIONS)
    if raw_html and _page_wide(tree, text):
        what = "raw HTML with a style sheet, a style attribute or a script, or attributes of the whole page"
        return _nothing_certain(source_lines, what + " (it can hide any line)")
    plain = not raw_html and tree.css_first(_UNCERTAIN_INLINE) is None
    walker = _Walker(source_lines, plain)
    if "&" in text and _decodes_a_line_break(text):
        for number, line in enumerate(source_lines):
            if "&" in line and _LINE_BREAK_REFERENCE.search(line):
                walker.referenced[number] = 1
    body = tree.body
    if body is not None:
        walker.walk(body)
    for line in raw_html:
        walker.uncertain(line, "raw HTML")
        walker.covered[line] = 1
    if "[^" in text:
        for line in _footnote_lines(text, source_lines, walker.covered):
            walker.uncertain(line, "a footnote (a renderer with footnotes on, as GitHub's, moves it or hides it)")
    for number, line in enumerate(source_lines):
        if not walker.covered[number] and line.strip(" \t>") and not _only_markers(line):
            walker.uncertain(number, "text no block shows (a link reference definition, say)")
    first_by_line: dict[int, Uncertain] = {}
    for item in walker.view.uncertain:
        first_by_line.setdefault(item.line, item)  # one finding per line: the first construct found there
    walker.view.uncertain = sorted(first_by_line.values(), key=lambda item: item.line)
    walker.view.lines.sort(key=lambda line: line.number)  # an item's text after its block is found before it
    return walker.view


def split_at_line_breaks(text: str) -> tuple[str, list[int]] | None:
    """`text` with its line ended after each line break tag that text follows on the same line, as a reader sees it
    drawn (`Cash: 100<br>Bank: 200` is two lines), and the source line each line of it comes from; or None when
    there is no such tag or ending the lines would change what the renderer draws.

    Left as they are: lines of a code block, lines holding a `|` (a table row, whose cell a tag only breaks), ATX
    headings (one line each), a tag in a code span or written out after a backslash, one with nothing before it on
    its line, and one followed by a `<`, a `*` bullet or a fence. What else would start a block on a line of its own
    (`- b`, `2. b`, `# b`) is escaped there (`\\- b`), drawn as the text it is after the tag; where an escape changes
    what is drawn after all (in an image's text), such tags are left in their lines.
    The renderer decides the rest: the split text must render to the same HTML as `text` but for white space after
    a line break element, which a browser does not draw at the start of a line; otherwise nothing is split."""
    if _BREAK_BEFORE_TEXT.search(text) is None:
        return None
    drawn = _html(text, _RENDER_OPTIONS)
    in_code = bytearray(text.count("\n") + 1)
    for block in _CODE_BLOCK.finditer(drawn):  # found in the renderer's HTML as written: no parser, linear
        first, last = _lines_of(block.group(1))
        if 0 <= first <= last:
            in_code[first : last + 1] = b"\x01" * (last + 1 - first)
    lines = text.split("\n")
    for escaping in (True, False):  # then, if an escape changed what is drawn (in an image's text), with none
        split: list[str] = []
        origin: list[int] = []
        escaped = False
        for number, line in enumerate(lines):
            pieces = [line]
            if "<" in line and not in_code[number] and "|" not in line and not _ATX.match(line.lstrip(" \t")):
                pieces, escaped_here = _ended_after_tags(line, escaping)
                escaped = escaped or escaped_here
            split += pieces
            origin += [number] * len(pieces)
        if len(split) == len(lines):
            return None
        rewritten = "\n".join(split)
        if _drawn_alike(drawn) == _drawn_alike(_html(rewritten, _RENDER_OPTIONS)):
            return rewritten, origin
        if not escaped:
            return None
    return None


def _ended_after_tags(line: str, escaping: bool) -> tuple[list[str], bool]:
    """`line` ended after each line break tag with text after it, but for a tag with nothing before it on the line
    (ended there, the line would show nothing, or open an HTML block), one in a code span (the span shows it) and
    one written out after a backslash; and whether it escaped a list's marker, a heading's or a quote's after a tag
    (with `escaping`; otherwise such a tag is left in its line)."""
    spans = _code_spans(line)
    at = 0  # the first code span that does not end before the tag
    pieces: list[str] = []
    start = 0
    next_start = ""  # how the next piece begins: the escaped start of a block, if any
    escaped = False
    first_text = len(line) - len(line.lstrip(" \t"))
    for tag in _BREAK_BEFORE_TEXT.finditer(line):
        while at < len(spans) and spans[at][1] <= tag.start():
            at += 1
        in_span = at < len(spans) and spans[at][0] <= tag.start()
        if tag.start() <= first_text or line[tag.start() - 1] == "\\" or in_span:
            continue
        starts_block = _BLOCK_START.match(line, tag.end()) is not None
        if starts_block and not escaping:
            continue
        pieces.append(next_start + line[start : tag.end(1)])
        start = tag.end()
        next_start = ""
        if starts_block:
            # Escaped, what would start a block (`- b`, `1. b`) is drawn as the text it is after the tag.
            number = _LIST_NUMBER.match(line, start)
            mark = number.end() if number else start
            next_start, start, escaped = f"{line[start:mark]}\\", mark, True
    pieces.append(next_start + line[start:])
    return pieces, escaped


def _code_spans(line: str) -> list[tuple[int, int]]:
    """Where `line`'s code spans are, as CommonMark finds them within a line: a run of backticks opens one, which the
    next run of as many closes. A backtick escaped by a backslash opens none (the rest of its run may), while in a
    span a backslash is text, so a run closes one whatever precedes it. Each run is looked up once by its length:
    linear in the line."""
    runs = [(run.start(), run.end()) for run in _BACKTICKS.finditer(line)]
    later: dict[int, list[int]] = {}  # for each run length, the indexes of its runs, last first
    for index in range(len(runs) - 1, -1, -1):
        later.setdefault(runs[index][1] - runs[index][0], []).append(index)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        before = start
        while before > 0 and line[before - 1] == "\\":  # each backslash is counted before one run only: linear
            before -= 1
        start += (start - before) % 2  # an odd number of backslashes escapes the first backtick
        same = later.get(end - start, [])
        while same and same[-1] <= index:
            same.pop()
        if same:
            close = same.pop()
            spans.append((start, runs[close][1]))
            index = close + 1
        else:
            index += 1
    return spans


def _drawn_alike(html: str) -> str:
    """`html` without what does not change what a browser draws: the renderer's source positions, and white space
    after a line break element (at the start of a line)."""
    return _AFTER_BREAK_ELEMENT.sub(r"\1", _POSITION_ATTRIBUTE.sub("", html))


def _decodes_a_line_break(text: str) -> bool:
    """Whether the renderer decodes a reference to a line break anywhere in `text`. One it does not decode (in a code
    span, after a backslash) shows as written, as does `&amp;#10;`, a reference spelled out: each reference is made
    inert (its `&` made `%`, punctuation as `&` is to the rules of emphasis, with no meaning of its own), and if the
    visible text then shows exactly one fewer reference for each, none was decoded. Counted in the text, not the
    HTML, where an autolink writes one twice."""
    references = list(_LINE_BREAK_REFERENCE.finditer(text))
    if not references:
        return False
    inert = list(text)
    for reference in references:
        inert[reference.start()] = "%"
    shown = len(_LINE_BREAK_REFERENCE.findall(_render(text, _SAFE_OPTIONS).text()))
    shown_inert = len(_LINE_BREAK_REFERENCE.findall(_render("".join(inert), _SAFE_OPTIONS).text()))
    return shown - shown_inert != len(references)


_POSITIONS = "sourcepos"
"""What raw HTML must spell (in any case) to write the attribute by which cmark-gfm places its blocks."""


_OMITTED = "<!-- raw HTML omitted -->"
"""What cmark-gfm writes in place of each piece of raw HTML (a tag, a comment, an HTML block) when it omits it."""


def _page_wide(tree: LexborHTMLParser, text: str) -> bool:
    """Whether raw HTML can change what any line shows: an element or attribute `_PAGE_WIDE` names, an event handler
    attribute (a script), or attributes given to the page itself (`<body hidden>`)."""
    if tree.css_first(_PAGE_WIDE) is not None:
        return True
    page = tree.root
    if (page is not None and page.attributes) or (tree.body is not None and tree.body.attributes):
        return True
    if _EVENT_HANDLER.search(text) is None:
        return False
    return any(name.lower().startswith("on") for node in tree.css("*") for name in node.attributes)


def _nothing_certain(source_lines: list[str], what: str) -> TranscriptView:
    """A transcript of which no line is certain, for the reason `what` says (raw HTML that may place text on any line
    or hide any line, more raw HTML than is read, a carriage return alone). Every line that is not blank is
    reported, none shown."""
    return TranscriptView(
        uncertain=[Uncertain(number, what) for number, line in enumerate(source_lines) if line.strip()]
    )


_FOOTNOTES = cast("int", Options.CMARK_OPT_FOOTNOTES)  # pyright: ignore[reportUnknownMemberType]
_LEAF_BLOCKS = "p, h1, h2, h3, h4, h5, h6, pre, table, hr"


def _footnote_lines(text: str, source_lines: list[str], covered: bytearray) -> list[int]:
    """The lines whose text a renderer with footnotes on shows elsewhere or not at all: a footnote's reference and
    definition, and every line it takes from the document's flow (an unreferenced footnote is not shown)."""
    tree = _render(text, _RENDER_OPTIONS | _FOOTNOTES)
    body = tree.body
    if body is None:
        return []
    in_flow = bytearray(len(source_lines) + 1)
    for node in body.css(_LEAF_BLOCKS):
        span = _start_end(node)
        ancestor = node.parent
        while ancestor is not None and ancestor.tag not in ("section", "body"):
            ancestor = ancestor.parent
        if span is None or (ancestor is not None and ancestor.tag == "section"):
            continue
        in_flow[span[0] : span[1] + 1] = b"\x01" * (span[1] + 1 - span[0])
    referenced = body.css_first("[data-footnote-ref]") is not None
    return [
        number
        for number, line in enumerate(source_lines)
        if line.strip()
        and ((covered[number] and not in_flow[number]) or (referenced and _FOOTNOTE_REFERENCE.search(line)))
    ]


def _underline(line: str) -> bool:
    """A setext heading's underline (inside block quotes and list items alike)."""
    body = line.lstrip(_BLANK_QUOTED).rstrip(" \t")
    return bool(body) and set(body) in ({"="}, {"-"})


def _only_markers(line: str) -> bool:
    """A line made only of block quote and list markers, or a table's delimiter row (shown as structure)."""
    body = line.strip(" \t>")
    return body in ("*", "+") or set(body) <= set("|-: \t")  # a lone `-` is in the delimiter row's set
