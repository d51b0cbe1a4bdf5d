"""Continuation tokens: binding, expiry, key rotation, tamper detection and bounded size."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_rendering.tokens import (
    MAX_POSITION,
    MAX_TOKEN_LENGTH,
    START_AGAIN,
    ContinuationTokens,
    ExpiredTokenError,
    Keyring,
    MalformedTokenError,
    NotJSONArgumentsError,
    TamperedTokenError,
    TokenError,
    UnknownKeyError,
    WrongArgumentsError,
    WrongCallerError,
    WrongToolError,
    canonical_arguments,
)

SECRET_A = b"secret-a-0123456789abcdef"
SECRET_B = b"secret-b-0123456789abcdef"
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


def test_issue_token_reports_the_expiry_it_signed() -> None:
    clock = Clock()
    tokens = make(clock, ttl=600)
    fields: dict[str, Any] = {"tool": "statement", "arguments": ARGS, "caller": "alice", "position": 42}
    issued = tokens.issue_token(**fields, fingerprint="v7", exclude_argument="cursor")
    assert issued.expires_at == 1_800_000_600 == verify(tokens, issued.token).expires_at
    clock.now += 7  # the same inputs later: a later expiry, in the token and beside it
    later = tokens.issue_token(**fields, fingerprint="v7", exclude_argument="cursor")
    assert later.expires_at == 1_800_000_607 == verify(tokens, later.token).expires_at
    assert tokens.issue(**fields, fingerprint="v7", exclude_argument="cursor") == later.token


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


@pytest.mark.parametrize(
    ("part", "cause"),
    [("@@", "not base64url"), ("e30=", "not base64url"), ("e31", "non-canonical base64url")],
)
def test_a_badly_encoded_token_chains_what_is_wrong_with_its_encoding(part: str, cause: str) -> None:
    # The refusal's cause (shown in a traceback or a log) says whether the text is no base64url at all or only a
    # second spelling of bytes that have one canonical spelling.
    with pytest.raises(MalformedTokenError, match="encoding") as caught:
        verify(make(), f"v1.k1.{part}.AAAA")
    assert str(caught.value.__cause__) == cause


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


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signed(payload: bytes, secret: bytes = SECRET_A, key_id: str = "k1") -> str:
    """A token with this payload, correctly signed as the module docstring describes the wire form."""
    signed = f"v1.{key_id}.{_b64(payload)}"
    return f"{signed}.{_b64(hmac.new(secret, signed.encode(), hashlib.sha256).digest())}"


# Issued at 1_800_000_000.5 with SECRET_A as "k1", ttl 600, for `issue(...)`'s call with a previous cursor.
KNOWN_TOKEN = (
    "v1.k1.eyJwIjo0MiwiZiI6IjBad3EtZHdzTXR6bkhzT0ciLCJlIjoxODAwMDAwNjAwLCJ0IjoiNkxRWWFSOHhNNzZzVk9EOSIsImEiOiJ2Mnpy"
    "MTNIRUM2REtlWDdGIiwiYyI6ImJ5NlR0czZzdjRkWllrT2UifQ.liO0AuqB4Er5TLFjIiA6qRUoLZidUvZ9y1N_RYnDsfY"
)


def test_a_token_has_known_bytes_for_a_fixed_key_clock_and_call() -> None:
    """The wire form is a contract between replicas and across upgrades: a token issued by one version verifies on
    the next, so its bytes for a fixed key, clock and call never change."""
    tokens = make(Clock(1_800_000_000.5), ttl=600)
    token = issue(tokens, arguments={**ARGS, "cursor": "v1.k1.previous"})
    assert token == KNOWN_TOKEN
    version, key_id, body, mac = token.split(".")
    # v1.<key id>.<base64url payload>.<base64url HMAC-SHA256 of "v1.<key id>.<payload>">, unpadded.
    assert (version, key_id) == ("v1", "k1")
    assert mac == _b64(hmac.new(SECRET_A, f"v1.k1.{body}".encode(), hashlib.sha256).digest())
    payload = json.loads(_unb64(body))
    assert (payload["p"], payload["e"], payload["f"]) == (42, 1_800_000_600, tokens.fingerprint_digest("v7"))
    assert _unb64(body) == json.dumps(payload, separators=(",", ":")).encode()  # compact JSON


def test_the_arguments_hash_leaves_the_continuation_argument_out() -> None:
    """A token is issued during a continued call, whose arguments hold the previous token; the next call holds the
    new token instead. Both are the same call."""
    tokens = make()
    first = issue(tokens, arguments={**ARGS, "cursor": "v1.k1.first"})
    assert first == issue(tokens, arguments=ARGS)
    assert verify(tokens, first, arguments={**ARGS, "cursor": first}).position == 42
    bound = issue(tokens, arguments={**ARGS, "cursor": "v1.k1.first"}, exclude_argument=None)
    with pytest.raises(WrongArgumentsError):
        verify(tokens, bound, arguments={**ARGS, "cursor": bound}, exclude_argument=None)


def test_keyed_digests_are_96_bits_whatever_the_value() -> None:
    tokens = make()
    digests = {tokens.fingerprint_digest(str(value)) for value in range(256)}
    assert len(digests) == 256
    assert {len(digest) for digest in digests} == {16}  # 12 bytes, base64url without padding
    assert {len(_unb64(digest)) for digest in digests} == {12}


def test_the_state_says_when_the_token_expires() -> None:
    tokens = make(Clock(1_800_000_000.9), ttl=600)
    state = verify(tokens, issue(tokens))
    assert (state.expires_at, state.key_id, state.position) == (1_800_000_600, "k1", 42)


def test_tokens_live_fifteen_minutes_by_default() -> None:
    clock = Clock(1_800_000_000.0)
    tokens = ContinuationTokens(Keyring.single(SECRET_A), clock=clock)
    assert tokens.ttl_seconds == 900
    token = issue(tokens)
    assert verify(tokens, token).expires_at == 1_800_000_900
    clock.now += 899
    assert verify(tokens, token).position == 42
    clock.now += 1
    with pytest.raises(ExpiredTokenError):
        verify(tokens, token)


@pytest.mark.parametrize("ttl", [0, -1, 86_401, 10**9])
def test_a_lifetime_must_be_positive_and_at_most_a_day(ttl: int) -> None:
    """The specification asks for an expiry, at most 24 hours after a token is issued."""
    with pytest.raises(ValueError, match=r"^ttl_seconds must be from 1 to 86400 \(24 hours"):
        ContinuationTokens(Keyring.single(SECRET_A), ttl_seconds=ttl)
    assert ContinuationTokens(Keyring.single(SECRET_A), ttl_seconds=86_400).ttl_seconds == 86_400


def test_a_one_second_lifetime_is_valid() -> None:
    clock = Clock()
    tokens = make(clock, ttl=1)
    token = issue(tokens)
    assert verify(tokens, token).expires_at == int(clock.now) + 1
    clock.now += 1
    with pytest.raises(ExpiredTokenError, match=r"^continuation token expired 0 s ago;"):
        verify(tokens, token)


def test_a_position_is_within_its_documented_range() -> None:
    tokens = make()
    assert verify(tokens, issue(tokens, position=0)).position == 0
    assert verify(tokens, issue(tokens, position=MAX_POSITION)).position == MAX_POSITION
    for outside in (-1, MAX_POSITION + 1, 10**400):
        with pytest.raises(ValueError, match=rf"^position must be from 0 to {MAX_POSITION}$"):
            issue(tokens, position=outside)


def test_a_token_of_the_widest_position_and_latest_expiry_fits_the_schema_limit() -> None:
    """`RenderingContinuation.token` is at most 4096 characters: the documented ranges of position and expiry keep
    every issued token within it, and a longer text is refused when verifying."""
    tokens = make(Clock(253_402_300_799 - 600), ttl=600)  # expires 9999-12-31T23:59:59Z, the last RFC 3339 second
    token = issue(tokens, position=MAX_POSITION)
    assert len(token) <= MAX_TOKEN_LENGTH
    assert verify(make(Clock(0)), token).position == MAX_POSITION
    with pytest.raises(MalformedTokenError, match="not a token issued by this server"):
        verify(tokens, "x" * MAX_TOKEN_LENGTH)
    with pytest.raises(MalformedTokenError, match=f"longer than {MAX_TOKEN_LENGTH}"):
        verify(tokens, "x" * (MAX_TOKEN_LENGTH + 1))


@given(
    st.floats()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.sampled_from([math.nan, math.inf, -math.inf, 1e30, -1e30, "now", None, True, Decimal("1800000000")])
)
def test_a_clock_reading_is_a_finite_number_of_seconds_with_an_expiry_rfc_3339_can_write(reading: Any) -> None:
    tokens = make(Clock(reading), ttl=600)
    if isinstance(reading, bool) or not isinstance(reading, int | float):
        with pytest.raises(TypeError, match=rf"^the clock .* returned {type(reading).__name__}, not a number of"):
            issue(tokens)
    elif not math.isfinite(reading):
        with pytest.raises(ValueError, match=r"^the clock .* returned .*, not a finite number of seconds$"):
            issue(tokens)
    elif not -62_135_596_800 <= int(reading) + 600 <= 253_402_300_799:
        with pytest.raises(ValueError, match=r"^the clock .* gives an expiry outside the years 1 to 9999"):
            issue(tokens)
    else:
        assert verify(make(Clock(reading - 1), ttl=600), issue(tokens)).position == 42


@pytest.mark.parametrize("arguments", [{1: 1}, {None: "x"}, {("a",): 1}, {"year": 2025, 2: "b"}])
def test_an_argument_name_that_is_not_a_string_is_refused_not_written_as_one(arguments: dict[Any, Any]) -> None:
    """JSON would write the key 1 as "1", so that {1: 1} and {"1": 1} bound the same token."""
    with pytest.raises(NotJSONArgumentsError, match=r"^arguments are not JSON: the argument name .* is not a string$"):
        issue(make(), arguments=arguments)
    with pytest.raises(NotJSONArgumentsError, match="is not a string"):
        verify(make(), issue(make()), arguments=arguments)


@pytest.mark.parametrize("token", [None, 12345, b"v1.k1.e30.AAAA", ["v1.k1.e30.AAAA"]])
def test_a_token_that_is_not_a_string_is_malformed(token: Any) -> None:
    with pytest.raises(MalformedTokenError) as caught:
        verify(make(), token)
    assert caught.value.reason == "malformed"


class Issued:
    """A token issued by `make()` at the default clock, and its parts."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.tokens = make(self.clock)
        self.token = issue(self.tokens)
        _, _, self.body, self.mac = self.token.split(".")


REFUSALS: list[tuple[str, Callable[[Issued], object]]] = [
    ("continuation token is malformed: empty or longer than 4096", lambda i: verify(i.tokens, "")),
    ("continuation token is malformed: not a token issued by this server", lambda i: verify(i.tokens, "v2.k1.e30.AA")),
    ("continuation token is malformed: bad encoding", lambda i: verify(i.tokens, f"v1.k1.{i.body}.{i.mac[:-1]}+")),
    (
        "continuation token is malformed: non-canonical encoding",
        lambda i: verify(i.tokens, f"v1.k1.{i.body}.{_padding_bit_variants(i.mac)[0]}"),
    ),
    (
        "continuation token was signed with key 'k1', which this server no longer holds",
        lambda i: verify(make(i.clock, Keyring.single(SECRET_B, key_id="k2")), i.token),
    ),
    (
        "continuation token signature does not match: the token was altered",
        lambda i: verify(make(i.clock, Keyring.single(SECRET_B)), i.token),
    ),
    ("continuation token expired 5 s ago", lambda i: verify(make(Clock(i.clock.now + 605)), i.token)),
    (
        "continuation token was issued by another tool, not 'journal'",
        lambda i: verify(i.tokens, i.token, tool="journal"),
    ),
    ("continuation token was issued for different arguments", lambda i: verify(i.tokens, i.token, arguments={})),
    ("continuation token was issued to another caller", lambda i: verify(i.tokens, i.token, caller="bob")),
]


@pytest.mark.parametrize(("cause", "attempt"), REFUSALS, ids=[cause for cause, _ in REFUSALS])
def test_each_refusal_tells_the_caller_what_went_wrong(cause: str, attempt: Callable[[Issued], object]) -> None:
    """A refusal reaches the model as a tool error: its text names the cause and ends with how to recover."""
    with pytest.raises(TokenError) as caught:
        attempt(Issued())
    assert caught.value.cause == cause
    if isinstance(caught.value, WrongArgumentsError):
        assert caught.value.message == f"{cause}; repeat the original arguments with the token, or {START_AGAIN}"
    else:
        assert caught.value.message == f"{cause}; {START_AGAIN}"


def test_a_correctly_signed_token_of_the_issued_shape_is_accepted() -> None:
    """The forgeries below differ from this one only in their payload (so the signing helper is sound)."""
    tokens = make()
    payload = _unb64(issue(tokens).split(".")[2])
    assert _signed(payload) == issue(tokens)
    assert verify(tokens, _signed(payload)).position == 42


def _payload(**changes: Any) -> bytes:
    fields = json.loads(_unb64(issue(make()).split(".")[2]))
    for key, value in changes.items():
        if value is None:
            del fields[key]
        else:
            fields[key] = value
    return json.dumps(fields).encode()


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        (b"not json", "unreadable payload"),
        (b"\xff\xfe", "unreadable payload"),
        (b'["p", 42]', "unreadable payload"),
        (b"42", "unreadable payload"),
        (_payload(p=-1), "missing or invalid fields"),
        (_payload(p="42"), "missing or invalid fields"),
        (_payload(p=True), "missing or invalid fields"),
        (_payload(p=None), "missing or invalid fields"),
        (_payload(e=1_800_000_600.0), "missing or invalid fields"),
        (_payload(e="1800000600"), "missing or invalid fields"),
        (_payload(f=None), "missing or invalid fields"),
        (_payload(t=7), "missing or invalid fields"),
        (_payload(a=["x"]), "missing or invalid fields"),
        (_payload(c=None), "missing or invalid fields"),
    ],
)
def test_a_signed_payload_of_another_format_is_malformed(payload: bytes, detail: str) -> None:
    """A payload that passes the signature but is not this version's (a bug, or a key shared with another format)
    is refused as malformed, never read as a position or escaping as another exception."""
    with pytest.raises(MalformedTokenError) as caught:
        verify(make(), _signed(payload))
    assert caught.value.cause == f"continuation token is malformed: {detail}"


def test_a_text_secret_is_taken_as_its_utf8_bytes() -> None:
    clock = Clock()
    assert issue(make(clock, Keyring.single(SECRET_A.decode()))) == issue(make(clock, Keyring.single(SECRET_A)))
    accented = Keyring.single("é" * 8)  # 8 characters, 16 bytes
    assert accented.secret("k1") == ("é" * 8).encode("utf-8")
    with pytest.raises(ValueError, match="shorter than 16 bytes"):
        Keyring.single("é" * 7 + "e")


def test_a_secret_needs_sixteen_bytes() -> None:
    assert Keyring.single(b"s" * 15 + b"t").secret("k1") == b"s" * 15 + b"t"
    with pytest.raises(ValueError, match=r"^secret of key 'k1' is shorter than 16 bytes$"):
        Keyring.single(b"s" * 15)


def test_a_keyring_knows_which_key_ids_it_holds() -> None:
    keyring = Keyring({"k1": SECRET_A, "k2": SECRET_B}, current="k2")
    assert "k1" in keyring and "k2" in keyring
    assert "k3" not in keyring and 1 not in keyring
    assert (keyring.secret("k1"), keyring.secret("k3")) == (SECRET_A, None)


def test_the_fingerprint_digest_of_an_unknown_key_names_it() -> None:
    tokens = make(keyring=Keyring({"k1": SECRET_A, "k2": SECRET_B}, current="k2"))
    assert tokens.fingerprint_digest("v7", "k1") != tokens.fingerprint_digest("v7")
    with pytest.raises(KeyError) as caught:
        tokens.fingerprint_digest("v7", "k9")
    assert caught.value.args == ("k9",)


def test_canonical_arguments_keep_text_as_utf8() -> None:
    assert canonical_arguments({"city": "Zürich", "n": 1}) == '{"city":"Zürich","n":1}'.encode()
    with pytest.raises(TypeError, match=r"^arguments are not JSON: "):
        canonical_arguments({"x": float("inf")})


# ------------------------------------------------------------------------------------------- checked when made

ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.lists(st.integers(), max_size=3),
)
"""A value of any plain type: what a caller may pass by mistake."""


@given(ANY_VALUE)
def test_a_keyring_takes_only_bytes_or_text_of_16_bytes_or_more_not_all_one_byte(secret: Any) -> None:
    raw = secret.encode() if isinstance(secret, str) else secret
    if isinstance(secret, str | bytes) and len(raw) >= 16 and len(set(raw)) > 1:
        assert Keyring.single(secret).secret("k1") == raw
    elif isinstance(secret, str | bytes) and len(raw) >= 16:
        with pytest.raises(ValueError, match=r"^secret of key 'k1' repeats one byte: not a secret$"):
            Keyring.single(secret)
    elif isinstance(secret, str | bytes):
        with pytest.raises(ValueError, match=r"^secret of key 'k1' is shorter than 16 bytes$"):
            Keyring.single(secret)
    else:
        with pytest.raises(TypeError, match=r"^secret of key 'k1' must be bytes or text, not "):
            Keyring.single(secret)


@pytest.mark.parametrize("secret", [bytes(32), bytes(16), b" " * 16, " " * 16, "a" * 40, b"\xff" * 64])
def test_a_secret_of_one_repeated_byte_is_refused(secret: bytes | str) -> None:
    with pytest.raises(ValueError, match=r"^secret of key 'k1' repeats one byte: not a secret$"):
        Keyring.single(secret)
    with pytest.raises(ValueError, match=r"^secret of key 'k2' repeats one byte: not a secret$"):
        Keyring({"k1": SECRET_A, "k2": secret}, current="k1")


def test_an_integer_secret_is_not_taken_as_zero_bytes() -> None:
    # bytes(32) is 32 zero bytes: a key anyone could sign with.
    with pytest.raises(TypeError, match="must be bytes or text, not int"):
        Keyring.single(32)  # pyright: ignore[reportArgumentType]
    with pytest.raises(TypeError, match="must be bytes or text, not list"):
        Keyring({"k1": [0] * 32}, current="k1")  # pyright: ignore[reportArgumentType]


@given(ANY_VALUE)
def test_key_ids_and_the_current_id_are_strings(key_id: Any) -> None:
    if isinstance(key_id, str):
        if 1 <= len(key_id) <= 32 and all(c.isascii() and (c.isalnum() or c in "_-") for c in key_id):
            assert key_id in Keyring.single(SECRET_A, key_id=key_id)
        else:
            with pytest.raises(ValueError, match="key id"):
                Keyring.single(SECRET_A, key_id=key_id)
    else:
        named = rf"not {type(key_id).__name__}$"
        with pytest.raises(TypeError, match=rf"^a key id must be a string, {named}"):
            Keyring.single(SECRET_A, key_id=key_id)
        with pytest.raises(TypeError, match=rf"^current must be a key id \(a string\), {named}"):
            Keyring({"k1": SECRET_A}, current=key_id)
        if not isinstance(key_id, list):  # a hashable value can be a mapping's key: the keyring refuses it there too
            with pytest.raises(TypeError, match=rf"^a key id must be a string, {named}"):
                Keyring({key_id: SECRET_A}, current="k1")


def test_a_keyring_needs_a_mapping_and_a_secret_that_is_text() -> None:
    with pytest.raises(TypeError, match=r"^keys must be a mapping of key id to secret, not list$"):
        Keyring([("k1", SECRET_A)], current="k1")  # pyright: ignore[reportArgumentType]
    with pytest.raises(ValueError, match="lone surrogate"):
        Keyring.single("\ud800" * 16)


@given(ANY_VALUE)
def test_a_token_lifetime_is_a_whole_number_of_seconds_in_range(ttl: Any) -> None:
    if type(ttl) is int and 1 <= ttl <= 86_400:
        assert ContinuationTokens(Keyring.single(SECRET_A), ttl_seconds=ttl).ttl_seconds == ttl
    elif type(ttl) is int:
        with pytest.raises(ValueError, match=r"^ttl_seconds must be from 1 to 86400"):
            ContinuationTokens(Keyring.single(SECRET_A), ttl_seconds=ttl)
    else:
        with pytest.raises(TypeError, match=r"^ttl_seconds must be an integer number of seconds, not "):
            ContinuationTokens(Keyring.single(SECRET_A), ttl_seconds=ttl)


def test_a_fractional_lifetime_is_refused_not_issued_as_failing_tokens() -> None:
    with pytest.raises(TypeError, match="not float"):
        ContinuationTokens(Keyring.single(SECRET_A), ttl_seconds=600.5)  # pyright: ignore[reportArgumentType]


@given(ANY_VALUE)
def test_the_issuer_takes_a_keyring_and_a_callable_clock(value: Any) -> None:
    named = rf"not {type(value).__name__}$"
    with pytest.raises(TypeError, match=rf"^keyring must be a Keyring, {named}"):
        ContinuationTokens(value)
    with pytest.raises(TypeError, match=rf"^clock must be callable, {named}"):
        ContinuationTokens(Keyring.single(SECRET_A), clock=value)


@given(ANY_VALUE | st.integers(min_value=MAX_POSITION - 2, max_value=MAX_POSITION + 2))
def test_a_position_is_an_integer_in_range(position: Any) -> None:
    if type(position) is int and 0 <= position <= MAX_POSITION:
        token = issue(make(), position=position)
        assert verify(make(), token).position == position
    elif type(position) is int:
        with pytest.raises(ValueError, match=rf"^position must be from 0 to {MAX_POSITION}$"):
            issue(make(), position=position)
    else:
        with pytest.raises(TypeError, match=rf"^position must be an integer, not {type(position).__name__}$"):
            issue(make(), position=position)


@given(st.sampled_from(["\ud800", "a\udfffb", "\udc00x"]), st.sampled_from(["issue", "verify"]))
def test_a_lone_surrogate_in_an_argument_is_a_clear_error(text: str, step: str) -> None:
    arguments = {"city": text}
    surrogate = next(c for c in text if "\ud800" <= c <= "\udfff")
    expected = f"arguments are not JSON: a string holds a lone surrogate ({surrogate!a}), which is not text"
    with pytest.raises(NotJSONArgumentsError) as caught:
        if step == "issue":
            issue(make(), arguments=arguments)
        else:
            verify(make(), issue(make()), arguments=arguments)
    # The message names the character, and `message` holds the text of the tool error a caller receives.
    assert str(caught.value) == caught.value.message == expected


@given(st.sampled_from(["tool", "caller", "fingerprint"]), st.one_of(st.integers(), st.none(), st.just("a\ud800b")))
def test_the_strings_bound_into_a_token_are_text(name: str, value: Any) -> None:
    expected = ValueError if isinstance(value, str) else TypeError
    message = rf"^{name} (must be a string, not {type(value).__name__}|holds a lone surrogate, which is not text)$"
    with pytest.raises(expected, match=message):
        issue(make(), **{name: value})
    if name != "fingerprint":
        with pytest.raises(expected, match=message):
            verify(make(), issue(make()), **{name: value})
    else:
        with pytest.raises(expected, match=message):
            make().fingerprint_digest(value)
