"""The copies of the usable-null-text rule outside the package.

The pull request to the Python SDK (`upstream/python-sdk/rendering/files/src/mcp/shared/_rendering.py`) states the
rule of `sep/rendering.mdx` section 4 in words of Unicode categories; it reads that section's examples as the section
does, and its default null text is the package's. The conformance scenarios
(`upstream/conformance/files/src/scenarios/server/rendering-wire.ts`) state the same rule as two regular expressions,
whose Unicode categories are read here: on every string they agree with the SDK's.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from pathlib import Path
from types import ModuleType

from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.reading import DEFAULT_NULL_DISPLAY, usable_null_text

ROOT = Path(__file__).resolve().parents[1]
SDK_SHARED = ROOT / "upstream" / "python-sdk" / "rendering" / "files" / "src" / "mcp" / "shared" / "_rendering.py"
CONFORMANCE_WIRE = ROOT / "upstream" / "conformance" / "files" / "src" / "scenarios" / "server" / "rendering-wire.ts"


def _sdk_shared() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sdk_shared_rendering", SDK_SHARED)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SDK = _sdk_shared()


def _conformance_categories(name: str) -> tuple[str, ...]:
    """The Unicode general categories named (`\\p{...}`) in the scenarios' regular expression `name`."""
    source = CONFORMANCE_WIRE.read_text(encoding="utf-8")
    match = re.search(rf"const {name} = /(.+)/u;", source)
    assert match is not None, name
    return tuple(re.findall(r"\\p\{(\w+)\}", match[1]))


BLANK = _conformance_categories("BLANK_TEXT")
FORBIDDEN = _conformance_categories("FORBIDDEN_CHARACTER")


def _conformance_accepts(text: str) -> bool:
    """The scenarios' rule, with the categories their expressions name (`\\s` is white space); they count code
    points, as Python's len does."""
    blank = all(char.isspace() or unicodedata.category(char).startswith(BLANK) for char in text)
    forbidden = any(unicodedata.category(char).startswith(FORBIDDEN) for char in text)
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


@given(_NEAR_NULL_TEXT | st.sampled_from(_CASES))
def test_the_conformance_scenarios_read_null_texts_as_the_sdk_does(text: str) -> None:
    assert _conformance_accepts(text) is SDK.usable_null_text(text)


def test_the_conformance_scenarios_read_the_specifications_examples_as_the_specification_does() -> None:
    for text in ("-", "n/a", "\u2014", "n\u00e9ant", "\u7121", "O", "O.OO"):
        assert _conformance_accepts(text), text
    for text in ("", " ", "\u00a0", "\u200b", "\x07", "0", "\u0663", "\u216b", "\u00b2", "x\ty", "x" * 17):
        assert not _conformance_accepts(text), text


def test_the_sdk_reads_the_specifications_examples_as_the_specification_does() -> None:
    """sep/rendering.mdx section 4: `-`, `n/a`, `—`, `néant` and `無` are usable; no blank or invisible text, and no
    `0`, `٣` or `Ⅻ`."""
    for text in ("-", "n/a", "\u2014", "n\u00e9ant", "\u7121"):
        assert SDK.usable_null_text(text)
    for text in ("", " ", "\u200b", "\x07", "0", "\u0663", "\u216b", "x" * 17):
        assert not SDK.usable_null_text(text)


def test_the_sdk_default_is_the_package_default() -> None:
    assert SDK.DEFAULT_NULL_DISPLAY == DEFAULT_NULL_DISPLAY == "n/a"
    assert usable_null_text(DEFAULT_NULL_DISPLAY)


def test_the_schema_refuses_letters_that_resemble_digits_alone() -> None:
    for text in _LOOK_ALIKES:
        assert not usable_null_text(text)
