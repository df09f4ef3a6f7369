"""Sources and the per-request snapshot (registry) they live in.

A :class:`Snapshot` is the immutable set of passages supplied to generation for ONE request.
It accepts three shapes (see :func:`load_snapshot`) and proves, through its fingerprint,
which passages an answer was checked against.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from citeaudit.errors import SnapshotError

__all__ = ["NO_METADATA", "Snapshot", "Source", "kind_of", "load_snapshot", "numbered_ids",
           "passage", "resolve_id"]

_URL_KEYS = ("url", "source_url")
NO_METADATA: Mapping[str, Any] = MappingProxyType({})
_LABEL_KEYS = ("title", "label", "section")
_STRINGS = {str}
_PASSAGE_KEYS = ("text", *_URL_KEYS, *_LABEL_KEYS, "score", "rank", "metadata")


class Source(NamedTuple):
    """One retrieved passage (immutable; a tuple so that building thousands costs little)."""

    id: str
    text: str
    url: str | None = None
    label: str | None = None
    score: float | None = None
    rank: int | None = None
    metadata: Mapping[str, Any] = NO_METADATA

    def __reduce__(self) -> tuple[Any, ...]:
        # A read-only mapping does not pickle: workers and other processes get a copy.
        return (_source, (tuple(self[:6]), dict(self.metadata)))


def _source(fields: tuple[Any, ...], metadata: dict[str, Any]) -> Source:
    """A source back from a pickle: its fields, then its metadata read-only again."""
    source_id, text, url, label, score, rank = fields
    return Source(source_id, text, url, label, score, rank,
                  MappingProxyType(metadata) if metadata else NO_METADATA)


class Snapshot:
    """The immutable, validated set of sources for one request, keyed by id.

    ``numbering`` is ``(prefix, N)`` when the ids are exactly ``prefix + "1"`` .. ``prefix + "N"``
    in order (``("", N)`` for passages numbered densely after trimming, ``("doc_", N)`` for
    ``doc_1..doc_N``), else ``None``. A marker naming such an id outside ``1..N`` is out of
    range (CA202).
    """

    __slots__ = ("_by_id", "_fingerprint", "_sources", "_texts", "_weights", "ids_from",
                 "numbering")

    def __init__(self, sources: tuple[Source, ...], *, ids_from: str = "ids") -> None:
        by_id = {source.id: source for source in sources}
        if len(by_id) != len(sources):
            _check_unique(source.id for source in sources)
        self._sources: tuple[Source, ...] | None = sources
        self._texts: tuple[str, ...] = ()
        self._by_id: dict[str, Source] | None = by_id
        self._fingerprint: str | None = None
        self._weights: dict[str, float] | bool | None = False  # False: not computed yet
        self.numbering = _numbering(tuple(by_id))
        # "ids": the ids as the data gave them; "positions": an id-less list numbered 1..N.
        self.ids_from = ids_from

    @classmethod
    def positional(cls, sources: tuple[Source, ...]) -> Snapshot:
        """The snapshot of an id-less list of passages, ``sources``, already numbered
        ``"1"`` .. ``"N"`` in order (what ``Snapshot(sources, ids_from="positions")`` makes,
        without checking again what the numbering guarantees).
        """
        snapshot = cls._numbered(len(sources), sources, ())
        snapshot._by_id = {source.id: source for source in sources}
        return snapshot

    @classmethod
    def of_texts(cls, texts: tuple[str, ...]) -> Snapshot:
        """The snapshot of a list of passages that are bare strings, numbered ``"1"`` ..
        ``"N"``: its sources are made when first read (a settled verdict reads the numbering
        alone where the markers name numbers).
        """
        return cls._numbered(len(texts), None, texts)

    @classmethod
    def _numbered(cls, count: int, sources: tuple[Source, ...] | None,
                  texts: tuple[str, ...]) -> Snapshot:
        """A snapshot of ``count`` id-less passages numbered ``"1"`` .. ``"N"``: ``sources``
        made, or ``texts`` to make them from; its index is made by the caller or when read.
        """
        snapshot = cls.__new__(cls)
        snapshot._sources = sources
        snapshot._texts = texts
        snapshot._by_id = None
        snapshot._fingerprint = None
        snapshot._weights = False
        snapshot.numbering = ("", count)
        snapshot.ids_from = "positions"
        return snapshot

    @property
    def sources(self) -> tuple[Source, ...]:
        """The sources, in snapshot order."""
        sources = self._sources
        if sources is None:
            ids = numbered_ids(len(self._texts))
            sources = self._sources = tuple([
                Source(ids[at], text, None, None, None, None, NO_METADATA)
                for at, text in enumerate(self._texts)])
        return sources

    @property
    def numbered(self) -> bool:
        """True when the ids are exactly ``"1"`` .. ``"N"``."""
        return self.numbering is not None and self.numbering[0] == ""

    def __len__(self) -> int:
        return len(self._texts) if self._sources is None else len(self._sources)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Snapshot) and self.sources == other.sources

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __iter__(self) -> Iterator[Source]:
        return iter(self.sources)

    def __contains__(self, source_id: object) -> bool:
        if self._by_id is None:  # ids "1".."N", the sources not made yet: a number in range
            return isinstance(source_id, str) and source_id.isdigit() and \
                source_id.isascii() and source_id[0] != "0" and \
                int(source_id) <= len(self._texts)
        return source_id in self._by_id

    @property
    def index(self) -> Mapping[str, Source]:
        """The sources by id (read-only)."""
        by_id = self._by_id
        if by_id is None:
            by_id = self._by_id = {source.id: source for source in self.sources}
        return by_id

    def get(self, source_id: str) -> Source | None:
        """The source with this id, or ``None``."""
        return self.index.get(source_id)

    @property
    def ids(self) -> tuple[str, ...]:
        """Source ids in snapshot order."""
        return tuple(self.index)

    @property
    def fingerprint(self) -> str:
        """``sha256:`` + hex digest of the length-prefixed ids and texts, computed on first use.

        Length prefixes keep two different snapshots from hashing alike by concatenation.
        """
        if self._fingerprint is None:
            # one buffer, one hash update (an update per part costs more)
            self._fingerprint = "sha256:" + hashlib.sha256(
                _fingerprinted(self.sources)).hexdigest()
        return self._fingerprint

    @property
    def weights(self) -> dict[str, float] | None:
        """Each source's share of the coverage weight, summing to 1 (``None``: all equal).

        Weights are the sources' ``score`` when every source has one (and one is positive),
        else ``1 / rank`` when every source has a rank, else equal. Computed once.
        """
        if self._weights is False:
            sources = self.sources
            raw: dict[str, float] | None = None
            if sources and all(s.score is not None for s in sources) and \
                    any(s.score for s in sources):
                raw = {s.id: float(s.score or 0.0) for s in sources}
            elif sources and all(s.rank is not None for s in sources):
                raw = {s.id: 1.0 / (s.rank or 1) for s in sources}
            if raw is not None:
                total = sum(raw.values())
                raw = {key: value / total for key, value in raw.items()}
            self._weights = raw
        return self._weights if isinstance(self._weights, dict) else None

    def to_dict(self) -> dict[str, Any]:
        """The ``{"sources": [...]}`` JSON shape, which :func:`load_snapshot` reads back."""
        rows: list[dict[str, Any]] = []
        for source in self.sources:
            row: dict[str, Any] = {"id": source.id, "text": source.text}
            for key, value in (("url", source.url), ("title", source.label),
                               ("score", source.score), ("rank", source.rank)):
                if value is not None:
                    row[key] = value
            if source.metadata:
                row["metadata"] = dict(source.metadata)
            rows.append(row)
        return {"sources": rows}

    def __repr__(self) -> str:
        return f"Snapshot({len(self)} sources, ids={list(self.index)[:5]!r})"


def resolve_id(source_id: str, prefix: str, snapshot: Snapshot) -> str | None:
    """The snapshot id a cited id names, or ``None``: as written; without the grammar's
    ``prefix`` (``S3`` -> ``3``); or, for a bare number in a snapshot numbered
    ``prefix1..prefixN``, with that prefix (``[6]`` -> ``ExpertQA_q1#ref6``).
    """
    if source_id in snapshot:
        return source_id
    if prefix and source_id.startswith(prefix) and source_id[len(prefix):] in snapshot:
        return source_id[len(prefix):]
    numbering = snapshot.numbering
    if numbering is not None and numbering[0] and source_id.isdigit():
        named = numbering[0] + source_id
        if named in snapshot:
            return named
    return None


def _numbering(ids: tuple[str, ...]) -> tuple[str, int] | None:
    if not ids:
        return ("", 0)
    first = ids[0]
    prefix = first.rstrip("0123456789")
    count = len(ids)
    if prefix == first or ids[-1] != f"{prefix}{count}" or ids != numbered_ids(count, prefix):
        return None
    return (prefix, count)


def numbered_ids(count: int, prefix: str = "") -> tuple[str, ...]:
    """The ids ``prefix + "1"`` .. ``prefix + str(count)`` (kept for the sizes requests have,
    not for a dataset's whole snapshot).
    """
    return _numbered_kept(prefix, count) if count <= 1024 else _ids(prefix, count)


def _ids(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{n}" for n in range(1, count + 1))


_numbered_kept = functools.lru_cache(maxsize=256)(_ids)


def load_snapshot(data: Any, *, origin: str = "<snapshot>") -> Snapshot:
    """Validate decoded JSON (or equivalent Python values) into a :class:`Snapshot`.

    Accepted shapes:

    * ``{"sources": [{"id": str, "text": str, ...}, ...]}``
    * a list of passages, numbered ``1..N`` in order; each a string or an object with ``text``
      and optional ``url``/``source_url``, ``title``/``label``/``section``, ``score``, ``rank``
    * a mapping ``{"1": passage, "2": passage}`` with the same passage forms as values

    A :class:`Snapshot` passes through unchanged. Anything else raises :class:`SnapshotError`
    naming the JSON path.
    """
    if isinstance(data, Snapshot):
        return data
    if type(data) is list and data and type(data[0]) is str and _strings(data):
        return Snapshot.of_texts(tuple(data))  # the common case: passages as bare strings
    if type(data) is list and data and type(data[0]) is dict:
        if data[0].get("id") is None:  # passages numbered by their places
            read = _passages(data, numbered_ids(len(data)))
            if read is not None:
                return Snapshot.positional(tuple(read))
        elif (read := _passages(data)) is not None:
            return Snapshot(tuple(read))
    try:
        carried = isinstance(data, list | tuple) and _carry_ids(data)
        positions = isinstance(data, list | tuple) and not carried
        return Snapshot(tuple(_sources(data, carried)),
                        ids_from="positions" if positions else "ids")
    except SnapshotError as error:
        raise error.located(origin) from None


def _sources(data: Any, carried: bool = False) -> Iterator[Source]:
    if isinstance(data, dict) and "sources" in data and isinstance(data["sources"], list):
        seen: set[str] = set()
        for index, item in enumerate(data["sources"]):
            path = f"$.sources[{index}]"
            if not isinstance(item, dict):
                raise SnapshotError(f"a source must be an object, not {kind_of(item)}", place=path)
            source_id = item.get("id")
            if not isinstance(source_id, str) or not source_id.strip():
                raise SnapshotError("a source needs a non-empty string \"id\"",
                                    place=f"{path}.id")
            if source_id in seen:
                raise SnapshotError(f"duplicate source id {source_id!r}", place=f"{path}.id")
            seen.add(source_id)
            yield passage(source_id, item, path)
    elif isinstance(data, dict):
        if "sources" in data:
            raise SnapshotError(f"\"sources\" must be a list, not {kind_of(data['sources'])}",
                                place="$.sources")
        for key, value in data.items():
            if not isinstance(key, str) or not key.strip():
                raise SnapshotError("source ids must be non-empty strings", place="$")
            yield passage(key, value, f"$[{_quote(key)}]")
    elif isinstance(data, list | tuple) and carried:
        for index, value in enumerate(data):  # the ids the passages carry: markers cite them
            given = value.get("id") if type(value) is dict else None
            if type(given) is not str or not given.strip():
                given = _given_id(value, f"$[{index}].id")
            yield passage(given, value, f"$[{index}]")
    elif isinstance(data, list | tuple):
        for index, value in enumerate(data):
            if isinstance(value, str):  # (a list of strings alone is read by _strings)
                yield Source(str(index + 1), value, None, None, None, None, NO_METADATA)
            else:
                yield passage(str(index + 1), value, f"$[{index}]")
    else:
        raise SnapshotError(
            f"a snapshot must be an object with \"sources\", a list of passages or an id mapping,"
            f" not {kind_of(data)}", place="$")


def _has_id(value: Any) -> bool:
    return isinstance(value, Source) or (isinstance(value, dict) and value.get("id") is not None)


def _carry_ids(items: list[Any] | tuple[Any, ...]) -> bool:
    """Whether a list's passages carry their own ids (all of them; a mix is an error)."""
    if not items or isinstance(items[0], str) or not _has_id(items[0]):
        for index, value in enumerate(items):
            if not isinstance(value, str) and _has_id(value):
                raise SnapshotError(
                    f"passage $[{index}] carries an \"id\" but passage $[0] does not: give"
                    " every passage an id (markers cite them) or none (numbered 1..N)",
                    place=f"$[{index}].id")
        return False
    for index, value in enumerate(items):
        if not (isinstance(value, Source) or  # _has_id, without a call per passage
                (isinstance(value, dict) and value.get("id") is not None)):
            raise SnapshotError(
                f"passage $[{index}] has no \"id\" but passage $[0] does: give every passage"
                " an id (markers cite them) or none (numbered 1..N)", place=f"$[{index}]")
    return True


def _given_id(value: Any, path: str) -> str:
    """A passage's own id: a non-empty string, or a whole number written as one."""
    if isinstance(value, Source):
        return value.id
    given = value.get("id")
    if isinstance(given, int) and not isinstance(given, bool):
        return str(given)
    if not isinstance(given, str) or not given.strip():
        raise SnapshotError(f"a passage id must be a non-empty string or a whole number, not"
                            f" {kind_of(given)}", place=path)
    return given


def _check_unique(ids: Iterable[str]) -> None:
    """Raise at the first id seen twice."""
    seen: set[str] = set()
    for index, source_id in enumerate(ids):
        if source_id in seen:
            raise SnapshotError(f"duplicate source id {source_id!r}", origin="<snapshot>",
                                place=f"$[{index}].id")
        seen.add(source_id)


def passage(source_id: str, value: Any, path: str) -> Source:
    """One passage (a string, an object with ``text`` or a :class:`Source`) as the source
    ``source_id``; a broken one raises :class:`SnapshotError` at JSON path ``path``.
    """
    if isinstance(value, str):
        return Source(source_id, value, None, None, None, None, NO_METADATA)
    if isinstance(value, Source):
        return value
    if not isinstance(value, dict):
        raise SnapshotError(f"a passage must be a string or an object, not {kind_of(value)}",
                            place=path)
    # Every field read at once: most passages have a text, a URL or a title and nothing more.
    text, url, source_url, title, label, section, score, rank, metadata = map(
        value.get, _PASSAGE_KEYS)
    if not isinstance(text, str):
        raise SnapshotError(f"a passage needs a string \"text\", not {kind_of(text)}",
                            place=f"{path}.text")
    url = url if url is not None else source_url
    if url is not None and not isinstance(url, str):
        _optional_str(value, _URL_KEYS, path)  # raises, naming the key
    label = title if title is not None else label if label is not None else section
    if label is not None and not isinstance(label, str):
        _optional_str(value, _LABEL_KEYS, path)
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, int | float) \
                or not _finite(score) or score < 0:
            raise SnapshotError("\"score\" must be a non-negative number",
                                place=f"{path}.score")
        score = float(score)
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
        raise SnapshotError("\"rank\" must be a positive integer", place=f"{path}.rank")
    if metadata is not None and not isinstance(metadata, dict):
        raise SnapshotError("\"metadata\" must be an object", place=f"{path}.metadata")
    return Source(source_id, text, url, label, score, rank,
                  MappingProxyType(metadata) if metadata else NO_METADATA)


def _finite(number: float) -> bool:
    """Whether ``number`` is finite as a float (an integer past a float's range is not)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def _optional_str(value: dict[str, Any], keys: tuple[str, ...], path: str) -> str | None:
    for key in keys:
        found = value.get(key)
        if found is None:
            continue
        if not isinstance(found, str):
            raise SnapshotError(f"\"{key}\" must be a string, not {kind_of(found)}",
                                place=f"{path}.{key}")
        return found
    return None


def _quote(key: str) -> str:
    """A key as a JSON string: quotes, backslashes and control characters escaped."""
    return json.dumps(key, ensure_ascii=False)


def kind_of(value: Any) -> str:
    """How a JSON value is named in error messages ("a string", "an object", "null")."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def _fingerprinted(sources: tuple[Source, ...]) -> bytes:
    """What :attr:`Snapshot.fingerprint` hashes: each source's id and text in UTF-8
    (``surrogatepass``), each after its length in 8 big-endian bytes, joined.
    """
    out = bytearray()
    for source in sources:
        for part in (source.id, source.text):
            data = str.encode(part, "utf-8", "surrogatepass")
            size = len(data)
            for shift in range(56, -8, -8):
                out.append((size >> shift) & 0xFF)
            out += data
    return bytes(out)


def _strings(data: list[Any]) -> bool:
    """Whether a non-empty list of passages is all strings (the sources
    :meth:`Snapshot.of_texts` makes of it, each named by its place, are what ``_sources``
    would make).
    """
    if not data:
        return False
    for text in data:  # noqa: SIM110 -- a loop: a compiled cpdef function holds no generator
        if type(text) is not str:
            return False
    return True


_EXACT_FLOAT = 2 ** 53  # the integer scores a float holds exactly


def _passages(data: list[Any], ids: tuple[str, ...] | None = None) -> list[Source] | None:
    """The sources of a list of passage objects that all carry string ids, or (``ids``: their
    places' ids) that all carry none, read at once; or None where ``_sources`` must read them
    (a passage of another shape, a field it would refuse or convert, an id it checks further).
    """
    if not data or (ids is not None and len(ids) != len(data)):
        return None
    found: list[Source] = []
    at = 0
    for item in data:
        if type(item) is not dict:
            return None
        value = item
        given = value.get("id")
        if ids is not None:
            if given is not None:
                return None  # some carry ids, some not: _carry_ids says which
            given = ids[at]
            at += 1
        elif type(given) is not str or not given or given[0].isspace():
            return None  # blank, or not: _sources strips it
        text = value.get("text")
        if type(text) is not str:
            return None
        url = value.get("url")
        if url is None:
            url = value.get("source_url")
        label = value.get("title")
        if label is None:
            label = value.get("label")
            if label is None:
                label = value.get("section")
        score = value.get("score")
        rank = value.get("rank")
        metadata = value.get("metadata")
        if (url is not None and type(url) is not str) or \
                (label is not None and type(label) is not str) or \
                (rank is not None and (type(rank) is not int or rank < 1)) or \
                (metadata is not None and type(metadata) is not dict):
            return None
        if score is not None:
            if type(score) is float:
                if not (score >= 0.0 and math.isfinite(score)):
                    return None  # negative, infinite or not a number
            elif type(score) is not int or not 0 <= score <= _EXACT_FLOAT:
                return None
            score = float(score)
        found.append(Source(given, text, url, label, score, rank,
                            MappingProxyType(metadata) if metadata else NO_METADATA))
    return found
