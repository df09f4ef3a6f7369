# cython: language_level=3
# _results.py is compiled from its own source as it stands (no C types): see docs/compiled.md.
