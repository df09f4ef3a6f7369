"""Reading a provider's response field by field, each with the type its provider gives it.

A response is recognised by a few fields; the rest are read as they come, and any of them may
be broken (a list where a string belongs, ``true`` for an integer, a number for the whole
content). A field of another type is never skipped nor read as if it were right: skipping a
citation's quote or a whole content list turns a failing answer into a passing one. It is a
CA404 problem naming its JSON path (:class:`Fields`), and the reader goes on without it, so
the rest of the answer is still checked. Absent and ``null`` are one (providers leave
optional fields out, or null); a field the answer cannot do without is ``needed``.

The retrieved sources a response carries are its snapshot: a field of another type there is
a :class:`~citeaudit.SnapshotError` naming its place (:func:`source_field`), as for any broken
snapshot: the audit cannot run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from citeaudit.core import Problem, kind_of
from citeaudit.errors import SnapshotError

__all__ = ["Fields", "Kind", "is_kind", "named", "source_field", "source_items"]

Kind = type | tuple[type, ...]
_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list",
          dict: "an object"}


def is_kind(value: object, kind: Kind) -> bool:
    """Whether ``value`` is of ``kind`` (a boolean is no integer, though Python's bool is)."""
    return isinstance(value, kind) and not isinstance(value, bool)


def named(kind: Kind) -> str:
    """``kind`` as messages name it: "a string", "an integer or a string"."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if set(kinds) == {int, float}:
        return "a number"
    return " or ".join(_NAMES.get(k, k.__name__) for k in kinds)


class Fields:
    """A response's fields read with their types; each that is not what its provider gives is
    one CA404 in :attr:`problems`, naming its JSON path.
    """

    __slots__ = ("problems",)

    def __init__(self, problems: list[Problem] | None = None) -> None:
        self.problems: list[Problem] = [] if problems is None else problems

    def field(self, data: dict[str, Any], key: str, kind: Kind, path: str, what: str, *,
              needed: bool = False) -> Any:
        """``data[key]`` when it is of ``kind``; else None, with a CA404 at ``path.key`` when
        it is of another kind (or absent, and ``needed``). ``what`` names ``data`` in the
        message: 'a citation needs a string "type", not a list'.
        """
        value = data.get(key)
        if value is None:
            if needed:
                self.add(f"{path}.{key}", f"{what} needs {named(kind)} \"{key}\"")
            return None
        if is_kind(value, kind):
            return value
        self.add(f"{path}.{key}", f"{what} needs {named(kind)} \"{key}\", not {kind_of(value)}")
        return None

    def value(self, value: Any, kind: Kind, path: str, what: str) -> Any:
        """``value`` (at ``path``) when it is of ``kind``; else None and a CA404:
        'a content block must be an object, not a number'.
        """
        if is_kind(value, kind):
            return value
        self.add(path, f"{what} must be {named(kind)}, not {kind_of(value)}")
        return None

    def items(self, data: dict[str, Any], key: str, path: str, what: str, *,
              needed: bool = False) -> list[Any]:
        """The list ``data[key]`` (``[]``: absent, or not a list and a CA404 says so)."""
        found = self.field(data, key, list, path, what, needed=needed)
        return cast("list[Any]", found) if found is not None else []

    def objects(self, items: list[Any], path: str, what: str,
                ) -> Iterator[tuple[int, dict[str, Any], str]]:
        """Each item of ``items`` (the list at ``path``) that is an object, with its place and
        JSON path; each that is not is a CA404.
        """
        for at, item in enumerate(items):
            where = f"{path}[{at}]"
            if isinstance(item, dict):
                yield at, item, where
            else:
                self.add(where, f"{what} must be an object, not {kind_of(item)}")

    def object_at(self, items: list[Any], at: int, path: str, what: str,
                  ) -> dict[str, Any] | None:
        """``items[at]`` (of the list at ``path``) when it is an object (a subclass of dict
        read as a dict); else None and a CA404 (:meth:`objects`, one item).
        """
        item = items[at]
        if type(item) is dict:
            return item
        if isinstance(item, dict):
            return dict(item)
        self.add(f"{path}[{at}]", f"{what} must be an object, not {kind_of(item)}")
        return None

    def integers(self, data: dict[str, Any], names: tuple[str, ...], what: str, path: str,
                 ) -> list[int] | None:
        """The integer fields ``names`` of ``data``; None, with a CA404 naming the first that
        is not an integer, if any is not.
        """
        values = []
        for name in names:
            value = data.get(name)
            if type(value) is not int:  # not a bool either
                self.add(f"{path}.{name}", f"{what} needs an integer \"{name}\"" + (
                    "" if value is None else f", not {kind_of(value)}"))
                return None
            values.append(value)
        return values

    def add(self, path: str, message: str) -> None:
        """One CA404 at ``path``."""
        self.problems.append(Problem("CA404", message, path=path))


def source_field(data: dict[str, Any], key: str, kind: Kind, path: str, what: str, *,
                 needed: bool = False) -> Any:
    """A field of a retrieved source the response carries: ``data[key]`` when it is of
    ``kind``, None when absent (and not ``needed``); else a :class:`SnapshotError` at
    ``path.key``.
    """
    value = data.get(key)
    if is_kind(value, kind) or (value is None and not needed):
        return value
    raise SnapshotError(f"{what} needs {named(kind)} \"{key}\", not {kind_of(value)}",
                        origin="<answer>", place=f"{path}.{key}")


def source_items(data: dict[str, Any], key: str, path: str, what: str,
                 item: str) -> Iterator[tuple[int, dict[str, Any], str]]:
    """Each object of the list ``data[key]`` of retrieved sources (none when absent), with
    its place and JSON path; a :class:`SnapshotError` when the list, or an item, is not
    what its provider gives.
    """
    found = source_field(data, key, list, path, what)
    for at, value in enumerate(found or ()):
        where = f"{path}.{key}[{at}]"
        if not isinstance(value, dict):
            raise SnapshotError(f"{item} must be an object, not {kind_of(value)}",
                                origin="<answer>", place=where)
        yield at, value, where
