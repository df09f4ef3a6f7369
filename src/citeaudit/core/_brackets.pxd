# cython: language_level=3
# The C types of _brackets.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). The scan's loops are
# typed: characters Py_UCS4 (a str indexed by a C integer), indices Py_ssize_t; the
# full-width pattern and the grammars' parse functions stay Python's.

cimport cython

cdef bint _wide(str text) except -1

@cython.locals(size=Py_ssize_t, start=Py_ssize_t, close=Py_ssize_t, limit=Py_ssize_t)
cpdef (Py_ssize_t, Py_ssize_t) _bracket(str text, Py_ssize_t at)

cdef list _brackets(str text, bint wide)

@cython.locals(at=Py_ssize_t)
cdef bint _plain_number(str text, Py_ssize_t start, Py_ssize_t end) noexcept

@cython.locals(value=Py_ssize_t, at=Py_ssize_t)
cdef Py_ssize_t _number(str text, Py_ssize_t start, Py_ssize_t end) noexcept

@cython.locals(size=Py_ssize_t)
cdef bint _numbered_id(source_id, Py_ssize_t numbered) except -1

@cython.locals(content=str)
cdef object _parsed(str text, Py_ssize_t start, Py_ssize_t end, grammar)

@cython.locals(markers=list, malformed=list, digits=bint, found=list, at=Py_ssize_t,
               start=Py_ssize_t, end=Py_ssize_t)
cpdef tuple _scanned(str text, grammar, bint wide)

@cython.locals(marks=list, starts=list, bad_starts=list, numbered=Py_ssize_t, digits=bint,
               found=list, at=Py_ssize_t, named=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t)
cpdef _sighted(str text, grammar, bint wide, snapshot)
