"""Writing output files without losing input: an output that is an input is refused, and a
file is written beside its target and renamed into place, so that a failed write never leaves
half a file where a good one was.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import IO, NoReturn

from citeaudit.errors import OutputError

__all__ = ["refuse_inputs", "same_file", "write_atomically"]


def same_file(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same resolved path (through symbolic links and
    ``..``), or the same device and inode (hard links).
    """
    one, other = Path(first), Path(second)
    try:
        if one.resolve() == other.resolve():
            return True
        return os.path.samefile(one, other)
    except OSError:  # one of them does not exist (yet): it cannot be the other
        return False


def refuse_inputs(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]],
                  *, stdin: IO[bytes] | None = None) -> None:
    """Raise :class:`OutputError` when ``output`` is the same file as one of ``inputs``, or
    (``-`` among them) the same file or pipe as the open standard input ``stdin``, however it
    is named (``/dev/stdin``, ``/proc/self/fd/0``, the file's own path, a link).
    """
    for given in inputs:
        if os.fspath(given) != "-":
            if same_file(output, given):
                _refuse(output, os.fspath(given), "file")
        elif stdin is not None:
            kind = _shared(output, stdin)
            if kind is not None:
                _refuse(output, "<stdin>", kind)


def _refuse(output: str | os.PathLike[str], given: str, kind: str) -> NoReturn:
    harm = ("the run would read its own results and never end" if kind == "pipe"
            else "writing it would destroy the input")
    raise OutputError(f"is the same {kind} as the input {given}: {harm}; choose another output",
                      origin=os.fspath(output))


def _shared(output: str | os.PathLike[str], stream: IO[bytes]) -> str | None:
    """``"file"`` or ``"pipe"`` when ``output`` names what ``stream`` reads, else ``None``:
    the two are compared as opened (device and inode), not by their names.
    """
    try:
        opened = os.fstat(stream.fileno())
        named = os.stat(output)
    except (OSError, ValueError, io.UnsupportedOperation):  # no output yet; no descriptor
        return None
    if _identity(opened) is None or _identity(named) != _identity(opened):
        return None
    return "file" if stat.S_ISREG(opened.st_mode) else "pipe"


def _identity(status: os.stat_result) -> tuple[int, int] | None:
    """What names a file or a pipe, whatever path leads to it. A device (``/dev/null``, a
    terminal) may be read and written at once: it has none.
    """
    mode = status.st_mode
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return status.st_dev, status.st_ino
    return None


def _is_special(path: Path) -> bool:
    """A device, pipe or socket: written in place (it cannot be replaced by a rename)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_atomically(path: str | os.PathLike[str], data: bytes | str, *,
                     what: str = "the file") -> None:
    """Write ``data`` (``what``, for messages) to ``path`` through a new file beside it,
    renamed into place; any failure leaves ``path`` as it was and raises :class:`OutputError`.
    """
    origin = os.fspath(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    target = Path(origin)
    if _is_special(target):
        try:
            with target.open("wb") as handle:
                handle.write(payload)
        except OSError as error:
            raise OutputError(f"cannot write {what}: {error.strerror or error}", origin=origin) \
                from None
        return
    target = target.resolve()  # through a symbolic link: the file it names is replaced
    if target.is_dir():
        raise OutputError(f"cannot write {what}: is a directory", origin=origin)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise OutputError(f"cannot write {what}: {error.strerror or error}",
                          origin=origin) from None
