# cython: language_level=3
# The C types of _bedrock.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled).

from citeaudit.formats._fields cimport Fields, source_field

cdef bint _plain(reference) except -1
cdef _checked(list references, Py_ssize_t place, str path)
cdef _where(reference)
cdef _source_id(reference)
cdef _source(source_id, reference)
cdef bint _said(list problems, str prefix) except -1
cdef _citation(dict citation, str path, text, Fields fields)
