# cython: language_level=3
# The C types of _fields.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Fields is an
# extension type whose methods the compiled format modules call in C (they cimport it).

cpdef bint is_kind(value, kind) except -1

cdef class Fields:
    cdef public list problems

    cpdef object field(self, data, key, kind, path, what, bint needed=*)
    cpdef object value(self, value, kind, path, what)
    cpdef object items(self, data, key, path, what, bint needed=*)
    cpdef dict object_at(self, items, Py_ssize_t at, path, what)
    cpdef object integers(self, data, tuple names, what, path)
    cpdef add(self, path, message)

cpdef object source_field(data, key, kind, path, what, bint needed=*)
