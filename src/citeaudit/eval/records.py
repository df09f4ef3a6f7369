"""Dataset records, read as a stream: JSONL, a JSON array (``ijson``) or Parquet (``pyarrow``,
the ``parquet`` extra). Memory stays flat whatever the file size: one record at a time, and a
line over the size limit is skipped without being held.

The reader only splits the dataset into raw items (cheap, in the main process);
:func:`parse_record` turns one into a :class:`Record` or an :class:`Unreadable` (in workers).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal, NamedTuple

import orjson

from citeaudit.errors import InputError
from citeaudit.sources import kind_of

__all__ = ["FORMATS", "RawItem", "Record", "Unreadable", "detect_format", "digest_of",
           "parse_record", "read_items"]

DatasetFormat = Literal["jsonl", "json", "parquet"]
FORMATS: tuple[DatasetFormat, ...] = ("jsonl", "json", "parquet")
_SKIP_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"


class Unreadable(NamedTuple):
    """A record that cannot be audited, and why."""

    reason: str
    id: str | None = None  # when the record got as far as naming itself
    digest: str | None = None  # of its bytes, when the reader skipped them


class RawItem(NamedTuple):
    """One dataset item before parsing: its ordinal, where it is, and its bytes or value."""

    ordinal: int  # 0-based, in dataset order (blank lines are not items)
    place: str  # "line 12", "$[11]", "row 11"
    value: Any  # bytes (a JSONL line), a decoded value, or Unreadable


class Record(NamedTuple):
    """One logged answer with its snapshot, as the dataset format defines it."""

    id: str
    sources: Any
    answer: Any
    relevant: tuple[str, ...] | None
    tags: tuple[tuple[str, str], ...]
    grammar: str | None


def digest_of(item: RawItem) -> str:
    """A short fingerprint of one record as the dataset holds it (its bytes, without the line
    end), so that a resumed run can tell that a stored result belongs to this record.
    """
    value = item.value
    if isinstance(value, bytes):
        return hashlib.blake2b(value.rstrip(b"\r\n"), digest_size=8).hexdigest()
    if isinstance(value, Unreadable):
        if value.digest is not None:
            return value.digest
        value = ["unreadable", value.reason]
    return hashlib.blake2b(orjson.dumps(value, default=str, option=orjson.OPT_SORT_KEYS),
                           digest_size=8).hexdigest()


def detect_format(path: str, given: str | None = None) -> DatasetFormat:
    """The dataset format: ``given``, else by extension (``.parquet``, ``.json``), else JSONL."""
    if given is not None:
        if given not in FORMATS:
            raise InputError(f"unknown dataset format {given!r}", origin=path)
        return given
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".json":
        return "json"
    return "jsonl"


def read_items(path: str, *, max_bytes: int, format: DatasetFormat = "jsonl",
               stdin: IO[bytes] | None = None) -> Iterator[RawItem]:
    """The items of a dataset file (``-``: ``stdin``), one at a time, in order."""
    if format == "parquet":
        yield from _parquet(path)
        return
    try:
        stream = stdin if path == "-" and stdin is not None else open(path, "rb")  # noqa: SIM115
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", origin=path) from None
    with stream:
        if format == "json":
            yield from _array(stream, path, max_bytes)
        else:
            yield from _lines(stream, max_bytes)


def _lines(stream: IO[bytes], max_bytes: int) -> Iterator[RawItem]:
    index = 0
    number = 0
    while True:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        number += 1
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM):]
        if len(line) > max_bytes and not line.endswith(b"\n"):
            hasher = hashlib.blake2b(line, digest_size=8)
            while True:  # the rest of the line is skipped, never held
                rest = stream.readline(_SKIP_CHUNK)
                if not rest or rest.endswith(b"\n"):
                    hasher.update(rest.rstrip(b"\r\n"))
                    break
                hasher.update(rest)
            yield RawItem(index, f"line {number}",
                          Unreadable(f"record is over the limit of {max_bytes} bytes",
                                     digest=hasher.hexdigest()))
            index += 1
        elif line.strip():
            yield RawItem(index, f"line {number}", line)
            index += 1


def _array(stream: IO[bytes], path: str, max_bytes: int) -> Iterator[RawItem]:
    import ijson  # noqa: PLC0415 - only JSON-array datasets need it

    index = 0
    try:
        for index, value in enumerate(ijson.items(stream, "item", use_float=True)):
            if len(orjson.dumps(value)) > max_bytes:
                yield RawItem(index, f"$[{index}]",
                              Unreadable(f"record is over the limit of {max_bytes} bytes"))
            else:
                yield RawItem(index, f"$[{index}]", value)
    except (ijson.JSONError, UnicodeDecodeError, orjson.JSONEncodeError) as error:
        raise InputError(f"the JSON array cannot be read after item {index}: {error}",
                         origin=path) from None


def _parquet(path: str) -> Iterator[RawItem]:
    try:
        import pyarrow.parquet as pq  # noqa: PLC0415 - the optional "parquet" extra
    except ImportError:
        raise InputError("reading Parquet needs pyarrow: pip install 'citeaudit[parquet]'",
                         origin=path) from None
    try:
        dataset = pq.ParquetFile(path)
        index = 0
        for batch in dataset.iter_batches(batch_size=1024):
            for row in batch.to_pylist():
                value: Any = row
                sources = row.get("sources")
                if isinstance(sources, str):  # a snapshot stored as JSON text
                    try:
                        row["sources"] = orjson.loads(sources)
                    except orjson.JSONDecodeError as error:
                        value = Unreadable(f"\"sources\" is not valid JSON: {error}")
                yield RawItem(index, f"row {index}", value)
                index += 1
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        raise InputError(f"cannot read Parquet: {error}", origin=path) from None


def parse_record(item: RawItem) -> Record | Unreadable:
    """Validate one item into a :class:`Record`, or say why it cannot be audited."""
    value = item.value
    if isinstance(value, Unreadable):
        return value
    if isinstance(value, bytes):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError as error:
            return Unreadable(_json_error(item.value, error))
    if not isinstance(value, dict):
        return Unreadable(f"a record must be a JSON object, not {kind_of(value)}")
    record_id = value.get("id")
    if record_id is None:
        record_id = item.place.replace(" ", "-")
    elif isinstance(record_id, int | str) and not isinstance(record_id, bool):
        record_id = str(record_id)
    else:
        return Unreadable(f"\"id\" must be a string, not {kind_of(record_id)}")
    missing = [key for key in ("answer", "sources") if key not in value]
    if missing:
        return Unreadable(f"the record has no {' and no '.join(repr(k) for k in missing)}",
                          record_id if "id" in value else None)
    answer = value["answer"]
    sources = value["sources"]
    relevant = value.get("relevant")
    if relevant is not None and (not isinstance(relevant, list) or
                                 not all(isinstance(i, str) for i in relevant)):
        return Unreadable("\"relevant\" must be a list of source ids (strings)")
    tags = value.get("tags") or {}
    if not isinstance(tags, dict) or not all(isinstance(v, str | int | float | bool)
                                             for v in tags.values()):
        return Unreadable("\"tags\" must be an object of strings")
    grammar = value.get("grammar")
    if grammar is not None and not isinstance(grammar, str):
        return Unreadable(f"\"grammar\" must be a string, not {kind_of(grammar)}")
    return Record(record_id, sources, answer, tuple(relevant) if relevant is not None else None,
                  tuple(sorted((str(k), _tag(v)) for k, v in tags.items())), grammar)


def _tag(value: str | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _json_error(line: bytes, error: orjson.JSONDecodeError) -> str:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte 0x{line[bad.start]:02x} at column {bad.start + 1})"
    try:  # without its line end, a cut line says "unexpected end of data"
        orjson.loads(line.rstrip(b"\r\n"))
    except orjson.JSONDecodeError as again:
        error = again
    message = str(error).split(": line ", 1)[0]
    return f"invalid JSON at column {error.pos + 1}: {message}"
