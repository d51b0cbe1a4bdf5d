"""Record the calls a function receives while it keeps working: the one spy of the tests."""

from __future__ import annotations

import functools
from typing import Any

import pytest


def calls_of(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple[Any, ...]]:
    """Replace `owner.name` for the test with a wrapper that records the positional arguments of every call made
    from now on, in order, and returns what the original returns."""
    original = getattr(owner, name)
    calls: list[tuple[Any, ...]] = []

    @functools.wraps(original)
    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return calls
