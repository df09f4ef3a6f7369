# cython: language_level=3, cdivision=True
"""The hand-written leaves: plain arguments in (``str``, ``bytes``, ints), plain data out, no
call back into Python and no Python name read. Each one's docstring ends with its oracle, the
one line of Python it computes (``Oracle: ...``); ``citeaudit._speedups._fallback`` runs that
line where this module is not built or ``CITEAUDIT_PURE=1``, and ``tests/test_speedups.py``
holds each leaf to it. ``citeaudit._speedups`` chooses between the two, in one place.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.string cimport memcpy


def openings(bytes data not None):
    """How many ``[`` and ``{`` ``data`` holds (the first test of a JSON input's depth), eight
    bytes at a time: "[" is 0x5B and "{" 0x7B, the only bytes that are 0x7B once 0x20 is set.

    Oracle: data.count(b"[") + data.count(b"{")
    """
    cdef const unsigned char* bytes_ = <const unsigned char*> PyBytes_AS_STRING(data)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(data), at = 0, count = 0
    cdef unsigned long long word, low = 0x7F7F7F7F7F7F7F7FULL
    while at + 8 <= size:
        memcpy(&word, bytes_ + at, 8)
        word = (word | 0x2020202020202020ULL) ^ 0x7B7B7B7B7B7B7B7BULL  # a match: a zero byte
        # the top bit of each zero byte, exactly (no carry crosses a byte), then summed
        word = (~(((word & low) + low) | word | low)) >> 7
        count += <Py_ssize_t>((word * 0x0101010101010101ULL) >> 56)
        at += 8
    while at < size:
        count += (bytes_[at] | 0x20) == 0x7B
        at += 1
    return count
