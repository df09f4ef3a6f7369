"""What an answer is reduced to (claims, citations, spans), and the answer-format seam.

An answer format turns one shape of answer (and, where the documents travel with it, its
request) into an :class:`Answer` and a snapshot. Formats are registered like grammars, in the
``citeaudit.formats`` registry; the built-ins (:mod:`citeaudit.formats`) are free ``text``, a
``claims`` list and the ``structured`` answer contract. Without a format named, the first
format that recognises the answer reads it (installed formats first: they recognise more
particular shapes than the built-ins).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, cast, runtime_checkable

from citeaudit.core._claims import ClaimSettings, Exempt
from citeaudit.core._findings import Problem
from citeaudit.core._grammar import Grammar, Malformed, Marker, Scan
from citeaudit.core._policy import NOT_CITABLE
from citeaudit.core._refusal import Refusal
from citeaudit.core._registry import Registry, instance_of
from citeaudit.core._segment import Segmenter, Span, mask, segment
from citeaudit.core._sources import Snapshot, load_snapshot
from citeaudit.errors import InputError

__all__ = [
    "FORMATS",
    "Answer",
    "AnswerFormat",
    "Citation",
    "Claim",
    "Location",
    "Reading",
    "choose_format",
    "citations_of",
    "parse_answer",
    "without_markers",
]

# The built-in kinds: "text", "claims", "structured"; "invalid" when no format reads it.
AnswerKind = str


class Claim(NamedTuple):
    """One unit a citation must cover. ``span`` is in the answer text (free text) or in the claim
    string (claim lists); ``number`` is 1-based.
    """

    number: int
    text: str
    span: tuple[int, int]
    markers: tuple[Marker, ...]
    malformed: tuple[Malformed, ...]


class Location(NamedTuple):
    """Where in its source a provider citation says it points, as the provider gave it.

    ``unit`` is ``"char"`` (0-based characters, end exclusive), ``"page"`` (1-based pages, end
    exclusive), ``"block"`` (0-based content blocks, end exclusive) or ``"source"`` (the whole
    source, named by the provider's index); ``quoted`` is the text
    the citation says is there (``None``: not given); ``label`` names the source as the
    provider numbers it, for messages (``"document_index 2"``).
    """

    unit: str
    start: int
    end: int
    quoted: str | None
    label: str


class Citation(NamedTuple):
    """One cited id, from a marker, a structured citations list or a provider citation."""

    source_id: str
    claim: int | None
    span: tuple[int, int] | None
    marker: str | None
    path: str | None
    prefix: str = ""
    ordinal: bool = False
    # A provider citation's place in its source (checked by CA204/CA205), else None.
    location: Location | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer reduced to what the checks need."""

    kind: AnswerKind
    text: str
    claims: tuple[Claim, ...]
    citations: tuple[Citation, ...]
    malformed: tuple[tuple[int | None, Malformed], ...]
    refusal: bool
    problems: tuple[Problem, ...]  # contract violations (CA404)
    # Free text: the spans of every marker and malformed marker the grammar read, in order.
    marks: tuple[tuple[int, int], ...] = ()
    # The uncited units the claim policy exempted, in text order: why each needs no citation.
    exempt: tuple[Exempt, ...] = ()


class Reading(NamedTuple):
    """How to read an answer's text: the marker grammar, the accepted refusals and the claim
    segmenter.
    """

    grammar: Grammar
    refusal: Refusal
    segmenter: Segmenter = segment
    scanned: Scan | None = None  # the grammar's scan of a text answer, when inference made it
    # The claim policy's rules in force: sentences they exempt need no citation (free text).
    not_citable: frozenset[str] = frozenset(NOT_CITABLE)
    # The snapshot the answer is audited against (a provider's URLs are matched to its ids).
    snapshot: Snapshot | None = None
    # The content judge's settings (``claims``, ``require``); None: the policy's rules alone.
    claims: ClaimSettings | None = None


@runtime_checkable
class AnswerFormat(Protocol):
    """One shape of answer: recognises it, finds its snapshot and reduces it to claims and
    citations.

    A format may also have ``keys``: the top-level keys of which every JSON object it
    recognises has at least one (``()``: it recognises no object). Detection then calls
    ``recognises`` only on the objects that have one of them.
    """

    @property
    def name(self) -> str:
        """The format's name (``--answer-format NAME``, ``answer_shape`` in reports)."""
        ...

    @property
    def expects(self) -> str:
        """What it reads, for messages: "free text (a string)"."""
        ...

    def recognises(self, answer: object) -> bool:
        """Whether ``answer`` is in this format (cheap: called on every audit)."""
        ...

    def snapshot(self, answer: object, sources: object) -> Snapshot:
        """The sources the answer is audited against (from ``sources``, or from the request
        a provider's answer carries).
        """
        ...

    def parse(self, answer: object, reading: Reading) -> Answer:
        """The answer reduced to claims and citations; contract problems become CA404."""
        ...


def _answer_format(loaded: object) -> AnswerFormat:
    return cast(AnswerFormat, instance_of(loaded, AnswerFormat, (
        "an answer format has name, expects, recognises(answer),"
        " snapshot(answer, sources) and parse(answer, reading)")))


FORMATS: Registry[AnswerFormat] = Registry("formats", what="answer format",
                                              validate=_answer_format)


class SourcesAsGiven:
    """For formats whose snapshot is the ``sources`` argument, in any snapshot shape."""

    def snapshot(self, answer: object, sources: object) -> Snapshot:  # noqa: ARG002
        return load_snapshot(sources)


_order: list[AnswerFormat] | None = None
# With only the built-ins installed, the format follows from the answer's type.
_by_type: dict[type, AnswerFormat] = {}
# The formats that may recognise a JSON object, by its keys (in order): those that declare no
# ``keys`` and those with one of their keys among them.
_by_keys: dict[tuple[object, ...], tuple[AnswerFormat, ...]] = {}
_KEPT_KEYS = 32  # objects with more keys than this are sorted out without the cache
_KEPT_SHAPES = 1024


def _detection_order() -> list[AnswerFormat]:
    global _order  # noqa: PLW0603 - computed once: which formats are installed
    if _order is None:
        builtins = FORMATS.builtins()
        # Installed formats first: each recognises a particular shape (a provider's
        # response); the built-ins take what is left, by type.
        _order = [FORMATS[name] for name in FORMATS if name not in builtins] + [
            FORMATS[name] for name in (
                "anthropic", "perplexity-responses", "openai-responses", "perplexity",
                "azure-on-your-data", "mistral", "openai-chat", "openai-assistants", "cohere",
                "gemini", "gemini-interactions", "bedrock", "bedrock-converse", "xai", "structured",
                "claims", "text")]
        if len(_order) == len(builtins):
            _by_type.update({str: FORMATS["text"], list: FORMATS["claims"]})
    return _order


def _candidates(answer: dict[Any, Any], shape: tuple[object, ...],
                ) -> tuple[AnswerFormat, ...]:
    """The formats, in detection order, that may recognise the JSON object ``answer`` (whose
    keys, in order, are ``shape``): a format's ``keys`` (when it has them) name the top-level
    keys of which every object it recognises has one, so most are passed over without a call.
    """
    found = tuple(f for f in _detection_order()
                  if (keys := getattr(f, "keys", None)) is None or
                  not answer.keys().isdisjoint(keys))
    if len(shape) <= _KEPT_KEYS and len(_by_keys) < _KEPT_SHAPES:
        _by_keys[shape] = found
    return found


def _forget_order() -> None:
    global _order  # noqa: PLW0603 - see _detection_order
    _order = None
    _by_type.clear()
    _by_keys.clear()


FORMATS.on_reload(_forget_order)


def choose_format(answer: object, name: str | None = None) -> AnswerFormat | None:
    """The format called ``name`` (an :class:`~citeaudit.InputError` saying what it expects
    when ``answer`` is not in it), else the first that recognises ``answer`` (``None``: none
    does).
    """
    if name is not None:
        chosen = FORMATS.require(name)
        if not chosen.recognises(answer):
            unmet = _unmet(chosen, answer)
            if unmet is not None and isinstance(answer, dict):
                raise InputError(f"not {chosen.expects}, as the {chosen.name} format expects:"
                                 f" {unmet[2]}", origin="<answer>", place=unmet[1])
            raise InputError(f"not {chosen.expects}, as the {chosen.name} format expects, but"
                             f" {_described(answer)}", origin="<answer>")
        return chosen
    candidates: Sequence[AnswerFormat]
    if type(answer) is dict:
        shape = tuple(answer)
        candidates = _by_keys.get(shape) or _candidates(answer, shape)
    else:
        known = _by_type.get(type(answer))
        if known is not None:
            return known
        candidates = _detection_order()
    for candidate in candidates:
        if candidate.recognises(answer):
            return candidate
    return None


def parse_answer(value: Any, grammar: Grammar, refusal: str | Sequence[str] | Refusal,
                 segmenter: Segmenter = segment, *, format: str | None = None) -> Answer:
    """Reduce an answer in any accepted shape to claims and citations.

    ``refusal``: the accepted refusal strings (or a :class:`~citeaudit.core.Refusal`);
    ``segmenter`` splits free text into claims (default: :func:`~citeaudit.segment`);
    ``format`` names the answer format (default: the first that recognises the answer).
    """
    chosen = choose_format(value, format)
    if chosen is None:
        return unreadable_answer(value)
    return chosen.parse(value, Reading(grammar, Refusal.of(refusal), segmenter))


def unreadable_answer(value: object) -> Answer:
    """The answer no format recognises: one CA404, naming the format an object comes closest
    to and the field it lacks, else saying what answers may be.
    """
    closest = _closest(value) if isinstance(value, dict) else None
    if closest is not None:
        form, path, problem = closest
        found = Problem("CA404", f"no answer format reads this object: it looks most like"
                        f" {form.expects}, but {problem}", path=path)
    else:
        builtins = ("text", "claims", "structured")
        providers = ", ".join(name for name in FORMATS if name not in builtins)
        found = Problem("CA404", "an answer must be free text (a string), a list of claim"
                        " strings, an object with status, text and citations, or a provider's"
                        f" response ({providers}); not {_described(value)}", path="$")
    return Answer("invalid", "", (), (), (), False, (found,))


def _closest(value: dict[str, Any]) -> tuple[AnswerFormat, str, str] | None:
    """The format whose ``needs`` the object meets most of (then: leaves fewest unmet; then:
    comes first), with the JSON path and description of the first need it does not meet;
    None when it meets none.
    """
    best: tuple[tuple[int, int], AnswerFormat, str, str] | None = None
    for form in _detection_order():
        unmet = _unmet(form, value)
        if unmet is None or unmet[0] == 0:
            continue
        score = (unmet[0], unmet[0] - len(getattr(form, "needs", ())))  # most met, fewest not
        if best is None or score > best[0]:
            best = (score, form, unmet[1], unmet[2])
    return best[1:] if best is not None else None


def _unmet(form: AnswerFormat, value: object) -> tuple[int, str, str] | None:
    """How many of the format's ``needs`` (``(dotted path, a type or the value)`` pairs)
    ``value`` meets, and the first it does not (path and what is wrong); None when the
    format declares no needs, or all are met.
    """
    needs: tuple[tuple[str, object], ...] = getattr(form, "needs", ())
    met = 0
    first: tuple[str, str] | None = None
    for dotted, wanted in needs:
        found: object = value
        for key in dotted.split("."):
            if isinstance(found, list) and key.isdigit():
                found = found[int(key)] if int(key) < len(found) else _MISSING
            else:
                found = found.get(key, _MISSING) if isinstance(found, dict) else _MISSING
        ok = isinstance(found, wanted) if isinstance(wanted, type) else found == wanted
        if ok:
            met += 1
            continue
        if first is None:
            name = dotted.rsplit(".", 1)[-1]
            shown = _TYPE_NAMES[wanted] if isinstance(wanted, type) else json.dumps(wanted)
            first = ("$." + ".".join(f"[{k}]" if k.isdigit() else k for k in dotted.split("."))
                     .replace(".[", "["),
                     f'"{name}" is missing (it should be {shown})' if found is _MISSING else
                     f'"{name}" is {_value(found)}, not {shown}')
    return (met, *first) if first is not None else None


def _value(found: object) -> str:
    """A value as a message shows it: short strings and numbers as JSON, others by kind."""
    if (isinstance(found, str) and len(found) <= 40) or isinstance(found, int | float):
        return json.dumps(found)
    return _described(found)


_MISSING = object()
_TYPE_NAMES = {list: "a list", dict: "an object", str: "a string", int: "a number"}


def _described(value: object) -> str:
    if isinstance(value, dict):
        keys = ", ".join(sorted(map(str, value))[:6])
        return f"an object with keys {keys}" if keys else "an empty object"
    return {str: "a string", list: "a list", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def without_markers(text: str, markers: Sequence[Marker]) -> str:
    """``text`` with the markers cut out."""
    return mask(text, [Span(m.start, m.end) for m in markers], "")


def citations_of(markers: Sequence[Marker], owners: Iterable[int | None]) -> list[Citation]:
    """One citation per id each marker names; ``owners`` gives each marker's claim number."""
    return [Citation(source_id, claim, (m.start, m.end), m.raw, None, m.prefix, m.ordinal, None)
            for m, claim in zip(markers, owners, strict=False)  # owners may be repeat()
            for source_id in m.ids]


# An Answer from all its fields' values in order (marks too); the frozen __init__ costs
# ~0.9 us.
new_answer = Answer
