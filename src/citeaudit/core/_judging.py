"""The support-judge seam: (claim, cited passages) → score, verdict, evidence, problems; and
the registry of judges (``citeaudit.judges``: factories taking a threshold, or ``None`` for the
judge's own default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple, Protocol

from citeaudit.core._registry import Registry

__all__ = ["CONTRADICTING", "JUDGES", "ClaimSupport", "Evidence", "Judgement", "Outcome",
           "Passage", "Remembered", "SupportJudge", "get_judge"]

Passage = tuple[str, str]  # (source id, text)
Outcome = Literal["supported", "unsupported", "contradicted"]
# The rule codes that say the passages state the opposite of the claim, not merely too little:
# an amount (CA501) or the whole claim (CA504).
CONTRADICTING = frozenset(("CA501", "CA504"))


class Evidence(NamedTuple):
    """Where in a cited passage a judge found what supports (or contradicts) a claim.

    ``start`` and ``end`` are ``[start, end)`` offsets into the passage's text exactly as the
    snapshot holds it, in Python ``str`` indices (code points, not bytes or UTF-16 units), so
    ``text[start:end] == quote`` always.
    """

    source_id: str
    start: int
    end: int
    quote: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"source_id": self.source_id, "start": self.start, "end": self.end,
                "quote": self.quote}


class Judgement(NamedTuple):
    """Whether cited passages support one claim."""

    score: float  # in [0, 1]
    supported: bool
    evidence: str  # the passage sentence or window that supports the claim best
    source_id: str | None  # the passage it is in
    problems: tuple[tuple[str, str], ...] = ()  # (rule code, message), CA5xx
    spans: tuple[Evidence, ...] = ()  # where ``evidence`` is, in its passage
    contradicted: bool = False  # the passages state the opposite (not merely too little)
    note: str = ""  # why there is no span, when there is none

    @property
    def outcome(self) -> Outcome:
        """``supported``, ``unsupported`` or ``contradicted``."""
        if self.contradicted:
            return "contradicted"
        return "supported" if self.supported else "unsupported"


class ClaimSupport(NamedTuple):
    """One claim's judgement, as the report gives it."""

    claim: int  # 1-based claim number
    judgement: Judgement

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (see ``docs/support.md``)."""
        judgement = self.judgement
        return {"claim": self.claim, "outcome": judgement.outcome,
                "score": round(judgement.score, 6), "source_id": judgement.source_id,
                "evidence": [span.to_dict() for span in judgement.spans],
                "note": judgement.note or None}


class SupportJudge(Protocol):
    """Judges claims against the passages they cite, in batches."""

    @property
    def name(self) -> str:
        """How the judge is named (``--support NAME``)."""
        ...

    @property
    def threshold(self) -> float:
        """The score below which a claim counts as unsupported."""
        ...

    def judge(self, pairs: Sequence[tuple[str, Sequence[Passage]]]) -> list[Judgement]:
        """One judgement per (claim, cited passages) pair, in order."""
        ...


class Remembered:
    """A judge that answers each (claim, cited passages) once per audit: the support check
    and the ALCE metrics ask the same questions, and a model judge would pay twice.
    """

    def __init__(self, judge: SupportJudge, memo: dict[object, Judgement]) -> None:
        self._judge = judge
        self._memo = memo
        self.name = judge.name
        self.threshold = judge.threshold

    def judge(self, pairs: Sequence[tuple[str, Sequence[Passage]]]) -> list[Judgement]:
        memo = self._memo
        keys = [(claim, tuple(passages)) for claim, passages in pairs]
        missing = [key for key in dict.fromkeys(keys) if key not in memo]
        if missing:
            judged = self._judge.judge([(claim, list(passages)) for claim, passages in missing])
            memo.update(zip(missing, judged, strict=True))
        return [memo[key] for key in keys]



JudgeFactory = Callable[[float | None], SupportJudge]


def _factory(loaded: object) -> JudgeFactory:
    if not callable(loaded):
        raise TypeError("a judge entry point names a factory: threshold -> judge")
    return loaded  # its signature is checked when it is called


JUDGES: Registry[JudgeFactory] = Registry("judges", what="support judge", validate=_factory)


def get_judge(name: str, threshold: float | None = None) -> SupportJudge:
    """The support judge called ``name``, with ``threshold`` or its own default."""
    return JUDGES.require(name)(threshold)
