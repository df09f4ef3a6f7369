# cython: language_level=3
# The C types of _cohere.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled).

from citeaudit.formats._fields cimport Fields

cdef dict _texts(message, Fields fields)
cdef _reasoning_citation(dict citation, str path, tuple reasoning, known, Fields fields)
cdef _citation(dict citation, str path, tuple read, Fields fields)
