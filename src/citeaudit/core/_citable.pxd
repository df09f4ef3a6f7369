# cython: language_level=3
# _citable.py (the claim scorer's features and model) is compiled from its own source as it
# stands: no C types are declared. Its work is regular expressions, sets and dicts, so what
# the compiler removes is the interpreter's share: the whole audit of the benchmark corpus
# takes 7% fewer instructions with it and _claims.py compiled.
