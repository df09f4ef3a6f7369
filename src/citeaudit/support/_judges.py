"""The support-judge seam: (claim, cited passages) → score, verdict, evidence, problems."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from citeaudit.errors import ConfigError

__all__ = ["Judgement", "Passage", "Remembered", "SupportJudge", "device", "windows"]

_SENTENCE_END = re.compile(r"[.!?。！？](?=\s)|\n")  # a character-class start: fast


def sentences(text: str) -> list[tuple[int, int]]:
    """The spans of the sentences (and lines) of ``text``, blank ones left out."""
    spans = []
    start = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    return spans


def windows(text: str) -> list[str]:
    """What a claim is compared with: each sentence, and each two adjacent sentences."""
    parts = [text[a:b].strip() for a, b in sentences(text)]
    return parts + [f"{a} {b}" for a, b in itertools.pairwise(parts)]

Passage = tuple[str, str]  # (source id, text)


class Judgement(NamedTuple):
    """Whether cited passages support one claim."""

    score: float  # in [0, 1]
    supported: bool
    evidence: str  # the passage sentence or window that supports the claim best
    source_id: str | None  # the passage it is in
    problems: tuple[tuple[str, str], ...] = ()  # (rule code, message), CA5xx


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


def device(torch: Any) -> str:
    """Where a model judge runs: ``CITEAUDIT_DEVICE`` when set (``cpu``, ``cuda``, ``cuda:1``,
    ``mps``), else CUDA or Apple's MPS when present, else the CPU.
    """
    chosen = os.environ.get("CITEAUDIT_DEVICE", "").strip()
    if chosen:
        kind = chosen.split(":", 1)[0]
        available = {"cpu": True, "cuda": torch.cuda.is_available(),
                     "mps": bool(getattr(torch.backends, "mps", None))
                     and torch.backends.mps.is_available()}
        if kind not in available:
            raise ConfigError(f"CITEAUDIT_DEVICE {chosen!r}: use cpu, cuda, cuda:N or mps")
        if not available[kind]:
            raise ConfigError(f"CITEAUDIT_DEVICE {chosen!r}: no such device here")
        return chosen
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else "cpu"
