"""A JSONL dataset split into byte ranges that workers read themselves
(``citeaudit.eval._ranges``): the ranges' items, read one range at a time, are exactly the items
of the whole file read in one go (ordinals, places, bytes, the unreadable over-long lines),
whatever the lines (blank, white space only, a byte order mark, CRLF, no final line break,
lines longer than the size limit or than the reader's buffer), the batch size and the records a
resumed run skips; a file that changed in between is an error.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeaudit.errors import RunError
from citeaudit.eval import _ranges
from citeaudit.eval._ranges import line_ranges, range_items
from citeaudit.eval._records import lines_of
from thorough import examples

LINES = st.sampled_from([b'{"id": "a"}', b"", b" ", b"\t \r", b"\r", b"\x0b\x0c", b'  {"x": 1}',
                         b"x" * 40, b" " * 40, b"\xef\xbb\xbf", b'\xef\xbb\xbf{"id": 1}',
                         b'{"id": "caf\xc3\xa9"}\r', b"[1, 2]"])
FILES = st.tuples(st.lists(LINES, max_size=30), st.sampled_from([b"\n", b"\r\n"]),
                  st.booleans())


def _content(lines: list[bytes], end: bytes, final: bool) -> bytes:
    return end.join(lines) + (end if final and lines else b"")


def _whole(data: bytes, max_bytes: int) -> list[object]:
    return list(lines_of(io.BytesIO(data), max_bytes))


def _ranged(path: Path, max_bytes: int, batch: int, skip: int = 0) -> list[object]:
    items: list[object] = []
    for task in line_ranges(str(path), max_bytes=max_bytes, batch=batch, skip=skip):
        assert 0 < task.records <= batch
        items.extend(range_items(task))
    return items


CASES = st.tuples(FILES, st.integers(1, 5), st.sampled_from([3, 16, 39, 40, 41, 1000]),
                  st.sampled_from([1, 2, 7, 1 << 20]), st.integers(0, 8))


@settings(max_examples=examples(300), deadline=None)
@given(CASES)
def test_ranges_hold_the_items_of_the_whole_file(
        tmp_path_factory: pytest.TempPathFactory,
        case: tuple[tuple[list[bytes], bytes, bool], int, int, int, int]) -> None:
    """batch: records a range; max_bytes: the limit; block: the reader's buffer; skip: kept."""
    given_file, batch, max_bytes, block, skip = case
    data = _content(*given_file)
    path = tmp_path_factory.mktemp("ranges") / "data.jsonl"
    path.write_bytes(data)
    whole = _whole(data, max_bytes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_ranges, "_READ", block)  # lines across the reader's buffers
        assert _ranged(path, max_bytes, batch) == whole
        assert _ranged(path, max_bytes, batch, skip) == whole[skip:]


def test_lines_longer_than_the_buffer_are_never_held(tmp_path: Path) -> None:
    """A line over the limit is one unreadable record; one of white space under it is none."""
    path = tmp_path / "data.jsonl"
    path.write_bytes(b'{"id": 1}\n' + b"y" * 3_000_000 + b"\n" + b" " * 2_500_000 + b"\n"
                     + b'{"id": 2}')
    for max_bytes in (1000, 10_000_000):
        whole = _whole(path.read_bytes(), max_bytes)
        assert _ranged(path, max_bytes, 2) == whole
    assert [item.place for item in _ranged(path, 1000, 2)] == ["line 1", "line 2", "line 3",
                                                               "line 4"]
    assert [item.place for item in _ranged(path, 10_000_000, 2)] == ["line 1", "line 2",
                                                                     "line 4"]


def test_a_file_that_changed_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(b'{"id": 1}\n{"id": 2}\n{"id": 3}\n')
    tasks = list(line_ranges(str(path), max_bytes=1000, batch=2))
    for changed in (b'{"id": 1}\n', b'{"id": 1}\n\n\n{"id": 3}\n', b'{"id": 10}\n{"id": 2}\n'):
        path.write_bytes(changed)  # fewer records; as many, ending elsewhere
        with pytest.raises(RunError, match=r"data.jsonl changed while it was read: its lines"
                                           r" from 1 no longer hold the 2 records they held"):
            range_items(tasks[0])
    path.write_bytes(b'{"id": 1}\n{"id": 2}\n{"id": 4}\n')
    assert [item.value for item in range_items(tasks[1])] == [b'{"id": 4}\n']


def test_a_byte_order_mark_over_the_limit_is_one_unreadable_record() -> None:
    """The limit counts the mark: the line is not cut in two records."""
    data = b"\xef\xbb\xbf" + b"z" * 20 + b"\n{}\n"
    items = _whole(data, 20)
    assert [(item.ordinal, item.place) for item in items] == [(0, "line 1"), (1, "line 2")]
    assert type(items[0].value).__name__ == "Unreadable"
