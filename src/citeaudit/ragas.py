"""Moved to :mod:`citeaudit.integrations.ragas`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.ragas import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.ragas import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.ragas moved to citeaudit.integrations.ragas;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
