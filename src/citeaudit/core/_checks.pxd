# cython: language_level=3
# The C types of _checks.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Only the loops that
# run for every claim or citation are typed: CA301/CA302's (_uncited, _needs_citation, quoted)
# and CA204/CA205's (_located); the other checks run compiled as they stand.

cimport cython

cdef dict _UNCITED

@cython.locals(cited=set, found=list)
cpdef list _uncited(claims, citations, bint amounts, bint every)

@cython.locals(offset=Py_ssize_t)
cpdef str _needs_citation(claim, bint amounts, bint every)

@cython.locals(flat=str, cut=Py_ssize_t)
cpdef str quoted(text, Py_ssize_t limit=*)

@cython.locals(found=list)
cpdef list _located(citations, resolved, index, problem_of)
