"""Moved to :mod:`citeaudit.integrations.promptfoo`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.promptfoo import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.promptfoo import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.promptfoo moved to citeaudit.integrations.promptfoo;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
