"""The package's version: one place, read by the build (``pyproject.toml``) and by every
module that records it (results files, ``--version``), without importing the package.
"""

__version__ = "0.1.0"
