"""Writing output files without losing input: an output that is an input is refused, and a
file is written beside its target and renamed into place, so that a failed write never leaves
half a file where a good one was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path

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
                  ) -> None:
    """Raise :class:`OutputError` when ``output`` is the same file as one of ``inputs``
    (``-``, standard input, is never a file here).
    """
    for given in inputs:
        if os.fspath(given) != "-" and same_file(output, given):
            raise OutputError(f"is the same file as the input {os.fspath(given)}: writing it"
                              " would destroy the input; choose another output",
                              origin=os.fspath(output))


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
