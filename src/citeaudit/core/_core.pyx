# cython: language_level=3, cdivision=True
"""The compiled core: the engine's hot loops, typed over the string's characters.

Each function mirrors its pure-Python reference line for line and uses the reference's own
patterns and constants, so there is one definition of every rule:

- :func:`segment_claimed` judges the claims ``citeaudit.core._segment.segment_until`` makes
  (that module is compiled from its own source: see ``docs/compiled.md``) as
  ``citeaudit.formats._text._claimed`` does; the claim policy's decisions come from
  ``citeaudit.core._policy``'s ``Exemptions`` (compiled from its own source too), which the
  caller gives;
- :func:`assemble` mirrors the claim assembly loop of ``citeaudit.formats._text.parse_text``
  (and :func:`marks`, ``_text._marks``).

The checks (CA301/CA302, CA204/CA205), the amounts, the engine's resolution and collection
of findings, the snapshot's reading of passages and its fingerprint's buffer
(``citeaudit.core._sources``), the square-bracket hints (``citeaudit.core._unread``), the
bracket grammars' scan and sight (``citeaudit.core._brackets``) and a provider's ranged
claims (``citeaudit.formats._ranges``) are compiled from their own Python instead
(``docs/compiled.md``); the markers' citations (``citeaudit.core._answer``) are Python.
The count of a JSON input's openings is a leaf of ``citeaudit._speedups``.

What is compiled is the interpreter's share: character tests, index arithmetic, bisects over C
arrays, tuples built without Python frames. The regular expressions stay Python's. The
properties in ``tests/test_core.py`` assert that both give identical results.

The reference modules import this one at their end (see ``citeaudit.core._native``), when
every name read here is defined.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.string cimport memchr
from libc.string cimport memcpy
from cpython.ref cimport PyObject, Py_DECREF, Py_INCREF
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_Tailmatch

from citeaudit.core._records cimport item as _item, new_record as _new_record


cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil

import re

from citeaudit.core import _segment as _S

# The segmentation compiled from its own source (citeaudit.core._segment, where it is built):
# segment_claimed asks it for the claims one at a time.
cdef object _segment_until = _S.segment_until


def segment_claimed(str text, marks, list start_list, list bad_start_list, exemptions):
    """``_text._claimed`` over ``_segment.segment(text, marks)``, stopping at the first claim
    without a marker: each claim is judged once the segmenter can no longer change it (every
    claim but the last: see ``_segment.segment_until``), so the rest of the text is not
    segmented.
    """
    cdef _Claiming state = _Claiming(start_list, bad_start_list, exemptions)
    claims = _segment_until(text, marks, state)
    if claims is None:
        return -1
    return state.rest(claims)


cdef Py_ssize_t* _starts(object items, Py_ssize_t count) except NULL:
    """The ``start`` field (index 1) of each marker, as a C array."""
    cdef Py_ssize_t* starts = <Py_ssize_t*> PyMem_Malloc((count + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t at
    if starts == NULL:
        raise MemoryError()
    for at in range(count):
        starts[at] = _item(items[at], 1)
    return starts


cdef Py_ssize_t* _numbers(list values, Py_ssize_t count) except NULL:
    """``values``, whole numbers, as a C array."""
    cdef Py_ssize_t* numbers = <Py_ssize_t*> PyMem_Malloc((count + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t at
    if numbers == NULL:
        raise MemoryError()
    for at in range(count):
        numbers[at] = values[at]
    return numbers


cdef inline Py_ssize_t _bisect_left(Py_ssize_t* values, Py_ssize_t value, Py_ssize_t low,
                                    Py_ssize_t high) noexcept:
    cdef Py_ssize_t middle
    while low < high:
        middle = (low + high) >> 1
        if values[middle] < value:
            low = middle + 1
        else:
            high = middle
    return low


cdef inline void _inside(Py_ssize_t* starts, Py_ssize_t count, Py_ssize_t* bad_starts,
                         Py_ssize_t bad_count, Py_ssize_t start, Py_ssize_t end,
                         Py_ssize_t* first, Py_ssize_t* index, Py_ssize_t* first_bad,
                         Py_ssize_t* bad) noexcept:
    """The markers (``first`` to ``index``) and malformed markers (``first_bad`` to ``bad``)
    that start inside the span ``start``..``end``; ``index`` and ``bad`` come in where the
    span before ended (spans are in order, so each search starts there).
    """
    first[0] = _bisect_left(starts, start, index[0], count)
    index[0] = _bisect_left(starts, end, first[0], count)
    first_bad[0] = bad[0]
    if bad_count:
        first_bad[0] = _bisect_left(bad_starts, start, bad[0], bad_count)
        bad[0] = _bisect_left(bad_starts, end, first_bad[0], bad_count)


def assemble(str text, object spans, tuple markers, object malformed, claim_type, exemptions):
    """The claim assembly of ``parse_text``: each span becomes a claim owning the markers
    inside it, unless it is uncited and the claim policy exempts it (``exemptions``: the
    policy's ``Exemptions`` over the text). Returns the claims and the claim number of each
    marker and malformed marker (None outside every claim).
    """
    cdef Py_ssize_t count = len(markers), bad_count = len(malformed)
    cdef Py_ssize_t* starts = _starts(markers, count)
    cdef Py_ssize_t* bad_starts = NULL
    cdef Py_ssize_t at, start, end, first, index = 0, first_bad, bad = 0, number = 0, k
    cdef list owner = [None] * count
    cdef list bad_owner = [None] * bad_count
    cdef list claims = []
    cdef object owned
    exempts = exemptions.exempts
    if not isinstance(spans, list):  # a custom segmenter's sequence
        spans = list(spans)
    try:
        bad_starts = _starts(malformed, bad_count)
        for at in range(len(spans)):
            span = spans[at]
            start = _item(span, 0)
            end = _item(span, 1)
            _inside(starts, count, bad_starts, bad_count, start, end, &first, &index,
                    &first_bad, &bad)
            if index == first and bad == first_bad and exempts(spans, at, start, end):
                continue
            number += 1
            if index > first:
                owned = number
                for k in range(first, index):
                    owner[k] = owned
            own_bad = ()
            if bad > first_bad:
                owned = number
                for k in range(first_bad, bad):
                    bad_owner[k] = owned
                own_bad = tuple(malformed[first_bad:bad])
            claims.append(_new_record(claim_type, (number, text[start:end], (start, end),
                                                   markers[first:index], own_bad)))
    finally:
        PyMem_Free(starts)
        PyMem_Free(bad_starts)
    return claims, owner, bad_owner


cdef class _Claiming:
    """``_text._claimed`` one span at a time: the claims counted so far (``number``), where
    the markers' and malformed markers' searches stand, and the spans judged (``done``).
    """

    cdef Py_ssize_t* starts
    cdef Py_ssize_t* bad_starts
    cdef Py_ssize_t count, bad_count, index, bad, number, done
    cdef object exempts

    def __cinit__(self, list start_list, list bad_start_list, exemptions):
        self.count = len(start_list)
        self.bad_count = len(bad_start_list)
        self.starts = _numbers(start_list, self.count)
        self.bad_starts = _numbers(bad_start_list, self.bad_count)
        self.exempts = exemptions.exempts

    def __dealloc__(self):
        PyMem_Free(self.starts)
        PyMem_Free(self.bad_starts)

    def __call__(self, list spans):
        """The segmenter's judge (``_segment.segment_until``): False at a claim without a
        marker.
        """
        return self.judged(spans) >= 0

    cdef int judged(self, list spans) except -2:
        """Judge every span but the last (final: see ``_segment.segment_until``); -1 at one
        that would be a claim without a marker.
        """
        while self.done < len(spans) - 1:
            if self._take(spans, self.done) < 0:
                return -1
        return 0

    cdef Py_ssize_t rest(self, list spans) except -2:
        """Judge the spans not judged yet: the claims' number, or -1."""
        while self.done < len(spans):
            if self._take(spans, self.done) < 0:
                return -1
        return self.number

    cdef int _take(self, list spans, Py_ssize_t at) except -2:
        cdef Py_ssize_t start, end, first, first_bad
        span = spans[at]
        start = _item(span, 0)
        end = _item(span, 1)
        self.done = at + 1
        _inside(self.starts, self.count, self.bad_starts, self.bad_count, start, end, &first,
                &self.index, &first_bad, &self.bad)
        if self.index > first:
            self.number += 1
            return 0
        if self.bad == first_bad and self.exempts(spans, at, start, end):
            return 0
        return -1


def claimed(object spans, list start_list, list bad_start_list, exemptions):
    """``_text._claimed``: how many claims ``assemble`` makes of ``spans`` (the markers and
    the malformed markers starting at ``start_list`` and ``bad_start_list``), or -1 at the
    first claim it would make without a marker (``exemptions``: the claim policy's
    ``Exemptions`` over the text).
    """
    cdef _Claiming state = _Claiming(start_list, bad_start_list, exemptions)
    return state.rest(spans if isinstance(spans, list) else list(spans))


cpdef list marks(markers, malformed, span):
    """``_text._marks``: where the markers and malformed markers are, in text order."""
    cdef list found = []
    for marker in markers:  # (raw, start, end, ...)
        found.append(_new_record(span, (_item(marker, 1), _item(marker, 2))))
    if malformed:
        for marker in malformed:
            found.append(_new_record(span, (_item(marker, 1), _item(marker, 2))))
        found.sort()
    return found

