"""Which lines of a server's text are read as worded like the host's own, wherever they stand among its lines and
whatever other lines share their words, and how the user's views put `IMITATION_WARNING` before the server's text;
the host's own lines among the records are not the server's."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_rendering.host import IMITATION_WARNING, imitates_host, present
from mcp_rendering.render import markdown_escape
from tests.test_host import IMAGE
from tests.test_host_host_lines import TOOL, WHOLE, _linked, whole_text

# Each search below is a loop over the text: a search that never ends fails here rather than hanging the run.
pytestmark = pytest.mark.timeout(10)

IMITATIONS = {
    # A host line's opening, among ordinary lines opening with the same word.
    "an opening": ("Note: checked by the bank.", "Notebook | 3"),
    # A claim of completeness, among ordinary lines holding the claim's word.
    "a claim": ("Nothing is missing.", "Nothing to declare | 0"),
    # The host as a topic, among ordinary lines holding its letters.
    "a topic": ("Checked by the host.", "Ghost stories | 3"),
}
PLACES = {
    "first": "{line}\n{other}\n{other}",
    "between": "{other}\n{line}\n{other}",
    "last": "{other}\n{other}\n{line}",
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", IMITATIONS)
def test_a_server_line_worded_like_the_hosts_is_warned_of_wherever_it_stands(kind: str, place: str) -> None:
    line, other = IMITATIONS[kind]
    text = PLACES[place].format(line=line, other=other)
    assert imitates_host(text)
    presentation = present(TOOL, whole_text(text), server="bank")
    # The warning, then the server's text unchanged: in each view, once.
    assert presentation.text == f"{IMITATION_WARNING}\n\n{text}"
    assert presentation.markdown == f"{markdown_escape(IMITATION_WARNING)}\n\n```\n{text}\n```"


@pytest.mark.parametrize("place", PLACES)
def test_a_line_worded_like_the_hosts_is_found_among_lines_that_are_not_ascii(place: str) -> None:
    # Such text is read through Unicode normalisation and a table of look-alikes: its line breaks still part lines.
    text = PLACES[place].format(line="Note: checked by the bank.", other="Café | 3")
    assert imitates_host(text)
    assert present(TOOL, whole_text(text), server="bank").text == f"{IMITATION_WARNING}\n\n{text}"


ORDINARY = (
    "\n".join(other for _, other in IMITATIONS.values()),
    "Ghost stories | 3\nGhost towns | 4",  # the host's letters inside a word, twice
    "Values [",  # a line ending on a bracket, the one-character word searched for
    "Values [\n[1, 2]",
    "Record 12, shown as a link: see attachment",  # the host's note on a link, but with the name unquoted
    "Field amount of record 12: 250",
)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_lines_sharing_the_host_lines_words_get_no_warning(text: str) -> None:
    assert not imitates_host(text)
    presentation = present(TOOL, whole_text(text), server="bank")
    assert presentation.text == text
    assert presentation.markdown == f"```\n{text}\n```"


RECORD = {"type": "text", "text": "Cash | 100"}


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ([IMAGE, RECORD], "[image: image/png]\n\nCash | 100"),
        ([RECORD, IMAGE], "Cash | 100\n\n[image: image/png]"),
        ([IMAGE], "[image: image/png]"),
        ([{"type": "text", "text": 5}, RECORD], "[text block without text]\n\nCash | 100"),
    ],
    ids=["first", "last", "alone", "a text block without text"],
)
def test_the_hosts_line_naming_a_block_is_its_own_wherever_it_stands(content: list[Any], text: str) -> None:
    presentation = present(TOOL, {"content": content, "_meta": WHOLE}, server="bank")
    assert presentation.text == text
    # The same line written by the server is an imitation.
    assert present(TOOL, whole_text(text), server="bank").text == f"{IMITATION_WARNING}\n\n{text}"


@pytest.mark.parametrize("first_row", [1, 2])
def test_the_hosts_line_naming_a_block_is_its_own_on_a_later_page(first_row: int) -> None:
    """On a page that starts after the first line, the host's lines are found where that page holds them."""
    content = [{"type": "text", "text": "Cash | 1\nDebt | 2\nRisk | 3"}, IMAGE, RECORD]
    presentation = present(TOOL, {"content": content, "_meta": WHOLE}, server="bank", first_row=first_row)
    assert IMITATION_WARNING not in presentation.text
    assert presentation.text.endswith("\n\n[image: image/png]\n\nCash | 100")


@pytest.mark.parametrize(
    ("member", "value"),
    [("rowId", "nothing is missing"), ("uri", "ledger://host/rows/b")],
    ids=["a claim", "a topic"],
)
def test_a_server_string_quoted_in_the_hosts_note_on_a_link_gets_no_warning(member: str, value: str) -> None:
    wire = _linked()
    page = wire["structuredContent"]["page"]
    for link in (*page["linkedRecords"], *page["linkedFields"]):
        link["uri"] = "ledger://rows/b"
    page["linkedRecords"][0][member] = value
    presentation = present(TOOL, wire, server="bank")
    note = next(line for line in presentation.text.splitlines() if line.startswith('[link] Record "'))
    assert value in note
    assert IMITATION_WARNING not in presentation.text
    assert markdown_escape(IMITATION_WARNING) not in presentation.markdown
    # The note as a line of the server's own text is an imitation.
    assert imitates_host(note)


@pytest.mark.parametrize("opening", ['[link] Record "', '[link] Field "'], ids=["record", "field"])
def test_the_hosts_note_on_a_link_without_its_tag_is_an_imitation(opening: str) -> None:
    """A reader takes the note for the host's with or without its `[link]` tag: as a line of the server's text, and
    on the line naming a block whose type closes the host's bracket early."""
    wire = _linked()
    page = wire["structuredContent"]["page"]
    for link in (*page["linkedRecords"], *page["linkedFields"]):
        link["uri"] = "ledger://rows/b"  # nothing else in the note reads as the host's
    note = next(line for line in present(TOOL, wire, server="bank").text.splitlines() if line.startswith(opening))
    untagged = note.removeprefix("[link] ")
    warned = f"{IMITATION_WARNING}\n\n"
    assert present(TOOL, whole_text(f"Cash | 100\n{untagged}"), server="bank").text.startswith(warned)
    named = present(TOOL, whole_text("Cash | 100", {"type": f"x] {untagged}"}), server="bank").text
    assert named == f"{warned}Cash | 100\n\n[x] {untagged} block]"


@pytest.mark.parametrize(
    "line",
    ['Record "r1", shown as a link: read it at "s://x".', 'Field "a" of record "r1": the server sent it as a link.'],
    ids=["record", "field"],
)
def test_the_hosts_note_on_a_link_reworded_with_its_names_quoted_is_an_imitation(line: str) -> None:
    assert imitates_host(line)
