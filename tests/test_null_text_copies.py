"""The copies of the usable-null-text rule outside the package.

The pull request to the Python SDK (`upstream/python-sdk/rendering/files-1-server/src/mcp/shared/_rendering.py`)
freezes the character classes of the schema's `nullDisplay` pattern (`schema/delta/rendering.schema.json`): on every
code point it reads as that pattern does, on every text as the package does, and its default null text is the
package's. The conformance scenarios (`upstream/conformance/files/src/scenarios/server/rendering-wire.ts`) state the
rule as two regular expressions, whose Unicode categories and listed characters are read here: they accept every
text the SDK accepts; Node's engine reads those expressions, and the everything-client's copy (the lines the pull
request's diff of that file adds), as the package does.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering._null_text import FORBIDDEN as FROZEN_FORBIDDEN
from mcp_rendering._null_text import INVISIBLE, WHITE_SPACE, usable_by_property
from mcp_rendering.reading import DEFAULT_NULL_DISPLAY, usable_null_text

ROOT = Path(__file__).resolve().parents[1]
SDK_SHARED = (
    ROOT / "upstream" / "python-sdk" / "rendering" / "files-1-server" / "src" / "mcp" / "shared" / "_rendering.py"
)
SCHEMA = ROOT / "schema" / "delta" / "rendering.schema.json"
CONFORMANCE_WIRE = ROOT / "upstream" / "conformance" / "files" / "src" / "scenarios" / "server" / "rendering-wire.ts"
CONFORMANCE_CLIENT_DIFF = (
    ROOT / "upstream" / "conformance" / "changes" / "examples" / "clients" / "typescript" / "everything-client.ts.diff"
)
"""The pull request's change to the suite's everything-client (its hunks), which adds the reader's `isNullText`."""


def _sdk_shared() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sdk_shared_rendering", SDK_SHARED)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SDK = _sdk_shared()


def _conformance_source(name: str) -> str:
    """The source of the scenarios' regular expression `name` (a `u`-flag literal)."""
    match = re.search(rf"const {name} =\s*/(.+)/u;", CONFORMANCE_WIRE.read_text(encoding="utf-8"))
    assert match is not None, name
    return match[1]


def _conformance_categories(name: str) -> tuple[str, ...]:
    """The Unicode general categories named (`\\p{...}`) in the scenarios' regular expression `name`."""
    return tuple(re.findall(r"\\p\{(\w+)\}", _conformance_source(name)))


_ESCAPE = r"\\u(?:([0-9A-Fa-f]{4})|\{([0-9A-Fa-f]+)\})"


def _conformance_listed(name: str) -> frozenset[int]:
    """The code points the scenarios' regular expression `name` lists by escape (`\\uXXXX`, `\\u{X}`, ranges)."""
    listed: set[int] = set()
    for match in re.finditer(rf"{_ESCAPE}(?:-{_ESCAPE})?", _conformance_source(name)):
        low = int(match[1] or match[2], 16)
        high = int(match[3] or match[4], 16) if match[3] or match[4] else low
        listed.update(range(low, high + 1))
    return frozenset(listed)


BLANK = _conformance_categories("BLANK_TEXT")
BLANK_LISTED = _conformance_listed("BLANK_TEXT")
FORBIDDEN = _conformance_categories("FORBIDDEN_CHARACTER")
FORBIDDEN_LISTED = _conformance_listed("FORBIDDEN_CHARACTER")


def _conformance_accepts(text: str) -> bool:
    """The scenarios' rule, with the categories and characters their expressions name (`\\s` is white space); they
    count code points, as Python's len does."""
    blank = all(
        char.isspace() or unicodedata.category(char).startswith(BLANK) or ord(char) in BLANK_LISTED for char in text
    )
    forbidden = any(unicodedata.category(char).startswith(FORBIDDEN) or ord(char) in FORBIDDEN_LISTED for char in text)
    return 1 <= len(text) <= 16 and not blank and not forbidden


_NEAR_NULL_TEXT = st.text(
    st.one_of(
        st.sampled_from(
            " -./09:@AZ[`az{~\xa0\xaa\xad\xb2\xb5\xba\xbf\xc0\xd6\xd7\xd8\xf6\xf7\xf8\u017f\u0180\u2010\u2014"
        ),
        st.sampled_from("\u2027\u2030\u205e\u205f\u216b\u2800\u3164\u0663\u0391\n"),
        st.sampled_from("OoDQIliJjLTZzSsBbGgqnNx"),
        st.characters(codec="utf-8"),
    ),
    max_size=18,
)

_CASES = [
    *("-", "\u2014", "\u2013", "--", ".", " - ", "0", "", "\u00b5", "\u00df", "\u0131", "\u0142", "\u00d8", "\u00aa"),
    *("O", "O.OO", "l,OOO", "(O)", "S", "\u00ba", "lO", "l", "TBD", "s.o."),  # letters that resemble digits alone
    *("n/a", "N/A", "null", "none", "nil", "not reported", "missing", "\u2014n/a\u2014", "nO", "\u00d8n"),
]
_LOOK_ALIKES = ["O", "O.OO", "l,OOO", "(O)", "S", "\u00ba", "lO"]


_CJK_NUMERALS = ("\u4e00", "\u5341", "\u96f6", "\u4e07", "\u5104", "\uf9b2", "\U00020001", "n/a\u5341", "\u4e00-")
"""一, 十, 零, 万, 億, the compatibility ideograph 零, an ideograph beyond the BMP, and two of them beside usable text:
ideographs with a numeric value outside category N."""

_INVISIBLE_ONLY = ("\u2800", "\u3164", "\u115f", "\uffa0", "\u034f", "\ufe0f", "\u2800\u3164", " \u2800", "\u3000")


@given(_NEAR_NULL_TEXT | st.sampled_from(_CASES + list(_INVISIBLE_ONLY)))
def test_the_sdk_reads_null_texts_as_the_package_does(text: str) -> None:
    assert SDK.usable_null_text(text) is usable_null_text(text)


@given(_NEAR_NULL_TEXT | st.sampled_from(_CASES))
def test_the_conformance_scenarios_accept_every_null_text_the_sdk_accepts(text: str) -> None:
    assert _conformance_accepts(text) or not SDK.usable_null_text(text)


def test_the_sdk_and_the_package_read_every_code_point_as_the_schemas_pattern_does() -> None:
    """The SDK's frozen classes and the package's frozen tables are the pattern's: each code point alone (the class a
    text needs one of) and after a letter (the class every character must be in). The reader requires the pattern
    and the tables both, so it reads each of these texts as they do."""
    node = json.loads(SCHEMA.read_text(encoding="utf-8"))["$defs"]["Rendering"]["properties"]["nullDisplay"]
    pattern = re.compile(node["pattern"])
    assert (node["minLength"], node["maxLength"]) == (1, 16)
    differing = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        for text in (chr(code), "a" + chr(code))
        if not SDK.usable_null_text(text) is usable_by_property(text) is (pattern.fullmatch(text) is not None)
    ]
    assert differing == []


def test_the_conformance_scenarios_read_the_specifications_examples_as_the_specification_does() -> None:
    for text in ("-", "n/a", "\u2014", "n\u00e9ant", "\u7121", "O", "O.OO"):
        assert _conformance_accepts(text), text
    for text in (
        "",
        " ",
        "\u00a0",
        "\u200b",
        "\x07",
        "0",
        "\u0663",
        "\u216b",
        "\u00b2",
        "x\ty",
        "x" * 17,
        *_CJK_NUMERALS,
    ):
        assert not _conformance_accepts(text), text


def test_the_sdk_reads_the_specifications_examples_as_the_specification_does() -> None:
    """sep/rendering.mdx section 4: `-`, `n/a`, `—`, `néant` and `無` are usable; no blank or invisible text, and no
    `0`, `٣`, `Ⅻ` or `十`."""
    for text in ("-", "n/a", "\u2014", "n\u00e9ant", "\u7121"):
        assert SDK.usable_null_text(text) and usable_null_text(text), text
    for text in ("", " ", "\u200b", "\x07", "0", "\u0663", "\u216b", "x" * 17, *_INVISIBLE_ONLY, *_CJK_NUMERALS):
        assert not SDK.usable_null_text(text), text
        assert not usable_null_text(text), text


def test_the_sdk_default_is_the_package_default() -> None:
    assert SDK.DEFAULT_NULL_DISPLAY == DEFAULT_NULL_DISPLAY == "n/a"
    assert usable_null_text(DEFAULT_NULL_DISPLAY)


def test_letters_that_resemble_digits_are_usable() -> None:
    """The rule is by Unicode category, not by look: `O`, `l` and `º` are letters, not numerals."""
    for text in _LOOK_ALIKES:
        assert usable_null_text(text) and SDK.usable_null_text(text), text


# Code points next to a class boundary that Unicode assigned after 14.0, the version every copy freezes: Node's
# engine (a newer Unicode) reads them by their new properties. U+13439 is an Egyptian hieroglyph format control (Cf)
# since Unicode 15.0, so the scenarios refuse it where the package, as of 14.0, allows it.
_ASSIGNED_AFTER_UNICODE_14 = frozenset({0x13439})


def _boundary_samples() -> list[str]:
    """Each code point on either side of every boundary of the package's frozen classes, alone and after a letter,
    and the specification's examples."""
    codes: set[int] = set()
    for low, high in (*FROZEN_FORBIDDEN, *WHITE_SPACE, *INVISIBLE):
        codes.update((low - 1, low, high, high + 1))
    codes = {code for code in codes if 0 <= code <= sys.maxunicode and not 0xD800 <= code <= 0xDFFF}
    texts = [text for code in sorted(codes) for text in (chr(code), "a" + chr(code))]
    return [*texts, *_CASES, *_INVISIBLE_ONLY, *_CJK_NUMERALS, "n\u00e9ant", "\u7121", "\u7121-", "x" * 17]


def _client_sources() -> tuple[str, str]:
    """The everything-client's blank and forbidden expressions (its `isNullText`)."""
    diff = CONFORMANCE_CLIENT_DIFF.read_text(encoding="utf-8").splitlines(keepends=True)
    source = "".join(line[1:] for line in diff if line.startswith("+") and not line.startswith("+++ "))
    forbidden = re.search(r"const FORBIDDEN_IN_NULL_TEXT =\s*/(.+)/u;", source)
    blank = re.search(r"const isNullText = [^;]*?!/(\^\[[^\n]*\]\*\$)/u\.test\(v\)", source)
    assert forbidden is not None and blank is not None
    return blank[1], forbidden[1]


@pytest.mark.parametrize(
    "sources",
    [
        pytest.param(
            lambda: (_conformance_source("BLANK_TEXT"), _conformance_source("FORBIDDEN_CHARACTER")), id="scenarios"
        ),
        pytest.param(_client_sources, id="everything-client"),
    ],
)
def test_node_reads_the_conformance_expressions_as_the_package_does(sources: Callable[[], tuple[str, str]]) -> None:
    node = shutil.which("node")
    assert node is not None, "Node.js is required for this check (node was not found on PATH)"
    blank, forbidden = sources()
    script = (
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const blank = new RegExp(input.blank, 'u'), forbidden = new RegExp(input.forbidden, 'u');"
        "process.stdout.write(JSON.stringify(input.samples.map((s) => [...s].length >= 1 && [...s].length <= 16"
        " && !blank.test(s) && !forbidden.test(s))));"
    )
    samples = _boundary_samples()
    payload = {"blank": blank, "forbidden": forbidden, "samples": samples}
    completed = subprocess.run(
        [node, "-e", script], input=json.dumps(payload), capture_output=True, text=True, check=True, timeout=60
    )
    by_node = json.loads(completed.stdout)
    differing = {text: by for text, by in zip(samples, by_node, strict=True) if by is not usable_null_text(text)}
    newer = {text for text in differing if any(ord(char) in _ASSIGNED_AFTER_UNICODE_14 for char in text)}
    assert {text: by for text, by in differing.items() if text not in newer} == {}
    assert not any(differing[text] for text in newer), "Node reads a code point assigned after 14.0 as allowed"
    for text in ("-", "n/a", "n\u00e9ant", "\u7121"):
        assert by_node[samples.index(text)], text
    for text in ("\u4e00", "\u5341", "\u96f6"):
        assert not by_node[samples.index(text)], text
