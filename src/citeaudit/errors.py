"""Exceptions for input that citeaudit cannot use.

Problems found *in* an answer are never raised: they are :class:`~citeaudit.Finding`
values. Exceptions are only for input the audit cannot run on::

    CiteauditError            root: catch this to catch everything citeaudit raises
     ├── InputError           a file or value cannot be read, decoded, parsed or validated
     │    └── SnapshotError   the snapshot (retrieved sources) breaks its contract
     ├── OutputError          an output cannot be written (disk full, a closed stream, or
     │                        the same file as an input)
     ├── RunError             a dataset run cannot go on (a worker process died)
     └── ConfigError          a bad option, configuration file or grammar
          └── GrammarError    a marker grammar that cannot be built (bad name, bad regex)

The command line maps every one of them to exit code 2, in one place.
"""

from __future__ import annotations

__all__ = ["CiteauditError", "ConfigError", "GrammarError", "InputError", "OutputError", "RunError",
           "SnapshotError"]


class CiteauditError(Exception):
    """Root of every exception citeaudit raises."""


class InputError(CiteauditError):
    """Input that cannot be used, with where it came from and where in it the problem is.

    ``origin`` names the file (or ``<snapshot>``/``<answer>`` for Python values);
    ``place`` is ``line L, column C``, a byte offset or a JSON path such as ``$.sources[2].id``.
    """

    def __init__(self, reason: str, *, origin: str = "<input>", place: str | None = None) -> None:
        self.reason = reason
        self.origin = origin
        self.place = place
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.origin}: {self.place}" if self.place else self.origin
        return f"{where}: {self.reason}"

    def located(self, origin: str) -> InputError:
        """The same error attributed to ``origin`` (e.g. a file name instead of ``<snapshot>``)."""
        return type(self)(self.reason, origin=origin, place=self.place)


class SnapshotError(InputError):
    """The snapshot of retrieved sources is broken: the audit cannot run."""


class OutputError(CiteauditError):
    """An output that cannot be written; ``origin`` names it (a file, ``<stdout>``)."""

    def __init__(self, reason: str, *, origin: str) -> None:
        self.reason = reason
        self.origin = origin
        super().__init__(f"{origin}: {reason}")


class RunError(CiteauditError):
    """A dataset run that cannot go on, such as when a worker process dies."""


class ConfigError(CiteauditError):
    """A configuration value, option or file that cannot be used."""


class GrammarError(ConfigError):
    """A marker grammar name or pattern that cannot be built."""
