# cython: language_level=3
# The C types of _terms.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Characters are
# Py_UCS4 and indices Py_ssize_t, so that the loop over a sentence's characters and their
# tests against string literals become C; the stem cache is read as a dict, the stop words
# as a frozenset, the window scan's counts and flags are C values.

cimport cython

cdef frozenset _NEGATIONS, _STOPWORDS

cpdef plain_quotes(text)

cpdef tuple terms(text, lowered=*)

@cython.locals(length=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t, found=list)
cpdef list windows(text, lowered, spans)

@cython.locals(cache=dict, stems=set, missing=list, negated=bint, word=str)
cdef tuple _stemmed(str lowered, Py_ssize_t begin, Py_ssize_t end)

@cython.locals(words=list, start=Py_ssize_t, apostrophe=Py_ssize_t, at=Py_ssize_t,
               char=Py_UCS4)
cdef list _words(str lowered, Py_ssize_t begin, Py_ssize_t end)

@cython.locals(score=double, overlap=double, denied=bint, count=Py_ssize_t, at=Py_ssize_t,
               sentences=list, visit=list, total=Py_ssize_t, last=Py_ssize_t,
               has_before=bint, before=set, before_negated=bint, k=Py_ssize_t,
               position=Py_ssize_t, sentence_negated=bint, shared=set, union=Py_ssize_t,
               window_negated=bint)
cpdef tuple aligned(terms, bint negated, analysed)

@cython.locals(found=set)
cdef set _shared(first, second)

cdef Py_ssize_t _union_size(set first, set second) except -1
