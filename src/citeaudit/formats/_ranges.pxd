# cython: language_level=3
# The C types of _ranges.py, for the build that compiles it from its own source (setup.py's
# _FROM_SOURCE; where the build left it out, `citeaudit --version` says so:
# citeaudit._speedups.uncompiled). Typed: _ranged, the loop that makes every provider
# answer's claims and their citations; the rest runs compiled as it stands.

cimport cython

@cython.locals(claims=list, citations=list, overlapping=list, count=Py_ssize_t,
               first=Py_ssize_t, at=Py_ssize_t, start=Py_ssize_t, end=Py_ssize_t,
               low=Py_ssize_t, high=Py_ssize_t, number=Py_ssize_t)
cpdef tuple _ranged(text, spans, cited, rules)
