"""Property tests: malformed carriers (misspelled and miscased members, wrong types, repeated names as a JSON parser
sees them) never make a partial result read as complete, nor a verbatim one as summarizable; members a later
revision might add never change the reading of a well-formed carrier, and are always reported as ignored.

The oracle is the merged JSON Schema, validated by `jsonschema`, an implementation independent of the reader: a
directive reads as complete, or as summarizable, exactly when the schema accepts its defined members (a missing
`complete` aside, which reads as "not stated"; unknown members aside, which the reading ignores), no member name is
repeated, and the carrier says so.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.reading import (
    parse_json,
    read_directive,
    read_hints_object,
    read_rendering_object,
    resolve_rendering,
    usable_null_text,
)
from mcp_rendering.types import CONTINUATION_ID, EXTENSION_ID

REPO_ROOT = Path(__file__).resolve().parent.parent


def _script(name: str) -> ModuleType:
    scripts = str(REPO_ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    return importlib.import_module(name)


_gen_schema = _script("gen_schema")
_MERGED = _gen_schema.load_merged("2026-07-28")
_DIRECTIVE_SCHEMA = _gen_schema.definition_validator(_MERGED, "Rendering")
_HINTS_SCHEMA = _gen_schema.definition_validator(_MERGED, "RenderingHints")

_DIRECTIVE_MEMBERS = ("mode", "guidance", "nullDisplay", "complete")
_HINT_MEMBERS = ("verbatimHint", "summarizeOkHint")


def _variants(name: str) -> list[str]:
    """Misspellings a producer makes: case, snake case, a letter more or less, a tense."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    return sorted(
        {
            name.lower(),
            name.upper(),
            name[0].upper() + name[1:],
            snake,
            f"is_{snake}",
            f"{name}d",
            f"{name}s",
            name[:-1],
            f"{name} ",
            f"_{name}",
        }
        - {name}
    )


_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.text(max_size=6)
)
_json_values = st.recursive(
    _json_scalars | st.sampled_from(["true", "false", "verbatim", "summarizable", "-", "0", "", " "]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def _carrier_pairs(members: tuple[str, ...], good: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """A list of (name, value) pairs: defined names with good or bad values, misspelled names, repeats."""
    names = st.sampled_from([*members, *[v for m in members for v in _variants(m)]])
    value_for = {name: strategy | _json_values for name, strategy in good.items()}

    def pair(name: str) -> st.SearchStrategy[tuple[str, Any]]:
        return st.tuples(st.just(name), value_for.get(name, _json_values))

    return st.lists(names.flatmap(pair), max_size=6)


def _text(pairs: list[tuple[str, Any]]) -> str:
    """The JSON text of an object with these members in this order, repeats kept (as a peer could send it)."""
    return "{" + ",".join(f"{json.dumps(name)}:{json.dumps(value)}" for name, value in pairs) + "}"


_directive_pairs = _carrier_pairs(
    _DIRECTIVE_MEMBERS,
    {
        "mode": st.sampled_from(["verbatim", "summarizable", "tabular"]),
        "guidance": st.text(max_size=20),
        "nullDisplay": st.sampled_from(["-", "n/a", "none", "", "0", " ", "\u200b", "\u2800", "\u3164", "\uffa0"])
        | st.text(max_size=20),
        "complete": st.booleans(),
    },
)
_hint_pairs = _carrier_pairs(_HINT_MEMBERS, {"verbatimHint": st.booleans(), "summarizeOkHint": st.booleans()})


def _schema_clean(wire: Any) -> bool:
    """The schema accepts `wire`, a missing `complete` aside (that one reads as "not stated", not as unclean) and
    its unknown members aside (the schema forbids them, so that a producer cannot send one; a reader ignores them)."""
    ignored = ("required", "additionalProperties")
    return not [error for error in _DIRECTIVE_SCHEMA.iter_errors(wire) if error.validator not in ignored]


def _repeats(pairs: list[tuple[str, Any]]) -> bool:
    names = [name for name, _ in pairs]
    return len(names) != len(set(names))


@given(_directive_pairs)
def test_no_malformed_directive_reads_as_complete_or_summarizable(pairs: list[tuple[str, Any]]) -> None:
    wire = parse_json(_text(pairs))
    directive, _ = read_rendering_object(wire)
    assert directive is not None
    clean = not _repeats(pairs) and _schema_clean(wire)
    assert (directive.completeness == "complete") is (clean and wire.get("complete") is True)
    assert (directive.mode == "summarizable") is (clean and wire.get("mode") == "summarizable")


@given(_directive_pairs)
def test_a_parser_that_keeps_the_last_repeat_reads_no_more_than_the_schema_allows(pairs: list[tuple[str, Any]]) -> None:
    wire = json.loads(_text(pairs))  # repeats silently collapsed, as most SDKs parse
    effective = resolve_rendering(None, {"content": [], "_meta": {EXTENSION_ID: wire}})
    valid = _schema_clean(wire)
    if effective.complete:
        assert valid and wire["complete"] is True
    if effective.mode == "summarizable":
        assert valid and wire["mode"] == "summarizable"


@given(_hint_pairs)
def test_no_malformed_hints_read_as_summarizable_or_drop_verbatim(pairs: list[tuple[str, Any]]) -> None:
    wire = parse_json(_text(pairs))
    hints, _ = read_hints_object(wire)
    clean = not _repeats(pairs) and not [
        e for e in _HINTS_SCHEMA.iter_errors(wire) if e.validator != "additionalProperties"
    ]
    assert bool(hints.summarize_ok_hint) is (clean and wire.get("summarizeOkHint") is True)
    if "verbatimHint" in wire and wire["verbatimHint"] not in (None, False):
        assert hints.verbatim_hint is True


@given(_json_values, _json_values, st.booleans())
def test_any_carrier_values_are_read_without_raising_and_a_continuation_keeps_it_partial(
    directive: Any, continuation: Any, error: bool
) -> None:
    message = {"content": [], "isError": error, "_meta": {EXTENSION_ID: directive, CONTINUATION_ID: continuation}}
    effective = resolve_rendering({"_meta": {EXTENSION_ID: directive}}, message)
    if continuation is not None:
        assert not effective.complete
    if directive is not None and not isinstance(directive, dict):
        assert effective.mode == "verbatim"


@given(_directive_pairs)
def test_a_null_text_that_is_read_is_a_usable_one(pairs: list[tuple[str, Any]]) -> None:
    wire = parse_json(_text(pairs))
    directive, problems = read_rendering_object(wire)
    assert directive is not None
    if directive.null_display is not None:
        assert usable_null_text(directive.null_display) and directive.null_display == wire["nullDisplay"]
    elif wire.get("nullDisplay") is not None:
        assert not directive.clean and "nullDisplay" in {problem.member for problem in problems}


_NULL_DISPLAY_TYPE = json.loads((REPO_ROOT / "schema" / "delta" / "rendering.schema.json").read_text(encoding="utf-8"))[
    "$defs"
]["Rendering"]["properties"]["nullDisplay"]
# Characters in and around the pattern's ranges, blanks and digits of other scripts: where a mistake would show.
_NEAR_NULL_TEXT = st.text(
    st.one_of(
        st.sampled_from(
            " -/09:~\xa0\xa1\xac\xad\xb2\xbd\u017f\u0180\u2010\u2027\u2028\u205e\u205f\u216b\u2800\u0663\n"
            "@AZ[`az{\xaa\xb5\xba\xbf\xc0\xd6\xd7\xd8\xf6\xf7\xf8\u0391\u2014"  # at the edges of the letters
        ),
        st.sampled_from("OoDQIliJjLTZzSsBbGgq.,()nNx"),  # letters that resemble digits, and some that do not
        st.characters(codec="utf-8"),
    ),
    max_size=18,
)


@given(_NEAR_NULL_TEXT)
def test_usable_null_text_is_the_readers_rule_and_the_schemas(text: str) -> None:
    """`usable_null_text`, the reader's reading of `nullDisplay` and the schema's type agree on every string."""
    by_schema = (
        _NULL_DISPLAY_TYPE["minLength"] <= len(text) <= _NULL_DISPLAY_TYPE["maxLength"]
        and re.fullmatch(_NULL_DISPLAY_TYPE["pattern"], text) is not None
    )
    directive = read_directive({"_meta": {EXTENSION_ID: {"nullDisplay": text, "complete": True}}})
    assert directive is not None
    by_reader = directive.null_display == text and directive.clean
    assert usable_null_text(text) == by_reader == by_schema


def _ecma_samples() -> list[str]:
    """Strings near every edge of the rule: each code point class the pattern names, and its neighbours, alone and
    beside visible text; astral ones included (one code point each only in ECMA-262's Unicode mode)."""
    edges = [" ", "-", "n", "\u00a0", "\u00ad", "\u0663", "\u2028", "\u2800", "\u3164", "\u216b", "\u202e", "\x07"]
    edges += ["\U0001d7ce", "\U0001d400", "\U000e0041", "\U0001f600", "\U00020000", "\ufeff", "\u115f", "\u00bd"]
    samples = [*edges, *(edge + "-" for edge in edges), *("n/a" + edge for edge in edges), "n" * 16, "n" * 17, ""]
    for code in range(0x20, 0x3400, 7):  # a spread of the BMP below the CJK block, and each category it holds
        samples.append(chr(code))
        samples.append(f"a{chr(code)}")
    return samples


def test_an_ecma_262_engine_reads_the_null_text_pattern_as_the_reader_does() -> None:
    """The schema's pattern is ECMA-262 (Unicode mode, as JSON Schema validators compile it): Node's engine agrees
    with `usable_null_text` on every sample."""
    node = shutil.which("node")
    assert node is not None, "Node.js is required for this check (node was not found on PATH)"
    samples = _ecma_samples()
    script = (
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "const pattern = new RegExp(input.pattern, 'u');"
        "const {minLength, maxLength} = input;"
        "process.stdout.write(JSON.stringify(input.samples.map(s => pattern.test(s)"
        " && [...s].length >= minLength && [...s].length <= maxLength)));"
    )
    payload = {**_NULL_DISPLAY_TYPE, "samples": samples}
    completed = subprocess.run(
        [node, "-e", script], input=json.dumps(payload), capture_output=True, text=True, check=True, timeout=60
    )
    by_ecma = json.loads(completed.stdout)
    disagreements = [text for text, ecma in zip(samples, by_ecma, strict=True) if ecma is not usable_null_text(text)]
    assert disagreements == []
