# cython: language_level=3
# _claims.py (the content judge of uncited units) is compiled from its own source as it
# stands, with _citable.py (see _citable.pxd): no C types are declared.
