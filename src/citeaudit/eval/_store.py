"""The results file of a dataset run.

Results go to ``OUT.partial`` beside the target and are renamed to ``OUT`` when the run ends,
so a run that fails or is interrupted never leaves half a file where a good one was; the
partial file is locked for the run, so two runs cannot interleave their lines.

Results are written in input order, so an interrupted run has done exactly the first K
records. ``--resume`` goes on from the partial file (or from a finished ``OUT``): it keeps
complete lines, cuts a torn last one, and keeps the K results only when each was written for
the same record (its ``record_digest``) with the same options (``options_digest``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from citeaudit.errors import InputError, OutputError
from citeaudit.eval._lines import valid_result

try:
    import fcntl
except ImportError:  # not POSIX: runs are not locked
    fcntl = None  # type: ignore[assignment]

__all__ = ["ResultsFile"]

# The descriptors of the results files open in this process. A process forked meanwhile (a
# worker) must not keep them: a pipe's reader would not see its end until every worker ended
# too, and a worker that outlived its run would hold the file's lock.
_OPEN: set[int] = set()


def _let_go_in_child() -> None:
    """In a forked child: the inherited results files let go, each descriptor pointed at
    /dev/null (not closed: the number stays valid for the copy of the handle that names it).
    """
    if not _OPEN:
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for descriptor in _OPEN:
            os.dup2(null, descriptor)
    finally:
        os.close(null)
    _OPEN.clear()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_let_go_in_child)


class ResultsFile:
    """Where one run writes its results; open it with ``with``."""

    def __init__(self, target: Path, *, resume: bool) -> None:
        self.target = target
        self.resume = resume
        try:
            mode = target.stat().st_mode
        except OSError:
            mode = None
        if mode is not None and stat.S_ISDIR(mode):
            raise OutputError("cannot write the results: is a directory", origin=str(target))
        # A device or pipe (/dev/stdout) is written in place: it cannot be renamed into.
        self.direct = mode is not None and not stat.S_ISREG(mode)
        if self.direct and resume:
            raise OutputError("--resume needs a results file, not a device or pipe",
                              origin=str(target))
        real = target if self.direct else target.resolve()
        self.partial = real if self.direct else real.with_name(real.name + ".partial")
        self._handle: IO[bytes] | None = None
        self._copied = False  # the partial file is a copy of a finished run, made here

    def __enter__(self) -> ResultsFile:
        where = str(self.partial)
        try:
            handle = self.partial.open("ab" if self.direct else "a+b")
        except OSError as error:
            raise OutputError(f"cannot write the results: {error.strerror or error}",
                              origin=where) from None
        self._handle = handle
        _OPEN.add(handle.fileno())
        if not self.direct:
            self._lock(handle)
            try:
                if not self.resume:
                    handle.truncate(0)
                elif handle.seek(0, os.SEEK_END) == 0 and self.target.is_file():
                    with self.target.open("rb") as finished:  # a finished run, resumed
                        shutil.copyfileobj(finished, handle)
                    handle.flush()
                    self._copied = True
            except OSError as error:
                self.close()
                raise OutputError(f"cannot write the results: {error.strerror or error}",
                                  origin=where) from None
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        if exc[0] is not None and self._copied:  # nothing new: the finished run stays alone
            with contextlib.suppress(OSError):
                self.partial.unlink()

    def _lock(self, handle: IO[bytes]) -> None:
        if fcntl is None:
            return
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.close()
            raise OutputError("another citeaudit run is writing these results (the file is"
                              " locked): wait for it or choose another --out",
                              origin=str(self.target)) from None

    def kept(self) -> Iterator[dict[str, Any]]:
        """The complete results of the interrupted run, in order; the file is cut after the
        last of them once they have all been read.
        """
        handle = self._handle
        if handle is None or self.direct or not self.resume:
            return
        handle.seek(0)
        good = 0
        last = -1  # indexes increase (one by one, or by N in a shard)
        # A finished run is resumed from a copy: errors name the file that was given.
        origin = str(self.target if self._copied else self.partial)
        for number, line in enumerate(handle, 1):
            if not line.endswith(b"\n"):
                break
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:  # the line an interruption tore
                break
            result = valid_result(value, origin=origin, line=number)
            if result["index"] <= last:
                break
            last = result["index"]
            yield result
            good += len(line)
        try:
            handle.truncate(good)
        except OSError as error:
            raise OutputError(f"cannot write the results: {error.strerror or error}",
                              origin=str(self.partial)) from None

    def write(self, lines: bytes) -> None:
        """Append whole result lines (flushed: an interruption keeps every line written)."""
        assert self._handle is not None
        try:
            self._handle.write(lines)
            self._handle.flush()
        except OSError as error:
            raise OutputError(f"cannot write the results: {error.strerror or error}",
                              origin=str(self.partial)) from None

    def commit(self) -> None:
        """The run is complete: the partial file becomes the results file."""
        handle = self._handle
        if handle is None:
            return
        try:
            handle.flush()
            if not self.direct:
                os.fsync(handle.fileno())
                os.replace(self.partial, self.target.resolve())
                self._copied = False
        except OSError as error:
            raise OutputError(f"cannot write the results: {error.strerror or error}",
                              origin=str(self.target)) from None
        finally:
            self.close()

    def close(self) -> None:
        if self._handle is not None:
            _OPEN.discard(self._handle.fileno())
            with contextlib.suppress(OSError):  # the lock goes with the descriptor
                self._handle.close()
            self._handle = None

    def mismatch(self, reason: str, dataset: str) -> InputError:
        """Why the kept results cannot be resumed on ``dataset``."""
        return InputError(f"{self.target} holds results that do not match this dataset and"
                          f" these options ({reason}): use a new results file or run without"
                          " --resume", origin=dataset)
