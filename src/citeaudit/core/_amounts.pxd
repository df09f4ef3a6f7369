# cython: language_level=3
# The C types of _amounts.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Characters are
# Py_UCS4 and indices Py_ssize_t, so that the walk over the digit runs and the tests of a
# character against a string literal become C; the word lookups stay Python's sets.

cimport cython

# Read on every number: C values, read without a lookup (the tests read them from the module
# run as Python).
cdef frozenset _LABEL_WORDS
cdef tuple _ORDINAL, _NAMED

@cython.locals(end=Py_ssize_t, begin=Py_ssize_t, word=str)
cdef bint _labelled(str text, Py_ssize_t start) except -1

@cython.locals(before=Py_UCS4, after=str)
cdef bint _names(str text, Py_ssize_t start, Py_ssize_t end) except -1

cdef bint _ideograph(Py_UCS4 char) noexcept

cdef Py_ssize_t _run_end(str text, Py_ssize_t at, Py_ssize_t size) noexcept

@cython.locals(chars=str, spans=list, size=Py_ssize_t, at=Py_ssize_t, end=Py_ssize_t)
cpdef list identifier_spans(text)

@cython.locals(chars=str, size=Py_ssize_t, at=Py_ssize_t, end=Py_ssize_t)
cpdef bint states_amount(text) except -1
