# cython: language_level=3
# The C types of _openai.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled).

cimport cython

from citeaudit.formats._fields cimport Fields

@cython.locals(fields=Fields, pieces=list, cited=list, offset=Py_ssize_t, at=Py_ssize_t,
               place=Py_ssize_t, index=Py_ssize_t, item=dict, part=dict, text=str)
cpdef _responses(str name, response, reading, urls, untyped)

@cython.locals(fields=Fields, note=dict)
cdef _annotation(given, text, Py_ssize_t offset, str path, into)
