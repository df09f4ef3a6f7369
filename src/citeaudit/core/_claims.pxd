# cython: language_level=3
# _claims.py (the content judge of uncited units) is compiled from its own source as it
# stands, with _citable.py (see _citable.pxd): no C types are declared, but the judge, made
# for every answer that is segmented, is an extension type (made in C, without a
# Python-level __init__ call through the type's slot).

cdef class Judge:
    cdef public object _all, _layout, _passages, _references, _snapshot, _whole, settings, text
