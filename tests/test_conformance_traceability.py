"""Traceability between the two extension specifications, their conformance file and the conformance scenarios.

The specifications are `sep/rendering.mdx` and `sep/result-continuation.mdx`. Rendering's traceability file,
`sep/conformance/sep-0000.yaml`, has the fields of the MCP conformance suite's `src/seps/sep-NNNN.yaml` files:
`sep`, `spec_url`, and `requirements` rows with `text`, `url`, then either `check` or `excluded` (an `issue`, when
one is linked, is a tracking issue of the conformance suite); its check ids start `sep-0000-`. Result continuation
is apart from any SEP: `sep/conformance/result-continuation.yaml` has the same fields but `sep`, and its check ids
start `continuation-`. URLs are the future homes of the files (SEP-2484 expects URLs, not paths).

Rules enforced here:

- every sentence of a specification (its BCP 14 boilerplate aside) that holds an obligation keyword (MUST,
  MUST NOT, SHOULD, SHOULD NOT, SHALL, REQUIRED, RECOMMENDED) has exactly one row; MAY grants a permission, which
  has no violation to observe, and is not traced;
- every row quotes a sentence that is still in the specification its `url` names, and every anchor exists there;
- every `url`, `spec_url` and `issue` is an https URL;
- every MUST left is checked: an excluded row is a SHOULD, or says why no scenario can observe it (not observable
  on the wire, or a framework gap), and links no issue but a tracking issue's own URL;
- every `check` id is emitted by a scenario of either extension, and every `sep-0000-` or `continuation-` id a
  scenario emits is declared (the scenarios of both patches, run in `upstream/conformance/check.sh`);
- the SEP, a charter, restates no requirement: its BCP 14 keywords are all in the specifications.

Quoted text is compared after normalization: markdown emphasis, code ticks and link targets are removed and
whitespace is collapsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SEP_NUMBER = "0000"
SPEC_PATH = ROOT / "sep" / "rendering.mdx"
CONTINUATION_PATH = ROOT / "sep" / "result-continuation.mdx"
RENDERING_URL = "https://github.com/modelcontextprotocol/experimental-ext-tool-annotations/blob/main/specification/draft/rendering.mdx"
CONTINUATION_URL = (
    "https://github.com/modelcontextprotocol/experimental-ext-result-continuation/blob/main/specification/draft/"
    "result-continuation.mdx"
)
SPECS = {RENDERING_URL: SPEC_PATH, CONTINUATION_URL: CONTINUATION_PATH}
SEP_URL = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/0000-rendering-directives.md"
SEP_PATH = ROOT / "sep" / f"{SEP_NUMBER}-rendering-directives.md"
YAML_PATH = ROOT / "sep" / "conformance" / f"sep-{SEP_NUMBER}.yaml"
CONTINUATION_YAML_PATH = ROOT / "sep" / "conformance" / "result-continuation.yaml"
SCENARIO_TREES = (
    ROOT / "upstream" / "conformance" / "files" / "src" / "scenarios",
    ROOT / "upstream" / "conformance" / "files-continuation" / "src" / "scenarios",
)
"""The scenarios of the rendering patch, then those the result continuation patch adds."""

UNTRACED_SECTIONS = ("Conventions",)
BOILERPLATE = "The key words "
OBLIGATION = re.compile(r"\b(MUST|SHOULD|SHALL|REQUIRED|RECOMMENDED)\b")
ANY_KEYWORD = re.compile(
    r"\b(MUST NOT|MUST|SHOULD NOT|SHOULD|SHALL NOT|SHALL|REQUIRED|NOT RECOMMENDED|RECOMMENDED|MAY)\b"
)
ID_PREFIXES = (f"sep-{SEP_NUMBER}", "continuation")
"""Rendering's check ids carry its SEP's number; result continuation's, apart from any SEP, carry none."""
CHECK_ID = re.compile(rf"^(?:{'|'.join(ID_PREFIXES)})-[a-z0-9]+(?:-[a-z0-9]+)*$")
EMITTED_ID = re.compile(rf"""["']((?:{"|".join(ID_PREFIXES)})-[a-z0-9-]+)["']""")
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z\"(\[])")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
BLOCK_START = re.compile(r"^(\s*[-*]\s+|\s*\d+\.\s+)")


def normalize(text: str) -> str:
    """The comparable form of a sentence: no emphasis, code ticks or link targets, single spaces."""
    text = LINK.sub(r"\1", text)
    text = text.replace("**", "").replace("`", "")
    return " ".join(text.split())


def slug(heading: str) -> str:
    """The anchor of a heading, as GitHub and the docs site make it."""
    kept = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"\s+", "-", kept)


def _sections(markdown: str) -> dict[str, list[str]]:
    """The lines of each level-2 section (fenced code and HTML comments removed), by title."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    in_fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or line.lstrip().startswith("<!--"):
            continue
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
            continue
        if current is not None:
            sections[current].append(line)
    return sections


def _blocks(lines: list[str]) -> list[str]:
    """Paragraphs, list items and table cells, each joined into one line; headings are dropped."""
    blocks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            blocks.append(" ".join(part.strip() for part in current))
            current.clear()

    for line in lines:
        if not line.strip() or line.startswith("#"):
            flush()
            continue
        if line.startswith("|"):
            flush()
            blocks.extend(cell.strip() for cell in line.strip("| ").split("|") if cell.strip(" -:"))
            continue
        if BLOCK_START.match(line):
            flush()
        current.append(BLOCK_START.sub("", line))
    flush()
    return blocks


def normative_sentences(markdown: str) -> list[str]:
    """The normalized sentences of the traced sections that carry a BCP 14 obligation keyword."""
    found: list[str] = []
    for title, lines in _sections(markdown).items():
        if title in UNTRACED_SECTIONS:
            continue
        for block in _blocks(lines):
            for sentence in SENTENCE_END.split(normalize(block)):
                if OBLIGATION.search(sentence) and not sentence.startswith(BOILERPLATE):
                    found.append(sentence)
    return found


def anchors(markdown: str) -> set[str]:
    return {slug(line.lstrip("#")) for line in markdown.splitlines() if re.match(r"#{1,6} ", line)}


@dataclass(frozen=True)
class Row:
    """One requirement row of the traceability file."""

    text: str
    check: str | None
    excluded: str | None
    url: str | None = None
    issue: str | None = None


def parse_rows(document: Any) -> list[Row]:
    """The rows of a parsed traceability file, rejecting rows that are neither checked nor excluded."""
    rows: list[Row] = []
    for index, raw in enumerate(document["requirements"]):
        text, check, excluded = raw.get("text"), raw.get("check"), raw.get("excluded")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"row {index}: missing text")
        if (check is None) == (excluded is None):
            raise ValueError(f"row {index}: needs exactly one of check or excluded")
        unknown = set(raw) - {"text", "check", "excluded", "url", "issue"}
        if unknown:
            raise ValueError(f"row {index}: fields the suite's format does not have: {sorted(unknown)}")
        rows.append(
            Row(text=normalize(text), check=check, excluded=excluded, url=raw.get("url"), issue=raw.get("issue"))
        )
    return rows


def emitted_check_ids(sources: dict[str, str]) -> set[str]:
    """The `sep-0000-` ids the scenario sources name as check ids (file name -> source)."""
    return {match for source in sources.values() for match in EMITTED_ID.findall(source)}


def find_problems(specs: dict[str, str], rows: list[Row]) -> list[str]:
    """Every problem between the specifications (base URL -> markdown) and the rows, as readable messages."""
    problems: list[str] = []
    by_spec: dict[str, list[Row]] = {base: [] for base in specs}
    for row in rows:
        base = (row.url or "").split("#", 1)[0]
        if base not in specs:
            problems.append(f"row whose url names no specification: {row.text!r} ({row.url!r})")
            continue
        by_spec[base].append(row)
        if row.issue is not None and not row.issue.startswith("https://"):
            problems.append(f"issue that is not a URL: {row.text!r} ({row.issue!r})")
    seen: set[str] = set()
    for base, markdown in specs.items():
        sentences = normative_sentences(markdown)
        row_texts = [row.text for row in by_spec[base]]
        for sentence in sentences:
            count = row_texts.count(sentence)
            if count == 0:
                problems.append(f"normative sentence without a row: {sentence!r}")
            elif count > 1:
                problems.append(f"normative sentence with {count} rows: {sentence!r}")
        current = set(sentences)
        known_anchors = anchors(markdown)
        for row in by_spec[base]:
            if row.text not in current:
                problems.append(f"stale row, text not in the specification: {row.text!r}")
            if row.check is None:
                if not (row.excluded or "").strip():
                    problems.append(f"exclusion without a reason: {row.text!r}")
                continue
            if not CHECK_ID.match(row.check):
                problems.append(f"badly formed check id: {row.check!r}")
            if row.check in seen:
                problems.append(f"check id used twice: {row.check!r}")
            seen.add(row.check)
            if "#" not in (row.url or "") or (row.url or "").split("#", 1)[1] not in known_anchors:
                problems.append(f"check without a url anchor into the specification: {row.check!r} ({row.url!r})")
    return problems


def emission_problems(rows: list[Row], emitted: set[str]) -> list[str]:
    """Checks that no scenario emits, and emitted ids that no row declares."""
    declared = {row.check for row in rows if row.check is not None}
    problems = [f"check no scenario emits: {check!r}" for check in sorted(declared - emitted)]
    problems += [f"emitted id not declared in the traceability file: {check!r}" for check in sorted(emitted - declared)]
    return problems


SCENARIO_FILES = ("rendering*.ts", "result-continuation*.ts")
"""The scenario sources of the two extensions; their vitest files (`*.test.ts`) only assert verdicts."""


def _scenario_sources() -> dict[str, str]:
    return {
        path.relative_to(tree).as_posix(): path.read_text(encoding="utf-8")
        for tree in SCENARIO_TREES
        for pattern in SCENARIO_FILES
        for path in tree.rglob(pattern)
        if not path.name.endswith(".test.ts")
    }


def test_both_extensions_have_scenario_sources() -> None:
    """A floor, so that a wrong glob cannot make the emission check pass on the ids of one extension only."""
    names = set(_scenario_sources())
    assert {"server/rendering.ts", "client/rendering.ts"} <= names
    assert {"server/result-continuation.ts", "client/result-continuation.ts"} <= names


def _load_yaml(path: Path = YAML_PATH) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _all_rows() -> list[Row]:
    """The rows of both traceability files."""
    return parse_rows(_load_yaml()) + parse_rows(_load_yaml(CONTINUATION_YAML_PATH))


# The real files


def _specs() -> dict[str, str]:
    return {base: path.read_text(encoding="utf-8") for base, path in SPECS.items()}


def test_traceability_file_has_the_suites_fields() -> None:
    document = _load_yaml()
    assert set(document) == {"sep", "spec_url", "requirements"}
    assert str(document["sep"]).zfill(4) == SEP_NUMBER
    assert document["spec_url"] == SEP_URL


def test_each_file_traces_its_own_specification_with_its_own_ids() -> None:
    continuation = _load_yaml(CONTINUATION_YAML_PATH)
    assert set(continuation) == {"spec_url", "requirements"}
    assert continuation["spec_url"] == CONTINUATION_URL
    for rows, base, prefix in (
        (parse_rows(_load_yaml()), RENDERING_URL, f"sep-{SEP_NUMBER}-"),
        (parse_rows(continuation), CONTINUATION_URL, "continuation-"),
    ):
        assert rows
        for row in rows:
            assert (row.url or "").split("#", 1)[0] == base, row.text
            assert row.check is None or row.check.startswith(prefix), row.check


def test_the_specifications_have_normative_text() -> None:
    # Floors, so that a broken extractor cannot make the traceability checks pass vacuously.
    assert len(normative_sentences(SPEC_PATH.read_text(encoding="utf-8"))) >= 18
    assert len(normative_sentences(CONTINUATION_PATH.read_text(encoding="utf-8"))) >= 18


def test_every_normative_sentence_is_traced() -> None:
    problems = find_problems(_specs(), _all_rows())
    assert problems == [], "\n".join(problems)


TRACKING_ISSUE = re.compile(r"^https://github\.com/modelcontextprotocol/conformance/issues/[1-9][0-9]*$")


def test_every_must_left_is_checked_or_unobservable_for_a_stated_reason() -> None:
    """A MUST excluded from checking is one no wire message shows, or a framework gap (SEP-2484's two kinds of
    exclusion), said so in its reason."""
    for row in _all_rows():
        if row.check is None and "MUST" in row.text:
            reason = row.excluded or ""
            assert "not observable on the wire" in reason or "framework gap" in reason, row.text


def test_an_exclusion_links_only_a_tracking_issue() -> None:
    """SEP-2484 links a framework gap to the conformance suite's tracking issue: an issue's own URL, never a search
    standing in for an issue that does not exist yet."""
    for row in _all_rows():
        if row.issue is not None:
            assert row.check is None and TRACKING_ISSUE.match(row.issue), (row.text, row.issue)


def test_every_check_is_emitted_by_a_scenario() -> None:
    problems = emission_problems(_all_rows(), emitted_check_ids(_scenario_sources()))
    assert problems == [], "\n".join(problems)


def test_keywords_are_bold_in_the_specification() -> None:
    """BCP 14 keywords count only in capitals; the specification also sets them in bold, and a plain one is a typo."""
    plain: list[str] = []
    for title, lines in [
        item for path in SPECS.values() for item in _sections(path.read_text(encoding="utf-8")).items()
    ]:
        if title in UNTRACED_SECTIONS:
            continue
        for block in _blocks(lines):
            if normalize(block).startswith(BOILERPLATE):
                continue
            stripped = re.sub(r"\*\*[^*]+\*\*", "", LINK.sub(r"\1", block))
            stripped = re.sub(r"`[^`]*`", "", stripped)
            plain.extend(match.group(0) for match in ANY_KEYWORD.finditer(stripped) if match.group(0) != "MAY")
    assert plain == []


def test_the_sep_restates_no_requirement() -> None:
    """The SEP is the charter; its requirements live in the specification only."""
    markdown = SEP_PATH.read_text(encoding="utf-8")
    text = "\n".join(line for lines in _sections(markdown).values() for line in lines)
    assert not OBLIGATION.search(text), OBLIGATION.findall(text)


# Self-tests of the checker on synthetic input

_SYNTHETIC = """---
title: Example
---

## Conventions

The key words **MUST** and **MAY** are boilerplate.

## 1. Rules

A host **MUST** do one thing. A host **MAY** do another. See [the rules](#rules) which **SHOULD** be read.

```json
{"MUST": "inside code, not traced"}
```

<!-- BEGIN generated; a server MUST not be traced here -->

- A listed item **MUST NOT** be merged with the next one;
- a second item without keywords.

| a | b |
|---|---|
| the cell **SHOULD** count | x |

## 2. Security

**Tokens.** A server **MUST** sign tokens.
"""

_SYNTHETIC_EXPECTED = [
    "A host MUST do one thing.",
    "See the rules which SHOULD be read.",
    "A listed item MUST NOT be merged with the next one;",
    "the cell SHOULD count",
    "A server MUST sign tokens.",
]


_BASE = "https://example.org/spec.mdx"


def _synthetic_rows(texts: list[str]) -> list[Row]:
    return [
        Row(text=text, check=f"sep-0000-s{index}", excluded=None, url=f"{_BASE}#1-rules")
        for index, text in enumerate(texts)
    ]


def test_extractor_finds_exactly_the_traced_sentences() -> None:
    assert normative_sentences(_SYNTHETIC) == _SYNTHETIC_EXPECTED
    assert anchors(_SYNTHETIC) == {"conventions", "1-rules", "2-security"}


def test_extractor_skips_the_boilerplate_wherever_it_stands() -> None:
    nested = "## Specification\n\n### Conventions\n\nThe key words **MUST** and **MAY** are boilerplate.\n"
    assert normative_sentences(nested) == []


def test_checker_accepts_a_complete_mapping() -> None:
    assert find_problems({_BASE: _SYNTHETIC}, _synthetic_rows(_SYNTHETIC_EXPECTED)) == []


def test_checker_reports_a_missing_row() -> None:
    problems = find_problems({_BASE: _SYNTHETIC}, _synthetic_rows(_SYNTHETIC_EXPECTED[1:]))
    assert problems == ["normative sentence without a row: 'A host MUST do one thing.'"]


def test_checker_reports_a_stale_row_after_the_specification_changes() -> None:
    edited = _SYNTHETIC.replace("A server **MUST** sign tokens.", "A server **MUST** sign and date tokens.")
    problems = find_problems({_BASE: edited}, _synthetic_rows(_SYNTHETIC_EXPECTED))
    assert "stale row, text not in the specification: 'A server MUST sign tokens.'" in problems
    assert "normative sentence without a row: 'A server MUST sign and date tokens.'" in problems


def test_checker_reports_unanchored_checks_rows_of_no_specification_and_issues_that_are_not_urls() -> None:
    rows = _synthetic_rows(_SYNTHETIC_EXPECTED)
    rows[0] = Row(text=rows[0].text, check=rows[0].check, excluded=None, url=f"{_BASE}#no-such-heading")
    rows[1] = Row(text=rows[1].text, check=None, excluded="x", url="sep/spec.mdx", issue="free text")
    rows[2] = Row(text=rows[2].text, check=None, excluded="x", url=_BASE, issue="a gap, in words")
    problems = find_problems({_BASE: _SYNTHETIC}, rows)
    assert any("'sep-0000-s0'" in problem and "url anchor" in problem for problem in problems)
    assert any(problem.startswith("row whose url names no specification") for problem in problems)
    assert any(problem.startswith("issue that is not a URL") for problem in problems)


def test_checker_reports_a_check_in_the_wrong_specification() -> None:
    other = "https://example.org/other.mdx"
    problems = find_problems(
        {_BASE: _SYNTHETIC, other: "## 1. Rules\n\nNothing here.\n"},
        [
            Row(text=text, check=f"sep-0000-s{index}", excluded=None, url=f"{other}#1-rules")
            for index, text in enumerate(_SYNTHETIC_EXPECTED)
        ],
    )
    assert f"normative sentence without a row: {_SYNTHETIC_EXPECTED[0]!r}" in problems
    assert f"stale row, text not in the specification: {_SYNTHETIC_EXPECTED[0]!r}" in problems


def test_emission_reports_unemitted_and_undeclared_checks() -> None:
    rows = _synthetic_rows(_SYNTHETIC_EXPECTED)
    emitted = {f"sep-0000-s{index}" for index in range(len(rows))} - {"sep-0000-s2"} | {"sep-0000-extra"}
    assert emission_problems(rows, emitted) == [
        "check no scenario emits: 'sep-0000-s2'",
        "emitted id not declared in the traceability file: 'sep-0000-extra'",
    ]


def test_checker_reports_duplicate_rows_and_empty_exclusions() -> None:
    rows = [
        *_synthetic_rows(_SYNTHETIC_EXPECTED),
        Row(text=_SYNTHETIC_EXPECTED[0], check=None, excluded=" ", url=_BASE),
    ]
    problems = find_problems({_BASE: _SYNTHETIC}, rows)
    assert f"normative sentence with 2 rows: {_SYNTHETIC_EXPECTED[0]!r}" in problems
    assert f"exclusion without a reason: {_SYNTHETIC_EXPECTED[0]!r}" in problems


def test_row_parser_rejects_rows_outside_the_suites_format() -> None:
    for raw in (
        {"text": "x", "check": "sep-0000-a", "excluded": "y"},
        {"text": "x"},
        {"text": "x", "check": "sep-0000-a", "note": "not a field of the suite's format"},
    ):
        try:
            parse_rows({"requirements": [raw]})
        except ValueError:
            continue
        raise AssertionError(f"accepted {raw!r}")


def test_emitted_ids_are_string_literals() -> None:
    source = """
const checks = [{ id: 'sep-0000-from-single', status: 'SUCCESS' }, { id: "sep-0000-from-double" }];
// sep-0000-from-a-comment is not a check id
const more = [{ id: 'continuation-server-x' }, { name: 'result-continuation-server' }];
"""
    assert emitted_check_ids({"x.ts": source}) == {
        "sep-0000-from-single",
        "sep-0000-from-double",
        "continuation-server-x",
    }
