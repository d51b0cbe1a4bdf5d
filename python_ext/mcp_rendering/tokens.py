"""Opaque, self-contained continuation tokens for bounded tool results.

A token carries everything needed to resume a result on any server replica, so no server keeps paging state:
the position of the next record and a fingerprint of the result set it was cut from. It is bound to the tool
name, to a canonical hash of the call arguments (the continuation argument itself excluded) and to the caller's
identity, it expires, and it names the key that signed it so keys can rotate (sign with the current key, accept
any key still in the keyring).

Wire form, url-safe and at most `MAX_TOKEN_LENGTH` characters::

    v1.<key id>.<base64url payload>.<base64url HMAC-SHA256 of "v1.<key id>.<payload>">

The payload is readable by anyone holding a token, so it stores only keyed digests of the tool, arguments,
caller and fingerprint, never the values themselves. Clients must treat the token as opaque.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, cast

__all__ = [
    "MAX_POSITION",
    "MAX_TOKEN_LENGTH",
    "MAX_TTL_SECONDS",
    "START_AGAIN",
    "ContinuationTokens",
    "ExpiredTokenError",
    "IssuedToken",
    "Keyring",
    "MalformedTokenError",
    "NotJSONArgumentsError",
    "TamperedTokenError",
    "TokenError",
    "TokenErrorReason",
    "TokenState",
    "UnknownKeyError",
    "WrongArgumentsError",
    "WrongCallerError",
    "WrongToolError",
    "canonical_arguments",
]

MAX_TOKEN_LENGTH = 4096
"""Longest token accepted or issued: the schema's limit on `ResultContinuation.token`."""

_VERSION = "v1"
_KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")  # always used with fullmatch: "$" would admit a trailing newline
_DIGEST_BYTES = 12  # 96 bits: ample to tell bindings apart, short enough to keep tokens compact
_MIN_SECRET_BYTES = 16

TokenErrorReason: TypeAlias = Literal[
    "malformed", "bad_signature", "unknown_key", "expired", "wrong_tool", "wrong_arguments", "wrong_caller"
]
"""Why a token was refused; one value per `TokenError` subclass."""


START_AGAIN = "call the tool again without the token to start from the first record"
"""What every refused token's message tells the caller to do (the specification asks for it)."""


class TokenError(ValueError):
    """A continuation token was refused. Subclasses name the cause; `reason` carries it as a string."""

    reason: TokenErrorReason = "malformed"

    def __init__(self, cause: str, remedy: str = START_AGAIN) -> None:
        self.cause = cause
        """Why the token was refused."""
        self.message = f"{cause}; {remedy}"
        """The cause and what to do about it: the text of the tool error a caller receives."""
        super().__init__(self.message)


class MalformedTokenError(TokenError):
    """The token is not one this server issues (wrong shape, encoding, version or length)."""

    reason: TokenErrorReason = "malformed"


class TamperedTokenError(TokenError):
    """The signature does not match: the token was altered, or signed with a different secret."""

    reason: TokenErrorReason = "bad_signature"


class UnknownKeyError(TokenError):
    """The token names a key id that is not in the keyring (retired, or never issued here)."""

    reason: TokenErrorReason = "unknown_key"


class ExpiredTokenError(TokenError):
    """The token's lifetime is over."""

    reason: TokenErrorReason = "expired"


class WrongToolError(TokenError):
    """The token was issued by another tool."""

    reason: TokenErrorReason = "wrong_tool"


class WrongArgumentsError(TokenError):
    """The token was issued for a call with different arguments."""

    reason: TokenErrorReason = "wrong_arguments"


class WrongCallerError(TokenError):
    """The token was issued to another caller."""

    reason: TokenErrorReason = "wrong_caller"


class NotJSONArgumentsError(TypeError):
    """A call's arguments are not JSON text (NaN, infinity, a lone surrogate, a value JSON cannot write), so no token
    can be bound to them; `message` says which, for the tool error a caller receives."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class _NonCanonicalError(ValueError):
    """Well-formed base64url whose spelling is not the canonical one (nonzero padding bits)."""


def _b64decode(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise ValueError("not base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    # The decoder ignores the unused low bits of the last character, so several spellings decode alike; accept only
    # the one this module issues, so that every token has exactly one valid spelling.
    if _b64encode(data) != text:
        raise _NonCanonicalError("non-canonical base64url")
    return data


def canonical_arguments(arguments: Mapping[str, Any], *, exclude: str | None = None) -> bytes:
    """The canonical JSON bytes of a call's arguments, without the continuation argument `exclude`.

    Keys are sorted and separators compact, so two calls with equal arguments hash alike whatever their key order.

    Raises:
        NotJSONArgumentsError: an argument value is not JSON text, or an argument name is not a string (the token
            could not be bound to it); a TypeError.
    """
    kept = {key: value for key, value in arguments.items() if key != exclude}
    unnamed = [key for key in cast("dict[object, Any]", kept) if not isinstance(key, str)]
    if unnamed:  # json.dumps would write 1 as "1": {1: 1} and {"1": 1} would bind the same token
        raise NotJSONArgumentsError(f"arguments are not JSON: the argument name {unnamed[0]!r} is not a string")
    try:
        text = json.dumps(kept, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:  # NaN, infinity, or a value JSON cannot write
        raise NotJSONArgumentsError(f"arguments are not JSON: {exc}") from exc
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:  # JSON may spell a lone surrogate ("\ud800"); it is no Unicode text
        character = exc.object[exc.start]
        raise NotJSONArgumentsError(
            f"arguments are not JSON: a string holds a lone surrogate ({character!a}), which is not text"
        ) from None


class Keyring:
    """Signing keys by id: tokens are signed with `current` and verified with whichever key they name.

    To rotate, add a new key and make it current; keep the old one until the tokens it signed have expired.
    """

    def __init__(self, keys: Mapping[str, bytes | str], current: str) -> None:
        """Build a keyring.

        Args:
            keys: key id -> secret (bytes, or text taken as UTF-8), each at least 16 bytes and not one byte
                repeated. Ids are 1-32 characters of ``[A-Za-z0-9_-]``.
            current: the id of the key that signs new tokens.

        Raises:
            TypeError: `keys` is not a mapping, a key id or `current` is not a string, or a secret is neither bytes
                nor text (an integer is refused: `bytes(32)` would be 32 zero bytes, a key anyone can forge with).
            ValueError: a key id is malformed, a secret is shorter than 16 bytes (as UTF-8) or is one byte repeated
                (`bytes(32)`, `" " * 16`: a placeholder anyone can guess), or `current` is not in `keys`.
        """
        if not isinstance(keys, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"keys must be a mapping of key id to secret, not {type(keys).__name__}")
        if not isinstance(current, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"current must be a key id (a string), not {type(current).__name__}")
        secrets: dict[str, bytes] = {}
        for key_id, secret in keys.items():
            if not isinstance(key_id, str):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise TypeError(f"a key id must be a string, not {type(key_id).__name__}")
            if not _KEY_ID.fullmatch(key_id):
                raise ValueError(f"key id {key_id!r} must be 1-32 characters of A-Z, a-z, 0-9, '_' or '-'")
            secrets[key_id] = _secret_bytes(key_id, secret)
        if current not in secrets:
            raise ValueError(f"current key {current!r} is not in the keyring")
        self._keys = secrets
        self.current = current

    @classmethod
    def single(cls, secret: bytes | str, key_id: str = "k1") -> Keyring:
        """A keyring of one key; refused as `Keyring()` refuses its keys."""
        if not isinstance(key_id, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"a key id must be a string, not {type(key_id).__name__}")
        return cls({key_id: secret}, current=key_id)

    def secret(self, key_id: str) -> bytes | None:
        """The secret of `key_id`, or None if the keyring does not hold it."""
        return self._keys.get(key_id)

    def __contains__(self, key_id: object) -> bool:
        return key_id in self._keys


def _utf8(name: str, value: object) -> bytes:
    """A string bound into a token, as UTF-8; refused clearly when it is not text (never an encoder's error)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{name} holds a lone surrogate, which is not text") from None


def _secret_bytes(key_id: str, secret: object) -> bytes:
    """The secret as bytes: text as UTF-8, bytes-like as is; anything else refused (never converted)."""
    if isinstance(secret, str):
        try:
            raw = secret.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"secret of key {key_id!r} holds a lone surrogate, which is not text") from None
    elif isinstance(secret, bytes | bytearray):
        raw = bytes(secret)
    else:
        raise TypeError(f"secret of key {key_id!r} must be bytes or text, not {type(secret).__name__}")
    if len(raw) < _MIN_SECRET_BYTES:
        raise ValueError(f"secret of key {key_id!r} is shorter than {_MIN_SECRET_BYTES} bytes")
    if raw.count(raw[0]) == len(raw):  # bytes(32), b" " * 16: a placeholder, a key anyone can guess and forge with
        raise ValueError(f"secret of key {key_id!r} repeats one byte: not a secret")
    return raw


@dataclass(frozen=True)
class TokenState:
    """What a verified token says about where to resume."""

    position: int
    """Index of the next record to return, counted over the whole ordered result set."""
    fingerprint: str
    """Keyed digest of the result-set fingerprint the token was issued for; compare with
    `ContinuationTokens.fingerprint_digest`."""
    expires_at: int
    """Expiry, in whole seconds since the epoch."""
    key_id: str


@dataclass(frozen=True)
class IssuedToken:
    """A token as issued, with the expiry it was signed with (sent as `expiresAt` beside it)."""

    token: str
    expires_at: int
    """Expiry, in whole seconds since the epoch: the first second at which the token is refused."""


MAX_TTL_SECONDS = 86_400
"""The longest lifetime of a token: the specification requires an expiry at most 24 hours after issue."""

MAX_POSITION = 2**53 - 1
"""The largest position a token carries: the largest integer every JSON reader holds exactly."""

_RFC3339_SECONDS = range(-62_135_596_800, 253_402_300_800)
"""0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z: the expiries (`expiresAt`) RFC 3339 writes."""


class ContinuationTokens:
    """Issues and verifies continuation tokens for one server (any replica sharing the keyring)."""

    def __init__(
        self,
        keyring: Keyring,
        *,
        ttl_seconds: int = 900,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Configure the issuer.

        Args:
            keyring: the signing keys.
            ttl_seconds: lifetime of an issued token, at most `MAX_TTL_SECONDS`.
            clock: returns the current time in seconds since the epoch (injected in tests).

        Raises:
            TypeError: `keyring` is not a `Keyring`, `ttl_seconds` not an integer (a bool or a float is refused:
                a fractional lifetime would sign an expiry that is no whole second), or `clock` not callable.
            ValueError: `ttl_seconds` is out of range.
        """
        if not isinstance(keyring, Keyring):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"keyring must be a Keyring, not {type(keyring).__name__}")
        if type(ttl_seconds) is not int:
            raise TypeError(f"ttl_seconds must be an integer number of seconds, not {type(ttl_seconds).__name__}")
        if not callable(clock):  # pyright: ignore[reportUnnecessaryComparison]
            raise TypeError(f"clock must be callable, not {type(clock).__name__}")
        if not 0 < ttl_seconds <= MAX_TTL_SECONDS:
            raise ValueError(
                f"ttl_seconds must be from 1 to {MAX_TTL_SECONDS} (24 hours, the longest the specification allows)"
            )
        self.keyring = keyring
        self.ttl_seconds = ttl_seconds
        self._clock = clock

    def _now(self) -> int:
        """The clock's reading in whole seconds, refused clearly when it is no finite number of seconds."""
        reading = cast("object", self._clock())  # a clock typed to return a float may return anything
        if isinstance(reading, bool) or not isinstance(reading, int | float):
            raise TypeError(f"the clock {self._clock!r} returned {type(reading).__name__}, not a number of seconds")
        if not math.isfinite(reading):
            raise ValueError(f"the clock {self._clock!r} returned {reading}, not a finite number of seconds")
        return int(reading)

    def _digest(self, secret: bytes, label: str, value: bytes) -> str:
        mac = hmac.new(secret, label.encode("ascii") + b"\x00" + value, hashlib.sha256).digest()
        return _b64encode(mac[:_DIGEST_BYTES])

    def fingerprint_digest(self, fingerprint: str, key_id: str | None = None) -> str:
        """The keyed digest under which a result-set fingerprint is stored in a token signed by `key_id`."""
        secret = self.keyring.secret(key_id or self.keyring.current)
        if secret is None:
            raise KeyError(key_id)
        return self._digest(secret, "fingerprint", _utf8("fingerprint", fingerprint))

    def issue(
        self,
        *,
        tool: str,
        arguments: Mapping[str, Any],
        caller: str,
        position: int,
        fingerprint: str,
        exclude_argument: str | None = None,
    ) -> str:
        """A signed token to resume `tool` at `position` for this caller and these arguments.

        `exclude_argument` names the continuation argument, left out of the argument hash.
        """
        return self.issue_token(
            tool=tool,
            arguments=arguments,
            caller=caller,
            position=position,
            fingerprint=fingerprint,
            exclude_argument=exclude_argument,
        ).token

    def issue_token(
        self,
        *,
        tool: str,
        arguments: Mapping[str, Any],
        caller: str,
        position: int,
        fingerprint: str,
        exclude_argument: str | None = None,
    ) -> IssuedToken:
        """As `issue`, with the token's expiry, read from the same clock reading that was signed into it.

        Raises:
            TypeError: `position` is not an integer; the clock returned no number; the arguments are not JSON
                (`NotJSONArgumentsError`: a value JSON cannot write, or an argument name that is not a string).
            ValueError: `position` is negative or over `MAX_POSITION`; the clock returned NaN or infinity, or a
                time whose expiry RFC 3339 cannot write (outside the years 1 to 9999); a bound string is not text.
        """
        if type(position) is not int:
            raise TypeError(f"position must be an integer, not {type(position).__name__}")
        if not 0 <= position <= MAX_POSITION:
            raise ValueError(f"position must be from 0 to {MAX_POSITION}")
        key_id = self.keyring.current
        secret = self.keyring.secret(key_id)
        assert secret is not None  # the keyring guarantees its current key exists
        expires_at = self._now() + self.ttl_seconds
        if expires_at not in _RFC3339_SECONDS:
            raise ValueError(
                f"the clock {self._clock!r} gives an expiry outside the years 1 to 9999, which RFC 3339 cannot write"
            )
        payload = {
            "p": position,
            "f": self._digest(secret, "fingerprint", _utf8("fingerprint", fingerprint)),
            "e": expires_at,
            "t": self._digest(secret, "tool", _utf8("tool", tool)),
            "a": self._digest(secret, "arguments", canonical_arguments(arguments, exclude=exclude_argument)),
            "c": self._digest(secret, "caller", _utf8("caller", caller)),
        }
        body = _b64encode(json.dumps(payload, separators=(",", ":")).encode("ascii"))
        signed = f"{_VERSION}.{key_id}.{body}"
        token = f"{signed}.{_b64encode(hmac.new(secret, signed.encode('ascii'), hashlib.sha256).digest())}"
        if len(token) > MAX_TOKEN_LENGTH:  # cannot happen with the fields above; kept as a hard guarantee
            raise ValueError("token exceeds the schema limit")
        return IssuedToken(token=token, expires_at=expires_at)

    def verify(
        self,
        token: str,
        *,
        tool: str,
        arguments: Mapping[str, Any],
        caller: str,
        exclude_argument: str | None = None,
    ) -> TokenState:
        """Check a token against this call and return where to resume.

        Checks run in a fixed order: shape, key id, signature, expiry, tool, arguments, caller.

        Raises:
            MalformedTokenError: not a token of this server (shape, encoding, version, length).
            UnknownKeyError: signed with a key id the keyring no longer holds.
            TamperedTokenError: the signature does not match.
            ExpiredTokenError: the lifetime is over.
            WrongToolError: issued by another tool.
            WrongArgumentsError: issued for other arguments.
            WrongCallerError: issued to another caller.
        """
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise MalformedTokenError(f"continuation token is malformed: empty or longer than {MAX_TOKEN_LENGTH}")
        parts = token.split(".")
        if len(parts) != 4 or parts[0] != _VERSION or not _KEY_ID.fullmatch(parts[1]):
            raise MalformedTokenError("continuation token is malformed: not a token issued by this server")
        _, key_id, body, signature = parts
        try:
            mac = _b64decode(signature)
            raw_payload = _b64decode(body)
        except _NonCanonicalError as exc:
            raise MalformedTokenError("continuation token is malformed: non-canonical encoding") from exc
        except (ValueError, binascii.Error) as exc:
            raise MalformedTokenError("continuation token is malformed: bad encoding") from exc
        secret = self.keyring.secret(key_id)
        if secret is None:
            raise UnknownKeyError(
                f"continuation token was signed with key {key_id!r}, which this server no longer holds"
            )
        expected = hmac.new(secret, f"{_VERSION}.{key_id}.{body}".encode("ascii"), hashlib.sha256).digest()
        if not hmac.compare_digest(mac, expected):
            raise TamperedTokenError("continuation token signature does not match: the token was altered")
        payload = _parse_payload(raw_payload)
        now = self._now()
        if now >= payload["e"]:
            raise ExpiredTokenError(f"continuation token expired {now - payload['e']} s ago")
        if not hmac.compare_digest(payload["t"], self._digest(secret, "tool", _utf8("tool", tool))):
            raise WrongToolError(f"continuation token was issued by another tool, not {tool!r}")
        args_digest = self._digest(secret, "arguments", canonical_arguments(arguments, exclude=exclude_argument))
        if not hmac.compare_digest(payload["a"], args_digest):
            raise WrongArgumentsError(
                "continuation token was issued for different arguments",
                f"repeat the original arguments with the token, or {START_AGAIN}",
            )
        if not hmac.compare_digest(payload["c"], self._digest(secret, "caller", _utf8("caller", caller))):
            raise WrongCallerError("continuation token was issued to another caller")
        return TokenState(position=payload["p"], fingerprint=payload["f"], expires_at=payload["e"], key_id=key_id)


def _parse_payload(raw: bytes) -> dict[str, Any]:
    # Reached only for a correctly signed token, so a failure here means a bug or a foreign format, not an attack.
    try:
        data: object = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedTokenError("continuation token is malformed: unreadable payload") from exc
    if not isinstance(data, dict):
        raise MalformedTokenError("continuation token is malformed: unreadable payload")
    payload: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    ints_ok = all(type(payload.get(k)) is int for k in ("p", "e")) and 0 <= payload["p"] <= MAX_POSITION
    strs_ok = all(isinstance(payload.get(k), str) for k in ("f", "t", "a", "c"))
    if not (ints_ok and strs_ok):
        raise MalformedTokenError("continuation token is malformed: missing or invalid fields")
    return payload
