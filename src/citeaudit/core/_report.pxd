# cython: language_level=3
# _report.py is compiled from its own source as it stands (see docs/compiled.md); Later, the
# helper every report makes for what it works out when first read, is an extension type
# (made in C, without a Python-level __init__ call through the type's slot).

cdef class Later:
    cdef public object _complete, _exempt, _findings, _measure, _metrics, _reasons
