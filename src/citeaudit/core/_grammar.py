"""Marker grammars: how citation markers look, and how they expand to source ids.

A grammar scans text and returns every :class:`Marker` (raw text, span, ids) and every
:class:`Malformed` marker-looking text (CA101). Presets:

=========== ==================================================================================
``numeric`` ``[1]``, ``[1][2]``, ``[1, 2]``, ``[1-3]``, ``[2 and 4]``, ``[1, 2, and 3]``,
            and the same in full-width forms
``S``       ``[S1]``, ``[S1, S2]``, ``[S1-S3]``; ``[S1]`` resolves to ``S1`` or ``1``;
            ``[S01]`` is malformed
``id``      ``[doc_3]``, ``[resource_id]``, ``[doc_1, doc_2]``
``source``  ``[Source: 4]``, ``[Source: 10, Source: 24]``, ``[Sources: 1, 2]``
``regex:P`` a user pattern with exactly one capture group (the id), run by RE2 in linear time
=========== ==================================================================================

Bracketed text that is not a citation stays prose: markdown links ``[text](url)`` and images,
``[citation needed]``, ``[Accessed: 01-Aug-2021]``, task-list boxes ``[ ]``.
Several grammars chain (:class:`Chain`): on overlap the earlier grammar wins. The presets
but ``regex:P`` are bracket grammars (:mod:`citeaudit.core._brackets`: the markers' records and
the scan, compiled from their own source).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from citeaudit.core._brackets import (
    BracketGrammar,
    Malformed,
    Marker,
    Parsed,
    Scan,
    Sighting,
    sighting,
)
from citeaudit.core._registry import Registry
from citeaudit.core._sources import resolve_id
from citeaudit.errors import GrammarError

if TYPE_CHECKING:
    from citeaudit.core._sources import Snapshot

__all__ = [
    "GRAMMARS",
    "BracketGrammar",
    "Chain",
    "Grammar",
    "Inference",
    "Malformed",
    "Marker",
    "RegexGrammar",
    "Scan",
    "Sighting",
    "compile_linear",
    "get_grammar",
    "infer",
    "infer_grammar",
    "numbered",
    "sighting",
]

# A range such as [1-1000000000] must not expand into a billion ids.
MAX_RANGE = 1000


class Grammar(Protocol):
    """Anything that scans text for citation markers."""

    @property
    def name(self) -> str:
        """How the grammar is named on the command line and in reports."""
        ...

    def scan(self, text: str) -> Scan:
        """Every marker and malformed marker in ``text``, in text order."""
        ...


_SEPARATOR = re.compile(r"\s*(?:[,;]\s*(?:and\s+)?|and\s+|&\s*)", re.IGNORECASE)


def _split_items(content: str) -> list[str] | None:
    """Split a marker's content on commas, semicolons and "and"; None if an item is empty."""
    items = _SEPARATOR.split(content.strip())
    if any(not item for item in items):
        return None
    return items


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMERIC_ITEM = re.compile(r"(-?[0-9]+)(?:\s*[-–—]\s*([0-9]+))?")
_NUMERIC_LIKE = re.compile(r"[\d\s,;&\-–—]*(?:and[\d\s,;&\-–—]*)*", re.IGNORECASE)


def _expand(low: int, high: int, prefix: str) -> tuple[str, ...] | str:
    if high < low:
        return f"range {low}-{high} runs backwards"
    if high - low >= MAX_RANGE:
        return f"range {low}-{high} is longer than {MAX_RANGE} ids"
    return tuple(f"{prefix}{n}" for n in range(low, high + 1))


def _parse_numbers(content: str, item: re.Pattern[str], number: re.Pattern[str], prefix: str,
                   wrong: str) -> Parsed:
    """Ids from a list of numbers and ranges (``1, 3-5 and 7``), each ``item``-shaped with
    ``number``-shaped numbers; ``wrong`` explains a bad item.
    """
    items = _split_items(content)
    if items is None:
        return "empty item in the list"
    ids: list[str] = []
    for text in items:
        match = item.fullmatch(text)
        if match is None or not number.fullmatch(match[1]) or (
                match[2] is not None and not number.fullmatch(match[2])):
            return f"{text!r} {wrong}"
        if match[2] is None:
            ids.append(f"{prefix}{int(match[1])}")
            continue
        expanded = _expand(int(match[1]), int(match[2]), prefix)
        if isinstance(expanded, str):
            return expanded
        ids.extend(expanded)
    return tuple(ids)


def _parse_numeric(content: str) -> Parsed:
    if content.isdigit() and content.isascii():  # the common case, [3]
        if content[0] == "0" and len(content) > 1:
            return "numbers do not start with 0"
        return (content,)
    if not content:
        return "empty marker"
    if not _NUMERIC_LIKE.fullmatch(content) or not any(c.isdigit() for c in content):
        return None
    return _parse_numbers(content, _NUMERIC_ITEM, _NUMBER, "",
                          "is not a number or range (no leading zeros)")


_S_ITEM = re.compile(r"S([0-9]+)(?:\s*[-–—]\s*S?([0-9]+))?")
_S_LIKE = re.compile(r"\s*[Ss](?:[\d\s,;&\-–—Ss]|and)*", re.IGNORECASE)
_POSITIVE = re.compile(r"[1-9][0-9]*")


def _parse_s(content: str) -> Parsed:
    if not content:
        return "empty marker"
    if not _S_LIKE.fullmatch(content):
        return None
    return _parse_numbers(content, _S_ITEM, _POSITIVE, "S",
                          "is not S followed by a number from 1 (no leading zeros)")


_ID_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/#-]*")
_ID_LIKE = re.compile(r"[\sA-Za-z0-9_.:/#,;-]*")
_NOT_CITATIONS = frozenset({"sic", "sic!", "x", "X", "citation needed", "?", "..."})


def _id_parser(token: re.Pattern[str]) -> Callable[[str], Parsed]:
    def parse(content: str) -> Parsed:
        if token.fullmatch(content) and content not in _NOT_CITATIONS:  # the common case
            return (content,)
        if not content:
            return "empty marker"
        if not _ID_LIKE.fullmatch(content) or ("," not in content and ";" not in content):
            return None
        items = [item.strip() for item in re.split(r"[,;]", content)]
        if not any(items):
            return None
        if not all(items):
            return "empty item in the list"
        if not all(token.fullmatch(item) for item in items):
            return None
        return tuple(items)
    return parse


_SOURCE_HEAD = re.compile(r"\s*sources?\s*:?\s*", re.IGNORECASE)


def _parse_source(content: str) -> Parsed:
    head = _SOURCE_HEAD.match(content)
    if head is None or not head.group().strip():
        return None
    items = _split_items(content[head.end():])
    if items is None:
        return "empty item in the list"
    ids: list[str] = []
    for item in items:
        source_id = _SOURCE_HEAD.sub("", item, count=1) if item[:1] in "sS" else item
        if not _ID_TOKEN.fullmatch(source_id):
            return f"{source_id!r} is not a source id"
        ids.append(str(int(source_id)) if source_id.isdigit() and source_id.isascii()
                   else source_id)
    return tuple(ids)


@functools.lru_cache(maxsize=64)
def _prefixed(prefix: str) -> BracketGrammar:
    """Ids written as ``prefix`` + a number, as a snapshot of ``doc_1..doc_N`` uses."""
    token = re.compile(re.escape(prefix) + r"-?[0-9]+")
    parse_ids = _id_parser(token)

    def parse(content: str) -> Parsed:
        if not content.startswith(prefix) and content.strip():
            return None
        parsed = parse_ids(content)
        return parsed if parsed is not None else f"not {prefix} followed by a number"
    return BracketGrammar(f"prefix:{prefix}", parse)


def compile_linear(pattern: str) -> Any:
    """A user pattern compiled by RE2 (linear time whatever the text); a pattern RE2 rejects
    raises ``ValueError`` with RE2's reason, and nothing is logged.
    """
    import re2  # noqa: PLC0415 - imported on use: built-in grammars never pay for it

    options = re2.Options()
    options.log_errors = False  # RE2 would log the error to stderr in two C++ lines
    try:
        return re2.compile(pattern, options)
    except Exception as error:  # re2 raises its own error types; report them all alike
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise ValueError(str(reason)) from None


class RegexGrammar:
    """A user pattern with exactly one capture group, compiled by RE2 (linear time)."""

    __slots__ = ("_pattern", "name")

    def __init__(self, pattern: str) -> None:
        self.name = f"regex:{pattern}"
        try:
            compiled = compile_linear(pattern)
        except ValueError as error:
            raise GrammarError(f"cannot compile grammar regex {pattern!r}: {error}") from None
        if compiled.groups != 1:
            raise GrammarError(f"grammar regex {pattern!r} must have exactly one capture group"
                               f" (the id), it has {compiled.groups}")
        self._pattern = compiled

    def scan(self, text: str) -> Scan:
        markers: list[Marker] = []
        malformed: list[Malformed] = []
        for match in self._pattern.finditer(text):
            start, end = match.span()
            source_id = match.group(1)
            if end == start:
                continue
            if not source_id:
                malformed.append(Malformed(text[start:end], start, end, "empty id"))
            else:
                markers.append(Marker(text[start:end], start, end, (source_id,)))
        return Scan(markers, malformed)

    def __repr__(self) -> str:
        return f"<grammar {self.name}>"


class Chain:
    """Several grammars at once; where markers overlap, the earlier grammar wins."""

    __slots__ = ("grammars", "name")

    def __init__(self, grammars: Sequence[Grammar]) -> None:
        self.grammars = tuple(grammars)
        self.name = ",".join(g.name for g in self.grammars)

    def scan(self, text: str) -> Scan:
        found: list[tuple[int, int, Marker]] = []
        broken: list[tuple[int, int, Malformed]] = []
        for rank, grammar in enumerate(self.grammars):
            scan = grammar.scan(text)
            found.extend((m.start, rank, m) for m in scan.markers)
            broken.extend((m.start, rank, m) for m in scan.malformed)
        found.sort(key=lambda item: (item[0], item[1]))
        markers: list[Marker] = []
        for _, _, marker in found:
            # Kept markers are sorted and disjoint, so only the last one can overlap.
            if not markers or markers[-1].end <= marker.start:
                markers.append(marker)
        malformed: list[Malformed] = []
        index = 0
        for _, _, bad in sorted(broken, key=lambda item: (item[0], item[1])):
            while index < len(markers) and markers[index].end <= bad.start:
                index += 1
            overlaps = index < len(markers) and markers[index].start < bad.end
            if not overlaps and (not malformed or malformed[-1].end <= bad.start):
                malformed.append(bad)
        return Scan(markers, malformed)

    def __repr__(self) -> str:
        return f"<grammar {self.name}>"


def _parse_numeric_or_s(content: str) -> Parsed:
    parsed = _parse_numeric(content)
    return parsed if parsed is not None else _parse_s(content)


def _parse_numbered(content: str) -> Parsed:
    if content[:1] in "sS " and (head := _SOURCE_HEAD.match(content)) and \
            head.group().strip().lower().startswith("source"):
        return _parse_source(content)
    return _parse_numeric_or_s(content)


# [3] and [S3] both name passage 3, in one scan ("numeric,S").
_NUMBERED = BracketGrammar("numeric,S", _parse_numeric_or_s, prefix="S", digits=True)
# Inferred for snapshots numbered 1..N: [3], [S3] and [Source: 3] all name passage 3, in one
# scan, whatever the answer holds (a stream must know how it reads before the text is there).
_NUMBERED_SOURCES = BracketGrammar("numeric,S,source", _parse_numbered, prefix="S",
                                   digits=True)

NUMERIC = BracketGrammar("numeric", _parse_numeric, digits=True)
S = BracketGrammar("S", _parse_s, prefix="S", ordinal=False)
ID = BracketGrammar("id", _id_parser(_ID_TOKEN))
SOURCE = BracketGrammar("source", _parse_source)


def _grammar(loaded: object) -> Grammar:
    if not callable(getattr(loaded, "scan", None)) or not isinstance(
            getattr(loaded, "name", None), str):
        raise TypeError("a grammar has a name and scan(text)")
    return loaded  # type: ignore[return-value]  # a Grammar by its attributes


GRAMMARS: Registry[Grammar] = Registry("grammars", {
    "numeric": f"{__name__}:NUMERIC", "S": f"{__name__}:S", "id": f"{__name__}:ID",
    "source": f"{__name__}:SOURCE"}, what="grammar", validate=_grammar)
"""The marker grammars by name: the presets and installed ones (``citeaudit.grammars``)."""


def get_grammar(spec: str | Grammar | Sequence[str | Grammar]) -> Grammar:
    """A grammar from a preset name, ``regex:PATTERN``, a Grammar, or a sequence of those (a chain).

    A comma-separated string of preset names (``"numeric,S"``) is a chain too.
    """
    if isinstance(spec, str):
        if spec.startswith("regex:"):
            return _regex_grammar(spec.removeprefix("regex:"))
        if "," in spec:
            return get_grammar([part.strip() for part in spec.split(",")])
        grammar = GRAMMARS.get(spec) or GRAMMARS.get(spec.lower())
        if grammar is None:
            raise GrammarError(f"unknown grammar {spec!r}; choose from"
                               f" {', '.join(GRAMMARS)} or regex:PATTERN")
        return grammar
    if isinstance(spec, Sequence):
        if list(spec) == ["numeric", "S"]:
            return _NUMBERED  # the same markers in one scan
        if list(spec) == ["numeric", "S", "source"]:
            return _NUMBERED_SOURCES
        if all(isinstance(part, str) for part in spec):
            return _chain(tuple(str(part) for part in spec))
        grammars = [get_grammar(part) for part in spec]
        if not grammars:
            raise GrammarError("an empty list of grammars")
        return grammars[0] if len(grammars) == 1 else Chain(grammars)
    return spec


@functools.lru_cache(maxsize=256)
def _regex_grammar(pattern: str) -> RegexGrammar:
    """Compiled once per pattern: a request-path caller may pass the same spec every time."""
    return RegexGrammar(pattern)


@functools.lru_cache(maxsize=256)
def _chain(names: tuple[str, ...]) -> Grammar:
    if not names:
        raise GrammarError("an empty list of grammars")
    grammars = [get_grammar(name) for name in names]
    return grammars[0] if len(grammars) == 1 else Chain(grammars)


def numbered() -> Grammar:
    """The grammar inferred for ids 1..N: numeric and S markers in one scan."""
    return _NUMBERED


class Inference(NamedTuple):
    """The grammar chosen for an answer without one asked for, and why (for the report)."""

    grammar: Grammar
    reason: str
    scan: Scan | None = None  # the chosen grammar's scan of the text, when it was made


def infer_grammar(snapshot: Snapshot, text: str | None = None) -> Grammar:
    """The default grammar for a snapshot (and, given, the answer's text): see :func:`infer`."""
    return infer(snapshot, text).grammar


def infer(snapshot: Snapshot, text: str | None = None) -> Inference:
    """The default grammar, from the snapshot's ids and then the answer's markers.

    The snapshot proposes one: ids ``1..N`` give ``numeric`` and ``S`` together (``[3]`` and
    ``[S3]`` both name passage 3); ids ``S1..SN`` give ``S``; ids sharing one prefix and
    numbered ``1..N`` (``doc_1..doc_N``) give a grammar of that prefix; anything else gives
    ``id`` (ids as written). Unless the ids are ``1..N`` or ``S1..SN`` (which say how the
    answer cites), when the answer has bracketed text that this grammar leaves unread or
    unresolved, each preset is tried too (``numeric,S``, ``source``, ``id``) and the
    one under which the most cited ids resolve in the snapshot wins (then the one that reads
    the most number-like markers, which decides alone for an empty snapshot); ties keep the
    snapshot's choice. One scan per candidate: linear in the text.
    """
    numbering = snapshot.numbering
    proposal = _proposed(numbering) if numbering is not None or not _numbers(snapshot) \
        else _NUMBERS
    if text is None or ("[" not in text and "\uff3b" not in text):
        return proposal
    if numbering is not None and numbering[1] and numbering[0] in ("", "S"):
        # Ids 1..N or S1..SN say how the answer cites; shapes they leave unread are CA102.
        return proposal
    proposed, why, _ = proposal
    scan = proposed.scan(text)
    resolved, read = _score(scan, snapshot)
    brackets = text.count("[") + text.count("\uff3b")
    markers = sum(len(m.ids) for m in scan.markers)
    if resolved == markers and len(scan.markers) + len(scan.malformed) >= brackets:
        return Inference(proposed, why, scan)  # everything bracketed is read and resolves
    best = (resolved, read)
    chosen = Inference(proposed, why, scan)
    for candidate in (_NUMBERED, SOURCE, ID):
        if candidate is proposed:
            continue
        other = candidate.scan(text)
        score = _score(other, snapshot)
        if score > best:
            best = score
            what = f"{score[0]} cited ids resolve" if score[0] else \
                f"{score[1]} number-like markers read, none resolves"
            chosen = Inference(candidate, f"the answer's markers under {candidate.name}: {what}"
                               f" (the snapshot's ids, {why.split(': ', 1)[-1]}, proposed"
                               f" {proposed.name})", other)
    return _and_sources(chosen, text, snapshot, proposed)


_CANONICAL_NUMBER = re.compile(r"0|[1-9][0-9]*")
# Ids that are all numbers, though not 1..N in order: the numeric grammar reads them, and
# bracketed words (a chemical's "[EMIM]", a reference's "[Online]") stay prose, as no id of
# the snapshot can be a word.
_NUMBERS = Inference(_NUMBERED, "the snapshot's ids: numbers (not 1..N in order)")
_SOURCE_MARK = re.compile(r"[\[\uff3b]\s*sources?\b", re.IGNORECASE)


def _numbers(snapshot: Snapshot) -> bool:
    return all(_CANONICAL_NUMBER.fullmatch(source.id) for source in snapshot)


def _and_sources(chosen: Inference, text: str, snapshot: Snapshot,
                 proposed: Grammar | None = None) -> Inference:
    """``chosen``, chained with the ``source`` grammar where the answer mixes both shapes
    (``[Source: 1]`` beside ``[2]``) and each names ids of the snapshot: both are read. Where
    only one shape names ids, the other stays unread (CA102). Where ``source`` was chosen,
    the snapshot's ``proposed`` grammar is the other shape.
    """
    grammar = chosen.grammar
    first = proposed if grammar is SOURCE and proposed is not None else grammar
    if first is SOURCE or isinstance(first, Chain) or not _SOURCE_MARK.search(text):
        return chosen
    sources = chosen.scan if grammar is SOURCE and chosen.scan is not None \
        else SOURCE.scan(text)
    named = _score(sources, snapshot)[0]
    own = chosen.scan if grammar is first and chosen.scan is not None else first.scan(text)
    if not named or not _score(own, snapshot)[0]:
        return chosen
    both = Chain((first, SOURCE))
    return Inference(both, f"{chosen.reason}; and [Source n] markers: {named} cited ids"
                           " resolve", both.scan(text))


_NUMBER_LIKE = re.compile(r"S?-?(?:0|[1-9][0-9]*)")  # not S01: a broken marker stays one


def _score(scan: Scan, snapshot: Snapshot) -> tuple[int, int]:
    """(cited ids that resolve in the snapshot, markers that name only numbers)."""
    resolved = 0
    read = 0
    for marker in scan.markers:
        resolved += sum(1 for i in marker.ids
                        if resolve_id(i, marker.prefix, snapshot) is not None)
        read += all(_NUMBER_LIKE.fullmatch(i) for i in marker.ids)
    return resolved, read


@functools.lru_cache(maxsize=256)
def _proposed(numbering: tuple[str, int] | None) -> Inference:
    """The grammar a snapshot numbered so proposes, and why (kept: a request's numbering
    recurs).
    """
    if numbering is None:
        return Inference(ID, "the snapshot's ids: written ids")
    prefix, count = numbering
    if not count:
        return Inference(_NUMBERED, "the snapshot's ids: none (an empty snapshot)")
    if prefix == "":
        return Inference(_NUMBERED_SOURCES, f"the snapshot's ids: 1..{count}")
    if prefix == "S":
        return Inference(S, f"the snapshot's ids: S1..S{count}")
    return Inference(_prefixed(prefix), f"the snapshot's ids: {prefix}1..{prefix}{count}")
