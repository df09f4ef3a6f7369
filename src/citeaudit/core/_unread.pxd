# cython: language_level=3
# The C types of _unread.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Only the count of the
# square-bracket hints, read for every answer that holds a "[", is typed: characters Py_UCS4,
# indices Py_ssize_t; the shapes' patterns stay Python's.

cimport cython

@cython.locals(chars=str, size=Py_ssize_t, count=Py_ssize_t, at=Py_ssize_t, probe=Py_ssize_t,
               blanks=Py_ssize_t)
cpdef Py_ssize_t square_hints(text) except -1

@cython.locals(first=Py_UCS4, second=Py_UCS4)
cdef bint _hint_at(str text, Py_ssize_t at, Py_ssize_t size) noexcept
