# cython: language_level=3
"""The compiled copy of the lexical judge's tokenising (:mod:`citeaudit.support._lexical`):
``_terms`` and ``_windows``, the content-word stems of each passage sentence, which is most of
what analysing a passage costs.

It mirrors the reference function for function: the reference's word pattern
(``[a-z][a-z0-9]*(?:'[a-z]+)?``, leftmost, non-overlapping) is a loop over the string's
characters that slices each word once, and the stop-word test, the stem-cache lookup and the
stemming of the words the cache lacks are the reference's own objects, read from its module.
``tests/test_lexical_core.py`` proves the two give the same stems and negations for any text.
"""

from cpython.unicode cimport PyUnicode_Substring

from citeaudit.support._lexical import _NEGATIONS, _STEMMER, _STEMS, _STOPWORDS, _plain_quotes


cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_UCS4 PyUnicode_READ(int, void*, Py_ssize_t)
    Py_ssize_t PyUnicode_Find(object, object, Py_ssize_t, Py_ssize_t, int) except -2


cdef dict _stems = _STEMS
cdef frozenset _stopwords = _STOPWORDS
cdef frozenset _negations = _NEGATIONS
cdef object _stem_words = _STEMMER.stemWords
cdef str _NOT = "n't"


cdef inline bint _letter(Py_UCS4 c):
    return 0x61 <= c <= 0x7A  # a-z


cdef inline bint _word_character(Py_UCS4 c):
    return 0x61 <= c <= 0x7A or 0x30 <= c <= 0x39  # a-z0-9


cdef tuple _stemmed(str lowered, Py_ssize_t begin, Py_ssize_t end):
    """The reference's ``_terms`` over ``lowered[begin:end]``, without slicing it: each word
    is tested against the stop words (and the negations among them) and looked up in the stem
    cache as it is found."""
    cdef int kind = PyUnicode_KIND(lowered)
    cdef void* data = PyUnicode_DATA(lowered)
    cdef Py_ssize_t i = begin, start
    cdef set stems = set()
    cdef list missing = []
    cdef object word, stem
    cdef bint negated = False
    while i < end:
        if not _letter(PyUnicode_READ(kind, data, i)):
            i += 1
            continue
        start = i
        i += 1
        while i < end and _word_character(PyUnicode_READ(kind, data, i)):
            i += 1
        if i + 1 < end and PyUnicode_READ(kind, data, i) == 0x27 \
                and _letter(PyUnicode_READ(kind, data, i + 1)):
            i += 2
            while i < end and _letter(PyUnicode_READ(kind, data, i)):
                i += 1
        word = PyUnicode_Substring(lowered, start, i)
        if word in _stopwords:
            if not negated and word in _negations:
                negated = True
            continue
        stem = _stems.get(word)
        if stem is None:
            missing.append(word)
        else:
            stems.add(stem)
    if not negated:
        negated = PyUnicode_Find(lowered, _NOT, begin, end, 1) >= 0
    if missing:
        if len(_stems) > 500_000:
            _stems.clear()
        _stems.update(zip(missing, _stem_words(missing), strict=True))
        for word in missing:
            stems.add(_stems[word])
    return frozenset(stems), negated


def terms(str text, lowered=None):
    """Content-word stems of ``text`` (``lowered``: the same, lower-cased, quotes folded),
    and whether it is negated."""
    cdef str low = _plain_quotes(text.lower()) if lowered is None else lowered
    return _stemmed(low, 0, PyUnicode_GET_LENGTH(low))


def windows(str text, str lowered, spans):
    """Each sentence of ``text`` at ``spans`` (stripped), its content-word stems and whether
    it is negated (``lowered``: ``text`` lower-cased, quotes folded, the same length)."""
    cdef list found = []
    cdef Py_ssize_t start, end
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(lowered)
    cdef frozenset stems
    for start, end in spans:
        if 0 <= start <= end <= length:
            stems, negated = _stemmed(lowered, start, end)
        else:  # not a span sentences() gives: whatever the reference's slice holds
            stems, negated = terms("", lowered[start:end])
        found.append((text[start:end].strip(), stems, negated))
    return found
