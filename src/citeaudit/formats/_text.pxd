# cython: language_level=3
# The C types of _text.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). The claim assembly's
# loops are typed: positions Py_ssize_t, the markers' starts searched as lists, _Claiming an
# extension type (the segmenter's judge, called for every claim it makes) that asks the
# policy's Exemptions in C.

cimport cython

# The policy's extension type, its exempts a C method, through the engine's front door (the .py
# imports the class from citeaudit.core too)
from citeaudit.core cimport Exemptions as _Exemptions

@cython.locals(chars=str, char=Py_UCS4)
cpdef bint blank(text) except -1

@cython.locals(claiming=_Claiming)
cpdef Py_ssize_t _claimed(spans, list starts, list bad_starts, _Exemptions exemptions) except -2

@cython.locals(claiming=_Claiming, claims=list)
cpdef Py_ssize_t _segment_claimed(text, marks, list starts, list bad_starts,
                                  _Exemptions exemptions) except -2


cdef class _Claiming:
    cdef list starts, bad_starts
    cdef _Exemptions exemptions
    cdef Py_ssize_t index, bad, number, done

    cpdef Py_ssize_t rest(self, list spans) except -2

    @cython.locals(at=Py_ssize_t)
    cdef bint judged(self, list spans, Py_ssize_t stop) except -1

    @cython.locals(start=Py_ssize_t, end=Py_ssize_t, first=Py_ssize_t, first_bad=Py_ssize_t)
    cdef bint _take(self, list spans, Py_ssize_t at) except -1


@cython.locals(high=Py_ssize_t, middle=Py_ssize_t, probe=Py_ssize_t)
cdef Py_ssize_t _bisect(list values, Py_ssize_t value, Py_ssize_t low) except -1

@cython.locals(marks=list)
cpdef list _marks(markers, malformed)

@cython.locals(starts=list, bad_starts=list, owner=list, bad_owner=list, claims=list,
               index=Py_ssize_t, bad=Py_ssize_t, number=Py_ssize_t, at=Py_ssize_t,
               start=Py_ssize_t, end=Py_ssize_t, first=Py_ssize_t, first_bad=Py_ssize_t,
               k=Py_ssize_t)
cpdef tuple _assemble(str text, spans, tuple markers, malformed, exemptions)
