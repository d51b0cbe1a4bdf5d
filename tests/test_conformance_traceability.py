"""Traceability between the SEP's normative text, the conformance file and the tests.

The SEP is `sep/0000-rendering-directives.md`; its conformance file, `sep/conformance/sep-0000.yaml`, follows the
layout of the MCP conformance suite (`requirements:` rows with `text` and either `check` or `excluded`).

Rules enforced here:

- every sentence of the SEP's Specification and Security Implications sections that contains one of the BCP 14
  obligation keywords (MUST, MUST NOT, SHOULD, SHOULD NOT, SHALL, SHALL NOT, REQUIRED, RECOMMENDED) has exactly one
  row; MAY and OPTIONAL grant permissions and are not traced;
- every row quotes a sentence that is still in the SEP (no stale rows);
- every `check:` id is named by a test function outside this module, either with a docstring line
  `Conformance: sep-0000-...` or with `@pytest.mark.conformance("sep-0000-...")`.

Quoted text is compared after normalization: markdown emphasis, code ticks and link targets are removed and
whitespace is collapsed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SEP_NUMBER = "0000"
SEP_PATH = ROOT / "sep" / f"{SEP_NUMBER}-rendering-directives.md"
YAML_PATH = ROOT / "sep" / "conformance" / f"sep-{SEP_NUMBER}.yaml"
TESTS_DIR = ROOT / "tests"

TRACED_SECTIONS = ("Specification", "Security Implications")
OBLIGATION = re.compile(r"\b(MUST|SHOULD|SHALL|REQUIRED|RECOMMENDED)\b")
ANY_KEYWORD = re.compile(
    r"\b(MUST NOT|MUST|SHOULD NOT|SHOULD|SHALL NOT|SHALL|REQUIRED|NOT RECOMMENDED|RECOMMENDED|MAY)\b"
)
CHECK_ID = re.compile(rf"^sep-{SEP_NUMBER}-[a-z0-9]+(?:-[a-z0-9]+)*$")
DOCSTRING_ID = re.compile(rf"Conformance:\s*(sep-{SEP_NUMBER}-[a-z0-9-]+)")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(\[])")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
BLOCK_START = re.compile(r"^(\s*[-*]\s+|\s*\d+\.\s+)")


def normalize(text: str) -> str:
    """The comparable form of a sentence: no emphasis, code ticks or link targets, single spaces."""
    text = LINK.sub(r"\1", text)
    text = text.replace("**", "").replace("`", "")
    return " ".join(text.split())


def _sections(markdown: str, names: tuple[str, ...]) -> list[str]:
    """Lines of each level-2 section whose title is in `names`, fenced code removed."""
    wanted: list[str] = []
    current: str | None = None
    in_fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if line.startswith("## "):
            current = line[3:].strip()
            continue
        if current in names:
            wanted.append(line)
    return wanted


def _blocks(lines: list[str]) -> list[str]:
    """Paragraphs, list items and table rows, each joined into one line; headings are dropped."""
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
            # A table row: each cell is a block of its own; the separator row has no text.
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
    for block in _blocks(_sections(markdown, TRACED_SECTIONS)):
        for sentence in SENTENCE_END.split(normalize(block)):
            if sentence.startswith("The key words"):
                continue  # the BCP 14 boilerplate itself
            if OBLIGATION.search(sentence):
                found.append(sentence)
    return found


@dataclass(frozen=True)
class Row:
    """One requirement row of the conformance file."""

    text: str
    check: str | None
    excluded: str | None


def parse_rows(document: Any) -> list[Row]:
    """The rows of a parsed conformance file, rejecting rows that are neither checked nor excluded."""
    rows: list[Row] = []
    for index, raw in enumerate(document["requirements"]):
        text, check, excluded = raw.get("text"), raw.get("check"), raw.get("excluded")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"row {index}: missing text")
        if (check is None) == (excluded is None):
            raise ValueError(f"row {index}: needs exactly one of check or excluded")
        rows.append(Row(text=normalize(text), check=check, excluded=excluded))
    return rows


def named_check_ids(sources: dict[str, str]) -> set[str]:
    """Check ids named by test functions in the given test modules (module name -> source)."""
    ids: set[str] = set()
    for source in sources.values():
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not node.name.startswith("test"):
                continue
            ids.update(DOCSTRING_ID.findall(ast.get_docstring(node) or ""))
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and ast.unparse(decorator.func) == "pytest.mark.conformance"
                    and decorator.args
                    and isinstance(decorator.args[0], ast.Constant)
                    and isinstance(decorator.args[0].value, str)
                ):
                    ids.add(decorator.args[0].value)
    return ids


def find_problems(markdown: str, rows: list[Row], named: set[str]) -> list[str]:
    """Every traceability problem, as readable messages; empty when SEP, rows and tests agree."""
    problems: list[str] = []
    sentences = normative_sentences(markdown)
    row_texts = [row.text for row in rows]
    for sentence in sentences:
        count = row_texts.count(sentence)
        if count == 0:
            problems.append(f"normative sentence without a row: {sentence!r}")
        elif count > 1:
            problems.append(f"normative sentence with {count} rows: {sentence!r}")
    current = set(sentences)
    seen_checks: set[str] = set()
    for row in rows:
        if row.text not in current:
            problems.append(f"stale row, text not in the SEP: {row.text!r}")
        if row.check is not None:
            if not CHECK_ID.match(row.check):
                problems.append(f"badly formed check id: {row.check!r}")
            if row.check in seen_checks:
                problems.append(f"check id used twice: {row.check!r}")
            seen_checks.add(row.check)
            if row.check not in named:
                problems.append(f"check without a test: {row.check!r}")
        elif not (row.excluded or "").strip():
            problems.append(f"exclusion without a reason: {row.text!r}")
    return problems


def _test_sources() -> dict[str, str]:
    here = Path(__file__).resolve()
    return {path.name: path.read_text(encoding="utf-8") for path in TESTS_DIR.glob("test_*.py") if path != here}


def _load_yaml() -> Any:
    return yaml.safe_load(YAML_PATH.read_text(encoding="utf-8"))


# The real files


def test_sep_conformance_file_header() -> None:
    document = _load_yaml()
    assert str(document["sep"]).zfill(4) == SEP_NUMBER
    assert isinstance(document["spec_url"], str) and document["spec_url"]


def test_sep_has_normative_text() -> None:
    sentences = normative_sentences(SEP_PATH.read_text(encoding="utf-8"))
    # A sanity floor, so that a broken extractor cannot make the traceability checks pass vacuously.
    assert len(sentences) >= 30


def test_every_normative_sentence_is_traced_and_every_check_is_tested() -> None:
    problems = find_problems(
        SEP_PATH.read_text(encoding="utf-8"), parse_rows(_load_yaml()), named_check_ids(_test_sources())
    )
    assert problems == [], "\n".join(problems)


def test_keywords_in_traced_sections_are_bold() -> None:
    """BCP 14 keywords count only in capitals; this SEP also sets them in bold, and a plain one is a typo."""
    markdown = SEP_PATH.read_text(encoding="utf-8")
    plain: list[str] = []
    for block in _blocks(_sections(markdown, TRACED_SECTIONS)):
        stripped = re.sub(r"\*\*[^*]+\*\*", "", LINK.sub(r"\1", block))
        stripped = re.sub(r"`[^`]*`", "", stripped)
        plain.extend(match.group(0) for match in ANY_KEYWORD.finditer(stripped))
    assert plain == []


def test_untraced_ids_in_tests_are_reported() -> None:
    """Every id a test names must be a check of the conformance file, so a renamed check cannot leave orphans."""
    checks = {row.check for row in parse_rows(_load_yaml()) if row.check}
    assert named_check_ids(_test_sources()) - checks == set()


# Self-tests of the checker on synthetic input

_SYNTHETIC_SEP = """# SEP-0000: Example

## Abstract

A server **MUST** be ignored here, this section is not traced.

## Specification

The key words "**MUST**" and "**MAY**" are boilerplate.

A host **MUST** do one thing. A host **MAY** do another. See [the rules](#rules) which **SHOULD** be read.

```json
{"MUST": "inside code, not traced"}
```

- A listed item **MUST NOT** be merged with the next one.
- A second item without keywords.

| a | b |
|---|---|
| the cell **SHOULD** count | x |

## Security Implications

**Tokens.** A server **MUST** sign tokens.

## Rationale

Nothing here **MUST** be traced.
"""

_SYNTHETIC_EXPECTED = [
    "A host MUST do one thing.",
    "See the rules which SHOULD be read.",
    "A listed item MUST NOT be merged with the next one.",
    "the cell SHOULD count",
    "A server MUST sign tokens.",
]


def _synthetic_rows(texts: list[str]) -> list[Row]:
    return [Row(text=text, check=f"sep-0000-s{index}", excluded=None) for index, text in enumerate(texts)]


def _synthetic_named(count: int) -> set[str]:
    return {f"sep-0000-s{index}" for index in range(count)}


def test_extractor_finds_exactly_the_traced_sentences() -> None:
    assert normative_sentences(_SYNTHETIC_SEP) == _SYNTHETIC_EXPECTED


def test_checker_accepts_a_complete_mapping() -> None:
    rows = _synthetic_rows(_SYNTHETIC_EXPECTED)
    assert find_problems(_SYNTHETIC_SEP, rows, _synthetic_named(len(rows))) == []


def test_checker_reports_a_missing_row() -> None:
    rows = _synthetic_rows(_SYNTHETIC_EXPECTED[1:])
    problems = find_problems(_SYNTHETIC_SEP, rows, _synthetic_named(len(rows)))
    assert problems == ["normative sentence without a row: 'A host MUST do one thing.'"]


def test_checker_reports_a_stale_row_after_the_sep_changes() -> None:
    rows = _synthetic_rows(_SYNTHETIC_EXPECTED)
    edited = _SYNTHETIC_SEP.replace("A server **MUST** sign tokens.", "A server **MUST** sign and date tokens.")
    problems = find_problems(edited, rows, _synthetic_named(len(rows)))
    assert "stale row, text not in the SEP: 'A server MUST sign tokens.'" in problems
    assert "normative sentence without a row: 'A server MUST sign and date tokens.'" in problems


def test_checker_reports_a_check_without_a_test() -> None:
    rows = _synthetic_rows(_SYNTHETIC_EXPECTED)
    problems = find_problems(_SYNTHETIC_SEP, rows, _synthetic_named(len(rows)) - {"sep-0000-s2"})
    assert problems == ["check without a test: 'sep-0000-s2'"]


def test_checker_reports_duplicate_rows_and_empty_exclusions() -> None:
    rows = [*_synthetic_rows(_SYNTHETIC_EXPECTED), Row(text=_SYNTHETIC_EXPECTED[0], check=None, excluded=" ")]
    problems = find_problems(_SYNTHETIC_SEP, rows, _synthetic_named(len(_SYNTHETIC_EXPECTED)))
    assert f"normative sentence with 2 rows: {_SYNTHETIC_EXPECTED[0]!r}" in problems
    assert f"exclusion without a reason: {_SYNTHETIC_EXPECTED[0]!r}" in problems


def test_row_parser_rejects_rows_with_both_or_neither_outcome() -> None:
    for raw in ({"text": "x", "check": "sep-0000-a", "excluded": "y"}, {"text": "x"}):
        try:
            parse_rows({"requirements": [raw]})
        except ValueError:
            continue
        raise AssertionError(f"accepted {raw!r}")


def test_test_naming_counts_only_test_functions() -> None:
    source = '''
import pytest

def helper():
    """Conformance: sep-0000-from-helper"""

def test_docstring():
    """Checks something.

    Conformance: sep-0000-from-docstring
    """

@pytest.mark.conformance("sep-0000-from-marker")
def test_marker():
    pass

# Conformance: sep-0000-from-comment
'''
    assert named_check_ids({"test_x.py": source}) == {"sep-0000-from-docstring", "sep-0000-from-marker"}
