"""Moved to :mod:`citeaudit.integrations.deepeval`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.deepeval import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.deepeval import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.deepeval moved to citeaudit.integrations.deepeval;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
