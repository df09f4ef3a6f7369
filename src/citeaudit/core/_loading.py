"""Reading input files: size limit first, strict UTF-8, JSON with line and column on error."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from citeaudit._speedups import openings
from citeaudit.errors import InputError

__all__ = ["DEFAULT_MAX_BYTES", "JSON_STRING", "MAX_DEPTH", "decode_json", "decode_text",
           "line_column", "read_bytes", "too_deep"]

DEFAULT_MAX_BYTES = 1_000_000
# Deeper JSON is refused before it is built, everywhere (files, dataset lines, array items):
# parsers and the passes after them need memory or stack in proportion to the depth.
MAX_DEPTH = 512
# A JSON string, escapes included (the unrolled loop: fast in a backtracking engine).
JSON_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
# Strings and brackets: the structure of JSON, strings skipped whole.
_STRUCTURE = re.compile(JSON_STRING + rb"|[\[\]{}]")


def too_deep(data: bytes, limit: int = MAX_DEPTH, *,
             structure: re.Pattern[bytes] = _STRUCTURE) -> int | None:
    """The byte offset of the first bracket nested deeper than ``limit``, or ``None``.
    ``structure`` matches the brackets and what skips them (JSON's strings by default).
    """
    if type(data) is not bytes:  # the leaf reads exact bytes: a subclass is read as its bytes
        data = bytes(data)
    if openings(data) <= limit:  # the usual case, at C speed (a leaf: see _speedups)
        return None
    depth = 0
    for match in structure.finditer(data):
        first = data[match.start()]
        if first in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return match.start()
        elif first in (0x5D, 0x7D):
            depth -= 1
    return None


def read_bytes(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
               stdin: BinaryIO | None = None) -> bytes:
    """Read a whole file, refusing it before reading when it is larger than ``max_bytes``.

    ``-`` reads ``stdin`` (at most ``max_bytes + 1`` bytes, then refuses).
    """
    origin = os.fspath(path)
    if origin == "-" and stdin is not None:
        origin = "<stdin>"
    try:
        if origin == "<stdin>" and stdin is not None:
            data = stdin.read(max_bytes + 1)
        else:
            file = Path(origin)
            size = file.stat().st_size
            if size > max_bytes:
                raise InputError(f"file is {size:,} bytes, over the limit of {max_bytes:,}"
                                 " (raise it with --max-bytes)", origin=origin)
            with file.open("rb") as handle:
                data = handle.read(max_bytes + 1)
    except OSError as error:
        raise InputError(error.strerror or str(error), origin=origin) from None
    if len(data) > max_bytes:
        raise InputError(f"input is over the limit of {max_bytes:,} bytes"
                         " (raise it with --max-bytes)", origin=origin)
    return data


def decode_text(data: bytes, *, origin: str) -> str:
    """Strict UTF-8 (a leading BOM is dropped); an error names line and column of the bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = line_column(data, error.start)
        raise InputError(f"not valid UTF-8 (byte 0x{data[error.start]:02x}: {error.reason})",
                         origin=origin, place=f"line {line}, column {column}") from None
    return text.removeprefix("\ufeff")


def decode_json(data: bytes, *, origin: str) -> Any:
    """Parse JSON from bytes (strict UTF-8), naming line and column on error.

    A key repeated in one object is an error too: JSON parsers silently keep the last value,
    which would drop a source (``{"1": "a", "1": "b"}``) without a word.
    """
    deep = too_deep(data)
    if deep is not None:
        decode_text(data, origin=origin)  # bad UTF-8 before it is named
        line, column = line_column(data, deep)
        raise InputError(f"JSON nested deeper than {MAX_DEPTH} levels", origin=origin,
                         place=f"line {line}, column {column}")
    try:  # the bytes as they are: orjson checks their UTF-8 itself
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        text = decode_text(data, origin=origin)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as error:
            message = str(error).split(": line ", 1)[0]
            raise InputError(f"invalid JSON: {message}", origin=origin,
                             place=f"line {error.lineno}, column {error.colno}") from None
    if isinstance(value, dict | list) and _members(value) != _keys_written(data):
        text = decode_text(data, origin=origin)
        try:
            json.loads(text, object_pairs_hook=_unique_keys)
        except _DuplicateKeyError as error:
            raise InputError(f"duplicate key {error.key!r} in one object", origin=origin,
                             place=_place_of_key(text, error.key)) from None
    return value


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return result


# The end of a key: a string's closing quote, JSON white space, a colon. Every key written in
# the text ends so; a string value may hold the shape too, so this counts at least the keys.
# (One pass of the regex engine is faster than ``bytes.count`` of the two-byte '":'.)
_KEY_END = re.compile(rb'"[ \t\n\r]*:')


def _keys_written(data: bytes) -> int:
    """At least the number of keys written in the JSON text ``data`` (exactly, unless a
    string holds a quote followed by a colon).
    """
    return len(_KEY_END.findall(data))


def _members(value: dict[str, Any] | list[Any]) -> int:
    """The number of keys in every object of a parsed JSON value: fewer than were written
    exactly when a key was repeated in an object (the parser kept one of them). The depth
    is bounded by :data:`MAX_DEPTH`.
    """
    if type(value) is dict:
        count = len(value)
        items: Any = value.values()
    else:
        count = 0
        items = value
    for item in items:
        if type(item) is dict or type(item) is list:
            count += _members(item)
    return count


def _place_of_key(text: str, key: str) -> str | None:
    """Line and column of the key's second occurrence, where it is written plainly."""
    found = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
    if len(found) < 2:
        return None
    line = text.count("\n", 0, found[1]) + 1
    return f"line {line}, column {found[1] - text.rfind(chr(10), 0, found[1])}"


def line_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column
