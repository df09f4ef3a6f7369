"""The command line: one module per command, each an ``add_parser`` and a ``run``; ``main``
dispatches by table and maps input errors to exit code 2 in one place.
"""

from citeaudit.cli._app import ExitCode, main

__all__ = ["ExitCode", "main"]
