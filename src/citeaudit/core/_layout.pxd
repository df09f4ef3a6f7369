# cython: language_level=3
# The C types of _layout.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Only the look for a
# reference list's head, made for every answer, and for a line that names one, made for every
# short line, are typed: indices Py_ssize_t, characters read in place; the patterns stay
# Python's.

cimport cython

@cython.locals(chars=str, char=Py_UCS4, size=Py_ssize_t, start=Py_ssize_t, at=Py_ssize_t, end=Py_ssize_t)
cpdef bint _may_hold_references(text) except -1

@cython.locals(size=Py_ssize_t, at=Py_ssize_t)
cdef bint _names_list(str text) except -1

@cython.locals(first=Py_UCS4, second=Py_UCS4, third=Py_UCS4, fourth=Py_UCS4)
cdef bint _opens_reference_word(str text, Py_ssize_t at, Py_ssize_t size) noexcept
