"""Moved to :mod:`citeaudit.integrations.llamaindex`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.llamaindex import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.llamaindex import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.llamaindex moved to citeaudit.integrations.llamaindex;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
