"""Byte ranges of a JSONL dataset, for worker processes to read themselves: the main process
only finds where each batch of records begins and ends (a search for line breaks, no record
copied), and sends a worker the range instead of the records' bytes.

A range knows the ordinal and line number of its first record and how many records it holds,
so that a worker's items are exactly those the main process would have read (blank lines are
no records; a line over the size limit is one, unreadable); a file that changed in between
is an error, never a silent gap.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, NamedTuple

from citeaudit.errors import RunError
from citeaudit.eval._records import RawItem, lines_of, opened

__all__ = ["LineRange", "line_ranges", "range_items"]

_READ = 1 << 20
_BOM = b"\xef\xbb\xbf"
_SPACE = frozenset(b" \t\r\x0b\x0c")  # what bytes.strip() removes, but the line break


class LineRange(NamedTuple):
    """Bytes ``start:end`` of the JSONL file ``path``: ``records`` records, the first of
    them the ``ordinal``-th, after ``number`` lines.
    """

    path: str
    start: int
    end: int
    ordinal: int
    number: int
    records: int
    max_bytes: int


def _line_ends(stream: IO[bytes], max_bytes: int) -> Iterator[tuple[int, bool]]:
    """Where each line ends (the file offset after its line break) and whether it is a record
    (not blank, or over ``max_bytes``), read a megabyte at a time: a long line is never held.
    """
    buffer = stream.read(max(_READ, len(_BOM)))  # a byte order mark is read whole
    base = 0  # the file offset of buffer[0]
    at = 0  # where the next line starts in buffer
    first = True
    while at < len(buffer):
        length = 0
        blank = True
        while True:
            found = buffer.find(b"\n", at)
            stop = len(buffer) if found < 0 else found
            begin = at + 3 if first and length == 0 and buffer.startswith(_BOM, at) else at
            if blank and begin < stop and (buffer[begin] not in _SPACE
                                           or buffer[begin:stop].strip()):
                blank = False  # a record starts with "{", so this is one byte read
            length += stop - at
            if found >= 0:
                at = found + 1
                break
            base += len(buffer)
            buffer = stream.read(_READ)
            at = 0
            if not buffer:
                break  # the last line has no line break
        yield base + at, not blank or length > max_bytes
        first = False
        if at == len(buffer):
            base += len(buffer)
            buffer = stream.read(_READ)
            at = 0


def line_ranges(path: str, *, max_bytes: int, batch: int, skip: int = 0,
                ) -> Iterator[LineRange]:
    """The ranges of ``batch`` records each that the JSONL file ``path`` splits into, after
    its first ``skip`` records (those a resumed run keeps).
    """
    with opened(path, None) as stream:
        ordinal = number = count = start = before = 0
        for end, record in _line_ends(stream, max_bytes):
            number += 1
            if ordinal < skip:
                ordinal += record
                start, before = end, number
                continue
            if record:
                count += 1
                ordinal += 1
                if count == batch:
                    yield LineRange(path, start, end, ordinal - count, before, count, max_bytes)
                    start, before, count = end, number, 0
        if count:
            yield LineRange(path, start, end, ordinal - count, before, count, max_bytes)


def range_items(task: LineRange) -> list[RawItem]:
    """The items of ``task``'s range, read from its file: those the whole file's reader
    gives for the same lines.
    """
    with opened(task.path, None) as stream:
        stream.seek(task.start)
        items = list(lines_of(stream, task.max_bytes, task.ordinal, task.number,
                              task.end - task.start))
        ended = stream.tell()
    if len(items) != task.records or ended != task.end:
        raise RunError(f"{task.path} changed while it was read: its lines from"
                       f" {task.number + 1} no longer hold the {task.records} records they held")
    return items
