"""Moved to :mod:`citeaudit.integrations.haystack`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.haystack import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.haystack import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.haystack moved to citeaudit.integrations.haystack;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
