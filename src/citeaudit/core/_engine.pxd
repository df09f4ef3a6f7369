# cython: language_level=3
# The C types of _engine.py, for the build that compiles it (Cython's pure-Python mode: the
# module stays plain Python, and runs as such where it is not compiled). Typed: the loops that
# run for every citation (_resolved) and every problem a check states (_collect); the rest of
# the engine runs compiled as it stands.

cimport cython

@cython.locals(found=list)
cpdef tuple _resolved(citations, known, resolve, snapshot)

cpdef _collect(found, problems, enabled, severity_of, finding, rules, own, check)
