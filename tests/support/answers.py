"""A corpus of natural answers: how chat models write out a tool result, faithfully or not, generated from the
example servers' results.

Each answer is written from the records of a result (`Content`) in one `Style` (layout, header of the label column,
section titles, number grouping of a locale, emphasis, an introduction and a closing remark, hard line breaks written
as two spaces, a backslash or a `<br>` tag, at a line's end or with the next record after it on the same line, bare
or after a list's marker), and
each unfaithful answer is the same style written from records changed by one `MUTATIONS` entry (a record dropped,
altered, its sign flipped, two of its values swapped, two columns' names swapped, two records swapped, a record
moved to another section, repeated in a list after the answer, invented, the partial notice left out or added).
The audit must accept every faithful answer and catch every unfaithful one.

Run as a script to print the corpus: ``python -m tests.support.answers [--count]``.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Literal

from mcp_rendering.document import Cell, Document, RowKind
from mcp_rendering.examples import orgchart, screening
from mcp_rendering.examples.financial_data import financial_statements
from mcp_rendering.examples.screening_data import DEFAULT_BATCH

NULL_TEXT = "n/a"
"""The null text of every example server's directive."""

Layout = Literal["table", "combined", "bullets", "boxed", "lines"]
Title = Literal["h2", "h3", "bold", "bold_colon", "numbered", "plain_colon"]
Locale = Literal["raw", "en", "fr_narrow", "fr_nbsp", "de", "ch"]

_GROUPING: dict[Locale, tuple[str, str]] = {
    # (grouping separator, decimal mark)
    "raw": ("", "."),
    "en": (",", "."),
    "fr_narrow": ("\u202f", ","),
    "fr_nbsp": ("\u00a0", ","),
    "de": (".", ","),
    "ch": ("'", "."),
}


@dataclass(frozen=True)
class Style:
    layout: Layout
    label_header: str
    """The first header cell: empty, or the name a writer gives the label column."""
    title: Title
    locale: Locale
    marked_totals: bool
    """Subtotals and totals marked as `present()` marks them (`**Subtotal:** X`), else in bold without a marker."""
    intro: bool
    outro: bool

    @property
    def name(self) -> str:
        header = self.label_header.lower().replace(" ", "-") or "blank"
        marks = "marked" if self.marked_totals else "bold"
        talk = ("intro-" if self.intro else "") + ("outro" if self.outro else "plain")
        return f"{self.layout}/{header}/{self.title}/{self.locale}/{marks}/{talk}"


@dataclass
class Record:
    label: str
    kind: RowKind
    values: list[Cell]


@dataclass
class Part:
    title: str
    columns: tuple[str, ...]
    records: list[Record]


@dataclass
class Content:
    """What an answer shows: its sections' records, the notice, and lines added after the records."""

    parts: list[Part]
    partial: bool
    after: list[str]


@dataclass(frozen=True)
class Fixture:
    name: str
    document: Document
    complete: bool


@dataclass(frozen=True)
class Answer:
    name: str
    text: str
    faithful: bool
    fixture: Fixture


# ----------------------------------------------------------------------------------------------------- fixtures


def _cut(document: Document, rows_per_section: int, sections: int) -> Document:
    """The first records of the first sections: one page of a paged result."""
    kept = tuple(
        section.model_copy(update={"rows": section.rows[:rows_per_section]}) for section in document.sections[:sections]
    )
    return document.model_copy(update={"sections": kept})


def fixtures() -> list[Fixture]:
    """The example servers' results: the whole annual accounts, and first pages of the org chart and the
    screening report (partial)."""
    return [
        Fixture("financial", financial_statements(), complete=True),
        Fixture("orgchart", _cut(orgchart._document(None), 6, 3), complete=False),  # pyright: ignore[reportPrivateUsage]
        Fixture(
            "screening",
            _cut(screening._document(DEFAULT_BATCH), 5, 3),  # pyright: ignore[reportPrivateUsage]
            complete=False,
        ),
    ]


def content_of(fixture: Fixture) -> Content:
    parts = [
        Part(section.title, section.columns, [Record(row.label, row.kind, list(row.values)) for row in section.rows])
        for section in fixture.document.sections
    ]
    return Content(parts, partial=not fixture.complete, after=[])


# ----------------------------------------------------------------------------------------------------- writing


def _number(value: int | float, locale: Locale) -> str:
    group, decimal = _GROUPING[locale]
    text = repr(value) if isinstance(value, float) else str(value)
    sign = "-" if text.startswith("-") else ""
    integer, _, fraction = text.lstrip("-").partition(".")
    if group:
        digits = integer
        groups = [digits[max(0, end - 3) : end] for end in range(len(digits), 0, -3)]
        integer = group.join(reversed(groups))
    return sign + integer + (decimal + fraction if fraction else "")


def _cell(value: Cell, locale: Locale) -> str:
    if value is None:
        return NULL_TEXT
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value, locale)
    return value


def _label(record: Record, style: Style, markdown: bool = True) -> str:
    if record.kind == "item":
        return record.label
    if style.marked_totals:
        marker = "Subtotal:" if record.kind == "subtotal" else "Total:"
        return f"**{marker}** {record.label}" if markdown else f"{marker} {record.label}"
    return f"**{record.label}**" if markdown else record.label


def _title(title: str, index: int, style: Style) -> str:
    return {
        "h2": f"## {title}",
        "h3": f"### {title}",
        "bold": f"**{title}**",
        "bold_colon": f"**{title}:**",
        "numbered": f"### {index + 1}. {title}",
        "plain_colon": f"{title}:",
    }[style.title]


def _table(part: Part, style: Style, header: bool = True) -> list[str]:
    lines: list[str] = []
    if header:
        lines.append("| " + " | ".join((style.label_header, *part.columns)) + " |")
        lines.append("|" + "---|" * (len(part.columns) + 1))
    for record in part.records:
        cells = [_label(record, style), *(_cell(value, style.locale) for value in record.values)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _bullet(record: Record, columns: tuple[str, ...], style: Style) -> str:
    named = [
        f"{column}: {_cell(value, style.locale)}"
        for column, value in zip(columns, record.values, strict=True)
        if value != ""
    ]
    label = _label(record, style) if record.kind != "item" else f"**{record.label}**"
    return f"- {label} — " + ", ".join(named)


def _boxed(part: Part, style: Style) -> list[str]:
    rows = [[style.label_header, *part.columns]] + [
        [_label(record, style, markdown=False), *(_cell(value, style.locale) for value in record.values)]
        for record in part.records
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    border = "+" + "+".join("-" * (width + 2) for width in widths) + "+"
    heavy = border.replace("-", "=")

    def line(row: list[str]) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) + " |"

    return [border, line(rows[0]), heavy if style.title in ("bold", "h3") else border, *map(line, rows[1:]), border]


def write(content: Content, style: Style) -> str:
    """The answer a writer of `style` gives for `content`, as Markdown."""
    out: list[str] = []
    if content.partial:
        out += ["Partial result: these are the first records only; more are available on request.", ""]
    if style.intro:
        out += ["Here is the result, with every line as the tool returned it.", ""]
    previous_columns: tuple[str, ...] | None = None
    for index, part in enumerate(content.parts):
        if style.layout == "combined":
            same = part.columns == previous_columns
            if not same:
                if previous_columns is not None:
                    out.append("")
                out += _table(Part("", part.columns, []), style)
            out.append("| **" + part.title + "** |" + " |" * len(part.columns))
            out += _table(part, style, header=False)
            previous_columns = part.columns
            if index == len(content.parts) - 1:
                out.append("")
            continue
        out += [_title(part.title, index, style), ""]
        if style.layout == "table":
            out += _table(part, style)
        elif style.layout == "bullets":
            out += [_bullet(record, part.columns, style) for record in part.records]
        elif style.layout == "boxed":
            out += ["```", *_boxed(part, style), "```"]
        else:  # lines: one paragraph, each record ending with a hard line break, written in each of five ways
            written = [
                f"{_label(record, style)}: "
                + " · ".join(
                    f"{column} {_cell(value, style.locale)}"
                    for column, value in zip(part.columns, record.values, strict=True)
                    if value != ""
                )
                for record in part.records
            ]
            # The last ways: a `<br>` tag with the next record after it on the same line, bare or as a list's item.
            breaks = ("  \n", "\\\n", "<br>\n", "<br>", "<br>- ")
            if written:
                out.append("".join(line + breaks[number % 5] for number, line in enumerate(written[:-1])) + written[-1])
        out.append("")
    if content.after:
        out += [*content.after, ""]
    if style.outro:
        out.append("Let me know if you would like these figures charted or compared.")
    return "\n".join(out).rstrip("\n") + "\n"


def styles() -> list[Style]:
    """Many styles, each layout with every title form, locale and header at least once (a fixed walk through the
    combinations, not all of them)."""
    layouts: list[Layout] = ["table", "combined", "bullets", "boxed", "lines"]
    titles: list[Title] = ["h2", "h3", "bold", "bold_colon", "numbered", "plain_colon"]
    locales: list[Locale] = ["raw", "en", "fr_narrow", "fr_nbsp", "de", "ch"]
    headers = ["", "Line item", "Account"]
    found: list[Style] = []
    for number, (layout, title) in enumerate(itertools.product(layouts, titles)):
        found.append(
            Style(
                layout=layout,
                label_header=headers[number % 3],
                title=title,
                locale=locales[(number * 5) % 6],
                marked_totals=number % 2 == 0,
                intro=number % 3 != 1,
                outro=number % 4 != 2,
            )
        )
    return found


# ----------------------------------------------------------------------------------------------------- mutations


def _numeric(record: Record) -> list[int]:
    return [index for index, value in enumerate(record.values) if isinstance(value, int | float) and value]


def _target(content: Content, pick: int, need: Callable[[Record], bool]) -> tuple[Part, int] | None:
    """The `pick`-th record (cycling) that `need` accepts."""
    found = [(part, index) for part in content.parts for index, record in enumerate(part.records) if need(record)]
    return found[pick % len(found)] if found else None


def _drop(content: Content, pick: int) -> bool:
    target = _target(content, pick, lambda record: True)
    if target is None:
        return False
    del target[0].records[target[1]]
    return True


def _alter(content: Content, pick: int) -> bool:
    target = _target(content, pick, lambda record: bool(_numeric(record)))
    if target is None:
        return False
    record = target[0].records[target[1]]
    column = _numeric(record)[0]
    value = record.values[column]
    assert isinstance(value, int | float)
    record.values[column] = value + 9 if isinstance(value, int) else round(value + 0.01, 4)
    return True


def _sign(content: Content, pick: int) -> bool:
    target = _target(content, pick, lambda record: bool(_numeric(record)))
    if target is None:
        return False
    record = target[0].records[target[1]]
    column = _numeric(record)[0]
    value = record.values[column]
    assert isinstance(value, int | float)
    record.values[column] = -value
    return True


def _swap_values(content: Content, pick: int) -> bool:
    def two_unlike(record: Record) -> bool:
        shown = [value for value in record.values if value not in ("", None)]
        return len(set(map(str, shown))) > 1

    target = _target(content, pick, two_unlike)
    if target is None:
        return False
    record = target[0].records[target[1]]
    first = next(index for index, value in enumerate(record.values) if value not in ("", None))
    second = next(
        index
        for index, value in enumerate(record.values)
        if value not in ("", None) and str(value) != str(record.values[first])
    )
    record.values[first], record.values[second] = record.values[second], record.values[first]
    return True


def _reorder(content: Content, pick: int) -> bool:
    pairs = [
        (part, index)
        for part in content.parts
        for index in range(len(part.records) - 1)
        if (part.records[index].label, part.records[index].values)
        != (part.records[index + 1].label, part.records[index + 1].values)
    ]
    if not pairs:
        return False
    part, index = pairs[pick % len(pairs)]
    part.records[index], part.records[index + 1] = part.records[index + 1], part.records[index]
    return True


def _move(content: Content, pick: int) -> bool:
    """A record moved to the start of the next section of the same columns."""
    pairs = [
        (part, other)
        for part, other in itertools.pairwise(content.parts)
        if part.columns == other.columns and part.records
    ]
    if not pairs:
        return False
    part, other = pairs[pick % len(pairs)]
    other.records.insert(0, part.records.pop(len(part.records) // 2))
    return True


def _repeat(content: Content, pick: int) -> bool:
    target = _target(content, pick, lambda record: record.kind == "item")
    if target is None:
        return False
    part, index = target
    plain = Style("bullets", "", "h2", "raw", True, False, False)
    content.after = ["Key line, for reference:", "", _bullet(part.records[index], part.columns, plain)]
    return True


def _invent(content: Content, pick: int) -> bool:
    part = content.parts[pick % len(content.parts)]
    if not part.records:
        return False
    model = part.records[len(part.records) // 2]
    invented = Record("Écart de réévaluation" if pick % 2 else "Dana Invented", "item", list(model.values))
    part.records.insert(len(part.records) // 2 + 1, invented)
    return True


def _swap_names(content: Content, pick: int) -> bool:
    """Two columns' names swapped in one section: its values attributed to the wrong columns."""
    wide = [part for part in content.parts if len(set(part.columns)) > 1 and part.records]
    if not wide:
        return False
    part = wide[pick % len(wide)]
    columns = list(part.columns)
    columns[-1], columns[-2] = columns[-2], columns[-1]
    part.columns = tuple(columns)
    return True


def _notice(content: Content, pick: int) -> bool:
    content.partial = not content.partial  # left out where it is needed, added where it is not
    return True


MUTATIONS: dict[str, Callable[[Content, int], bool]] = {
    "drop": _drop,
    "alter": _alter,
    "sign": _sign,
    "swap-columns": _swap_values,
    "swap-names": _swap_names,
    "reorder": _reorder,
    "move-section": _move,
    "repeat-after": _repeat,
    "invent": _invent,
    "notice": _notice,
}


def _copy(content: Content) -> Content:
    return Content(
        [
            replace(part, records=[Record(r.label, r.kind, list(r.values)) for r in part.records])
            for part in content.parts
        ],
        content.partial,
        list(content.after),
    )


def corpus() -> Iterator[Answer]:
    """Every fixture in every style, faithful, then once under each mutation."""
    for fixture in fixtures():
        content = content_of(fixture)
        for number, style in enumerate(styles()):
            yield Answer(f"{fixture.name}/{style.name}", write(content, style), True, fixture)
            for name, mutate in MUTATIONS.items():
                changed = _copy(content)
                if mutate(changed, number):
                    yield Answer(f"{fixture.name}/{style.name}/{name}", write(changed, style), False, fixture)


def main(argv: list[str]) -> int:
    answers = list(corpus())
    if "--count" in argv:
        faithful = sum(answer.faithful for answer in answers)
        print(f"{faithful} faithful, {len(answers) - faithful} unfaithful")
        return 0
    for answer in answers:
        print(f"===== {answer.name} ({'faithful' if answer.faithful else 'unfaithful'})\n{answer.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
