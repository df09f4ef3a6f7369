# cython: language_level=3, cdivision=True
"""The compiled core: the engine's hot loops, typed over the string's characters.

Each function mirrors its pure-Python reference line for line and uses the reference's own
patterns and constants, so there is one definition of every rule:

- :func:`segment_claimed` judges the claims ``citeaudit.core._segment.segment_until`` makes
  (that module is compiled from its own source: see ``docs/compiled.md``) as
  ``citeaudit.formats._text._claimed`` does; the claim policy's decisions come from
  ``citeaudit.core._policy``'s ``Exemptions`` (compiled from its own source too), which the
  caller gives;
- :func:`scan_brackets` mirrors the loop of ``BracketGrammar.scan`` (and :func:`sight_brackets`
  and :func:`sighting` its ``sight``, the settled verdict's scan);
- :func:`assemble` mirrors the claim assembly loop of ``citeaudit.formats._text.parse_text``
  (and :func:`marks`, ``_text._marks``).

The checks (CA301/CA302, CA204/CA205), the amounts, the engine's resolution and collection
of findings, the snapshot's reading of passages and its fingerprint's buffer
(``citeaudit.core._sources``), the square-bracket hints (``citeaudit.core._unread``) and a
provider's ranged claims (``citeaudit.formats._ranges``) are compiled from their own Python
instead (``docs/compiled.md``); the markers' citations (``citeaudit.core._answer``) are
Python. The count of a JSON input's openings is a leaf of ``citeaudit._speedups``.

What is compiled is the interpreter's share: character tests, index arithmetic, bisects over C
arrays, tuples built without Python frames. The regular expressions stay Python's. The
properties in ``tests/test_core.py`` assert that both give identical results.

The reference modules import this one at their end (see ``citeaudit.core._native``), when
every name read here is defined.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.string cimport memchr
from cpython.unicode cimport PyUnicode_Tailmatch

from citeaudit.core._records cimport item as _item, new_record as _new_record


cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil

from citeaudit.core import _segment as _S

# The segmentation compiled from its own source (citeaudit.core._segment, where it is built):
# segment_claimed asks it for the claims one at a time.
cdef object _segment_until = _S.segment_until


ctypedef struct Chars:
    # a str's characters, read in place
    int kind
    void* data


cdef inline Py_UCS4 _ch(Chars* text, Py_ssize_t at) noexcept nogil:
    return PyUnicode_READ(text.kind, text.data, at)


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


cdef object _ASCII_BRACKET = None  # _grammar._BRACKET, read at the first scan (it imports us)


cdef inline Py_ssize_t _find_bracket(Chars* chars, Py_ssize_t size, Py_ssize_t at) noexcept:
    """``text.find("[", at)`` without the call: ``memchr`` over one-byte text."""
    cdef const char* found
    if at >= size:
        return -1
    if chars.kind == 1:
        found = <const char*>memchr(<const char*>chars.data + at, 91, size - at)  # "[" is 91
        return -1 if found == NULL else found - <const char*>chars.data
    while at < size:
        if _ch(chars, at) == u'[':
            return at
        at += 1
    return -1


cdef Py_ssize_t _bracket(str text, Chars* chars, Py_ssize_t size, Py_ssize_t at,
                         Py_ssize_t* end) except -2:
    """The start of the first match of ``_grammar._BRACKET`` at or after ``at`` (its end in
    ``end``), or -1: found by hand, a "[" not after a backslash or "!", at most 200 characters
    that are not "[", "]" or a newline, a "]" not followed by "(". Where a candidate fails,
    the search goes on after its "[".
    """
    cdef Py_ssize_t start, close, limit
    cdef Py_UCS4 c
    while True:
        start = _find_bracket(chars, size, at)
        if start < 0:
            return -1
        at = start + 1
        if start > 0:
            c = _ch(chars, start - 1)
            if c == u'\\' or c == u'!':
                continue
        close = start + 1
        limit = min(size, start + 201)
        while close < limit:
            c = _ch(chars, close)
            if c == u'[' or c == u']' or c == u'\n':
                break
            close += 1
        if close >= size or _ch(chars, close) != u']':
            continue
        if close + 1 < size and _ch(chars, close + 1) == u'(':
            continue
        end[0] = close + 1
        return start


cdef inline bint _plain_number(Chars* chars, Py_ssize_t start, Py_ssize_t end) noexcept:
    """Whether the characters from ``start`` to ``end`` are ASCII digits, the first not 0:
    what the scan's fast path reads as an id, without slicing them first.
    """
    cdef Py_ssize_t at
    cdef Py_UCS4 c
    if end <= start or _ch(chars, start) == u'0':
        return False
    for at in range(start, end):
        c = _ch(chars, at)
        if c < u'0' or c > u'9':
            return False
    return True


cdef inline Py_ssize_t _number(Chars* chars, Py_ssize_t start, Py_ssize_t end) noexcept:
    """The value of the ASCII digits from ``start`` to ``end`` (see :func:`_plain_number`),
    or -1 when it has more than 18 of them.
    """
    cdef Py_ssize_t value = 0, at
    if end - start > 18:
        return -1
    for at in range(start, end):
        value = value * 10 + <Py_ssize_t>_ch(chars, at) - 48  # the digit's value: "0" is 48
    return value


def scan_brackets(str text, pattern, parse, bint digits, str prefix, bint ordinal,
                  marker, malformed_type, fullwidth):
    """The loop of ``BracketGrammar.scan``: the markers and malformed markers ``pattern``
    (one of the grammar's two bracket patterns, whose brackets are one character each) finds,
    ``parse`` classifying each content (``fullwidth``: the folding table). The ASCII bracket
    pattern is matched by hand (:func:`_bracket`), the full-width one by the regex engine.
    """
    global _ASCII_BRACKET
    cdef list markers = []
    cdef list malformed = []
    cdef Chars chars
    cdef Py_ssize_t size = len(text), at = 0, start, end = 0
    if _ASCII_BRACKET is None:
        from citeaudit.core._grammar import _BRACKET
        _ASCII_BRACKET = _BRACKET
    chars.kind = PyUnicode_KIND(text)
    chars.data = PyUnicode_DATA(text)
    if pattern is _ASCII_BRACKET:
        while True:
            start = _bracket(text, &chars, size, at, &end)
            if start < 0:
                break
            at = end
            _read_bracket(text, &chars, start, end, markers, malformed, parse, digits, prefix,
                          ordinal, marker, malformed_type, fullwidth)
    else:
        for match in pattern.finditer(text):
            start, end = match.span()
            _read_bracket(text, &chars, start, end, markers, malformed, parse, digits, prefix,
                          ordinal, marker, malformed_type, fullwidth)
    return markers, malformed


cdef int _read_bracket(str text, Chars* chars, Py_ssize_t start, Py_ssize_t end,
                       list markers, list malformed, parse, bint digits, str prefix,
                       bint ordinal, marker, malformed_type, fullwidth) except -1:
    """What one bracketed text is: a marker, a malformed marker, or prose (neither)."""
    if digits and _plain_number(chars, start + 1, end - 1):  # "[12]": the common case
        markers.append(_new_record(marker, (text[start:end], start, end,
                                            (text[start + 1:end - 1],), prefix, ordinal)))
        return 0
    parsed = _parsed(text, start, end, parse, digits, fullwidth)
    if parsed is None:
        return 0
    if isinstance(parsed, str):
        malformed.append(_new_record(malformed_type, (text[start:end], start, end, parsed)))
    else:
        markers.append(_new_record(marker, (text[start:end], start, end, parsed, prefix,
                                            ordinal)))
    return 0


cdef object _parsed(str text, Py_ssize_t start, Py_ssize_t end, parse, bint digits,
                    fullwidth):
    """The bracketed content's ids (a tuple), the reason it is malformed, or None (prose)."""
    cdef str content = text[start + 1:end - 1]
    if not content.isascii():
        content = content.translate(fullwidth)
    if digits and content.isdigit() and content[0] != u'0' and content.isascii():
        return (content,)
    return parse(content)


def sight_brackets(str text, pattern, parse, bint digits, str prefix, fullwidth,
                   index, resolve, snapshot, span, Py_ssize_t numbered):
    """``_grammar._sight_brackets``: what settling reads of the brackets ``scan_brackets``
    reads, without their records: how many ids the markers name, the marks (``span``
    values, in text order) and the starts of the markers and of the malformed markers; None
    at the first id neither ``index`` holds nor ``resolve`` finds. ``numbered``: N when the
    snapshot's ids are exactly "1".."N" (a plain number from 1 to N is one of them, read
    without making its string), else -1.
    """
    global _ASCII_BRACKET
    cdef list marks = [], starts = [], bad_starts = []
    cdef Chars chars
    cdef Py_ssize_t size = len(text), at = 0, start, end = 0, named = 0
    cdef bint ascii = False
    if _ASCII_BRACKET is None:
        from citeaudit.core._grammar import _BRACKET
        _ASCII_BRACKET = _BRACKET
    chars.kind = PyUnicode_KIND(text)
    chars.data = PyUnicode_DATA(text)
    matches = None
    if pattern is _ASCII_BRACKET:
        ascii = True
    else:
        matches = pattern.finditer(text)
    while True:
        if ascii:
            start = _bracket(text, &chars, size, at, &end)
            if start < 0:
                break
            at = end
        else:
            match = next(matches, None)
            if match is None:
                break
            start, end = match.span()
        begin = start  # one int object for the starts and the mark alike
        if digits and _plain_number(&chars, start + 1, end - 1):
            if not 0 < _number(&chars, start + 1, end - 1) <= numbered:
                source_id = text[start + 1:end - 1]
                if source_id not in index and resolve(source_id, prefix, snapshot) is None:
                    return None
            named += 1
            starts.append(begin)
        else:
            parsed = _parsed(text, start, end, parse, digits, fullwidth)
            if parsed is None:
                continue
            if isinstance(parsed, str):
                bad_starts.append(begin)
            else:
                for source_id in parsed:
                    if source_id not in index and resolve(source_id, prefix, snapshot) is None:
                        return None
                    named += 1
                starts.append(begin)
        marks.append(_new_record(span, (begin, end)))
    return named, marks, starts, bad_starts


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


def sighting(markers, malformed, known, resolve_id, snapshot, span):
    """``_grammar._sighting``: how many ids ``markers`` name (None at the first the snapshot
    does not hold; ``known``: its index, where most are found as written), the marks, and
    the starts of the markers and of the malformed markers.
    """
    cdef Py_ssize_t named = 0
    for marker in markers:  # (raw, start, end, ids, prefix, ordinal)
        for source_id in _item(marker, 3):
            if source_id not in known and \
                    resolve_id(source_id, _item(marker, 4), snapshot) is None:
                return None
            named += 1
    return (named, marks(markers, malformed, span), [_item(m, 1) for m in markers],
            [_item(m, 1) for m in malformed])


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

