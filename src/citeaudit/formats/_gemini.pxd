# cython: language_level=3
# The C types of _gemini.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled).

cimport cython

from citeaudit.formats._fields cimport Fields, source_field

cdef list _texts(candidate, Fields fields)

@cython.locals(index=Py_ssize_t, found=list)
cdef list _chunks(metadata, str key, str path)

cdef _plain(chunk)

@cython.locals(start=object, end=object, part=object)
cdef _support(dict support, str path, tuple parts, Fields fields)
