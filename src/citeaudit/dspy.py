"""Moved to :mod:`citeaudit.integrations.dspy`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.dspy import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.dspy import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.dspy moved to citeaudit.integrations.dspy;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
