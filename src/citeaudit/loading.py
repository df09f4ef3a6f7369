"""Reading input files: size limit first, strict UTF-8, JSON with line and column on error."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from citeaudit.errors import InputError

__all__ = ["DEFAULT_MAX_BYTES", "decode_json", "decode_text", "read_bytes"]

DEFAULT_MAX_BYTES = 1_000_000


def read_bytes(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
               stdin: BinaryIO | None = None) -> bytes:
    """Read a whole file, refusing it before reading when it is larger than ``max_bytes``.

    ``-`` reads ``stdin`` (at most ``max_bytes + 1`` bytes, then refuses).
    """
    origin = os.fspath(path)
    try:
        if origin == "-" and stdin is not None:
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
        line, column = _line_column(data, error.start)
        raise InputError(f"not valid UTF-8 (byte 0x{data[error.start]:02x}: {error.reason})",
                         origin=origin, place=f"line {line}, column {column}") from None
    return text.removeprefix("\ufeff")


def decode_json(data: bytes, *, origin: str) -> Any:
    """Parse JSON from bytes (strict UTF-8), naming line and column on error."""
    text = decode_text(data, origin=origin)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        message = str(error).split(": line ", 1)[0]
        raise InputError(f"invalid JSON: {message}", origin=origin,
                         place=f"line {error.lineno}, column {error.colno}") from None


def _line_column(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column
