# cython: language_level=3
# The engine's front door for the compiled modules of other packages, as __init__.py is for
# their Python: what they may cimport. The policy's Exemptions, its exempts a C method, is
# called for every claim by the text format's claim assembly.

from citeaudit.core._policy cimport Exemptions
