"""Result lines read back (``merge``, ``replay``, ``eval --resume``): each is checked against
the shape ``citeaudit eval`` writes before anything counts it, so that a line edited by hand,
cut by a tool or written by another program is one error naming the file, the line and the
field (a JSON path), never a traceback or an aggregate of wrong values.

Fields a reader does not use are not required (older results lack ``reasons`` and
``audit_passed``), nor are unknown ones refused; every field present must have its type.
A line is first only tested (no path is built: a merge reads millions), and only a line that
fails is walked again to name the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import orjson

from citeaudit.errors import InputError

__all__ = ["parse_result", "valid_result"]

_LARGEST = 2 ** 63 - 1  # the largest count a results file holds (Spark's long)
_MISSING = object()
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _shown(value: Any) -> str:
    """A value as JSON, shortened: what the message says was found."""
    text = orjson.dumps(value).decode()
    return text if len(text) <= 60 else f"{text[:57]}..."


def _key(path: str, name: str) -> str:
    return f"{path}.{name}" if _NAME.fullmatch(name) else f"{path}[{_shown(name)}]"


class _Shape:
    """What a value must be: :meth:`fits` tests it, :meth:`wrong` names where it is not.
    ``types``, when given, is the whole test: the value's type is one of them.
    """

    def __init__(self, expected: str, test: Callable[[Any], bool],
                 types: tuple[type, ...] | None = None) -> None:
        self.expected = expected
        self.fits = test
        self.types = types

    def wrong(self, value: Any, path: str) -> tuple[str, str] | None:
        """The path and reason of the first field that does not fit, or ``None``."""
        if self.fits(value):
            return None
        return path, f"must be {self.expected}, not {_shown(value)}"


class _Nullable(_Shape):
    def __init__(self, inner: _Shape) -> None:
        super().__init__(f"{inner.expected} or null",
                         lambda value: value is None or inner.fits(value),
                         None if inner.types is None else (*inner.types, type(None)))
        self.inner = inner

    def wrong(self, value: Any, path: str) -> tuple[str, str] | None:
        if value is None:
            return None
        found = self.inner.wrong(value, path)
        if found is None or found[0] != path:  # deeper in the value: that field is named
            return found
        return path, f"must be {self.expected}, not {_shown(value)}"


class _List(_Shape):
    def __init__(self, item: _Shape) -> None:
        super().__init__("a list", lambda value: type(value) is list and all(
            map(item.fits, value)))
        self.item = item

    def wrong(self, value: Any, path: str) -> tuple[str, str] | None:
        if type(value) is not list:
            return path, f"must be a list, not {_shown(value)}"
        for position, element in enumerate(value):
            found = self.item.wrong(element, f"{path}[{position}]")
            if found is not None:
                return found
        return None


class _Mapping(_Shape):
    """An object of any keys, each value of one shape."""

    def __init__(self, item: _Shape) -> None:
        super().__init__("an object", lambda value: type(value) is dict and all(
            map(item.fits, value.values())))
        self.item = item

    def wrong(self, value: Any, path: str) -> tuple[str, str] | None:
        if type(value) is not dict:
            return path, f"must be an object, not {_shown(value)}"
        for name, element in value.items():
            found = self.item.wrong(element, _key(path, name))
            if found is not None:
                return found
        return None


class _Object(_Shape):
    """An object with these fields: name -> (shape, whether it must be there)."""

    def __init__(self, fields: dict[str, tuple[_Shape, bool]]) -> None:
        super().__init__("an object", self._fits)
        self.fields = [(name, shape.types, shape.fits, required)
                       for name, (shape, required) in fields.items()]
        self.shapes = {name: shape for name, (shape, _) in fields.items()}

    def _fits(self, value: Any) -> bool:
        if type(value) is not dict:
            return False
        get = value.get
        for name, types, fits, required in self.fields:
            item = get(name, _MISSING)
            if item is _MISSING:
                if required:
                    return False
            elif types is not None:  # a test of the type alone, without a call
                if type(item) not in types:
                    return False
            elif not fits(item):
                return False
        return True

    def wrong(self, value: Any, path: str) -> tuple[str, str] | None:
        if type(value) is not dict:
            return path, f"must be an object, not {_shown(value)}"
        for name, _, _, required in self.fields:
            if name not in value:
                if required:
                    return _key(path, name), "missing"
                continue
            found = self.shapes[name].wrong(value[name], _key(path, name))
            if found is not None:
                return found
        return None


def _is_count(value: Any) -> bool:
    return type(value) is int and 0 <= value <= _LARGEST


def _is_pair(value: Any, least: int) -> bool:
    """``[a, b]``: whole numbers with ``least <= a <= b``."""
    return type(value) is list and len(value) == 2 and _is_count(value[0]) and \
        _is_count(value[1]) and least <= value[0] <= value[1]


def _one_of(*choices: str) -> _Shape:
    listed = ", ".join(f'"{choice}"' for choice in choices)
    return _Shape(f"one of {listed}", lambda value: type(value) is str and value in choices)


_TEXT = _Shape("a string", lambda value: type(value) is str, (str,))
_FLAG = _Shape("true or false", lambda value: type(value) is bool, (bool,))
_COUNT = _Shape("a whole number from 0", _is_count)
# NaN and the infinities fail the comparisons.
_RATIO = _Shape("a number from 0 to 1",
                lambda value: type(value) in (int, float) and 0.0 <= value <= 1.0)
_SCORE = _Shape("a finite number",
                lambda value: type(value) in (int, float) and math.isfinite(value))
_SPAN = _Shape("[start, end] (whole numbers from 0)", lambda value: _is_pair(value, 0))
_SHARD = _Shape("[I, N] (1 <= I <= N)", lambda value: _is_pair(value, 1))

_FINDING = _Object({
    "code": (_TEXT, True), "severity": (_one_of("error", "warning"), True),
    "message": (_TEXT, True), "claim": (_Nullable(_COUNT), False),
    "span": (_Nullable(_SPAN), False),
    **dict.fromkeys(("marker", "source_id", "path"), (_Nullable(_TEXT), False)),
})
_METRICS = _Object({
    # The ratios the aggregate reads must be there; the rest may be missing.
    **{name: (_Nullable(_RATIO), name in ("precision", "recall", "f1", "claim_coverage"))
       for name in ("precision", "recall", "f1", "weighted_coverage", "claim_coverage",
                    "out_of_range_score", "support_recall", "support_precision")},
    **dict.fromkeys(("citations", "cited_ids", "valid_cited_ids", "claims", "claims_covered",
                     "retrieved", "relevant"), (_COUNT, False)),
})
_EVALUATOR = _Object({"passed": (_FLAG, True), "score": (_SCORE, True),
                      "reason": (_TEXT, True)})
_RUN = _Object({"dataset": (_Nullable(_TEXT), False), "shard": (_Nullable(_SHARD), False),
                "min_precision": (_Nullable(_RATIO), False),
                "min_recall": (_Nullable(_RATIO), False)})
_COMMON = {
    "index": (_COUNT, True), "place": (_TEXT, True), "id": (_Nullable(_TEXT), True),
    "status": (_one_of("ok", "unverified", "no_evidence", "unreadable"), True),
    "passed": (_FLAG, True), "record_digest": (_TEXT, False),
    "options_digest": (_TEXT, False), "run": (_Nullable(_RUN), False),
}
_UNREADABLE = _Object({**_COMMON, "error": (_TEXT, True)})
_AUDITED = _Object({
    **_COMMON, "reasons": (_List(_TEXT), False), "audit_passed": (_FLAG, False),
    "errors": (_COUNT, True), "findings": (_List(_FINDING), True),
    "metrics": (_METRICS, True), "fingerprint": (_TEXT, False),
    "tags": (_Mapping(_TEXT), True), "evaluators": (_Mapping(_EVALUATOR), True),
    "answerable": (_Nullable(_FLAG), False),
})


def valid_result(value: Any, *, origin: str, line: int) -> dict[str, Any]:
    """``value`` (line ``line`` of the results file ``origin``, decoded) when it has the
    shape of a result, else an :class:`InputError` naming the line and the field.
    """
    if type(value) is not dict or "status" not in value:
        raise InputError("not a result of citeaudit eval", origin=origin, place=f"line {line}")
    shape = _UNREADABLE if value["status"] == "unreadable" else _AUDITED
    if not shape.fits(value):
        path, reason = shape.wrong(value, "$") or ("$", "not a result of citeaudit eval")
        raise InputError(reason, origin=origin, place=f"line {line}: {path}")
    return value


def parse_result(raw: bytes, *, origin: str, line: int) -> dict[str, Any]:
    """Line ``line`` of the results file ``origin`` as a result, checked (see
    :func:`valid_result`); JSON that cannot be read is an error naming its column.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        reason = str(error).split(": line ")[0]
        raise InputError(f"not a result line: {reason}", origin=origin,
                         place=f"line {line}, column {error.colno}") from None
    return valid_result(value, origin=origin, line=line)
