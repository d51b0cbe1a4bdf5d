"""Reading what a user hands the command line, refusing hostile input with one line before it costs anything.

A path must name a regular file: a FIFO, a device, a socket or a directory is refused unread (opening a FIFO
would wait for a writer, and a device can be endless). A file is read up to its limit and no further, so that no
size it claims or reaches can exhaust memory. JSON is read strictly: one reading for every document, so that
what is audited is what any other reader of the file would see.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from typing import Any

from mcp_rendering.reading import exact_json_number, refuse_json_constant

__all__ = ["CommandError", "InputError", "parse_json", "read_text_file"]


class CommandError(Exception):
    """A command could not run: nothing was judged, and the command line exits 2. The message is one line, safe to
    print."""


class InputError(CommandError):
    """Input the command cannot use."""


_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_text_file(path: str, limit: int, what: str) -> str:
    """The UTF-8 text of the regular file at `path`, at most `limit` bytes long.

    Raises:
        InputError: the path is missing or not a regular file, the file is longer than `limit` bytes, or it is
            not UTF-8.
    """
    shown = ascii(path)
    try:
        before = os.stat(path)
        if not stat.S_ISREG(before.st_mode):
            raise InputError(f"the {what} {shown} is {_kind(before.st_mode)}, not a regular file; refused unread")
        # O_NONBLOCK: should the path become a FIFO after the check, opening it still does not wait.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise InputError(f"cannot read the {what} {shown}: {error.strerror or error}") from None
    with os.fdopen(descriptor, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if not stat.S_ISREG(opened.st_mode):
            raise InputError(f"the {what} {shown} is {_kind(opened.st_mode)}, not a regular file; refused unread")
        if opened.st_size > limit:
            raise InputError(f"the {what} {shown} has {opened.st_size} bytes, over the limit of {limit}")
        try:
            data = handle.read(limit + 1)  # a file that grows, or claims no size (/proc), stops here
        except OSError as error:
            raise InputError(f"cannot read the {what} {shown}: {error.strerror or error}") from None
    if len(data) > limit:
        raise InputError(f"the {what} {shown} has more than {limit} bytes, the limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"the {what} {shown} is not UTF-8 text (byte {error.start}: {error.reason})") from None


def _finite(text: str) -> float:
    return float(exact_json_number(text))  # the library's own refusal of 1e999, as a float for the SDK's calls


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members = dict(pairs)
    if len(members) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the member name {twice!a} occurs twice in one object")
    return members


def parse_json(text: str, what: str) -> Any:
    """The value of the JSON document `text`, read strictly.

    Refused: what is not JSON (including `NaN` and `Infinity`), a number too large to read (`1e999` would read as
    infinity), an object that names a member twice (readers disagree on which one counts), strings holding a lone
    surrogate (not text: it cannot be encoded), and nesting deeper than the interpreter can follow.

    Raises:
        InputError: one of the above; the message names `what`.
    """
    try:
        value = json.loads(text, parse_constant=refuse_json_constant, parse_float=_finite, object_pairs_hook=_object)
    except RecursionError:
        raise InputError(f"the {what} is nested too deeply to read") from None
    except ValueError as error:
        raise InputError(f"the {what} is not JSON: {error}") from None
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        character = error.object[error.start]
        raise InputError(f"the {what} holds a lone surrogate ({character!a}), which is not text") from None
    except RecursionError:
        raise InputError(f"the {what} is nested too deeply to read") from None
    return value
