# cython: language_level=3
# _ranges.py is compiled from its own source (setup.py's _FROM_SOURCE) as it stands: no C types
# to declare. This file marks it as such: where the build left it out, `citeaudit --version`
# says so (citeaudit._speedups.uncompiled).
