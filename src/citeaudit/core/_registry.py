"""One registry mechanism for every kind of plug-in: grammars, checks, support judges, answer
formats, output formatters and dataset evaluators.

Each kind is an entry-point group, ``citeaudit.<kind>``. The built-ins are entry points too,
declared in code with the same ``module:attribute`` references an installed package declares
in its ``pyproject.toml``::

    [project.entry-points."citeaudit.checks"]
    no_ellipsis = "my_package.checks:no_ellipsis"

so a built-in and a plug-in are found, loaded and validated the same way. The engine's
registries name only the engine's own built-ins; a layer above it adds those it defines when
it is imported (:meth:`Registry.add_builtins`: the answer formats, the support judges), and
the package's ``__init__`` imports every layer. A registry is
read-only (a :class:`~collections.abc.Mapping`); nothing is imported until a name is used,
and a built-in is found without scanning the installed packages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pkgutil import resolve_name
from typing import Generic, TypeVar

from citeaudit.errors import ConfigError

__all__ = ["Registry", "instance_of", "reload_all"]

T = TypeVar("T")
_EVERY: list[Registry[object]] = []  # so that reload_all() reaches every registry


class Registry(Mapping[str, T], Generic[T]):
    """The plug-ins of one kind by name: built-ins first (in their order), then installed
    ones (by name). ``validate`` turns a loaded object into the registered value (creating an
    instance from a class, for example) or raises :class:`TypeError` saying what it lacks.
    """

    def __init__(self, kind: str, builtins: Mapping[str, str] | None = None, *, what: str,
                 validate: Callable[[object], T]) -> None:
        self.kind = kind
        self.group = f"citeaudit.{kind}"
        self.what = what  # "support judge", as a message names one
        self._validate = validate
        self._builtins = dict(builtins or {})  # name: "module:attribute"
        self._installed: dict[str, str] | None = None
        self._loaded: dict[str, T] = {}
        self._on_reload: list[Callable[[], None]] = []
        _EVERY.append(self)  # type: ignore[arg-type]  # read back only to reload

    def _points(self) -> dict[str, str]:
        if self._installed is None:
            # Imported here: reading the installed packages' metadata is the slow part of
            # a registry, and a built-in never needs it.
            from importlib.metadata import entry_points  # noqa: PLC0415

            found = {point.name: point.module if point.attr is None else
                     f"{point.module}:{point.attr}" for point in entry_points(group=self.group)}
            # A plug-in cannot replace a built-in: the same name always means the same thing.
            self._installed = {name: found[name] for name in sorted(found)
                               if name not in self._builtins}
        return {**self._builtins, **self._installed}

    def _point(self, name: str) -> str | None:
        return self._builtins.get(name) or self._points().get(name)

    def __getitem__(self, name: str) -> T:
        loaded = self._loaded.get(name)
        if loaded is not None:
            return loaded
        point = self._point(name)
        if point is None:
            raise KeyError(name)
        try:
            value = self._validate(resolve_name(point))
        except TypeError as error:
            raise ConfigError(f"{self.what} {name!r} ({point}): {error}") from None
        except Exception as error:  # third-party code: whatever its import raises is reported
            raise ConfigError(f"{self.what} {name!r} cannot be loaded ({point}):"
                              f" {type(error).__name__}: {error}") from None
        self._loaded[name] = value
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._point(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._points())

    def __len__(self) -> int:
        return len(self._points())

    def reload(self) -> None:
        """Forget what was found and loaded: for a process that installs packages as it
        runs (a notebook, a test).
        """
        self._installed = None
        self._loaded.clear()
        for forget in self._on_reload:
            forget()

    def on_reload(self, forget: Callable[[], None]) -> None:
        """Call ``forget`` on :meth:`reload` (for what was computed from the registry)."""
        self._on_reload.append(forget)

    def add_builtins(self, points: Mapping[str, str]) -> None:
        """Add built-ins (name: ``"module:attribute"``), after those there are: how a layer
        above the engine registers what it defines (the answer formats, the support judges),
        when it is imported. A name cannot be declared twice.
        """
        twice = sorted(set(points) & set(self._builtins))
        if twice:
            raise ValueError(f"{self.kind}: built-ins declared twice: {', '.join(twice)}")
        self._builtins.update(points)
        self._installed = None  # a plug-in of a name now built in gives way to it

    def builtins(self) -> tuple[str, ...]:
        """The names of the built-ins, in their order."""
        return tuple(self._builtins)

    def require(self, name: str) -> T:
        """The plug-in called ``name``, or a :class:`ConfigError` listing what there is."""
        if name not in self:
            raise ConfigError(f"unknown {self.what} {name!r} (installed: {', '.join(self)})")
        return self[name]


def reload_all() -> None:
    """:meth:`Registry.reload` for every registry."""
    for registry in _EVERY:
        registry.reload()


def instance_of(loaded: object, protocol: type, needs: str) -> object:
    """What an entry point names, as a plug-in: a class is instantiated with no arguments, an
    instance is taken as it is; either must satisfy ``protocol`` (a runtime-checkable
    :class:`~typing.Protocol`), else :class:`TypeError` saying what it ``needs``.
    """
    value = loaded() if isinstance(loaded, type) else loaded
    if not isinstance(value, protocol):
        raise TypeError(needs)
    return value
