# cython: language_level=3
# The C types of _policy.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Characters are
# Py_UCS4 and indices Py_ssize_t, so that the layout loops and the tests of a character
# against a string literal become C; the patterns stay Python's regular expressions.

cimport cython

@cython.locals(last=Py_ssize_t, final=Py_UCS4, head=Py_UCS4, sentence=str, families=long)
cpdef str policy_rule(str text, Py_ssize_t start, Py_ssize_t end, bint cited_lead=*)

# The families' tables, C values read by _families and policy_rule without a lookup (the
# tests read them from the module run as Python).
cdef long _OPENS, _ANNOUNCES_BIT, _HEDGES, _LONG
cdef dict _FAMILIES, _PREFIXES
cdef tuple _SHORTER, _LONGER

@cython.locals(found=long, exact=long, size=Py_ssize_t)
cpdef long _families(str sentence) except? -1

@cython.locals(colon=Py_ssize_t)
cdef bint _runs_on(str sentence) except -1

@cython.locals(rest=Py_ssize_t, end=Py_ssize_t)
cdef bint _hedge(str sentence) except -1

@cython.locals(size=Py_ssize_t, line_start=Py_ssize_t, words=list, capitals=list,
               title_case=bint)
cdef bint _title_line(str text, Py_ssize_t start, Py_ssize_t end) except -1

@cython.locals(digits=Py_ssize_t, inner=Py_ssize_t)
cdef Py_ssize_t _bullet_end(str text, Py_ssize_t at, Py_ssize_t size) except -2

@cython.locals(broken=bint)
cdef bint _list_next(str text, Py_ssize_t at, Py_ssize_t size) except -1

cdef bint _item_line(str text, Py_ssize_t at, Py_ssize_t size) except -1

cdef bint _blank_or_list(str text, Py_ssize_t at, Py_ssize_t size) except -1

@cython.locals(size=Py_ssize_t, at=Py_ssize_t, items=set)
cpdef frozenset list_items(str text)

@cython.locals(earliest=Py_ssize_t, back=Py_ssize_t, start=Py_ssize_t, line=Py_ssize_t,
               lead_start=Py_ssize_t, lead_end=Py_ssize_t, first_line=Py_ssize_t, cited=bint,
               size=Py_ssize_t, body=Py_ssize_t, stop=Py_ssize_t, after=Py_ssize_t)
cpdef bint under_cited_lead(str text, spans, Py_ssize_t at, items, marks) except -1

@cython.locals(line=Py_ssize_t, at=Py_ssize_t, indent=Py_ssize_t, count=Py_ssize_t,
               head=Py_UCS4)
cdef bint _parts_lists(str text, Py_ssize_t start, Py_ssize_t end) except -1

@cython.locals(line=Py_ssize_t)
cdef bint _may_be_listed(str text, Py_ssize_t start) except -1

cpdef bint exempt(str text, Py_ssize_t start, Py_ssize_t end, rules,
                  bint listed=*) except -1


cdef class Exemptions:
    cdef readonly str text
    cdef readonly object rules
    cdef readonly bint listing
    cdef readonly object marks
    cdef public object items
    cdef readonly object judge
    cdef readonly list found

    @cython.locals(text=str, listed=bint, rule=str)
    cpdef bint exempts(self, spans, Py_ssize_t at, Py_ssize_t start,
                       Py_ssize_t end) except -1
