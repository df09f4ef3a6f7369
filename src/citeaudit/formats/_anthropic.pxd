# cython: language_level=3
# The C types of _anthropic.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled).

cimport cython

from citeaudit.formats._fields cimport Fields

cdef dict _LOCATED

@cython.locals(fields=Fields, pieces=list, cited=list, offset=Py_ssize_t, index=Py_ssize_t,
               block=dict, text=str)
cpdef _parsed(str name, response, reading)

@cython.locals(size=Py_ssize_t, lead=Py_ssize_t, tail=Py_ssize_t, low=Py_ssize_t,
               made=list, at=Py_ssize_t)
cdef _cited(str text, Py_ssize_t offset, given, str path, Fields fields)

@cython.locals(citation=dict)
cdef _citation(given, str path, tuple span, Fields fields)
