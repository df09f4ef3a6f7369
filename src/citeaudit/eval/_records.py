"""Dataset records, read as a stream: JSONL, a JSON array (split into the bytes of its
elements without building them: deep or huge elements cost no memory) or Parquet (``pyarrow``,
the ``parquet`` extra). Memory stays flat whatever the file size: one record at a time, and a
line over the size limit is skipped without being held.

The reader only splits the dataset into raw items (cheap, in the main process);
:func:`parse_record` turns one into a :class:`Record` or an :class:`Unreadable` (in workers).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple, Protocol, cast, runtime_checkable

import orjson
import xxhash

from citeaudit.core import JSON_STRING, MAX_DEPTH, Registry, instance_of, kind_of, too_deep
from citeaudit.errors import InputError

__all__ = ["DATASET_FORMATS", "DatasetReader", "RawItem", "Record", "Unreadable",
           "detect_format", "digest_of", "line_item", "lines_of", "opened", "parse_record",
           "read_items", "row_item"]

DatasetFormat = str  # a name in DATASET_FORMATS
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
    answerable: bool | None = None  # whether the question can be answered from the sources


def digest_of(item: RawItem) -> str:
    """A short fingerprint of one record as the dataset holds it (its bytes, without the line
    end), so that a resumed run can tell that a stored result belongs to this record.
    """
    value = item.value
    if isinstance(value, bytes):
        return _hexdigest(value.rstrip(b"\r\n"))
    if isinstance(value, Unreadable):
        if value.digest is not None:
            return value.digest
        value = ["unreadable", value.reason]
    return _hexdigest(orjson.dumps(value, default=str, option=orjson.OPT_SORT_KEYS))


# A record's digest: XXH3 (64 bits), fast enough to take of every record, read whole or, for
# one skipped over the size limit, a piece at a time (_digester).
_hexdigest = xxhash.xxh3_64_hexdigest
_digester = xxhash.xxh3_64


@runtime_checkable
class DatasetReader(Protocol):
    """Splits one kind of dataset file into raw items, in order, in flat memory."""

    @property
    def suffixes(self) -> tuple[str, ...]:
        """The file name endings it is chosen for (lower case, with the dot)."""
        ...

    def items(self, path: str, *, max_bytes: int,
              stdin: IO[bytes] | None = None) -> Iterator[RawItem]:
        """The items of the file (``-``: ``stdin``, when the format can stream)."""
        ...


class JsonLines:
    """One JSON record per line (the default)."""

    suffixes = (".jsonl", ".ndjson")

    def items(self, path: str, *, max_bytes: int,
              stdin: IO[bytes] | None = None) -> Iterator[RawItem]:
        with opened(path, stdin) as stream:
            yield from lines_of(stream, max_bytes)


class JsonArray:
    """One JSON array of records, split into its elements' bytes without building them."""

    suffixes = (".json",)

    def items(self, path: str, *, max_bytes: int,
              stdin: IO[bytes] | None = None) -> Iterator[RawItem]:
        with opened(path, stdin) as stream:
            yield from _array(stream, path, max_bytes)


class ParquetRows:
    """A Parquet table, one record per row (the ``parquet`` extra: pyarrow)."""

    suffixes = (".parquet", ".pq")

    def items(self, path: str, *, max_bytes: int,  # noqa: ARG002 - rows are bounded by pyarrow
              stdin: IO[bytes] | None = None) -> Iterator[RawItem]:  # noqa: ARG002
        yield from _parquet(path)


def _reader(loaded: object) -> DatasetReader:
    return cast(DatasetReader, instance_of(loaded, DatasetReader, (
        "a dataset reader has suffixes and items(path, max_bytes, stdin)")))


DATASET_FORMATS: Registry[DatasetReader] = Registry("datasets", {
    "jsonl": f"{__name__}:JsonLines", "json": f"{__name__}:JsonArray",
    "parquet": f"{__name__}:ParquetRows"}, what="dataset format", validate=_reader)
"""How ``eval`` reads a dataset (``--dataset-format NAME``), built-in and installed."""


def detect_format(path: str, given: str | None = None) -> DatasetFormat:
    """The dataset format: ``given``, else the one whose suffix the file name has, else
    JSONL.
    """
    if given is not None:
        if given not in DATASET_FORMATS:
            raise InputError(f"unknown dataset format {given!r} (installed:"
                             f" {', '.join(DATASET_FORMATS)})", origin=path)
        return given
    suffix = Path(path).suffix.lower()
    for name in DATASET_FORMATS:
        if suffix in DATASET_FORMATS[name].suffixes:
            return name
    return "jsonl"


def read_items(path: str, *, max_bytes: int, format: DatasetFormat = "jsonl",
               stdin: IO[bytes] | None = None) -> Iterator[RawItem]:
    """The items of a dataset file (``-``: ``stdin``), one at a time, in order."""
    yield from DATASET_FORMATS.require(format).items(path, max_bytes=max_bytes, stdin=stdin)


@contextlib.contextmanager
def opened(path: str, stdin: IO[bytes] | None) -> Iterator[IO[bytes]]:
    if path == "-" and stdin is not None:
        yield stdin
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", origin=path) from None
    with stream:
        yield stream


def lines_of(stream: IO[bytes], max_bytes: int, index: int = 0, number: int = 0,
             size: int | None = None) -> Iterator[RawItem]:
    """The items of JSONL read from ``stream``: ``index`` items and ``number`` lines before
    it, at most ``size`` bytes (a worker reading its own range of the file). A line over
    ``max_bytes`` (its byte order mark included) is an unreadable item, never held.
    """
    read = 0
    while size is None or read < size:
        line = stream.readline(max_bytes + 1)
        if not line:
            return
        read += len(line)
        number += 1
        over = len(line) > max_bytes and not line.endswith(b"\n")
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM):]
        if over:
            hasher = _digester(line)
            while True:  # the rest of the line is skipped, never held
                rest = stream.readline(_SKIP_CHUNK)
                read += len(rest)
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


# Between elements: strings, brackets, commas and the rest; inside one, a bracket or a run of
# everything else (strings and separators together: a record costs a loop turn a bracket).
_TOKEN = re.compile(JSON_STRING + rb'|[\[\]{},]|[^"\[\]{},]+')
_INNER = re.compile(rb'[\[\]{}]|[^"\[\]{}]+(?:' + JSON_STRING + rb'[^"\[\]{}]*)*'
                    rb"|(?:" + JSON_STRING + rb'[^"\[\]{}]*)+')
_READ = 1 << 20
_WINDOW = 1 << 14  # the first window the parser looks through for an element's end
_MORE = -1


class _Skip:
    """An element being skipped: why, and the digest of its bytes so far."""

    __slots__ = ("hashed", "hasher", "reason")

    def __init__(self, reason: str, start: int | None) -> None:
        self.reason = reason
        self.hasher = _digester()
        self.hashed = start or 0  # the buffer offset up to which bytes are in the digest


class _ArraySplitter:
    """Splits a JSON array into the bytes of its elements as a stream, without building
    them: an element is parsed like a JSONL line, in a worker. Memory stays flat: an element
    over the size limit or nested too deep is skipped (only its digest is kept) and reported
    with its place, and the elements after it are still read.
    """

    def __init__(self, stream: IO[bytes], origin: str, max_bytes: int) -> None:
        self.stream = stream
        self.origin = origin
        self.max_bytes = max_bytes
        self.buffer = b""
        self.base = 0  # offset in the file of buffer[0]
        self.lines = 0  # line breaks before buffer[0]
        self.line_start = 0  # file offset just after the last line break before buffer[0]
        # The last place found: (position in the buffer, line breaks in the buffer before it,
        # file offset of its line's start). Places are asked for in order (an array of a
        # million stray commas asks for a million), so each is counted on from the last.
        self._last = (0, 0, 0)
        self.eof = False

    def where(self, position: int) -> str:
        at, breaks, line_start = self._last
        if position < at:
            at, breaks, line_start = 0, 0, self.line_start
        more = self.buffer.count(b"\n", at, position)
        if more:
            breaks += more
            line_start = self.base + self.buffer.rfind(b"\n", at, position) + 1
        self._last = (position, breaks, line_start)
        return f"line {self.lines + breaks + 1}, column {self.base + position - line_start + 1}"

    def error(self, reason: str, position: int) -> InputError:
        return InputError(reason, origin=self.origin, place=self.where(position))

    def more(self, keep: int) -> int:
        """Drop the buffer before ``keep`` and read on; the new offset of ``keep``."""
        dropped = self.buffer[:keep]
        breaks = dropped.count(b"\n")
        if breaks:
            self.line_start = self.base + dropped.rfind(b"\n") + 1
        self.lines += breaks
        self.base += keep
        self._last = (0, 0, self.line_start)
        chunk = self.stream.read(_READ)
        if not chunk:
            self.eof = True
        if self.base == 0 and not self.buffer and chunk.startswith(_BOM):
            chunk = chunk[len(_BOM):]
        self.buffer = self.buffer[keep:] + chunk
        return 0

    def items(self) -> Iterator[RawItem]:
        depth = 0
        opened = closed = False
        index = 0
        start: int | None = None  # where the current element begins in the buffer
        skip: _Skip | None = None  # why the element is skipped, and its digest so far
        position = self.more(0)
        while True:
            match = (_INNER if depth > 1 else _TOKEN).match(self.buffer, position)
            if match is None or (match.end() == len(self.buffer) and not self.eof):
                if self.eof:
                    if position >= len(self.buffer):
                        break
                    raise self.error("unterminated string in the JSON array", position)
                position, start = self._refill(position, start, skip)
                continue
            token = match[0]
            first = token[0]
            if closed or not opened:
                opened = self._outside(token, position, opened=opened, closed=closed)
                depth = 1
                position = match.end()
                continue
            if first in (0x5B, 0x7B) and depth == 1 and start is None and skip is None:
                end = self._parsed_end(position)
                if end == _MORE:
                    position = self.more(position)
                    continue
                if end is not None:  # a whole element, found by the parser: no tokens
                    start = position
                    position = end
                    continue
            if first in (0x5B, 0x7B):  # [ {
                depth += 1
                if start is None and skip is None:
                    start = position
                if depth > MAX_DEPTH + 1 and skip is None:
                    skip = _Skip(f"nested deeper than {MAX_DEPTH} levels at"
                                 f" {self.where(position)}", start)
                    start = None
            elif first in (0x5D, 0x7D) or (first == 0x2C and depth == 1):  # ] } ,
                if first != 0x2C:
                    depth -= 1
                if depth == 1 and first != 0x2C:
                    pass  # the element's own closing bracket: it ends at the next , or ]
                elif depth in (0, 1):
                    item = self._element(index, start, position, skip, first == 0x2C)
                    if item is not None:
                        yield item
                        index += 1
                    start, skip = None, None
                    if depth == 0:
                        closed = True
            elif start is None and skip is None and token.strip() and depth == 1:
                start = position  # a string or a scalar element
            position = match.end()
            if start is not None and skip is None and position - start > self.max_bytes:
                skip = _Skip(f"record is over the limit of {self.max_bytes} bytes", start)
                start = None
        self._ended(position, opened=opened, closed=closed)

    def _ended(self, position: int, *, opened: bool, closed: bool) -> None:
        """At the end of the file: the array must have been opened and closed."""
        if not opened:
            raise self.error("the file is empty: a JSON array was expected"
                             if not self.base and not self.buffer.strip()
                             else "a JSON array must start with [", position)
        if not closed:
            raise self.error("the JSON array ends before its closing ]", position)

    def _refill(self, position: int, start: int | None,
                skip: _Skip | None) -> tuple[int, int | None]:
        """Read on, keeping the current element's bytes (or, for a skipped one, its digest so
        far): the new ``position`` and ``start``.
        """
        keep = position if skip is not None or start is None else start
        if skip is not None:
            skip.hasher.update(self.buffer[skip.hashed:keep])
            skip.hashed = 0
        position = self.more(keep) + (position - keep)
        return position, (None if start is None or skip is not None else 0)

    def _outside(self, token: bytes, position: int, *, opened: bool, closed: bool) -> bool:
        """A token before the opening ``[`` or after the closing ``]``: only white space may
        stand there. Whether the array is open now.
        """
        if token[0] == 0x5B and not opened:  # [
            return True
        if token.strip():
            raise self.error("after the closing ] nothing may follow" if closed
                             else "a JSON array must start with [", position)
        return opened

    def _parsed_end(self, start: int) -> int | None:
        """Where the object or array at ``start`` ends, found by orjson (C, far faster than
        tokens) over a growing window; ``None`` when it cannot say (invalid, too deep, over the
        size limit: the tokens decide), :data:`_MORE` when the buffer ends first.
        """
        buffer = self.buffer
        window = _WINDOW
        while True:
            stop = min(start + window, len(buffer))
            while stop < len(buffer) and 0x80 <= buffer[stop] < 0xC0:
                stop -= 1  # end the window on a character boundary
            view = memoryview(buffer)[start:stop]
            try:
                orjson.loads(view)
                end = stop  # the window ends exactly with the element
            except orjson.JSONDecodeError as error:
                if not str(error.msg).startswith("unexpected content after"):
                    if stop < len(buffer) and window <= self.max_bytes:
                        window *= 4
                        continue
                    return _MORE if not self.eof and window <= self.max_bytes else None
                # ``pos`` counts characters: turn it into bytes.
                text = bytes(view).decode("utf-8")
                end = start + len(text[:error.pos].rstrip().encode("utf-8"))
            if end - start > self.max_bytes or too_deep(bytes(buffer[start:end]),
                                                         MAX_DEPTH) is not None:
                return None
            return end

    def _element(self, index: int, start: int | None, end: int, skip: _Skip | None,
                 comma: bool) -> RawItem | None:
        if skip is not None:
            skip.hasher.update(self.buffer[skip.hashed:end].rstrip())
            return RawItem(index, f"$[{index}]",
                           Unreadable(skip.reason, digest=skip.hasher.hexdigest()))
        value = self.buffer[start:end].strip() if start is not None else b""
        if not value:
            if not comma and index == 0:
                return None  # [] holds no element
            return RawItem(index, f"$[{index}]", Unreadable(
                f"empty element at {self.where(end)} (a stray comma?)"))
        return RawItem(index, f"$[{index}]", value)


def _array(stream: IO[bytes], path: str, max_bytes: int) -> Iterator[RawItem]:
    yield from _ArraySplitter(stream, path, max_bytes).items()


def row_item(index: int, row: dict[str, Any]) -> RawItem:
    """A table's row (Parquet, Spark) as an item: a snapshot held as JSON text is decoded."""
    value: Any = row
    sources = row.get("sources")
    if isinstance(sources, str):  # a snapshot stored as JSON text
        try:
            row["sources"] = orjson.loads(sources)
        except orjson.JSONDecodeError as error:
            value = Unreadable(f"\"sources\" is not valid JSON: {error}")
    return RawItem(index, f"row {index}", value)


def line_item(index: int, number: int, line: bytes, max_bytes: int) -> RawItem:
    """A JSONL line (without its line end) as an item, read whole (Spark's text reader): one
    over ``max_bytes`` is unreadable, as :class:`JsonLines` makes it.
    """
    if len(line) > max_bytes:
        return RawItem(index, f"line {number}",
                       Unreadable(f"record is over the limit of {max_bytes} bytes",
                                  digest=_hexdigest(line.rstrip(b"\r\n"))))
    return RawItem(index, f"line {number}", line)


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
                yield row_item(index, row)
                index += 1
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        raise InputError(f"cannot read Parquet: {error}", origin=path) from None


def parse_record(item: RawItem) -> Record | Unreadable:
    """Validate one item into a :class:`Record`, or say why it cannot be audited."""
    value = item.value
    if isinstance(value, Unreadable):
        return value
    if isinstance(value, bytes):
        deep = too_deep(value)
        if deep is not None:
            return Unreadable(f"nested deeper than {MAX_DEPTH} levels at column {deep + 1}")
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
    if "response" in value and "answer" not in value:  # a provider's response, and request
        answer, sources = value["response"], value.get("request")
    else:
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
    answerable = value.get("answerable")
    if answerable is not None and not isinstance(answerable, bool):
        return Unreadable(f"\"answerable\" must be true or false, not {kind_of(answerable)}")
    return Record(record_id, sources, answer, tuple(relevant) if relevant is not None else None,
                  tuple(sorted((str(k), _tag(v)) for k, v in tags.items())), grammar,
                  answerable)


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
