"""Which uncited units need a citation, judged by what they say: the presets, the kinds a
unit may be exempted as, and the judge that decides for one answer.

The claim policy's rules (:mod:`citeaudit.core._policy`) exempt what their form settles (a
question, a lead-in ending in a colon, a greeting). Under the ``balanced`` and ``lenient``
presets an uncited unit they leave is then read for what it says: the citability scorer
(:mod:`citeaudit.core._citable`) gives it a score from its words, its shape, where it stands
in the answer (:mod:`citeaudit.core._layout`) and how much of a retrieved passage it
restates. A unit below the preset's threshold needs no citation, and is reported as exempt
with the kind the scorer finds likeliest (``advice``, ``meta``, ``platitude``, ...). A unit
that states an amount always needs one (CA302), except inside a reference block. ``strict``
is the rules alone. ``require`` lists kinds that must carry a citation all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from citeaudit.core._amounts import states_amount
from citeaudit.core._citable import (
    KINDS,
    Unit,
    about_itself,
    citability,
    content_of,
    entry_shaped,
    features,
    load_model,
    passage_words,
    reference_piece,
    unit_at,
    words_of,
)
from citeaudit.core._layout import Layout, reference_blocks
from citeaudit.core._policy import RULE_KINDS
from citeaudit.core._sources import Snapshot

__all__ = ["EXEMPT_KINDS", "PRESETS", "RULE_KINDS", "ClaimSettings", "Exempt", "Judge",
           "claim_settings", "judge_of", "why_citable"]

PRESETS = ("strict", "balanced", "lenient")
EXEMPT_KINDS = (*KINDS, "listed")
# How much more a unit must look like a claim to need a citation under ``lenient`` than
# under ``balanced`` (the model's threshold): on the development split, recall of the
# citable units falls from 0.95 to about 0.90.
_LENIENT_MARGIN = 0.15


class Exempt(NamedTuple):
    """An uncited unit that needs no citation: where it is, why (its kind), and its
    citability score (None where a rule of the policy, not the scorer, exempted it).
    """

    span: tuple[int, int]
    kind: str
    score: float | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"span": [start, end], "kind": ..., "score": ...}``."""
        score = None if self.score is None else round(self.score, 3)
        return {"span": list(self.span), "kind": self.kind, "score": score}


class ClaimSettings(NamedTuple):
    """What the configuration asks of uncited units beyond the policy's rules: the score
    from which a unit needs a citation (None: ``strict``, the rules alone) and the kinds
    that need one whatever their score.
    """

    threshold: float | None
    require: frozenset[str] = frozenset()


def claim_settings(preset: str, require: Iterable[str] = ()) -> ClaimSettings:
    """The settings of a preset (``strict``, ``balanced``, ``lenient``) and required kinds."""
    if preset not in PRESETS:
        raise ValueError(f"unknown claims preset {preset!r}: expected one of "
                         f"{', '.join(PRESETS)}")
    if preset == "strict":
        return ClaimSettings(None, frozenset(require))
    threshold = load_model().threshold
    if preset == "lenient":
        threshold += _LENIENT_MARGIN
    return ClaimSettings(threshold, frozenset(require))


class Judge:
    """The content decision over one answer's uncited units: built once per answer, asked
    per unit; the answer's layout and the passages' words are read when first needed.
    """

    __slots__ = ("_all", "_layout", "_passages", "_references", "_snapshot", "_whole",
                 "settings", "text")

    def __init__(self, text: str, settings: ClaimSettings, snapshot: Snapshot | None,
                 references: list[tuple[int, int]] | None = None,
                 whole: Callable[[], Sequence[tuple[int, int]]] | None = None) -> None:
        self.text = text
        self.settings = settings
        self._snapshot = snapshot  # its sources read only where the model is reached
        self._passages: list[frozenset[str]] | None = None
        self._layout: Layout | None = None
        self._references = references  # the text's reference_blocks, where already read
        # Where the units are made only as far as the first that needs a citation, all of
        # them: the model reads a unit's neighbours and the answer's layout.
        self._whole = whole
        self._all: Sequence[tuple[int, int]] | None = None  # what ``whole`` made

    def exempted(self, spans: Sequence[tuple[int, int]], at: int,
                 ) -> tuple[str, float | None] | None:
        """The kind and score of the uncited unit ``spans[at]`` if it needs no citation, or
        None: it needs one.
        """
        threshold = self.settings.threshold
        if threshold is None:
            return None
        text = self.text
        start, end = spans[at]
        if self._references is None:
            self._references = reference_blocks(text)
        listed = _within(self._references, start)
        if listed and "reference" not in self.settings.require:  # a reference list's line
            return "reference", None
        if not listed and _states_figure(text, start, end):
            return None  # what the scorer would say, without reading the answer's layout
        if self._whole is not None:  # the units judged so far are final, so ``at`` holds
            if self._all is None:
                self._all = self._whole()
            spans = self._all
        if self._layout is None:
            self._layout = Layout(text, spans)
        before = text[spans[at - 1][0]:spans[at - 1][1]] if at else ""
        after = text[spans[at + 1][0]:spans[at + 1][1]] if at + 1 < len(spans) else ""
        unit = unit_at(text, start, end, before, after)._replace(layout=self._layout.names(at))
        has_sources = self._snapshot is not None and len(self._snapshot) > 0
        decided = citability(unit, self._passage_words if has_sources else (), threshold)
        if decided.citable or decided.kind in self.settings.require:
            return None
        # Below the threshold the model decided; at or above it a layout rule did (a title
        # line, an entry under a references heading), and the score says nothing of it.
        return decided.kind, (decided.score if decided.score < threshold else None)


    def _passage_words(self) -> list[frozenset[str]]:
        """The content words of each retrieved passage (read once, when first needed)."""
        if self._passages is None:
            sources = self._snapshot.sources if self._snapshot is not None else ()
            texts = (" ".join(filter(None, (s.label, s.text))) for s in sources)
            self._passages = [passage_words(t) for t in texts if t.strip()]
        return self._passages


def _within(blocks: list[tuple[int, int]], at: int) -> bool:
    """Whether ``at`` lies in one of ``blocks`` (a loop: compiled, a generator expression is
    an object made for every unit asked about).
    """
    for start, end in blocks:  # noqa: SIM110 -- see above
        if start <= at < end:
            return True
    return False


def _states_figure(text: str, start: int, end: int) -> bool:
    """Whether the scorer would find that the unit ``text[start:end]`` (in no reference
    list) states an amount, so needs a citation, whatever its layout: it states one, holds no
    link, is no piece of a bibliography entry ("Lee, K. (2020).") and its line is not shaped
    like one (the things that let an amount go, ``states_figure``).
    """
    unit = text[start:end]
    content = content_of(unit)
    if "http" in unit or "www." in unit or "](" in unit or not states_amount(content) or \
            about_itself(content) or reference_piece(content):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    return not entry_shaped(text[line_start:len(text) if line_end < 0 else line_end].strip())


def judge_of(text: str, settings: ClaimSettings | None, snapshot: Snapshot | None,
             references: list[tuple[int, int]] | None = None,
             whole: Callable[[], Sequence[tuple[int, int]]] | None = None) -> Judge | None:
    """The content judge of one answer's ``text`` under ``settings`` (None: the rules alone
    decide), reading the passages of ``snapshot``; ``references``, the text's
    ``reference_blocks`` where the caller has read them; ``whole``, where the caller makes
    the units only as far as it needs, what makes them all.
    """
    if settings is None or settings.threshold is None:
        return None
    return Judge(text, settings, snapshot, references,
                 whole)


def why_citable(text: str, passages: Iterable[tuple[str, str]]) -> str:
    """Why an uncited unit needs a citation, in words for CA301/CA302: "states a figure",
    "restates passage <id>" (most of its content words are in that passage), "names an
    entity", else "states a claim". ``passages``: (id, text) of the retrieved passages.
    """
    if states_amount(text):
        return "states a figure"
    content = {w for w in words_of(text) if len(w) > 3}
    if content:
        best, share = "", 0.0
        for source_id, passage in passages:
            overlap = len(content & set(words_of(passage))) / len(content)
            if overlap > share:
                best, share = source_id, overlap
        if share >= 0.5:
            return f"restates passage {best}"
    if any(name.startswith("names:") and name != "names:0" for name in features(Unit(text))):
        return "names an entity"
    return "states a claim"
