# cython: language_level=3, cdivision=True
"""The compiled core: the engine's hot loops, typed over the string's characters.

Each function mirrors its pure-Python reference line for line and uses the reference's own
patterns and constants, so there is one definition of every rule:

- :func:`scan_brackets` mirrors the loop of ``BracketGrammar.scan`` (and :func:`sight_brackets`
  and :func:`sighting` its ``sight``, the settled verdict's scan);
- :func:`citations` mirrors ``citeaudit.core._answer._citations``;
- :func:`ranged` mirrors ``citeaudit.formats._ranges._ranged`` (claims from the cited ranges of
  a provider's answer);
- :func:`openings` mirrors ``citeaudit.core._loading``'s count of a dataset's openings.

The claim segmentation and policy, claim assembly and the settled verdict's count of claims
(``citeaudit.formats._text``), the checks (CA301/CA302, CA204/CA205), the amounts, the
engine's resolution and collection of findings, the snapshot's reading of passages and its
fingerprint's buffer (``citeaudit.core._sources``) and the square-bracket hints
(``citeaudit.core._unread``) are compiled from their own Python instead
(``docs/compiled.md``).

What is compiled is the interpreter's share: character tests, index arithmetic, tuples built
without Python frames. The regular expressions stay Python's. The
properties in ``tests/test_core.py`` assert that both give identical results.

The reference modules import this one at their end (see ``citeaudit.core._native``), when
every name read here is defined.
"""

from libc.string cimport memchr, memcpy
from cpython.ref cimport PyObject, Py_DECREF, Py_INCREF
from cpython.tuple cimport PyTuple_Check, PyTuple_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_Tailmatch

from citeaudit.core._records cimport (
    PyTuple_GET_ITEM,
    PyTuple_SET_ITEM,
    PyType_IsSubtype,
    PyTuple_Type,
    PyTypeObject,
    item as _item,
    new_record as _new_record,
)


cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil

import re

cdef object _WORD = re.compile(r"\w")
cdef object _new = tuple.__new__


ctypedef struct Chars:
    # a str's characters, read in place
    int kind
    void* data


cdef inline Py_UCS4 _ch(Chars* text, Py_ssize_t at) noexcept nogil:
    return PyUnicode_READ(text.kind, text.data, at)


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
    return (named, _marks(markers, malformed, span), [_item(m, 1) for m in markers],
            [_item(m, 1) for m in malformed])


cdef list _marks(markers, malformed, span):
    """Where the markers and malformed markers are, in text order (``span`` values)."""
    cdef list found = []
    for marker in markers:  # (raw, start, end, ...)
        found.append(_new_record(span, (_item(marker, 1), _item(marker, 2))))
    if malformed:
        for marker in malformed:
            found.append(_new_record(span, (_item(marker, 1), _item(marker, 2))))
        found.sort()
    return found


def citations(markers, owners, citation):
    """``_answer._citations``: one ``citation`` per id each marker names, ``owners`` giving
    each marker's claim number.
    """
    cdef list found = []
    for marker, claim in zip(markers, owners):  # (raw, start, end, ids, prefix, ordinal)
        span = (_item(marker, 1), _item(marker, 2))
        raw, prefix, ordinal = _item(marker, 0), _item(marker, 4), _item(marker, 5)
        for source_id in _item(marker, 3):
            found.append(_new_record(citation, (source_id, claim, span, raw, None, prefix,
                                                ordinal, None)))
    return found


cdef object _claimed(object kind, object citation, object number):
    """``tuple.__new__(kind, (citation[0], number, *citation[2:]))``: ``citation`` (a tuple)
    made by claim ``number``, allocated by its type and filled in place.
    """
    cdef Py_ssize_t size, at
    cdef PyObject* made
    cdef PyObject* value
    if not PyTuple_Check(citation) or PyTuple_GET_SIZE(citation) < 2 \
            or not isinstance(kind, type) \
            or not PyType_IsSubtype(<PyTypeObject*>kind, &PyTuple_Type):
        return _new(kind, (citation[0], number, *citation[2:]))
    size = PyTuple_GET_SIZE(citation)
    made = (<PyTypeObject*>kind).tp_alloc(<PyTypeObject*>kind, size)
    if made == NULL:
        raise MemoryError()
    record = <object>made  # a second reference: the one tp_alloc made is dropped
    Py_DECREF(record)
    for at in range(size):
        value = <PyObject*>number if at == 1 else PyTuple_GET_ITEM(citation, at)
        Py_INCREF(<object>value)
        PyTuple_SET_ITEM(record, at, value)  # steals the reference just taken
    return record


def ranged(str text, object spans, list cited, rules, exempt, claim_type, citation_type):
    """``_ranges._ranged``: each sentence span a claim with the citations of the cited ranges
    (``(start, end, citations)``, sorted by start) it overlaps; an uncited one the claim
    policy (``rules``) exempts is none.
    """
    cdef Py_ssize_t count = len(cited), first = 0, at, start, end, low, high
    cdef list claims = [], citations = [], overlapping
    cdef object number
    if not isinstance(spans, list):  # a custom segmenter's sequence
        spans = list(spans)
    for span in spans:
        start = _item(span, 0)
        end = _item(span, 1)
        while first < count and <Py_ssize_t>_item(cited[first], 1) <= start:
            first += 1
        overlapping = []
        at = first
        while at < count:
            entry = cited[at]
            low = _item(entry, 0)
            high = _item(entry, 1)
            if low >= end:
                break  # sorted by start: none after it overlaps this sentence
            at += 1
            if high > start and ((start <= low and high <= end) or
                                 _WORD.search(text, max(low, start), min(high, end))):
                overlapping.append(_item(entry, 2))
        if not overlapping and rules and exempt(text, start, end, rules):
            continue
        number = len(claims) + 1
        claims.append(_new_record(claim_type, (number, text[start:end], (start, end), (), ())))
        for made in overlapping:
            for citation in made:
                citations.append(_claimed(citation_type, citation, number))
    return claims, citations


def openings(bytes data):
    """How many ``[`` and ``{`` ``data`` holds (``_loading.too_deep``'s first test), eight
    bytes at a time: "[" is 0x5B and "{" 0x7B, the only bytes that are 0x7B once 0x20 is set.
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
