"""Moved to :mod:`citeaudit.integrations.langchain`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.langchain import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.langchain import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.langchain moved to citeaudit.integrations.langchain;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
