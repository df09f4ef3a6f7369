# cython: language_level=3
# The C types of _segment.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Characters are
# Py_UCS4 and indices Py_ssize_t, so that indexing a str, comparing its characters and the
# tests of a character against a string literal become C.

cimport cython

cdef dict _TITLES_ENDING
cdef tuple _MASKS  # (read without a lookup: the tests read it from the module run as Python)

# (the entry points take any str: a subclass is read as its str)
cpdef list segment(text, marks=*)
cpdef list claim_pairs(text, marks=*)
cpdef list segment_until(text, marks, judge)

@cython.locals(masked=str)
cdef str _segmentable(str text, marks)

@cython.locals(size=Py_ssize_t, offset=Py_ssize_t, lead=Py_ssize_t, table_row=Py_ssize_t,
               pending=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t,
               piece_end=Py_ssize_t, separator_end=Py_ssize_t, number=Py_ssize_t,
               titled=bint, newline=Py_ssize_t, row_end=Py_ssize_t,
               last=bint, head=Py_UCS4, claims=list)
cdef list _segmented(str text, judge)

cdef (Py_ssize_t, Py_ssize_t) _cells(str text, Py_ssize_t start, Py_ssize_t end)

@cython.locals(at=Py_ssize_t)
cdef bint _has_word(str text, Py_ssize_t start, Py_ssize_t end) except -1

cdef bint _is_word(Py_UCS4 char) noexcept

@cython.locals(at=Py_ssize_t, digits=Py_ssize_t)
cdef Py_ssize_t _bare_number(str text, Py_ssize_t start, Py_ssize_t end) except -3

@cython.locals(stop=Py_ssize_t)
cdef bint _header_above(str text, Py_ssize_t line, Py_ssize_t size) except -1

cdef bint _separator_row(str text, Py_ssize_t start, Py_ssize_t end) except -1

@cython.locals(at=Py_ssize_t, digits=Py_ssize_t)
cdef bint _numbered_heading(str text, Py_ssize_t start, Py_ssize_t end) except -1

@cython.locals(head=Py_UCS4, newline=Py_ssize_t)
cdef Py_ssize_t _structure_start(str text, Py_ssize_t start, Py_ssize_t end) except -1

@cython.locals(stop=Py_ssize_t, count=Py_ssize_t, at=Py_ssize_t, char=Py_UCS4)
cdef bint _is_rule(str text, Py_ssize_t start, Py_ssize_t end, Py_UCS4 head) except -1

@cython.locals(at=Py_ssize_t, digits=Py_ssize_t, marked=bint)
cdef Py_ssize_t _item_start(str text, Py_ssize_t start, Py_ssize_t end) except -1

@cython.locals(parts=list, size=Py_ssize_t, last=Py_ssize_t, start=Py_ssize_t,
               end=Py_ssize_t)
cpdef list split(str text)

@cython.locals(end=Py_ssize_t)
cdef (Py_ssize_t, Py_ssize_t) _next_separator(str text, Py_ssize_t at, Py_ssize_t size)

@cython.locals(head=Py_UCS4, probe=Py_ssize_t, blank=Py_ssize_t)
cdef Py_ssize_t _separator_end(str text, Py_ssize_t at, Py_ssize_t size) except -2

cdef bint _is_lower_or_digit(Py_UCS4 char) noexcept

@cython.locals(probe=Py_ssize_t)
cdef Py_ssize_t _after_marks(str text, Py_ssize_t at, Py_ssize_t size) except -1

cdef Py_ssize_t _blank_line_end(str text, Py_ssize_t at, Py_ssize_t size) except -2

@cython.locals(head=Py_UCS4, probe=Py_ssize_t)
cdef bint _opens_structure(str text, Py_ssize_t at, Py_ssize_t size) except -1

@cython.locals(at=Py_ssize_t, last=Py_UCS4, length=Py_ssize_t, titles=tuple, title=str)
cdef bint _abbreviated(str text, Py_ssize_t stop) except -1

@cython.locals(k=Py_ssize_t, char=Py_UCS4, letter=Py_UCS4)
cdef bint _titled(str text, Py_ssize_t at, str title) except -1

@cython.locals(pieces=list, size=Py_ssize_t, position=Py_ssize_t, previous=Py_ssize_t,
               run=Py_ssize_t, run_at=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t)
cpdef str _masked(str text, marks)

cdef bint _abbreviation_before(str text, Py_ssize_t run) except -1
