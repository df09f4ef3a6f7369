"""Moved to :mod:`citeaudit.integrations.mlflow`; this path still works, with a
``DeprecationWarning``, until the next release.
"""

import warnings

from citeaudit.integrations.mlflow import *  # noqa: F403 - the old path, as it was
from citeaudit.integrations.mlflow import __all__  # noqa: F401 - what * brings

warnings.warn("citeaudit.mlflow moved to citeaudit.integrations.mlflow;"
              " the old path goes in the next release", DeprecationWarning, stacklevel=2)
