# cython: language_level=3
"""The compiled copy of the lexical judge's tokenising and window overlap
(:mod:`citeaudit.support._lexical`): ``_terms`` and ``_windows``, the content-word stems of
each passage sentence, which is most of what analysing a passage costs, and ``_aligned``, the
best window of one or two sentences for a claim's stems.

It mirrors the reference function for function: the reference's word pattern
(``[a-z][a-z0-9]*(?:'[a-z]+)?``, leftmost, non-overlapping) is a loop over the string's
characters that slices each word once, and the stop-word test, the stem-cache lookup and the
stemming of the words the cache lacks are the reference's own objects, read from its module.
The window overlap reads the sentences' stems as they are and counts shared stems without
building a set for a sentence that shares none. ``tests/test_lexical_core.py`` proves the two
give the same stems, negations and best windows for any text.
"""

from cpython.unicode cimport PyUnicode_Substring

from citeaudit.support._lexical import (
    _NEGATIONS,
    _SCAN_ALL,
    _STEMMER,
    _STEMS,
    _STOPWORDS,
    _plain_quotes,
)


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
cdef Py_ssize_t _scan_all = _SCAN_ALL


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


cdef set _shared(frozenset terms, frozenset other):
    """``terms & other``, or None when they share nothing (no set built)."""
    cdef set found = None
    cdef frozenset small = terms, large = other
    if len(small) > len(large):
        small, large = other, terms
    for term in small:
        if term in large:
            if found is None:
                found = set()
            found.add(term)
    return found


def aligned(frozenset terms, bint negated, analysed):
    """The best window for the claim's ``terms``: one passage sentence or two adjacent ones
    (see the reference, ``_lexical._aligned``). Returns the score, the window's text, its
    source, whether the negations differ and where the window is (which passage, its first
    and last sentence; None: no window shares a term)."""
    cdef double score = 0.0, overlap
    cdef object evidence = "", source = None, place = None
    cdef Py_ssize_t at = -1
    cdef bint denied = False, sentence_negated, before_negated = False, window_negated
    cdef bint has_before
    cdef double count = len(terms)
    cdef Py_ssize_t total, k, position, last, union
    cdef list sentences, chosen
    cdef tuple sentence
    cdef set shared, before
    for source_id, passage in analysed:
        at += 1
        sentences = passage.sentences
        total = len(sentences)
        chosen = None
        if total > _scan_all:
            chosen = passage.candidates(terms)
            total = len(chosen)
        last = -2
        has_before = False
        before = None  # the claim's terms in the sentence before (None: none shared)
        for k in range(total):
            position = k if chosen is None else chosen[k]
            if position != last + 1:
                has_before = False
                before = None
                if position > 0:  # the window ending here needs the one before
                    sentence = sentences[position - 1]
                    before_negated = sentence[2]
                    before = _shared(terms, sentence[1])
                    has_before = True
            last = position
            sentence = sentences[position]
            sentence_negated = sentence[2]
            shared = _shared(terms, sentence[1])
            if shared is not None:  # no shared term scores 0, never above the best
                overlap = len(shared) / count
                if sentence_negated != negated:
                    overlap *= 0.25  # one side denies what the other states
                if overlap > score:
                    score, evidence, source = overlap, sentence[0], source_id
                    denied = sentence_negated != negated
                    place = (at, position, position)
            if has_before and (shared is not None or before is not None):
                window_negated = sentence_negated or before_negated
                if shared is None:
                    union = len(before)
                elif before is None:
                    union = len(shared)
                else:
                    union = len(shared | before)
                overlap = union / count
                if window_negated != negated:
                    overlap *= 0.25
                if overlap > score:
                    score, source = overlap, source_id
                    evidence = f"{sentences[position - 1][0]} {sentence[0]}"
                    denied = window_negated != negated
                    place = (at, position - 1, position)
            has_before = True
            before, before_negated = shared, sentence_negated
    return score, evidence, source, denied, place
