# cython: language_level=3
# The C types of _mistral.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled).

cimport cython

from citeaudit.formats._fields cimport Fields

@cython.locals(fields=Fields, pieces=list, cited=list, offset=Py_ssize_t, at=Py_ssize_t,
               chunk=dict)
cpdef _parsed(str name, response, reading)

cdef list _tool_results(request)
cdef _source(key, dict result)
cdef _text_field(dict result)
cdef list _references(dict chunk, str path, span, Fields fields)
