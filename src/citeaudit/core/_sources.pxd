# cython: language_level=3
# The C types of _sources.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Only the reading that
# runs for every snapshot is typed: the passages of a list read at once (_passages, _strings)
# and the fingerprint's buffer (_fingerprinted); the rest runs compiled as it stands.

cimport cython

cdef object _EXACT_FLOAT

@cython.locals(found=list, value=dict, at=Py_ssize_t)
cpdef list _passages(data, ids=*)

cpdef bint _strings(data) except -1

@cython.locals(out=bytearray, data=bytes, size=Py_ssize_t, shift=int)
cpdef bytes _fingerprinted(sources)
