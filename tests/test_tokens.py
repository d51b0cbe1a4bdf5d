"""Continuation tokens: binding, expiry, key rotation, tamper detection and bounded size."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.tokens import (
    MAX_TOKEN_LENGTH,
    START_AGAIN,
    ContinuationTokens,
    ExpiredTokenError,
    Keyring,
    MalformedTokenError,
    TamperedTokenError,
    TokenError,
    UnknownKeyError,
    WrongArgumentsError,
    WrongCallerError,
    WrongToolError,
    canonical_arguments,
)

SECRET_A = b"a" * 32
SECRET_B = b"b" * 32
ARGS: dict[str, Any] = {"statement": "2026-q1", "filter": {"min": 10, "accounts": ["4000", "4100"]}}


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make(clock: Clock | None = None, keyring: Keyring | None = None, ttl: int = 600) -> ContinuationTokens:
    return ContinuationTokens(keyring or Keyring.single(SECRET_A), ttl_seconds=ttl, clock=clock or Clock())


def issue(tokens: ContinuationTokens, **overrides: Any) -> str:
    fields: dict[str, Any] = {
        "tool": "statement",
        "arguments": ARGS,
        "caller": "alice",
        "position": 42,
        "fingerprint": "v7",
        "exclude_argument": "cursor",
    }
    fields.update(overrides)
    return tokens.issue(**fields)


def verify(tokens: ContinuationTokens, token: str, **overrides: Any) -> Any:
    fields: dict[str, Any] = {"tool": "statement", "arguments": ARGS, "caller": "alice", "exclude_argument": "cursor"}
    fields.update(overrides)
    return tokens.verify(token, **fields)


def test_round_trip_returns_position_and_fingerprint() -> None:
    tokens = make()
    state = verify(tokens, issue(tokens))
    assert state.position == 42
    assert state.fingerprint == tokens.fingerprint_digest("v7")
    assert state.fingerprint != tokens.fingerprint_digest("v8")
    assert state.key_id == "k1"


def test_token_is_compact_url_safe_and_does_not_reveal_bindings() -> None:
    token = issue(make(), caller="alice@example.com", tool="statement")
    assert len(token) <= 300
    assert all(c.isalnum() or c in "-_." for c in token)
    body = token.split(".")[2]
    payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    assert "alice" not in payload and "statement" not in payload and "2026-q1" not in payload


def test_argument_order_and_continuation_argument_do_not_matter() -> None:
    tokens = make()
    token = issue(tokens)
    reordered = {"filter": {"accounts": ["4000", "4100"], "min": 10}, "statement": "2026-q1", "cursor": token}
    assert verify(tokens, token, arguments=reordered).position == 42


@pytest.mark.parametrize(
    ("overrides", "error", "phrase"),
    [
        ({"tool": "journal"}, WrongToolError, "another tool"),
        ({"arguments": {**ARGS, "statement": "2026-q2"}}, WrongArgumentsError, "different arguments"),
        ({"arguments": {"statement": "2026-q1"}}, WrongArgumentsError, "different arguments"),
        ({"caller": "mallory"}, WrongCallerError, "another caller"),
    ],
)
def test_foreign_bindings_are_refused(overrides: dict[str, Any], error: type[TokenError], phrase: str) -> None:
    tokens = make()
    with pytest.raises(error, match=phrase) as caught:
        verify(tokens, issue(tokens), **overrides)
    assert caught.value.reason == error.reason


def test_expiry_uses_the_injected_clock() -> None:
    clock = Clock()
    tokens = make(clock, ttl=600)
    token = issue(tokens)
    clock.now += 599
    assert verify(tokens, token).position == 42
    clock.now += 1
    with pytest.raises(ExpiredTokenError, match="expired") as caught:
        verify(tokens, token)
    assert caught.value.reason == "expired"


def test_key_rotation_accepts_old_keys_until_they_are_removed() -> None:
    clock = Clock()
    old = make(clock, Keyring({"k1": SECRET_A}, current="k1"))
    token = issue(old)
    rotated = make(clock, Keyring({"k1": SECRET_A, "k2": SECRET_B}, current="k2"))
    assert verify(rotated, token).key_id == "k1"
    assert issue(rotated).split(".")[1] == "k2"
    retired = make(clock, Keyring({"k2": SECRET_B}, current="k2"))
    with pytest.raises(UnknownKeyError, match="no longer holds") as caught:
        verify(retired, token)
    assert caught.value.reason == "unknown_key"


def test_same_key_id_with_another_secret_is_a_bad_signature() -> None:
    token = issue(make(keyring=Keyring.single(SECRET_A)))
    with pytest.raises(TamperedTokenError, match="altered"):
        verify(make(keyring=Keyring.single(SECRET_B)), token)


def test_forged_payload_with_valid_shape_is_a_bad_signature() -> None:
    tokens = make()
    version, key_id, body, mac = issue(tokens).split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload["p"] = 0
    forged = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    with pytest.raises(TamperedTokenError):
        verify(tokens, f"{version}.{key_id}.{forged}.{mac}")


@pytest.mark.parametrize(
    "token",
    ["", "abc", "v1.k1.x", "v2.k1.e30.AAAA", "v1.k 1.e30.AAAA", "v1.k1.e30.!!!", "v1.k1.@@.AAAA", "x" * 5000],
)
def test_malformed_tokens_are_refused(token: str) -> None:
    with pytest.raises(MalformedTokenError, match="malformed") as caught:
        verify(make(), token)
    assert caught.value.reason == "malformed"


def test_each_cause_has_a_distinct_message() -> None:
    clock = Clock()
    tokens = make(clock)
    token = issue(tokens)
    messages: set[str] = set()
    for attempt in (
        lambda: verify(tokens, "nonsense"),
        lambda: verify(make(clock, Keyring.single(SECRET_B)), token),
        lambda: verify(make(clock, Keyring.single(SECRET_A, key_id="other")), token),
        lambda: verify(tokens, token, tool="other"),
        lambda: verify(tokens, token, arguments={}),
        lambda: verify(tokens, token, caller="bob"),
        lambda: verify(make(Clock(clock.now + 10_000)), token),
    ):
        with pytest.raises(TokenError) as caught:
            attempt()
        messages.add(type(caught.value).__name__ + ":" + caught.value.reason)
        # Whatever the cause, the message says how to recover: start again without the token.
        assert caught.value.message.startswith(caught.value.cause + "; ")
        assert START_AGAIN in caught.value.message and str(caught.value) == caught.value.message
    assert len(messages) == 7


@given(st.integers(min_value=0, max_value=10**15), st.text(max_size=200), st.text(max_size=200))
def test_every_issued_token_fits_the_schema_limit(position: int, caller: str, fingerprint: str) -> None:
    tokens = make()
    token = issue(tokens, position=position, caller=caller, fingerprint=fingerprint)
    assert len(token) <= MAX_TOKEN_LENGTH
    assert verify(tokens, token, caller=caller).position == position


@given(st.data())
def test_any_single_character_change_is_refused(data: st.DataObject) -> None:
    tokens = make()
    token = issue(tokens)
    index = data.draw(st.integers(min_value=0, max_value=len(token) - 1))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
    replacement = data.draw(st.sampled_from(alphabet).filter(lambda c: c != token[index]))
    changed = token[:index] + replacement + token[index + 1 :]
    with pytest.raises(TokenError):
        verify(tokens, changed)


def _padding_bit_variants(text: str) -> list[str]:
    """Other spellings of `text` that a lenient decoder reads as the same bytes (last character's unused bits)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    unused_bits = {2: 4, 3: 2}.get(len(text) % 4, 0)
    value = alphabet.index(text[-1])
    return [text[:-1] + alphabet[value ^ low] for low in range(1, 1 << unused_bits)]


def test_non_canonical_base64_spellings_are_refused() -> None:
    tokens = make()
    version, key_id, body, mac = issue(tokens).split(".")
    variants = [(mac, other, f"{version}.{key_id}.{body}.{other}") for other in _padding_bit_variants(mac)]
    variants += [(body, other, f"{version}.{key_id}.{other}.{mac}") for other in _padding_bit_variants(body)]
    assert len(variants) >= 3, "a 32-byte MAC leaves two unused bits in its last character"
    for original, other, token in variants:
        lenient = [base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)) for part in (original, other)]
        assert lenient[0] == lenient[1]  # the same bytes to a lenient decoder: only a canonical check can tell
        with pytest.raises(MalformedTokenError, match="non-canonical") as caught:
            verify(tokens, token)
        assert caught.value.reason == "malformed"


def test_key_ids_must_match_in_full() -> None:
    with pytest.raises(ValueError, match="key id"):
        Keyring({"k1\n": SECRET_A}, current="k1\n")
    version, _, body, mac = issue(make()).split(".")
    with pytest.raises(MalformedTokenError, match="not a token issued"):
        verify(make(), f"{version}.k1\n.{body}.{mac}")


@given(st.text(max_size=300))
def test_arbitrary_text_never_escapes_as_another_exception(text: str) -> None:
    with pytest.raises(TokenError):
        verify(make(), text)


def test_canonical_arguments_rejects_non_json() -> None:
    with pytest.raises(TypeError):
        canonical_arguments({"x": float("nan")})
    with pytest.raises(TypeError):
        canonical_arguments({"x": object()})
    assert canonical_arguments({"b": 1, "a": 2, "cursor": "t"}, exclude="cursor") == b'{"a":2,"b":1}'


def test_keyring_validates_its_keys() -> None:
    with pytest.raises(ValueError, match="shorter"):
        Keyring.single(b"short")
    with pytest.raises(ValueError, match="key id"):
        Keyring({"bad id": SECRET_A}, current="bad id")
    with pytest.raises(ValueError, match="current"):
        Keyring({"k1": SECRET_A}, current="k2")
