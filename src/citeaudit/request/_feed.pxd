# cython: language_level=3
# The C types of _feed.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Feed is an extension
# type: its state C values (positions Py_ssize_t, flags bint), its per-chunk methods C methods;
# characters are Py_UCS4, so that the loops over a chunk and the tests of a character against
# a string literal become C. feed(), _stop() and _flush() stay Python methods (StreamAuditor,
# a Python subclass, calls them), and so does __init__.

cimport cython

cdef int _OTHER, _BLANK, _MAY_FENCE


cdef class Feed:
    # read by StreamAuditor (and the tests)
    cdef readonly object _grammar, _refusal, _snapshot, _renderer, _refs
    cdef object _markers
    cdef list _chunks, _tail, _code, _code_starts
    cdef Py_ssize_t _counted, _length, _tail_length
    cdef str _before, _last, _pending
    cdef bint _brackets, _opened, _refusing, _finished, _quiet
    cdef Py_ssize_t _line_chunk, _line_offset, _line_start, _lines
    cdef object _fence
    cdef Py_ssize_t _block_chunk, _block_offset, _block_start, _code_from

    @cython.locals(tail=list, body=str, shown=str, held=str, length=Py_ssize_t,
                   position=Py_ssize_t, start=Py_ssize_t)
    cdef str _feed(self, str chunk)

    @cython.locals(held=str)
    cdef str _untail(self)

    @cython.locals(chunks=list)
    cdef Py_ssize_t _count(self) except -1

    @cython.locals(chunks=list, tail=str)
    cdef str _slice(self, Py_ssize_t first, Py_ssize_t offset, Py_ssize_t last,
                    Py_ssize_t stop)

    @cython.locals(size=Py_ssize_t, at=Py_ssize_t, char=Py_UCS4)
    cdef _track(self, str chunk, Py_ssize_t index, Py_ssize_t position)

    @cython.locals(shape=int, line=str)
    cdef _end_line(self, Py_ssize_t index, Py_ssize_t offset, Py_ssize_t end)

    @cython.locals(chunks=list, blanks=Py_ssize_t, at=Py_ssize_t, number=Py_ssize_t,
                   chunk=str, stop=Py_ssize_t, char=Py_UCS4)
    cdef int _line_shape(self, Py_ssize_t index, Py_ssize_t offset) except -1

    @cython.locals(base=Py_ssize_t, start=Py_ssize_t, stop=Py_ssize_t)
    cdef _close_block(self, Py_ssize_t end, Py_ssize_t index, Py_ssize_t offset)

    @cython.locals(pending=str, size=Py_ssize_t, limit=Py_ssize_t, base=Py_ssize_t,
                   opening=Py_ssize_t, closing=Py_ssize_t, content=Py_ssize_t,
                   cut=Py_ssize_t)
    cdef Py_ssize_t _settled(self) except -1

    cdef bint _may_refuse(self, str head) except -1

    @cython.locals(pending=str, base=Py_ssize_t, cut=Py_ssize_t, window=str,
                   after_window=str, before=str, text=str, held=Py_ssize_t,
                   offset=Py_ssize_t, pieces=list, length=Py_ssize_t,
                   position=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t, at=Py_ssize_t,
                   valid=list, shown=str, so_far=str, joint=str,
                   ids=tuple)
    cdef str _release(self, Py_ssize_t limit)

    cdef str _shown(self, str text)

    @cython.locals(found=list)
    cdef list _valid(self, tuple ids, prefix)


@cython.locals(char=Py_UCS4)
cdef bint _quiet(str chunk) except -1

@cython.locals(char=Py_UCS4)
cdef bint _marks_line(str text) except -1
